"""Plot the scaling benchmark: ns of loop CPU time per delivered packet and peak memory
against the number of flows (dumbbells) and of hops (parking lots).

    cargo run --release -p ccsim-core --example bench -- --suite scaling --json after.json
    python3 benches/plot_scaling.py after.json [--before before.json] [--out docs/scaling.png]

Each JSON file is what `bench --suite scaling --json` writes: every run's figures by
scenario name. Medians over the runs are plotted; `--before` adds the same curves dashed.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def medians(path: Path) -> dict[str, dict[str, float]]:
    """Per scenario, the median of each figure over its runs."""
    runs = json.loads(path.read_text())["runs"]
    out = {}
    for name, figs in runs.items():
        keys = set().union(*(f.keys() for f in figs))
        out[name] = {k: statistics.median(f[k] for f in figs if k in f) for k in keys}
    return out


def series(med: dict[str, dict[str, float]], prefix: str) -> tuple[list[float], list[float], list[float]]:
    """(x, ns per packet, peak MB) of the scenarios named `prefix<x>`, by x."""
    pts = []
    for name, f in med.items():
        if not name.startswith(prefix) or not f.get("delivered"):
            continue
        x = float(name[len(prefix):])
        pts.append((x, f["loop_cpu"] * 1e9 / f["delivered"], f["peak_kib"] / 1024))
    pts.sort()
    return [p[0] for p in pts], [p[1] for p in pts], [p[2] for p in pts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("after", type=Path)
    ap.add_argument("--before", type=Path)
    ap.add_argument("--out", type=Path, default=Path("docs/scaling.png"))
    args = ap.parse_args()
    sets = [("after", medians(args.after), "-")]
    if args.before:
        sets.append(("before", medians(args.before), "--"))
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    for col, (prefix, xlabel) in enumerate(
        [("dumbbell-scaled-", "dumbbell flows N"), ("parking-lot-", "parking-lot hops k")]
    ):
        for label, med, style in sets:
            x, ns, mb = series(med, prefix)
            if not x:
                continue
            axes[0][col].plot(x, ns, style, marker="o", label=label)
            axes[1][col].plot(x, mb, style, marker="o", label=label)
        for row, ylabel in enumerate(["loop CPU ns per delivered packet", "peak RSS (MB)"]):
            ax = axes[row][col]
            ax.set_xscale("log", base=2)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
            ax.legend()
    fig.suptitle("ccsim scaling benchmark (bench --suite scaling), one thread")
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=90)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
