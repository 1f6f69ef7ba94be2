//! Equal-cost multipath with per-flow hashing (`[routing] kind = "ecmp"`), resolved once at
//! build time into one fixed route per flow and direction.
//!
//! A switch doing ECMP hashes a packet's flow identifiers and picks, by the hash, one of the
//! outgoing links that lie on a shortest path to the destination (RFC 2992 §2, "hash-threshold";
//! Al-Fares et al., SIGCOMM 2008 §2.2, on fat-trees). Every packet of a flow hashes alike, so
//! the flow keeps one path, and different flows spread over the equal-cost paths. Here each
//! switch's hash of a flow is modelled as an independent uniform draw, from the flow's own
//! stream `flow:<name>:ecmp`, among the node's equal-cost next links in link order; the
//! walk from the source to the destination draws at every node with more than one, then the
//! walk back (acknowledgements hash independently, as the reversed 5-tuple does). Costs are
//! those of static routing (`[simulation] routing`: (delay, hops) or (hops, delay)), so
//! "equal cost" means equal in both components, and every step strictly lowers the cost:
//! routes cannot loop. Same seed, same routes; a flow's route does not depend on the others.

use super::link_config::LinkSpec;
use super::pinned::{FlowPaths, PinnedPaths};
use super::routing::{add, weight, Adjacency, Cost, RoutingMetric, UNREACHABLE};
use crate::ids::FlowId;
use crate::params::Kind;
use crate::rng::SimRng;

/// `[routing] kind = "ecmp"`: no parameters (the cost is `[simulation] routing`'s).
pub const ECMP: Kind = Kind::new(
    "ecmp",
    "equal-cost multipath: each flow without paths takes one of the shortest paths by [simulation] routing, drawn per flow and direction as a switch's hash would (RFC 2992; docs/routing.md)",
    &[],
);

/// Shortest-path costs to destinations, computed once per destination asked for.
pub struct EqualCost<'a> {
    links: &'a [LinkSpec],
    metric: RoutingMetric,
    adj: Adjacency,
    dist: Vec<Option<Vec<Cost>>>,
}

impl<'a> EqualCost<'a> {
    /// Costs over `links` among `n` nodes under `metric`.
    pub fn new(n: usize, links: &'a [LinkSpec], metric: RoutingMetric) -> EqualCost<'a> {
        EqualCost {
            links,
            metric,
            adj: Adjacency::new(n, links),
            dist: vec![None; n],
        }
    }

    /// The outgoing links of `u` that start a shortest path to `dst`, in link order.
    pub fn next_links(&mut self, u: usize, dst: usize) -> Vec<usize> {
        let (links, metric) = (self.links, self.metric);
        let dist = self.dist[dst].get_or_insert_with(|| self.adj.distances_to(links, metric, dst));
        if dist[u] == UNREACHABLE {
            return Vec::new();
        }
        self.adj.outgoing[u]
            .iter()
            .copied()
            .filter(|&li| {
                let to = links[li].to;
                dist[to] != UNREACHABLE && add(weight(&links[li], metric), dist[to]) == dist[u]
            })
            .collect()
    }

    /// A shortest path from `src` to `dst` as a node list, drawing among equal-cost next
    /// links with `rng`; `None` if `dst` cannot be reached.
    pub fn route(&mut self, src: usize, dst: usize, rng: &mut SimRng) -> Option<Vec<usize>> {
        let mut nodes = vec![src];
        let mut u = src;
        while u != dst {
            let next = self.next_links(u, dst);
            let pick = match next.len() {
                0 => return None,
                1 => next[0],
                k => next[rng.range_inclusive(0, k as u64 - 1) as usize],
            };
            u = self.links[pick].to;
            nodes.push(u);
        }
        Some(nodes)
    }
}

/// A flow's ECMP routes: node lists from its source to its destination and back (the way
/// back is empty when there is none, e.g. for a one-way UDP path).
pub fn flow_routes(
    costs: &mut EqualCost,
    seed: u64,
    flow_name: &str,
    src: usize,
    dst: usize,
) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut rng = SimRng::stream(seed, &format!("flow:{flow_name}:ecmp"));
    let there = costs.route(src, dst, &mut rng)?;
    let back = costs.route(dst, src, &mut rng).unwrap_or_default();
    Some((there, back))
}

/// With ECMP, pin every flow that has no path of its own to the route its hash picks; a
/// flow with no route keeps the routing table's (and its packets are dropped with cause
/// `no_route`, as without ECMP). `n` nodes, static routing's `metric`, the run's `seed`.
pub fn pin_routes(
    links: &[LinkSpec],
    n: usize,
    metric: RoutingMetric,
    seed: u64,
    flows: &[FlowPaths<'_>],
    pinned: &mut PinnedPaths,
) {
    let mut costs = EqualCost::new(n, links, metric);
    for (i, f) in flows.iter().enumerate() {
        if !f.paths.is_empty() {
            continue;
        }
        if let Some((there, back)) = flow_routes(&mut costs, seed, f.name, f.from, f.to) {
            pinned.pin_route(links, FlowId(i as u32), &there, &back);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::link_config::LossSpec;
    use crate::net::queue::{QueueLimit, QueueSpec};
    use crate::units::{Dur, Rate};

    fn link(from: usize, to: usize, us: u64) -> LinkSpec {
        LinkSpec {
            name: format!("{from}->{to}"),
            alias: None,
            from,
            to,
            rate: Rate::mbps(10),
            delay: Dur::from_micros(us),
            queue: QueueSpec::DropTail {
                limit: QueueLimit::Packets(10),
            },
            loss: LossSpec::None,
            schedule: None,
            jitter: crate::units::Dur::ZERO,
        }
    }

    /// Node 0 reaches node 5 over four middle nodes 1..=4 (0 -> m -> 5), all 1 µs, duplex;
    /// plus a longer 0 -> 5 direct link of 10 µs.
    fn fan() -> Vec<LinkSpec> {
        let mut v = Vec::new();
        for m in 1..=4 {
            v.push(link(0, m, 1));
            v.push(link(m, 0, 1));
            v.push(link(m, 5, 1));
            v.push(link(5, m, 1));
        }
        v.push(link(0, 5, 10));
        v
    }

    #[test]
    fn next_links_are_exactly_the_equal_cost_ones() {
        let links = fan();
        let mut c = EqualCost::new(6, &links, RoutingMetric::Delay);
        // The four 2 µs paths tie; the 10 µs direct link is dearer.
        assert_eq!(c.next_links(0, 5), vec![0, 4, 8, 12]);
        // By hops the direct link wins alone.
        let mut h = EqualCost::new(6, &links, RoutingMetric::Hops);
        assert_eq!(h.next_links(0, 5), vec![16]);
    }

    #[test]
    fn routes_are_shortest_seeded_and_spread_over_the_equal_paths() {
        let links = fan();
        let mut c = EqualCost::new(6, &links, RoutingMetric::Delay);
        let mut middles = std::collections::BTreeMap::new();
        for i in 0..200 {
            let name = format!("f{i}");
            let (there, back) = flow_routes(&mut c, 7, &name, 0, 5).unwrap();
            assert_eq!(there.len(), 3, "two hops, not the direct link: {there:?}");
            assert_eq!((there[0], there[2]), (0, 5));
            assert_eq!((back[0], back[2]), (5, 0));
            *middles.entry(there[1]).or_insert(0) += 1;
            // Deterministic: the same seed and name give the same routes.
            assert_eq!(flow_routes(&mut c, 7, &name, 0, 5).unwrap(), (there, back));
        }
        // 200 flows over 4 paths: each gets 50 on average; a uniform draw keeps every
        // count within 50 ± 25 with probability > 0.9999 (binomial(200, 1/4) sd 6.1).
        assert_eq!(middles.len(), 4, "{middles:?}");
        assert!(
            middles.values().all(|&k| (25..=75).contains(&k)),
            "{middles:?}"
        );
        // Another seed moves some flows.
        let moved = (0..200)
            .filter(|i| {
                let name = format!("f{i}");
                flow_routes(&mut c, 7, &name, 0, 5) != flow_routes(&mut c, 8, &name, 0, 5)
            })
            .count();
        assert!(
            moved > 50,
            "{moved} of 200 flows changed route with the seed"
        );
    }

    #[test]
    fn no_route_and_no_way_back() {
        // 0 -> 1 one way only.
        let links = vec![link(0, 1, 1)];
        let mut c = EqualCost::new(3, &links, RoutingMetric::Delay);
        assert_eq!(
            flow_routes(&mut c, 1, "f", 0, 1),
            Some((vec![0, 1], vec![]))
        );
        assert_eq!(flow_routes(&mut c, 1, "f", 0, 2), None);
    }
}
