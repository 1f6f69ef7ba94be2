//! CUBIC (RFC 9438). Windows are kept in segments (f64) internally, times in seconds.
//!
//! - Slow start as Reno (§4.10 allows HyStart++; it is not modelled); with `hystart = true`
//!   Linux's HyStart ends it (`hystart.rs`).
//! - `arithmetic = "linux"` replaces all of this by the kernel's integer CUBIC
//!   (`cubic_kernel.rs`; the `linux` stack profile).
//! - Congestion avoidance (§4.2): from the start of a congestion-avoidance stage at
//!   `t_epoch`, the window follows W_cubic(t) = C·(t − K)³ + W_max with
//!   K = cbrt((W_max − cwnd_epoch)/C) (eq. 2; equal to cbrt(W_max·(1 − β)/C) right after a
//!   reduction). On each ACK the target is W_cubic(t + RTT) bounded to [cwnd, 1.5·cwnd] and
//!   cwnd += (target − cwnd)/cwnd per segment acknowledged (§4.4, §4.5).
//! - Reno-friendly region (§4.3): W_est starts at cwnd_epoch and grows by
//!   α_cubic·segments_acked/cwnd with α_cubic = 3(1 − β)/(1 + β), or 1 once W_est reached
//!   cwnd_prior; when W_cubic(t) < W_est, cwnd = W_est.
//! - Loss (§4.6): ssthresh = max(FlightSize·β, 2); cwnd = ssthresh after a fast
//!   retransmit; W_max = cwnd before the reduction, or cwnd·(1 + β)/2 with fast convergence
//!   when cwnd had not regained the previous W_max (§4.7).
//! - Timeout (§4.8): the same ssthresh and W_max update, cwnd = 1 segment (RFC 5681).
//!
//! The epoch starts at the first ACK processed in congestion avoidance after the reduction
//! (so after fast recovery ends, RFC 9438 §4.2 "the beginning of the current congestion
//! avoidance stage"), using the ACK's `now`. Entering congestion avoidance with
//! cwnd ≥ W_max (or with no W_max yet) sets K = 0 and W_max = cwnd_epoch (§4.8 for the
//! post-timeout case).

use super::cubic_kernel::CubicKernel;
use super::hystart::{HyAck, HyStart};
use super::{AckEvent, AnyCc, CcKind, CongestionControl, CongestionEvent, CongestionKind};
use crate::params::{Bound, Kind, Param};
use crate::units::{Bytes, SimTime};
use serde::{Deserialize, Serialize};

/// CUBIC's parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct CubicSpec {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub reno_friendly: bool,
    pub arithmetic: Arithmetic,
    pub hystart: bool,
}

/// Which CUBIC computes the window (`arithmetic`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arithmetic {
    /// RFC 9438 in real numbers (fractional window).
    #[default]
    Rfc9438,
    /// The Linux kernel's integer CUBIC (`cubic_kernel.rs`): whole-segment window, `cnt`,
    /// slow start counting delivered segments, C and β as 410/1024 and 717/1024; `c` and
    /// `beta` are not used.
    Linux,
}

/// CUBIC's parameter table.
pub const PARAMS: &[Param] = &[
    Param::float("c", 0.4, Bound::Excl(0.0), Bound::Incl(1e6))
        .unit("segments/s³")
        .doc("C in W(t) = C·(t − K)³ + W_max: how fast the window grows away from W_max")
        .source("RFC 9438 §5 (C = 0.4)"),
    Param::float("beta", 0.7, Bound::Excl(0.0), Bound::Excl(1.0))
        .doc("multiplicative decrease β_cubic: the window keeps this fraction after a loss")
        .source("RFC 9438 §4.6 (β_cubic = 0.7)"),
    Param::boolean("fast_convergence", true)
        .doc("lower W_max further when a loss comes before the window regained the previous W_max")
        .source("RFC 9438 §4.7 (on)"),
    Param::boolean("reno_friendly", true)
        .doc("never grow slower than Reno with the same decrease would (the Reno-friendly region)")
        .source("RFC 9438 §4.3 (on)"),
    Param::choice("arithmetic", "rfc9438", &["rfc9438", "linux"])
        .doc("rfc9438 (real numbers), or linux: the kernel's integer CUBIC — whole segments, bictcp_update's cnt, slow start adding every delivered segment, the strict fast-convergence test (c and beta unused); docs/controllers/cubic.md")
        .source("RFC 9438; linux: net/ipv4/tcp_cubic.c bictcp_update :211–319, cubictcp_recalc_ssthresh :338–353, tcp_slow_start net/ipv4/tcp_cong.c:456–466 (the linux profile)"),
    Param::boolean("hystart", false)
        .doc("HyStart: leave slow start (ssthresh = cwnd) when a round's ACK train outlasts half the minimum RTT or its RTT rises by clamp(min/8, 4, 16 ms), from 16 segments on; docs/controllers/cubic.md")
        .source("off, as RFC 9438 (§4.10 allows HyStart++); net/ipv4/tcp_cubic.c hystart_update :383–447 with hystart 1 (the linux profile)"),
];

impl Default for CubicSpec {
    fn default() -> CubicSpec {
        crate::params::defaults(PARAMS)
    }
}

/// `cc = "cubic"`.
pub const KIND: CcKind = CcKind {
    kind: Kind::new(
        "cubic",
        "CUBIC, RFC 9438 (docs/controllers/cubic.md)",
        &[PARAMS],
    ),
    build: |p, ctx| {
        let c: CubicSpec = super::config(p)?;
        Ok(AnyCc::Cubic(Cubic::new(ctx.mss, ctx.init_cwnd, c)))
    },
};

/// The state of one congestion-avoidance stage.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: SimTime,
    k: f64,
    w_max: f64,
    w_est: f64,
}

/// CUBIC state.
#[derive(Clone, Debug)]
pub struct Cubic {
    mss: f64,
    p: CubicSpec,
    /// Windows in segments.
    cwnd: f64,
    ssthresh: f64,
    /// W_max (segments), 0 before the first congestion event.
    w_max: f64,
    /// cwnd just before the last reduction.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// HyStart for the RFC 9438 form (`hystart = true`), and snd.nxt as last seen (bytes).
    hystart: Option<Box<HyStart>>,
    sent: u64,
    /// The kernel's integer CUBIC (`arithmetic = "linux"`), which then does everything.
    kernel: Option<Box<CubicKernel>>,
}

impl Cubic {
    /// Start with `init_cwnd` bytes and an unbounded ssthresh.
    pub fn new(mss: Bytes, init_cwnd: Bytes, p: CubicSpec) -> Cubic {
        Cubic {
            mss: mss.0 as f64,
            p,
            cwnd: init_cwnd.0 as f64 / mss.0 as f64,
            ssthresh: f64::MAX,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            hystart: (p.hystart && p.arithmetic == Arithmetic::Rfc9438)
                .then(|| Box::new(HyStart::new(true))),
            sent: 0,
            kernel: (p.arithmetic == Arithmetic::Linux).then(|| {
                let segs = (init_cwnd.0 / mss.0.max(1)).max(1);
                Box::new(CubicKernel::new(
                    segs,
                    p.fast_convergence,
                    p.reno_friendly,
                    p.hystart,
                ))
            }),
        }
    }

    /// The kernel form's state, with `arithmetic = "linux"`.
    pub fn kernel(&self) -> Option<&CubicKernel> {
        self.kernel.as_deref()
    }

    /// W_max in segments (0 before the first congestion event).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K of the current stage in seconds, once it started.
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }

    /// When the current congestion-avoidance stage started.
    pub fn epoch_start(&self) -> Option<SimTime> {
        self.epoch.map(|e| e.start)
    }

    /// The window in segments.
    pub fn cwnd_segments(&self) -> f64 {
        self.cwnd
    }

    /// RFC 9438 §4.2 eq. (1): W_cubic(t) in segments.
    pub fn w_cubic(c: f64, k: f64, w_max: f64, t: f64) -> f64 {
        c * (t - k).powi(3) + w_max
    }

    /// RFC 9438 §4.2 eq. (2): K = cbrt((W_max − cwnd_epoch)/C).
    pub fn k_for(c: f64, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch) / c).cbrt()
    }

    fn start_epoch(&mut self, now: SimTime) -> Epoch {
        let (k, w_max) = if self.w_max > self.cwnd {
            (Cubic::k_for(self.p.c, self.w_max, self.cwnd), self.w_max)
        } else {
            (0.0, self.cwnd)
        };
        Epoch {
            start: now,
            k,
            w_max,
            w_est: self.cwnd,
        }
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn cwnd(&self) -> Bytes {
        if let Some(k) = &self.kernel {
            return Bytes(k.w.cwnd * self.mss as u64);
        }
        Bytes((self.cwnd * self.mss) as u64)
    }
    fn ssthresh(&self) -> Bytes {
        if let Some(k) = &self.kernel {
            return Bytes(k.w.ssthresh.saturating_mul(self.mss as u64));
        }
        Bytes((self.ssthresh * self.mss).min(u64::MAX as f64) as u64)
    }
    fn set_initial_ssthresh(&mut self, ssthresh: Bytes) {
        self.ssthresh = ssthresh.0 as f64 / self.mss;
        if let Some(k) = &mut self.kernel {
            k.w.ssthresh = (ssthresh.0 / self.mss as u64).max(1);
        }
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        if let Some(k) = &mut self.kernel {
            k.on_ack(ev);
            return;
        }
        if let (Some(h), Some(rtt)) = (&mut self.hystart, ev.rtt) {
            let a = HyAck {
                now: ev.now,
                rtt,
                cwnd: self.cwnd as u64,
                in_slow_start: self.cwnd < self.ssthresh,
                epoch_start: self.epoch.map(|e| e.start),
                delivered: ev.delivered.0,
                in_flight: ev.in_flight.0,
            };
            if h.on_ack(&a) {
                self.ssthresh = self.cwnd;
            }
            self.sent = ev.delivered.0 + ev.in_flight.0;
        }
        if ev.acked.0 == 0 || ev.in_recovery {
            return;
        }
        let segs = ev.acked.0 as f64 / self.mss;
        if self.cwnd < self.ssthresh {
            // §4.10: Reno slow start (RFC 5681: min(N, SMSS) per ACK).
            self.cwnd += segs.min(1.0);
            return;
        }
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(ev.now),
        };
        let t = ev.now.since(e.start).secs();
        let rtt = if ev.srtt.0 > 0 { ev.srtt } else { ev.min_rtt }.secs();
        // §4.3: Reno-friendly estimate, α_cubic = 1 once W_est reached cwnd_prior.
        let beta = self.p.beta;
        let alpha = if e.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - beta) / (1.0 + beta)
        };
        e.w_est += alpha * segs / self.cwnd;
        let w_t = Cubic::w_cubic(self.p.c, e.k, e.w_max, t);
        if self.p.reno_friendly && w_t < e.w_est {
            // §4.3: in the Reno-friendly region cwnd = W_est.
            self.cwnd = self.cwnd.max(e.w_est);
        } else {
            // §4.2: target = W_cubic(t + RTT) bounded to [cwnd, 1.5·cwnd];
            // §4.4/§4.5: cwnd += (target − cwnd)/cwnd per segment acknowledged.
            let target =
                Cubic::w_cubic(self.p.c, e.k, e.w_max, t + rtt).clamp(self.cwnd, 1.5 * self.cwnd);
            self.cwnd += (target - self.cwnd) / self.cwnd * segs;
        }
        self.epoch = Some(e);
    }
    fn on_congestion(&mut self, ev: &CongestionEvent) {
        if let Some(k) = &mut self.kernel {
            let basis = ev.flight_size.0 / self.mss as u64;
            k.on_congestion(ev.now, ev.kind, basis);
            return;
        }
        if ev.kind == CongestionKind::Timeout {
            if let Some(h) = &mut self.hystart {
                h.on_timeout(ev.now, self.sent);
            }
        }
        let beta = self.p.beta;
        // §4.7 fast convergence: a flow that had not regained its previous W_max releases
        // bandwidth by lowering W_max further.
        self.w_max = if self.p.fast_convergence && self.cwnd < self.w_max {
            self.cwnd * (1.0 + beta) / 2.0
        } else {
            self.cwnd
        };
        self.cwnd_prior = self.cwnd;
        // §4.6: ssthresh = flight_size·β_cubic, at least 2 segments.
        let flight = ev.flight_size.0 as f64 / self.mss;
        self.ssthresh = (flight * beta).max(2.0);
        self.cwnd = match ev.kind {
            // §4.6: cwnd = ssthresh.
            CongestionKind::FastRetransmit => self.ssthresh,
            // §4.8: cwnd = the loss window of RFC 5681, one segment.
            CongestionKind::Timeout => 1.0,
        };
        self.epoch = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Dur;

    const MSS: u64 = 1000;

    fn ack_at(now: f64, acked: u64, rtt: f64) -> AckEvent {
        AckEvent {
            now: SimTime(Dur::from_secs_f64(now).0),
            acked: Bytes(acked),
            sacked: Bytes(0),
            rtt: Some(Dur::from_secs_f64(rtt)),
            srtt: Dur::from_secs_f64(rtt),
            min_rtt: Dur::from_secs_f64(rtt),
            in_flight: Bytes(0),
            delivered: Bytes(0),
            in_recovery: false,
            mss: Bytes(MSS),
        }
    }

    fn loss(kind: CongestionKind, flight_segs: f64) -> CongestionEvent {
        CongestionEvent {
            now: SimTime::ZERO,
            kind,
            flight_size: Bytes((flight_segs * MSS as f64) as u64),
            mss: Bytes(MSS),
        }
    }

    fn cubic(w: u64, p: CubicSpec) -> Cubic {
        Cubic::new(Bytes(MSS), Bytes(w * MSS), p)
    }

    /// Feed ACKs of one segment each, a window's worth per RTT evenly spread, from `t0` for
    /// `secs`; calls `check(t, cwnd)` once per RTT.
    fn drive(c: &mut Cubic, t0: f64, secs: f64, rtt: f64, mut check: impl FnMut(f64, f64)) {
        let mut t = t0;
        while t < t0 + secs {
            let n = c.cwnd_segments().floor().max(1.0) as usize;
            for i in 0..n {
                c.on_ack(&ack_at(t + rtt * i as f64 / n as f64, MSS, rtt));
            }
            t += rtt;
            check(t - t0, c.cwnd_segments());
        }
    }

    #[test]
    fn reduction_sets_w_max_ssthresh_and_k() {
        let mut c = cubic(100, CubicSpec::default());
        c.on_congestion(&loss(CongestionKind::FastRetransmit, 100.0));
        assert_eq!(c.w_max(), 100.0);
        assert!((c.cwnd_segments() - 70.0).abs() < 1e-9);
        assert_eq!(c.ssthresh(), Bytes(70 * MSS));
        c.on_ack(&ack_at(1.0, MSS, 0.1));
        // K = cbrt(100·0.3/0.4) = cbrt(75) ≈ 4.217 s.
        let k = c.k().unwrap();
        assert!((k - 75f64.cbrt()).abs() < 1e-9, "{k}");
    }

    #[test]
    fn window_follows_the_cubic_curve_after_a_loss() {
        // Reno-friendliness off so only the cubic law acts.
        let p = CubicSpec {
            reno_friendly: false,
            ..CubicSpec::default()
        };
        let mut c = cubic(100, p);
        c.on_congestion(&loss(CongestionKind::FastRetransmit, 100.0));
        let (rtt, k) = (0.1, 75f64.cbrt());
        let mut worst: f64 = 0.0;
        let mut at_k = 0.0;
        drive(&mut c, 0.0, 8.0, rtt, |t, w| {
            // Each RTT the window closes the gap to W(t + RTT): it lies between the
            // curve now and one RTT ahead (plus rounding of the ACK schedule).
            let lo = Cubic::w_cubic(0.4, k, 100.0, t - rtt);
            let hi = Cubic::w_cubic(0.4, k, 100.0, t + rtt);
            let err = if w < lo {
                lo - w
            } else if w > hi {
                w - hi
            } else {
                0.0
            };
            worst = worst.max(err / Cubic::w_cubic(0.4, k, 100.0, t));
            if (t - k).abs() < rtt / 2.0 {
                at_k = w;
            }
        });
        eprintln!("cubic unit: worst relative error {worst:.4}, cwnd at t≈K {at_k:.2}");
        assert!(worst < 0.01, "{worst}");
        assert!((at_k - 100.0).abs() < 1.0, "{at_k}");
        // Past K the curve is convex: at t = 8 s, W = 0.4·(8 − K)³ + 100 ≈ 121.7.
        let w8 = Cubic::w_cubic(0.4, k, 100.0, 8.0);
        assert!(
            (c.cwnd_segments() - w8).abs() / w8 < 0.02,
            "{}",
            c.cwnd_segments()
        );
    }

    #[test]
    fn reno_friendly_region_dominates_on_short_rtts() {
        // W_max = 20, RTT 10 ms: cubic growth over 1 s (100 RTTs) stays below W_max, while
        // W_est grows 3·0.3/1.7 ≈ 0.53 segment per RTT from 14 until it reaches
        // cwnd_prior = 20 (≈ 11 RTTs), then 1 per RTT (§4.3): ≈ 14 + 6 + 89 ≈ 109.
        let mut c = cubic(20, CubicSpec::default());
        c.on_congestion(&loss(CongestionKind::FastRetransmit, 20.0));
        drive(&mut c, 0.0, 1.0, 0.01, |_, _| {});
        let w = c.cwnd_segments();
        eprintln!("cubic unit: Reno-friendly cwnd after 1 s at 10 ms RTT: {w:.1}");
        assert!(w > 100.0 && w < 112.0, "{w}");
        let mut off = cubic(
            20,
            CubicSpec {
                reno_friendly: false,
                ..CubicSpec::default()
            },
        );
        off.on_congestion(&loss(CongestionKind::FastRetransmit, 20.0));
        drive(&mut off, 0.0, 1.0, 0.01, |_, _| {});
        assert!(off.cwnd_segments() < 21.0, "{}", off.cwnd_segments());
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = cubic(100, CubicSpec::default());
        c.on_congestion(&loss(CongestionKind::FastRetransmit, 100.0));
        // Second loss at 70 < W_max = 100: W_max = 70·1.7/2 = 59.5.
        c.on_congestion(&loss(CongestionKind::FastRetransmit, 70.0));
        assert!((c.w_max() - 59.5).abs() < 1e-9, "{}", c.w_max());
        let mut n = cubic(
            100,
            CubicSpec {
                fast_convergence: false,
                ..CubicSpec::default()
            },
        );
        n.on_congestion(&loss(CongestionKind::FastRetransmit, 100.0));
        n.on_congestion(&loss(CongestionKind::FastRetransmit, 70.0));
        assert_eq!(n.w_max(), 70.0);
    }

    #[test]
    fn timeout_goes_to_one_segment_and_slow_starts() {
        let mut c = cubic(40, CubicSpec::default());
        c.on_congestion(&loss(CongestionKind::Timeout, 40.0));
        assert_eq!(c.cwnd(), Bytes(MSS));
        assert_eq!(c.ssthresh(), Bytes(28 * MSS));
        c.on_ack(&ack_at(0.1, 2 * MSS, 0.1));
        assert_eq!(c.cwnd(), Bytes(2 * MSS));
    }

    #[test]
    fn no_growth_in_recovery_or_on_dupacks() {
        let mut c = cubic(10, CubicSpec::default());
        c.on_ack(&ack_at(0.0, 0, 0.1));
        c.on_ack(&AckEvent {
            in_recovery: true,
            ..ack_at(0.0, MSS, 0.1)
        });
        assert_eq!(c.cwnd(), Bytes(10 * MSS));
    }
}
