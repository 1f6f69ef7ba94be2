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
//!
//! Three options reproduce the CUBIN ns-2 module (Cui & Andrew, `tcp-fast.cc` v1.1.3,
//! `fast_cc` and `fast_pace`; docs/sources/ns2.md §7), each off by default:
//!
//! - `mi_threshold`: the multiplicative-increase phase. On every ACK of new data, while
//!   avgRTT − baseRTT is below the threshold, cwnd grows by one packet and the law waits
//!   (the module restarts its update clock at each such step).
//! - `update_interval`: the module's time-driven update. The law runs on the first ACK of
//!   new data at least one interval after the previous update or MI step, on the module's
//!   own RTT epochs (an epoch ends when the time since its start exceeds the ACK's RTT
//!   sample; `every_other_rtt` then updates only in alternate epochs), and without the
//!   doubling cap: target = (1 − γ)·w + γ·(baseRTT/avgRTT·w + α), at least 2. (The module
//!   multiplies baseRTT/avgRTT by the window recorded when the acked packet was sent; ccsim
//!   uses the current window, as its round law does.)
//! - `pace_increases`: the module's pacing. An increase of n whole packets is applied one
//!   packet every ⌊A/n⌋ ACKs, A = (ACKs in the previous epoch)·interval/avgRTT, the ACKs
//!   expected in one interval; a decrease applies at once; while cwnd ≤ 4 an increase
//!   applies at once, at most doubling per ACK.

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
    pub mi_threshold: Option<Dur>,
    pub update_interval: Option<Dur>,
    pub pace_increases: bool,
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
    Param::duration("mi_threshold", "5ms")
        .optional("no multiplicative-increase phase")
        .doc("the ns-2 module's MI phase: while avgRTT − baseRTT is below this, every ACK of new data adds one packet and the window law waits")
        .source("CUBIN FAST TCP ns-2 module tcp-fast.cc fast_cc (mi_threshold_; FAST_CC_MIQ before v1.1.2), default unknown: off"),
    Param::duration("update_interval", "100ms")
        .optional("the law runs once per round")
        .doc("the ns-2 module's time-driven update: the law runs on the first ACK at least this long after the previous update or MI step, without the doubling cap")
        .source("CUBIN FAST TCP ns-2 module tcp-fast.cc fast_cc (fast_update_cwnd_interval_), default unknown: off"),
    Param::boolean("pace_increases", false)
        .doc("the ns-2 module's pacing of increases: an increase of n packets is applied one packet at a time over the ACKs of one update interval (needs update_interval)")
        .source("CUBIN FAST TCP ns-2 module tcp-fast.cc fast_pace; off"),
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

/// The ns-2 module's window target without the doubling cap:
/// (1 − γ)·w + γ·(base/avg·w + α), at least 2 packets (tcp-fast.cc `fast_calc_cwnd`).
pub fn module_target(w: f64, base_rtt: f64, avg_rtt: f64, alpha: f64, gamma: f64) -> f64 {
    ((1.0 - gamma) * w + gamma * (base_rtt / avg_rtt * w + alpha)).max(2.0)
}

/// The ns-2 module's update clock and pacing state (`fast_cc`, `fast_pace`).
#[derive(Clone, Debug, Default)]
struct ModuleClock {
    /// When the law or an MI step last changed the window (`cwnd_update_time`).
    last_update: Option<SimTime>,
    /// Start of the current RTT epoch (`fast_calc_cwnd_end`).
    epoch_start: Option<SimTime>,
    /// ACKs of new data in this epoch and the previous one.
    acks_this_epoch: u32,
    acks_last_epoch: u32,
    /// With `every_other_rtt`: whether this epoch may update (`on_first_rtt_`).
    updating_epoch: bool,
    /// Whole packets still to be added (`cwnd_increments`).
    increments: f64,
    /// ACKs since the last paced step, and ACKs between steps (`bc_ack`, `bc_spacing`).
    since_step: u32,
    spacing: u32,
}

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
    /// The last ACK of new data was a multiplicative-increase step (`mi_threshold`).
    mi_step: bool,
    /// State of the module's time-driven update (`update_interval`).
    clock: ModuleClock,
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
            mi_step: false,
            clock: ModuleClock {
                updating_epoch: true,
                ..ModuleClock::default()
            },
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

impl Fast {
    /// The module's per-ACK work (tcp-fast.cc `fast_cc`) for an ACK of new data with RTT
    /// sample `rtt` (avgRTT when Karn's rule withholds one): the epoch count, the MI step,
    /// then the time-driven update or one pacing step.
    fn on_new_ack(&mut self, now: SimTime, rtt: Option<f64>) {
        let (Some(base), Some(avg)) = (self.base_rtt, self.avg_rtt) else {
            return;
        };
        let rtt = rtt.unwrap_or(avg);
        let c = &mut self.clock;
        let epoch_start = c.epoch_start.unwrap_or(SimTime::ZERO);
        if epoch_start + Dur::from_secs_f64(rtt) < now {
            c.epoch_start = Some(now);
            c.acks_last_epoch = c.acks_this_epoch;
            c.acks_this_epoch = 0;
            c.updating_epoch = !c.updating_epoch;
        }
        c.acks_this_epoch += 1;
        self.mi_step = self.p.mi_threshold.is_some_and(|t| avg - base < t.secs());
        if self.mi_step {
            self.cwnd += 1.0;
            self.clock.last_update = Some(now);
            return;
        }
        let Some(interval) = self.p.update_interval else {
            return; // the law runs once per round (`on_round`)
        };
        let c = &self.clock;
        let due = c.last_update.is_none_or(|t| now >= t + interval)
            && (!self.p.every_other_rtt || c.updating_epoch);
        if due {
            self.clock.increments = 0.0;
            let target = module_target(self.cwnd, base, avg, self.p.alpha, self.p.gamma);
            if self.p.pace_increases && target >= self.cwnd {
                self.pace((target - self.cwnd).floor(), interval, avg);
            } else {
                self.cwnd = target;
            }
            self.clock.last_update = Some(now);
        } else if self.p.pace_increases {
            self.pace(0.0, interval, avg);
        }
    }

    /// One ACK of the module's pacing (tcp-fast.cc `fast_pace`): `add` new whole packets to
    /// spread over the ACKs expected in one `interval`.
    fn pace(&mut self, add: f64, interval: Dur, avg: f64) {
        let c = &mut self.clock;
        let acks_per_period = c.acks_last_epoch as f64 * interval.secs() / avg;
        if add >= 1.0 {
            c.increments += add;
            c.spacing = (acks_per_period / c.increments) as u32;
            c.since_step = 1;
        } else {
            c.since_step += 1;
        }
        if c.increments <= 0.0 {
            return;
        }
        if self.cwnd <= 4.0 {
            // A small window takes the increase at once, at most doubling.
            if self.cwnd < c.increments {
                c.increments -= self.cwnd.floor();
                self.cwnd *= 2.0;
            } else {
                self.cwnd += c.increments;
                c.increments = 0.0;
                c.spacing = 0;
            }
            c.since_step = 0;
        } else if c.since_step >= c.spacing {
            self.cwnd += 1.0;
            c.increments -= 1.0;
            c.since_step = 0;
        }
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
        let module = self.p.mi_threshold.is_some() || self.p.update_interval.is_some();
        if module && ev.acked.0 > 0 && !ev.in_recovery {
            self.on_new_ack(ev.now, ev.rtt.map(|r| r.secs()));
        }
    }
    fn on_round(&mut self, _ev: &RoundEvent) {
        if self.in_recovery || self.p.update_interval.is_some() || self.mi_step {
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

    /// An ACK of one new packet at `t_ms` with RTT sample `rtt_ms`.
    fn ack_at(t_ms: f64, rtt_ms: f64) -> AckEvent {
        AckEvent {
            now: SimTime::ZERO + Dur::from_secs_f64(t_ms / 1000.0),
            ..ack(rtt_ms)
        }
    }

    #[test]
    fn mi_phase_adds_a_packet_per_ack_while_queueing_is_below_the_threshold() {
        // tcp-fast.cc fast_cc: avgRTT − baseRTT < mi_threshold_ ⇒ cwnd_++ and no law.
        let p = FastSpec {
            mi_threshold: Some(Dur::from_millis(5)),
            ..spec(20.0)
        };
        let mut f = Fast::new(Bytes(MSS), Bytes(2 * MSS), p);
        for i in 0..10 {
            f.on_ack(&ack_at(100.0 + i as f64, 100.0));
        }
        assert_eq!(f.cwnd_packets(), 12.0, "one packet per ACK of new data");
        f.on_round(&round());
        assert_eq!(
            f.cwnd_packets(),
            12.0,
            "the round law waits after an MI step"
        );
        // A duplicate ACK is not an MI step.
        f.on_ack(&AckEvent {
            acked: Bytes(0),
            ..ack_at(111.0, 100.0)
        });
        assert_eq!(f.cwnd_packets(), 12.0);
        // Queueing of 10 ms > 5 ms ends the phase: the next ACK is no step, the round law runs.
        let mut g = Fast::new(Bytes(MSS), Bytes(12 * MSS), p);
        g.on_ack(&ack_at(100.0, 100.0));
        g.avg_rtt = Some(0.110);
        assert_eq!(g.cwnd_packets(), 13.0, "no queueing yet: a step");
        g.on_ack(&ack_at(101.0, 110.0));
        assert!(g.cwnd_packets() == 13.0 && !g.mi_step);
        g.on_round(&round());
        assert!(g.cwnd_packets() > 13.0);
    }

    #[test]
    fn module_update_runs_once_per_interval_without_the_doubling_cap() {
        // fast_cc: the law runs when now >= cwnd_update_time + fast_update_cwnd_interval_;
        // fast_calc_cwnd has no min{2w, ...}: from w = 2 with no queue, (2 + 252)/2 = 127.
        let p = FastSpec {
            update_interval: Some(Dur::from_millis(100)),
            ..spec(250.0)
        };
        let mut f = Fast::new(Bytes(MSS), Bytes(2 * MSS), p);
        f.on_ack(&ack_at(50.0, 50.0));
        assert_eq!(
            f.cwnd_packets(),
            127.0,
            "the first ACK finds no earlier update"
        );
        f.on_ack(&ack_at(120.0, 50.0));
        assert_eq!(f.cwnd_packets(), 127.0, "70 ms after the update: not due");
        f.on_round(&round());
        assert_eq!(
            f.cwnd_packets(),
            127.0,
            "no round law in the time-driven mode"
        );
        f.on_ack(&ack_at(150.0, 50.0));
        // 100 ms after the update: (127 + 127 + 250)/2 = 252.
        assert_eq!(f.cwnd_packets(), 252.0);
        assert_eq!(
            module_target(300.0, 0.05, 0.06, 250.0, 0.5),
            0.5 * 300.0 + 0.5 * (250.0 + 250.0)
        );
        assert_eq!(
            module_target(2.0, 0.05, 1.0, 0.0, 1.0),
            2.0,
            "at least 2 packets"
        );
    }

    #[test]
    fn module_epochs_gate_every_other_rtt() {
        // fast_cc: an epoch ends when fast_calc_cwnd_end + rtt < now, flipping on_first_rtt_
        // (true at reset, so the first ACK opens an epoch that does not update).
        let p = FastSpec {
            update_interval: Some(Dur::ZERO),
            every_other_rtt: true,
            ..spec(10.0)
        };
        let mut f = Fast::new(Bytes(MSS), Bytes(20 * MSS), p);
        f.on_ack(&ack_at(150.0, 100.0));
        assert_eq!(f.cwnd_packets(), 20.0, "first epoch: frozen");
        f.on_ack(&ack_at(200.0, 100.0));
        assert_eq!(f.cwnd_packets(), 20.0, "same epoch (50 ms < one RTT)");
        f.on_ack(&ack_at(251.0, 100.0));
        assert_eq!(
            f.cwnd_packets(),
            25.0,
            "next epoch updates: (20 + 20 + 10)/2"
        );
        f.on_ack(&ack_at(352.0, 100.0));
        assert_eq!(f.cwnd_packets(), 25.0, "and the one after is frozen again");
    }

    #[test]
    fn paced_increase_is_spread_over_the_acks_of_one_interval() {
        // fast_pace: bc_spacing = (acks_last_rtt·interval/avgRTT)/increments; one packet
        // every bc_spacing ACKs; decreases at once.
        let p = FastSpec {
            update_interval: Some(Dur::from_millis(100)),
            pace_increases: true,
            ..spec(20.0)
        };
        let mut f = Fast::new(Bytes(MSS), Bytes(10 * MSS), p);
        // Epoch 1 (t = 0..100 ms): 40 ACKs, the first of which updates: target
        // (10 + 10 + 20)/2 = 20, i.e. 10 increments, but no ACK count yet (spacing 0): one
        // packet per ACK.
        for i in 0..40 {
            f.on_ack(&ack_at(1.0 + 2.0 * i as f64, 100.0));
        }
        assert_eq!(f.cwnd_packets(), 20.0);
        // Epoch 2 opens at 102 ms with 40 ACKs counted; the update at 102 ms asks for
        // (20 + 20 + 20)/2 − 20 = 10 packets over 40·0.1/0.1 = 40 ACKs: one every 4.
        f.on_ack(&ack_at(102.0, 100.0));
        assert_eq!(f.cwnd_packets(), 20.0);
        let mut grown = vec![];
        for i in 1..=12 {
            f.on_ack(&ack_at(102.0 + i as f64, 100.0));
            grown.push(f.cwnd_packets());
        }
        assert_eq!(
            grown,
            [20.0, 20.0, 21.0, 21.0, 21.0, 21.0, 22.0, 22.0, 22.0, 22.0, 23.0, 23.0]
        );
        // A decrease applies at once: with base/avg = 0.1 the target is below w.
        f.avg_rtt = Some(1.0);
        f.on_ack(&ack_at(250.0, 1000.0));
        let w = 23.0;
        assert!(
            (f.cwnd_packets() - (0.5 * w + 0.5 * (0.1 * w + 20.0))).abs() < 1e-9,
            "{}",
            f.cwnd_packets()
        );
    }

    #[test]
    fn paced_increase_below_four_packets_is_immediate_and_at_most_doubles() {
        let p = FastSpec {
            update_interval: Some(Dur::from_millis(100)),
            pace_increases: true,
            ..spec(250.0)
        };
        let mut f = Fast::new(Bytes(MSS), Bytes(2 * MSS), p);
        f.on_ack(&ack_at(50.0, 50.0));
        // Target 127: 125 increments; cwnd 2 ≤ 4 doubles to 4 at once, 123 left.
        assert_eq!(f.cwnd_packets(), 4.0);
        f.on_ack(&ack_at(51.0, 50.0));
        assert_eq!(
            f.cwnd_packets(),
            8.0,
            "still ≤ 4 before this ACK: doubles again"
        );
        f.on_ack(&ack_at(52.0, 50.0));
        assert_eq!(
            f.cwnd_packets(),
            9.0,
            "above 4: paced (spacing 0 without an ACK count)"
        );
    }
}
