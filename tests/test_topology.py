"""Topology builders (ccsim.topology): structure, names, parameters, and runs in the core."""

from __future__ import annotations

import collections

import networkx as nx
import pytest

import ccsim
from ccsim import topology


def _graph(net: topology.Network) -> nx.Graph:
    """The network as an undirected simple graph of its duplex entries."""
    g = nx.Graph()
    for e in net.links:
        a, b = e["between"]
        assert not g.has_edge(a, b), f"link {a}-{b} twice"
        g.add_edge(a, b, **{k: v for k, v in e.items() if k != "between"})
    return g


@pytest.mark.parametrize("k", [2, 4, 6])
def test_fat_tree_has_the_al_fares_structure(k):
    net = topology.fat_tree(k=k)
    g = _graph(net)
    half = k // 2
    cores = [n for n in g if n.startswith("core")]
    aggs = [n for n in g if n.startswith("agg")]
    edges = [n for n in g if n.startswith("edge")]
    assert (len(cores), len(aggs), len(edges), len(net.hosts)) == (half * half, k * half, k * half, k**3 // 4)
    # Every switch has k ports; hosts one.
    assert all(g.degree(n) == k for n in cores + aggs + edges)
    assert all(g.degree(h) == 1 for h in net.hosts)
    # Core i reaches aggregation switch i // (k/2) of every pod.
    for c in range(half * half):
        assert sorted(g[f"core{c}"]) == sorted(f"agg{p}_{c // half}" for p in range(k))
    # (k/2)^2 shortest paths between hosts of different pods, each of 6 hops.
    a, b = net.hosts[0], net.hosts[-1]
    paths = list(nx.all_shortest_paths(g, a, b))
    assert len(paths) == half * half and all(len(p) == 7 for p in paths)
    assert net.routing == {"kind": "ecmp"}
    assert topology.fat_tree(k=k, ecmp=False).routing is None


def test_fat_tree_parameters_reach_the_links():
    net = topology.fat_tree(k=4, rate="10Gbps", delay="2us", host_rate=1e9, host_delay=5e-6, queue="500KB")
    host_links = [e for e in net.links if e["between"][1].startswith("h")]
    fabric = [e for e in net.links if not e["between"][1].startswith("h")]
    assert {e["rate"] for e in host_links} == {"1000000000bps"}
    assert {e["delay"] for e in host_links} == {"5000ns"}
    assert {e["rate"] for e in fabric} == {"10Gbps"} and {e["delay"] for e in fabric} == {"2us"}
    assert {str(e["queue"]) for e in net.links} == {str({"kind": "droptail", "limit": "500KB"})}
    for bad in (3, 0, 5, "4", True):
        with pytest.raises(ValueError, match="even integer"):
            topology.fat_tree(k=bad)
    with pytest.raises(TypeError, match="rate"):
        topology.fat_tree(rate=["10Gbps"])


def test_leaf_spine_joins_every_leaf_to_every_spine():
    net = topology.leaf_spine(leaves=3, spines=2, hosts_per_leaf=4)
    g = _graph(net)
    assert all(sorted(g[f"spine{s}"]) == ["leaf0", "leaf1", "leaf2"] for s in range(2))
    assert len(net.hosts) == 12 and net.hosts[:2] == ["h0_0", "h0_1"]
    assert len(list(nx.all_shortest_paths(g, "h0_0", "h2_3"))) == 2


def test_ring_grid_and_hosts_per_node():
    ring = topology.ring(5)
    g = _graph(ring)
    assert nx.cycle_basis(g) and all(d == 2 for _, d in g.degree) and ring.hosts == [f"n{i}" for i in range(5)]
    grid = topology.grid(3, 4)
    g = _graph(grid)
    assert g.number_of_nodes() == 12 and g.number_of_edges() == 3 * 3 + 2 * 4
    torus = _graph(topology.grid(3, 4, torus=True))
    assert all(d == 4 for _, d in torus.degree)
    with_hosts = topology.ring(4, hosts_per_node=2, host_rate="100Mbps")
    assert with_hosts.hosts[:2] == ["n0h0", "n0h1"] and len(with_hosts.hosts) == 8
    assert {e["rate"] for e in with_hosts.links if e["between"][1].startswith("n0h")} == {"100Mbps"}
    with pytest.raises(ValueError):
        topology.ring(2)
    with pytest.raises(ValueError):
        topology.grid(1, 1)


def test_random_graphs_are_seeded_and_connected():
    for make in (lambda s: topology.waxman(30, seed=s), lambda s: topology.barabasi_albert(30, 2, seed=s)):
        a, b, c = make(1), make(1), make(2)
        assert a.links == b.links, "same seed, same graph"
        assert a.links != c.links, "another seed, another graph"
        assert nx.is_connected(_graph(a)) and len(a.hosts) == 30
    # A sparse Waxman draw is disconnected before joining: every node still ends up linked.
    sparse = topology.waxman(40, beta=0.05, alpha=0.05, seed=3)
    g = _graph(sparse)
    assert nx.is_connected(g) and g.number_of_nodes() == 40
    raw = nx.waxman_graph(40, beta=0.05, alpha=0.05, seed=3)
    assert nx.number_connected_components(raw) > 1, "the case is meant to need joining"
    # Waxman delays grow with distance: at most the unit square's diagonal times unit_delay.
    delays = [ccsim._units.duration_s(e["delay"]) for e in topology.waxman(30, seed=1, unit_delay="10ms").links]
    assert 0 < min(delays) < max(delays) <= 0.010 * 2**0.5
    assert {e["delay"] for e in topology.waxman(30, seed=1, delay="2ms").links} == {"2ms"}
    # Barabási-Albert degrees are heavy-tailed: the largest far above m.
    g = _graph(topology.barabasi_albert(200, 2, seed=1))
    assert max(d for _, d in g.degree) > 5 * 2


def test_parking_lot_flows_and_hops():
    sc = topology.parking_lot(hops=4, cross_flows=2)
    names = [f["name"] for f in sc.doc["flow"]]
    assert names[0] == "long" and len(names) == 1 + 4 * 2 and "cross3.1" in names
    hops = [e for e in sc.doc["link"] if e.get("name", "").startswith("hop")]
    assert [e["between"] for e in hops] == [[f"r{i}", f"r{i + 1}"] for i in range(4)]
    g = nx.Graph([tuple(e["between"]) for e in sc.doc["link"]])
    long = sc.doc["flow"][0]
    assert nx.shortest_path(g, long["from"], long["to"]) == ["src", "r0", "r1", "r2", "r3", "r4", "dst"]
    cross = collections.Counter(
        tuple(nx.shortest_path(g, f["from"], f["to"])[1:-1]) for f in sc.doc["flow"][1:]
    )
    assert cross == {(f"r{i}", f"r{i + 1}"): 2 for i in range(4)}, "each cross flow shares one hop"


@pytest.mark.needs_core
def test_fat_tree_permutation_runs_and_spreads_over_the_cores():
    net = topology.fat_tree(k=4, rate="100Mbps", delay="10us")
    flows = ccsim.traffic.permutation(net.hosts, seed=1)
    sc = net.scenario(flows, duration="0.5s", trace={"interval": "0s"})
    sc.validate()
    r = ccsim.run(sc, progress=False)
    assert r.conservation["created"] == r.conservation["delivered"] + sum(r.conservation["dropped"].values()) + r.conservation["in_flight"]
    assert (r.flows.bytes_delivered > 0).all()
    # Traffic on the links out of at least three of the four cores (ECMP; static routes use one).
    busy = r.links[r.links.name.str.startswith("core") & (r.links.packets_out > 100)]
    assert busy.name.str.split("->").str[0].nunique() >= 3
    static = topology.fat_tree(k=4, rate="100Mbps", delay="10us", ecmp=False).scenario(flows, duration="0.5s",
                                                                                        trace={"interval": "0s"})
    rs = ccsim.run(static, progress=False)
    busy = rs.links[rs.links.name.str.startswith("core") & (rs.links.packets_out > 100)]
    assert busy.name.str.split("->").str[0].nunique() == 1


@pytest.mark.needs_core
def test_parking_lot_long_flow_gets_less_than_cross_flows():
    r = ccsim.run(topology.parking_lot(hops=3, duration="20s"), progress=False)
    g = r.flows.set_index("name").goodput_bps
    assert g["long"] < min(g["cross0"], g["cross1"], g["cross2"])
    # Each hop is nearly full: the cross flow plus the long flow fill its 10 Mb/s.
    for i in range(3):
        assert 0.85 * 10e6 < g[f"cross{i}"] + g["long"] <= 10e6


@pytest.mark.needs_core
@pytest.mark.parametrize("make", [
    lambda: topology.leaf_spine(leaves=2, spines=2, hosts_per_leaf=2, rate="100Mbps"),
    lambda: topology.ring(6, rate="100Mbps", ecmp=True),
    lambda: topology.grid(3, 3, rate="100Mbps", hosts_per_node=1),
    lambda: topology.waxman(12, seed=2, rate="100Mbps"),
    lambda: topology.barabasi_albert(12, 2, seed=2, rate="100Mbps"),
])
def test_every_builder_gives_a_valid_runnable_network(make):
    net = make()
    flows = ccsim.traffic.random_pairs(net.hosts, 4, seed=3, app={"kind": "bulk", "size": "200KB"})
    r = ccsim.run(net.scenario(flows, duration="2s"), progress=False)
    assert r.flows.completion_time_s.notna().all(), r.flows
