"""networkx interchange: from_networkx, Scenario.to_networkx, GraphML (Topology Zoo style)."""

from __future__ import annotations

import json

import networkx as nx
import pytest

import ccsim
from ccsim import netx, topology
from ccsim._units import duration_s, rate_bps


def test_undirected_graph_gives_duplex_links_with_attributes_and_defaults():
    g = nx.Graph(name="tri")
    g.add_edge("a", "b", rate="100Mbps", delay="5ms")
    g.add_edge("b", "c", rate=10e6, delay=0.02, queue=50, loss=0.01, name="slow")
    g.add_edge("a", "c", colour="red")  # unknown attributes are ignored
    net = ccsim.from_networkx(g, rate="1Gbps", delay="1ms", queue="200p")
    assert net.name == "tri" and net.hosts == ["a", "b", "c"] and net.routing is None
    # In G.edges order: a's edges, then b's.
    ab, ac, bc = net.links
    assert ab == {"between": ["a", "b"], "rate": "100Mbps", "delay": "5ms", "queue": {"kind": "droptail", "limit": "200p"}}
    assert bc == {"between": ["b", "c"], "rate": "10000000bps", "delay": "20000000ns",
                  "queue": {"kind": "droptail", "limit": 50}, "loss": 0.01, "name": "slow"}
    assert ac["rate"] == "1Gbps" and ac["delay"] == "1ms" and "colour" not in ac


def test_hosts_directed_edges_and_refusals():
    g = nx.DiGraph()
    g.add_edge(1, 2)
    g.add_edge(2, 3)
    g.add_edge(3, 2)  # follows 2->3 with the same attributes: one duplex entry
    g.nodes[1]["host"] = True
    g.nodes[3]["host"] = True
    net = ccsim.from_networkx(g, ecmp=True)
    assert net.links[0]["from"] == "1" and net.links[0]["to"] == "2"
    assert net.links[1]["between"] == ["2", "3"] and len(net.links) == 2
    assert net.hosts == ["1", "3"] and net.routing == {"kind": "ecmp"}
    assert ccsim.from_networkx(g, hosts=[2]).hosts == ["2"]
    multi = nx.MultiGraph([("a", "b"), ("a", "b")])
    with pytest.raises(ValueError, match="parallel edges between 'a' and 'b'"):
        ccsim.from_networkx(multi)
    assert len(ccsim.from_networkx(nx.MultiGraph([("a", "b")])).links) == 1
    with pytest.raises(ValueError, match="itself"):
        ccsim.from_networkx(nx.Graph([("a", "a")]))
    with pytest.raises(ValueError, match="->"):
        ccsim.from_networkx(nx.Graph([("a->b", "c")]))
    with pytest.raises(TypeError, match=r"edge \('a', 'b'\) rate"):
        ccsim.from_networkx(nx.Graph([("a", "b", {"rate": [1]})]))


def test_to_networkx_describes_every_directed_link_and_the_flows():
    sc = ccsim.topology.parking_lot(hops=2)
    g = sc.to_networkx()
    assert isinstance(g, nx.DiGraph)
    n_directed = sum(2 if e.get("between") else 1 for e in sc.doc["link"])
    assert g.number_of_edges() == n_directed
    hop = g["r0"]["r1"]
    assert (hop["rate"], hop["delay"], hop["name"], hop["entry"], hop["index"]) == ("10Mbps", "10ms", "hop0", 0, 0)
    assert hop["rate_bps"] == 10e6 and hop["delay_s"] == pytest.approx(0.010)
    assert g["r1"]["r0"]["index"] == 1
    assert g.nodes["src"]["host"] and not g.nodes["r0"]["host"]
    assert [f["name"] for f in g.graph["flows"]][:2] == ["long", "cross0"]
    assert nx.shortest_path(g, "src", "dst", weight="delay_s") == ["src", "r0", "r1", "r2", "dst"]


def test_round_trip_keeps_the_links_in_order():
    for sc in (ccsim.topology.parking_lot(hops=3),
               topology.fat_tree(k=4).scenario(ccsim.traffic.permutation(topology.fat_tree(k=4).hosts)),
               ccsim.load(ccsim.examples.path("dumbbell"))):
        back = ccsim.from_networkx(sc.to_networkx())
        assert back.links == sc.doc["link"], sc.source


@pytest.mark.needs_core
def test_round_trip_gives_identical_results():
    sc = ccsim.topology.parking_lot(hops=3, duration="5s")
    again = ccsim.from_networkx(sc.to_networkx()).scenario(sc.doc["flow"], duration="5s",
                                                           trace=sc.doc["trace"])
    a, b = ccsim.run(sc, progress=False), ccsim.run(again, progress=False)
    strip = lambda r: json.dumps({k: v for k, v in r.summary.items() if k != "events"}, sort_keys=True)  # noqa: E731
    assert strip(a) == strip(b)


def test_graphml_topology_zoo_mapping(tmp_path):
    net = ccsim.read_graphml(netx.graphml_example("abilene"))
    assert net.name == "Abilene" and len(net.nodes) == 11 and len(net.links) == 14
    assert {e["rate"] for e in net.links} == {"10000000000bps"}
    d = {tuple(e["between"]): duration_s(e["delay"]) for e in net.links}
    # New York - Chicago is about 1145 km: 5.7 ms at 2e8 m/s.
    assert d[("Chicago", "New York")] == pytest.approx(1145e3 / 2e8, rel=0.02)
    # A Zoo-style file with repeated labels, parallel edges, LinkSpeed units and no coordinates.
    p = tmp_path / "zoo.graphml"
    g = nx.MultiGraph(label="Tiny")
    g.add_node(0, label="Rome")
    g.add_node(1, label="Rome")
    g.add_node(2, label="Milan")
    g.add_node(3, label="Lonely")
    g.add_edge(0, 1, LinkSpeed="1", LinkSpeedUnits="G")
    g.add_edge(0, 1, LinkSpeedRaw=155_000_000.0)
    g.add_edge(1, 2)
    nx.write_graphml(g, p)
    net = ccsim.read_graphml(p, rate="100Mbps", delay="3ms")
    assert net.name == "Tiny" and net.nodes == ["Rome (0)", "Rome (1)", "Milan"]
    rome = net.links[0]
    assert rate_bps(rome["rate"]) == 1e9 + 155e6, "parallel edges add up"
    assert net.links[1]["rate"] == "100000000bps" and duration_s(net.links[1]["delay"]) == 0.003


@pytest.mark.needs_core
def test_graphml_network_runs():
    net = ccsim.read_graphml(netx.graphml_example("abilene"), queue=1000)
    flows = [{"name": "coast", "from": "Seattle", "to": "New York", "app": {"kind": "bulk", "size": "2MB"}}]
    sc = net.scenario(flows, duration="2s")
    r = ccsim.run(sc, progress=False)
    # The smallest RTT is the propagation delay there and back along the shortest route
    # (Seattle - Denver - Kansas City - Indianapolis - Chicago - New York, ~4,700 km of fibre),
    # plus transmission times of microseconds at 10 Gb/s.
    g = sc.to_networkx()
    one_way = nx.shortest_path_length(g, "Seattle", "New York", weight="delay_s")
    assert 0.046 < 2 * one_way < 0.048
    assert r.flows.rtt_min_s[0] == pytest.approx(2 * one_way, abs=20e-6)
    assert r.flows.completion_time_s.notna().all()
