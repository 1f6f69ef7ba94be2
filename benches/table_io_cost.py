"""The per-point fixed cost of a sweep worker and the cost of reading stores back, two
versions of ccsim side by side (issue #16's time budget; docs/reproduce.md, "Budget").

    python benches/table_io_cost.py points --before DIR [--rounds 5] [STORE:COUNT ...]
    python benches/table_io_cost.py loads  --before DIR [--rounds 3] [STORE ...]
    python benches/table_io_cost.py equal  --before DIR [STORE ...]

``DIR`` is the ``python`` directory of the other version (e.g. ``git archive main
python/ccsim`` unpacked, with this build's ``_core`` copied in: the core is the same, only
the Python differs); "after" is the ccsim this interpreter imports. Stores are read from
``--stores`` (default ``/tmp/full_s8``: ``<experiment>/store``), never written.

``points``: the first COUNT point records of each store (every len/COUNT-th, by id) are run
through ``ccsim.sweep_backends.run_point`` (their ``doc``), each version in its own fresh
process, the versions alternating for ``--rounds`` rounds; prints per store the median over
points of each point's median wall (ms), and the median of the per-point differences.
``loads``: one fresh process per (store, version) loads the whole store (every plan, and
``"all"``, of the tables it holds and ``points``), alternating versions; prints the median
wall time. ``equal``: every frame ``load`` gives for every plan (and ``"all"``,
``"latest"``) and table kind of each store, read by both versions in one process (the
second "after" read from its caches), compared with ``assert_frame_equal(check_exact=True)``
(dtypes, index, column order). A benchmark, not a test: the machine's load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_POINTS = ["cmt-berp:20", "arc-planetary:20", "daimd:10", "matcp:5"]
DEFAULT_STORES = ["foundation", "arc-planetary", "matcp", "cmt-berp", "fast-multipath-rip", "daimd", "modern-cc"]

_POINTS_CHILD = r"""
import json, pickle, sys, time
from pathlib import Path
from ccsim.sweep_backends import run_point
stores, spec, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
tasks = []
for exp, n in spec:
    recs = sorted(p for p in (Path(stores) / exp / "store" / "points").iterdir() if p.suffix == ".json")
    for p in recs[:: max(1, len(recs) // n)][:n]:
        rec = json.loads(p.read_text())
        if rec.get("status") == "ok":
            tasks.append((exp, {"id": rec["id"], "doc": rec["doc"], "source": str(p), "series": rec.get("series", [])}))
run_point(dict(tasks[0][1]))  # warm: imports, first-call caches
walls = {}
for exp, task in tasks:
    t0 = time.perf_counter()
    r = run_point(dict(task))
    walls[task["id"]] = (exp, time.perf_counter() - t0, r["status"])
pickle.dump(walls, open(out, "wb"))
"""

_LOADS_CHILD = r"""
import json, sys, time
from pathlib import Path
import ccsim.store as store
root = Path(sys.argv[1])
m = json.loads((root / "manifest.json").read_text())
kinds = sorted({f.name.split(".")[1] for f in (root / "points").iterdir() if f.suffix == ".parquet"})
t0 = time.perf_counter()
n = 0
for plan in ["all"] + [p["plan_id"] for p in m["plans"]]:
    for table in ["points", *kinds]:
        store.load(root, table, plan)
        n += 1
print(json.dumps({"wall": time.perf_counter() - t0, "loads": n}))
"""


def _env(pythonpath: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def _which(pythonpath: str | None) -> str:
    code = "import ccsim.store, sys; sys.stdout.write(ccsim.store.__file__)"
    return subprocess.run([sys.executable, "-c", code], env=_env(pythonpath), capture_output=True, text=True, check=True).stdout


def points(args: argparse.Namespace) -> None:
    spec = [(s.split(":")[0], int(s.split(":")[1])) for s in (args.items or DEFAULT_POINTS)]
    walls: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    exp_of: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(args.rounds):
            for version, path in (("before", args.before), ("after", None)) if rnd % 2 == 0 else (("after", None), ("before", args.before)):
                out = Path(tmp) / f"{version}.pkl"
                subprocess.run([sys.executable, "-c", _POINTS_CHILD, args.stores, json.dumps(spec), str(out)],
                               env=_env(path), check=True)
                for pid, (exp, wall, status) in pickle.loads(out.read_bytes()).items():
                    if status != "ok":
                        print(f"  {version} point {pid} ({exp}): {status}", file=sys.stderr)
                    walls[version].setdefault(pid, []).append(wall)
                    exp_of[pid] = exp
            print(f"round {rnd + 1}/{args.rounds} done, load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(f"{'store':<20} {'points':>6} {'before ms':>10} {'after ms':>9} {'saved ms':>9}")
    for exp, _ in spec:
        ids = [p for p, e in exp_of.items() if e == exp]
        b = [statistics.median(walls["before"][p]) * 1e3 for p in ids]
        a = [statistics.median(walls["after"][p]) * 1e3 for p in ids]
        d = [x - y for x, y in zip(b, a)]
        print(f"{exp:<20} {len(ids):>6} {statistics.median(b):>10.1f} {statistics.median(a):>9.1f} {statistics.median(d):>9.1f}")


def loads(args: argparse.Namespace) -> None:
    print(f"{'store':<20} {'loads':>5} {'before s':>9} {'after s':>8}   (each a median of {args.rounds})")
    for exp in args.items or DEFAULT_STORES:
        root = str(Path(args.stores) / exp / "store")
        times: dict[str, list[float]] = {"before": [], "after": []}
        n = 0
        for rnd in range(args.rounds):
            for version, path in (("before", args.before), ("after", None)) if rnd % 2 == 0 else (("after", None), ("before", args.before)):
                res = subprocess.run([sys.executable, "-c", _LOADS_CHILD, root], env=_env(path), capture_output=True, text=True, check=True)
                r = json.loads(res.stdout)
                times[version].append(r["wall"])
                n = r["loads"]
        print(f"{exp:<20} {n:>5} {statistics.median(times['before']):>9.2f} {statistics.median(times['after']):>8.2f}"
              f"   load average {os.getloadavg()[0]:.2f}", flush=True)


def equal(args: argparse.Namespace) -> None:
    import importlib.util

    import ccsim.store as new
    from pandas.testing import assert_frame_equal

    spec = importlib.util.spec_from_file_location("store_before", Path(args.before) / "ccsim" / "store.py")
    old = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(old)  # type: ignore[union-attr]
    total = 0
    for exp in args.items or DEFAULT_STORES:
        root = Path(args.stores) / exp / "store"
        plans = ["all", "latest"] + [p["plan_id"] for p in json.loads((root / "manifest.json").read_text())["plans"]]
        n = 0
        for plan in plans:
            for table in ("points", *new.TABLES):
                a = old.load(root, table, plan)
                for b in (new.load(root, table, plan), new.load(root, table, plan)):
                    assert_frame_equal(a, b, check_exact=True, check_frame_type=False)
                    assert type(a).__name__ == type(b).__name__ and a.attrs == b.attrs
                n += 1
        total += n
        print(f"{exp}: {n} frames equal ({len(plans)} plans x {1 + len(new.TABLES)} tables)", flush=True)
    print(f"all equal: {total} frames")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("points", "loads", "equal"))
    ap.add_argument("items", nargs="*", help="STORE:COUNT (points) or STORE (loads)")
    ap.add_argument("--before", required=True, help="the python/ directory of the version to compare against")
    ap.add_argument("--stores", default="/tmp/full_s8")
    ap.add_argument("--rounds", type=int, default=None)
    args = ap.parse_intermixed_args()
    args.rounds = args.rounds or (5 if args.what == "points" else 3)
    before, after = _which(args.before), _which(None)
    if before == after:
        sys.exit(f"--before {args.before} imports the same ccsim as this interpreter ({after})")
    print(f"before: {before}\nafter:  {after}\nload average at start {os.getloadavg()[0]:.2f}", flush=True)
    {"points": points, "loads": loads, "equal": equal}[args.what](args)
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
