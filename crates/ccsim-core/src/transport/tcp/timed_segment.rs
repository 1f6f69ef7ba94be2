//! One timed segment per round trip, the RTT sampling of a TCP without timestamps (ns-2's
//! `timestamps_ false`, its default: `tcl/lib/ns-default.tcl`:946 of ns-2.35).
//!
//! ns-2 `TcpAgent::output` (tcp/tcp.cc:778–787) starts timing the first new segment sent
//! while none is timed; `newack` (1390–1402) takes the sample when the cumulative ACK
//! covers it; `reset_rtx_timer` (965–973), called at every timeout and fast retransmit,
//! cancels it. A NewReno partial ACK covering it ends the timing without a sample
//! (`partialnewack`, tcp-newreno.cc:84–87). Retransmissions are never timed, so Karn's rule
//! holds by construction.

use crate::units::SimTime;

/// The segment being timed, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimedSegment {
    active: bool,
    seq: u64,
    sent: SimTime,
}

impl TimedSegment {
    /// New segment `seq` left at `now`: time it unless another is being timed.
    #[inline]
    pub fn on_new_segment(&mut self, seq: u64, now: SimTime) {
        if !self.active {
            self.active = true;
            self.seq = seq;
            self.sent = now;
        }
    }

    /// A cumulative ACK of every segment below `ack`: the timed segment's send time if the
    /// ACK covers it (the timing then ends).
    #[inline]
    pub fn on_ack(&mut self, ack: u64) -> Option<SimTime> {
        if self.active && ack > self.seq {
            self.active = false;
            Some(self.sent)
        } else {
            None
        }
    }

    /// A timeout or fast retransmit: no sample from the segment being timed.
    pub fn cancel(&mut self) {
        self.active = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_segment_is_timed_until_acknowledged_then_the_next_new_one() {
        let mut t = TimedSegment::default();
        for seq in 0..5 {
            t.on_new_segment(seq, SimTime(10 + seq)); // only segment 0 is timed
        }
        assert_eq!(t.on_ack(0), None, "a duplicate of nothing");
        assert_eq!(t.on_ack(1), Some(SimTime(10)));
        assert_eq!(
            t.on_ack(3),
            None,
            "segments 1–4 were sent while 0 was timed"
        );
        t.on_new_segment(5, SimTime(50));
        t.on_new_segment(6, SimTime(60));
        assert_eq!(t.on_ack(5), None, "segment 5 is not yet acknowledged");
        assert_eq!(t.on_ack(7), Some(SimTime(50)));
    }

    #[test]
    fn a_timeout_or_fast_retransmit_cancels_the_sample() {
        let mut t = TimedSegment::default();
        t.on_new_segment(0, SimTime(1));
        t.cancel();
        assert_eq!(t.on_ack(1), None);
        t.on_new_segment(1, SimTime(2));
        assert_eq!(t.on_ack(2), Some(SimTime(2)));
    }
}
