"""BBR v1 against its defining documents and the measurement literature (issue #20).

(a) A lone BBR flow on a 10 Mb/s path with a 100 ms round-trip propagation time and a deep
(1000-packet) DropTail buffer. draft-cardwell-iccrg-bbr-congestion-control-00 §1 and §4.3
(and Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016):
BBR runs at the bottleneck rate while keeping the queue small (in flight about one BDP, at
most cwnd_gain = 2 BDP), and enters PROBE_RTT when its RTprop estimate is 10 s old.

(b) One BBR flow against one CUBIC flow, both SACK, same path, buffer from 0.5 to 8 BDP
(BDP = 83.3 packets of 1500 B). Hock, Bless & Zitterbart, "Experimental evaluation of BBR
congestion control", ICNP 2017, §V; Ware et al., "Modeling BBR's interactions with
loss-based congestion control", IMC 2019: BBR takes most of the link in shallow buffers
and the smaller share in deep buffers, where its in-flight cap holds it back. The claims
checked are those qualitative statements (no paper number is matched).

This module is the BBR section of the ``modern-cc`` experiment (``modern_cc.py`` takes its
``plans``, ``claims`` and ``figures``); it is not an experiment of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ccsim.experiments import Claim, Figure, load_table
from ccsim.experiments._plot import plt as _plt
from ccsim.experiments._plot import save as _save
from ccsim.scenario import dumbbell
from ccsim.sweep import Plan

if TYPE_CHECKING:
    import pandas as pd

BDP_PACKETS = 10e6 * 0.1 / (1500 * 8)  # 83.3
PAYLOAD_BPS = 10e6 * 1460 / 1500
BUFFERS_BDP = [0.5, 1.0, 2.0, 4.0, 8.0]
WARMUP_S = 10.0
MSS = 1460
DRAFT = "draft-cardwell-iccrg-bbr-congestion-control-00"
HOCK = "Hock et al., ICNP 2017 §V; Ware et al., IMC 2019"


def _path(n_flows: int, queue: int, duration: str) -> "ccsim.scenario.Scenario":  # noqa: F821
    return dumbbell(
        n_flows=n_flows,
        bottleneck_rate="10Mbps",
        bottleneck_delay="40ms",  # RTT = 2 × (5 + 40 + 5) ms = 100 ms
        access_delay="5ms",
        queue_packets=queue,
        duration=duration,
        cc="bbr",
        recovery="sack",
        trace_interval="100ms",
    )


def plans(duration: str = "60s", seeds: int = 1) -> list[Plan]:
    """The lone flow, and BBR against CUBIC for each buffer depth."""
    out = [Plan(base=_path(1, 1000, duration), seeds=seeds, series=("flows", "links"),
                labels={"part": "bbr-alone", "buffer_bdp": 1000 / BDP_PACKETS}, name="bbr-alone")]
    for k in BUFFERS_BDP:
        base = _path(2, round(k * BDP_PACKETS), duration)
        base.set("flow.f1.cc", "cubic")
        out.append(Plan(base=base, seeds=seeds, series=("flows",),
                        labels={"part": "bbr-cubic", "buffer_bdp": k}, name=f"bbr-cubic-{k:g}bdp"))
    return out


# ---------------------------------------------------------------------------- measures


def _alone_series(df: pd.DataFrame) -> pd.DataFrame:
    s = load_table(df, "flow_series")
    return s[s["part"] == "bbr-alone"]


def steady_utilisation(df: pd.DataFrame) -> float:
    """The lone flow's goodput after the warm-up, % of the payload capacity."""
    s = _alone_series(df)
    return float(100 * s.loc[s["time_s"] > WARMUP_S, "rate_bps"].mean() / PAYLOAD_BPS)


def max_queue(df: pd.DataFrame) -> float:
    """Largest bottleneck queue (packets) after the warm-up, lone flow."""
    ls = load_table(df, "link_series")
    ls = ls[(ls["part"] == "bbr-alone") & (ls["link"] == "r1->r2") & (ls["time_s"] > WARMUP_S)]
    return float(ls["queue_packets"].max())


def probe_rtt_starts(series: pd.DataFrame) -> list[float]:
    """Times at which one run's lone flow's window fell to 4 segments (PROBE_RTT), one per
    episode (`series`: that run's rows of the flow series)."""
    s = series.sort_values("time_s")
    low = (s["cwnd_bytes"] <= 4 * MSS).to_numpy()
    t = s["time_s"].to_numpy()
    return [float(t[i]) for i in range(len(t)) if low[i] and (i == 0 or not low[i - 1]) and t[i] > 1.0]


def probe_rtt_spacing(df: pd.DataFrame) -> float:
    """Mean time between the starts of consecutive PROBE_RTT episodes (s), within each seed's
    run, averaged over seeds (the runs' series must not be interleaved: full mode has three)."""
    spacings = []
    for _, run in _alone_series(df).groupby("seed", observed=True):
        starts = probe_rtt_starts(run)
        if len(starts) >= 2:
            spacings.append((starts[-1] - starts[0]) / (len(starts) - 1))
    return sum(spacings) / len(spacings) if spacings else float("nan")


def bbr_shares(df: pd.DataFrame) -> pd.DataFrame:
    """Per buffer depth (BDP): BBR's share of the goodput after the warm-up (mean over seeds)."""
    s = load_table(df, "flow_series")
    s = s[(s["part"] == "bbr-cubic") & (s["time_s"] > WARMUP_S)]
    per = s.groupby(["buffer_bdp", "seed", "flow"], observed=True)["rate_bps"].sum().unstack("flow")
    share = (per["f0"] / per.sum(axis=1)).groupby("buffer_bdp").mean()  # f0 is the BBR flow
    return share.rename("bbr_share").reset_index()


def _share_at(k: float):
    def compute(df: pd.DataFrame) -> float:
        sh = bbr_shares(df)
        return float(sh.loc[sh["buffer_bdp"] == k, "bbr_share"].iloc[0])

    return compute


def claims() -> list[Claim]:
    return [
        Claim(DRAFT + " §1, §4.3.4", "a lone BBR flow, 10 Mb/s, 100 ms, 1000-packet buffer: goodput after 10 s, % of the payload capacity",
              95.0, steady_utilisation, unit="%", kind="at_least"),
        Claim(DRAFT + " §4.3.4 (in flight ≈ BDP in PROBE_BW)", "the same flow's largest bottleneck queue after 10 s, below one BDP",
              BDP_PACKETS, max_queue, unit="packets", kind="at_most"),
        Claim(DRAFT + " §4.3.5 (RTpropFilterLen 10 s, ProbeRTTDuration 200 ms)",
              "the same flow: time between PROBE_RTT episodes (10 s after RTprop was last refreshed, plus PROBE_RTT itself)",
              10.0, probe_rtt_spacing, unit="s", tolerance=1.0),
        Claim(HOCK, "BBR against one CUBIC flow, buffer 0.5 BDP: BBR's goodput share above one half",
              0.5, _share_at(0.5), kind="at_least"),
        Claim(HOCK, "BBR against one CUBIC flow, buffer 8 BDP: BBR's goodput share below one half",
              0.5, _share_at(8.0), kind="at_most"),
    ]


# ---------------------------------------------------------------------------- figures


def fig_share(df: pd.DataFrame, out_dir: Path) -> Path:
    plt = _plt()
    sh = bbr_shares(df)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.plot(sh["buffer_bdp"], sh["bbr_share"], "o-", color="#4878a8", label="ccsim: BBR's share")
    ax.axhline(0.5, color="0.5", ls=":", label="fair share")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="buffer (BDP)", ylabel="BBR's goodput share", title="One BBR flow against one CUBIC flow, 10 Mb/s, 100 ms")
    ax.set_ylim(0, 1)
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    return _save(fig, out_dir, "bbr_share.png")


def fig_alone(df: pd.DataFrame, out_dir: Path) -> Path:
    plt = _plt()
    s = _alone_series(df)
    s = s[s["replicate"] == 0] if "replicate" in s else s
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(s["time_s"], s["cwnd_bytes"] / 1500, lw=0.8, drawstyle="steps-post", label="cwnd")
    ax.axhline(BDP_PACKETS, color="0.5", ls=":", label="1 BDP")
    ax.set(xlabel="time (s)", ylabel="window (1500-byte packets)", title="A lone BBR flow: PROBE_RTT dips every 10 s")
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    return _save(fig, out_dir, "bbr_alone.png")


def figures() -> list[Figure]:
    return [
        Figure("bbr-share", "BBR's share against CUBIC by buffer depth", HOCK, fig_share,
               "Goodput after 10 s; BBR dominates in shallow buffers and yields in deep ones."),
        Figure("bbr-alone", "Window of a lone BBR flow", DRAFT, fig_alone,
               "The window is capped at 2 BDP (+ budget); PROBE_RTT holds 4 packets for 200 ms and a round."),
    ]

