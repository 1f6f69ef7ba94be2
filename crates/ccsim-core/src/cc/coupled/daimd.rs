//! DAIMD's delay congestion detection (González, Pradilla, Esteve & Palau, "Hybrid
//! delay-based congestion control for Multipath TCP", MELECON 2016, eq. (1)). The increase
//! and the loss decrease are LIA's (`lia`); on top of them, subflow r cuts its window to
//! `delay_beta`·cwnd_r (paper: 0.7) when
//!
//!   D ≥ D0  and  cwnd_r > W0  and the first condition has held for a time T.
//!
//! The paper does not say what D is nor give D0, W0 or T. Defaults (ALGORITHMS.md §3.3.2,
//! docs/controllers/daimd.md): D = RTT sample − smallest RTT of the subflow (its queueing
//! delay; `signal = "srtt"` takes the smoothed RTT instead), D0 = 20 ms, W0 = 4 packets,
//! T = one smoothed RTT; after a delay backoff the detector is quiet for T (`quiet`) and only
//! then may the hold start again (one reaction per queue build-up: a standing queue is cut
//! every 2·T at most). Detection runs only in
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
    pub quiet: DaimdQuiet,
    pub signal: DaimdSignal,
}

/// DAIMD's quiet time after a delay backoff (not in the paper; docs/controllers/daimd.md).
/// In a document: `"hold"`, `"srtt"` or a duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(from = "QuietValue", into = "QuietValue")]
pub enum DaimdQuiet {
    /// As long as the hold time T (default).
    #[default]
    Hold,
    /// One smoothed RTT of the subflow.
    Srtt,
    /// A fixed time (zero: the hold may start again at the next ACK).
    Fixed(Dur),
}

/// `quiet` as the declarations normalise it: one of its words, or nanoseconds.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(untagged)]
enum QuietValue {
    Word(QuietWord),
    Fixed(Dur),
}

#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum QuietWord {
    Hold,
    Srtt,
}

impl From<QuietValue> for DaimdQuiet {
    fn from(v: QuietValue) -> DaimdQuiet {
        match v {
            QuietValue::Word(QuietWord::Hold) => DaimdQuiet::Hold,
            QuietValue::Word(QuietWord::Srtt) => DaimdQuiet::Srtt,
            QuietValue::Fixed(d) => DaimdQuiet::Fixed(d),
        }
    }
}

impl From<DaimdQuiet> for QuietValue {
    fn from(q: DaimdQuiet) -> QuietValue {
        match q {
            DaimdQuiet::Hold => QuietValue::Word(QuietWord::Hold),
            DaimdQuiet::Srtt => QuietValue::Word(QuietWord::Srtt),
            DaimdQuiet::Fixed(d) => QuietValue::Fixed(d),
        }
    }
}

/// What DAIMD takes as the "packet delay" D (not defined by the paper).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DaimdSignal {
    /// The ACK's RTT sample − the subflow's smallest RTT sample (default).
    #[default]
    Sample,
    /// The smoothed RTT − the subflow's smallest RTT sample.
    Srtt,
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
        .doc("T: how long the delay condition must hold before a backoff (and, by default, the quiet time after one)")
        .source("our choice (the paper gives none): one smoothed RTT, docs/controllers/daimd.md"),
    Param::float("delay_beta", 0.7, Bound::Excl(0.0), Bound::Excl(1.0))
        .doc("multiplicative decrease on delay congestion")
        .source("González et al. 2016, eq. (1) (0.7)"),
    COUNTING,
    Param::duration("quiet", "hold")
        .alt(Alt::Words(&[
            ("hold", "as long as the hold time T"),
            ("srtt", "one smoothed RTT of the subflow"),
        ]))
        .doc("quiet time after a delay backoff, which must elapse before the hold may start again (\"0s\": at once, the double cut of issue #16)")
        .source("our choice (the paper gives none): T, one reaction per queue build-up (docs/controllers/daimd.md)"),
    Param::choice("signal", "sample", &["sample", "srtt"])
        .doc("the packet delay D compared with D0: the ACK's RTT sample, or the smoothed RTT, minus the subflow's smallest RTT")
        .source("our choice (the paper does not define D): the per-sample queueing delay of Hamilton delay-based AIMD and CDG (docs/controllers/daimd.md)"),
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
        let d = match self.p.signal {
            DaimdSignal::Sample => rtt,
            DaimdSignal::Srtt => ev.srtt,
        } - ev.min_rtt; // saturating
        let d0 = match self.p.d0_rtt {
            Some(f) => Dur::from_secs_f64(ev.min_rtt.secs() * f),
            None => self.p.d0,
        };
        // The quiet time after a backoff comes before the hold may start again: samples in
        // it still show the queue built before the cut, and a hold running through them would
        // cut a second time one T later (0.7² ≈ 0.49 for one build-up).
        if d < d0 || cwnd <= self.p.w0 * mss || ev.now < self.quiet_until {
            self.since = None;
            return None;
        }
        let since = *self.since.get_or_insert(ev.now);
        let hold = self.p.hold.unwrap_or(ev.srtt);
        if ev.now.since(since) >= hold {
            self.since = None;
            self.quiet_until = ev.now
                + match self.p.quiet {
                    DaimdQuiet::Hold => hold,
                    DaimdQuiet::Srtt => ev.srtt,
                    DaimdQuiet::Fixed(q) => q,
                };
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

    /// Drive the detector with ACKs every 10 ms (T = srtt = 100 ms) through `build_ups`
    /// queue build-ups, each seen as D = 30 ms ≥ D0 for `high_ms` then D = 0 for 500 ms
    /// (the queue drained); returns the times of the delay cuts.
    fn cuts_over_build_ups(build_ups: u64, high_ms: u64) -> Vec<u64> {
        let mut d = Daimd::new(DaimdSpec::default());
        let (mut cwnd, mut cuts, mut t) = (50_000.0, Vec::new(), 1000);
        for _ in 0..build_ups {
            for (len, rtt) in [(high_ms, 130), (500, 100)] {
                for at in (t..t + len).step_by(10) {
                    if let Some(after) = d.on_ack(&ack(at, rtt), cwnd, 10_000.0, MSS) {
                        assert!((after - 0.7 * cwnd).abs() < 1e-9);
                        cwnd = after;
                        cuts.push(at);
                    }
                }
                t += len;
            }
            cwnd = 50_000.0; // the window grew back before the next build-up
        }
        cuts
    }

    #[test]
    fn one_cut_per_queue_build_up() {
        // The delay holds for T (the cut), then the queue built before the cut is still seen
        // for 1.5 T more before it drains. The quiet time after the cut must elapse before
        // the hold starts again, so the old queue cannot trigger a second cut one T later
        // (two 0.7 cuts make 0.49, a deeper backoff than LIA's 0.5).
        let cuts = cuts_over_build_ups(3, 250);
        assert_eq!(
            cuts,
            vec![1100, 1850, 2600],
            "one cut per build-up: {cuts:?}"
        );
    }

    #[test]
    fn under_a_standing_queue_cuts_are_two_t_apart() {
        // D ≥ D0 throughout: quiet for T after each cut, then the hold of T.
        let cuts = cuts_over_build_ups(1, 1000);
        assert_eq!(cuts, vec![1100, 1300, 1500, 1700, 1900], "{cuts:?}");
    }

    #[test]
    fn a_zero_quiet_time_lets_the_old_queue_cut_again() {
        // The behaviour the default quiet time prevents, kept as a declared alternative:
        // with no quiet time the hold restarts at once and the queue still seen after the
        // cut gives a second cut one T later.
        let p = DaimdSpec {
            quiet: DaimdQuiet::Fixed(Dur::ZERO),
            ..DaimdSpec::default()
        };
        let mut d = Daimd::new(p);
        let mut cuts = Vec::new();
        for at in (1000..1250).step_by(10) {
            if d.on_ack(&ack(at, 130), 50_000.0, 10_000.0, MSS).is_some() {
                cuts.push(at);
            }
        }
        assert_eq!(cuts, vec![1100, 1210]);
        // Quiet for one smoothed RTT (here 200 ms, T fixed at 100 ms): cuts 300 ms apart.
        let p = DaimdSpec {
            quiet: DaimdQuiet::Srtt,
            hold: Some(Dur::from_millis(100)),
            ..DaimdSpec::default()
        };
        let mut d = Daimd::new(p);
        let mut cuts = Vec::new();
        for at in (1000..1800).step_by(10) {
            let mut ev = ack(at, 130);
            ev.srtt = Dur::from_millis(200);
            if d.on_ack(&ev, 50_000.0, 10_000.0, MSS).is_some() {
                cuts.push(at);
            }
        }
        assert_eq!(cuts, vec![1100, 1400, 1700]);
    }

    #[test]
    fn the_smoothed_rtt_signal_ignores_a_single_late_sample() {
        // srtt 105 ms over a 100 ms minimum: D = 5 ms < D0 whatever the sample says.
        let p = DaimdSpec {
            signal: DaimdSignal::Srtt,
            ..DaimdSpec::default()
        };
        let mut d = Daimd::new(p);
        for at in (1000..1500).step_by(10) {
            let mut ev = ack(at, 200);
            ev.srtt = Dur::from_millis(105);
            assert_eq!(d.on_ack(&ev, 50_000.0, 10_000.0, MSS), None);
        }
        // srtt 125 ms: D = 25 ms ≥ D0, held for T = srtt.
        let mut cut = None;
        for at in (2000..2200).step_by(10) {
            let mut ev = ack(at, 100);
            ev.srtt = Dur::from_millis(125);
            cut = cut.or(d.on_ack(&ev, 50_000.0, 10_000.0, MSS).map(|_| at));
        }
        assert_eq!(cut, Some(2130));
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
        // One controller per condition: a slow-start ACK restarts the hold, so the two
        // interleaved on one controller would hide a broken W0 test.
        let mut at_w0 = Daimd::new(DaimdSpec::default());
        let mut slow = Daimd::new(DaimdSpec::default());
        for t in (1000..2000).step_by(50) {
            assert_eq!(at_w0.on_ack(&ack(t, 200), 4_000.0, 1_000.0, MSS), None); // cwnd = W0
            assert_eq!(slow.on_ack(&ack(t, 200), 50_000.0, f64::MAX, MSS), None);
            // slow start
        }
        // One packet above W0 the same queueing delay does back off once it has held for T.
        let mut above = Daimd::new(DaimdSpec::default());
        assert!((1000..2000)
            .step_by(50)
            .any(|t| above.on_ack(&ack(t, 200), 5_000.0, 1_000.0, MSS).is_some()));
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
