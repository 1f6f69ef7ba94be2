#!/usr/bin/env python3
"""Write the synthetic cellular downlink trace shipped as scenarios/traces/cellular.trace.

The trace is in Mahimahi's format (one integer millisecond timestamp per line, each an
opportunity to deliver one 1500-byte packet; see docs/scenario.md, "Time-varying and
trace-driven links"). It is made up here, not recorded: the capacity follows a seeded
random walk in log-rate, redrawn every 100 ms between 0.5 and 30 Mb/s around a mean of
about 8 Mb/s, with a short outage (no opportunities) of 100-300 ms about every 5 s, the
kind of variation measured cellular traces show. The same seed gives the same file
byte for byte (only ``random.Random.random`` is used, whose sequence Python keeps stable).

    python3 scripts/gen_cellular_trace.py [--seed 1] [--seconds 20] [--out PATH]
"""

from __future__ import annotations

import argparse
import math
import random
from pathlib import Path

PACKET_BYTES = 1500
STEP_MS = 100
MIN_BPS, MAX_BPS, MEAN_BPS = 0.5e6, 30e6, 8e6


def opportunities(seed: int = 1, seconds: int = 20) -> list[int]:
    """The opportunity timestamps (ms) of a ``seconds``-long trace."""
    rng = random.Random(seed)
    log_rate = math.log(MEAN_BPS)
    out: list[int] = []
    credit = 0.0
    outage_left = 0
    for step in range(seconds * 1000 // STEP_MS):
        # Mean-reverting walk in log-rate: a step of up to ±30 %, pulled towards the mean.
        log_rate += 0.3 * (2 * rng.random() - 1) + 0.1 * (math.log(MEAN_BPS) - log_rate)
        log_rate = min(max(log_rate, math.log(MIN_BPS)), math.log(MAX_BPS))
        if outage_left == 0 and rng.random() < STEP_MS / 5000:
            outage_left = 1 + int(rng.random() * 3)  # 100-300 ms
        rate = 0.0 if outage_left else math.exp(log_rate)
        outage_left = max(outage_left - 1, 0)
        for ms in range(step * STEP_MS + 1, (step + 1) * STEP_MS + 1):
            credit += rate / 8 / 1000
            while credit >= PACKET_BYTES:
                out.append(ms)
                credit -= PACKET_BYTES
        if rate == 0.0:
            credit = 0.0  # nothing is saved up over an outage
    if not out or out[-1] != seconds * 1000:
        out.append(seconds * 1000)  # the trace repeats after its last timestamp: the full length
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=int, default=20)
    default_out = Path(__file__).resolve().parent.parent / "python/ccsim/scenarios/traces/cellular.trace"
    ap.add_argument("--out", type=Path, default=default_out)
    a = ap.parse_args()
    ts = opportunities(a.seed, a.seconds)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text("".join(f"{t}\n" for t in ts), encoding="ascii")
    mean = len(ts) * PACKET_BYTES * 8 / a.seconds / 1e6
    print(f"{a.out}: {len(ts)} opportunities over {a.seconds} s, mean {mean:.2f} Mb/s")


if __name__ == "__main__":
    main()
