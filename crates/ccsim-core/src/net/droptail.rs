//! DropTail: accept while the queue (counting the packet in transmission) stays within its
//! limit. Counting the packet in service gives the same capacity as ns-2's DropTail, which
//! refuses an arrival when `waiting + 1 >= limit` while the link holds one more.

use super::queue::{Occupancy, QueueLimit};
use crate::params::{Dflt, Kind, Lit, Param, Ty};
use crate::results::DropCause;

/// DropTail's parameter table.
pub const PARAMS: &[Param] = &[Param::new("limit", Ty::QueueLimit, Dflt::Value(Lit::Int(100)))
    .doc("arrivals that find the queue full are dropped; the packet being transmitted counts towards the limit (ns-2's DropTail capacity)")
    .source("our choice: 100 packets, a common ns-2 scenario value (ns-2.35 tcl/lib/ns-default.tcl Queue limit_ is 50)")];

/// `queue = "droptail"`.
pub const KIND: Kind = Kind::new(
    "droptail",
    "drop arrivals when the queue is full",
    &[PARAMS],
);

/// Tail-drop queue.
#[derive(Clone, Debug)]
pub struct DropTail {
    limit: QueueLimit,
}

impl DropTail {
    /// A queue with this limit.
    pub fn new(limit: QueueLimit) -> DropTail {
        DropTail { limit }
    }

    /// Whether an arrival of `size` bytes fits behind `packets` packets of `bytes` bytes.
    #[inline]
    pub fn fits(&self, size: u64, packets: u64, bytes: u64) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => packets < n,
            QueueLimit::Bytes(b) => bytes + size <= b,
        }
    }

    /// Accept or drop an arrival.
    #[inline]
    pub fn admit(&mut self, size: u64, occ: Occupancy) -> Result<(), DropCause> {
        if self.fits(size, occ.packets, occ.bytes) {
            Ok(())
        } else {
            Err(DropCause::QueueOverflow)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    fn occ(packets: u64, bytes: u64) -> Occupancy {
        Occupancy {
            packets,
            bytes,
            idle_since: SimTime::ZERO,
        }
    }

    #[test]
    fn packet_limit_counts_the_packet_in_service() {
        let mut q = DropTail::new(QueueLimit::Packets(3));
        assert_eq!(q.admit(1500, occ(0, 0)), Ok(()));
        assert_eq!(q.admit(1500, occ(2, 3000)), Ok(()));
        assert_eq!(q.admit(1500, occ(3, 4500)), Err(DropCause::QueueOverflow));
    }

    #[test]
    fn byte_limit_admits_what_fits() {
        let mut q = DropTail::new(QueueLimit::Bytes(3000));
        assert_eq!(q.admit(1500, occ(1, 1500)), Ok(()));
        assert_eq!(q.admit(1501, occ(1, 1500)), Err(DropCause::QueueOverflow));
        assert_eq!(q.admit(40, occ(2, 2990)), Err(DropCause::QueueOverflow));
    }
}
