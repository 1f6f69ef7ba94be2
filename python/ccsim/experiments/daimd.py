"""DAIMD, a hybrid delay-based coupled congestion control for MPTCP (González, Pradilla, Esteve
& Palau, MELECON 2016): Tables I and II, Figs. 2–6, and the sensitivity to the unstated D0.

Topology (the paper's Fig. 1): hosts ``s`` and ``d`` joined by two disjoint paths, A through
router ``a`` and B through router ``b``. Each path is one ideal link (the s–a or s–b link, rate
C and one-way delay OWD, duplex) with a DropTail queue sized to its bandwidth-delay product
C × 2·OWD in 1500-byte packets (83, 42 and 21 packets for 10 Mb/s/50 ms, 5 Mb/s/50 ms and
5 Mb/s/25 ms), then a 1 Gb/s, 1 µs link to ``d``. The MPTCP connection ``mp`` has subflow 1 on
path A (row ``mp/sf1``) and subflow 2 on path B (``mp/sf2``). With cross traffic, one Reno flow
per path (``renoA``, ``renoB``) from ``s`` to ``d`` pinned to that path, so it shares only that
bottleneck and has the subflow's RTT. Sources are greedy and start together: each flow's start
is drawn in [0, 100 ms] from its own random stream (the seeds differ only there).

Settings: "cap" (A 10 Mb/s, B 5 Mb/s, both OWD 50 ms), "delay" (both 5 Mb/s, OWD 25 and
50 ms), "equal" (both 5 Mb/s, 50 ms: not specified by the paper, which gives fair shares of
2.5 Mb/s consistent with it; ALGORITHMS.md §3.3.3). Table I: idle paths, cap and delay; Table
II: one Reno flow per path, all three.

Stack (the paper ran Linux in ns-3 DCE; its settings are not given, ALGORITHMS.md §3.3.3 [D]):
MSS 1460 + 40 bytes of headers, SACK recovery, delayed ACKs (40 ms, Linux's minimum), initial
window 10, minimum RTO 200 ms (Linux), RFC 6356 byte-counting LIA increase; the Reno flows use
the same settings with Reno congestion control. DAIMD's unstated parameters take the defaults
of docs/controllers/daimd.md: D = RTT sample − the subflow's minimum RTT, D0 = 20 ms, W0 = 4
packets, T = one smoothed RTT (and no second delay backoff within T), backoff 0.7·cwnd.

Throughput ("average throughput of each flow", Tables I–II): the mean of the sampled goodput
(in-order bytes delivered, per subflow at the subflow level) after a warm-up (20 s of 120 s in
full mode), averaged over the seeds. Queueing delay per path: the subflow's mean RTT sample
minus its smallest. Losses after slow start: loss events (fast retransmits and timeouts) of a
subflow after its first one, which ends slow start.

The D0 sensitivity reruns DAIMD with D0 from 5 to 60 ms in every setting. Differences from
the paper are reported, not tuned away (see docs/daimd.md). Quick mode (shorter runs, one seed,
three D0 values in two settings) is for tests; its numbers are not the reproduction.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim.experiments import Claim, Experiment, Figure, load_table
from ccsim.experiments._plot import plt as _plt
from ccsim.experiments._plot import save as _save
from ccsim.scenario import Scenario
from ccsim.sweep import Plan

if TYPE_CHECKING:
    import pandas as pd

# ---------------------------------------------------------------------------- parameters

MSS, HEADER = 1460, 40
#: Paths per setting: (rate Mb/s, one-way delay ms) for A and B.
SETTINGS: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "cap": ((10, 50), (5, 50)),
    "delay": ((5, 25), (5, 50)),
    "equal": ((5, 50), (5, 50)),
}
SETTING_TEXT = {"cap": "different capacity", "delay": "different delay", "equal": "equal paths"}
IDLE_SETTINGS = ["cap", "delay"]
SHARED_SETTINGS = ["cap", "delay", "equal"]

#: Subflow / Reno stack shared by every flow (see the module docstring).
STACK: dict[str, Any] = {"mss": MSS, "header": HEADER, "recovery": "sack", "delayed_ack": "40ms",
                         "init_cwnd": 10, "rto": {"min": "200ms"}}
#: DAIMD's defaults (docs/controllers/daimd.md), written out so the report shows them.
DAIMD_DEFAULTS: dict[str, Any] = {"kind": "daimd", "d0": "20ms", "w0": 4, "hold": "srtt", "delay_beta": 0.7}
CCS: dict[str, dict[str, Any]] = {"DAIMD": DAIMD_DEFAULTS, "LIA": {"kind": "lia"}}
START = ["0s", "100ms"]

FULL = {"duration_s": 120, "warmup_s": 20, "seeds": 10, "interval": "100ms",
        "d0_ms": [5, 10, 20, 30, 45, 60, 80, 100], "d0_rtt": [0.3, 0.45, 0.6, 0.75, 0.9],
        "d0_settings": [("idle", s) for s in IDLE_SETTINGS] + [("shared", s) for s in SHARED_SETTINGS]}
QUICK = {"duration_s": 40, "warmup_s": 10, "seeds": 1, "interval": "200ms",
         "d0_ms": [10, 20, 45], "d0_rtt": [0.6], "d0_settings": [("idle", "cap"), ("shared", "cap")]}

# The paper's numbers (Mb/s).
#: Table I, DAIMD on idle paths: (setting, path) → throughput; path "total" = A + B.
PAPER_TABLE1 = {("cap", "A"): 9.4, ("cap", "B"): 4.2, ("cap", "total"): 13.6,
                ("delay", "A"): 4.5, ("delay", "B"): 4.6, ("delay", "total"): 9.1}
#: Table II, with one Reno flow per path: (setting, column, path) → throughput. Columns:
#: "DAIMD", "LIA" (the MPTCP subflows) and "Reno (DAIMD)" (the Reno flows in the DAIMD runs).
PAPER_TABLE2 = {
    ("cap", "DAIMD", "A"): 3.4, ("cap", "DAIMD", "B"): 1.0, ("cap", "DAIMD", "total"): 4.4,
    ("cap", "LIA", "A"): 3.6, ("cap", "LIA", "B"): 1.7, ("cap", "LIA", "total"): 5.3,
    ("cap", "Reno (DAIMD)", "A"): 5.8, ("cap", "Reno (DAIMD)", "B"): 3.7,
    ("delay", "DAIMD", "A"): 1.4, ("delay", "DAIMD", "B"): 1.1, ("delay", "DAIMD", "total"): 2.5,
    ("delay", "LIA", "A"): 1.8, ("delay", "LIA", "B"): 1.6, ("delay", "LIA", "total"): 3.4,
    ("delay", "Reno (DAIMD)", "A"): 2.9, ("delay", "Reno (DAIMD)", "B"): 2.8,
    ("equal", "DAIMD", "A"): 1.3, ("equal", "DAIMD", "B"): 1.2, ("equal", "DAIMD", "total"): 2.5,
    ("equal", "LIA", "A"): 1.5, ("equal", "LIA", "B"): 1.7, ("equal", "LIA", "total"): 3.2,
    ("equal", "Reno (DAIMD)", "A"): 3.5, ("equal", "Reno (DAIMD)", "B"): 3.7,
}
#: Claim tolerances (Mb/s), fixed before comparing: a tenth of the larger path's capacity on
#: idle paths; half a Mb/s with cross traffic (a third of the smallest Reno share).
TOL_TABLE1 = 1.0
TOL_TABLE2 = 0.5

ROW = {"A": "mp/sf1", "B": "mp/sf2"}
RENO_ROW = {"A": "renoA", "B": "renoB"}


def bdp_packets(rate_mbps: float, owd_ms: float) -> int:
    """Bandwidth-delay product C × 2·OWD in 1500-byte packets (the paper's queue size)."""
    return max(2, round(rate_mbps * 1e6 * 2 * owd_ms / 1e3 / 8 / (MSS + HEADER)))


def _num(x: float) -> str:
    return f"{x:.6f}".rstrip("0").rstrip(".")


def scenario(setting: str, cc: dict[str, Any], cross: bool, duration_s: float, interval: str, seed: int = 1) -> Scenario:
    """Fig. 1's topology for one setting, an MPTCP connection with controller ``cc`` and,
    with ``cross``, one Reno flow per path."""
    links = []
    for router, (rate, owd) in zip("ab", SETTINGS[setting]):
        links.append({"name": f"path{router.upper()}", "between": ["s", router], "rate": f"{_num(rate)}Mbps",
                      "delay": f"{_num(owd)}ms", "queue": {"kind": "droptail", "limit": f"{bdp_packets(rate, owd)}p"}})
        links.append({"between": [router, "d"], "rate": "1Gbps", "delay": "1us"})
    flows = [{"name": "mp", "from": "s", "to": "d", "transport": "mptcp", "cc": copy.deepcopy(cc), **copy.deepcopy(STACK),
              "paths": [["s", "a", "d"], ["s", "b", "d"]], "app": {"kind": "bulk", "start": list(START)}}]
    if cross:
        for p in "AB":
            flows.append({"name": RENO_ROW[p], "from": "s", "to": "d", "transport": "tcp", "cc": "reno", **copy.deepcopy(STACK),
                          "paths": [["s", p.lower(), "d"]], "app": {"kind": "bulk", "start": list(START)}})
    doc = {"simulation": {"duration": f"{_num(duration_s)}s", "seed": seed},
           "trace": {"interval": interval}, "link": links, "flow": flows}
    return Scenario(doc, source=f"daimd: {setting}, {cc['kind']}, {'Reno cross traffic' if cross else 'idle'}")


def _plans(cfg: dict[str, Any]) -> list[Plan]:
    out = []
    for part, cross, settings in (("table1", False, IDLE_SETTINGS), ("table2", True, SHARED_SETTINGS)):
        for setting in settings:
            for name, cc in CCS.items():
                sc = scenario(setting, cc, cross, cfg["duration_s"], cfg["interval"])
                labels = {"part": part, "setting": setting, "cross": "reno" if cross else "idle", "cc": name,
                          "d0_ms": 20.0 if name == "DAIMD" else float("nan"), "d0_rtt": float("nan"),
                          "warmup_s": float(cfg["warmup_s"])}
                out.append(Plan(base=sc, seeds=cfg["seeds"], labels=labels, series=("flows", "backoffs"),
                                name=f"{part} {setting} {name}"))
    for cross, setting in cfg["d0_settings"]:
        for d0 in cfg["d0_ms"]:
            if d0 == 20:
                continue  # the default: the Table I/II runs
            cc = {**DAIMD_DEFAULTS, "d0": f"{d0}ms"}
            sc = scenario(setting, cc, cross == "shared", cfg["duration_s"], cfg["interval"])
            labels = {"part": "d0", "setting": setting, "cross": "reno" if cross == "shared" else "idle", "cc": "DAIMD",
                      "d0_ms": float(d0), "d0_rtt": float("nan"), "warmup_s": float(cfg["warmup_s"])}
            out.append(Plan(base=sc, seeds=cfg["seeds"], labels=labels, series=("flows",), name=f"d0 {d0} ms {cross} {setting}"))
        for frac in cfg["d0_rtt"]:
            cc = {**DAIMD_DEFAULTS, "d0_rtt": frac}
            sc = scenario(setting, cc, cross == "shared", cfg["duration_s"], cfg["interval"])
            labels = {"part": "d0rel", "setting": setting, "cross": "reno" if cross == "shared" else "idle", "cc": "DAIMD",
                      "d0_ms": float("nan"), "d0_rtt": float(frac), "warmup_s": float(cfg["warmup_s"])}
            out.append(Plan(base=sc, seeds=cfg["seeds"], labels=labels, series=("flows",),
                            name=f"d0 {frac:g} x minRTT {cross} {setting}"))
    return out


def quick() -> list[Plan]:
    return _plans(QUICK)


def full() -> list[Plan]:
    return _plans(FULL)


# ---------------------------------------------------------------------------- measures


#: throughputs() per (store, plan): every claim and figure needs them, and the series are big.
_CACHE: dict[tuple[str, str, int], pd.DataFrame] = {}


def throughputs(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (point, flow row): the mean sampled goodput after the warm-up, in Mb/s,
    with the point's labels."""
    key = (str(df.attrs.get("store")), str(df.attrs.get("plan")), len(df))
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = _throughputs(df)
    return _CACHE[key]


def _throughputs(df: pd.DataFrame) -> pd.DataFrame:
    s = load_table(df, "flow_series")
    s = s[s["time_s"] > s["warmup_s"]]
    keys = ["point_id", "part", "setting", "cross", "cc", "d0_ms", "d0_rtt", "seed", "flow"]
    out = s.groupby(keys, observed=True, dropna=False)["rate_bps"].mean().reset_index()
    out["mbps"] = out["rate_bps"] / 1e6
    out["flow"] = out["flow"].astype(str)
    return out


def table_values(df: pd.DataFrame, cross: str, cc: str, d0_ms: float = 20.0) -> pd.DataFrame:
    """Mean over seeds (Mb/s) per setting and row: A, B, total (the MPTCP subflows and their
    sum), RenoA, RenoB."""
    t = throughputs(df)
    sel = t[(t["cross"] == cross) & (t["cc"] == cc)]
    if cc == "DAIMD":
        sel = sel[sel["d0_ms"] == d0_ms]
    rows = []
    for setting, g in sel.groupby("setting"):
        by = g.groupby("flow")["mbps"].mean()
        per_seed_total = g[g["flow"].isin(ROW.values())].groupby("point_id")["mbps"].sum()
        rows.append({"setting": setting, "A": by.get(ROW["A"], math.nan), "B": by.get(ROW["B"], math.nan),
                     "total": float(per_seed_total.mean()) if len(per_seed_total) else math.nan,
                     "RenoA": by.get(RENO_ROW["A"], math.nan), "RenoB": by.get(RENO_ROW["B"], math.nan)})
    import pandas as pd

    return pd.DataFrame(rows).set_index("setting") if rows else pd.DataFrame(columns=["A", "B", "total", "RenoA", "RenoB"])


def _cell(df: pd.DataFrame, cross: str, cc: str, setting: str, col: str) -> float:
    t = table_values(df, cross, cc)
    return float(t.loc[setting, col]) if setting in t.index else math.nan


def subflow_stats(df: pd.DataFrame) -> pd.DataFrame:
    """Per Table I/II run and subflow: queueing delay (ms, mean RTT − min RTT) and loss
    events after slow start."""
    f = df[df["part"].isin(["table1", "table2"]) & df["name"].isin(ROW.values())].copy()
    f["path"] = f["name"].map({v: k for k, v in ROW.items()})
    f["queue_ms"] = (f["rtt_mean_s"] - f["rtt_min_s"]) * 1e3
    f["losses_after_ss"] = (f["fast_recoveries"] + f["timeouts"] - 1).clip(lower=0)
    return f


def queueing_ratio(df: pd.DataFrame, cross: str) -> float:
    """Largest ratio DAIMD / LIA of the mean queueing delay over (setting, path)."""
    f = subflow_stats(df)
    f = f[f["cross"] == cross]
    m = f.groupby(["cross", "setting", "path", "cc"])["queue_ms"].mean().unstack("cc")
    if "DAIMD" not in m or "LIA" not in m:
        return math.nan
    return float((m["DAIMD"] / m["LIA"]).max())


def losses_after_slow_start(df: pd.DataFrame, cross: str, cc: str) -> float:
    """Mean over runs of the connection's loss events after slow start (both subflows)."""
    f = subflow_stats(df)
    f = f[(f["cross"] == cross) & (f["cc"] == cc)]
    if f.empty:
        return math.nan
    return float(f.groupby("point_id")["losses_after_ss"].sum().mean())


def max_subflow_over_reno(df: pd.DataFrame, cc: str) -> float:
    """Table II: the largest ratio subflow / Reno flow on the same path (means over seeds)."""
    t = table_values(df, "reno", cc)
    if t.empty:
        return math.nan
    return float(max((t["A"] / t["RenoA"]).max(), (t["B"] / t["RenoB"]).max()))


# ---------------------------------------------------------------------------- claims


def _t1(setting: str, path: str) -> Claim:
    what = {"A": "path A", "B": "path B", "total": "total"}[path]
    return Claim("Table I", f"DAIMD, idle paths, {SETTING_TEXT[setting]}: {what} throughput", PAPER_TABLE1[(setting, path)],
                 lambda df: _cell(df, "idle", "DAIMD", setting, path), unit="Mb/s", tolerance=TOL_TABLE1)


def _t2(setting: str, col: str, path: str) -> Claim:
    what = {"A": "path A", "B": "path B", "total": "MPTCP total"}[path]
    cc = "DAIMD" if col.startswith("Reno") or col == "DAIMD" else "LIA"
    key = {"A": "RenoA", "B": "RenoB"}[path] if col.startswith("Reno") else path
    label = f"Reno flow on {what} in the DAIMD runs" if col.startswith("Reno") else f"{col} {what}"
    return Claim("Table II", f"Reno cross traffic, {SETTING_TEXT[setting]}: {label}", PAPER_TABLE2[(setting, col, path)],
                 lambda df: _cell(df, "reno", cc, setting, key), unit="Mb/s", tolerance=TOL_TABLE2)


#: Why Table I's capacity-setting path A and total fall just short (docs/daimd.md, item 1).
TABLE1_CAP_A = ("D0 = 20 ms on the 100 ms path: a 0.7 backoff keeps the pipe full only if D0 ≥ (1/0.7 − 1)·RTT0 ≈ "
                "43 ms, so after each backoff the link idles for a while; the D0 sensitivity gives 13.49 Mb/s in "
                "total at D0 = 30 ms and the 14.60 payload ceiling from 45 ms (docs/daimd.md, item 1).")
#: Why DAIMD starves next to Reno in Table II (docs/daimd.md, item 3).
TABLE2_DAIMD = ("A Reno flow keeps its queue between half and all of a BDP, so D = RTT − min RTT stays above D0 "
                "almost permanently: DAIMD backs off by 0.7 every two RTTs and its subflows sit at the W0 floor "
                "(135–230 delay backoffs per subflow and run; docs/daimd.md, item 3 and the d0 figure).")


def _cell_claim(claim: Claim, cross: str, cc: str, setting: str, path: str) -> Claim:
    """Quick mode decides the idle-path cells (Table I; 40 s runs measure them within ±1 Mb/s)
    but not the cross-traffic cells of Table II: one 40 s run of a subflow sharing a
    bottleneck with a Reno flow moves by more than ±0.5 Mb/s from seed to seed."""
    from dataclasses import replace

    if cross == "idle":
        mech = TABLE1_CAP_A if setting == "cap" and path in ("A", "total") else ""
        return replace(claim, mechanism=mech)
    return replace(claim, quick=False, mechanism=TABLE2_DAIMD if cc == "DAIMD" else "")


CLAIMS = [
    *[_cell_claim(_t1(s, p), "idle", "DAIMD", s, p) for s in IDLE_SETTINGS for p in ("A", "B", "total")],
    Claim("Figs. 2–3", "DAIMD on idle paths: loss events after slow start per run (\"no loss after slow start\")", 0.0,
          lambda df: losses_after_slow_start(df, "idle", "DAIMD"), unit="", tolerance=0.5, kind="at_most"),
    *[_cell_claim(_t2(s, c, p), "reno", c, s, p) for s in SHARED_SETTINGS for c in ("DAIMD", "LIA")
      for p in ("A", "B", "total")],
    *[_cell_claim(_t2(s, "Reno (DAIMD)", p), "reno", "Reno", s, p) for s in SHARED_SETTINGS for p in ("A", "B")],
    # Quick decides DAIMD's ratio (a factor of seven below 1) and the idle-path queueing; not
    # LIA's ratio (0.80 in full mode, a subflow's share next to Reno moves by more in 40 s) nor
    # the queueing with Reno traffic (set by the Reno flows, within 10 % of LIA's).
    Claim("Table II", "DAIMD: largest subflow / Reno ratio on a path (\"never more than the Reno flow\")", 1.0,
          lambda df: max_subflow_over_reno(df, "DAIMD"), unit="×", kind="at_most"),
    Claim("Table II", "LIA: largest subflow / Reno ratio on a path", 1.0,
          lambda df: max_subflow_over_reno(df, "LIA"), unit="×", kind="at_most", quick=False),
    Claim("§IV.B", "Idle paths: DAIMD induces less queueing delay than LIA (largest DAIMD / LIA ratio of a path's mean "
          "queueing delay)", 1.0, lambda df: queueing_ratio(df, "idle"), unit="×", kind="at_most"),
    Claim("§IV.B", "With Reno cross traffic: DAIMD induces less queueing delay than LIA (largest DAIMD / LIA ratio of a "
          "path's mean queueing delay)", 1.0, lambda df: queueing_ratio(df, "reno"), unit="×", kind="at_most",
          quick=False),
]


# ---------------------------------------------------------------------------- figures


COLORS = {"mp/sf1": "#c03030", "mp/sf2": "#4878a8", "renoA": "#e8a0a0", "renoB": "#9ab8d8"}
LABELS = {"mp/sf1": "subflow A", "mp/sf2": "subflow B", "renoA": "Reno on A", "renoB": "Reno on B"}


def _cwnd_figure(df: pd.DataFrame, out_dir: Path, cross: str, setting: str, name: str) -> Path:
    """cwnd (packets) over time of the first seed's run, DAIMD above and LIA below; delay
    backoffs circled, loss backoffs crossed."""
    plt = _plt()
    series = load_table(df, "flow_series")
    backoffs = load_table(df, "backoffs")
    fig, axes = plt.subplots(2, 1, figsize=(8, 5.6), sharex=True)
    for ax, cc in zip(axes, ["DAIMD", "LIA"]):
        runs = df[(df["part"].isin(["table1", "table2"])) & (df["cross"] == cross) & (df["setting"] == setting) & (df["cc"] == cc)]
        if runs.empty:
            ax.set_title(f"{cc}: no run")
            continue
        pid = runs.sort_values("replicate")["point_id"].iloc[0]
        s = series[series["point_id"] == pid]
        b = backoffs[backoffs["point_id"] == pid] if len(backoffs) else backoffs
        for row in ["mp/sf1", "mp/sf2", "renoA", "renoB"]:
            r = s[s["flow"].astype(str) == row]
            if r.empty:
                continue
            ax.plot(r["time_s"], r["cwnd_bytes"] / (MSS + 0.0), lw=0.9, color=COLORS[row], label=LABELS[row])
            if row.startswith("mp/") and len(b):
                mine = b[b["flow"].astype(str) == row]
                d = mine[mine["cause"].astype(str) == "delay"]
                lo = mine[mine["cause"].astype(str).isin(["loss", "timeout"])]
                ax.scatter(d["time_s"], d["cwnd_before_bytes"] / MSS, s=22, facecolors="none", edgecolors=COLORS[row], lw=0.8)
                ax.scatter(lo["time_s"], lo["cwnd_before_bytes"] / MSS, s=22, marker="x", color=COLORS[row], lw=0.8)
        (ra, oa), (rb, ob) = SETTINGS[setting]
        ax.set_title(f"{cc}: A {ra:g} Mb/s {oa:g} ms, B {rb:g} Mb/s {ob:g} ms, {'Reno on each path' if cross == 'reno' else 'idle paths'}",
                     fontsize="small")
        ax.set_ylabel("cwnd (packets)")
        ax.grid(alpha=0.25)
        ax.legend(fontsize="x-small", loc="upper right", ncol=2)
    axes[-1].set_xlabel("time (s)")
    return _save(fig, out_dir, name)


def _fig(cross: str, setting: str, name: str):
    return lambda df, out_dir: _cwnd_figure(df, out_dir, cross, setting, name)


def fig_tables(df: pd.DataFrame, out_dir: Path) -> Path:
    """Tables I and II, ours beside the paper's (also written as tables.md)."""
    lines = ["Table I — idle paths, DAIMD (Mb/s): paper / ccsim (difference)", "",
             "| setting | path A | path B | total |", "|---|---|---|---|"]
    t1 = table_values(df, "idle", "DAIMD")
    for s in IDLE_SETTINGS:
        cells = [f"{PAPER_TABLE1[(s, p)]:.1f} / {t1.loc[s, p]:.2f} ({t1.loc[s, p] - PAPER_TABLE1[(s, p)]:+.2f})" if s in t1.index else "—"
                 for p in ("A", "B", "total")]
        lines.append(f"| {SETTING_TEXT[s]} | " + " | ".join(cells) + " |")
    lines += ["", "Table II — one Reno flow per path (Mb/s): paper / ccsim (difference)", "",
              "| setting | row | DAIMD | LIA | Reno (DAIMD runs) |", "|---|---|---|---|---|"]
    t2 = {cc: table_values(df, "reno", cc) for cc in CCS}
    for s in SHARED_SETTINGS:
        for p in ("A", "B", "total"):
            cells = []
            for col, cc, key in (("DAIMD", "DAIMD", p), ("LIA", "LIA", p), ("Reno (DAIMD)", "DAIMD", {"A": "RenoA", "B": "RenoB"}.get(p))):
                paper = PAPER_TABLE2.get((s, col, p))
                if paper is None or key is None or s not in t2[cc].index:
                    cells.append("—")
                    continue
                ours = float(t2[cc].loc[s, key])
                cells.append(f"{paper:.1f} / {ours:.2f} ({ours - paper:+.2f})")
            lines.append(f"| {SETTING_TEXT[s]} | {p} | " + " | ".join(cells) + " |")
    (Path(out_dir) / "tables.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9.5, 0.32 * len(lines) + 0.5))
    ax.axis("off")
    ax.text(0, 1, "\n".join(line for line in lines if not line.startswith("|---")), family="monospace", fontsize=8, va="top")
    return _save(fig, out_dir, "tables.png")


def fig_queueing(df: pd.DataFrame, out_dir: Path) -> Path:
    """Mean queueing delay per path (mean RTT − min RTT of the subflow), DAIMD vs LIA, and the
    loss events after slow start."""
    plt = _plt()
    f = subflow_stats(df)
    q = f.groupby(["cross", "setting", "path", "cc"])["queue_ms"].mean().unstack("cc")
    losses = f.groupby(["cross", "setting", "path", "cc"])["losses_after_ss"].mean().unstack("cc")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, m, ylabel in ((axes[0], q, "mean queueing delay (ms)"), (axes[1], losses, "loss events after slow start per run")):
        labels = [f"{c}\n{s} {p}" for c, s, p in m.index]
        xs = range(len(labels))
        for i, cc in enumerate(["DAIMD", "LIA"]):
            if cc in m:
                ax.bar([x + (i - 0.5) * 0.38 for x in xs], m[cc].values, width=0.38, label=cc,
                       color="#c03030" if cc == "DAIMD" else "#4878a8")
        ax.set_xticks(list(xs), labels, fontsize="x-small")
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.25)
        ax.legend(fontsize="small")
    return _save(fig, out_dir, "queueing_and_losses.png")


def fig_d0(df: pd.DataFrame, out_dir: Path) -> Path:
    """DAIMD's MPTCP total throughput against D0 (top: fixed D0 in ms; bottom: D0 as a fraction
    of the subflow's smallest RTT), per setting; LIA's as a dashed line; the paper's DAIMD
    totals as stars."""
    plt = _plt()
    t = throughputs(df)
    t = t[t["flow"].isin(ROW.values())]
    tot = t.groupby(["point_id", "cross", "setting", "cc", "d0_ms", "d0_rtt"], dropna=False)["mbps"].sum().reset_index()
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    colors = {"cap": "#c03030", "delay": "#4878a8", "equal": "#6aa84f"}
    for row, (xcol, xlabel) in enumerate((("d0_ms", "D0 (ms)"), ("d0_rtt", "D0 / smallest RTT of the subflow"))):
        for ax, cross in zip(axes[row], ["idle", "reno"]):
            sel = tot[tot["cross"] == cross]
            for setting in SETTINGS:
                d = sel[(sel["setting"] == setting) & (sel["cc"] == "DAIMD") & sel[xcol].notna()]
                if d.empty:
                    continue
                m = d.groupby(xcol)["mbps"].mean().sort_index()
                ax.plot(m.index, m.values, "-o", ms=4, color=colors[setting], label=f"DAIMD, {SETTING_TEXT[setting]}")
                lia = sel[(sel["setting"] == setting) & (sel["cc"] == "LIA")]["mbps"].mean()
                if not math.isnan(lia):
                    ax.axhline(lia, color=colors[setting], ls="--", lw=0.9, label=f"LIA, {SETTING_TEXT[setting]}")
                paper = PAPER_TABLE1.get((setting, "total")) if cross == "idle" else PAPER_TABLE2.get((setting, "DAIMD", "total"))
                if paper is not None:
                    ax.axhline(paper, color=colors[setting], ls=":", lw=1.2)
                    ax.plot([m.index.min()], [paper], "*", ms=11, color=colors[setting], mec="k", mew=0.5)
            ax.set(xlabel=xlabel, ylabel="MPTCP throughput (Mb/s)",
                   title="idle paths" if cross == "idle" else "one Reno flow per path")
            ax.grid(alpha=0.25)
            ax.legend(fontsize="x-small")
    return _save(fig, out_dir, "d0_sensitivity.png")


def _notes() -> tuple[str, ...]:
    return (
        "Topology: s–a (path A) and s–b (path B) are the bottlenecks, duplex, DropTail queues of C × 2·OWD in "
        "1500-byte packets: " + "; ".join(
            f"{SETTING_TEXT[s]}: A {a[0]:g} Mb/s {a[1]:g} ms {bdp_packets(*a)}p, B {b[0]:g} Mb/s {b[1]:g} ms {bdp_packets(*b)}p"
            for s, (a, b) in SETTINGS.items()) + "; then 1 Gb/s, 1 µs links to d.",
        f"Stack of every flow: {STACK}; starts uniform in {START}.",
        f"DAIMD: {DAIMD_DEFAULTS} (docs/controllers/daimd.md); LIA: RFC 6356, byte counting.",
        f"Full: {FULL['duration_s']} s runs, averages after {FULL['warmup_s']} s, {FULL['seeds']} seeds; D0 ∈ {FULL['d0_ms']} ms "
        f"and D0 = f × smallest RTT with f ∈ {FULL['d0_rtt']} in every setting.",
        f"Quick: {QUICK['duration_s']} s runs, averages after {QUICK['warmup_s']} s, {QUICK['seeds']} seed; D0 ∈ {QUICK['d0_ms']} ms "
        "on the capacity settings. Quick numbers are for tests, not the reproduction.",
        f"Tolerances: ±{TOL_TABLE1:g} Mb/s for Table I cells, ±{TOL_TABLE2:g} Mb/s for Table II cells (set before comparing).",
    )


EXPERIMENT = Experiment(
    name="daimd",
    title="Hybrid delay-based congestion control for Multipath TCP (DAIMD): Tables I–II, Figs. 2–6, D0 sensitivity",
    paper="R. González, J. Pradilla, M. Esteve and C. E. Palau, MELECON 2016",
    description=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "",
    quick=quick,
    full=full,
    figures=[
        Figure("tables", "Tables I and II: the paper's values, ours and the difference", "Tables I–II", fig_tables,
               "paper / ccsim (ccsim − paper), Mb/s, means over seeds after the warm-up; also written as tables.md."),
        Figure("fig2", "cwnd over time, idle paths of different capacity (DAIMD above, LIA below)", "Fig. 2",
               _fig("idle", "cap", "fig2_idle_capacity.png"), "First seed. Circles: delay-triggered backoffs; crosses: losses."),
        Figure("fig3", "cwnd over time, idle paths of different delay", "Fig. 3", _fig("idle", "delay", "fig3_idle_delay.png"),
               "First seed. Circles: delay-triggered backoffs; crosses: losses."),
        Figure("fig4", "cwnd over time, different capacity, one Reno flow per path", "Fig. 4",
               _fig("reno", "cap", "fig4_reno_capacity.png"), "First seed. Circles: delay backoffs; crosses: losses."),
        Figure("fig5", "cwnd over time, different delay, one Reno flow per path", "Fig. 5",
               _fig("reno", "delay", "fig5_reno_delay.png"), "First seed. Circles: delay backoffs; crosses: losses."),
        Figure("fig6", "cwnd over time, equal paths, one Reno flow per path", "Fig. 6",
               _fig("reno", "equal", "fig6_reno_equal.png"), "First seed. Circles: delay backoffs; crosses: losses."),
        Figure("queueing", "Mean queueing delay per path and loss events after slow start, DAIMD vs LIA", "§IV.B",
               fig_queueing, "Queueing delay: the subflow's mean RTT sample minus its smallest; means over seeds."),
        Figure("d0", "Sensitivity of DAIMD's throughput to D0 (not given by the paper)", "D0 (unstated)", fig_d0,
               "Dotted lines and stars: the paper's DAIMD totals; dashed: LIA in the same setting; D0 = 20 ms is the default."),
    ],
    claims=CLAIMS,
    notes=_notes(),
)
