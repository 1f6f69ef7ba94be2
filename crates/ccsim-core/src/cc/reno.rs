//! Reno congestion avoidance (RFC 5681 §3.1): slow start below ssthresh, then about one
//! segment per RTT; on loss ssthresh = max(FlightSize/2, 2·SMSS).
//!
//! Slow start: cwnd += min(N, SMSS) per ACK of N new bytes (RFC 5681 §3.1 eq. 2).
//! Congestion avoidance counts bytes by default, the way RFC 5681 §3.1 recommends: about
//! one SMSS per cwnd of bytes acknowledged (cwnd += SMSS·N/cwnd), so delayed ACKs do not
//! slow growth. `Counting::PerAck` is the older per-ACK rule (cwnd += SMSS·SMSS/cwnd once
//! per ACK, eq. 3) used by ns-2, which with delayed ACKs gives +½ SMSS per RTT
//! (ALGORITHMS.md §1.10); the ns-2-era reproductions select it.
//!
//! `arithmetic = "linux"` is the kernel's Reno instead (`tcp_reno_cong_avoid`,
//! net/ipv4/tcp_cong.c:496–511; the `linux` stack profile): a whole-segment window that slow
//! start grows by every delivered segment and congestion avoidance by one segment per
//! window of acknowledged segments (`linux_window.rs`), and ssthresh = max(⌊amount/2⌋, 2)
//! segments (`tcp_reno_ssthresh`, :515–520; the amount is cwnd with `ssthresh_from = "cwnd"`).

use super::linux_window::KernelWindow;
use super::{AckEvent, AnyCc, CcKind, CongestionControl, CongestionEvent, CongestionKind};
use crate::params::{Kind, Param};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// How window growth in congestion avoidance counts acknowledgements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counting {
    /// By bytes acknowledged: about one SMSS per cwnd of bytes acked (RFC 5681 §3.1,
    /// recommended), so delayed ACKs do not slow growth.
    #[default]
    Bytes,
    /// Once per ACK of new data, SMSS·SMSS/cwnd (RFC 5681 §3.1 eq. 3, ns-2 `Agent/TCP`):
    /// with delayed ACKs, about ½ SMSS per RTT.
    PerAck,
}

/// The `counting` parameter of the controllers that grow like Reno (Reno, and the coupled
/// controllers' increase).
pub const COUNTING: Param = Param::choice("counting", "bytes", &["bytes", "per_ack"])
    .doc("how congestion avoidance counts ACKs: by bytes acknowledged, or once per ACK (½ segment per RTT with delayed ACKs)")
    .source("RFC 5681 §3.1 recommends byte counting; ns-2's Agent/TCP counts once per ACK (tcp.cc opencwnd), chosen by the ns-2-era reproductions");

/// Which Reno computes the window (`arithmetic`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arithmetic {
    /// RFC 5681 in real numbers (fractional window, `counting` applies).
    #[default]
    Rfc5681,
    /// The Linux kernel's `tcp_reno_cong_avoid` (`linux_window.rs`).
    Linux,
}

/// Reno's parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RenoConfig {
    /// See [`COUNTING`].
    pub counting: Counting,
    /// RFC 5681's window or the kernel's (see the module's documentation).
    #[serde(default)]
    pub arithmetic: Arithmetic,
}

/// Reno's parameter table.
pub const PARAMS: &[Param] = &[
    COUNTING,
    Param::choice("arithmetic", "rfc5681", &["rfc5681", "linux"])
        .doc("rfc5681 (real numbers, min(N, SMSS) per ACK in slow start), or linux: the kernel's tcp_reno_cong_avoid — whole segments, slow start adding every delivered segment, +1 per window of acknowledged segments, ssthresh max(⌊amount/2⌋, 2) (counting unused); docs/tcp.md §3")
        .source("RFC 5681 §3.1; linux: net/ipv4/tcp_cong.c tcp_slow_start :456–466, tcp_cong_avoid_ai :470–486, tcp_reno_cong_avoid :496–511, tcp_reno_ssthresh :515–520 (the linux profile)"),
];

/// `cc = "reno"`.
pub const KIND: CcKind = CcKind {
    kind: Kind::new("reno", "AIMD, RFC 5681 (docs/tcp.md §3)", &[PARAMS]),
    build: |p, ctx| {
        let c: RenoConfig = super::config(p)?;
        let mut r = Reno::new(ctx.mss, ctx.init_cwnd, c.counting);
        if c.arithmetic == Arithmetic::Linux {
            r.kernel = Some(Box::new(KernelWindow::new(
                ctx.init_cwnd.0 / ctx.mss.0.max(1),
            )));
        }
        Ok(AnyCc::Reno(r))
    },
};

/// RFC 5681 §3.1 window growth for one ACK of `acked` new bytes: slow start below
/// ssthresh (eq. 2, cwnd += min(N, SMSS)), congestion avoidance above (eq. 3, by bytes or
/// once per ACK). Shared by the Reno-growth controllers (Reno, Westwood+).
pub(crate) fn reno_increase(
    cwnd: f64,
    ssthresh: f64,
    acked: f64,
    mss: f64,
    counting: Counting,
) -> f64 {
    if cwnd < ssthresh {
        cwnd + acked.min(mss)
    } else {
        let counted = match counting {
            Counting::Bytes => acked,
            Counting::PerAck => mss,
        };
        cwnd + mss * counted / cwnd
    }
}

/// RFC 5681's response to a loss: ssthresh = max(FlightSize/2, 2·SMSS) (§3.1 eq. 4), then
/// cwnd = ssthresh on a fast retransmit (§3.2; the transport adds the 3·SMSS inflation) or
/// one SMSS after a timeout (§3.1). Returns (ssthresh, cwnd).
pub(crate) fn reno_loss(kind: CongestionKind, flight: Bytes, mss: f64) -> (f64, f64) {
    let ssthresh = (flight.0 as f64 / 2.0).max(2.0 * mss);
    let cwnd = match kind {
        CongestionKind::FastRetransmit => ssthresh,
        CongestionKind::Timeout => mss,
    };
    (ssthresh, cwnd)
}

/// Reno state. The window is kept in fractional bytes so congestion-avoidance increments
/// smaller than a byte are not lost.
#[derive(Clone, Debug)]
pub struct Reno {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    counting: Counting,
    /// The kernel's window (`arithmetic = "linux"`), which then replaces the fields above.
    kernel: Option<Box<KernelWindow>>,
}

impl Reno {
    /// Start with `init_cwnd` bytes and an unbounded ssthresh (RFC 5681 §3.1).
    pub fn new(mss: Bytes, init_cwnd: Bytes, counting: Counting) -> Reno {
        Reno {
            mss: mss.0 as f64,
            cwnd: init_cwnd.0 as f64,
            ssthresh: f64::MAX,
            counting,
            kernel: None,
        }
    }

    /// The kernel's Reno (`arithmetic = "linux"`).
    pub fn linux(mss: Bytes, init_cwnd: Bytes) -> Reno {
        Reno {
            kernel: Some(Box::new(KernelWindow::new(init_cwnd.0 / mss.0.max(1)))),
            ..Reno::new(mss, init_cwnd, Counting::Bytes)
        }
    }

    /// `tcp_reno_cong_avoid` for one ACK. Kept out of line so that the default `on_ack`
    /// stays small enough to be inlined into the sender's, as before the kernel's window.
    #[inline(never)]
    fn linux_on_ack(w: &mut KernelWindow, ev: &AckEvent) {
        let delivered = w.newly_delivered(ev);
        if ev.acked.0 == 0 || ev.in_recovery || delivered == 0 {
            return;
        }
        let mut acked = delivered;
        if w.in_slow_start() {
            acked = w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        let cwnd = w.cwnd;
        w.cong_avoid_ai(cwnd, acked);
    }

    /// `tcp_reno_ssthresh` and the window after the event, in segments.
    #[inline(never)]
    fn linux_on_congestion(w: &mut KernelWindow, ev: &CongestionEvent) {
        let amount = ev.flight_size.0 / ev.mss.0.max(1);
        let ssthresh = (amount / 2).max(2);
        let cwnd = match ev.kind {
            CongestionKind::FastRetransmit => ssthresh,
            CongestionKind::Timeout => 1,
        };
        w.reduce(ssthresh, cwnd);
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn cwnd(&self) -> Bytes {
        if let Some(w) = &self.kernel {
            return Bytes(w.cwnd * self.mss as u64);
        }
        Bytes(self.cwnd as u64)
    }
    fn ssthresh(&self) -> Bytes {
        if let Some(w) = &self.kernel {
            return Bytes(w.ssthresh.saturating_mul(self.mss as u64));
        }
        Bytes(self.ssthresh.min(u64::MAX as f64) as u64)
    }
    fn set_initial_ssthresh(&mut self, ssthresh: Bytes) {
        self.ssthresh = ssthresh.0 as f64;
        if let Some(w) = &mut self.kernel {
            w.ssthresh = (ssthresh.0 / self.mss as u64).max(1);
        }
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        if let Some(w) = &mut self.kernel {
            return Reno::linux_on_ack(w, ev);
        }
        if ev.acked.0 == 0 || ev.in_recovery {
            return;
        }
        self.cwnd = reno_increase(
            self.cwnd,
            self.ssthresh,
            ev.acked.0 as f64,
            self.mss,
            self.counting,
        );
    }
    fn on_congestion(&mut self, ev: &CongestionEvent) {
        if let Some(w) = &mut self.kernel {
            return Reno::linux_on_congestion(w, ev);
        }
        (self.ssthresh, self.cwnd) = reno_loss(ev.kind, ev.flight_size, self.mss);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Dur, SimTime};

    const MSS: u64 = 1000;

    fn ack(acked: u64) -> AckEvent {
        AckEvent::for_test(acked, Dur::from_millis(100), MSS)
    }

    fn loss(kind: CongestionKind, flight: u64) -> CongestionEvent {
        CongestionEvent {
            now: SimTime::ZERO,
            kind,
            flight_size: Bytes(flight),
            mss: Bytes(MSS),
        }
    }

    #[test]
    fn slow_start_grows_by_at_most_one_mss_per_ack() {
        let mut r = Reno::new(Bytes(MSS), Bytes(2 * MSS), Counting::Bytes);
        r.on_ack(&ack(2 * MSS));
        assert_eq!(r.cwnd(), Bytes(3 * MSS));
        r.on_ack(&ack(500));
        assert_eq!(r.cwnd(), Bytes(3 * MSS + 500));
    }

    #[test]
    fn byte_counting_is_not_slowed_by_delayed_acks() {
        let mut r = Reno::new(Bytes(MSS), Bytes(10 * MSS), Counting::Bytes);
        r.on_congestion(&loss(CongestionKind::FastRetransmit, 20 * MSS));
        for _ in 0..5 {
            r.on_ack(&ack(2 * MSS));
        }
        let w = r.cwnd().0 as f64 / MSS as f64;
        assert!(w > 10.95 && w < 11.0, "{w}");
    }

    #[test]
    fn per_ack_counting_grows_half_as_fast_with_delayed_acks() {
        let mut r = Reno::new(Bytes(MSS), Bytes(10 * MSS), Counting::PerAck);
        r.on_congestion(&loss(CongestionKind::FastRetransmit, 20 * MSS));
        for _ in 0..5 {
            r.on_ack(&ack(2 * MSS));
        }
        let w = r.cwnd().0 as f64 / MSS as f64;
        assert!(w > 10.45 && w < 10.5, "{w}");
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window_of_acks() {
        let mut r = Reno::new(Bytes(MSS), Bytes(10 * MSS), Counting::PerAck);
        r.on_congestion(&loss(CongestionKind::FastRetransmit, 20 * MSS));
        assert_eq!(r.cwnd(), Bytes(10 * MSS));
        for _ in 0..10 {
            r.on_ack(&ack(MSS));
        }
        let w = r.cwnd().0 as f64 / MSS as f64;
        assert!(w > 10.95 && w < 11.0, "{w}");
    }

    #[test]
    fn loss_halves_flight_with_a_floor_of_two_segments() {
        let mut r = Reno::new(Bytes(MSS), Bytes(10 * MSS), Counting::Bytes);
        r.on_congestion(&loss(CongestionKind::FastRetransmit, 3 * MSS));
        assert_eq!(r.ssthresh(), Bytes(2 * MSS));
        assert_eq!(r.cwnd(), Bytes(2 * MSS));
    }

    #[test]
    fn timeout_sets_the_loss_window() {
        let mut r = Reno::new(Bytes(MSS), Bytes(10 * MSS), Counting::Bytes);
        r.on_congestion(&loss(CongestionKind::Timeout, 16 * MSS));
        assert_eq!(r.ssthresh(), Bytes(8 * MSS));
        assert_eq!(r.cwnd(), Bytes(MSS));
    }

    fn ack_delivering(acked: u64, delivered: &mut u64) -> AckEvent {
        *delivered += acked;
        AckEvent {
            delivered: Bytes(*delivered),
            ..ack(acked)
        }
    }

    /// tcp_reno_cong_avoid: an ACK of two segments adds two in slow start (a window of 10
    /// acknowledged by five delayed ACKs becomes 20), then one per window in congestion
    /// avoidance; ssthresh = max(⌊cwnd/2⌋, 2).
    #[test]
    fn linux_reno_doubles_per_round_then_adds_one_per_window() {
        let mut r = Reno::linux(Bytes(MSS), Bytes(10 * MSS));
        let mut d = 0;
        for _ in 0..5 {
            r.on_ack(&ack_delivering(2 * MSS, &mut d));
        }
        assert_eq!(r.cwnd(), Bytes(20 * MSS));
        r.on_congestion(&loss(CongestionKind::FastRetransmit, 21 * MSS));
        assert_eq!((r.ssthresh(), r.cwnd()), (Bytes(10 * MSS), Bytes(10 * MSS)));
        for _ in 0..4 {
            r.on_ack(&ack_delivering(2 * MSS, &mut d));
        }
        assert_eq!(
            r.cwnd(),
            Bytes(10 * MSS),
            "8 of 10 acknowledged: no increase yet"
        );
        r.on_ack(&ack_delivering(2 * MSS, &mut d));
        assert_eq!(r.cwnd(), Bytes(11 * MSS));
        r.on_congestion(&loss(CongestionKind::Timeout, 3 * MSS));
        assert_eq!((r.ssthresh(), r.cwnd()), (Bytes(2 * MSS), Bytes(MSS)));
    }

    /// Slow start stops at ssthresh and the rest of the ACK goes to congestion avoidance.
    #[test]
    fn linux_slow_start_hands_the_rest_to_congestion_avoidance() {
        let mut r = Reno::linux(Bytes(MSS), Bytes(9 * MSS));
        r.set_initial_ssthresh(Bytes(10 * MSS));
        let mut d = 0;
        r.on_ack(&ack_delivering(2 * MSS, &mut d));
        assert_eq!((r.cwnd(), r.ssthresh()), (Bytes(10 * MSS), Bytes(10 * MSS)));
        for _ in 0..4 {
            r.on_ack(&ack_delivering(2 * MSS, &mut d));
        }
        assert_eq!(r.cwnd(), Bytes(10 * MSS));
        r.on_ack(&ack_delivering(MSS, &mut d));
        assert_eq!(
            r.cwnd(),
            Bytes(11 * MSS),
            "1 + 8 + 1 = 10 acknowledged in CA"
        );
    }

    #[test]
    fn no_growth_during_recovery_or_on_duplicate_acks() {
        let mut r = Reno::new(Bytes(MSS), Bytes(4 * MSS), Counting::Bytes);
        r.on_ack(&ack(0));
        r.on_ack(&AckEvent {
            in_recovery: true,
            ..ack(MSS)
        });
        assert_eq!(r.cwnd(), Bytes(4 * MSS));
    }
}
