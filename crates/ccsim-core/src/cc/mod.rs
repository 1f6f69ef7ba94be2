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
//! Adding a controller: one file here, one variant in `AnyCc`, one in `CcSpec`, unit tests
//! in its file (see docs/adding-a-controller.md).

pub mod bwe;
pub mod cmt;
pub mod coupled;
pub mod cubic;
pub mod fast;
pub mod reno;
pub mod vegas;
pub mod westwood;

use crate::scenario::CcSpec;
use crate::units::{Bytes, Dur, Rate, SimTime};

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
}

/// Every built-in controller (enum dispatch: no boxing).
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
}

/// Construction context for controllers.
#[derive(Clone, Copy, Debug)]
pub struct CcContext {
    /// Maximum segment size.
    pub mss: Bytes,
    /// Initial window in bytes.
    pub init_cwnd: Bytes,
}

impl AnyCc {
    /// Build the controller a scenario asks for.
    pub fn build(spec: &CcSpec, ctx: CcContext) -> AnyCc {
        match spec {
            CcSpec::Reno { counting } => AnyCc::Reno(Reno::new(ctx.mss, ctx.init_cwnd, *counting)),
            CcSpec::Vegas(p) => AnyCc::Vegas(Vegas::new(ctx.mss, ctx.init_cwnd, *p)),
            CcSpec::Westwood(p) => AnyCc::Westwood(Westwood::new(ctx.mss, ctx.init_cwnd, *p)),
            CcSpec::Cubic(p) => AnyCc::Cubic(Cubic::new(ctx.mss, ctx.init_cwnd, *p)),
            CcSpec::Fast(p) => AnyCc::Fast(Fast::new(ctx.mss, ctx.init_cwnd, *p)),
            CcSpec::Coupled(p) => AnyCc::Coupled(Coupled::new(p, ctx.mss, ctx.init_cwnd)),
        }
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
}
