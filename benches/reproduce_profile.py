"""Where the time of `ccsim reproduce` goes, per experiment and per phase.

    python benches/reproduce_profile.py --full --jobs 2 --out DIR [NAME ...] [--json FILE]

Runs `ccsim.report.reproduce` exactly as `ccsim reproduce` does (same plans, same store,
same report) with timers wrapped around its phases, and prints, per experiment:

* ``sim``: the sweep runs (`run_plans`: the full plans, then one call per sensitivity
  rerun): wall time, the workers' CPU (resource usage of the reaped children) and this
  process's CPU during them (writing each point's tables into the store);
* ``load``: reading the store into frames (`results.load`, whoever calls it);
* ``claims``: computing every claim, at the defaults and for each sensitivity rerun
  (including the loads they make);
* ``figures``: drawing the figures (including their loads);
* ``exp CPU``: the main thread's CPU for the experiment, all of the above (before the one
  pool, its sweeps' bookkeeping too: expanding plans, writing each point into the store);
  ``main CPU`` of the pool: the CPU of the thread that ran it (a background thread when
  the figures are computed beside the pool);
* ``idle``: core-seconds the pool left idle at the tail of its sweeps — from each sweep's
  points' wall times, scheduled as the pool does (in order, ``jobs`` at a time): the
  makespan times ``jobs`` minus the sum (on a loaded machine every term is stretched
  alike).

and the whole run's wall time, its CPU (this process + every worker) and the load average
at start and end. On 2 free cores, CPU / 2 is the estimate of the wall time of
`ccsim reproduce --full --jobs 2`. Use a fresh `--out` (a store that holds the points
already runs nothing). A benchmark, not a test: docs/reproduce.md ("Budget") quotes it.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import resource
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import ccsim.report as report  # noqa: E402
import ccsim.results as results  # noqa: E402
import ccsim.sweep_batch as sweep_batch  # noqa: E402
from ccsim.experiments import Claim, Figure, get, registry  # noqa: E402


def tcpu() -> float:
    """This thread's CPU, seconds (the pool may run in a background thread beside the figures)."""
    return time.thread_time()


def cpu() -> tuple[float, float]:
    """(this process's CPU, reaped children's CPU), seconds."""
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


def makespan(durations: list[float], jobs: int) -> float:
    """Greedy list schedule in submission order on ``jobs`` workers."""
    if jobs <= 1:
        return sum(durations)
    free = [0.0] * jobs
    for d in durations:
        t = heapq.heappop(free)
        heapq.heappush(free, t + d)
    return max(free)


class Phases:
    def __init__(self) -> None:
        self.t: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.current = ""
        self.stack: list[str] = []

    def add(self, key: str, what: str, value: float, phase: str | None = None) -> None:
        self.t[self.current if phase is None else phase][f"{key}_{what}"] += value


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", required=True)
    ap.add_argument("--json", help="write the figures as JSON here")
    args = ap.parse_args(argv)
    names = args.names or list(registry())
    ph = Phases()

    real_run_plans = getattr(report, "run_plans", None)  # the code before one pool ran each sweep alone
    real_load = results.load
    real_get = report.get

    def finished(store: Any) -> set[str]:
        m = Path(store) / "manifest.json"
        if not m.exists():
            return set()
        return {i for i, e in json.loads(m.read_text())["points"].items() if e.get("status") == "ok"}

    def run_plans(plans: Any, store: Any, **kw: Any) -> Any:
        before = finished(store)
        w0, (s0, c0) = time.perf_counter(), cpu()
        o = real_run_plans(plans, store, **kw)
        w1, (s1, c1) = time.perf_counter(), cpu()
        ph.add("sim", "wall", w1 - w0)
        ph.add("sim", "workers_cpu", c1 - c0)
        ph.add("sim", "main_cpu", s1 - s0)
        ph.add("sim", "calls", 1)
        ph.add("sim", "points_run", o.done)
        # tail idleness: the points this call ran, in its order
        pts = real_load(store, table="points", plan=o.plan_id)
        ran = [float(w) for pid, w in zip(pts["point_id"], pts["wall_s"]) if pid not in before and w == w]
        if ran:
            ph.add("sim", "idle_core_s", makespan(ran, kw.get("jobs") or 1) * (kw.get("jobs") or 1) - sum(ran))
            ph.add("sim", "point_wall_sum", sum(ran))
        return o

    def load(*a: Any, **kw: Any) -> Any:
        w0, s0 = time.perf_counter(), tcpu()
        try:
            return real_load(*a, **kw)
        finally:
            ph.add("load", "wall", time.perf_counter() - w0)
            ph.add("load", "cpu", tcpu() - s0)
            ph.add("load", "calls", 1)

    def timed(key: str, fn: Any) -> Any:
        def wrapper(*a: Any, **kw: Any) -> Any:
            w0, s0 = time.perf_counter(), tcpu()
            try:
                return fn(*a, **kw)
            finally:
                ph.add(key, "wall", time.perf_counter() - w0)
                ph.add(key, "cpu", tcpu() - s0)
                ph.add(key, "calls", 1)
        return wrapper

    def get_(name: str) -> Any:
        exp = real_get(name)
        ph.current = name
        figs = [Figure(f.id, f.title, f.paper_ref, timed("figures", f.make), f.caption) for f in exp.figures]
        claims = [replace(c, compute=timed("claims", c.compute)) for c in exp.claims]
        return replace(exp, figures=figs, claims=claims)

    real_run_batch = getattr(report, "run_batch", None)

    def run_batch(sweeps: Any, **kw: Any) -> Any:
        """Every experiment's sweeps in one pool (the current code): one ``sim`` phase."""
        from ccsim.sweep_batch import estimated_cost

        before = {Path(sw.store): finished(sw.store) for sw in sweeps}
        pool = "(one pool)"  # run_batch may run in a background thread: its phase named, not current
        w0, s0, c0 = time.perf_counter(), tcpu(), cpu()[1]
        outcomes = real_run_batch(sweeps, **kw)
        w1, s1, c1 = time.perf_counter(), tcpu(), cpu()[1]
        ph.add("sim", "wall", w1 - w0, pool)
        ph.add("sim", "end", w1 - start, pool)
        ph.add("sim", "workers_cpu", c1 - c0, pool)
        ph.add("sim", "main_cpu", s1 - s0, pool)
        ph.add("sim", "calls", 1, pool)
        ran: dict[tuple[Path, str], tuple[float, float]] = {}
        for sw, o in zip(sweeps, outcomes):
            store = Path(sw.store)
            pts = real_load(store, table="points", plan=o.plan_id)
            wall = dict(zip(pts["point_id"], pts["wall_s"]))
            for p in o.points:
                if p.id not in before[store] and wall.get(p.id) == wall.get(p.id):
                    ran[(store, p.id)] = (estimated_cost(p), float(wall[p.id]))
        ph.add("sim", "points_run", len(ran), pool)
        walls = [w for _, w in sorted(ran.values(), key=lambda cw: -cw[0])]
        j = kw.get("jobs") or 1
        ph.add("sim", "idle_core_s", makespan(walls, j) * j - sum(walls), pool)  # as if all longest first
        ph.add("sim", "point_wall_sum", sum(walls), pool)
        return outcomes

    if real_run_plans is not None:
        report.run_plans = run_plans
    if real_run_batch is not None:
        report.run_batch = run_batch
        sweep_batch.run_batch = run_batch  # what BackgroundBatch runs (the pool beside the figures)
    results.load = load
    report.get = get_
    real_write = report.write_report

    def write_report(*a: Any, **kw: Any) -> Any:
        ph.current = "(report)"
        return timed("report", real_write)(*a, **kw)

    report.write_report = write_report
    real_run_experiment = report.run_experiment

    def run_experiment(exp: Any, *a: Any, **kw: Any) -> Any:
        ph.current = exp.name
        s0 = tcpu()
        try:
            return real_run_experiment(exp, *a, **kw)
        finally:
            # this thread's CPU for the experiment's figures and claims (before one pool: its
            # sweeps' store writes too), and when they ended
            ph.add("experiment", "cpu", tcpu() - s0)
            ph.add("experiment", "end", time.perf_counter() - start)

    report.run_experiment = run_experiment

    load0 = os.getloadavg()
    start = w0 = time.perf_counter()
    s0, c0 = cpu()
    runs = report.reproduce(names, mode="full" if args.full else "quick", out=args.out, jobs=args.jobs,
                            progress=False, log=sys.stderr)
    wall = time.perf_counter() - w0
    s1, c1 = cpu()
    load1 = os.getloadavg()
    total_cpu = (s1 - s0) + (c1 - c0)
    print(f"{'experiment':20s} {'sims':>5s} {'pts':>5s} {'sim wall':>9s} {'wkr CPU':>8s} {'main CPU':>9s} "
          f"{'idle c-s':>8s} {'load':>6s} {'claims':>7s} {'figures':>8s} {'exp CPU':>8s} {'wall':>7s}")
    for name in ["(one pool)", *names, "(report)"]:
        if name == "(one pool)" and name not in ph.t:
            continue
        t = ph.t.get(name, {})
        run = next((r for r in runs if r.experiment.name == name), None)
        print(f"{name:20s} {t.get('sim_calls', 0):5.0f} {t.get('sim_points_run', 0):5.0f} {t.get('sim_wall', 0):9.1f} "
              f"{t.get('sim_workers_cpu', 0):8.1f} {t.get('sim_main_cpu', 0):9.1f} {t.get('sim_idle_core_s', 0):8.1f} "
              f"{t.get('load_cpu', 0):6.1f} {t.get('claims_cpu', 0):7.1f} {t.get('figures_cpu', 0):8.1f} "
              f"{t.get('experiment_cpu', t.get('report_cpu', 0)):8.1f} "
              f"{(run.wall_s if run else t.get('report_wall', 0)):7.1f}")
    pool = ph.t.get("(one pool)", {})
    if pool.get("sim_end"):
        print(f"the pool ended at {pool['sim_end']:.1f} s; after it, until the end: {wall - pool['sim_end']:.1f} s "
              "(figures and claims not done beside the pool, the report)")
    print(f"whole run: wall {wall:.1f} s, CPU {total_cpu:.1f} s (this process {s1 - s0:.1f}, workers {c1 - c0:.1f}); "
          f"CPU / 2 = {total_cpu / 2 / 60:.1f} min; load average {load0[0]:.1f} at start, {load1[0]:.1f} at end")
    if args.json:
        Path(args.json).write_text(json.dumps({"phases": ph.t, "wall_s": wall, "cpu_s": total_cpu,
                                               "main_cpu_s": s1 - s0, "workers_cpu_s": c1 - c0,
                                               "load_start": load0, "load_end": load1}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
