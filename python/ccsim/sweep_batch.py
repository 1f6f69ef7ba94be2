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

Groups (``ccsim reproduce``: one per experiment). Given ``groups`` (one per sweep), the points
are submitted group by group in ``group_order`` (longest first within a group), and
``on_group`` is told as soon as all of a group's points are done, while the pool goes on with
the others'. :class:`BackgroundBatch` runs the batch in a background thread so that the
caller's thread can work on each finished group meanwhile (``reproduce`` draws an
experiment's figures there, while the workers run the next experiments' points).
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccsim import _core
from ccsim._units import duration_s
from ccsim.sweep import Plan, Point, expand_plans, plan_id
from ccsim.sweep_backends import SweepOutcome, SweepProgress, checked_version, run_pending

__all__ = ["Sweep", "run_batch", "estimated_cost", "BackgroundBatch"]


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
    groups: Sequence[Hashable] | None = None,
    group_order: Sequence[Hashable] | Callable[[dict[Hashable, float]], Sequence[Hashable]] | None = None,
    on_group: Callable[[Hashable, list[SweepOutcome]], None] | None = None,
    stop: threading.Event | None = None,
) -> list[SweepOutcome]:
    """Run the points of ``sweeps`` that their stores do not hold yet, in one pool, and
    return one outcome per sweep (in order). Stores are opened with ``resume``: finished
    points are skipped. Errors as ``run_plans`` (a plan problem before anything runs, a
    ``StoreError`` for a store that cannot be written). On Ctrl-C every store's manifest is
    written and ``KeyboardInterrupt`` propagates.

    ``groups``: one per sweep (sweeps of one group may share a store; groups may not). The
    pending points are submitted group by group in ``group_order`` (default: as the groups
    first appear; a function: called with each group's work left, the sum of its pending
    points' :func:`estimated_cost`, it returns the order), longest first within each, and ``on_group(group, outcomes of its sweeps)``
    is called (in the thread running the pool) once all of a group's points have their
    results and its stores' manifests are written; a group with nothing to run, before the
    pool starts. ``stop``: once set, the batch ends at the next result as after Ctrl-C
    (manifests written, ``KeyboardInterrupt``)."""
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
        grouping = _Groups(sweeps, groups, group_order, on_group)
        return _run(sweeps, expanded, stores, version, jobs=jobs, dask=dask, progress=progress,
                    longest_first=longest_first, grouping=grouping, stop=stop)
    finally:
        for st in stores.values():
            st.close()


class _Groups:
    """The sweeps' groups: the order their points are submitted in, the points each still
    waits for, and whom to tell when it has none left."""

    def __init__(self, sweeps: Sequence[Sweep], groups: Sequence[Hashable] | None, order: Any,
                 on_group: Callable[[Hashable, list[SweepOutcome]], None] | None) -> None:
        if groups is not None and len(groups) != len(sweeps):
            raise ValueError(f"run_batch: {len(groups)} groups for {len(sweeps)} sweeps")
        self.of = list(groups) if groups is not None else [None] * len(sweeps)
        self.order = order
        self.rank: dict[Hashable, int] = {}
        self.on_group = on_group
        self.waiting: dict[Hashable, set[tuple[Path, str]]] = {g: set() for g in dict.fromkeys(self.of)}
        self.told: set[Hashable] = set()

    def rank_groups(self, cost: Callable[[tuple[Path, str]], float]) -> None:
        """Fix the groups' order (``cost``: of a pending point), once their pending points are known."""
        known = list(self.waiting)
        if callable(self.order):
            order = list(self.order({g: sum(cost(k) for k in self.waiting[g]) for g in known}))
        else:
            order = list(self.order) if self.order is not None else known
        missing = [g for g in known if g not in order]
        if missing:
            raise ValueError(f"run_batch: group_order lacks the groups {missing}")
        self.rank = {g: i for i, g in enumerate(order)}

    def sweeps_of(self, group: Hashable) -> list[int]:
        return [i for i, g in enumerate(self.of) if g == group]


def _run(sweeps: Sequence[Sweep], expanded: list[tuple[list[Point], str]], stores: dict[Path, Any], version: str, *,
         jobs: int | None, dask: Any, progress: Any, longest_first: bool, grouping: _Groups,
         stop: threading.Event | None) -> list[SweepOutcome]:
    from ccsim.store import StoreError

    owner: dict[tuple[Path, str], tuple[Point, str]] = {}  # (store, point id) → (point, first sweep's plan)
    for i, (sw, (points, pid)) in enumerate(zip(sweeps, expanded)):
        st = stores[Path(sw.store)]
        for p in points:
            if st.status(p.id) != "ok":
                owner.setdefault((Path(sw.store), p.id), (p, pid))
                grouping.waiting[grouping.of[i]].add((Path(sw.store), p.id))
    pending = list(owner.items())
    grouping.rank_groups(lambda key: estimated_cost(owner[key][0]))
    waiters: dict[tuple[Path, str], list[Hashable]] = {}  # point → the groups that wait for it
    for g, keys in grouping.waiting.items():
        for key in keys:
            waiters.setdefault(key, []).append(g)

    def first_rank(key: tuple[Path, str]) -> int:
        return min(grouping.rank[g] for g in waiters[key])

    if longest_first:  # stable: plan order among equals
        pending.sort(key=lambda kv: (first_rank(kv[0]), -estimated_cost(kv[1][0])))
    else:
        pending.sort(key=lambda kv: first_rank(kv[0]))
    where = {id(pt): (store, pid) for (store, _), (pt, pid) in pending}
    results: dict[tuple[Path, str], tuple[bool, str]] = {}
    distinct = {(Path(sw.store), p.id) for sw, (points, _) in zip(sweeps, expanded) for p in points}
    bar = SweepProgress(len(distinct), len(distinct) - len(pending), progress)
    t0 = time.perf_counter()

    def outcomes_of(indices: list[int], interrupted: bool = False) -> list[SweepOutcome]:
        return [_outcome(sweeps[i], expanded[i], results, owner, time.perf_counter() - t0, interrupted)
                for i in indices]

    def tell(group: Hashable) -> None:
        if grouping.on_group is None or group in grouping.told:
            return
        grouping.told.add(group)
        mine = grouping.sweeps_of(group)
        for store in dict.fromkeys(Path(sweeps[i].store) for i in mine):
            stores[store].flush()  # the reader opens the store from its manifest
        grouping.on_group(group, outcomes_of(mine))

    def on_result(pt: Point, res: dict[str, Any]) -> None:
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt("run_batch stopped")
        store, pid = where[id(pt)]
        res = checked_version(res, version)
        stores[store].write_point(pt, res, plan_id=pid)
        ok = res.get("status") == "ok"
        results[(store, pt.id)] = (ok, "" if ok else res.get("error", ""))
        bar.update(ok)
        for group in waiters[(store, pt.id)]:
            grouping.waiting[group].discard((store, pt.id))
            if not grouping.waiting[group]:
                tell(group)

    interrupted = False
    failing = True
    bar.update()
    todo = [pt for _, (pt, _) in pending]
    try:
        for group in sorted(grouping.waiting, key=grouping.rank.__getitem__):
            if not grouping.waiting[group]:
                tell(group)
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
    return outcomes_of(list(range(len(sweeps))), interrupted)


def _outcome(sw: Sweep, expanded: tuple[list[Point], str], results: dict[tuple[Path, str], tuple[bool, str]], owner: dict[tuple[Path, str], tuple[Point, str]],
             wall: float, interrupted: bool) -> SweepOutcome:
    """What one sweep of the batch did, as if the sweeps had run one by one: a point counts as
    run by the first sweep that holds it, as already stored (or failed) for the later ones."""
    points, pid = expanded
    store = Path(sw.store)
    mine = [(p, results[(store, p.id)]) for p in points if (store, p.id) in results]
    failed = [(p, err) for p, (ok, err) in mine if not ok]
    done = sum(1 for p, (ok, _) in mine if ok and owner[(store, p.id)][1] == pid)
    return SweepOutcome(store=store, plan_id=pid, points=points, total=len(points),
                        skipped=len(points) - done - len(failed), done=done, failed=failed, wall_s=wall,
                        interrupted=interrupted)


class BackgroundBatch:
    """:func:`run_batch` in a background thread, its groups handed to the caller's thread as
    they finish::

        with BackgroundBatch(sweeps, groups, group_order, jobs=2) as batch:
            for group, outcomes in batch.finished():
                ...  # work on the group (in this thread) while the pool runs the next ones

    ``finished`` yields every group once (in the order they finish), then ends, or raises
    what the batch raised (a plan or store error, ``KeyboardInterrupt``). Leaving the block
    early (an error, Ctrl-C: signals reach the main thread only) stops the batch as Ctrl-C
    stops :func:`run_batch`: the pool's workers are killed (the points they were running are
    lost, as after Ctrl-C), every store's manifest is written, and the exception goes on.
    ``outcomes``: one per sweep, once the batch has ended. Local worker processes only (the
    workers killed are the multiprocessing children started while the batch runs)."""

    def __init__(self, sweeps: Sequence[Sweep], groups: Sequence[Hashable], group_order: Any = None,
                 *, jobs: int | None = None, progress: Any = None) -> None:
        self._args = (list(sweeps), list(groups), group_order)
        self._jobs, self._progress = jobs, progress
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._children: set[Any] = set()
        self.outcomes: list[SweepOutcome] | None = None
        self.ended_at = float("nan")  # time.perf_counter() when the batch ended

    def _work(self) -> None:
        sweeps, groups, order = self._args
        try:
            self.outcomes = run_batch(sweeps, jobs=self._jobs, progress=self._progress, groups=groups, group_order=order,
                                      on_group=lambda g, outs: self._queue.put(("group", (g, outs))), stop=self._stop)
            self.ended_at = time.perf_counter()
            self._queue.put(("end", None))
        except BaseException as e:  # handed to the caller's thread
            self._queue.put(("error", e))

    def __enter__(self) -> BackgroundBatch:
        self._children = set(multiprocessing.active_children())  # not ours: never killed
        self._thread = threading.Thread(target=self._work, name="ccsim-batch", daemon=True)
        self._thread.start()
        return self

    def finished(self) -> Iterator[tuple[Hashable, list[SweepOutcome]]]:
        while True:
            kind, item = self._queue.get()
            if kind == "group":
                yield item
            elif kind == "end":
                return
            else:
                raise item

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        thread = self._thread
        if thread is None:
            return
        if exc_type is not None and thread.is_alive():
            self._stop.set()  # the pool's thread raises at its next result
            while thread.is_alive():  # ... which killing the workers brings at once
                for child in set(multiprocessing.active_children()) - self._children:
                    child.kill()
                thread.join(0.05)
        thread.join()
