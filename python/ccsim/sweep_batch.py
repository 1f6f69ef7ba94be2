"""Several sweeps in one pool: the points of many (store, plans) pairs, longest first.

``ccsim reproduce`` runs, per experiment, its plans and one sweep per sensitivity rerun (a
declared value moved), each into the experiment's store. Run one after another, every sweep
ends with cores idle while its last points finish, and the long points of the last sweep
decide when the whole ends. :func:`run_batch` runs the points of all of them in one pool
instead: each store opened once, every sweep's plan entered into it as ``run_plans`` would
(same plan ids, same point ids and records), a point that several sweeps of one store share
run once, and the pending points submitted in decreasing order of :func:`estimated_cost`
(longest-processing-time first, so the tail holds short points). A point's result does not
depend on when or where it runs (it is a function of its document), so the stores hold what
the sweeps run one by one would have written, and each sweep gets its own
:class:`~ccsim.sweep_backends.SweepOutcome` (points taken from the store before the batch
count as skipped, those run by the batch as done or failed).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccsim import _core
from ccsim._units import duration_s
from ccsim.sweep import Plan, Point, expand_plans, plan_id
from ccsim.sweep_backends import SweepOutcome, SweepProgress, checked_version, run_pending

__all__ = ["Sweep", "run_batch", "estimated_cost"]


@dataclass
class Sweep:
    """One sweep of a batch: ``plans`` into the store at ``store``."""

    store: Path
    plans: list[Plan]


def estimated_cost(point: Point) -> float:
    """A point's relative cost, for ordering only: simulated seconds × flows (an entry's
    ``count`` included). It ranks the long multi-flow runs (MATCP's 500 s of up to 640
    sources) first; a misranked point costs only tail idleness, never a different result."""
    doc = point.doc
    sim = doc.get("simulation") if isinstance(doc.get("simulation"), dict) else {}
    try:
        seconds = duration_s(sim.get("duration", "0s"))
    except Exception:  # a document without a duration runs until its flows end: rank it last
        seconds = 0.0
    flows = doc.get("flow") if isinstance(doc.get("flow"), list) else []
    n = sum(int(f.get("count", 1)) if isinstance(f, dict) and isinstance(f.get("count", 1), int) else 1 for f in flows)
    return float(seconds) * max(n, 1)


def run_batch(
    sweeps: Sequence[Sweep],
    *,
    jobs: int | None = None,
    dask: Any = None,
    progress: Any = None,
    longest_first: bool = True,
) -> list[SweepOutcome]:
    """Run the points of ``sweeps`` that their stores do not hold yet, in one pool, and
    return one outcome per sweep (in order). Stores are opened with ``resume``: finished
    points are skipped. Errors as ``run_plans`` (a plan problem before anything runs, a
    ``StoreError`` for a store that cannot be written). On Ctrl-C every store's manifest is
    written and ``KeyboardInterrupt`` propagates."""
    from ccsim.store import Store

    version = _core.version()
    expanded: list[tuple[list[Point], str]] = []
    for sw in sweeps:
        points = expand_plans(sw.plans, version)
        for plan in sw.plans:
            plan.check_keys()
        expanded.append((points, plan_id(points)))

    stores: dict[Path, Store] = {}
    try:
        for sw, (points, pid) in zip(sweeps, expanded):
            key = Path(sw.store)
            described = [p.describe() for p in sw.plans]
            if key not in stores:
                stores[key] = Store.open(key, pid, described, points, version=version, resume=True)
            else:
                stores[key].attach(pid, described, points, version=version)
        return _run(sweeps, expanded, stores, version, jobs=jobs, dask=dask, progress=progress,
                    longest_first=longest_first)
    finally:
        for st in stores.values():
            st.close()


def _run(sweeps: Sequence[Sweep], expanded: list[tuple[list[Point], str]], stores: dict[Path, Any], version: str, *,
         jobs: int | None, dask: Any, progress: Any, longest_first: bool) -> list[SweepOutcome]:
    from ccsim.store import StoreError

    before: list[set[str]] = []  # per sweep: its points already finished in the store
    owner: dict[tuple[Path, str], tuple[Point, str]] = {}  # (store, point id) → (point, first sweep's plan)
    for sw, (points, pid) in zip(sweeps, expanded):
        st = stores[Path(sw.store)]
        before.append({p.id for p in points if st.status(p.id) == "ok"})
        for p in points:
            if st.status(p.id) != "ok":
                owner.setdefault((Path(sw.store), p.id), (p, pid))
    pending = list(owner.items())
    if longest_first:
        pending.sort(key=lambda kv: -estimated_cost(kv[1][0]))  # stable: plan order among equals
    where = {id(pt): (store, pid) for (store, _), (pt, pid) in pending}
    results: dict[tuple[Path, str], tuple[bool, str]] = {}
    distinct = {(Path(sw.store), p.id) for sw, (points, _) in zip(sweeps, expanded) for p in points}
    bar = SweepProgress(len(distinct), len(distinct) - len(pending), progress)
    t0 = time.perf_counter()

    def on_result(pt: Point, res: dict[str, Any]) -> None:
        store, pid = where[id(pt)]
        res = checked_version(res, version)
        stores[store].write_point(pt, res, plan_id=pid)
        ok = res.get("status") == "ok"
        results[(store, pt.id)] = (ok, "" if ok else res.get("error", ""))
        bar.update(ok)

    interrupted = False
    failing = True
    bar.update()
    todo = [pt for _, (pt, _) in pending]
    try:
        run_pending(todo, jobs, dask, on_result)
        failing = False
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        bar.close()
        for st in stores.values():
            try:
                st.flush()
            except StoreError:
                if not failing:
                    raise
    wall = time.perf_counter() - t0
    outcomes = []
    for sw, (points, pid), done_before in zip(sweeps, expanded, before):
        store = Path(sw.store)
        # as if the sweeps had run one by one: a point counts as run by the first sweep that
        # holds it, as already stored (or failed) for the later ones
        mine = [(p, results[(store, p.id)]) for p in points if (store, p.id) in results]
        failed = [(p, err) for p, (ok, err) in mine if not ok]
        done = sum(1 for p, (ok, _) in mine if ok and owner[(store, p.id)][1] == pid)
        outcomes.append(SweepOutcome(
            store=store, plan_id=pid, points=points, total=len(points), skipped=len(points) - done - len(failed),
            done=done, failed=failed, wall_s=wall, interrupted=interrupted,
        ))
    return outcomes
