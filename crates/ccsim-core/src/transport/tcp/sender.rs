//! TCP sender: a sans-IO state machine. It is given ACKs (`on_ack`) and the time
//! (`on_timer`), pushes the segments it sends into an outbox, and reports its next deadline
//! (`next_wakeup`). It never schedules anything itself.
//!
//! Sequence numbers count segments of `mss` payload bytes (the last segment of a finite
//! transfer may be shorter), as in ns-2. Congestion avoidance is delegated to a
//! `CongestionControl`; loss recovery (Reno, NewReno, SACK, Sack1, FACK, PRR) is chosen
//! independently. The optional mechanisms (handshake, limited transmit, PRR's sending rule,
//! the timed segment, the loss-response basis, the controller's rate samples) are in
//! `sender_options.rs`, their tests in `sender_options_tests.rs`; the recovery state machine
//! (new and duplicate ACKs, entering and leaving recovery, the timeout) in
//! `sender_recovery.rs`; a connection's opening and closing in `sender_conn.rs`.

#[path = "sender_conn.rs"]
mod conn;
#[path = "sender_ns2.rs"]
mod ns2;
#[cfg(test)]
#[path = "sender_ns2_tests.rs"]
mod ns2_tests;
#[path = "sender_options.rs"]
mod options;
#[cfg(test)]
#[path = "sender_options_tests.rs"]
mod options_tests;
#[path = "sender_recovery.rs"]
mod recovery;
#[path = "sender_subflow.rs"]
mod subflow;

use super::config::{LostRetransmit, PushFlags, RecoverySpec, TcpSpec};
use super::ecn::EcnSender;
use super::handshake::Handshake;
use super::pacing::{LinuxPacer, Pacing};
use super::path_select::{FlowOutcome, PathSelector};
use super::prr::Prr;
use super::rack::RackRetx;
use super::rate_sample::RateSampler;
use super::rto::{RttEstimator, RttSamples};
use super::scoreboard::Scoreboard;
use super::timed_segment::TimedSegment;
use super::tso_defer::TsoDefer;
use crate::apps::{AppEvent, SenderApp};
use crate::cc::{
    AckEvent, AnyCc, CcContext, CongestionControl, CongestionEvent, CongestionKind, RoundEvent,
};
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{Packet, PacketKind, FLAG_ECE, FLAG_ECHO_RETX, FLAG_NO_ECHO, FLAG_RETX};
use crate::trace::events::{RetxKind, SenderEvents};
use crate::units::{Bytes, Dur, Rate, SimTime};

/// Sender counters for the flow summary.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Data segments sent, retransmissions included.
    pub data_sent: u64,
    /// Retransmitted segments.
    pub retransmissions: u64,
    /// Fast-recovery episodes.
    pub fast_recoveries: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Connections opened.
    pub connections: u64,
    /// When the first connection opened.
    pub first_open: Option<SimTime>,
    /// Window reductions for ECN-Echo (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
}

/// Fast-recovery state (RFC 5681 §3.2, RFC 6582, RFC 6675).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// No recovery in progress.
    Open,
    /// In fast recovery until `recover` (one past the highest segment sent at entry) is
    /// acknowledged; `partial_seen` for NewReno's "reset the timer on the first partial
    /// ACK only" (RFC 6582 §3.2 step 5, the Impatient variant).
    Recovery { recover: u64, partial_seen: bool },
    /// After a retransmission timeout, until everything outstanding at the timeout is
    /// acknowledged: slow start, and with SACK the lost segments go first and `pipe`
    /// governs (RFC 6675 §5.1). Not fast recovery: the controller keeps growing.
    AfterTimeout { recover: u64 },
}

/// TCP sender state.
#[derive(Clone, Debug)]
pub struct TcpSender {
    flow: FlowId,
    dst: NodeId,
    peer: EndpointId,
    cfg: TcpSpec,
    cc: AnyCc,
    rtt: RttEstimator,
    app: SenderApp,
    /// Connection number, stamped on every segment.
    conn: u32,
    /// Whether the current connection may send.
    open: bool,
    /// First unacknowledged segment (snd.una).
    una: u64,
    /// Next segment to send (snd.nxt); below `sb.end()` only after a go-back-N timeout.
    nxt: u64,
    sb: Scoreboard,
    dupacks: u32,
    phase: Phase,
    /// NewReno's `recover` guard: no new recovery until this is acknowledged (RFC 6582 §3.2
    /// step 2, "careful" variant), also set after a timeout (§4).
    recover_guard: u64,
    /// Fast-recovery window inflation in bytes (Reno/NewReno only).
    inflation: i64,
    rto_deadline: Option<SimTime>,
    /// Earliest time the next segment may leave when the controller paces, and Linux's
    /// pacing state (`pacing = "linux"`, `pacing.rs`).
    pace_next: SimTime,
    pacer: Option<Box<LinuxPacer>>,
    pace_timer: Option<SimTime>,
    round_end: u64,
    round_start: SimTime,
    round_min_rtt: Option<Dur>,
    round_delivered: u64,
    delivered: u64,
    /// MPTCP subflows: new segments below this number may be sent (the connection's
    /// scheduler grants them one at a time); `None` for a plain TCP flow.
    grant: Option<u64>,
    /// Counters.
    pub stats: SenderStats,
    /// MATCP: picks the path of each connection (`None`: one path, stamped by the network).
    selector: Option<Box<PathSelector>>,
    /// Path of the current connection (0: not chosen here).
    path: u8,
    /// The current connection's counters, for the selector.
    conn_outcome: FlowOutcome,
    /// The handshake (`Done` when the flow does not model it), and whether a SYN of this
    /// connection was retransmitted.
    syn: Handshake,
    syn_retx: bool,
    /// ns-2's timed segment (`rto.samples = "one_per_rtt"`).
    timed: TimedSegment,
    /// PRR's counters for the current recovery (`recovery = "prr"`), and the segments it
    /// allows to send now.
    prr: Prr,
    prr_quota: u64,
    /// New segments limited transmit sent since the last new ACK: left out of FlightSize at
    /// the fast retransmit (RFC 5681 §3.2 step 2).
    lt_sent: u64,
    /// FACK's window in recovery with `fack_restart` (segments, from 1; `sender_ns2.rs`).
    fack_cwnd: Option<f64>,
    /// Delivery-rate records, only for a controller that asks for rate samples.
    rate: Option<Box<RateSampler>>,
    /// Linux's TSO deferral state (`tso_defer`).
    tso: Option<Box<TsoDefer>>,
    /// `rcv_autotune` or `tso_defer`: `linux_after_send` runs after each send.
    linux_send: bool,
    /// Segments presumed lost without SACK (fast retransmits, NewReno partial-ACK
    /// retransmissions, everything outstanding at a timeout): the rate sample's losses.
    lost_no_sack: u64,
    /// Seed of the controller's random stream (`flow:<name>:cc`); connection k uses
    /// `cc_seed + k`.
    cc_seed: u64,
    /// ECN marking and reaction (RFC 3168 §6.1).
    ecn: EcnSender,
    /// Retransmissions in flight for RACK's lost-retransmission rule (`lost_retransmit =
    /// "rack"` with a SACK recovery; `rack.rs`).
    rack: Option<Box<RackRetx>>,
    /// Retransmissions and timeouts, one row each, when `[trace] events` asks.
    events: Option<Box<SenderEvents>>,
}

impl TcpSender {
    /// A sender for `flow` towards the receiver endpoint `peer` at node `dst`.
    pub fn new(
        flow: FlowId,
        dst: NodeId,
        peer: EndpointId,
        cfg: TcpSpec,
        app: SenderApp,
    ) -> TcpSender {
        let mut cfg = cfg;
        let cc = Self::fresh_cc(&cfg, 0);
        if cfg.recovery == RecoverySpec::Prr && cc.sets_window_in_recovery() {
            // PRR is for controllers that leave recovery's window to the transport
            // (`CongestionControl::sets_window_in_recovery`); BBR's own window governs,
            // and SACK's rule (pipe < cwnd) sends, as Linux's tcp_xmit_recovery does.
            cfg.recovery = RecoverySpec::Sack;
        }
        let ecn = EcnSender::new(cfg.ecn);
        let rack = (cfg.lost_retransmit == LostRetransmit::Rack).then(Box::default);
        let tso = cfg.tso_defer.then(Box::<TsoDefer>::default);
        let linux_send = cfg.rcv_autotune || cfg.tso_defer;
        let pacer = (cfg.pacing == Pacing::Linux).then(Box::default);
        TcpSender {
            flow,
            dst,
            peer,
            rtt: RttEstimator::new(cfg.rto),
            cc,
            cfg,
            app,
            conn: 0,
            open: false,
            una: 0,
            nxt: 0,
            sb: Scoreboard::new(0),
            dupacks: 0,
            phase: Phase::Open,
            recover_guard: 0,
            inflation: 0,
            rto_deadline: None,
            pace_next: SimTime::ZERO,
            pacer,
            pace_timer: None,
            round_end: 0,
            round_start: SimTime::ZERO,
            round_min_rtt: None,
            round_delivered: 0,
            delivered: 0,
            grant: None,
            stats: SenderStats::default(),
            selector: None,
            path: 0,
            conn_outcome: FlowOutcome::default(),
            syn: Handshake::Done,
            syn_retx: false,
            timed: TimedSegment::default(),
            prr: Prr::default(),
            prr_quota: 0,
            lt_sent: 0,
            fack_cwnd: None,
            rate: None,
            linux_send,
            tso,
            lost_no_sack: 0,
            cc_seed: 0,
            ecn,
            rack,
            events: None,
        }
    }

    /// Record retransmissions and timeouts into `events` (`[trace] events`).
    pub fn set_events(&mut self, events: Option<Box<SenderEvents>>) {
        self.events = events;
    }

    /// The recorded retransmissions and timeouts, if any were asked for.
    pub fn take_events(&mut self) -> Option<Box<SenderEvents>> {
        self.events.take()
    }

    /// Seed the controller's own random stream (BBR's gain-cycle phase): the value of the
    /// flow's `flow:<name>:cc` stream.
    pub fn with_cc_seed(mut self, seed: u64) -> TcpSender {
        self.cc_seed = seed; // used from the first connection on (`open_connection`)
        self
    }

    /// Choose each connection's path with MATCP's `selector` (the flow's pinned paths).
    pub fn with_selector(mut self, selector: PathSelector) -> TcpSender {
        self.selector = Some(Box::new(selector));
        self
    }

    /// The path selector, if the flow selects paths.
    pub fn selector(&self) -> Option<&PathSelector> {
        self.selector.as_deref()
    }

    fn fresh_cc(cfg: &TcpSpec, seed: u64) -> AnyCc {
        Self::build_cc(cfg, Bytes(cfg.init_cwnd as u64 * cfg.mss as u64), seed)
    }

    /// The flow's controller starting at `init_cwnd` bytes and the flow's `init_ssthresh`.
    fn build_cc(cfg: &TcpSpec, init_cwnd: Bytes, seed: u64) -> AnyCc {
        let ctx = CcContext {
            mss: Bytes(cfg.mss as u64),
            init_cwnd,
            seed,
        };
        match AnyCc::build(&cfg.cc, ctx) {
            Ok(mut cc) => {
                if let Some(s) = cfg.initial_ssthresh() {
                    cc.set_initial_ssthresh(Bytes(s));
                }
                cc
            }
            // `scenario::assemble` builds every flow's controller once, so this cannot fail.
            Err(e) => unreachable!("controller checked when the scenario was read: {e}"),
        }
    }

    fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    fn sack_mode(&self) -> bool {
        self.cfg.recovery.uses_sack()
    }

    /// The congestion controller.
    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }
    /// The congestion controller, mutably (MPTCP refreshes its coupled controllers' view
    /// of the sibling subflows).
    pub fn cc_mut(&mut self) -> &mut AnyCc {
        &mut self.cc
    }

    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// Its RTT estimator, for the measurement's reports (`Endpoint::each_rtt`).
    pub fn each_rtt(&mut self, f: &mut dyn FnMut(&mut RttEstimator)) {
        f(&mut self.rtt);
    }
    /// The window the sender currently uses, in bytes (cwnd plus recovery inflation).
    pub fn effective_cwnd(&self) -> u64 {
        let c = self.cc.cwnd().0 as i64 + self.inflation;
        c.max(self.mss() as i64) as u64
    }
    /// Whether fast recovery is in progress.
    pub fn in_recovery(&self) -> bool {
        matches!(self.phase, Phase::Recovery { .. })
    }
    /// First unacknowledged segment.
    pub fn snd_una(&self) -> u64 {
        self.una
    }

    /// The earliest time this sender needs to be woken.
    pub fn next_wakeup(&self) -> SimTime {
        let mut t = self.app.next_event().unwrap_or(SimTime::NEVER);
        if let Some(d) = self.rto_deadline {
            t = t.min(d);
        }
        if let Some(d) = self.pace_timer {
            t = t.min(d);
        }
        if self.open {
            if let Some(d) = self.cc.next_timeout() {
                t = t.min(d);
            }
        }
        t
    }

    /// Handle whatever is due at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(ev) = self.app.poll(now) {
            match ev {
                AppEvent::Open => self.open_connection(now),
                AppEvent::Close => self.close_connection(),
            }
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.on_rto(now);
        }
        if self.open && self.cc.next_timeout().is_some_and(|d| d <= now) {
            self.cc.on_timeout(now);
        }
        if self.pace_timer.is_some_and(|d| d <= now) {
            self.pace_timer = None;
        }
        self.try_send(now, out);
    }

    /// Payload bytes of segment `seq`.
    fn payload(&self, seq: u64) -> u64 {
        match self.app.total_bytes() {
            Some(total) => {
                let start = seq * self.mss();
                total.saturating_sub(start).min(self.mss())
            }
            None => self.mss(),
        }
    }

    /// Payload bytes of segments `[0, seq)` (the sum of `payload` over them).
    #[inline]
    fn payload_upto(&self, seq: u64) -> u64 {
        let bytes = seq * self.mss();
        match self.app.total_bytes() {
            Some(total) => bytes.min(total),
            None => bytes,
        }
    }

    /// Whether the application has segment `seq` to send.
    fn app_has(&self, seq: u64) -> bool {
        if let Some(g) = self.grant {
            return seq < g;
        }
        match self.app.total_bytes() {
            Some(total) => seq * self.mss() < total,
            None => true,
        }
    }

    fn send_segment(&mut self, now: SimTime, seq: u64, out: &mut Vec<Packet>) {
        let pacing = self.cc.pacing_rate();
        self.send_segment_paced(now, seq, pacing, out);
    }

    /// `send_segment` with the controller's pacing rate already read (the send loop reads
    /// it once: nothing in the loop changes it).
    #[inline]
    fn send_segment_paced(
        &mut self,
        now: SimTime,
        seq: u64,
        pacing: Option<Rate>,
        out: &mut Vec<Packet>,
    ) {
        let retx = seq < self.sb.end();
        let mut p = Packet::new(
            PacketKind::Data,
            self.flow,
            self.dst,
            self.peer,
            (self.payload(seq) + self.cfg.header as u64) as u32,
        );
        p.seq = seq;
        p.ts = now;
        p.conn = self.conn;
        p.path = self.path;
        self.conn_outcome.sent += 1;
        if let Some(r) = &mut self.rate {
            r.on_send(seq, now, self.delivered, self.sb.outstanding());
        }
        if retx {
            p.flags |= FLAG_RETX;
            self.stats.retransmissions += 1;
            self.conn_outcome.retransmissions += 1;
            if let Some(ev) = &mut self.events {
                let kind = match self.phase {
                    Phase::Recovery { .. } => RetxKind::Fast,
                    Phase::AfterTimeout { .. } => RetxKind::Rto,
                    Phase::Open => RetxKind::Other,
                };
                ev.record_retx(now, seq, kind);
            }
        } else {
            self.sb.push_sent();
            if self.cfg.rto.samples == RttSamples::OnePerRtt {
                self.time_segment(seq, now);
            }
        }
        if self.ecn.enabled() {
            p.flags |= self.ecn.data_flags(retx);
        }
        self.stats.data_sent += 1;
        // RFC 6298 §5.1: start the timer when sending if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.rtt.deadline(now));
        }
        if let Some(rate) = pacing {
            // The payload is paced, as Linux does (the rate applies to the segment's data,
            // `tcp_update_skb_after_send`): a rate from delivered payload bytes then
            // sends payload at that rate.
            let len = rate.tx_time(Bytes(p.size as u64 - self.cfg.header as u64));
            if self.pacer.is_none() {
                self.pace_next = now.max(self.pace_next) + len;
            } else {
                self.linux_pace(now, len, retx);
            }
        }
        out.push(p);
        if self.linux_send {
            // Linux's per-send state (rcv_autotune's echo, TSO deferral's send times): one
            // test here for every other sender.
            self.linux_after_send(seq, now, out);
        }
    }

    #[inline(always)]
    fn window_segments(&self) -> u64 {
        let w = self.fack_limit((self.effective_cwnd() / self.mss()).max(1));
        match self.cfg.max_window {
            Some(m) => w.min(m as u64),
            None => w,
        }
    }

    /// Send whatever the window, the recovery algorithm and the application allow, with
    /// Linux's PSH marks if asked for (`push.rs`).
    #[inline]
    fn try_send(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let start = out.len();
        self.try_send_unmarked(now, out);
        if self.cfg.push_flags != PushFlags::None && out.len() > start + 1 {
            self.mark_push(&mut out[start..]);
        }
    }

    /// `try_send` without the PSH marks.
    fn try_send_unmarked(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if !self.open {
            return;
        }
        if self.syn != Handshake::Done {
            self.send_syn(now, out);
            return;
        }
        let win = self.window_segments();
        let pacing = self.cc.pacing_rate();
        if self.sack_mode() {
            let tso = self.tso.is_some();
            // RFC 6675 §5 step (C): during loss recovery, while cwnd − pipe ≥ 1 SMSS, send
            // NextSeg(). Outside recovery the window limits FlightSize (RFC 5681), so
            // SACKed segments do not release new data before recovery starts.
            loop {
                let in_flight = match (self.phase, self.cfg.recovery) {
                    (Phase::Open, _) => self.sb.outstanding(),
                    // PRR's rule replaces the window during its recovery (RFC 6937).
                    (Phase::Recovery { .. }, RecoverySpec::Prr) => {
                        return self.send_prr(now, pacing, out);
                    }
                    // FACK: awnd = snd.nxt − snd.fack + retransmitted data in flight.
                    (_, RecoverySpec::Fack) => self.sb.awnd(),
                    _ => self.sb.pipe(),
                };
                let mut limited = false;
                if in_flight >= win {
                    // Limited transmit with SACK: in Open, on the first duplicate ACKs, the
                    // pipe governs instead of FlightSize (RFC 6675 §5 step 1).
                    if self.lt_allowance() == 0 || self.sb.pipe() >= win {
                        break;
                    }
                    limited = true;
                }
                // Lost segments are resent only in loss recovery (or after a timeout):
                // outside it, marks from a few SACKs must not trigger retransmissions.
                let lost = if self.phase == Phase::Open {
                    None
                } else {
                    self.sb.next_lost()
                };
                if self.paced_out(now, pacing, lost.is_some()) {
                    break;
                }
                if let Some(seq) = lost {
                    self.send_segment_paced(now, seq, pacing, out);
                    self.note_retransmit(now, seq);
                } else if self.app_has(self.sb.end())
                    && self.sb.end() < self.una + self.max_window_segs()
                {
                    if tso && !limited && self.tso_defers(now, win - in_flight) {
                        break;
                    }
                    let seq = self.sb.end();
                    self.send_segment_paced(now, seq, pacing, out);
                    self.nxt = self.sb.end();
                    self.lt_sent += limited as u64;
                } else {
                    break;
                }
            }
        } else {
            // Limited transmit may send beyond the window (RFC 3042 §2).
            let base = self.una + win;
            let limit = base + self.lt_allowance();
            // ns-2 NewReno's burst limit in fast recovery (`recovery_burst`).
            let mut burst = self.burst_allowance();
            while self.nxt < limit && self.app_has(self.nxt) && burst > 0 {
                let retx = self.nxt < self.sb.end();
                if self.paced_out(now, pacing, retx) {
                    break;
                }
                burst -= 1;
                let seq = self.nxt;
                self.lt_sent += (seq >= base) as u64;
                self.send_segment_paced(now, seq, pacing, out);
                self.nxt += 1;
            }
        }
        if self.rate.is_some() {
            self.check_app_limited(win);
        }
    }

    /// Mark the sender application-limited when the application has nothing more, the
    /// window is not full and no lost segment waits for its retransmission
    /// (`tcp_rate_check_app_limited`, tcp_rate.c:194–208).
    fn check_app_limited(&mut self, win: u64) {
        if self.app_has(self.sb.end()) || self.nxt < self.sb.end() {
            return;
        }
        let in_flight = self.in_flight_segments();
        let lost_waiting = self.phase != Phase::Open && self.sb.next_lost().is_some();
        if in_flight < win && !lost_waiting {
            let mss = self.mss();
            if let Some(r) = &mut self.rate {
                r.mark_app_limited(self.delivered, in_flight * mss);
            }
        }
    }

    /// Segments presumed lost so far on this connection.
    fn lost_total(&self) -> u64 {
        self.sb.lost_total() + self.lost_no_sack
    }

    fn max_window_segs(&self) -> u64 {
        self.cfg.max_window.map_or(u64::MAX / 2, |m| m as u64)
    }

    /// Process an ACK.
    pub fn on_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.conn != self.conn || !self.open {
            return; // an ACK for a connection that is over
        }
        if self.fack_cwnd.is_some() {
            self.fack_open_cwnd(); // ns-2 FACK's opencwnd() on every ACK in recovery
        }
        let ack = pkt.seq.min(self.sb.end());
        let prior_in_flight = self.in_flight_segments();
        let prior_lost = self.lost_total();
        let prior_delivered = self.delivered;
        let rtt = if self.cfg.rto.samples == RttSamples::OnePerRtt {
            // The estimator takes the timed segment only; the controller still sees every
            // ACK's echo (Karn's rule applied), as ns-2's Vegas (`v_sendtime_`,
            // tcp-vegas.cc) and FAST (`sendtime_`, tcp-fast.cc `recv`) time each packet
            // themselves whatever `timestamps_` is.
            self.sample_timed(now, ack);
            (pkt.flags & FLAG_ECHO_RETX == 0).then(|| self.note_echo_sample(now.since(pkt.ts)))
        } else if (pkt.flags & FLAG_ECHO_RETX == 0
            || (!self.cfg.rto.karn && pkt.flags & FLAG_NO_ECHO == 0))
            && (self.cfg.rto.samples == RttSamples::EveryAck || ack > self.una)
        {
            // Karn's rule (unless `rto.karn = false`): no sample from an ACK echoing a
            // retransmitted segment; with `new_ack` none from an ACK that does not advance
            // SND.UNA (RFC 7323 §4, RTTM rule).
            let r = now.since(pkt.ts);
            self.take_sample(now, r, ack);
            Some(r)
        } else {
            None
        };
        let mut newly_sacked = 0;
        if self.sack_mode() {
            for i in 0..pkt.nsack as usize {
                let b = pkt.sack_block(i);
                newly_sacked += self.sb.sack(b.start, b.end);
            }
            if let Some(r) = &mut self.rate {
                r.on_scoreboard_sacks(&mut self.sb);
            }
            if let Some(r) = &mut self.rack {
                r.detect(&mut self.sb);
            }
        }
        let mss = self.mss();
        let mut acked_bytes = 0;
        let mut fresh = 0;
        if ack > self.una {
            acked_bytes = self.payload_upto(ack) - self.payload_upto(self.una);
            fresh = self.sb.ack_to(ack);
            if let Some(r) = &mut self.rate {
                r.on_cumulative_ack(ack);
            }
            self.delivered += fresh * mss;
            self.una = ack;
            if let Some(d) = &mut self.tso {
                d.on_ack(ack);
            }
            self.nxt = self.nxt.max(ack);
            self.dupacks = 0;
            self.lt_sent = 0;
            self.on_new_ack(now, acked_bytes, out);
        } else if ack == self.una && self.una < self.sb.end() {
            self.dupacks += 1;
            self.on_dupack(now, out);
        }
        self.delivered += newly_sacked * mss;
        if self.sack_mode() {
            self.sb.mark_lost(self.loss_threshold());
            // FACK: enter recovery when the forward-most SACK is more than DupThresh
            // segments above snd.una (Mathis & Mahdavi 1996 §4), not only on dupacks.
            if !self.in_recovery()
                && self.cfg.recovery == RecoverySpec::Fack
                && self.sb.fack() - self.una > self.cfg.dupthresh as u64
                && self.recover_guard_allows()
            {
                self.enter_recovery(now, out);
            }
            // RFC 6675 §5: enter recovery when IsLost(HighACK + 1), not only on DupThresh.
            if !self.in_recovery()
                && matches!(self.cfg.recovery, RecoverySpec::Sack | RecoverySpec::Prr)
                && self.sb.is_lost(self.una)
                && self.recover_guard_allows()
            {
                self.enter_recovery(now, out);
            }
            if self.cfg.recovery == RecoverySpec::Prr && self.in_recovery() {
                let newly_lost = self.lost_total() > prior_lost;
                self.prr_on_ack(fresh + newly_sacked, fresh > 0, newly_lost);
            }
        }
        let ece = self.ecn.enabled() && pkt.flags & FLAG_ECE != 0;
        if self.ecn.enabled() {
            self.cc.on_ecn_feedback(Bytes(acked_bytes), ece);
        }
        let ev = AckEvent {
            now,
            acked: Bytes(acked_bytes),
            sacked: Bytes(newly_sacked * mss),
            rtt,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            in_flight: Bytes(self.in_flight_segments() * mss),
            delivered: Bytes(self.delivered),
            in_recovery: self.in_recovery(),
            mss: Bytes(mss),
        };
        self.cc.on_ack(&ev);
        if self.rate.is_some() {
            let echo = (pkt.flags & FLAG_NO_ECHO == 0).then_some(pkt.ts);
            self.rate_sample(
                &ev,
                echo,
                prior_in_flight * mss,
                prior_lost,
                prior_delivered,
            );
        }
        if ack >= self.round_end && ack > 0 && acked_bytes > 0 {
            let ev = RoundEvent {
                now,
                min_rtt_in_round: self.round_min_rtt.take(),
                delivered_in_round: Bytes(self.delivered - self.round_delivered),
                duration: now.since(self.round_start),
            };
            self.cc.on_round(&ev);
            self.round_end = self.sb.end().max(ack + 1);
            self.round_start = now;
            self.round_delivered = self.delivered;
        }
        // RFC 3168 §6.1.2: reduce once per window for ECN-Echo, after the controller saw
        // this ACK and its round (DCTCP's α is then up to date, as in Linux tcp_dctcp.c).
        if ece
            && self
                .ecn
                .on_ack(true, self.una, self.sb.end(), self.phase != Phase::Open)
        {
            self.stats.ecn_reductions += 1;
            let mss = self.mss();
            self.cc.on_ecn_echo(&CongestionEvent {
                now,
                kind: CongestionKind::FastRetransmit,
                flight_size: Bytes((self.sb.end() - self.una) * mss),
                mss: Bytes(mss),
            });
        }
        if self.app.total_bytes().is_some() && !self.app_has(self.una) {
            // Everything acknowledged: the transfer is complete.
            self.rto_deadline = None;
            self.open = false;
            return;
        }
        self.try_send(now, out);
    }

    /// Segments considered in flight: RFC 6675 pipe with SACK, else snd.nxt − snd.una.
    pub fn in_flight_segments(&self) -> u64 {
        if self.sack_mode() {
            self.sb.pipe()
        } else {
            self.nxt - self.una
        }
    }

    /// A one-line dump of the sequence state, for debugging.
    pub fn debug_state(&self) -> String {
        format!(
            "una={} nxt={} end={} dupacks={} phase={:?} infl={} rto={:?} guard={}",
            self.una,
            self.nxt,
            self.sb.end(),
            self.dupacks,
            self.phase,
            self.inflation,
            self.rto_deadline.map(|d| d.secs()),
            self.recover_guard
        )
    }

    /// Bytes handed to the network that the receiver has acknowledged or SACKed.
    pub fn delivered(&self) -> Bytes {
        Bytes(self.delivered)
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
