//! The disciplines that own their queue and hand the link its next packet (CoDel, PIE,
//! FQ-CoDel): what the dequeue-time link model (`net::link`, `Pipe::Sched`) asks of them.
//! One enum dispatch per call; DropTail, RED and the step marker never come here.

use super::queue::QueueDisc;
use crate::packet::Packet;
use crate::results::DropCause;
use crate::rng::SimRng;
use crate::units::SimTime;

impl QueueDisc {
    /// Whether the discipline owns its queue and decides at dequeue.
    pub fn owns_queue(&self) -> bool {
        matches!(
            self,
            QueueDisc::Codel(_) | QueueDisc::Pie(_) | QueueDisc::FqCodel(_)
        )
    }

    /// Queue an arrival at `now` (`in_service` packets are on the transmitter). A packet
    /// the discipline drops in its place (FQ-CoDel's fattest queue) goes to `drops`; a CE
    /// mark at enqueue (PIE) counts in `marks`. `Err` drops the arrival itself.
    pub(super) fn sched_enqueue(
        &mut self,
        now: SimTime,
        pkt: Packet,
        in_service: u64,
        rng: &mut SimRng,
        drops: &mut Vec<(Packet, DropCause)>,
        marks: &mut u64,
    ) -> Result<(), DropCause> {
        match self {
            QueueDisc::Codel(c) => c.enqueue(now, pkt, in_service),
            QueueDisc::Pie(p) => {
                *marks += p.enqueue(now, pkt, in_service, rng)? as u64;
                Ok(())
            }
            QueueDisc::FqCodel(f) => {
                f.enqueue(now, pkt, in_service, drops);
                Ok(())
            }
            _ => unreachable!("only a discipline that owns its queue is asked"),
        }
    }

    /// The next packet to transmit at `now`, with the time it entered; packets dropped on
    /// the way go to `drops`, CE marks count in `marks`.
    pub(super) fn sched_dequeue(
        &mut self,
        now: SimTime,
        drops: &mut Vec<(Packet, DropCause)>,
        marks: &mut u64,
    ) -> Option<(Packet, SimTime)> {
        match self {
            QueueDisc::Codel(c) => c.dequeue(now, drops, marks),
            QueueDisc::Pie(p) => p.dequeue(now),
            QueueDisc::FqCodel(f) => f.dequeue(now, drops, marks),
            _ => None,
        }
    }

    /// (packets, bytes) waiting in the discipline's queue (0 for the others, whose link
    /// pipe holds the waiting packets).
    pub(super) fn sched_held(&self) -> (u64, u64) {
        match self {
            QueueDisc::Codel(c) => (c.len() as u64, c.bytes()),
            QueueDisc::Pie(p) => (p.len() as u64, p.bytes()),
            QueueDisc::FqCodel(f) => (f.len() as u64, f.bytes()),
            _ => (0, 0),
        }
    }

    /// Bytes of memory the discipline's queue takes.
    pub(super) fn sched_memory(&self) -> u64 {
        match self {
            QueueDisc::Codel(c) => c.memory_bytes(),
            QueueDisc::Pie(p) => p.memory_bytes(),
            QueueDisc::FqCodel(f) => f.memory_bytes(),
            _ => 0,
        }
    }
}
