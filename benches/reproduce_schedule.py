"""What order of the one pool makes `ccsim reproduce --full --jobs 2` shortest, from the point
times of a complete run (a model, not a run: a full run takes 20 minutes of the machine).

    python benches/reproduce_schedule.py DIR [--main NAME=CPU_S ...] [--jobs 2] [--cores 2]

``DIR`` is a full run's ``--out`` (``DIR/<experiment>/store``): each stored point's worker
wall time (measured with the pool's 2 workers on 2 cores, so ≈ its CPU) and its
:func:`ccsim.sweep_batch.estimated_cost`. ``--main`` gives an experiment's figures-and-claims
CPU in the main process (``benches/reproduce_profile.py`` on the complete stores: its ``exp
CPU``). The model: the pool keeps ``jobs`` points running, submitted in the order given; the
main process works on one experiment's figures at a time, from when all its points are done
(overlap) or after the pool (today); every runnable thing (a worker, the main process) runs
at min(1, cores / runnable) of a core. It prints the wall time of each order: the pool's end,
the end of the last figures, and when each experiment's figures end.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from ccsim.sweep_batch import estimated_cost  # noqa: E402

ORDER = ["foundation", "arc-planetary", "matcp", "cmt-berp", "fast-multipath-rip", "daimd", "modern-cc"]


def points(store: Path) -> list[tuple[float, float]]:
    """(estimated cost, worker wall s) of every finished point of a store."""
    out = []
    for rec in (store / "points").glob("*.json"):
        r = json.loads(rec.read_text())
        if r.get("status") == "ok" and r.get("wall_s") is not None:
            out.append((estimated_cost(SimpleNamespace(doc=r["doc"])), float(r["wall_s"])))
    return out


def simulate(queue: list[tuple[str, float]], main: dict[str, float], overlap: bool, jobs: int, cores: int,
             main_order: list[str]) -> tuple[float, float, dict[str, float]]:
    """Processor sharing on ``cores``: (pool end, last figures' end, figures' end per experiment)."""
    left = {e: sum(1 for q, _ in queue if q == e) for e in main}
    it = iter(queue)
    running: list[list] = []  # [experiment, work left]
    for _ in range(jobs):
        nxt = next(it, None)
        if nxt:
            running.append([nxt[0], nxt[1]])
    t = 0.0
    ready: list[str] = [e for e in main_order if left[e] == 0] if overlap else []
    main_job: list | None = None
    ends: dict[str, float] = {}
    pool_end = None
    while True:
        if main_job is None and ready:
            e = ready.pop(0)
            main_job = [e, main[e]]
        n = len(running) + (1 if main_job else 0)
        if n == 0:
            break
        speed = min(1.0, cores / n)
        dt = min([r[1] for r in running] + ([main_job[1]] if main_job else [])) / speed
        t += dt
        for r in running:
            r[1] -= dt * speed
        if main_job:
            main_job[1] -= dt * speed
            if main_job[1] <= 1e-9:
                ends[main_job[0]] = t
                main_job = None
        for r in [r for r in running if r[1] <= 1e-9]:
            running.remove(r)
            left[r[0]] -= 1
            if left[r[0]] == 0 and overlap:
                ready.append(r[0])
            nxt = next(it, None)
            if nxt:
                running.append([nxt[0], nxt[1]])
        if not running and pool_end is None:
            pool_end = t
            if not overlap:
                ready = list(main_order)
    return pool_end or 0.0, t, ends


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--main", nargs="*", default=[], help="NAME=CPU_S: an experiment's figures and claims")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--order", action="append", default=[], help="an experiment order to model (comma-separated)")
    args = ap.parse_args(argv)
    pts = {e: points(Path(args.dir) / e / "store") for e in ORDER if (Path(args.dir) / e / "store").exists()}
    main_cpu = {e: 0.0 for e in pts}
    for kv in args.main:
        k, v = kv.split("=")
        main_cpu[k] = float(v)
    work = {e: sum(c for c, _ in p) for e, p in pts.items()}
    for e, p in pts.items():
        print(f"{e:20s} {len(p):5d} points, {sum(w for _, w in p):7.1f} worker s, figures {main_cpu[e]:6.1f} s")

    def grouped(order: list[str]) -> list[tuple[str, float]]:
        return [(e, w) for e in order for _, w in sorted(pts[e], key=lambda cw: -cw[0])]

    everything = sorted(((e, c, w) for e, p in pts.items() for c, w in p), key=lambda x: -x[1])
    by_work = sorted(pts, key=lambda e: -work[e])
    big_last = sorted(pts, key=lambda e: work[e])
    cases = [
        ("all points longest first, figures after the pool (before)", [(e, w) for e, _, w in everything], False, list(pts)),
        ("all points longest first, figures as experiments finish", [(e, w) for e, _, w in everything], True, list(pts)),
        ("by experiment, least work first (matcp last)", grouped(big_last), True, big_last),
        ("by experiment, most work first (matcp first)", grouped(by_work), True, by_work),
    ]
    for text in args.order:
        order = text.split(",")
        cases.append((f"by experiment: {text}", grouped(order), True, order))
    for name, queue, overlap, order in cases:
        pool_end, end, ends = simulate(queue, main_cpu, overlap, args.jobs, args.cores, order)
        print(f"\n{name}: pool ends {pool_end:7.1f} s, figures end {end:7.1f} s ({end / 60:.2f} min)")
        print("  order: " + ", ".join(f"{e} {ends.get(e, 0):.0f}" for e in order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
