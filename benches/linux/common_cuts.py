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
import slowstart_trace as S  # noqa: E402


def common_cuts(flows: list[M.Series], w0: float, w1: float, near: float = M.MERGE_S) -> tuple[int, int]:
    """(flow 0's reductions in [w0, w1] within `near` of one of flow 1's, all of flow 0's
    reductions in [w0, w1])."""
    mine = [x for x in flows[0].reductions if w0 <= x <= w1]
    other = np.asarray(flows[1].reductions, dtype=float)
    together = sum(1 for x in mine if other.size and float(np.min(np.abs(other - x))) <= near)
    return together, len(mine)


EPISODE_GAP_S = 0.1  # drops closer than this belong to one overflow episode
BURST_GAP_NS = 200_000  # a flow's packets closer than this reach the bottleneck as one burst


def drop_episodes(drops: list[tuple[float, int]], w0: float, w1: float) -> dict:
    """Overflow episodes among (time s, flow index) drops at the bottleneck in [w0, w1]:
    their number, how many take packets of both flows, and the median and count under 60 ms
    of the gap between the two flows' first drops in those."""
    eps: list[list[tuple[float, int]]] = []
    for t, f in sorted(d for d in drops if w0 <= d[0] <= w1):
        if eps and t - eps[-1][-1][0] < EPISODE_GAP_S:
            eps[-1].append((t, f))
        else:
            eps.append([(t, f)])
    gaps = []
    for e in eps:
        first = {f: t for t, f in reversed(e)}
        if 0 in first and 1 in first:
            gaps.append(abs(first[1] - first[0]))
    return {"episodes": len(eps), "both": len(gaps), "gap_median_ms": float(np.median(gaps)) * 1e3 if gaps else None,
            "gap_under_60ms": sum(g <= M.MERGE_S for g in gaps)}


def burst_sizes(arrivals: list[tuple[int, int]]) -> dict[int, float]:
    """Shares of data bursts by size: (time ns, flow index) arrivals at the bottleneck, a
    burst being a flow's packets each less than BURST_GAP_NS after the one before."""
    last: dict[int, int] = {}
    run: dict[int, int] = {}
    sizes: dict[int, int] = {}
    for t, f in sorted(arrivals):
        if f in last and t - last[f] < BURST_GAP_NS:
            run[f] += 1
        else:
            if f in run:
                sizes[run[f]] = sizes.get(run[f], 0) + 1
            run[f] = 1
        last[f] = t
    for n in run.values():
        sizes[n] = sizes.get(n, 0) + 1
    total = sum(sizes.values()) or 1
    return {k: v / total for k, v in sorted(sizes.items())}


def kernel_log(path: Path, ports: list[int], w0_ns: int, w1_ns: int) -> tuple[list, list]:
    """(drops as (s, flow), data arrivals as (ns, flow)) of an emulator log, data direction,
    arrival times in [w0_ns, w1_ns] of the log's clock."""
    drops, arrivals = [], []
    with path.open() as f:
        for line in f:
            if line[0] != "0":
                continue  # comments, the header and the ACK direction
            x = line.split(",")
            t, size, sport, verdict = int(x[1]), int(x[3]), int(x[4]), x[6]
            if not (w0_ns <= t <= w1_ns) or size <= 100 or sport not in ports:
                continue
            fl = ports.index(sport)
            if verdict == "sent":
                arrivals.append((t, fl))
            else:
                drops.append((t / 1e9, fl))
    return drops, arrivals


def describe(tag: str, ep: dict, bursts: dict[int, float]) -> str:
    g = f"{ep['gap_median_ms']:.0f} ms" if ep["gap_median_ms"] is not None else "–"
    b = ", ".join(f"{k}: {v:.2f}" for k, v in bursts.items() if v >= 0.005)
    return (f"{tag}: {ep['episodes']} drop episodes, {ep['both']} take both flows' packets, first drops "
            f"{g} apart (median; {ep['gap_under_60ms']} within 60 ms); data bursts by size {b}")


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
        log = d / "emu.log"
        if log.exists():  # the emulator's clock is the sender's CLOCK_MONOTONIC minus t0
            t0 = int(json.loads((d / "emu.json").read_text()).get("t0_mono_ns", 0))
            ports = [f["sport"] for f in snd["flows"]]
            base = t_start - t0
            drops, arr = kernel_log(log, ports, base + int(w0 * 1e9), base + int(w1 * 1e9))
            drops = [(t - base / 1e9, f) for t, f in drops]
            print("   " + describe("kernel", drop_episodes(drops, w0, w1), burst_sizes(arr)))
    starts = [0.0] * K.SCENARIOS[a.scenario].flows
    for seed in (1, 2, 3):
        doc = K.ccsim_doc(a.scenario, a.cc, a.seconds, seed, starts, "linux")
        doc["trace"]["events"] = ["drop"]
        doc["trace"]["pcap"] = [f"s{i}->r1" for i in range(len(starts))]
        res = ccsim.run(doc, progress=False)
        n, of = common_cuts(K.ccsim_series(res, len(starts)), w0, w1)
        print(f"ccsim seed {seed}: {n} of flow 0's {of} reductions within 60 ms of flow 1's")
        de = res.drop_events
        de = de[de.link == "r1->r2"]
        drops = [(float(t), int(str(f)[1:])) for t, f in zip(de.time_s, de.flow)]
        # data frames leaving each sender (S.pcap_tcp_frames: t in µs first), in ns
        arr = [(round(f[0] * 1e3), i) for i in range(len(starts)) for f in S.pcap_tcp_frames(res.pcap(f"s{i}->r1"))
               if f[6] > 0 and w0 * 1e6 <= f[0] <= w1 * 1e6]
        print("   " + describe("ccsim", drop_episodes(drops, w0, w1), burst_sizes(arr)))


if __name__ == "__main__":
    main()
