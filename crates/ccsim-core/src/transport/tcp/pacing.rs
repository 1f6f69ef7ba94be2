//! How a sender paces its controller's rate (`pacing`), for controllers that have one (BBR).
//!
//! `segment` (the default): every segment leaves when the previous one's payload time at
//! the rate has passed, a smooth stream.
//!
//! `linux`: the kernel's internal pacing (`tcp_pacing_check` and `tcp_update_skb_after_send`,
//! net/ipv4/tcp_output.c:2579–2596, 1251–1273 of Linux 6.12). A transmission is a GSO packet
//! of up to `tcp_tso_autosize` segments (`push::autosize`; two at 10 Mb/s) sent at once; the
//! next departure moves on by the whole packet's time at the rate. A packet that leaves late
//! (its departure time already past, as when the window held it) is credited the lateness,
//! up to half its own time (`len_ns -= min(len_ns / 2, credit)`, "take into account OS
//! jitter"). The first 10 data segments of a connection are not paced ("Original sch_fq
//! does not pace first 10 MSS": `tp->data_segs_out >= 10`).

use crate::units::{Dur, SimTime};
use serde::{Deserialize, Serialize};

/// `pacing`: how the sender spaces a pacing controller's segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pacing {
    /// One segment at a time, each its payload's time at the rate after the previous.
    #[default]
    Segment,
    /// Linux's internal pacing: GSO bursts, lateness credit, the first 10 segments free.
    Linux,
}

/// The state of Linux's pacing over one connection.
#[derive(Clone, Debug, Default)]
pub struct LinuxPacer {
    /// When the current burst (GSO packet) started, and how many of its segments may still
    /// leave at that instant.
    burst_at: SimTime,
    burst_left: u64,
    /// The lateness not yet credited to the current burst.
    credit: Dur,
    /// Data segments sent on this connection (`tp->data_segs_out`).
    segs_out: u64,
}

/// Segments a connection sends before pacing starts (tcp_output.c:1259–1263).
const UNPACED_SEGMENTS: u64 = 10;

impl LinuxPacer {
    /// Whether a segment may not leave at `now` with the next departure at `next`: it may
    /// once `next` has come, or while the burst started at `now` has room — unless it is a
    /// retransmission (`retx`), a GSO packet of its own (Linux resends the lost skb, which
    /// SACK processing cut to what was lost: `tcp_retransmit_skb`).
    #[inline]
    pub fn holds(&self, now: SimTime, next: SimTime, retx: bool) -> bool {
        next > now && (retx || !self.in_burst(now))
    }

    /// Whether the burst started at `now` has room for another segment.
    #[inline]
    fn in_burst(&self, now: SimTime) -> bool {
        self.burst_left > 0 && self.burst_at == now
    }

    /// A segment whose payload takes `len` at the rate left at `now`; `burst` is the GSO
    /// packet size now (segments). Returns the next departure, given the previous `next`.
    pub fn after_send(&mut self, now: SimTime, next: SimTime, len: Dur, burst: u64) -> SimTime {
        self.segs_out += 1;
        let mut next = next;
        if !self.in_burst(now) {
            // A new GSO packet: the departure time catches up with the clock
            // (`__tcp_transmit_skb`: wstamp = max(wstamp, now)) and the lateness is credit.
            let wstamp = next.max(now);
            self.credit = wstamp.since(next);
            next = wstamp;
            self.burst_at = now;
            self.burst_left = burst.max(1);
        }
        self.burst_left -= 1;
        if self.segs_out < UNPACED_SEGMENTS {
            return next;
        }
        let cut = Dur(len.0 / 2).min(self.credit);
        self.credit = Dur(self.credit.0 - cut.0);
        next + Dur(len.0 - cut.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Dur {
        Dur::from_micros(x)
    }
    fn at(x: u64) -> SimTime {
        SimTime::ZERO + us(x)
    }

    /// A pacer past its first 10 segments.
    fn warm() -> LinuxPacer {
        LinuxPacer {
            segs_out: UNPACED_SEGMENTS,
            ..LinuxPacer::default()
        }
    }

    #[test]
    fn the_first_ten_segments_leave_unpaced() {
        let mut p = LinuxPacer::default();
        let mut next = SimTime::ZERO;
        for _ in 0..9 {
            assert!(!p.holds(SimTime::ZERO, next, false));
            next = p.after_send(SimTime::ZERO, next, us(1000), 1);
            assert_eq!(next, SimTime::ZERO);
        }
        // The 10th is paced: the next departure is its time later.
        next = p.after_send(SimTime::ZERO, next, us(1000), 1);
        assert_eq!(next, at(1000));
        assert!(p.holds(SimTime::ZERO, next, false));
    }

    #[test]
    fn a_burst_of_gso_segments_leaves_together_then_waits_its_whole_time() {
        let mut p = warm();
        let mut next = at(5000);
        // At 5 ms: two segments of 1.2 ms each leave, the third waits 2.4 ms.
        let now = at(5000);
        assert!(!p.holds(now, next, false));
        next = p.after_send(now, next, us(1200), 2);
        assert!(!p.holds(now, next, false), "the burst's second segment");
        assert!(
            p.holds(now, next, true),
            "not a retransmission: a packet of its own"
        );
        next = p.after_send(now, next, us(1200), 2);
        assert_eq!(next, at(7400));
        assert!(p.holds(now, next, false));
        // Not at another instant before the departure time either.
        assert!(p.holds(at(6000), next, false));
        assert!(!p.holds(at(7400), next, false));
    }

    #[test]
    fn a_late_burst_is_credited_up_to_half_its_time() {
        let mut p = warm();
        // Due at 1 ms, sent at 1.5 ms (0.5 ms late): a 2-segment burst of 2 × 1 ms is
        // credited the 0.5 ms (under half of 2 ms): next at 1.5 + 2 − 0.5 = 3 ms.
        let now = at(1500);
        let next = p.after_send(now, at(1000), us(1000), 2);
        let next = p.after_send(now, next, us(1000), 2);
        assert_eq!(next, at(3000));
        // 10 ms late: the credit is capped at half of each segment's time.
        let mut p = warm();
        let now = at(11_000);
        let next = p.after_send(now, at(1000), us(1000), 2);
        let next = p.after_send(now, next, us(1000), 2);
        assert_eq!(next, at(12_000));
    }
}
