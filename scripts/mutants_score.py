#!/usr/bin/env python3
"""The mutation score of a cargo-mutants run, per module.

    python3 scripts/mutants_score.py target/mutants-run/mutants.out [--missed]

Reads ``outcomes.json``. A mutant is *caught* when a test failed, *timeout* when the tests
did not finish in time (the mutant hung a simulation: also noticed), *missed* when every
test passed, *unviable* when it does not compile; a mutant whose *build* timed out (a loaded
machine) has no verdict. Unviable and unbuilt mutants are left out of the score. Score =
(caught + timeout) / (caught + timeout + missed). Modules are the first directory below
``src/`` with a second level for ``transport/`` (``transport/tcp``, ``transport/sctp``, …).
``--missed`` lists the surviving mutants.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

KINDS = {"CaughtMutant": "caught", "MissedMutant": "missed", "Timeout": "timeout", "Unviable": "unviable"}


def module(path: str) -> str:
    parts = Path(path).parts
    src = parts.index("src")
    rest = parts[src + 1:]
    if rest[0] == "transport" and len(rest) > 2:
        return "/".join(rest[:2])
    if rest[0] == "transport":
        return "transport/" + Path(rest[1]).stem
    return rest[0]


def outcomes(out_dir: Path) -> list[tuple[str, str, str]]:
    """(module, kind, description) per mutant."""
    data = json.loads((out_dir / "outcomes.json").read_text())
    rows = []
    for o in data["outcomes"]:
        scen = o["scenario"]
        if scen == "Baseline" or not isinstance(scen, dict):
            continue
        m = scen["Mutant"]
        kind = KINDS.get(o["summary"], o["summary"])
        phases = [ph.get("phase") for ph in o.get("phase_results", [])]
        if kind == "timeout" and phases and phases[-1] == "Build":
            kind = "build_timeout"  # the machine was too slow to build it: no verdict
        path = m["file"]
        desc = m.get("name") or f"{path}: {m.get('replacement', '')}"
        rows.append((module(path), kind, desc))
    return rows


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    out_dir = Path(argv[0])
    rows = outcomes(out_dir)
    by = defaultdict(Counter)
    for mod, kind, _ in rows:
        by[mod][kind] += 1
        by["all"][kind] += 1
    print(f"{'module':18} {'mutants':>7} {'caught':>7} {'timeout':>7} {'missed':>7} {'unviable':>8} {'unbuilt':>7} {'score':>7}")
    for mod in sorted(by, key=lambda m: (m == "all", m)):
        c = by[mod]
        scored = c["caught"] + c["timeout"] + c["missed"]
        score = f"{100 * (c['caught'] + c['timeout']) / scored:.1f}%" if scored else "—"
        print(f"{mod:18} {sum(c.values()):7} {c['caught']:7} {c['timeout']:7} {c['missed']:7} {c['unviable']:8} "
              f"{c['build_timeout']:7} {score:>7}")
    if "--missed" in argv:
        print("\nsurviving mutants:")
        for mod, kind, desc in sorted(rows):
            if kind == "missed":
                print("  " + desc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
