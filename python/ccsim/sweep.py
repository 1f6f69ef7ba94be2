"""Sweeps: many runs of one scenario with overrides and seeds, into a resumable store.

A *plan* is a base scenario plus a grid (cartesian product) and/or a list of explicit override
dicts, times a number of seeds. Each *point* of a plan is one fully resolved scenario document;
it is identified by a hash of that document (canonical JSON), the ccsim version and the time
series kept. Points run on local worker processes (default) or on a Dask cluster, and each
result is written to the store (:mod:`ccsim.store`) as soon as it arrives, so an interrupted
sweep loses only the points in progress and a rerun skips the finished ones.

See docs/sweeps.md.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import time
import tomllib
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim import _core, paths
from ccsim.exceptions import ScenarioError, scenario_error
from ccsim.scenario import MAX_DEPTH, Scenario, _json_default, dumps_ready, json_ready, load, read_text
from ccsim.sweep_backends import (
    BackendError,
    SweepOutcome,
    SweepProgress,
    checked_version,
    run_pending,
    run_point,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Plan",
    "Point",
    "PlanError",
    "BackendError",
    "SweepOutcome",
    "load_plan",
    "resolve_path",
    "point_seed",
    "point_id",
    "canonical_json",
    "run_plans",
    "sweep",
    "SERIES",
]

#: Time-series tables a plan may keep (``series = ["flows", "links"]``).
SERIES = {"flows": "flow_series", "links": "link_series", "routes": "route_series", "backoffs": "backoffs"}
#: The most points one sweep may have (plans are expanded, hashed and listed in the store's
#: manifest up front; split larger studies into several sweeps). docs/reliability.md.
MAX_POINTS = 100_000
#: Expanding more points than this shows a progress line.
EXPAND_PROGRESS_FROM = 2_000
#: Keys allowed at the top level of a plan file.
PLAN_KEYS = ("name", "description", "base", "grid", "point", "seeds", "series")

# ---------------------------------------------------------------------------- errors


def PlanError(source: str, problems: Iterable[tuple[str, str]]) -> ScenarioError:
    """A ``ScenarioError`` about a plan (exit code 2 in the CLI), worded like the core's."""
    err = scenario_error(source, problems)
    msg = str(err).replace(" in scenario ", " in sweep plan ", 1)
    out = ScenarioError(msg)
    out.problems, out.source = err.problems, err.source
    return out


# ---------------------------------------------------------------------------- identity


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal documents give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_json_default)


def point_id(doc: Mapping[str, Any], version: str | None = None, series: Sequence[str] = ()) -> str:
    """The identity of a point: the first 16 hex digits of the SHA-256 of the canonical JSON of
    ``{"ccsim": version, "doc": doc, "series": sorted(series)}``.

    The same resolved document, ccsim version and kept series give the same id on every
    machine; changing any value in the document, or the version, changes it.
    """
    version = _core.version() if version is None else version
    text = canonical_json({"ccsim": version, "doc": doc, "series": sorted(series)})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def point_seed(base_seed: int, replicate: int) -> int:
    """The seed of replicate ``replicate`` (0, 1, …) of a point: ``base_seed + replicate``,
    where ``base_seed`` is the point's ``simulation.seed`` after its overrides (default 1).

    Replicate 0 is therefore the scenario exactly as written. Nearby seeds are independent:
    the core derives every random stream from the seed through a hash.
    """
    return int(base_seed) + int(replicate)


# ---------------------------------------------------------------------------- override paths


def normalise_key(path: str) -> str:
    """The column name of an override: brackets become dots (``link[0].rate`` → ``link.0.rate``)."""
    return ".".join(paths.split(path))


def resolve_path(doc: Mapping[str, Any], path: str, source: str = "<python>") -> str:
    """Turn names of array entries into indices: ``"link.bottleneck.loss"`` → ``"link.0.loss"``
    when ``doc["link"][0]["name"] == "bottleneck"`` (the one implementation of paths,
    :func:`ccsim.paths.resolve`, which ``Scenario.set`` uses too)."""
    return ".".join(paths.resolve(doc, path, source))


# ---------------------------------------------------------------------------- plans and points


class _ExpandProgress:
    """``expanding plan NAME: 12,345/40,000 points`` on stderr (a terminal) while a large
    plan is expanded and hashed."""

    def __init__(self, total: int, name: str) -> None:
        self.total, self.name = total, name
        self.on = total >= EXPAND_PROGRESS_FROM and sys.stderr.isatty()
        self.last = 0.0

    def update(self, n: int) -> None:
        if self.on and time.monotonic() - self.last > 0.5:
            self.last = time.monotonic()
            sys.stderr.write(f"\rexpanding plan {self.name}: {n:,}/{self.total:,} points\x1b[K")
            sys.stderr.flush()

    def close(self, n: int) -> None:
        if self.on and self.last:
            sys.stderr.write(f"\rexpanding plan {self.name}: {n:,}/{self.total:,} points\x1b[K\n")
            sys.stderr.flush()


@dataclass(frozen=True)
class Point:
    """One run of a sweep: the resolved document and how it was made."""

    id: str
    index: int  # position in the plan(s), from 0
    overrides: dict[str, Any]  # column name (dotted key) → value
    replicate: int
    seed: int
    labels: dict[str, Any]  # constant columns of the plan (e.g. its part name)
    doc: dict[str, Any] = field(repr=False)
    source: str = "<python>"
    series: tuple[str, ...] = ()


@dataclass
class Plan:
    """A base scenario, a grid and/or explicit points, a number of seeds.

    * ``grid``: dotted key → list of values; the plan runs their cartesian product (the last
      key varies fastest).
    * ``points``: a list of override dicts. With a grid too, every explicit point is combined
      with every grid combination (a key may not be in both).
    * ``seeds``: replicates of every combination; replicate r runs with seed
      ``point_seed(simulation.seed, r)``.
    * ``series``: time series to keep, ``"flows"`` and/or ``"links"``.
    * ``labels``: constant columns added to every point's rows (not part of the document).
    """

    base: Scenario
    grid: dict[str, list[Any]] = field(default_factory=dict)
    points: list[dict[str, Any]] = field(default_factory=list)
    seeds: int = 1
    series: tuple[str, ...] = ()
    labels: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    source: str = "<python>"  # the plan file, for messages

    def __post_init__(self) -> None:
        self.base = _as_scenario(self.base)
        self.grid = dict(self.grid or {})
        self.points = [dict(p) for p in (self.points or [])]
        self.series = tuple(self.series or ())
        problems = []
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, int) or self.seeds < 1:
            problems.append(("seeds", f"expected an integer >= 1, found {self.seeds!r}"))
        for s in self.series:
            if s not in SERIES:
                problems.append(("series", f"unknown series {s!r}; allowed: {', '.join(SERIES)}"))
        for key, values in self.grid.items():
            if not isinstance(values, (list, tuple)) or len(values) == 0:
                problems.append((f"grid.{key!r}", "expected a non-empty list of values"))
        for i, p in enumerate(self.points):
            clash = set(map(normalise_key, p)) & set(map(normalise_key, self.grid))
            if clash:
                problems.append((f"point[{i}]", f"key(s) also in the grid: {', '.join(sorted(clash))}"))
        if not problems and self.count() > MAX_POINTS:
            factors = [f"{len(self.points)} explicit points"] if self.points else []
            factors += [f"{len(v)} values of {k}" for k, v in self.grid.items()]
            sizes = " × ".join(factors + [f"{self.seeds:,} seeds"])
            problems.append(("", f"the plan has {self.count():,} points ({sizes}), more than the {MAX_POINTS:,} one sweep may "
                                 "have; split it into several plans (each into its own store, or the same one with --resume)"))
        if problems:
            raise PlanError(self.source, problems)

    def count(self) -> int:
        """How many points the plan has (before points repeating another are merged)."""
        n = max(1, len(self.points)) * self.seeds
        for values in self.grid.values():
            n *= len(values)
        return n

    # -- expansion

    def combinations(self) -> list[dict[str, Any]]:
        """The override dicts (without seeds), in order."""
        keys = list(self.grid)
        grid = [dict(zip(keys, vals)) for vals in itertools.product(*(self.grid[k] for k in keys))] if keys else [{}]
        explicit = self.points or [{}]
        return [{**p, **g} for p in explicit for g in grid]

    def expand(self, start: int = 0, version: str | None = None) -> list[Point]:
        """Every point of the plan, each with its resolved document, seed and id.

        Raises ``ScenarioError`` (a plan problem) for an override path that does not fit the
        base document, or a value the scenario format refuses (checked before anything
        runs, with the core's message)."""
        version = _core.version() if version is None else version
        resolved_keys = self._resolve_keys()
        self._check_values(resolved_keys)
        out: list[Point] = []
        show = _ExpandProgress(self.count(), self.name or self.source)
        source = self.base.source
        # Every point's document is the base's JSON text, read back (a deep copy at C speed:
        # a reproduction's plans hold documents of hundreds of flows), with the overrides and
        # the seed set: what copying the base, setting them and writing JSON gave, each point
        # copying and checking the whole document four times.
        # nesting checked (raises), as copy() did per point; then written as to_json writes it
        base_json = dumps_ready(self.base.doc, source)
        for combo in self.combinations():
            show.update(len(out))
            sc = self.base
            combo_json = base_json
            if combo:
                sc = Scenario(json.loads(base_json), source)
                for key, value in combo.items():
                    sc.set(resolved_keys[key], value, check=False)  # checked above, one by one
                combo_json = sc.to_json()
            base_seed = sc.doc.get("simulation", {}).get("seed", 1) if isinstance(sc.doc.get("simulation"), dict) else 1
            for r in range(self.seeds):
                seed = point_seed(base_seed if isinstance(base_seed, int) else 1, r)
                doc = json.loads(combo_json)
                paths.set_at(doc, paths.resolve(doc, "simulation.seed", source), seed, "simulation.seed", source)
                out.append(Point(
                    id=point_id(doc, version, self.series),
                    index=start + len(out),
                    overrides={normalise_key(k): v for k, v in combo.items()},
                    replicate=r,
                    seed=seed,
                    labels=dict(self.labels),
                    doc=doc,
                    source=self.base.source,
                    series=self.series,
                ))
        show.close(len(out))
        return out

    def _where(self, key: str) -> str:
        return f"grid.{key!r}" if key in self.grid else f"point.{key!r}"

    def _resolve_keys(self) -> dict[str, str]:
        """Each override key with its entry names turned into indices (plan problems for a
        path that does not fit the base document)."""
        resolved: dict[str, str] = {}
        for key in dict.fromkeys(k for k, _ in self._overrides()):
            try:
                resolved[key] = resolve_path(self.base.doc, key, self.source)
            except ScenarioError as e:
                raise PlanError(self.source, [(self._where(key), m) for _, m in e.problems]) from None
            except ValueError as e:
                raise PlanError(self.source, [(self._where(key), str(e))]) from None
        return resolved

    def _check_values(self, resolved: dict[str, str]) -> None:
        """Each override value set on its own in the base document, checked by the core's
        parser: an unknown key or a bad value is a plan problem, every one reported."""
        problems: list[tuple[str, str]] = []
        seen: set[tuple[str, str]] = set()
        for key, value in self._overrides():
            mark = (key, canonical_json(value))
            if mark in seen:
                continue
            seen.add(mark)
            try:
                self.base.copy().set(resolved[key], value)
            except ScenarioError as e:
                at = paths.core_path(resolved[key].split("."))
                problems.extend((self._where(key), m if p == at else f"{p}: {m}") for p, m in e.problems)
        if problems:
            raise PlanError(self.source, problems)

    def _overrides(self) -> Iterable[tuple[str, Any]]:
        """Every (key, value) the plan sets, each grid value and each point's, without
        forming the combinations."""
        for key, values in self.grid.items():
            for v in values:
                yield key, v
        for p in self.points:
            yield from p.items()

    def check_keys(self) -> None:
        """Check every override path and value against the base document before anything
        runs (``expand`` does the same). Raises ``ScenarioError``."""
        self._check_values(self._resolve_keys())

    def describe(self) -> dict[str, Any]:
        """What the plan is, for manifests and reports (JSON-friendly)."""
        return {
            "name": self.name,
            "source": self.source,
            "base": self.base.source,
            "grid": self.grid,
            "points": self.points,
            "seeds": self.seeds,
            "series": list(self.series),
            "labels": self.labels,
        }


def _as_scenario(base: Any) -> Scenario:
    if isinstance(base, Scenario):
        return base
    if isinstance(base, Mapping):
        return Scenario(base)
    if isinstance(base, (str, os.PathLike)):
        return load(base)
    raise TypeError(f"a sweep's base is a Scenario, a document dict or a scenario file, not {type(base).__name__}")


def _flatten(table: Mapping[str, Any], prefix: str = "", leaf: Callable[[Any], bool] = lambda v: True) -> dict[str, Any]:
    """Nested TOML tables → dotted keys (``[grid] link.0.rate = [...]`` nests in TOML)."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and not leaf(v):
            out.update(_flatten(v, key, leaf))
        else:
            out[key] = v
    return out


def load_plan(path: str | os.PathLike[str]) -> Plan:
    """Read a plan file (TOML)::

        base = "../dumbbell.toml"          # relative to the plan file
        seeds = 5
        series = ["flows"]                 # optional: time series to keep
        [grid]
        "link.bottleneck.loss" = [0.0, 0.001, 0.01]
        "link.bottleneck.queue.limit" = ["50p", "100p"]
        [[point]]                          # optional explicit points
        "flow.0.recovery" = "sack"

    Raises ``ScenarioError`` naming the plan file and the key for any problem.
    """
    p = Path(path)
    source = str(p)
    try:
        text = read_text(p, "sweep plan")
    except FileNotFoundError:
        raise PlanError(source, [("", "file not found")]) from None
    except IsADirectoryError:
        raise PlanError(source, [("", "is a directory, not a sweep plan")]) from None
    except UnicodeDecodeError as e:
        raise PlanError(source, [("", f"not UTF-8 text ({e.reason} at byte {e.start})")]) from None
    except ValueError as e:
        raise PlanError(source, [("", str(e))]) from None
    except OSError as e:
        raise PlanError(source, [("", f"cannot read: {e.strerror or e}")]) from None
    try:
        raw = tomllib.loads(text)
        json_ready(raw, source)  # nesting within MAX_DEPTH, so that nothing below recurses deeply
    except tomllib.TOMLDecodeError as e:
        raise PlanError(source, [("", f"TOML syntax error: {e}")]) from None
    except RecursionError:
        raise PlanError(source, [("", f"nested more than {MAX_DEPTH} tables or lists deep")]) from None
    except ScenarioError as e:
        raise PlanError(source, e.problems) from None
    problems = [(k, f"unknown key; allowed: {', '.join(PLAN_KEYS)}") for k in raw if k not in PLAN_KEYS]
    if "base" not in raw:
        problems.append(("base", "required: the base scenario file, relative to the plan"))
    elif not isinstance(raw["base"], str):
        problems.append(("base", f"expected a file name (string), found {raw['base']!r}"))
    grid = raw.get("grid", {})
    if not isinstance(grid, dict):
        problems.append(("grid", "expected a table of dotted keys → lists of values"))
        grid = {}
    grid = _flatten(grid, leaf=lambda v: False)
    pts = raw.get("point", [])
    if not isinstance(pts, list) or not all(isinstance(x, dict) for x in pts):
        problems.append(("point", "expected [[point]] tables of dotted keys → values"))
        pts = []
    pts = [_flatten(x, leaf=lambda v: False) for x in pts]
    series = raw.get("series", [])
    if isinstance(series, str):
        series = [series]
    if not isinstance(series, list):
        problems.append(("series", "expected a list such as [\"flows\", \"links\"]"))
        series = []
    if problems:
        raise PlanError(source, problems)
    base_path = (p.parent / raw["base"]).resolve()
    if not base_path.is_file():
        raise PlanError(source, [("base", f"scenario file not found: {base_path}")])
    base = load(base_path)
    base.source = os.path.relpath(base_path) if not os.path.isabs(raw["base"]) else str(base_path)
    return Plan(
        base=base,
        grid=grid,
        points=pts,
        seeds=raw.get("seeds", 1),
        series=tuple(series),
        name=str(raw.get("name", p.stem)),
        source=source,
    )


def expand_plans(plans: Sequence[Plan], version: str | None = None) -> list[Point]:
    """All points of several plans, numbered in order; a point whose document repeats an
    earlier one (same id) is kept once."""
    out: list[Point] = []
    seen: set[str] = set()
    for plan in plans:
        for pt in plan.expand(start=len(out), version=version):
            if pt.id not in seen:
                seen.add(pt.id)
                out.append(pt)
    return out


def plan_id(points: Sequence[Point]) -> str:
    """A plan's identity: the hash of its point ids in order."""
    return hashlib.sha256("\n".join(p.id for p in points).encode()).hexdigest()[:16]


def run_plans(
    plans: Plan | Sequence[Plan],
    out: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    dask: Any = None,
    progress: Any = None,
    resume: bool = False,
) -> SweepOutcome:
    """Run the points of ``plans`` that the store at ``out`` does not hold yet.

    A store that holds a *different* plan is refused (``ValueError``) unless ``resume`` is
    true, in which case this plan's points are added to it (finished ones are skipped either
    way). Each result is written as soon as it arrives. On Ctrl-C the workers are stopped,
    the manifest is written and ``KeyboardInterrupt`` propagates."""
    from ccsim.store import Store

    plans = [plans] if isinstance(plans, Plan) else list(plans)
    version = _core.version()
    points = expand_plans(plans, version)
    for plan in plans:
        plan.check_keys()
    pid = plan_id(points)
    store = Store.open(out, pid, [p.describe() for p in plans], points, version=version, resume=resume)
    try:
        return _run_into(store, out, pid, points, version, jobs=jobs, dask=dask, progress=progress)
    finally:
        store.close()


def _run_into(store: Any, out: Any, pid: str, points: list[Point], version: str, *, jobs: int | None, dask: Any, progress: Any) -> SweepOutcome:
    """``run_plans`` once the store is open (and locked)."""
    from ccsim.store import StoreError

    pending = [pt for pt in points if store.status(pt.id) != "ok"]
    skipped = len(points) - len(pending)
    bar = SweepProgress(len(points), skipped, progress)
    failed: list[tuple[Point, str]] = []
    counts = {"done": 0}
    t0 = time.perf_counter()

    def on_result(pt: Point, res: dict[str, Any]) -> None:
        res = checked_version(res, version)
        store.write_point(pt, res)
        if res.get("status") == "ok":
            counts["done"] += 1
            bar.update(True)
        else:
            failed.append((pt, res.get("error", "")))
            bar.update(False)

    interrupted = False
    failing = True
    bar.update()
    try:
        run_pending(pending, jobs, dask, on_result)
        failing = False
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        bar.close()
        try:
            store.flush()
        except StoreError:
            if not failing:  # else the error already on its way out is the one to show
                raise
        outcome = SweepOutcome(
            store=Path(out), plan_id=pid, points=points, total=len(points), skipped=skipped,
            done=counts["done"], failed=failed, wall_s=time.perf_counter() - t0, interrupted=interrupted,
        )
        run_plans.last_outcome = outcome  # type: ignore[attr-defined]
    return outcome


def sweep(
    base: Scenario | Mapping[str, Any] | str | os.PathLike[str] | Plan | Sequence[Plan],
    *,
    grid: Mapping[str, Sequence[Any]] | None = None,
    points: Sequence[Mapping[str, Any]] | None = None,
    seeds: int = 1,
    series: Sequence[str] = (),
    out: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    dask: Any = None,
    progress: Any = None,
    resume: bool = False,
    table: str = "flows",
) -> pd.DataFrame:
    """Run a sweep and return its results as one DataFrame (``ccsim.results.load``).

    ``base`` is the base scenario (a ``Scenario``, a document dict or a scenario file), or a
    ``Plan`` (or list of plans) — then ``grid``, ``points``, ``seeds`` and ``series`` must be
    left out; a path ending in a plan file can be read with :func:`load_plan` first.

    ``grid``: dotted key → values (cartesian product); ``points``: explicit override dicts;
    ``seeds``: replicates per combination; ``series``: ``"flows"``/``"links"`` time series to
    keep. ``out``: the store directory (default: a fresh temporary directory); ``jobs``:
    worker processes (default: all cores; 1 runs in this process); ``dask``: a
    ``distributed.Client`` or scheduler address instead of local processes; ``progress``: as
    in ``run``; ``resume``: allow adding to a store that holds another plan.

    Points that fail are recorded in the store with their error and do not stop the sweep;
    the returned frame has rows of the points that succeeded (``table="points"`` gives one row
    per point with its status and error). Raises ``ScenarioError`` for a bad plan.
    """
    from ccsim.results import load as load_results

    if isinstance(base, Plan) or (isinstance(base, (list, tuple)) and base and all(isinstance(p, Plan) for p in base)):
        if grid is not None or points is not None or seeds != 1 or tuple(series):
            raise TypeError("sweep(plan): give grid, points, seeds and series in the Plan")
        plans = [base] if isinstance(base, Plan) else list(base)
    else:
        plans = [Plan(base=_as_scenario(base), grid=dict(grid or {}), points=list(points or []), seeds=seeds, series=tuple(series))]
    if out is None:
        import tempfile

        out = tempfile.mkdtemp(prefix="ccsim-sweep-")
    outcome = run_plans(plans, out, jobs=jobs, dask=dask, progress=progress, resume=resume)
    return load_results(out, table=table, plan=outcome.plan_id)


class _CallableModule(types.ModuleType):
    """``ccsim.sweep`` is this module *and* callable as the ``sweep`` function, so both
    ``ccsim.sweep(base, grid=...)`` and ``ccsim.sweep.Plan`` work."""

    def __call__(self, *args: Any, **kwargs: Any) -> pd.DataFrame:
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
