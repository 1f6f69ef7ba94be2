//! ECN in TCP: the sender's marking and reaction (RFC 3168 §6.1) and the receiver's echo,
//! either RFC 3168's (ECE latched until CWR) or DCTCP's per-packet echo (RFC 8257 §3.2).
//!
//! No handshake is simulated: with `ecn` on, both ends behave as if ECN had been
//! negotiated (RFC 3168 §6.1.1).
//!
//! - Sender (`EcnSender`): new data segments carry ECT; retransmissions do not (RFC 3168
//!   §6.1.5). An ACK with ECE makes the sender reduce its window once per window of data
//!   (§6.1.2): the reduction is the controller's response to a loss found by fast
//!   retransmit, or its own (`CongestionControl::on_ecn_echo`, DCTCP's α/2), without
//!   retransmitting anything. Further ECE is ignored until every segment sent before the
//!   reduction is acknowledged; ECE during loss recovery is ignored too (the window was
//!   already reduced for that window of data). The next new segment carries CWR.
//! - Receiver (`EcnReceiver`): RFC 3168 §6.1.3 sets ECE on every ACK from the first CE
//!   segment until a segment with CWR arrives. DCTCP's receiver (RFC 8257 §3.2) instead
//!   echoes the CE state of the segments each ACK covers: ECE = the CE bit of the last
//!   segment received, and when that bit changes while a delayed ACK is pending, the
//!   segments held so far are acknowledged at once with the old state, so that the sender
//!   can count exactly how many bytes were marked.

use serde::{Deserialize, Serialize};

use crate::packet::{FLAG_CWR, FLAG_ECT};

/// How a TCP flow uses ECN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EcnMode {
    /// Not ECN-capable: queues drop instead of marking (the default).
    #[default]
    Off,
    /// RFC 3168: ECT data, ECE latched until CWR, once-per-window reduction.
    Rfc3168,
    /// RFC 8257 §3.2: as RFC 3168 at the sender, with DCTCP's per-packet echo.
    Dctcp,
}

/// The sender's ECN state (RFC 3168 §6.1.2).
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnSender {
    mode: EcnMode,
    /// A reduction happened and the next new segment has not yet carried CWR.
    cwr_pending: bool,
    /// ECE is ignored until the cumulative ACK passes this segment: one past the highest
    /// segment sent when the window was last reduced.
    reduced_below: Option<u64>,
}

impl EcnSender {
    /// A sender with ECN `mode`.
    pub fn new(mode: EcnMode) -> EcnSender {
        EcnSender {
            mode,
            ..EcnSender::default()
        }
    }

    /// Whether ECN is on.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.mode != EcnMode::Off
    }

    /// Forget the state of a finished connection.
    pub fn restart(&mut self) {
        *self = EcnSender::new(self.mode);
    }

    /// The ECN flags of a data segment: ECT on new data only (RFC 3168 §6.1.5), and CWR on
    /// the first new segment after a reduction (§6.1.2).
    #[inline]
    pub fn data_flags(&mut self, retransmission: bool) -> u8 {
        if self.mode == EcnMode::Off || retransmission {
            return 0;
        }
        if std::mem::take(&mut self.cwr_pending) {
            FLAG_ECT | FLAG_CWR
        } else {
            FLAG_ECT
        }
    }

    /// An ACK with ECE (`ece`) arrived, acknowledging up to `una`; `sent_end` is one past
    /// the highest segment sent and `recovering` says whether loss recovery is in progress.
    /// Returns whether the sender reduces its window now (at most once per window).
    pub fn on_ack(&mut self, ece: bool, una: u64, sent_end: u64, recovering: bool) -> bool {
        if !ece || self.mode == EcnMode::Off || recovering {
            return false;
        }
        // Segment `r` (the first sent after the last reduction, which carried CWR) starts
        // the next window: ECE on an ACK that has not acknowledged it is about data sent
        // before the reduction.
        if self.reduced_below.is_some_and(|r| una <= r) {
            return false;
        }
        self.reduced_below = Some(sent_end);
        self.cwr_pending = true;
        true
    }

    /// A loss reduction (fast retransmit or timeout) counts as this window's reduction:
    /// the next segment carries CWR, so that a RFC 3168 receiver stops echoing.
    pub fn on_loss_reduction(&mut self, sent_end: u64) {
        if self.enabled() {
            self.reduced_below = Some(sent_end);
            self.cwr_pending = true;
        }
    }
}

/// The receiver's ECN state.
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnReceiver {
    mode: EcnMode,
    /// RFC 3168: ECE latched since a CE segment, until a CWR segment.
    /// DCTCP: the CE bit of the last segment received (DCTCP.CE, RFC 8257 §3.2).
    ece: bool,
}

impl EcnReceiver {
    /// A receiver with ECN `mode`.
    pub fn new(mode: EcnMode) -> EcnReceiver {
        EcnReceiver { mode, ece: false }
    }

    /// Forget the state of a finished connection.
    pub fn restart(&mut self) {
        self.ece = false;
    }

    /// Whether ECN is on (a flow without it never sees CE: its segments are not ECT).
    #[inline]
    pub fn enabled(&self) -> bool {
        self.mode != EcnMode::Off
    }

    /// Whether a segment arriving with CE (`ce`) must first have the segments received
    /// before it acknowledged at once (`ack_pending`: they wait for a delayed ACK), with
    /// the current ECE state: DCTCP's change of state (RFC 8257 §3.2).
    #[inline]
    pub fn flush_before(&self, ce: bool, ack_pending: bool) -> bool {
        self.mode == EcnMode::Dctcp && ack_pending && ce != self.ece
    }

    /// A data segment arrived with CE (`ce`) and CWR (`cwr`).
    #[inline]
    pub fn on_data(&mut self, ce: bool, cwr: bool) {
        match self.mode {
            EcnMode::Off => {}
            EcnMode::Rfc3168 => {
                // §6.1.3: CWR stops the echo; a CE segment (even one carrying CWR)
                // starts it again.
                if cwr {
                    self.ece = false;
                }
                self.ece |= ce;
            }
            // RFC 8257 §3.2: the state is the CE bit of the last segment received.
            EcnMode::Dctcp => self.ece = ce,
        }
    }

    /// Whether the ACK sent now carries ECE.
    #[inline]
    pub fn ece(&self) -> bool {
        self.ece
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ect_on_new_data_only_and_cwr_once_after_a_reduction() {
        let mut s = EcnSender::new(EcnMode::Rfc3168);
        assert_eq!(s.data_flags(false), FLAG_ECT);
        // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
        assert_eq!(s.data_flags(true), 0);
        assert!(s.on_ack(true, 10, 20, false));
        assert_eq!(s.data_flags(true), 0, "CWR waits for new data");
        assert_eq!(s.data_flags(false), FLAG_ECT | FLAG_CWR);
        assert_eq!(s.data_flags(false), FLAG_ECT);
        let mut off = EcnSender::new(EcnMode::Off);
        assert_eq!(off.data_flags(false), 0);
        assert!(!off.on_ack(true, 10, 20, false));
    }

    #[test]
    fn reacts_at_most_once_per_window_of_data() {
        // RFC 3168 §6.1.2: no second reduction for ECE about data sent before the first.
        let mut s = EcnSender::new(EcnMode::Rfc3168);
        assert!(!s.on_ack(false, 5, 20, false));
        assert!(s.on_ack(true, 5, 20, false));
        for una in 6..=20 {
            assert!(!s.on_ack(true, una, 30, false), "una {una}");
        }
        // Segment 20 was the first sent after the reduction: its ACK opens a new window.
        assert!(s.on_ack(true, 21, 35, false));
        assert!(!s.on_ack(true, 30, 40, false));
    }

    #[test]
    fn ece_in_loss_recovery_is_ignored_and_a_loss_reduction_counts() {
        let mut s = EcnSender::new(EcnMode::Dctcp);
        assert!(!s.on_ack(true, 5, 20, true));
        s.on_loss_reduction(20);
        assert!(!s.on_ack(true, 15, 25, false));
        assert_eq!(s.data_flags(false), FLAG_ECT | FLAG_CWR);
        assert!(s.on_ack(true, 21, 30, false));
    }

    #[test]
    fn rfc3168_receiver_latches_ece_until_cwr() {
        let mut r = EcnReceiver::new(EcnMode::Rfc3168);
        assert!(!r.ece());
        r.on_data(true, false);
        assert!(r.ece());
        assert!(!r.flush_before(false, true), "only DCTCP flushes");
        r.on_data(false, false);
        assert!(r.ece(), "§6.1.3: ECE on every ACK until CWR");
        r.on_data(false, true);
        assert!(!r.ece());
        // CE and CWR on one segment: the new congestion is echoed.
        r.on_data(true, true);
        assert!(r.ece());
    }

    #[test]
    fn dctcp_receiver_echoes_each_segments_ce_and_flushes_on_a_change() {
        // RFC 8257 §3.2: two states; a change of CE with a delayed ACK pending first sends
        // an ACK with the old state.
        let mut r = EcnReceiver::new(EcnMode::Dctcp);
        r.on_data(false, false);
        assert!(!r.ece());
        // CE arrives while a segment waits for its delayed ACK: flush it with ECE = 0.
        assert!(r.flush_before(true, true));
        assert!(
            !r.flush_before(true, false),
            "nothing pending: nothing to flush"
        );
        r.on_data(true, false);
        assert!(r.ece());
        // Still CE: no extra ACK.
        assert!(!r.flush_before(true, true));
        // Back to no CE: the pending CE segment is flushed with ECE = 1, then ECE clears.
        assert!(r.flush_before(false, true));
        assert!(r.ece());
        r.on_data(false, false);
        assert!(!r.ece());
        // CWR plays no part in DCTCP's echo.
        r.on_data(false, true);
        assert!(!r.ece());
    }
}
