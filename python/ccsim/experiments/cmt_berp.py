"""CMT-SCTP with its standard congestion control (CMT-CC) against CMT-BERP (Shailendra,
Bhattacharjee & Bose): transfer time under random loss on disjoint paths (A) and on a shared
bottleneck (B), throughput against UDP cross traffic (C).

Topologies (docs/sctp.md, ALGORITHMS.md §3.1.4). S and D are dual-homed: the association
has two destinations, modelled as two pinned paths, each leaving S and entering D on its own
access link (the interfaces).

* A: path 1 = S–N1–N3–D, path 2 = S–N2–N4–D. Access links S–N1, S–N2, N3–D, N4–D: 10 Mb/s,
  5 ms, Bernoulli loss 1 %. N1–N3 and N2–N4: 1 Mb/s, 20 ms, loss p. Loss in both directions
  (SACKs are lost too), DropTail 50 packets everywhere (delays, direction and queues are
  declared values). A 60 MB file.
* B: both paths cross one N1–N2 link (1 Mb/s, 20 ms, loss p): path k = S–Sk–N1–N2–Dk–D.
  Sk and Dk are S's and D's interfaces; S–Sk and Dk–D are host-internal links (10 Gb/s,
  no delay, lossless), Sk–N1 and N2–Dk the 10 Mb/s, 5 ms, 1 % access links.
* C: A's topology with error-free links everywhere, plus UDP CBR flows U1→U3 across N1–N3
  and U2→U4 across N2–N4 (512-byte packets, rate = load × 1 Mb/s, regular intervals as ns-2's
  CBR with `random_ 0`); the association sends without end for a fixed time and its average
  throughput (goodput) is the metric.

SCTP follows ns-2.35's CMT agent (`Agent/SCTP/CMT`), the paper's simulator: every value the
paper does not state is declared below (`UNSTATED`) with its ns-2.35 source line, or as our
choice, and full mode sweeps each over its range (docs/reproduce.md, "Principles"). The
baseline floors ssthresh at 2 MTUs as ns-2.35's CMT agent does (`SctpCMTAgent::FastRtx`,
`Timeout`: max(cwnd/2, initialCwnd_·MTU)); BERP keeps its own stated 4 MTUs. CMT-PF is on, a
window admits packets while flight < cwnd in units of the 1468-byte chunk, the initial cwnd is
4380 B (3 packets), all as in ns-2.35. BERP: p = 0.9, floor 4 MTU, β from eq. (2) (1/n until
both paths have an estimate, clamped to [¼, ¾]), the RFC 4960 pba trigger for its increase,
acked bytes attributed to the path they were sent on.

Every seed is a point, the line the mean. Quick mode is a small version for tests (2 MB
files, losses 1/5/10 %, loads 0.1/0.5/0.9, 60 s in C, 2 seeds): its claim values describe
that, not the reproduction. Full mode: 60 MB, losses 1…10 %, loads 0.1…0.9, 200 s in C,
10 seeds; its sensitivity sweeps rerun 4 seeds at losses 1/3/6/10 % and loads 0.3/0.6/0.9
with one declared value moved at a time. The cwnd figures (3, 6, 9) and the β/α panels come
from one extra run per controller (seed 1) traced every 100 ms over its first 200 s.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim.experiments import Claim, Experiment, Figure, Unstated
from ccsim.experiments._plot import plt as _plt
from ccsim.experiments._plot import save as _save
from ccsim.scenario import Scenario
from ccsim.sweep import Plan

if TYPE_CHECKING:
    import pandas as pd

# ---------------------------------------------------------------------------- parameters

NS2 = "ns-2.35 tcl/lib/ns-default.tcl"  #: the paper's simulator's defaults (line numbers below)
CMT_CC = "ns-2.35 sctp/sctp-cmt.cc"
ACCESS_RATE = "10Mbps"  #: paper
ACCESS_LOSS = 0.01  #: 1 % on the access links in A and B (paper)
CORE_RATE = "1Mbps"  #: paper
INTERNAL = {"rate": "10Gbps", "delay": "0ms"}  #: host-internal links in B (interfaces)
UDP_PACKET = "512B"  #: paper

#: Values the paper does not state (docs/reproduce.md, principle 2): the ns-2.35 default where
#: the paper's simulator has one, else our choice; full mode sweeps each over its range.
UNSTATED = [
    Unstated("cmt_floor", 2.0, f"{CMT_CC} SctpCMTAgent::FastRtx and ::Timeout: ssthresh = "
             f"MAX(cwnd/2, iInitialCwnd·uiMaxDataSize); {NS2}:846 (initialCwnd_ 2). RFC 4960 and "
             "ns-2.35's plain SCTP agent floor at 4", [2.0, 4.0], "CMT-CC's ssthresh floor", "MTU"),
    Unstated("fast_rtx_threshold", 4, "paper: 'four duplicates' (BERP's rule; in ns-2.35 one agent "
             f"variable serves both controllers); the ns-2.35 default is 3 ({NS2}:850, fastRtxTrigger_ 3)",
             [3, 4], "miss indications that trigger fast retransmit (both controllers)"),
    Unstated("pf", True, f"{NS2}:895 (useCmtPF_ 1); the rules: {CMT_CC} ::Timeout, ::SelectRtxDest, "
             "::SelectFromPFDests, ::ProcessChunk (HB-ACK)", [True, False], "CMT-PF (potentially-failed destinations)"),
    Unstated("pf_cwnd", 2, f"{NS2}:896 (cmtPFCwnd_ 2)", [1, 2], "cwnd of a PF destination after a HEARTBEAT ACK",
             "MTU"),
    Unstated("cwnd_rule", "ns2", f"{CMT_CC} SctpCMTAgent::SendMuch: new data while iOutstandingBytes < iCwnd, "
             "windows counted in uiMaxDataSize = 1468 B", ["ns2", "whole_packets"],
             "how a window admits packets (docs/sctp.md)"),
    Unstated("init_cwnd", "4380B", "ns-2.35 sctp/sctp.cc SctpAgent::Reset: iCwnd = MIN(4·uiMaxDataSize, "
             "MAX(4380, 2·uiMaxDataSize)) = 4380 B, 3 packets under ns-2's rule", ["4380B", 2],
             "initial cwnd per destination (a size, or MTUs)"),
    Unstated("rtx_policy", "cwnd", f"{NS2}:893 (eCmtRtxPolicy_ 4 = RTX_CWND)", ["cwnd", "ssthresh"],
             "where retransmissions go"),
    Unstated("rto_min", 1.0, f"{NS2}:848 (minRto_ 1.0; initialRto_ 3.0 and maxRto_ 60 at :847, :849)",
             [1.0, 0.2], "minimum RTO", "s"),
    Unstated("max_burst", 4, f"RFC 4960 Max.Burst 4, applied by ns-2.35 ({NS2}:859, useMaxBurst_ 1)", [4, 0],
             "new packets per destination per SACK (0: no limit)"),
    Unstated("rwnd_kb", 64, f"{NS2}:844 (initialRwnd_ 65536)", [64, 256], "receiver window", "KiB"),
    Unstated("sack_delay_ms", 200, f"{NS2}:857-858 (useDelayedSacks_ 1, sackDelay_ 0.200)", [200, 0],
             "delayed-SACK timer (0: SACK every packet)", "ms"),
    Unstated("queue_limit", 50, f"{NS2}:86 (Queue set limit_ 50)", [50, 100], "DropTail limit of every link",
             "packets"),
    Unstated("core_delay_ms", 20.0, "our choice: the paper gives no delays; 20 ms on the 1 Mb/s links, path RTT "
             "about 60 ms (ALGORITHMS.md §3.1.4)", [20.0, 100.0], "one-way delay of the 1 Mb/s links", "ms"),
    Unstated("access_delay_ms", 5.0, "our choice: the paper gives no delays; 5 ms on the 10 Mb/s links",
             [5.0, 1.0], "one-way delay of the 10 Mb/s access links", "ms"),
    Unstated("loss_direction", "both", "our choice: 'a link with loss probability p' read as both directions, "
             "SACKs lost too (ALGORITHMS.md §3.1.3 item 9)", ["both", "data"], "which direction loses packets"),
    Unstated("udp_jitter", 0.0, f"{NS2}:492 (Application/Traffic/CBR set random_ 0)", [0.0, 0.5],
             "C: jitter of the CBR intervals (fraction of the interval)"),
    Unstated("beta_clamp", True, "our choice (ALGORITHMS.md §3.1.3 item 4): keeps a decrease away from 0 and w",
             [True, False], "BERP: clamp β_i to [1/(2n), 1 − 1/(2n)]"),
    Unstated("berp_increase", "pba", "our choice (ALGORITHMS.md §3.1.3 item 1): the paper's P_a is RFC 4960's "
             "partial_bytes_acked", ["pba", "per_sack"], "BERP: when the coupled increase applies"),
    Unstated("attribution", "last_sent", "our choice (ALGORITHMS.md §3.1.3 item 5)", ["last_sent", "sack_path"],
             "BERP: which path a SACK's bytes count for in eq. (3)"),
]
DEFAULTS = {u.name: u.value for u in UNSTATED}

#: Sent identically by both controllers (ns-2.35 defaults, not swept: they define the agent):
#: MTU 1500 (:843), 1468-byte chunks (:856), initial ssthresh 64 KB (:845), RTO initial 3 s and
#: max 60 s (:847, :849), SFR, CUC, DAC on (:890-892).
SCTP_FIXED = {"mtu": "1500B", "overhead": "48B", "init_ssthresh": "65536B", "sfr": True, "cuc": True,
              "dac": True}
CONTROLLERS = ("CMT-CC", "CMT-BERP")
COLORS = {"CMT-CC": "#4878a8", "CMT-BERP": "#c03030"}
MARKERS = {"CMT-CC": "s", "CMT-BERP": "o"}

#: A transfer stops at file × 8 / LIMIT_RATE (a floor far below any run seen).
LIMIT_RATE_BPS = 50e3
TRACE_S = 200.0  #: length of the traced diagnostic runs
TRACE_LOSS = 0.10  #: Figs. 3 and 6
TRACE_LOAD = 0.9  #: Fig. 9

FULL = {"seeds": 10, "file_mb": 60.0, "losses": [i / 100 for i in range(1, 11)],
        "loads": [i / 10 for i in range(1, 10)], "c_duration_s": 200.0}
QUICK = {"seeds": 2, "file_mb": 2.0, "losses": [0.01, 0.05, 0.10], "loads": [0.1, 0.5, 0.9],
         "c_duration_s": 60.0}
#: The plans each sensitivity rerun uses (one declared value moved): fewer seeds and points.
SENSITIVITY = {"seeds": 4, "file_mb": 60.0, "losses": [0.01, 0.03, 0.06, 0.10], "loads": [0.3, 0.6, 0.9],
               "c_duration_s": 200.0}


def _v(values: dict[str, Any] | None) -> dict[str, Any]:
    return {**DEFAULTS, **(values or {})}


def controller(cc: str, values: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `cc` table of a controller under the declared values."""
    v = _v(values)
    if cc == "CMT-CC":
        return {"kind": "cmt", "floor": v["cmt_floor"]}
    return {"kind": "berp", "p": 0.9, "floor": 4, "beta": "estimate", "beta_clamp": v["beta_clamp"],
            "increase": v["berp_increase"], "attribution": v["attribution"]}


def sctp_params(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `sctp` table under the declared values."""
    v = _v(values)
    return {**SCTP_FIXED, "init_cwnd": v["init_cwnd"], "rwnd": f"{int(v['rwnd_kb']) * 1024}B",
            "sack_delay": f"{v['sack_delay_ms']:g}ms" if v["sack_delay_ms"] else False,
            "fast_rtx_threshold": v["fast_rtx_threshold"], "rtx_policy": v["rtx_policy"],
            "max_burst": v["max_burst"], "cwnd_rule": v["cwnd_rule"], "pf": v["pf"], "pf_cwnd": v["pf_cwnd"]}


def _kinds(v: dict[str, Any]) -> tuple[dict[str, str], dict[str, str], dict[str, Any]]:
    access = {"rate": ACCESS_RATE, "delay": f"{v['access_delay_ms']:g}ms"}
    core = {"rate": CORE_RATE, "delay": f"{v['core_delay_ms']:g}ms"}
    return access, core, {"kind": "droptail", "limit": f"{int(v['queue_limit'])}p"}


def _links(a: str, b: str, kind: dict[str, str], queue: dict[str, Any], loss: float, direction: str,
           name: str | None = None) -> list[dict[str, Any]]:
    """The duplex link a–b; its loss in both directions, or from a to b only (``direction``)."""
    if direction == "both" or loss <= 0:
        link: dict[str, Any] = {"between": [a, b], **kind, "queue": dict(queue)}
        if loss > 0:
            link["loss"] = loss
        if name:
            link["name"] = name
        return [link]
    fwd = {"from": a, "to": b, **kind, "queue": dict(queue), "loss": loss}
    if name:
        fwd["name"] = name
    return [fwd, {"from": b, "to": a, **kind, "queue": dict(queue)}]


def _sctp_flow(cc: str, paths: list[list[str]], size_mb: float | None, v: dict[str, Any]) -> dict[str, Any]:
    app: dict[str, Any] = {"kind": "bulk"}
    if size_mb is not None:
        app["size"] = f"{int(round(size_mb * 1e6))}B"
    return {"name": "assoc", "from": "S", "to": "D", "transport": "sctp", "paths": paths,
            "cc": controller(cc, v), "rto": {"min": f"{v['rto_min']:g}s", "max": "60s", "initial": "3s"},
            "sctp": sctp_params(v), "app": app}


def _limit_s(file_mb: float) -> float:
    return file_mb * 8e6 / LIMIT_RATE_BPS


def _doc(links: list[dict[str, Any]], flows: list[dict[str, Any]], duration_s: float, seed: int) -> dict[str, Any]:
    return {"simulation": {"duration": f"{duration_s:g}s", "seed": seed}, "trace": {"interval": "0s"},
            "link": links, "flow": flows}


def scenario_a(cc: str, loss: float, file_mb: float, seed: int = 1, values: dict[str, Any] | None = None) -> Scenario:
    """Experiment A: disjoint paths, random loss only."""
    v = _v(values)
    access, core, q = _kinds(v)
    d = v["loss_direction"]
    links = [*_links("S", "N1", access, q, ACCESS_LOSS, d), *_links("N1", "N3", core, q, loss, d, "core1"),
             *_links("N3", "D", access, q, ACCESS_LOSS, d), *_links("S", "N2", access, q, ACCESS_LOSS, d),
             *_links("N2", "N4", core, q, loss, d, "core2"), *_links("N4", "D", access, q, ACCESS_LOSS, d)]
    flow = _sctp_flow(cc, [["S", "N1", "N3", "D"], ["S", "N2", "N4", "D"]], file_mb, v)
    return Scenario(_doc(links, [flow], _limit_s(file_mb), seed), source=f"cmt_berp A: {cc}, p {loss:g}")


def scenario_b(cc: str, loss: float, file_mb: float, seed: int = 1, values: dict[str, Any] | None = None) -> Scenario:
    """Experiment B: both paths cross one lossy 1 Mb/s N1–N2 link."""
    v = _v(values)
    access, core, q = _kinds(v)
    d = v["loss_direction"]
    links = [*_links("S", "S1", INTERNAL, q, 0, d), *_links("S", "S2", INTERNAL, q, 0, d),
             *_links("S1", "N1", access, q, ACCESS_LOSS, d), *_links("S2", "N1", access, q, ACCESS_LOSS, d),
             *_links("N1", "N2", core, q, loss, d, "shared"),
             *_links("N2", "D1", access, q, ACCESS_LOSS, d), *_links("N2", "D2", access, q, ACCESS_LOSS, d),
             *_links("D1", "D", INTERNAL, q, 0, d), *_links("D2", "D", INTERNAL, q, 0, d)]
    flow = _sctp_flow(cc, [["S", "S1", "N1", "N2", "D1", "D"], ["S", "S2", "N1", "N2", "D2", "D"]], file_mb, v)
    return Scenario(_doc(links, [flow], _limit_s(file_mb), seed), source=f"cmt_berp B: {cc}, p {loss:g}")


def scenario_c(cc: str, load: float, duration_s: float, seed: int = 1,
               values: dict[str, Any] | None = None) -> Scenario:
    """Experiment C: error-free disjoint paths with UDP CBR cross traffic on each 1 Mb/s link."""
    v = _v(values)
    access, core, q = _kinds(v)
    links = [*_links("S", "N1", access, q, 0, "both"), *_links("N1", "N3", core, q, 0, "both", "core1"),
             *_links("N3", "D", access, q, 0, "both"), *_links("S", "N2", access, q, 0, "both"),
             *_links("N2", "N4", core, q, 0, "both", "core2"), *_links("N4", "D", access, q, 0, "both"),
             *_links("U1", "N1", access, q, 0, "both"), *_links("N3", "U3", access, q, 0, "both"),
             *_links("U2", "N2", access, q, 0, "both"), *_links("N4", "U4", access, q, 0, "both")]
    flows = [_sctp_flow(cc, [["S", "N1", "N3", "D"], ["S", "N2", "N4", "D"]], None, v)]
    for k, (a, b) in enumerate([("U1", "U3"), ("U2", "U4")], start=1):
        app: dict[str, Any] = {"kind": "cbr", "rate": f"{int(round(load * 1e6))}bps", "packet_size": UDP_PACKET}
        if v["udp_jitter"]:
            app["jitter"] = v["udp_jitter"]
        flows.append({"name": f"udp{k}", "from": a, "to": b, "transport": "udp", "app": app})
    return Scenario(_doc(links, flows, duration_s, seed), source=f"cmt_berp C: {cc}, load {load:g}")


def plans(cfg: dict[str, Any], values: dict[str, Any] | None = None) -> list[Plan]:
    out = []
    for cc in CONTROLLERS:
        for p in cfg["losses"]:
            for part, make in (("A", scenario_a), ("B", scenario_b)):
                labels = {"part": part, "controller": cc, "loss_p": float(p), "load": float("nan"),
                          "file_mb": float(cfg["file_mb"])}
                out.append(Plan(base=make(cc, p, cfg["file_mb"], values=values), seeds=cfg["seeds"], labels=labels,
                                name=f"{part} {cc} p {p:g}"))
        for load in cfg["loads"]:
            labels = {"part": "C", "controller": cc, "loss_p": 0.0, "load": float(load), "file_mb": float("nan")}
            out.append(Plan(base=scenario_c(cc, load, cfg["c_duration_s"], values=values), seeds=cfg["seeds"],
                            labels=labels, name=f"C {cc} load {load:g}"))
    return out


def quick(values: dict[str, Any]) -> list[Plan]:
    return plans(QUICK, values)


def full(values: dict[str, Any]) -> list[Plan]:
    return plans(FULL, values)


def sensitivity(values: dict[str, Any]) -> list[Plan]:
    return plans(SENSITIVITY, values)


# ---------------------------------------------------------------------------- measures


def runs(df: pd.DataFrame, part: str) -> pd.DataFrame:
    """One row per run of the association in ``part``: cc, loss_p, load, seed, transfer_s
    (NaN if the file did not complete), goodput_bps, fast_recoveries, timeouts."""
    r = df[(df["part"] == part) & (df["transport"] == "sctp")].copy()
    r["transfer_s"] = r["completion_time_s"] - r["start_s"]
    return r[["controller", "loss_p", "load", "seed", "transfer_s", "goodput_bps", "fast_recoveries", "timeouts",
              "retransmissions"]]


def mean_by(df: pd.DataFrame, part: str, x: str, y: str) -> pd.DataFrame:
    """Mean of ``y`` over seeds, one column per controller, indexed by ``x``."""
    r = runs(df, part)
    return r.groupby([x, "controller"])[y].mean().unstack("controller").sort_index()


def _ratios(df: pd.DataFrame, part: str, lo: float = 0.0, hi: float = 1.0) -> pd.Series:
    """BERP / CMT-CC mean transfer time per loss point in [lo, hi] (empty if missing)."""
    import pandas as pd

    m = mean_by(df, part, "loss_p", "transfer_s").dropna()
    if m.empty or not set(CONTROLLERS) <= set(m.columns):
        return pd.Series(dtype=float)
    m = m[(m.index >= lo - 1e-9) & (m.index <= hi + 1e-9)]
    return m["CMT-BERP"] / m["CMT-CC"]


def share_berp_faster(df: pd.DataFrame, part: str, lo: float = 0.0, hi: float = 1.0) -> float:
    """Per cent of loss points in [lo, hi] where BERP's mean transfer time is below CMT-CC's."""
    r = _ratios(df, part, lo, hi)
    return float(100 * (r < 1).mean()) if len(r) else float("nan")


def time_ratio(df: pd.DataFrame, part: str, lo: float = 0.0, hi: float = 1.0, how: str = "mean") -> float:
    """BERP / CMT-CC mean transfer time, averaged (or max/min) over the loss points in [lo, hi]."""
    r = _ratios(df, part, lo, hi)
    return float(getattr(r, how)()) if len(r) else float("nan")


def throughput_ratio(df: pd.DataFrame, how: str) -> float:
    """BERP / CMT-CC mean throughput in C, max or min over the loads."""
    m = mean_by(df, "C", "load", "goodput_bps").dropna()
    if m.empty or not set(CONTROLLERS) <= set(m.columns):
        return float("nan")
    return float(getattr(m["CMT-BERP"] / m["CMT-CC"], how)())


def b_over_a(df: pd.DataFrame) -> float:
    """Smallest ratio over controllers and losses of mean transfer time in B to that in A."""
    a = mean_by(df, "A", "loss_p", "transfer_s")
    b = mean_by(df, "B", "loss_p", "transfer_s")
    ratio = (b / a).stack()
    return float(ratio.min()) if len(ratio) else float("nan")


#: "A tie": BERP's transfer time within this fraction of CMT-CC's.
TIE = 0.05
#: Where the paper's Figs. 2 and 5 show BERP ahead (the curves meet at 1 %).
FAST_LO, FAST_HI = 0.03, 0.10


def _part_claims(fig: str, part: str, what: str) -> list[Claim]:
    return [
        Claim(fig, f"{what}: loss points from 3 to 10 % where CMT-BERP's mean transfer time is below CMT-CC's",
              100.0, lambda df: share_berp_faster(df, part, FAST_LO, FAST_HI), unit="%", kind="at_least",
              quick=False),
        Claim(fig, f"{part}: mean over 3–10 % of transfer time CMT-BERP / CMT-CC (BERP faster: below 1)", 1.0,
              lambda df: time_ratio(df, part, FAST_LO, FAST_HI), unit="×", kind="at_most", quick=False),
        Claim(fig, f"{part}: a tie at 1 %: transfer time CMT-BERP / CMT-CC", 1.0,
              lambda df: time_ratio(df, part, 0.01, 0.01), unit="×", tolerance=TIE, quick=False),
    ]


CLAIMS = [
    *_part_claims("Fig. 2", "A", "A (disjoint, random loss)"),
    *_part_claims("Fig. 5", "B", "B (shared bottleneck)"),
    Claim("Fig. 5", "B slower than A: smallest ratio of mean transfer times B / A (same controller and loss)",
          1.0, b_over_a, unit="×", kind="at_least"),
    Claim("Fig. 8", "C (congestion only): largest BERP / CMT-CC mean-throughput ratio over loads (\"almost identical\")",
          1.0, lambda df: throughput_ratio(df, "max"), unit="×", tolerance=0.1),
    Claim("Fig. 8", "C: smallest BERP / CMT-CC mean-throughput ratio over loads", 1.0,
          lambda df: throughput_ratio(df, "min"), unit="×", tolerance=0.1),
]


# ---------------------------------------------------------------------------- figures


def _points_and_means(df: pd.DataFrame, part: str, x: str, y: str, scale: float, xlabel: str, ylabel: str,
                      title: str, out_dir: Path, name: str) -> Path:
    plt = _plt()
    r = runs(df, part)
    fig, ax = plt.subplots(figsize=(6.8, 4.4))
    for cc in CONTROLLERS:
        rows = r[r["controller"] == cc]
        if not len(rows):
            continue
        ax.scatter(rows[x] * (100 if x == "loss_p" else 1), rows[y] / scale, s=12, color=COLORS[cc],
                   marker=MARKERS[cc], alpha=0.5)
        m = rows.groupby(x)[y].mean().sort_index()
        ax.plot(m.index * (100 if x == "loss_p" else 1), m.values / scale, "-", color=COLORS[cc],
                marker=MARKERS[cc], ms=4, label=f"{cc} (mean)")
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return _save(fig, out_dir, name)


def _file_text(df: pd.DataFrame) -> str:
    mb = df["file_mb"].max()
    return f"{mb:g} MB"


def fig2(df: pd.DataFrame, out_dir: Path) -> Path:
    return _points_and_means(df, "A", "loss_p", "transfer_s", 1.0, "loss probability of N1–N3 and N2–N4 (%)",
                             "transfer time (s)", f"A: disjoint paths, {_file_text(df)} file", out_dir,
                             "fig2_transfer_time_disjoint.png")


def fig5(df: pd.DataFrame, out_dir: Path) -> Path:
    return _points_and_means(df, "B", "loss_p", "transfer_s", 1.0, "loss probability of the shared link (%)",
                             "transfer time (s)", f"B: shared bottleneck, {_file_text(df)} file", out_dir,
                             "fig5_transfer_time_shared.png")


def fig8(df: pd.DataFrame, out_dir: Path) -> Path:
    return _points_and_means(df, "C", "load", "goodput_bps", 1e3, "UDP load on each 1 Mb/s link",
                             "association throughput (kb/s)", "C: disjoint error-free paths, UDP CBR", out_dir,
                             "fig8_throughput_vs_load.png")


def fig_ratio(df: pd.DataFrame, out_dir: Path) -> Path:
    """BERP / CMT-CC mean transfer time against loss in A and B, with the tie band."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.8, 4.2))
    for part, style in (("A", "-o"), ("B", "-s")):
        r = _ratios(df, part)
        if len(r):
            ax.plot(r.index * 100, r.values, style, ms=4, label=part)
    ax.axhline(1.0, color="0.5", lw=0.8)
    ax.axhspan(1 - TIE, 1 + TIE, color="0.9", zorder=0, label=f"tie (±{TIE:.0%})")
    ax.axvspan(FAST_LO * 100 - 0.5, FAST_HI * 100 + 0.5, color="#f3e3e3", zorder=0, label="paper: BERP faster")
    ax.set(xlabel="loss probability of the 1 Mb/s links (%)", ylabel="transfer time BERP / CMT-CC",
           title="Below 1: BERP faster (paper: a tie at 1 %, below 1 from 3 to 10 % in A and B)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return _save(fig, out_dir, "ratio_berp_over_cmt.png")


def trace_runs(part: str, file_mb: float) -> dict[str, Any]:
    """One traced run per controller (seed 1): its per-path series (path_series frame)."""
    from ccsim.api import run

    out = {}
    for cc in CONTROLLERS:
        if part == "A":
            sc = scenario_a(cc, TRACE_LOSS, file_mb)
        elif part == "B":
            sc = scenario_b(cc, TRACE_LOSS, file_mb)
        else:
            sc = scenario_c(cc, TRACE_LOAD, TRACE_S)
        doc = json.loads(sc.to_json())
        limit = float(str(doc["simulation"]["duration"]).rstrip("s"))
        doc["simulation"]["duration"] = f"{min(limit, TRACE_S):g}s"
        doc["trace"] = {"interval": "100ms", "flows": ["assoc"]}
        res = run(Scenario(doc, source=f"{sc.source} (traced)"), progress=False)
        series = res.path_series
        done = res.flows["completion_time_s"].iloc[0]
        # Stop the trace when the file is delivered (the windows freeze afterwards).
        out[cc] = series[series["time_s"] <= done] if done == done else series
    return out


def _trace_figure(part: str, what: str, df: pd.DataFrame, out_dir: Path, name: str) -> Path:
    plt = _plt()
    file_mb = df["file_mb"].max() if part != "C" else 0.0
    series = trace_runs(part, file_mb if file_mb == file_mb else QUICK["file_mb"])
    fig, axes = plt.subplots(3, 1, figsize=(8, 8.5), sharex=True)
    styles = {1: "-", 2: "--"}
    for row, cc in enumerate(CONTROLLERS):
        ax = axes[row]
        s = series[cc]
        for path, g in s.groupby("path"):
            ax.plot(g["time_s"], g["cwnd_bytes"] / 1500, styles.get(int(path), ":"), color=COLORS[cc], lw=0.9,
                    label=f"path {int(path)} cwnd")
            ax.plot(g["time_s"], g["ssthresh_bytes"] / 1500, styles.get(int(path), ":"), color="0.6", lw=0.6,
                    label=f"path {int(path)} ssthresh")
        ax.set(ylabel="MTUs", title=f"{cc}: per-path cwnd ({what})")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", ncol=2, loc="upper right")
    ax = axes[2]
    s = series["CMT-BERP"]
    for path, g in s.groupby("path"):
        ax.plot(g["time_s"], g["beta"], styles.get(int(path), ":"), color="#c03030", lw=0.9, label=f"β_{int(path)}")
    first = s[s["path"] == s["path"].min()]
    ax.plot(first["time_s"], first["alpha"], "-", color="#3d3d3d", lw=0.9, label="α")
    ax.axhline(0.5, color="0.6", ls=":", lw=0.8)
    ax.set(xlabel="time (s)", ylabel="β_i, α", title="CMT-BERP: β_i = BWE_i / ΣBWE (eq. 2) and α (eq. 1)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="x-small", ncol=3, loc="upper right")
    return _save(fig, out_dir, name)


def fig3(df: pd.DataFrame, out_dir: Path) -> Path:
    return _trace_figure("A", f"A, p = {TRACE_LOSS:.0%}", df, out_dir, "fig3_cwnd_disjoint.png")


def fig6(df: pd.DataFrame, out_dir: Path) -> Path:
    return _trace_figure("B", f"B, p = {TRACE_LOSS:.0%}", df, out_dir, "fig6_cwnd_shared.png")


def fig9(df: pd.DataFrame, out_dir: Path) -> Path:
    return _trace_figure("C", f"C, load {TRACE_LOAD:g}", df, out_dir, "fig9_cwnd_udp.png")


EXPERIMENT = Experiment(
    name="cmt-berp",
    title="Improving congestion control for CMT through bandwidth estimation based resource pooling (CMT-BERP)",
    paper="S. Shailendra, R. Bhattacharjee and S. K. Bose (IIT Guwahati), CMT-SCTP with BERP, ns-2 study",
    description=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "",
    quick=quick,
    full=full,
    figures=[
        Figure("fig2", "A: transfer time against loss, disjoint paths", "Fig. 2", fig2,
               "Dots: seeds; line: mean over seeds."),
        Figure("fig3", "A: per-path cwnd at 10 % loss, and BERP's β_i and α", "Fig. 3", fig3,
               "One traced run per controller (seed 1), first 200 s; grey: ssthresh."),
        Figure("fig5", "B: transfer time against loss, shared bottleneck", "Fig. 5", fig5,
               "Dots: seeds; line: mean over seeds."),
        Figure("fig6", "B: per-path cwnd at 10 % loss, and BERP's β_i and α", "Fig. 6", fig6,
               "One traced run per controller (seed 1), first 200 s."),
        Figure("ratio", "Transfer-time ratio BERP / CMT-CC against loss, A and B", "Figs. 2, 5", fig_ratio,
               "Mean over seeds of each controller's transfer time, then the ratio; shaded: the paper's claims."),
        Figure("fig8", "C: throughput against UDP load", "Fig. 8", fig8, "Dots: seeds; line: mean over seeds."),
        Figure("fig9", "C: per-path cwnd at UDP load 0.9, and BERP's β_i and α", "Fig. 9", fig9,
               "One traced run per controller (seed 1), 200 s."),
    ],
    claims=CLAIMS,
    notes=(
        f"Access links {ACCESS_RATE} with {ACCESS_LOSS:.0%} loss (A, B; none in C); 1 Mb/s core links; delays, queues "
        "and every SCTP value the paper does not state: the declared values.",
        f"SCTP fixed (ns-2.35 defaults): {SCTP_FIXED}; RTO initial 3 s, max 60 s.",
        *[f"{cc}: cc = {controller(cc)}" for cc in CONTROLLERS],
        f"A transfer is stopped at file × 8 / {LIMIT_RATE_BPS / 1e3:g} kb/s (then its transfer time is missing).",
        f"Full: {FULL['file_mb']:g} MB, losses {FULL['losses']}, loads {FULL['loads']}, C {FULL['c_duration_s']:g} s, "
        f"{FULL['seeds']} seeds. Sensitivity reruns: {SENSITIVITY['seeds']} seeds, losses {SENSITIVITY['losses']}, "
        f"loads {SENSITIVITY['loads']}.",
        f"Quick: {QUICK['file_mb']:g} MB, losses {QUICK['losses']}, loads {QUICK['loads']}, C {QUICK['c_duration_s']:g} s, "
        f"{QUICK['seeds']} seeds. Quick claims describe that small version, not the paper's 60 MB runs.",
    ),
    unstated=UNSTATED,
    sensitivity=sensitivity,
)
