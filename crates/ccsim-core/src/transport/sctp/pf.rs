//! CMT-PF (Natarajan et al.; ns-2.35 `Agent/SCTP/CMT` with `useCmtPF_ 1`): a destination
//! whose T3-rtx timer expires is marked *potentially failed* at its first error; it gets
//! no data (new or retransmitted) until a HEARTBEAT sent to it is answered, or new data
//! sent to it earlier is acknowledged. Rules, from ns-2.35's `sctp/sctp-cmt.cc` and
//! `sctp/sctp.cc`:
//!
//! - T3 or heartbeat timeout (`SctpCMTAgent::Timeout`): RTO doubled, errors + 1; the first
//!   error marks an active destination PF; more than Path.Max.Retrans (5,
//!   `pathMaxRetrans_`) errors make it inactive. A HEARTBEAT goes at once to a PF or
//!   inactive destination after a T3, and after every heartbeat timeout; its timeout is
//!   the destination's RTO.
//! - HEARTBEAT ACK (`ProcessHeartbeatAckChunk`, HB-ACK case of `ProcessChunk`): errors
//!   cleared, destination active, an RTT sample from the heartbeat's send time; a PF
//!   destination restarts with cwnd = `pf_cwnd` MTUs (`cmtPFCwnd_`, 2), ssthresh kept.
//! - A SACK newly acknowledging a chunk sent once (`sack.rs`): errors cleared, active.
//! - Every destination PF (`SelectFromPFDests`): the one with the fewest errors (then the
//!   most recently marked, then the lowest index where ns-2 draws at random) is made
//!   active with cwnd = 1 MTU, its T3 and heartbeat timers stopped.
//!
//! Not modelled: the association's abort after Association.Max.Retrans errors, periodic
//! heartbeats of idle destinations (a bulk transfer keeps every destination busy).

use super::sender::{DestStatus, SctpSender};
use super::{FLAG_HEARTBEAT, HEARTBEAT_BYTES};
use crate::packet::{Packet, PacketKind};
use crate::units::SimTime;

/// Errors after which a destination is inactive (ns-2.35 `pathMaxRetrans_`, RFC 4960
/// Path.Max.Retrans).
const PATH_MAX_RETRANS: u32 = 5;

impl SctpSender {
    /// One more error on `d` (after a T3 expiry, whose RTO back-off is done), and the
    /// heartbeat that follows it.
    pub(super) fn count_error(&mut self, now: SimTime, d: usize, out: &mut Vec<Packet>) {
        let dest = &mut self.dests[d];
        dest.errors += 1;
        if dest.status != DestStatus::Inactive {
            if dest.errors == 1 {
                dest.status = DestStatus::PotentiallyFailed;
                dest.pf_since = now;
                dest.hb_deadline = None;
                self.stats.pf_marks += 1;
            }
            if dest.errors > PATH_MAX_RETRANS {
                dest.status = DestStatus::Inactive;
            }
        }
        if self.dests[d].status != DestStatus::Active {
            self.send_heartbeat(now, d, out);
        }
    }

    /// The heartbeat sent to `d` was not answered within the RTO: back off, count the
    /// error, send another.
    pub(super) fn on_heartbeat_timeout(&mut self, now: SimTime, d: usize, out: &mut Vec<Packet>) {
        self.dests[d].hb_deadline = None;
        self.dests[d].rtt.back_off();
        let before = self.dests[d].status;
        self.count_error(now, d, out);
        if before == DestStatus::Active && self.dests[d].status == DestStatus::Active {
            // ns-2 heartbeats on every heartbeat timeout (`heartbeatInterval_` 30 s ≠ 0).
            self.send_heartbeat(now, d, out);
        }
    }

    fn send_heartbeat(&mut self, now: SimTime, d: usize, out: &mut Vec<Packet>) {
        let mut p = Packet::new(
            PacketKind::SctpData,
            self.flow,
            self.dst,
            self.peer,
            HEARTBEAT_BYTES,
        );
        p.flags |= FLAG_HEARTBEAT;
        p.ts = now;
        p.path = if self.pinned { d as u8 + 1 } else { 0 };
        out.push(p);
        self.stats.heartbeats += 1;
        let rto = self.dests[d].rtt.rto();
        self.dests[d].hb_deadline = Some(now + rto);
    }

    /// A HEARTBEAT ACK arrived on the path of the destination it answers.
    pub(super) fn on_heartbeat_ack(&mut self, now: SimTime, pkt: &Packet) {
        let n = self.dests.len();
        let d = if self.pinned {
            (pkt.path as usize).saturating_sub(1).min(n - 1)
        } else {
            0
        };
        let pf_cwnd = self.spec.pf_cwnd as f64;
        let dest = &mut self.dests[d];
        let was_pf = dest.status == DestStatus::PotentiallyFailed;
        dest.status = DestStatus::Active;
        dest.errors = 0;
        dest.hb_deadline = None;
        dest.rtt.sample(now.since(pkt.ts));
        dest.rtt.reset_backoff();
        if was_pf {
            self.cc.on_pf_active(d, pf_cwnd);
        }
    }

    /// With every destination potentially failed, make one active (cwnd 1 MTU) so that
    /// CMT-PF never sends less than CMT would.
    pub(super) fn activate_if_all_failed(&mut self) {
        if self.dests.iter().any(|x| x.status == DestStatus::Active) {
            return;
        }
        let mut pick: Option<usize> = None;
        for (i, x) in self.dests.iter().enumerate() {
            if x.status != DestStatus::PotentiallyFailed {
                continue;
            }
            let better = pick.is_none_or(|b| {
                let y = &self.dests[b];
                x.errors < y.errors || (x.errors == y.errors && x.pf_since > y.pf_since)
            });
            if better {
                pick = Some(i);
            }
        }
        if let Some(d) = pick {
            let dest = &mut self.dests[d];
            dest.status = DestStatus::Active;
            dest.t3 = None;
            dest.hb_deadline = None;
            self.cc.on_pf_active(d, 1.0);
        }
    }
}
