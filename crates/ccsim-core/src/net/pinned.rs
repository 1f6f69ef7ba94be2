//! Pinned paths: a flow may list explicit node paths (multipath transports put each subflow
//! or destination on one; a single-path flow can be steered off its shortest path). A packet
//! carries the path's number (`Packet::path`, 1-based; 0 = the routing table) and follows it
//! in the direction of its destination; the reverse node list is the return path.

use super::link_config::LinkSpec;
use crate::ids::{FlowId, LinkId, NodeId};

/// A flow's endpoints and pinned node paths (empty: the routing table).
#[derive(Clone, Copy, Debug)]
pub struct FlowPaths<'a> {
    /// The flow's name, for messages.
    pub name: &'a str,
    /// Source node.
    pub from: usize,
    /// Destination node.
    pub to: usize,
    /// Node lists from `from` to `to`.
    pub paths: &'a [Vec<usize>],
}

/// One pinned path resolved to links in both directions.
#[derive(Clone, Debug)]
struct Pinned {
    /// Nodes from the flow's source to its destination.
    nodes: Vec<NodeId>,
    /// `forward[i]` leaves `nodes[i]` towards the destination.
    forward: Vec<LinkId>,
    /// Nodes from the flow's destination back to its source (for a path given in the
    /// scenario, `nodes` reversed; an ECMP route back may differ).
    back_nodes: Vec<NodeId>,
    /// `back[i]` leaves `back_nodes[i]` towards the source (absent links: `None`, e.g.
    /// for one-way UDP paths).
    back: Vec<Option<LinkId>>,
}

/// Every flow's pinned paths.
#[derive(Clone, Debug, Default)]
pub struct PinnedPaths {
    flows: Vec<Vec<Pinned>>,
    ends: Vec<(NodeId, NodeId)>,
}

/// The link from `a` to `b` (the lowest-numbered one if several are parallel).
pub fn link_between(links: &[LinkSpec], a: usize, b: usize) -> Option<LinkId> {
    links
        .iter()
        .position(|l| l.from == a && l.to == b)
        .map(|i| LinkId(i as u32))
}

impl PinnedPaths {
    /// Resolve the flows' node paths (validated by the scenario parser: consecutive nodes
    /// are joined by a link). Returns an error message for a path that is not.
    pub fn new(links: &[LinkSpec], flows: &[FlowPaths<'_>]) -> Result<PinnedPaths, String> {
        let mut out = PinnedPaths::default();
        for f in flows {
            let mut paths = Vec::with_capacity(f.paths.len());
            for (k, p) in f.paths.iter().enumerate() {
                if p.first() != Some(&f.from) || p.last() != Some(&f.to) {
                    return Err(format!(
                        "flow {}: path {} must run from the flow's source to its destination",
                        f.name,
                        k + 1
                    ));
                }
                let mut forward = Vec::with_capacity(p.len());
                for w in p.windows(2) {
                    let Some(l) = link_between(links, w[0], w[1]) else {
                        return Err(format!(
                            "flow {}: path {} has no link between consecutive nodes",
                            f.name,
                            k + 1
                        ));
                    };
                    forward.push(l);
                }
                let back_nodes: Vec<usize> = p.iter().rev().copied().collect();
                let back = back_nodes
                    .windows(2)
                    .map(|w| link_between(links, w[0], w[1]))
                    .collect();
                paths.push(Pinned {
                    nodes: p.iter().map(|&n| NodeId(n as u32)).collect(),
                    forward,
                    back_nodes: back_nodes.iter().map(|&n| NodeId(n as u32)).collect(),
                    back,
                });
            }
            out.flows.push(paths);
            out.ends.push((NodeId(f.from as u32), NodeId(f.to as u32)));
        }
        Ok(out)
    }

    /// Pin `flow` (which has no path of its own) to a route chosen by the routing layer
    /// (`net::ecmp`): node lists there and back, each joined by links (`back` may be
    /// empty when there is no way back).
    pub fn pin_route(&mut self, links: &[LinkSpec], flow: FlowId, there: &[usize], back: &[usize]) {
        let resolve = |nodes: &[usize]| -> Vec<Option<LinkId>> {
            nodes
                .windows(2)
                .map(|w| link_between(links, w[0], w[1]))
                .collect()
        };
        let as_ids = |nodes: &[usize]| nodes.iter().map(|&n| NodeId(n as u32)).collect();
        let p = Pinned {
            nodes: as_ids(there),
            forward: resolve(there).into_iter().flatten().collect(),
            back_nodes: as_ids(back),
            back: resolve(back),
        };
        debug_assert_eq!(
            p.forward.len() + 1,
            p.nodes.len(),
            "a route's nodes are joined by links"
        );
        self.flows[flow.idx()] = vec![p];
    }

    /// Number of pinned paths of `flow`.
    pub fn count(&self, flow: FlowId) -> usize {
        self.flows.get(flow.idx()).map_or(0, |p| p.len())
    }

    /// The link a packet of `flow` on path `path` (1-based) leaves `node` by to reach
    /// `dst` (the flow's destination or its source); `None` off the path.
    #[inline]
    pub fn next_link(&self, flow: FlowId, path: u8, node: NodeId, dst: NodeId) -> Option<LinkId> {
        let p = self.flows.get(flow.idx())?.get(path as usize - 1)?;
        if dst == self.ends[flow.idx()].1 {
            let i = p.nodes.iter().position(|&n| n == node)?;
            p.forward.get(i).copied()
        } else {
            let i = p.back_nodes.iter().position(|&n| n == node)?;
            p.back.get(i).copied().flatten()
        }
    }

    /// Links of `flow`'s path `path` (1-based) towards its destination, or back towards
    /// its source (up to the first missing link), in order.
    pub fn links(&self, flow: FlowId, path: u8, towards_destination: bool) -> Vec<LinkId> {
        let Some(p) = self
            .flows
            .get(flow.idx())
            .and_then(|f| f.get(path as usize - 1))
        else {
            return Vec::new();
        };
        if towards_destination {
            p.forward.clone()
        } else {
            p.back.iter().map_while(|l| *l).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::link_config::LossSpec;
    use crate::net::queue::{QueueLimit, QueueSpec};
    use crate::units::{Dur, Rate};

    fn link(from: usize, to: usize) -> LinkSpec {
        LinkSpec {
            name: format!("{from}->{to}"),
            alias: None,
            from,
            to,
            rate: Rate::mbps(10),
            delay: Dur::from_millis(1),
            queue: QueueSpec::DropTail {
                limit: QueueLimit::Packets(10),
            },
            loss: LossSpec::None,
            schedule: None,
            jitter: crate::units::Dur::ZERO,
        }
    }

    fn flow(paths: &[Vec<usize>]) -> FlowPaths<'_> {
        FlowPaths {
            name: "f",
            from: 0,
            to: 3,
            paths,
        }
    }

    /// Diamond 0 -> {1, 2} -> 3, duplex.
    fn diamond() -> Vec<LinkSpec> {
        let mut v = Vec::new();
        for (a, b) in [(0, 1), (1, 3), (0, 2), (2, 3)] {
            v.push(link(a, b));
            v.push(link(b, a));
        }
        v
    }

    #[test]
    fn follows_the_path_forward_and_back() {
        let links = diamond();
        let p = PinnedPaths::new(&links, &[flow(&[vec![0, 1, 3], vec![0, 2, 3]])]).unwrap();
        let (f, s, d) = (FlowId(0), NodeId(0), NodeId(3));
        assert_eq!(p.count(f), 2);
        // Path 2 forward: 0->2 (link 4), 2->3 (link 6); back: 3->2 (7), 2->0 (5).
        assert_eq!(p.next_link(f, 2, s, d), Some(LinkId(4)));
        assert_eq!(p.next_link(f, 2, NodeId(2), d), Some(LinkId(6)));
        assert_eq!(p.next_link(f, 2, d, s), Some(LinkId(7)));
        assert_eq!(p.next_link(f, 2, NodeId(2), s), Some(LinkId(5)));
        assert_eq!(
            p.next_link(f, 2, NodeId(1), d),
            None,
            "node 1 is off path 2"
        );
        assert_eq!(p.next_link(f, 3, s, d), None, "no third path");
        assert_eq!(p.links(f, 1, true), vec![LinkId(0), LinkId(2)]);
        assert_eq!(p.links(f, 1, false), vec![LinkId(3), LinkId(1)]);
    }

    #[test]
    fn rejects_paths_that_do_not_join_the_flow_ends_or_skip_a_link() {
        let links = diamond();
        assert!(PinnedPaths::new(&links, &[flow(&[vec![1, 3]])]).is_err());
        assert!(PinnedPaths::new(&links, &[flow(&[vec![0, 3]])]).is_err());
    }
}
