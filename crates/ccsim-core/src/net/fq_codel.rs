//! FQ-CoDel (RFC 8290): flow queueing with CoDel per queue. Arrivals are hashed by flow into
//! `flows` queues; a deficit round robin with `quantum` bytes per round serves them, new
//! queues (those that just became active) before old ones, so a sparse flow's packets go
//! out ahead of a bulk flow's backlog; each queue runs its own CoDel (`net::codel`), and
//! when the whole discipline is over its `limit` a packet is dropped from the head of the
//! queue holding the most bytes.
//!
//! The scheduler follows RFC 8290 §4 (enqueue §4.1.1: classify, timestamp, add an inactive
//! queue to the tail of the new list with a full quantum, drop from the fattest queue on
//! overflow; dequeue §4.1.2 and §4.2: a queue whose deficit is spent goes to the tail of the
//! old list with a fresh quantum; a new queue that turns out empty moves to the old list if
//! that list has queues, else leaves the lists), in our own code. Like CoDel, it decides at
//! dequeue, so its link runs the dequeue-time model (`net::link`, `Pipe::Sched`).
//!
//! Classification. ccsim's packets carry their flow, not a 5-tuple: the queue is a hash of
//! the flow id (a SplitMix64 finaliser) modulo `flows`, so flows share a queue only when
//! their hashes collide, as in a real FQ-CoDel. A connection's data and its ACKs travel on
//! different links, so each link's queues hold one direction.
//!
//! Each queue's CoDel tests "less than one packet left" against its own backlog (RFC 8290
//! §4.2: CoDel runs on each queue as it would alone).

use std::collections::VecDeque;

use super::codel::{Codel, CodelSpec};
use crate::packet::Packet;
use crate::params::{Dflt, Kind, Lit, Param, Ty};
use crate::results::DropCause;
use crate::units::{Dur, SimTime};
use serde::{Deserialize, Serialize};

/// FQ-CoDel's parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)] // declared, with doc and source, in PARAMS
pub struct FqCodelSpec {
    pub flows: u64,
    pub quantum: u64,
    pub limit: u64,
    pub target: Dur,
    pub interval: Dur,
    pub ecn: bool,
}

impl Default for FqCodelSpec {
    fn default() -> FqCodelSpec {
        crate::params::defaults(PARAMS)
    }
}

/// FQ-CoDel's parameter table.
pub const PARAMS: &[Param] = &[
    Param::int("flows", 1024, 1, 65536)
        .doc("number of flow queues arrivals are hashed into")
        .source("RFC 8290 §5.2.2 and Linux sch_fq_codel.c (1024)"),
    Param::new("quantum", Ty::Size { min: 1, max: u64::MAX }, Dflt::Value(Lit::Int(1514)))
        .doc("bytes a queue may send per round of the deficit round robin")
        .source("RFC 8290 §5.2.1 (one MTU; Linux: 1514 bytes with the Ethernet header)"),
    Param::new("limit", Ty::Packets { min: 1, max: u64::MAX }, Dflt::Value(Lit::Int(10240)))
        .doc("packets held by all queues together, counting the one in transmission; an arrival beyond it makes the fattest queue drop its head")
        .source("RFC 8290 §5.2.3 and Linux sch_fq_codel.c (10240 packets)"),
    Param::positive_duration("target", "5ms")
        .doc("each queue's CoDel target")
        .source("RFC 8290 §5.1 (RFC 8289's 5 ms)"),
    Param::positive_duration("interval", "100ms")
        .doc("each queue's CoDel interval")
        .source("RFC 8290 §5.1 (RFC 8289's 100 ms)"),
    Param::boolean("ecn", true)
        .doc("mark ECN-capable packets CE instead of dropping them")
        .source("RFC 8290 §5.1 (ECN SHOULD be on); Linux sch_fq_codel.c (on by default)"),
];

/// `queue = { kind = "fq_codel" }`.
pub const KIND: Kind = Kind::new(
    "fq_codel",
    "FQ-CoDel: per-flow queues served by deficit round robin, CoDel on each (RFC 8290)",
    &[PARAMS],
);

/// One flow queue: its CoDel (which holds the packets) and its deficit.
#[derive(Clone, Debug)]
struct FlowQueue {
    codel: Codel,
    deficit: i64,
    /// In the new or the old list.
    listed: bool,
}

/// FQ-CoDel state.
#[derive(Clone, Debug)]
pub struct FqCodel {
    p: FqCodelSpec,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    packets: u64,
    bytes: u64,
}

/// The queue of flow `flow` among `n` (SplitMix64's finaliser spreads consecutive ids).
pub fn bucket(flow: u32, n: u64) -> u32 {
    let mut z = (flow as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z % n) as u32
}

impl FqCodel {
    /// Empty queues.
    pub fn new(p: FqCodelSpec) -> FqCodel {
        let codel = CodelSpec {
            target: p.target,
            interval: p.interval,
            limit: u64::MAX, // the limit is the discipline's (`enqueue`)
            ecn: p.ecn,
        };
        FqCodel {
            p,
            queues: (0..p.flows)
                .map(|_| FlowQueue {
                    codel: Codel::unallocated(codel),
                    deficit: 0,
                    listed: false,
                })
                .collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            packets: 0,
            bytes: 0,
        }
    }

    /// Packets waiting in all queues.
    pub fn len(&self) -> usize {
        self.packets as usize
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.packets == 0
    }

    /// Bytes waiting in all queues.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes of memory the queues take.
    pub fn memory_bytes(&self) -> u64 {
        let own = self.queues.capacity() * std::mem::size_of::<FlowQueue>();
        own as u64
            + self
                .queues
                .iter()
                .map(|q| q.codel.memory_bytes())
                .sum::<u64>()
    }

    /// Packets waiting in the queue of `flow`.
    pub fn queued_of(&self, flow: u32) -> usize {
        self.queues[bucket(flow, self.p.flows) as usize].codel.len()
    }

    /// RFC 8290 §4.1.1: queue an arrival at `now` (`in_service` packets are on the
    /// transmitter and count towards the limit). Over the limit the head of the queue with
    /// the most bytes is dropped (it may be another flow's: pushed to `drops`).
    pub fn enqueue(
        &mut self,
        now: SimTime,
        pkt: Packet,
        in_service: u64,
        drops: &mut Vec<(Packet, DropCause)>,
    ) {
        let i = bucket(pkt.flow.0, self.p.flows) as usize;
        let q = &mut self.queues[i];
        q.codel.push(now, pkt);
        if !q.listed {
            q.listed = true;
            q.deficit = self.p.quantum as i64;
            self.new_flows.push_back(i as u32);
        }
        self.packets += 1;
        self.bytes += pkt.size as u64;
        if self.packets + in_service > self.p.limit {
            let fattest = (0..self.queues.len())
                .max_by_key(|&k| (self.queues[k].codel.bytes(), std::cmp::Reverse(k)))
                .expect("at least one queue");
            if let Some(d) = self.queues[fattest].codel.drop_head() {
                self.packets -= 1;
                self.bytes -= d.size as u64;
                drops.push((d, DropCause::QueueOverflow));
            }
        }
    }

    /// RFC 8290 §4.1.2 and §4.2: the next packet to transmit at `now`, with the time it
    /// entered; CoDel's drops on the way are pushed to `drops`, its marks counted in
    /// `marks`.
    pub fn dequeue(
        &mut self,
        now: SimTime,
        drops: &mut Vec<(Packet, DropCause)>,
        marks: &mut u64,
    ) -> Option<(Packet, SimTime)> {
        loop {
            let (from_new, i) = match self.new_flows.front() {
                Some(&i) => (true, i as usize),
                None => (false, *self.old_flows.front()? as usize),
            };
            let quantum = self.p.quantum as i64;
            let q = &mut self.queues[i];
            if q.deficit <= 0 {
                q.deficit += quantum;
                self.pop_list(from_new);
                self.old_flows.push_back(i as u32);
                continue;
            }
            let before = (drops.len(), q.codel.len(), q.codel.bytes());
            let got = q.codel.dequeue(now, drops, marks);
            // What left the queue: the packet sent and CoDel's drops.
            self.packets -= (before.1 - q.codel.len()) as u64;
            self.bytes -= before.2 - q.codel.bytes();
            debug_assert_eq!(
                drops.len() - before.0 + got.is_some() as usize,
                before.1 - q.codel.len()
            );
            match got {
                Some((pkt, enq)) => {
                    q.deficit -= pkt.size as i64;
                    return Some((pkt, enq));
                }
                None => {
                    // Empty: a new queue gets one pass through the old list (so that a
                    // flow cannot stay "new" forever); otherwise it leaves the lists.
                    self.pop_list(from_new);
                    if from_new && !self.old_flows.is_empty() {
                        self.old_flows.push_back(i as u32);
                    } else {
                        self.queues[i].listed = false;
                    }
                }
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{EndpointId, FlowId, NodeId};
    use crate::packet::PacketKind;

    fn pkt(flow: u32, size: u32) -> Packet {
        Packet::new(
            PacketKind::Data,
            FlowId(flow),
            NodeId(1),
            EndpointId(1),
            size,
        )
    }

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }

    /// Two flows whose ids hash to different queues.
    fn two_flows(n: u64) -> (u32, u32) {
        let a = 0;
        let b = (1..).find(|&f| bucket(f, n) != bucket(a, n)).unwrap();
        (a, b)
    }

    fn fq() -> FqCodel {
        FqCodel::new(FqCodelSpec::default())
    }

    #[test]
    fn defaults_are_the_rfcs() {
        let s = FqCodelSpec::default();
        assert_eq!((s.flows, s.quantum, s.limit), (1024, 1514, 10240));
        assert_eq!(
            (s.target, s.interval),
            (Dur::from_millis(5), Dur::from_millis(100))
        );
    }

    #[test]
    fn the_hash_spreads_flows_over_the_queues() {
        let mut seen = std::collections::HashSet::new();
        for f in 0..1000 {
            seen.insert(bucket(f, 1024));
        }
        // 1000 balls in 1024 bins fill about 1024·(1 − e^(−1000/1024)) ≈ 638 bins.
        assert!((590..690).contains(&seen.len()), "{}", seen.len());
    }

    #[test]
    fn a_new_flow_is_served_before_the_backlog_of_an_old_one() {
        let (bulk, sparse) = two_flows(1024);
        let mut q = fq();
        let (mut drops, mut marks) = (Vec::new(), 0);
        for _ in 0..50 {
            q.enqueue(ms(0), pkt(bulk, 1500), 0, &mut drops);
        }
        // The bulk queue sends one quantum, then goes to the old list.
        q.dequeue(ms(0), &mut drops, &mut marks).unwrap();
        q.dequeue(ms(0), &mut drops, &mut marks).unwrap();
        q.enqueue(ms(1), pkt(sparse, 200), 0, &mut drops);
        let (next, _) = q.dequeue(ms(1), &mut drops, &mut marks).unwrap();
        assert_eq!(
            next.flow,
            FlowId(sparse),
            "the sparse flow's packet goes next"
        );
    }

    #[test]
    fn backlogged_queues_share_bytes_by_quantum() {
        // DRR: two backlogged queues with 1500- and 500-byte packets send equal bytes per
        // round (±one packet), not equal packets.
        let (a, b) = two_flows(1024);
        let mut q = fq();
        let (mut drops, mut marks) = (Vec::new(), 0);
        for _ in 0..300 {
            q.enqueue(ms(0), pkt(a, 1500), 0, &mut drops);
            q.enqueue(ms(0), pkt(b, 500), 0, &mut drops);
            q.enqueue(ms(0), pkt(b, 500), 0, &mut drops);
            q.enqueue(ms(0), pkt(b, 500), 0, &mut drops);
        }
        let (mut ba, mut bb) = (0u64, 0u64);
        for _ in 0..400 {
            let (p, _) = q.dequeue(ms(0), &mut drops, &mut marks).unwrap();
            if p.flow == FlowId(a) {
                ba += p.size as u64;
            } else {
                bb += p.size as u64;
            }
        }
        assert!(ba.abs_diff(bb) <= 1500, "{ba} {bb}");
        assert!(drops.is_empty());
    }

    #[test]
    fn overflow_drops_the_head_of_the_fattest_queue() {
        let (a, b) = two_flows(4);
        let mut q = FqCodel::new(FqCodelSpec {
            flows: 4,
            limit: 10,
            ..FqCodelSpec::default()
        });
        let mut drops = Vec::new();
        for i in 0..8 {
            let mut p = pkt(a, 1500);
            p.seq = i;
            q.enqueue(ms(0), p, 0, &mut drops);
        }
        q.enqueue(ms(0), pkt(b, 1500), 0, &mut drops);
        q.enqueue(ms(0), pkt(b, 1500), 0, &mut drops);
        assert!(drops.is_empty());
        // The 11th packet is the sparse flow's, but the bulk flow's head is dropped.
        q.enqueue(ms(0), pkt(b, 1500), 0, &mut drops);
        assert_eq!(drops.len(), 1);
        assert_eq!((drops[0].0.flow, drops[0].0.seq), (FlowId(a), 0));
        assert_eq!(q.len(), 10);
        assert_eq!(q.queued_of(b), 3);
    }

    #[test]
    fn an_emptied_new_queue_passes_through_the_old_list_once() {
        let (a, b) = two_flows(1024);
        let mut q = fq();
        let (mut drops, mut marks) = (Vec::new(), 0);
        for _ in 0..4 {
            q.enqueue(ms(0), pkt(a, 1500), 0, &mut drops);
        }
        q.dequeue(ms(0), &mut drops, &mut marks); // a: new, sends
        q.dequeue(ms(0), &mut drops, &mut marks); // a: deficit spent → old list, sends
        q.enqueue(ms(0), pkt(b, 100), 0, &mut drops);
        q.dequeue(ms(0), &mut drops, &mut marks); // b: new, sends its one packet
                                                  // b is empty: it moves to the old list (a is there), not out of the lists.
        q.dequeue(ms(0), &mut drops, &mut marks);
        assert!(q.queues[bucket(b, 1024) as usize].listed);
        while q.dequeue(ms(0), &mut drops, &mut marks).is_some() {}
        assert!(q.new_flows.is_empty() && q.old_flows.is_empty());
        assert!(q.queues.iter().all(|fq| !fq.listed));
        assert_eq!((q.len(), q.bytes()), (0, 0));
    }

    #[test]
    fn each_queue_runs_its_own_codel() {
        // A standing 20 ms queue in one flow's queue makes CoDel drop there (after an
        // interval above target), while another flow's queue, drained at once, never drops.
        let (bulk, sparse) = two_flows(1024);
        let mut q = FqCodel::new(FqCodelSpec {
            ecn: false,
            ..FqCodelSpec::default()
        });
        let (mut drops, mut marks) = (Vec::new(), 0);
        for _ in 0..20 {
            q.enqueue(ms(0), pkt(bulk, 1500), 0, &mut drops);
        }
        for t in 1..400 {
            q.enqueue(ms(t), pkt(bulk, 1500), 0, &mut drops);
            q.enqueue(ms(t), pkt(sparse, 100), 0, &mut drops);
            // Two departures per ms: the sparse packet (new queue first) and one bulk one.
            q.dequeue(ms(t), &mut drops, &mut marks);
            q.dequeue(ms(t), &mut drops, &mut marks);
        }
        assert!(!drops.is_empty());
        assert!(drops
            .iter()
            .all(|(p, c)| p.flow == FlowId(bulk) && *c == DropCause::Aqm));
    }
}
