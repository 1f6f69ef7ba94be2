//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 1995; ALGORITHMS.md §1.5).
//!
//! Once per round (`on_round`) Vegas estimates how many of its packets sit in queues:
//!
//! ```text
//! diff = (cwnd/BaseRTT − cwnd/RTT) · BaseRTT = cwnd · (RTT − BaseRTT) / RTT   [packets]
//! ```
//!
//! with BaseRTT the smallest RTT sample seen and RTT the smallest sample of the round
//! (Linux's filter against delayed-ACK inflation). The division is by RTT, the paper's form
//! (and ns-2's and ns-3's); Linux divides by BaseRTT.
//!
//! - Congestion avoidance: diff < α → cwnd += 1 packet; diff > β → cwnd −= 1 packet;
//!   otherwise hold. The window never goes below 2 packets.
//! - Slow start (cwnd < ssthresh): grow as Reno (one MSS per MSS acknowledged) but only
//!   every other round; when diff > γ leave slow start (`ss_exit`) the ns-2 way
//!   (`tcp-vegas.cc`): cwnd −= cwnd/8 and ssthresh = 2 packets; or Linux's
//!   (`tcp_vegas.c`:220–243 of Linux 6.12): cwnd = min(cwnd, ⌊cwnd·BaseRTT/RTT⌋ + 1)
//!   packets, the window that matches the rate actually achieved, and ssthresh = cwnd,
//!   which Linux keeps at most cwnd as congestion avoidance shrinks the window.
//! - Loss (`loss`): Reno (RFC 5681): ssthresh = max(FlightSize/2, 2·MSS); cwnd = ssthresh
//!   after a fast retransmit, 1 MSS after a timeout. Or ns-2's (`tcp-vegas.cc` `recv` and
//!   `timeout`): at a fast retransmit the whole window w loses a quarter, w − ⌊w/4⌋ (2 if
//!   w ≤ 3), and ssthresh is left alone; after a timeout ssthresh = max(⌊w/2⌋, 2) and cwnd =
//!   `v_slowstart_` = 2. ns-2's fine-grained Vegas timeouts are not modelled:
//!   recovery is the transport's.
//! - Rounds that end in fast recovery, or carry no RTT sample (Karn), change nothing.

use super::reno::reno_loss;
use super::{
    AckEvent, AnyCc, CcKind, CongestionControl, CongestionEvent, CongestionKind, RoundEvent,
};
use crate::params::{Bound, Kind, Layer, Lit, Param};
use crate::units::{Bytes, Dur};
use serde::{Deserialize, Serialize};

/// Vegas thresholds, in packets queued by the flow (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct VegasSpec {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub ss_exit: VegasSsExit,
    pub loss: VegasLoss,
}

/// Vegas's response to a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VegasLoss {
    /// RFC 5681's, as Reno.
    #[default]
    Reno,
    /// ns-2 `Agent/TCP/Vegas`: ×¾ at a fast retransmit, cwnd 2 after a timeout.
    Ns2,
}

/// Vegas's slow-start exit, when the queue estimate exceeds γ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VegasSsExit {
    /// ns-2 `tcp-vegas.cc`: cwnd −= cwnd/8, ssthresh = 2 packets.
    #[default]
    Ns2,
    /// Linux `tcp_vegas.c`: cwnd = min(cwnd, target + 1) packets with target =
    /// cwnd·BaseRTT/RTT, and ssthresh = cwnd.
    Linux,
}

impl VegasSpec {
    /// ns-2 `Agent/TCP/Vegas` and the original paper: α, β, γ = 1, 3, 1 (the default).
    pub const NS2: VegasSpec = VegasSpec {
        alpha: 1.0,
        beta: 3.0,
        gamma: 1.0,
        ss_exit: VegasSsExit::Ns2,
        loss: VegasLoss::Reno,
    };
    /// Linux `tcp_vegas.c` and ns-3: α, β, γ = 2, 4, 1.
    pub const LINUX: VegasSpec = VegasSpec {
        alpha: 2.0,
        beta: 4.0,
        gamma: 1.0,
        ss_exit: VegasSsExit::Ns2,
        loss: VegasLoss::Reno,
    };
}

impl Default for VegasSpec {
    fn default() -> VegasSpec {
        crate::params::defaults(PARAMS)
    }
}

/// Largest packet count accepted for the thresholds.
const MAXQ: Bound = Bound::Incl(1e6);

/// Vegas's parameter table.
pub const PARAMS: &[Param] = &[
    Param::choice("preset", "ns2", &["ns2", "linux"])
        .doc("a set of α, β, γ: ns2 (1, 3, 1) or linux (2, 4, 1); alpha, beta and gamma override it")
        .source("ns-2.35 tcl/lib/ns-default.tcl:1086–1088 Agent/TCP/Vegas v_alpha_ 1, v_beta_ 3, v_gamma_ 1 (and the paper); Linux net/ipv4/tcp_vegas.c:44–46 alpha 2, beta 4, gamma 1 (docs/sources)"),
    Param::float("alpha", VegasSpec::NS2.alpha, Bound::Incl(0.0), MAXQ)
        .unit("packets")
        .doc("below this many queued packets, grow by one packet per RTT")
        .source("Brakmo & Peterson 1995 and ns-2 (v_alpha_ 1)"),
    Param::float("beta", VegasSpec::NS2.beta, Bound::Incl(0.0), MAXQ)
        .unit("packets")
        .doc("above this many queued packets, shrink by one packet per RTT; at least alpha")
        .source("Brakmo & Peterson 1995 and ns-2 (v_beta_ 3)"),
    Param::float("gamma", VegasSpec::NS2.gamma, Bound::Incl(0.0), MAXQ)
        .unit("packets")
        .doc("leave slow start when more than this many packets are queued")
        .source("Brakmo & Peterson 1995 and ns-2 (v_gamma_ 1)"),
    Param::choice("ss_exit", "ns2", &["ns2", "linux"])
        .doc("how slow start ends when more than gamma packets are queued: ns2 cwnd −= cwnd/8 and ssthresh = 2 packets; linux cwnd = min(cwnd, ⌊cwnd·BaseRTT/RTT⌋ + 1) packets and ssthresh = cwnd; the presets leave it alone")
        .source("ns-2.35 tcp/tcp-vegas.cc (and the paper); Linux net/ipv4/tcp_vegas.c:220–243 (docs/controllers/vegas.md)"),
    Param::choice("loss", "reno", &["reno", "ns2"])
        .doc("the loss response: reno (ssthresh = FlightSize/2, cwnd = ssthresh or 1 MSS after a timeout) or ns2 (window w → w − ⌊w/4⌋, 2 if w ≤ 3, ssthresh unchanged at a fast retransmit; ssthresh = ⌊w/2⌋ and cwnd = 2 after a timeout); the stack profile ns2 sets ns2")
        .source("RFC 5681 §3.1 (the transport's recovery); ns-2.35 tcp/tcp-vegas.cc:379–389 (fast retransmit) and :441–443 (timeout, v_slowstart_ 2, tcp-vegas.cc:130)"),
];

/// `preset = "ns2"`: the paper's and ns-2's thresholds (the defaults).
pub const PRESET_NS2: Layer = Layer {
    name: "ns2",
    about: "Vegas thresholds of the paper and ns-2 (Agent/TCP/Vegas)",
    profile: true,
    values: &[
        ("alpha", Lit::Float(VegasSpec::NS2.alpha)),
        ("beta", Lit::Float(VegasSpec::NS2.beta)),
        ("gamma", Lit::Float(VegasSpec::NS2.gamma)),
    ],
};

/// `preset = "linux"`: Linux's and ns-3's thresholds.
pub const PRESET_LINUX: Layer = Layer {
    name: "linux",
    about: "Vegas thresholds of Linux (net/ipv4/tcp_vegas.c) and ns-3",
    profile: true,
    values: &[
        ("alpha", Lit::Float(VegasSpec::LINUX.alpha)),
        ("beta", Lit::Float(VegasSpec::LINUX.beta)),
        ("gamma", Lit::Float(VegasSpec::LINUX.gamma)),
    ],
};

/// `cc = "vegas"`.
pub const KIND: CcKind = CcKind {
    kind: Kind {
        presets: &[&PRESET_NS2, &PRESET_LINUX],
        ..Kind::new(
            "vegas",
            "TCP Vegas, Brakmo & Peterson 1995 (docs/controllers/vegas.md)",
            &[PARAMS],
        )
    },
    build: |p, ctx| {
        let c: VegasSpec = super::config(p)?;
        Ok(AnyCc::Vegas(Vegas::new(ctx.mss, ctx.init_cwnd, c)))
    },
};

/// Vegas state. Windows in fractional bytes.
#[derive(Clone, Debug)]
pub struct Vegas {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    p: VegasSpec,
    base_rtt: Option<Dur>,
    /// Whether slow start may grow in the current round (it grows every other round).
    ss_grow: bool,
    in_recovery: bool,
    last_diff: Option<f64>,
}

impl Vegas {
    /// Start with `init_cwnd` bytes, in slow start.
    pub fn new(mss: Bytes, init_cwnd: Bytes, p: VegasSpec) -> Vegas {
        Vegas {
            mss: mss.0 as f64,
            cwnd: init_cwnd.0 as f64,
            ssthresh: f64::MAX,
            p,
            base_rtt: None,
            ss_grow: true,
            in_recovery: false,
            last_diff: None,
        }
    }

    /// The smallest RTT seen.
    pub fn base_rtt(&self) -> Option<Dur> {
        self.base_rtt
    }

    /// The last per-round estimate of the flow's queued packets.
    pub fn last_diff(&self) -> Option<f64> {
        self.last_diff
    }

    /// Queued packets estimated from a window of `cwnd_pkts` packets (paper form).
    pub fn diff(cwnd_pkts: f64, base_rtt: Dur, rtt: Dur) -> f64 {
        let rtt = rtt.secs().max(1e-12);
        cwnd_pkts * (rtt - base_rtt.secs()) / rtt
    }
}

impl Vegas {
    /// ns-2 `Agent/TCP/Vegas` on a loss, in whole packets of the window w = ⌊cwnd⌋. Fast
    /// retransmit (tcp-vegas.cc:379–389): w − ⌊w/4⌋ for a first transmission (2 if w ≤ 3),
    /// ssthresh untouched; the halving it applies to a retransmitted segment is reached in
    /// ccsim only through a timeout (one fast retransmit per window). Timeout (:441–443):
    /// `slowdown(CLOSE_SSTHRESH_HALF)` gives ssthresh = max(⌊w/2⌋, 2) (tcp.cc:1296, 1329),
    /// then cwnd = `v_slowstart_` = 2.
    fn ns2_loss(&mut self, kind: CongestionKind) {
        let w = (self.cwnd / self.mss).floor();
        match kind {
            CongestionKind::FastRetransmit => {
                let after = if w <= 3.0 { 2.0 } else { w - (w / 4.0).floor() };
                self.cwnd = after * self.mss;
            }
            _ => {
                self.ssthresh = (w / 2.0).floor().max(2.0) * self.mss;
                self.cwnd = 2.0 * self.mss;
            }
        }
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn cwnd(&self) -> Bytes {
        Bytes(self.cwnd as u64)
    }
    fn ssthresh(&self) -> Bytes {
        Bytes(self.ssthresh.min(u64::MAX as f64) as u64)
    }
    fn set_initial_ssthresh(&mut self, ssthresh: Bytes) {
        self.ssthresh = ssthresh.0 as f64;
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        if let Some(r) = ev.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
        }
        self.in_recovery = ev.in_recovery;
        if ev.acked.0 == 0 || ev.in_recovery {
            return;
        }
        // Slow start, every other round; congestion avoidance moves only in `on_round`.
        if self.cwnd < self.ssthresh && self.ss_grow {
            self.cwnd += (ev.acked.0 as f64).min(self.mss);
        }
    }
    fn on_round(&mut self, ev: &RoundEvent) {
        if self.in_recovery {
            return;
        }
        let (Some(rtt), Some(base)) = (ev.min_rtt_in_round, self.base_rtt) else {
            return;
        };
        let diff = Vegas::diff(self.cwnd / self.mss, base, rtt);
        self.last_diff = Some(diff);
        let floor = 2.0 * self.mss;
        if self.cwnd < self.ssthresh {
            if diff > self.p.gamma {
                match self.p.ss_exit {
                    VegasSsExit::Ns2 => {
                        // ns-2 `tcp-vegas.cc`: cwnd −= cwnd/8, ssthresh = 2.
                        self.cwnd = (self.cwnd - self.cwnd / 8.0).max(floor);
                        self.ssthresh = floor;
                    }
                    VegasSsExit::Linux => {
                        // Linux: target = cwnd·BaseRTT/RTT in whole packets (u64 division),
                        // cwnd = min(cwnd, target + 1); ssthresh = min(ssthresh, cwnd), then
                        // tcp_current_ssthresh keeps it at cwnd (lines 220–243, 271).
                        let w = (self.cwnd / self.mss) as u128;
                        let target = (w * base.0 as u128 / rtt.0.max(1) as u128) as f64;
                        self.cwnd = self.cwnd.min((target + 1.0) * self.mss).max(floor);
                        self.ssthresh = self.cwnd;
                    }
                }
            } else {
                self.ss_grow = !self.ss_grow;
            }
        } else if diff < self.p.alpha {
            self.cwnd += self.mss;
        } else if diff > self.p.beta {
            self.cwnd = (self.cwnd - self.mss).max(floor);
            if self.p.ss_exit == VegasSsExit::Linux {
                // Linux keeps ssthresh ≤ cwnd as it shrinks (tcp_vegas.c:258–260), so a
                // flow that left slow start at ssthresh = cwnd does not re-enter it.
                self.ssthresh = self.ssthresh.min(self.cwnd);
            }
        }
    }
    fn on_congestion(&mut self, ev: &CongestionEvent) {
        match self.p.loss {
            // Reno's response (RFC 5681 §3.1 eq. 4).
            VegasLoss::Reno => {
                (self.ssthresh, self.cwnd) = reno_loss(ev.kind, ev.flight_size, self.mss)
            }
            VegasLoss::Ns2 => self.ns2_loss(ev.kind),
        }
        if ev.kind == CongestionKind::FastRetransmit {
            self.in_recovery = true;
        }
        self.ss_grow = true;
    }
    fn on_recovery_exit(&mut self, _now: crate::units::SimTime) {
        self.in_recovery = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    const MSS: u64 = 1000;

    fn ack(acked: u64, rtt_ms: u64) -> AckEvent {
        AckEvent::for_test(acked, Dur::from_millis(rtt_ms), MSS)
    }

    fn round(rtt_ms: u64) -> RoundEvent {
        RoundEvent {
            now: SimTime::ZERO,
            min_rtt_in_round: Some(Dur::from_millis(rtt_ms)),
            delivered_in_round: Bytes(0),
            duration: Dur::from_millis(rtt_ms),
        }
    }

    fn pkts(v: &Vegas) -> f64 {
        v.cwnd().0 as f64 / MSS as f64
    }

    /// A Vegas in congestion avoidance with `w` packets and BaseRTT 100 ms.
    fn in_ca(w: u64, p: VegasSpec) -> Vegas {
        let mut v = Vegas::new(Bytes(MSS), Bytes(2 * w * MSS), p);
        v.on_ack(&ack(MSS, 100));
        v.on_congestion(&CongestionEvent {
            now: SimTime::ZERO,
            kind: CongestionKind::FastRetransmit,
            flight_size: Bytes(2 * w * MSS),
            mss: Bytes(MSS),
        });
        v.on_recovery_exit(SimTime::ZERO);
        assert_eq!(pkts(&v), w as f64);
        v
    }

    #[test]
    fn diff_is_the_papers_form() {
        // 20 packets, RTT 125 ms over BaseRTT 100 ms: 20·25/125 = 4 packets queued.
        let d = Vegas::diff(20.0, Dur::from_millis(100), Dur::from_millis(125));
        assert!((d - 4.0).abs() < 1e-9, "{d}");
    }

    #[test]
    fn below_alpha_grows_above_beta_shrinks_between_holds() {
        let p = VegasSpec::NS2;
        let mut v = in_ca(20, p);
        // RTT 100 ms: diff 0 < α → +1.
        v.on_round(&round(100));
        assert_eq!(pkts(&v), 21.0);
        // diff = 21·(110−100)/110 ≈ 1.9 ∈ [1, 3] → hold.
        v.on_round(&round(110));
        assert_eq!(pkts(&v), 21.0);
        // diff = 21·50/150 = 7 > β → −1.
        v.on_round(&round(150));
        assert_eq!(pkts(&v), 20.0);
        // Linux thresholds: diff ≈ 1.8 < α = 2 → +1.
        let mut l = in_ca(20, VegasSpec::LINUX);
        l.on_round(&round(110));
        assert_eq!(pkts(&l), 21.0);
    }

    #[test]
    fn slow_start_doubles_every_other_round_and_leaves_above_gamma() {
        let mut v = Vegas::new(Bytes(MSS), Bytes(4 * MSS), VegasSpec::NS2);
        // Round 1 (growth round): 4 ACKs of one MSS each → 8 packets.
        for _ in 0..4 {
            v.on_ack(&ack(MSS, 100));
        }
        assert_eq!(pkts(&v), 8.0);
        v.on_round(&round(100));
        // Round 2 (hold round): no growth.
        for _ in 0..8 {
            v.on_ack(&ack(MSS, 100));
        }
        assert_eq!(pkts(&v), 8.0);
        v.on_round(&round(100));
        // Round 3 grows again.
        for _ in 0..8 {
            v.on_ack(&ack(MSS, 100));
        }
        assert_eq!(pkts(&v), 16.0);
        // diff = 16·20/120 ≈ 2.67 > γ = 1: cwnd −= cwnd/8, ssthresh = 2 packets.
        v.on_round(&round(120));
        assert_eq!(pkts(&v), 14.0);
        assert_eq!(v.ssthresh(), Bytes(2 * MSS));
    }

    fn loss(v: &mut Vegas, kind: CongestionKind) {
        v.on_congestion(&CongestionEvent {
            now: SimTime::ZERO,
            kind,
            flight_size: v.cwnd(),
            mss: Bytes(MSS),
        });
    }

    #[test]
    fn ns2_loss_cuts_a_quarter_and_restarts_at_two() {
        let ns2 = VegasSpec {
            loss: VegasLoss::Ns2,
            ..VegasSpec::NS2
        };
        // tcp-vegas.cc:379–389: 21 packets → 21 − 5 = 16; ssthresh untouched.
        let mut v = in_ca(21, VegasSpec::NS2);
        v.p = ns2;
        let before = v.ssthresh();
        loss(&mut v, CongestionKind::FastRetransmit);
        assert_eq!((pkts(&v), v.ssthresh()), (16.0, before));
        // A fractional window counts its whole packets: 10.7 → 10 − 2 = 8.
        v.cwnd = 10.7 * MSS as f64;
        loss(&mut v, CongestionKind::FastRetransmit);
        assert_eq!(pkts(&v), 8.0);
        // w ≤ 3 → 2.
        v.cwnd = 3.0 * MSS as f64;
        loss(&mut v, CongestionKind::FastRetransmit);
        assert_eq!(pkts(&v), 2.0);
        // Timeout (:441–443): ssthresh = ⌊w/2⌋ (at least 2), cwnd = v_slowstart_ = 2.
        let mut v = in_ca(15, VegasSpec::NS2);
        v.p = ns2;
        loss(&mut v, CongestionKind::Timeout);
        assert_eq!((pkts(&v), v.ssthresh()), (2.0, Bytes(7 * MSS)));
        v.cwnd = 3.0 * MSS as f64;
        loss(&mut v, CongestionKind::Timeout);
        assert_eq!(v.ssthresh(), Bytes(2 * MSS));
        // Reno's (the default): half of FlightSize, 1 MSS after a timeout.
        let mut r = in_ca(21, VegasSpec::NS2);
        loss(&mut r, CongestionKind::FastRetransmit);
        assert_eq!(pkts(&r), 10.5);
        loss(&mut r, CongestionKind::Timeout);
        assert_eq!(pkts(&r), 1.0);
    }

    #[test]
    fn linux_slow_start_exit_matches_the_achieved_rate() {
        // 40 packets, BaseRTT 100 ms, round RTT 125 ms: diff = 40·25/125 = 8 > γ.
        let ss = |exit| {
            let p = VegasSpec {
                ss_exit: exit,
                ..VegasSpec::NS2
            };
            let mut v = Vegas::new(Bytes(MSS), Bytes(40 * MSS), p);
            v.on_ack(&ack(0, 100)); // BaseRTT = 100 ms, no growth
            v.on_round(&round(125));
            v
        };
        // Linux: target = ⌊40·100/125⌋ = 32, cwnd = min(40, 33) = 33, ssthresh = 33.
        let mut l = ss(VegasSsExit::Linux);
        assert_eq!(pkts(&l), 33.0);
        assert_eq!(l.ssthresh(), Bytes(33 * MSS));
        // In congestion avoidance: diff = 33·25/125 = 6.6 > β, so −1 packet, and ssthresh
        // follows the window down (min(ssthresh, cwnd)): no return to slow start.
        l.on_round(&round(125));
        assert_eq!(pkts(&l), 32.0);
        assert_eq!(l.ssthresh(), Bytes(32 * MSS));
        // ns-2: cwnd = 40 − 40/8 = 35, ssthresh = 2.
        let n = ss(VegasSsExit::Ns2);
        assert_eq!(pkts(&n), 35.0);
        assert_eq!(n.ssthresh(), Bytes(2 * MSS));
        // Linux never raises the window: with target + 1 above cwnd it stays.
        // 10 packets at RTT 112 ms: diff = 10·12/112 ≈ 1.07 > γ; target = ⌊1000/112⌋ = 8
        // → 9 < 10. At 10 packets and RTT 101 ms diff ≈ 0.1 < γ: no exit.
        let p = VegasSpec {
            ss_exit: VegasSsExit::Linux,
            ..VegasSpec::NS2
        };
        let mut v = Vegas::new(Bytes(MSS), Bytes(10 * MSS), p);
        v.on_ack(&ack(0, 100));
        v.on_round(&round(112));
        assert_eq!(pkts(&v), 9.0);
    }

    #[test]
    fn loss_is_reno_and_recovery_rounds_are_ignored() {
        let mut v = in_ca(10, VegasSpec::NS2);
        v.on_congestion(&CongestionEvent {
            now: SimTime::ZERO,
            kind: CongestionKind::FastRetransmit,
            flight_size: Bytes(10 * MSS),
            mss: Bytes(MSS),
        });
        assert_eq!(pkts(&v), 5.0);
        v.on_round(&round(100));
        assert_eq!(pkts(&v), 5.0, "no Vegas step during recovery");
        v.on_recovery_exit(SimTime::ZERO);
        v.on_round(&round(100));
        assert_eq!(pkts(&v), 6.0);
        v.on_congestion(&CongestionEvent {
            now: SimTime::ZERO,
            kind: CongestionKind::Timeout,
            flight_size: Bytes(6 * MSS),
            mss: Bytes(MSS),
        });
        assert_eq!(pkts(&v), 1.0);
        assert_eq!(v.ssthresh(), Bytes(3 * MSS));
    }

    #[test]
    fn window_never_below_two_packets() {
        let mut v = in_ca(2, VegasSpec::NS2);
        v.on_round(&round(10_000));
        assert_eq!(pkts(&v), 2.0);
    }

    #[test]
    fn at_ssthresh_vegas_is_in_congestion_avoidance_and_an_ack_does_not_grow_it() {
        // Slow start's per-ACK growth runs only while cwnd < ssthresh: ns-2 `tcp-vegas.cc`
        // (`VegasTcpAgent::recv`) drops the increment once cwnd ≥ ssthresh, and Linux's
        // `tcp_vegas_cong_avoid` asks `tcp_in_slow_start` (cwnd < ssthresh). A fast recovery
        // leaves cwnd = ssthresh; from there the window moves only once per round.
        let mut v = in_ca(10, VegasSpec::default());
        assert_eq!(v.cwnd(), v.ssthresh());
        v.on_ack(&ack(MSS, 100));
        assert_eq!(pkts(&v), 10.0);
        v.on_round(&round(100));
        assert_eq!(pkts(&v), 11.0);
    }
}
