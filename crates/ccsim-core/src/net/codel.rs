//! CoDel, Controlled Delay (RFC 8289): a FIFO that measures each packet's sojourn time when
//! it leaves the queue and, once the sojourn has stayed above `target` for at least
//! `interval`, drops (or, with `ecn`, marks) packets at dequeue at intervals that shrink as
//! interval/√count (the control law, RFC 8289 §3.3), until the sojourn falls below target.
//!
//! The state machine follows the RFC's pseudocode (§5: `dodequeue`, `dequeue`,
//! `control_law`), in our own code. Decisions happen when the link takes a packet to
//! transmit (`dequeue`), so a CoDel link runs the dequeue-time link model
//! (`net::sched_pipe`): a waiting queue owned by the discipline, a transmission-end event
//! per packet. That is the textbook model, exact by construction; the fast model's
//! departure times fixed at arrival cannot express a drop decided at dequeue.
//!
//! `bytes() <= maxpacket` of the RFC (do not drop when less than one packet remains
//! queued) uses the largest packet seen so far, as the RFC's `maxpacket_` and Linux's
//! `stats.maxpacket` do.

use std::collections::VecDeque;

use crate::packet::{Packet, FLAG_CE};
use crate::params::{Dflt, Kind, Lit, Param, Ty};
use crate::results::DropCause;
use crate::units::{Dur, SimTime};
use serde::{Deserialize, Serialize};

/// CoDel's parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)] // declared, with doc and source, in PARAMS
pub struct CodelSpec {
    pub target: Dur,
    pub interval: Dur,
    pub limit: u64,
    pub ecn: bool,
}

impl Default for CodelSpec {
    fn default() -> CodelSpec {
        crate::params::defaults(PARAMS)
    }
}

/// CoDel's parameter table.
pub const PARAMS: &[Param] = &[
    Param::positive_duration("target", "5ms")
        .doc("acceptable standing queue delay: dropping starts when the sojourn time stays above it for an interval")
        .source("RFC 8289 §4.4 (5 ms)"),
    Param::positive_duration("interval", "100ms")
        .doc("the sliding window over which the minimum sojourn must stay above target; the first drop comes one interval after, the next ones interval/√count apart")
        .source("RFC 8289 §4.3 (100 ms)"),
    Param::new("limit", Ty::Packets { min: 1, max: u64::MAX }, Dflt::Value(Lit::Int(1000)))
        .doc("hard limit of the queue in packets (waiting plus the one in transmission); arrivals beyond it are dropped at the tail")
        .source("Linux sch_codel.c default limit 1000 packets (RFC 8289 leaves the buffer size open)"),
    Param::boolean("ecn", false)
        .doc("mark ECN-capable packets CE instead of dropping them (RFC 8289 §5, RFC 3168)")
        .source("Linux sch_codel.c (ecn off by default)"),
];

/// `queue = { kind = "codel" }`.
pub const KIND: Kind = Kind::new(
    "codel",
    "CoDel: drops at dequeue when the sojourn time stays above target for an interval (RFC 8289)",
    &[PARAMS],
);

/// The result of taking a packet off the queue (the RFC's `dodequeue_result`).
struct Dodequeue {
    /// The packet and the time it entered.
    pkt: Option<(Packet, SimTime)>,
    ok_to_drop: bool,
}

/// CoDel state and its queue.
#[derive(Clone, Debug)]
pub struct Codel {
    p: CodelSpec,
    queue: VecDeque<(Packet, SimTime)>,
    bytes: u64,
    maxpacket: u64,
    /// When the sojourn time first went above target (`None`: it is below).
    first_above_time: Option<SimTime>,
    drop_next: SimTime,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl Codel {
    /// An empty CoDel queue.
    pub fn new(p: CodelSpec) -> Codel {
        Codel::new_with(p)
    }

    fn new_with(p: CodelSpec) -> Codel {
        Codel {
            p,
            queue: VecDeque::with_capacity(64),
            bytes: 0,
            maxpacket: 0,
            first_above_time: None,
            drop_next: SimTime::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
        }
    }

    /// An empty CoDel queue that allocates on its first packet (FQ-CoDel's many queues).
    pub fn unallocated(p: CodelSpec) -> Codel {
        Codel {
            queue: VecDeque::new(),
            ..Codel::new_with(p)
        }
    }

    /// Packets waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes of memory the queue takes.
    pub fn memory_bytes(&self) -> u64 {
        (self.queue.capacity() * std::mem::size_of::<(Packet, SimTime)>()) as u64
    }

    /// Whether the control law is dropping.
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// The drop count of the current dropping state.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Queue an arrival at `now`; `in_service` packets are on the transmitter (they count
    /// towards the limit, as DropTail's). A full queue drops the arrival.
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet, in_service: u64) -> Result<(), DropCause> {
        if self.queue.len() as u64 + in_service >= self.p.limit {
            return Err(DropCause::QueueOverflow);
        }
        self.push(now, pkt);
        Ok(())
    }

    /// Queue an arrival at `now` whatever the limit (FQ-CoDel keeps the limit itself).
    pub fn push(&mut self, now: SimTime, pkt: Packet) {
        self.maxpacket = self.maxpacket.max(pkt.size as u64);
        self.bytes += pkt.size as u64;
        self.queue.push_back((pkt, now));
    }

    /// Remove the head without the control law (FQ-CoDel's drop on overflow).
    pub fn drop_head(&mut self) -> Option<Packet> {
        let (pkt, _) = self.queue.pop_front()?;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    /// RFC 8289 §5 `control_law`: t + interval/√count.
    fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        t + Dur::from_secs_f64(self.p.interval.secs() / (count.max(1) as f64).sqrt())
    }

    /// RFC 8289 §5 `dodequeue`: take the head and say whether it may be dropped.
    fn dodequeue(&mut self, now: SimTime) -> Dodequeue {
        let Some((pkt, enq)) = self.queue.pop_front() else {
            self.first_above_time = None;
            return Dodequeue {
                pkt: None,
                ok_to_drop: false,
            };
        };
        self.bytes -= pkt.size as u64;
        let sojourn = now.since(enq);
        let mut ok_to_drop = false;
        if sojourn < self.p.target || self.bytes <= self.maxpacket {
            // Below target, or less than a packet left: leave the dropping state's timer.
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + self.p.interval),
                Some(t) if now >= t => ok_to_drop = true,
                Some(_) => {}
            }
        }
        Dodequeue {
            pkt: Some((pkt, enq)),
            ok_to_drop,
        }
    }

    /// Drop `pkt` or, with `ecn` and an ECN-capable packet, mark it: returns the packet
    /// to send (the marked one) or `None` after pushing it to `drops`.
    fn signal(&self, mut pkt: Packet, drops: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        if self.p.ecn && pkt.is_ect() {
            pkt.flags |= FLAG_CE;
            Some(pkt)
        } else {
            drops.push((pkt, DropCause::Aqm));
            None
        }
    }

    /// RFC 8289 §5 `dequeue` at `now`: the packet to transmit, if any, with the time it
    /// entered. Packets dropped on the way are pushed to `drops`; `marks` counts CE marks.
    pub fn dequeue(
        &mut self,
        now: SimTime,
        drops: &mut Vec<(Packet, DropCause)>,
        marks: &mut u64,
    ) -> Option<(Packet, SimTime)> {
        let mut r = self.dodequeue(now);
        let Some((mut pkt, mut enq)) = r.pkt else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !r.ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if let Some(marked) = self.signal(pkt, drops) {
                    // Marked, not dropped: it is sent; the next signal follows the law.
                    *marks += 1;
                    self.drop_next = self.control_law(self.drop_next, self.count);
                    return Some((marked, enq));
                }
                r = self.dodequeue(now);
                let Some(next) = r.pkt else {
                    self.dropping = false;
                    return None;
                };
                (pkt, enq) = next;
                if !r.ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                }
            }
        } else if r.ok_to_drop {
            let sent = match self.signal(pkt, drops) {
                Some(marked) => {
                    *marks += 1;
                    Some((marked, enq))
                }
                None => self.dodequeue(now).pkt,
            };
            self.dropping = true;
            // RFC 8289 §5: resume near the previous drop rate if dropping stopped recently.
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && now.since(self.drop_next) < Dur(self.p.interval.0.saturating_mul(16)) {
                self.count = delta;
            }
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
            return sent;
        }
        Some((pkt, enq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{EndpointId, FlowId, NodeId};
    use crate::packet::{PacketKind, FLAG_ECT};

    fn pkt(seq: u64) -> Packet {
        let mut p = Packet::new(PacketKind::Data, FlowId(0), NodeId(1), EndpointId(1), 1500);
        p.seq = seq;
        p
    }

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }

    fn codel(ecn: bool) -> Codel {
        Codel::new(CodelSpec {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            limit: 1000,
            ecn,
        })
    }

    /// A queue fed 20 packets at t = 0, then one packet in and one out every ms: the
    /// packets of t = 0 leave at 1, 2, … ms with sojourns of 1, 2, … ms, and from then on
    /// the standing queue keeps the sojourn near 20 ms. Returns the dequeue times (ms) of
    /// the drops.
    fn standing_queue(c: &mut Codel, until_ms: u64) -> Vec<u64> {
        let mut drops = Vec::new();
        let mut marks = 0;
        let mut dropped_at = Vec::new();
        for i in 0..20 {
            c.enqueue(ms(0), pkt(i), 0).unwrap();
        }
        for t in 1..until_ms {
            c.enqueue(ms(t), pkt(1000 + t), 0).unwrap();
            let before = drops.len();
            c.dequeue(ms(t), &mut drops, &mut marks);
            for _ in before..drops.len() {
                dropped_at.push(t);
            }
        }
        dropped_at
    }

    #[test]
    fn below_target_nothing_is_dropped() {
        let mut c = codel(false);
        let (mut drops, mut marks) = (Vec::new(), 0);
        for t in 0..1000 {
            c.enqueue(ms(t), pkt(t), 0).unwrap();
            c.enqueue(ms(t), pkt(t), 0).unwrap();
            // Two in, two out within 4 ms: the sojourn stays below 5 ms.
            c.dequeue(ms(t + 4), &mut drops, &mut marks);
            c.dequeue(ms(t + 4), &mut drops, &mut marks);
        }
        assert!(drops.is_empty() && !c.dropping());
    }

    #[test]
    fn the_first_drop_comes_one_interval_after_the_sojourn_exceeds_target() {
        // The sojourn first reaches target (5 ms) at the dequeue at 5 ms, so
        // first_above_time = 105 ms and the first drop is the dequeue at 105 ms.
        let mut c = codel(false);
        let at = standing_queue(&mut c, 400);
        assert_eq!(at[0], 105);
    }

    #[test]
    fn drops_follow_the_control_law_interval_over_sqrt_count() {
        // RFC 8289 §3.3: the k-th drop of a dropping state comes interval/√k after the
        // previous one (each drop also removes a packet, so the queue shrinks; the sojourn
        // stays above target as long as it holds more than 5 packets' worth).
        let mut c = codel(false);
        let at = standing_queue(&mut c, 400);
        assert!(at.len() >= 4, "{at:?}");
        // drop_next = 105 + 100/√1, then + 100/√2, + 100/√3 (ms; drops happen at the next
        // dequeue on the 1 ms grid).
        let law = [
            105.0,
            205.0,
            205.0 + 100.0 / 2f64.sqrt(),
            205.0 + 100.0 / 2f64.sqrt() + 100.0 / 3f64.sqrt(),
        ];
        for (k, expect) in law.iter().enumerate() {
            assert!(
                (at[k] as f64 - expect.ceil()).abs() <= 1.0,
                "drop {k} at {} ms, law {expect:.1}: {at:?}",
                at[k]
            );
        }
    }

    #[test]
    fn a_short_queue_is_never_dropped_from() {
        // `bytes() <= maxpacket`: one packet left is never a standing queue.
        let mut c = codel(false);
        let (mut drops, mut marks) = (Vec::new(), 0);
        for t in 0..500 {
            c.enqueue(ms(t), pkt(t), 0).unwrap();
            c.enqueue(ms(t), pkt(t), 0).unwrap();
            // Sojourn 50 ms, but only one packet stays behind.
            c.dequeue(ms(t + 50), &mut drops, &mut marks);
            c.dequeue(ms(t + 50), &mut drops, &mut marks);
        }
        assert!(drops.is_empty());
    }

    #[test]
    fn with_ecn_ect_packets_are_marked_and_sent() {
        let mut c = codel(true);
        let (mut drops, mut marks) = (Vec::new(), 0);
        for i in 0..30 {
            let mut p = pkt(i);
            p.flags |= FLAG_ECT;
            c.enqueue(ms(0), p, 0).unwrap();
        }
        let mut marked = 0;
        for t in 1..30 {
            let mut p = pkt(100 + t);
            p.flags |= FLAG_ECT;
            c.enqueue(ms(t * 10), p, 0).unwrap();
            if let Some((out, _)) = c.dequeue(ms(t * 10), &mut drops, &mut marks) {
                marked += (out.flags & FLAG_CE != 0) as u64;
            }
        }
        assert!(drops.is_empty());
        assert!(marks > 0 && marked == marks);
    }

    #[test]
    fn the_limit_drops_at_the_tail() {
        let mut c = Codel::new(CodelSpec {
            limit: 3,
            ..CodelSpec::default()
        });
        assert!(c.enqueue(ms(0), pkt(0), 1).is_ok());
        assert!(c.enqueue(ms(0), pkt(1), 1).is_ok());
        assert_eq!(c.enqueue(ms(0), pkt(2), 1), Err(DropCause::QueueOverflow));
    }
}
