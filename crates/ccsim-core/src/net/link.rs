//! A unidirectional link: loss model, queue discipline, transmitter and propagation pipe.
//!
//! Two models with identical results:
//! - `Fast`: a FIFO link's future is fixed when a packet is accepted, so its transmission
//!   end and arrival time are computed right then (`start = max(now, busy_until)`), the
//!   packet goes into one ring that is both queue and pipe, and the link keeps exactly one
//!   pending event: the arrival of its head. Occupancy at a later arrival is found by
//!   advancing a cursor over entries whose transmission has ended.
//! - `PerHop`: the textbook model, with a waiting queue, a transmitter that schedules an
//!   event at the end of each transmission, and one arrival event per packet. It exists so
//!   that tests can check the fast model against it counter by counter.
//!
//! Drop decisions are made at arrival in both: first the link's loss model (a lost packet
//! takes no queue space or transmission time), then the queue discipline.

use std::collections::VecDeque;

use super::queue::{Occupancy, QueueDisc};
use crate::engine::EventQueue;
use crate::ids::{LinkId, NodeId};
use crate::packet::Packet;
use crate::results::{DropCause, DropCounts};
use crate::rng::SimRng;
use crate::scenario::{LinkModel, LossSpec};
use crate::units::{Bytes, Dur, Rate, SimTime};

/// Per-link counters.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Packets offered.
    pub packets_in: u64,
    /// Packets whose transmission ended.
    pub packets_out: u64,
    /// Bytes whose transmission ended.
    pub bytes_out: u64,
    /// Drops by cause.
    pub drops: DropCounts,
}

#[derive(Clone, Copy, Debug)]
struct InFlight {
    pkt: Packet,
    finish: SimTime,
    arrive: SimTime,
}

#[derive(Debug)]
struct FastPipe {
    ring: VecDeque<InFlight>,
    /// Entries `[0, done)` have finished transmission.
    done: usize,
    held_packets: u64,
    held_bytes: u64,
    busy_until: SimTime,
}

#[derive(Debug)]
struct PerHopPipe {
    waiting: VecDeque<Packet>,
    in_service: Option<Packet>,
    wire: VecDeque<Packet>,
    held_bytes: u64,
    idle_since: SimTime,
}

#[derive(Debug)]
enum Pipe {
    Fast(FastPipe),
    PerHop(PerHopPipe),
}

#[derive(Clone, Debug)]
enum Loss {
    None,
    Bernoulli(f64),
    Scripted {
        drop: Vec<u64>,
        next: usize,
        seen: u64,
    },
}

/// A unidirectional link.
#[derive(Debug)]
pub struct Link {
    /// This link's index.
    pub id: LinkId,
    /// Transmitting node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// Transmission rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: Dur,
    /// Counters.
    pub stats: LinkStats,
    disc: QueueDisc,
    loss: Loss,
    loss_rng: SimRng,
    queue_rng: SimRng,
    pipe: Pipe,
    /// Serialisation times of the two most recent packet sizes (data and ACK, typically),
    /// so the hot path rarely divides.
    tx_cache: [(u32, Dur); 2],
}

impl Link {
    /// A link; `rng_label` names its random streams (`<label>:loss`, `<label>:queue`).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: LinkId,
        from: NodeId,
        to: NodeId,
        rate: Rate,
        delay: Dur,
        disc: QueueDisc,
        loss: &LossSpec,
        model: LinkModel,
        seed: u64,
        rng_label: &str,
    ) -> Link {
        let loss = match loss {
            LossSpec::None => Loss::None,
            LossSpec::Bernoulli(p) => Loss::Bernoulli(*p),
            LossSpec::Scripted(v) => {
                let mut drop = v.clone();
                drop.sort_unstable();
                drop.dedup();
                Loss::Scripted {
                    drop,
                    next: 0,
                    seen: 0,
                }
            }
        };
        let pipe = match model {
            LinkModel::Fast => Pipe::Fast(FastPipe {
                ring: VecDeque::with_capacity(64),
                done: 0,
                held_packets: 0,
                held_bytes: 0,
                busy_until: SimTime::ZERO,
            }),
            LinkModel::PerHop => Pipe::PerHop(PerHopPipe {
                waiting: VecDeque::with_capacity(64),
                in_service: None,
                wire: VecDeque::with_capacity(64),
                held_bytes: 0,
                idle_since: SimTime::ZERO,
            }),
        };
        Link {
            id,
            from,
            to,
            rate,
            delay,
            stats: LinkStats::default(),
            disc,
            loss,
            loss_rng: SimRng::stream(seed, &format!("{rng_label}:loss")),
            queue_rng: SimRng::stream(seed, &format!("{rng_label}:queue")),
            pipe,
            tx_cache: [(0, rate.tx_time(Bytes(0))); 2],
        }
    }

    #[inline]
    fn tx_time(&mut self, size: u32) -> Dur {
        if self.tx_cache[0].0 == size {
            return self.tx_cache[0].1;
        }
        if self.tx_cache[1].0 == size {
            self.tx_cache.swap(0, 1);
            return self.tx_cache[0].1;
        }
        let d = self.rate.tx_time(Bytes(size as u64));
        self.tx_cache[1] = self.tx_cache[0];
        self.tx_cache[0] = (size, d);
        d
    }

    /// The queue discipline (for inspection).
    pub fn discipline(&self) -> &QueueDisc {
        &self.disc
    }

    /// Bring cursors up to `now` and report what the link holds.
    #[inline]
    pub fn occupancy(&mut self, now: SimTime) -> Occupancy {
        match &mut self.pipe {
            Pipe::Fast(f) => {
                while f.done < f.ring.len() {
                    let e = &f.ring[f.done];
                    if e.finish > now {
                        break;
                    }
                    f.held_packets -= 1;
                    f.held_bytes -= e.pkt.size as u64;
                    self.stats.packets_out += 1;
                    self.stats.bytes_out += e.pkt.size as u64;
                    f.done += 1;
                }
                Occupancy {
                    packets: f.held_packets,
                    bytes: f.held_bytes,
                    idle_since: f.busy_until,
                }
            }
            Pipe::PerHop(p) => Occupancy {
                packets: p.waiting.len() as u64 + p.in_service.is_some() as u64,
                bytes: p.held_bytes,
                idle_since: p.idle_since,
            },
        }
    }

    #[inline]
    fn loss_verdict(&mut self, pkt: &Packet) -> Option<DropCause> {
        match &mut self.loss {
            Loss::None => None,
            Loss::Bernoulli(p) => self.loss_rng.bernoulli(*p).then_some(DropCause::RandomLoss),
            Loss::Scripted { drop, next, seen } => {
                if !pkt.is_data() {
                    return None;
                }
                let i = *seen;
                *seen += 1;
                if *next < drop.len() && drop[*next] == i {
                    *next += 1;
                    Some(DropCause::ScriptedLoss)
                } else {
                    None
                }
            }
        }
    }

    /// Offer a packet at `now`. On success the link owns it and has scheduled what it needs.
    #[inline]
    pub fn offer(
        &mut self,
        now: SimTime,
        pkt: Packet,
        events: &mut EventQueue,
    ) -> Result<(), DropCause> {
        self.stats.packets_in += 1;
        if let Some(cause) = self.loss_verdict(&pkt) {
            self.stats.drops.add(cause);
            return Err(cause);
        }
        let occ = self.occupancy(now);
        if let Err(cause) = self
            .disc
            .admit(now, pkt.size as u64, occ, &mut self.queue_rng)
        {
            self.stats.drops.add(cause);
            return Err(cause);
        }
        let tx = self.tx_time(pkt.size);
        match &mut self.pipe {
            Pipe::Fast(f) => {
                let start = now.max(f.busy_until);
                let finish = start + tx;
                let arrive = finish + self.delay;
                f.busy_until = finish;
                f.held_packets += 1;
                f.held_bytes += pkt.size as u64;
                f.ring.push_back(InFlight {
                    pkt,
                    finish,
                    arrive,
                });
                if f.ring.len() == 1 {
                    events.push_arrival(arrive, self.id);
                }
            }
            Pipe::PerHop(p) => {
                p.held_bytes += pkt.size as u64;
                if p.in_service.is_none() {
                    p.in_service = Some(pkt);
                    events.push_tx_done(now + tx, self.id);
                } else {
                    p.waiting.push_back(pkt);
                }
            }
        }
        Ok(())
    }

    /// (Per-hop model.) The transmission in progress ends at `now`.
    pub fn on_tx_done(&mut self, now: SimTime, events: &mut EventQueue) {
        if let Pipe::PerHop(p) = &mut self.pipe {
            let pkt = p
                .in_service
                .take()
                .expect("tx done without a packet in service");
            p.held_bytes -= pkt.size as u64;
            self.stats.packets_out += 1;
            self.stats.bytes_out += pkt.size as u64;
            p.wire.push_back(pkt);
            events.push_arrival(now + self.delay, self.id);
            if let Some(next) = p.waiting.pop_front() {
                p.in_service = Some(next);
                let tx = self.rate.tx_time(Bytes(next.size as u64));
                events.push_tx_done(now + tx, self.id);
            } else {
                p.idle_since = now;
            }
        }
    }

    /// The head packet reaches the far end at `now`; remove and return it.
    #[inline]
    pub fn pop_arrival(&mut self, now: SimTime, events: &mut EventQueue) -> Packet {
        self.occupancy(now);
        match &mut self.pipe {
            Pipe::Fast(f) => {
                let e = f.ring.pop_front().expect("arrival from an empty link");
                debug_assert_eq!(e.arrive, now);
                f.done -= 1;
                if let Some(next) = f.ring.front() {
                    events.push_arrival(next.arrive, self.id);
                }
                e.pkt
            }
            Pipe::PerHop(p) => p.wire.pop_front().expect("arrival from an empty wire"),
        }
    }

    /// Packets still held (queued, in transmission or on the wire).
    pub fn in_flight(&self) -> u64 {
        match &self.pipe {
            Pipe::Fast(f) => f.ring.len() as u64,
            Pipe::PerHop(p) => {
                (p.waiting.len() + p.in_service.is_some() as usize + p.wire.len()) as u64
            }
        }
    }
}
