//! Queue disciplines as admission policies.
//!
//! A link decides *at arrival* whether a packet enters its queue. The link computes its own
//! occupancy (arithmetically in the fast model, by counting in the per-hop model) and asks
//! the discipline, which is a pure state machine: no clock, no events.

use super::droptail::DropTail;
use super::red::{Red, RedSpec};
use crate::params::{Kind, Kinds};
use crate::results::DropCause;
use crate::rng::SimRng;
use crate::units::SimTime;
use serde::{Deserialize, Serialize};

/// A queue's size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueLimit {
    /// At most this many packets held, counting the one being transmitted (the same capacity
    /// as ns-2's DropTail, which refuses an arrival when `waiting + 1 >= limit`).
    Packets(u64),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// A link's queue discipline, as a scenario configures it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum QueueSpec {
    /// Drop arrivals when full.
    #[serde(rename = "droptail")]
    DropTail {
        /// Size limit.
        limit: QueueLimit,
    },
    /// Random Early Detection (Floyd & Jacobson 1993) with ns-2's defaults.
    #[serde(rename = "red")]
    Red(RedSpec),
}

/// The queue disciplines a link's `queue` can name.
pub const QUEUE_KINDS: Kinds = Kinds {
    what: "queue kind",
    list: || vec![&super::droptail::KIND, &super::red::KIND],
    note: "",
    number: None,
};

/// Every queue kind, for the reference (`params::reference`).
pub fn kinds() -> Vec<&'static Kind> {
    (QUEUE_KINDS.list)()
}

/// The link's state seen by an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Packets held, counting the one being transmitted.
    pub packets: u64,
    /// Bytes held, counting the packet being transmitted.
    pub bytes: u64,
    /// When the link last became empty (meaningful when `packets == 0`).
    pub idle_since: SimTime,
}

impl Occupancy {
    /// Packets waiting behind the one in transmission.
    pub fn waiting(&self) -> u64 {
        self.packets.saturating_sub(1)
    }
}

/// The queue disciplines (enum dispatch: no boxing on the hot path).
#[derive(Clone, Debug)]
pub enum QueueDisc {
    /// Tail drop at a limit.
    DropTail(DropTail),
    /// Random Early Detection.
    Red(Red),
}

impl QueueDisc {
    /// Whether an arrival of `size` bytes is admitted whatever the link holds, knowing only
    /// that it holds at most `max_packets` packets and `max_bytes` bytes: then the link
    /// need not count exactly (DropTail far from its limit). RED always needs the count.
    #[inline]
    pub fn admits_within(&self, size: u64, max_packets: u64, max_bytes: u64) -> bool {
        match self {
            QueueDisc::DropTail(q) => q.fits(size, max_packets, max_bytes),
            QueueDisc::Red(_) => false,
        }
    }

    /// Admit a packet of `size` bytes arriving at `now`, or say why it is dropped.
    #[inline]
    pub fn admit(
        &mut self,
        now: SimTime,
        size: u64,
        occ: Occupancy,
        rng: &mut SimRng,
    ) -> Result<(), DropCause> {
        match self {
            QueueDisc::DropTail(q) => q.admit(size, occ),
            QueueDisc::Red(q) => q.admit(now, size, occ, rng),
        }
    }
}
