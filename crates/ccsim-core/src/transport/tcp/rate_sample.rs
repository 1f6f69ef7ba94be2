//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-00; Linux
//! net/ipv4/tcp_rate.c, cited at 6.12.117 line numbers): the per-packet send records and
//! connection counters from which each ACK yields a [`RateSample`].
//!
//! When a segment leaves, its record keeps C.delivered, C.delivered_time, C.first_sent_time
//! and whether the application limited the sender then (`tcp_rate_skb_sent`,
//! tcp_rate.c:40–70). When an ACK delivers segments (cumulatively or by SACK), the record of
//! the most recently sent one of them gives the sample (`tcp_rate_skb_delivered`,
//! tcp_rate.c:80–114): delivered = C.delivered − P.delivered over
//! interval = max(send phase, ACK phase), invalid when shorter than the minimum RTT
//! (`tcp_rate_gen`, tcp_rate.c:117–191).
//!
//! The records live in a ring indexed by segment number from the first unacknowledged one,
//! as the scoreboard's flags do: a slot is reused when it is acknowledged, so nothing is
//! allocated per packet once the ring reached the largest flight. The sampler exists only
//! for a controller that asks for samples (`CongestionControl::wants_rate_samples`).

use super::scoreboard::Scoreboard;
use crate::cc::{CaState, RateSample};
use crate::units::{Bytes, Dur, SimTime};
use std::collections::VecDeque;

/// What a segment's latest transmission recorded (the draft's P.* fields).
#[derive(Clone, Copy, Debug)]
struct TxRecord {
    /// C.delivered when sent.
    delivered: u64,
    /// C.delivered_time when sent.
    delivered_time: SimTime,
    /// C.first_sent_time when sent.
    first_sent_time: SimTime,
    /// When this copy was sent.
    sent_time: SimTime,
    /// Sent while the application limited the sender.
    app_limited: bool,
    /// Already used by a SACK: the later cumulative ACK must not use it again
    /// (tcp_rate.c:108–113).
    used: bool,
    /// This copy is a retransmission (Karn: no RTT from it).
    retransmitted: bool,
}

/// The packet chosen for this ACK's sample so far.
#[derive(Clone, Copy, Debug)]
struct Chosen {
    seq: u64,
    rec: TxRecord,
}

/// The sender's delivery-rate state.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Segment number of `records[0]` (snd.una).
    base: u64,
    records: VecDeque<TxRecord>,
    /// C.delivered_time: when the last delivery was acknowledged.
    delivered_time: SimTime,
    /// C.first_sent_time: the send time of the most recently delivered packet.
    first_sent_time: SimTime,
    /// C.app_limited: the delivered count at which the application-limited "bubble" ends;
    /// 0 when the sender is not application-limited.
    app_limited: u64,
    /// This ACK's candidate (cleared by `generate`).
    chosen: Option<Chosen>,
    /// Reused buffer for the scoreboard's newly SACKed ranges.
    scratch: Vec<(u64, u64)>,
    /// This ACK's RTT evidence, as Linux gathers it (`tcp_clean_rtx_queue`,
    /// `tcp_sacktag_one`): the send time of the last original (not retransmitted) segment
    /// cumulatively acknowledged and of the last one newly SACKed, and whether a
    /// retransmission was cumulatively acknowledged (cleared by `generate`).
    last_acked_sent: Option<SimTime>,
    last_sacked_sent: Option<SimTime>,
    retransmission_acked: bool,
}

impl RateSampler {
    /// An empty sampler whose first segment is `base`.
    pub fn new(base: u64) -> RateSampler {
        RateSampler {
            base,
            ..RateSampler::default()
        }
    }

    /// Segment `seq` leaves at `now`; `delivered` is C.delivered and `outstanding` the
    /// segments outstanding before it (`tcp_rate_skb_sent`, tcp_rate.c:40–70: with nothing
    /// outstanding the sampling interval starts now).
    pub fn on_send(&mut self, seq: u64, now: SimTime, delivered: u64, outstanding: u64) {
        if outstanding == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let rec = TxRecord {
            delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            sent_time: now,
            app_limited: self.app_limited != 0,
            used: false,
            retransmitted: false,
        };
        if seq < self.base {
            return;
        }
        let i = (seq - self.base) as usize;
        if i < self.records.len() {
            // a retransmission: its latest copy counts
            self.records[i] = TxRecord {
                retransmitted: true,
                ..rec
            };
        } else {
            // Segments are sent in order the first time; a gap cannot happen, but keep the
            // indices right if it did.
            while self.records.len() < i {
                self.records.push_back(TxRecord { used: true, ..rec });
            }
            self.records.push_back(rec);
        }
    }

    /// Segments `[lo, hi)` were newly SACKed.
    pub fn on_sacked(&mut self, lo: u64, hi: u64) {
        let lo = lo.max(self.base);
        let hi = hi.min(self.base + self.records.len() as u64);
        for seq in lo..hi {
            let i = (seq - self.base) as usize;
            if !self.records[i].used {
                self.records[i].used = true;
                let rec = self.records[i];
                if !rec.retransmitted {
                    self.last_sacked_sent = Some(rec.sent_time);
                }
                self.consider(seq, rec);
            }
        }
    }

    /// Take the ranges the scoreboard newly SACKed (it logs them once `log_sacked` is set).
    pub fn on_scoreboard_sacks(&mut self, sb: &mut Scoreboard) {
        let mut ranges = std::mem::take(&mut self.scratch);
        sb.take_newly_sacked(&mut ranges);
        for &(lo, hi) in &ranges {
            self.on_sacked(lo, hi);
        }
        self.scratch = ranges;
    }

    /// The cumulative ACK moved to `ack`: every segment below it not already used by a SACK
    /// is delivered now.
    pub fn on_cumulative_ack(&mut self, ack: u64) {
        while self.base < ack {
            let Some(rec) = self.records.pop_front() else {
                self.base = ack;
                break;
            };
            if rec.retransmitted {
                self.retransmission_acked = true;
            } else if !rec.used {
                self.last_acked_sent = Some(rec.sent_time);
            }
            if !rec.used {
                self.consider(self.base, rec);
            }
            self.base += 1;
        }
    }

    /// Keep the most recently sent delivered packet: the later send time, or the higher
    /// segment at the same time (tcp_rate.c:92–95, `tcp_skb_sent_after`).
    fn consider(&mut self, seq: u64, rec: TxRecord) {
        let later = match self.chosen {
            None => true,
            Some(c) => {
                rec.sent_time > c.rec.sent_time || (rec.sent_time == c.rec.sent_time && seq > c.seq)
            }
        };
        if later {
            self.chosen = Some(Chosen { seq, rec });
        }
    }

    /// The application has nothing to send and the window is not full: mark what is sent
    /// from now on application-limited until `delivered + in_flight` bytes are delivered
    /// (`tcp_rate_check_app_limited`, tcp_rate.c:194–208).
    pub fn mark_app_limited(&mut self, delivered: u64, in_flight: u64) {
        self.app_limited = (delivered + in_flight).max(1);
    }

    /// The RTT Linux reads from an echoed timestamp (`tcp_rtt_tsopt_us`,
    /// net/ipv4/tcp_input.c:709–724 of 6.12): its age on the 1 kHz timestamp clock
    /// (TCP_TS_HZ), the difference of two whole-millisecond readings, at least 1 ms. It may
    /// lie under the true RTT by up to a millisecond.
    pub fn timestamp_rtt(now: SimTime, echoed: SimTime) -> Dur {
        let ms = (now.0 / 1_000_000).saturating_sub(echoed.0 / 1_000_000);
        Dur::from_millis(ms.max(1))
    }

    /// This ACK's RTT sample as Linux hands it to the controller (`rs->rtt_us`,
    /// `tcp_ack_update_rtt`, net/ipv4/tcp_input.c:3215–3239 with :3470–3488): from the last
    /// original segment newly SACKed, else from the last original segment cumulatively
    /// acknowledged if no retransmission was, else `fallback` (the echoed timestamp's,
    /// `timestamp_rtt`, which Linux takes only when snd.una advanced, whether or not the
    /// echoed segment was a retransmission). Clears the ACK's evidence.
    pub fn take_rtt(&mut self, now: SimTime, fallback: Option<Dur>) -> Option<Dur> {
        let acked = self
            .last_acked_sent
            .take()
            .filter(|_| !self.retransmission_acked);
        let sacked = self.last_sacked_sent.take();
        self.retransmission_acked = false;
        match sacked.or(acked) {
            Some(sent) => Some(now.since(sent)),
            None => fallback,
        }
    }

    /// This ACK's sample (`tcp_rate_gen`, tcp_rate.c:117–191). `delivered` is C.delivered
    /// after the ACK, `acked_sacked` the bytes it newly delivered.
    #[allow(clippy::too_many_arguments)]
    pub fn generate(
        &mut self,
        now: SimTime,
        delivered: u64,
        acked_sacked: u64,
        losses: u64,
        prior_in_flight: u64,
        min_rtt: Dur,
        ca_state: CaState,
    ) -> RateSample {
        // The bubble is over once everything sent in it was delivered (tcp_rate.c:123–124).
        if self.app_limited != 0 && delivered > self.app_limited {
            self.app_limited = 0;
        }
        if acked_sacked > 0 {
            self.delivered_time = now;
        }
        let mut rs = RateSample {
            total_delivered: Bytes(delivered),
            acked_sacked: Bytes(acked_sacked),
            losses: Bytes(losses),
            prior_in_flight: Bytes(prior_in_flight),
            ca_state,
            ..RateSample::default()
        };
        let Some(c) = self.chosen.take() else {
            return rs; // no timing information (tcp_rate.c:141–145)
        };
        // Linux records the send time of the most recently delivered packet.
        self.first_sent_time = c.rec.sent_time;
        rs.prior_delivered = Bytes(c.rec.delivered);
        rs.is_app_limited = c.rec.app_limited;
        rs.delivered = Bytes(delivered - c.rec.delivered);
        let send = c.rec.sent_time.since(c.rec.first_sent_time);
        let ack = now.since(c.rec.delivered_time);
        let interval = send.max(ack);
        // An interval below the minimum RTT is a measurement artefact (tcp_rate.c:172–184).
        if interval < min_rtt {
            return rs;
        }
        rs.interval = Some(interval);
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + Dur::from_millis(x)
    }

    /// A sender of `n` segments at 1 ms spacing from time 0 on an idle connection.
    fn burst(n: u64) -> RateSampler {
        let mut r = RateSampler::new(0);
        for s in 0..n {
            r.on_send(s, ms(s), 0, s);
        }
        r
    }

    #[test]
    fn an_ack_of_a_flight_measures_delivered_over_the_longer_phase() {
        // 10 segments sent at 0..9 ms; all acknowledged at 109 ms by one cumulative ACK.
        // The most recently sent is segment 9: P.delivered = 0, P.delivered_time = 0 (the
        // connection was idle when segment 0 left), P.first_sent_time = 0. Send phase 9 ms,
        // ACK phase 109 ms: the rate is 10 000 B / 0.109 s.
        let mut r = burst(10);
        r.on_cumulative_ack(10);
        let rs = r.generate(
            ms(109),
            10 * MSS,
            10 * MSS,
            0,
            10 * MSS,
            Dur::from_millis(100),
            CaState::Open,
        );
        assert_eq!(rs.delivered, Bytes(10 * MSS));
        assert_eq!(rs.interval, Some(Dur::from_millis(109)));
        assert_eq!(rs.prior_delivered, Bytes(0));
        assert!(!rs.is_app_limited);
    }

    #[test]
    fn a_later_packet_is_sampled_from_the_delivery_state_at_its_send() {
        // Segment 0 acknowledged at 100 ms; segment 10 is then sent at 100 ms with
        // P.delivered = 1000 and P.delivered_time = 100 ms, and acknowledged at 200 ms with
        // 11 segments delivered: 10 000 B over 100 ms.
        let mut r = burst(10);
        r.on_cumulative_ack(1);
        let _ = r.generate(
            ms(100),
            MSS,
            MSS,
            0,
            10 * MSS,
            Dur::from_millis(100),
            CaState::Open,
        );
        r.on_send(10, ms(100), MSS, 9);
        r.on_cumulative_ack(11);
        let rs = r.generate(
            ms(200),
            11 * MSS,
            10 * MSS,
            0,
            10 * MSS,
            Dur::from_millis(100),
            CaState::Open,
        );
        assert_eq!(rs.prior_delivered, Bytes(MSS));
        assert_eq!(rs.delivered, Bytes(10 * MSS));
        assert_eq!(rs.interval, Some(Dur::from_millis(100)));
    }

    #[test]
    fn an_interval_below_the_minimum_rtt_is_not_a_sample() {
        let mut r = burst(2);
        r.on_cumulative_ack(1);
        let rs = r.generate(
            ms(5),
            MSS,
            MSS,
            0,
            2 * MSS,
            Dur::from_millis(10),
            CaState::Open,
        );
        assert_eq!(rs.interval, None);
        assert_eq!(rs.rate(), None);
        assert_eq!(rs.acked_sacked, Bytes(MSS));
    }

    #[test]
    fn an_ack_that_delivers_nothing_has_no_timing() {
        let mut r = burst(3);
        let rs = r.generate(ms(50), 0, 0, 0, 3 * MSS, Dur::ZERO, CaState::Recovery);
        assert_eq!(rs.interval, None);
        assert_eq!(rs.ca_state, CaState::Recovery);
    }

    #[test]
    fn a_sacked_packet_is_used_once_and_the_latest_sent_wins() {
        // Segments 0..4 sent at 0..3 ms; a SACK of 2..4 at 100 ms picks segment 3 (sent
        // last). The later cumulative ACK of 0..4 must pick from 0 and 1 only.
        let mut r = burst(4);
        r.on_sacked(2, 4);
        let rs = r.generate(
            ms(100),
            2 * MSS,
            2 * MSS,
            0,
            4 * MSS,
            Dur::ZERO,
            CaState::Open,
        );
        assert_eq!(rs.delivered, Bytes(2 * MSS));
        assert_eq!(rs.interval, Some(Dur::from_millis(100)));
        r.on_cumulative_ack(4);
        // Segment 1 (sent at 1 ms) is chosen: P.first_sent_time = 0, P.delivered_time = 0.
        let rs = r.generate(
            ms(150),
            4 * MSS,
            2 * MSS,
            0,
            2 * MSS,
            Dur::ZERO,
            CaState::Open,
        );
        assert_eq!(rs.delivered, Bytes(4 * MSS));
        assert_eq!(rs.interval, Some(Dur::from_millis(150)));
    }

    #[test]
    fn a_retransmission_overwrites_the_record_and_is_preferred() {
        // Segment 0 is resent at 300 ms; when the ACK covers 0..3 the retransmitted copy
        // is the most recently sent, with the delivery state of 300 ms.
        let mut r = burst(3);
        r.on_sacked(1, 3);
        let _ = r.generate(
            ms(100),
            2 * MSS,
            2 * MSS,
            1,
            3 * MSS,
            Dur::ZERO,
            CaState::Recovery,
        );
        r.on_send(0, ms(300), 2 * MSS, 3);
        r.on_cumulative_ack(3);
        let rs = r.generate(ms(400), 3 * MSS, MSS, 0, MSS, Dur::ZERO, CaState::Recovery);
        assert_eq!(rs.prior_delivered, Bytes(2 * MSS));
        assert_eq!(rs.delivered, Bytes(MSS));
        // Send phase: 300 ms − first_sent_time (the SACKed segment 2's send, 2 ms) = 298 ms;
        // ACK phase: 400 − 100 ms = 300 ms, the longer.
        assert_eq!(rs.interval, Some(Dur::from_millis(300)));
    }

    #[test]
    fn samples_sent_in_an_application_limited_bubble_say_so_until_it_is_delivered() {
        let mut r = RateSampler::new(0);
        r.mark_app_limited(0, 0); // idle: the bubble ends at 1 byte delivered
        r.on_send(0, ms(0), 0, 0);
        r.on_cumulative_ack(1);
        let rs = r.generate(ms(100), MSS, MSS, 0, MSS, Dur::ZERO, CaState::Open);
        assert!(rs.is_app_limited);
        // The bubble is gone: a segment sent now is not application-limited.
        r.on_send(1, ms(100), MSS, 0);
        r.on_cumulative_ack(2);
        let rs = r.generate(ms(200), 2 * MSS, MSS, 0, MSS, Dur::ZERO, CaState::Open);
        assert!(!rs.is_app_limited);
    }

    /// The timestamp clock ticks each millisecond: 41.3 ms of RTT reads 41 or 42 ms by
    /// where the two readings fall, never 0.
    #[test]
    fn a_timestamp_rtt_is_whole_milliseconds_of_the_clock() {
        let us = |x: u64| SimTime::ZERO + Dur::from_micros(x);
        assert_eq!(
            RateSampler::timestamp_rtt(us(41_300), us(0)),
            Dur::from_millis(41)
        );
        assert_eq!(
            RateSampler::timestamp_rtt(us(42_200), us(900)),
            Dur::from_millis(42)
        );
        assert_eq!(
            RateSampler::timestamp_rtt(us(1_100), us(1_050)),
            Dur::from_millis(1)
        );
    }

    #[test]
    fn the_linux_rtt_is_the_last_original_segment_delivered_sack_first_karn_for_the_rest() {
        let fallback = Some(Dur::from_millis(77));
        // Segments 0..4 sent at 0..3 ms. A cumulative ACK of 0 and 1 at 100 ms: the last
        // acknowledged, segment 1 (sent at 1 ms), gives 99 ms.
        let mut r = burst(4);
        r.on_cumulative_ack(2);
        assert_eq!(r.take_rtt(ms(100), fallback), Some(Dur::from_millis(99)));
        // Nothing delivered: the fallback (the echoed timestamp's), evidence cleared.
        assert_eq!(r.take_rtt(ms(101), fallback), fallback);
        // Segment 3 SACKed and 2 cumulatively acknowledged on one ACK: the SACK's segment
        // decides (3 ms → 107 ms).
        r.on_sacked(3, 4);
        r.on_cumulative_ack(3);
        assert_eq!(r.take_rtt(ms(110), None), Some(Dur::from_millis(107)));
        // Karn: a retransmission cumulatively acknowledged leaves only the fallback, even
        // with an original segment acknowledged on the same ACK.
        let mut r = burst(3);
        r.on_send(0, ms(50), 0, 3);
        r.on_cumulative_ack(2);
        assert_eq!(r.take_rtt(ms(120), fallback), fallback);
        // A retransmission SACKed gives no sample either.
        let mut r = burst(3);
        r.on_send(1, ms(50), 0, 3);
        r.on_sacked(1, 2);
        assert_eq!(r.take_rtt(ms(120), None), None);
    }
}
