//! Proportional Rate Reduction (RFC 6937 §3, the PRR-SSRB bound it recommends).
//!
//! During fast recovery the sender may send, on each ACK, `sndcnt` segments:
//!
//! ```text
//! DeliveredData = Δsnd.una + ΔSACKed             (what this ACK reports delivered)
//! prr_delivered += DeliveredData
//! pipe > ssthresh:  sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out
//! otherwise:        sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + 1)
//! ```
//!
//! with RecoverFS = snd.nxt − snd.una at the start of recovery and prr_out what was sent
//! since, all in segments (the RFC's bytes over the MSS; its "+ MSS" is one segment). The
//! first part spreads the window reduction over the round trip (one segment per two
//! delivered when ssthresh is half the flight); the second lets the flight grow back to
//! ssthresh at most one segment faster than the ACK clock (slow start). Linux's
//! `tcp_cwnd_reduction` (tcp_input.c:2723–2747 of Linux 6.12) follows the same rule in
//! packets, with two differences, its form here (`prr = "linux"`, `PrrForm::Linux`): the
//! window at entry (`prior_cwnd`, `tcp_init_cwnd_reduction` :2709–2721) is RecoverFS, and
//! the extra segment comes only when the ACK advanced snd.una and marked no new loss
//! (`FLAG_SND_UNA_ADVANCED && !newly_lost`, :2740–2741; RFC 6937bis). Where a burst of
//! losses is found by SACKs, which advance nothing and mark losses, Linux's flight grows
//! back at the ACK clock's pace, not one segment faster per ACK.
//!
//! The window itself is RFC 6937's `cwnd = pipe + sndcnt`, set by every ACK that reports
//! a delivery (Linux: `tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + sndcnt)`, and an
//! ACK delivering nothing leaves it); until the first such ACK it is the window recovery
//! began with (`tcp_init_cwnd_reduction` does not change it). The sender sends by the
//! quota; the window is what its traces report, as the kernel's `tcpi_snd_cwnd` does.

use super::config::PrrForm;

/// One recovery episode's PRR counters, in segments (ccsim's sequence unit; RFC 6937's
/// byte quantities divided by the MSS, as its examples and Linux count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    form: PrrForm,
    recover_fs: u64,
    delivered: u64,
    out: u64,
    window: u64,
}

impl Prr {
    /// Start of recovery with FlightSize `flight_size` and the window before the reduction
    /// `prior_cwnd` (segments); RecoverFS is the one `form` takes.
    pub fn start(form: PrrForm, flight_size: u64, prior_cwnd: u64) -> Prr {
        let recover_fs = match form {
            PrrForm::Rfc6937 => flight_size,
            PrrForm::Linux => prior_cwnd,
        };
        Prr {
            form,
            recover_fs: recover_fs.max(1),
            delivered: 0,
            out: 0,
            window: prior_cwnd,
        }
    }

    /// An ACK reporting `delivered` segments, with `pipe` and `ssthresh` in segments after
    /// it, that advanced snd.una or not (`una_advanced`) and marked segments lost or not
    /// (`newly_lost`): how many segments may be sent now (RFC 6937 §3, PRR-SSRB).
    pub fn on_ack(
        &mut self,
        delivered: u64,
        pipe: u64,
        ssthresh: u64,
        una_advanced: bool,
        newly_lost: bool,
    ) -> u64 {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out.
            let target = (self.delivered * ssthresh).div_ceil(self.recover_fs);
            target as i64 - self.out as i64
        } else {
            // Slow-start reduction bound: at most one segment more than delivered (Linux:
            // the one more only on an ACK that advanced snd.una and marked no loss).
            let behind = self.delivered as i64 - self.out as i64;
            let extra = match self.form {
                PrrForm::Rfc6937 => 1,
                PrrForm::Linux => i64::from(una_advanced && !newly_lost),
            };
            let limit = behind.max(delivered as i64) + extra;
            (ssthresh as i64 - pipe as i64).min(limit)
        };
        let sndcnt = sndcnt.max(0) as u64;
        if delivered > 0 {
            self.window = pipe + sndcnt;
        }
        sndcnt
    }

    /// The window in segments: pipe + sndcnt as of the last ACK that delivered data.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// A segment was sent (new data or a retransmission).
    pub fn on_send(&mut self) {
        self.out += 1;
    }

    /// Segments delivered and sent since recovery began.
    pub fn counts(&self) -> (u64, u64) {
        (self.delivered, self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_sends_one_segment_for_every_two_delivered() {
        // 20 segments in flight, one lost, ssthresh = 10 (RFC 6937 §3.1's first example).
        // The fast retransmit is the first segment out; then each ACK delivers one segment
        // and pipe stays above ssthresh, so sndcnt = ⌈k·10/20⌉ − prr_out after k ACKs:
        // k = 1: 1 − 1 = 0; k = 2: 1 − 1 = 0; k = 3: 2 − 1 = 1; k = 4: 2 − 2 = 0; …
        let mut p = Prr::start(PrrForm::Rfc6937, 20, 20);
        p.on_send(); // the fast retransmit
        let mut sent = Vec::new();
        let mut pipe = 18; // 20 − 1 lost − 1 SACKed by the triggering ACK
        for _ in 1..=10 {
            let n = p.on_ack(1, pipe, 10, true, false);
            for _ in 0..n {
                p.on_send();
            }
            sent.push(n);
            pipe = pipe - 1 + n;
        }
        assert_eq!(sent, vec![0, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
        assert_eq!(p.counts(), (10, 5), "half as much sent as delivered");
        // cwnd = pipe + sndcnt of the last ACK: pipe 13 after nine ACKs, sndcnt 0.
        assert_eq!(p.window(), 13);
    }

    #[test]
    fn the_window_is_pipe_plus_sndcnt_and_stays_until_an_ack_delivers() {
        // RFC 6937 §3: cwnd = pipe + sndcnt on every ACK in recovery; before the first
        // such ACK the window recovery started with (Linux changes it only in
        // `tcp_cwnd_reduction`, which returns early when nothing was delivered).
        let mut p = Prr::start(PrrForm::Rfc6937, 20, 24);
        assert_eq!(p.window(), 24);
        p.on_send();
        let n = p.on_ack(1, 4, 10, true, false); // below ssthresh: sndcnt 2
        assert_eq!((n, p.window()), (2, 6));
        assert_eq!(p.on_ack(0, 3, 10, true, false), 1);
        assert_eq!(p.window(), 6, "an ACK delivering nothing leaves the window");
    }

    #[test]
    fn below_ssthresh_the_flight_grows_back_one_segment_faster_than_delivered() {
        // pipe 4 segments, ssthresh 10: PRR-SSRB allows
        // min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + 1).
        let mut p = Prr::start(PrrForm::Rfc6937, 20, 20);
        p.on_send();
        // prr_delivered = 1, prr_out = 1: max(0, 1) + 1 = 2 (below 10 − 4 = 6).
        assert_eq!(p.on_ack(1, 4, 10, true, false), 2);
        p.on_send();
        p.on_send();
        // A cumulative ACK of 5 segments: prr_delivered = 6, prr_out = 3:
        // max(3, 5) + 1 = 6, but ssthresh − pipe = 10 − 5 = 5.
        assert_eq!(p.on_ack(5, 5, 10, true, false), 5);
    }

    #[test]
    fn the_proportional_part_rounds_up_and_never_goes_negative() {
        // RecoverFS 7, ssthresh 3, fast retransmit sent.
        let mut p = Prr::start(PrrForm::Rfc6937, 7, 7);
        p.on_send();
        assert_eq!(p.on_ack(1, 6, 3, true, false), 0, "⌈3/7⌉ − 1 = 0");
        assert_eq!(p.on_ack(2, 5, 3, true, false), 1, "⌈9/7⌉ − 1 = 1");
        p.on_send();
        // ⌈5·3/7⌉ = 3 − 2 = 1; pipe 4 > 3 still.
        assert_eq!(p.on_ack(2, 4, 3, true, false), 1);
        // No delivery: the count stays where it was, never below zero.
        p.on_send();
        assert_eq!(p.on_ack(0, 4, 3, true, false), 0);
    }

    #[test]
    fn linux_adds_the_extra_segment_only_when_snd_una_advanced_without_new_losses() {
        // tcp_cwnd_reduction (tcp_input.c:2738–2742): below ssthresh,
        // sndcnt = min(ssthresh − in_flight, max(prr_delivered − prr_out, newly_acked_sacked)
        // + (FLAG_SND_UNA_ADVANCED && !newly_lost)).
        let mut p = Prr::start(PrrForm::Linux, 56, 54);
        p.on_send(); // the fast retransmit
                     // A SACK (snd.una still) delivering 1: max(0, 1) = 1, no extra.
        assert_eq!(p.on_ack(1, 20, 37, false, false), 1);
        p.on_send();
        // A cumulative ACK that also marked a loss: still no extra.
        assert_eq!(p.on_ack(1, 20, 37, true, true), 1);
        p.on_send();
        // A cumulative ACK without a new loss: one more than delivered.
        assert_eq!(p.on_ack(1, 20, 37, true, false), 2);
        // RFC 6937's form gives the extra one on every ACK.
        let mut r = Prr::start(PrrForm::Rfc6937, 56, 54);
        r.on_send();
        assert_eq!(r.on_ack(1, 20, 37, false, true), 2);
    }

    #[test]
    fn linux_takes_the_window_at_entry_as_recover_fs() {
        // tcp_init_cwnd_reduction sets prior_cwnd = cwnd; the proportional part divides by
        // it: ⌈prr_delivered · ssthresh / prior_cwnd⌉ − prr_out (tcp_input.c:2733–2736).
        // FlightSize 56, window 54, ssthresh 37: after 27 delivered, ⌈999/54⌉ = 19 against
        // RFC 6937's ⌈999/56⌉ = 18.
        let mut l = Prr::start(PrrForm::Linux, 56, 54);
        let mut r = Prr::start(PrrForm::Rfc6937, 56, 54);
        assert_eq!(l.on_ack(27, 40, 37, false, false), 19);
        assert_eq!(r.on_ack(27, 40, 37, false, false), 18);
    }
}
