//! RTT estimation and the retransmission timeout: RFC 6298 (the default), Linux's
//! `tcp_rtt_estimator`/`tcp_set_rto` and ns-2's `TcpAgent::rtt_update`/`rtt_timeout`
//! (`rto_variants.rs`). All three share the backoff (RFC 6298 §5.5), Karn's rule (the caller
//! feeds only valid samples) and the sample statistics.

use super::rto_variants::{LinuxRtt, Ns2Rtt};
use crate::measure::histogram::Histogram;
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
    /// TCP only ([`TCP_PARAMS`]); ARC and SCTP use RFC 6298's.
    #[serde(default)]
    pub estimator: RtoEstimator,
    /// TCP only.
    #[serde(default)]
    pub samples: RttSamples,
    /// TCP only.
    #[serde(default)]
    pub restart_at_fast_retransmit: bool,
    /// TCP only: restart the timer whenever loss recovery resends the oldest outstanding
    /// segment (SACK recoveries).
    #[serde(default)]
    pub restart_on_head_retransmit: bool,
    /// TCP only: Karn's rule (no sample from an ACK echoing a retransmitted segment).
    #[serde(default = "karn_default")]
    pub karn: bool,
}

fn karn_default() -> bool {
    true
}

impl Default for RtoSpec {
    /// TCP's (RFC 6298); ARC and SCTP override some (their `Kind::layers`).
    fn default() -> RtoSpec {
        crate::params::defaults(TCP_PARAMS)
    }
}

impl RtoSpec {
    /// RFC 6298's estimator with these bounds, samples from every ACK, no restart at fast
    /// retransmit.
    pub fn rfc6298(min: Dur, max: Dur, initial: Dur, granularity: Dur) -> RtoSpec {
        RtoSpec {
            min,
            max,
            initial,
            granularity,
            estimator: RtoEstimator::Rfc6298,
            samples: RttSamples::EveryAck,
            restart_at_fast_retransmit: false,
            restart_on_head_retransmit: false,
            karn: true,
        }
    }
}

/// The retransmission-timeout estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoEstimator {
    /// RFC 6298: RTO = SRTT + max(G, 4·RTTVAR), clamped to [min, max].
    #[default]
    Rfc6298,
    /// Linux `tcp_rtt_estimator` / `tcp_set_rto`: RTO = srtt + max(4·mdev, rto_min), with
    /// mdev's per-window maximum and slow decay (`rto_variants.rs`).
    Linux,
    /// ns-2 `TcpAgent::rtt_update` / `rtt_timeout`: integer arithmetic in `tcpTick_` units.
    Ns2,
}

/// Which ACKs carry an RTT sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSamples {
    /// Every ACK echoing a segment that was not retransmitted (timestamps, RFC 7323).
    #[default]
    EveryAck,
    /// One timed segment per RTT, as ns-2 without timestamps (`timestamps_ false`): the
    /// sample is cancelled by a timeout or a fast retransmit (`timed_segment.rs`).
    OnePerRtt,
    /// Timestamps under the RTTM rule (RFC 7323 §4; the rule of RFC 1323 §3.3): a TSecr
    /// updates the RTT estimate only when its ACK advances SND.UNA, so duplicate ACKs give
    /// no sample (as ns-3.44's `TcpSocketBase::EstimateRtt`, which samples only when the
    /// oldest outstanding segment is acknowledged).
    NewAck,
}

const MIN: Param = Param::duration("min", "1s")
    .doc("lower bound of the RTO")
    .source("RFC 6298 §2.4 (1 s); ns-2.35 ns-default.tcl:956 minrto_ 0.2 s: set it for ns-2-era reproductions");
const MAX: Param = Param::positive_duration("max", "60s")
    .doc("upper bound of the RTO, also of its exponential backoff; at least min")
    .source("RFC 6298 §2.5 (at least 60 s); ns-2.35 ns-default.tcl:954 maxrto_ 60 s (100 000 s before ns-2.32)");
const INITIAL: Param = Param::positive_duration("initial", "1s")
    .doc("RTO before the first RTT sample")
    .source("RFC 6298 §2.1 (1 s)");
const GRANULARITY: Param = Param::duration("granularity", "1ms")
    .doc("clock granularity G in RTO = SRTT + max(G, 4·RTTVAR)")
    .source("our choice: 1 ms, a modern kernel's timer (RFC 6298 §2.3 leaves G to the implementation; ns-2.35 ns-default.tcl:952 tcpTick_ 10 ms)");
/// TCP's granularity: also the tick of ns-2's estimator and the jiffy of Linux's.
const TCP_GRANULARITY: Param = GRANULARITY
    .doc("clock granularity G in RTO = SRTT + max(G, 4·RTTVAR); with estimator = \"ns2\" ns-2's tcpTick_ (above zero), with \"linux\" the jiffy the RTO rounds up to");

/// The `rto` table of ARC and SCTP flows: the bounds of RFC 6298's estimator.
pub const PARAMS: &[Param] = &[MIN, MAX, INITIAL, GRANULARITY];

/// The `rto` table of TCP flows and MPTCP subflows: the bounds, the estimator and the
/// timer options of issues #19 and #27 (each RFC 6298's behaviour by default).
pub const TCP_PARAMS: &[Param] = &[
    MIN,
    MAX,
    INITIAL,
    TCP_GRANULARITY,
    Param::choice("estimator", "rfc6298", &["rfc6298", "linux", "ns2"])
        .doc("how the RTO follows the samples: RFC 6298; Linux tcp_rtt_estimator/tcp_set_rto (RTO = srtt + max(4·mdev, min), rttvar tracking the window's largest mdev); ns-2 rtt_update/rtt_timeout (integer ticks of granularity); docs/tcp.md §10.3")
        .source("RFC 6298 §2; Linux net/ipv4/tcp_input.c tcp_rtt_estimator, tcp_set_rto; ns-2.35 tcp/tcp.cc rtt_update, rtt_timeout"),
    Param::choice("samples", "every_ack", &["every_ack", "one_per_rtt", "new_ack"])
        .doc("RTT samples from every ACK (timestamps), from ACKs that advance SND.UNA only (timestamps under RFC 7323's RTTM rule), or one timed segment per round trip, cancelled by a timeout or fast retransmit; docs/tcp.md §10.4")
        .source("every ACK (RFC 7323 timestamps); new_ack: RFC 7323 §4 RTTM rule (RFC 1323 §3.3), ns-3.44 tcp-socket-base.cc EstimateRtt/CalculateRttSample; ns-2.35 ns-default.tcl:946 timestamps_ false times one segment (tcp/tcp.cc ~780–786, ~1390–1402)"),
    Param::boolean("restart_at_fast_retransmit", false)
        .doc("restart the timer when fast retransmit sends; docs/tcp.md §10.5")
        .source("RFC 6298 §5.1 starts only a stopped timer; ns-2.35 restarts it (reset_rtx_timer(1,0), tcp/tcp-newreno.cc ~168, tcp-sack1.cc ~338, tcp-reno.cc ~214)"),
    Param::boolean("restart_on_head_retransmit", false)
        .doc("SACK recoveries: restart the timer whenever loss recovery resends the oldest outstanding segment (the fast retransmit, and a lost retransmission sent again); docs/tcp.md §10.5")
        .source("RFC 6298 §5.1 starts only a stopped timer; Linux tcp_xmit_retransmit_queue re-arms it when it resends the head of the retransmission queue (net/ipv4/tcp_output.c; the linux profile)"),
    Param::boolean("karn", true)
        .doc("Karn's rule: no RTT sample from an ACK echoing a retransmitted segment; false takes it, the timestamp naming which transmission the ACK answers (every_ack and new_ack samples); docs/tcp.md §10.4")
        .source("RFC 6298 §3 (Karn; samples from retransmissions are safe with timestamps); ns-3.44 tcp-socket-base.cc CalculateRttSample checks the retransmission only without timestamps"),
];

/// One RTT measurement with the sequence state a TCP sender knows when it takes it.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The measured round-trip time.
    pub rtt: Dur,
    /// When the measurement ends (the ACK's arrival).
    pub now: SimTime,
    /// snd.una after this ACK (Linux's once-per-window variance decay).
    pub una: u64,
    /// One past the highest segment sent (Linux's snd.nxt).
    pub nxt: u64,
}

/// The Linux or ns-2 estimator's state (`None`: RFC 6298, kept in `RttEstimator` itself).
#[derive(Clone, Debug)]
enum Variant {
    Linux(LinuxRtt),
    Ns2(Ns2Rtt),
}

/// SRTT/RTO state with exponential backoff, plus sample statistics.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    spec: RtoSpec,
    /// The smoothed RTT in nanoseconds (`None` before the first sample); RFC 6298's SRTT,
    /// or a copy of the variant's.
    srtt: Option<u64>,
    /// RFC 6298's RTTVAR.
    rttvar: u64,
    /// The Linux or ns-2 rule, if one is chosen.
    variant: Option<Variant>,
    /// RTO before the first sample: `spec.initial`, or RFC 6298 §5.7's 3 s after a SYN
    /// timed out.
    initial: Dur,
    /// Backoff multiplier exponent (doubled RTO per timeout, RFC 6298 §5.5).
    backoff: u32,
    /// Smallest sample of the whole connection (controllers read it).
    min_rtt: u64,
    samples: u64,
    /// What the summaries report; restarted at a measurement window's start.
    report: RttStats,
}

/// Min, max and sum of RTT samples (nanoseconds), for the summaries; with `[measure]`,
/// their distribution too.
#[derive(Clone, Debug)]
pub struct RttStats {
    min: u64,
    max: u64,
    sum: f64,
    n: u64,
    hist: Option<Box<Histogram>>,
}

impl Default for RttStats {
    fn default() -> RttStats {
        RttStats {
            min: u64::MAX,
            max: 0,
            sum: 0.0,
            n: 0,
            hist: None,
        }
    }
}

impl RttStats {
    /// The 50th, 95th and 99th percentiles (s) when the distribution is kept.
    pub fn percentiles(&self) -> Option<[f64; 3]> {
        self.hist
            .as_ref()
            .map(|h| [h.quantile_s(0.5), h.quantile_s(0.95), h.quantile_s(0.99)])
    }
    /// (min, mean, max) in seconds; NaN without samples.
    pub fn get(&self) -> (f64, f64, f64) {
        if self.n == 0 {
            return (f64::NAN, f64::NAN, f64::NAN);
        }
        (
            Dur(self.min).secs(),
            self.sum / self.n as f64 / 1e9,
            Dur(self.max).secs(),
        )
    }
}

fn variant(e: RtoEstimator) -> Option<Variant> {
    match e {
        RtoEstimator::Rfc6298 => None,
        RtoEstimator::Linux => Some(Variant::Linux(LinuxRtt::default())),
        RtoEstimator::Ns2 => Some(Variant::Ns2(Ns2Rtt::default())),
    }
}

impl RttEstimator {
    /// Before any sample, RTO is `spec.initial` (RFC 6298 §2.1).
    pub fn new(spec: RtoSpec) -> RttEstimator {
        RttEstimator {
            spec,
            srtt: None,
            rttvar: 0,
            variant: variant(spec.estimator),
            initial: spec.initial,
            backoff: 0,
            min_rtt: u64::MAX,
            samples: 0,
            report: RttStats::default(),
        }
    }

    /// Take one RTT measurement R. With the Linux rule use `sample_tcp`, which also knows
    /// the sequence state.
    #[inline]
    pub fn sample(&mut self, r: Dur) {
        if self.variant.is_some() {
            return self.sample_tcp(Sample {
                rtt: r,
                now: SimTime(r.0),
                una: 0,
                nxt: 0,
            });
        }
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
        self.count(r);
    }

    #[inline]
    fn count(&mut self, r: u64) {
        self.min_rtt = self.min_rtt.min(r);
        self.samples += 1;
        let st = &mut self.report;
        st.min = st.min.min(r);
        st.max = st.max.max(r);
        st.sum += r as f64;
        st.n += 1;
        if let Some(h) = st.hist.as_mut() {
            h.record(r);
        }
    }

    /// Take one RTT measurement with the sender's sequence state (the Linux and ns-2 rules
    /// use it; RFC 6298's does not).
    #[inline(never)]
    pub fn sample_tcp(&mut self, s: Sample) {
        let r = s.rtt.0;
        let tick = self.spec.granularity.0;
        match &mut self.variant {
            None => return self.sample(s.rtt),
            Some(Variant::Linux(l)) => {
                l.sample(r, s.una, s.nxt, self.spec.min.0);
                self.srtt = Some(l.srtt());
            }
            Some(Variant::Ns2(n)) => {
                // ns-2 `rtt_update` (tcp.cc:568–576): timestamps round to the nearest tick;
                // a timed segment counts the ticks its clock crossed (boot_time_ = 0).
                let ticks = match self.spec.samples {
                    RttSamples::EveryAck | RttSamples::NewAck => Ns2Rtt::ticks_rounded(r, tick),
                    RttSamples::OnePerRtt => {
                        Ns2Rtt::ticks_crossed(SimTime(s.now.0.saturating_sub(r)), s.now, tick)
                    }
                };
                n.sample(ticks, tick);
                self.srtt = Some(n.srtt(tick));
            }
        }
        self.count(r);
    }

    /// Forget the estimate for a new connection (statistics and min RTT are kept).
    pub fn restart(&mut self) {
        self.srtt = None;
        self.rttvar = 0;
        self.variant = variant(self.spec.estimator);
        self.initial = self.spec.initial;
        self.backoff = 0;
    }

    /// RFC 6298 §5.7: a SYN timed out and the handshake gave no sample, so the RTO before
    /// the first data sample is at least 3 s.
    pub fn after_syn_timeout(&mut self) {
        self.initial = self.spec.initial.max(Dur::from_secs(3));
    }

    /// Karn's rule (RFC 6298 §5, note on backoff): keep the backed-off RTO until a sample
    /// from a segment that was not retransmitted arrives; the caller reports it here.
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Timeouts since the last valid sample: the RTO is the base RTO × 2^backoff, capped.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// Double the RTO after a timeout (§5.5), up to the maximum.
    pub fn back_off(&mut self) {
        if self.backoff < 40 {
            self.backoff += 1;
        }
        // ns-2 `rtt_backoff` (tcp.cc:618–626): past a multiplier of 8, forget SRTT so the
        // next sample starts the estimate afresh.
        if let Some(Variant::Ns2(n)) = &mut self.variant {
            if self.backoff > 3 {
                n.forget_srtt();
                self.srtt = None;
            }
        }
    }

    /// The current RTO, backoff included, bounded by [min, max] (§2.4, §2.5).
    #[inline]
    pub fn rto(&self) -> Dur {
        if self.variant.is_some() {
            return self.rto_variant();
        }
        let base = match self.srtt {
            None => self.initial.0,
            // §2.3: RTO = SRTT + max(G, K·RTTVAR) with K = 4.
            Some(s) => s + self.spec.granularity.0.max(4 * self.rttvar),
        };
        let base = base.clamp(self.spec.min.0, self.spec.max.0);
        Dur(base
            .saturating_mul(1u64 << self.backoff.min(40))
            .min(self.spec.max.0))
    }

    /// The Linux and ns-2 timeouts (out of line).
    #[inline(never)]
    fn rto_variant(&self) -> Dur {
        let (min, max) = (self.spec.min.0, self.spec.max.0);
        let mult = 1u64 << self.backoff.min(40);
        match &self.variant {
            // Linux: the variance term already holds rto_min (tcp_input.c:943, 935), so
            // there is no lower clamp; the RTO rounds up to a jiffy (usecs_to_jiffies in
            // __tcp_set_rto).
            Some(Variant::Linux(l)) => {
                let base = match l.base_rto() {
                    None => self.initial.0.min(max),
                    Some(b) => round_up(b, self.spec.granularity.0).min(max),
                };
                Dur(base.saturating_mul(mult).min(max))
            }
            // ns-2 `rtt_timeout` with rfc2988_ true (tcp.cc:529–561): clamp to minrto_ before
            // the backoff, cap at maxrto_, never below two ticks.
            Some(Variant::Ns2(n)) => {
                let base = n.rtxcur().unwrap_or(self.initial.0).max(min);
                let t = base.saturating_mul(mult).min(max);
                Dur(t.max(2 * self.spec.granularity.0))
            }
            None => unreachable!("the RFC rule is handled inline"),
        }
    }

    /// Smoothed RTT, zero before the first sample.
    pub fn srtt(&self) -> Dur {
        Dur(self.srtt.unwrap_or(0))
    }

    /// Smallest sample, zero before the first.
    pub fn min_rtt(&self) -> Dur {
        Dur(if self.samples == 0 { 0 } else { self.min_rtt })
    }

    /// How many samples were taken (over all connections).
    pub fn sample_count(&self) -> u64 {
        self.samples
    }

    /// (min, mean, max) in seconds of the samples since the start, or since the last
    /// `restart_stats`; NaN without samples.
    pub fn stats(&self) -> (f64, f64, f64) {
        self.report.get()
    }

    /// Report only samples taken from now on (a measurement window opens); the estimator
    /// and the connection's min RTT are untouched.
    pub fn restart_stats(&mut self) {
        let keep = self.report.hist.is_some();
        self.report = RttStats::default();
        if keep {
            self.keep_distribution();
        }
    }

    /// Keep the distribution of the samples too (`[measure]`: RTT percentiles).
    pub fn keep_distribution(&mut self) {
        self.report.hist = Some(Box::default());
    }

    /// What the summaries report.
    pub fn report(&self) -> &RttStats {
        &self.report
    }

    /// When a timer started at `t` expires.
    pub fn deadline(&self, t: SimTime) -> SimTime {
        t + self.rto()
    }
}

/// `x` rounded up to a multiple of `g` (`g` = 0: unchanged).
fn round_up(x: u64, g: u64) -> u64 {
    if g == 0 {
        x
    } else {
        x.div_ceil(g) * g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RtoSpec {
        RtoSpec::rfc6298(
            Dur::from_millis(200),
            Dur::from_secs(60),
            Dur::from_secs(1),
            Dur::from_millis(1),
        )
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

    #[test]
    fn a_syn_timeout_raises_the_initial_rto_to_three_seconds() {
        // RFC 6298 §5.7.
        let mut e = RttEstimator::new(spec());
        e.after_syn_timeout();
        assert_eq!(e.rto(), Dur::from_secs(3));
        e.restart();
        assert_eq!(e.rto(), Dur::from_secs(1));
    }

    /// Linux's estimator without the jiffy rounding (granularity 0), to see its arithmetic.
    fn linux() -> RttEstimator {
        RttEstimator::new(RtoSpec {
            estimator: RtoEstimator::Linux,
            max: Dur::from_secs(120),
            granularity: Dur::ZERO,
            ..spec()
        })
    }

    fn at(e: &mut RttEstimator, ms: u64, una: u64, nxt: u64) {
        e.sample_tcp(Sample {
            rtt: Dur::from_millis(ms),
            now: SimTime::ZERO,
            una,
            nxt,
        });
    }

    #[test]
    fn linux_rto_is_srtt_plus_the_larger_of_four_mdev_and_rto_min() {
        // tcp_input.c:940–946: srtt = m, mdev_us = 2m (4·mdev with mdev = m/2),
        // rttvar = max(2m, rto_min); RTO = srtt + rttvar (tcp.h:777).
        let mut e = linux();
        at(&mut e, 100, 0, 10);
        assert_eq!(e.srtt(), Dur::from_millis(100));
        assert_eq!(e.rto(), Dur::from_millis(100 + 200));
        let mut e = linux();
        at(&mut e, 40, 0, 10);
        // 4·mdev = 80 ms < rto_min: RTO = 40 + 200 = 240 ms, where RFC 6298 gives
        // max(40 + 4·20, 200) = 200 ms.
        assert_eq!(e.rto(), Dur::from_millis(240));
    }

    #[test]
    fn linux_mdev_grows_with_gain_one_quarter_and_shrinks_with_one_thirty_second() {
        // Growth: 100 then 180 ms. err = +80: srtt = 100 + 80/8 = 110; mdev_us = 200 +
        // (80 − 200/4) = 230 > mdev_max (200) so rttvar = 230; RTO = 110 + 230 = 340 ms.
        let mut e = linux();
        at(&mut e, 100, 0, 10);
        at(&mut e, 180, 5, 10);
        assert_eq!(e.srtt(), Dur::from_millis(110));
        assert_eq!(e.rto(), Dur::from_millis(340));
        // Shrink (tcp_input.c:909–921): 100 then 20 ms. err = −80: srtt = 90; |err| − 50 = 30
        // is scaled by 1/8 to 3.75 ms, so mdev_us = 203.75 (not 230); rttvar stays at
        // mdev_max: max(200, 203.75) = 203.75; RTO = 90 + 203.75 ms.
        let mut e = linux();
        at(&mut e, 100, 0, 10);
        at(&mut e, 20, 5, 10);
        assert_eq!(e.srtt(), Dur::from_millis(90));
        assert_eq!(e.rto(), Dur::from_micros(90_000 + 203_750));
    }

    #[test]
    fn linux_rttvar_decays_a_quarter_towards_the_window_maximum_once_per_window() {
        let mut e = linux();
        at(&mut e, 100, 0, 10); // rtt_seq = 10
        at(&mut e, 180, 5, 12); // rttvar = 230 (above); una 5 ≤ rtt_seq: no decay
                                // una = 11 > rtt_seq = 10: mdev_max (230) is not below rttvar (230): no change;
                                // rtt_seq = 12, mdev_max = rto_min = 200.
        at(&mut e, 110, 11, 12);
        // err = 0: srtt stays 110; mdev_us = 230 + (0 − 57.5) = 172.5 ms.
        assert_eq!(e.srtt(), Dur::from_millis(110));
        assert_eq!(e.rto(), Dur::from_millis(340));
        // Next window (una 13 > 12): mdev_us = 172.5 − 43.125 = 129.375 < mdev_max 200;
        // rttvar −= (230 − 200)/4 = 7.5 → 222.5 ms; RTO = 110 + 222.5.
        at(&mut e, 110, 13, 20);
        assert_eq!(e.rto(), Dur::from_micros(110_000 + 222_500));
    }

    #[test]
    fn linux_rto_rounds_up_to_the_jiffy_and_doubles_to_its_maximum() {
        let mut e = RttEstimator::new(RtoSpec {
            estimator: RtoEstimator::Linux,
            max: Dur::from_secs(120),
            granularity: Dur::from_millis(4), // HZ = 250
            ..spec()
        });
        assert_eq!(
            e.rto(),
            Dur::from_secs(1),
            "TCP_TIMEOUT_INIT before a sample"
        );
        at(&mut e, 101, 0, 10);
        // 101 + max(202, 200) = 303 ms, rounded up to 304 ms.
        assert_eq!(e.rto(), Dur::from_millis(304));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(120));
    }

    fn ns2(samples: RttSamples, min_ms: u64) -> RttEstimator {
        RttEstimator::new(RtoSpec {
            estimator: RtoEstimator::Ns2,
            samples,
            min: Dur::from_millis(min_ms),
            initial: Dur::from_secs(3),
            granularity: Dur::from_millis(10),
            ..spec()
        })
    }

    fn ns2_at(e: &mut RttEstimator, sent_us: u64, now_us: u64) {
        e.sample_tcp(Sample {
            rtt: Dur::from_micros(now_us - sent_us),
            now: SimTime(Dur::from_micros(now_us).0),
            una: 0,
            nxt: 0,
        });
    }

    #[test]
    fn ns2_rto_in_ticks_with_timestamps() {
        let mut e = ns2(RttSamples::EveryAck, 200);
        assert_eq!(e.rto(), Dur::from_secs(3), "rtxcur_init_");
        // 104 ms → int(10.4 + 0.5) = 10 ticks: srtt8 = 80, rttvar4 = 20,
        // rtxcur = ((20 << 3) + 80) >> 3 = 30 ticks = 300 ms.
        ns2_at(&mut e, 0, 104_000);
        assert_eq!(e.srtt(), Dur::from_millis(100));
        assert_eq!(e.rto(), Dur::from_millis(300));
        // 155 ms → 16 ticks: delta 6, srtt8 = 86; |6| − (20 >> 2) = 1, rttvar4 = 21;
        // rtxcur = (168 + 86) >> 3 = 31 ticks = 310 ms.
        ns2_at(&mut e, 1_000_000, 1_155_000);
        assert_eq!(e.srtt(), Dur::from_millis(100), "(86 >> 3) ticks");
        assert_eq!(e.rto(), Dur::from_millis(310));
        // minrto_ is applied before the backoff: min 1 s → 1 s, 2 s, 4 s.
        let mut e = ns2(RttSamples::EveryAck, 1000);
        ns2_at(&mut e, 0, 104_000);
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_secs(2));
    }

    #[test]
    fn ns2_timed_segment_counts_the_clock_ticks_it_crossed() {
        // Without timestamps (tcp.cc:571–575, boot_time_ = 0): 106 ms from 95 ms to 201 ms
        // crosses ticks 10…20: 11 ticks; the same 106 ms from 101 ms crosses 10.
        let mut a = ns2(RttSamples::OnePerRtt, 0);
        ns2_at(&mut a, 95_000, 201_000);
        assert_eq!(a.srtt(), Dur::from_millis(110));
        let mut b = ns2(RttSamples::OnePerRtt, 0);
        ns2_at(&mut b, 101_000, 207_000);
        assert_eq!(b.srtt(), Dur::from_millis(100));
    }

    #[test]
    fn ns2_timeout_is_at_least_two_ticks() {
        let mut e = RttEstimator::new(RtoSpec {
            estimator: RtoEstimator::Ns2,
            min: Dur::ZERO,
            initial: Dur::from_millis(10),
            granularity: Dur::from_millis(10),
            ..spec()
        });
        assert_eq!(e.rto(), Dur::from_millis(20));
        // A 1 ms sample is 1 tick (the floor of t_rtt_): rtxcur = (16 + 8) >> 3 = 3 ticks.
        ns2_at(&mut e, 0, 1_000);
        assert_eq!(e.rto(), Dur::from_millis(30));
    }

    #[test]
    fn ns2_forgets_srtt_once_backed_off_past_eight() {
        let mut e = ns2(RttSamples::EveryAck, 0);
        ns2_at(&mut e, 0, 100_000); // 10 ticks
        ns2_at(&mut e, 0, 160_000); // 16 ticks: srtt8 = 86
        for _ in 0..3 {
            e.back_off(); // multiplier 8: the estimate is kept
        }
        assert_eq!(e.srtt(), Dur::from_millis(100));
        e.back_off(); // 16 > 8: t_srtt_ = 0
        assert_eq!(e.srtt(), Dur::ZERO);
        e.reset_backoff();
        // The next sample is a first sample: 30 ticks → rtxcur = (480 + 240) >> 3 = 90.
        ns2_at(&mut e, 0, 300_000);
        assert_eq!(e.rto(), Dur::from_millis(900));
    }
}
