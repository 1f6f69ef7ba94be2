use super::*;
use crate::net::link_config::LossSpec;
use crate::net::queue::{QueueLimit, QueueSpec};
use crate::rng::SimRng;
use crate::units::{Dur, Rate};

fn link_ns(from: usize, to: usize, ns: u64) -> LinkSpec {
    LinkSpec {
        name: format!("{from}->{to}"),
        alias: None,
        from,
        to,
        rate: Rate::mbps(10),
        delay: Dur(ns),
        queue: QueueSpec::DropTail {
            limit: QueueLimit::Packets(10),
        },
        loss: LossSpec::None,
        schedule: None,
        jitter: crate::units::Dur::ZERO,
    }
}

fn link(from: usize, to: usize, ms: u64) -> LinkSpec {
    link_ns(from, to, ms * 1_000_000)
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

/// A dumbbell of `n` host pairs: r1 = 0, r2 = 1, senders 2.., receivers 2 + n..
fn dumbbell(n: usize) -> (usize, Vec<LinkSpec>) {
    let mut links = vec![link(0, 1, 10), link(1, 0, 10)];
    for i in 0..n {
        let (s, d) = (2 + i, 2 + n + i);
        links.extend([link(s, 0, 5), link(0, s, 5), link(1, d, 5), link(d, 1, 5)]);
    }
    (2 + 2 * n, links)
}

#[test]
fn hosts_share_their_routers_routes() {
    let (nodes, links) = dumbbell(100);
    let dsts: Vec<usize> = (2..nodes).collect();
    let t = ForwardingTable::for_destinations(nodes, &links, RoutingMetric::Delay, &dsts);
    // Searched towards r1 and r2 only, plus the column of the routers (no traffic).
    assert_eq!(t.columns(), 3);
    // s3 -> d3: access link, bottleneck, access link.
    let path = t.path(&links, 5, 105).unwrap();
    let ends: Vec<(usize, usize)> = path
        .iter()
        .map(|l| (links[l.idx()].from, links[l.idx()].to))
        .collect();
    assert_eq!(ends, [(5, 0), (0, 1), (1, 105)]);
    // The routers carry no traffic, so nothing routes towards them.
    assert_eq!(t.next_link(5, 0), None);
}

/// The routing of every version before issue #24: a dense table filled by one search per
/// destination. The reference the shared columns must agree with.
fn reference(n: usize, links: &[LinkSpec], metric: RoutingMetric) -> Vec<Option<LinkId>> {
    let adj = Adjacency::new(n, links);
    let mut next = vec![None; n * n];
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
            next[u * n + dst] = best.map(|&li| LinkId(li as u32));
        }
    }
    next
}

/// A random network: a core of routers joined by random links (some one-way, some
/// parallel, some of zero or equal delays), hosts hanging off routers by one or two links,
/// and now and then a node reached by a single one-way link.
fn random_network(rng: &mut SimRng, huge_delays: bool) -> (usize, Vec<LinkSpec>) {
    let routers = 1 + rng.range_inclusive(0, 12) as usize;
    let hosts = rng.range_inclusive(0, 12) as usize;
    let n = routers + hosts;
    let delay = |rng: &mut SimRng| -> u64 {
        if huge_delays && rng.range_inclusive(0, 3) == 0 {
            u64::MAX / 3 + rng.range_inclusive(0, 1000)
        } else {
            // few distinct values, so that equal costs are common
            rng.range_inclusive(0, 4) * 1000
        }
    };
    let mut links = Vec::new();
    let core_links = rng.range_inclusive(0, 3 * routers as u64) as usize;
    for _ in 0..core_links {
        let a = rng.range_inclusive(0, routers as u64 - 1) as usize;
        let b = rng.range_inclusive(0, routers as u64 - 1) as usize;
        if a == b {
            continue;
        }
        let d = delay(rng);
        links.push(link_ns(a, b, d));
        if rng.range_inclusive(0, 3) != 0 {
            let d = if rng.range_inclusive(0, 1) == 0 {
                d
            } else {
                delay(rng)
            };
            links.push(link_ns(b, a, d));
        }
    }
    for h in routers..n {
        let r = rng.range_inclusive(0, routers as u64 - 1) as usize;
        match rng.range_inclusive(0, 5) {
            0 => links.push(link_ns(r, h, delay(rng))), // reached only
            1 => links.push(link_ns(h, r, delay(rng))), // sends only
            2 => {
                // two routers, or a parallel link: not a leaf
                let r2 = rng.range_inclusive(0, routers as u64 - 1) as usize;
                links.push(link_ns(r, h, delay(rng)));
                links.push(link_ns(r2, h, delay(rng)));
                links.push(link_ns(h, r, delay(rng)));
            }
            _ => {
                let d = delay(rng);
                links.push(link_ns(h, r, d));
                links.push(link_ns(r, h, d));
            }
        }
    }
    // A few links in random order, so that link indices do not follow the structure.
    let k = links.len();
    for i in (1..k).rev() {
        if rng.range_inclusive(0, 2) == 0 {
            let j = rng.range_inclusive(0, i as u64) as usize;
            links.swap(i, j);
        }
    }
    (n, links)
}

#[test]
fn shared_columns_choose_the_dense_tables_next_hops_on_random_networks() {
    let mut rng = SimRng::stream(24, "routing-equivalence");
    let mut shared_somewhere = false;
    for case in 0..1500 {
        let huge = case % 5 == 4;
        let (n, links) = random_network(&mut rng, huge);
        for metric in [RoutingMetric::Delay, RoutingMetric::Hops] {
            let want = reference(n, &links, metric);
            // Every destination, and a random subset.
            let all: Vec<usize> = (0..n).collect();
            let some: Vec<usize> = (0..n).filter(|_| rng.range_inclusive(0, 2) == 0).collect();
            for dsts in [&all, &some] {
                let t = ForwardingTable::for_destinations(n, &links, metric, dsts);
                shared_somewhere |= t.columns() < dsts.len();
                for &dst in dsts.iter() {
                    for u in 0..n {
                        if u == dst {
                            continue;
                        }
                        assert_eq!(
                            t.next_link(u, dst),
                            want[u * n + dst],
                            "case {case}, {metric:?}: at node {u} towards {dst}; links {:?}",
                            links
                                .iter()
                                .map(|l| (l.from, l.to, l.delay.0))
                                .collect::<Vec<_>>()
                        );
                    }
                }
            }
        }
    }
    assert!(shared_somewhere, "no case exercised shared columns");
}
