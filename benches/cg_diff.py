"""Where two builds' instructions differ: two cachegrind files summed and compared.

    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=a.out BENCH_A --child dumbbell-16 --threads 1
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=b.out BENCH_B --child dumbbell-16 --threads 1
    python3 benches/cg_diff.py a.out b.out [--by file|line|fn] [--within FN] [--top N]

Sums the instruction count (``Ir``) of each file ``a.out`` and ``b.out`` by source file,
source line or function (``--within run_events``: only code inlined into functions whose
name contains it) and prints the largest differences first, in millions. Inlined code is
counted where its source is, so a function's growth shows in the files it inlined. Line
numbers are each build's own: compare lines only between builds of the same source. Used
for docs/performance.md's accounts of the speed bar; instruction counts do not depend on
the machine's load, wall times do.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict


def load(path: str, by: str, within: str | None) -> dict[str, int]:
    """Instructions per key (file, file:line or function) of one cachegrind output file."""
    sums: dict[str, int] = defaultdict(int)
    ir_col = 0
    fl = fn = ""
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                ir_col = line.split()[1:].index("Ir")
            elif line.startswith("fl="):
                fl = line[3:].strip().split("src/")[-1]
            elif line.startswith("fn="):
                fn = re.sub(r"::h[0-9a-f]{16}$", "", line[3:].strip())
            elif line[:1].isdigit():
                if within and within not in fn:
                    continue
                fields = line.split()
                counts = fields[1:]
                if len(counts) <= ir_col:
                    continue
                key = {"file": fl, "line": f"{fl}:{fields[0]}", "fn": fn}[by]
                sums[key] += int(counts[ir_col])
    return sums


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="cachegrind output of the first build")
    ap.add_argument("b", help="cachegrind output of the second build")
    ap.add_argument("--by", choices=["file", "line", "fn"], default="file")
    ap.add_argument("--within", help="only code inside functions whose name contains this")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args(argv)
    a, b = load(args.a, args.by, args.within), load(args.b, args.by, args.within)
    print(f"total: {sum(a.values()) / 1e6:.1f} M -> {sum(b.values()) / 1e6:.1f} M")
    keys = sorted(set(a) | set(b), key=lambda k: -abs(b.get(k, 0) - a.get(k, 0)))
    for k in keys[: args.top]:
        x, y = a.get(k, 0), b.get(k, 0)
        print(f"{x / 1e6:9.2f} {y / 1e6:9.2f} {(y - x) / 1e6:+8.2f}  {k[:150]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
