//! The Linux kernel's congestion window, as its Reno and CUBIC grow it: a whole number of
//! segments with a counter of acknowledged segments (`snd_cwnd`, `snd_cwnd_cnt`).
//!
//! - Slow start (`tcp_slow_start`, net/ipv4/tcp_cong.c:456–466): every segment an ACK
//!   delivers is added, up to ssthresh; what is left over goes to congestion avoidance. No
//!   per-ACK cap: with an ACK every second segment the window doubles per RTT (RFC 5681's
//!   min(N, SMSS) gives ×1.5).
//! - Additive increase (`tcp_cong_avoid_ai`, tcp_cong.c:470–486): the counter collects
//!   acknowledged segments; each time it reaches w, cwnd grows by one segment and w is taken
//!   off (credits gathered at a larger w are applied first, as one segment).
//! - Slow start while cwnd < ssthresh (`tcp_in_slow_start`, include/net/tcp.h:1528–1531).
//! - What an ACK counts: the segments it newly delivers, cumulatively or by SACK
//!   (`tcp_ack` passes `delivered` to `tcp_cong_control`, which calls `cong_avoid` only for
//!   an ACK that advances snd.una, `tcp_may_raise_cwnd`; tcp_input.c). The sender's
//!   running `delivered` total gives it without counting a SACKed segment twice.
//!
//! Not modelled: `tcp_is_cwnd_limited` (growth only while the window is used; a bulk
//! sender always uses it) and `snd_cwnd_clamp` (unlimited by default).

use super::AckEvent;

/// The kernel's integer window (segments) and its counters.
#[derive(Clone, Debug)]
pub struct KernelWindow {
    /// `snd_cwnd`, segments.
    pub cwnd: u64,
    /// `snd_cwnd_cnt`: segments acknowledged towards the next increase.
    pub cnt: u64,
    /// `snd_ssthresh`, segments (`u64::MAX`: `TCP_INFINITE_SSTHRESH`).
    pub ssthresh: u64,
    /// The sender's delivered total (bytes) at the previous ACK; `None` before the first.
    last_delivered: Option<u64>,
}

impl KernelWindow {
    /// A window of `cwnd` segments with an unlimited ssthresh.
    pub fn new(cwnd: u64) -> KernelWindow {
        KernelWindow {
            cwnd: cwnd.max(1),
            cnt: 0,
            ssthresh: u64::MAX,
            last_delivered: None,
        }
    }

    /// Segments this ACK newly delivered (acknowledged or SACKed for the first time), from
    /// the sender's running total; call it on every ACK. The first ACK a controller sees
    /// counts what it acknowledged and SACKed (the total may include earlier connections').
    pub fn newly_delivered(&mut self, ev: &AckEvent) -> u64 {
        let now = ev.delivered.0;
        let before = self
            .last_delivered
            .unwrap_or_else(|| now.saturating_sub(ev.acked.0 + ev.sacked.0));
        self.last_delivered = Some(now);
        let mss = ev.mss.0.max(1);
        (now.saturating_sub(before) + mss - 1) / mss
    }

    /// Whether the window is below ssthresh.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// `tcp_slow_start`: add `acked` segments up to ssthresh; returns those left over.
    pub fn slow_start(&mut self, acked: u64) -> u64 {
        let grown = self.cwnd.saturating_add(acked).min(self.ssthresh);
        let used = grown - self.cwnd;
        self.cwnd = grown;
        acked - used
    }

    /// `tcp_cong_avoid_ai`: one segment per `w` segments acknowledged.
    pub fn cong_avoid_ai(&mut self, w: u64, acked: u64) {
        let w = w.max(1);
        if self.cnt >= w {
            self.cnt = 0;
            self.cwnd += 1;
        }
        self.cnt += acked;
        if self.cnt >= w {
            let delta = self.cnt / w;
            self.cnt -= delta * w;
            self.cwnd += delta;
        }
    }

    /// A window reduction: the new ssthresh and window, the counter cleared.
    pub fn reduce(&mut self, ssthresh: u64, cwnd: u64) {
        self.ssthresh = ssthresh;
        self.cwnd = cwnd.max(1);
        self.cnt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Bytes, Dur};

    fn ack(acked_segs: u64, delivered_segs: u64) -> AckEvent {
        AckEvent {
            delivered: Bytes(delivered_segs * 1000),
            ..AckEvent::for_test(acked_segs * 1000, Dur::from_millis(40), 1000)
        }
    }

    /// tcp_slow_start: min(cwnd + acked, ssthresh), the rest returned.
    #[test]
    fn slow_start_adds_every_acknowledged_segment_up_to_ssthresh() {
        let mut w = KernelWindow::new(10);
        assert_eq!(w.slow_start(2), 0);
        assert_eq!(w.cwnd, 12);
        w.ssthresh = 13;
        assert_eq!(w.slow_start(2), 1);
        assert_eq!(w.cwnd, 13);
        assert!(!w.in_slow_start());
    }

    /// With an ACK every second segment, a round of cwnd segments doubles the window.
    #[test]
    fn delayed_acks_double_the_window_per_round() {
        let mut w = KernelWindow::new(10);
        for _ in 0..5 {
            w.slow_start(2);
        }
        assert_eq!(w.cwnd, 20);
    }

    /// tcp_cong_avoid_ai: +1 per w acknowledged; credits kept; credits at a larger w count
    /// as one segment.
    #[test]
    fn additive_increase_counts_acknowledged_segments() {
        let mut w = KernelWindow::new(10);
        w.ssthresh = 10;
        for _ in 0..4 {
            w.cong_avoid_ai(10, 2);
        }
        assert_eq!((w.cwnd, w.cnt), (10, 8));
        w.cong_avoid_ai(10, 3);
        assert_eq!((w.cwnd, w.cnt), (11, 1));
        w.cnt = 30;
        w.cong_avoid_ai(11, 2);
        assert_eq!((w.cwnd, w.cnt), (12, 2));
    }

    /// Delivered segments come from the running total: a SACKed segment counts once.
    #[test]
    fn an_ack_counts_what_it_newly_delivers() {
        let mut w = KernelWindow::new(10);
        assert_eq!(w.newly_delivered(&ack(2, 2)), 2);
        // A duplicate ACK SACKing one segment, then the ACK that covers it and one more.
        assert_eq!(w.newly_delivered(&ack(0, 3)), 1);
        assert_eq!(w.newly_delivered(&ack(2, 4)), 1);
    }
}
