//! The sender as an MPTCP subflow: the connection grants it new segments one at a time
//! and asks whether one would leave now. A child module of `sender`.

use super::{Phase, TcpSender};
use crate::cc::CongestionControl;
use crate::packet::Packet;
use crate::transport::tcp::config::RecoverySpec;
use crate::transport::tcp::handshake::Handshake;
use crate::units::SimTime;

impl TcpSender {
    /// Make this sender an MPTCP subflow: it sends new segments only as granted.
    pub fn with_grants(mut self) -> TcpSender {
        self.grant = Some(0);
        self
    }
    /// Segments sent so far for the first time (the next new segment's number).
    pub fn next_new(&self) -> u64 {
        self.sb.end()
    }
    /// Allow new segments below `g` (MPTCP subflows).
    pub fn set_grant(&mut self, g: u64) {
        self.grant = Some(g);
    }
    /// Whether the connection is open for sending.
    pub fn is_open(&self) -> bool {
        self.open
    }
    /// Whether a newly granted segment would leave now: the window has room for a new
    /// segment once retransmissions are served, and pacing does not hold it back.
    pub fn can_send_new(&mut self, now: SimTime) -> bool {
        if !self.open || self.syn != Handshake::Done {
            return false;
        }
        if self.cc.pacing_rate().is_some() && self.pace_holds(now, false) {
            return false;
        }
        let win = self.window_segments();
        if self.sack_mode() {
            // The limits of `try_send`'s SACK loop.
            let room = match (self.phase, self.cfg.recovery) {
                (Phase::Open, _) => {
                    self.sb.outstanding() < win || (self.lt_allowance() > 0 && self.sb.pipe() < win)
                }
                (Phase::Recovery { .. }, RecoverySpec::Prr) => self.prr_quota > 0,
                (_, RecoverySpec::Fack) => self.sb.awnd() < win,
                _ => self.sb.pipe() < win,
            };
            if !room || self.sb.end() >= self.una + self.max_window_segs() {
                return false;
            }
            self.phase == Phase::Open || self.sb.next_lost().is_none()
        } else {
            self.nxt == self.sb.end() && self.nxt < self.una + win + self.lt_allowance()
        }
    }
    /// Send whatever the window, recovery and grants allow.
    pub fn pump(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.try_send(now, out);
    }
    /// Stop sending (the MPTCP connection's transfer is complete).
    pub fn stop(&mut self) {
        self.close_connection();
    }
}
