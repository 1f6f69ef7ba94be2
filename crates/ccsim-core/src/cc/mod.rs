//! Congestion controllers: pure state machines behind one small trait.
//!
//! A controller knows nothing of the event loop. The transport tells it of ACKs
//! (`on_ack`, with bytes newly acknowledged, the RTT sample and delivery counters), of
//! congestion (`on_congestion`: fast retransmit or timeout), of round boundaries
//! (`on_round`, once per RTT) and, if it asked for one through `next_timeout`, of time.
//! It answers with a congestion window and optionally a pacing rate. Loss *recovery*
//! (which segments to resend, window inflation) belongs to the transport and is chosen
//! independently (`transport::tcp::Recovery`), as in ns-3's split between
//! `TcpCongestionOps` and `TcpRecoveryOps`.
//!
//! Adding a controller: one file here (its state, its `CongestionControl` implementation,
//! its parameter table and its `KIND`) and one line in [`CONTROLLERS`] (see
//! docs/adding-a-controller.md).

pub mod bbr;
pub mod bwe;
pub mod cmt;
pub mod coupled;
pub mod cubic;
pub mod cubic_kernel;
pub mod dctcp;
#[cfg(test)]
pub mod example_aimd;
pub mod fast;
pub mod hystart;
pub mod linux_window;
pub mod reno;
pub mod vegas;
pub mod westwood;

use crate::params::{Kind, Kinds};
use crate::units::{Bytes, Dur, Rate, SimTime};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::sync::Arc;

pub use coupled::Coupled;
pub use cubic::Cubic;
pub use fast::Fast;
pub use reno::Reno;
pub use vegas::Vegas;
pub use westwood::Westwood;

/// What an ACK told the sender. Built once per ACK by the transport.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent {
    /// Arrival time of the ACK.
    pub now: SimTime,
    /// Bytes newly acknowledged cumulatively (0 for a duplicate ACK).
    pub acked: Bytes,
    /// Bytes newly reported by SACK blocks.
    pub sacked: Bytes,
    /// RTT sample from the echoed timestamp, unless Karn's rule withholds it.
    pub rtt: Option<Dur>,
    /// Smoothed RTT (RFC 6298) after this sample; zero before the first.
    pub srtt: Dur,
    /// Smallest RTT sample so far.
    pub min_rtt: Dur,
    /// Bytes in flight after processing the ACK.
    pub in_flight: Bytes,
    /// Total bytes delivered so far (acknowledged cumulatively or by SACK).
    pub delivered: Bytes,
    /// Whether the sender is in fast recovery.
    pub in_recovery: bool,
    /// Sender's maximum segment size.
    pub mss: Bytes,
}

/// Kind of congestion signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Loss detected by duplicate ACKs or SACK: entering fast recovery.
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
}

#[cfg(test)]
impl AckEvent {
    /// An ACK of `acked` new bytes with RTT sample, smoothed and minimum RTT all `rtt`, for
    /// controllers' unit tests.
    pub(crate) fn for_test(acked: u64, rtt: Dur, mss: u64) -> AckEvent {
        AckEvent {
            now: SimTime::ZERO,
            acked: Bytes(acked),
            sacked: Bytes(0),
            rtt: Some(rtt),
            srtt: rtt,
            min_rtt: rtt,
            in_flight: Bytes(0),
            delivered: Bytes(0),
            in_recovery: false,
            mss: Bytes(mss),
        }
    }
}

/// The sender's loss-recovery state, as Linux's `icsk_ca_state` names it (`Open` also
/// covers Disorder and CWR, which ccsim does not distinguish).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CaState {
    /// No recovery in progress.
    #[default]
    Open,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout, until what was outstanding at it is acknowledged.
    Loss,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation-00 §3; Linux
/// `struct rate_sample`, `tcp_rate_gen` in net/ipv4/tcp_rate.c). Built by the sender on
/// every ACK for a controller whose `wants_rate_samples` is true; byte counts are payload
/// bytes, as the sender's `delivered`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Bytes delivered over `interval` (C.delivered − P.delivered of the most recently sent
    /// packet this ACK delivered).
    pub delivered: Bytes,
    /// The sampling interval, max(send phase, ACK phase); `None` when the sample is not
    /// valid: nothing with timing information was delivered, or the interval is shorter
    /// than the minimum RTT (tcp_rate.c `tcp_rate_gen`).
    pub interval: Option<Dur>,
    /// C.delivered when that packet was sent (P.delivered).
    pub prior_delivered: Bytes,
    /// Total bytes delivered so far (C.delivered).
    pub total_delivered: Bytes,
    /// Whether that packet was sent while the application limited the sender.
    pub is_app_limited: bool,
    /// Bytes newly delivered (acknowledged or SACKed) by this ACK.
    pub acked_sacked: Bytes,
    /// Bytes newly marked lost while processing this ACK.
    pub losses: Bytes,
    /// Bytes in flight before this ACK was processed.
    pub prior_in_flight: Bytes,
    /// The sender's loss-recovery state after processing this ACK.
    pub ca_state: CaState,
    /// The RTT sample Linux gives the controller (`rs->rtt_us`): from the most recently
    /// sent original segment the ACK delivered, else the echoed timestamp's when snd.una
    /// advanced (`RateSampler::take_rtt`).
    pub rtt: Option<Dur>,
    /// The earliest time the pacer lets the next segment leave, never before the ACK
    /// (Linux `max(tp->tcp_wstamp_ns, now)`, what BBR's `bbr_packets_in_net_at_edt` reads).
    pub next_departure: SimTime,
}

impl RateSample {
    /// The delivery rate in bytes per second, for a valid sample.
    pub fn rate(&self) -> Option<f64> {
        self.interval
            .filter(|d| d.0 > 0)
            .map(|d| self.delivered.0 as f64 / d.secs())
    }
}

/// A congestion signal.
#[derive(Clone, Copy, Debug)]
pub struct CongestionEvent {
    /// When.
    pub now: SimTime,
    /// Which.
    pub kind: CongestionKind,
    /// Bytes outstanding when the loss was detected (RFC 5681 FlightSize).
    pub flight_size: Bytes,
    /// Sender's maximum segment size.
    pub mss: Bytes,
}

/// The end of a round: every segment outstanding at the start of the round is acknowledged.
#[derive(Clone, Copy, Debug)]
pub struct RoundEvent {
    /// When.
    pub now: SimTime,
    /// Smallest RTT sample seen during the round, if any.
    pub min_rtt_in_round: Option<Dur>,
    /// Bytes delivered during the round.
    pub delivered_in_round: Bytes,
    /// Duration of the round.
    pub duration: Dur,
}

/// A congestion controller. Pure: no clock, no scheduler, no global state.
pub trait CongestionControl {
    /// Short name ("reno", …).
    fn name(&self) -> &'static str;
    /// Bytes that may be outstanding.
    fn cwnd(&self) -> Bytes;
    /// Slow-start threshold.
    fn ssthresh(&self) -> Bytes;
    /// Start from this slow-start threshold instead of an unlimited one (the sender's
    /// `init_ssthresh`, e.g. ns-2's `ssthresh_ = window_` at reset). Called once, right
    /// after the controller is built; a controller without a slow-start threshold (BBR)
    /// has nothing to set.
    fn set_initial_ssthresh(&mut self, _ssthresh: Bytes) {}
    /// The connection's handshake completed at `now` (only when the flow models it), with
    /// the smoothed and minimum RTT it measured (zero if Karn's rule withheld the sample):
    /// where Linux initialises its controller (`tcp_init_transfer` calls
    /// `tcp_init_congestion_control`, net/ipv4/tcp_input.c:6368 at 6.12).
    fn on_established(&mut self, _now: SimTime, _srtt: Dur, _min_rtt: Dur) {}
    /// Pacing rate, for rate-based controllers; `None` sends as the window allows.
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }
    /// An ACK arrived (new data or duplicate). Fires after the transport updated its
    /// RTT estimator and scoreboard (Linux `cong_avoid` + `pkts_acked`).
    fn on_ack(&mut self, ev: &AckEvent);
    /// Loss detected or timer expired (Linux `ssthresh` + `set_state`). The controller sets
    /// ssthresh and the post-event cwnd; fast-recovery inflation is the transport's.
    fn on_congestion(&mut self, ev: &CongestionEvent);
    /// Fast recovery ended (all data outstanding at its start acknowledged).
    fn on_recovery_exit(&mut self, _now: SimTime) {}
    /// A round (about one RTT) ended.
    fn on_round(&mut self, _ev: &RoundEvent) {}
    /// A deadline the controller wants to be woken at.
    fn next_timeout(&self) -> Option<SimTime> {
        None
    }
    /// Called when `next_timeout` is reached.
    fn on_timeout(&mut self, _now: SimTime) {}
    /// ECN feedback of an ACK on a flow with ECN on, before `on_ack`: `acked` bytes newly
    /// acknowledged, `ece` whether the ACK carried ECN-Echo. For controllers that measure
    /// the extent of congestion (DCTCP's fraction of marked bytes, RFC 8257 §3.3).
    fn on_ecn_feedback(&mut self, _acked: Bytes, _ece: bool) {}
    /// The transport reduces the window for an ECN-Echo (once per window, RFC 3168
    /// §6.1.2). `ev.kind` is `FastRetransmit`. By default the response to a loss found by
    /// fast retransmit, as RFC 3168 §6.1.2 asks; nothing is retransmitted.
    fn on_ecn_echo(&mut self, ev: &CongestionEvent) {
        self.on_congestion(ev)
    }
    /// Whether the sender should keep per-packet delivery records and call
    /// `on_rate_sample` (asked once per connection; a controller that says no costs nothing).
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// An ACK with its delivery-rate sample, right after `on_ack` (Linux `cong_control`).
    fn on_rate_sample(&mut self, _ev: &AckEvent, _rs: &RateSample) {}
    /// Whether the samples of what is sent now must be marked application-limited, so
    /// that they cannot lower a bandwidth estimate (BBR's PROBE_RTT, tcp_bbr.c
    /// `bbr_update_min_rtt`). Asked after `on_rate_sample`.
    fn marks_app_limited(&self) -> bool {
        false
    }
    /// Whether the controller sets its own window during loss recovery, so that the
    /// transport's window reduction (PRR) must not apply: Linux runs PRR only for a
    /// controller without `cong_control` (`tcp_cong_control`, net/ipv4/tcp_input.c:3616–3630
    /// at 6.12; `tcp_end_cwnd_reduction` likewise returns early, :2753–2754). Asked once
    /// per sender.
    fn sets_window_in_recovery(&self) -> bool {
        false
    }
    /// The fewest segments per GSO packet Linux builds for this controller (its
    /// `min_tso_segs` hook, else `tcp_min_tso_segs` = 2: `tcp_tso_segs`,
    /// net/ipv4/tcp_output.c:2040–2051), for the sender's Linux models (`push_flags`,
    /// `tso_defer`, `pacing = "linux"`).
    fn min_tso_segs(&self) -> u64 {
        2
    }
}

/// A controller a TCP flow's `cc` can name: its declared parameters and how to build it.
#[derive(Debug)]
pub struct CcKind {
    /// Name, one-line description and parameter table (`cc = { kind = "<name>", ... }`).
    pub kind: Kind,
    /// A fresh controller (one per connection) from the resolved parameters (the JSON object
    /// of `params::Resolved::to_json`). An error means the declaration and the configuration
    /// type disagree; it is found when the scenario is read, never during a run.
    pub build: fn(&Value, CcContext) -> Result<AnyCc, String>,
}

/// Every controller a TCP flow's `cc` can name. Adding a controller is one line here.
pub const CONTROLLERS: &[&CcKind] = &[
    &reno::KIND,
    &vegas::KIND,
    &westwood::KIND,
    &cubic::KIND,
    &fast::KIND,
    &dctcp::KIND,
    &bbr::KIND,
    #[cfg(test)]
    &example_aimd::KIND,
];

/// The kinds of a TCP flow's `cc` table.
pub const CC_KINDS: Kinds = Kinds {
    what: "controller",
    list: || CONTROLLERS.iter().map(|c| &c.kind).collect(),
    note: "",
    number: None,
};

/// The controller called `name`.
pub fn find(name: &str) -> Option<&'static CcKind> {
    CONTROLLERS.iter().copied().find(|c| c.kind.name == name)
}

/// A controller's typed configuration from its resolved parameters.
pub fn config<T: DeserializeOwned>(params: &Value) -> Result<T, String> {
    T::deserialize(params)
        .map_err(|e| format!("internal error: a declaration and its type disagree: {e}"))
}

/// The congestion controller of a TCP sender.
#[derive(Clone, Debug)]
pub enum CcSpec {
    /// A controller of [`CONTROLLERS`] with its resolved parameters.
    Named {
        /// Which.
        kind: &'static CcKind,
        /// Its parameters (JSON object with `kind`), shared by the copies of a `count`ed
        /// flow.
        params: Arc<Value>,
    },
    /// An MPTCP subflow's coupled controller.
    Coupled(coupled::CoupledSpec),
}

impl CcSpec {
    /// Controller `kind` with the configuration `config` (its parameter struct).
    pub fn new(kind: &'static CcKind, config: &impl Serialize) -> CcSpec {
        let mut params = serde_json::to_value(config).unwrap_or_default();
        if let Value::Object(m) = &mut params {
            m.insert("kind".into(), Value::from(kind.kind.name));
        }
        CcSpec::Named {
            kind,
            params: Arc::new(params),
        }
    }

    /// The controller's name.
    pub fn name(&self) -> &'static str {
        match self {
            CcSpec::Named { kind, .. } => kind.kind.name,
            CcSpec::Coupled(c) => c.name(),
        }
    }

    /// The typed configuration of a named controller (`None` for another type or a
    /// coupled controller).
    pub fn config<T: DeserializeOwned>(&self) -> Option<T> {
        match self {
            CcSpec::Named { params, .. } => config(params).ok(),
            CcSpec::Coupled(_) => None,
        }
    }
}

impl Default for CcSpec {
    /// Reno with its defaults.
    fn default() -> CcSpec {
        CcSpec::new(&reno::KIND, &reno::RenoConfig::default())
    }
}

impl PartialEq for CcSpec {
    fn eq(&self, other: &CcSpec) -> bool {
        match (self, other) {
            (CcSpec::Named { kind: a, params: p }, CcSpec::Named { kind: b, params: q }) => {
                a.kind.name == b.kind.name && p == q
            }
            (CcSpec::Coupled(a), CcSpec::Coupled(b)) => a == b,
            _ => false,
        }
    }
}

impl<'de> Deserialize<'de> for CcSpec {
    /// From a resolved `cc` table (`{"kind": "cubic", ...}`).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CcSpec, D::Error> {
        use serde::de::Error;
        let params = Value::deserialize(d)?;
        let name = params.get("kind").and_then(Value::as_str).unwrap_or("");
        match find(name) {
            Some(kind) => Ok(CcSpec::Named {
                kind,
                params: Arc::new(params),
            }),
            None => Err(D::Error::custom(format!("unknown controller {name:?}"))),
        }
    }
}

/// A controller that is not one of the built-in variants of [`AnyCc`] (a new controller
/// needs no variant: it is boxed, one indirect call per event).
pub trait BoxedCc: CongestionControl + std::fmt::Debug + Send + Sync {
    /// A copy in a new box.
    fn clone_box(&self) -> Box<dyn BoxedCc>;
    /// The controller itself, for inspection (tests and diagnostics downcast it).
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: CongestionControl + Clone + std::fmt::Debug + Send + Sync + 'static> BoxedCc for T {
    fn clone_box(&self) -> Box<dyn BoxedCc> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Clone for Box<dyn BoxedCc> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Every controller (enum dispatch for the built-in ones: no boxing on the per-ACK path).
#[derive(Clone, Debug)]
pub enum AnyCc {
    /// Reno AIMD.
    Reno(Reno),
    /// TCP Vegas.
    Vegas(Vegas),
    /// Westwood+.
    Westwood(Westwood),
    /// CUBIC (RFC 9438).
    Cubic(Cubic),
    /// FAST TCP.
    Fast(Fast),
    /// A coupled multipath controller (an MPTCP subflow's).
    Coupled(Coupled),
    /// Any other controller.
    Boxed(Box<dyn BoxedCc>),
}

/// Construction context for controllers.
#[derive(Clone, Copy, Debug)]
pub struct CcContext {
    /// Maximum segment size.
    pub mss: Bytes,
    /// Initial window in bytes.
    pub init_cwnd: Bytes,
    /// Seed of the controller's own random stream (`flow:<name>:cc`, one value per
    /// connection; docs/adding-a-controller.md "No hidden state"). Only BBR draws from it.
    pub seed: u64,
}

impl AnyCc {
    /// Build the controller a scenario asks for. An error is a declaration bug, found when
    /// the scenario was read (`scenario` builds every flow's controller once).
    pub fn build(spec: &CcSpec, ctx: CcContext) -> Result<AnyCc, String> {
        match spec {
            CcSpec::Named { kind, params } => (kind.build)(params, ctx),
            CcSpec::Coupled(p) => Ok(AnyCc::Coupled(Coupled::new(p, ctx.mss, ctx.init_cwnd))),
        }
    }

    /// A controller that has no variant of its own.
    pub fn boxed(cc: impl BoxedCc + 'static) -> AnyCc {
        AnyCc::Boxed(Box::new(cc))
    }
}

/// Calls `$call` on the controller inside an `AnyCc`, dispatched statically (a match, each
/// arm inlinable) rather than through a trait object: the sender asks for its window,
/// pacing rate and timeout on every ACK.
macro_rules! each_cc {
    ($cc:expr, $c:ident => $call:expr) => {
        match $cc {
            AnyCc::Reno($c) => $call,
            AnyCc::Vegas($c) => $call,
            AnyCc::Westwood($c) => $call,
            AnyCc::Cubic($c) => $call,
            AnyCc::Fast($c) => $call,
            AnyCc::Coupled($c) => $call,
            AnyCc::Boxed($c) => $call,
        }
    };
}

impl CongestionControl for AnyCc {
    fn name(&self) -> &'static str {
        each_cc!(self, c => c.name())
    }
    #[inline]
    fn cwnd(&self) -> Bytes {
        each_cc!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> Bytes {
        each_cc!(self, c => c.ssthresh())
    }
    fn set_initial_ssthresh(&mut self, ssthresh: Bytes) {
        each_cc!(self, c => c.set_initial_ssthresh(ssthresh))
    }
    fn on_established(&mut self, now: SimTime, srtt: Dur, min_rtt: Dur) {
        each_cc!(self, c => c.on_established(now, srtt, min_rtt))
    }
    #[inline]
    fn pacing_rate(&self) -> Option<Rate> {
        each_cc!(self, c => c.pacing_rate())
    }
    #[inline]
    fn on_ack(&mut self, ev: &AckEvent) {
        each_cc!(self, c => c.on_ack(ev))
    }
    fn on_congestion(&mut self, ev: &CongestionEvent) {
        each_cc!(self, c => c.on_congestion(ev))
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        each_cc!(self, c => c.on_recovery_exit(now))
    }
    #[inline]
    fn on_round(&mut self, ev: &RoundEvent) {
        each_cc!(self, c => c.on_round(ev))
    }
    #[inline]
    fn next_timeout(&self) -> Option<SimTime> {
        each_cc!(self, c => c.next_timeout())
    }
    fn on_timeout(&mut self, now: SimTime) {
        each_cc!(self, c => c.on_timeout(now))
    }
    fn on_ecn_feedback(&mut self, acked: Bytes, ece: bool) {
        each_cc!(self, c => c.on_ecn_feedback(acked, ece))
    }
    fn on_ecn_echo(&mut self, ev: &CongestionEvent) {
        each_cc!(self, c => c.on_ecn_echo(ev))
    }
    fn wants_rate_samples(&self) -> bool {
        each_cc!(self, c => c.wants_rate_samples())
    }
    fn on_rate_sample(&mut self, ev: &AckEvent, rs: &RateSample) {
        each_cc!(self, c => c.on_rate_sample(ev, rs))
    }
    fn marks_app_limited(&self) -> bool {
        each_cc!(self, c => c.marks_app_limited())
    }
    fn sets_window_in_recovery(&self) -> bool {
        each_cc!(self, c => c.sets_window_in_recovery())
    }
    fn min_tso_segs(&self) -> u64 {
        each_cc!(self, c => c.min_tso_segs())
    }
}
