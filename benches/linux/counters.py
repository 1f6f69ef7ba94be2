"""The sender namespace's loss-recovery counters (`/proc/net/netstat` TcpExt, sampled by
`endpoints.py` once a second) summed over the kept runs of kernel bench measurements: how
often the kernel entered SACK recovery, sent a tail loss probe, undid a window reduction or
timed out (issue #26; docs/validation.md §6). A mechanism ccsim does not model (TLP,
F-RTO/undo) can only change the bench's outcomes if its counter is not zero.

    .venv/bin/python benches/linux/counters.py DIR [DIR ...]   # DIR: kernel_bench.py --keep-logs --out DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def run_counts(snd: dict) -> dict[str, int] | None:
    """Each counter's increase over one run (last snapshot less the first), or None for a run
    recorded without the counters."""
    ns = snd.get("netstat")
    if not ns or len(ns.get("samples", [])) < 2:
        return None
    first, last = ns["samples"][0], ns["samples"][-1]
    return {k: int(last[i] - first[i]) for i, k in enumerate(ns["fields"]) if k != "t_ns"}


def totals(dirs: list[Path]) -> tuple[int, dict[str, int]]:
    """(runs with counters, each counter summed over them) for the kept runs under `dirs`."""
    n, out = 0, {}
    for d in dirs:
        for snd in sorted(d.glob("runs/*/snd.json")):
            c = run_counts(json.loads(snd.read_text()))
            if c is None:
                continue
            n += 1
            for k, v in c.items():
                out[k] = out.get(k, 0) + v
    return n, out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    n, out = totals([Path(a) for a in args])
    print(f"{n} kernel runs with the namespace's counters:")
    for k, v in out.items():
        print(f"  {k:<22} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
