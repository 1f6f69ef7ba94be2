//! wVegas, weighted Vegas (Cao, Xu & Fu, ICNP 2012; draft-xu-mptcp-congestion-control;
//! Linux `mptcp_wvegas.c`, ALGORITHMS.md §2.4). Once per round on subflow r:
//!
//! - RTT_r = mean RTT sample of the round, baseRTT_r = smallest sample ever;
//!   diff_r = w_r·(RTT_r − baseRTT_r)/RTT_r, the packets r keeps queued.
//! - Slow start: leave it when diff_r > γ, with w_r = min(w_r, w_r·baseRTT_r/RTT_r + 1).
//! - Congestion avoidance: if diff_r ≥ α_r, recompute the weight
//!   x_r/Σ_k x_k (x = w/RTT) and α_r = max(initial_alpha, weight·total_alpha); then
//!   w_r −= 1 if diff_r > α_r, w_r += 1 if diff_r < α_r.
//! - Queue drain: q = RTT_r − baseRTT_r; with baseq the smallest non-zero q seen, if
//!   q ≥ 2·baseq then w_r ← w_r·baseRTT_r/(2·RTT_r) and baseq is forgotten.
//! - A round with at most two RTT samples takes one Reno step instead. Losses halve w_r.
//! - Between decisions the window does not move in congestion avoidance.
//!
//! Deliberate difference from Linux [D]: the queue-drain rule only looks at rounds where
//! the subflow keeps at least its own α_r packets queued (diff_r ≥ α_r). Linux applies it
//! in every congestion-avoidance round, so below the path's capacity the minimum "queue"
//! is sub-millisecond noise (or 0, which in Linux makes `q ≥ 2·0` true), every burst
//! doubles it and the window is halved again and again; on two idle paths that left the
//! connection at about half the capacity in ccsim. Judged only at equilibrium, the rule
//! keeps its purpose: draining when other traffic (not the subflow itself) builds the
//! queue.

use super::SubflowView;
use crate::cc::AckEvent;
use crate::params::{Bound, Kind, Param};
use serde::{Deserialize, Serialize};

/// wVegas's parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct WvegasSpec {
    pub total_alpha: f64,
    pub initial_alpha: f64,
    pub gamma: f64,
}

impl Default for WvegasSpec {
    fn default() -> WvegasSpec {
        crate::params::defaults(PARAMS)
    }
}

/// wVegas's parameter table.
pub const PARAMS: &[Param] = &[
    Param::float("total_alpha", 10.0, Bound::Excl(0.0), Bound::None)
        .unit("packets")
        .doc(
            "packets the whole connection aims to keep queued, shared out by the subflows' weights",
        )
        .source("Linux MPTCP net/mptcp/mptcp_wvegas.c total_alpha = 10"),
    Param::float("initial_alpha", 2.0, Bound::Excl(0.0), Bound::None)
        .unit("packets")
        .doc("each subflow's target before its first weight is computed, and its floor")
        .source("Linux MPTCP net/mptcp/mptcp_wvegas.c initial_alpha = 2"),
    Param::float("gamma", 1.0, Bound::Excl(0.0), Bound::None)
        .unit("packets")
        .doc("slow-start exit threshold on the queued-packets estimate")
        .source("Linux MPTCP net/mptcp/mptcp_wvegas.c gamma = 1"),
];

/// `cc = "wvegas"`.
pub const KIND: Kind = Kind::new(
    "wvegas",
    "Weighted Vegas, Cao, Xu & Fu 2012 (docs/controllers/wvegas.md)",
    &[PARAMS],
);

/// Result of a round decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundOut {
    /// New window (bytes).
    pub cwnd: f64,
    /// New slow-start threshold (bytes).
    pub ssthresh: f64,
    /// Whether the queue-drain rule cut the window.
    pub drained: bool,
}

/// wVegas per-subflow state.
#[derive(Clone, Debug)]
pub struct Wvegas {
    p: WvegasSpec,
    base_rtt: f64,
    sum_rtt: f64,
    samples: u32,
    alpha: f64,
    /// Rate measured over the last round (bytes/s); zeroed on loss.
    last_rate: f64,
    base_q: f64,
}

impl Wvegas {
    /// Fresh state.
    pub fn new(p: WvegasSpec) -> Wvegas {
        Wvegas {
            p,
            base_rtt: f64::INFINITY,
            sum_rtt: 0.0,
            samples: 0,
            alpha: p.initial_alpha,
            last_rate: 0.0,
            base_q: 0.0,
        }
    }

    /// The rate siblings see (bytes/s): the last round's, or cwnd/baseRTT before one.
    pub fn rate(&self, cwnd: f64) -> f64 {
        if self.last_rate > 0.0 {
            self.last_rate
        } else if self.base_rtt.is_finite() {
            cwnd / self.base_rtt
        } else {
            0.0
        }
    }

    /// The current target α_r (packets).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Take an ACK's RTT sample.
    pub fn on_sample(&mut self, ev: &AckEvent) {
        if let Some(r) = ev.rtt {
            let r = r.secs();
            self.sum_rtt += r;
            self.samples += 1;
            self.base_rtt = self.base_rtt.min(r);
        }
    }

    /// A loss: the rate estimate restarts.
    pub fn on_loss(&mut self) {
        self.last_rate = 0.0;
    }

    /// The once-per-round decision.
    pub fn on_round(
        &mut self,
        view: &[SubflowView],
        me: usize,
        cwnd: f64,
        ssthresh: f64,
        mss: f64,
    ) -> RoundOut {
        let mut out = RoundOut {
            cwnd,
            ssthresh,
            drained: false,
        };
        let samples = std::mem::take(&mut self.samples);
        let sum = std::mem::take(&mut self.sum_rtt);
        if samples <= 2 {
            // Too few samples to judge: one Reno step instead (Linux wVegas).
            if cwnd >= ssthresh {
                out.cwnd = cwnd + mss * mss / cwnd;
            }
            return out;
        }
        let rtt = sum / samples as f64;
        let base = self.base_rtt;
        let w = cwnd / mss;
        let diff = w * (rtt - base) / rtt;
        self.last_rate = cwnd / rtt;
        if cwnd < ssthresh {
            if diff > self.p.gamma {
                let target = w * base / rtt;
                out.cwnd = w.min(target + 1.0) * mss;
                out.ssthresh = ssthresh.min(out.cwnd - mss);
            }
        } else {
            if diff >= self.alpha {
                let others: f64 = view
                    .iter()
                    .enumerate()
                    .filter(|&(i, v)| i != me && v.active)
                    .map(|(_, v)| v.rate)
                    .sum();
                let weight = self.last_rate / (self.last_rate + others);
                self.alpha = (weight * self.p.total_alpha).max(self.p.initial_alpha);
            }
            if diff > self.alpha {
                out.cwnd = cwnd - mss;
                out.ssthresh = ssthresh.min(out.cwnd - mss);
            } else if diff < self.alpha {
                out.cwnd = cwnd + mss;
            }
            // Queue drain, judged only in rounds where the subflow keeps its own α_r
            // packets queued ([D], see the module doc).
            let q = rtt - base;
            if q > 0.0 && diff >= self.alpha {
                if self.base_q == 0.0 || q < self.base_q {
                    self.base_q = q;
                }
                if q >= 2.0 * self.base_q {
                    out.cwnd = out.cwnd * base / (2.0 * rtt);
                    out.drained = true;
                    self.base_q = 0.0;
                }
            }
        }
        out.cwnd = out.cwnd.max(2.0 * mss);
        out.ssthresh = out.ssthresh.max(2.0 * mss);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::sf;
    use super::*;
    use crate::units::Dur;

    const MSS: f64 = 1000.0;

    fn round(w: &mut Wvegas, rtt_ms: u64, n: u32) {
        for _ in 0..n {
            w.on_sample(&AckEvent::for_test(1000, Dur::from_millis(rtt_ms), 1000));
        }
    }

    #[test]
    fn grows_below_alpha_and_shrinks_above() {
        let mut w = Wvegas::new(WvegasSpec::default());
        round(&mut w, 100, 5); // base RTT 100 ms
        let view = vec![sf(20.0, 0.1)];
        let out = w.on_round(&view, 0, 20_000.0, 10_000.0, MSS);
        assert_eq!(out.cwnd, 21_000.0); // no queue: diff 0 < α
                                        // 20 packets, RTT 125 ms: diff = 20·25/125 = 4 ≥ α = 2 ⇒ weight 1 ⇒ α = 10 ⇒ grow.
        round(&mut w, 125, 5);
        let out = w.on_round(&view, 0, 20_000.0, 10_000.0, MSS);
        assert!((w.alpha() - 10.0).abs() < 1e-9);
        assert_eq!(out.cwnd, 21_000.0);
        // 60 packets at RTT 125 ms: diff = 12 > 10 ⇒ shrink by one.
        round(&mut w, 125, 5);
        let out = w.on_round(&view, 0, 60_000.0, 10_000.0, MSS);
        assert_eq!(out.cwnd, 59_000.0);
    }

    #[test]
    fn weight_splits_total_alpha_by_rate() {
        let mut w = Wvegas::new(WvegasSpec::default());
        round(&mut w, 100, 3);
        let view = vec![sf(30.0, 0.1), sf(30.0, 0.1)];
        w.on_round(&view, 0, 30_000.0, 1_000.0, MSS);
        // diff = 30·11/111 ≈ 2.97 ≥ α = 2: weight = x_0/(x_0 + x_1) with x_0 measured
        // over the round (30 packets / 111 ms) and x_1 the sibling's view.
        round(&mut w, 111, 3);
        w.on_round(&view, 0, 30_000.0, 1_000.0, MSS);
        let x_me: f64 = 30_000.0 / 0.111;
        let weight = x_me / (x_me + 300_000.0);
        assert!(
            (w.alpha() - (weight * 10.0).max(2.0)).abs() < 1e-6,
            "{}",
            w.alpha()
        );
    }

    #[test]
    fn few_samples_fall_back_to_reno() {
        let mut w = Wvegas::new(WvegasSpec::default());
        round(&mut w, 100, 2);
        let out = w.on_round(&[sf(10.0, 0.1)], 0, 10_000.0, 1_000.0, MSS);
        assert_eq!(out.cwnd, 10_100.0); // + 1/w packets
    }

    #[test]
    fn slow_start_ends_when_packets_queue() {
        let mut w = Wvegas::new(WvegasSpec::default());
        round(&mut w, 100, 3);
        round(&mut w, 200, 3); // mean 150 ms, base 100 ms
        let out = w.on_round(&[sf(30.0, 0.15)], 0, 30_000.0, f64::MAX, MSS);
        // diff = 30·50/150 = 10 > γ ⇒ w = min(30, 30·100/150 + 1) = 21.
        assert!((out.cwnd - 21_000.0).abs() < 1e-6);
        assert!((out.ssthresh - 20_000.0).abs() < 1e-6);
    }

    #[test]
    fn the_rate_siblings_see_is_the_window_over_the_rounds_rtt() {
        // x_r = w_r/RTT_r (Cao et al. 2012, the weight's numerator and its siblings'
        // denominator terms): before any round, the window over the base RTT.
        let mut w = Wvegas::new(WvegasSpec::default());
        assert_eq!(w.rate(20_000.0), 0.0, "no RTT sample yet");
        round(&mut w, 100, 3);
        assert!((w.rate(20_000.0) - 200_000.0).abs() < 1e-6);
        // A round at a mean RTT of 125 ms with 20 packets: 20 000 B / 0.125 s.
        w.on_round(&[sf(20.0, 0.1)], 0, 20_000.0, 10_000.0, MSS);
        round(&mut w, 125, 4);
        w.on_round(&[sf(20.0, 0.1)], 0, 20_000.0, 10_000.0, MSS);
        assert!(
            (w.rate(21_000.0) - 160_000.0).abs() < 1e-6,
            "{}",
            w.rate(21_000.0)
        );
    }
}
