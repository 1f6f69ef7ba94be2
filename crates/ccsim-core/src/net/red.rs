//! Random Early Detection (Floyd & Jacobson, ToN 1993), with "gentle" RED (Floyd 2000) and
//! ns-2's automatic parameters and uniform inter-drop spacing (`wait_`), as described in
//! ALGORITHMS.md §1.9. Thresholds and the averaged queue are in packets; the instantaneous
//! queue is the number of packets waiting behind the one in transmission (ns-2 counts its
//! queue object, which does not hold the packet on the wire).
//!
//! ns-2.35's own defaults (`tcl/lib/ns-default.tcl`, `Queue/RED set bytes_ true`,
//! `queue_in_bytes_ true`, `mean_pktsize_ 500`) measure in bytes instead (`queue/red.cc`
//! `REDQueue::enque`, `initialize_params`, `modify_p`): with `queue_in_bytes` the average,
//! the thresholds and the limit are in bytes (thresholds and limit × mean_pktsize, so 25
//! "packets" hold 12 500 B, about 8 packets of 1500 B); with `bytes` the arrivals since the
//! last drop count in mean-size packets and the probability scales by size / mean_pktsize.
//! The waiting bytes are the held bytes less one mean held packet (exact when, as on a data
//! bottleneck, all packets have one size).

use super::queue::{Admit, Occupancy};
use crate::params::{Alt, Bound, Dflt, Kind, Lit, Param, Ty};
use crate::results::DropCause;
use crate::rng::SimRng;
use crate::units::{Bytes, Dur, Rate, SimTime};
use serde::{Deserialize, Serialize};

/// RED's parameters as a scenario gives them (declared in [`PARAMS`]); thresholds in
/// packets, `None` for ns-2's automatic setting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct RedSpec {
    pub min_th: Option<f64>,
    pub max_th: Option<f64>,
    pub max_p: f64,
    pub w_q: Option<f64>,
    pub gentle: bool,
    pub wait: bool,
    pub limit: u64,
    pub mean_pktsize: Bytes,
    pub queue_in_bytes: bool,
    pub bytes: bool,
    #[serde(default)]
    pub ecn: bool,
}

impl Default for RedSpec {
    fn default() -> RedSpec {
        crate::params::defaults(PARAMS)
    }
}

/// RED's parameter table (every default is ns-2's, so results compare with ns-2 papers).
pub const PARAMS: &[Param] = &[
    Param::float("min_th", 0.0, Bound::Incl(0.0), Bound::None)
        .alt(Alt::Word("auto", "max(5, 5 ms × C / 2) with C the link rate in packets/s"))
        .unit("packets")
        .default_to(Lit::Str("auto"))
        .doc("lower threshold of the average queue")
        .source("ns-2.35 tcl/lib/ns-default.tcl:125 Queue/RED thresh_ 0, automatic (queue/red.cc:201–210)"),
    Param::float("max_th", 0.0, Bound::Incl(0.0), Bound::None)
        .alt(Alt::Word("auto", "3 × min_th"))
        .unit("packets")
        .default_to(Lit::Str("auto"))
        .doc("upper threshold of the average queue; above min_th")
        .source("ns-2.35 tcl/lib/ns-default.tcl:128 Queue/RED maxthresh_ 0, automatic (queue/red.cc:201–210)"),
    Param::float("max_p", 0.1, Bound::Excl(0.0), Bound::Incl(1.0))
        .doc("drop probability at max_th")
        .source("ns-2.35 tcl/lib/ns-default.tcl:140 Queue/RED linterm_ 10 (max_p = 1/linterm_)"),
    Param::float("w_q", 0.002, Bound::Excl(0.0), Bound::Incl(1.0))
        .alt(Alt::Word("auto", "1 − exp(−1 / (10 · RTT · C)), ns-2's q_weight_ = -1"))
        .default_to(Lit::Str("auto"))
        .doc("weight of the average-queue EWMA")
        .source("ns-2.35 tcl/lib/ns-default.tcl:137 Queue/RED q_weight_ -1, automatic (queue/red.cc:189–195)"),
    Param::boolean("gentle", true)
        .doc("gentle RED: between max_th and 2 × max_th the drop probability rises from max_p to 1 instead of jumping to 1")
        .source("ns-2.35 tcl/lib/ns-default.tcl:146 Queue/RED gentle_ true"),
    Param::boolean("wait", true)
        .doc("space drops uniformly (wait between drops)")
        .source("ns-2.35 tcl/lib/ns-default.tcl:139 Queue/RED wait_ true"),
    Param::new("limit", Ty::Packets { min: 1, max: u64::MAX }, Dflt::Value(Lit::Int(50)))
        .doc("hard limit of the physical queue")
        .source("ns-2.35 tcl/lib/ns-default.tcl Queue limit_ 50"),
    Param::size("mean_pktsize", 500, 1, u64::MAX)
        .doc("mean packet size turning the link rate into packets/s for the automatic settings, and the byte unit of queue_in_bytes and bytes")
        .source("ns-2.35 tcl/lib/ns-default.tcl:134 Queue/RED mean_pktsize_ 500"),
    Param::boolean("queue_in_bytes", false)
        .doc("measure the queue in bytes: the average, the thresholds and the limit (thresholds and limit × mean_pktsize)")
        .source("our choice: packets, as the papers state their thresholds (ns-2.35 ns-default.tcl:123 queue_in_bytes_ true since ns-2.28; docs/sources/ns2.md)"),
    Param::boolean("bytes", false)
        .doc("byte-mode dropping: arrivals since the last drop counted in mean-size packets, the probability scaled by size / mean_pktsize")
        .source("our choice: packet mode (ns-2.35 ns-default.tcl:122 bytes_ true since ns-2.28; docs/sources/ns2.md)"),
    Param::boolean("ecn", false)
        .doc("mark ECN-capable packets CE instead of dropping them early (RFC 3168 §5); forced drops above max_th (2 × max_th when gentle) and the hard limit still drop")
        .source("ns-2.35 tcl/lib/ns-default.tcl Queue/RED setbit_ false; marking only in the early-drop region as ns-2.35 queue/red.cc REDQueue::enque"),
];

/// `queue = "red"`.
pub const KIND: Kind = Kind::new(
    "red",
    "Random Early Detection (Floyd & Jacobson 1993) with ns-2's defaults",
    &[PARAMS],
);

/// ns-2's target queueing delay for automatic thresholds.
const TARGET_DELAY_S: f64 = 0.005;

/// Resolved RED parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Lower threshold (packets).
    pub min_th: f64,
    /// Upper threshold (packets).
    pub max_th: f64,
    /// Drop probability at `max_th`.
    pub max_p: f64,
    /// EWMA weight.
    pub w_q: f64,
    /// Gentle mode.
    pub gentle: bool,
    /// Uniform inter-drop spacing.
    pub wait: bool,
    /// Hard limit, packets held (counting the one in service).
    pub limit: u64,
    /// Link capacity in mean-sized packets per second (for the idle-time decay).
    pub ptc: f64,
    /// Queue, thresholds and limit in bytes (ns-2 `queue_in_bytes_`).
    pub queue_in_bytes: bool,
    /// Byte-mode probability (ns-2 `bytes_`).
    pub bytes: bool,
    /// Mean packet size, bytes.
    pub mean_pktsize: f64,
    /// Mark ECN-capable packets instead of dropping them early.
    pub ecn: bool,
}

impl RedParams {
    /// Resolve a spec on a link of this rate and delay, filling ns-2's automatic settings:
    /// min_th = max(5, 5 ms · C / 2), max_th = 3 · min_th, and
    /// w_q = 1 − exp(−1 / (10 · RTT · C)) with RTT = max(0.1 s, 3 · (delay + 1/C)),
    /// C in packets/s of `mean_pktsize`.
    pub fn resolve(spec: &RedSpec, rate: Rate, delay: Dur) -> RedParams {
        let c = rate.as_f64() / (8.0 * spec.mean_pktsize.0.max(1) as f64);
        let min_th = spec
            .min_th
            .unwrap_or_else(|| (TARGET_DELAY_S * c / 2.0).max(5.0));
        let max_th = spec.max_th.unwrap_or(3.0 * min_th);
        let w_q = spec.w_q.unwrap_or_else(|| {
            let rtt = (3.0 * (delay.secs() + 1.0 / c)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * c)).exp()
        });
        // ns-2 initialize_params: with queue_in_bytes_ the thresholds become bytes.
        let unit = if spec.queue_in_bytes {
            spec.mean_pktsize.0.max(1) as f64
        } else {
            1.0
        };
        RedParams {
            min_th: min_th * unit,
            max_th: max_th * unit,
            max_p: spec.max_p,
            w_q,
            gentle: spec.gentle,
            wait: spec.wait,
            limit: spec.limit,
            ptc: c,
            queue_in_bytes: spec.queue_in_bytes,
            bytes: spec.bytes,
            mean_pktsize: spec.mean_pktsize.0.max(1) as f64,
            ecn: spec.ecn,
        }
    }
}

/// RED state.
#[derive(Clone, Debug)]
pub struct Red {
    p: RedParams,
    /// Averaged queue (packets).
    avg: f64,
    /// Arrivals since the last drop while avg was in the random-drop region.
    count: i64,
    /// Their bytes (byte mode).
    count_bytes: f64,
}

impl Red {
    /// A RED queue with resolved parameters.
    pub fn new(p: RedParams) -> Red {
        Red {
            p,
            avg: 0.0,
            count: -1,
            count_bytes: 0.0,
        }
    }

    /// The averaged queue length (packets, or bytes with `queue_in_bytes`).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The resolved parameters.
    pub fn params(&self) -> &RedParams {
        &self.p
    }

    /// Unconditioned drop probability p_b for an average queue `avg`.
    pub fn p_b(&self, avg: f64) -> f64 {
        let p = &self.p;
        if avg < p.min_th {
            0.0
        } else if avg < p.max_th {
            p.max_p * (avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && avg < 2.0 * p.max_th {
            p.max_p + (1.0 - p.max_p) * (avg - p.max_th) / p.max_th
        } else {
            1.0
        }
    }

    /// Accept, mark or drop an arrival (`ect`: ECN-capable).
    pub fn admit(
        &mut self,
        now: SimTime,
        size: u64,
        ect: bool,
        occ: Occupancy,
        rng: &mut SimRng,
    ) -> Result<Admit, DropCause> {
        // Average update on every arrival; after an idle period, decay as if m empty
        // packet times had passed (ns-2: avg ← avg·(1−w)^(m+1) + w·q).
        let q = if self.p.queue_in_bytes {
            let head = occ.bytes.checked_div(occ.packets).unwrap_or(0);
            occ.bytes.saturating_sub(head) as f64
        } else {
            occ.waiting() as f64
        };
        let w = self.p.w_q;
        let m = if occ.packets == 0 {
            (self.p.ptc * now.since(occ.idle_since).secs()).floor()
        } else {
            0.0
        };
        // (1−w)^1 without `pow` on a busy link, where m = 0: the same value, as glibc's pow
        // is exact when the result is representable (checked by a test below).
        let decay = if m == 0.0 {
            1.0 - w
        } else {
            (1.0 - w).powf(m + 1.0)
        };
        self.avg = self.avg * decay + w * q;

        let full = if self.p.queue_in_bytes {
            q >= self.p.limit as f64 * self.p.mean_pktsize
        } else {
            occ.packets >= self.p.limit
        };
        if full {
            return Err(DropCause::QueueOverflow);
        }
        let forced = self.avg
            >= if self.p.gentle {
                2.0 * self.p.max_th
            } else {
                self.p.max_th
            };
        if forced {
            self.count = 0;
            self.count_bytes = 0.0;
            return Err(DropCause::Red);
        }
        if self.avg < self.p.min_th {
            self.count = -1;
            self.count_bytes = 0.0;
            return Ok(Admit::Enqueue);
        }
        self.count += 1;
        self.count_bytes = if self.count == 0 {
            0.0
        } else {
            self.count_bytes + size as f64
        };
        let pb = self.p_b(self.avg);
        // ns-2 modify_p: in byte mode the count is in mean-size packets.
        let count = if self.p.bytes {
            (self.count_bytes / self.p.mean_pktsize).floor()
        } else {
            self.count as f64
        };
        let cp = count * pb;
        let pa = if self.p.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                pb / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            pb / (1.0 - cp)
        } else {
            1.0
        };
        let pa = if self.p.bytes && pa < 1.0 {
            (pa * size as f64 / self.p.mean_pktsize).min(1.0)
        } else {
            pa
        };
        if rng.uniform() < pa {
            self.count = 0;
            self.count_bytes = 0.0;
            // RFC 3168 §5: an early "drop" of an ECN-capable packet becomes a CE mark
            // (ns-2.35 queue/red.cc: only in the random region, not for forced drops).
            if self.p.ecn && ect {
                Ok(Admit::MarkCe)
            } else {
                Err(DropCause::Red)
            }
        } else {
            Ok(Admit::Enqueue)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;

    fn spec() -> RedSpec {
        RedSpec {
            min_th: Some(25.0),
            max_th: Some(50.0),
            max_p: 0.1,
            w_q: Some(0.002),
            gentle: true,
            wait: true,
            limit: 100,
            mean_pktsize: Bytes(500),
            queue_in_bytes: false,
            bytes: false,
            ecn: false,
        }
    }

    #[test]
    fn ns2_byte_modes_measure_the_queue_in_bytes_of_mean_size_packets() {
        // ns-2.35 defaults: queue_in_bytes_ and bytes_ true, mean_pktsize_ 500. The paper's
        // "min_th 25, max_th 50, limit 100" then mean 12 500 B, 25 000 B and 50 000 B: with
        // 1500-byte packets about 8, 17 and 33 packets.
        let s = RedSpec {
            queue_in_bytes: true,
            bytes: true,
            ..spec()
        };
        let p = RedParams::resolve(&s, Rate::mbps(40), Dur::from_millis(65));
        assert_eq!((p.min_th, p.max_th), (12_500.0, 25_000.0));
        let mut red = Red::new(p);
        let mut rng = SimRng::stream(1, "red");
        // 34 held (33 waiting · 1500 B = 49 500 B < 50 000 B) is admitted unless RED drops
        // early; 35 held (51 000 B waiting) overflows the byte limit although 35 < 100 packets.
        assert_eq!(
            red.admit(SimTime(0), 1500, false, busy(35), &mut rng),
            Err(DropCause::QueueOverflow)
        );
        // The average is in bytes: one arrival at 10 waiting packets adds w_q · 15 000 B.
        let mut red = Red::new(RedParams::resolve(&s, Rate::mbps(40), Dur::from_millis(65)));
        red.admit(SimTime(0), 1500, false, busy(11), &mut rng)
            .unwrap();
        assert!((red.avg() - 0.002 * 15_000.0).abs() < 1e-9);
        // Byte mode: a 1500-byte arrival is dropped with 3 times the probability of a 500-byte
        // one at the same average (measured over many independent decisions).
        let drops = |size: u64| {
            let mut n = 0;
            let mut rng = SimRng::stream(7, "red-bytes");
            for _ in 0..20_000 {
                let mut red = Red::new(RedParams::resolve(
                    &RedSpec {
                        wait: false,
                        w_q: Some(1.0),
                        ..s.clone()
                    },
                    Rate::mbps(40),
                    Dur::from_millis(65),
                ));
                // avg = 18 750 B (halfway between the thresholds): p_b = 0.05; first arrival
                // above min_th has count 0, so p_a = p_b.
                let occ = Occupancy {
                    packets: 2,
                    bytes: 18_750 * 2,
                    idle_since: SimTime(0),
                };
                if red.admit(SimTime(0), size, false, occ, &mut rng).is_err() {
                    n += 1;
                }
            }
            n as f64 / 20_000.0
        };
        let (small, large) = (drops(500), drops(1500));
        assert!((small - 0.05).abs() < 0.01, "{small}");
        assert!((large - 0.15).abs() < 0.015, "{large}");
    }

    fn busy(packets: u64) -> Occupancy {
        Occupancy {
            packets,
            bytes: packets * 1500,
            idle_since: SimTime::ZERO,
        }
    }

    #[test]
    fn automatic_parameters_follow_ns2() {
        let s = RedSpec {
            min_th: None,
            max_th: None,
            w_q: None,
            ..spec()
        };
        // 40 Mb/s, 500 B packets: C = 10_000 pkt/s; min_th = max(5, 0.005·10000/2) = 25.
        let p = RedParams::resolve(&s, Rate::mbps(40), Dur::from_millis(65));
        assert!((p.min_th - 25.0).abs() < 1e-9);
        assert!((p.max_th - 75.0).abs() < 1e-9);
        let rtt: f64 = 3.0 * (0.065 + 1e-4);
        let expect = 1.0 - (-1.0 / (10.0 * rtt * 10_000.0)).exp();
        assert!((p.w_q - expect).abs() < 1e-15);
        // A slow link hits the floor of 5 packets and RTT of 0.1 s.
        let slow = RedParams::resolve(&s, Rate::mbps(1), Dur::from_millis(1));
        assert_eq!(slow.min_th, 5.0);
        assert!((slow.w_q - (1.0 - (-1.0f64 / (10.0 * 0.1 * 250.0)).exp())).abs() < 1e-15);
    }

    #[test]
    fn drop_probability_is_linear_then_gentle() {
        let red = Red::new(RedParams::resolve(
            &spec(),
            Rate::mbps(40),
            Dur::from_millis(10),
        ));
        assert_eq!(red.p_b(10.0), 0.0);
        assert!((red.p_b(37.5) - 0.05).abs() < 1e-12);
        assert!((red.p_b(75.0) - 0.55).abs() < 1e-12);
        assert_eq!(red.p_b(100.0), 1.0);
    }

    #[test]
    fn average_follows_ewma_and_decays_when_idle() {
        let mut red = Red::new(RedParams::resolve(
            &spec(),
            Rate::mbps(40),
            Dur::from_millis(10),
        ));
        let mut rng = SimRng::stream(1, "red");
        red.admit(SimTime(0), 1500, false, busy(11), &mut rng)
            .unwrap();
        assert!((red.avg() - 0.002 * 10.0).abs() < 1e-12);
        let before = red.avg();
        // Idle for 1 ms at 10_000 pkt/s: m = 10 packet times.
        let idle = Occupancy {
            packets: 0,
            bytes: 0,
            idle_since: SimTime(0),
        };
        red.admit(SimTime(1_000_000), 1500, false, idle, &mut rng)
            .unwrap();
        assert!((red.avg() - before * 0.998f64.powi(11)).abs() < 1e-15);
    }

    /// The busy-link shortcut's premise: glibc's `pow(x, 1)` is `x` exactly, for the
    /// weights RED uses and for any x in (0, 1).
    #[test]
    fn pow_with_exponent_one_is_exact() {
        let mut r = SimRng::stream(5, "pow");
        let one = std::hint::black_box(1.0f64);
        for w in [0.002, 0.001, 1.0 - (-1.0f64 / 4000.0).exp(), 1e-5, 0.5] {
            assert_eq!((1.0 - w).powf(one), 1.0 - w);
        }
        for _ in 0..100_000 {
            let x = f64::from_bits((r.next_u64() >> 12) | 0x3FE0_0000_0000_0000) * 2.0 - 1.0;
            assert_eq!(x.powf(one), x);
        }
    }

    #[test]
    fn hard_limit_and_forced_drops() {
        let mut red = Red::new(RedParams::resolve(
            &spec(),
            Rate::mbps(40),
            Dur::from_millis(10),
        ));
        let mut rng = SimRng::stream(1, "red");
        assert_eq!(
            red.admit(SimTime(0), 1500, false, busy(100), &mut rng),
            Err(DropCause::QueueOverflow)
        );
        red.avg = 120.0;
        assert_eq!(
            red.admit(SimTime(0), 1500, false, busy(99), &mut rng),
            Err(DropCause::Red)
        );
    }

    /// The test RED with its average held at `avg` (a weight too small to move it).
    fn red_at_fixed_average(avg: f64) -> Red {
        let mut red = Red::new(RedParams::resolve(
            &spec(),
            Rate::mbps(40),
            Dur::from_millis(10),
        ));
        red.p.w_q = 1e-12;
        red.avg = avg;
        red
    }

    #[test]
    fn steady_average_drops_at_about_the_uniform_spacing_rate() {
        // With avg fixed in the linear region, `wait` spacing gives one drop per about
        // 1.5/p_b arrivals... measured over many arrivals, the rate is within [p_b/2, p_b].
        let mut red = red_at_fixed_average(37.5); // p_b = 0.05
        let mut rng = SimRng::stream(9, "red");
        let n = 100_000;
        let drops = (0..n)
            .filter(|_| {
                red.admit(SimTime(0), 1500, false, busy(38), &mut rng)
                    .is_err()
            })
            .count();
        let rate = drops as f64 / n as f64;
        assert!(rate > 0.025 && rate < 0.05, "{rate}");
    }

    #[test]
    fn with_wait_the_drops_are_spaced_uniformly_between_one_and_two_over_p_b() {
        // Floyd & Jacobson 1993 §7 spaces drops uniformly; with ns-2's `wait_` (red.cc
        // `modify_p`) p_a = 0 while count·p_b < 1, then p_b/(2 − count·p_b) up to 1 as
        // count·p_b reaches 2: with p_b = 0.05 the arrivals from one drop to the next are
        // uniform between 1/p_b = 20 and 2/p_b = 40, mean 30 (±½ for where the float
        // product count·p_b puts the end points). Over ~3 300 drops the mean's standard
        // error is about 0.1.
        let mut red = red_at_fixed_average(37.5); // p_b = 0.05
        let mut rng = SimRng::stream(9, "red");
        let mut gaps = Vec::new();
        let mut since = 0u64;
        for _ in 0..100_000 {
            since += 1;
            if red
                .admit(SimTime(0), 1500, false, busy(38), &mut rng)
                .is_err()
            {
                gaps.push(since);
                since = 0;
            }
        }
        // The first gap starts from the initial count, not from a drop.
        let gaps = &gaps[1..];
        assert!(gaps.iter().all(|g| (20..=40).contains(g)), "{gaps:?}");
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((mean - 30.0).abs() < 1.0, "mean spacing {mean}");
    }
}
