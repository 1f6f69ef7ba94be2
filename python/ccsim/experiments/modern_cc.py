"""Modern congestion control against its defining documents (issue 20): ECN, DCTCP, the
AQMs and BBR, each section separable (BBR's plans, claims and figures are in
``modern_cc_bbr.py``; its description is there).

CoDel (RFC 8289) and PIE (RFC 8033). Four greedy Reno flows (SACK) share a 10 Mb/s
bottleneck (base RTT 60 ms) whose queue is CoDel with its defaults (target 5 ms, interval
100 ms, 1000 packets), PIE with its defaults (target 15 ms, t_update 15 ms, α 0.125,
β 1.25, burst allowance 150 ms, 1000 packets) or, for comparison, a 1000-packet DropTail
queue. The queue is sampled every 10 ms after a 10 s
warm-up; the standing queue is the minimum queueing delay within each 100 ms interval
(RFC 8289 §2), which CoDel keeps near its target; PIE controls the mean queueing delay to its target.

FQ-CoDel (RFC 8290). A sparse TCP flow (at most 2 segments in flight) through the same
bottleneck, alone or beside one greedy Reno flow, with an FQ-CoDel queue (1024 queues,
quantum 1514 B), one CoDel queue or a 1000-packet DropTail queue. Flow isolation: beside
the bulk flow, the sparse flow's mean RTT with FQ-CoDel stays within one bulk packet's
transmission time (1.2 ms) of its RTT alone (one CoDel queue is run too, for comparison).

DCTCP (RFC 8257; Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010). N greedy DCTCP
flows (SACK, RTO min 10 ms, delayed ACKs) share a 1 Gb/s bottleneck whose queue is DCTCP's
step marker: an ECN-capable arrival is marked CE when more than K packets are held. Access
links 10 Gb/s; base RTT 2 × (0.1 + 0.3 + 0.1) ms = 1 ms, so C·RTT = 84.5 packets of 1500
bytes (propagation plus one transmission per hop). The bottleneck queue is sampled every
50 µs; the first 0.3 s are discarded.

The reference is the paper's steady-state analysis (§3.3): for N synchronised flows the
queue peaks at Q_max = K + N and its sawtooth has amplitude A = ½·√(2N(C·RTT + K)) packets
(each window peaks at W* = (C·RTT + K)/N, a fraction α ≈ √(2/W*) of it is marked in that
round, and each flow cuts W*·α/2); Q_min = K + N − A > 0 for every N when K > C·RTT/7, so
the link then never idles. We measure the amplitude as the spread between the 1st and 99th
percentiles of the queue samples, the peak as the 99th percentile, and throughput as the
flows' sampled goodput after the warm-up over the payload capacity (1460/1500 of 1 Gb/s).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim.experiments import Claim, Experiment, Figure, load_table
from ccsim.experiments import modern_cc_bbr as bbr
from ccsim.experiments._plot import plt as _plt
from ccsim.experiments._plot import save as _save
from ccsim.scenario import Scenario
from ccsim.sweep import Plan

if TYPE_CHECKING:
    import pandas as pd

# ---------------------------------------------------------------------------- DCTCP

DCTCP_REF = "Alizadeh et al. 2010 §3.3"
BOTTLENECK = "r1->r2"
RATE_BPS = 1e9
PAYLOAD_CAPACITY_BPS = RATE_BPS * 1460 / 1500
#: C·RTT in packets: 1 ms of propagation and one 1500-byte transmission per hop (10 G, 1 G, 10 G).
C_RTT = RATE_BPS * (1e-3 + 1500 * 8 * (2 / 10e9 + 1 / 1e9)) / (1500 * 8)
WARMUP_S = 0.3
SAMPLE = "50us"
#: (N, K) of the amplitude claims, and the K values of the throughput claims (N = 2).
OSCILLATION_POINTS = [(2, 40), (2, 20), (10, 40)]
K_ABOVE, K_BELOW = 20, 2


def dctcp_scenario(n: int, k: int, duration: str = "1s") -> Scenario:
    """The DCTCP dumbbell with N flows and a step marker at K packets."""
    links: list[dict[str, Any]] = [
        {"from": "r1", "to": "r2", "rate": "1Gbps", "delay": "0.3ms", "queue": {"kind": "step", "k": k, "limit": "1000p"}},
        {"from": "r2", "to": "r1", "rate": "1Gbps", "delay": "0.3ms", "queue": {"kind": "droptail", "limit": "1000p"}},
    ]
    flows = []
    for i in range(n):
        for a, b in ((f"s{i}", "r1"), ("r2", f"d{i}")):
            links.append({"between": [a, b], "rate": "10Gbps", "delay": "0.1ms", "queue": {"kind": "droptail", "limit": "1000p"}})
        flows.append({"name": f"f{i}", "from": f"s{i}", "to": f"d{i}", "cc": "dctcp", "recovery": "sack",
                      "rto": {"min": "10ms"}, "app": {"kind": "bulk", "start": ["0s", "10ms"]}})
    doc = {"simulation": {"duration": duration, "seed": 1},
           "trace": {"interval": SAMPLE, "flows": "all", "links": [BOTTLENECK]},
           "link": links, "flow": flows}
    return Scenario(doc, f"<modern-cc dctcp N={n} K={k}>")


def predicted_amplitude(n: int, k: int) -> float:
    """A = ½·√(2N(C·RTT + K)) packets (§3.3)."""
    return 0.5 * math.sqrt(2 * n * (C_RTT + k))


def _dctcp_plans(duration: str) -> list[Plan]:
    points = sorted(set(OSCILLATION_POINTS) | {(2, K_ABOVE), (2, K_BELOW)})
    return [Plan(base=dctcp_scenario(n, k, duration), labels={"part": "dctcp", "n_flows": n, "k": k},
                 series=("flows", "links"), name=f"dctcp N={n} K={k}") for n, k in points]


def quick() -> list[Plan]:
    return _dctcp_plans("1s") + _codel_plans("30s") + _fq_plans("30s") + bbr.plans("60s", 1)


def full() -> list[Plan]:
    return _dctcp_plans("5s") + _codel_plans("120s") + _fq_plans("120s") + bbr.plans("300s", 3)


def _point(df: pd.DataFrame, n: int, k: int) -> Any:
    pts = df[(df["part"] == "dctcp") & (df["n_flows"] == n) & (df["k"] == k)]
    if pts.empty:
        raise ValueError(f"no DCTCP point N={n} K={k} in this sweep")
    return pts["point_id"].iloc[0]


def queue_samples(df: pd.DataFrame, n: int, k: int) -> pd.Series:
    """The bottleneck's queue (packets, counting the one in transmission) after the warm-up."""
    ls = load_table(df, "link_series")
    pid = _point(df, n, k)
    q = ls[(ls["point_id"] == pid) & (ls["link"] == BOTTLENECK) & (ls["time_s"] >= WARMUP_S)]
    return q["queue_packets"]


def amplitude(df: pd.DataFrame, n: int, k: int) -> float:
    q = queue_samples(df, n, k)
    return float(q.quantile(0.99) - q.quantile(0.01))


def peak(df: pd.DataFrame, n: int, k: int) -> float:
    return float(queue_samples(df, n, k).quantile(0.99))


def goodput_share(df: pd.DataFrame, n: int, k: int) -> float:
    """The flows' sampled goodput after the warm-up over the payload capacity (%)."""
    fs = load_table(df, "flow_series")
    pid = _point(df, n, k)
    s = fs[(fs["point_id"] == pid) & (fs["time_s"] > WARMUP_S)]
    per_sample = s.groupby("time_s")["rate_bps"].sum()
    return float(100 * per_sample.mean() / PAYLOAD_CAPACITY_BPS)


def _amplitude_claim(n: int, k: int) -> Claim:
    a = predicted_amplitude(n, k)
    return Claim(DCTCP_REF, f"DCTCP, N = {n}, K = {k}: amplitude of the queue oscillation A = ½·√(2N(C·RTT + K)) "
                 "(p99 − p1 of the queue samples; tolerance 25 % of A)",
                 round(a, 2), lambda df: amplitude(df, n, k), unit="packets", tolerance=round(0.25 * a, 2))


def _peak_claim(n: int, k: int) -> Claim:
    return Claim(DCTCP_REF, f"DCTCP, N = {n}, K = {k}: the queue peaks at Q_max = K + N (p99 of the samples)",
                 float(k + n), lambda df: peak(df, n, k), unit="packets", tolerance=3.0)


DCTCP_CLAIMS = (
    [_amplitude_claim(n, k) for n, k in OSCILLATION_POINTS]
    + [_peak_claim(n, k) for n, k in OSCILLATION_POINTS]
    + [
        Claim(DCTCP_REF, f"DCTCP, N = 2, K = {K_ABOVE} > C·RTT/7 = {C_RTT / 7:.1f}: throughput at capacity "
              "(goodput / payload capacity after the warm-up)",
              100.0, lambda df: goodput_share(df, 2, K_ABOVE), unit="%", tolerance=0.5, kind="at_least"),
        Claim(DCTCP_REF, f"DCTCP, N = 2, K = {K_BELOW}, far below C·RTT/7: Q_min = K + N − A < 0, the queue "
              "underflows and throughput is lost", 99.0, lambda df: goodput_share(df, 2, K_BELOW), unit="%",
              kind="at_most"),
    ]
)


def fig_dctcp_queue(df: pd.DataFrame, out_dir: Path) -> Path:
    plt = _plt()
    fig, axes = plt.subplots(len(OSCILLATION_POINTS), 1, figsize=(7, 2.2 * len(OSCILLATION_POINTS)), sharex=True)
    ls = load_table(df, "link_series")
    for ax, (n, k) in zip(axes, OSCILLATION_POINTS):
        pid = _point(df, n, k)
        q = ls[(ls["point_id"] == pid) & (ls["link"] == BOTTLENECK) & (ls["time_s"] >= 0.5) & (ls["time_s"] < 0.6)]
        ax.plot(q["time_s"], q["queue_packets"], lw=0.8, label="ccsim")
        a = predicted_amplitude(n, k)
        ax.axhline(k + n, color="#c03030", ls="--", lw=0.8, label="Q_max = K + N")
        ax.axhline(k + n - a, color="#c03030", ls=":", lw=0.8, label="Q_min = K + N − A")
        ax.set(ylabel="queue (packets)", title=f"N = {n}, K = {k}")
        ax.legend(loc="lower right", fontsize="x-small")
    axes[-1].set_xlabel("time (s)")
    return _save(fig, out_dir, "dctcp_queue.png")


DCTCP_FIGURES = [
    Figure("dctcp_queue", "DCTCP: the bottleneck queue against the analysis", DCTCP_REF, fig_dctcp_queue,
           "100 ms of the queue; dashed: Q_max = K + N, dotted: Q_min = K + N − A of §3.3."),
]

# ---------------------------------------------------------------------------- CoDel

CODEL_REF = "RFC 8289 §4.4"
CODEL_RATE_BPS = 10e6
CODEL_WARMUP_S = 10.0
CODEL_TARGET_MS = 5.0


def codel_scenario(queue: str, duration: str = "30s") -> Scenario:
    """Four Reno flows through a 10 Mb/s bottleneck with a CoDel, PIE or DropTail queue."""
    q = {"kind": queue} if queue in ("codel", "pie") else {"kind": "droptail", "limit": "1000p"}
    links: list[dict[str, Any]] = [
        {"from": "r1", "to": "r2", "rate": "10Mbps", "delay": "20ms", "queue": q},
        {"from": "r2", "to": "r1", "rate": "10Mbps", "delay": "20ms", "queue": {"kind": "droptail", "limit": "1000p"}},
    ]
    flows = []
    for i in range(4):
        for a, b in ((f"s{i}", "r1"), ("r2", f"d{i}")):
            links.append({"between": [a, b], "rate": "100Mbps", "delay": "5ms", "queue": {"kind": "droptail", "limit": "1000p"}})
        flows.append({"name": f"f{i}", "from": f"s{i}", "to": f"d{i}", "recovery": "sack", "rto": {"min": "200ms"},
                      "app": {"kind": "bulk", "start": ["0s", "1s"]}})
    doc = {"simulation": {"duration": duration, "seed": 1},
           "trace": {"interval": "10ms", "flows": "none", "links": [BOTTLENECK]},
           "link": links, "flow": flows}
    return Scenario(doc, f"<modern-cc {queue}>")


def _codel_plans(duration: str) -> list[Plan]:
    return [Plan(base=codel_scenario(q, duration), labels={"part": "aqm", "queue": q}, series=("links",),
                 name=f"aqm {q}") for q in ("codel", "pie", "droptail")]


def queue_delay_ms(df: pd.DataFrame, queue: str) -> pd.Series:
    """Queueing delay samples (ms: bytes held over the rate) of the bottleneck after the warm-up."""
    pts = df[(df["part"] == "aqm") & (df["queue"] == queue)]
    if pts.empty:
        raise ValueError(f"no {queue} point in this sweep")
    ls = load_table(df, "link_series")
    q = ls[(ls["point_id"] == pts["point_id"].iloc[0]) & (ls["link"] == BOTTLENECK) & (ls["time_s"] >= CODEL_WARMUP_S)]
    return q.sort_values("time_s")["queue_bytes"].reset_index(drop=True) * 8 / CODEL_RATE_BPS * 1e3


def standing_queue_ms(df: pd.DataFrame, queue: str) -> float:
    """Median over 100 ms intervals of the minimum queueing delay in the interval."""
    d = queue_delay_ms(df, queue)
    return float(d.groupby(d.index // 10).min().median())


CODEL_CLAIMS = [
    Claim(CODEL_REF, "CoDel, 4 Reno flows, 10 Mb/s: the standing queue (minimum delay per 100 ms interval, median) "
          "is held near target = 5 ms", CODEL_TARGET_MS, lambda df: standing_queue_ms(df, "codel"), unit="ms",
          tolerance=2.5),
    Claim(CODEL_REF, "DropTail (1000 packets), same flows: the standing queue is far above CoDel's target "
          "(the bufferbloat CoDel removes)", 100.0, lambda df: standing_queue_ms(df, "droptail"), unit="ms",
          kind="at_least"),
]


def fig_codel_delay(df: pd.DataFrame, out_dir: Path) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for q, colour in (("codel", "#4878a8"), ("droptail", "#c07030")):
        d = queue_delay_ms(df, q)
        ax.plot(CODEL_WARMUP_S + d.index * 0.01, d, lw=0.6, color=colour, label=q)
    ax.axhline(CODEL_TARGET_MS, color="#c03030", ls="--", lw=0.8, label="target 5 ms")
    ax.set(yscale="log", xlabel="time (s)", ylabel="queueing delay (ms)", title="4 Reno flows, 10 Mb/s bottleneck")
    ax.legend(fontsize="small")
    return _save(fig, out_dir, "codel_delay.png")


CODEL_FIGURES = [
    Figure("codel_delay", "CoDel against DropTail: queueing delay", CODEL_REF, fig_codel_delay,
           "The bottleneck's queueing delay (bytes held over the rate) every 10 ms after the warm-up."),
]

# ---------------------------------------------------------------------------- PIE

PIE_REF = "RFC 8033 §1, §4"
PIE_TARGET_MS = 15.0


def mean_queue_delay_ms(df: pd.DataFrame, queue: str) -> float:
    """Mean of the bottleneck's queueing-delay samples after the warm-up (ms)."""
    return float(queue_delay_ms(df, queue).mean())


PIE_CLAIMS = [
    Claim(PIE_REF, "PIE, 4 Reno flows, 10 Mb/s (the CoDel section's network): the mean queueing delay is controlled "
          "to its target QDELAY_REF = 15 ms (samples count the packet in transmission, 1.2 ms)", PIE_TARGET_MS,
          lambda df: mean_queue_delay_ms(df, "pie"), unit="ms", tolerance=5.0),
]

# ---------------------------------------------------------------------------- FQ-CoDel

FQ_REF = "RFC 8290 §1, §4.1"
#: The sparse flow: at most 2 segments in flight, about 2 × 1500 B per 60 ms RTT (0.4 Mb/s).
SPARSE_WINDOW = 2


def fq_scenario(queue: str, bulk: bool, duration: str = "30s") -> Scenario:
    """A sparse TCP flow (window 2) and, if `bulk`, a greedy Reno flow through the 10 Mb/s
    bottleneck with an FQ-CoDel, CoDel or DropTail (1000 packets) queue."""
    q = {"kind": queue} if queue in ("fq_codel", "codel") else {"kind": "droptail", "limit": "1000p"}
    links: list[dict[str, Any]] = [
        {"from": "r1", "to": "r2", "rate": "10Mbps", "delay": "20ms", "queue": q},
        {"from": "r2", "to": "r1", "rate": "10Mbps", "delay": "20ms", "queue": {"kind": "droptail", "limit": "1000p"}},
    ]
    flows = []
    for name, window in (("sparse", SPARSE_WINDOW), ("bulk", None))[: 1 + bulk]:
        for a, b in ((f"s-{name}", "r1"), ("r2", f"d-{name}")):
            links.append({"between": [a, b], "rate": "100Mbps", "delay": "5ms", "queue": {"kind": "droptail", "limit": "1000p"}})
        f = {"name": name, "from": f"s-{name}", "to": f"d-{name}", "recovery": "sack", "rto": {"min": "200ms"},
             "app": {"kind": "bulk", "start": "0s"}}
        if window:
            f["max_window"] = window
        flows.append(f)
    doc = {"simulation": {"duration": duration, "seed": 1}, "trace": {"interval": "0s"}, "link": links, "flow": flows}
    return Scenario(doc, f"<modern-cc {queue} bulk={bulk}>")


FQ_POINTS = [("fq_codel", False), ("fq_codel", True), ("codel", True), ("droptail", True)]


def _fq_plans(duration: str) -> list[Plan]:
    return [Plan(base=fq_scenario(q, bulk, duration), labels={"part": "fq", "queue": q, "case": _case(bulk)},
                 name=f"fq {q} {_case(bulk)}") for q, bulk in FQ_POINTS]


def _case(bulk: bool) -> str:
    return "with-bulk" if bulk else "alone"


def sparse_rtt_ms(df: pd.DataFrame, queue: str, bulk: bool) -> float:
    """The sparse flow's mean RTT (ms) in the run with `queue` (beside the bulk flow if `bulk`)."""
    row = df[(df["part"] == "fq") & (df["queue"] == queue) & (df["case"] == _case(bulk)) & (df["name"] == "sparse")]
    if row.empty:
        raise ValueError(f"no FQ point {queue} {_case(bulk)} in this sweep")
    return float(row["rtt_mean_s"].mean() * 1e3)


def sparse_rtt_increase_ms(df: pd.DataFrame, queue: str) -> float:
    """How much the bulk flow adds to the sparse flow's mean RTT (ms), against it alone with FQ-CoDel."""
    return sparse_rtt_ms(df, queue, True) - sparse_rtt_ms(df, "fq_codel", False)


FQ_CLAIMS = [
    Claim(FQ_REF, "FQ-CoDel: a sparse flow (window 2) beside a greedy Reno flow, 10 Mb/s: its mean RTT rises by at most "
          "one bulk packet's transmission (1.2 ms) over its RTT alone (flow isolation)", 1.2,
          lambda df: sparse_rtt_increase_ms(df, "fq_codel"), unit="ms", kind="at_most"),
    Claim(FQ_REF, "the same flows through a 1000-packet DropTail FIFO: the sparse flow waits behind the bulk flow's "
          "backlog (the latency FQ-CoDel removes)", 100.0, lambda df: sparse_rtt_increase_ms(df, "droptail"),
          unit="ms", kind="at_least"),
]

# ---------------------------------------------------------------------------- experiment

EXPERIMENT = Experiment(
    name="modern-cc",
    title="Modern congestion control against its defining documents: DCTCP, CoDel, PIE, FQ-CoDel and BBR",
    paper=("RFC 8257; Alizadeh et al., Data Center TCP (DCTCP), SIGCOMM 2010; RFC 8289 (CoDel); RFC 8033 (PIE); "
           "RFC 8290 (FQ-CoDel); "
           f"{bbr.DRAFT}; {bbr.HOCK}"),
    description=(__doc__.split("\n\n", 1)[1].strip() if __doc__ else "")
    + ("\n\nBBR v1. " + "\n\n".join(bbr.__doc__.split("\n\n")[1:3]) if bbr.__doc__ else ""),
    quick=quick,
    full=full,
    figures=DCTCP_FIGURES + CODEL_FIGURES + bbr.figures(),
    claims=list(DCTCP_CLAIMS) + CODEL_CLAIMS + PIE_CLAIMS + FQ_CLAIMS + bbr.claims(),
    notes=(
        "C·RTT = 84.5 packets (1 ms propagation plus one transmission per hop); C·RTT/7 = 12.1 packets.",
        "quick: 1 s DCTCP runs and 30 s CoDel, PIE and FQ-CoDel runs, one seed; full: 5 s and 120 s, one seed.",
        "BBR: quick 60 s runs, 1 seed; full 300 s runs, 3 seeds; the first 10 s are excluded.",
        "docs/controllers/dctcp.md derives the amplitude formula; tests/ecn.rs checks the same behaviour in Rust.",
    ),
)
