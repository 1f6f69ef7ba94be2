//! DAIMD's delay congestion detection (González, Pradilla, Esteve & Palau, "Hybrid
//! delay-based congestion control for Multipath TCP", MELECON 2016, eq. (1)). The increase
//! and the loss decrease are LIA's (`lia`); on top of them, subflow r cuts its window to
//! `delay_beta`·cwnd_r (paper: 0.7) when
//!
//!   D ≥ D0  and  cwnd_r > W0  and the first condition has held for a time T.
//!
//! The paper does not say what D is nor give D0, W0 or T. Defaults (ALGORITHMS.md §3.3.2,
//! docs/controllers/daimd.md): D = RTT sample − smallest RTT of the subflow (its queueing
//! delay), D0 = 20 ms, W0 = 4 packets, T = one smoothed RTT; after a delay backoff no
//! other is taken for T (one reaction per queue build-up). Detection runs only in
//! congestion avoidance outside loss recovery; the backoff sets ssthresh to the new window
//! and retransmits nothing (as Linux's CWR state, which CDG uses for its delay backoffs).

use crate::cc::reno::{Counting, COUNTING};
use crate::cc::AckEvent;
use crate::params::{Alt, Bound, Kind, Param};
use crate::units::{Dur, SimTime};
use serde::{Deserialize, Serialize};

/// DAIMD's parameters (declared in [`PARAMS`]). The paper names D0, W0 and T but gives no
/// values; the defaults and their reasons are in docs/controllers/daimd.md.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct DaimdSpec {
    pub d0: Dur,
    pub d0_rtt: Option<f64>,
    pub w0: f64,
    pub hold: Option<Dur>,
    pub delay_beta: f64,
    pub counting: Counting,
}

impl Default for DaimdSpec {
    fn default() -> DaimdSpec {
        crate::params::defaults(PARAMS)
    }
}

/// DAIMD's parameter table.
pub const PARAMS: &[Param] = &[
    Param::duration("d0", "20ms")
        .doc("D0: queueing delay (RTT sample − smallest RTT) at or above which delay congestion is suspected")
        .source("our choice (the paper gives none): the threshold of Hamilton delay-based AIMD, docs/controllers/daimd.md"),
    Param::float("d0_rtt", 0.45, Bound::Excl(0.0), Bound::None)
        .optional("D0 is d0")
        .doc("D0 as this fraction of the subflow's smallest RTT instead of d0 (a path-relative threshold for the sensitivity study)")
        .source("ALGORITHMS.md §3.3.2"),
    Param::float("w0", 4.0, Bound::Incl(0.0), Bound::None)
        .unit("packets")
        .doc("W0: the delay backoff is allowed only while cwnd > W0")
        .source("our choice (the paper gives none), docs/controllers/daimd.md"),
    Param::duration("hold", "srtt")
        .alt(Alt::Word("srtt", "one smoothed RTT of the subflow"))
        .doc("T: how long the delay condition must hold before a backoff, and the quiet time after one")
        .source("our choice (the paper gives none): one smoothed RTT, docs/controllers/daimd.md"),
    Param::float("delay_beta", 0.7, Bound::Excl(0.0), Bound::Excl(1.0))
        .doc("multiplicative decrease on delay congestion")
        .source("González et al. 2016, eq. (1) (0.7)"),
    COUNTING,
];

/// `cc = "daimd"`.
pub const KIND: Kind = Kind::new(
    "daimd",
    "LIA with a delay-triggered decrease, González et al. 2016 (docs/controllers/daimd.md)",
    &[PARAMS],
);

/// DAIMD detector state of one subflow.
#[derive(Clone, Debug)]
pub struct Daimd {
    p: DaimdSpec,
    /// Since when every RTT sample has met D ≥ D0 with cwnd > W0.
    since: Option<SimTime>,
    /// No delay backoff before this time.
    quiet_until: SimTime,
}

impl Daimd {
    /// Fresh state.
    pub fn new(p: DaimdSpec) -> Daimd {
        Daimd {
            p,
            since: None,
            quiet_until: SimTime::ZERO,
        }
    }

    /// Look at an ACK (after the window grew); returns the window after a delay backoff.
    pub fn on_ack(&mut self, ev: &AckEvent, cwnd: f64, ssthresh: f64, mss: f64) -> Option<f64> {
        let rtt = ev.rtt?;
        if cwnd < ssthresh || ev.in_recovery {
            self.since = None;
            return None;
        }
        let d = rtt - ev.min_rtt; // saturating
        let d0 = match self.p.d0_rtt {
            Some(f) => Dur::from_secs_f64(ev.min_rtt.secs() * f),
            None => self.p.d0,
        };
        if d < d0 || cwnd <= self.p.w0 * mss {
            self.since = None;
            return None;
        }
        let since = *self.since.get_or_insert(ev.now);
        let hold = self.p.hold.unwrap_or(ev.srtt);
        if ev.now.since(since) >= hold && ev.now >= self.quiet_until {
            self.since = None;
            self.quiet_until = ev.now + hold;
            return Some((cwnd * self.p.delay_beta).max(2.0 * mss));
        }
        None
    }

    /// A loss backoff happened: the delay condition starts over.
    pub fn on_loss(&mut self) {
        self.since = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Dur;

    const MSS: f64 = 1000.0;

    fn ack(at_ms: u64, rtt_ms: u64) -> AckEvent {
        let mut ev = AckEvent::for_test(1000, Dur::from_millis(rtt_ms), 1000);
        ev.now = SimTime::ZERO + Dur::from_millis(at_ms);
        ev.min_rtt = Dur::from_millis(100);
        ev.srtt = Dur::from_millis(100);
        ev
    }

    #[test]
    fn backs_off_to_seven_tenths_after_the_delay_held_for_t() {
        let mut d = Daimd::new(DaimdSpec::default());
        // Queueing delay 30 ms ≥ D0 = 20 ms from t = 1 s; T = srtt = 100 ms.
        assert_eq!(d.on_ack(&ack(1000, 130), 50_000.0, 10_000.0, MSS), None);
        assert_eq!(d.on_ack(&ack(1050, 130), 50_000.0, 10_000.0, MSS), None);
        assert_eq!(
            d.on_ack(&ack(1100, 130), 50_000.0, 10_000.0, MSS),
            Some(35_000.0)
        );
        // Then quiet for T even though the delay persists.
        assert_eq!(d.on_ack(&ack(1150, 130), 35_000.0, 35_000.0, MSS), None);
        assert_eq!(d.on_ack(&ack(1199, 130), 35_000.0, 35_000.0, MSS), None);
    }

    #[test]
    fn a_sample_below_d0_restarts_the_hold() {
        let mut d = Daimd::new(DaimdSpec::default());
        d.on_ack(&ack(1000, 130), 50_000.0, 10_000.0, MSS);
        d.on_ack(&ack(1060, 110), 50_000.0, 10_000.0, MSS); // D = 10 ms < D0
        assert_eq!(d.on_ack(&ack(1100, 130), 50_000.0, 10_000.0, MSS), None);
        assert_eq!(d.on_ack(&ack(1150, 130), 50_000.0, 10_000.0, MSS), None);
        assert!(d.on_ack(&ack(1200, 130), 50_000.0, 10_000.0, MSS).is_some());
    }

    #[test]
    fn no_backoff_at_or_below_w0_nor_in_slow_start() {
        let mut d = Daimd::new(DaimdSpec::default());
        for t in (1000..2000).step_by(50) {
            assert_eq!(d.on_ack(&ack(t, 200), 4_000.0, 1_000.0, MSS), None); // cwnd = W0
            assert_eq!(d.on_ack(&ack(t, 200), 50_000.0, f64::MAX, MSS), None); // slow start
        }
    }

    #[test]
    fn a_relative_d0_scales_with_the_base_rtt() {
        // D0 = 0.45 × 100 ms = 45 ms: a 30 ms queue no longer triggers, a 50 ms one does.
        let p = DaimdSpec {
            d0_rtt: Some(0.45),
            ..DaimdSpec::default()
        };
        let mut d = Daimd::new(p);
        for t in (1000..1500).step_by(50) {
            assert_eq!(d.on_ack(&ack(t, 130), 50_000.0, 10_000.0, MSS), None);
        }
        d.on_ack(&ack(2000, 150), 50_000.0, 10_000.0, MSS);
        assert!(d.on_ack(&ack(2100, 150), 50_000.0, 10_000.0, MSS).is_some());
    }

    #[test]
    fn fixed_hold_time_is_used_when_given() {
        let p = DaimdSpec {
            hold: Some(Dur::from_millis(10)),
            ..DaimdSpec::default()
        };
        let mut d = Daimd::new(p);
        d.on_ack(&ack(1000, 130), 50_000.0, 10_000.0, MSS);
        assert_eq!(
            d.on_ack(&ack(1010, 130), 50_000.0, 10_000.0, MSS),
            Some(35_000.0)
        );
    }
}
