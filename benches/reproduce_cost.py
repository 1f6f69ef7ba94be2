"""What `ccsim reproduce NAME --full` will cost, before running it.

    python benches/reproduce_cost.py [NAME ...] [--sample K] [--seed S]

For each experiment: the distinct points of its full plans and of every sensitivity rerun
(the declared unstated values moved one at a time; a point two plans share runs once), a
sample of K of them run in this process, and the mean CPU time per point times the count.
The sample is systematic over the points ranked by `ccsim.sweep_batch.estimated_cost`
(simulated seconds × flows; every (count/K)-th point from a random start), so short and long
runs are both in it: a plain random sample of 6 once put ARC at 0.04 CPU-s a point against
the 0.13 its full run measured. The estimate covers the simulations and the per-point tables
(what a worker does); `plans` is the CPU of building and expanding the plans (this process,
before the pool starts); figures, claims and the report are not included (see
benches/reproduce_profile.py). On 2 free cores divide by 2 for `--jobs 2`. A benchmark, not a
test: docs/reproduce.md quotes what it printed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from ccsim.experiments import get, registry
from ccsim.sweep import expand_plans, run_point
from ccsim.sweep_batch import estimated_cost


def distinct_points(name: str) -> tuple[list, int]:
    """Every distinct point full mode runs, and how many of them the full plans alone hold."""
    exp = get(name)
    points = {p.id: p for p in expand_plans(exp.plans("full"))}
    n_full = len(points)
    if exp.unstated:
        variants = [{}] + [{u.name: v} for u in exp.unstated for v in u.alternatives()]
        for values in variants:
            for p in expand_plans(exp.plans("sensitivity", values)):
                points.setdefault(p.id, p)
    return list(points.values()), n_full


def systematic(points: list, k: int, seed: int) -> list:
    """``k`` points at evenly spaced ranks of estimated cost, from a random start."""
    ranked = sorted(points, key=estimated_cost)
    if k >= len(ranked):
        return ranked
    step = len(ranked) / k
    start = random.Random(seed).random() * step
    return [ranked[int(start + i * step)] for i in range(k)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="experiments (default: all)")
    ap.add_argument("--sample", type=int, default=12, help="points run per experiment (default 12)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the sample's draw")
    args = ap.parse_args(argv)
    names = args.names or list(registry())
    total = plans_total = 0.0
    print(f"{'experiment':22s} {'points':>7s} {'(full)':>7s} {'plans':>6s} {'sampled':>7s} {'CPU-s/pt':>9s} {'max':>7s} {'est. CPU-s':>11s}")
    for name in names:
        t0 = time.process_time()
        points, n_full = distinct_points(name)
        plans_cpu = time.process_time() - t0
        plans_total += plans_cpu
        sample = systematic(points, args.sample, args.seed)
        cpu = []
        for p in sample:
            t0 = time.process_time()
            out = run_point({"id": p.id, "doc": p.doc, "source": p.source, "series": p.series})
            cpu.append(time.process_time() - t0)
            if out.get("status") != "ok":
                print(f"  {name}: point {p.id} failed: {out.get('error')}", file=sys.stderr)
        mean = sum(cpu) / len(cpu) if cpu else 0.0
        est = mean * len(points)
        total += est
        print(f"{name:22s} {len(points):7d} {n_full:7d} {plans_cpu:6.1f} {len(cpu):7d} {mean:9.3f} {max(cpu, default=0):7.2f} {est:11.0f}",
              flush=True)
    print(f"{'all':22s} {'':7s} {'':7s} {plans_total:6.1f} {'':7s} {'':9s} {'':7s} {total:11.0f}  ≈ {total / 2 / 60:.1f} min "
          "of simulation with --jobs 2 on 2 free cores (+ plans, figures, claims: benches/reproduce_profile.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
