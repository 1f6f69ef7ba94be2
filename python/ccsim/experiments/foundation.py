"""Foundation validation: the engine's TCP against ccsim's own validation requirements.

(a) Utilisation. One greedy TCP Reno flow on a 10 Mb/s path with a 100 ms round-trip
propagation time and a one-BDP DropTail buffer (125 000 bytes = 84 packets of 1500 bytes),
for each loss recovery (reno, newreno, sack). AIMD with a one-BDP buffer keeps the pipe full
(the window halves from 2 BDP to 1 BDP, and the buffer drains just as it empties), so in
steady state the bottleneck should be busy: the requirement is at least 95 % of capacity.
We report goodput / capacity, as the requirement is worded, from the sampled goodput after a
warm-up (slow start and its losses excluded). Goodput carries 1460 payload bytes per
1500-byte packet, so its ceiling is 1460/1500 = 97.33 % of the line rate: a result at the
ceiling means the bottleneck never idles.

(b) Fairness. N identical greedy flows (Reno, SACK, equal 40 ms RTTs, starts spread over the
first second) share the 100 Mb/s dumbbell bottleneck (one-BDP buffer, 333 packets), for N in
4, 8, 16. The requirement: Jain's fairness index of their goodputs at least 0.95.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ccsim.experiments import Claim, Experiment, Figure, jain, load_table
from ccsim.experiments._plot import plt as _plt
from ccsim.experiments._plot import save as _save
from ccsim.scenario import dumbbell
from ccsim.sweep import Plan

if TYPE_CHECKING:
    import pandas as pd

RECOVERIES = ["reno", "newreno", "sack"]
FLOW_COUNTS = [4, 8, 16]
CAPACITY_BPS = 10e6
PAYLOAD_SHARE = 1460 / 1500
REF = "ccsim requirement"


def _utilisation_plan(duration: str, warmup_s: float, seeds: int) -> Plan:
    base = dumbbell(
        n_flows=1,
        bottleneck_rate="10Mbps",
        bottleneck_delay="40ms",  # RTT = 2 × (5 + 40 + 5) ms = 100 ms
        access_delay="5ms",
        queue_packets=84,  # one BDP: 10 Mb/s × 100 ms = 125 000 B = 83.3 packets of 1500 B
        duration=duration,
        start_spread="0.5s" if seeds > 1 else "0s",
        trace_interval="100ms",
    )
    base.set("trace.links", "none")
    return Plan(
        base=base,
        grid={"flow.f0.recovery": RECOVERIES},
        seeds=seeds,
        series=("flows",),
        labels={"part": "utilisation", "n_flows": 1, "warmup_s": warmup_s},
        name="utilisation",
    )


def _fairness_plans(duration: str, seeds: int) -> list[Plan]:
    plans = []
    for n in FLOW_COUNTS:
        base = dumbbell(n_flows=n, duration=duration, start_spread="1s", trace_interval="0s")
        plans.append(Plan(base=base, seeds=seeds, labels={"part": "fairness", "n_flows": n, "warmup_s": 0.0}, name=f"fairness-{n}"))
    return plans


def quick() -> list[Plan]:
    return [_utilisation_plan("60s", 20.0, 1)] + _fairness_plans("60s", 2)


def full() -> list[Plan]:
    return [_utilisation_plan("300s", 50.0, 5)] + _fairness_plans("300s", 5)


# ---------------------------------------------------------------------------- measures


def steady_utilisation(df: pd.DataFrame) -> pd.DataFrame:
    """Per utilisation point: recovery, seed, goodput / capacity (%) after the warm-up."""
    series = load_table(df, "flow_series")
    series = series[series["part"] == "utilisation"]
    steady = series[series["time_s"] > series["warmup_s"]]
    out = steady.groupby(["point_id", "flow.f0.recovery", "seed"], observed=True)["rate_bps"].mean().reset_index()
    out["utilisation_pct"] = 100 * out["rate_bps"] / CAPACITY_BPS
    return out.rename(columns={"flow.f0.recovery": "recovery"})


def fairness(df: pd.DataFrame) -> pd.DataFrame:
    """Per fairness point: n_flows, seed, Jain's index of the flows' goodputs."""
    part = df[df["part"] == "fairness"]
    rows = [
        {"point_id": pid, "n_flows": int(g["n_flows"].iloc[0]), "seed": int(g["seed"].iloc[0]), "jain": jain(g["goodput_bps"])}
        for pid, g in part.groupby("point_id", observed=True)
    ]
    import pandas as pd

    return pd.DataFrame(rows, columns=["point_id", "n_flows", "seed", "jain"])


def _utilisation_claim(recovery: str) -> Claim:
    def compute(df: pd.DataFrame) -> float:
        u = steady_utilisation(df)
        return float(u.loc[u["recovery"] == recovery, "utilisation_pct"].mean())

    return Claim(
        paper_ref=REF,
        text=f"one Reno flow, recovery {recovery}, 10 Mb/s, 100 ms RTT, 1-BDP DropTail: steady-state goodput / capacity (ceiling 97.33 %)",
        paper_value=95.0,
        compute=compute,
        unit="%",
        kind="at_least",
    )


def _fairness_claim(n: int) -> Claim:
    def compute(df: pd.DataFrame) -> float:
        f = fairness(df)
        return float(f.loc[f["n_flows"] == n, "jain"].mean())

    return Claim(
        paper_ref=REF,
        text=f"{n} identical flows on the dumbbell: Jain's fairness index of goodput (mean over seeds)",
        paper_value=0.95,
        compute=compute,
        kind="at_least",
    )


# ---------------------------------------------------------------------------- figures


def fig_utilisation(df: pd.DataFrame, out_dir: Path) -> Path:
    plt = _plt()
    u = steady_utilisation(df)
    means = u.groupby("recovery", observed=True)["utilisation_pct"].mean().reindex(RECOVERIES)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.bar(means.index, means.values, color="#4878a8", width=0.55, label="ccsim (mean over seeds)")
    for i, rec in enumerate(RECOVERIES):
        vals = u.loc[u["recovery"] == rec, "utilisation_pct"]
        ax.plot([i] * len(vals), vals, "k.", ms=5)
    ax.axhline(95, color="#c03030", ls="--", label="requirement ≥ 95 %")
    ax.axhline(100 * PAYLOAD_SHARE, color="0.4", ls=":", label="goodput ceiling 1460/1500")
    ax.set_ylim(80, 102)
    ax.set(ylabel="steady-state goodput / capacity (%)", xlabel="loss recovery", title="One Reno flow, 10 Mb/s, 100 ms, 1-BDP buffer")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, out_dir, "utilisation.png")


def fig_cwnd(df: pd.DataFrame, out_dir: Path) -> Path:
    plt = _plt()
    series = load_table(df, "flow_series")
    series = series[(series["part"] == "utilisation") & (series["replicate"] == 0)]
    fig, ax = plt.subplots(figsize=(8, 4))
    for rec in RECOVERIES:
        s = series[series["flow.f0.recovery"] == rec]
        ax.plot(s["time_s"], s["cwnd_bytes"] / 1500, lw=0.9, label=rec, drawstyle="steps-post")
    ax.axhline(125000 / 1500, color="0.5", ls=":", label="1 BDP")
    ax.axhline(2 * 125000 / 1500, color="0.3", ls=":", label="BDP + buffer")
    ax.set(xlabel="time (s)", ylabel="window (1500-byte packets)", title="Congestion window, first seed")
    ax.set_ylim(0, 260)
    ax.legend(fontsize="small", loc="upper right")
    ax.grid(True, alpha=0.3)
    return _save(fig, out_dir, "cwnd.png")


def fig_fairness(df: pd.DataFrame, out_dir: Path) -> Path:
    plt = _plt()
    f = fairness(df)
    means = f.groupby("n_flows")["jain"].mean()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.plot(f["n_flows"], f["jain"], "k.", ms=6, label="one seed")
    ax.plot(means.index, means.values, "o-", color="#4878a8", label="mean over seeds")
    ax.axhline(0.95, color="#c03030", ls="--", label="requirement ≥ 0.95")
    ax.set_xticks(FLOW_COUNTS)
    ax.set_ylim(0.85, 1.005)
    ax.set(xlabel="number of flows N", ylabel="Jain's fairness index", title="N identical Reno/SACK flows, 100 Mb/s dumbbell")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(True, alpha=0.3)
    return _save(fig, out_dir, "fairness.png")


def fig_shares(df: pd.DataFrame, out_dir: Path) -> Path:
    plt = _plt()
    part = df[df["part"] == "fairness"].copy()
    part["share"] = part["goodput_bps"] / part.groupby("point_id", observed=True)["goodput_bps"].transform("mean")
    fig, ax = plt.subplots(figsize=(6.5, 4))
    data = [part.loc[part["n_flows"] == n, "share"].to_numpy() for n in FLOW_COUNTS]
    ax.boxplot(data, positions=range(len(FLOW_COUNTS)), widths=0.5)
    ax.set_xticks(range(len(FLOW_COUNTS)), [str(n) for n in FLOW_COUNTS])
    ax.axhline(1.0, color="0.5", ls=":")
    ax.set(xlabel="number of flows N", ylabel="goodput / fair share", title="Per-flow goodput relative to the fair share")
    ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, out_dir, "shares.png")


EXPERIMENT = Experiment(
    name="foundation",
    title="Foundation validation: single-flow utilisation and N-flow fairness",
    paper="ccsim's own validation requirements (not a paper): utilisation ≥ 95 % of capacity, Jain's index ≥ 0.95",
    description=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "",
    quick=quick,
    full=full,
    figures=[
        Figure("utilisation", "Steady-state utilisation of one flow, by loss recovery", REF, fig_utilisation,
               "Goodput / capacity after the warm-up; the dotted line is the payload ceiling 1460/1500; dots are seeds."),
        Figure("cwnd", "Congestion window of the single flow", REF, fig_cwnd,
               "The AIMD sawtooth between about 1 BDP and BDP + buffer."),
        Figure("fairness", "Jain's fairness index against the number of flows", REF, fig_fairness,
               "Goodput over the whole run; dots are seeds."),
        Figure("shares", "Goodput of each flow relative to the fair share", REF, fig_shares, ""),
    ],
    claims=[_utilisation_claim(r) for r in RECOVERIES] + [_fairness_claim(n) for n in FLOW_COUNTS],
    notes=(
        "Goodput's ceiling is 1460/1500 = 97.33 % of the line rate (40 header bytes per 1500-byte packet).",
        "quick: 60 s runs (20 s warm-up for utilisation), 1 seed for utilisation and 2 for fairness; "
        "full: 300 s runs (50 s warm-up), 5 seeds each.",
    ),
)
