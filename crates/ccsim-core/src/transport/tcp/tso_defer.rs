//! Linux's TSO deferral (`tso_defer = true`, the linux profile): a sender that could send
//! fewer segments than a full GSO packet may hold them back until the next ACK
//! (`tcp_tso_should_defer`, net/ipv4/tcp_output.c, called by `tcp_write_xmit` for a
//! write-queue buffer of more than one segment). It defers when all of these hold:
//! - the connection is not in recovery (`icsk_ca_state < TCP_CA_Recovery`);
//! - it transmitted within the last millisecond (`tcp_clock_cache − tcp_wstamp_ns ≤ 1 ms`:
//!   "avoid bursty behavior by allowing defer only if the last write was recent");
//! - what cwnd allows now, cwnd − in flight, is less than a full GSO packet (`max_segs`,
//!   `tcp_tso_autosize`) and less than cwnd / `tcp_tso_win_divisor` (3);
//! - the oldest unacknowledged segment's ACK is expected within min(srtt / 2, 1 ms) (its
//!   last transmission + srtt − now; the form since upstream's 2025 fix "tcp: fix
//!   tcp_tso_should_defer() vs large RTT", in 6.18).
//! The deferred segments leave with what the next ACK releases. Not modelled: the receive
//! window's part of the limit (a bulk receiver's window is large) and the test that a
//! buffer in the middle of the write queue gets no more data (the bulk sender's buffers
//! are 22 segments, so the remainder is rarely one).

use std::collections::VecDeque;

use crate::units::{Dur, SimTime};

/// `tcp_tso_win_divisor`'s default (net/ipv4/tcp_ipv4.c).
const WIN_DIVISOR: u64 = 3;
/// The "recent write" and "ACK soon" bound (NSEC_PER_MSEC).
const MS: Dur = Dur(1_000_000);

/// The send times a deferral decision needs.
#[derive(Clone, Debug, Default)]
pub struct TsoDefer {
    /// Last transmission of each outstanding segment, from `base` on.
    sent: VecDeque<SimTime>,
    base: u64,
    /// The last transmission of any segment (`tcp_wstamp_ns` without pacing).
    last: Option<SimTime>,
}

impl TsoDefer {
    /// Segment `seq` left at `now` (new, or a retransmission of an outstanding one).
    pub fn on_send(&mut self, seq: u64, now: SimTime) {
        let end = self.base + self.sent.len() as u64;
        if seq == end {
            self.sent.push_back(now);
        } else if seq >= self.base && seq < end {
            self.sent[(seq - self.base) as usize] = now;
        }
        self.last = Some(now);
    }

    /// Everything below `una` is acknowledged.
    pub fn on_ack(&mut self, una: u64) {
        while self.base < una && !self.sent.is_empty() {
            self.sent.pop_front();
            self.base += 1;
        }
        self.base = self.base.max(una);
    }

    /// A new connection starts at segment 0.
    pub fn reset(&mut self) {
        *self = TsoDefer::default();
    }

    /// Whether to hold back the next new segment at `now`: `quota` segments may leave
    /// (cwnd − in flight ≥ 1), `cwnd` in segments, `max_segs` a full GSO packet, `srtt` the
    /// smoothed RTT; the caller checks that the connection is not in recovery.
    pub fn defer(&self, now: SimTime, quota: u64, cwnd: u64, max_segs: u64, srtt: Dur) -> bool {
        let recent = self.last.is_some_and(|t| now.0 <= t.0 + MS.0);
        if !recent || quota >= max_segs || quota * WIN_DIVISOR >= cwnd {
            return false;
        }
        let Some(&head) = self.sent.front() else {
            return false;
        };
        let expected = head.0 + srtt.0;
        let threshold = (srtt.0 / 2).min(MS.0);
        // how far the ACK is; one expected already (expected ≤ now) counts as near
        expected <= now.0 + threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: f64) -> SimTime {
        SimTime((x * 1e6) as u64)
    }

    #[test]
    fn defers_a_lone_segment_when_the_heads_ack_is_near_and_the_last_send_recent() {
        let mut d = TsoDefer::default();
        d.on_send(0, ms(0.0)); // the head
        d.on_send(1, ms(0.0));
        d.on_send(2, ms(40.0)); // just now
        let srtt = Dur::from_millis(40);
        // head sent at 0 + srtt 40 → its ACK expected at 40, within 1 ms of 40.5: defer
        assert!(d.defer(ms(40.5), 1, 10, 2, srtt));
        // a full GSO packet's worth, or a third of the window, leaves at once
        assert!(!d.defer(ms(40.5), 2, 10, 2, srtt));
        assert!(!d.defer(ms(40.5), 1, 3, 2, srtt));
        // the head's ACK more than 1 ms away (head sent at 0, srtt 45: expected 45)
        assert!(!d.defer(ms(40.5), 1, 10, 2, Dur::from_millis(45)));
        // nothing sent in the last millisecond
        assert!(!d.defer(ms(41.5), 1, 10, 2, srtt));
    }

    #[test]
    fn the_head_follows_the_cumulative_ack_and_retransmissions() {
        let mut d = TsoDefer::default();
        for s in 0..4 {
            d.on_send(s, ms(s as f64));
        }
        d.on_ack(2);
        assert_eq!(d.sent.front(), Some(&ms(2.0)));
        d.on_send(2, ms(10.0)); // the head resent
        assert_eq!(d.sent.front(), Some(&ms(10.0)));
        d.on_ack(4);
        assert!(d.sent.is_empty());
        d.on_send(4, ms(11.0));
        assert_eq!((d.base, d.sent.len()), (4, 1));
    }
}
