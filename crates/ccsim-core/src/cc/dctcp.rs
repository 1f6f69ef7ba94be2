//! DCTCP (RFC 8257; Alizadeh et al., "Data Center TCP", SIGCOMM 2010): Reno's growth and
//! loss response, and a window reduction for ECN-Echo scaled by the estimated fraction of
//! marked bytes α instead of halving.
//!
//! - α (RFC 8257 §3.3): over each window of data the sender counts the bytes acknowledged
//!   and those acknowledged by ACKs carrying ECE (`on_ecn_feedback`, fed by the receiver's
//!   per-packet echo, §3.2). When the window ends (every segment outstanding at its start
//!   is acknowledged: the transport's round, as Linux `tcp_dctcp.c` `dctcp_update_alpha`
//!   tests `snd_una ≥ next_seq`), M = marked / acknowledged and α ← (1 − g)·α + g·M.
//! - Reaction (§3.4): on ECE, at most once per window (the transport's RFC 3168 rule),
//!   cwnd ← cwnd·(1 − α/2), floored at 2 segments as Linux `dctcp_ssthresh`; ssthresh
//!   takes the new window so that growth continues in congestion avoidance.
//! - Loss (§3.4, "react to loss episodes in the same way as conventional TCP"): Reno's
//!   response, and growth is Reno's (RFC 5681, bytes counted).

use super::reno::{reno_increase, reno_loss, Counting};
use super::{AckEvent, AnyCc, CcKind, CongestionControl, CongestionEvent, RoundEvent};
use crate::params::{Bound, Kind, Param};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// DCTCP's parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // declared, with doc and source, in PARAMS
pub struct DctcpConfig {
    pub g: f64,
    pub alpha_init: f64,
}

impl Default for DctcpConfig {
    fn default() -> DctcpConfig {
        crate::params::defaults(PARAMS)
    }
}

/// DCTCP's parameter table.
pub const PARAMS: &[Param] = &[
    Param::float("g", 0.0625, Bound::Excl(0.0), Bound::Incl(1.0))
        .doc("estimation gain: weight of the last window's fraction of marked bytes in α")
        .source("RFC 8257 §3.3 and §4.2 (1/16); Linux tcp_dctcp.c dctcp_shift_g = 4"),
    Param::float("alpha_init", 1.0, Bound::Incl(0.0), Bound::Incl(1.0))
        .doc("α before the first window ends (1: the first marks halve the window, as RFC 3168)")
        .source("Linux tcp_dctcp.c dctcp_alpha_on_init = DCTCP_MAX_ALPHA (α = 1)"),
];

/// `cc = "dctcp"`.
pub const KIND: CcKind = CcKind {
    kind: Kind::new(
        "dctcp",
        "Data Center TCP: window reduced by α/2 for ECN marks, α the fraction of marked bytes (RFC 8257; needs ecn = \"dctcp\", the default with it)",
        &[PARAMS],
    ),
    build: |p, ctx| {
        let c: DctcpConfig = super::config(p)?;
        Ok(AnyCc::boxed(Dctcp::new(ctx.mss, ctx.init_cwnd, c)))
    },
};

/// DCTCP state; windows in fractional bytes.
#[derive(Clone, Debug)]
pub struct Dctcp {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    g: f64,
    /// Estimated fraction of marked bytes (DCTCP.Alpha).
    alpha: f64,
    /// Bytes acknowledged in the current window (DCTCP.BytesAcked).
    acked: u64,
    /// Of which acknowledged by ACKs with ECE (DCTCP.BytesMarked).
    marked: u64,
}

impl Dctcp {
    /// Start with `init_cwnd` bytes, an unbounded ssthresh and α = `alpha_init`.
    pub fn new(mss: Bytes, init_cwnd: Bytes, c: DctcpConfig) -> Dctcp {
        Dctcp {
            mss: mss.0 as f64,
            cwnd: init_cwnd.0 as f64,
            ssthresh: f64::MAX,
            g: c.g,
            alpha: c.alpha_init,
            acked: 0,
            marked: 0,
        }
    }

    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn cwnd(&self) -> Bytes {
        Bytes(self.cwnd as u64)
    }
    fn ssthresh(&self) -> Bytes {
        Bytes(self.ssthresh.min(u64::MAX as f64) as u64)
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        if ev.acked.0 == 0 || ev.in_recovery {
            return;
        }
        self.cwnd = reno_increase(
            self.cwnd,
            self.ssthresh,
            ev.acked.0 as f64,
            self.mss,
            Counting::Bytes,
        );
    }
    fn on_congestion(&mut self, ev: &CongestionEvent) {
        (self.ssthresh, self.cwnd) = reno_loss(ev.kind, ev.flight_size, self.mss);
    }
    fn on_ecn_feedback(&mut self, acked: Bytes, ece: bool) {
        self.acked += acked.0;
        if ece {
            self.marked += acked.0;
        }
    }
    fn on_round(&mut self, _ev: &RoundEvent) {
        // RFC 8257 §3.3: at the end of each window, α ← (1 − g)·α + g·M.
        if self.acked > 0 {
            let m = self.marked as f64 / self.acked as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
        }
        self.acked = 0;
        self.marked = 0;
    }
    fn on_ecn_echo(&mut self, _ev: &CongestionEvent) {
        // RFC 8257 §3.4: cwnd ← cwnd·(1 − α/2); Linux dctcp_ssthresh keeps 2 segments.
        self.cwnd = (self.cwnd * (1.0 - self.alpha / 2.0)).max(2.0 * self.mss);
        self.ssthresh = self.cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionKind;
    use crate::units::{Dur, SimTime};

    const MSS: u64 = 1000;

    fn dctcp(g: f64, alpha_init: f64) -> Dctcp {
        Dctcp::new(Bytes(MSS), Bytes(10 * MSS), DctcpConfig { g, alpha_init })
    }

    fn round() -> RoundEvent {
        RoundEvent {
            now: SimTime::ZERO,
            min_rtt_in_round: None,
            delivered_in_round: Bytes(0),
            duration: Dur::from_millis(1),
        }
    }

    fn echo() -> CongestionEvent {
        CongestionEvent {
            now: SimTime::ZERO,
            kind: CongestionKind::FastRetransmit,
            flight_size: Bytes(10 * MSS),
            mss: Bytes(MSS),
        }
    }

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_per_window() {
        // RFC 8257 §3.3 with g = 1/16 from α = 1: a window with ¼ of its bytes marked
        // gives α = 15/16 + 1/16 · ¼.
        let mut d = dctcp(1.0 / 16.0, 1.0);
        for i in 0..8 {
            d.on_ecn_feedback(Bytes(2 * MSS), i % 4 == 0);
        }
        d.on_round(&round());
        let a1 = 15.0 / 16.0 + 0.25 / 16.0;
        assert!((d.alpha() - a1).abs() < 1e-12, "{}", d.alpha());
        // A window without marks decays it by (1 − g).
        d.on_ecn_feedback(Bytes(5 * MSS), false);
        d.on_round(&round());
        assert!((d.alpha() - a1 * 15.0 / 16.0).abs() < 1e-12);
        // A window with no bytes acknowledged leaves α alone.
        d.on_round(&round());
        assert!((d.alpha() - a1 * 15.0 / 16.0).abs() < 1e-12);
    }

    #[test]
    fn alpha_converges_to_a_constant_marked_fraction() {
        let mut d = dctcp(1.0 / 16.0, 1.0);
        for _ in 0..400 {
            for i in 0..10 {
                d.on_ecn_feedback(Bytes(MSS), i < 3);
            }
            d.on_round(&round());
        }
        assert!((d.alpha() - 0.3).abs() < 1e-9, "{}", d.alpha());
    }

    #[test]
    fn an_echo_cuts_the_window_by_alpha_over_two() {
        // RFC 8257 §3.4: cwnd ← cwnd·(1 − α/2).
        let mut d = dctcp(1.0 / 16.0, 0.5);
        d.cwnd = 40.0 * MSS as f64;
        d.on_ecn_echo(&echo());
        assert_eq!(d.cwnd(), Bytes(30 * MSS));
        assert_eq!(d.ssthresh(), Bytes(30 * MSS));
        // α = 1 halves, like RFC 3168.
        let mut h = dctcp(1.0 / 16.0, 1.0);
        h.cwnd = 40.0 * MSS as f64;
        h.on_ecn_echo(&echo());
        assert_eq!(h.cwnd(), Bytes(20 * MSS));
        // α = 0 keeps the window; the floor is two segments.
        let mut z = dctcp(1.0 / 16.0, 0.0);
        z.on_ecn_echo(&echo());
        assert_eq!(z.cwnd(), Bytes(10 * MSS));
        let mut f = dctcp(1.0 / 16.0, 1.0);
        f.cwnd = 3.0 * MSS as f64;
        f.on_ecn_echo(&echo());
        assert_eq!(f.cwnd(), Bytes(2 * MSS));
    }

    #[test]
    fn losses_and_growth_are_renos() {
        let mut d = dctcp(1.0 / 16.0, 0.1);
        d.on_congestion(&echo());
        // RFC 5681: ssthresh = FlightSize / 2 whatever α is.
        assert_eq!(d.cwnd(), Bytes(5 * MSS));
        // Congestion avoidance (RFC 5681 §3.1): cwnd += SMSS·N/cwnd per ACK, about one
        // segment per window acknowledged: 5000 → 5200 → 5392.3 → 5577.7 → 5757.0 → 5930.7.
        for _ in 0..5 {
            d.on_ack(&AckEvent::for_test(MSS, Dur::from_millis(1), MSS));
        }
        assert_eq!(d.cwnd(), Bytes(5930));
        d.on_congestion(&CongestionEvent {
            kind: CongestionKind::Timeout,
            ..echo()
        });
        assert_eq!(d.cwnd(), Bytes(MSS));
    }
}
