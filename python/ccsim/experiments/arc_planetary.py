"""ARC on planetary links (Grieco & Mascolo, IFAC 2005): goodput against RTT, loss and file size.

Scenario, as in the paper's section 4: one sender ("earth") and one receiver ("planet") joined
by one 1 Mb/s duplex link whose one-way propagation delay is RTT/2, with uniform random loss
of probability p in both directions (data and ACKs/reports), a DropTail buffer of 100 packets
in each direction, 1500-byte packets (1460 payload + 40 header bytes) and one bulk transfer
of a file (1 GB = 10^9 bytes in full mode). Goodput is ccsim's flow goodput: file bytes × 8 /
(time the last byte is delivered − connection start), the paper's definition.

Protocols: ARC (transport = "arc", the defaults of docs/arc.md, written out in the plans) and
the paper's ns-2 TCP baselines: NewReno, Reno-SACK (ns-2 Sack1), Reno-FACK, Vegas (ns-2
preset, α, β, γ = 1, 3, 1) and Westwood+, each with delayed ACKs (100 ms, ns-2 DelAck), no
receiver-window limit, ns-2's minimum RTO of 200 ms, an initial RTO of 3 s and a maximum RTO
of 100 000 s, far above the largest RTT (ALGORITHMS.md 1.11 and 3.4.5). The Reno-based ones
use Reno with ns-2's once-per-ACK window increase (counting = "per_ack"); Vegas and
Westwood+ keep their controllers' defaults.

Time limit: a run stops after T = min(max(3 × file × 8 / 1 Mb/s, 100 × RTT), 200 000 s) of
simulated time (24 000 s for 1 GB up to RTT 240 s, 60 000 s at 600 s, 200 000 s at 2 000 s).
A run that has not delivered the whole file by then is "capped": its goodput is bytes
delivered × 8 / (T − connection start). Capped runs are drawn as hollow markers and counted
in the "completed" figure. A flow that reaches a third of the capacity finishes the file in
time, so only the runs that are far below capacity are capped, and for those the delivered
rate over at least 100 RTTs is their goodput.

Sensitivity, clearly labelled and never the default: "ARC, w ≤ 8333 (paper-matching)" is
ARC with its window capped at 8 333 packets. In equilibrium w = 5 × outstanding (r = k·(w −
outstanding) with k = 1/(4·RTTmin) and outstanding = r·RTTmin), so this caps the data in
flight at about 1 667 packets, the unstated limit ALGORITHMS.md §3.4.6 infers from the
paper's two anchor points (full utilisation up to RTT ≈ 10–20 s, about 10 kb/s at 2 000 s).
Read literally, the paper's rules keep ARC near capacity at every RTT; the faithful ARC is
the one the claims test.

Figures: Fig. 3, goodput against RTT (p = 0.001, all six protocols, plus the sensitivity); Fig. 4, goodput against
p at RTT 600 s; Fig. 5, ARC's goodput against the file size at RTT 2, 20 and 200 s
(p = 0.001). Every seed is a point; the line is the mean over seeds. Quick mode is a small
version (2 MB file, 2 seeds, ARC, NewReno and Westwood+, a few RTTs) for tests: its claim
values describe 2 MB transfers and are not the reproduction. Full mode is the paper's
(1 GB file, 10 seeds).
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim.experiments import Claim, Experiment, Figure
from ccsim.experiments._plot import plt as _plt
from ccsim.experiments._plot import save as _save
from ccsim.scenario import Scenario
from ccsim.sweep import Plan

if TYPE_CHECKING:
    import pandas as pd

# ---------------------------------------------------------------------------- parameters

CAPACITY_BPS = 1e6  #: the planetary link's rate (paper)
LINK_RATE = "1Mbps"
QUEUE = {"kind": "droptail", "limit": "100p"}  #: bottleneck buffer, 100 packets (paper)
MSS, HEADER = 1460, 40  #: 1500-byte packets (paper)
PAYLOAD_SHARE = MSS / (MSS + HEADER)  #: goodput ceiling / capacity = 0.9733

#: Time limit: T = min(max(LIMIT_FILE_FACTOR × file at line rate, LIMIT_RTTS × RTT), LIMIT_MAX_S).
LIMIT_FILE_FACTOR = 3.0
LIMIT_RTTS = 100.0
LIMIT_MAX_S = 200_000.0

#: ARC: the defaults of docs/arc.md, written out so that the report shows them.
ARC_FLOW: dict[str, Any] = {
    "transport": "arc",
    "mss": MSS,
    "header": HEADER,
    "rto": {"min": "1s", "max": "100000s", "initial": "3s"},
    "arc": {"probe_period": "100ms", "gain_periods": 4, "filter_gain": 0.9, "filter_init": "first_sample", "init_window": 2},
}

#: ns-2-era TCP settings shared by every baseline (ALGORITHMS.md 1.11, 3.4.5). max_window unset:
#: unlimited (ns-2 window_ >= 10^6).
TCP_RTO = {"min": "200ms", "max": "100000s", "initial": "3s"}
TCP_COMMON: dict[str, Any] = {"transport": "tcp", "mss": MSS, "header": HEADER, "delayed_ack": "100ms", "rto": TCP_RTO}
RENO_NS2 = {"kind": "reno", "counting": "per_ack"}

#: Protocol name → flow table (without name, endpoints and app), in legend order.
PROTOCOLS: dict[str, dict[str, Any]] = {
    "ARC": ARC_FLOW,
    "NewReno": {**TCP_COMMON, "cc": RENO_NS2, "recovery": "newreno"},
    "Reno-SACK": {**TCP_COMMON, "cc": RENO_NS2, "recovery": "sack1"},
    "Reno-FACK": {**TCP_COMMON, "cc": RENO_NS2, "recovery": "fack"},
    "Vegas": {**TCP_COMMON, "cc": {"kind": "vegas", "preset": "ns2"}, "recovery": "newreno"},
    "Westwood+": {**TCP_COMMON, "cc": {"kind": "westwood"}, "recovery": "newreno"},
}
#: The paper-matching sensitivity (see the module docstring): a window cap of 8 333 packets,
#: i.e. about 1 667 packets outstanding in equilibrium. Plotted, never used by the claims.
ARC_CAPPED = "ARC, w ≤ 8333 (paper-matching)"
PROTOCOLS[ARC_CAPPED] = {**ARC_FLOW, "arc": {**ARC_FLOW["arc"], "window_cap": "8333p"}}
TCPS = ["NewReno", "Reno-SACK", "Reno-FACK", "Vegas", "Westwood+"]
QUICK_PROTOCOLS = ["ARC", "NewReno", "Westwood+"]

FIG3_LOSS = 0.001
FIG4_RTT = 600.0
FIG5_LOSS = 0.001

FULL = {
    "seeds": 10,
    "file_mb": 1000.0,
    "fig3_rtts": [0.1, 0.2, 0.5, 0.8, 1, 2, 5, 10, 20, 50, 100, 200, 600, 1000, 2000],
    "fig4_losses": [1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2],
    "fig5_rtts": [2, 20, 200],
    "fig5_sizes_mb": [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
    "protocols": list(PROTOCOLS),
}
QUICK = {
    "seeds": 2,
    "file_mb": 2.0,
    "fig3_rtts": [0.5, 5, 10, 50],
    "fig4_losses": [1e-3, 1e-2],
    "fig5_rtts": [2, 20, 200],
    "fig5_sizes_mb": [0.5, 1, 2],
    "protocols": QUICK_PROTOCOLS,
}

COLORS = {"ARC": "#c03030", "NewReno": "#4878a8", "Reno-SACK": "#6aa84f", "Reno-FACK": "#8e63b5",
          "Vegas": "#e69138", "Westwood+": "#3d3d3d", ARC_CAPPED: "#e8a0a0"}
MARKERS = {"ARC": "o", "NewReno": "s", "Reno-SACK": "^", "Reno-FACK": "v", "Vegas": "D", "Westwood+": "x",
           ARC_CAPPED: "P"}


def time_limit_s(file_mb: float, rtt_s: float) -> float:
    """The simulated-time limit of a run (see the module docstring)."""
    at_line_rate = file_mb * 1e6 * 8 / CAPACITY_BPS
    return min(max(LIMIT_FILE_FACTOR * at_line_rate, LIMIT_RTTS * rtt_s), LIMIT_MAX_S)


def _num(x: float) -> str:
    """A number for a unit string without exponent notation (the parser wants "1000s")."""
    text = f"{x:.9f}".rstrip("0").rstrip(".")
    return text or "0"


def scenario(protocol: str, rtt_s: float, loss: float, file_mb: float, seed: int = 1) -> Scenario:
    """The paper's planetary scenario for one protocol and point."""
    flow = {"name": "f", "from": "earth", "to": "planet", **copy.deepcopy(PROTOCOLS[protocol]),
            "app": {"kind": "bulk", "size": f"{_num(file_mb * 1e6)}B"}}
    doc = {
        "simulation": {"duration": f"{_num(time_limit_s(file_mb, rtt_s))}s", "seed": seed},
        "trace": {"interval": "0s"},
        "link": [{"name": "planet", "between": ["earth", "planet"], "rate": LINK_RATE,
                  "delay": f"{_num(rtt_s / 2)}s", "queue": dict(QUEUE), "loss": loss}],
        "flow": [flow],
    }
    return Scenario(doc, source=f"arc_planetary: {protocol}, RTT {rtt_s:g} s, p {loss:g}, {file_mb:g} MB")


def _plan(part: str, protocol: str, rtt_s: float, loss: float, file_mb: float, seeds: int) -> Plan:
    labels = {"part": part, "protocol": protocol, "rtt_s": float(rtt_s), "loss_p": float(loss),
              "file_mb": float(file_mb), "time_limit_s": time_limit_s(file_mb, rtt_s)}
    return Plan(base=scenario(protocol, rtt_s, loss, file_mb), seeds=seeds, labels=labels,
                name=f"{part} {protocol} RTT {rtt_s:g} s p {loss:g} {file_mb:g} MB")


def plans(cfg: dict[str, Any]) -> list[Plan]:
    out = []
    for proto in cfg["protocols"]:
        for rtt in cfg["fig3_rtts"]:
            out.append(_plan("fig3", proto, rtt, FIG3_LOSS, cfg["file_mb"], cfg["seeds"]))
    for proto in cfg["protocols"]:
        for p in cfg["fig4_losses"]:
            out.append(_plan("fig4", proto, FIG4_RTT, p, cfg["file_mb"], cfg["seeds"]))
    for rtt in cfg["fig5_rtts"]:
        for size in cfg["fig5_sizes_mb"]:
            out.append(_plan("fig5", "ARC", rtt, FIG5_LOSS, size, cfg["seeds"]))
    return out


def quick() -> list[Plan]:
    return plans(QUICK)


def full() -> list[Plan]:
    return plans(FULL)


# ---------------------------------------------------------------------------- measures
#
# Points shared by two figures (Fig. 3 at RTT 600 s is Fig. 4 at p = 0.001; Fig. 5 at the
# largest file is Fig. 3) run once and carry the labels of the first plan, so the figures
# select rows by protocol, RTT, loss and file size, never by "part".


def runs(df: pd.DataFrame) -> pd.DataFrame:
    """One row per run: protocol, rtt_s, loss_p, file_mb, seed, goodput (b/s), capped."""
    out = df[["point_id", "protocol", "rtt_s", "loss_p", "file_mb", "time_limit_s", "seed", "goodput_bps",
              "completion_time_s", "bytes_delivered"]].copy()
    out["capped"] = out["completion_time_s"].isna()
    return out


def _fig3(df: pd.DataFrame) -> pd.DataFrame:
    r = runs(df)
    return r[(r["loss_p"] == FIG3_LOSS) & (r["file_mb"] == r["file_mb"].max())]


def _fig4(df: pd.DataFrame) -> pd.DataFrame:
    r = runs(df)
    return r[(r["rtt_s"] == FIG4_RTT) & (r["file_mb"] == r["file_mb"].max())]


def _fig5(df: pd.DataFrame) -> pd.DataFrame:
    r = runs(df)
    return r[(r["protocol"] == "ARC") & (r["loss_p"] == FIG5_LOSS) & (r["rtt_s"].isin(FULL["fig5_rtts"]))]


def mean_goodput(df: pd.DataFrame, protocol: str, rtt_s: float, loss: float = FIG3_LOSS) -> float:
    """Mean over seeds of the goodput (b/s) of the largest file; NaN if the point is absent."""
    r = runs(df)
    sel = r[(r["protocol"] == protocol) & (r["rtt_s"] == rtt_s) & (r["loss_p"] == loss) & (r["file_mb"] == r["file_mb"].max())]
    return float(sel["goodput_bps"].mean()) if len(sel) else float("nan")


#: "Full utilisation" / not yet rolled off: mean goodput at least this share of capacity.
ROLLOFF_SHARE = 0.8


def rolloff_rtt(df: pd.DataFrame, protocol: str) -> float:
    """The largest RTT of the Fig. 3 grid up to which (every smaller RTT included) the mean
    goodput stays at or above ROLLOFF_SHARE × capacity; NaN if not even the smallest does."""
    f = _fig3(df)
    means = f[f["protocol"] == protocol].groupby("rtt_s")["goodput_bps"].mean().sort_index()
    last = float("nan")
    for rtt, g in means.items():
        if g < ROLLOFF_SHARE * CAPACITY_BPS:
            break
        last = float(rtt)
    return last


def fig4_ratios(df: pd.DataFrame) -> pd.Series:
    """Per loss rate at RTT 600 s: ARC's mean goodput / the best TCP's mean goodput."""
    f = _fig4(df)
    means = f.groupby(["loss_p", "protocol"])["goodput_bps"].mean().unstack("protocol")
    tcps = [c for c in means.columns if c in TCPS]
    if "ARC" not in means.columns or not tcps:
        return means.iloc[:, :0].sum(axis=1) * float("nan")
    return means["ARC"] / means[tcps].max(axis=1)


def plateau_size_mb(df: pd.DataFrame, rtt_s: float = 200, share: float = 0.9) -> float:
    """The smallest file (MB) at which ARC's mean goodput at ``rtt_s`` reaches ``share`` of its
    largest mean over the file sizes."""
    f = _fig5(df)
    means = f[f["rtt_s"] == rtt_s].groupby("file_mb")["goodput_bps"].mean().sort_index()
    if means.empty:
        return float("nan")
    return float(means[means >= share * means.max()].index.min())


# ---------------------------------------------------------------------------- claims


def _claim_arc_full(df: pd.DataFrame) -> float:
    f = _fig3(df)
    means = f[(f["protocol"] == "ARC") & (f["rtt_s"] <= 5)].groupby("rtt_s")["goodput_bps"].mean()
    return float(means.min() / 1e6) if len(means) else float("nan")


def _claim_tcp_at_10(df: pd.DataFrame) -> float:
    vals = [mean_goodput(df, p, 10.0) for p in TCPS]
    vals = [v for v in vals if not math.isnan(v)]
    return 100 * max(vals) / CAPACITY_BPS if vals else float("nan")


def _rolloff_claim(protocol: str, paper_rtt: float, tolerance: float, text: str) -> Claim:
    return Claim("Fig. 3", f"{protocol}: {text} (largest RTT up to which mean goodput ≥ {ROLLOFF_SHARE:.0%} of capacity)",
                 paper_rtt, lambda df: rolloff_rtt(df, protocol), unit="s", tolerance=tolerance, quick=False)


# Quick mode (2 MB files, RTTs 0.5–50 s, two seeds) decides two claims: Fig. 4 in a weaker form
# (ARC, which probes by time rather than by round trip, must still beat every TCP at every
# loss rate, ≥ 1×, while a 2 MB transfer lasts a few round trips of 600 s) and Fig. 5's
# falling goodput. The others need the paper's 1 GB files (utilisation, roll-off, the TCPs at
# 10 s, the plateau) or RTTs beyond the quick grid (2000 s).
CLAIMS = [
    Claim("Fig. 3", "ARC fills the link below RTT 10 s: smallest mean goodput over RTT ≤ 5 s, p = 0.001 "
          "(payload ceiling 0.973 Mb/s)", 0.9, _claim_arc_full, unit="Mb/s", kind="at_least", quick=False),
    _rolloff_claim("ARC", 10.0, 5.0, "full utilisation up to RTT 10 s"),
    *[_rolloff_claim(p, 0.8, 0.5, "goodput rolls off above RTT 0.8 s") for p in ["NewReno", "Reno-SACK", "Reno-FACK", "Vegas"]],
    _rolloff_claim("Westwood+", 2.0, 1.0, "goodput rolls off above RTT 2 s"),
    Claim("Fig. 3", "TCPs at RTT 10 s, p = 0.001: best TCP's mean goodput / capacity", 10.0, _claim_tcp_at_10,
          unit="%", kind="at_most", quick=False),
    Claim("Fig. 3", "ARC at RTT 2000 s, p = 0.001: mean goodput (\"roughly 10 kb/s\")", 10.0,
          lambda df: mean_goodput(df, "ARC", 2000.0) / 1e3, unit="kb/s", tolerance=5.0, quick=False),
    Claim("Fig. 3", "TCPs at RTT 2000 s, p = 0.001: best TCP's mean goodput (\"basically unable to send data\")", 1.0,
          lambda df: max((mean_goodput(df, p, 2000.0) for p in TCPS), default=float("nan")) / 1e3, unit="kb/s",
          kind="at_most", quick=False),
    Claim("Fig. 4", "RTT 600 s, p from 1e-4 to 1e-2: smallest ratio ARC / best TCP (mean goodputs) over the loss range",
          10.0, lambda df: float(fig4_ratios(df).min()), unit="×", kind="at_least", quick_tolerance=9.0),
    Claim("Fig. 4", "RTT 600 s, p from 1e-4 to 1e-2: largest ratio ARC / best TCP over the loss range (two orders of magnitude)",
          100.0, lambda df: float(fig4_ratios(df).max()), unit="×", tolerance=50.0, quick=False),
    Claim("Fig. 5", "ARC, p = 0.001: goodput at RTT 200 s / goodput at RTT 2 s, largest file (goodput decreases with RTT)",
          1.0, lambda df: mean_goodput(df, "ARC", 200.0) / mean_goodput(df, "ARC", 2.0), unit="", kind="at_most"),
    Claim("Fig. 5", "ARC, RTT 200 s, p = 0.001: smallest file reaching 90 % of the largest mean goodput (\"a few tens of MB\")",
          30.0, plateau_size_mb, unit="MB", tolerance=20.0, quick=False),
]


# ---------------------------------------------------------------------------- figures


def _draw(ax, rows: pd.DataFrame, x: str, label: str, color: str, marker: str) -> None:
    """Every run as a point (hollow if capped) and the mean over seeds as a line."""
    done, capped = rows[~rows["capped"]], rows[rows["capped"]]
    ax.scatter(done[x], done["goodput_bps"] / 1e3, s=12, color=color, marker=marker, alpha=0.6, linewidths=0.8)
    ax.scatter(capped[x], capped["goodput_bps"] / 1e3, s=16, facecolors="none", edgecolors=color, marker=marker if marker != "x" else "o", alpha=0.7)
    means = rows.groupby(x)["goodput_bps"].mean().sort_index()
    ax.plot(means.index, means.values / 1e3, "-", color=color, marker=marker, ms=4, lw=1.3, label=label)


def _finish(ax, xlabel: str, title: str) -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.axhline(CAPACITY_BPS * PAYLOAD_SHARE / 1e3, color="0.5", ls=":", lw=1, label="payload ceiling 973 kb/s")
    ax.set(xlabel=xlabel, ylabel="goodput (kb/s)", title=title)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize="small", loc="lower left")


def _file_text(rows: pd.DataFrame) -> str:
    mb = rows["file_mb"].max() if len(rows) else float("nan")
    return f"{mb / 1000:g} GB" if mb >= 1000 else f"{mb:g} MB"


def _per_protocol_figure(f: pd.DataFrame, x: str, xlabel: str, title: str, out_dir: Path, name: str) -> Path:
    """Goodput against `x`, one series per protocol (every seed a point, the mean a line)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for proto in PROTOCOLS:
        rows = f[f["protocol"] == proto]
        if len(rows):
            _draw(ax, rows, x, proto, COLORS[proto], MARKERS[proto])
    _finish(ax, xlabel, title)
    return _save(fig, out_dir, name)


def fig3(df: pd.DataFrame, out_dir: Path) -> Path:
    f = _fig3(df)
    return _per_protocol_figure(f, "rtt_s", "RTT (s)", f"Goodput vs RTT, p = {FIG3_LOSS:g}, {_file_text(f)} file",
                                out_dir, "fig3_goodput_vs_rtt.png")


def fig4(df: pd.DataFrame, out_dir: Path) -> Path:
    f = _fig4(df)
    return _per_protocol_figure(f, "loss_p", "packet loss probability p (each direction)",
                                f"Goodput vs loss, RTT = {FIG4_RTT:g} s, {_file_text(f)} file", out_dir,
                                "fig4_goodput_vs_loss.png")


def fig5(df: pd.DataFrame, out_dir: Path) -> Path:
    plt = _plt()
    f = _fig5(df)
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    colors = ["#c03030", "#4878a8", "#6aa84f"]
    for i, rtt in enumerate(sorted(f["rtt_s"].unique())):
        _draw(ax, f[f["rtt_s"] == rtt], "file_mb", f"ARC, RTT {rtt:g} s", colors[i % 3], "os^"[i % 3])
    _finish(ax, "file size (MB)", f"ARC goodput vs file size, p = {FIG5_LOSS:g}")
    return _save(fig, out_dir, "fig5_goodput_vs_file_size.png")


def fig_completed(df: pd.DataFrame, out_dir: Path) -> Path:
    """Share of the Fig. 3 runs that delivered the whole file before the time limit."""
    plt = _plt()
    f = _fig3(df)
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    for proto in PROTOCOLS:
        rows = f[f["protocol"] == proto]
        if len(rows):
            share = 100 * (1 - rows.groupby("rtt_s")["capped"].mean().sort_index())
            ax.plot(share.index, share.values, "-", marker=MARKERS[proto], color=COLORS[proto], ms=4, label=proto)
    limits = f.groupby("rtt_s")["time_limit_s"].first().sort_index()
    ax.set_xscale("log")
    ax.set_ylim(-5, 105)
    ax.set(xlabel="RTT (s)", ylabel="runs completed (%)",
           title="Fig. 3 runs that delivered the file before the time limit; limits: "
           + ", ".join(f"{t:g} s" for t in sorted(set(limits.values))))
    ax.title.set_fontsize("small")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize="small", loc="lower left")
    return _save(fig, out_dir, "completed.png")


def _flow_json(proto: str) -> str:
    return json.dumps(PROTOCOLS[proto], separators=(", ", " = ")).replace('"', "")


EXPERIMENT = Experiment(
    name="arc-planetary",
    title="A congestion control algorithm for the planetary Internet (ARC): goodput against RTT, loss and file size",
    paper="L. A. Grieco and S. Mascolo, IFAC World Congress 2005",
    description=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "",
    quick=quick,
    full=full,
    figures=[
        Figure("fig3", "Goodput against RTT, p = 0.001", "Fig. 3", fig3,
               "Log axes. Dots: seeds (hollow: capped at the time limit, goodput = delivered / time); line: mean."),
        Figure("fig4", "Goodput against the loss probability, RTT = 600 s", "Fig. 4", fig4,
               "Log axes. Dots: seeds (hollow: capped at the time limit); line: mean."),
        Figure("fig5", "ARC's goodput against the file size, RTT 2, 20, 200 s, p = 0.001", "Fig. 5", fig5,
               "Log axes. Dots: seeds (hollow: capped at the time limit); line: mean."),
        Figure("completed", "Fig. 3 runs completed before the time limit", "Fig. 3", fig_completed,
               "The rest are capped: their goodput is bytes delivered / simulated time."),
    ],
    claims=CLAIMS,
    notes=(
        f"Link: {LINK_RATE} duplex, one-way delay RTT/2, DropTail {QUEUE['limit']} per direction, Bernoulli loss p on "
        f"both directions; packets {MSS} + {HEADER} bytes (goodput ceiling {PAYLOAD_SHARE:.4f} of capacity).",
        f"Time limit T = min(max({LIMIT_FILE_FACTOR:g} × file × 8 / 1 Mb/s, {LIMIT_RTTS:g} × RTT), {LIMIT_MAX_S:g} s) "
        "(each plan's labels show its time_limit_s). Runs that do not finish are capped at T: goodput = bytes delivered "
        "× 8 / (T − connection start); see the 'completed' figure.",
        *[f"{p}: {_flow_json(p)}" for p in PROTOCOLS],
        f"Full: file {FULL['file_mb']:g} MB, {FULL['seeds']} seeds; Fig. 3 RTTs {FULL['fig3_rtts']} s; Fig. 4 p "
        f"{FULL['fig4_losses']}; Fig. 5 RTTs {FULL['fig5_rtts']} s, sizes {FULL['fig5_sizes_mb']} MB; all six protocols plus the paper-matching ARC sensitivity in Figs. 3 and 4.",
        f"Quick: file {QUICK['file_mb']:g} MB, {QUICK['seeds']} seeds; Fig. 3 RTTs {QUICK['fig3_rtts']} s; Fig. 4 p "
        f"{QUICK['fig4_losses']}; Fig. 5 RTTs {QUICK['fig5_rtts']} s, sizes {QUICK['fig5_sizes_mb']} MB; protocols "
        f"{', '.join(QUICK_PROTOCOLS)}. Quick claims describe 2 MB transfers, not the paper's 1 GB.",
        "Roll-off RTT claims: the tolerance admits one neighbouring grid RTT. Claims over absent points are NaN.",
    ),
)
