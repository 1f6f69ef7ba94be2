"""Benchmark scenarios for ``ccsim bench``, and the measurement of one run.

Each repetition runs in a fresh interpreter (``python -m ccsim._bench_worker NAME``) so the
peak resident memory it reports belongs to that run alone.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from ccsim.scenario import Scenario, dumbbell

__all__ = ["BENCHMARKS", "measure", "run_repeated", "aggregate"]

_COMMON = dict(
    access_delay="5ms",
    bottleneck_delay="10ms",
    recovery="sack",
    cc="reno",
    trace_interval="0s",
)

#: name → scenario factory
BENCHMARKS: dict[str, Callable[[], Scenario]] = {
    "dumbbell-16": lambda: dumbbell(
        n_flows=16, access_rate="1Gbps", bottleneck_rate="100Mbps", queue_packets=333, duration="100s", **_COMMON
    ),
    "dumbbell-64-1g": lambda: dumbbell(
        n_flows=64, access_rate="10Gbps", bottleneck_rate="1Gbps", queue_packets=3333, duration="20s", **_COMMON
    ),
}


def _max_rss_bytes() -> int:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024  # Linux reports KiB


def measure(name: str, threads: int = 1) -> dict[str, Any]:
    """Run benchmark ``name`` once in this process and measure it.

    ``wall_s`` covers building the simulation, running it and collecting the result.
    ``delivered`` is the conservation account's count of packets that reached their
    destination (data and ACKs); ``data_packets`` is the flows' delivered payload over the MSS.
    """
    from ccsim.api import run

    scenario = BENCHMARKS[name]()
    scenario.source = f"benchmark {name}"
    baseline = _max_rss_bytes()
    t0 = time.perf_counter()
    result = run(scenario, progress=False, threads=threads)
    wall = time.perf_counter() - t0
    summary = result.summary
    mss = 1460  # the dumbbell builder's default, which the benchmarks keep
    return {
        "name": name,
        "threads": threads,
        "wall_s": wall,
        "events": summary["events"],
        "delivered": summary["conservation"]["delivered"],
        "data_packets": sum(f["bytes_delivered"] for f in summary["flows"]) / mss,
        "peak_rss_bytes": _max_rss_bytes(),
        "baseline_rss_bytes": baseline,
    }


def run_repeated(name: str, repeat: int, threads: int = 1) -> list[dict[str, Any]]:
    """``repeat`` measurements of ``name``, each in a fresh subprocess.
    Raises ``RuntimeError`` with the worker's stderr if one fails."""
    runs = []
    for _ in range(repeat):
        proc = subprocess.run(
            [sys.executable, "-m", "ccsim._bench_worker", name, str(threads)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"benchmark {name} failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return runs


def aggregate(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median/min/max wall time; rates at the median wall time; the largest peak RSS."""
    walls = [r["wall_s"] for r in runs]
    med = statistics.median(walls)
    first = runs[0]
    return {
        "name": first["name"],
        "threads": first.get("threads", 1),
        "runs": len(runs),
        "median_s": med,
        "min_s": min(walls),
        "max_s": max(walls),
        "events": first["events"],
        "delivered": first["delivered"],
        "delivered_per_s": first["delivered"] / med if med > 0 else float("nan"),
        "data_packets_per_s": first["data_packets"] / med if med > 0 else float("nan"),
        "events_per_s": first["events"] / med if med > 0 else float("nan"),
        "peak_rss_bytes": max(r["peak_rss_bytes"] for r in runs),
        "baseline_rss_bytes": max(r["baseline_rss_bytes"] for r in runs),
    }
