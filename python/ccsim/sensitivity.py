"""What decides a claim: the one-at-a-time sweeps of an experiment's unstated values.

For every declared :class:`~ccsim.experiments.Unstated` value and every other value of its
range, the experiment's sensitivity plans are rerun with that one value moved (the others at
their defaults) and every claim is recomputed. A claim's *envelope* is the smallest and
largest of its results over the defaults and all those variants; the value that *moves it
most* is the one whose variants span the widest interval. The verdict (docs/reproduce.md):

* **holds** — at the defaults;
* **depends on NAME** — not at the defaults, but at some declared value of NAME (the report
  names the values at which it holds);
* **not resolved by the run-to-run spread** — not at the defaults nor at a declared value,
  but the claim's margin over several seeds (``Claim.spread``, :class:`~ccsim.experiments.Spread`)
  has a 95 % interval that contains 0: one run cannot tell it either way;
* **holds over the seeds** — the same, with the interval below 0 (it holds in the mean, not
  in this run);
* **does not hold** — at no declared value (and, where the claim has a spread, outside it);
  the claim must then cite its mechanism;
* **not decided in quick mode** — quick mode's runs cannot decide it (``Claim.quick``), or it
  has no value there;
* **error** — computing it failed.

Quick mode keeps the sweeps to a smoke test: the first declared value's first alternative,
on the quick plans.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.experiments import Claim, Experiment, Spread
    from ccsim.sweep import SweepOutcome

__all__ = ["NOT_RESOLVED", "HOLDS_OVER_SEEDS", "Variant", "ClaimSensitivity", "variant_values", "variant_plans", "variants_from", "verdict", "HOLDS", "FAILS", "UNDECIDED", "ERROR"]

HOLDS, FAILS, UNDECIDED, ERROR = "holds", "does not hold", "not decided in quick mode", "error"
NOT_RESOLVED, HOLDS_OVER_SEEDS = "not resolved by the run-to-run spread", "holds over the seeds"


@dataclass
class Variant:
    """One rerun: ``name`` moved to ``value`` (``name`` empty: the sensitivity plans at the
    defaults), with each claim's result (NaN where it failed)."""

    name: str
    value: Any
    results: list[float]
    outcome: SweepOutcome | None = None


@dataclass
class ClaimSensitivity:
    """A claim's results over the variants."""

    default: float
    envelope: tuple[float, float]
    #: per declared value: (name, smallest, largest, [(value, result), ...]) over its variants
    #: and the default, widest first.
    spread: list[tuple[str, float, float, list[tuple[Any, float]]]] = field(default_factory=list)
    #: declared values at which the claim holds: (name, value).
    holds_at: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def moved_most_by(self) -> str:
        return self.spread[0][0] if self.spread and self.spread[0][2] > self.spread[0][1] else ""


def _finite(x: float) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def variant_values(exp: Experiment, mode: str) -> list[tuple[str, Any]]:
    """The reruns of ``exp`` in ``mode``, each as (declared name, value); the name ``""`` is
    the sensitivity plans at the defaults (full mode, when they differ from the full plans).
    Full mode: every declared value's alternatives, one at a time; quick mode: one (a smoke
    test); none when nothing is declared."""
    if not exp.unstated:
        return []
    if mode == "quick":
        u = exp.unstated[0]
        return [(u.name, u.alternatives()[0])]
    out: list[tuple[str, Any]] = [("", None)] if exp.sensitivity is not None else []
    for u in exp.unstated:
        out += [(u.name, v) for v in u.alternatives()]
    return out


def variant_plans(exp: Experiment, mode: str, name: str, value: Any) -> list[Any]:
    """The plans of one rerun (see :func:`variant_values`)."""
    return exp.plans("quick" if mode == "quick" else "sensitivity", {name: value} if name else {})


def variants_from(
    jobs: Sequence[tuple[str, Any]],
    outcomes: Sequence[SweepOutcome],
    compute_claims: Callable[[pd.DataFrame], list[float]],
    load: Callable[[SweepOutcome], pd.DataFrame],
) -> list[Variant]:
    """Each rerun's claims, from the outcomes of its sweeps (already run: ``ccsim reproduce``
    runs every rerun's points in one pool, :func:`ccsim.report.experiment_sweeps`)."""
    return [Variant(name, value, compute_claims(load(o)), o) for (name, value), o in zip(jobs, outcomes)]


def claim_sensitivity(exp: Experiment, index: int, default: float, variants: Sequence[Variant]) -> ClaimSensitivity:
    """The envelope, spread and holding values of claim ``index``."""
    claim = exp.claims[index]
    base = [v.results[index] for v in variants if not v.name]
    anchors = [x for x in [default, *base] if _finite(x)]
    all_values = anchors + [v.results[index] for v in variants if v.name and _finite(v.results[index])]
    env = (min(all_values), max(all_values)) if all_values else (math.nan, math.nan)
    spread = []
    holds_at = []
    for u in exp.unstated:
        pts = [(v.value, v.results[index]) for v in variants if v.name == u.name]
        finite = [r for _, r in pts if _finite(r)] + anchors
        if not pts:
            continue
        spread.append((u.name, min(finite) if finite else math.nan, max(finite) if finite else math.nan, pts))
        holds_at += [(u.name, val) for val, r in pts if _finite(r) and claim.holds(r)]
    spread.sort(key=lambda s: -(s[2] - s[1]) if _finite(s[1]) and _finite(s[2]) else 0.0)
    return ClaimSensitivity(default, env, spread, holds_at)


def verdict(claim: Claim, value: float, mode: str, error: str = "", sens: ClaimSensitivity | None = None,
            spread: Spread | None = None) -> str:
    """The claim's status (see the module docstring)."""
    if mode == "quick" and not claim.quick:
        return UNDECIDED
    if error:
        return ERROR
    if not _finite(value):
        return UNDECIDED if mode == "quick" else ERROR
    if claim.holds_quick(value) if mode == "quick" else claim.holds(value):
        return HOLDS
    if mode != "quick" and sens is not None and sens.holds_at:
        names = list(dict.fromkeys(n for n, _ in sens.holds_at))
        return "depends on " + ", ".join(names)
    if mode != "quick" and spread is not None:
        _, lo, hi = spread.interval()
        if _finite(lo) and _finite(hi):
            if lo <= 0 <= hi:
                return NOT_RESOLVED
            if hi < 0:
                return HOLDS_OVER_SEEDS
    return FAILS


def describe_holds_at(exp: Experiment, sens: ClaimSensitivity) -> str:
    """``hold = 2 s, 4 s; w0 = 32`` — the declared values at which a claim holds."""
    by: dict[str, list[str]] = {}
    units = {u.name: u for u in exp.unstated}
    for name, v in sens.holds_at:
        by.setdefault(name, []).append(units[name].show(v))
    return "; ".join(f"{n} = {', '.join(vs)}" for n, vs in by.items())


def unstated_table(exp: Experiment) -> list[list[str]]:
    """Rows (name, what, value, source, range) of the declared values."""
    rows = []
    for u in exp.unstated:
        rows.append([u.name, u.text, u.show(u.value), u.source, ", ".join(u.show(v) for v in u.range)])
    return rows
