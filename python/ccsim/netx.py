"""networkx interchange: graphs in (``from_networkx``, GraphML files such as the Internet
Topology Zoo's), graphs out (``Scenario.to_networkx``, ``Network.to_networkx``).

Attributes read from a graph (docs/python.md, "networkx"):

==========  =====  ======================================================  ===============
where       name   value                                                   default
==========  =====  ======================================================  ===============
edge        rate   a rate with a unit (``"10Gbps"``) or a number of bit/s  ``rate=`` arg
edge        delay  a duration with a unit (``"2ms"``) or seconds           ``delay=`` arg
edge        queue  packets (int), a limit or kind (str), or a table        ``queue=`` arg
edge        loss   a probability, or a loss table                          none
edge        name   the ``[[link]]`` entry's name                           none
edge        index  order of the directed links (``to_networkx`` writes it) graph order
node        host   true for nodes traffic may use                          every node with a link
==========  =====  ======================================================  ===============
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Mapping, Sequence
from importlib import resources
from typing import Any

from ccsim._units import delay_param, duration_s, duration_text, rate_bps, rate_param, rate_text

__all__ = ["from_networkx", "read_graphml", "links_to_digraph", "graphml_example", "FIBRE_M_PER_S"]

#: Speed of light in optical fibre (refractive index ≈ 1.5): 5 µs per km.
FIBRE_M_PER_S = 2.0e8
#: Mean Earth radius (km), for great-circle distances between GraphML coordinates.
EARTH_RADIUS_KM = 6371.0
_EDGE_KEYS = ("rate", "delay", "queue", "loss", "name")


def _node_name(node: Any) -> str:
    name = str(node)
    if not name or "->" in name:
        raise ValueError(f"node {node!r}: a node name must be non-empty and must not contain '->'")
    return name


def from_networkx(
    graph: Any,
    *,
    rate: str | float = "1Gbps",
    delay: str | float = "1ms",
    queue: object = None,
    hosts: Collection[Any] | None = None,
    ecmp: bool = False,
    name: str | None = None,
) -> Any:
    """A :class:`~ccsim.topology.Network` from a networkx graph.

    An undirected graph gives one duplex link (``between``) per edge; a directed graph one
    one-way link (``from``/``to``) per edge, except that an edge immediately followed (in
    ``index`` order when every edge has one, else in the graph's edge order) by its reverse
    with the same attributes makes one duplex link, so ``from_networkx(sc.to_networkx())``
    gives back ``sc``'s links in the same order. Edge attributes ``rate``, ``delay``,
    ``queue``, ``loss`` and ``name`` (table above) override the defaults given here; other
    attributes are ignored. Node names are ``str(node)``. Hosts are ``hosts`` if given, else
    the nodes with a true ``host`` attribute, else every node with a link. ``ecmp`` asks for per-flow
    equal-cost multipath routing. A multigraph's parallel edges are an error (merge them
    first, as :func:`read_graphml` does); so is a self-loop.
    """
    import networkx as nx

    from ccsim.topology import Network, queue_spec

    if graph.is_multigraph():
        for u, v in dict.fromkeys(graph.edges()):
            if graph.number_of_edges(u, v) > 1:
                raise ValueError(f"parallel edges between {u!r} and {v!r}: ccsim has one link per direction "
                                 "between two nodes; merge them first (e.g. nx.DiGraph(G), or read_graphml)")
    edges = list(graph.edges(data=True))
    if edges and all("index" in d for _, _, d in edges):
        edges.sort(key=lambda e: e[2]["index"])
    rate = rate_param(rate, "rate")
    delay = delay_param(delay, "delay")

    def entry_fields(u: Any, v: Any, data: Mapping[str, Any]) -> dict[str, Any]:
        where = f"edge ({u!r}, {v!r})"
        if u == v:
            raise ValueError(f"{where}: a link may not join a node to itself")
        fields: dict[str, Any] = {"rate": rate_param(data.get("rate", rate), f"{where} rate"),
                                  "delay": delay_param(data.get("delay", delay), f"{where} delay")}
        q = queue_spec(data["queue"]) if "queue" in data else queue_spec(queue)
        if q is not None:
            fields["queue"] = q
        for key in ("loss", "name"):
            if key in data:
                fields[key] = data[key]
        return fields

    links: list[dict[str, Any]] = []
    directed = graph.is_directed()
    i = 0
    while i < len(edges):
        u, v, data = edges[i]
        fields = entry_fields(u, v, data)
        a, b = _node_name(u), _node_name(v)
        if not directed:
            links.append({"between": [a, b], **fields})
        elif i + 1 < len(edges) and edges[i + 1][:2] == (v, u) and entry_fields(v, u, edges[i + 1][2]) == fields:
            links.append({"between": [a, b], **fields})
            i += 1
        else:
            links.append({"from": a, "to": b, **fields})
        i += 1
    if hosts is not None:
        host_names = [_node_name(h) for h in hosts]
    else:
        marked = [n for n, d in graph.nodes(data=True) if d.get("host")]
        host_names = [_node_name(n) for n in (marked or [n for n in graph.nodes if graph.degree(n) > 0])]
    gname = name or graph.graph.get("name") or ("digraph" if directed else "graph")
    return Network(links, host_names, routing={"kind": "ecmp"} if ecmp else None, name=str(gname))


def links_to_digraph(links: Sequence[Mapping[str, Any]], hosts: Collection[str], *, name: str = "") -> Any:
    """``[[link]]`` entries as a ``networkx.DiGraph``: one edge per directed link, in the
    core's order (``index``), with the entry's ``rate``, ``delay``, ``queue``, ``loss`` and
    ``name`` as given, plus ``rate_bps`` and ``delay_s`` as numbers (for analysis, e.g.
    ``nx.shortest_path(G, s, d, weight="delay_s")``) and ``entry`` (the entry's index).
    Nodes carry ``host`` (true for ``hosts``)."""
    import networkx as nx

    g = nx.DiGraph(name=name)
    index = 0
    for e, entry in enumerate(links):
        ends = entry.get("between")
        pairs = [(ends[0], ends[1]), (ends[1], ends[0])] if ends else [(entry.get("from"), entry.get("to"))]
        attrs = {k: entry[k] for k in _EDGE_KEYS if k in entry}
        numeric = {}
        try:
            numeric = {"rate_bps": rate_bps(entry["rate"]), "delay_s": duration_s(entry["delay"])}
        except (KeyError, ValueError, TypeError):
            pass  # a document the core would refuse: keep what is there
        for a, b in pairs:
            for n in (a, b):
                if n not in g:
                    g.add_node(n, host=n in hosts)
            g.add_edge(a, b, **attrs, **numeric, entry=e, index=index)
            index += 1
    return g


def _great_circle_km(a: Mapping[str, Any], b: Mapping[str, Any]) -> float | None:
    """Haversine distance between two GraphML nodes with Latitude/Longitude, else None."""
    try:
        lat1, lon1, lat2, lon2 = (math.radians(float(x)) for x in
                                  (a["Latitude"], a["Longitude"], b["Latitude"], b["Longitude"]))
    except (KeyError, TypeError, ValueError):
        return None
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


_SPEED_UNITS = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _zoo_rate(data: Mapping[str, Any]) -> float | None:
    """An edge's capacity in bit/s from Topology Zoo attributes, if it has one."""
    raw = data.get("LinkSpeedRaw")
    try:
        if raw is not None and float(raw) > 0:
            return float(raw)
        speed, unit = data.get("LinkSpeed"), str(data.get("LinkSpeedUnits", "")).strip().upper()
        if speed is not None and float(speed) > 0 and unit in _SPEED_UNITS:
            return float(speed) * _SPEED_UNITS[unit]
    except (TypeError, ValueError):
        pass
    return None


def read_graphml(
    path: str | os.PathLike[str],
    *,
    rate: str | float = "1Gbps",
    delay: str | float = "1ms",
    queue: object = None,
    hosts: Collection[str] | None = None,
    ecmp: bool = False,
) -> Any:
    """A :class:`~ccsim.topology.Network` from a GraphML file in the Internet Topology Zoo's
    style (read with ``networkx.read_graphml``). Mapping:

    * node name: its ``label`` (``"<label> (<id>)"`` when labels repeat), else its id;
      nodes without links are left out;
    * rate: ``LinkSpeedRaw`` (bit/s), else ``LinkSpeed`` × ``LinkSpeedUnits`` (K, M, G, T),
      else ``rate``; an edge's own ``rate`` attribute, if any, wins;
    * delay: the great-circle distance between the two nodes' ``Latitude``/``Longitude`` at
      the speed of light in fibre (2·10⁸ m/s, 5 µs/km), else ``delay``; an edge's ``delay``
      attribute wins;
    * parallel edges (the Zoo's multigraphs) become one link whose rate is their sum;
    * the graph is undirected unless the file says otherwise.
    """
    import networkx as nx

    g = nx.read_graphml(os.fspath(path))
    labels = {n: str(d.get("label", n)).strip() or str(n) for n, d in g.nodes(data=True)}
    counts: dict[str, int] = {}
    for lab in labels.values():
        counts[lab] = counts.get(lab, 0) + 1
    names = {n: (lab if counts[lab] == 1 else f"{lab} ({n})") for n, lab in labels.items()}
    default_rate = rate_bps(rate_param(rate, "rate"))
    default_delay = duration_s(delay_param(delay, "delay"))
    out = nx.DiGraph() if g.is_directed() else nx.Graph()
    out.graph["name"] = g.graph.get("label") or g.graph.get("Network") or os.path.basename(os.fspath(path))
    for u, v, data in g.edges(data=True):
        if u == v:
            continue
        a, b = names[u], names[v]
        bps = rate_bps(data["rate"]) if "rate" in data else (_zoo_rate(data) or default_rate)
        if "delay" in data:
            secs = duration_s(data["delay"])
        else:
            km = _great_circle_km(g.nodes[u], g.nodes[v])
            secs = km * 1000 / FIBRE_M_PER_S if km is not None else default_delay
        if out.has_edge(a, b):
            out[a][b]["rate"] = rate_text(rate_bps(out[a][b]["rate"]) + bps)
        else:
            out.add_edge(a, b, rate=rate_text(bps), delay=duration_text(secs))
    return from_networkx(out, queue=queue, hosts=hosts, ecmp=ecmp, name=str(out.graph["name"]))


def graphml_example(name: str = "abilene") -> str:
    """The path of a GraphML file shipped with ccsim (``ccsim/scenarios/topologies/``):
    ``"abilene"``, the Internet2 Abilene backbone (11 routers, 14 links of 10 Gb/s)."""
    root = resources.files("ccsim") / "scenarios" / "topologies"
    known = sorted(p.name[: -len(".graphml")] for p in root.iterdir() if p.name.endswith(".graphml"))
    if name not in known:
        raise KeyError(f"no shipped GraphML topology {name!r}; shipped: {', '.join(known)}")
    return str(root / f"{name}.graphml")
