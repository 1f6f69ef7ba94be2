"""MATCP (Dimopoulos, Zeephongsekul & Tari, ISCC 2006): TCP sources that pick one of P
labelled paths per flow, against a single-path network where each edge has one bottleneck.

Topology (the paper's Fig. 1b): m = 4 edge routers; edge e has n_e sources, n_e drawn once
per run uniformly from the integers N − V … N + V; each source is a host with its own
100 Mb/s access link. Every edge reaches each of the P = 4 bottleneck routers h1…h4 over a
1 Gb/s, 1 ms internal link ("the internal network is assumed to have more than adequate
bandwidth"); bottleneck p is h_p → t_p, 40 Mb/s with propagation delay T = 65 ms (one way)
and RED (limit 100, min_th 25, max_th 50, max_p 0.1); its reverse direction, which carries the
ACKs, is 40 Mb/s, 65 ms, DropTail 100. Every t_p reaches the sink k over 1 Gb/s, 1 ms. Path p
of a source is [source, edge, h_p, t_p, k] (its label p); ACKs return on it.

Sources: TCP-Sack1 with window W = 16 segments of 1460 bytes (+40 header bytes). Each source
alternates ON periods (mean B = 8 s, a new greedy connection) and OFF periods (mean I = 6 s),
exponential, starting at a uniform time in [0, I]. Single path: edge e's sources use
bottleneck e. MATCP: each connection's path is chosen by the source's selector
(docs/matcp.md): Drop, RTT variation (queueing delay), RTT (each with refresh constant R) or
Weighted RTT. Runs last 500 s. Every value the paper does not state is declared below
(`UNSTATED`) with its ns-2.35 source line or as our choice, and full mode sweeps each one: in
particular ns-2.35's RED measures its queue in bytes of 500-byte "mean packets" (so the
paper's thresholds 25/50 and limit 100 hold about 8, 17 and 33 packets of 1500 B), TCP starts
with 2 segments, its RTO has a 10 ms tick and a 200 ms minimum, and the Sack1 sink ACKs every
segment.

Measures (the paper's): goodput of each path and of each source over the whole run,
normalised by the bottleneck capacity (40 Mb/s). Per-path goodput is the payload delivered
over that path; per-source goodput is a source's payload delivered / 500 s; fairness is
the standard deviation of per-source goodput (mean ± 1 s.d. in the figures).

Figures: Fig. 2 against N (V = 40); Fig. 3 against V (N = 80); Fig. 4 against the mean idle
time I (N = 80, V = 40); Fig. 5 with a different propagation delay per bottleneck, in the
paper's two inconsistent readings (see docs/matcp.md): (a) each delay drawn from
U[35, 95] ms (mean 65 ms, as the text says), (b) U[13, 52] ms (the figure's longest is 52 ms).
Fig. 5's "WRTT performs the best" is checked per load N, per reading and per metric (per-path
goodput spread, s.d. of source goodput). Every seed draws its own n_e (and delays); the
single-path network and every selector run on the same draws (common random numbers). Quick
mode is a small version for the tests (fewer sources, 100 s, one seed, fewer points): its
numbers are not the reproduction. The sensitivity reruns use one seed of 150 s at N = 20 and
120 (Fig. 2), V = 40 (Fig. 3) and N = 20 and 80 (Fig. 5, both readings).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim.experiments import Claim, Experiment, Figure, Spread, Unstated, load_table
from ccsim.experiments._plot import plt as _plt
from ccsim.experiments._plot import save as _save
from ccsim.scenario import Scenario
from ccsim.sweep import Plan

if TYPE_CHECKING:
    import pandas as pd

# ---------------------------------------------------------------------------- parameters

NS2 = "ns-2.35 tcl/lib/ns-default.tcl"  #: the paper's simulator's defaults (line numbers below)
P = 4  #: bottleneck links = labelled paths (Table 2)
EDGES = 4  #: m, not stated: m = P, one edge per bottleneck in the single-path network
CAPACITY_BPS = 40e6  #: C (Table 2)
BOTTLENECK_DELAY_MS = 65.0  #: T, one way (Table 2)
RED = {"kind": "red", "limit": "100p", "min_th": 25, "max_th": 50, "max_p": 0.1, "gentle": True}  #: Table 2
ACK_QUEUE = {"kind": "droptail", "limit": "100p"}
INTERNAL = {"rate": "1Gbps", "delay": "1ms"}  #: edge ↔ bottleneck router, and to the sink
WINDOW = 16  #: W (Table 2)
MSS, HEADER = 1460, 40  #: Table 2's 1460-byte packets, ns-2's 40-byte TCP/IP header (:937)
BURST_S, IDLE_S = 8.0, 6.0  #: B, I (Table 2)
N_DEFAULT, V_DEFAULT = 80, 40

#: Values the paper does not state (docs/reproduce.md, principle 2): ns-2.35's default where
#: the paper's simulator has one, else our choice; full mode sweeps each over its range.
UNSTATED = [
    Unstated("red_bytes", True, f"{NS2}:122-123 (Queue/RED bytes_ true, queue_in_bytes_ true) with :134 "
             "(mean_pktsize_ 500): thresholds and limit in bytes of 500-byte packets, byte-mode drops",
             [True, False], "RED measures in bytes (False: in packets)"),
    Unstated("red_w_q", "auto", f"{NS2}:137 (q_weight_ -1: automatic, 1 − exp(−1/(10·RTT·C)))", ["auto", 0.002],
             "RED averaging weight"),
    Unstated("init_cwnd", 2, f"{NS2}:920 (Agent/TCP windowInit_ 2)", [2, 3], "initial window", "segments"),
    Unstated("rto_min_ms", 200, f"{NS2}:956 (minrto_ 0.2); initial 3 s (:961 rtxcur_init_), max 60 s (:954)",
             [200, 1000], "minimum RTO", "ms"),
    Unstated("rto_tick_ms", 10, f"{NS2}:952 (tcpTick_ 0.01), as RFC 6298's clock granularity G", [10, 1],
             "RTO clock granularity", "ms"),
    Unstated("delayed_ack", False, f"the paper's 'TCP Sack' with ns-2's Agent/TCPSink/Sack1, which ACKs every "
             f"segment; its DelAck variant (:1071, interval_ 100ms) is a different agent", [False, True],
             "delayed ACKs at the sink"),
    Unstated("refresh", P, "our choice: R = P (ALGORITHMS.md §3.2.2 item 3: the paper says R grows with the "
             "number of paths)", [2, P, 8], "refresh constant R of the Drop, RTT-variation and RTT selectors"),
    Unstated("access_delay_ms", 1.0, "our choice: not stated; 100 Mb/s access links far from the bottleneck",
             [1.0, 10.0], "source ↔ edge one-way delay", "ms"),
]
DEFAULTS = {u.name: u.value for u in UNSTATED}
ACCESS_RATE = "100Mbps"  #: source ↔ edge (not stated, never a bottleneck)

#: Configurations in legend order: the single-path baseline and the four selectors.
SELECTORS = {"drop": "Drop", "rttvar": "RTT variation", "rtt": "RTT", "wrtt": "Weighted RTT"}
CONFIGS = ["single", *SELECTORS]
LABEL = {"single": "single path", **SELECTORS}
#: Fig. 5 delay readings (ms): name → (low, high) of the uniform draw per bottleneck.
DELAY_READINGS = {"a: U[35,95] ms": (35.0, 95.0), "b: U[13,52] ms": (13.0, 52.0)}
DELAY_READINGS_KEYS = list(DELAY_READINGS)
#: Fig. 5's columns: the selectors the paper compares there.
FIG5_SELECTORS = ("rttvar", "rtt", "wrtt")

FULL: dict[str, Any] = {
    # One run per point, as the paper's §4 ("All simulations are run for 500 seconds"; no
    # replicates); the single-path network and the selectors share each draw.
    "seeds": 1,
    "duration_s": 500.0,
    "fig2_n": [20, 40, 60, 80, 100, 120],
    "fig3_v": [0, 10, 20, 30, 40],
    "fig4_idle": [2.0, 4.0, 6.0, 8.0, 10.0],
    "fig5_n": [20, 40, 60, 80, 100, 120],
    "n": N_DEFAULT,
    "v": V_DEFAULT,
    "configs": CONFIGS,
}
QUICK: dict[str, Any] = {
    "seeds": 1,
    "duration_s": 100.0,
    "fig2_n": [10, 40],
    "fig3_v": [0, 25],
    "fig4_idle": [6.0],
    "fig5_n": [30],
    "n": 30,
    "v": 25,
    "configs": CONFIGS,
}
#: The plans each sensitivity rerun uses (one declared value moved).
SENSITIVITY: dict[str, Any] = {
    "seeds": 1,
    "duration_s": 150.0,  # keeps the ten reruns within full mode's budget (docs/reproduce.md)
    "fig2_n": [20, 120],
    "fig3_v": [40],
    "fig4_idle": [],
    "fig5_n": [20, 80],
    "n": N_DEFAULT,
    "v": V_DEFAULT,
    "configs": CONFIGS,
}


def tcp_params(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """The TCP keys of a source under the declared values."""
    v = {**DEFAULTS, **(values or {})}
    return {"transport": "tcp", "recovery": "sack1", "max_window": WINDOW, "mss": MSS, "header": HEADER,
            "init_cwnd": int(v["init_cwnd"]), "delayed_ack": bool(v["delayed_ack"]),
            "rto": {"min": f"{v['rto_min_ms']:g}ms", "initial": "3s", "max": "60s",
                    "granularity": f"{v['rto_tick_ms']:g}ms"}}


def red_queue(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """The bottleneck queue under the declared values."""
    v = {**DEFAULTS, **(values or {})}
    q: dict[str, Any] = {**RED, "w_q": v["red_w_q"], "mean_pktsize": "500B"}
    if v["red_bytes"]:
        q.update(queue_in_bytes=True, bytes=True)
    return q


# ---------------------------------------------------------------------------- scenarios


def draw_sources(n: int, v: int, seed: int) -> list[int]:
    """Sources per edge: integers uniform in [N − V, N + V], drawn once per run (the same for
    every configuration of that seed)."""
    rng = random.Random(f"matcp-sources-{n}-{v}-{seed}")
    return [rng.randint(max(n - v, 0), n + v) for _ in range(EDGES)]


def draw_delays(reading: str | None, seed: int) -> list[float]:
    """One-way delay of each bottleneck (ms): T for all, or a uniform draw per the reading."""
    if reading is None:
        return [BOTTLENECK_DELAY_MS] * P
    lo, hi = DELAY_READINGS[reading]
    rng = random.Random(f"matcp-delays-{reading}-{seed}")
    return [round(rng.uniform(lo, hi), 3) for _ in range(P)]


def scenario(config: str, sources: list[int], delays_ms: list[float], idle_s: float = IDLE_S,
             duration_s: float = 500.0, seed: int = 1, values: dict[str, Any] | None = None) -> Scenario:
    """One run: the Fig. 1b network with ``sources[e]`` sources at edge e, under the declared
    ``values`` (defaults for any not given)."""
    if config not in CONFIGS:
        raise ValueError(f"config must be one of {CONFIGS}, not {config!r}")
    v = {**DEFAULTS, **(values or {})}
    tcp = tcp_params(v)
    access = {"rate": ACCESS_RATE, "delay": f"{v['access_delay_ms']:g}ms"}
    links: list[dict[str, Any]] = []
    for p in range(1, P + 1):
        links.append({"name": f"b{p}", "from": f"h{p}", "to": f"t{p}", "rate": "40Mbps",
                      "delay": f"{delays_ms[p - 1]:g}ms", "queue": red_queue(v)})
        links.append({"name": f"b{p}r", "from": f"t{p}", "to": f"h{p}", "rate": "40Mbps",
                      "delay": f"{delays_ms[p - 1]:g}ms", "queue": dict(ACK_QUEUE)})
        links.append({"between": [f"t{p}", "k"], **INTERNAL, "queue": {"kind": "droptail", "limit": "1000p"}})
        for e in range(1, EDGES + 1):
            links.append({"between": [f"e{e}", f"h{p}"], **INTERNAL, "queue": {"kind": "droptail", "limit": "1000p"}})
    flows: list[dict[str, Any]] = []
    for e in range(1, EDGES + 1):
        for i in range(sources[e - 1]):
            host = f"s{e}_{i}"
            links.append({"between": [host, f"e{e}"], **access, "queue": {"kind": "droptail", "limit": "100p"}})
            flow: dict[str, Any] = {
                "name": host, "from": host, "to": "k", **tcp,
                "app": {"kind": "onoff", "on": f"{BURST_S:g}s", "off": f"{idle_s:g}s", "start": ["0s", f"{idle_s:g}s"]},
            }
            if config == "single":
                # Edge e is statically assigned bottleneck e (with m = P, one edge per link).
                flow["paths"] = [[host, f"e{e}", f"h{(e - 1) % P + 1}", f"t{(e - 1) % P + 1}", "k"]]
            else:
                flow["paths"] = [[host, f"e{e}", f"h{p}", f"t{p}", "k"] for p in range(1, P + 1)]
                flow["select"] = {"kind": config, "refresh": int(v["refresh"])}
            flows.append(flow)
    doc = {
        "simulation": {"duration": f"{duration_s:g}s", "seed": seed},
        "trace": {"interval": "0s"},
        "link": links,
        "flow": flows,
    }
    return Scenario(doc, source=f"matcp: {config}, sources {sources}, delays {delays_ms} ms, idle {idle_s:g} s")


def _plans(part: str, x_name: str, x: float, n: int, v: int, idle: float, reading: str | None,
           cfg: dict[str, Any], values: dict[str, Any] | None) -> list[Plan]:
    out = []
    for seed in range(1, cfg["seeds"] + 1):
        sources = draw_sources(n, v, seed)
        delays = draw_delays(reading, seed)
        for config in cfg["configs"]:
            labels = {"part": part, "x_name": x_name, "x": float(x), "config": config, "N": n, "V": v,
                      "idle_s": idle, "reading": reading or "", "run_seed": seed,
                      "sources": sum(sources), "sources_per_edge": str(sources),
                      "delays_ms": str(delays), "duration_s": cfg["duration_s"]}
            sc = scenario(config, sources, delays, idle, cfg["duration_s"], seed, values)
            out.append(Plan(base=sc, seeds=1, labels=labels,
                            name=f"{part} {x_name}={x:g} {config} seed {seed}"))
    return out


def plans(cfg: dict[str, Any], values: dict[str, Any] | None = None) -> list[Plan]:
    out: list[Plan] = []
    n0, v0 = cfg["n"], cfg["v"]
    for n in cfg["fig2_n"]:
        out += _plans("fig2", "N", n, n, min(v0, n), IDLE_S, None, cfg, values)
    for v in cfg["fig3_v"]:
        out += _plans("fig3", "V", v, n0, v, IDLE_S, None, cfg, values)
    for idle in cfg["fig4_idle"]:
        out += _plans("fig4", "idle_s", idle, n0, v0, idle, None, cfg, values)
    for reading in DELAY_READINGS:
        for n in cfg["fig5_n"]:
            out += _plans("fig5", "N", n, n, min(v0, n), IDLE_S, reading, cfg, values)
    return out


def quick(values: dict[str, Any]) -> list[Plan]:
    return plans(QUICK, values)


def full(values: dict[str, Any]) -> list[Plan]:
    return plans(FULL, values)


def sensitivity(values: dict[str, Any]) -> list[Plan]:
    return plans(SENSITIVITY, values)


# ---------------------------------------------------------------------------- measures


def _views(frame: pd.DataFrame) -> pd.DataFrame:
    """Add the rows of points that belong to several figures. A sweep runs identical points
    once, under the labels of the first plan (Fig. 2's N = N0 point is also Fig. 3's V = V0
    and Fig. 4's I = 6 s point), so such rows are repeated under every part they belong to."""
    import pandas as pd

    base = frame[frame["reading"] == ""]
    parts = {p: base[base["part"] == p] for p in ("fig2", "fig3", "fig4")}
    extra = []
    if len(parts["fig3"]):  # N = N0, I = 6 s, any V
        n0 = parts["fig3"]["N"].iloc[0]
        rows = base[(base["part"] != "fig3") & (base["N"] == n0) & (base["idle_s"] == IDLE_S)].copy()
        rows["part"], rows["x"] = "fig3", rows["V"].astype(float)
        extra.append(rows)
    if len(parts["fig4"]):  # N = N0, V = V0, any I
        n0, v0 = parts["fig4"]["N"].iloc[0], parts["fig4"]["V"].iloc[0]
        rows = base[(base["part"] != "fig4") & (base["N"] == n0) & (base["V"] == v0)].copy()
        rows["part"], rows["x"] = "fig4", rows["idle_s"].astype(float)
        extra.append(rows)
    if len(parts["fig2"]):  # I = 6 s, V = min(V0, N), any N
        v0 = parts["fig2"]["V"].max()
        rows = base[(base["part"] != "fig2") & (base["idle_s"] == IDLE_S)
                    & (base["V"] == base["N"].clip(upper=v0))].copy()
        rows["part"], rows["x"] = "fig2", rows["N"].astype(float)
        extra.append(rows)
    return pd.concat([frame, *extra], ignore_index=True) if extra else frame


def per_source(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (point, source): normalised goodput over the whole run (once per frame:
    read-only)."""
    return _cached(df, "per_source", _per_source)


def _per_source(df: pd.DataFrame) -> pd.DataFrame:
    df = _views(df)
    out = df[["point_id", "part", "x", "config", "reading", "run_seed", "name", "bytes_delivered", "duration_s"]].copy()
    out["goodput"] = out["bytes_delivered"] * 8 / out["duration_s"] / CAPACITY_BPS
    return out


def per_path(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (point, path): normalised goodput of the payload delivered over it (once
    per frame: read-only)."""
    return _cached(df, "per_path", _per_path)


def _per_path(df: pd.DataFrame) -> pd.DataFrame:
    paths = _views(load_table(df, "paths"))  # carries the plan labels (part, x, config, …) like df
    # Single-path flows list one path (number 1): map it to the bottleneck of their edge.
    lab = paths["path"].astype(int)
    single = paths["config"] == "single"
    edge = paths["flow"].astype(str).str.slice(1).str.split("_").str[0].astype(int)
    paths["bottleneck"] = lab.where(~single, (edge - 1) % P + 1)
    g = paths.groupby(["point_id", "part", "x", "config", "reading", "run_seed", "duration_s", "bottleneck"],
                      as_index=False)["bytes_delivered"].sum()
    g["goodput"] = g["bytes_delivered"] * 8 / g["duration_s"] / CAPACITY_BPS
    return g


#: Derived tables of the frame last handed to the claims (many claims read the same ones).
_CACHE: dict[tuple[Any, ...], pd.DataFrame] = {}


def _cached(df: pd.DataFrame, what: str, make: Any) -> pd.DataFrame:
    key = (what, id(df), len(df), df.attrs.get("store"), df.attrs.get("plan"))
    if key not in _CACHE:
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = make(df)
    return _CACHE[key]


def source_stats(df: pd.DataFrame) -> pd.DataFrame:
    """Per (part, x, config, reading): mean over seeds of the mean and s.d. of source goodput."""
    def make(df: pd.DataFrame) -> pd.DataFrame:
        s = per_source(df)
        run = s.groupby(["part", "x", "config", "reading", "run_seed"], as_index=False)["goodput"].agg(
            ["mean", "std"])
        return run.groupby(["part", "x", "config", "reading"], as_index=False)[["mean", "std"]].mean()
    return _cached(df, "source_stats", make)


def path_spread(df: pd.DataFrame) -> pd.DataFrame:
    """Per (part, x, config, reading): mean over seeds of (max − min) of the per-path goodputs."""
    def make(df: pd.DataFrame) -> pd.DataFrame:
        p = per_path(df)
        run = p.groupby(["part", "x", "config", "reading", "run_seed"], as_index=False)["goodput"].agg(
            lambda g: g.max() - g.min())
        return run.groupby(["part", "x", "config", "reading"], as_index=False)["goodput"].mean()
    return _cached(df, "path_spread", make)


def _at(frame: pd.DataFrame, part: str, config: str, col: str, x: float | None = None, reading: str = "") -> float:
    rows = frame[(frame["part"] == part) & (frame["config"] == config) & (frame["reading"] == reading)]
    if x is None:
        x = rows["x"].max() if len(rows) else float("nan")
    rows = rows[rows["x"] == x]
    return float(rows[col].mean()) if len(rows) else float("nan")


def sd_ratio(df: pd.DataFrame, part: str) -> float:
    """At the largest x of ``part``: s.d. of source goodput, best MATCP selector / single path."""
    st = source_stats(df)
    single = _at(st, part, "single", "std")
    best = min(_at(st, part, c, "std") for c in ("drop", "rttvar", "wrtt"))
    return best / single


def spread_ratio(df: pd.DataFrame) -> float:
    """Fig. 2, mean over N: per-path goodput spread (max − min), worst MATCP selector / single."""
    sp = path_spread(df)
    f2 = sp[sp["part"] == "fig2"]
    single = f2[f2["config"] == "single"]["goodput"].mean()
    worst = max(f2[f2["config"] == c]["goodput"].mean() for c in ("drop", "rttvar", "wrtt"))
    return float(worst / single)


def longest_path_share(df: pd.DataFrame, config: str, reading: str) -> float:
    """Fig. 5: goodput of the longest-delay bottleneck / mean goodput of the others (mean over
    runs and N)."""
    p = per_path(df)
    p = p[(p["part"] == "fig5") & (p["config"] == config) & (p["reading"] == reading)]
    if p.empty:
        return float("nan")
    meta = df.drop_duplicates("point_id").set_index("point_id")["delays_ms"]
    ratios = []
    for pid, rows in p.groupby("point_id"):
        if pid not in meta.index:  # a point stored after df was read
            continue
        delays = [float(d) for d in str(meta[pid]).strip("[]").split(",")]
        longest = max(range(P), key=lambda i: delays[i]) + 1
        mine = rows[rows["bottleneck"] == longest]["goodput"].sum()
        others = rows[rows["bottleneck"] != longest]["goodput"].mean()
        if others > 0:
            ratios.append(mine / others)
    return float(sum(ratios) / len(ratios)) if ratios else float("nan")


def rtt_underuse(df: pd.DataFrame) -> float:
    """Fig. 5 (reading b): longest-path share with the RTT selector / with the RTT-variation
    selector (< 1: the RTT selector under-uses the longest path)."""
    r = DELAY_READINGS_KEYS[1]
    return longest_path_share(df, "rtt", r) / longest_path_share(df, "rttvar", r)



#: Fig. 5's "WRTT performs the best", read per metric: the per-path goodput spread (row 1:
#: "keeping the goodputs of all the links at a similar level") and the s.d. of source
#: goodput (row 2, fairness).
METRICS = {"spread": "per-path goodput spread (max − min)", "sd": "s.d. of source goodput"}


def wrtt_rank(df: pd.DataFrame, reading: str, n: float, metric: str) -> float:
    """Fig. 5 at load N = ``n``, delay reading ``reading``: WRTT's rank (1 = best) among the
    paper's Fig. 5 selectors (RTT variation, RTT, WRTT) by ``metric`` (``"spread"`` or ``"sd"``),
    mean over seeds; NaN where a selector has no run."""
    frame, col = (path_spread(df), "goodput") if metric == "spread" else (source_stats(df), "std")
    rows = frame[(frame["part"] == "fig5") & (frame["reading"] == reading) & (frame["x"] == float(n))]
    vals = {c: rows[rows["config"] == c][col].mean() for c in FIG5_SELECTORS}
    if any(v != v for v in vals.values()):
        return float("nan")
    order = sorted(vals, key=lambda c: vals[c])
    return float(order.index("wrtt") + 1)


def selectors_fairer_than_single(df: pd.DataFrame, reading: str) -> float:
    """Fig. 5, one reading: per cent of (N, selector) pairs whose s.d. of source goodput is
    below single path's ("all the MATCP selectors provide a lower deviation")."""
    st = source_stats(df)
    f5 = st[(st["part"] == "fig5") & (st["reading"] == reading)]
    pairs = []
    for x, rows in f5.groupby("x"):
        single = rows[rows["config"] == "single"]["std"].mean()
        for c in FIG5_SELECTORS:
            mine = rows[rows["config"] == c]["std"].mean()
            if single == single and mine == mine:
                pairs.append(mine < single)
    return float(100 * sum(pairs) / len(pairs)) if pairs else float("nan")


#: The run-to-run spread of Fig. 5's cells: the metrics of the Fig. 5 selectors' 500-s runs
#: for seeds 1…3 (each seed its own draw of sources and delays), as measured by
#: benches/matcp_seed_spread.py and written with its --write-evidence (docs/matcp-results.md).
SEED_EVIDENCE = Path(__file__).with_name("data") / "matcp_fig5_seeds.csv"
SEED_COMMAND = ("`python benches/matcp_seed_spread.py --seeds 3 --store DIR --jobs 2 --write-evidence "
                "python/ccsim/experiments/data/matcp_fig5_seeds.csv` (Fig. 5's three selectors at seeds 1-3, "
                "500 s each; seed 1 is this full plan's own points)")


def fig5_per_seed(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (reading, x, config, run_seed) of Fig. 5's full-length runs of the three
    Fig. 5 selectors: ``spread`` (per-path goodput, max − min) and ``sd`` (of source goodput)."""
    import pandas as pd

    def make(df: pd.DataFrame) -> pd.DataFrame:
        keep = set(df["point_id"])  # per_path reads the paths of the frame's plan
        p = per_path(df)
        p = p[p["point_id"].isin(keep) & (p["part"] == "fig5") & p["config"].isin(FIG5_SELECTORS)]
        s = per_source(df)
        s = s[(s["part"] == "fig5") & s["config"].isin(FIG5_SELECTORS)]
        keys = ["reading", "x", "config", "run_seed"]
        spread = p.groupby(keys)["goodput"].agg(lambda g: g.max() - g.min())
        sd = s.groupby(keys)["goodput"].std()
        return pd.concat({"spread": spread, "sd": sd}, axis=1).reset_index()
    return _cached(df, "fig5_per_seed", make)


def stored_seeds(path: Path = SEED_EVIDENCE) -> pd.DataFrame:
    """The stored per-seed Fig. 5 metrics (:data:`SEED_EVIDENCE`), with the load N as ``x``
    (as :func:`fig5_per_seed` has it)."""
    import pandas as pd

    return pd.read_csv(path, comment="#").rename(columns={"N": "x"})


def combine_seeds(this: pd.DataFrame, stored: pd.DataFrame, reading: str, n: float, metric: str) -> Spread:
    """WRTT's margin (its ``metric`` minus the best other Fig. 5 selector's; ≤ 0: WRTT is
    best) per seed at (``reading``, N = ``n``): this run's seeds, then the stored seeds this
    run does not have. A stored seed that this run also has must agree with it (to 1e-9): if
    it does not, the model has changed since the evidence was measured, and only this run's
    seeds are used (so no interval), with a note saying so."""
    import pandas as pd

    def wide(frame: pd.DataFrame) -> pd.DataFrame:
        rows = frame[(frame["reading"] == reading) & (frame["x"].astype(float) == float(n))]
        return rows.pivot_table(index="run_seed", columns="config", values=metric, aggfunc="first")

    mine, theirs = wide(this), wide(stored)
    note = ""
    shared = [s for s in mine.index if s in theirs.index]
    for seed in shared:
        for c in FIG5_SELECTORS:
            a, b = float(mine.loc[seed, c]), float(theirs.loc[seed, c])
            if abs(a - b) > 1e-9 * max(1.0, abs(a)):
                note = (f"The stored seed {seed} ({c}: {b:.6g}) differs from this run's ({a:.6g}): the stored seeds "
                        "were measured with another model; rerun the command to measure the spread again.")
    table = mine if note else pd.concat([mine, theirs.drop(index=shared, errors="ignore")])
    margins = []
    for seed in sorted(table.index):
        vals = {c: float(table.loc[seed, c]) for c in FIG5_SELECTORS if c in table.columns}
        if len(vals) == len(FIG5_SELECTORS) and all(v == v for v in vals.values()):
            margins.append(vals["wrtt"] - min(v for c, v in vals.items() if c != "wrtt"))
    return Spread(tuple(margins), SEED_COMMAND, note)


def wrtt_spread(df: pd.DataFrame, reading: str, n: float, metric: str) -> Spread:
    """The Fig. 5 cell's WRTT margin over this run's seed and the stored ones."""
    return combine_seeds(fig5_per_seed(df), stored_seeds(), reading, n, metric)


#: Why WRTT balances the per-path goodputs worse where it does (printed beside a per-path
#: spread cell that does not hold outside the run-to-run spread).
WRTT_SPREAD_MECHANISM = (
    "WRTT draws each flow's path with weight (Σ RTT − RTT_x), so it sends the fewest flows to the "
    "longest-delay path, whose flows (longest RTT, window W = 16) also deliver the least each; RTT "
    "variation ranks by queueing delay only and sends that path the most flows. Below saturation (low N, "
    "the delays of reading (b)) a path's goodput follows its flows, so WRTT's per-path spread is the wider. "
    "Count: connections per path and per selector in the paths table of the store, e.g. reading (b), "
    "N = 20, seeds 1-3: longest path 304 / 963 / 628 connections with WRTT against 456 / 1233 / 754 "
    "with RTT variation (`python benches/matcp_seed_spread.py --seeds 3 --store DIR --report-only "
    "--connections`).")


def _wrtt_claims() -> list[Claim]:
    out = []
    for r, reading in zip("ab", DELAY_READINGS_KEYS):
        for n in FULL["fig5_n"]:
            for metric, what in METRICS.items():
                out.append(Claim(
                    "Fig. 5", f"reading ({r}), N = {n}: WRTT's rank among RTT variation, RTT and WRTT by {what} "
                    "(\"WRTT performs the best\": 1)", 1.0,
                    lambda df, reading=reading, n=n, metric=metric: wrtt_rank(df, reading, n, metric),
                    kind="at_most", quick=False,
                    spread=lambda df, reading=reading, n=n, metric=metric: wrtt_spread(df, reading, n, metric),
                    mechanism=WRTT_SPREAD_MECHANISM if metric == "spread" else ""))
    return out


CLAIMS = [
    Claim("Fig. 2", "MATCP's per-path goodputs are nearly equal: spread (max − min over paths) of the least "
          "balanced selector / spread of single path, mean over N", 0.5, spread_ratio, tolerance=0.0,
          kind="at_most"),
    Claim("Fig. 2", "high load (largest N): s.d. of source goodput, best selector / single path (\"almost half\")",
          0.5, lambda df: sd_ratio(df, "fig2"), tolerance=0.15, quick=False),
    Claim("Fig. 3", "largest V: s.d. of source goodput, best selector / single path (\"almost half\")",
          0.5, lambda df: sd_ratio(df, "fig3"), tolerance=0.15, quick=False),
    Claim("Fig. 5", "reading (b): longest-delay path's goodput share, RTT selector / RTT-variation selector "
          "(the RTT selector under-uses the longest path)", 1.0, rtt_underuse, kind="at_most"),
    *[Claim("Fig. 5", f"reading ({r}): (N, selector) pairs where the selector's s.d. of source goodput is below "
            "single path's (\"all the MATCP selectors provide a lower deviation\")", 100.0,
            lambda df, reading=reading: selectors_fairer_than_single(df, reading), unit="%", kind="at_least",
            quick=False)
      for r, reading in zip("ab", DELAY_READINGS_KEYS)],
    *_wrtt_claims(),
]


# ---------------------------------------------------------------------------- figures

COLORS = {"single": "black", "drop": "tab:blue", "rttvar": "tab:orange", "rtt": "tab:green", "wrtt": "tab:red"}


def _figure(df: pd.DataFrame, part: str, xlabel: str, title: str, out_dir: Path, name: str,
            reading: str = "", configs: list[str] | None = None) -> Path:
    """Row 1: per-path goodput (single path solid, selector dotted), one column per selector;
    row 2: mean ± 1 s.d. of source goodput."""
    plt = _plt()
    configs = configs or [c for c in SELECTORS if c in set(df["config"])]
    p = per_path(df)
    p = p[(p["part"] == part) & (p["reading"] == reading)]
    pm = p.groupby(["x", "config", "bottleneck"], as_index=False)["goodput"].mean()
    st = source_stats(df)
    st = st[(st["part"] == part) & (st["reading"] == reading)]
    fig, axes = plt.subplots(2, len(configs), figsize=(3.6 * len(configs), 6.4), sharey="row", squeeze=False)
    for j, c in enumerate(configs):
        ax = axes[0][j]
        for b in range(1, P + 1):
            s = pm[(pm["config"] == "single") & (pm["bottleneck"] == b)].sort_values("x")
            ax.plot(s["x"], s["goodput"], "-", color=f"C{b - 1}", label=f"single, path {b}")
            m = pm[(pm["config"] == c) & (pm["bottleneck"] == b)].sort_values("x")
            ax.plot(m["x"], m["goodput"], ":", marker="o", ms=3, color=f"C{b - 1}", label=f"{LABEL[c]}, path {b}")
        ax.set(title=f"{LABEL[c]}: per-path goodput", xlabel=xlabel, ylabel="goodput / capacity")
        ax.grid(alpha=0.3)
        if j == 0:
            ax.legend(fontsize="x-small", ncol=2)
        ax = axes[1][j]
        for cc, style in (("single", "-"), (c, ":")):
            s = st[st["config"] == cc].sort_values("x")
            ax.errorbar(s["x"], s["mean"], yerr=s["std"], fmt=style, marker="o", ms=3, capsize=3,
                        color=COLORS[cc], label=LABEL[cc])
        ax.set(title=f"{LABEL[c]}: source goodput, mean ± 1 s.d.", xlabel=xlabel, ylabel="goodput / capacity")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.suptitle(title, fontsize="medium")
    out_dir.mkdir(parents=True, exist_ok=True)
    return _save(fig, out_dir, name)


def fig2(df: pd.DataFrame, out_dir: Path) -> Path:
    return _figure(df, "fig2", "average sources per edge N", "Fig. 2: different number of TCP sources",
                   out_dir, "fig2.png")


def fig3(df: pd.DataFrame, out_dir: Path) -> Path:
    return _figure(df, "fig3", "variation V (N = 80)", "Fig. 3: variation of the number of sources per edge",
                   out_dir, "fig3.png")


def fig4(df: pd.DataFrame, out_dir: Path) -> Path:
    return _figure(df, "fig4", "mean idle time I (s)", "Fig. 4: different idle times (N = 80, V = 40)",
                   out_dir, "fig4.png")


def fig5a(df: pd.DataFrame, out_dir: Path) -> Path:
    r = DELAY_READINGS_KEYS[0]
    return _figure(df, "fig5", "average sources per edge N", f"Fig. 5, reading {r}: delay per path",
                   out_dir, "fig5a.png", reading=r, configs=["rttvar", "rtt", "wrtt"])


def fig5b(df: pd.DataFrame, out_dir: Path) -> Path:
    r = DELAY_READINGS_KEYS[1]
    return _figure(df, "fig5", "average sources per edge N", f"Fig. 5, reading {r}: delay per path",
                   out_dir, "fig5b.png", reading=r, configs=["rttvar", "rtt", "wrtt"])


EXPERIMENT = Experiment(
    name="matcp",
    title="Multipath Aware TCP (MATCP): per-flow path selection against single-path routing",
    paper="P. Dimopoulos, P. Zeephongsekul and Z. Tari, IEEE ISCC 2006",
    description=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "",
    quick=quick,
    full=full,
    figures=[
        Figure("fig2", "Per-path and per-source goodput against N", "Fig. 2", fig2,
               "Row 1: per-path goodput (solid: single path, dotted: selector). Row 2: mean ± 1 s.d. of source goodput."),
        Figure("fig3", "Per-path and per-source goodput against V", "Fig. 3", fig3, "As Fig. 2."),
        Figure("fig4", "Per-path and per-source goodput against the idle time", "Fig. 4", fig4, "As Fig. 2."),
        Figure("fig5a", "Different delay per path, reading (a)", "Fig. 5", fig5a,
               "Each bottleneck's delay drawn from U[35, 95] ms per seed (mean 65 ms)."),
        Figure("fig5b", "Different delay per path, reading (b)", "Fig. 5", fig5b,
               "Each bottleneck's delay drawn from U[13, 52] ms per seed (longest 52 ms, as the paper's figure)."),
    ],
    claims=CLAIMS,
    notes=(
        f"{EDGES} edges (our choice, not swept: m = P gives each bottleneck one edge in the single-path network), "
        f"{P} bottlenecks of 40 Mb/s, {BOTTLENECK_DELAY_MS:g} ms, RED {red_queue()}; ACK direction DropTail 100 "
        f"(our choice: the ACKs never queue); access links {ACCESS_RATE}; internal links {INTERNAL}.",
        f"TCP: {tcp_params()}; on/off B = {BURST_S:g} s, I = {IDLE_S:g} s (Fig. 4 varies I); "
        f"refresh R = {DEFAULTS['refresh']}.",
        f"Full: {FULL['seeds']} seeds of {FULL['duration_s']:g} s; Fig. 2 N {FULL['fig2_n']}; Fig. 3 V {FULL['fig3_v']}; "
        f"Fig. 4 I {FULL['fig4_idle']} s; Fig. 5 N {FULL['fig5_n']} for both delay readings.",
        f"Quick: {QUICK['seeds']} seed of {QUICK['duration_s']:g} s; N = {QUICK['n']}, V = {QUICK['v']} where not varied; "
        f"Fig. 2 N {QUICK['fig2_n']}; Fig. 3 V {QUICK['fig3_v']}; Fig. 4 I {QUICK['fig4_idle']}; Fig. 5 N "
        f"{QUICK['fig5_n']}. Quick claims are not the reproduction.",
        "Where N < V the draw is clipped at zero sources: the plans use V = min(V, N) so the mean stays N.",
        "Each plan's labels hold the drawn sources per edge and bottleneck delays of its seed.",
        f"Sensitivity reruns: {SENSITIVITY['seeds']} seed of {SENSITIVITY['duration_s']:g} s; Fig. 2 N "
        f"{SENSITIVITY['fig2_n']}; Fig. 3 V {SENSITIVITY['fig3_v']}; Fig. 5 N {SENSITIVITY['fig5_n']}.",
    ),
    unstated=UNSTATED,
    sensitivity=sensitivity,
)
