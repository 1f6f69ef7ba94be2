//! Deterministic event queue.
//!
//! Events are ordered by a 128-bit key: time (ns) in the high 64 bits, then an event class,
//! then a tie-breaker. Within one instant, transmission ends come before packet arrivals,
//! which come before timers. Packet arrivals tie-break by link index (a link never has two
//! arrivals at one instant), which makes the order independent of *when* an arrival was
//! scheduled: the `Fast` and `PerHop` link models then process the very same sequence.
//! Timers tie-break by insertion order. The heap is 4-ary (shallower than binary, and its
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

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    ev: Event,
}

/// A 4-ary min-heap of events keyed by (time, class, tie).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: Vec<Entry>,
    seq: u64,
}

const TIE_BITS: u32 = 62;

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue {
            heap: Vec::with_capacity(256),
            seq: 0,
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no events are pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(|e| SimTime((e.key >> 64) as u64))
    }

    /// Schedule a packet arrival from `link` at `t`.
    #[inline]
    pub fn push_arrival(&mut self, t: SimTime, link: LinkId) {
        self.push_keyed(
            t,
            EventClass::Arrival,
            link.0 as u64,
            Event::LinkArrival(link),
        );
    }

    /// Schedule a transmission end on `link` at `t`.
    #[inline]
    pub fn push_tx_done(&mut self, t: SimTime, link: LinkId) {
        self.push_keyed(t, EventClass::TxDone, link.0 as u64, Event::TxDone(link));
    }

    /// Schedule a timer-class event; ties break by insertion order.
    #[inline]
    pub fn push_timer(&mut self, t: SimTime, ev: Event) {
        let s = self.seq;
        self.seq += 1;
        self.push_keyed(t, EventClass::Timer, s, ev);
    }

    #[inline]
    fn push_keyed(&mut self, t: SimTime, class: EventClass, tie: u64, ev: Event) {
        debug_assert!(tie < (1u64 << TIE_BITS));
        let key = ((t.0 as u128) << 64) | ((class as u128) << TIE_BITS) | tie as u128;
        self.heap.push(Entry { key, ev });
        self.sift_up(self.heap.len() - 1);
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let top = self.heap.swap_remove(0);
        if n > 1 {
            self.sift_down(0);
        }
        Some((SimTime((top.key >> 64) as u64), top.ev))
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let h = &mut self.heap;
        let item = h[i];
        while i > 0 {
            let p = (i - 1) / 4;
            if h[p].key <= item.key {
                break;
            }
            h[i] = h[p];
            i = p;
        }
        h[i] = item;
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let h = &mut self.heap;
        let n = h.len();
        let item = h[i];
        loop {
            let c0 = 4 * i + 1;
            if c0 >= n {
                break;
            }
            let end = (c0 + 4).min(n);
            let mut m = c0;
            for c in c0 + 1..end {
                if h[c].key < h[m].key {
                    m = c;
                }
            }
            if h[m].key >= item.key {
                break;
            }
            h[i] = h[m];
            i = m;
        }
        h[i] = item;
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
        assert_eq!(q.pop(), Some((SimTime(5), Event::Wakeup(EndpointId(1)))));
        assert_eq!(q.pop(), Some((SimTime(5), Event::Wakeup(EndpointId(0)))));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn within_an_instant_tx_done_then_arrivals_by_link_then_timers() {
        let mut q = EventQueue::new();
        q.push_timer(SimTime(7), Event::Sample);
        q.push_arrival(SimTime(7), LinkId(9));
        q.push_arrival(SimTime(7), LinkId(2));
        q.push_tx_done(SimTime(7), LinkId(4));
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(
            order,
            vec![
                Event::TxDone(LinkId(4)),
                Event::LinkArrival(LinkId(2)),
                Event::LinkArrival(LinkId(9)),
                Event::Sample
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
            if i % 3 == 0 {
                q.pop();
                times.sort_unstable();
                times.remove(0);
            }
        }
        times.sort_unstable();
        let got: Vec<u64> = std::iter::from_fn(|| q.pop().map(|x| x.0 .0)).collect();
        assert_eq!(got, times);
    }
}
