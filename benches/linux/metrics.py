"""The bench's metrics, computed the same way from the kernel's samples and from ccsim's
time series (both sampled every 20 ms), so that a ratio compares like with like.

A flow is a `Series`: times (s since the scenario started), cwnd and ssthresh (segments;
ssthresh NaN while unbounded), srtt (s), cumulative bytes acknowledged, and the times at which
the window was reduced (kernel: entries into the Recovery or Loss state seen in TCP_INFO's
`ca_state`; ccsim: ssthresh set to a new value or the window cut by more than 10 %), events
closer than 60 ms (about one RTT) counted once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
import statistics

import numpy as np


@dataclass
class Series:
    t: np.ndarray
    cwnd: np.ndarray
    ssthresh: np.ndarray
    srtt: np.ndarray
    acked: np.ndarray
    reductions: list[float] = field(default_factory=list)
    retransmissions: int = 0
    timeouts: int = 0
    retx_2s: int = 0


MERGE_S = 0.06


def merge_events(times: list[float], gap: float = MERGE_S) -> list[float]:
    """Reduction times with any event closer than `gap` (about one RTT) to the previous kept
    one dropped: one congestion episode seen in two consecutive samples counts once."""
    out: list[float] = []
    for x in times:
        if not out or x - out[-1] >= gap:
            out.append(x)
    return out


def window_goodput_bps(s: Series, w0: float, w1: float) -> float:
    """Bytes acknowledged between the first sample at or after w0 and the last at or before
    w1, over that time."""
    i = int(np.searchsorted(s.t, w0))
    j = int(np.searchsorted(s.t, w1, side="right")) - 1
    if j <= i:
        return math.nan
    return float(s.acked[j] - s.acked[i]) * 8.0 / float(s.t[j] - s.t[i])


def mean_in(t: np.ndarray, v: np.ndarray, w0: float, w1: float) -> float:
    m = (t >= w0) & (t <= w1) & np.isfinite(v)
    return float(v[m].mean()) if m.any() else math.nan


def slow_start(s: Series) -> tuple[float, float]:
    """(peak cwnd, first ssthresh): the largest cwnd sampled up to and including the first
    sample with a finite ssthresh, and that ssthresh. NaN if slow start never ended."""
    fin = np.flatnonzero(np.isfinite(s.ssthresh))
    if fin.size == 0:
        return math.nan, math.nan
    i = int(fin[0])
    return float(s.cwnd[: i + 1].max()), float(s.ssthresh[i])


def sawtooth_period(s: Series, w0: float, w1: float) -> float:
    """Median time between window reductions inside [w0, w1] (NaN with fewer than 3)."""
    r = [x for x in s.reductions if w0 <= x <= w1]
    if len(r) < 3:
        return math.nan
    return float(statistics.median(np.diff(r)))


def queue_time_average(intervals: np.ndarray, w0: float, w1: float) -> float:
    """Time-average number of packets in the system over [w0, w1], given each admitted
    packet's [enter, transmission end) interval (rows of `intervals`)."""
    if w1 <= w0:
        return math.nan
    a = np.clip(intervals[:, 0], w0, w1)
    b = np.clip(intervals[:, 1], w0, w1)
    return float((b - a).sum() / (w1 - w0))


def scenario_metrics(flows: list[Series], queue_mean: float, w0: float, w1: float) -> dict[str, float]:
    """The table's metrics for one run of a scenario. Totals are over flows; the slow-start
    and sawtooth figures are the first flow's; `share0` is the first flow's goodput share."""
    gp = [window_goodput_bps(s, w0, w1) for s in flows]
    peak, first = slow_start(flows[0])
    f0 = flows[0]
    red = [x for x in f0.reductions if w0 <= x <= w1]
    m = {
        "goodput_mbps": sum(gp) / 1e6,
        "srtt_ms": 1e3 * statistics.fmean(mean_in(s.t, s.srtt, w0, w1) for s in flows),
        "queue_pkts": queue_mean,
        "retx": float(sum(s.retransmissions for s in flows)),
        "retx_2s": float(sum(s.retx_2s for s in flows)),
        "timeouts": float(sum(s.timeouts for s in flows)),
        "ss_peak": peak,
        "first_ssthresh": first,
        "period_s": sawtooth_period(f0, w0, w1),
        "reductions_per_min": 60.0 * len(red) / (w1 - w0),
    }
    if len(flows) > 1:
        m["share0"] = gp[0] / sum(gp)
    return m


def summarise(values: list[float]) -> dict[str, float]:
    """Mean, min and max over runs, ignoring NaN (None when every run is NaN)."""
    v = [x for x in values if x is not None and not math.isnan(x)]
    if not v:
        return {"mean": None, "min": None, "max": None, "n": 0}
    return {"mean": statistics.fmean(v), "min": min(v), "max": max(v), "n": len(v)}
