"""Digest of every shipped scenario's and every experiment's quick-mode results, to check that
a change leaves results byte-identical.

    python scripts/results_digest.py write BEFORE.json     # on the old build
    python scripts/results_digest.py write AFTER.json      # on the new build
    python scripts/results_digest.py compare BEFORE.json AFTER.json

Each run's digest is the SHA-256 of its summary (without wall-clock fields), its flow and link
tables and every time series, written as CSV. Runs are named by scenario file, or by
experiment and sweep point index. `--only SUBSTRING` restricts to matching names.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from importlib import resources

from ccsim import _core
from ccsim.api import run
from ccsim.experiments import registry
from ccsim.scenario import Scenario, load
from ccsim.sweep import expand_plans


def digest(sc: Scenario) -> str:
    r = run(sc, progress=False)
    h = hashlib.sha256()
    summary = {k: v for k, v in r.summary.items() if "wall" not in k}
    h.update(json.dumps(summary, sort_keys=True, default=str).encode())
    for name in ("flows", "links", "paths", "flow_series", "link_series", "path_series", "route_series", "backoffs"):
        h.update(name.encode())
        h.update(getattr(r, name).to_csv().encode())
    return h.hexdigest()


def runs(only: str) -> dict[str, Scenario]:
    out: dict[str, Scenario] = {}
    for f in sorted(resources.files("ccsim").joinpath("scenarios").iterdir(), key=lambda p: p.name):
        if f.name.endswith(".toml"):
            with resources.as_file(f) as path:
                out[f"scenario/{f.name}"] = load(path)
    for name, exp in registry().items():
        for pt in expand_plans(exp.plans("quick"), version=_core.version()):
            out[f"{name}/point{pt.index}"] = Scenario(pt.doc, pt.source)
    return {k: v for k, v in out.items() if only in k}


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("out")
    w.add_argument("--only", default="")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    a = ap.parse_args()
    if a.cmd == "write":
        result = {}
        for name, sc in runs(a.only).items():
            result[name] = digest(sc)
            print(name, result[name][:16], flush=True)
        with open(a.out, "w") as fh:
            json.dump(result, fh, indent=1, sort_keys=True)
        return 0
    before = json.load(open(a.before))
    after = json.load(open(a.after))
    differ = [k for k in before if k in after and before[k] != after[k]]
    missing = sorted(set(before) ^ set(after))
    print(f"{len(before)} runs before, {len(after)} after; {len(differ)} differ; {len(missing)} in one only")
    for k in differ:
        print("  differs:", k)
    for k in missing:
        print("  in one only:", k)
    return 1 if differ or missing else 0


if __name__ == "__main__":
    sys.exit(main())
