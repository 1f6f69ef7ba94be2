//! The per-hop model of a link (`Pipe::PerHop`; `link_model = "per_hop"`): a waiting queue,
//! a transmitter that schedules an event at the end of each transmission, and one arrival
//! event per packet — the textbook model the fast one is checked against. A part of
//! `net::link` (a child module, so it reaches the link's fields).

use std::collections::VecDeque;

use super::link_jitter::arrival;
use super::{Link, Pipe};
use crate::engine::EventQueue;
use crate::packet::Packet;
use crate::units::{Bytes, Dur, SimTime};

/// A per-hop link's packets.
#[derive(Debug)]
pub(super) struct PerHopPipe {
    /// Packets waiting for the transmitter, with the time each entered.
    pub(super) waiting: VecDeque<(SimTime, Packet)>,
    pub(super) in_service: Option<Packet>,
    /// When the packet in service reaches the far end (set as its transmission starts).
    pub(super) service_arrive: SimTime,
    pub(super) wire: VecDeque<Packet>,
    pub(super) held_bytes: u64,
    pub(super) idle_since: SimTime,
}

impl Link {
    /// (Per-hop model.) An accepted packet: on the transmitter if it is idle, else waiting.
    #[cold]
    #[inline(never)]
    pub(super) fn offer_per_hop(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        tx: Dur,
        events: &mut EventQueue,
    ) {
        let Pipe::PerHop(p) = &mut self.pipe else {
            unreachable!("offer_per_hop on a per-hop pipe");
        };
        p.held_bytes += pkt.size as u64;
        if p.in_service.is_none() {
            if let Some(h) = self.sojourn.as_mut() {
                h.record(0);
            }
            p.in_service = Some(*pkt);
            p.service_arrive = arrival(&mut self.jitter, now + tx, self.delay);
            events.push_tx_done(now + tx, self.id);
            if let Some(c) = &mut self.capture {
                c.record(now, p.service_arrive, pkt);
            }
        } else {
            p.waiting.push_back((now, *pkt));
        }
    }

    /// The transmission in progress ends at `now`: the packet goes on the wire and the
    /// next waiting one, if any, starts.
    pub(super) fn per_hop_tx_done(&mut self, now: SimTime, events: &mut EventQueue) {
        let Pipe::PerHop(p) = &mut self.pipe else {
            unreachable!("per_hop_tx_done on a per-hop pipe");
        };
        let pkt = p
            .in_service
            .take()
            .expect("tx done without a packet in service");
        p.held_bytes -= pkt.size as u64;
        self.stats.packets_out += 1;
        self.stats.bytes_out += pkt.size as u64;
        p.wire.push_back(pkt);
        events.push_arrival(p.service_arrive, self.id);
        if let Some((entered, next)) = p.waiting.pop_front() {
            if let Some(h) = self.sojourn.as_mut() {
                h.record(now.since(entered).0);
            }
            p.in_service = Some(next);
            let tx = self.rate.tx_time(Bytes(next.size as u64));
            p.service_arrive = arrival(&mut self.jitter, now + tx, self.delay);
            events.push_tx_done(now + tx, self.id);
            if let Some(c) = &mut self.capture {
                c.record(now, p.service_arrive, &next);
            }
        } else {
            p.idle_since = now;
        }
    }
}
