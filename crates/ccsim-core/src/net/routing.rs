//! Static shortest-path routing, computed once at build time.
//!
//! For each destination, distances are found by Dijkstra over reversed links; each node's
//! next hop is the outgoing link minimising (link weight + distance of its far end), ties
//! broken by the lower link index. Weights are lexicographic pairs — (delay, hops) for the
//! delay metric and (hops, delay) for the hop metric — so zero-delay links cannot create
//! ties that loop, and the table is deterministic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::link_config::LinkSpec;
use crate::ids::LinkId;
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

/// A route's cost: lexicographic (delay, hops) or (hops, delay) pairs.
pub type Cost = (u64, u64);

/// The cost of a node that cannot reach the destination.
pub const UNREACHABLE: Cost = (u64::MAX, u64::MAX);

/// One link's cost under `metric`.
pub fn weight(l: &LinkSpec, metric: RoutingMetric) -> Cost {
    match metric {
        RoutingMetric::Delay => (l.delay.0, 1),
        RoutingMetric::Hops => (1, l.delay.0),
    }
}

/// Cost sum, saturating at `UNREACHABLE`.
pub fn add(a: Cost, b: Cost) -> Cost {
    (a.0.saturating_add(b.0), a.1.saturating_add(b.1))
}

/// Each node's incoming and outgoing links, in link order.
pub struct Adjacency {
    /// `incoming[v]`: indices of the links into `v`.
    pub incoming: Vec<Vec<usize>>,
    /// `outgoing[u]`: indices of the links out of `u`.
    pub outgoing: Vec<Vec<usize>>,
}

impl Adjacency {
    /// The adjacency of `n` nodes joined by `links`.
    pub fn new(n: usize, links: &[LinkSpec]) -> Adjacency {
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut outgoing: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, l) in links.iter().enumerate() {
            incoming[l.to].push(i);
            outgoing[l.from].push(i);
        }
        Adjacency { incoming, outgoing }
    }

    /// Every node's shortest cost to `dst` (Dijkstra over reversed links).
    pub fn distances_to(&self, links: &[LinkSpec], metric: RoutingMetric, dst: usize) -> Vec<Cost> {
        let mut dist = vec![UNREACHABLE; self.incoming.len()];
        dist[dst] = (0, 0);
        let mut heap = BinaryHeap::new();
        heap.push(Reverse(((0u64, 0u64), dst)));
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
        dist
    }
}

/// Dense forwarding table: `next[node * n + dst]` is the outgoing link index.
#[derive(Clone, Debug)]
pub struct ForwardingTable {
    n: usize,
    next: Vec<u32>,
}

impl ForwardingTable {
    /// Shortest-path routes for every (node, destination) pair.
    pub fn shortest_paths(n: usize, links: &[LinkSpec], metric: RoutingMetric) -> ForwardingTable {
        let adj = Adjacency::new(n, links);
        let mut next = vec![NO_ROUTE; n * n];
        for dst in 0..n {
            let dist = adj.distances_to(links, metric, dst);
            for u in 0..n {
                if u == dst || dist[u] == UNREACHABLE {
                    continue;
                }
                let best = adj.outgoing[u]
                    .iter()
                    .filter(|&&li| dist[links[li].to] != UNREACHABLE)
                    .min_by_key(|&&li| (add(weight(&links[li], metric), dist[links[li].to]), li));
                if let Some(&li) = best {
                    next[u * n + dst] = li as u32;
                }
            }
        }
        ForwardingTable { n, next }
    }

    /// The outgoing link at `node` towards `dst`, if any.
    #[inline]
    pub fn next_link(&self, node: usize, dst: usize) -> Option<LinkId> {
        let l = self.next[node * self.n + dst];
        (l != NO_ROUTE).then_some(LinkId(l))
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::link_config::LossSpec;
    use crate::net::queue::{QueueLimit, QueueSpec};
    use crate::units::{Dur, Rate};

    fn link(from: usize, to: usize, ms: u64) -> LinkSpec {
        LinkSpec {
            name: format!("{from}->{to}"),
            alias: None,
            from,
            to,
            rate: Rate::mbps(10),
            delay: Dur::from_millis(ms),
            queue: QueueSpec::DropTail {
                limit: QueueLimit::Packets(10),
            },
            loss: LossSpec::None,
        }
    }

    #[test]
    fn delay_metric_prefers_the_faster_longer_path_and_hops_the_shorter() {
        // 0 -> 1 -> 2 with 1 ms each, and 0 -> 2 directly with 10 ms.
        let links = vec![link(0, 1, 1), link(1, 2, 1), link(0, 2, 10)];
        let by_delay = ForwardingTable::shortest_paths(3, &links, RoutingMetric::Delay);
        assert_eq!(
            by_delay.path(&links, 0, 2),
            Some(vec![LinkId(0), LinkId(1)])
        );
        let by_hops = ForwardingTable::shortest_paths(3, &links, RoutingMetric::Hops);
        assert_eq!(by_hops.path(&links, 0, 2), Some(vec![LinkId(2)]));
        assert_eq!(by_delay.path(&links, 2, 0), None);
    }

    #[test]
    fn equal_cost_ties_go_to_the_lower_link_index() {
        // Two equal two-hop paths 0->1->3 and 0->2->3.
        let links = vec![link(0, 2, 1), link(2, 3, 1), link(0, 1, 1), link(1, 3, 1)];
        let t = ForwardingTable::shortest_paths(4, &links, RoutingMetric::Delay);
        assert_eq!(t.next_link(0, 3), Some(LinkId(0)));
    }

    #[test]
    fn zero_delay_links_do_not_loop() {
        let links = vec![link(0, 1, 0), link(1, 0, 0), link(1, 2, 0), link(2, 1, 0)];
        let t = ForwardingTable::shortest_paths(3, &links, RoutingMetric::Delay);
        assert_eq!(t.path(&links, 0, 2), Some(vec![LinkId(0), LinkId(2)]));
        assert_eq!(t.path(&links, 2, 0), Some(vec![LinkId(3), LinkId(1)]));
    }
}
