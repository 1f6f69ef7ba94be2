//! One simulation on two threads (a child module of `sim`): `[simulation] threads = 2`.
//!
//! Conservative parallel simulation with a fixed lookahead (Chandy & Misra; the
//! synchronous-window form of Lubachevsky's bounded-lag algorithm). The nodes are split in
//! two parts joined only by links whose propagation delay is at least `L`, the lookahead;
//! each part is a whole `Simulation` that starts only its own endpoints. A packet that a
//! link leaving one part accepts at time `s` reaches the other part no earlier than
//! `s + L`. So both parts can process a window of `L` on their own; at its end they swap
//! the packets that crossed ("hand over"), and each takes its packets over as its link's
//! far end would have: chained on, handed to an inline endpoint, or queued for delivery.
//! Two refinements: a link chained to a link of the other part may run in either part
//! (`Part::assign_links` gives it to the part with fewer senders), and without sampling
//! the windows may be as long as the chains after the cut allow (`extend_lookahead`:
//! 15 ms instead of 10 ms in the benchmark dumbbell).
//!
//! Why the results are those of one thread, bit for bit (checked by
//! `tests/engine_invariants.rs`): every action on a link or an endpoint depends only on
//! that link's or endpoint's own inputs in their own order, as chaining and inline
//! endpoints already rely on (see `net::link` and `sim_inline`). Splitting changes *when*
//! a crossing packet is taken over (at the end of the window, instead of the moment the
//! link accepted it), never the order in which any one link or endpoint sees its inputs.
//! Within one instant, events keep their order (arrivals by link index, timers in their
//! part's insertion order), and every random stream belongs to one link or endpoint.
//!
//! Counters, summaries and time series are merged at the end: each link and endpoint is
//! taken from the part that ran it, drops and packet counts are added, and each time-series
//! column comes from the part owning what it measures.
//!
//! Not split (the run stays on one thread, with a warning): the per-hop link model,
//! adaptive routing and link failures (which chaining does not support either), networks
//! with no links of at least `MIN_LOOKAHEAD` that cut them into two parts holding at least
//! a quarter of the flow endpoints each, and MPTCP senders on both sides (the backoff log
//! is ordered across senders only on one thread).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use super::sim_barrier::{run_two, Padded, Phases, ShareCounts};
use super::{sim_merge, Simulation};
use crate::ids::{EndpointId, LinkId, NodeId};
use crate::packet::Packet;
use crate::results::{DropCounts, Table};
use crate::scenario::{LinkModel, Scenario, ScenarioError, TransportSpec};
use crate::units::{Dur, SimTime};

/// Shortest lookahead worth a split: windows shorter than this would spend more time
/// waiting for each other than simulating (a 20 km fibre is 100 µs).
pub const MIN_LOOKAHEAD: Dur = Dur(100_000);

/// Shortest lookahead at which `threads = "auto"` splits: shorter windows leave too
/// little work between two synchronisations to gain from a second core (our choice; the
/// benchmark dumbbells' windows are 10–15 ms).
pub const AUTO_MIN_LOOKAHEAD: Dur = Dur(1_000_000);

/// `threads = "auto"`: whether to run a network that splits with `lookahead` on two
/// threads, with `free` cores free now (`None`: unknown). Ok (two threads) or Err (one),
/// with the reason.
pub(super) fn auto_threads(lookahead: Dur, free: Option<usize>) -> Result<String, String> {
    if lookahead < AUTO_MIN_LOOKAHEAD {
        return Err(format!(
            "the split's lookahead {lookahead} is under {AUTO_MIN_LOOKAHEAD}"
        ));
    }
    match free {
        Some(n) if n >= 2 => Ok(format!("{n} cores free, lookahead {lookahead}")),
        Some(n) => Err(format!("{n} core(s) free: another would be shared")),
        None => Err("the free cores cannot be counted here".into()),
    }
}

/// A packet accepted by a link into the other part: (link, arrival time, packet).
type Crossing = (LinkId, SimTime, Packet);

/// Which part each node is in, and the lookahead that gives.
#[derive(Clone, Debug)]
pub(super) struct Split {
    owner: Vec<u8>,
    lookahead: Dur,
}

/// One part's view of the split.
#[derive(Debug)]
pub(super) struct Part {
    id: u8,
    owner: Vec<u8>,
    lookahead: Dur,
    /// Packets handed over to the other part in the current window. This buffer stays
    /// with its part (see `Exchange`), whose windows one thread runs unless the other
    /// takes them over (`sim_barrier`).
    out: Vec<Crossing>,
    /// Every event before this time has been processed.
    next: SimTime,
    /// Per link, the part that runs it (`assign_links`).
    runner: Vec<u8>,
    /// (Part 0, after running.) How the two threads shared the windows.
    share: ShareCounts,
    /// (Part 0.) Phases on one or two threads so far (`sim_solo`).
    phases: Phases,
}

impl Split {
    /// The shortest delay between the parts.
    pub(super) fn lookahead(&self) -> Dur {
        self.lookahead
    }
}

impl Part {
    /// Whether node `n` is in this part.
    #[inline]
    pub(super) fn owns(&self, n: NodeId) -> bool {
        self.owner[n.idx()] == self.id
    }

    /// Lengthen the lookahead to what the chains allow (after `assign_links`).
    ///
    /// The split's lookahead is the shortest delay between the parts. But a packet handed
    /// over only matters to the other part when it reaches something that has other
    /// inputs: an endpoint, a merge point, a delivery at a router. Until then it travels
    /// along chained links, which see nothing but their own input, in order, and so may be
    /// run late. Each segment of a route between such points is a chain of links; if the
    /// part running it changes `m` times along it (the point at its end counting as the
    /// part that holds it), the packet is taken over `m` windows after the one in which the
    /// segment started, and it reaches that end `D` after the start, `D` the segment's
    /// delays (less the last link's when it ends at a merge point, which takes packets
    /// ahead by up to that delay). Windows of `D / m` are then safe. In the benchmark
    /// dumbbell the bottleneck and the access link after it make 15 ms instead of 10 ms.
    /// Not with sampling, which reads links' queues at instants a late chain has not
    /// reached yet.
    pub(super) fn extend_lookahead(
        &mut self,
        sc: &Scenario,
        links: &[crate::net::Link],
        chains: &[Option<LinkId>],
        routes: &[(EndpointId, Vec<LinkId>)],
    ) {
        if sc.trace.interval.0 > 0 {
            return;
        }
        let mut feeds_merge = vec![false; links.len()];
        for p in 0..2u8 {
            let local = |l: &crate::net::Link| self.runner[l.id.idx()] == p;
            let (_, into) = sim_merge::merge_points(routes, links, local);
            for (l, m) in into.iter().enumerate() {
                feeds_merge[l] |= m.is_some();
            }
        }
        let mut best = u64::MAX;
        for (_, path) in routes {
            let mut i = 0;
            while i < path.len() {
                let mut part = self.runner[path[i].idx()];
                let (mut delay, mut changes) = (0u64, 0u64);
                let mut j = i;
                loop {
                    let l = path[j];
                    if self.runner[l.idx()] != part {
                        part = self.runner[l.idx()];
                        changes += 1;
                    }
                    delay += links[l.idx()].delay.0;
                    match path.get(j + 1) {
                        Some(n) if chains[n.idx()] == Some(l) => j += 1,
                        _ => break,
                    }
                }
                let last = &links[path[j].idx()];
                let into_merge = j + 1 < path.len() && feeds_merge[last.id.idx()];
                if into_merge {
                    // The merge point runs with its feeders.
                    delay -= last.delay.0;
                } else if self.owner[last.to.idx()] != part {
                    changes += 1;
                }
                if let Some(d) = delay.checked_div(changes) {
                    best = best.min(d);
                }
                i = j + 1;
            }
        }
        if best != u64::MAX {
            self.lookahead = self.lookahead.max(Dur(best));
        }
    }

    /// Whether link `l` runs in this part.
    #[inline]
    pub(super) fn runs(&self, l: LinkId) -> bool {
        self.runner[l.idx()] == self.id
    }

    /// Decide which part runs each link. A link runs in the part of its sending node,
    /// except a link chained to a link run in the other part (`chains`, from
    /// `sim_merge::chain_feeders`): nothing but that upstream link feeds it, so either part
    /// can run it, and it runs in the part holding fewer flow senders. A sender's work per
    /// packet (ACK clocking, loss recovery, sending) is the largest of any element's, so
    /// that part is the lighter one: in a dumbbell split across its bottleneck, the
    /// receivers' part then also runs the access links that carry the ACKs back to the
    /// senders. The lookahead is unchanged: a chain that leaves a part starts with a link
    /// between the parts, whose delay is at least the lookahead.
    pub(super) fn assign_links(
        &mut self,
        sc: &Scenario,
        links: &[crate::net::Link],
        chains: &[Option<LinkId>],
    ) {
        let mut senders = [0usize; 2];
        for f in &sc.flows {
            senders[self.owner[f.from] as usize] += 1;
        }
        // (No lighter part when they hold as many senders.)
        let lighter = (senders[0] != senders[1]).then(|| u8::from(senders[1] < senders[0]));
        let mut runner: Vec<u8> = links.iter().map(|l| self.owner[l.from.idx()]).collect();
        // A chain is run by one part, its head's or (if that is the lighter part) its
        // upstream's; each pass settles one more link of every chain.
        loop {
            let mut changed = false;
            for (c, up) in chains.iter().enumerate() {
                let Some(u) = up else { continue };
                let home = self.owner[links[c].from.idx()];
                let up_runner = runner[u.idx()];
                let r = if lighter == Some(up_runner) {
                    up_runner
                } else {
                    home
                };
                if runner[c] != r {
                    runner[c] = r;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.runner = runner;
    }
}

fn find(uf: &mut [usize], mut v: usize) -> usize {
    while uf[v] != v {
        uf[v] = uf[uf[v]];
        v = uf[v];
    }
    v
}

/// Split `sc`'s nodes in two across its longest-delay links, or say why it cannot be.
pub(super) fn split(sc: &Scenario) -> Result<Split, String> {
    if sc.link_model != LinkModel::Fast {
        return Err("the per-hop link model is not split".into());
    }
    if sc.dv.is_some() || !sc.link_events.is_empty() {
        return Err("adaptive routing and link failures are not split".into());
    }
    if sc.links.iter().any(|l| l.queue.decides_at_dequeue()) {
        return Err("a queue that decides at dequeue (codel, pie, fq_codel) is not split".into());
    }
    let n = sc.nodes.len();
    // The work of a part grows with the flow endpoints it holds.
    let mut weight = vec![0u64; n];
    for f in &sc.flows {
        weight[f.from] += 1;
        weight[f.to] += 1;
    }
    let total: u64 = weight.iter().sum();
    let mut delays: Vec<Dur> = sc
        .links
        .iter()
        .map(|l| l.delay)
        .filter(|&d| d >= MIN_LOOKAHEAD)
        .collect();
    delays.sort_unstable();
    delays.dedup();
    // Longest threshold first: the longest lookahead that still gives a balanced split.
    for &d in delays.iter().rev() {
        let mut uf: Vec<usize> = (0..n).collect();
        for l in sc.links.iter().filter(|l| l.delay < d) {
            let (a, b) = (find(&mut uf, l.from), find(&mut uf, l.to));
            uf[a.max(b)] = a.min(b);
        }
        let roots: Vec<usize> = (0..n).map(|v| find(&mut uf, v)).collect();
        let mut comp_weight = vec![0u64; n];
        for v in 0..n {
            comp_weight[roots[v]] += weight[v];
        }
        let mut comps: Vec<usize> = (0..n).filter(|&v| roots[v] == v).collect();
        if comps.len() < 2 {
            continue;
        }
        // Heaviest component first, each into the lighter part.
        comps.sort_by_key(|&c| (std::cmp::Reverse(comp_weight[c]), c));
        let mut side = vec![0u8; n];
        let mut load = [0u64; 2];
        for &c in &comps {
            let s = usize::from(load[1] < load[0]);
            side[c] = s as u8;
            load[s] += comp_weight[c];
        }
        if load[0].min(load[1]) * 4 < total {
            continue;
        }
        let owner: Vec<u8> = (0..n).map(|v| side[roots[v]]).collect();
        // No link between the parts (two separate networks): they never exchange a
        // packet, and one window can span the whole run.
        let lookahead = sc
            .links
            .iter()
            .filter(|l| owner[l.from] != owner[l.to])
            .map(|l| l.delay)
            .min()
            .unwrap_or(Dur(sc.duration.0.max(1)));
        let mptcp_sides = sc
            .flows
            .iter()
            .filter(|f| matches!(f.transport, TransportSpec::Mptcp(_)))
            .fold([false; 2], |mut s, f| {
                s[owner[f.from] as usize] = true;
                s
            });
        if mptcp_sides == [true, true] {
            return Err("MPTCP senders would be on both sides of the split".into());
        }
        return Ok(Split { owner, lookahead });
    }
    Err(format!(
        "no links with a delay of at least {MIN_LOOKAHEAD} cut the network into two parts \
         holding at least a quarter of the flow endpoints each"
    ))
}

/// The two simulations of a split scenario: part 0, holding part 1 as its peer.
pub(super) fn build_pair(sc: Scenario, split: Split) -> Result<Simulation, ScenarioError> {
    let part = |id| Part {
        id,
        owner: split.owner.clone(),
        lookahead: split.lookahead,
        out: Vec::new(),
        next: SimTime::ZERO,
        runner: Vec::new(),
        share: ShareCounts::default(),
        phases: Phases::default(),
    };
    let peer = Simulation::build(sc.clone(), Some(part(1)))?;
    let mut sim = Simulation::build(sc, Some(part(0)))?;
    sim.peer = Some(Box::new(peer));
    Ok(sim)
}

/// What the two threads share: mailboxes (by destination part and window parity, so a
/// part posting window k + 1 never mixes with window k still being taken) and the stop flag.
///
/// A part collects its crossings in its own buffer and posts them with one bulk copy into
/// the mailbox, which the other part then reads in place. Buffers stay with their part
/// (and so with its thread, unless the other thread takes its windows over): writing
/// crossings one by one into memory the other core had just read stalled on every
/// cache line's ownership transfer (the windows' event phases ran twice as slowly as on
/// one thread), while a bulk copy overlaps the transfers (see `docs/performance.md`).
#[derive(Default)]
struct Exchange {
    mail: [[Padded<Mutex<Vec<Crossing>>>; 2]; 2],
    /// A part reached its memory limit: both stop after this window.
    stop: Padded<AtomicBool>,
}

impl Exchange {
    fn mailbox(&self, part: usize, window: usize) -> MutexGuard<'_, Vec<Crossing>> {
        self.mail[part][window & 1]
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

fn add_drops(a: &mut DropCounts, b: &DropCounts) {
    for (x, y) in a.0.iter_mut().zip(b.0.iter()) {
        *x += y;
    }
}

/// In `mine`, replace columns `cols` of the rows where `theirs_row(row)` with `theirs`'.
fn take_columns(
    mine: &mut Table,
    theirs: &Table,
    cols: std::ops::Range<usize>,
    theirs_row: impl Fn(&Table, usize) -> bool,
) {
    assert_eq!(mine.len(), theirs.len(), "both parts sample the same rows");
    for r in 0..mine.len() {
        if theirs_row(mine, r) {
            for c in cols.clone() {
                mine.columns[c][r] = theirs.columns[c][r];
            }
        }
    }
}

impl Simulation {
    /// (Split runs.) The length of the windows (see `Part::extend_lookahead`).
    pub fn lookahead(&self) -> Option<Dur> {
        self.part.as_ref().map(|p| p.lookahead)
    }

    /// (Split runs.) How many links run in the part that does not hold their sending node
    /// (see `Part::assign_links`); 0 on one thread.
    pub fn links_run_across(&self) -> usize {
        let Some(p) = &self.part else {
            return 0;
        };
        (0..self.links.len())
            .filter(|&l| p.runner[l] != p.owner[self.links[l].from.idx()])
            .count()
    }

    /// (Split runs.) `pkt`, accepted by link `l` into the other part, arrives at `arrive`.
    #[inline]
    pub(super) fn hand_over(&mut self, l: LinkId, arrive: SimTime, pkt: Packet) {
        if let Some(p) = &mut self.part {
            p.out.push((l, arrive, pkt));
        }
    }

    /// Run both parts to `t`, window by window, on this thread and one more
    /// (`sim_barrier::run_two`: a thread runs the other part's windows when that part's
    /// thread is descheduled).
    pub(super) fn run_parallel(&mut self, t: SimTime) {
        let mut peer = self.peer.take().expect("a split simulation has its peer");
        let ex = Exchange::default();
        let task = |sim: &mut Simulation, _part: usize, k: usize| sim.run_window(k, t, &ex);
        let mut phases = self.part.as_mut().map(|p| std::mem::take(&mut p.phases));
        let counts = run_two(
            self,
            &mut *peer,
            &task,
            phases.get_or_insert_with(Phases::default),
        );
        if let Some(p) = &mut self.part {
            p.share.taken_over += counts.taken_over;
            p.share.parked += counts.parked;
            p.share.phases += counts.phases;
            p.share.solo_phases += counts.solo_phases;
            p.phases = phases.unwrap_or_default();
        }
        self.peer = Some(peer);
    }

    /// (Split runs, before `finish`.) How the two threads shared the windows so far: how
    /// many one ran for the other part and how often a thread slept. Varies from run to
    /// run (it depends on the machine's load), unlike the results.
    pub fn thread_share(&self) -> Option<ShareCounts> {
        self.part.as_ref().map(|p| p.share)
    }

    /// (Split runs.) This part's window `k`: take over what the other part handed over in
    /// window k − 1, then run window k, which starts where the last ended and lasts at
    /// most the lookahead (so nothing handed over in it can arrive before it ends), and
    /// post what crosses. Both parts go through the same windows. Whether the part goes
    /// on (false: it reached `target`, or a part stopped).
    fn run_window(&mut self, k: usize, target: SimTime, ex: &Exchange) -> bool {
        let (me, lookahead) = match &self.part {
            Some(p) => (p.id as usize, p.lookahead),
            None => unreachable!("only split simulations run windows"),
        };
        if k > 0 {
            let now = self.now;
            // The other part writes this mailbox again only after this window.
            let mut mail = ex.mailbox(me, k - 1);
            for (l, arrive, pkt) in mail.iter_mut() {
                if let Some(n) = self.onward(now, *l, *arrive, pkt) {
                    self.send_on(now, *arrive, n, pkt);
                }
            }
            mail.clear();
            drop(mail);
            // set in window k − 1 by the part that stopped, so both see it here
            if ex.stop.0.load(Ordering::Relaxed) {
                return false;
            }
        }
        let next = self.part.as_ref().map_or(SimTime::NEVER, |p| p.next);
        if next > target {
            self.now = self.now.max(target);
            return false;
        }
        let last = SimTime(next.0.saturating_add(lookahead.0 - 1)).min(target);
        self.run_events(last, target);
        if self.failure.is_some() {
            ex.stop.0.store(true, Ordering::Relaxed);
        }
        self.now = self.now.max(last);
        let p = self.part.as_mut().expect("split");
        p.next = SimTime(last.0 + 1);
        let mut mail = ex.mailbox(1 - me, k);
        debug_assert!(mail.is_empty(), "a mailbox was not emptied");
        mail.extend_from_slice(&p.out);
        drop(mail);
        p.out.clear();
        true
    }

    /// (Split runs, at the end.) Take over the peer's links, endpoints, counters and
    /// time-series columns, so that the summary reads as one simulation's.
    pub(super) fn merge_peer(&mut self) {
        let (Some(peer), Some(part)) = (self.peer.take(), self.part.take()) else {
            return;
        };
        let mut peer = *peer;
        for e in 0..self.endpoints.len() {
            if !part.owns(self.ep[e].node) {
                std::mem::swap(&mut self.endpoints[e], &mut peer.endpoints[e]);
            }
        }
        for l in 0..self.links.len() {
            if !part.runs(LinkId(l as u32)) {
                std::mem::swap(&mut self.links[l], &mut peer.links[l]);
            }
        }
        for (a, b) in self.flows.iter_mut().zip(&peer.flows) {
            add_drops(&mut a.drops, &b.drops);
            for (x, y) in a.path_drops.iter_mut().zip(&b.path_drops) {
                add_drops(x, y);
            }
        }
        add_drops(&mut self.dropped, &peer.dropped);
        self.created += peer.created;
        self.delivered += peer.delivered;
        self.n_events += peer.n_events;
        self.warnings.append(&mut peer.warnings);
        self.warnings.dedup();
        if self.backoffs.is_empty() {
            self.backoffs = std::mem::take(&mut peer.backoffs);
        }
        if let (Some(a), Some(b)) = (self.node_drops.as_mut(), peer.node_drops.as_ref()) {
            crate::trace::events::append(a, b);
        }
        // Time series: a flow row's window columns from its sender's part, its rate from
        // its receiver's; a path row from its sender's; a link row from its sender's.
        let n_flows = self.flows.len();
        let flow_of = |t: &Table, r: usize| {
            let row = t.columns[1][r] as usize;
            if row < n_flows {
                row
            } else {
                self.subflow_rows[row - n_flows].0
            }
        };
        let node_of = |ep: crate::ids::EndpointId| self.ep[ep.idx()].node;
        let theirs_sender =
            |t: &Table, r: usize| !part.owns(node_of(self.flows[flow_of(t, r)].sender));
        let theirs_receiver =
            |t: &Table, r: usize| !part.owns(node_of(self.flows[flow_of(t, r)].receiver));
        let mut flows = std::mem::take(&mut self.sampler.flow_table);
        take_columns(&mut flows, &peer.sampler.flow_table, 2..5, theirs_sender);
        take_columns(&mut flows, &peer.sampler.flow_table, 5..6, theirs_receiver);
        let mut paths = std::mem::take(&mut self.sampler.path_table);
        let n_path_cols = paths.columns.len();
        take_columns(
            &mut paths,
            &peer.sampler.path_table,
            3..n_path_cols,
            theirs_sender,
        );
        let mut links = std::mem::take(&mut self.sampler.link_table);
        take_columns(&mut links, &peer.sampler.link_table, 2..4, |t, r| {
            !part.runs(LinkId(t.columns[1][r] as u32))
        });
        self.sampler.flow_table = flows;
        self.sampler.path_table = paths;
        self.sampler.link_table = links;
    }
}
