//! Deterministic event queue.
//!
//! Events are ordered by a 128-bit key: time (ns) in the high 64 bits, then an event class,
//! then a tie-breaker. Within one instant, transmission ends come before packet arrivals,
//! which come before timers. Packet arrivals tie-break by link index (a link never has two
//! arrivals at one instant), which makes the order independent of *when* an arrival was
//! scheduled: the `Fast` and `PerHop` link models then process the very same sequence.
//! Timers tie-break by insertion order. Merge-point feeds (fast model) share the first
//! class with transmission ends (per-hop model only): a merge point takes the packets
//! arriving at an instant before anything else happens at that instant, as the arrival
//! events it replaces would have. The heap is 4-ary (shallower than binary, and its
//! children share a cache line).

use crate::ids::{EndpointId, LinkId};
use crate::units::SimTime;

/// What happens when an event fires. Small and `Copy`: no boxed closures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of a link's pipe reaches the far end.
    LinkArrival(LinkId),
    /// (Per-hop link model only.) A link finishes transmitting its current packet.
    TxDone(LinkId),
    /// An endpoint's earliest timer may be due.
    Wakeup(EndpointId),
    /// Time-series sampling.
    Sample,
    /// Control work: routing agents' timers and scheduled link failures/recoveries.
    Control,
    /// (Fast link model.) Merge point number `n` takes the packets its feeders bring
    /// within their lookahead (see `sim::sim_merge`).
    Merge(u32),
}

/// Ordering class of an event within one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventClass {
    /// Transmission ends (state changes only, nothing is sent).
    TxDone = 0,
    /// Packet arrivals, by link index.
    Arrival = 1,
    /// Timers and sampling, by insertion order.
    Timer = 2,
}

/// Payload bit marking a merge-point feed in the first class.
const MERGE_BIT: u64 = 1 << (TIE_BITS - 1);

/// The pending events. Each is one `u128` that is both the ordering key and the event:
/// time (64 bits) | class (2) | payload (62). For arrivals and transmission ends the
/// payload is the link index; for timers it is a 40-bit insertion sequence followed by a
/// 22-bit target (an endpoint, or `SAMPLE` for sampling), so timers order by insertion and
/// the target is recovered from the key.
///
/// Two 4-ary heaps: `timers` holds every timer-class event, `main` everything else and a
/// copy of the earliest timer's key. A simulation with many endpoints keeps a timer per
/// endpoint far ahead (retransmission timeouts, applications' next switch: ~590 of the
/// ~620 pending events of a MATCP run with 448 sources), while the events handled most
/// (link arrivals) are few at a time; in one heap every arrival sifted through all the
/// timers' levels. `main` pops in key order, and the earliest timer is always in it, so
/// the order is the one heap's (keys are unique).
#[derive(Debug, Default)]
pub struct EventQueue {
    main: Heap4,
    timers: Heap4,
    /// Timer keys copied into `main` that a later, earlier timer superseded as the
    /// earliest (each still pending in `timers`, still in `main`), latest last (so the
    /// smallest last): when the timer before them fires, the next earliest timer is the
    /// last of these and needs no new copy.
    superseded: Vec<u128>,
    seq: u64,
}

const TIE_BITS: u32 = 62;
const TARGET_BITS: u32 = 22;
const TARGET_MASK: u64 = (1 << TARGET_BITS) - 1;
/// Timer target standing for the sampling event.
const SAMPLE: u64 = TARGET_MASK;
/// Timer target standing for the control event.
const CONTROL: u64 = TARGET_MASK - 1;
/// Most endpoints a simulation can have (the timer target field).
pub const MAX_ENDPOINTS: usize = CONTROL as usize;

#[inline]
fn key_of(t: SimTime, class: EventClass, tie: u64) -> u128 {
    debug_assert!(tie < (1u64 << TIE_BITS));
    ((t.0 as u128) << 64) | ((class as u128) << TIE_BITS) | tie as u128
}

#[inline]
fn decode(k: u128) -> (SimTime, Event) {
    let t = SimTime((k >> 64) as u64);
    let tie = (k as u64) & ((1u64 << TIE_BITS) - 1);
    let ev = match (k >> TIE_BITS as u128) as u64 & 3 {
        0 if tie & MERGE_BIT != 0 => Event::Merge(tie as u32),
        0 => Event::TxDone(LinkId(tie as u32)),
        1 => Event::LinkArrival(LinkId(tie as u32)),
        _ => match tie & TARGET_MASK {
            SAMPLE => Event::Sample,
            CONTROL => Event::Control,
            ep => Event::Wakeup(EndpointId(ep as u32)),
        },
    };
    (t, ev)
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue {
            main: Heap4(Vec::with_capacity(128)),
            timers: Heap4(Vec::with_capacity(128)),
            superseded: Vec::new(),
            seq: 0,
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        let copies = self.superseded.len() + !self.timers.0.is_empty() as usize;
        self.main.0.len() + self.timers.0.len() - copies
    }

    /// Bytes of memory the queue takes.
    pub fn memory_bytes(&self) -> u64 {
        let slots = self.main.0.capacity() + self.timers.0.capacity() + self.superseded.capacity();
        (slots * std::mem::size_of::<u128>()) as u64
    }

    /// Whether no events are pending.
    pub fn is_empty(&self) -> bool {
        self.main.0.is_empty()
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.main.0.first().map(|k| SimTime((k >> 64) as u64))
    }

    /// The earliest event, left in place (see `pop_top` and `replace_top_*`).
    #[inline]
    pub fn peek(&self) -> Option<(SimTime, Event)> {
        self.main.0.first().map(|&k| decode(k))
    }

    /// Schedule a packet arrival from `link` at `t`.
    #[inline]
    pub fn push_arrival(&mut self, t: SimTime, link: LinkId) {
        self.main
            .push(key_of(t, EventClass::Arrival, link.0 as u64));
    }

    /// Schedule merge point `n`'s feed at `t`.
    #[inline]
    pub fn push_merge(&mut self, t: SimTime, n: u32) {
        self.main
            .push(key_of(t, EventClass::TxDone, MERGE_BIT | n as u64));
    }

    /// Schedule a transmission end on `link` at `t`.
    #[inline]
    pub fn push_tx_done(&mut self, t: SimTime, link: LinkId) {
        self.main.push(key_of(t, EventClass::TxDone, link.0 as u64));
    }

    /// Schedule a timer-class event (`Wakeup` or `Sample`); ties break by insertion order.
    #[inline]
    pub fn push_timer(&mut self, t: SimTime, ev: Event) {
        let k = self.timer_key(t, ev);
        self.push_timer_key(k);
    }

    #[inline]
    fn push_timer_key(&mut self, k: u128) {
        match self.timers.peek() {
            None => self.main.push(k),
            Some(first) if k < first => {
                self.superseded.push(first);
                self.main.push(k);
            }
            Some(_) => {}
        }
        self.timers.push(k);
    }

    #[inline]
    fn timer_key(&mut self, t: SimTime, ev: Event) -> u128 {
        let target = match ev {
            Event::Wakeup(ep) => {
                debug_assert!((ep.0 as u64) < CONTROL, "too many endpoints");
                ep.0 as u64
            }
            Event::Sample => SAMPLE,
            Event::Control => CONTROL,
            _ => panic!("not a timer event: {ev:?}"),
        };
        let s = self.seq;
        self.seq += 1;
        debug_assert!(
            s < 1 << (TIE_BITS - TARGET_BITS),
            "timer sequence exhausted"
        );
        key_of(t, EventClass::Timer, (s << TARGET_BITS) | target)
    }

    /// Replace the earliest event (an arrival) by an arrival from `link` at `t` (which must
    /// not be earlier than the event replaced): one sift instead of a pop and a push.
    #[inline]
    pub fn replace_top_arrival(&mut self, t: SimTime, link: LinkId) {
        debug_assert!(self.main.peek().is_some_and(|k| !is_timer(k)));
        self.main
            .replace_top(key_of(t, EventClass::Arrival, link.0 as u64));
    }

    /// Replace the earliest event (a timer) by a timer-class event at `t`.
    #[inline]
    pub fn replace_top_timer(&mut self, t: SimTime, ev: Event) {
        let k = self.timer_key(t, ev);
        self.pop_top();
        self.push_timer_key(k);
    }

    /// Remove the earliest event.
    #[inline]
    pub fn pop_top(&mut self) {
        let Some(k) = self.main.peek() else { return };
        if !is_timer(k) {
            self.main.pop();
            return;
        }
        // The earliest timer: take it from `timers`, and put the next earliest in its place.
        self.timers.pop();
        match self.timers.peek() {
            Some(next) if self.superseded.last() != Some(&next) => self.main.replace_top(next),
            Some(_) => {
                self.superseded.pop();
                self.main.pop();
            }
            None => self.main.pop(),
        }
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let top = self.peek()?;
        self.pop_top();
        Some(top)
    }
}

#[inline(always)]
fn is_timer(k: u128) -> bool {
    (k >> TIE_BITS) as u64 & 3 == EventClass::Timer as u64
}

/// A 4-ary min-heap of keys (shallower than binary, and its children share a cache line).
/// Sifting moves 16 bytes per level.
#[derive(Debug, Default)]
struct Heap4(Vec<u128>);

impl Heap4 {
    #[inline(always)]
    fn peek(&self) -> Option<u128> {
        self.0.first().copied()
    }

    #[inline(always)]
    fn push(&mut self, key: u128) {
        self.0.push(key);
        let mut i = self.0.len() - 1;
        let h = &mut self.0[..];
        while i > 0 {
            let p = (i - 1) / 4;
            if h[p] <= key {
                break;
            }
            h[i] = h[p];
            i = p;
        }
        h[i] = key;
    }

    /// Remove the smallest key.
    #[inline(always)]
    fn pop(&mut self) {
        let Some(last) = self.0.pop() else { return };
        if !self.0.is_empty() {
            self.sift_down(0, last);
        }
    }

    /// Replace the smallest key by `key` (not smaller than it).
    #[inline(always)]
    fn replace_top(&mut self, key: u128) {
        debug_assert!(!self.0.is_empty() && key >= self.0[0]);
        self.sift_down(0, key);
    }

    /// Put `key` at position `i` and move it down to its place.
    #[inline(always)]
    fn sift_down(&mut self, mut i: usize, key: u128) {
        let h = &mut self.0[..];
        loop {
            let c0 = 4 * i + 1;
            // A full node as one fixed-size slice: a single bounds check per level.
            if let Some(&[a, b, c, d]) = h.get(c0..c0 + 4) {
                // A small tournament, no loop.
                let (i1, k1) = if b < a { (c0 + 1, b) } else { (c0, a) };
                let (i2, k2) = if d < c { (c0 + 3, d) } else { (c0 + 2, c) };
                let (m, mk) = if k2 < k1 { (i2, k2) } else { (i1, k1) };
                if mk >= key {
                    break;
                }
                h[i] = mk;
                i = m;
            } else {
                // The last, partial node (if any): its smallest child below `key`, then stop.
                let mut best: Option<(usize, u128)> = None;
                for (j, &k) in h.iter().enumerate().skip(c0) {
                    if k < best.map_or(key, |b| b.1) {
                        best = Some((j, k));
                    }
                }
                if let Some((m, mk)) = best {
                    h[i] = mk;
                    i = m;
                }
                break;
            }
        }
        h[i] = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;

    #[test]
    fn pops_in_time_order_and_timers_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push_timer(SimTime(5), Event::Wakeup(EndpointId(1)));
        q.push_timer(SimTime(5), Event::Wakeup(EndpointId(0)));
        q.push_timer(SimTime(3), Event::Sample);
        assert_eq!(q.pop(), Some((SimTime(3), Event::Sample)));
        q.push_timer(SimTime(4), Event::Control);
        assert_eq!(q.pop(), Some((SimTime(4), Event::Control)));
        assert_eq!(q.pop(), Some((SimTime(5), Event::Wakeup(EndpointId(1)))));
        assert_eq!(q.pop(), Some((SimTime(5), Event::Wakeup(EndpointId(0)))));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn within_an_instant_tx_done_and_merges_then_arrivals_by_link_then_timers() {
        let mut q = EventQueue::new();
        q.push_timer(SimTime(7), Event::Sample);
        q.push_arrival(SimTime(7), LinkId(9));
        q.push_arrival(SimTime(7), LinkId(2));
        q.push_merge(SimTime(7), 1);
        q.push_tx_done(SimTime(7), LinkId(4));
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(
            order,
            vec![
                Event::TxDone(LinkId(4)),
                Event::Merge(1),
                Event::LinkArrival(LinkId(2)),
                Event::LinkArrival(LinkId(9)),
                Event::Sample,
            ]
        );
    }

    #[test]
    fn random_pushes_come_out_sorted() {
        let mut r = SimRng::stream(3, "heap");
        let mut q = EventQueue::new();
        let mut times = Vec::new();
        for i in 0..5000 {
            let t = r.next_u64() % 1000;
            times.push(t);
            q.push_timer(SimTime(t), Event::Wakeup(EndpointId(i)));
            if i % 7 == 0 {
                // Replace the top by a later timer, as the engine does for links.
                let (t0, _) = q.peek().unwrap();
                let t1 = t0.0 + r.next_u64() % 50;
                q.replace_top_timer(SimTime(t1), Event::Sample);
                times.sort_unstable();
                times[0] = t1;
            } else if i % 3 == 0 {
                q.pop();
                times.sort_unstable();
                times.remove(0);
            }
        }
        times.sort_unstable();
        let got: Vec<u64> = std::iter::from_fn(|| q.pop().map(|x| x.0 .0)).collect();
        assert_eq!(got, times);
    }

    /// Random timers (near, far, and earlier than the earliest pending one), arrivals,
    /// transmission ends at the current instant, pops and top replacements: the same
    /// sequence, and the same count pending, as the standard library's binary heap gives.
    #[test]
    fn matches_a_binary_heap_under_random_operations() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut r = SimRng::stream(11, "two heaps");
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut now = 0u64;
        for i in 0..40_000u64 {
            let op = r.next_u64() % 10;
            match op {
                0..=3 => {
                    let ahead = match r.next_u64() % 4 {
                        0 => r.next_u64() % (1 << 40),
                        1 => r.next_u64() % 1_000,
                        _ => r.next_u64() % 1_000_000_000,
                    };
                    let target = i % 1000;
                    q.push_timer(
                        SimTime(now + ahead),
                        Event::Wakeup(EndpointId(target as u32)),
                    );
                    let k = ((q.seq - 1) << TARGET_BITS) | target;
                    reference.push(Reverse(key_of(SimTime(now + ahead), EventClass::Timer, k)));
                }
                4 | 5 => {
                    let link = LinkId((r.next_u64() % 5000) as u32);
                    let t = SimTime(now + 1 + r.next_u64() % 100_000);
                    if !reference
                        .iter()
                        .any(|Reverse(k)| *k == key_of(t, EventClass::Arrival, link.0 as u64))
                    {
                        q.push_arrival(t, link);
                        reference.push(Reverse(key_of(t, EventClass::Arrival, link.0 as u64)));
                    }
                }
                6 => {
                    let link = LinkId(10_000 + i as u32);
                    q.push_tx_done(SimTime(now), link);
                    reference.push(Reverse(key_of(
                        SimTime(now),
                        EventClass::TxDone,
                        link.0 as u64,
                    )));
                }
                7 => {
                    // The handled event replaces itself, as links and sampling do.
                    let Some(&Reverse(top)) = reference.peek() else {
                        continue;
                    };
                    let t = SimTime((top >> 64) as u64 + r.next_u64() % 50_000);
                    reference.pop();
                    if is_timer(top) {
                        q.replace_top_timer(t, Event::Sample);
                        let k = ((q.seq - 1) << TARGET_BITS) | SAMPLE;
                        reference.push(Reverse(key_of(t, EventClass::Timer, k)));
                    } else {
                        let link = LinkId(20_000_000 + i as u32);
                        q.replace_top_arrival(t, link);
                        reference.push(Reverse(key_of(t, EventClass::Arrival, link.0 as u64)));
                    }
                }
                _ => {
                    let got = q.pop();
                    let want = reference.pop().map(|Reverse(k)| decode(k));
                    assert_eq!(got, want, "operation {i}");
                    if let Some((t, _)) = got {
                        now = t.0;
                    }
                }
            }
            assert_eq!(q.len(), reference.len(), "operation {i}");
            assert_eq!(
                q.peek(),
                reference.peek().map(|&Reverse(k)| decode(k)),
                "operation {i}"
            );
        }
        while let Some(Reverse(k)) = reference.pop() {
            assert_eq!(q.pop(), Some(decode(k)));
        }
        assert!(q.is_empty() && q.pop().is_none());
        assert_eq!(q.len(), 0);
    }
}
