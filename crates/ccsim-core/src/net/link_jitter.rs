//! A link's per-packet delay jitter (`jitter`; a child module of `net::link`).
//!
//! Each packet's propagation takes `delay + U·jitter`, U uniform in [0, 1), drawn from the
//! link's own stream (`<label>:jitter`) in the link's FIFO order, and never less than what
//! makes it arrive after the packet before it: packets are delayed, never reordered. The
//! uniform, order-keeping form is ns-2's TCP `overhead_` (a send delayed by
//! `Random::uniform(overhead_)`, tcp.cc `send_much`) moved onto a link, so that it applies
//! to any traffic; netem's `delay … jitter` with `rate` keeps order the same way.

use crate::rng::SimRng;
use crate::units::{Dur, SimTime};

/// The jitter of one link: its bound, its stream and the latest arrival it gave.
#[derive(Clone, Debug)]
pub(super) struct Jitter {
    max: Dur,
    rng: SimRng,
    last: SimTime,
}

impl Jitter {
    /// A jitter uniform in [0, `max`) drawn from `rng`.
    pub(super) fn new(max: Dur, rng: SimRng) -> Jitter {
        Jitter {
            max,
            rng,
            last: SimTime::ZERO,
        }
    }

    /// The arrival time of the next packet in FIFO order whose jitter-free arrival is
    /// `base`: `base` plus a fresh draw, and no earlier than the previous packet's.
    pub(super) fn arrive(&mut self, base: SimTime) -> SimTime {
        let extra = (self.rng.uniform() * self.max.0 as f64) as u64;
        let t = SimTime(base.0 + extra).max(self.last);
        self.last = t;
        t
    }
}

/// A packet's arrival time on a link with propagation `delay` whose transmission ends at
/// `finish`, with the link's jitter if it has one.
#[inline]
pub(super) fn arrival(jitter: &mut Option<Box<Jitter>>, finish: SimTime, delay: Dur) -> SimTime {
    let base = SimTime(finish.0 + delay.0);
    match jitter {
        None => base,
        Some(j) => j.arrive(base),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_in_bounds_keep_order_and_spread_over_the_range() {
        let mut j = Jitter::new(Dur(100_000), SimRng::stream(1, "t"));
        let mut prev = SimTime::ZERO;
        let mut extras = Vec::new();
        // Bases 1 ms apart: far beyond the bound, so each draw shows as it is.
        for k in 1..=2000u64 {
            let base = SimTime(k * 1_000_000);
            let t = j.arrive(base);
            assert!(t >= prev, "reordered");
            assert!(t.0 >= base.0 && t.0 < base.0 + 100_000);
            extras.push(t.0 - base.0);
            prev = t;
        }
        let mean = extras.iter().sum::<u64>() as f64 / extras.len() as f64;
        assert!((mean - 50_000.0).abs() < 3_000.0, "mean {mean}");
        assert!(extras.iter().any(|&e| e < 5_000) && extras.iter().any(|&e| e > 95_000));
    }

    #[test]
    fn a_packet_never_arrives_before_the_one_ahead_of_it() {
        let mut j = Jitter::new(Dur(1_000_000), SimRng::stream(2, "t"));
        // Bases 1 µs apart under a 1 ms jitter: the bound often binds.
        let ts: Vec<SimTime> = (0..500).map(|k| j.arrive(SimTime(k * 1_000))).collect();
        assert!(ts.windows(2).all(|w| w[0] <= w[1]));
        assert!(
            ts.windows(2).any(|w| w[0] == w[1]),
            "the order bound never bound"
        );
    }

    #[test]
    fn no_jitter_is_the_plain_sum() {
        let mut none = None;
        assert_eq!(arrival(&mut none, SimTime(5), Dur(7)), SimTime(12));
    }
}
