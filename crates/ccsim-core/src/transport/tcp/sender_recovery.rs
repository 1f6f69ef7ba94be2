//! The sender's loss-recovery state machine: what a new or a duplicate ACK does to the
//! recovery phase (RFC 5681 §3.2, RFC 6582, RFC 6675), entering and leaving fast recovery,
//! the loss signal to the controller, and the retransmission timeout (RFC 6298 §5). A child
//! module of `sender` (moved out of sender.rs unchanged), so it works on the sender's state
//! directly.

use super::{Phase, TcpSender};
use crate::cc::{CaState, CongestionControl, CongestionEvent, CongestionKind};
use crate::packet::Packet;
use crate::transport::tcp::config::RecoverySpec;
use crate::transport::tcp::handshake::Handshake;
use crate::transport::tcp::prr::Prr;
use crate::units::{Bytes, Dur, SimTime};

impl TcpSender {
    #[inline] // (moved out of sender.rs: keep it inlined into on_ack as before)
    pub(super) fn ca_state(&self) -> CaState {
        match self.phase {
            Phase::Open => CaState::Open,
            Phase::Recovery { .. } => CaState::Recovery,
            Phase::AfterTimeout { .. } => CaState::Loss,
        }
    }

    #[inline]
    pub(super) fn on_new_ack(&mut self, now: SimTime, acked_bytes: u64, out: &mut Vec<Packet>) {
        let mss = self.mss() as i64;
        let mut restart_timer = true;
        if let Phase::AfterTimeout { recover } = self.phase {
            if self.una >= recover {
                self.phase = Phase::Open;
            }
        }
        if let Phase::Recovery {
            recover,
            partial_seen,
        } = self.phase
        {
            let full = self.una >= recover;
            match self.cfg.recovery {
                // RFC 5681 §3.2 step 6: the first new ACK ends Reno's recovery.
                RecoverySpec::Reno => self.exit_recovery(now),
                _ if full => self.exit_recovery(now),
                RecoverySpec::NewReno => {
                    // RFC 6582 §3.2 step 5: partial ACK. Retransmit the first unacknowledged
                    // segment, deflate by the amount acknowledged, add back one SMSS if at
                    // least one SMSS was acknowledged; reset the timer only the first time.
                    let una = self.una;
                    self.send_segment(now, una, out);
                    self.lost_no_sack += 1;
                    self.inflation -= acked_bytes as i64;
                    if acked_bytes as i64 >= mss {
                        self.inflation += mss;
                    }
                    restart_timer = !partial_seen;
                    self.phase = Phase::Recovery {
                        recover,
                        partial_seen: true,
                    };
                }
                RecoverySpec::Sack
                | RecoverySpec::Sack1
                | RecoverySpec::Fack
                | RecoverySpec::Prr => {}
            }
        }
        // RFC 6298 §5.2–5.3: stop the timer when all is acknowledged, else restart it.
        if self.una >= self.sb.end() {
            self.rto_deadline = None;
        } else if restart_timer {
            self.rto_deadline = Some(self.rtt.deadline(now));
        }
    }

    pub(super) fn on_dupack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        match self.phase {
            Phase::Open | Phase::AfterTimeout { .. } => {
                if self.dupacks == self.cfg.dupthresh && self.recover_guard_allows() {
                    self.enter_recovery(now, out);
                }
            }
            Phase::Recovery { .. } => {
                // RFC 5681 §3.2 step 4: inflate by one SMSS per further duplicate ACK.
                if !self.sack_mode() {
                    self.inflation += self.mss() as i64;
                }
            }
        }
    }

    /// RFC 6582 §3.2 step 1: a new fast retransmit only if the cumulative ACK covers more
    /// than `recover` (the highest segment sent at the last recovery or timeout), so that
    /// duplicate ACKs of an old window start nothing. Plain Reno applies it only after a
    /// timeout, as ns-2's Reno with `bugfix_` does (tcp-reno.cc `timeout` sets `recover_`,
    /// `dupack_action` checks it unless the last window reduction was a fast retransmit):
    /// it may start a second fast retransmit in the window of the first.
    #[inline]
    pub(super) fn recover_guard_allows(&self) -> bool {
        let reno_after_recovery = self.cfg.recovery == RecoverySpec::Reno
            && !matches!(self.phase, Phase::AfterTimeout { .. });
        reno_after_recovery || self.una >= self.recover_guard
    }

    /// Tell the controller of a loss, with the amount its response starts from
    /// (`loss_flight`: FlightSize by default, RFC 5681 §3.1).
    pub(super) fn signal_congestion(&mut self, now: SimTime, kind: CongestionKind) {
        let mss = self.mss();
        let flight_size = self.halved_amount(self.loss_flight(kind));
        self.cc.on_congestion(&CongestionEvent {
            now,
            kind,
            flight_size,
            mss: Bytes(mss),
        });
    }

    pub(super) fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let mss = self.mss();
        let una = self.una;
        if self.sack_mode() {
            // RFC 6675 §5 step (4.3): the first segment presumed lost is resent at once.
            self.sb.mark_one_lost(una);
        }
        let prior_cwnd = self.cc.cwnd().0 / mss;
        self.signal_congestion(now, CongestionKind::FastRetransmit);
        self.ecn.on_loss_reduction(self.sb.end());
        self.fack_restart_on_entry();
        self.stats.fast_recoveries += 1;
        let recover = self.sb.end();
        self.phase = Phase::Recovery {
            recover,
            partial_seen: false,
        };
        self.recover_guard = recover;
        // Linux paces retransmissions as everything else (`tcp_xmit_retransmit_queue` stops
        // at `tcp_pacing_check`, net/ipv4/tcp_output.c:3513 of 6.12): under its pacing
        // the fast retransmit, marked lost above, waits for the send loop's turn.
        let paced = self.pacer.is_some()
            && self.sack_mode()
            && self.cfg.recovery != RecoverySpec::Prr
            && self.cc.pacing_rate().is_some();
        if !self.sack_mode() {
            // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3·SMSS.
            self.inflation = self.cfg.dupthresh as i64 * mss as i64;
            self.lost_no_sack += 1;
        } else if !paced {
            self.note_retransmit(now, una);
        }
        self.timed.cancel();
        self.lt_sent = 0;
        if self.cfg.recovery == RecoverySpec::Prr {
            // RFC 6937 §3: RecoverFS = snd.nxt − snd.una (Linux: the window at entry); the
            // fast retransmit is the first segment PRR counts as sent.
            self.prr = Prr::start(self.cfg.prr, self.sb.end() - una, prior_cwnd);
            self.prr.on_send();
            self.prr_quota = 0;
        }
        if !paced {
            self.send_segment(now, una, out);
        }
        if self.cfg.rto.restart_at_fast_retransmit {
            // ns-2 `reset_rtx_timer(1,0)` at every variant's fast retransmit.
            self.rto_deadline = Some(self.rtt.deadline(now));
        }
    }

    pub(super) fn exit_recovery(&mut self, now: SimTime) {
        // RFC 5681 §3.2 step 6 / RFC 6582 step 4: deflate to ssthresh.
        self.phase = Phase::Open;
        self.inflation = 0;
        self.fack_cwnd = None;
        self.cc.on_recovery_exit(now);
    }

    pub(super) fn on_rto(&mut self, now: SimTime) {
        self.stats.timeouts += 1;
        let expired = self.rtt.rto();
        if self.syn != Handshake::Done {
            self.on_syn_timeout();
            self.log_timeout(now, expired);
            return;
        }
        self.timed.cancel();
        self.signal_congestion(now, CongestionKind::Timeout);
        self.ecn.on_loss_reduction(self.sb.end());
        self.rtt.back_off();
        self.phase = Phase::AfterTimeout {
            recover: self.sb.end(),
        };
        self.inflation = 0;
        self.fack_cwnd = None;
        self.dupacks = 0;
        // RFC 6582 §4: after a timeout, recover = highest segment sent.
        self.recover_guard = self.sb.end();
        if self.sack_mode() {
            self.sb.mark_all_lost();
            if let Some(r) = &mut self.rack {
                r.clear();
            }
        } else {
            // Go back N: resend from the first unacknowledged segment as the window opens.
            self.lost_no_sack += self.sb.end() - self.una;
            self.nxt = self.una;
        }
        self.rto_deadline = Some(self.rtt.deadline(now));
        self.pace_next = now;
        self.log_timeout(now, expired);
    }

    /// A timeout row (`[trace] events`): the timer that expired and the backoff after it.
    fn log_timeout(&mut self, now: SimTime, expired: Dur) {
        if let Some(ev) = &mut self.events {
            ev.record_timeout(now, expired.secs(), self.rtt.backoff());
        }
    }
}
