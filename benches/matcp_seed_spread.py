"""MATCP Fig. 5, "WRTT performs the best": how much of each cell is run-to-run spread.

The paper ran one 500-s simulation per point (§4), and so does ccsim's full mode. Whether
WRTT ranks first among the Fig. 5 selectors (RTT variation, RTT, WRTT) at a load N, delay
reading and metric can only be called a disagreement if the ranking outlives another draw.
This script runs Fig. 5's points for seeds 1..K (each seed draws its own sources per edge and
its own bottleneck delays, as the paper's single draw was one of many), exactly as the full
plan builds them, into a sweep store (resumable; seed 1's points are shared with a full
reproduction's store when ``--store`` points at it), and prints per (reading, N, metric):

* each selector's metric, mean ± s.d. over the seeds;
* WRTT's rank per seed, and in how many seeds it is first;
* the paired difference WRTT − best other selector per seed, its mean and a 95 % t interval:
  a cell where that interval lies above zero is a disagreement outliving the spread, one
  that contains zero is "not resolved by K seeds", one below zero agrees with the paper.

    .venv/bin/python benches/matcp_seed_spread.py --seeds 3 --store out/matcp-seeds --jobs 2
    .venv/bin/python benches/matcp_seed_spread.py --seeds 3 --store out/matcp-seeds --report-only
    ... --write-evidence python/ccsim/experiments/data/matcp_fig5_seeds.csv   # what the report reads
    ... --connections     # per path: delay, connections and goodput of each selector (the mechanism)

``--write-evidence`` stores the per-seed metrics that `ccsim reproduce matcp --full` reads as
the run-to-run spread of its Fig. 5 claims (``ccsim.experiments.matcp.wrtt_spread``: this
run's seed 1 must equal the stored seed 1, else the evidence is reported stale).

About 36 points of 500 s per seed (two readings × six loads × three selectors): on this
2-core machine 20–40 minutes of CPU per seed.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import pandas as pd  # noqa: E402

from ccsim.experiments import matcp  # noqa: E402

#: Two-sided 95 % Student t quantiles by degrees of freedom (1…10; normal beyond).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228}


def fig5_plans(seeds: int) -> list:
    cfg = dict(matcp.FULL, seeds=seeds, fig2_n=[], fig3_v=[], fig4_idle=[],
               configs=list(matcp.FIG5_SELECTORS))
    return matcp.plans(cfg)


def per_seed(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (reading, N, config, seed): path spread and s.d. of source goodput."""
    keep = set(df["point_id"])  # (per_path reads the store's whole paths table)
    p = matcp.per_path(df)
    p = p[p["point_id"].isin(keep)]
    spread = p.groupby(["reading", "x", "config", "run_seed"])["goodput"].agg(lambda g: g.max() - g.min())
    s = matcp.per_source(df)
    sd = s.groupby(["reading", "x", "config", "run_seed"])["goodput"].std()
    return pd.concat({"spread": spread, "sd": sd}, axis=1).reset_index()


def interval(values: list[float]) -> tuple[float, float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan"), float("nan")
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = T95.get(n - 1, 1.96) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def report(table: pd.DataFrame) -> str:
    lines = ["| reading | N | metric | rttvar | rtt | wrtt | WRTT first in | WRTT − best other: mean [95 % CI] | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (reading, x), rows in table.groupby(["reading", "x"]):
        for metric in ("spread", "sd"):
            wide = rows.pivot(index="run_seed", columns="config", values=metric).dropna()
            if wide.empty:
                continue
            cells = []
            for c in matcp.FIG5_SELECTORS:
                v = wide[c]
                cells.append(f"{v.mean():.4g} ± {v.std(ddof=1):.2g}" if len(v) > 1 else f"{v.mean():.4g}")
            others = wide[[c for c in matcp.FIG5_SELECTORS if c != "wrtt"]].min(axis=1)
            diff = list(wide["wrtt"] - others)
            first = int(sum(d <= 0 for d in diff))
            mean, lo, hi = interval(diff)
            if lo != lo:
                verdict = "one seed"
            elif lo > 0:
                verdict = "WRTT worse, outside the spread"
            elif hi < 0:
                verdict = "WRTT best, outside the spread"
            else:
                verdict = "not resolved"
            lines.append(f"| {reading[:1]} | {x:g} | {metric} | {' | '.join(cells)} | {first} of {len(diff)} | "
                         f"{mean:+.3g} [{lo:+.3g}, {hi:+.3g}] | {verdict} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..K (default 3)")
    ap.add_argument("--store", required=True, help="sweep store directory (created or resumed)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--report-only", action="store_true", help="report what the store holds; run nothing")
    ap.add_argument("--write-evidence", metavar="CSV", help="write the per-seed metrics here (what the report reads)")
    ap.add_argument("--connections", action="store_true",
                    help="also print, per (reading, N, seed), each path's delay, connections and goodput per selector")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error("--seeds must be at least 1")
    from ccsim.results import load
    from ccsim.sweep import run_plans

    plans = fig5_plans(args.seeds)
    if not args.report_only:
        run_plans(plans, args.store, jobs=args.jobs, resume=True, progress=True)
    df = load(args.store, plan="all").drop_duplicates(["point_id", "name"])
    # the full plan's points only (a reproduction's store also holds 150-s sensitivity reruns)
    df = df[(df["part"] == "fig5") & (df["run_seed"] <= args.seeds)
            & (df["config"].isin(matcp.FIG5_SELECTORS))
            & (df["duration_s"] == matcp.FULL["duration_s"])]
    if df.empty:
        print("the store holds no Fig. 5 points yet")
        return 1
    df.attrs["store"] = str(args.store)
    df.attrs["plan"] = "all"
    table = per_seed(df)
    print(report(table))
    if args.write_evidence:
        write_evidence(table, Path(args.write_evidence), args.seeds)
    if args.connections:
        print(connections(df))
    return 0


def write_evidence(table: pd.DataFrame, path: Path, seeds: int) -> None:
    """The per-seed metrics as CSV (full precision), with the command in a comment."""
    import subprocess

    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    out = table.rename(columns={"x": "N"})[["reading", "N", "config", "run_seed", "spread", "sd"]]
    out = out.sort_values(["reading", "N", "config", "run_seed"])
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        f.write("# MATCP Fig. 5: per (delay reading, load N, selector, seed) the per-path goodput spread (max - min)\n"
                "# and the s.d. of source goodput of one 500-s run (normalised by 40 Mb/s), as the full plan builds it.\n"
                f"# Written by: python benches/matcp_seed_spread.py --seeds {seeds} --store DIR --write-evidence {path}\n"
                f"# (written at commit {commit}; the points were run by whichever ccsim filled the store: the report\n"
                "# checks that its seed 1 equals the full run's own). Read by ccsim.experiments.matcp.wrtt_spread.\n")
        out.to_csv(f, index=False, float_format="%.17g")
    print(f"wrote {len(out)} rows to {path}")


def connections(df: pd.DataFrame) -> str:
    """Per (reading, N, seed): each bottleneck's one-way delay and, per Fig. 5 selector, the
    connections that used it and its normalised goodput."""
    from ccsim.experiments import load_table

    paths = load_table(df, "paths")
    paths = paths[paths["point_id"].isin(set(df["point_id"]))]
    lines = ["| reading | N | seed | delays (ms) | selector | connections per path | goodput per path |",
             "|---|---|---|---|---|---|---|"]
    for (reading, x, seed), rows in paths.groupby(["reading", "x", "run_seed"]):
        delays = str(rows["delays_ms"].iloc[0])
        for c in matcp.FIG5_SELECTORS:
            g = rows[rows["config"] == c].groupby("path").agg(conn=("connections", "sum"), b=("bytes_delivered", "sum"))
            if g.empty:
                continue
            gp = g["b"] * 8 / matcp.FULL["duration_s"] / matcp.CAPACITY_BPS
            lines.append(f"| {reading[:1]} | {x:g} | {seed} | {delays} | {c} | {list(g['conn'])} | "
                         f"{[round(v, 3) for v in gp]} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
