//! The sender's optional mechanisms, each off by default (docs/tcp.md §10): the handshake,
//! limited transmit, PRR's sending rule, RTT samples (every ACK or one timed segment) and
//! what the loss response starts from. A child module of `sender`, so it works on the
//! sender's state directly.

use super::{Phase, TcpSender};
use crate::cc::{AckEvent, CongestionControl, CongestionKind};
use crate::packet::{Packet, FLAG_ECHO_RETX};
use crate::transport::tcp::config::{LossFlight, LossMarking, RecoverySpec};
use crate::transport::tcp::handshake::{self, Handshake};
use crate::transport::tcp::rate_sample::RateSampler;
use crate::transport::tcp::rto::RtoEstimator;
use crate::transport::tcp::rto::Sample;
use crate::units::{Bytes, Dur, Rate, SimTime};

impl TcpSender {
    /// Feed one valid RTT sample `r` (the ACK covers everything below `ack`) to the
    /// estimator and the per-round and per-connection minima.
    #[inline(always)]
    pub(super) fn take_sample(&mut self, now: SimTime, r: Dur, ack: u64) {
        if self.cfg.rto.estimator == RtoEstimator::Rfc6298 {
            self.rtt.sample(r);
        } else {
            self.rtt.sample_tcp(Sample {
                rtt: r,
                now,
                una: ack.max(self.una),
                nxt: self.sb.end(),
            });
        }
        self.rtt.reset_backoff();
        self.note_echo_sample(r);
    }

    /// An RTT sample for the controller and the per-round and per-connection minima (every
    /// sample the estimator takes, and with one timed segment per RTT every ACK's echo).
    pub(super) fn note_echo_sample(&mut self, r: Dur) -> Dur {
        self.round_min_rtt = Some(self.round_min_rtt.map_or(r, |m| m.min(r)));
        let o = &mut self.conn_outcome;
        o.min_rtt = Some(o.min_rtt.map_or(r, |m| m.min(r)));
        r
    }

    /// ns-2 without timestamps: a sample only when a new ACK covers the timed segment
    /// (`timed_segment.rs`). A NewReno partial ACK ends the timing and the backoff but gives
    /// no sample (tcp-newreno.cc:84–87).
    #[cold]
    #[inline(never)]
    pub(super) fn sample_timed(&mut self, now: SimTime, ack: u64) -> Option<Dur> {
        if ack <= self.una {
            return None;
        }
        let sent = self.timed.on_ack(ack)?;
        if let Phase::Recovery { recover, .. } = self.phase {
            if self.cfg.recovery == RecoverySpec::NewReno && ack < recover {
                self.rtt.reset_backoff();
                return None;
            }
        }
        let r = now.since(sent);
        self.take_sample(now, r, ack);
        Some(r)
    }

    /// A new segment left: time it if none is being timed (`timed_segment.rs`).
    #[cold]
    #[inline(never)]
    pub(super) fn time_segment(&mut self, seq: u64, now: SimTime) {
        self.timed.on_new_segment(seq, now);
    }

    /// Limited transmit (RFC 3042 §2): while the first DupThresh − 1 duplicate ACKs arrive
    /// in `Open`, each lets one new segment beyond the window (FlightSize ≤ cwnd + 2·SMSS
    /// with DupThresh 3). With SACK the pipe governs instead (RFC 6675 §5 step 1).
    #[inline]
    pub(super) fn lt_allowance(&self) -> u64 {
        if self.cfg.limited_transmit
            && self.phase == Phase::Open
            && self.dupacks > 0
            && self.dupacks < self.cfg.dupthresh
        {
            self.dupacks as u64
        } else {
            0
        }
    }

    /// What the loss response starts from (`ssthresh_from`): FlightSize without the
    /// segments limited transmit sent (RFC 5681 §3.2 step 2, RFC 6675 §5 step 4.2), the
    /// pipe (ns-3's `BytesInFlight`), or cwnd (Linux `tcp_reno_ssthresh`).
    pub(super) fn loss_flight(&self, kind: CongestionKind) -> Bytes {
        let mss = self.mss();
        let outstanding = self.sb.end() - self.una;
        Bytes(match self.cfg.ssthresh_from {
            LossFlight::FlightSize if kind == CongestionKind::FastRetransmit => {
                (outstanding - self.lt_sent.min(outstanding)) * mss
            }
            LossFlight::FlightSize => outstanding * mss,
            LossFlight::Pipe if self.sack_mode() => self.sb.pipe() * mss,
            // Without SACK each duplicate ACK is a segment that left the network (ns-3
            // `TcpTxBuffer::AddRenoSack`, Linux `tcp_add_reno_sack`).
            LossFlight::Pipe => outstanding.saturating_sub(self.dupacks as u64) * mss,
            LossFlight::Cwnd => self.cc.cwnd().0,
        })
    }

    /// The window as the kernel reports it (`tcpi_snd_cwnd`), in bytes: during PRR's
    /// recovery RFC 6937's pipe + sndcnt (`prr.rs`), otherwise the window in use.
    pub fn reported_cwnd(&self) -> u64 {
        if self.cfg.recovery == RecoverySpec::Prr && self.in_recovery() {
            (self.prr.window() * self.mss()).max(self.mss())
        } else {
            self.effective_cwnd()
        }
    }

    /// How many SACKed segments above an un-SACKed one make it lost (`mark_lost`).
    #[inline]
    pub(super) fn loss_threshold(&self) -> u64 {
        let dupthresh = self.cfg.dupthresh as u64;
        match self.cfg.recovery {
            // ns-2 Sack1 and FACK: every hole below the highest SACK is lost.
            RecoverySpec::Sack1 | RecoverySpec::Fack => 1,
            // RACK with reo_wnd 0 (in recovery, or once DupThresh segments are SACKed, with
            // no reordering seen: `tcp_rack_reo_wnd`, net/ipv4/tcp_recovery.c:5–30): what was
            // sent before a SACKed segment (`tcp_rack_detect_loss`, :51–93).
            _ if self.cfg.loss_marking == LossMarking::Rack
                && (self.in_recovery() || self.sb.sacked() >= dupthresh) =>
            {
                1
            }
            _ => dupthresh,
        }
    }

    /// RFC 6937: an ACK in recovery delivered `delivered` segments, advanced snd.una or
    /// not and marked losses or not; how many may go now.
    pub(super) fn prr_on_ack(&mut self, delivered: u64, una_advanced: bool, newly_lost: bool) {
        let ssthresh = self.cc.ssthresh().0 / self.mss();
        self.prr_quota = self.prr.on_ack(
            delivered,
            self.sb.pipe(),
            ssthresh,
            una_advanced,
            newly_lost,
        );
    }

    /// Send what PRR allows: lost segments first, then new data (RFC 6675 NextSeg).
    #[inline(never)]
    pub(super) fn send_prr(&mut self, now: SimTime, pacing: Option<Rate>, out: &mut Vec<Packet>) {
        while self.prr_quota > 0 {
            let lost = self.sb.next_lost();
            if self.paced_out(now, pacing, lost.is_some()) {
                break;
            }
            if let Some(seq) = lost {
                self.send_segment_paced(now, seq, pacing, out);
                self.note_retransmit(now, seq);
            } else if self.app_has(self.sb.end())
                && self.sb.end() < self.una + self.max_window_segs()
            {
                let seq = self.sb.end();
                self.send_segment_paced(now, seq, pacing, out);
                self.nxt = self.sb.end();
            } else {
                break;
            }
            self.prr_quota -= 1;
            self.prr.on_send();
        }
    }

    /// Linux's PSH marks on what one transmission sent (`push.rs`): GSO packets of
    /// `tcp_tso_autosize` segments from the window, ssthresh, RTTs and packets out now.
    #[cold]
    #[inline(never)]
    pub(super) fn mark_push(&self, sent: &mut [Packet]) {
        crate::transport::tcp::push::mark(sent, self.gso_segs());
    }

    /// Whether pacing (at `pacing`, the controller's rate) holds the next segment back, and
    /// arm the pacing timer if so.
    #[inline]
    /// `retx`: the next segment is a retransmission.
    pub(super) fn paced_out(&mut self, now: SimTime, pacing: Option<Rate>, retx: bool) -> bool {
        if pacing.is_some() && self.pace_holds(now, retx) {
            self.pace_timer = Some(self.pace_next);
            return true;
        }
        false
    }

    /// Whether pacing holds the next segment (`retx`: a retransmission) at `now` (Linux's
    /// pacing lets the rest of a GSO burst go at the instant it started).
    #[inline]
    pub(super) fn pace_holds(&self, now: SimTime, retx: bool) -> bool {
        self.pace_next > now
            && self
                .pacer
                .as_ref()
                .is_none_or(|p| p.holds(now, self.pace_next, retx))
    }

    /// Linux's pacing after a segment whose payload takes `len` at the rate (`pacing.rs`):
    /// the burst is the GSO packet size now, one segment for a retransmission (the lost
    /// skb, which SACK processing cut to what was lost: `tcp_retransmit_skb`).
    #[cold]
    #[inline(never)]
    pub(super) fn linux_pace(&mut self, now: SimTime, len: Dur, retx: bool) {
        let burst = if retx { 1 } else { self.gso_segs() };
        if let Some(p) = &mut self.pacer {
            self.pace_next = p.after_send(now, self.pace_next, len, burst);
        }
    }

    /// Segments per GSO packet now (`tcp_tso_autosize`): from the controller's pacing rate
    /// if it paces (`push::autosize`), else from the rate Linux derives from the window
    /// (`push::tso_segs`).
    pub(super) fn gso_segs(&self) -> u64 {
        let mss = self.mss();
        if let Some(rate) = self.cc.pacing_rate() {
            let bytes_per_s = (rate.0 / 8) as u128;
            let min = self.cc.min_tso_segs();
            return crate::transport::tcp::push::autosize(
                bytes_per_s,
                mss,
                self.rtt.min_rtt(),
                min,
            );
        }
        crate::transport::tcp::push::tso_segs(
            self.cc.cwnd().0 / mss,
            self.cc.ssthresh().0 / mss,
            self.sb.outstanding(),
            mss,
            self.rtt.srtt(),
            self.rtt.min_rtt(),
        )
    }

    /// After a send with `rcv_autotune` or `tso_defer`: the packet just pushed carries the
    /// newest ACK's number (the timestamp it echoes, `rcv_autotune.rs`; stamped in the
    /// outbox, since a test on the packet being built cost every sender a copy of it), and
    /// TSO deferral keeps its send time.
    #[cold]
    #[inline(never)]
    pub(super) fn linux_after_send(&mut self, seq: u64, now: SimTime, out: &mut [Packet]) {
        if self.cfg.rcv_autotune {
            if let Some(p) = out.last_mut() {
                p.set_echoed_ack(self.una);
            }
        }
        if let Some(d) = &mut self.tso {
            d.on_send(seq, now);
        }
    }

    /// Whether Linux's TSO deferral holds back the next new segment (`tso_defer.rs`), with
    /// `quota` segments allowed by the window; never in recovery.
    #[cold]
    #[inline(never)]
    pub(super) fn tso_defers(&self, now: SimTime, quota: u64) -> bool {
        if self.phase != Phase::Open {
            return false;
        }
        let Some(d) = &self.tso else { return false };
        let cwnd = self.cc.cwnd().0 / self.mss();
        d.defer(now, quota, cwnd, self.gso_segs(), self.rtt.srtt())
    }

    /// Send the SYN if one is due, and time it.
    #[cold]
    #[inline(never)]
    pub(super) fn send_syn(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.syn == Handshake::SynDue {
            out.push(handshake::syn(
                self.flow,
                self.dst,
                self.peer,
                self.cfg.header,
                self.conn,
                self.path,
                now,
                self.syn_retx,
            ));
            self.syn = Handshake::SynSent;
            if self.rto_deadline.is_none() {
                self.rto_deadline = Some(self.rtt.deadline(now));
            }
        }
    }

    /// The SYN timed out: back off and send it again (RFC 6298 §5.5–5.6).
    pub(super) fn on_syn_timeout(&mut self) {
        self.rtt.back_off();
        self.syn = Handshake::SynDue;
        self.syn_retx = true;
        self.rto_deadline = None;
    }

    /// A SYN-ACK: the first for the current connection's SYN establishes it; any other (a
    /// duplicate, or one for an older connection) is ignored.
    #[cold]
    #[inline(never)]
    pub fn on_syn_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.conn != self.conn || !self.open || self.syn != Handshake::SynSent {
            return;
        }
        let retx = self.syn_retx;
        self.syn = Handshake::Done;
        self.rto_deadline = None;
        let sampled = pkt.flags & FLAG_ECHO_RETX == 0;
        let rtt = if sampled {
            now.since(pkt.ts)
        } else {
            Dur::ZERO
        };
        if sampled {
            self.take_sample(now, rtt, 0);
        }
        if retx {
            self.rtt.reset_backoff();
            if !sampled {
                self.rtt.after_syn_timeout(); // RFC 6298 §5.7
            }
            // RFC 5681 §3.1: after a lost SYN or SYN-ACK the initial window is one segment.
            let seed = self.cc_seed.wrapping_add(self.conn as u64);
            self.cc = Self::build_cc(&self.cfg, Bytes(self.mss()), seed);
        }
        // The connection's only RTT sample so far is the handshake's.
        self.cc.on_established(now, self.rtt.srtt(), rtt);
        self.pace_next = now;
        self.round_start = now;
        self.try_send(now, out);
    }

    /// Build this ACK's delivery-rate sample and hand it to the controller (Linux
    /// `tcp_rate_gen` then `cong_control`); `echo` is the timestamp the ACK echoes.
    pub(super) fn rate_sample(
        &mut self,
        ev: &AckEvent,
        echo: Option<SimTime>,
        prior_in_flight: u64,
        prior_lost: u64,
        prior_delivered: u64,
    ) {
        let mss = self.mss();
        let losses = (self.lost_total() - prior_lost) * mss;
        let ca_state = self.ca_state();
        let min_rtt = self.rtt.min_rtt();
        let Some(r) = &mut self.rate else {
            return;
        };
        let mut rs = r.generate(
            ev.now,
            self.delivered,
            self.delivered - prior_delivered,
            losses,
            prior_in_flight,
            min_rtt,
            ca_state,
        );
        rs.next_departure = self.pace_next.max(ev.now);
        let ts_rtt = echo.map(|ts| RateSampler::timestamp_rtt(ev.now, ts));
        rs.rtt = r.take_rtt(ev.now, ts_rtt.filter(|_| ev.acked.0 > 0));
        self.cc.on_rate_sample(ev, &rs);
        if self.cc.marks_app_limited() {
            let in_flight = self.in_flight_segments() * mss;
            if let Some(r) = &mut self.rate {
                r.mark_app_limited(self.delivered, in_flight);
            }
        }
    }

    /// Segment `seq` was retransmitted (SACK recoveries): the scoreboard counts it in
    /// flight, and RACK's rule (`lost_retransmit = "rack"`) remembers what had been sent.
    #[inline]
    pub(super) fn note_retransmit(&mut self, now: SimTime, seq: u64) {
        self.sb.on_retransmit(seq);
        if self.cfg.rto.restart_on_head_retransmit && seq == self.una {
            // Linux tcp_xmit_retransmit_queue: resending the head re-arms the timer.
            self.rto_deadline = Some(self.rtt.deadline(now));
        }
        if let Some(r) = &mut self.rack {
            r.on_retransmit(seq, self.sb.end());
        }
    }
}
