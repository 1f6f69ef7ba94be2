"""How often the two flows of a two-flow bench scenario cut their windows together: of
flow 0's window reductions inside the bench's window (10–60 s of a 60 s run), how many fall
within 60 ms (about one RTT) of one of flow 1's, in the kernel's saved runs and in ccsim's
`linux` profile (seeds 1–3). Reductions are the bench's own (`metrics.py`: the kernel's
entries into Recovery or Loss, ccsim's ssthresh changes or cuts over 10 %).

    sudo .venv/bin/python benches/linux/kernel_bench.py --scenarios two --cc reno --runs 3 --out DIR
    .venv/bin/python benches/linux/common_cuts.py DIR [--scenario two] [--cc reno]

docs/validation.md §6 item 3 (two identical Reno flows) has the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kernel_bench as K  # noqa: E402
import metrics as M  # noqa: E402


def common_cuts(flows: list[M.Series], w0: float, w1: float, near: float = M.MERGE_S) -> tuple[int, int]:
    """(flow 0's reductions in [w0, w1] within `near` of one of flow 1's, all of flow 0's
    reductions in [w0, w1])."""
    mine = [x for x in flows[0].reductions if w0 <= x <= w1]
    other = np.asarray(flows[1].reductions, dtype=float)
    together = sum(1 for x in mine if other.size and float(np.min(np.abs(other - x))) <= near)
    return together, len(mine)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path, help="a kernel_bench.py --out directory (its runs/)")
    ap.add_argument("--scenario", default="two")
    ap.add_argument("--cc", default="reno")
    ap.add_argument("--seconds", type=float, default=60.0)
    a = ap.parse_args()
    import ccsim

    w0, w1 = K.window(a.seconds)
    runs = sorted(a.dir.glob(f"runs/{a.scenario}-{a.cc}-*"))
    if not runs:
        sys.exit(f"no runs/{a.scenario}-{a.cc}-* under {a.dir}")
    for d in runs:
        snd = json.loads((d / "snd.json").read_text())
        t_start = min(f["start_ns"] for f in snd["flows"])
        n, of = common_cuts(K.kernel_series(snd, t_start, a.seconds), w0, w1)
        print(f"kernel {d.name}: {n} of flow 0's {of} reductions within 60 ms of flow 1's")
    starts = [0.0] * len(K.SCENARIOS[a.scenario][3])
    for seed in (1, 2, 3):
        res = ccsim.run(K.ccsim_doc(a.scenario, a.cc, a.seconds, seed, starts, "linux"), progress=False)
        n, of = common_cuts(K.ccsim_series(res, len(starts)), w0, w1)
        print(f"ccsim seed {seed}: {n} of flow 0's {of} reductions within 60 ms of flow 1's")


if __name__ == "__main__":
    main()
