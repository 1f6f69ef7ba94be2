//! A unidirectional link: loss model, queue discipline, transmitter and propagation pipe.
//!
//! Two models with identical results:
//! - `Fast`: a FIFO link's future is fixed when a packet is accepted, so its transmission
//!   end and arrival time are computed right then (`start = max(at, busy_until)`). An
//!   accounting ring holds (enter, finish, arrive) of every packet on the link; occupancy
//!   at a later arrival is found by advancing a cursor over entries whose transmission has
//!   ended. Packets that must be *delivered* at the far end (to an endpoint, or to a link
//!   with several upstream links) wait in a delivery ring, and the link keeps exactly one
//!   pending event: the arrival of its next delivery. A packet whose next link has this
//!   link as its only upstream is offered to that link at once, at its future arrival time
//!   (`at > now`): no event at the router in between (see `sim::Simulation::forward`).
//! - `PerHop`: the textbook model, with a waiting queue, a transmitter that schedules an
//!   event at the end of each transmission, and one arrival event per packet. It exists so
//!   that tests can check the fast model against it counter by counter.
//!
//! Drop decisions are made at arrival in both: first the link's loss model (a lost packet
//! takes no queue space or transmission time), then the queue discipline. Every action on
//! one link happens in that link's FIFO order in both models, so random draws, RED's
//! average and all counters agree. What differs is only *when* a chained link's action is
//! computed; `finish` reclassifies the few actions computed for times after the end.

use std::collections::VecDeque;

use super::link_config::{LinkModel, LossSpec};
use super::link_schedule::{LinkSchedule, ScheduledTx};
use super::queue::{Admit, Occupancy, QueueDisc};
use super::ring::Ring;
use crate::engine::EventQueue;
use crate::ids::{FlowId, LinkId, NodeId};
use crate::measure::histogram::Histogram;
use crate::packet::{Packet, FLAG_CE};
use crate::results::{DropCause, DropCounts};
use crate::rng::SimRng;
use crate::trace::events::LinkEvents;
use crate::trace::pcap::LinkCapture;
use crate::units::{Bytes, Dur, Rate, SimTime};

#[path = "link_account.rs"]
mod link_account;
#[path = "link_jitter.rs"]
mod link_jitter;
#[path = "link_loss.rs"]
mod link_loss;
#[path = "link_perhop.rs"]
mod link_perhop;
#[path = "link_sched.rs"]
mod link_sched;

use link_jitter::{arrival, Jitter};
use link_loss::Loss;
use link_perhop::PerHopPipe;
use link_sched::SchedPipe;

/// Initial capacity of a fast link's rings (powers of two; they double when full).
const INITIAL_RING: usize = 8;

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
    /// ECN-capable packets the queue marked CE instead of dropping (RFC 3168 §5).
    pub ecn_marks: u64,
}

/// A packet on a fast link, for accounting.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    enter: SimTime,
    finish: SimTime,
    arrive: SimTime,
    size: u32,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 32);

#[derive(Debug)]
struct FastPipe {
    ring: Ring<Slot>,
    /// Entries `[0, done)` of `ring` finished transmission by `cursor`.
    done: usize,
    cursor: SimTime,
    held_bytes: u64,
    busy_until: SimTime,
    /// Packets to hand over at the far end, with their arrival times.
    deliver: Ring<(SimTime, Packet)>,
    /// Drops decided for times after `now` (chained offers): (time, cause, flow).
    late_drops: VecDeque<(SimTime, DropCause, FlowId)>,
    /// CE marks decided for times after `now` (chained offers), undone by `settled` for
    /// times after its `t` (kept apart from the slots: nothing on the unmarked path).
    late_marks: VecDeque<SimTime>,
}

impl FastPipe {
    /// Whether `disc` admits a packet of `size` bytes whatever the pipe holds now: every
    /// packet not yet counted out may still be held (an upper bound), and the accounting
    /// ring has room (a full ring must be swept by the counting path).
    #[inline(always)]
    fn admits_uncounted(&self, disc: &QueueDisc, size: u64) -> bool {
        self.ring.len() < self.ring.capacity()
            && disc.admits_within(size, (self.ring.len() - self.done) as u64, self.held_bytes)
    }

    /// Take an accepted packet of `size` bytes entering at `at`: its transmission starts
    /// when the link is free, and it reaches the far end `delay` after it ends. Returns its
    /// arrival time.
    #[inline(always)]
    fn accept_plain(&mut self, at: SimTime, size: u32, tx: Dur, delay: Dur) -> SimTime {
        let start = at.max(self.busy_until);
        // Plain sums: the times of real packets are far from `SimTime::NEVER`, so the
        // saturation of `SimTime + Dur` is not needed on this path.
        let finish = SimTime(start.0 + tx.0);
        let arrive = SimTime(finish.0 + delay.0);
        self.busy_until = finish;
        self.held_bytes += size as u64;
        self.ring.push_back(Slot {
            enter: at,
            finish,
            arrive,
            size,
        });
        arrive
    }
}

/// A plain one-byte tag (`repr(u8)`): with three variants the compiler would otherwise
/// encode the variant in a niche of the fast pipe's fields, and every `match` on the hot
/// path would decode it (measured: +2 % instructions on dumbbell-16, docs/performance.md).
#[derive(Debug)]
#[repr(u8)]
enum Pipe {
    Fast(FastPipe),
    PerHop(PerHopPipe),
    Sched(SchedPipe),
}

/// A drop decided at a time after the end of the run, to be undone by `finish`.
#[derive(Clone, Copy, Debug)]
pub struct LateDrop {
    /// The cause that was counted.
    pub cause: DropCause,
    /// The flow that was charged.
    pub flow: FlowId,
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
    /// The only link feeding this one, when flows' static routes give it exactly one
    /// upstream link (and no endpoint sends on it directly): packets are then offered to
    /// it as soon as the upstream link accepts them. Always `None` in the per-hop model.
    pub chained_from: Option<LinkId>,
    /// Whether some link is chained from this one (else packets reaching its far end are
    /// delivered without looking up the next hop).
    pub feeds_chain: bool,
    /// The merge point this link feeds ahead and its slot there, if any
    /// (`sim::sim_merge`): its packets go to that merge point instead of this link's
    /// delivery ring.
    pub merge_into: Option<(u32, u32)>,
    /// Whether the far end is in the other part of a network split across two threads
    /// (`sim::sim_parallel`): accepted packets are then handed over to the other thread.
    pub exits: bool,
    disc: QueueDisc,
    loss: Loss,
    loss_rng: SimRng,
    queue_rng: SimRng,
    pipe: Pipe,
    /// Whether the link is up (scenario `[[event]]`s take it down and up).
    up: bool,
    /// Packets on the link when it last failed and not yet out: they are dropped with cause
    /// "link down" as they reach the far end (FIFO, so they are the next ones out).
    doomed: u64,
    /// Serialisation times of the two most recent packet sizes (data and ACK, typically),
    /// so the hot path rarely divides.
    tx_cache: [(u32, Dur); 2],
    /// The packets it accepted, when a packet capture includes it (`[trace] pcap`).
    pub capture: Option<Box<LinkCapture>>,
    /// Queueing delays (entering the link to starting transmission) of accepted packets,
    /// when measured (`[measure]`); restarted when the window opens.
    pub sojourn: Option<Box<Histogram>>,
    /// A time-varying capacity (`rate_schedule`, `delivery_trace`; fast model only):
    /// transmission ends are computed from it (`net::link_schedule`) instead of `rate`.
    schedule: Option<Box<ScheduledTx>>,
    /// A random extra delay per packet (`jitter`, `net::link_jitter`).
    jitter: Option<Box<Jitter>>,
    /// No capture, no queueing-delay histogram, no schedule and no jitter: the fast model's offer then
    /// takes its short path, with one test for the three (`offer_fast_extras` has the rest).
    plain: bool,
    /// Up, plain, fast model, no random loss and a DropTail queue: an offer then needs one
    /// test before the admission-within-bounds check of `offer`'s quick path (see
    /// `refresh_quick`).
    quick: bool,
    /// Its drops and marks, one row each, when `[trace] events` asks for them.
    pub events: Option<Box<LinkEvents>>,
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
        let loss = Loss::of(loss);
        // Rings start small and double as a link's traffic needs (a link's share of the
        // set-up memory was 6.6 KB with rings of 64, most of a 4 096-flow dumbbell's).
        let pipe = match model {
            _ if disc.owns_queue() => Pipe::Sched(SchedPipe {
                in_service: None,
                service_arrive: SimTime::ZERO,
                wire: VecDeque::with_capacity(64),
                idle_since: SimTime::ZERO,
                drops: Vec::new(),
            }),
            LinkModel::Fast => Pipe::Fast(FastPipe {
                ring: Ring::with_capacity(INITIAL_RING),
                done: 0,
                cursor: SimTime::ZERO,
                held_bytes: 0,
                busy_until: SimTime::ZERO,
                deliver: Ring::with_capacity(INITIAL_RING),
                late_drops: VecDeque::new(),
                late_marks: VecDeque::new(),
            }),
            LinkModel::PerHop => Pipe::PerHop(PerHopPipe {
                waiting: VecDeque::new(),
                in_service: None,
                service_arrive: SimTime::ZERO,
                wire: VecDeque::new(),
                held_bytes: 0,
                idle_since: SimTime::ZERO,
            }),
        };
        let mut link = Link {
            id,
            from,
            to,
            rate,
            delay,
            stats: LinkStats::default(),
            chained_from: None,
            feeds_chain: false,
            merge_into: None,
            exits: false,
            disc,
            loss,
            loss_rng: SimRng::stream_of(seed, &[rng_label, ":loss"]),
            queue_rng: SimRng::stream_of(seed, &[rng_label, ":queue"]),
            pipe,
            up: true,
            doomed: 0,
            tx_cache: [(0, rate.tx_time(Bytes(0))); 2],
            capture: None,
            sojourn: None,
            schedule: None,
            jitter: None,
            plain: true,
            quick: false,
            events: None,
        };
        link.refresh_quick();
        link
    }

    /// Recompute `quick` after any of the things it sums up changed.
    fn refresh_quick(&mut self) {
        self.quick = self.up
            && self.plain
            && matches!(self.loss, Loss::None)
            && matches!(self.pipe, Pipe::Fast(_))
            && matches!(self.disc, QueueDisc::DropTail(_));
    }

    /// Capture the packets the link accepts (`[trace] pcap`).
    pub fn enable_capture(&mut self) {
        self.capture.get_or_insert_with(Default::default);
        self.plain = false;
        self.refresh_quick();
    }

    /// Keep the queueing delays of the packets the link accepts (`[measure]`).
    pub fn enable_sojourn(&mut self) {
        self.sojourn = Some(Box::default());
        self.plain = false;
        self.refresh_quick();
    }

    /// Give the link a time-varying capacity. Only the fast model computes departures from
    /// a schedule (the scenario refuses the others).
    pub fn set_schedule(&mut self, schedule: std::sync::Arc<LinkSchedule>) {
        assert!(self.is_fast(), "a link schedule needs the fast link model");
        self.schedule = Some(Box::new(ScheduledTx::new(schedule)));
        self.plain = false;
        self.refresh_quick();
    }

    /// Delay each packet by a further U·`max`, U uniform in [0, 1), keeping their order
    /// (`jitter`; draws from the stream `<rng_label>:jitter`). Zero: none.
    pub fn set_jitter(&mut self, max: Dur, seed: u64, rng_label: &str) {
        if max == Dur::ZERO {
            return;
        }
        let rng = SimRng::stream_of(seed, &[rng_label, ":jitter"]);
        self.jitter = Some(Box::new(Jitter::new(max, rng)));
        self.plain = false;
        self.refresh_quick();
    }

    /// With a schedule, the bits the link can carry in `[from, until)` (`None`: a fixed
    /// rate, `rate × (until − from)`).
    pub fn schedule_capacity(&self, from: SimTime, until: SimTime) -> Option<f64> {
        self.schedule
            .as_ref()
            .map(|s| s.schedule.capacity_bits(from, until))
    }

    /// Whether the link is up.
    pub fn is_up(&self) -> bool {
        self.up
    }

    /// Take the link down or bring it up. On failure every packet it holds (queued or on
    /// the wire) is doomed: it is dropped with cause "link down" when it would have reached
    /// the far end. Needs unchained links (the simulation disables chaining when a scenario
    /// has link events or adaptive routing).
    pub fn set_up(&mut self, up: bool) {
        if self.up && !up {
            self.doomed = match &self.pipe {
                Pipe::Fast(f) => f.deliver.len() as u64,
                Pipe::PerHop(p) => {
                    (p.waiting.len() + p.in_service.is_some() as usize + p.wire.len()) as u64
                }
                Pipe::Sched(p) => {
                    (self.queued() + p.in_service.is_some() as usize + p.wire.len()) as u64
                }
            };
        }
        self.up = up;
        self.refresh_quick();
    }

    /// Whether the packet just popped at the far end at `now` was on the link when it failed
    /// (and so is lost); counts the drop at this link.
    #[inline]
    pub fn take_doomed(&mut self, now: SimTime, pkt: &Packet) -> bool {
        if self.doomed == 0 {
            return false;
        }
        self.doomed -= 1;
        self.stats.drops.add(DropCause::LinkDown);
        if let Some(ev) = &mut self.events {
            ev.record_drop(now, pkt, DropCause::LinkDown);
        }
        if let Some(c) = &mut self.capture {
            c.lost(now);
        }
        true
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

    /// Bytes of memory the link's packet buffers take (what grows as its queue grows).
    pub fn memory_bytes(&self) -> u64 {
        use std::mem::size_of;
        let bytes = match &self.pipe {
            Pipe::Fast(p) => {
                p.ring.capacity() * size_of::<Slot>()
                    + p.deliver.capacity() * size_of::<(SimTime, Packet)>()
                    + p.late_drops.capacity() * size_of::<(SimTime, DropCause, FlowId)>()
            }
            Pipe::PerHop(p) => {
                p.waiting.capacity() * size_of::<(SimTime, Packet)>()
                    + p.wire.capacity() * size_of::<Packet>()
            }
            Pipe::Sched(p) => {
                self.disc.sched_memory() as usize + p.wire.capacity() * size_of::<Packet>()
            }
        };
        bytes as u64
    }

    /// Packets waiting in a dequeue-time discipline's queue (0 for the other links, whose
    /// pipes hold their waiting packets).
    fn queued(&self) -> usize {
        self.disc.sched_held().0 as usize
    }

    /// Whether the link uses the fast model.
    pub fn is_fast(&self) -> bool {
        matches!(self.pipe, Pipe::Fast(_))
    }

    /// What the link holds at `t` for an admission decision. Calls on one link come with
    /// non-decreasing `t`; `now ≤ t` is the real time, used to forget packets that left.
    #[inline(always)]
    fn admission_occupancy(&mut self, now: SimTime, t: SimTime) -> Occupancy {
        match &mut self.pipe {
            Pipe::Fast(f) => {
                // Idle at `t` (the common case behind a slower link): nothing is held. The
                // cursor and the counters it keeps are left to catch up at the next busy
                // offer or sweep, which count the same packets out.
                if t >= f.busy_until && f.ring.len() < f.ring.capacity() {
                    return Occupancy {
                        packets: 0,
                        bytes: 0,
                        idle_since: f.busy_until,
                    };
                }
                // Counters are updated in locals and stored once: stores into fields that
                // a following wider load reads back stall store forwarding.
                let (mut held_bytes, mut done) = (f.held_bytes, f.done);
                let (mut out_packets, mut out_bytes) = (0, 0);
                // Forget packets that reached the far end (all finished transmitting), in a
                // batch once the ring is full: a sequential sweep over old slots instead
                // of one cache miss per offer, and the next pushes reuse the swept lines.
                if f.ring.len() == f.ring.capacity() {
                    while let Some(front) = f.ring.front() {
                        if front.arrive > now {
                            break;
                        }
                        if done == 0 {
                            held_bytes -= front.size as u64;
                            out_packets += 1;
                            out_bytes += front.size as u64;
                        } else {
                            done -= 1;
                        }
                        f.ring.pop_front();
                    }
                }
                while f.late_drops.front().is_some_and(|&(td, _, _)| td <= now) {
                    f.late_drops.pop_front();
                }
                while f.late_marks.front().is_some_and(|&tm| tm <= now) {
                    f.late_marks.pop_front();
                }
                let cursor = f.cursor.max(t);
                while done < f.ring.len() {
                    let e = *f.ring.get(done);
                    if e.finish > cursor {
                        break;
                    }
                    held_bytes -= e.size as u64;
                    out_packets += 1;
                    out_bytes += e.size as u64;
                    done += 1;
                }
                f.cursor = cursor;
                f.held_bytes = held_bytes;
                f.done = done;
                self.stats.packets_out += out_packets;
                self.stats.bytes_out += out_bytes;
                Occupancy {
                    // Entries not yet done are held (queued or in transmission).
                    packets: (f.ring.len() - done) as u64,
                    bytes: held_bytes,
                    idle_since: f.busy_until,
                }
            }
            Pipe::PerHop(p) => Occupancy {
                packets: p.waiting.len() as u64 + p.in_service.is_some() as u64,
                bytes: p.held_bytes,
                idle_since: p.idle_since,
            },
            Pipe::Sched(p) => Occupancy {
                packets: p.in_service.is_some() as u64,
                bytes: p.in_service.map_or(0, |s| s.size as u64),
                idle_since: p.idle_since,
            },
        }
    }

    /// (Fast model.) Whether a packet of `size` bytes is admitted whatever the link holds
    /// now (`FastPipe::admits_uncounted`).
    #[inline(always)]
    fn admitted_uncounted(&self, size: u64) -> bool {
        match &self.pipe {
            Pipe::Fast(f) => f.admits_uncounted(&self.disc, size),
            Pipe::PerHop(_) | Pipe::Sched(_) => false,
        }
    }

    /// What the link holds at the current time `now` (for sampling; any order of calls).
    pub fn occupancy_at(&self, now: SimTime) -> (u64, u64) {
        match &self.pipe {
            Pipe::Fast(f) => f
                .ring
                .iter()
                .filter(|e| e.enter <= now && now < e.finish)
                .fold((0, 0), |(n, b), e| (n + 1, b + e.size as u64)),
            Pipe::PerHop(p) => (
                p.waiting.len() as u64 + p.in_service.is_some() as u64,
                p.held_bytes,
            ),
            Pipe::Sched(p) => {
                let (n, b) = self.disc.sched_held();
                let s = p.in_service.map_or(0, |s| s.size as u64);
                (n + p.in_service.is_some() as u64, b + s)
            }
        }
    }

    #[inline]
    fn loss_verdict(&mut self, pkt: &Packet) -> Option<DropCause> {
        self.loss.verdict(pkt, &mut self.loss_rng)
    }

    /// Offer a packet entering the link at `at` (`at ≥ now`; `at > now` only for a
    /// chained link). On success returns its arrival time at the far end; the caller then
    /// either chains it on or calls `deliver_at`. In the per-hop model the link keeps the
    /// packet and schedules its own events (the returned time is not used). A queue that
    /// marks instead of dropping sets the packet's CE bit (RFC 3168 §5).
    #[inline(always)]
    pub fn offer(
        &mut self,
        now: SimTime,
        at: SimTime,
        pkt: &mut Packet,
        events: &mut EventQueue,
    ) -> Result<SimTime, DropCause> {
        self.stats.packets_in += 1;
        // Up, no loss, plain fast pipe and DropTail: admitted uncounted unless near the
        // limit or the accounting ring is full (then the general path below counts).
        if self.quick {
            let tx = self.tx_time(pkt.size);
            if let Pipe::Fast(f) = &mut self.pipe {
                if f.admits_uncounted(&self.disc, pkt.size as u64) {
                    return Ok(f.accept_plain(at, pkt.size, tx, self.delay));
                }
            }
        }
        if !self.up {
            self.stats.drops.add(DropCause::LinkDown);
            if let Some(ev) = &mut self.events {
                ev.record_drop(at, pkt, DropCause::LinkDown);
            }
            return Err(DropCause::LinkDown);
        }
        let verdict = match self.loss_verdict(pkt) {
            Some(c) => Err(c),
            // Admitted whatever it holds (DropTail far from its limit): no exact count.
            // The cursor and its counters catch up at the next counted offer or sweep,
            // as after an idle link's offer.
            None if self.admitted_uncounted(pkt.size as u64) => Ok(()),
            // A discipline that owns its queue (never admitted uncounted).
            None if matches!(self.pipe, Pipe::Sched(_)) => {
                return self.offer_sched(now, pkt, events)
            }
            None => self.admit_counted(now, at, pkt),
        };
        if let Err(cause) = verdict {
            self.stats.drops.add(cause);
            if at > now {
                if let Pipe::Fast(f) = &mut self.pipe {
                    f.late_drops.push_back((at, cause, pkt.flow));
                }
            }
            if let Some(ev) = &mut self.events {
                ev.record_drop(at, pkt, cause);
            }
            return Err(cause);
        }
        let tx = self.tx_time(pkt.size);
        match &mut self.pipe {
            Pipe::Fast(f) => {
                debug_assert_eq!(
                    self.plain,
                    self.capture.is_none() && self.sojourn.is_none() && self.schedule.is_none()
                );
                if !self.plain {
                    return Ok(self.offer_fast_extras(at, pkt, tx));
                }
                Ok(f.accept_plain(at, pkt.size, tx, self.delay))
            }
            Pipe::PerHop(_) => {
                self.offer_per_hop(now, pkt, tx, events);
                Ok(SimTime::NEVER)
            }
            Pipe::Sched(_) => unreachable!("dequeue-time links are offered in offer_sched"),
        }
    }

    /// (Fast model.) The accepted packet's future on a link that is not plain: its
    /// transmission end from the schedule if there is one, its queueing delay and its
    /// capture record when kept. Returns its arrival time at the far end.
    #[cold]
    #[inline(never)]
    fn offer_fast_extras(&mut self, at: SimTime, pkt: &Packet, tx: Dur) -> SimTime {
        let Pipe::Fast(f) = &mut self.pipe else {
            unreachable!("offer_fast_extras on a fast pipe");
        };
        let start = at.max(f.busy_until);
        let finish = match self.schedule.as_deref_mut() {
            None => SimTime(start.0 + tx.0),
            Some(s) => s.finish(at, f.busy_until, pkt.size),
        };
        let arrive = arrival(&mut self.jitter, finish, self.delay);
        f.busy_until = finish;
        f.held_bytes += pkt.size as u64;
        if let Some(h) = self.sojourn.as_mut() {
            h.record(start.0 - at.0);
        }
        f.ring.push_back(Slot {
            enter: at,
            finish,
            arrive,
            size: pkt.size,
        });
        if let Some(c) = &mut self.capture {
            c.record(start, arrive, pkt);
        }
        arrive
    }

    /// (Fast and per-hop models.) The queue discipline's verdict on an arrival, with the
    /// link's exact occupancy at `at`; a CE mark is written into the packet.
    #[inline(always)]
    fn admit_counted(
        &mut self,
        now: SimTime,
        at: SimTime,
        pkt: &mut Packet,
    ) -> Result<(), DropCause> {
        let occ = self.admission_occupancy(now, at);
        let ect = pkt.is_ect();
        match self
            .disc
            .admit(at, pkt.size as u64, ect, occ, &mut self.queue_rng)?
        {
            Admit::Enqueue => Ok(()),
            Admit::MarkCe => {
                self.mark(now, at, pkt);
                Ok(())
            }
        }
    }

    /// Mark `pkt` CE (RFC 3168 §5) and count it; a mark decided ahead of time (chained)
    /// is remembered so that `settled` can leave it out until its time.
    #[cold]
    #[inline(never)]
    fn mark(&mut self, now: SimTime, at: SimTime, pkt: &mut Packet) {
        pkt.flags |= FLAG_CE;
        self.stats.ecn_marks += 1;
        if let Some(ev) = &mut self.events {
            ev.record_mark(at, pkt);
        }
        if at > now {
            if let Pipe::Fast(f) = &mut self.pipe {
                f.late_marks.push_back(at);
            }
        }
    }

    /// (Fast model.) Hand `pkt` over at the far end at `arrive` (its arrival time from
    /// `offer`): it joins the delivery ring, and the link's event is scheduled if it is the
    /// first in line.
    #[inline(always)]
    pub fn deliver_at(&mut self, arrive: SimTime, pkt: Packet, events: &mut EventQueue) {
        if let Pipe::Fast(f) = &mut self.pipe {
            f.deliver.push_back((arrive, pkt));
            if f.deliver.len() == 1 {
                events.push_arrival(arrive, self.id);
            }
        }
    }

    /// Whether packets wait in the delivery ring (fast model).
    #[inline]
    pub fn has_deliveries(&self) -> bool {
        matches!(&self.pipe, Pipe::Fast(f) if !f.deliver.is_empty())
    }

    /// (Per-hop and dequeue-time models.) The transmission in progress ends at `now`.
    pub fn on_tx_done(&mut self, now: SimTime, events: &mut EventQueue) {
        if matches!(self.pipe, Pipe::PerHop(_)) {
            self.per_hop_tx_done(now, events);
        } else {
            self.sched_tx_done(now, events);
        }
    }

    /// The next delivery reaches the far end at `now`; remove and return it. The event being
    /// handled must be this link's arrival at the top of `events`: it is replaced by the
    /// next delivery's arrival, or removed.
    #[inline]
    pub fn pop_arrival(&mut self, now: SimTime, events: &mut EventQueue) -> Packet {
        match &mut self.pipe {
            Pipe::Fast(f) => {
                let (t, pkt) = f.deliver.pop_front().expect("arrival from an empty link");
                debug_assert_eq!(t, now);
                match f.deliver.front() {
                    Some(&(next, _)) => events.replace_top_arrival(next, self.id),
                    None => events.pop_top(),
                }
                pkt
            }
            Pipe::PerHop(p) => {
                events.pop_top();
                p.wire.pop_front().expect("arrival from an empty wire")
            }
            Pipe::Sched(p) => {
                events.pop_top();
                p.wire.pop_front().expect("arrival from an empty wire")
            }
        }
    }
}

#[cfg(test)]
#[path = "link_tests.rs"]
mod tests;
