//! Static shortest-path routing, computed once at build time for the destinations that
//! carry traffic.
//!
//! Routes towards a destination come from one Dijkstra search over reversed links
//! (O((V + E) log V)); each node's next hop is the outgoing link minimising (link weight +
//! distance of its far end), ties broken by the lower link index. Weights are lexicographic
//! pairs — (delay, hops) for the delay metric and (hops, delay) for the hop metric — so
//! zero-delay links cannot create ties that loop, and the table is deterministic.
//!
//! Only destinations that packets are sent to get routes (a flow's destination, and its
//! source when the transport replies), and a destination reached by a single link — a
//! host behind its router — shares the routes of that link's sending node, its *parent*:
//! every path to it ends with that link, so at every node but the parent its next hop is
//! the parent's, and at the parent it is that link (see `ForwardingTable::for_destinations`
//! for why the tie-breaks agree too). A dumbbell of N flows thus needs two searches and two
//! columns of next hops, not 2N; a fat-tree one per edge switch.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::link_config::LinkSpec;
use crate::ids::LinkId;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

/// Metric for static shortest-path routing (`[simulation] routing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoutingMetric {
    /// Sum of propagation delays (ties: fewer hops, then lower link index).
    Delay,
    /// Number of hops (ties: lower delay, then lower link index).
    Hops,
}

/// "No route" marker in the forwarding table.
pub const NO_ROUTE: u32 = u32::MAX;

/// Marker of a column's own destination: a packet here for one of the destinations sharing
/// the column leaves by that destination's last hop.
const AT_PARENT: u32 = u32::MAX - 1;

/// A route's cost: lexicographic (delay, hops) or (hops, delay) pairs.
pub type Cost = (u64, u64);

/// The cost of a node that cannot reach the destination.
pub const UNREACHABLE: Cost = (u64::MAX, u64::MAX);

/// One link's cost under `metric`.
#[inline]
pub fn weight(l: &LinkSpec, metric: RoutingMetric) -> Cost {
    match metric {
        RoutingMetric::Delay => (l.delay.0, 1),
        RoutingMetric::Hops => (1, l.delay.0),
    }
}

/// Cost sum, saturating at `UNREACHABLE`.
#[inline]
pub fn add(a: Cost, b: Cost) -> Cost {
    (a.0.saturating_add(b.0), a.1.saturating_add(b.1))
}

/// Lists of link indices per node, in link order, stored in one array (compressed rows):
/// `lists[v]` is node v's slice.
#[derive(Clone, Debug, Default)]
pub struct LinkLists {
    start: Vec<usize>,
    items: Vec<usize>,
}

impl LinkLists {
    /// Group the links by `key(link)` (a node index below `n`), keeping link order.
    fn by(n: usize, links: &[LinkSpec], key: impl Fn(&LinkSpec) -> usize) -> LinkLists {
        let mut start = vec![0usize; n + 1];
        for l in links {
            start[key(l) + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut items = vec![0usize; links.len()];
        for (i, l) in links.iter().enumerate() {
            let k = key(l);
            items[fill[k]] = i;
            fill[k] += 1;
        }
        LinkLists { start, items }
    }
}

impl std::ops::Index<usize> for LinkLists {
    type Output = [usize];
    #[inline]
    fn index(&self, v: usize) -> &[usize] {
        &self.items[self.start[v]..self.start[v + 1]]
    }
}

/// Each node's incoming and outgoing links, in link order.
#[derive(Clone, Debug)]
pub struct Adjacency {
    /// `incoming[v]`: indices of the links into `v`.
    pub incoming: LinkLists,
    /// `outgoing[u]`: indices of the links out of `u`.
    pub outgoing: LinkLists,
}

impl Adjacency {
    /// The adjacency of `n` nodes joined by `links` (whose ends are below `n`).
    pub fn new(n: usize, links: &[LinkSpec]) -> Adjacency {
        Adjacency {
            incoming: LinkLists::by(n, links, |l| l.to),
            outgoing: LinkLists::by(n, links, |l| l.from),
        }
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.incoming.start.len() - 1
    }

    /// Every node's shortest cost to `dst` (Dijkstra over reversed links).
    pub fn distances_to(&self, links: &[LinkSpec], metric: RoutingMetric, dst: usize) -> Vec<Cost> {
        let mut dist = vec![UNREACHABLE; self.nodes()];
        self.fill_distances(links, metric, dst, &mut dist, &mut BinaryHeap::new());
        dist
    }

    /// `distances_to` into `dist` (every entry `UNREACHABLE` on entry), with `heap` as
    /// scratch space, so that many searches reuse one allocation.
    fn fill_distances(
        &self,
        links: &[LinkSpec],
        metric: RoutingMetric,
        dst: usize,
        dist: &mut [Cost],
        heap: &mut BinaryHeap<Reverse<(Cost, usize)>>,
    ) {
        dist[dst] = (0, 0);
        heap.clear();
        heap.push(Reverse(((0, 0), dst)));
        while let Some(Reverse((d, v))) = heap.pop() {
            if d > dist[v] {
                continue;
            }
            for &li in &self.incoming[v] {
                let u = links[li].from;
                let nd = add(d, weight(&links[li], metric));
                if nd < dist[u] {
                    dist[u] = nd;
                    heap.push(Reverse((nd, u)));
                }
            }
        }
    }
}

/// Next hops towards the destinations that carry traffic: one column of next links per
/// searched destination, which the destinations it serves share.
#[derive(Clone, Debug, Default)]
pub struct ForwardingTable {
    n: usize,
    /// Per destination node: where its column starts in `next`.
    column: Vec<usize>,
    /// Per destination node that shares its parent's column: the link from the parent.
    last_hop: Vec<u32>,
    /// `next[column[dst] + node]`: the outgoing link at `node` towards `dst`, `NO_ROUTE`, or
    /// `AT_PARENT` at the column's own destination.
    next: Vec<u32>,
}

impl ForwardingTable {
    /// Routes for the destinations of `sc`'s packets: every flow's destination and its
    /// source (even UDP's, whose way back the build step and `Simulation::route` read).
    pub fn for_flows(sc: &Scenario) -> ForwardingTable {
        let mut dsts = Vec::with_capacity(2 * sc.flows.len());
        for f in &sc.flows {
            dsts.push(f.to);
            dsts.push(f.from);
        }
        ForwardingTable::for_destinations(sc.nodes.len(), &sc.links, sc.routing, &dsts)
    }

    /// Shortest-path routes for every (node, destination) pair.
    pub fn shortest_paths(n: usize, links: &[LinkSpec], metric: RoutingMetric) -> ForwardingTable {
        let all: Vec<usize> = (0..n).collect();
        ForwardingTable::for_destinations(n, links, metric, &all)
    }

    /// Routes from every node towards each of `dsts` (any order, repeats allowed).
    ///
    /// A destination `v` with one incoming link `p -> v` shares `p`'s column. This gives
    /// exactly the next hops a search towards `v` itself would: every path to `v` ends
    /// with `p -> v`, and a shortest path to `p` never passes through `v` (it would have to
    /// come through `p` first), so `dist_v(x) = dist_p(x) + w(p -> v)` for every `x != v`.
    /// At a node `u` other than `p` and `v`, no outgoing link reaches `v`, so every
    /// candidate's key (weight + distance of its far end) is `p`'s plus the same constant:
    /// the same minimum and the same tie-break. At `p` the link to `v` costs `w(p -> v)`
    /// and every other link strictly more (weights are positive in the lexicographic
    /// order). This needs sums that never saturate, so sharing is off when the links'
    /// weights together could overflow.
    pub fn for_destinations(
        n: usize,
        links: &[LinkSpec],
        metric: RoutingMetric,
        dsts: &[usize],
    ) -> ForwardingTable {
        let adj = Adjacency::new(n, links);
        let share = !might_saturate(links, metric);
        // parent_link[v]: v's only incoming link, when sharing.
        let parent_link = |v: usize| -> Option<usize> {
            let inc = &adj.incoming[v];
            (share && inc.len() == 1).then(|| inc[0])
        };
        const NONE: usize = usize::MAX;
        // The nodes searched towards (one column each), the column searched towards each
        // node, and each destination's column.
        let mut searched = Vec::new();
        let mut searched_column = vec![NONE; n];
        let mut column_of = vec![NONE; n];
        let mut last_hop = vec![NO_ROUTE; n];
        for &v in dsts {
            let (root, hop) = match parent_link(v) {
                Some(l) => (links[l].from, l as u32),
                None => (v, NO_ROUTE),
            };
            if searched_column[root] == NONE {
                searched_column[root] = searched.len();
                searched.push(root);
            }
            last_hop[v] = hop;
            column_of[v] = searched_column[root];
        }
        // Destinations without traffic share one column without routes.
        let unused = column_of.contains(&NONE);
        let columns = searched.len() + usize::from(unused);
        let mut next = vec![NO_ROUTE; columns * n];
        let mut dist = vec![UNREACHABLE; n];
        let mut heap = BinaryHeap::new();
        for (c, &dst) in searched.iter().enumerate() {
            dist.fill(UNREACHABLE);
            adj.fill_distances(links, metric, dst, &mut dist, &mut heap);
            let col = &mut next[c * n..(c + 1) * n];
            for u in 0..n {
                if u == dst || dist[u] == UNREACHABLE {
                    continue;
                }
                let best = adj.outgoing[u]
                    .iter()
                    .filter(|&&li| dist[links[li].to] != UNREACHABLE)
                    .min_by_key(|&&li| (add(weight(&links[li], metric), dist[links[li].to]), li));
                if let Some(&li) = best {
                    col[u] = li as u32;
                }
            }
            col[dst] = AT_PARENT;
        }
        let column = column_of
            .into_iter()
            .map(|c| if c == NONE { searched.len() } else { c } * n)
            .collect();
        ForwardingTable {
            n,
            column,
            last_hop,
            next,
        }
    }

    /// The outgoing link at `node` towards `dst`, if any.
    #[inline]
    pub fn next_link(&self, node: usize, dst: usize) -> Option<LinkId> {
        let l = self.next[self.column[dst] + node];
        if l < AT_PARENT {
            Some(LinkId(l))
        } else {
            self.last_hop(l, dst)
        }
    }

    /// The rarer end of `next_link`: at the parent of `dst`, its last hop.
    #[inline]
    fn last_hop(&self, l: u32, dst: usize) -> Option<LinkId> {
        let h = self.last_hop[dst];
        (l == AT_PARENT && h != NO_ROUTE).then_some(LinkId(h))
    }

    /// The links from `src` to `dst`, following the table (None if there is no route).
    pub fn path(&self, links: &[LinkSpec], src: usize, dst: usize) -> Option<Vec<LinkId>> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let l = self.next_link(at, dst)?;
            path.push(l);
            at = links[l.idx()].to;
            if path.len() > self.n {
                return None;
            }
        }
        Some(path)
    }

    /// Number of columns of next hops (searched destinations, plus one without routes when
    /// some node is no destination).
    pub fn columns(&self) -> usize {
        self.next.len().checked_div(self.n).unwrap_or(0)
    }

    /// Bytes the table holds.
    pub fn memory_bytes(&self) -> u64 {
        (self.next.capacity() * 4 + self.last_hop.capacity() * 4 + self.column.capacity() * 8)
            as u64
    }
}

/// Whether some sum of link weights along a route could saturate: the weights of all
/// links together (no shortest path uses a link twice), twice over (a distance plus a
/// shared column's last hop), must fit in 64 bits.
fn might_saturate(links: &[LinkSpec], metric: RoutingMetric) -> bool {
    let mut total: (u128, u128) = (0, 0);
    for l in links {
        let w = weight(l, metric);
        total = (total.0 + u128::from(w.0), total.1 + u128::from(w.1));
    }
    2 * total.0 >= u128::from(u64::MAX) || 2 * total.1 >= u128::from(u64::MAX)
}

#[cfg(test)]
#[path = "routing_tests.rs"]
mod tests;
