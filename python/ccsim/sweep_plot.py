"""The figure every sweep ends in: a metric against a swept value, one line per group, error
bars over the seeds. ``summarise`` gives the numbers as a DataFrame; ``plot_sweep`` draws
them (and returns the matplotlib ``Axes``).

Rows of a sweep's frame (``ccsim.sweep`` / ``ccsim.results.load``) are one per (point,
flow) by default. A metric is first reduced per point over its rows (``per_point``: the
mean, the sum — e.g. total goodput — or a named flow's value), then over the replicates of
each (x, group) combination: the mean, and as error bar the standard deviation or a 95 %
confidence interval of the mean (Student's t).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["summarise", "plot_sweep", "PER_POINT", "ERRORS"]

PER_POINT = ("mean", "sum", "min", "max")
ERRORS = ("sd", "ci95", None)

# Two-sided 97.5 % quantiles of Student's t for 1..30 degrees of freedom (then ≈ normal).
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042]


def _t975(dof: int) -> float:
    return _T975[dof - 1] if dof <= len(_T975) else 1.960


def _columns(df: pd.DataFrame, names: Sequence[str], what: str) -> None:
    missing = [c for c in names if c not in df.columns]
    if missing:
        raise KeyError(f"{what}: no column {', '.join(map(repr, missing))}; columns are {', '.join(map(str, df.columns))}")


def summarise(
    df: pd.DataFrame,
    x: str,
    y: str,
    *,
    by: str | Sequence[str] | None = None,
    per_point: str = "mean",
    flow: str | None = None,
    err: str | None = "sd",
) -> pd.DataFrame:
    """One row per (``by`` groups…, ``x``): columns ``mean``, ``err`` (half-width of the error
    bar; NaN with one replicate or ``err=None``), ``n`` (replicates). ``flow`` keeps only that
    flow's rows before ``per_point`` reduces each point."""
    import pandas as pd

    if per_point not in PER_POINT:
        raise ValueError(f"per_point must be one of {', '.join(PER_POINT)}, not {per_point!r}")
    if err not in ERRORS:
        raise ValueError(f"err must be one of 'sd', 'ci95' or None, not {err!r}")
    groups = [by] if isinstance(by, str) else list(by or [])
    _columns(df, [x, y, *groups, "point_id"], "summarise")
    rows = df
    if flow is not None:
        _columns(df, ["name"], "summarise(flow=…)")
        rows = df[df["name"] == flow]
        if rows.empty:
            raise ValueError(f"no rows of flow {flow!r}; flows are {', '.join(map(str, sorted(set(df['name']))))}")
    keys = [*groups, x]
    per = rows.groupby([*keys, "point_id"], dropna=False)[y].agg(per_point).reset_index()
    out = per.groupby(keys, dropna=False)[y].agg(["mean", "std", "count"]).reset_index()
    out = out.rename(columns={"count": "n"})

    def half_width(r: pd.Series) -> float:
        if err is None or r["n"] < 2 or not math.isfinite(r["std"]):
            return float("nan")
        return float(r["std"]) if err == "sd" else _t975(int(r["n"]) - 1) * float(r["std"]) / math.sqrt(r["n"])

    out["err"] = out.apply(half_width, axis=1) if len(out) else pd.Series(dtype=float)
    return out.drop(columns="std").sort_values(keys).reset_index(drop=True)


def plot_sweep(
    df: pd.DataFrame,
    x: str,
    y: str,
    *,
    by: str | Sequence[str] | None = None,
    per_point: str = "mean",
    flow: str | None = None,
    err: str | None = "sd",
    ax: Axes | None = None,
    scale: float = 1.0,
    xlabel: str | None = None,
    ylabel: str | None = None,
    logx: bool = False,
) -> Axes:
    """Draw ``y`` (reduced as in :func:`summarise`, multiplied by ``scale``) against ``x``, one
    line per ``by`` group, with error bars over the replicates. Returns the ``Axes``."""
    import matplotlib.pyplot as plt

    table = summarise(df, x, y, by=by, per_point=per_point, flow=flow, err=err)
    groups = [by] if isinstance(by, str) else list(by or [])
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    parts = table.groupby(groups, dropna=False) if groups else [((), table)]
    for key, part in parts:
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{g}={v}" for g, v in zip(groups, key)) if groups else None
        yerr = None if err is None else part["err"].fillna(0.0) * scale
        ax.errorbar(part[x], part["mean"] * scale, yerr=yerr, marker="o", ms=4, capsize=3, label=label)
    what = {"mean": "mean", "sum": "sum", "min": "min", "max": "max"}[per_point]
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or (f"{y}" + ("" if flow else f" ({what} per point)")))
    if logx:
        ax.set_xscale("log")
    n = int(table["n"].max()) if len(table) else 0
    bar = {"sd": "± 1 s.d.", "ci95": "95 % CI of the mean", None: ""}[err]
    ax.set_title(f"{y} against {x}" + (f", {bar} over {n} replicates" if bar and n > 1 else ""), fontsize="medium")
    ax.grid(alpha=0.3)
    if groups:
        ax.legend(fontsize="small")
    return ax
