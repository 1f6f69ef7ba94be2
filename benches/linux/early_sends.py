"""What a kernel run's sender sent in each 20 ms of its first second(s), beside ccsim's run
of the same case (issue #26; docs/validation.md §6, "Scenarios it was not built on"): the
segments sent and how many were retransmissions, the congestion state and the window, from
the kernel's TCP_INFO samples (`bytes_sent`, `total_retrans`) and from a capture of ccsim's
sender link, counted between the same sample times (ccsim's clock moved by its handshake,
so that both sides' data starts together). ccsim's run is paired with the kernel run (its
seed, its flows' starts and, for a lossy scenario, the data packets its emulator dropped).

    .venv/bin/python benches/linux/early_sends.py RESULTS.json RUN_DIR [--flow 0] [--until 0.6]
        [--ccsim-set KEY=VALUE ...]

RESULTS.json is the kernel bench's (its run records the scenario), RUN_DIR the run's kept
directory (`--keep-logs`: runs/<scenario>-<cc>-<k>/snd.json). Needs tshark.
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import kernel_bench as KB  # noqa: E402
import rate_samples as RS  # noqa: E402

BIN_S = 0.02


def kernel_rows(snd: dict, flow: int, until: float) -> list[tuple[float, float, int, int, int]]:
    """One row per TCP_INFO sample after the first, up to `until` s from the first connect():
    (time, segments sent since the last sample, retransmissions, ca_state, cwnd)."""
    col = {n: i for i, n in enumerate(snd["fields"])}
    t0 = min(f["start_ns"] for f in snd["flows"])
    out, prev = [], None
    for x in snd["flows"][flow]["samples"]:
        t = (x[col["t_ns"]] - t0) / 1e9
        if prev is not None and t <= until:
            out.append((t, (x[col["bytes_sent"]] - prev[col["bytes_sent"]]) / KB.MSS,
                        x[col["total_retrans"]] - prev[col["total_retrans"]], x[col["ca_state"]],
                        x[col["snd_cwnd"]]))
        prev = x
    return out


def capture_counts(frames: list[tuple[float, int, int]], edges: list[float]) -> list[tuple[int, int]]:
    """(time s, seq, payload length) of a sender's frames, counted into (edges[i-1], edges[i]]
    for i ≥ 1: (segments, retransmissions), a segment below the highest sequence sent before
    it being a retransmission."""
    out = [(0, 0)] * (len(edges) - 1)
    top = -1
    for t, seq, length in frames:
        if length == 0:
            continue
        rt = seq < top
        top = max(top, seq)
        i = bisect.bisect_left(edges, t)  # edges[i-1] < t <= edges[i]
        if 1 <= i < len(edges):
            n, r = out[i - 1]
            out[i - 1] = (n + 1, r + int(rt))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", type=Path)
    p.add_argument("run", type=Path)
    p.add_argument("--flow", type=int, default=0)
    p.add_argument("--until", type=float, default=0.6)
    p.add_argument("--ccsim-set", action="append", default=[], type=KB._flow_key, metavar="KEY=VALUE",
                   help="a flow key over the profile on ccsim's flows, as kernel_bench.py takes it (e.g. "
                        "prr=rfc6937); repeatable")
    a = p.parse_args(argv)
    import ccsim

    KB.register_saved(a.results)
    name = a.run.name
    rec = next((r for r in json.loads(a.results.read_text())["kernel"]
                if f"{r['scenario']}-{r['cc']}-{r['run']}" == name), None)
    if rec is None:
        p.error(f"{a.results} has no run {name}")
    sc = KB.SCENARIOS[rec["scenario"]]
    if not 0 <= a.flow < sc.flows:
        p.error(f"--flow: {rec['scenario']} has flows 0–{sc.flows - 1}")
    snd = json.loads((a.run / "snd.json").read_text())
    k = kernel_rows(snd, a.flow, a.until)
    doc = KB.ccsim_doc(rec["scenario"], rec["cc"], a.until + 0.2, rec["seed"], rec["starts_s"], "linux",
                       flow_set=dict(a.ccsim_set), lost=rec.get("lost_data_packets"))
    link = f"s{a.flow}->r1"
    doc["trace"]["pcap"] = [link]
    res = ccsim.run(doc, progress=False)
    with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
        f.write(bytes(res.pcap(link)))
        f.flush()
        frames = [(t, seq, length) for t, _, seq, length, _, _ in RS.frames(Path(f.name))]
    # The kernel's data leaves when the last connect() has returned (max of the starts);
    # ccsim's, after its handshakes, at the longest base RTT (`ccsim_doc`): ccsim's times
    # are moved by the difference.
    shift = 2 * (sc.one_way_ms + max(sc.extra_ms)) / 1e3 - max(rec["starts_s"])
    edges = [k[0][0] - BIN_S] + [r[0] for r in k]
    c = capture_counts([(t - shift, q, n) for t, q, n in frames], edges)
    fs = res.flow_series
    cw = fs[fs.flow == f"f{a.flow}"]
    print(f"{name}, flow {a.flow}: segments sent since the last 20 ms sample (retransmissions), kernel | ccsim "
          "(paired)")
    print("| t (s) | kernel sent | retx | ca_state | cwnd | ccsim sent | retx | cwnd |")
    print("|---|---|---|---|---|---|---|---|")
    for (t, ks, kr, ca, kc), (cs, cr) in zip(k, c):
        row = cw[cw.time_s <= t + shift + 1e-9]
        ccw = row.cwnd_bytes.iloc[-1] / KB.MSS if len(row) else float("nan")
        print(f"| {t:.3f} | {ks:.0f} | {kr} | {ca} | {kc} | {cs} | {cr} | {ccw:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
