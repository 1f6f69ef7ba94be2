//! HyStart (Ha & Rhee, "Taming the elephants", 2011) as Linux's CUBIC runs it: slow start
//! ends, with ssthresh = cwnd, when the ACKs of a round keep arriving back to back for
//! longer than half the minimum RTT (ACK train) or when the round's RTT has risen above
//! the minimum by an eighth of it, 4–16 ms (delay increase). Rules and constants from
//! net/ipv4/tcp_cubic.c (the lines of docs/sources/linux.md §1.7):
//!
//! - Constants: `hystart_low_window` 16 segments, `hystart_ack_delta_us` 2 ms,
//!   `HYSTART_MIN_SAMPLES` 8, `HYSTART_DELAY_MIN`/`_MAX` 4 and 16 ms (:44–47, :57–58).
//! - `cubictcp_acked` (:449–473): every RTT sample lowers `delay_min`, except in the first
//!   second of a congestion-avoidance epoch after a reduction; detection runs only in slow
//!   start, with cwnd ≥ 16 and no exit found yet.
//! - `hystart_update` (:383–447): a round starts at the first ACK past the sequence sent
//!   when the previous one started (`bictcp_hystart_reset`), whatever the window (the
//!   16-segment test comes after the reset since upstream commit 25c1a9ca53db, "tcp_cubic:
//!   fix incorrect HyStart round start detection", 2025, backported to the stable trees and
//!   in the bench's 6.18; before it rounds began only once cwnd ≥ 16); ACK train: an ACK within 2 ms
//!   of the previous close one extends the train, and the exit is found when the train is
//!   longer than (delay_min + ack_delay)/2 (halved because the bench's sockets do not
//!   pace); delay: the round's minimum RTT over its first 8 samples, then on every ACK the
//!   exit is found if it exceeds delay_min + clamp(delay_min/8, 4 ms, 16 ms).
//! - A timeout resets everything, `delay_min` included (`cubictcp_state`, :355–361).
//!
//! Rounds are HyStart's own, as the kernel's: a round starts at the first ACK whose
//! snd.una passes `end_seq`, and `end_seq` is snd.nxt at that moment (`bictcp_hystart_reset`;
//! `cubictcp_init` sets it at the handshake, so the first data ACK starts the first round).
//! Rounds therefore follow the flights of slow start from the first one: a round starts with
//! the first ACK of a flight, and an ACK train is timed from the flight's first ACK (a trace
//! of the 6.18 kernel, `benches/linux/slowstart_trace.py`, shows its exit at exactly that
//! train). Here snd.una is the sender's
//! delivered count and snd.nxt that plus what is in flight (the two agree while nothing is
//! lost or SACKed, as in a first slow start). `hystart_ack_delay` (:364–381; at most 1 ms, from the
//! socket's GSO size and pacing rate) is taken as 0: the bench's veths have GSO off.
//! The kernel's RTT sample is the newest segment an ACK covers; ccsim's is the echo of the
//! oldest (RFC 7323), one serialisation time more for an ACK of two segments.

use crate::units::{Dur, SimTime};

/// `hystart_low_window`: no detection below this window (segments).
pub const LOW_WINDOW: u64 = 16;
/// `hystart_ack_delta_us`: ACKs this close belong to one train.
pub const ACK_DELTA: Dur = Dur(2_000_000);
/// `HYSTART_MIN_SAMPLES`: RTT samples of a round before the delay test.
pub const MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`: bounds of the delay threshold.
pub const DELAY_MIN: Dur = Dur(4_000_000);
/// See [`DELAY_MIN`].
pub const DELAY_MAX: Dur = Dur(16_000_000);
/// No delay samples within this time of an epoch's start (`HZ` in `cubictcp_acked`).
pub const AFTER_REDUCTION: Dur = Dur(1_000_000_000);

/// What HyStart takes from an ACK.
#[derive(Clone, Copy, Debug)]
pub struct HyAck {
    /// Arrival time.
    pub now: SimTime,
    /// The ACK's RTT sample.
    pub rtt: Dur,
    /// The window before this ACK's growth, segments.
    pub cwnd: u64,
    /// Whether cwnd < ssthresh.
    pub in_slow_start: bool,
    /// Start of the current congestion-avoidance epoch, if one runs.
    pub epoch_start: Option<SimTime>,
    /// Bytes delivered so far (snd.una while nothing is SACKed).
    pub delivered: u64,
    /// Bytes in flight after the ACK (snd.nxt − snd.una while nothing is lost).
    pub in_flight: u64,
}

/// HyStart's state (and the minimum RTT CUBIC keeps beside it).
#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// Whether detection runs (`hystart`); `delay_min` is kept either way.
    enabled: bool,
    /// `found`: the exit was found in this slow start.
    found: bool,
    /// `end_seq`: the round ends when delivery passes this (bytes).
    end_seq: u64,
    round_start: SimTime,
    last_ack: SimTime,
    /// `curr_rtt`: the round's minimum RTT so far.
    curr_rtt: Option<Dur>,
    sample_cnt: u32,
    /// `delay_min`: the smallest RTT sample (reset by a timeout).
    delay_min: Option<Dur>,
}

impl HyStart {
    /// Detection on or off; the first ACK starts the first round.
    pub fn new(enabled: bool) -> HyStart {
        HyStart {
            enabled,
            ..HyStart::default()
        }
    }

    /// Whether detection runs.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The smallest RTT sample since the connection started or the last timeout.
    pub fn delay_min(&self) -> Option<Dur> {
        self.delay_min
    }

    /// A retransmission timeout: everything starts again (`bictcp_reset` and
    /// `bictcp_hystart_reset`); the next round starts once what was sent before the timeout
    /// is delivered (`sent`: the sender's snd.nxt in bytes as last seen).
    pub fn on_timeout(&mut self, now: SimTime, sent: u64) {
        *self = HyStart::new(self.enabled);
        self.end_seq = sent;
        self.round_start = now;
        self.last_ack = now;
    }

    /// An ACK (`a`), before the window grows for it. Returns true when slow start should
    /// end here (ssthresh = cwnd).
    pub fn on_ack(&mut self, a: &HyAck) -> bool {
        let HyAck {
            now,
            rtt,
            cwnd,
            in_slow_start,
            epoch_start,
            delivered,
            in_flight,
        } = *a;
        if epoch_start.is_some_and(|e| now.since(e) < AFTER_REDUCTION) {
            return false;
        }
        let delay = rtt.max(Dur(1_000));
        let delay_min = self.delay_min.map_or(delay, |m| m.min(delay));
        self.delay_min = Some(delay_min);
        if !self.enabled || self.found || !in_slow_start {
            return false;
        }
        // Rounds are kept whatever the window; only detection waits for 16 segments
        // (tcp_cubic.c `hystart_update`, since upstream 25c1a9ca53db "tcp_cubic: fix
        // incorrect HyStart round start detection", 2025; in 6.12.y and 6.18).
        if delivered > self.end_seq {
            self.end_seq = delivered + in_flight;
            self.round_start = now;
            self.last_ack = now;
            self.curr_rtt = None;
            self.sample_cnt = 0;
        }
        if cwnd < LOW_WINDOW {
            return false;
        }
        // ACK train: back-to-back ACKs for longer than half the minimum RTT.
        if now.since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            if now.since(self.round_start) > Dur(delay_min.0 / 2) {
                self.found = true;
            }
        }
        // Delay increase: the round's minimum RTT well above the connection's.
        let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(curr);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let margin = Dur(delay_min.0 / 8).clamp(DELAY_MIN, DELAY_MAX);
            if curr > delay_min + margin {
                self.found = true;
            }
        }
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: f64) -> SimTime {
        SimTime((x * 1e6) as u64)
    }
    fn d(x: f64) -> Dur {
        Dur((x * 1e6) as u64)
    }
    /// An ACK at `t` ms with RTT `rtt` ms, window `cwnd`, `delivered` segments delivered and
    /// `in_flight` in flight (1000-byte segments), in slow start.
    fn a(t: f64, rtt: f64, cwnd: u64, delivered: u64, in_flight: u64) -> HyAck {
        HyAck {
            now: ms(t),
            rtt: d(rtt),
            cwnd,
            in_slow_start: true,
            epoch_start: None,
            delivered: delivered * 1000,
            in_flight: in_flight * 1000,
        }
    }

    /// Below 16 segments nothing is detected, however late the ACKs.
    #[test]
    fn no_detection_below_the_low_window() {
        let mut h = HyStart::new(true);
        for i in 0..40 {
            assert!(!h.on_ack(&a(i as f64, 80.0, 15, i + 1, 10)));
        }
    }

    /// The first data ACK starts a round (the handshake's `end_seq` is passed), whatever the
    /// window; it ends at what was sent then, and the next starts at the first ACK past it.
    #[test]
    fn rounds_end_when_delivery_passes_what_was_sent_at_the_round_start() {
        let mut h = HyStart::new(true);
        h.on_ack(&a(0.0, 40.0, 10, 1, 9)); // round from 0 ms, ends past 10 segments
        assert_eq!((h.round_start, h.end_seq), (ms(0.0), 10_000));
        h.on_ack(&a(1.0, 40.0, 11, 10, 10));
        assert_eq!(h.round_start, ms(0.0));
        h.on_ack(&a(40.0, 40.0, 20, 11, 19)); // below 16 segments: the round still moves
        assert_eq!((h.round_start, h.end_seq), (ms(40.0), 30_000));
        h.on_ack(&a(41.0, 40.0, 21, 30, 20));
        assert_eq!(h.round_start, ms(40.0));
        h.on_ack(&a(80.0, 40.0, 40, 31, 39));
        assert_eq!((h.round_start, h.end_seq), (ms(80.0), 70_000));
    }

    /// Slow start as the 6.18 kernel ran it in the bench (q33 cubic, run 0; the trace in
    /// docs/validation.md §6): flights one RTT apart, ACKs 1.2 ms apart per segment they
    /// cover, the window growing by what they cover. The second flight (20 segments) has 12
    /// ACKs of one segment, then 4 of two (2.4 ms apart, so its train stops at 13 ms); the
    /// third (40) one ACK per segment. Rounds follow the flights, so the train is timed
    /// from the third flight's first ACK and outlasts delay_min/2 = 20.68 ms at its 19th
    /// ACK, at a window of 58 (the kernel: 59, its flight's first ACK covering two
    /// segments). With rounds begun at the first ACK with cwnd ≥ 16 (the rule before
    /// 2025) the rounds start mid-flight and the train is never long enough.
    #[test]
    fn rounds_follow_the_flights_and_the_train_is_timed_from_a_flights_first_ack() {
        let flights: [&[(u64, u64)]; 3] = [&[(10, 1)], &[(12, 1), (4, 2)], &[(40, 1)]];
        let mut h = HyStart::new(true);
        let (mut delivered, mut exit) = (0u64, None);
        for (k, flight) in flights.iter().enumerate() {
            let start = delivered;
            let size: u64 = flight.iter().map(|(n, s)| n * s).sum();
            let mut t = 100.0 * k as f64;
            for &(n, segs) in flight.iter() {
                for _ in 0..n {
                    let cwnd = 10 + delivered;
                    let snd_nxt = start + size + 2 * (delivered - start); // slow start sends 2 per segment
                    delivered += segs;
                    let ack = a(
                        t,
                        41.36 + 0.1 * (delivered - start) as f64,
                        cwnd,
                        delivered,
                        snd_nxt - delivered,
                    );
                    if h.on_ack(&ack) && exit.is_none() {
                        exit = Some(cwnd);
                    }
                    t += 1.2 * segs as f64;
                }
            }
        }
        assert_eq!(exit, Some(58));
    }

    /// ACK train: ACKs 1 ms apart from the round's start; with delay_min 40 ms the exit
    /// is found at the first ACK more than 20 ms after the round started.
    #[test]
    fn ack_train_longer_than_half_the_minimum_rtt_ends_slow_start() {
        let mut h = HyStart::new(true);
        h.on_ack(&a(0.0, 40.0, 10, 1, 0)); // delay_min 40 ms; its round ends at once
        let mut exit = None;
        for i in 0..40 {
            let t = 100.0 + i as f64;
            if h.on_ack(&a(t, 40.0, 32, 2 + i, 40)) {
                exit = Some(t);
                break;
            }
        }
        assert_eq!(exit, Some(121.0));
    }

    /// ACKs more than 2 ms apart are no train (a 10 Mb/s link with an ACK every second
    /// 1500-B segment spaces them 2.4 ms).
    #[test]
    fn spaced_acks_are_no_train() {
        let mut h = HyStart::new(true);
        h.on_ack(&a(0.0, 40.0, 10, 1, 0));
        for i in 0..30 {
            assert!(!h.on_ack(&a(100.0 + 2.4 * i as f64, 40.0, 32, 2 + 2 * i, 40)));
        }
    }

    /// Delay increase: after 8 samples a round minimum above 40 + 5 ms ends slow start;
    /// 44 ms does not.
    #[test]
    fn delay_increase_over_an_eighth_of_the_minimum_ends_slow_start() {
        for (rtt, found) in [(44.0, false), (46.0, true)] {
            let mut h = HyStart::new(true);
            h.on_ack(&a(0.0, 40.0, 10, 1, 0));
            let mut hit = false;
            for i in 0..12 {
                hit |= h.on_ack(&a(100.0 + 3.0 * i as f64, rtt, 32, 2 + 2 * i, 40));
                if i < 8 {
                    assert!(!hit, "no verdict before 8 samples");
                }
            }
            assert_eq!(hit, found, "rtt {rtt}");
        }
    }

    /// The threshold is clamped: with delay_min 200 ms it is 16 ms, not 25.
    #[test]
    fn delay_threshold_is_clamped_to_16_ms() {
        let mut h = HyStart::new(true);
        h.on_ack(&a(0.0, 200.0, 10, 1, 0));
        let mut hit = false;
        for i in 0..10 {
            hit |= h.on_ack(&a(1000.0 + 3.0 * i as f64, 217.0, 32, 2 + 2 * i, 40));
        }
        assert!(hit);
    }

    /// Off: delay_min is kept, nothing is detected; samples in the first second after an
    /// epoch starts are ignored; a timeout forgets delay_min.
    #[test]
    fn off_keeps_delay_min_and_recent_epochs_are_ignored() {
        let mut h = HyStart::new(false);
        h.on_ack(&a(0.0, 50.0, 40, 1, 9));
        assert!(!h.on_ack(&a(1.0, 90.0, 40, 2, 9)));
        assert_eq!(h.delay_min(), Some(d(50.0)));
        h.on_ack(&HyAck {
            epoch_start: Some(ms(0.0)),
            in_slow_start: false,
            ..a(500.0, 30.0, 40, 3, 9)
        });
        assert_eq!(h.delay_min(), Some(d(50.0)));
        h.on_timeout(ms(600.0), 12_000);
        assert_eq!(h.delay_min(), None);
    }
}
