//! The dequeue-time model of a link (`Pipe::Sched`, for the disciplines that own their
//! queue: CoDel, PIE, FQ-CoDel, `net::sched`): the discipline holds the waiting packets,
//! and a transmission-end event hands the transmitter the next one. A part of `net::link`
//! (a child module, so it reaches the link's fields).

use std::collections::VecDeque;

use super::{Link, Pipe};
use crate::engine::EventQueue;
use crate::packet::Packet;
use crate::results::DropCause;
use crate::units::{Bytes, SimTime};

/// The dequeue-time model of a link whose discipline owns its queue (CoDel, PIE,
/// FQ-CoDel; `net::sched`): the discipline holds the waiting packets; a transmission-end
/// event takes the next one. This is the per-hop model with the discipline's queue in place of the
/// FIFO, whatever `link_model` says.
#[derive(Debug)]
pub(super) struct SchedPipe {
    pub(super) in_service: Option<Packet>,
    /// When the packet in service reaches the far end (set as its transmission starts).
    pub(super) service_arrive: SimTime,
    pub(super) wire: VecDeque<Packet>,
    pub(super) idle_since: SimTime,
    /// Packets the discipline dropped at dequeue, for the simulation to charge to their
    /// flows (`Link::take_dequeue_drops`).
    pub(super) drops: Vec<(Packet, DropCause)>,
}

impl Link {
    /// `offer` on a dequeue-time link after the loss model (`now == at`: such links are
    /// never chained): the discipline's queue; an idle transmitter takes the head at once.
    #[cold]
    pub(super) fn offer_sched(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        events: &mut EventQueue,
    ) -> Result<SimTime, DropCause> {
        let Pipe::Sched(p) = &mut self.pipe else {
            unreachable!("offer_sched on a dequeue-time pipe");
        };
        let before = p.drops.len();
        let marks_before = self.stats.ecn_marks;
        let verdict = self.disc.sched_enqueue(
            now,
            *pkt,
            p.in_service.is_some() as u64,
            &mut self.queue_rng,
            &mut p.drops,
            &mut self.stats.ecn_marks,
        );
        // Packets dropped in the arrival's place (FQ-CoDel's fattest queue).
        for &(_, cause) in &p.drops[before..] {
            self.stats.drops.add(cause);
        }
        if let Some(ev) = &mut self.events {
            for (d, cause) in &p.drops[before..] {
                ev.record_drop(now, d, *cause);
            }
            // A mark at enqueue (PIE) is the arrival's.
            for _ in marks_before..self.stats.ecn_marks {
                ev.record_mark(now, pkt);
            }
            if let Err(cause) = verdict {
                ev.record_drop(now, pkt, cause);
            }
        }
        if let Err(cause) = verdict {
            self.stats.drops.add(cause);
            return Err(cause);
        }
        if p.in_service.is_none() {
            self.start_next(now, events);
        }
        Ok(SimTime::NEVER)
    }

    /// (Dequeue-time model.) The transmitter is free at `now`: the discipline hands over
    /// the next packet (dropping or marking on the way).
    fn start_next(&mut self, now: SimTime, events: &mut EventQueue) {
        let Pipe::Sched(p) = &mut self.pipe else {
            return;
        };
        let before = p.drops.len();
        let marks_before = self.stats.ecn_marks;
        let next = self
            .disc
            .sched_dequeue(now, &mut p.drops, &mut self.stats.ecn_marks);
        for &(_, cause) in &p.drops[before..] {
            self.stats.drops.add(cause);
        }
        if let Some(ev) = &mut self.events {
            for (d, cause) in &p.drops[before..] {
                ev.record_drop(now, d, *cause);
            }
            // A mark at dequeue (CoDel, FQ-CoDel) is the packet handed over.
            if let Some((n, _)) = &next {
                for _ in marks_before..self.stats.ecn_marks {
                    ev.record_mark(now, n);
                }
            }
        }
        match next {
            Some((n, entered)) => {
                if let Some(h) = self.sojourn.as_mut() {
                    h.record(now.since(entered).0);
                }
                p.in_service = Some(n);
                let tx = self.rate.tx_time(Bytes(n.size as u64));
                p.service_arrive = super::arrival(&mut self.jitter, now + tx, self.delay);
                events.push_tx_done(now + tx, self.id);
                if let Some(c) = &mut self.capture {
                    c.record(now, p.service_arrive, &n);
                }
            }
            None => p.idle_since = now,
        }
    }

    /// Packets a dequeue-time discipline dropped since the last call, for the simulation to
    /// charge to their flows (their link counts are already made).
    #[inline]
    pub fn take_dequeue_drops(&mut self) -> Vec<(Packet, DropCause)> {
        match &mut self.pipe {
            Pipe::Sched(p) if !p.drops.is_empty() => std::mem::take(&mut p.drops),
            _ => Vec::new(),
        }
    }

    /// (Dequeue-time model.) The transmission in progress ends at `now`: the packet goes on
    /// the wire and the discipline hands over the next.
    pub(super) fn sched_tx_done(&mut self, now: SimTime, events: &mut EventQueue) {
        let Pipe::Sched(p) = &mut self.pipe else {
            return;
        };
        let pkt = p
            .in_service
            .take()
            .expect("tx done without a packet in service");
        self.stats.packets_out += 1;
        self.stats.bytes_out += pkt.size as u64;
        p.wire.push_back(pkt);
        events.push_arrival(p.service_arrive, self.id);
        self.start_next(now, events);
    }
}
