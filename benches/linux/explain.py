"""Evidence for the mechanisms behind the kernel bench's differences, from a finished bench
directory (its runs/*/snd.json) and the matching ccsim runs. No root needed.

    .venv/bin/python benches/linux/explain.py out/kernel-bench/full

Prints, for run 0 of each case present:
- slow start: the window one base RTT apart while it is below the BDP (Linux counts every
  acknowledged segment and quick-ACKs the start of a connection, so it doubles per RTT;
  ccsim adds at most one MSS per ACK under delayed ACKs);
- how slow start ended: by a loss (ssthresh < the window, retransmissions) or by HyStart
  (ssthresh set to the window itself with nothing retransmitted yet, CUBIC only);
and, from ccsim alone, the 4-BDP case (q133) with the RTO floor at 200 ms (the bench's
setting) and at 1 s: whether ccsim's timeouts there are spurious timeouts of RFC 6298's
max(srtt + 4·rttvar, min) form when srtt is large and steady.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kernel_bench as kb  # noqa: E402


def growth_per_rtt(t: np.ndarray, cwnd: np.ndarray, ssthresh: np.ndarray, rtt: float = 0.0412,
                   below: float = 33.0) -> list[float]:
    """cwnd(t + rtt) / cwnd(t) in slow start (before the first finite ssthresh) while
    cwnd(t + rtt) is below one BDP (33 packets), i.e. while the RTT is the base RTT."""
    fin = np.flatnonzero(np.isfinite(ssthresh))
    end = int(fin[0]) if fin.size else len(t)
    out = []
    for i in range(end):
        j = int(np.searchsorted(t, t[i] + rtt))
        if j < end and cwnd[j] < below and cwnd[i] >= 10:
            out.append(float(cwnd[j] / cwnd[i]))
    return out


def exit_kind(s) -> str:
    fin = np.flatnonzero(np.isfinite(s.ssthresh))
    if fin.size == 0:
        return "no exit"
    i = int(fin[0])
    return f"ssthresh {s.ssthresh[i]:.0f} at {s.t[i]:.2f} s, cwnd then {s.cwnd[i]:.0f}"


def main(argv: list[str]) -> int:
    d = Path(argv[0])
    res = json.loads((d / "results.json").read_text())
    seconds = res["meta"]["seconds"]
    for r in res["kernel"]:
        if r["run"] != 0:
            continue
        name, cc = r["scenario"], r["cc"]
        snd = json.loads((d / "runs" / f"{name}-{cc}-0" / "snd.json").read_text())
        t0 = min(f["start_ns"] for f in snd["flows"])
        k = kb.kernel_series(snd, t0, seconds)[0]
        col = {x: i for i, x in enumerate(snd["fields"])}
        retx = np.array([s[col["total_retrans"]] for s in snd["flows"][0]["samples"]])
        fin = np.flatnonzero(np.isfinite(k.ssthresh))
        retx_at_exit = int(retx[fin[0]]) if fin.size else None
        print(f"== {name}/{cc}")
        gk = growth_per_rtt(k.t, k.cwnd, k.ssthresh)
        print(f"  kernel: slow-start growth per RTT {np.median(gk):.2f} (n={len(gk)})" if gk else "  kernel: -",
              f"| exit: {exit_kind(k)}, retransmitted by then: {retx_at_exit}")
        if cc in kb.CCSIM_CC:
            import ccsim
            doc = kb.ccsim_doc(name, cc, min(seconds, 10.0), r["seed"], r["starts_s"], None)
            s = kb.ccsim_series(ccsim.run(doc, progress=False), len(r["starts_s"]))[0]
            gs = growth_per_rtt(s.t, s.cwnd, s.ssthresh)
            print(f"  ccsim:  slow-start growth per RTT {np.median(gs):.2f} (n={len(gs)})" if gs else "  ccsim: -",
                  f"| exit: {exit_kind(s)}")
    rto_floor_check(seconds)
    return 0


def rto_floor_check(seconds: float) -> None:
    import ccsim
    import metrics as M

    print("== q133 in ccsim, RTO floor 200 ms vs 1 s (seed 1)")
    w0, w1 = kb.window(seconds)
    for cc in kb.CCSIM_CC:
        for floor in ("200ms", "1s"):
            doc = kb.ccsim_doc("q133", cc, seconds, 1, [0.0], None)
            doc["flow"][0]["rto"]["min"] = floor
            res = ccsim.run(doc, progress=False)
            s = kb.ccsim_series(res, 1)[0]
            lq = res.link_series[res.link_series.link == "r1->r2"]
            m = M.scenario_metrics([s], M.mean_in(lq.time_s.to_numpy(), lq.queue_packets.to_numpy(), w0, w1), w0, w1)
            f = res.flows.iloc[0]
            print(f"  {cc:5} rto.min {floor:5}: timeouts {f.timeouts}, retx {f.retransmissions}, goodput "
                  f"{m['goodput_mbps']:.2f} Mb/s, srtt {m['srtt_ms']:.1f} ms, queue {m['queue_pkts']:.1f}, "
                  f"period {m['period_s']:.2f} s")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
