//! FAST TCP (Jin, Wei & Low, INFOCOM 2004; ALGORITHMS.md §1.7). Windows in packets.
//!
//! Three separate parts, each a small function, so that variants (for example the
//! multipath-routing seed's RTT averaging with a = 1/(4·cwnd) and its filtered baseRTT,
//! ALGORITHMS.md §3.0.3) replace one part only:
//!
//! - **RTT average** (`avg_rtt_weight`, `update_avg_rtt`): per RTT sample,
//!   avgRTT ← (1 − a)·avgRTT + a·RTT with a = min(1/256, 3/cwnd) (the ns-2 module's weight:
//!   1/256 while cwnd/3 ≤ 256, else 3/cwnd). The first sample initialises it.
//! - **Base RTT** (`update_base_rtt`): the smallest RTT sample.
//! - **Window update** (`fast_update`), once per round (`on_round`; every other round if
//!   `every_other_rtt`):
//!   w ← min{2w, (1 − γ)·w + γ·(baseRTT/avgRTT·w + α)}, at least 2 packets.
//!   Its fixed point is w·(1 − baseRTT/avgRTT) = α: α packets queued per flow.
//!
//! Mallada & Paganini's variant (NET-COOP 2007, eqs. 4–5; ALGORITHMS.md §3.0.3), chosen by
//! `FastSpec::avg_window_factor` and `FastSpec::base_filter`: the averaging weight is
//! a = 1/(k·cwnd), and baseRTT is a low-pass filter BaseRTT ← (1 − b)·BaseRTT + b·(avgRTT − q)
//! driven by the price q that the routing agent at the source node pushes (`set_price`),
//! initialised to the first sample.
//!
//! There is no separate slow start: the law itself (capped at doubling) brings the window
//! up. Loss is handled as the ns-2 module does: a fast retransmit halves the window
//! (ssthresh = cwnd = max(cwnd/2, 2)); a timeout sets cwnd = 2 packets and
//! ssthresh = max(cwnd/2, 2). No update is made in rounds that end during fast recovery.

use super::{
    AckEvent, AnyCc, CcKind, CongestionControl, CongestionEvent, CongestionKind, RoundEvent,
};
use crate::params::{Bound, Kind, Param};
use crate::units::{Bytes, Dur, SimTime};
use serde::{Deserialize, Serialize};

/// FAST TCP's parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct FastSpec {
    pub alpha: f64,
    pub gamma: f64,
    pub every_other_rtt: bool,
    pub avg_window_factor: Option<f64>,
    pub base_filter: Option<f64>,
}

impl Default for FastSpec {
    fn default() -> FastSpec {
        crate::params::defaults(PARAMS)
    }
}

/// FAST's parameter table.
pub const PARAMS: &[Param] = &[
    Param::float("alpha", 250.0, Bound::Excl(0.0), Bound::Incl(1e6))
        .unit("packets")
        .doc("packets each flow aims to keep queued (the equilibrium w·(1 − baseRTT/avgRTT) = α)")
        .source("ALGORITHMS.md §3.0.4 item 10: the multipath-routing seed's α = 250 packets"),
    Param::float("gamma", 0.5, Bound::Excl(0.0), Bound::Incl(1.0))
        .doc("step γ of the window update w ← (1 − γ)·w + γ·(baseRTT/avgRTT·w + α)")
        .source("CUBIN FAST TCP ns-2 module v1.1 (gamma_ 0.5)"),
    Param::boolean("every_other_rtt", false)
        .doc("update the window every other round instead of every round")
        .source("CUBIN FAST TCP ns-2 module v1.1 updates every round"),
    Param::float("avg_window_factor", 4.0, Bound::Excl(0.0), Bound::Incl(1e6))
        .optional("the ns-2 module's weight a = min(1/256, 3/cwnd)")
        .unit("RTTs")
        .doc("RTT averaging weight a = 1/(k·cwnd) (Mallada & Paganini's eq. 4 uses k = 4)")
        .source("CUBIN FAST TCP ns-2 module (min(1/256, 3/cwnd)) when absent"),
    Param::float("base_filter", 3000.0, Bound::Incl(1.0), Bound::Incl(1e9))
        .optional("the smallest RTT sample")
        .unit("ACKs")
        .doc("base RTT as Mallada & Paganini's filter BaseRTT ← (1 − 1/n)·BaseRTT + (avgRTT − q)/n driven by the routers' price q (the paper uses n = 3000)")
        .source("FAST TCP (Jin, Wei & Low 2004): the smallest sample, when absent"),
];

/// `cc = "fast"`.
pub const KIND: CcKind = CcKind {
    kind: Kind::new(
        "fast",
        "FAST TCP, Jin, Wei & Low 2004 (docs/controllers/fast.md)",
        &[PARAMS],
    ),
    build: |p, ctx| {
        let c: FastSpec = super::config(p)?;
        Ok(AnyCc::Fast(Fast::new(ctx.mss, ctx.init_cwnd, c)))
    },
};

/// The FAST window law: min{2w, (1 − γ)·w + γ·(base/avg·w + α)} (packets, seconds).
pub fn fast_update(w: f64, base_rtt: f64, avg_rtt: f64, alpha: f64, gamma: f64) -> f64 {
    let target = base_rtt / avg_rtt * w + alpha;
    (2.0 * w).min((1.0 - gamma) * w + gamma * target)
}

/// FAST state.
#[derive(Clone, Debug)]
pub struct Fast {
    mss: f64,
    p: FastSpec,
    /// Windows in packets.
    cwnd: f64,
    ssthresh: f64,
    /// Seconds.
    base_rtt: Option<f64>,
    avg_rtt: Option<f64>,
    in_recovery: bool,
    /// With `every_other_rtt`: whether the next round updates.
    update_next: bool,
    /// The routers' price for this flow (seconds), for the filtered base RTT.
    price: f64,
}

impl Fast {
    /// Start with `init_cwnd` bytes.
    pub fn new(mss: Bytes, init_cwnd: Bytes, p: FastSpec) -> Fast {
        Fast {
            mss: mss.0 as f64,
            p,
            cwnd: init_cwnd.0 as f64 / mss.0 as f64,
            ssthresh: f64::MAX,
            base_rtt: None,
            avg_rtt: None,
            in_recovery: false,
            update_next: true,
            price: 0.0,
        }
    }

    /// The routing agent's node price q_k for this flow's destination (seconds).
    pub fn set_price(&mut self, q: f64) {
        self.price = q;
    }
    /// The last price pushed by `set_price`.
    pub fn price(&self) -> f64 {
        self.price
    }

    /// The window in packets.
    pub fn cwnd_packets(&self) -> f64 {
        self.cwnd
    }
    /// baseRTT, once there is a sample.
    pub fn base_rtt(&self) -> Option<Dur> {
        self.base_rtt.map(Dur::from_secs_f64)
    }
    /// avgRTT, once there is a sample.
    pub fn avg_rtt(&self) -> Option<Dur> {
        self.avg_rtt.map(Dur::from_secs_f64)
    }

    /// EWMA weight of one RTT sample: min(1/256, 3/cwnd) (ns-2 module), or 1/(k·cwnd) with
    /// `avg_window_factor = k` (Mallada & Paganini eq. 4).
    pub fn avg_rtt_weight(&self) -> f64 {
        match self.p.avg_window_factor {
            Some(k) => (1.0 / (k * self.cwnd.max(1.0))).min(1.0),
            None => (1.0 / 256.0f64).min(3.0 / self.cwnd.max(1.0)),
        }
    }

    /// avgRTT ← (1 − a)·avgRTT + a·sample; the first sample initialises it.
    fn update_avg_rtt(&mut self, sample: f64) {
        let a = self.avg_rtt_weight();
        self.avg_rtt = Some(match self.avg_rtt {
            None => sample,
            Some(avg) => (1.0 - a) * avg + a * sample,
        });
    }

    /// baseRTT = the smallest sample; with `base_filter = n`, the filter of eq. (5):
    /// BaseRTT ← (1 − 1/n)·BaseRTT + (1/n)·(avgRTT − q). Call after `update_avg_rtt`.
    fn update_base_rtt(&mut self, sample: f64) {
        self.base_rtt = Some(match (self.base_rtt, self.p.base_filter, self.avg_rtt) {
            (None, _, _) => sample,
            (Some(b), None, _) => b.min(sample),
            (Some(b), Some(n), Some(avg)) => (1.0 - 1.0 / n) * b + (avg - self.price) / n,
            (Some(b), Some(_), None) => b,
        });
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }
    fn cwnd(&self) -> Bytes {
        Bytes((self.cwnd * self.mss) as u64)
    }
    fn ssthresh(&self) -> Bytes {
        Bytes((self.ssthresh * self.mss).min(u64::MAX as f64) as u64)
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        self.in_recovery = ev.in_recovery;
        if let Some(r) = ev.rtt {
            let s = r.secs();
            if self.p.base_filter.is_some() {
                // Eq. (4) then eq. (5), which uses the new average.
                self.update_avg_rtt(s);
                self.update_base_rtt(s);
            } else {
                self.update_base_rtt(s);
                self.update_avg_rtt(s);
            }
        }
    }
    fn on_round(&mut self, _ev: &RoundEvent) {
        if self.in_recovery {
            return;
        }
        if self.p.every_other_rtt {
            self.update_next = !self.update_next;
            if !self.update_next {
                return;
            }
        }
        let (Some(base), Some(avg)) = (self.base_rtt, self.avg_rtt) else {
            return;
        };
        self.cwnd = fast_update(self.cwnd, base, avg, self.p.alpha, self.p.gamma).max(2.0);
    }
    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.ssthresh = (self.cwnd / 2.0).max(2.0);
        self.cwnd = match ev.kind {
            CongestionKind::FastRetransmit => {
                self.in_recovery = true;
                self.ssthresh
            }
            CongestionKind::Timeout => 2.0,
        };
    }
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.in_recovery = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(rtt_ms: f64) -> AckEvent {
        AckEvent {
            srtt: Dur::from_millis(100),
            min_rtt: Dur::from_millis(100),
            ..AckEvent::for_test(MSS, Dur::from_secs_f64(rtt_ms / 1000.0), MSS)
        }
    }

    fn round() -> RoundEvent {
        RoundEvent {
            now: SimTime::ZERO,
            min_rtt_in_round: None,
            delivered_in_round: Bytes(0),
            duration: Dur::from_millis(100),
        }
    }

    fn spec(alpha: f64) -> FastSpec {
        FastSpec {
            alpha,
            ..FastSpec::default()
        }
    }

    #[test]
    fn the_law_and_its_fixed_point() {
        // No queueing: w + γα, capped at doubling.
        assert_eq!(fast_update(100.0, 0.1, 0.1, 20.0, 0.5), 110.0);
        assert_eq!(fast_update(4.0, 0.1, 0.1, 20.0, 0.5), 8.0);
        // At w·(1 − base/avg) = α the window does not move: w = 120, base/avg = 5/6.
        let w = fast_update(120.0, 0.1, 0.12, 20.0, 0.5);
        assert!((w - 120.0).abs() < 1e-9, "{w}");
    }

    #[test]
    fn converges_to_alpha_queued_on_a_fluid_link() {
        // A fluid bottleneck: 1000 packets/s, 100 ms propagation. RTT = 0.1 + q/C with
        // q = max(0, w − C·0.1). The window should settle where q = α.
        let (c, prop, alpha) = (1000.0, 0.1, 20.0);
        let mut f = Fast::new(Bytes(MSS), Bytes(2 * MSS), spec(alpha));
        for _ in 0..300 {
            let q = (f.cwnd_packets() - c * prop).max(0.0);
            let rtt = prop + q / c;
            for _ in 0..(f.cwnd_packets() as usize) {
                f.on_ack(&ack(rtt * 1000.0));
            }
            f.on_round(&round());
        }
        let q = f.cwnd_packets() - c * prop;
        assert!((q - alpha).abs() < 1.0, "queue {q}");
    }

    #[test]
    fn average_weight_and_base_rtt() {
        let mut f = Fast::new(Bytes(MSS), Bytes(10 * MSS), spec(20.0));
        f.on_ack(&ack(100.0));
        assert_eq!(f.avg_rtt(), Some(Dur::from_millis(100)));
        f.on_ack(&ack(356.0));
        // a = 1/256 at cwnd 10: avg = 100 + 256/256 = 101 ms.
        assert!((f.avg_rtt().unwrap().secs() - 0.101).abs() < 1e-9);
        assert_eq!(f.base_rtt(), Some(Dur::from_millis(100)));
        // Above 768 packets the weight is 3/cwnd.
        let big = Fast::new(Bytes(MSS), Bytes(1500 * MSS), spec(20.0));
        assert_eq!(big.avg_rtt_weight(), 3.0 / 1500.0);
    }

    #[test]
    fn loss_halves_and_timeout_sets_two_packets() {
        let mut f = Fast::new(Bytes(MSS), Bytes(40 * MSS), spec(20.0));
        f.on_ack(&ack(100.0));
        f.on_congestion(&CongestionEvent {
            now: SimTime::ZERO,
            kind: CongestionKind::FastRetransmit,
            flight_size: Bytes(40 * MSS),
            mss: Bytes(MSS),
        });
        assert_eq!(f.cwnd(), Bytes(20 * MSS));
        f.on_round(&round());
        assert_eq!(f.cwnd(), Bytes(20 * MSS), "no update during recovery");
        f.on_recovery_exit(SimTime::ZERO);
        f.on_round(&round());
        assert_eq!(f.cwnd(), Bytes(30 * MSS));
        f.on_congestion(&CongestionEvent {
            now: SimTime::ZERO,
            kind: CongestionKind::Timeout,
            flight_size: Bytes(30 * MSS),
            mss: Bytes(MSS),
        });
        assert_eq!(f.cwnd(), Bytes(2 * MSS));
        assert_eq!(f.ssthresh(), Bytes(15 * MSS));
    }

    #[test]
    fn price_filtered_base_rtt_tracks_avg_minus_price() {
        // Mallada & Paganini eqs. (4)-(5): with a steady RTT of 150 ms and a router price
        // of 50 ms, BaseRTT converges to 100 ms whatever the first sample was.
        let p = FastSpec {
            avg_window_factor: Some(4.0),
            base_filter: Some(100.0),
            ..spec(20.0)
        };
        let mut f = Fast::new(Bytes(MSS), Bytes(10 * MSS), p);
        assert_eq!(f.avg_rtt_weight(), 1.0 / 40.0);
        f.on_ack(&ack(150.0));
        assert_eq!(f.base_rtt(), Some(Dur::from_millis(150)), "first sample");
        f.set_price(0.05);
        for _ in 0..2000 {
            f.on_ack(&ack(150.0));
        }
        assert!((f.base_rtt().unwrap().secs() - 0.1).abs() < 1e-6);
        // Then the window law holds w·q/avgRTT = α: x·q = α at the routers' price.
        for _ in 0..200 {
            f.on_round(&round());
        }
        let w = f.cwnd_packets();
        assert!((w * 0.05 / 0.15 - 20.0).abs() < 0.01, "w = {w}");
    }

    #[test]
    fn every_other_rtt_skips_alternate_rounds() {
        let p = FastSpec {
            every_other_rtt: true,
            ..spec(20.0)
        };
        let mut f = Fast::new(Bytes(MSS), Bytes(100 * MSS), p);
        f.on_ack(&ack(100.0));
        f.on_round(&round());
        assert_eq!(f.cwnd(), Bytes(100 * MSS));
        f.on_round(&round());
        assert_eq!(f.cwnd(), Bytes(110 * MSS));
    }
}
