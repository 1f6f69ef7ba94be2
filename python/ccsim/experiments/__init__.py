"""Experiments: runnable reproductions, each compared with what its paper (or issue) states.

Each module of this package defines ``EXPERIMENT``, an :class:`Experiment`: plans to run in
``quick`` and ``full`` mode (sweeps, see :mod:`ccsim.sweep`), the figures to draw from the
results and the claims to check against the paper's numbers. ``ccsim reproduce [NAME]`` runs
them and writes a report (see docs/reproduce.md).

Adding a paper: write ``ccsim/experiments/<name>.py`` with ``EXPERIMENT = Experiment(...)``
and add the module name to ``MODULES``.

Values the paper does not state are declared as data (:class:`Unstated`: the value used, its
source, a plausible range). The experiment's plan functions take them as a mapping
(``full(values)``), so full mode can rerun the claims with each declared value moved one at a
time over its range (:mod:`ccsim.sensitivity`); the report then shows, for every claim, the
envelope of the results and the value that moves it most (docs/reproduce.md, "Principles").

Figures and claims receive the flows table of the experiment's sweep (``results.load``), one
row per (point, flow), with the plan labels and override values as columns. Its ``attrs``
carry the store and the plan id, so :func:`load_table` can read the other tables (links,
kept time series) of the same points.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.sweep import Plan

__all__ = ["Experiment", "Figure", "Claim", "Unstated", "Spread", "registry", "get", "load_table", "cached_tables",
           "quick_claim_failures", "MODULES"]

#: Experiment modules, in report order.
MODULES = ("foundation", "arc_planetary", "matcp", "cmt_berp", "fast_multipath_rip", "daimd", "modern_cc")

KINDS = ("approx", "at_least", "at_most")

#: Two-sided 95 % Student t quantiles by degrees of freedom (1…10; the normal's 1.96 beyond).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


@dataclass(frozen=True)
class Spread:
    """The run-to-run spread of a claim that one run cannot decide: the claim's *margin* in
    each of several runs (seeds), where a margin ≤ 0 means the claim holds in that run (for
    "WRTT is best": WRTT's metric minus the best other selector's). ``evidence`` says where
    the runs come from (the command that reproduces them); ``note`` anything the reader
    must know (for example a run of the evidence that does not match this run).

    The verdict (:func:`ccsim.sensitivity.verdict`) reads the 95 % t interval of the mean
    margin: containing 0, the claim is *not resolved by the run-to-run spread*; above 0, it
    does not hold outside the spread; below 0, it holds over the seeds."""

    margins: tuple[float, ...]
    evidence: str
    note: str = ""

    def interval(self) -> tuple[float, float, float]:
        """(mean, low, high) of the margin: the mean and its 95 % t interval (NaN bounds with
        fewer than two runs)."""
        xs = [float(x) for x in self.margins if x == x]
        n = len(xs)
        if n == 0:
            return math.nan, math.nan, math.nan
        mean = sum(xs) / n
        if n < 2:
            return mean, math.nan, math.nan
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
        half = T95.get(n - 1, 1.96) * sd / math.sqrt(n)
        return mean, mean - half, mean + half

    def text(self) -> str:
        mean, lo, hi = self.interval()
        held = sum(1 for x in self.margins if x == x and x <= 0)
        runs = sum(1 for x in self.margins if x == x)
        return (f"margin over {runs} seeds {mean:+.3g} [{lo:+.3g}, {hi:+.3g}] (95 % t interval; ≤ 0 holds), "
                f"holds in {held} of {runs}")


@dataclass(frozen=True)
class Figure:
    """A figure of an experiment: ``make(df, out_dir)`` draws it into ``out_dir`` and returns
    the PNG's path. ``paper_ref`` names the paper's figure or table it corresponds to."""

    id: str
    title: str
    paper_ref: str
    make: Callable[[pd.DataFrame, Path], Path]
    caption: str = ""


@dataclass(frozen=True)
class Claim:
    """A number the paper states and how to compute ours from the results.

    ``kind``: ``"approx"`` — ours must be within ``tolerance`` of ``paper_value``;
    ``"at_least"`` / ``"at_most"`` — the paper's value is a bound (ours ≥ / ≤ it, give or
    take ``tolerance``). ``unit`` is for display.

    ``quick``: whether quick mode's small runs can decide the claim (if not, the report shows
    "not decided in quick mode" rather than a verdict); say why beside the claim when not.
    ``quick_tolerance``: the tolerance quick mode decides it with, when its runs are smaller
    than the paper's in a way that moves the value (given with its reason where the claim is
    written); ``None``: the claim's own. The tests run every experiment's quick mode and
    require each claim it decides to hold, unless the claim has a ``mechanism``
    (:func:`quick_claim_failures`). ``mechanism``: for a claim that does not hold at any
    declared value, the cited mechanism and the evidence that shows it (a trace, a count or a
    sweep, with the command); the report prints it beside the verdict. ``spread``: for a claim
    that one run cannot decide, its margin over several seeds (:class:`Spread`)."""

    paper_ref: str
    text: str
    paper_value: float
    compute: Callable[[pd.DataFrame], float]
    unit: str = ""
    tolerance: float = 0.0
    kind: str = "approx"
    quick: bool = True
    mechanism: str = ""
    quick_tolerance: float | None = None
    #: ``spread(df) -> Spread``: the claim's margin over several seeds, for a claim whose
    #: value in one run is within the run-to-run spread (full mode; see :class:`Spread`).
    spread: Callable[[pd.DataFrame], Spread] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Claim.kind must be one of {KINDS}, not {self.kind!r}")

    def holds(self, value: float, tolerance: float | None = None) -> bool:
        """Whether ``value`` agrees with the paper, within ``tolerance`` (default: the claim's)."""
        tol = self.tolerance if tolerance is None else tolerance
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return False
        if self.kind == "at_least":
            return value >= self.paper_value - tol
        if self.kind == "at_most":
            return value <= self.paper_value + tol
        return abs(value - self.paper_value) <= tol

    def holds_quick(self, value: float) -> bool:
        """Whether ``value``, from quick mode, agrees with the paper (``quick_tolerance``)."""
        return self.holds(value, self.quick_tolerance)

    def paper_text(self) -> str:
        sign = {"at_least": "≥ ", "at_most": "≤ ", "approx": ""}[self.kind]
        return f"{sign}{self.paper_value:g}{(' ' + self.unit) if self.unit else ''}"

    def tolerance_text(self) -> str:
        """The tolerance as the check applies it (the accepted interval of ccsim's value)."""
        u = f" {self.unit}" if self.unit else ""
        if self.kind == "at_least":
            return f"≥ {self.paper_value - self.tolerance:g}{u}" + (f" (bound − {self.tolerance:g})" if self.tolerance else "")
        if self.kind == "at_most":
            return f"≤ {self.paper_value + self.tolerance:g}{u}" + (f" (bound + {self.tolerance:g})" if self.tolerance else "")
        return f"± {self.tolerance:g}{u}" if self.tolerance else "exact"


@dataclass(frozen=True)
class Unstated:
    """A value the paper does not state, declared as data (docs/reproduce.md, principle 2).

    ``name`` is the key the experiment's plan functions read from their ``values`` mapping;
    ``value`` the value used; ``source`` where it comes from — the paper's own simulator's
    default, cited by file and line (``"ns-2.35 tcl/lib/ns-default.tcl:956"``), or ``"our
    choice: <why>"``; ``range`` the values full mode tries one at a time (the default may be
    among them); ``text`` what it is; ``unit`` for display."""

    name: str
    value: Any
    source: str
    range: Sequence[Any]
    text: str = ""
    unit: str = ""

    def __post_init__(self) -> None:
        if not self.source.strip():
            raise ValueError(f"Unstated {self.name!r}: give its source (file:line, or 'our choice: ...')")
        if len(self.alternatives()) == 0:
            raise ValueError(f"Unstated {self.name!r}: its range has no value other than the default")

    def alternatives(self) -> list[Any]:
        """The range without the default, in order."""
        return [v for v in self.range if v != self.value]

    def show(self, v: Any) -> str:
        return f"{v:g}{(' ' + self.unit) if self.unit else ''}" if isinstance(v, float) else f"{v}{(' ' + self.unit) if self.unit else ''}"


#: A function returning the plan(s) to run; it may take one argument, the declared values
#: (``{Unstated.name: value}``, every name present), and must then build its scenarios from them.
PlanSource = Callable[..., "Plan | Sequence[Plan]"]


@dataclass(frozen=True)
class Experiment:
    """One reproduction: what to run (``quick`` and ``full``: functions returning a plan or a
    list of plans), what to draw and what to check.

    ``title`` is the paper's title (or what the experiment validates), ``paper`` its citation,
    ``description`` a paragraph for the report.

    ``unstated``: the values the paper does not state (:class:`Unstated`); ``sensitivity``: the
    plans the one-at-a-time sweeps of them rerun (a function of the values; default ``full``),
    chosen so that full mode stays affordable."""

    name: str
    title: str
    quick: PlanSource
    full: PlanSource
    figures: Sequence[Figure] = ()
    claims: Sequence[Claim] = ()
    paper: str = ""
    description: str = ""
    notes: Sequence[str] = field(default_factory=tuple)
    unstated: Sequence[Unstated] = ()
    sensitivity: PlanSource | None = None

    def __post_init__(self) -> None:
        names = [u.name for u in self.unstated]
        if len(set(names)) != len(names):
            raise ValueError(f"experiment {self.name!r}: an unstated value is declared twice")

    def defaults(self) -> dict[str, Any]:
        """Every declared value at its default."""
        return {u.name: u.value for u in self.unstated}

    def plans(self, mode: str = "quick", values: dict[str, Any] | None = None) -> list[Plan]:
        """The plans of ``mode`` (``"quick"``, ``"full"`` or ``"sensitivity"``), built with the
        declared ``values`` (defaults for any not given)."""
        if mode not in ("quick", "full", "sensitivity"):
            raise ValueError(f"mode is 'quick', 'full' or 'sensitivity', not {mode!r}")
        source = {"quick": self.quick, "full": self.full}.get(mode) or self.sensitivity or self.full
        merged = {**self.defaults(), **(values or {})}
        unknown = set(merged) - set(self.defaults())
        if unknown:
            raise KeyError(f"experiment {self.name!r} declares no value {', '.join(sorted(unknown))}")
        return _as_plans(_call(source, merged))


def _call(source: PlanSource, values: dict[str, Any]) -> Any:
    """Call a plan function with the values if it takes an argument."""
    import inspect

    try:
        takes = len(inspect.signature(source).parameters) > 0
    except (TypeError, ValueError):
        takes = False
    return source(values) if takes else source()


def _as_plans(made: Any) -> list[Plan]:
    from ccsim.sweep import Plan

    return [made] if isinstance(made, Plan) else list(made)


def registry() -> dict[str, Experiment]:
    """Every experiment, by name, in report order."""
    out: dict[str, Experiment] = {}
    for mod in MODULES:
        exp = importlib.import_module(f"ccsim.experiments.{mod}").EXPERIMENT
        out[exp.name] = exp
    return out


def get(name: str) -> Experiment:
    """The experiment called ``name`` (``KeyError`` listing the known ones otherwise)."""
    reg = registry()
    if name not in reg:
        raise KeyError(f"unknown experiment {name!r}; known: {', '.join(reg)}")
    return reg[name]


def quick_claim_failures(exp: Experiment, df: pd.DataFrame) -> list[str]:
    """The claims of ``exp`` that quick mode decides (``quick``) and that do not hold on ``df``
    (the flows table of a quick run, as figures and claims receive it), each as a line with
    its value. Claims with a ``mechanism`` (a documented discrepancy) are left out."""
    out = []
    for c in exp.claims:
        if not c.quick or c.mechanism:
            continue
        try:
            value = float(c.compute(df))
        except Exception as e:  # noqa: BLE001 - reported, not raised
            out.append(f"{c.paper_ref}: {c.text}: {type(e).__name__}: {e}")
            continue
        if not c.holds_quick(value):
            tol = c.tolerance if c.quick_tolerance is None else c.quick_tolerance
            out.append(f"{c.paper_ref}: {c.text}: {value:.6g} against {c.paper_value:g} ({c.kind}, ± {tol:g})")
    return out


#: The tables read while :func:`cached_tables` is active: (store, plan, table) → frame, for
#: the plans last read (an experiment's figures and claims read the same tables of a plan
#: again and again: FAST + RIP's claims read its three series tables 950 times in full mode).
_TABLES: dict[tuple[str, str, str], pd.DataFrame] | None = None
#: How many plans' tables :func:`cached_tables` keeps (the plans' frames are handed out one
#: after another: the experiment's own, then each sensitivity rerun's).
_PLANS_KEPT = 2


@contextmanager
def cached_tables() -> Iterator[None]:
    """Within the block, :func:`load_table` reads each table of a plan once (the store's
    points of a finished plan do not change while its figures and claims are computed); the
    tables are dropped when the block ends. ``ccsim reproduce`` computes each experiment's
    figures and claims in one."""
    global _TABLES
    outer = _TABLES
    _TABLES = {}
    try:
        yield
    finally:
        _TABLES = outer


def load_table(df: pd.DataFrame, table: str) -> pd.DataFrame:
    """Another table (``"links"``, ``"flow_series"``, ``"link_series"``, ``"points"``) of the
    same sweep as ``df``, a frame handed to a figure or claim. Inside :func:`cached_tables`,
    read once per plan and handed out as a shallow copy (a caller's new columns stay its own)."""
    from ccsim.results import load

    store = df.attrs.get("store")
    if store is None:
        raise ValueError("this frame does not come from a sweep store (no attrs['store'])")
    plan = df.attrs.get("plan")
    if _TABLES is None:
        return load(store, table=table, plan=plan)
    key = (str(store), str(plan), table)
    if key not in _TABLES:
        plans = list(dict.fromkeys((s, p) for s, p, _ in _TABLES))
        if (key[0], key[1]) not in plans and len(plans) >= _PLANS_KEPT:
            oldest = plans[0]
            for k in [k for k in _TABLES if (k[0], k[1]) == oldest]:
                del _TABLES[k]
        _TABLES[key] = load(store, table=table, plan=plan)
    return _TABLES[key].copy(deep=False)


def jain(values: Any) -> float:
    """Jain's fairness index (Σx)² / (n Σx²): 1 when all are equal, 1/n when one takes all."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    if len(x) == 0 or not np.any(x):
        return float("nan")
    return float(x.sum() ** 2 / (len(x) * (x**2).sum()))
