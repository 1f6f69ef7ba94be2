//! CUBIC in the Linux kernel's integer form (`cc = { kind = "cubic", arithmetic = "linux" }`):
//! net/ipv4/tcp_cubic.c, the lines of docs/sources/linux.md §1.7. Written here from the
//! rules; no kernel code is copied.
//!
//! - The window is whole segments grown through a counter (`linux_window.rs`): slow start
//!   adds every delivered segment (`tcp_slow_start`), congestion avoidance one segment per
//!   `cnt` acknowledged (`tcp_cong_avoid_ai`).
//! - `bictcp_update` (:211–319) sets `cnt`. Time counts in jiffies (HZ = 1000 here) and
//!   the curve in 1/1024 s: t = now − epoch_start + delay_min (rounded up to a jiffy);
//!   target = origin ± (410·|t − K|³ >> 40), i.e. C = 410/1024 ≈ 0.4 segments/s³;
//!   cnt = cwnd/(target − cwnd) if target > cwnd, else 100·cwnd; at most 20 before the
//!   first loss. K = ∛(2^40/410 · (W_max − cwnd)) in 1/1024 s (the kernel's table-and-
//!   Newton cube root is within 0.2 % of the exact integer root used here). `cnt` is
//!   recomputed at most once per jiffy, and not at all while cwnd is unchanged for up to
//!   HZ/32.
//! - TCP friendliness (:296–313): `tcp_cwnd` grows by one segment per (15·cwnd)/8
//!   acknowledged (beta_scale = 8·(1024 + 717)/3/(1024 − 717) = 15 in integers); when it is
//!   above cwnd, cnt ≤ cwnd/(tcp_cwnd − cwnd). Finally cnt ≥ 2.
//! - Loss (`cubictcp_recalc_ssthresh`, :338–353): the epoch ends; W_max = cwnd·1741/2048
//!   if cwnd < W_max (a strict test on integers: a peak equal to the last one does not
//!   lower W_max), else cwnd; ssthresh = max(cwnd·717/1024, 2), cwnd from the sender's
//!   loss basis (`ssthresh_from`; the `linux` profile's is cwnd, as the kernel's).
//! - Timeout (`cubictcp_state` → Loss, :355–361): after ssthresh is set, everything
//!   (W_max, delay_min, HyStart) is reset; cwnd = 1.
//! - `delay_min` and HyStart: `hystart.rs`.

use super::hystart::{HyAck, HyStart};
use super::linux_window::KernelWindow;
use super::{AckEvent, CongestionKind};
use crate::units::{Dur, SimTime};

/// `BICTCP_BETA_SCALE` and the kernel's β (717/1024).
const BETA_SCALE: u64 = 1024;
const BETA: u64 = 717;
/// `cube_rtt_scale` = bic_scale·10 with bic_scale 41.
const CUBE_RTT_SCALE: u128 = 410;
/// `beta_scale` of the friendliness estimate, in integers (15).
const FRIENDLY_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
/// Jiffies per second.
const HZ: u64 = 1000;

/// The kernel's CUBIC state.
#[derive(Clone, Debug)]
pub struct CubicKernel {
    pub(crate) w: KernelWindow,
    fast_convergence: bool,
    friendliness: bool,
    /// `cnt`: segments acknowledged per one-segment increase.
    cnt: u64,
    last_max_cwnd: u64,
    last_cwnd: u64,
    last_time: u64,
    /// Jiffy at which the epoch started (`epoch_start`, 0 = none in the kernel).
    epoch_start: Option<u64>,
    /// The same instant, for HyStart's "first second after a reduction".
    epoch_time: Option<SimTime>,
    /// K in 1/1024 s.
    k: u64,
    origin: u64,
    ack_cnt: u64,
    tcp_cwnd: u64,
    pub(crate) hystart: HyStart,
    /// snd.nxt as last seen (delivered + in flight, bytes), for HyStart after a timeout.
    sent: u64,
}

/// ⌊∛a⌋ for a 64-bit integer.
fn icbrt(a: u64) -> u64 {
    let mut x = (a as f64).cbrt() as u64;
    while x > 0 && (x as u128).pow(3) > a as u128 {
        x -= 1;
    }
    while ((x + 1) as u128).pow(3) <= a as u128 {
        x += 1;
    }
    x
}

fn jiffies(t: SimTime) -> u64 {
    t.0 / (1_000_000_000 / HZ)
}

impl CubicKernel {
    /// `cwnd` segments, unlimited ssthresh.
    pub fn new(cwnd: u64, fast_convergence: bool, friendliness: bool, hystart: bool) -> Self {
        CubicKernel {
            w: KernelWindow::new(cwnd),
            fast_convergence,
            friendliness,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            epoch_start: None,
            epoch_time: None,
            k: 0,
            origin: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart: HyStart::new(hystart),
            sent: 0,
        }
    }

    /// W_max (`last_max_cwnd`), segments.
    pub fn w_max(&self) -> u64 {
        self.last_max_cwnd
    }

    /// K of the current epoch in seconds.
    pub fn k_secs(&self) -> Option<f64> {
        self.epoch_start.map(|_| self.k as f64 / 1024.0)
    }

    /// `bictcp_update`: recompute `cnt` for window `cwnd` after `acked` segments.
    fn update(&mut self, now: SimTime, acked: u64) {
        let cwnd = self.w.cwnd;
        let j = jiffies(now);
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && j.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        if !(self.epoch_start.is_some() && j == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = j;
            let epoch = match self.epoch_start {
                Some(e) => e,
                None => {
                    self.epoch_start = Some(j);
                    self.epoch_time = Some(now);
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max_cwnd <= cwnd {
                        self.k = 0;
                        self.origin = cwnd;
                    } else {
                        let factor = (1u64 << 40) / CUBE_RTT_SCALE as u64;
                        self.k = icbrt(factor.saturating_mul(self.last_max_cwnd - cwnd));
                        self.origin = self.last_max_cwnd;
                    }
                    j
                }
            };
            let delay_min = self.hystart.delay_min().unwrap_or(Dur(0));
            let delay_jiffies = delay_min.0.div_ceil(1_000_000_000 / HZ);
            let t = ((j - epoch + delay_jiffies) << 10) / HZ;
            let offs = t.abs_diff(self.k) as u128;
            let delta = ((CUBE_RTT_SCALE * offs * offs * offs) >> 40).min(u64::MAX as u128) as u64;
            let target = if t < self.k {
                self.origin.saturating_sub(delta)
            } else {
                self.origin.saturating_add(delta)
            };
            self.cnt = if target > cwnd {
                cwnd / (target - cwnd)
            } else {
                100 * cwnd
            };
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        if self.friendliness {
            let delta = (cwnd * FRIENDLY_SCALE) >> 3;
            if delta > 0 {
                while self.ack_cnt > delta {
                    self.ack_cnt -= delta;
                    self.tcp_cwnd += 1;
                }
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt = self.cnt.max(2);
    }

    /// An ACK (`cubictcp_acked`, then `cubictcp_cong_avoid` outside recovery).
    pub fn on_ack(&mut self, ev: &AckEvent) {
        let delivered = self.w.newly_delivered(ev);
        self.sent = ev.delivered.0 + ev.in_flight.0;
        if let Some(rtt) = ev.rtt {
            let a = HyAck {
                now: ev.now,
                rtt,
                cwnd: self.w.cwnd,
                in_slow_start: self.w.in_slow_start(),
                epoch_start: self.epoch_time,
                delivered: ev.delivered.0,
                in_flight: ev.in_flight.0,
            };
            if self.hystart.on_ack(&a) {
                self.w.ssthresh = self.w.cwnd;
            }
        }
        if ev.acked.0 == 0 || ev.in_recovery || delivered == 0 {
            return;
        }
        let mut acked = delivered;
        if self.w.in_slow_start() {
            acked = self.w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        self.update(ev.now, acked);
        self.w.cong_avoid_ai(self.cnt, acked);
    }

    /// A loss or a timeout; `basis` is the sender's loss basis in segments.
    pub fn on_congestion(&mut self, now: SimTime, kind: CongestionKind, basis: u64) {
        let cwnd = self.w.cwnd;
        self.epoch_start = None;
        self.epoch_time = None;
        self.last_max_cwnd = if self.fast_convergence && cwnd < self.last_max_cwnd {
            cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        let ssthresh = (basis * BETA / BETA_SCALE).max(2);
        match kind {
            CongestionKind::FastRetransmit => self.w.reduce(ssthresh, ssthresh),
            CongestionKind::Timeout => {
                self.w.reduce(ssthresh, 1);
                // bictcp_reset: the whole state, W_max and delay_min included.
                let keep = (self.w.clone(), self.fast_convergence, self.friendliness);
                let (hystart_on, sent) = (self.hystart.enabled(), self.sent);
                *self = CubicKernel::new(1, keep.1, keep.2, hystart_on);
                self.w = keep.0;
                self.sent = sent;
                self.hystart.on_timeout(now, sent);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;

    const MSS: u64 = 1000;

    fn ack_at(ms: u64, segs: u64, delivered: &mut u64) -> AckEvent {
        *delivered += segs;
        AckEvent {
            now: SimTime(ms * 1_000_000),
            delivered: Bytes(*delivered * MSS),
            ..AckEvent::for_test(segs * MSS, Dur::from_millis(40), MSS)
        }
    }

    #[test]
    fn integer_cube_root_is_exact() {
        for a in [0u64, 1, 7, 8, 26, 27, 1_000_000, 999_999, u32::MAX as u64] {
            let x = icbrt(a);
            assert!(x * x * x <= a && (x + 1) * (x + 1) * (x + 1) > a, "{a}");
        }
    }

    /// `cubictcp_recalc_ssthresh`: ssthresh = cwnd·717/1024; W_max lowered only when cwnd
    /// is strictly below the previous W_max.
    #[test]
    fn loss_uses_integer_beta_and_the_strict_fast_convergence_test() {
        let mut c = CubicKernel::new(100, true, true, false);
        c.on_congestion(SimTime::ZERO, CongestionKind::FastRetransmit, 100);
        assert_eq!((c.w.ssthresh, c.w.cwnd, c.w_max()), (70, 70, 100));
        // The window regains exactly 100: no fast convergence (100 is not < 100).
        c.w.cwnd = 100;
        c.on_congestion(SimTime::ZERO, CongestionKind::FastRetransmit, 100);
        assert_eq!(c.w_max(), 100);
        // A loss at 99 < 100: W_max = 99·1741/2048 = 84.
        c.w.cwnd = 99;
        c.on_congestion(SimTime::ZERO, CongestionKind::FastRetransmit, 99);
        assert_eq!(c.w_max(), 84);
        assert_eq!(c.w.ssthresh, 69);
    }

    /// K = ∛(2^40/410·(W_max − cwnd)) in 1/1024 s: W_max 100, cwnd 70 → K ≈ 4.22 s
    /// (∛(30/0.4) = 4.217 for C = 0.4).
    #[test]
    fn k_is_the_cube_root_of_the_shortfall_over_c() {
        let mut c = CubicKernel::new(100, true, true, false);
        c.on_congestion(SimTime::ZERO, CongestionKind::FastRetransmit, 100);
        let mut d = 0;
        c.on_ack(&ack_at(10, 1, &mut d));
        let k = c.k_secs().unwrap();
        assert!((k - 75f64.cbrt()).abs() < 0.01, "{k}");
    }

    /// Before the first loss cnt is at most 20 (+5 % per RTT) and at least 2.
    #[test]
    fn growth_before_the_first_loss_is_capped_at_one_per_20() {
        let mut c = CubicKernel::new(40, true, false, false);
        c.w.ssthresh = 40;
        let mut d = 0;
        for i in 0..40 {
            c.on_ack(&ack_at(100 + i, 1, &mut d));
        }
        assert_eq!(c.w.cwnd, 42);
    }

    /// The window follows the curve: from 70 after a loss at 100, at t ≈ K it is back at
    /// about 100 (friendliness off: at 40 ms the Reno estimate would lead, reaching ~126).
    #[test]
    fn window_returns_to_w_max_at_k() {
        let mut c = CubicKernel::new(100, true, false, false);
        c.on_congestion(SimTime::ZERO, CongestionKind::FastRetransmit, 100);
        let mut d = 0;
        let rtt_ms = 40;
        let mut t = 1000;
        let k_ms = (75f64.cbrt() * 1000.0) as u64;
        let mut at_k = 0;
        while t < 1000 + k_ms + 400 {
            let n = c.w.cwnd;
            for i in 0..n {
                c.on_ack(&ack_at(t + rtt_ms * i / n, 1, &mut d));
            }
            t += rtt_ms;
            if t <= 1000 + k_ms {
                at_k = c.w.cwnd;
            }
        }
        assert!((97..=101).contains(&at_k), "{at_k}");
    }

    /// A timeout: ssthresh from the window, then everything reset (W_max 0), cwnd 1.
    #[test]
    fn timeout_resets_the_state() {
        let mut c = CubicKernel::new(50, true, true, true);
        c.on_congestion(SimTime::ZERO, CongestionKind::Timeout, 50);
        assert_eq!((c.w.ssthresh, c.w.cwnd, c.w_max()), (35, 1, 0));
        assert!(c.hystart.enabled());
    }
}
