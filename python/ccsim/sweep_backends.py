"""Running a sweep's points: one point in a worker, the local process pool and the Dask
backend, the progress line, and what a sweep did (:class:`SweepOutcome`). Planning (plans,
points, identity) and the entry points are in :mod:`ccsim.sweep`, which re-exports these.

See docs/sweeps.md.
"""

from __future__ import annotations

import copy
import itertools
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim import _core
from ccsim.progress import format_duration
from ccsim.scenario import Scenario, with_absolute_traces

if TYPE_CHECKING:
    from ccsim.sweep import Point


class BackendError(RuntimeError):
    """The Dask backend cannot be used (not installed, scheduler unreachable)."""


# ---------------------------------------------------------------------------- running one point


def run_point(task: dict[str, Any]) -> dict[str, Any]:
    """Run one point (in a worker) and return its outcome: ``status`` ``"ok"`` with the tables
    as Parquet bytes, or ``"error"`` with the message. Never raises for a failing run."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"id": task["id"], "version": _core.version(), "host": os.uname().nodename, "pid": os.getpid()}
    try:
        from ccsim.api import run
        from ccsim.store import table_bytes
        from ccsim.sweep import SERIES

        result = run(Scenario(task["doc"], task["source"]), progress=False)
        s = result.summary

        def parquet(name: str) -> bytes:
            # straight from the core's columns to Arrow; the same bytes as the frame's
            # to_parquet; building the frames and converting them was half of a small
            # point's wall time (cmt-berp: ~29 of 57 ms)
            table = result.arrow_table(name)
            return table_bytes(table if table is not None else getattr(result, name))

        tables = {"flows": parquet("flows"), "links": parquet("links")}
        if any(f.get("paths") for f in s.get("flows", [])):  # the paths table has rows
            tables["paths"] = parquet("paths")
        for name in task.get("series", ()):
            tables[SERIES[name]] = parquet(SERIES[name])
        out.update(
            status="ok",
            tables=tables,
            end_time_s=s.get("end_time_s"),
            events=s.get("events"),
            conservation=s.get("conservation"),
        )
    except Exception as e:  # recorded with the point; the sweep goes on
        msg = str(e).strip() or repr(e)
        out.update(status="error", error=f"{type(e).__name__}: {msg}")
    out["wall_s"] = time.perf_counter() - t0
    return out


def _task(pt: Point) -> dict[str, Any]:
    # A point runs under a source that names no file: relative trace paths made absolute
    # here, from the plan's scenario file (the point's id stays that of its document).
    doc = with_absolute_traces(copy.deepcopy(pt.doc), pt.source)
    return {"id": pt.id, "doc": doc, "source": f"{pt.source} (sweep point {pt.index})", "series": pt.series}


# ---------------------------------------------------------------------------- progress


class SweepProgress:
    """``sweep [#####-----]  45/120  done 43  failed 2  left 75  elapsed 1m02s  ETA 1m20s`` on
    stderr. ``mode``: ``None`` shows it on a terminal only; ``True`` always (off a terminal a
    line per 10 %); ``False`` never; a callable is called as ``f(done, failed, total, elapsed_s)``."""

    def __init__(self, total: int, skipped: int, mode: Any = None, stream: Any = None) -> None:
        self.total, self.skipped = total, skipped
        self.done = self.failed = 0
        self.stream = stream if stream is not None else sys.stderr
        self.callback = mode if callable(mode) else None
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.show = self.callback is None and (mode is True or (mode is None and self.tty))
        self.start = time.perf_counter()
        self.last_decile = -1
        self.drawn = False

    def line(self) -> str:
        todo = self.total - self.skipped
        finished = self.done + self.failed
        elapsed = time.perf_counter() - self.start
        frac = finished / todo if todo else 1.0
        eta = elapsed * (todo - finished) / finished if finished else float("nan")
        width = 20
        bar = "#" * int(width * frac) + "-" * (width - int(width * frac))
        return (
            f"sweep [{bar}] {finished + self.skipped}/{self.total}  done {self.done}  failed {self.failed}"
            f"  left {todo - finished}  elapsed {format_duration(elapsed)}  ETA {format_duration(eta)}"
        )

    def update(self, ok: bool | None = None) -> None:
        if ok is True:
            self.done += 1
        elif ok is False:
            self.failed += 1
        if self.callback is not None:
            self.callback(self.done + self.skipped, self.failed, self.total, time.perf_counter() - self.start)
            return
        if not self.show:
            return
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.drawn = True
        else:
            todo = self.total - self.skipped
            decile = int(10 * (self.done + self.failed) / todo) if todo else 10
            if decile > self.last_decile:
                self.last_decile = decile
                self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


# ---------------------------------------------------------------------------- backends


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


@dataclass
class SweepOutcome:
    """What a sweep did: counts, failures, wall time, the store."""

    store: Path
    plan_id: str
    points: list[Point]
    total: int
    skipped: int  # already in the store
    done: int  # run now, succeeded
    failed: list[tuple[Point, str]]  # run now (or before), failed, with the error
    wall_s: float
    interrupted: bool = False

    def summary_text(self) -> str:
        lines = [
            f"Sweep {'interrupted' if self.interrupted else 'finished'}: {self.total} points, "
            f"{self.skipped} already stored, {self.done} run now, {len(self.failed)} failed; "
            f"wall {format_duration(self.wall_s)}; store {self.store}"
        ]
        if self.failed:
            lines.append(f"Failed points ({len(self.failed)}):")
            for pt, err in self.failed[:50]:
                what = ", ".join(f"{k}={_short(repr(v))}" for k, v in pt.overrides.items())
                lines.append(f"  point {pt.index} [{pt.id}] ({what + ', ' if what else ''}seed={pt.seed}): {err.splitlines()[0] if err else ''}")
                for extra in err.splitlines()[1:6]:
                    lines.append(f"      {extra}")
            if len(self.failed) > 50:
                lines.append(f"  … and {len(self.failed) - 50} more (see the store's manifest)")
        if self.interrupted:
            lines.append("Rerun the same command to continue; finished points are kept.")
        return "\n".join(lines)


def checked_version(res: dict[str, Any], version: str) -> dict[str, Any]:
    """A worker's result, turned into an error if it ran another ccsim version than the
    sweep (its point would not be this version's)."""
    if res.get("status") == "ok" and res.get("version") not in (None, version):
        return {**res, "status": "error",
                "error": f"VersionMismatch: the worker runs ccsim {res.get('version')}, this sweep {version}"}
    return res


def run_pending(pending: list[Point], jobs: int | None, dask: Any,
                on_result: Callable[[Point, dict[str, Any]], None]) -> None:
    """Run ``pending`` on the Dask client ``dask`` if given, else on ``jobs`` local worker
    processes (default: one per core), reporting each result to ``on_result``."""
    if not pending:
        return
    if dask is not None:
        _run_dask(pending, dask, on_result)
    else:
        _run_local(pending, max(1, jobs or os.cpu_count() or 1), on_result)


def _run_local(pending: list[Point], jobs: int, on_result: Callable[[Point, dict[str, Any]], None]) -> None:
    """Run points on ``jobs`` worker processes (``jobs == 1``: in this process)."""
    if jobs == 1:
        for pt in pending:
            on_result(pt, run_point(_task(pt)))
        return
    import multiprocessing as mp

    # fork (where there is one): workers start at once with ccsim loaded, and a script that
    # calls sweep() needs no `if __name__ == "__main__"` guard (spawn would re-run it)
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    queue = list(pending)
    while queue:
        queue, lost = _run_pool(ctx, queue, jobs, 2 * jobs, on_result)
        # the pool broke (a worker died): run each point it held alone, so that only the
        # point that kills its worker fails
        for pt in lost:
            _, again = _run_pool(ctx, [pt], 1, 1, on_result)
            if again:
                on_result(pt, {"id": pt.id, "status": "error", "wall_s": None,
                               "error": "WorkerDied: the worker process died while running this point"})


def _run_pool(ctx: Any, points: list[Point], jobs: int, limit: int, on_result: Callable[[Point, dict[str, Any]], None]) -> tuple[list[Point], list[Point]]:
    """Run ``points`` on a fresh pool with at most ``limit`` in flight (so a broken pool loses
    little). Returns (points not started, points in flight when the pool broke)."""
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
    futures: dict[Future, Point] = {}
    lost: list[Point] = []
    it = iter(points)
    broken = False

    def submit(pt: Point) -> None:
        nonlocal broken
        try:
            futures[pool.submit(run_point, _task(pt))] = pt
        except BrokenProcessPool:
            broken = True
            lost.append(pt)

    try:
        for pt in itertools.islice(it, limit):
            submit(pt)
        while futures:
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for fut in done:
                pt = futures.pop(fut)
                try:
                    res = fut.result()
                except BrokenProcessPool:
                    broken = True
                    lost.append(pt)
                    continue
                on_result(pt, res)
            if not broken:
                for pt in itertools.islice(it, len(done)):
                    submit(pt)
        return list(it), lost
    except BaseException:
        _kill_pool(pool)
        raise
    finally:
        pool.shutdown(wait=not broken, cancel_futures=True)


def _kill_pool(pool: ProcessPoolExecutor) -> None:
    """Stop the pool's workers now (after Ctrl-C): they hold only points in progress."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.kill()
        except Exception:
            pass
    for p in procs:
        try:
            p.join(timeout=5)
        except Exception:
            pass


def _run_dask(pending: list[Point], dask: Any, on_result: Callable[[Point, dict[str, Any]], None]) -> None:
    """Run points on a Dask cluster: ``dask`` is a ``distributed.Client`` or a scheduler address."""
    try:
        from distributed import Client, as_completed
    except ImportError:  # pragma: no cover - depends on the environment
        raise BackendError("the Dask backend needs the 'distributed' package: pip install 'ccsim[dask]'") from None
    own = not isinstance(dask, Client)
    try:
        client = Client(dask, timeout="15s") if own else dask
    except (OSError, TimeoutError, ValueError) as e:
        raise BackendError(f"cannot connect to the Dask scheduler at {dask}: {e}") from None
    try:
        futures = {}
        for pt in pending:
            fut = client.submit(run_point, _task(pt), pure=False, key=f"ccsim-point-{pt.id}-{time.monotonic_ns()}")
            futures[fut] = pt
        try:
            for fut in as_completed(list(futures)):
                pt = futures[fut]
                try:
                    res = fut.result()
                except Exception as e:  # the worker died (KilledWorker) or could not run the task
                    res = {"id": pt.id, "status": "error", "error": f"{type(e).__name__}: {e}", "wall_s": None}
                fut.release()
                on_result(pt, res)
        except BaseException:
            client.cancel(list(futures))
            raise
    finally:
        if own:
            client.close()
