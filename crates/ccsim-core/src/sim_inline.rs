//! Inline endpoints (a child module of `sim`): a TCP endpoint that receives everything
//! through one link and sends everything through a link nobody else feeds is run at the
//! moment its last link accepts a packet for it, at the packet's future arrival time,
//! instead of through an arrival event. This is chaining (see `net::link`) carried on into
//! the endpoint, and it removes the arrival events at both ends of a connection, about
//! half of all events in a dumbbell.
//!
//! Why the results stay those of the event-by-event order (the per-hop model, checked bit
//! for bit by `tests/engine_invariants.rs`):
//! - The endpoint's inputs are its packets, in its in-link's FIFO order, and its own
//!   timers. Before a packet arriving at `a` is handled, every timer of the endpoint due
//!   before `a` fires, in order; one due at `a` fires after it, as arrivals come before
//!   timers within an instant. Its clock only moves forward.
//! - Its outputs enter a link that only it feeds, offered at the time they are sent (a
//!   future time, as on a chained link), so no other packet's admission is affected.
//! - Nothing observes the endpoint between now and `a`: a packet is handled inline only if
//!   `a` is before the horizon (the next time-series sample, the end of the run, the time
//!   `run_until` was asked for), and only when no earlier packet for it waits in its
//!   in-link's delivery ring. A queued wakeup that falls before the endpoint's clock is
//!   stale (inline processing already fired what it was for) and is skipped.
//! - An endpoint is never run while an outbox is being forwarded (packets sent before must
//!   reach their links first), nor from inside another inline run: it then waits in a
//!   small queue kept in time order, run as soon as the outermost flush or run is done.
//! - With adaptive routing or link events chaining is off, and so is this.

use std::collections::VecDeque;

use super::Simulation;
use crate::ids::{EndpointId, FlowId, LinkId};
use crate::net::pinned::PinnedPaths;
use crate::net::routing::ForwardingTable;
use crate::packet::Packet;
use crate::scenario::{Scenario, TransportSpec};
use crate::units::SimTime;

/// Packets to be handled inline: (endpoint, arrival time, packet), in the order their last
/// link accepted them.
pub(super) type InlineWork = VecDeque<(EndpointId, SimTime, Packet)>;

/// What feeds a link: endpoints sending on it first, and upstream links.
#[derive(Clone, Copy, PartialEq)]
enum Feed {
    Nothing,
    Endpoint(EndpointId),
    Many,
}

/// For each endpoint (flow `i`: sender `2i`, receiver `2i + 1`), the link it receives
/// through if it can run inline: a TCP endpoint on one path whose first link is fed by
/// nothing but itself.
pub(super) fn inline_endpoints(
    sc: &Scenario,
    routes: &[(EndpointId, Vec<LinkId>)],
    fwd: &ForwardingTable,
    pinned: &PinnedPaths,
) -> Vec<Option<LinkId>> {
    let mut feed = vec![Feed::Nothing; sc.links.len()];
    // Every route any packet can take, as chaining's analysis does (`chain_feeders`).
    for (ep, path) in routes {
        for (j, &l) in path.iter().enumerate() {
            let from = if j == 0 {
                Feed::Endpoint(*ep)
            } else {
                Feed::Many
            };
            let f = &mut feed[l.idx()];
            *f = match (*f, from) {
                (Feed::Nothing, e @ Feed::Endpoint(_)) => e,
                (Feed::Endpoint(a), Feed::Endpoint(b)) if a == b => Feed::Endpoint(a),
                _ => Feed::Many,
            };
        }
    }
    // The routes each flow's packets can take (its pinned paths, else the table's), for
    // the in- and out-links of its endpoints: an end link counts only if every route has
    // it (a MATCP source picks one of its paths per connection, but all of them leave and
    // reach it through its own access link).
    let mut out = vec![None; 2 * sc.flows.len()];
    for (i, f) in sc.flows.iter().enumerate() {
        if !matches!(f.transport, TransportSpec::Tcp(_)) {
            continue;
        }
        let fid = FlowId(i as u32);
        let routes: Vec<(Vec<LinkId>, Vec<LinkId>)> = match pinned.count(fid) {
            0 => match (
                fwd.path(&sc.links, f.from, f.to),
                fwd.path(&sc.links, f.to, f.from),
            ) {
                (Some(there), Some(back)) => vec![(there, back)],
                _ => continue,
            },
            n => (1..=n as u8)
                .map(|k| (pinned.links(fid, k, true), pinned.links(fid, k, false)))
                .collect(),
        };
        // The link every route has at one end, if there is one.
        let common = |end: fn(&(Vec<LinkId>, Vec<LinkId>)) -> Option<LinkId>| {
            let first = end(&routes[0])?;
            routes
                .iter()
                .all(|r| end(r) == Some(first))
                .then_some(first)
        };
        let (tx, rx) = (EndpointId(2 * i as u32), EndpointId(2 * i as u32 + 1));
        let owns = |l: Option<LinkId>, ep| l.is_some_and(|l| feed[l.idx()] == Feed::Endpoint(ep));
        if owns(common(|r| r.0.first().copied()), tx) {
            out[tx.idx()] = common(|r| r.1.last().copied());
        }
        if owns(common(|r| r.1.first().copied()), rx) {
            out[rx.idx()] = common(|r| r.0.last().copied());
        }
    }
    out
}

impl Simulation {
    /// Whether the packet that `link` delivers at `arrive` to its destination endpoint can
    /// be handled inline (see the module notes).
    #[inline]
    pub(super) fn can_inline(&self, link: LinkId, arrive: SimTime, pkt: &Packet) -> bool {
        let ep = pkt.dst_ep.idx();
        arrive < self.horizon
            && self.inline_in.get(ep).copied().flatten() == Some(link)
            && !self.links[link.idx()].has_deliveries()
    }

    /// Run `pkt`'s destination endpoint on it at `at`. While an endpoint's outbox is being
    /// forwarded, or another inline endpoint runs, the packet waits in a queue instead: an
    /// endpoint must not run ahead while packets sent before (by anyone) are still being
    /// put on the links, and two inline endpoints facing each other across one link must
    /// not recurse.
    #[inline(always)] // (it was inlined by the heuristics until the receiver grew by a few lines)
    pub(super) fn run_inline(&mut self, now: SimTime, at: SimTime, pkt: &Packet) {
        if self.inlining || self.flushing > 0 {
            // In time order (ties in arrival order), as the event queue would take them.
            let i = self.inline_work.partition_point(|w| w.1 <= at);
            self.inline_work.insert(i, (pkt.dst_ep, at, *pkt));
            return;
        }
        debug_assert!(
            self.inline_work.is_empty(),
            "queued inline work left behind"
        );
        self.inlining = true;
        self.handle_inline(now, pkt.dst_ep, at, pkt);
        self.drain_queue(now);
        self.inlining = false;
    }

    /// Run the queued inline packets (after the outermost flush).
    pub(super) fn drain_inline(&mut self, now: SimTime) {
        self.inlining = true;
        self.drain_queue(now);
        self.inlining = false;
    }

    fn drain_queue(&mut self, now: SimTime) {
        while let Some((ep, at, pkt)) = self.inline_work.pop_front() {
            self.handle_inline(now, ep, at, &pkt);
        }
    }

    #[inline]
    fn handle_inline(&mut self, now: SimTime, ep: EndpointId, at: SimTime, pkt: &Packet) {
        if self.ep[ep.idx()].due < at {
            self.fire_timers_before(now, ep, at);
        }
        self.delivered += 1;
        self.endpoints[ep.idx()].on_packet(at, pkt, &mut self.out);
        self.ep[ep.idx()].clock = at;
        // The links this endpoint's packets are offered to are fed by it alone, and nothing
        // reads them before the horizon (`can_inline`): as far as they are concerned the
        // time is now `at`, and they may forget packets that arrived by then. With the
        // event's `now` instead, a run that stays inline (one connection, no samples)
        // kept every packet of the run in its links' rings.
        self.flush_at(at.max(now), at, ep);
    }

    /// Fire the endpoint's timers due before `t`, in order, each at its own time.
    #[inline(never)]
    fn fire_timers_before(&mut self, now: SimTime, ep: EndpointId, t: SimTime) {
        loop {
            let due = self.ep[ep.idx()].due;
            debug_assert_eq!(due, self.endpoints[ep.idx()].next_wakeup());
            if due >= t {
                return;
            }
            debug_assert!(
                due >= self.ep[ep.idx()].clock,
                "an endpoint's clock went back"
            );
            self.endpoints[ep.idx()].on_timer(due, &mut self.out);
            self.ep[ep.idx()].clock = due;
            self.flush_at(due.max(now), due, ep); // (as in `handle_inline`)
            if self.ep[ep.idx()].due == due {
                // A timer that does not move on would loop; leave it to the event queue.
                debug_assert!(false, "a timer fired at {due:?} is still due");
                return;
            }
        }
    }
}
