//! The simulation: built from a `Scenario`, advanced with `run_until`, finished into a
//! `RunResult`.
//!
//! The event loop dispatches four kinds of events: a link's head packet arriving at the
//! far node (forwarded on, or handed to its endpoint), a transmission end (per-hop link
//! model only), an endpoint wakeup, and sampling. Each endpoint has at most a handful of
//! pending wakeups: a new one is queued only when its deadline moves *earlier* than every
//! pending one; a wakeup that finds nothing due is harmless. So re-arming a timer on every
//! ACK costs no heap operation.

use crate::cc::AnyCc;
use crate::engine::{Event, EventQueue};
use crate::ids::LinkId as Lid;
use crate::ids::{EndpointId, FlowId, LinkId, NodeId};
use crate::net::dv::DistanceVector;
use crate::net::pinned::{FlowPaths, PinnedPaths};
use crate::net::routing::ForwardingTable;
use crate::net::Link;
use crate::packet::{Packet, PacketKind};
use crate::results::{DropCause, DropCounts, Table};
use crate::scenario::{Problem, Scenario, ScenarioError};
use crate::trace::Sampler;
use crate::transport::Endpoint;
use crate::units::SimTime;

#[path = "sim_results.rs"]
mod sim_results;

#[path = "sim_inline.rs"]
mod sim_inline;

#[path = "sim_build.rs"]
mod sim_build;

#[path = "sim_barrier.rs"]
mod sim_barrier;
#[path = "sim_solo.rs"]
mod sim_solo;
pub use sim_barrier::ShareCounts;

#[path = "sim_parallel.rs"]
mod sim_parallel;

#[path = "sim_merge.rs"]
mod sim_merge;

#[path = "sim_memory.rs"]
mod sim_memory;

#[path = "sim_events.rs"]
mod sim_events;

struct FlowRuntime {
    sender: EndpointId,
    receiver: EndpointId,
    drops: DropCounts,
    /// Drops of packets on pinned path k + 1 (MPTCP subflow k).
    path_drops: Vec<DropCounts>,
}

/// Per endpoint, what the event loop reads and writes with every packet and timer it hands
/// over, in one record (one index, one cache line, where four arrays took four).
#[derive(Clone, Copy, Debug)]
struct EpState {
    /// The node it is at.
    node: NodeId,
    /// Path stamped on packets it sends without one: 1 when its flow has exactly one pinned
    /// path (single-path transports need not know about paths), else 0.
    path: u8,
    /// The time of the last packet or timer it handled.
    clock: SimTime,
    /// Its next wakeup as of its last `reschedule` (every call into an endpoint ends with one).
    due: SimTime,
}

/// A simulation in progress.
pub struct Simulation {
    scenario: Scenario,
    now: SimTime,
    end: SimTime,
    events: EventQueue,
    links: Vec<Link>,
    fwd: ForwardingTable,
    pinned: PinnedPaths,
    endpoints: Vec<Endpoint>,
    /// Per endpoint: where it is and its clocks (`EpState`).
    ep: Vec<EpState>,
    /// Pending wakeup times per endpoint; the last is the earliest.
    ep_pending: Vec<Vec<SimTime>>,
    flows: Vec<FlowRuntime>,
    out: Vec<Packet>,
    created: u64,
    delivered: u64,
    dropped: DropCounts,
    n_events: u64,
    sampler: Sampler,
    warnings: Vec<String>,
    /// Adaptive routing agents (`[routing] kind = "distance-vector"`).
    dv: Option<DistanceVector>,
    /// Link failures and recoveries: (time, link, up), in time order; the next to apply.
    link_events: Vec<(SimTime, Lid, bool)>,
    next_link_event: usize,
    /// Pending control wakeups; the last is the earliest.
    control_pending: Vec<SimTime>,
    /// Routes time series (split ratios and prices).
    route_table: Table,
    /// MPTCP subflows as (flow, subflow): their summary and series rows follow the flows'.
    subflow_rows: Vec<(usize, usize)>,
    /// MPTCP window reductions: time_s, flow (subflow row), cause, cwnd before and after.
    backoffs: Table,
    /// Per endpoint: the link it receives through, if it runs inline (`sim_inline`).
    inline_in: Vec<Option<LinkId>>,
    /// Packets accepted for inline endpoints while one was being run, not yet handled.
    inline_work: sim_inline::InlineWork,
    /// Whether an inline endpoint is being run (others then wait in `inline_work`).
    inlining: bool,
    /// Endpoint outboxes being forwarded (inline runs wait until the outermost is done).
    flushing: u32,
    /// Inline handling only for arrivals before this (next sample, end, `run_until` target).
    horizon: SimTime,
    /// When the next time-series sample is taken (`NEVER` without sampling).
    next_sample: SimTime,
    /// With `threads = 2`: which part of the split network this simulation runs.
    part: Option<sim_parallel::Part>,
    /// With `threads = 2`: the simulation running the other part (held by part 0).
    peer: Option<Box<Simulation>>,
    /// Links fed ahead by their upstream links (`sim_merge`).
    merges: Vec<sim_merge::MergePoint>,
    /// Bytes the growing structures may hold (`sim_memory`).
    memory_limit: u64,
    /// Why the run stopped before its end (the memory limit), if it did.
    failure: Option<String>,
    /// The measurement window and the accounts taken at its edges (`measure`).
    measure: Option<crate::measure::MeasureRun>,
    /// Drops at nodes without a route, when `[trace] events` records drops (`sim_events`).
    node_drops: Option<Box<Table>>,
}

/// Cores not running anything now: the machine's cores less the tasks that are runnable
/// (`procs_running` of /proc/stat, Linux), counting this thread as not running. `None`
/// where that cannot be read.
fn free_cores() -> Option<usize> {
    let cores = std::thread::available_parallelism().ok()?.get();
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let running: usize = stat
        .lines()
        .find_map(|l| l.strip_prefix("procs_running"))?
        .trim()
        .parse()
        .ok()?;
    Some(cores.saturating_sub(running.saturating_sub(1)))
}

fn invalid(path: String, message: String) -> Problem {
    Problem { path, message }
}

impl Simulation {
    /// Build every node, link, route and endpoint of `scenario`. With `threads = 2` and a
    /// network that splits (see `sim_parallel`), two simulations, one per part; otherwise
    /// one, with a warning saying why it did not split. With `threads = "auto"` (0), two
    /// when the network splits with a lookahead of at least `AUTO_MIN_LOOKAHEAD` and
    /// another core is free now, with a warning saying what it chose and why.
    pub fn new(scenario: Scenario) -> Result<Simulation, ScenarioError> {
        let auto = scenario.threads == crate::scenario::THREADS_AUTO;
        if scenario.threads == 1 {
            return Simulation::build(scenario, None);
        }
        let one = |scenario: Scenario, why: String| {
            let mut sim = Simulation::build(scenario, None)?;
            sim.warnings.push(if auto {
                format!("threads = \"auto\": one thread ({why})")
            } else {
                format!("threads = 2: {why}; running on one thread")
            });
            Ok(sim)
        };
        if scenario.measure.is_some() {
            // The window's accounts read every endpoint and link at one instant, which the
            // split run does not offer yet; results are the same on one thread.
            return one(
                scenario,
                "a [measure] window is measured on one thread".into(),
            );
        }
        match sim_parallel::split(&scenario) {
            Err(why) => one(scenario, why),
            Ok(split) if !auto => sim_parallel::build_pair(scenario, split),
            Ok(split) => match sim_parallel::auto_threads(split.lookahead(), free_cores()) {
                Err(why) => one(scenario, why),
                Ok(why) => {
                    let mut sim = sim_parallel::build_pair(scenario, split)?;
                    sim.warnings
                        .push(format!("threads = \"auto\": two threads ({why})"));
                    Ok(sim)
                }
            },
        }
    }

    /// The distance-vector routing agents, with adaptive routing.
    pub fn routing(&self) -> Option<&DistanceVector> {
        self.dv.as_ref()
    }

    /// The scenario being run.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// When the run ends.
    pub fn end_time(&self) -> SimTime {
        self.end
    }
    /// Events pending in the queue.
    pub fn events_pending(&self) -> usize {
        self.events.len() + self.peer.as_ref().map_or(0, |p| p.events.len())
    }
    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.n_events + self.peer.as_ref().map_or(0, |p| p.n_events)
    }
    /// How many endpoints run inline, without arrival events (see `sim_inline`).
    pub fn inline_endpoints(&self) -> usize {
        self.inline_in.iter().filter(|l| l.is_some()).count()
    }
    /// How many links are merge points fed ahead (see `sim_merge`).
    pub fn merge_points(&self) -> usize {
        self.merges.len() + self.peer.as_ref().map_or(0, |p| p.merges.len())
    }
    /// An endpoint, for inspection (flow `i` has sender `2i` and receiver `2i + 1`).
    pub fn endpoint(&self, id: EndpointId) -> &Endpoint {
        match (&self.part, &self.peer) {
            (Some(p), Some(peer)) if !p.owns(self.ep[id.idx()].node) => peer.endpoint(id),
            _ => &self.endpoints[id.idx()],
        }
    }
    /// The links a packet of `flow` takes towards its destination (or back to its source):
    /// its pinned path or ECMP route when it has exactly one, else the routing table's
    /// (empty without a route, or for multipath flows).
    pub fn route(&self, flow: FlowId, towards_destination: bool) -> Vec<LinkId> {
        let f = &self.scenario.flows[flow.idx()];
        let (from, to) = if towards_destination {
            (f.from, f.to)
        } else {
            (f.to, f.from)
        };
        match self.pinned.count(flow) {
            0 => self
                .fwd
                .path(&self.scenario.links, from, to)
                .unwrap_or_default(),
            1 => self.pinned.links(flow, 1, towards_destination),
            _ => Vec::new(),
        }
    }
    /// Whether the run is split across two threads (`threads = 2`, see `sim_parallel`).
    pub fn is_split(&self) -> bool {
        self.peer.is_some()
    }

    /// Process every event up to and including `t` (capped at the end time).
    ///
    /// A run that reaches its memory limit stops there; `failure` then says why, and
    /// further calls do nothing.
    pub fn run_until(&mut self, t: SimTime) {
        if self.failure().is_some() {
            return;
        }
        let t = t.min(self.end);
        // Stop at the measurement window's edges to take its accounts: an edge's account
        // holds every event before it (none before a window opening at 0).
        while let Some(edge) = self.measure.as_ref().and_then(|m| m.next_mark(self.end)) {
            if edge > t {
                break;
            }
            let last = match edge.0.checked_sub(1) {
                Some(ns) => SimTime(ns),
                None => SimTime::ZERO,
            };
            if edge > SimTime::ZERO {
                self.run_events(last, last);
                if self.failure.is_some() {
                    return;
                }
                self.now = self.now.max(last);
            }
            self.measure_mark(last);
        }
        if self.peer.is_some() {
            self.run_parallel(t);
        } else {
            self.run_events(t, t);
            if self.failure.is_none() {
                self.now = self.now.max(t);
            }
        }
    }

    /// Process every event up to and including `last`, for a run asked to go to `target`
    /// (`last ≤ target`; they differ only in a window of a run on two threads).
    fn run_events(&mut self, last: SimTime, target: SimTime) {
        let t = target;
        self.horizon = t.min(self.next_sample);
        while let Some((now, ev)) = self.events.peek() {
            if now > last {
                break;
            }
            if self.n_events % sim_memory::CHECK_EVERY == 0 && self.over_memory() {
                break;
            }
            self.now = now;
            self.n_events += 1;
            match ev {
                Event::LinkArrival(l) => {
                    let link = &mut self.links[l.idx()];
                    let pkt = link.pop_arrival(now, &mut self.events);
                    let node = link.to;
                    if link.take_doomed(now, &pkt) {
                        self.drop_packet(&pkt, DropCause::LinkDown);
                        continue;
                    }
                    self.arrive(now, node, pkt);
                }
                Event::TxDone(l) => {
                    self.events.pop_top();
                    self.links[l.idx()].on_tx_done(now, &mut self.events);
                    self.charge_dequeue_drops(l);
                }
                Event::Wakeup(ep) => {
                    self.events.pop_top();
                    self.ep_pending[ep.idx()].pop();
                    if now < self.ep[ep.idx()].clock {
                        // Stale: the endpoint ran inline past this time (`sim_inline`), and
                        // fired every timer due before its clock.
                        let due = self.endpoints[ep.idx()].next_wakeup();
                        debug_assert!(due >= self.ep[ep.idx()].clock, "a timer was missed");
                        if due > now {
                            self.reschedule(ep);
                            continue;
                        }
                    }
                    self.ep[ep.idx()].clock = now;
                    self.endpoints[ep.idx()].on_timer(now, &mut self.out);
                    self.flush(now, ep);
                }
                Event::Merge(m) => {
                    self.events.pop_top();
                    self.run_merge(now, m);
                }
                Event::Control => {
                    self.events.pop_top();
                    self.control_pending.pop();
                    self.control(now);
                }
                Event::Sample => {
                    self.next_sample = now + self.sampler.interval;
                    self.horizon = t.min(self.next_sample);
                    self.events
                        .replace_top_timer(self.next_sample, Event::Sample);
                    self.sample(now);
                }
            }
        }
    }

    #[inline]
    fn arrive(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        if pkt.kind == PacketKind::Route {
            self.delivered += 1;
            if let Some(dv) = self.dv.as_mut() {
                dv.on_announcement(now, node.idx(), &pkt);
            }
            self.send_announcements(now);
            return;
        }
        if node == pkt.dst {
            self.delivered += 1;
            let ep = pkt.dst_ep;
            self.ep[ep.idx()].clock = now;
            self.endpoints[ep.idx()].on_packet(now, &pkt, &mut self.out);
            self.flush(now, ep);
        } else {
            let mut pkt = pkt;
            self.forward(now, now, node, &mut pkt);
        }
    }

    /// Send `pkt` from `node` at `at` (`now` is the current time; `at > now` when an inline
    /// endpoint sends, see `sim_inline`). While the next link's only upstream is the link
    /// the packet is on, offer it there at once at its future arrival time; the last link
    /// delivers it with an event, or to an inline endpoint.
    #[inline(always)]
    fn forward(&mut self, now: SimTime, at: SimTime, node: NodeId, pkt: &mut Packet) {
        let Some(l) = self.next_link(node, pkt) else {
            self.drop_packet(pkt, DropCause::NoRoute);
            if self.node_drops.is_some() {
                self.log_no_route(at, pkt);
            }
            return;
        };
        self.send_on(now, at, l, pkt);
    }

    /// Offer `pkt` to link `l` at `at`, and on along the chained links after it (a queue
    /// may mark it CE on the way: the caller's copy is the one in flight).
    #[inline(always)]
    fn send_on(&mut self, now: SimTime, at: SimTime, l: LinkId, pkt: &mut Packet) {
        let (mut l, mut at) = (l, at);
        loop {
            let link = &mut self.links[l.idx()];
            match link.offer(now, at, pkt, &mut self.events) {
                Err(cause) => {
                    self.drop_packet(pkt, cause);
                    return;
                }
                Ok(arrive) => {
                    if !link.is_fast() {
                        self.charge_dequeue_drops(l);
                        return;
                    }
                    match self.onward(now, l, arrive, pkt) {
                        Some(n) => (l, at) = (n, arrive),
                        None => return,
                    }
                }
            }
        }
    }

    /// `pkt` reaches the far end of link `l` at `arrive`: the next link if it is chained
    /// to `l` (returned, for the caller to offer it there), else the other part of a split
    /// run if the far end is there, else the inline endpoint, else the merge point `l`
    /// feeds, else `l`'s delivery ring.
    #[inline(always)]
    fn onward(&mut self, now: SimTime, l: LinkId, arrive: SimTime, pkt: &Packet) -> Option<LinkId> {
        let link = &self.links[l.idx()];
        let (v, exits) = (link.to, link.exits);
        // (Never with adaptive routing: chaining is off, and a lookup would spend a
        // forwarding draw.)
        if v != pkt.dst && link.feeds_chain {
            if let Some(n) = self.next_link(v, pkt) {
                if self.links[n.idx()].chained_from == Some(l) {
                    return Some(n);
                }
            }
        }
        if exits {
            self.hand_over(l, arrive, *pkt);
            return None;
        }
        if v == pkt.dst && self.can_inline(l, arrive, pkt) {
            self.run_inline(now, arrive, pkt);
            return None;
        }
        if let Some(m) = self.links[l.idx()].merge_into {
            self.merge_push(m, arrive, pkt);
            return None;
        }
        self.links[l.idx()].deliver_at(arrive, *pkt, &mut self.events);
        None
    }

    /// The link `pkt` leaves `node` by: its pinned path's, or the routing table's (the
    /// distance-vector agents' split draw with adaptive routing).
    #[inline(always)]
    fn next_link(&mut self, node: NodeId, pkt: &Packet) -> Option<LinkId> {
        if pkt.path == 0 {
            match self.dv.as_mut() {
                Some(dv) => dv.next_link(node.idx(), pkt.dst.idx()),
                None => self.fwd.next_link(node.idx(), pkt.dst.idx()),
            }
        } else {
            self.pinned.next_link(pkt.flow, pkt.path, node, pkt.dst)
        }
    }

    /// Charge the packets a dequeue-time discipline (CoDel) dropped on link `l` to their
    /// flows.
    #[inline]
    fn charge_dequeue_drops(&mut self, l: LinkId) {
        for (pkt, cause) in self.links[l.idx()].take_dequeue_drops() {
            self.drop_packet(&pkt, cause);
        }
    }

    #[inline]
    fn drop_packet(&mut self, pkt: &Packet, cause: DropCause) {
        self.dropped.add(cause);
        if pkt.kind != PacketKind::Route {
            let rt = &mut self.flows[pkt.flow.idx()];
            rt.drops.add(cause);
            if pkt.path > 0 {
                if let Some(d) = rt.path_drops.get_mut(pkt.path as usize - 1) {
                    d.add(cause);
                }
            }
        }
    }

    /// Control work due at `now`: link failures/recoveries, then the routing agents' timers;
    /// the sources' FAST agents then get their node's new price (paper §3.2).
    fn control(&mut self, now: SimTime) {
        while let Some(&(t, l, up)) = self.link_events.get(self.next_link_event) {
            if t > now {
                break;
            }
            self.next_link_event += 1;
            self.links[l.idx()].set_up(up);
            if let Some(dv) = self.dv.as_mut() {
                dv.set_link(now, l, up);
            }
        }
        if let Some(dv) = self.dv.as_mut() {
            if dv.next_wakeup() <= now {
                let prices: Vec<f64> = self
                    .links
                    .iter()
                    .map(|l| l.occupancy_at(now).1 as f64 * 8.0 / l.rate.as_f64())
                    .collect();
                dv.on_tick(now, &prices);
                for (f, spec) in self.scenario.flows.iter().enumerate() {
                    let Some(q) = dv.price(spec.from, spec.to).filter(|q| q.is_finite()) else {
                        continue;
                    };
                    if let Endpoint::TcpSender(tx) = &mut self.endpoints[self.flows[f].sender.idx()]
                    {
                        if let AnyCc::Fast(c) = tx.cc_mut() {
                            c.set_price(q);
                        }
                    }
                }
            }
        }
        self.send_announcements(now);
        self.reschedule_control();
    }

    /// Put the routing agents' queued announcements on their links.
    fn send_announcements(&mut self, now: SimTime) {
        let Some(dv) = self.dv.as_mut() else {
            return;
        };
        let mut out = std::mem::take(&mut dv.outbox);
        for (l, mut pkt) in out.drain(..) {
            self.created += 1;
            let link = &mut self.links[l.idx()];
            match link.offer(now, now, &mut pkt, &mut self.events) {
                Err(cause) => self.drop_packet(&pkt, cause),
                Ok(arrive) => {
                    if link.is_fast() {
                        link.deliver_at(arrive, pkt, &mut self.events);
                    }
                }
            }
        }
        if let Some(dv) = self.dv.as_mut() {
            dv.outbox = out;
        }
    }

    fn reschedule_control(&mut self) {
        let mut d = self
            .dv
            .as_ref()
            .map_or(SimTime::NEVER, |dv| dv.next_wakeup());
        if let Some(&(t, _, _)) = self.link_events.get(self.next_link_event) {
            d = d.min(t);
        }
        if d == SimTime::NEVER {
            return;
        }
        let d = d.max(self.now);
        if self.control_pending.last().is_none_or(|&p| d < p) {
            self.control_pending.push(d);
            self.events.push_timer(d, Event::Control);
        }
    }

    /// Put the endpoint's outbox on the network and update its wakeup.
    #[inline]
    fn flush(&mut self, now: SimTime, ep: EndpointId) {
        self.flush_at(now, now, ep);
    }

    /// `flush` for packets sent at `at` (later than `now` for an inline endpoint).
    #[inline]
    fn flush_at(&mut self, now: SimTime, at: SimTime, ep: EndpointId) {
        if !self.out.is_empty() {
            let node = self.ep[ep.idx()].node;
            let stamp = self.ep[ep.idx()].path;
            // No endpoint runs while these are forwarded (inline runs wait for the end of
            // the outermost flush), so nothing writes to `self.out` meanwhile.
            let mut out = std::mem::take(&mut self.out);
            self.flushing += 1;
            for pkt in out.iter_mut() {
                self.created += 1;
                if pkt.path == 0 {
                    pkt.path = stamp;
                }
                self.forward(now, at, node, pkt);
            }
            out.clear();
            self.flushing -= 1;
            debug_assert!(self.out.is_empty(), "an endpoint ran during a flush");
            self.out = out;
        }
        // The endpoint's wakeup before the inline runs its packets queued: one may be its own.
        self.reschedule(ep);
        if self.flushing == 0 && !self.inlining && !self.inline_work.is_empty() {
            self.drain_inline(now);
        }
    }

    #[inline(always)]
    fn reschedule(&mut self, ep: EndpointId) {
        let d = self.endpoints[ep.idx()].next_wakeup();
        self.ep[ep.idx()].due = d;
        if d == SimTime::NEVER {
            return;
        }
        let d = d.max(self.now);
        let pending = &mut self.ep_pending[ep.idx()];
        if pending.last().is_none_or(|&p| d < p) {
            pending.push(d);
            self.events.push_timer(d, Event::Wakeup(ep));
        }
    }
}

/// Every flow's endpoints and pinned paths.
fn flow_paths(scenario: &Scenario) -> Vec<FlowPaths<'_>> {
    scenario
        .flows
        .iter()
        .map(|f| FlowPaths {
            name: &f.name,
            from: f.from,
            to: f.to,
            paths: &f.paths,
        })
        .collect()
}
