//! Links fed ahead (a child module of `sim`): chained links and merge points.
//!
//! A link whose only upstream is one other link is *chained* to it: it takes each packet
//! the moment the upstream link accepts it, at the packet's future arrival time (see
//! `net::link`).
//!
//! A link fed by several upstream links (a bottleneck behind access links) cannot be
//! chained: its input order interleaves its feeders', so each packet used to wait in its
//! feeder's delivery ring for an arrival event. But a feeder that accepts a packet at time
//! `s` delivers it no earlier than `s + d`, its propagation delay. So at any time `now`,
//! every packet that will reach the merge point before `now + D` (`D` the feeders'
//! shortest delay) is already on a feeder: the merge point can take all of them at once,
//! in arrival order (ties by feeder index, as arrival events tie), offering each at its
//! arrival time as a chained link is offered. One event per lookahead `D` replaces one
//! per packet. This is the lookahead of conservative parallel simulation (Chandy & Misra)
//! used inside one thread.
//!
//! It applies where nothing else can reach the merge point's queue: every packet a feeder
//! carries goes on to the merge point, no endpoint sends on it directly, and (on two
//! threads) no feeder comes from the other part. Like chaining, only with static routes
//! and the fast link model. `tests/engine_invariants.rs` checks the results against the
//! per-hop model bit for bit.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Simulation;
use crate::engine::EventQueue;
use crate::ids::{EndpointId, FlowId, LinkId};
use crate::net::pinned::PinnedPaths;
use crate::net::ring::Ring;
use crate::net::routing::ForwardingTable;
use crate::net::Link;
use crate::packet::Packet;
use crate::scenario::{Scenario, TransportSpec};
use crate::units::{Dur, SimTime};

/// A link fed ahead by its upstream links.
#[derive(Debug)]
pub(super) struct MergePoint {
    link: LinkId,
    /// The feeders' shortest propagation delay.
    lookahead: Dur,
    /// Per feeder (in link index order), its packets and their arrivals, in arrival order
    /// (a FIFO link delivers in order).
    rings: Vec<Ring<(SimTime, Packet)>>,
    /// The head of every feeder ring that has one, as (arrival, feeder slot): a k-way
    /// merge, ties by slot, which is link index order, as arrival events tie.
    heads: BinaryHeap<Reverse<Head>>,
    /// Pending feed events; the last is the earliest.
    pending: Vec<SimTime>,
}

impl MergePoint {
    /// Bytes of memory the feeder rings take.
    pub(super) fn memory_bytes(&self) -> u64 {
        let slot = std::mem::size_of::<(SimTime, Packet)>();
        self.rings
            .iter()
            .map(|r| (r.capacity() * slot) as u64)
            .sum()
    }
}

/// A feeder ring's head as one integer, (arrival, slot) in that order of significance: a
/// heap of these compares in one instruction where a tuple takes several.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Head(u128);

impl Head {
    #[inline]
    fn new(arrive: SimTime, slot: u32) -> Head {
        Head(((arrive.0 as u128) << 32) | slot as u128)
    }
    #[inline]
    fn parts(self) -> (SimTime, u32) {
        (SimTime((self.0 >> 32) as u64), self.0 as u32)
    }
}

/// Every route a packet of the scenario can take, with the endpoint that sends on it:
/// flow `i`'s sender `2i` forwards, its receiver `2i + 1` back (not for UDP), by the
/// routing table and by each pinned path (an ECMP route is one). The table routes are included even when every
/// packet is pinned (conservative).
pub(super) fn every_route(
    sc: &Scenario,
    fwd: &ForwardingTable,
    pinned: &PinnedPaths,
) -> Vec<(EndpointId, Vec<LinkId>)> {
    let mut routes = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        let fid = FlowId(i as u32);
        let (tx, rx) = (EndpointId(2 * i as u32), EndpointId(2 * i as u32 + 1));
        let replies = !matches!(f.transport, TransportSpec::Udp(_));
        routes.extend(fwd.path(&sc.links, f.from, f.to).map(|p| (tx, p)));
        if replies {
            routes.extend(fwd.path(&sc.links, f.to, f.from).map(|p| (rx, p)));
        }
        for k in 1..=pinned.count(fid) {
            routes.push((tx, pinned.links(fid, k as u8, true)));
            if replies {
                routes.push((rx, pinned.links(fid, k as u8, false)));
            }
        }
    }
    routes
}

/// For each link, its only upstream link if the routes give it exactly one (and no
/// endpoint sends on it directly): a chained link, which can take packets as soon as the
/// upstream link accepts them, because nothing else can reach its queue in between.
pub(super) fn chain_feeders(
    routes: &[(EndpointId, Vec<LinkId>)],
    n_links: usize,
) -> Vec<Option<LinkId>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Feed {
        Nothing,
        One(LinkId),
        Many,
    }
    let mut feed = vec![Feed::Nothing; n_links];
    for (_, path) in routes {
        let mut prev = None;
        for &l in path {
            let f = &mut feed[l.idx()];
            *f = match (*f, prev) {
                (Feed::Nothing, Some(p)) => Feed::One(p),
                (Feed::One(q), Some(p)) if q == p => Feed::One(p),
                _ => Feed::Many,
            };
            prev = Some(l);
        }
    }
    feed.into_iter()
        .map(|f| match f {
            Feed::One(p) => Some(p),
            _ => None,
        })
        .collect()
}

/// The merge points of a network whose chaining is already set up (`chained_from`), and
/// for each link the merge point it feeds. `local(l)` says whether link `l` runs in this
/// simulation's part (always, on one thread): the merge point and every feeder must (a
/// local feeder ends at the merge point's sending node, so it does not leave the part).
pub(super) fn merge_points(
    routes: &[(EndpointId, Vec<LinkId>)],
    links: &[Link],
    local: impl Fn(&Link) -> bool,
) -> (Vec<MergePoint>, Vec<Option<(u32, u32)>>) {
    #[derive(Clone, Copy, PartialEq)]
    enum Next {
        Nothing,
        One(LinkId),
        Many,
    }
    let n = links.len();
    let mut next = vec![Next::Nothing; n];
    let mut sent_on = vec![false; n];
    for (_, path) in routes {
        if let Some(first) = path.first() {
            sent_on[first.idx()] = true;
        }
        for (j, l) in path.iter().enumerate() {
            let to = match path.get(j + 1) {
                Some(&m) => Next::One(m),
                None => Next::Many, // delivers to an endpoint
            };
            let x = &mut next[l.idx()];
            *x = match (*x, to) {
                (Next::Nothing, t) => t,
                (Next::One(a), Next::One(b)) if a == b => Next::One(a),
                _ => Next::Many,
            };
        }
    }
    let mut feeders: Vec<Vec<LinkId>> = vec![Vec::new(); n];
    for (u, x) in next.iter().enumerate() {
        if let Next::One(m) = *x {
            feeders[m.idx()].push(LinkId(u as u32));
        }
    }
    // Links routed into `m` by a link that also carries packets elsewhere.
    let mut shared = vec![false; n];
    for (_, path) in routes {
        for w in path.windows(2) {
            if next[w[0].idx()] != Next::One(w[1]) {
                shared[w[1].idx()] = true;
            }
        }
    }
    let mut merges = Vec::new();
    let mut merge_into = vec![None; n];
    for (m, feed) in feeders.iter().enumerate() {
        let link = &links[m];
        let exclusive = !shared[m];
        let lookahead = feed.iter().map(|u| links[u.idx()].delay).min();
        let ok = feed.len() >= 2
            && link.chained_from.is_none()
            && !sent_on[m]
            && exclusive
            && local(link)
            && feed.iter().all(|u| local(&links[u.idx()]))
            && lookahead.is_some_and(|d| d.0 > 0);
        if !ok {
            continue;
        }
        // `feed` lists the feeders in link index order.
        for (slot, u) in feed.iter().enumerate() {
            merge_into[u.idx()] = Some((merges.len() as u32, slot as u32));
        }
        merges.push(MergePoint {
            link: LinkId(m as u32),
            lookahead: lookahead.unwrap_or(Dur(0)),
            rings: feed.iter().map(|_| Ring::with_capacity(16)).collect(),
            heads: BinaryHeap::with_capacity(feed.len()),
            pending: Vec::with_capacity(4),
        });
    }
    (merges, merge_into)
}

impl MergePoint {
    /// Make sure a feed event (merge point `m`) is pending at `due` or earlier. Feeds happen
    /// at a packet's arrival, as late as its arrival event would: the feed then takes
    /// everything else due within the lookahead.
    #[inline]
    fn schedule(&mut self, m: u32, due: SimTime, events: &mut EventQueue) {
        if self.pending.last().is_none_or(|&p| due < p) {
            self.pending.push(due);
            events.push_merge(due, m);
        }
    }
}

impl Simulation {
    /// The feeder in slot `slot` of merge point `m` brings `pkt` to it at `arrive`.
    #[inline]
    pub(super) fn merge_push(&mut self, (m, slot): (u32, u32), arrive: SimTime, pkt: &Packet) {
        let now = self.now;
        let mp = &mut self.merges[m as usize];
        let ring = &mut mp.rings[slot as usize];
        ring.push_back((arrive, *pkt));
        // A packet behind others in its feeder's ring is covered by the feed already
        // pending for the ring's head (due no later, as the ring is in arrival order).
        if ring.len() == 1 {
            mp.heads.push(Reverse(Head::new(arrive, slot)));
            mp.schedule(m, arrive.max(now), &mut self.events);
        }
    }

    /// Merge point `m`'s feed event at `now`: offer it every packet arriving before
    /// `now + D` (none can be added before that), then schedule the next feed.
    pub(super) fn run_merge(&mut self, now: SimTime, m: u32) {
        let mp = &mut self.merges[m as usize];
        mp.pending.pop();
        let (link, limit) = (mp.link, now + mp.lookahead);
        loop {
            let mp = &mut self.merges[m as usize];
            let Some(&Reverse(head)) = mp.heads.peek() else {
                break;
            };
            let (arrive, slot) = head.parts();
            if arrive >= limit {
                break;
            }
            let ring = &mut mp.rings[slot as usize];
            let mut pkt = ring.front().expect("a head has a packet").1;
            ring.pop_front();
            match ring.front() {
                Some(&(next, _)) => {
                    mp.heads.peek_mut().expect("a head").0 = Head::new(next, slot);
                }
                None => {
                    mp.heads.pop();
                }
            }
            // (Offering may run endpoints whose packets come back to this merge point,
            // arriving after `limit`.)
            self.send_on(now, arrive, link, &mut pkt);
        }
        let mp = &mut self.merges[m as usize];
        if let Some(&Reverse(head)) = mp.heads.peek() {
            let (arrive, _) = head.parts();
            mp.schedule(m, arrive, &mut self.events);
        }
    }
}
