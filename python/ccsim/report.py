"""``ccsim reproduce``: run experiments through the sweep machinery and write a report.

For each experiment NAME the points go into ``OUT/NAME/store`` (a sweep store; a rerun skips
finished points). The report is written twice:

* ``OUT/report/index.html`` — one self-contained page (figures embedded as base64 PNG);
* ``OUT/report/README.md`` — the same in Markdown, with the PNG files beside it.

The report opens with the mode and what it means. For each experiment: its description,
figures, a table "paper says / tolerance / ccsim gives / difference / status" of its claims,
the values the paper leaves unstated (with their sources and ranges), in full mode a "what
decides this claim" table from the one-at-a-time sweeps of those values
(:mod:`ccsim.sensitivity`), the plans used, the run time and the ccsim version. See
docs/reproduce.md.
"""

from __future__ import annotations

import base64
import html
import math
import os
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ccsim import _core
from ccsim.experiments import Claim, Experiment, Spread, cached_tables, get
from ccsim.progress import format_duration
from ccsim.sensitivity import (FAILS, HOLDS, HOLDS_OVER_SEEDS, NOT_RESOLVED, UNDECIDED, ClaimSensitivity, Variant, claim_sensitivity, describe_holds_at,
                               unstated_table, variant_plans, variant_values, variants_from, verdict)
from ccsim.sweep import SweepOutcome
from ccsim.sweep_batch import BackgroundBatch, Sweep, run_batch

__all__ = ["ExperimentRun", "ClaimResult", "reproduce", "write_report", "render_html", "render_markdown"]


MODE_TEXT = {
    "quick": "Quick mode: short runs and few seeds, to check that every experiment runs end to end. "
             "Its numbers are not the reproduction; claims that such runs cannot decide are shown as "
             "\"not decided in quick mode\", and the sweeps of unstated values are a one-run smoke test. "
             "Run `ccsim reproduce --full` for the reproduction.",
    "full": "Full mode: the reproduction (the paper's durations and seeds), with each value the paper "
            "leaves unstated swept one at a time over its declared range; a claim that fails at the "
            "defaults but holds at some declared value is reported as \"depends on\" that value.",
}


@dataclass
class ClaimResult:
    claim: Claim
    value: float
    error: str = ""
    mode: str = "full"
    sensitivity: ClaimSensitivity | None = None
    spread: Spread | None = None  # the claim's margin over several seeds (Claim.spread)
    spread_error: str = ""

    @property
    def status(self) -> str:
        return verdict(self.claim, self.value, self.mode, self.error, self.sensitivity, self.spread)

    @property
    def holds(self) -> bool:
        return self.status == HOLDS

    @property
    def difference(self) -> float:
        return self.value - self.claim.paper_value


@dataclass
class ExperimentRun:
    experiment: Experiment
    mode: str
    outcome: SweepOutcome
    plans: list[dict[str, Any]]
    figures: list[tuple[Any, Path | None, str]] = field(default_factory=list)  # (Figure, png, error)
    claims: list[ClaimResult] = field(default_factory=list)
    variants: list[Variant] = field(default_factory=list)
    sim_wall_s: float = 0.0  # wall time of the simulations (sum over points, whenever they ran)
    wall_s: float = 0.0  # this invocation, including figures


def _fmt(v: float, unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    text = f"{v:.4g}" if abs(v) < 10 else f"{v:.2f}"
    return f"{text} {unit}".strip()


def _compute_claims(exp: Experiment, df: Any) -> tuple[list[float], list[str]]:
    values, errors = [], []
    for claim in exp.claims:
        try:
            values.append(float(claim.compute(df)))
            errors.append("")
        except Exception as e:
            values.append(float("nan"))
            errors.append(f"{type(e).__name__}: {e}")
    return values, errors


def _claim_spread(claim: Claim, df: Any, mode: str) -> tuple[Spread | None, str]:
    """Full mode: the claim's margin over several seeds, if it declares one."""
    if claim.spread is None or mode == "quick":
        return None, ""
    try:
        return claim.spread(df), ""
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"


def experiment_sweeps(exp: Experiment, mode: str, out: Path) -> tuple[list[Any], list[tuple[str, Any]], list[Sweep]]:
    """What ``exp`` runs in ``mode``: its plans, its sensitivity reruns (declared name, value)
    and the sweeps of both (the plans first, then one per rerun), all into ``out/NAME/store``."""
    plans = exp.plans(mode)
    store = out / exp.name / "store"
    reruns = variant_values(exp, mode)
    sweeps = [Sweep(store, plans)] + [Sweep(store, variant_plans(exp, mode, n, v)) for n, v in reruns]
    return plans, reruns, sweeps


def run_experiment(
    exp: Experiment, mode: str, out: Path, *, jobs: int | None = None, dask: Any = None, progress: Any = None,
    log: TextIO | None = None, prepared: Any = None, outcomes: Sequence[SweepOutcome] | None = None,
) -> ExperimentRun:
    """Run one experiment's plans into ``out/NAME/store``, draw its figures into
    ``out/report/NAME/``, compute its claims and, when it declares unstated values, rerun the
    claims with each moved over its range (full mode; one smoke-test run in quick mode).

    The plans and the reruns run in one pool, longest points first (:mod:`ccsim.sweep_batch`);
    ``prepared`` (from :func:`experiment_sweeps`) and ``outcomes`` (of its sweeps) are given
    when :func:`reproduce` has already run them together with other experiments'."""
    from ccsim.results import load

    t0 = time.perf_counter()
    plans, reruns, sweeps = prepared if prepared is not None else experiment_sweeps(exp, mode, out)
    store = out / exp.name / "store"
    if outcomes is None:
        outcomes = run_batch(sweeps, jobs=jobs, dask=dask, progress=progress)

    def frame(o: SweepOutcome) -> Any:
        d = load(store, plan=o.plan_id)
        d.attrs["store"] = str(store)
        d.attrs["plan"] = o.plan_id
        return d

    with cached_tables():  # the figures and claims read the same tables of a plan again and again
        return _figures_and_claims(exp, mode, out, store, plans, reruns, outcomes, frame, t0)


def _figures_and_claims(exp: Experiment, mode: str, out: Path, store: Path, plans: list[Any], reruns: list[tuple[str, Any]],
                        outcomes: Sequence[SweepOutcome], frame: Any, t0: float) -> ExperimentRun:
    from ccsim.results import load

    outcome = outcomes[0]
    df = frame(outcome)
    points = load(store, table="points", plan=outcome.plan_id)
    run = ExperimentRun(exp, mode, outcome, [p.describe() for p in plans], sim_wall_s=float(points["wall_s"].fillna(0).sum()))
    fig_dir = out / "report" / exp.name
    fig_dir.mkdir(parents=True, exist_ok=True)
    for fig in exp.figures:
        try:
            path = Path(fig.make(df, fig_dir))
            run.figures.append((fig, path, ""))
        except Exception as e:
            run.figures.append((fig, None, f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}"))
    values, errors = _compute_claims(exp, df)
    run.variants = variants_from(reruns, outcomes[1:], lambda d: _compute_claims(exp, d)[0], frame)
    for o in (v.outcome for v in run.variants if v.outcome is not None):
        pts = load(store, table="points", plan=o.plan_id)
        run.sim_wall_s += float(pts["wall_s"].fillna(0).sum())
    for i, claim in enumerate(exp.claims):
        sens = claim_sensitivity(exp, i, values[i], run.variants) if run.variants else None
        spread, spread_error = _claim_spread(claim, df, mode)
        run.claims.append(ClaimResult(claim, values[i], errors[i], mode, sens, spread, spread_error))
    run.wall_s = time.perf_counter() - t0
    return run


def reproduce(
    names: Sequence[str],
    *,
    mode: str = "quick",
    out: str | Path = "ccsim-reproduce",
    jobs: int | None = None,
    dask: Any = None,
    progress: Any = None,
    log: TextIO | None = None,
) -> list[ExperimentRun]:
    """Run the named experiments and write ``out/report/index.html`` and ``README.md``.

    Every experiment's plans and sensitivity reruns run in one pool (:func:`ccsim.sweep_batch.run_batch`:
    no core idles at the end of each experiment or rerun while another has points left). With
    local workers (``jobs`` > 1, no Dask) the pool runs in a background thread, experiment by
    experiment (:func:`pool_order`, longest points first within each), and each experiment's
    figures and claims are computed in this thread as soon as its points are done, while the
    workers go on with the others'; otherwise (one job, Dask) the figures and claims follow the
    pool. The log shows the experiments in the order named, after the pool."""
    out = Path(out)
    exps = [get(name) for name in names]
    prepared = [experiment_sweeps(exp, mode, out) for exp in exps]
    sweeps = [sw for _, _, sws in prepared for sw in sws]
    groups = [i for i, (_, _, sws) in enumerate(prepared) for _ in sws]
    overlap = dask is None and (jobs or os.cpu_count() or 1) > 1
    if log:
        how = ("experiment by experiment, longest points first within each; each experiment's figures and claims "
               "as soon as its points are done" if overlap else "longest points first")
        print(f"== running {len(exps)} experiment{'s' if len(exps) != 1 else ''} ({mode}): {len(sweeps)} sweeps "
              f"(plans and sensitivity reruns) in one pool, {how}", file=log, flush=True)
    t0 = time.perf_counter()
    runs: list[ExperimentRun | None] = [None] * len(exps)

    def compute(i: int, mine: Sequence[SweepOutcome]) -> None:
        runs[i] = run_experiment(exps[i], mode, out, jobs=jobs, dask=dask, progress=progress, log=log,
                                 prepared=prepared[i], outcomes=mine)

    if overlap:
        failure: BaseException | None = None
        with BackgroundBatch(sweeps, groups, pool_order, jobs=jobs, progress=progress) as batch:
            for i, mine in batch.finished():
                if failure is None:
                    try:
                        compute(i, mine)
                    except Exception as e:  # raised once the pool is done, as when it ran first
                        failure = e
        pool_s = batch.ended_at - t0
        outcomes = batch.outcomes or []
        if failure is not None:
            raise failure
    else:
        outcomes = run_batch(sweeps, jobs=jobs, dask=dask, progress=progress)
        pool_s = time.perf_counter() - t0
    if log:
        done = sum(o.done for o in outcomes)
        failed = sum(len(o.failed) for o in outcomes)
        print(f"   {done} points run, {failed} failed, in {format_duration(pool_s)}", file=log, flush=True)
    for i, exp in enumerate(exps):
        if runs[i] is None:
            compute(i, [o for o, g in zip(outcomes, groups) if g == i])
        run = runs[i]
        assert run is not None
        if log:
            print(f"== {exp.name} ({mode}): {exp.title}", file=log, flush=True)
            print(run.outcome.summary_text(), file=log)
            for c in run.claims:
                st = c.status
                mark = {HOLDS: "ok ", FAILS: "NO ", UNDECIDED: " - ", NOT_RESOLVED: "n/r", HOLDS_OVER_SEEDS: "ok~"}.get(
                    st, "dep" if st.startswith("depends") else "ERR")
                print(f"  [{mark}] {c.claim.text}: paper {c.claim.paper_text()} ({c.claim.tolerance_text()}), "
                      f"ccsim {_fmt(c.value, c.claim.unit)} — {st}", file=log)
            log.flush()
    done_runs = [r for r in runs if r is not None]
    write_report(done_runs, out / "report")
    return done_runs


def pool_order(work: dict[int, float]) -> list[int]:
    """The order in which the experiments' points go to the pool, from each experiment's
    points left to run (``work``: experiment index → the sum of their
    :func:`ccsim.sweep_batch.estimated_cost`): the least work first. The small experiments'
    figures and claims are then computed early, beside the pool, and the largest's points
    run last, longest first, so that the pool ends on short points; only the last
    experiment's figures and claims follow the pool (docs/reproduce.md, "Budget":
    ``benches/reproduce_schedule.py`` models the orders from a full run's point times)."""
    return sorted(work, key=lambda i: (work[i], i))


# ---------------------------------------------------------------------------- rendering


def write_report(runs: Sequence[ExperimentRun], report_dir: str | Path) -> tuple[Path, Path]:
    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    index = report_dir / "index.html"
    readme = report_dir / "README.md"
    index.write_text(render_html(runs), encoding="utf-8")
    readme.write_text(render_markdown(runs, report_dir), encoding="utf-8")
    return index, readme


def _plan_lines(plan: dict[str, Any]) -> list[str]:
    lines = [f"base: {plan['base']}"]
    if plan.get("labels"):
        lines.append("labels: " + ", ".join(f"{k}={v}" for k, v in plan["labels"].items()))
    for k, v in plan.get("grid", {}).items():
        lines.append(f"grid {k} = {v}")
    for i, p in enumerate(plan.get("points", [])):
        lines.append(f"point {i}: " + ", ".join(f"{k}={v}" for k, v in p.items()))
    lines.append(f"seeds: {plan['seeds']} (seed = simulation.seed + replicate)")
    if plan.get("series"):
        lines.append("series kept: " + ", ".join(plan["series"]))
    return lines


def _status_class(status: str) -> str:
    if status in (HOLDS, HOLDS_OVER_SEEDS):
        return "holds"
    if status == NOT_RESOLVED:
        return "undecided"
    if status.startswith("depends"):
        return "depends"
    if status == UNDECIDED:
        return "undecided"
    return "fail"


@dataclass
class _Table:
    """A table rendered both as HTML and as Markdown: header, rows, which columns are numbers,
    and an optional CSS class per row for the status cell (the last column)."""

    header: list[str]
    rows: list[list[str]]
    numeric: set[int] = field(default_factory=set)
    status_col: int | None = None

    def html(self) -> str:
        e = html.escape
        out = ["<table><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in self.header) + "</tr></thead><tbody>"]
        for row in self.rows:
            cells = []
            for k, cell in enumerate(row):
                cls = "num" if k in self.numeric else ""
                if k == self.status_col:
                    cls = _status_class(cell.split(" (")[0].split(":")[0])
                cells.append(f'<td class="{cls}">{e(cell)}</td>' if cls else f"<td>{e(cell)}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        return "\n".join(out)

    def markdown(self) -> list[str]:
        align = ["---:" if k in self.numeric else "---" for k in range(len(self.header))]
        lines = ["| " + " | ".join(self.header) + " |", "|" + "|".join(align) + "|"]
        lines += ["| " + " | ".join(_md_escape(c).replace("\n", " ") for c in row) + " |" for row in self.rows]
        return lines


def _claims_table(r: ExperimentRun) -> _Table:
    rows = []
    for c in r.claims:
        st = c.status
        text = f"{st}: {c.error}" if c.error else st
        if st.startswith("depends on") and c.sensitivity is not None:
            text += f" (holds at {describe_holds_at(r.experiment, c.sensitivity)})"
        if c.spread is not None and st in (NOT_RESOLVED, HOLDS_OVER_SEEDS, FAILS):
            text += f" ({c.spread.text()})"
        rows.append([c.claim.paper_ref, c.claim.text, c.claim.paper_text(), c.claim.tolerance_text(),
                     _fmt(c.value, c.claim.unit), _fmt(c.difference, c.claim.unit), text])
    return _Table(["reference", "claim", "paper says", "accepted", "ccsim gives", "difference", "status"], rows, {2, 4, 5}, 6)


#: Statuses beside which a claim's mechanism is not printed (nothing to explain).
_NO_MECHANISM = (HOLDS, UNDECIDED, NOT_RESOLVED, HOLDS_OVER_SEEDS)


def _spread_notes(r: ExperimentRun) -> list[str]:
    """Where the run-to-run spreads of the claims come from (each evidence once), and the
    claims whose spread could not be computed."""
    out: list[str] = []
    for c in r.claims:
        if c.spread is not None:
            text = f"Run-to-run spread: {c.spread.evidence}" + (f" {c.spread.note}" if c.spread.note else "")
            if text not in out:
                out.append(text)
        elif c.spread_error:
            out.append(f"Run-to-run spread of \"{c.claim.text}\" not available: {c.spread_error}")
    return out


def _decides_table(r: ExperimentRun) -> _Table | None:
    """Full mode: per claim, the envelope over the declared values and what moves it most."""
    if not any(c.sensitivity is not None for c in r.claims) or r.mode == "quick":
        return None
    units = {u.name: u for u in r.experiment.unstated}
    rows = []
    for c in r.claims:
        s = c.sensitivity
        if s is None:
            continue
        unit = c.claim.unit
        moved = ""
        if s.moved_most_by:
            name, lo, hi, pts = s.spread[0]
            moved = f"{name}: {_fmt(lo, unit)} – {_fmt(hi, unit)}"
        each = "; ".join(
            f"{name} " + ", ".join(f"{units[name].show(v)} → {_fmt(x)}" for v, x in pts) for name, _, _, pts in s.spread
        )
        rows.append([c.claim.text, c.claim.paper_text(), _fmt(s.default, unit),
                     f"{_fmt(s.envelope[0], unit)} – {_fmt(s.envelope[1], unit)}", moved, each, c.status])
    return _Table(["claim", "paper says", "at the defaults", "envelope", "moved most by", "each value → result", "status"],
                  rows, {1, 2, 3}, 6)


def _unstated_table(r: ExperimentRun) -> _Table | None:
    rows = unstated_table(r.experiment)
    if not rows:
        return None
    return _Table(["value", "what it is", "used", "source", "range swept (full mode)"], rows)


def _summary_line(r: ExperimentRun) -> str:
    counts: dict[str, int] = {}
    for c in r.claims:
        key = "depends" if c.status.startswith("depends") else c.status
        counts[key] = counts.get(key, 0) + 1
    order = [(HOLDS, "hold"), ("depends", "depend on an unstated value"), (HOLDS_OVER_SEEDS, "hold over the seeds"),
             (NOT_RESOLVED, "not resolved by the run-to-run spread"), (FAILS, "do not hold"),
             (UNDECIDED, "not decided in quick mode"), ("error", "failed")]
    parts = [f"{counts[k]} {label}" for k, label in order if counts.get(k)]
    return f"{len(r.claims)} claims: " + (", ".join(parts) if parts else "none")


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { border-bottom: 2px solid #4878a8; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1em 0; } th, td { border: 1px solid #ccc; padding: .3em .6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.holds { color: #1a7f37; font-weight: 600; } .fail { color: #c03030; font-weight: 600; }
.depends { color: #9a6700; font-weight: 600; } .undecided { color: #666; font-style: italic; }
.mode { background: #eef4fb; border-left: 4px solid #4878a8; padding: .6em 1em; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: .9em; color: #555; } pre { background: #f6f6f6; padding: .5em; overflow-x: auto; }
.meta { font-size: .9em; color: #444; }
"""


def _modes(runs: Sequence[ExperimentRun]) -> list[str]:
    return list(dict.fromkeys(r.mode for r in runs))


def render_html(runs: Sequence[ExperimentRun]) -> str:
    e = html.escape
    version = _core.version()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>ccsim reproduction report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>ccsim reproduction report</h1>",
    ]
    for m in _modes(runs):
        parts.append(f'<p class="mode"><strong>{e(m)} mode.</strong> {e(MODE_TEXT.get(m, ""))}</p>')
    parts += [
        f'<p class="meta">ccsim {e(version)} · generated {e(time.strftime("%Y-%m-%d %H:%M:%S"))} · '
        f"{len(runs)} experiment{'s' if len(runs) != 1 else ''}</p>",
        "<ul>",
    ]
    for r in runs:
        parts.append(f'<li><a href="#{e(r.experiment.name)}">{e(r.experiment.name)}</a>: {e(r.experiment.title)} — {e(_summary_line(r))}</li>')
    parts.append("</ul>")
    for r in runs:
        exp = r.experiment
        parts.append(f'<section class="experiment" id="{e(exp.name)}">')
        parts.append(f"<h2>{e(exp.name)}: {e(exp.title)}</h2>")
        if exp.paper:
            parts.append(f"<p><em>{e(exp.paper)}</em></p>")
        for para in exp.description.split("\n\n"):
            if para.strip():
                parts.append(f"<p>{e(' '.join(para.split()))}</p>")
        parts.append(f"<h3>Paper vs ccsim ({e(r.mode)} mode)</h3>")
        parts.append(_claims_table(r).html())
        for c in r.claims:
            if c.claim.mechanism and c.status not in _NO_MECHANISM:
                parts.append(f'<p class="meta"><strong>{e(c.claim.text)}</strong>: {e(c.claim.mechanism)}</p>')
        for text in _spread_notes(r):
            parts.append(f'<p class="meta">{e(text)}</p>')
        decides = _decides_table(r)
        if decides is not None:
            parts.append("<h3>What decides each claim</h3>")
            parts.append(decides.html())
        unstated = _unstated_table(r)
        if unstated is not None:
            parts.append("<h3>Values the paper does not state</h3>")
            parts.append(unstated.html())
        parts.append("<h3>Figures</h3>")
        for fig, path, err in r.figures:
            parts.append(f'<figure id="{e(exp.name)}-{e(fig.id)}">')
            if path is not None:
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                parts.append(f'<img alt="{e(fig.title)}" src="data:image/png;base64,{data}">')
            else:
                parts.append(f"<pre>figure failed: {e(err)}</pre>")
            cap = f"<strong>{e(fig.title)}</strong> ({e(fig.paper_ref)})" + (f". {e(fig.caption)}" if fig.caption else "")
            parts.append(f"<figcaption>{cap}</figcaption></figure>")
        parts.append("<h3>Parameters</h3>")
        for note in exp.notes:
            parts.append(f"<p class=\"meta\">{e(note)}</p>")
        for plan in r.plans:
            parts.append(f"<p><strong>{e(plan.get('name') or 'plan')}</strong></p><pre>{e(chr(10).join(_plan_lines(plan)))}</pre>")
        o = r.outcome
        parts.append(
            f'<p class="meta">mode {e(r.mode)} · {o.total} points ({o.skipped} from the store, {o.done} run now, '
            f"{len(o.failed)} failed) · {len(r.variants)} sensitivity reruns · simulation wall time "
            f"{e(format_duration(r.sim_wall_s))} (sum over points) · "
            f"this run {e(format_duration(r.wall_s))} · store <code>{e(str(o.store))}</code> · ccsim {e(version)}</p>"
        )
        for pt, err in o.failed:
            parts.append(f"<pre>failed point {pt.index} ({e(str(pt.overrides))}, seed {pt.seed}): {e(err)}</pre>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _md_code(text: str) -> str:
    """``text`` as a Markdown code span that shows it as written (CommonMark: a fence one
    backtick longer than the longest run inside, padded when the text starts or ends with
    one; newlines, which a span cannot hold, shown as ``\\n``)."""
    import re

    text = text.replace("\n", "\\n").replace("\r", "\\r")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ") and text.strip()) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(runs: Sequence[ExperimentRun], report_dir: Path) -> str:
    version = _core.version()
    lines = ["# ccsim reproduction report", ""]
    for m in _modes(runs):
        lines += [f"> **{m} mode.** {MODE_TEXT.get(m, '')}", ""]
    lines += [f"ccsim {version} · generated {time.strftime('%Y-%m-%d %H:%M:%S')}", ""]
    for r in runs:
        lines.append(f"- [{r.experiment.name}](#{r.experiment.name}): {r.experiment.title} — {_summary_line(r)}")
    for r in runs:
        exp = r.experiment
        lines += ["", f'<a id="{exp.name}"></a>', f"## {exp.name}: {exp.title}", ""]
        if exp.paper:
            lines += [f"*{exp.paper}*", ""]
        for para in exp.description.split("\n\n"):
            if para.strip():
                lines += [" ".join(para.split()), ""]
        lines += [f"### Paper vs ccsim ({r.mode} mode)", "", *_claims_table(r).markdown(), ""]
        for c in r.claims:
            if c.claim.mechanism and c.status not in _NO_MECHANISM:
                lines += [f"**{_md_escape(c.claim.text)}**: {c.claim.mechanism}", ""]
        for text in _spread_notes(r):
            lines += [text, ""]
        decides = _decides_table(r)
        if decides is not None:
            lines += ["### What decides each claim", "", *decides.markdown(), ""]
        unstated = _unstated_table(r)
        if unstated is not None:
            lines += ["### Values the paper does not state", "", *unstated.markdown(), ""]
        lines += ["### Figures", ""]
        for fig, path, err in r.figures:
            if path is not None:
                rel = path.relative_to(report_dir) if path.is_relative_to(report_dir) else path
                lines.append(f"![{fig.title}]({rel.as_posix()})")
            else:
                lines.append(f"```\nfigure failed: {err}\n```")
            lines += ["", f"**{fig.title}** ({fig.paper_ref})" + (f". {fig.caption}" if fig.caption else ""), ""]
        lines += ["### Parameters", ""]
        for note in exp.notes:
            lines += [note, ""]
        for plan in r.plans:
            lines += [f"**{plan.get('name') or 'plan'}**", "", "```", *_plan_lines(plan), "```", ""]
        o = r.outcome
        lines.append(
            f"mode {r.mode} · {o.total} points ({o.skipped} from the store, {o.done} run now, {len(o.failed)} failed) · "
            f"{len(r.variants)} sensitivity reruns · simulation wall time {format_duration(r.sim_wall_s)} (sum over points) · "
            f"this run {format_duration(r.wall_s)} · store {_md_code(str(o.store))} · ccsim {version}"
        )
        for pt, err in o.failed:
            lines += ["", f"    failed point {pt.index} ({pt.overrides}, seed {pt.seed}): {err}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    reproduce(sys.argv[1:] or ["foundation"], log=sys.stdout)
