//! RTT estimation and the retransmission timeout (RFC 6298).

use crate::params::Param;
use crate::units::{Dur, SimTime};
use serde::{Deserialize, Serialize};

/// Retransmission timer parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct RtoSpec {
    pub min: Dur,
    pub max: Dur,
    pub initial: Dur,
    pub granularity: Dur,
}

impl Default for RtoSpec {
    /// TCP's (RFC 6298); ARC and SCTP override some (their `Kind::layers`).
    fn default() -> RtoSpec {
        crate::params::defaults(PARAMS)
    }
}

/// The `rto` table of TCP, ARC and SCTP flows (RFC 6298's estimator).
pub const PARAMS: &[Param] = &[
    Param::duration("min", "1s")
        .doc("lower bound of the RTO")
        .source("RFC 6298 §2.4 (1 s); ns-2.35 ns-default.tcl:956 minrto_ 0.2 s: set it for ns-2-era reproductions"),
    Param::positive_duration("max", "60s")
        .doc("upper bound of the RTO, also of its exponential backoff; at least min")
        .source("RFC 6298 §2.5 (at least 60 s); ns-2.35 ns-default.tcl:954 maxrto_ 60 s (100 000 s before ns-2.32)"),
    Param::positive_duration("initial", "1s")
        .doc("RTO before the first RTT sample")
        .source("RFC 6298 §2.1 (1 s)"),
    Param::duration("granularity", "1ms")
        .doc("clock granularity G in RTO = SRTT + max(G, 4·RTTVAR)")
        .source("our choice: 1 ms, a modern kernel's timer (RFC 6298 §2.3 leaves G to the implementation; ns-2.35 ns-default.tcl:952 tcpTick_ 10 ms)"),
];

/// RFC 6298 state: SRTT, RTTVAR, RTO with exponential backoff, plus sample statistics.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    spec: RtoSpec,
    srtt: Option<u64>,
    rttvar: u64,
    /// Backoff multiplier exponent (doubled RTO per timeout, RFC 6298 §5.5).
    backoff: u32,
    min_rtt: u64,
    max_rtt: u64,
    sum_rtt: f64,
    samples: u64,
}

impl RttEstimator {
    /// Before any sample, RTO is `spec.initial` (RFC 6298 §2.1).
    pub fn new(spec: RtoSpec) -> RttEstimator {
        RttEstimator {
            spec,
            srtt: None,
            rttvar: 0,
            backoff: 0,
            min_rtt: u64::MAX,
            max_rtt: 0,
            sum_rtt: 0.0,
            samples: 0,
        }
    }

    /// Take one RTT measurement R.
    pub fn sample(&mut self, r: Dur) {
        let r = r.0;
        match self.srtt {
            // RFC 6298 §2.2: SRTT = R, RTTVAR = R/2.
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            // §2.3: RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R|; SRTT = 7/8·SRTT + 1/8·R.
            Some(s) => {
                let diff = s.abs_diff(r);
                self.rttvar = (3 * self.rttvar + diff) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        self.min_rtt = self.min_rtt.min(r);
        self.max_rtt = self.max_rtt.max(r);
        self.sum_rtt += r as f64;
        self.samples += 1;
    }

    /// Forget the estimate for a new connection (statistics and min RTT are kept).
    pub fn restart(&mut self) {
        self.srtt = None;
        self.rttvar = 0;
        self.backoff = 0;
    }

    /// Karn's rule (RFC 6298 §5, note on backoff): keep the backed-off RTO until a sample
    /// from a segment that was not retransmitted arrives; the caller reports it here.
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Double the RTO after a timeout (§5.5), up to the maximum.
    pub fn back_off(&mut self) {
        if self.backoff < 40 {
            self.backoff += 1;
        }
    }

    /// The current RTO, backoff included, clamped to [min, max] (§2.4, §2.5).
    pub fn rto(&self) -> Dur {
        let base = match self.srtt {
            None => self.spec.initial.0,
            // §2.3: RTO = SRTT + max(G, K·RTTVAR) with K = 4.
            Some(s) => s + self.spec.granularity.0.max(4 * self.rttvar),
        };
        let base = base.clamp(self.spec.min.0, self.spec.max.0);
        Dur(base
            .saturating_mul(1u64 << self.backoff.min(40))
            .min(self.spec.max.0))
    }

    /// Smoothed RTT, zero before the first sample.
    pub fn srtt(&self) -> Dur {
        Dur(self.srtt.unwrap_or(0))
    }

    /// Smallest sample, zero before the first.
    pub fn min_rtt(&self) -> Dur {
        Dur(if self.samples == 0 { 0 } else { self.min_rtt })
    }

    /// (min, mean, max) of all samples in seconds; NaN without samples.
    pub fn stats(&self) -> (f64, f64, f64) {
        if self.samples == 0 {
            return (f64::NAN, f64::NAN, f64::NAN);
        }
        (
            Dur(self.min_rtt).secs(),
            self.sum_rtt / self.samples as f64 / 1e9,
            Dur(self.max_rtt).secs(),
        )
    }

    /// When a timer started at `t` expires.
    pub fn deadline(&self, t: SimTime) -> SimTime {
        t + self.rto()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RtoSpec {
        RtoSpec {
            min: Dur::from_millis(200),
            max: Dur::from_secs(60),
            initial: Dur::from_secs(1),
            granularity: Dur::from_millis(1),
        }
    }

    #[test]
    fn initial_rto_then_first_sample_rule() {
        let mut e = RttEstimator::new(spec());
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.sample(Dur::from_millis(100));
        // SRTT = 100 ms, RTTVAR = 50 ms, RTO = 100 + 4·50 = 300 ms.
        assert_eq!(e.srtt(), Dur::from_millis(100));
        assert_eq!(e.rto(), Dur::from_millis(300));
    }

    #[test]
    fn later_samples_smooth_with_gains_one_eighth_and_one_quarter() {
        let mut e = RttEstimator::new(spec());
        e.sample(Dur::from_millis(100));
        e.sample(Dur::from_millis(200));
        // RTTVAR = 3/4·50 + 1/4·100 = 62.5 ms; SRTT = 7/8·100 + 1/8·200 = 112.5 ms.
        assert_eq!(e.srtt(), Dur::from_micros(112_500));
        assert_eq!(e.rto(), Dur::from_micros(112_500 + 250_000));
    }

    #[test]
    fn rto_is_clamped_and_backoff_doubles_up_to_max() {
        let mut e = RttEstimator::new(spec());
        e.sample(Dur::from_millis(1));
        assert_eq!(e.rto(), Dur::from_millis(200));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(400));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(60));
        e.reset_backoff();
        assert_eq!(e.rto(), Dur::from_millis(200));
    }

    #[test]
    fn planetary_rtts_are_representable() {
        let mut e = RttEstimator::new(RtoSpec {
            max: Dur::from_secs(100_000),
            ..spec()
        });
        e.sample(Dur::from_secs(4000));
        assert_eq!(e.rto(), Dur::from_secs(4000 + 4 * 2000));
    }
}
