//! The bottleneck link model: seeded Bernoulli loss at the entrance, a DropTail queue, a
//! transmitter serialising at a fixed rate, then a fixed propagation delay.
//!
//! Everything is in integer nanoseconds of *logical* time: a packet's departure is computed
//! from its entrance time and the previous packet's departure, never from when the emulator
//! happened to run, so scheduling jitter cannot accumulate (a late send is late once).
//!
//! Queue-limit convention (the same as ccsim's DropTail, `crates/ccsim-core/src/net/droptail.rs`,
//! and ns-2's): `limit` counts every packet in the system, **including the one being
//! transmitted**. An arrival at time t is admitted when fewer than `limit` admitted packets
//! have a transmission end later than t. A packet whose transmission ends exactly at t has
//! left (ccsim orders a transmission end before an arrival at the same instant).

use std::collections::VecDeque;

/// Parameters of one direction of the bottleneck.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkParams {
    /// Serialisation rate in bits per second (> 0).
    pub rate_bps: u64,
    /// Propagation delay after the transmitter, in ns.
    pub prop_ns: u64,
    /// DropTail limit in packets, the packet in service included (≥ 1).
    pub limit: usize,
    /// Probability that a packet is lost on entering the link (0 ≤ p < 1).
    pub loss: f64,
}

impl LinkParams {
    /// Transmission time of `size` bytes, rounded up to a whole nanosecond (as ccsim's
    /// `units.rs` does), at least 1 ns.
    pub fn ser_ns(&self, size: u32) -> u64 {
        let bits = size as u128 * 8 * 1_000_000_000;
        let r = self.rate_bps as u128;
        (bits.div_ceil(r) as u64).max(1)
    }
}

/// SplitMix64 (Steele, Lea & Flood 2014): a small, well-mixed generator. One stream per
/// link direction, seeded from the run's seed, so a log replays to the same losses.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The seed of a direction's loss stream (data = 0, ACK = 1).
pub fn stream_seed(seed: u64, dir: usize) -> u64 {
    seed ^ (0xD1B5_4A32_D192_ED03u64.wrapping_mul(dir as u64 + 1))
}

/// What happened to a packet offered to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Dropped by the Bernoulli loss at the entrance.
    Lost,
    /// Dropped because `limit` packets were in the system.
    Overflow,
    /// Admitted: its transmission ends at `tx_end` and it leaves the emulator at `deliver`.
    Sent { tx_end: u64, deliver: u64 },
}

/// One direction of the bottleneck, in logical time.
#[derive(Debug)]
pub struct LinkModel {
    pub params: LinkParams,
    /// Transmission ends of admitted packets still in the system (non-decreasing).
    in_system: VecDeque<u64>,
    last_tx_end: u64,
    last_t_in: u64,
    rng: Rng,
}

impl LinkModel {
    pub fn new(params: LinkParams, seed: u64) -> Self {
        LinkModel {
            params,
            in_system: VecDeque::new(),
            last_tx_end: 0,
            last_t_in: 0,
            rng: Rng::new(seed),
        }
    }

    /// Offer a packet of `size` bytes entering the link at `t_in`; `after_ns` is extra delay
    /// after the propagation (an access link on the far side). Calls must come in
    /// non-decreasing `t_in` (the caller's event loop guarantees it; the replay checks it).
    pub fn offer(&mut self, t_in: u64, size: u32, after_ns: u64) -> Verdict {
        debug_assert!(t_in >= self.last_t_in, "arrivals out of order");
        self.last_t_in = t_in;
        if self.params.loss > 0.0 && self.rng.uniform() < self.params.loss {
            return Verdict::Lost;
        }
        while self.in_system.front().is_some_and(|&end| end <= t_in) {
            self.in_system.pop_front();
        }
        if self.in_system.len() >= self.params.limit {
            return Verdict::Overflow;
        }
        let tx_end = t_in.max(self.last_tx_end) + self.params.ser_ns(size);
        self.last_tx_end = tx_end;
        self.in_system.push_back(tx_end);
        Verdict::Sent {
            tx_end,
            deliver: tx_end + self.params.prop_ns + after_ns,
        }
    }

    /// Packets in the system (waiting or in service) at `t`, for `t` ≥ the last arrival.
    pub fn occupancy(&self, t: u64) -> usize {
        self.in_system.iter().filter(|&&end| end > t).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn ten_mbps(limit: usize) -> LinkParams {
        LinkParams {
            rate_bps: 10_000_000,
            prop_ns: 20 * MS,
            limit,
            loss: 0.0,
        }
    }

    #[test]
    fn serialisation_time_is_exact_and_rounds_up() {
        let p = ten_mbps(8);
        assert_eq!(p.ser_ns(1500), 1_200_000); // 12 000 bits at 10 Mb/s
        assert_eq!(p.ser_ns(52), 41_600);
        let odd = LinkParams { rate_bps: 3, ..p };
        assert_eq!(odd.ser_ns(1), 2_666_666_667); // 8/3 s rounded up
        let fast = LinkParams {
            rate_bps: 100_000_000_000,
            ..p
        };
        assert_eq!(fast.ser_ns(1), 1); // never zero
    }

    #[test]
    fn a_lone_packet_leaves_after_serialisation_and_propagation() {
        let mut l = LinkModel::new(ten_mbps(8), 1);
        assert_eq!(
            l.offer(5 * MS, 1500, 0),
            Verdict::Sent {
                tx_end: 6_200_000,
                deliver: 26_200_000
            }
        );
        // far-side extra delay adds after the propagation
        let mut l = LinkModel::new(ten_mbps(8), 1);
        assert_eq!(
            l.offer(0, 1500, 20 * MS),
            Verdict::Sent {
                tx_end: 1_200_000,
                deliver: 41_200_000
            }
        );
    }

    #[test]
    fn a_burst_is_spaced_at_the_line_rate() {
        let mut l = LinkModel::new(ten_mbps(100), 1);
        for k in 1..=10u64 {
            match l.offer(0, 1500, 0) {
                Verdict::Sent { tx_end, .. } => assert_eq!(tx_end, k * 1_200_000),
                v => panic!("{v:?}"),
            }
        }
        // an arrival after the queue drained starts at once
        assert_eq!(
            l.offer(20 * MS, 1500, 0),
            Verdict::Sent {
                tx_end: 21_200_000,
                deliver: 41_200_000
            }
        );
    }

    #[test]
    fn the_limit_counts_the_packet_in_service() {
        let mut l = LinkModel::new(ten_mbps(3), 1);
        // three back-to-back arrivals fill it: one in service, two waiting
        for _ in 0..3 {
            assert!(matches!(l.offer(0, 1500, 0), Verdict::Sent { .. }));
        }
        assert_eq!(l.occupancy(0), 3);
        assert_eq!(l.offer(0, 1500, 0), Verdict::Overflow);
        // just before the first departure it is still full
        assert_eq!(l.offer(1_199_999, 1500, 0), Verdict::Overflow);
        // at the first departure instant there is room for exactly one
        assert_eq!(
            l.offer(1_200_000, 1500, 0),
            Verdict::Sent {
                tx_end: 4_800_000,
                deliver: 24_800_000
            }
        );
        assert_eq!(l.offer(1_200_000, 1500, 0), Verdict::Overflow);
        assert_eq!(l.occupancy(1_200_000), 3);
        assert_eq!(l.occupancy(4_800_000), 0);
    }

    #[test]
    fn limit_one_is_a_bufferless_link() {
        let mut l = LinkModel::new(ten_mbps(1), 1);
        assert!(matches!(l.offer(0, 1500, 0), Verdict::Sent { .. }));
        assert_eq!(l.offer(600_000, 52, 0), Verdict::Overflow);
        assert!(matches!(l.offer(1_200_000, 52, 0), Verdict::Sent { .. }));
    }

    #[test]
    fn bernoulli_loss_has_the_right_rate_and_depends_only_on_the_seed() {
        let p = LinkParams {
            loss: 0.01,
            limit: usize::MAX,
            ..ten_mbps(1)
        };
        let run = |seed| {
            let mut l = LinkModel::new(p, seed);
            (0..200_000u64)
                .map(|i| l.offer(i * 2 * MS, 1500, 0) == Verdict::Lost)
                .collect::<Vec<_>>()
        };
        let a = run(7);
        let lost = a.iter().filter(|&&x| x).count() as f64;
        // mean 2000, sd ≈ 44.5: ±4.5 sd
        assert!((lost - 2000.0).abs() < 200.0, "lost {lost}");
        assert_eq!(a, run(7));
        assert_ne!(a, run(8));
        // lost packets take no room
        let mut l = LinkModel::new(
            LinkParams {
                loss: 0.999_999,
                ..ten_mbps(1)
            },
            3,
        );
        assert_eq!(l.offer(0, 1500, 0), Verdict::Lost);
        assert_eq!(l.occupancy(0), 0);
    }

    #[test]
    fn uniform_is_in_the_unit_interval_with_the_right_mean() {
        let mut r = Rng::new(42);
        let n = 100_000;
        let mut s = 0.0;
        for _ in 0..n {
            let u = r.uniform();
            assert!((0.0..1.0).contains(&u));
            s += u;
        }
        assert!((s / n as f64 - 0.5).abs() < 0.005);
        assert_ne!(stream_seed(1, 0), stream_seed(1, 1));
    }
}
