"""BBR's model, kernel against ccsim (issue #26; docs/validation.md §6, "BBR"): per one-flow
scenario, the medians of BtlBw, of the pacing rate and of RTprop, the means of the flight
and of cwnd, and the share of the time BtlBw lies over the bottleneck's rate of payload
(10 Mb/s · MSS / (MSS + headers): a value only a sample whose interval came out short can
give) over 10–60 s, from the kernel's 20 ms samples (TCP_INFO and TCP_CC_INFO, kept runs of a
bench run since TCP_CC_INFO was sampled) and from ccsim's `linux` profile sampled the same way
(`crates/ccsim-core/examples/bbr_state.rs`, seeds 1–3), optionally with the hosts' jitter
(`--host-jitter DATA_US,ACK_US`, as kernel_bench.py takes it).

    cargo build --release -p ccsim-core --example bbr_state
    .venv/bin/python benches/linux/bbr_model.py DIR [--host-jitter 70,204]
                                                    # DIR: kernel_bench.py --cc bbr --keep-logs
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import kernel_bench  # noqa: E402

HERE = Path(__file__).parent
EXAMPLE = HERE.parent.parent / "target" / "release" / "examples" / "bbr_state"
SCENARIOS = ("q8", "q33", "q133", "loss1e-3", "loss1e-2")


def payload_mbps(scenario: str) -> float:
    """The bottleneck's rate of payload, Mb/s."""
    return kernel_bench.SCENARIOS[scenario].rate_bps * 1e-6 * kernel_bench.MSS / (kernel_bench.MSS + kernel_bench.HEADER)


def over_share(bw_mbps: list[float], payload: float) -> float:
    """The share of samples with BtlBw over `payload` (by more than 0.05 %: the kernel's
    bandwidth is rounded to 2^-24 segments per µs)."""
    return sum(b > payload * 1.0005 for b in bw_mbps) / len(bw_mbps)


def kernel(run: Path, payload: float) -> tuple[float, ...] | None:
    snd = json.loads((run / "snd.json").read_text())
    col = {n: i for i, n in enumerate(snd["fields"])}
    if "bbr_bw" not in col:
        return None
    s = snd["flows"][0]["samples"]
    t0 = s[0][col["t_ns"]]
    w = [x for x in s if 10e9 <= x[col["t_ns"]] - t0 < 60e9]
    flight = [x[col["unacked"]] - x[col["sacked"]] - x[col["lost"]] + x[col["retrans"]] for x in w]
    bw = [x[col["bbr_bw"]] * 8e-6 for x in w]
    return (statistics.median(bw),
            statistics.median(x[col["pacing_rate"]] * 8e-6 for x in w),
            statistics.fmean(flight), statistics.fmean(x[col["snd_cwnd"]] for x in w),
            statistics.median(x[col["bbr_min_rtt"]] * 1e-3 for x in w), over_share(bw, payload))


def ccsim(scenario: str, seed: int, host_jitter_us: tuple[float, float]) -> tuple[float, ...]:
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(kernel_bench.ccsim_doc(scenario, "bbr", 60.0, seed, [0.0], "linux", host_jitter_us), f)
        f.flush()
        out = subprocess.run([str(EXAMPLE), f.name, "60", "10"], capture_output=True, text=True, check=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    bw = [float(r["btl_bw_mbps"]) for r in rows]
    return (statistics.median(bw),
            statistics.median(float(r["pacing_mbps"]) for r in rows),
            statistics.fmean(float(r["in_flight"]) for r in rows), statistics.fmean(float(r["cwnd"]) for r in rows),
            statistics.median(float(r["rt_prop_ms"]) for r in rows), over_share(bw, payload_mbps(scenario)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, help="a kernel_bench.py --cc bbr --keep-logs output directory")
    p.add_argument("--host-jitter", type=kernel_bench._jitter_pair, default=(0.0, 0.0), metavar="DATA_US,ACK_US",
                   help="ccsim side: the hosts' jitter, as kernel_bench.py takes it")
    a = p.parse_args(argv)
    jitter = a.host_jitter
    runs = a.dir / "runs"
    if not EXAMPLE.exists():
        print(f"{EXAMPLE} missing: cargo build --release -p ccsim-core --example bbr_state", file=sys.stderr)
        return 2
    print("| scenario | BtlBw kernel | ccsim | pacing kernel | ccsim | flight kernel | ccsim | cwnd kernel | ccsim "
          "| RTprop kernel | ccsim | BtlBw over kernel | ccsim |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for sc in SCENARIOS:
        k = [v for v in (kernel(r, payload_mbps(sc)) for r in sorted(runs.glob(f"{sc}-bbr-*"))) if v]
        if not k:
            continue
        c = [ccsim(sc, seed, jitter) for seed in (1, 2, 3)]
        cells = []
        for i, fmt in enumerate(("{:.3f}", "{:.3f}", "{:.1f}", "{:.1f}", "{:.2f}", "{:.2f}")):
            cells += [fmt.format(statistics.fmean(x[i] for x in k)), fmt.format(statistics.fmean(x[i] for x in c))]
        print(f"| {sc} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
