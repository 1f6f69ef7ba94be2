"""Experiments: runnable reproductions, each compared with what its paper (or issue) states.

Each module of this package defines ``EXPERIMENT``, an :class:`Experiment`: plans to run in
``quick`` and ``full`` mode (sweeps, see :mod:`ccsim.sweep`), the figures to draw from the
results and the claims to check against the paper's numbers. ``ccsim reproduce [NAME]`` runs
them and writes a report (see docs/reproduce.md).

Adding a paper: write ``ccsim/experiments/<name>.py`` with ``EXPERIMENT = Experiment(...)``
and add the module name to ``MODULES``.

Figures and claims receive the flows table of the experiment's sweep (``results.load``), one
row per (point, flow), with the plan labels and override values as columns. Its ``attrs``
carry the store and the plan id, so :func:`load_table` can read the other tables (links,
kept time series) of the same points.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.sweep import Plan

__all__ = ["Experiment", "Figure", "Claim", "registry", "get", "load_table", "quick_claim_failures", "MODULES"]

#: Experiment modules, in report order.
MODULES = ("foundation", "arc_planetary", "matcp", "cmt_berp", "fast_multipath_rip", "daimd")

KINDS = ("approx", "at_least", "at_most")


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

    ``quick_tolerance``: the experiment's quick mode decides this claim too, with this
    tolerance (usually ``tolerance``; a quick run that is smaller than the paper's may need
    another, given with its reason where the claim is written). ``None``: quick mode cannot
    decide it (the points are missing or too small). The tests run every experiment's quick
    mode and require each claim it decides to hold (:func:`quick_claim_failures`)."""

    paper_ref: str
    text: str
    paper_value: float
    compute: Callable[[pd.DataFrame], float]
    unit: str = ""
    tolerance: float = 0.0
    kind: str = "approx"
    quick_tolerance: float | None = None

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

    def quick(self, tolerance: float | None = None) -> Claim:
        """This claim, decided by quick mode as well, with ``tolerance`` (default: the claim's)."""
        return replace(self, quick_tolerance=self.tolerance if tolerance is None else tolerance)

    def paper_text(self) -> str:
        sign = {"at_least": "≥ ", "at_most": "≤ ", "approx": ""}[self.kind]
        tol = f" ± {self.tolerance:g}" if self.kind == "approx" and self.tolerance else ""
        return f"{sign}{self.paper_value:g}{tol}{(' ' + self.unit) if self.unit else ''}"


PlanSource = Callable[[], "Plan | Sequence[Plan]"]


@dataclass(frozen=True)
class Experiment:
    """One reproduction: what to run (``quick`` and ``full``: functions returning a plan or a
    list of plans), what to draw and what to check.

    ``title`` is the paper's title (or what the experiment validates), ``paper`` its citation,
    ``description`` a paragraph for the report."""

    name: str
    title: str
    quick: PlanSource
    full: PlanSource
    figures: Sequence[Figure] = ()
    claims: Sequence[Claim] = ()
    paper: str = ""
    description: str = ""
    notes: Sequence[str] = field(default_factory=tuple)

    def plans(self, mode: str = "quick") -> list[Plan]:
        from ccsim.sweep import Plan

        if mode not in ("quick", "full"):
            raise ValueError(f"mode is 'quick' or 'full', not {mode!r}")
        made = (self.quick if mode == "quick" else self.full)()
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
    """The claims of ``exp`` that quick mode decides (``quick_tolerance`` set) and that do not
    hold on ``df`` (the flows table of a quick run, as figures and claims receive it), each
    as a line with its value."""
    out = []
    for c in exp.claims:
        if c.quick_tolerance is None:
            continue
        try:
            value = float(c.compute(df))
        except Exception as e:  # noqa: BLE001 - reported, not raised
            out.append(f"{c.paper_ref}: {c.text}: {type(e).__name__}: {e}")
            continue
        if not c.holds(value, c.quick_tolerance):
            out.append(f"{c.paper_ref}: {c.text}: {value:.6g} against {c.paper_value:g} ({c.kind}, ± {c.quick_tolerance:g})")
    return out


def load_table(df: pd.DataFrame, table: str) -> pd.DataFrame:
    """Another table (``"links"``, ``"flow_series"``, ``"link_series"``, ``"points"``) of the
    same sweep as ``df``, a frame handed to a figure or claim."""
    from ccsim.results import load

    store = df.attrs.get("store")
    if store is None:
        raise ValueError("this frame does not come from a sweep store (no attrs['store'])")
    return load(store, table=table, plan=df.attrs.get("plan"))


def jain(values: Any) -> float:
    """Jain's fairness index (Σx)² / (n Σx²): 1 when all are equal, 1/n when one takes all."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    if len(x) == 0 or not np.any(x):
        return float("nan")
    return float(x.sum() ** 2 / (len(x) * (x**2).sum()))
