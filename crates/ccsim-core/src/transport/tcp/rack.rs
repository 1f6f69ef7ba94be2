//! Lost retransmissions found as RACK finds them (`lost_retransmit = "rack"`; RFC 8985 §6.2,
//! Linux `tcp_rack_detect_loss` and `tcp_rack_mark_skb_lost`, net/ipv4/tcp_recovery.c).
//!
//! RFC 6675 retransmits a segment once per recovery: if the retransmission is lost too,
//! only the retransmission timer finds it. RACK orders segments by the time they were last
//! sent: a segment is lost when one sent after it has been delivered and RACK.rtt +
//! reo_wnd has passed since it was sent. In recovery, with no reordering seen, Linux's
//! reo_wnd is 0 (`tcp_rack_reo_wnd`, tcp_recovery.c:5–30), and the delivered segment, sent
//! later, took RACK.rtt to come back, so the wait has always passed: a retransmission is
//! lost as soon as a segment first sent after it is SACKed. Linux then clears its
//! retransmitted mark ("retransmits that are lost again", `tcp_rack_mark_skb_lost`) and
//! sends it again within the same recovery.
//!
//! Only this rule is modelled: the original segments' losses stay RFC 6675's (DupThresh
//! SACKed segments above), which agrees with RACK when nothing is reordered; the
//! reordering timer and the tail loss probe are not modelled.
//!
//! New data leaves in sequence order, so "first sent after the retransmission of s" is
//! "numbered at or above the end of what had been sent then": each retransmission is kept
//! with that number, and the list stays sorted by it.

use super::scoreboard::Scoreboard;
use std::collections::VecDeque;

/// Retransmissions in flight, each with `end()` of the scoreboard when it left.
#[derive(Clone, Debug, Default)]
pub struct RackRetx {
    pending: VecDeque<(u64, u64)>,
}

impl RackRetx {
    /// Segment `seq` was retransmitted while segments below `end` had been sent.
    pub fn on_retransmit(&mut self, seq: u64, end: u64) {
        self.pending.push_back((seq, end));
    }

    /// After SACKs were recorded: every retransmission with a later-sent segment SACKed
    /// (the highest SACKed segment at or above its `end`) is lost again. Returns how many.
    pub fn detect(&mut self, sb: &mut Scoreboard) -> u64 {
        let fack = sb.fack();
        let mut lost = 0;
        while let Some(&(seq, end)) = self.pending.front() {
            if fack <= end {
                break;
            }
            self.pending.pop_front();
            lost += sb.mark_retransmission_lost(seq) as u64;
        }
        lost
    }

    /// A timeout or a new connection: nothing is in flight any more.
    pub fn clear(&mut self) {
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segments 0–9 sent, 1 lost and retransmitted after 9; SACKs of 2–9 do not make the
    /// retransmission lost (all sent before it); a SACK of 10, sent after it, does, and
    /// segment 1 is the next to retransmit again.
    #[test]
    fn a_retransmission_is_lost_once_a_later_sent_segment_is_sacked() {
        let mut sb = Scoreboard::new(0);
        for _ in 0..10 {
            sb.push_sent();
        }
        sb.sack(2, 10);
        sb.mark_lost(3);
        assert_eq!(sb.next_lost(), Some(0));
        sb.on_retransmit(0);
        assert_eq!(sb.next_lost(), Some(1));
        sb.on_retransmit(1);
        let mut r = RackRetx::default();
        r.on_retransmit(0, 10);
        r.on_retransmit(1, 10);
        sb.push_sent(); // segment 10, after both retransmissions
        assert_eq!(r.detect(&mut sb), 0);
        assert_eq!(sb.next_lost(), None);
        sb.ack_to(1); // the retransmission of 0 arrived
        sb.sack(10, 11);
        assert_eq!(
            r.detect(&mut sb),
            1,
            "1's retransmission is lost, 0 was delivered"
        );
        assert_eq!(sb.next_lost(), Some(1));
        let pipe_before = sb.pipe();
        sb.on_retransmit(1);
        assert_eq!(sb.pipe(), pipe_before + 1);
    }
}
