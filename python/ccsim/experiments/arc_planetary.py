"""ARC on planetary links (Grieco & Mascolo, IFAC 2005): goodput against RTT, loss and file size.

Scenario, as in the paper's section 4: one sender ("earth") and one receiver ("planet") joined
by one 1 Mb/s duplex link whose one-way propagation delay is RTT/2, with uniform random loss
of probability p in both directions (data and ACKs/reports), a DropTail buffer of 100 packets
in each direction, 1500-byte packets (1460 payload + 40 header bytes) and one bulk transfer
of a file (1 GB = 10^9 bytes in full mode). Goodput is ccsim's flow goodput: file bytes × 8 /
(time the last byte is delivered − connection start), the paper's definition.

Protocols: ARC (transport = "arc", the defaults of docs/arc.md, written out in the plans) and
the paper's ns-2 TCP baselines NewReno, Reno-SACK (ns-2 Sack1), Reno-FACK, Vegas (ns-2
preset, α, β, γ = 1, 3, 1) and Westwood+, run as the ns-2 agents of 2002–2005 ran them
(docs/sources/ns2.md §1–§4, §8): the 40-byte SYN and its round trip before data, an initial
window of 2, window growth once per ACK, delayed ACKs (100 ms DelAck sink), limited
transmit, ssthresh from the window, the RTO counted in 10-ms ticks from one timed segment per
RTT, and the retransmission timer restarted at fast retransmit. The timer bounds that changed
between ns-2 versions (minrto_, rtxcur_init_, maxrto_) and the values the authors must have
raised (window_) are declared and swept, as are ARC's unstated details (see the table of
declared values).

Time limit: a run stops after T = min(max(3 × file × 8 / 1 Mb/s, 100 × RTT), 200 000 s) of
simulated time (24 000 s for 1 GB up to RTT 240 s, 60 000 s at 600 s, 200 000 s at 2 000 s).
A run that has not delivered the whole file by then is "capped": its goodput is bytes
delivered × 8 / (T − connection start). Capped runs are drawn as hollow markers and counted
in the "completed" figure. A flow that reaches a third of the capacity finishes the file in
time, so only the runs that are far below capacity are capped, and for those the delivered
rate over at least 100 RTTs is their goodput.

Where the TCPs "roll down": by Mathis et al.'s bound with delayed ACKs (b = 2) and p = 0.001, a
Reno-family TCP's goodput is at most about 320 kb/s·s / RTT, i.e. 80 % of the link only up to
RTT ≈ 0.4 s and 40 % at 0.8 s. The paper's "roll down above 0.8 s" is therefore reported at
several levels of capacity (80, 50 and 30 %), with the bound drawn on Fig. 3.

Figures: Fig. 3, goodput against RTT (p = 0.001, all six protocols, the Mathis bound); Fig. 4,
goodput against p at RTT 600 s; Fig. 5, ARC's goodput against the file size at RTT 2, 20 and
200 s (p = 0.001). Every seed is a point; the line is the mean over seeds. Quick mode is a
small version (2 MB file, 2 seeds, ARC, NewReno and Westwood+, a few RTTs) for tests: its
claim values describe 2 MB transfers and are not the reproduction. Full mode is the paper's
(1 GB file, 10 seeds); its sensitivity reruns use 2 seeds and the RTTs the claims read.
"""

from __future__ import annotations

import copy
import json
import math
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

CAPACITY_BPS = 1e6  #: the planetary link's rate (paper)
LINK_RATE = "1Mbps"
QUEUE = {"kind": "droptail", "limit": "100p"}  #: bottleneck buffer, 100 packets (paper)
MSS, HEADER = 1460, 40  #: 1500-byte packets (paper)
PAYLOAD_SHARE = MSS / (MSS + HEADER)  #: goodput ceiling / capacity = 0.9733

#: Time limit: T = min(max(LIMIT_FILE_FACTOR × file at line rate, LIMIT_RTTS × RTT), LIMIT_MAX_S).
LIMIT_FILE_FACTOR = 3.0
LIMIT_RTTS = 100.0
LIMIT_MAX_S = 200_000.0

NS2 = "ns-2 tcl/lib/ns-default.tcl"  #: line numbers are ns-2.35's (docs/sources/ns2.md)
NS2_TCP = "docs/sources/ns2.md §1"

#: Values the paper does not state (docs/reproduce.md, principle 2). The paper (2005, citing
#: "Ns-2 (2002)") ran ns-2 2.26–2.28 (docs/sources/ns2.md §8): where a default changed between
#: that era and ns-2.35, the era's value is used and the other swept.
UNSTATED = [
    Unstated("minrto", 1.0, f"{NS2}:956 minrto_: 1 s from 2001/05/14 to 2004/10/14 (ns-2.26, 2.27; the 2.27 tree "
             "has `minrto_ 1`), 0.2 s from ns-2.28 (and in 2.35)", [1.0, 0.2], "TCP: minimum RTO (minrto_)", "s"),
    Unstated("rtxcur_init", 6.0, f"{NS2}:961 rtxcur_init_: 6 s before 2006/01/21 (CHANGES.html:357), 3 s from "
             "ns-2.30 (and in 2.35)", [6.0, 3.0], "TCP: RTO before the first sample (rtxcur_init_)", "s"),
    Unstated("maxrto", 100_000.0, f"{NS2}:954 maxrto_: 100 000 s before 2007/03/28 (the 2.27 tree), 60 s from "
             "ns-2.32 (and in 2.35)", [100_000.0, 60.0], "TCP: maximum RTO (maxrto_)", "s"),
    Unstated("tcp_window", 0, f"our choice: unlimited (0). ns-2's window_ is 20 ({NS2}:919), which caps a TCP at "
             "20 × 11 680 b / RTT (292 kb/s at 0.8 s), below the paper's curves: the authors raised it, to an "
             "unstated value", [0, 20], "TCP: receiver window window_ (0 = unlimited)", "packets"),
    Unstated("arc_no_estimate", "halve", "our choice (docs/arc.md): a congestion event before any bandwidth "
             "estimate halves w, as TCP would; the paper's eq. (2) with B̂ = 0 restarts from one packet",
             ["halve", "zero"], "ARC: w after a congestion event before the first estimate"),
    Unstated("arc_window_cap", 0, "our choice: none (0), the paper states no cap; 8 333 packets (≈ 1 667 in "
             "flight, w = 5 × outstanding in equilibrium) is the cap ALGORITHMS.md §3.4.6 infers from the paper's "
             "anchor points (full rate to 10–20 s, 10 kb/s at 2 000 s)", [0, 8333], "ARC: window cap (0 = none)",
             "packets"),
    Unstated("arc_rto_max", 100_000.0, "our choice (docs/arc.md): a report timeout bounded far above the largest "
             f"RTT, as ns-2's maxrto_ before 2007; ns-2.32–2.35's maxrto_ is 60 s ({NS2}:954)",
             [100_000.0, 60.0], "ARC: maximum report timeout", "s"),
    Unstated("arc_rto_min", 1.0, "our choice (docs/arc.md): RFC 6298's 1 s; ns-2.28–2.35's minrto_ is 0.2 s "
             f"({NS2}:956)", [1.0, 0.2], "ARC: minimum report timeout", "s"),
]
DEFAULTS = {u.name: u.value for u in UNSTATED}


def _v(values: dict[str, Any] | None) -> dict[str, Any]:
    return {**DEFAULTS, **(values or {})}


def _num(x: float) -> str:
    """A number for a unit string without exponent notation (the parser wants "1000s")."""
    text = f"{x:.9f}".rstrip("0").rstrip(".")
    return text or "0"


def arc_flow(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """ARC's flow table (docs/arc.md defaults, written out so the report shows them)."""
    v = _v(values)
    arc: dict[str, Any] = {"probe_period": "100ms", "gain_periods": 4, "filter_gain": 0.9,
                           "filter_init": "first_sample", "init_window": 2, "no_estimate": v["arc_no_estimate"]}
    if v["arc_window_cap"]:
        arc["window_cap"] = f"{int(v['arc_window_cap'])}p"
    return {"transport": "arc", "mss": MSS, "header": HEADER,
            "rto": {"min": f"{_num(v['arc_rto_min'])}s", "max": f"{_num(v['arc_rto_max'])}s", "initial": "3s"},
            "arc": arc}


def tcp_common(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """What every ns-2 TCP baseline shares (docs/sources/ns2.md; each key's source below)."""
    v = _v(values)
    flow: dict[str, Any] = {
        "transport": "tcp", "mss": MSS, "header": HEADER,
        "delayed_ack": "100ms",  # Agent/TCPSink/DelAck interval_ 100 ms (ns-default.tcl:1066)
        "init_cwnd": 2,  # windowInit_ 2 since 2001/5/26 (ns-default.tcl:920)
        "handshake": True,  # syn_ / delay_growth_ true since 2001/5/17 (tcp.cc:700-705, 1809-1811)
        "limited_transmit": True,  # singledup_ 1 since 2001/11/28 (tcp.cc:1576-1586)
        "ssthresh_from": "cwnd",  # slowdown(): halfwin = min(cwnd_, window_)/2 (tcp.cc:1254)
        "rto": {
            "estimator": "ns2",  # rtt_update/rtt_timeout in ticks (tcp.cc:529-606)
            "granularity": "10ms",  # tcpTick_ 0.01 since 2002/03/07 (ns-default.tcl:952)
            "samples": "one_per_rtt",  # timestamps_ false (ns-default.tcl:946; tcp.cc:778-787, 1390-1403)
            "restart_at_fast_retransmit": True,  # reset_rtx_timer(1,0) (tcp.cc:965-974 and every agent)
            "min": f"{_num(v['minrto'])}s", "initial": f"{_num(v['rtxcur_init'])}s", "max": f"{_num(v['maxrto'])}s",
        },
    }
    if v["tcp_window"]:
        flow["max_window"] = int(v["tcp_window"])
    return flow


RENO_NS2 = {"kind": "reno", "counting": "per_ack"}  #: opencwnd() per ACK (tcp.cc:1122-1146)
#: Protocol → (cc, recovery) of the TCP baselines, in legend order.
TCP_AGENTS: dict[str, dict[str, Any]] = {
    "NewReno": {"cc": RENO_NS2, "recovery": "newreno"},
    "Reno-SACK": {"cc": RENO_NS2, "recovery": "sack1"},
    "Reno-FACK": {"cc": RENO_NS2, "recovery": "fack"},
    "Vegas": {"cc": {"kind": "vegas", "preset": "ns2"}, "recovery": "newreno"},
    # Westwood+'s own ns-2 module is built on Agent/TCP, whose opencwnd() also counts per ACK.
    "Westwood+": {"cc": {"kind": "westwood", "counting": "per_ack"}, "recovery": "newreno"},
}
PROTOCOLS = ["ARC", *TCP_AGENTS]
TCPS = list(TCP_AGENTS)
QUICK_PROTOCOLS = ["ARC", "NewReno", "Westwood+"]


def protocol_flow(protocol: str, values: dict[str, Any] | None = None) -> dict[str, Any]:
    """A protocol's flow table (without name, endpoints and app)."""
    if protocol == "ARC":
        return arc_flow(values)
    return {**tcp_common(values), **copy.deepcopy(TCP_AGENTS[protocol])}


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
    "protocols": PROTOCOLS,
}
#: The plans each sensitivity rerun uses (one declared value moved): 2 seeds, and only the
#: RTTs and file sizes the claims read (points a moved value leaves unchanged are the full
#: run's, from the store).
SENSITIVITY = {**FULL, "seeds": 2, "fig3_rtts": [0.1, 0.2, 0.5, 0.8, 1, 2, 5, 10, 20, 50, 200, 2000],
               "fig5_rtts": [2, 200]}
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
          "Vegas": "#e69138", "Westwood+": "#3d3d3d"}
MARKERS = {"ARC": "o", "NewReno": "s", "Reno-SACK": "^", "Reno-FACK": "v", "Vegas": "D", "Westwood+": "x"}


def time_limit_s(file_mb: float, rtt_s: float) -> float:
    """The simulated-time limit of a run (see the module docstring)."""
    at_line_rate = file_mb * 1e6 * 8 / CAPACITY_BPS
    return min(max(LIMIT_FILE_FACTOR * at_line_rate, LIMIT_RTTS * rtt_s), LIMIT_MAX_S)


def scenario(protocol: str, rtt_s: float, loss: float, file_mb: float, seed: int = 1,
             values: dict[str, Any] | None = None) -> Scenario:
    """The paper's planetary scenario for one protocol and point."""
    flow = {"name": "f", "from": "earth", "to": "planet", **protocol_flow(protocol, values),
            "app": {"kind": "bulk", "size": f"{_num(file_mb * 1e6)}B"}}
    doc = {
        "simulation": {"duration": f"{_num(time_limit_s(file_mb, rtt_s))}s", "seed": seed},
        "trace": {"interval": "0s"},
        "link": [{"name": "planet", "between": ["earth", "planet"], "rate": LINK_RATE,
                  "delay": f"{_num(rtt_s / 2)}s", "queue": dict(QUEUE), "loss": loss}],
        "flow": [flow],
    }
    return Scenario(doc, source=f"arc_planetary: {protocol}, RTT {rtt_s:g} s, p {loss:g}, {file_mb:g} MB")


def _plan(part: str, protocol: str, rtt_s: float, loss: float, file_mb: float, seeds: int,
          values: dict[str, Any]) -> Plan:
    labels = {"part": part, "protocol": protocol, "rtt_s": float(rtt_s), "loss_p": float(loss),
              "file_mb": float(file_mb), "time_limit_s": time_limit_s(file_mb, rtt_s)}
    return Plan(base=scenario(protocol, rtt_s, loss, file_mb, values=values), seeds=seeds, labels=labels,
                name=f"{part} {protocol} RTT {rtt_s:g} s p {loss:g} {file_mb:g} MB")


def plans(cfg: dict[str, Any], values: dict[str, Any] | None = None) -> list[Plan]:
    v = _v(values)
    out = []
    for proto in cfg["protocols"]:
        for rtt in cfg["fig3_rtts"]:
            out.append(_plan("fig3", proto, rtt, FIG3_LOSS, cfg["file_mb"], cfg["seeds"], v))
    for proto in cfg["protocols"]:
        for p in cfg["fig4_losses"]:
            out.append(_plan("fig4", proto, FIG4_RTT, p, cfg["file_mb"], cfg["seeds"], v))
    for rtt in cfg["fig5_rtts"]:
        for size in cfg["fig5_sizes_mb"]:
            out.append(_plan("fig5", "ARC", rtt, FIG5_LOSS, size, cfg["seeds"], v))
    return out


def quick(values: dict[str, Any]) -> list[Plan]:
    return plans(QUICK, values)


def full(values: dict[str, Any]) -> list[Plan]:
    return plans(FULL, values)


def sensitivity(values: dict[str, Any]) -> list[Plan]:
    return plans(SENSITIVITY, values)


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


def mathis_goodput_bps(rtt_s: float, p: float = FIG3_LOSS, b: int = 2) -> float:
    """Mathis, Semke, Mahdavi & Ott (CCR 1997): a Reno-family TCP's steady goodput is at most
    MSS/RTT · sqrt(3/(2·b·p)) with b packets per ACK, capped at the payload ceiling."""
    return min(MSS * 8 / rtt_s * math.sqrt(3 / (2 * b * p)), CAPACITY_BPS * PAYLOAD_SHARE)


def mathis_rtt_at(share: float, p: float = FIG3_LOSS, b: int = 2) -> float:
    """The RTT at which the Mathis bound falls to ``share`` of the capacity."""
    return MSS * 8 * math.sqrt(3 / (2 * b * p)) / (share * CAPACITY_BPS)


#: "Full utilisation" for ARC and Westwood+: mean goodput at least this share of capacity.
ROLLOFF_SHARE = 0.8
#: The levels at which the TCPs' "roll down above 0.8 s" is read (see the module docstring).
ROLLOFF_LEVELS = (0.8, 0.5, 0.3)


def rolloff_rtt(df: pd.DataFrame, protocol: str, share: float = ROLLOFF_SHARE) -> float:
    """The largest RTT of the Fig. 3 grid up to which (every smaller RTT included) the mean
    goodput stays at or above ``share`` × capacity; NaN if not even the smallest does."""
    f = _fig3(df)
    means = f[f["protocol"] == protocol].groupby("rtt_s")["goodput_bps"].mean().sort_index()
    last = float("nan")
    for rtt, g in means.items():
        if g < share * CAPACITY_BPS:
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


#: Why the TCPs cannot hold 80 % of the link at 0.8 s (the bound is drawn on Fig. 3).
MATHIS_MECHANISM = (
    "Mathis et al. (CCR 1997) bound a Reno-family TCP's goodput by MSS/RTT·sqrt(3/(2bp)): with delayed ACKs "
    f"(b = 2) and p = 0.001, {mathis_goodput_bps(0.8) / 1e3:.0f} kb/s at RTT 0.8 s, i.e. 80 % of the link only up "
    f"to {mathis_rtt_at(0.8):.2f} s; the 80 % reading of 'roll down above 0.8 s' is out of reach of any such TCP "
    "(Fig. 3 draws the bound; `ccsim reproduce arc-planetary --full`, the roll-off claims at 50 % and 30 %).")


def _rolloff_claim(protocol: str, paper_rtt: float, tolerance: float, text: str,
                   share: float = ROLLOFF_SHARE) -> Claim:
    reno_family = protocol in TCPS and protocol != "Westwood+"
    mathis = f"; Mathis bound at {share:.0%}: {mathis_rtt_at(share):.2g} s" if reno_family else ""
    mechanism = MATHIS_MECHANISM if reno_family and share >= 0.8 else ""
    return Claim("Fig. 3", f"{protocol}: {text}, read at {share:.0%} of capacity (largest RTT up to which mean "
                 f"goodput ≥ {share:.0%}{mathis})", paper_rtt, lambda df: rolloff_rtt(df, protocol, share), unit="s",
                 tolerance=tolerance, quick=False, mechanism=mechanism)


# Quick mode (2 MB files, RTTs 0.5–50 s, two seeds) decides two claims: Fig. 4 in a weaker form
# (ARC, which probes by time rather than by round trip, must still beat every TCP at every
# loss rate, ≥ 1×, while a 2 MB transfer lasts a few round trips of 600 s) and Fig. 5's
# falling goodput. The others need the paper's 1 GB files (utilisation, roll-off, the TCPs at
# 10 s, the plateau) or RTTs beyond the quick grid (2000 s).
CLAIMS = [
    Claim("Fig. 3", "ARC fills the link below RTT 10 s: smallest mean goodput over RTT ≤ 5 s, p = 0.001 "
          "(payload ceiling 0.973 Mb/s)", 0.9, _claim_arc_full, unit="Mb/s", kind="at_least", quick=False),
    _rolloff_claim("ARC", 10.0, 5.0, "full utilisation up to RTT 10 s"),
    *[_rolloff_claim(p, 0.8, 0.5, "goodput rolls down above RTT 0.8 s", share)
      for share in ROLLOFF_LEVELS for p in ["NewReno", "Reno-SACK", "Reno-FACK", "Vegas"]],
    _rolloff_claim("Westwood+", 2.0, 1.0, "goodput rolls down above RTT 2 s"),
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


def _per_protocol_figure(f: pd.DataFrame, x: str, xlabel: str, title: str, out_dir: Path, name: str,
                         mathis: bool = False) -> Path:
    """Goodput against `x`, one series per protocol (every seed a point, the mean a line)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for proto in PROTOCOLS:
        rows = f[f["protocol"] == proto]
        if len(rows):
            _draw(ax, rows, x, proto, COLORS[proto], MARKERS[proto])
    if mathis and len(f):
        import numpy as np

        xs = np.logspace(math.log10(f[x].min()), math.log10(f[x].max()), 200)
        ax.plot(xs, [mathis_goodput_bps(r) / 1e3 for r in xs], "k--", lw=1,
                label="Mathis bound, b = 2, p = 0.001")
        for share in ROLLOFF_LEVELS:
            ax.axhline(share * CAPACITY_BPS / 1e3, color="0.75", lw=0.6)
    _finish(ax, xlabel, title)
    return _save(fig, out_dir, name)


def fig3(df: pd.DataFrame, out_dir: Path) -> Path:
    f = _fig3(df)
    return _per_protocol_figure(f, "rtt_s", "RTT (s)", f"Goodput vs RTT, p = {FIG3_LOSS:g}, {_file_text(f)} file",
                                out_dir, "fig3_goodput_vs_rtt.png", mathis=True)


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
    return json.dumps(protocol_flow(proto), separators=(", ", " = ")).replace('"', "")


EXPERIMENT = Experiment(
    name="arc-planetary",
    title="A congestion control algorithm for the planetary Internet (ARC): goodput against RTT, loss and file size",
    paper="L. A. Grieco and S. Mascolo, IFAC World Congress 2005",
    description=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "",
    quick=quick,
    full=full,
    sensitivity=sensitivity,
    unstated=UNSTATED,
    figures=[
        Figure("fig3", "Goodput against RTT, p = 0.001", "Fig. 3", fig3,
               "Log axes. Dots: seeds (hollow: capped at the time limit, goodput = delivered / time); line: mean; "
               "dashed: the Mathis bound (b = 2, p = 0.001); thin grey lines: the 80, 50 and 30 % levels."),
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
        "Not modelled from the ns-2 agents: Vegas's ¾ cut and timer backoff at fast retransmit, FACK's cwnd = 1 at "
        "recovery entry (docs/sources/ns2.md §3.4-3.5), the short-integer RTT arithmetic above 655 s (an ns-2 "
        "artefact, §2.1), Westwood+'s own ns-2 module (not in the distribution).",
        f"Full: file {FULL['file_mb']:g} MB, {FULL['seeds']} seeds; Fig. 3 RTTs {FULL['fig3_rtts']} s; Fig. 4 p "
        f"{FULL['fig4_losses']}; Fig. 5 RTTs {FULL['fig5_rtts']} s, sizes {FULL['fig5_sizes_mb']} MB; all six "
        f"protocols. Sensitivity reruns: {SENSITIVITY['seeds']} seeds, Fig. 3 RTTs {SENSITIVITY['fig3_rtts']} s, Fig. 5 "
        f"RTTs {SENSITIVITY['fig5_rtts']} s.",
        f"Quick: file {QUICK['file_mb']:g} MB, {QUICK['seeds']} seeds; Fig. 3 RTTs {QUICK['fig3_rtts']} s; Fig. 4 p "
        f"{QUICK['fig4_losses']}; Fig. 5 RTTs {QUICK['fig5_rtts']} s, sizes {QUICK['fig5_sizes_mb']} MB; protocols "
        f"{', '.join(QUICK_PROTOCOLS)}. Quick claims describe 2 MB transfers, not the paper's 1 GB.",
        "Roll-off RTT claims: the tolerance admits one neighbouring grid RTT. Claims over absent points are NaN.",
    ),
)
