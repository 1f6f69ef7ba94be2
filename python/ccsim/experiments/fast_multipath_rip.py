"""FAST TCP with a multipath variant of RIP (Mallada & Paganini, NET-COOP 2007), and the check
against the WELFARE optimum.

Paper run (Fig. 1): nodes 1–4, links (1,2) and (1,3) 100 Mb/s 50 ms, (2,4) 37.5 Mb/s 25 ms,
(3,4) 25 Mb/s 25 ms, both directions; FAST sources at nodes 1 and 2 to node 4 with K = 250,
1040-byte packets (1000 payload + 40 header), a⁻¹ = 4·cwnd, b⁻¹ = 3000; routers with β = 0.5,
Δr = Δa = 0.5 s. As in the paper, the routers learn their routes by the protocol from an
empty start, their timers jittered as ns-2's distance vector jitters them (the paper's variant
was built on it); the sources start with the simulation, so their first packets find no route
and wait for the initial retransmission timeout (ns-2.29's rtxcur_init_, 6 s). The FAST
sources are the CUBIN ns-2 module's: a multiplicative-increase phase, a timed window update
with paced increases, every RTT rather than every other (v1.1). The scenario is ``scenarios/fast_multipath_rip.toml``;
every value the paper does not state is declared below with its source and swept in full
mode, among them the paper's narrative tables (nodes 1, 2, 3 first learn the top route, node 3
via node 1) as the alternative to learned routes.

Fig. 2 draws the split ratios and prices at nodes 1 and 3, Fig. 3 the bottleneck queueing
delays and the source rates; the claims are the equilibrium the paper states (after 60 s:
split 0.2/0.8 at node 1, node 2 all on (2,4), equal queueing delays, 3750 packets/s each) and
its timeline (7 s, 30 s, 45 s, 60 s), both as absolute times, which depend on when data
starts, and as intervals from the saturation of (2,4), which do not.

Optimum check: ``ccsim.theory`` solves WELFARE (max Σ K log x, capacities, multipath flow
balance, ACK load included) for the paper's topology and three larger ones — a 6-node ring,
a 3×3 grid and an 8-node random graph, each with 3–4 FAST sources that learn their routes
from the protocol (no initial tables) — and the claims compare the simulated equilibrium
(mean over the last third of the run) with it.

Quick mode is the same runs (they take a few seconds); full mode adds seeds 2–5 of the paper
run and the one-at-a-time sweeps of the declared values (paper run and larger topologies).
"""

from __future__ import annotations

import copy
import tomllib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ccsim import examples
from ccsim.experiments import Claim, Experiment, Figure, Unstated, load_table
from ccsim.experiments._plot import plt as _plt
from ccsim.experiments._plot import save as _save
from ccsim.sweep import Plan

if TYPE_CHECKING:
    import pandas as pd

SCENARIO = "fast_multipath_rip"  #: shipped scenario (``ccsim.examples``)
REF = "Mallada & Paganini 2007, §4, Figs. 2–3"
REF_OPT = "Mallada & Paganini 2007, §2.5 (WELFARE)"
PAPER_DURATION_S = 100.0  #: not given in the paper; its figures reach equilibrium by 60 s
EQ_WINDOW = (70.0, 100.0)  #: equilibrium averages (paper: "after about 60 seconds")
LARGE_DURATION_S = 150.0
LARGE_WINDOW = (100.0, 150.0)
FAST_CC = {"kind": "fast", "alpha": 250, "gamma": 0.5, "avg_window_factor": 4, "base_filter": 3000}
MSS, HEADER = 1000, 40

NS2 = "ns-2 tcl/lib/ns-default.tcl"  #: line numbers are ns-2.35's (docs/sources/ns2.md)
FAST_SRC = "CUBIN FAST module tcp-fast.cc v1.1.3 (hbatmit/ns2.35 @ 9e185b0)"
RTPROTO = "ns-2 tcl/rtglib/route-proto.tcl"

#: The paper's §4 narrative as initial tables (the "seeded" alternative to learned routes):
#: nodes 1, 2 and 3 first learn the top route, node 3 via node 1.
SEEDED_TABLES = [
    {"node": "1", "dest": "4", "split": {"2": 1.0, "3": 0.0}},
    {"node": "2", "dest": "4", "split": {"4": 1.0, "1": 0.0}},
    {"node": "3", "dest": "4", "split": {"1": 1.0, "4": 0.0}},
]
#: Router timers: (first update within, period jitter) per declared setting.
DV_TIMERS = {"ns2": ("500ms", 0.1), "rfc2453": ("500ms", 1 / 6), "synchronised": ("0s", 0.0)}

#: Values the paper does not state (docs/reproduce.md, principle 2). The FAST module's only
#: download targets ns-2.29 (docs/sources/ns2.md §8), whose TCP defaults apply.
UNSTATED = [
    Unstated("routes", "learned", "paper §3.2: routers learn routes from their connected destinations and their "
             "neighbours' announcements; 'seeded': the §4 narrative as initial tables (node 3 via node 1)",
             ["learned", "seeded"], "how routers get their first routes"),
    Unstated("dv_timers", "ns2", f"{RTPROTO} (Agent/rtProto/DV init: first update at U(0, 0.5 s); "
             "send-periodic-update: advertInterval × U(0.9, 1.1) each time), the RIP the paper's variant was built "
             "on; 'rfc2453': ± 1/6 of the period each time (RFC 2453 §3.8); applied to Δr and Δa",
             ["ns2", "rfc2453", "synchronised"], "router timer jitter"),
    Unstated("rtxcur_init", 6.0, f"{NS2}:961 rtxcur_init_: 6 s in ns-2.29 (3 s from 2.30, CHANGES.html:357)",
             [6.0, 3.0], "TCP: RTO before the first sample (decides when data starts)", "s"),
    Unstated("start", 0.0, "our choice: the sources start with the simulation (the paper gives no start time)",
             [0.0, 1.0], "when the sources open (paper run)", "s"),
    Unstated("fast_update", "100ms", f"{FAST_SRC} fast_cc and fast_pace: the law runs on the first ACK an interval "
             "after the last change, increases paced over the interval; the interval's default "
             "(fast_update_cwnd_interval_) is in no stored copy (docs/sources/README.md, open point 6): our choice "
             "100 ms, the order of the paper's RTTs (50-150 ms)", ["100ms", "50ms", "200ms", "round"],
             "FAST: window update period ('round': ccsim's once-per-round law, min{2w, …}, no pacing)"),
    Unstated("fast_mi_threshold", 5.0, f"our choice: {FAST_SRC} fast_cc has the MI phase (FAST_CC_MIQ before "
             "v1.1.2, mi_threshold_ after), whose default is in no stored copy", [5.0, 1.0, 20.0, 0.0],
             "FAST: queueing delay below which the window grows one packet per ACK (0: no MI phase)", "ms"),
    Unstated("fast_every_other_rtt", False, f"{FAST_SRC} revision history: v1.1.2 added updating every other RTT "
             "(default every RTT), v1.1.3 (14 Jan 2007) made it the default; the paper cites v1.1",
             [False, True], "FAST: update only every other RTT"),
    Unstated("buffer", 4000, f"our choice: lossless (start-up peaks near 500 packets at (2,4)); ns-2's Queue limit_ "
             f"is 50 ({NS2}:86), below the ≈ 500 packets the two sources keep queued at equilibrium (K = 250 each)",
             [4000, 1000, 500, 50], "buffer of every link", "packets"),
]
DEFAULTS = {u.name: u.value for u in UNSTATED}


def _v(values: dict[str, Any] | None) -> dict[str, Any]:
    return {**DEFAULTS, **(values or {})}


def fast_cc(values: dict[str, Any] | None = None, alpha: float = 250) -> dict[str, Any]:
    """The FAST controller of every source under the declared values."""
    v = _v(values)
    cc: dict[str, Any] = {**FAST_CC, "alpha": alpha, "every_other_rtt": bool(v["fast_every_other_rtt"])}
    if v["fast_mi_threshold"]:
        cc["mi_threshold"] = f"{v['fast_mi_threshold']:g}ms"
    if v["fast_update"] != "round":
        cc["update_interval"] = v["fast_update"]
        cc["pace_increases"] = True
    return cc


def tcp_ns2(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """The TCP agent under every FAST source: ns-2.29's (docs/sources/ns2.md §1-§2)."""
    v = _v(values)
    return {
        "handshake": True,  # syn_ true (ns-default.tcl:922); tcp-fast.cc output() sends the SYN
        "init_cwnd": 2,  # tcp-fast.cc recv(): cwnd_ = initial_window() = windowInit_ 2 at the first ACK
        "rto": {"estimator": "ns2", "granularity": "10ms",  # tcpTick_ 0.01 (ns-default.tcl:952)
                "samples": "one_per_rtt",  # timestamps_ false (ns-default.tcl:946)
                "min": "200ms",  # minrto_ 0.2 in 2.29 (ns-default.tcl:956)
                "max": "100000s",  # maxrto_ 100000 before 2.32 (ns-default.tcl:954)
                "initial": f"{v['rtxcur_init']:g}s"},
    }


def paper_doc(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """The paper's scenario under the declared values (all links traced, so the optimum check
    sees every queue)."""
    v = _v(values)
    doc = tomllib.loads(examples.read_text(SCENARIO))
    doc["trace"]["links"] = "all"
    routing = doc["routing"]
    first, jitter = DV_TIMERS[v["dv_timers"]]
    routing["first_update"], routing["period_jitter"] = first, jitter
    if v["routes"] == "seeded":
        routing["initial"] = copy.deepcopy(SEEDED_TABLES)
    else:
        routing.pop("initial", None)
    for link in doc["link"]:
        link["queue"]["limit"] = f"{int(v['buffer'])}p"
    for f in doc["flow"]:
        f.update(tcp_ns2(v))
        f["cc"] = fast_cc(v, f["cc"]["alpha"])
        f["app"]["start"] = f"{v['start']:g}s"
    return doc


def _flow(name: str, a: str, b: str, k: float, values: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "from": a, "to": b, "transport": "tcp", "mss": MSS, "header": HEADER,
            "recovery": "reno", "dupthresh": 1000000, "delayed_ack": False, **tcp_ns2(values),
            "cc": fast_cc(values, k), "app": {"kind": "bulk", "start": "1s"}}


def _link(a: str, b: str, mbps: float, ms: float) -> dict[str, Any]:
    return {"between": [a, b], "rate": f"{mbps:g}Mbps", "delay": f"{ms:g}ms",
            "queue": {"kind": "droptail", "limit": "4000p"}}


def _doc(links: list[dict[str, Any]], flows: list[dict[str, Any]], values: dict[str, Any] | None) -> dict[str, Any]:
    first, jitter = DV_TIMERS[_v(values)["dv_timers"]]
    return {"simulation": {"duration": f"{LARGE_DURATION_S:g}s", "seed": 1},
            "trace": {"interval": "100ms", "links": "all"},
            "link": links, "flow": flows,
            # RIP's full poison reverse: the paper's (α = 1 only) lets small loops form on
            # stale prices in meshes (docs/routing.md).
            "routing": {"kind": "distance-vector", "beta": 0.5, "announce_interval": "500ms",
                        "adapt_interval": "500ms", "poison_reverse": "any-traffic",
                        "first_update": first, "period_jitter": jitter}}


def topology(kind: str, values: dict[str, Any] | None = None) -> dict[str, Any]:
    """A larger test network: ``"ring"`` (6 nodes), ``"grid"`` (3×3) or ``"random"`` (8
    nodes, seeded), each with FAST sources of different K. Sources start at 1 s, once the
    protocol has learned routes (about diameter × delay)."""
    if kind == "ring":
        caps = [20, 30, 25, 40, 15, 35]
        links = [_link(f"r{i}", f"r{(i + 1) % 6}", c, 10) for i, c in enumerate(caps)]
        flows = [_flow("a", "r0", "r3", 100, values), _flow("b", "r1", "r4", 150, values),
                 _flow("c", "r2", "r5", 200, values)]
        return _doc(links, flows, values)
    if kind == "grid":
        rng = np.random.default_rng(3)
        links = []
        for r in range(3):
            for c in range(3):
                if c < 2:
                    links.append(_link(f"g{r}{c}", f"g{r}{c + 1}", float(rng.integers(10, 41)), 5))
                if r < 2:
                    links.append(_link(f"g{r}{c}", f"g{r + 1}{c}", float(rng.integers(10, 41)), 5))
        flows = [_flow("a", "g00", "g22", 100, values), _flow("b", "g20", "g02", 150, values),
                 _flow("c", "g01", "g21", 200, values)]
        return _doc(links, flows, values)
    if kind == "random":
        rng = np.random.default_rng(7)
        n = 8
        edges = {(int(rng.integers(0, i)), i) for i in range(1, n)}  # a random spanning tree
        while len(edges) < 12:
            a, b = sorted(int(v) for v in rng.choice(n, 2, replace=False))
            edges.add((a, b))
        links = [_link(f"n{a}", f"n{b}", float(rng.integers(10, 41)), float(rng.integers(5, 21)))
                 for a, b in sorted(edges)]
        flows = [_flow("a", "n0", "n7", 100, values), _flow("b", "n3", "n5", 150, values),
                 _flow("c", "n6", "n1", 200, values), _flow("d", "n2", "n4", 120, values)]
        return _doc(links, flows, values)
    raise ValueError(f"unknown topology {kind!r}; known: ring, grid, random")


LARGE = ("ring", "grid", "random")
SERIES = ("flows", "links", "routes")


def _plans(values: dict[str, Any] | None, paper_seeds: int, large: bool = True) -> list[Plan]:
    plans = [Plan(base=paper_doc(values), seeds=paper_seeds, series=SERIES,
                  labels={"topology": "paper", "variant": "paper"}, name="paper")]
    if large:
        for kind in LARGE:
            plans.append(Plan(base=topology(kind, values), series=SERIES,
                              labels={"topology": kind, "variant": "paper"}, name=kind))
    return plans


def quick(values: dict[str, Any]) -> list[Plan]:
    return _plans(values, 1)


def full(values: dict[str, Any]) -> list[Plan]:
    return _plans(values, 5)


def sensitivity(values: dict[str, Any]) -> list[Plan]:
    """One seed of every run: the claims read replicate 0."""
    return _plans(values, 1)


# ---------------------------------------------------------------------------- data access

def _select(df: pd.DataFrame, table: str, topology_: str, variant: str = "paper") -> pd.DataFrame:
    """One time-series table of the first point (replicate 0) of a topology/variant."""
    pts = df[(df["topology"] == topology_) & (df["variant"] == variant)]
    if pts.empty:
        raise ValueError(f"no {topology_}/{variant} point in this sweep")
    pid = pts.sort_values("replicate")["point_id"].iloc[0]
    t = load_table(df, table)
    return t[t["point_id"] == pid]


@cache
def _optimum(kind: str) -> Any:
    from ccsim import theory

    doc = paper_doc() if kind == "paper" else topology(kind)
    return theory.solve_welfare(theory.network_from_scenario(doc))


#: Derived values of the frame last handed to the figures and claims: sixteen claims and a
#: figure read the same equilibria and milestones of one run (key: what, the frame's store,
#: plan and length, the arguments); cleared when another frame comes.
_CACHE: dict[tuple[Any, ...], Any] = {}


def _cached(df: pd.DataFrame, what: str, args: tuple[Any, ...], make: Any) -> Any:
    frame = (str(df.attrs.get("store")), str(df.attrs.get("plan")), len(df))
    if df.attrs.get("store") is None:  # not from a store: nothing identifies the frame
        return make()
    if any(k[1:4] != frame for k in _CACHE):
        _CACHE.clear()
    key = (what, *frame, *args)
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def _equilibrium(df: pd.DataFrame, kind: str, variant: str = "paper") -> dict[str, Any]:
    """The simulated equilibrium of one run (:func:`ccsim.theory.simulated_equilibrium`),
    once per frame (read-only: callers must not change it)."""
    return _cached(df, "equilibrium", (kind, variant), lambda: _equilibrium_of(df, kind, variant))


def _equilibrium_of(df: pd.DataFrame, kind: str, variant: str) -> dict[str, Any]:
    from ccsim import theory

    doc = paper_doc() if kind == "paper" else topology(kind)
    window = EQ_WINDOW if kind == "paper" else LARGE_WINDOW
    return theory.simulated_equilibrium(doc, _select(df, "flow_series", kind, variant),
                                        _select(df, "link_series", kind, variant),
                                        _select(df, "route_series", kind, variant), window)


def comparison(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Simulated equilibrium against the WELFARE optimum for one topology."""
    from ccsim import theory

    doc = paper_doc() if kind == "paper" else topology(kind)
    return theory.compare_equilibrium(doc, _equilibrium(df, kind), _optimum(kind))


def _split(rs: pd.DataFrame, node: str, hop: str, dest: str = "4") -> pd.DataFrame:
    r = rs[(rs["node"] == node) & (rs["next_hop"] == hop) & (rs["dest"] == dest)]
    return r.sort_values("time_s")


def milestones(df: pd.DataFrame, variant: str = "paper") -> dict[str, float]:
    """The paper's timeline on our run (seconds): (2,4) saturates (its queue first exceeds
    50 packets), node 3 has moved all its traffic to (3,4), the bottom link fills ((3,4)
    queue first above 50 packets), and the split at node 1 settles (from then on within
    ±0.05 of its equilibrium mean)."""
    return dict(_cached(df, "milestones", (variant,), lambda: _milestones(df, variant)))


def _milestones(df: pd.DataFrame, variant: str) -> dict[str, float]:
    ls = _select(df, "link_series", "paper", variant)
    rs = _select(df, "route_series", "paper", variant)

    def first(frame: pd.DataFrame, cond: Any) -> float:
        hit = frame[cond]
        return float(hit["time_s"].iloc[0]) if len(hit) else float("nan")

    q24 = ls[ls["link"] == "2->4"].sort_values("time_s")
    q34 = ls[ls["link"] == "3->4"].sort_values("time_s")
    a31 = _split(rs, "3", "1")
    a12 = _split(rs, "1", "2")
    eq = a12[(a12.time_s > EQ_WINDOW[0]) & (a12.time_s <= EQ_WINDOW[1])]["alpha"].mean()
    off = a12[(a12["alpha"] - eq).abs() > 0.05]
    settle = float(off["time_s"].iloc[-1]) if len(off) else 0.0
    return {
        "saturated_24": first(q24, q24["queue_packets"] > 50),
        "node3_moved": first(a31, a31["alpha"] <= 0.0),
        "bottom_filled": first(q34, q34["queue_packets"] > 50),
        "settled": settle,
    }


# ---------------------------------------------------------------------------- figures

def fig2(df: pd.DataFrame, out: Path) -> Path:
    plt = _plt()

    rs = _select(df, "route_series", "paper")
    fig, axes = plt.subplots(2, 2, figsize=(11, 6.5), sharex=True)
    for col, node, hops in ((0, "1", ("2", "3")), (1, "3", ("1", "4"))):
        for hop in hops:
            r = _split(rs, node, hop)
            axes[0, col].plot(r.time_s, r.alpha, label=f"α {node}→{hop}")
            axes[1, col].plot(r.time_s, r.metric_s * 1e3, label=f"π via {hop}")
        price = _split(rs, node, hops[0])
        axes[1, col].plot(price.time_s, price.price_s * 1e3, "k--", lw=0.8, label=f"q{node} (node price)")
        axes[0, col].set_title(f"node {node}, destination 4")
        axes[0, col].set_ylabel("split ratio")
        axes[1, col].set_ylabel("price (ms)")
        axes[1, col].set_xlabel("time (s)")
        axes[1, col].set_ylim(0, 250)
        for ax in axes[:, col]:
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
    fig.suptitle("Split ratios and prices for destination 4 (paper Fig. 2)")
    return _save(fig, out, "fig2_splits_prices.png")


def fig3(df: pd.DataFrame, out: Path) -> Path:
    plt = _plt()

    ls = _select(df, "link_series", "paper")
    fs = _select(df, "flow_series", "paper")
    caps = {"2->4": 37.5e6, "3->4": 25e6}
    fig, (a, b) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    for link, cap in caps.items():
        q = ls[ls["link"] == link].sort_values("time_s")
        a.plot(q.time_s, q.queue_bytes * 8 / cap * 1e3, label=f"({link.replace('->', ',')})")
    a.set_ylabel("queueing delay (ms)")
    a.legend()
    a.grid(alpha=0.3)
    for name, g in fs.groupby("flow", observed=True):
        g = g.sort_values("time_s")
        pps = g.rate_bps / (8 * MSS)
        b.plot(g.time_s, pps.rolling(10, min_periods=1).mean(), label=f"{name} (1 s mean)")
    b.axhline(3756, color="k", ls=":", lw=0.8, label="optimum 3756 pkt/s")
    b.set_ylabel("rate (packets/s)")
    b.set_xlabel("time (s)")
    b.legend(fontsize=8)
    b.grid(alpha=0.3)
    fig.suptitle("Bottleneck queueing delays and source rates (paper Fig. 3)")
    return _save(fig, out, "fig3_delays_rates.png")


def fig_optimum(df: pd.DataFrame, out: Path) -> Path:
    plt = _plt()

    kinds = ("paper",) + LARGE
    fig, axes = plt.subplots(1, len(kinds), figsize=(13, 3.6))
    for ax, kind in zip(axes, kinds):
        sim = _equilibrium(df, kind)["rates_pps"]
        opt = _optimum(kind).rates_pps
        names = list(opt)
        xs = np.arange(len(names))
        ax.bar(xs - 0.2, [sim.get(n, 0) for n in names], 0.4, label="simulated")
        ax.bar(xs + 0.2, [opt[n] for n in names], 0.4, label="WELFARE optimum")
        ax.set_xticks(xs, names)
        ax.set_title(kind)
        ax.set_ylabel("packets/s")
    axes[0].legend(fontsize=8)
    fig.suptitle("Equilibrium rates: simulation against the optimum")
    return _save(fig, out, "fig_optimum.png")


# ---------------------------------------------------------------------------- claims

def _split_claim() -> Claim:
    def compute(df: pd.DataFrame) -> float:
        return _equilibrium(df, "paper")["splits"][("1", "4")]["2"]

    return Claim(REF, "equilibrium split at node 1 on the top path (1,2), mean over 70–100 s", 0.20, compute,
                 tolerance=0.03)


def _node2_claim() -> Claim:
    def compute(df: pd.DataFrame) -> float:
        return _equilibrium(df, "paper")["splits"][("2", "4")]["4"]

    return Claim(REF, "equilibrium split at node 2 on (2,4)", 1.0, compute, tolerance=0.01)


def _rate_claim(flow: str) -> Claim:
    def compute(df: pd.DataFrame) -> float:
        return _equilibrium(df, "paper")["rates_pps"][flow]

    return Claim(REF, f"equilibrium rate of {flow}, mean over 70–100 s (paper: 3750; exact (c1+c2)/2 = 3756)",
                 3756.0, compute, unit="pkt/s", tolerance=0.05 * 3756)


def _delay_claim() -> Claim:
    def compute(df: pd.DataFrame) -> float:
        d = _equilibrium(df, "paper")["queue_delay_s"]
        return (d["2->4"] - d["3->4"]) * 1e3

    return Claim(REF, "difference of the mean queueing delays at (2,4) and (3,4) (equal in the paper)", 0.0,
                 compute, unit="ms", tolerance=10.0)


def _milestone_claim(key: str, text: str, paper: float, tol: float) -> Claim:
    return Claim(REF, text, paper, lambda df: milestones(df)[key], unit="s", tolerance=tol)


def _interval_claim(key: str, text: str, paper: float, tol: float) -> Claim:
    """The time from the saturation of (2,4) to a later event: independent of when data
    starts (the initial RTO)."""
    def compute(df: pd.DataFrame) -> float:
        m = milestones(df)
        return m[key] - m["saturated_24"]

    return Claim(REF, f"{text}, after (2,4) saturates (paper: {paper + 7:g} s − 7 s)", paper, compute, unit="s",
                 tolerance=tol)


def _optimum_claim(kind: str) -> Claim:
    def compute(df: pd.DataFrame) -> float:
        c = comparison(df, kind)
        rates = c[c["quantity"].str.startswith("rate ")]
        return float(rates["gap"].abs().max() * 100)

    return Claim(REF_OPT, f"{kind}: largest relative gap between a simulated source rate and the optimum",
                 0.0, compute, unit="%", tolerance=10.0, kind="at_most")


def _saturation_claim(kind: str) -> Claim:
    def compute(df: pd.DataFrame) -> float:
        opt = _optimum(kind).saturated
        sim = _equilibrium(df, kind)["saturated"]
        return float(opt <= sim)

    return Claim(REF_OPT, f"{kind}: every link saturated in the optimum keeps a standing queue (mean > 1 ms) in "
                 "the simulation (1 = yes)", 1.0, compute)


EXPERIMENT = Experiment(
    name="fast-multipath-rip",
    title="Optimal congestion control with multipath routing using TCP-FAST and a variant of RIP",
    paper="E. Mallada and F. Paganini, NET-COOP 2007, LNCS 4465, pp. 205–214",
    description=__doc__.split("\n\n")[1] if __doc__ else "",
    quick=quick,
    full=full,
    sensitivity=sensitivity,
    unstated=UNSTATED,
    figures=[
        Figure("fig2", "Split ratios and prices at nodes 1 and 3", "Fig. 2", fig2,
               "Top: split ratios for destination 4; bottom: route metrics π = p + q of each next hop and "
               "the node price q (dashed), in ms."),
        Figure("fig3", "Bottleneck queueing delays and source rates", "Fig. 3", fig3,
               "Queueing delay = backlog × 8 / capacity; rates are goodput in packets/s (1 s moving mean)."),
        Figure("optimum", "Simulated equilibrium rates against the WELFARE optimum", "§2.5", fig_optimum,
               "Mean over the last third of each run; optimum by ccsim.theory (scipy SLSQP)."),
    ],
    claims=[
        _split_claim(),
        _node2_claim(),
        _rate_claim("source1"),
        _rate_claim("source2"),
        _delay_claim(),
        _milestone_claim("saturated_24", "link (2,4) saturates (queue first above 50 packets)", 7.0, 3.0),
        _milestone_claim("node3_moved", "node 3 has moved all its traffic to (3,4)", 30.0, 10.0),
        _milestone_claim("bottom_filled", "the bottom link (3,4) fills (queue first above 50 packets)", 45.0, 10.0),
        _milestone_claim("settled", "node 1's split settles (within ±0.05 of its equilibrium from then on)", 60.0, 15.0),
        _interval_claim("node3_moved", "node 3 has moved all its traffic to (3,4)", 23.0, 10.0),
        _interval_claim("bottom_filled", "the bottom link (3,4) fills", 38.0, 10.0),
        _interval_claim("settled", "node 1's split settles", 53.0, 15.0),
    ] + [c for kind in ("paper",) + LARGE for c in (_optimum_claim(kind), _saturation_claim(kind))],
    notes=(
        "Units: prices are queueing delays in seconds (ALGORITHMS.md §3.0.2 unit check).",
        "Fixed, not swept: announcements of 52 bytes (RFC 2453 entry), the paper's poison reverse (α = 1 only) on "
        "the paper topology and RIP's full one on the larger ones, sources at 1 s on the larger topologies, run "
        "length 100 s (paper) and 150 s (larger).",
        "Quick = the runs of seed 1 (a few seconds each); full adds seeds 2-5 of the paper run (the claims read "
        "seed 1) and the sensitivity reruns of every declared value (seed 1 of every topology).",
    ),
)
