//! DCTCP's step-threshold marker (Alizadeh et al., SIGCOMM 2010, §3.1; RFC 8257 §3.1): an
//! arriving ECN-capable packet is marked CE when the instantaneous queue exceeds K packets.
//! There is no averaging: the signal is meant to be immediate. A packet that is not
//! ECN-capable is dropped where an ECT one would be marked (RFC 3168 §5: the router drops
//! when it cannot mark), as ns-2's RED configured as a DCTCP marker (`thresh_ =
//! maxthresh_ = K`, `q_weight_ = 1`, `setbit_ true`) does. Above the hard `limit` every
//! arrival is dropped, as by DropTail.
//!
//! The queue counted is the one DropTail limits: packets held, counting the one in
//! transmission (`Occupancy::packets`), as the arriving packet finds it.

use super::queue::{Admit, Occupancy};
use crate::params::{Dflt, Kind, Lit, Param, Ty};
use crate::results::DropCause;
use serde::{Deserialize, Serialize};

/// The step marker's parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)] // declared, with doc and source, in PARAMS
pub struct StepSpec {
    pub k: u64,
    pub limit: u64,
}

impl Default for StepSpec {
    fn default() -> StepSpec {
        crate::params::defaults(PARAMS)
    }
}

/// The step marker's parameter table.
pub const PARAMS: &[Param] = &[
    Param::new("k", Ty::Packets { min: 0, max: u64::MAX }, Dflt::Value(Lit::Int(20)))
        .doc("marking threshold: an ECN-capable arrival is marked CE when more than k packets are held (a packet that is not ECN-capable is dropped instead)")
        .source("Alizadeh et al., SIGCOMM 2010, §3.4 (K = 20 packets at 1 Gb/s; the guideline is K > C·RTT/7, §3.3)"),
    Param::new("limit", Ty::Packets { min: 1, max: u64::MAX }, Dflt::Value(Lit::Int(100)))
        .doc("hard limit: arrivals that find this many packets held are dropped (the packet being transmitted counts)")
        .source("our choice: DropTail's default of 100 packets"),
];

/// `queue = { kind = "step", k = 20 }`.
pub const KIND: Kind = Kind::new(
    "step",
    "DCTCP's step marker: CE when the instantaneous queue exceeds k packets (RFC 8257 §3.1)",
    &[PARAMS],
);

/// Step-threshold marker state (none beyond its parameters).
#[derive(Clone, Debug)]
pub struct StepMark {
    k: u64,
    limit: u64,
}

impl StepMark {
    /// A marker with threshold `k` and hard limit `limit` (packets).
    pub fn new(spec: StepSpec) -> StepMark {
        StepMark {
            k: spec.k,
            limit: spec.limit,
        }
    }

    /// Mark, accept or drop an arrival (`ect`: ECN-capable) that finds `occ`.
    #[inline]
    pub fn admit(&self, ect: bool, occ: Occupancy) -> Result<Admit, DropCause> {
        if occ.packets >= self.limit {
            Err(DropCause::QueueOverflow)
        } else if occ.packets <= self.k {
            Ok(Admit::Enqueue)
        } else if ect {
            Ok(Admit::MarkCe)
        } else {
            Err(DropCause::Aqm)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    fn occ(packets: u64) -> Occupancy {
        Occupancy {
            packets,
            bytes: packets * 1500,
            idle_since: SimTime::ZERO,
        }
    }

    #[test]
    fn marks_only_above_k() {
        // "Mark an arriving packet if the queue occupancy is greater than K" (SIGCOMM 2010
        // §3.1): exactly K held is not marked, K + 1 is.
        let q = StepMark::new(StepSpec { k: 20, limit: 100 });
        assert_eq!(q.admit(true, occ(0)), Ok(Admit::Enqueue));
        assert_eq!(q.admit(true, occ(20)), Ok(Admit::Enqueue));
        assert_eq!(q.admit(true, occ(21)), Ok(Admit::MarkCe));
        assert_eq!(q.admit(true, occ(99)), Ok(Admit::MarkCe));
    }

    #[test]
    fn drops_what_it_cannot_mark_and_everything_at_the_limit() {
        let q = StepMark::new(StepSpec { k: 20, limit: 100 });
        // RFC 3168 §5: a packet that is not ECN-capable is dropped instead of marked.
        assert_eq!(q.admit(false, occ(20)), Ok(Admit::Enqueue));
        assert_eq!(q.admit(false, occ(21)), Err(DropCause::Aqm));
        assert_eq!(q.admit(true, occ(100)), Err(DropCause::QueueOverflow));
        assert_eq!(q.admit(false, occ(100)), Err(DropCause::QueueOverflow));
    }

    #[test]
    fn k_zero_marks_whenever_a_packet_is_held() {
        let q = StepMark::new(StepSpec { k: 0, limit: 10 });
        assert_eq!(q.admit(true, occ(0)), Ok(Admit::Enqueue));
        assert_eq!(q.admit(true, occ(1)), Ok(Admit::MarkCe));
    }
}
