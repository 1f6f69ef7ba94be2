"""When BBR enters PROBE_RTT, kernel and ccsim: the starts of the episodes in which the first
flow's window is at most 4 segments (PROBE_RTT's), from the 20 ms samples of kept kernel runs
(`snd.json`) and from ccsim's trace of the same scenario and seed with the `linux` profile.

    .venv/bin/python benches/linux/probe_rtt.py DIR [--scenario loss1e-2] [--ccsim-set KEY=VALUE ...]

DIR is a kernel bench output with `runs/<scenario>-bbr-<k>/snd.json` (`kernel_bench.py --cc bbr
--keep-logs`). No root needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kernel_bench as K  # noqa: E402

PROBE_RTT_CWND = 4.5  # BBR's min_cwnd, 4 segments, and a margin for the sampling


def episode_starts(t: np.ndarray, cwnd: np.ndarray) -> list[float]:
    """Times of the samples where the window first falls to PROBE_RTT's 4 segments."""
    low = cwnd <= PROBE_RTT_CWND
    return [round(float(x), 2) for x in t[1:][low[1:] & ~low[:-1]]]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path)
    p.add_argument("--scenario", default="loss1e-2", choices=list(K.SCENARIOS))
    p.add_argument("--ccsim-set", action="append", default=[], type=K._flow_key, metavar="KEY=VALUE")
    a = p.parse_args(argv)
    import ccsim

    runs = sorted((a.dir / "runs").glob(f"{a.scenario}-bbr-*"))
    if not runs:
        print(f"no {a.scenario}-bbr-* runs under {a.dir / 'runs'}")
        return 1
    for d in runs:
        snd = json.loads((d / "snd.json").read_text())
        col = {n: i for i, n in enumerate(snd["fields"])}
        s = np.array(snd["flows"][0]["samples"], dtype=np.float64)
        t = (s[:, col["t_ns"]] - snd["flows"][0]["start_ns"]) / 1e9
        print(f"kernel {d.name}: PROBE_RTT at {episode_starts(t, s[:, col['snd_cwnd']])} s")
        seed = int(d.name.rsplit("-", 1)[1]) + 1
        n = K.SCENARIOS[a.scenario].flows
        doc = K.ccsim_doc(a.scenario, "bbr", 60.0, seed, [0.0] * n, "linux", flow_set=dict(a.ccsim_set))
        f = ccsim.run(doc, progress=False).flow_series
        f = f[f.flow == "f0"]
        print(f"ccsim  seed {seed}: PROBE_RTT at "
              f"{episode_starts(f.time_s.to_numpy(), f.cwnd_bytes.to_numpy() / K.MSS)} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
