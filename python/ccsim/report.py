"""``ccsim reproduce``: run experiments through the sweep machinery and write a report.

For each experiment NAME the points go into ``OUT/NAME/store`` (a sweep store; a rerun skips
finished points). The report is written twice:

* ``OUT/report/index.html`` — one self-contained page (figures embedded as base64 PNG);
* ``OUT/report/README.md`` — the same in Markdown, with the PNG files beside it.

For each experiment: its description, figures, a table "paper says / ccsim gives /
difference" of its claims, the plans used (base, grid, seeds), the run time and the ccsim
version. See docs/reproduce.md.
"""

from __future__ import annotations

import base64
import html
import math
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ccsim import _core
from ccsim.experiments import Claim, Experiment, get
from ccsim.progress import format_duration
from ccsim.sweep import SweepOutcome, run_plans

__all__ = ["ExperimentRun", "ClaimResult", "reproduce", "write_report", "render_html", "render_markdown"]


@dataclass
class ClaimResult:
    claim: Claim
    value: float
    error: str = ""

    @property
    def holds(self) -> bool:
        return not self.error and self.claim.holds(self.value)

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
    sim_wall_s: float = 0.0  # wall time of the simulations (sum over points, whenever they ran)
    wall_s: float = 0.0  # this invocation, including figures


def _fmt(v: float, unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    text = f"{v:.4g}" if abs(v) < 10 else f"{v:.2f}"
    return f"{text} {unit}".strip()


def run_experiment(
    exp: Experiment, mode: str, out: Path, *, jobs: int | None = None, dask: Any = None, progress: Any = None
) -> ExperimentRun:
    """Run one experiment's plans into ``out/NAME/store``, draw its figures into
    ``out/report/NAME/`` and compute its claims."""
    from ccsim.results import load

    t0 = time.perf_counter()
    plans = exp.plans(mode)
    store = out / exp.name / "store"
    outcome = run_plans(plans, store, jobs=jobs, dask=dask, progress=progress, resume=True)
    df = load(store, plan=outcome.plan_id)
    df.attrs["store"] = str(store)
    df.attrs["plan"] = outcome.plan_id
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
    for claim in exp.claims:
        try:
            run.claims.append(ClaimResult(claim, float(claim.compute(df))))
        except Exception as e:
            run.claims.append(ClaimResult(claim, float("nan"), f"{type(e).__name__}: {e}"))
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
    """Run the named experiments and write ``out/report/index.html`` and ``README.md``."""
    out = Path(out)
    runs = []
    for name in names:
        exp = get(name)
        if log:
            print(f"== {name} ({mode}): {exp.title}", file=log, flush=True)
        run = run_experiment(exp, mode, out, jobs=jobs, dask=dask, progress=progress)
        runs.append(run)
        if log:
            print(run.outcome.summary_text(), file=log)
            for c in run.claims:
                mark = "ok " if c.holds else "NO "
                print(f"  [{mark}] {c.claim.text}: paper {c.claim.paper_text()}, ccsim {_fmt(c.value, c.claim.unit)}", file=log)
            log.flush()
    write_report(runs, out / "report")
    return runs


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


def _status(c: ClaimResult) -> str:
    return "error" if c.error else ("holds" if c.holds else "does not hold")


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1000px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { border-bottom: 2px solid #4878a8; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1em 0; } th, td { border: 1px solid #ccc; padding: .3em .6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.holds { color: #1a7f37; font-weight: 600; } .fail { color: #c03030; font-weight: 600; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: .9em; color: #555; } pre { background: #f6f6f6; padding: .5em; overflow-x: auto; }
.meta { font-size: .9em; color: #444; }
"""


def render_html(runs: Sequence[ExperimentRun]) -> str:
    e = html.escape
    version = _core.version()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>ccsim reproduction report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>ccsim reproduction report</h1>",
        f'<p class="meta">ccsim {e(version)} · generated {e(time.strftime("%Y-%m-%d %H:%M:%S"))} · '
        f"{len(runs)} experiment{'s' if len(runs) != 1 else ''}</p>",
        "<ul>",
    ]
    for r in runs:
        ok = sum(c.holds for c in r.claims)
        parts.append(f'<li><a href="#{e(r.experiment.name)}">{e(r.experiment.name)}</a>: {e(r.experiment.title)} — {ok}/{len(r.claims)} claims hold</li>')
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
        parts.append("<h3>Paper vs ccsim</h3>")
        parts.append('<table class="claims"><thead><tr><th>reference</th><th>claim</th><th>paper says</th>'
                     "<th>ccsim gives</th><th>difference</th><th>status</th></tr></thead><tbody>")
        for c in r.claims:
            cls = "holds" if c.holds else "fail"
            parts.append(
                f"<tr><td>{e(c.claim.paper_ref)}</td><td>{e(c.claim.text)}</td><td class=\"num\">{e(c.claim.paper_text())}</td>"
                f'<td class="num">{e(_fmt(c.value, c.claim.unit))}</td><td class="num">{e(_fmt(c.difference, c.claim.unit))}</td>'
                f'<td class="{cls}">{e(_status(c))}{(": " + e(c.error)) if c.error else ""}</td></tr>'
            )
        parts.append("</tbody></table>")
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
            f"{len(o.failed)} failed) · simulation wall time {e(format_duration(r.sim_wall_s))} (sum over points) · "
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
    lines = ["# ccsim reproduction report", "", f"ccsim {version} · generated {time.strftime('%Y-%m-%d %H:%M:%S')}", ""]
    for r in runs:
        ok = sum(c.holds for c in r.claims)
        lines.append(f"- [{r.experiment.name}](#{r.experiment.name}): {r.experiment.title} — {ok}/{len(r.claims)} claims hold")
    for r in runs:
        exp = r.experiment
        lines += ["", f'<a id="{exp.name}"></a>', f"## {exp.name}: {exp.title}", ""]
        if exp.paper:
            lines += [f"*{exp.paper}*", ""]
        for para in exp.description.split("\n\n"):
            if para.strip():
                lines += [" ".join(para.split()), ""]
        lines += ["### Paper vs ccsim", "", "| reference | claim | paper says | ccsim gives | difference | status |", "|---|---|---:|---:|---:|---|"]
        for c in r.claims:
            lines.append(
                f"| {_md_escape(c.claim.paper_ref)} | {_md_escape(c.claim.text)} | {c.claim.paper_text()} | "
                f"{_fmt(c.value, c.claim.unit)} | {_fmt(c.difference, c.claim.unit)} | {_md_escape(_status(c))}{(': ' + _md_escape(c.error)) if c.error else ''} |"
            )
        lines += ["", "### Figures", ""]
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
            f"simulation wall time {format_duration(r.sim_wall_s)} (sum over points) · this run {format_duration(r.wall_s)} · "
            f"store {_md_code(str(o.store))} · ccsim {version}"
        )
        for pt, err in o.failed:
            lines += ["", f"    failed point {pt.index} ({pt.overrides}, seed {pt.seed}): {err}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    reproduce(sys.argv[1:] or ["foundation"], log=sys.stdout)
