"""Ready-made topologies: data-centre fabrics, chains, rings, grids and random graphs.

Each builder returns a :class:`Network`: the ``[[link]]`` entries of a scenario, the hosts
that traffic may use, and the routing the topology wants (ECMP for the multipath fabrics).
Add traffic (``ccsim.traffic``) and turn it into a :class:`~ccsim.Scenario`::

    net = ccsim.topology.fat_tree(k=4)
    flows = ccsim.traffic.permutation(net.hosts, seed=1)
    result = ccsim.run(net.scenario(flows, duration="1s"))

``dumbbell`` (a Scenario with its flows, built by the core) and :func:`parking_lot` (its
long flow and cross flows are part of its definition) return whole scenarios. Node names
are documented per builder; links are duplex ``between`` entries, so each gives two
directed links ``"a->b"`` and ``"b->a"``. See docs/python.md, "Topologies".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ccsim._units import delay_param, duration_text, rate_param
from ccsim.scenario import Scenario, dumbbell

__all__ = [
    "Network",
    "dumbbell",
    "parking_lot",
    "fat_tree",
    "leaf_spine",
    "ring",
    "grid",
    "waxman",
    "barabasi_albert",
    "queue_spec",
]

#: Queue of every builder's links unless told otherwise (the core's own default).
DEFAULT_QUEUE = 100


def queue_spec(queue: object) -> object:
    """A ``queue`` value for a link entry: an integer is a DropTail limit in packets, a
    string is a limit (``"100p"``, ``"500KB"``) unless it names a kind (``"droptail"``,
    ``"red"``), a mapping is used as it is; ``None`` leaves the core's default (100 packets)."""
    if queue is None or isinstance(queue, Mapping):
        return dict(queue) if queue is not None else None
    if isinstance(queue, bool):
        raise TypeError(f"queue: expected packets, a size, a kind or a table, not {queue!r}")
    if isinstance(queue, int):
        return {"kind": "droptail", "limit": queue}
    if isinstance(queue, str):
        return queue if queue in ("droptail", "red") else {"kind": "droptail", "limit": queue}
    raise TypeError(f"queue: expected packets, a size, a kind or a table, not {queue!r}")


def _link(a: str, b: str, rate: str, delay: str, queue: object, name: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"between": [a, b], "rate": rate, "delay": delay}
    q = queue_spec(queue)
    if q is not None:
        entry["queue"] = q
    if name is not None:
        entry["name"] = name
    return entry


class Network:
    """A network without traffic: ``links`` (``[[link]]`` entries, as in a scenario file),
    ``hosts`` (node names traffic may start and end at, in order), ``routing`` (a
    ``[routing]`` table such as ``{"kind": "ecmp"}``, or ``None`` for static routes) and a
    descriptive ``name``."""

    def __init__(
        self,
        links: Sequence[Mapping[str, Any]],
        hosts: Iterable[str],
        *,
        routing: Mapping[str, Any] | None = None,
        name: str = "network",
    ) -> None:
        self.links: list[dict[str, Any]] = [dict(entry) for entry in links]
        self.hosts: list[str] = list(hosts)
        self.routing: dict[str, Any] | None = dict(routing) if routing is not None else None
        self.name = name
        unknown = [h for h in self.hosts if h not in set(self.nodes)]
        if unknown:
            raise ValueError(f"{name}: hosts {unknown[:5]} are not nodes of any link")

    @property
    def nodes(self) -> list[str]:
        """Node names in order of first appearance in the links (the core's numbering)."""
        seen: dict[str, None] = {}
        for entry in self.links:
            for n in entry.get("between") or [entry.get("from"), entry.get("to")]:
                if n is not None:
                    seen.setdefault(str(n), None)
        return list(seen)

    def __repr__(self) -> str:
        return f"Network({self.name!r}, {len(self.nodes)} nodes, {len(self.links)} link entries, {len(self.hosts)} hosts)"

    def _repr_html_(self) -> str:
        from ccsim._html import network_html

        return network_html(self)

    def scenario(
        self,
        flows: Iterable[Mapping[str, Any]] = (),
        *,
        duration: str | float = "10s",
        seed: int = 1,
        trace: Mapping[str, Any] | None = None,
        **simulation: Any,
    ) -> Scenario:
        """A scenario of this network and ``flows`` (``[[flow]]`` entries, e.g. from
        ``ccsim.traffic``). ``duration`` and ``seed`` go into ``[simulation]`` with any other
        ``simulation`` keys (``routing="hops"``, ``threads=2``...); ``trace`` is the
        ``[trace]`` table (default: sampling every 100 ms)."""
        sim: dict[str, Any] = {"duration": delay_param(duration, "duration"), "seed": seed, **simulation}
        doc: dict[str, Any] = {"simulation": sim, "trace": dict(trace) if trace is not None else {"interval": "100ms"},
                               "link": [dict(e) for e in self.links], "flow": [dict(f) for f in flows]}
        if self.routing is not None:
            doc["routing"] = dict(self.routing)
        return Scenario(doc, f"{self.name} with {len(doc['flow'])} flows")

    def to_networkx(self) -> Any:
        """The network as a ``networkx.DiGraph``, one edge per directed link (see
        ``Scenario.to_networkx``); hosts carry ``host=True``."""
        from ccsim.netx import links_to_digraph

        return links_to_digraph(self.links, set(self.hosts), name=self.name)


def _routing(ecmp: bool) -> dict[str, Any] | None:
    return {"kind": "ecmp"} if ecmp else None


def _attach_hosts(
    links: list[dict[str, Any]], nodes: Sequence[str], per_node: int, rate: str, delay: str, queue: object
) -> list[str]:
    """``per_node`` hosts ``<node>h<i>`` on an access link to each node (the nodes themselves
    are the hosts when ``per_node`` is 0). Returns the hosts."""
    if per_node < 0:
        raise ValueError(f"hosts_per_node must be >= 0, not {per_node}")
    if per_node == 0:
        return list(nodes)
    hosts = []
    for n in nodes:
        for i in range(per_node):
            h = f"{n}h{i}"
            links.append(_link(n, h, rate, delay, queue))
            hosts.append(h)
    return hosts


def _positive_int(value: int, name: str, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be an integer >= {least}, not {value!r}")
    return value


def parking_lot(
    hops: int = 3,
    *,
    rate: str | float = "10Mbps",
    delay: str | float = "10ms",
    access_rate: str | float = "1Gbps",
    access_delay: str | float = "1ms",
    queue: object = DEFAULT_QUEUE,
    cross_flows: int = 1,
    duration: str | float = "30s",
    seed: int = 1,
    cc: str | Mapping[str, Any] = "reno",
    recovery: str = "sack",
    trace_interval: str = "100ms",
) -> Scenario:
    """The parking lot: routers ``r0 … r<hops>`` in a chain, hop ``i`` being the duplex link
    ``r<i>``–``r<i+1>`` named ``"hop<i>"``. One long flow ``"long"`` goes from host ``src``
    (on ``r0``) to host ``dst`` (on ``r<hops>``) across every hop; on each hop ``i``,
    ``cross_flows`` cross flows ``"cross<i>"`` (``"cross<i>.<c>"`` when more than one) go from
    host ``x<i>_<c>s`` on ``r<i>`` to host ``x<i>_<c>d`` on ``r<i+1>``, sharing only that hop.
    Every flow is a greedy TCP transfer with ``cc`` and ``recovery``; hosts hang on access
    links of ``access_rate``/``access_delay``. The classic test of how a controller shares
    capacity between a flow crossing many bottlenecks and flows crossing one."""
    _positive_int(hops, "hops")
    _positive_int(cross_flows, "cross_flows", least=0)
    rate, delay = rate_param(rate, "rate"), delay_param(delay, "delay")
    arate, adelay = rate_param(access_rate, "access_rate"), delay_param(access_delay, "access_delay")
    links = [_link(f"r{i}", f"r{i + 1}", rate, delay, queue, name=f"hop{i}") for i in range(hops)]
    links.append(_link("src", "r0", arate, adelay, queue))
    links.append(_link(f"r{hops}", "dst", arate, adelay, queue))
    tcp = {"transport": "tcp", "cc": cc, "recovery": recovery, "app": {"kind": "bulk", "size": "inf"}}
    flows = [{"name": "long", "from": "src", "to": "dst", **tcp}]
    for i in range(hops):
        for c in range(cross_flows):
            s, d = f"x{i}_{c}s", f"x{i}_{c}d"
            links.append(_link(s, f"r{i}", arate, adelay, queue))
            links.append(_link(f"r{i + 1}", d, arate, adelay, queue))
            name = f"cross{i}" if cross_flows == 1 else f"cross{i}.{c}"
            flows.append({"name": name, "from": s, "to": d, **tcp})
    net = Network(links, ["src", "dst"], name=f"parking_lot(hops={hops})")
    return net.scenario(flows, duration=duration, seed=seed, trace={"interval": trace_interval})


def fat_tree(
    k: int = 4,
    *,
    rate: str | float = "1Gbps",
    delay: str | float = "1us",
    host_rate: str | float | None = None,
    host_delay: str | float | None = None,
    queue: object = DEFAULT_QUEUE,
    ecmp: bool = True,
) -> Network:
    """The k-ary fat-tree of Al-Fares, Loukissas and Vahdat (SIGCOMM 2008): ``k`` pods, each of
    ``k/2`` aggregation switches ``agg<p>_<j>`` and ``k/2`` edge switches ``edge<p>_<j>`` (every
    edge switch linked to every aggregation switch of its pod), ``(k/2)²`` core switches
    ``core<i>`` (core ``i`` linked to aggregation switch ``i // (k/2)`` of every pod), and
    ``k/2`` hosts ``h<p>_<e>_<m>`` on each edge switch: ``k³/4`` hosts in all, full bisection
    bandwidth. Switch links have ``rate``/``delay``, host links ``host_rate``/``host_delay``
    (default: the same). With ``ecmp`` (default) flows are spread over the ``(k/2)²``
    shortest paths between pods by per-flow hashing (``[routing] kind = "ecmp"``)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 2 or k % 2:
        raise ValueError(f"k must be an even integer >= 2, not {k!r}")
    rate, delay = rate_param(rate, "rate"), delay_param(delay, "delay")
    hrate = rate if host_rate is None else rate_param(host_rate, "host_rate")
    hdelay = delay if host_delay is None else delay_param(host_delay, "host_delay")
    half = k // 2
    links = []
    for c in range(half * half):
        for p in range(k):
            links.append(_link(f"core{c}", f"agg{p}_{c // half}", rate, delay, queue))
    hosts = []
    for p in range(k):
        for a in range(half):
            for e in range(half):
                links.append(_link(f"agg{p}_{a}", f"edge{p}_{e}", rate, delay, queue))
        for e in range(half):
            for m in range(half):
                h = f"h{p}_{e}_{m}"
                links.append(_link(f"edge{p}_{e}", h, hrate, hdelay, queue))
                hosts.append(h)
    return Network(links, hosts, routing=_routing(ecmp), name=f"fat_tree(k={k})")


def leaf_spine(
    leaves: int = 4,
    spines: int = 2,
    hosts_per_leaf: int = 4,
    *,
    rate: str | float = "10Gbps",
    delay: str | float = "1us",
    host_rate: str | float | None = None,
    host_delay: str | float | None = None,
    queue: object = DEFAULT_QUEUE,
    ecmp: bool = True,
) -> Network:
    """A two-tier leaf-spine (folded Clos) fabric: every leaf switch ``leaf<j>`` linked to every
    spine switch ``spine<i>``, and ``hosts_per_leaf`` hosts ``h<j>_<m>`` on each leaf. Fabric
    links have ``rate``/``delay``, host links ``host_rate``/``host_delay`` (default: the same);
    the oversubscription is ``hosts_per_leaf·host_rate / (spines·rate)``. With ``ecmp``
    (default) flows between leaves are spread over the spines by per-flow hashing."""
    _positive_int(leaves, "leaves")
    _positive_int(spines, "spines")
    _positive_int(hosts_per_leaf, "hosts_per_leaf")
    rate, delay = rate_param(rate, "rate"), delay_param(delay, "delay")
    hrate = rate if host_rate is None else rate_param(host_rate, "host_rate")
    hdelay = delay if host_delay is None else delay_param(host_delay, "host_delay")
    links = [_link(f"spine{s}", f"leaf{j}", rate, delay, queue) for s in range(spines) for j in range(leaves)]
    hosts = []
    for j in range(leaves):
        for m in range(hosts_per_leaf):
            links.append(_link(f"leaf{j}", f"h{j}_{m}", hrate, hdelay, queue))
            hosts.append(f"h{j}_{m}")
    return Network(links, hosts, routing=_routing(ecmp), name=f"leaf_spine({leaves}x{spines})")


def ring(
    n: int,
    *,
    rate: str | float = "1Gbps",
    delay: str | float = "1ms",
    queue: object = DEFAULT_QUEUE,
    hosts_per_node: int = 0,
    host_rate: str | float | None = None,
    host_delay: str | float | None = None,
    ecmp: bool = False,
) -> Network:
    """``n`` routers ``n0 … n<n-1>`` in a ring (``n<i>``–``n<i+1 mod n>``). The routers are the
    hosts, or ``hosts_per_node`` hosts ``n<i>h<m>`` hang on each (access links of
    ``host_rate``/``host_delay``, default the ring's). ``ecmp`` spreads flows between
    opposite nodes of an even ring over both directions."""
    _positive_int(n, "n", least=3)
    rate, delay = rate_param(rate, "rate"), delay_param(delay, "delay")
    nodes = [f"n{i}" for i in range(n)]
    links = [_link(nodes[i], nodes[(i + 1) % n], rate, delay, queue) for i in range(n)]
    hrate = rate if host_rate is None else rate_param(host_rate, "host_rate")
    hdelay = delay if host_delay is None else delay_param(host_delay, "host_delay")
    hosts = _attach_hosts(links, nodes, hosts_per_node, hrate, hdelay, queue)
    return Network(links, hosts, routing=_routing(ecmp), name=f"ring({n})")


def grid(
    rows: int,
    cols: int,
    *,
    torus: bool = False,
    rate: str | float = "1Gbps",
    delay: str | float = "1ms",
    queue: object = DEFAULT_QUEUE,
    hosts_per_node: int = 0,
    host_rate: str | float | None = None,
    host_delay: str | float | None = None,
    ecmp: bool = False,
) -> Network:
    """A ``rows × cols`` mesh of routers ``n<r>_<c>``, each linked to its right and lower
    neighbours (and, with ``torus``, wrapping around). Hosts as for :func:`ring`. A grid has
    many shortest paths between distant nodes: ``ecmp`` spreads flows over them."""
    _positive_int(rows, "rows")
    _positive_int(cols, "cols")
    if rows * cols < 2:
        raise ValueError("a grid needs at least two nodes")
    rate, delay = rate_param(rate, "rate"), delay_param(delay, "delay")
    name = lambda r, c: f"n{r}_{c}"  # noqa: E731
    links = []
    for r in range(rows):
        for c in range(cols):
            # A wrap-around link only where it joins two distinct, not yet joined nodes.
            if c + 1 < cols or (torus and cols > 2):
                links.append(_link(name(r, c), name(r, (c + 1) % cols), rate, delay, queue))
            if r + 1 < rows or (torus and rows > 2):
                links.append(_link(name(r, c), name((r + 1) % rows, c), rate, delay, queue))
    nodes = [name(r, c) for r in range(rows) for c in range(cols)]
    hrate = rate if host_rate is None else rate_param(host_rate, "host_rate")
    hdelay = delay if host_delay is None else delay_param(host_delay, "host_delay")
    hosts = _attach_hosts(links, nodes, hosts_per_node, hrate, hdelay, queue)
    return Network(links, hosts, routing=_routing(ecmp), name=f"grid({rows}x{cols}{', torus' if torus else ''})")


def _from_graph(graph: Any, name: str, rate: str, delay_of: Any, queue: object, hosts_per_node: int,
                host_rate: str, host_delay: str, ecmp: bool) -> Network:
    """Links between routers ``n<i>`` for an undirected networkx graph on nodes 0 … n-1."""
    nodes = [f"n{i}" for i in sorted(graph.nodes)]
    links = [_link(f"n{u}", f"n{v}", rate, delay_of(u, v), queue) for u, v in sorted(tuple(sorted(e)) for e in graph.edges)]
    hosts = _attach_hosts(links, nodes, hosts_per_node, host_rate, host_delay, queue)
    return Network(links, hosts, routing=_routing(ecmp), name=name)


def waxman(
    n: int,
    *,
    beta: float = 0.4,
    alpha: float = 0.1,
    seed: int = 1,
    rate: str | float = "1Gbps",
    delay: str | float | None = None,
    unit_delay: str | float = "10ms",
    queue: object = DEFAULT_QUEUE,
    hosts_per_node: int = 0,
    host_rate: str | float | None = None,
    host_delay: str | float | None = None,
    ecmp: bool = False,
) -> Network:
    """A Waxman random graph (B. M. Waxman, IEEE JSAC 6(9), 1988) of ``n`` routers
    ``n0 … n<n-1>`` placed uniformly in the unit square, nodes at distance ``d`` joined with
    probability ``beta·exp(−d / (alpha·L))`` (``L`` the largest distance), drawn by
    ``networkx.waxman_graph`` with ``seed``. Each link's delay is its length times
    ``unit_delay`` (the square's side; default 10 ms), or ``delay`` for every link; host links
    (``hosts_per_node``) have ``host_delay``, default ``delay`` or 1 ms. A drawn
    graph that is not connected is joined: each smaller component, largest first, gets a link
    between its node and the main component's node that are closest. Same seed, same graph."""
    import networkx as nx

    _positive_int(n, "n", least=2)
    graph = nx.waxman_graph(n, beta=beta, alpha=alpha, seed=seed)
    pos = nx.get_node_attributes(graph, "pos")
    _join_components(graph, lambda u, v: math.dist(pos[u], pos[v]))
    if delay is not None:
        fixed = delay_param(delay, "delay")
        delay_of = lambda u, v: fixed  # noqa: E731
    else:
        from ccsim._units import duration_s

        unit = duration_s(delay_param(unit_delay, "unit_delay"))
        delay_of = lambda u, v: duration_text(math.dist(pos[u], pos[v]) * unit)  # noqa: E731
    rate = rate_param(rate, "rate")
    hrate = rate if host_rate is None else rate_param(host_rate, "host_rate")
    hdelay = delay_param(host_delay if host_delay is not None else (delay or "1ms"), "host_delay")
    return _from_graph(graph, f"waxman(n={n}, seed={seed})", rate, delay_of, queue, hosts_per_node, hrate, hdelay, ecmp)


def _join_components(graph: Any, distance: Any) -> None:
    """Join a graph's components to the largest one, closest pairs first (deterministic)."""
    import networkx as nx

    comps = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: (-len(c), c[0]))
    main = list(comps[0])
    for comp in comps[1:]:
        u, v = min(((u, v) for u in comp for v in main), key=lambda e: (distance(*e), e))
        graph.add_edge(u, v)
        main.extend(comp)


def barabasi_albert(
    n: int,
    m: int = 2,
    *,
    seed: int = 1,
    rate: str | float = "1Gbps",
    delay: str | float = "1ms",
    queue: object = DEFAULT_QUEUE,
    hosts_per_node: int = 0,
    host_rate: str | float | None = None,
    host_delay: str | float | None = None,
    ecmp: bool = False,
) -> Network:
    """A Barabási–Albert preferential-attachment graph (Science 286, 1999) of ``n`` routers
    ``n0 … n<n-1>``: each new node links to ``m`` existing ones chosen with probability
    proportional to their degree (``networkx.barabasi_albert_graph`` with ``seed``; connected,
    with the heavy-tailed degrees of Internet AS graphs). Every link has ``rate``/``delay``."""
    import networkx as nx

    _positive_int(n, "n", least=2)
    _positive_int(m, "m")
    if m >= n:
        raise ValueError(f"m must be smaller than n, not m={m}, n={n}")
    graph = nx.barabasi_albert_graph(n, m, seed=seed)
    rate, fixed = rate_param(rate, "rate"), delay_param(delay, "delay")
    hrate = rate if host_rate is None else rate_param(host_rate, "host_rate")
    hdelay = fixed if host_delay is None else delay_param(host_delay, "host_delay")
    return _from_graph(graph, f"barabasi_albert(n={n}, m={m}, seed={seed})", rate, lambda u, v: fixed, queue,
                       hosts_per_node, hrate, hdelay, ecmp)
