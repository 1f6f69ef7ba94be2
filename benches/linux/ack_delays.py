"""When the receiver's ACKs leave after the data that precedes them: the kernel's, from a kept
run's emulator log, beside ccsim's for the same scenario (issue #26; docs/validation.md §6,
"BBR"). SACK compression shows as SACK-carrying ACKs that leave 1.0–1.3 ms after the last
data segment (what it does to BBR's model: `bbr_model.py`).

    .venv/bin/python benches/linux/ack_delays.py DIR/runs/loss1e-2-bbr-0 [--no-ccsim]

DIR is a kernel bench output directory run with `--keep-logs`. The gap of an ACK is its
arrival at the emulator less the emulator's write of the newest data segment before it
(the kernel side), or the same two instants on the receiver's access link (ccsim, a
`trace.pcap` of d0->r2 and r2->d0; the access link has no delay). An ACK carries SACK blocks
when it is longer than a plain ACK (52 B on the kernel's wire; in ccsim's capture, when its
TCP header is longer than the plain ACK's).
"""

from __future__ import annotations

import argparse
import bisect
import csv
import json
import sys
from pathlib import Path

BINS_US = ((0, 100, "at once (<0.1 ms)"), (100, 1000, "0.1–1 ms"), (1000, 1300, "held (1.0–1.3 ms)"),
           (1300, float("inf"), "later"))


def table(rows: list[tuple[float, bool]]) -> dict:
    """Counts of (gap µs, carries SACK) by kind and gap bin."""
    out = {}
    for kind, want in (("plain", False), ("sack", True)):
        gaps = [g for g, s in rows if s == want]
        out[kind] = {"n": len(gaps), **{name: sum(lo <= g < hi for g in gaps) for lo, hi, name in BINS_US}}
    return out


def ack_gaps(data: list[float], acks: list[float]) -> list[float]:
    """Per ACK time in `acks`, the time since the newest data write before it (`data`
    sorted; the same unit; None before the first write)."""
    out = []
    for t in acks:
        i = bisect.bisect_right(data, t) - 1
        out.append(t - data[i] if i >= 0 else None)
    return out


def gaps(data: list[float], acks: list[tuple[float, int]], plain: int) -> list[tuple[float, bool]]:
    data.sort()
    return [(g / 1e3, size > plain) for g, (_, size) in zip(ack_gaps(data, [t for t, _ in acks]), acks)
            if g is not None]


def emulator_log(run: Path) -> tuple[list[float], list[tuple[float, int]], int]:
    """From a kept run's emulator log: the data frames' write times (ns, sorted), the ACKs'
    (arrival ns, IP size) in order of arrival, and the data frames its loss dropped."""
    data, acks, lost = [], [], 0
    with open(run / "emu.log") as f:
        for r in csv.DictReader(ln for ln in f if not ln.startswith("#")):
            if r["dir"] == "0":
                lost += r["verdict"] == "lost"
                if r["verdict"] == "sent" and r["sent_ns"]:  # (a frame queued at the end: no write)
                    data.append(float(r["sent_ns"]))
            else:
                acks.append((float(r["arrival_ns"]), int(r["size"])))
    data.sort()
    acks.sort()
    return data, acks, lost


def kernel_rows(run: Path) -> tuple[list[tuple[float, bool]], int]:
    data, acks, lost = emulator_log(run)
    return gaps(data, acks, 52), lost


def ccsim_rows(scenario: str, cc: str, seconds: float) -> tuple[list[tuple[float, bool]], int]:
    sys.path.insert(0, str(Path(__file__).parent))
    import ccsim
    import kernel_bench
    import slowstart_trace as S

    doc = kernel_bench.ccsim_doc(scenario, cc, seconds, 1, [0.0], "linux")
    doc.setdefault("trace", {})["pcap"] = ["d0->r2", "r2->d0"]
    res = ccsim.run(doc, progress=False)
    # (ns, TCP header length): an ACK with SACK blocks has the longer header
    data = [f[0] * 1e3 for f in S.pcap_tcp_frames(res.pcap("r2->d0"))]
    acks = [(f[0] * 1e3, f[7]) for f in S.pcap_tcp_frames(res.pcap("d0->r2"))]
    plain = min(size for _, size in acks)
    lost = int(res.flows["drops_random_loss"].sum())
    return gaps(data, acks, plain), lost


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", type=Path, help="a kept kernel run: DIR/runs/<scenario>-<cc>-<k>")
    p.add_argument("--no-ccsim", action="store_true", help="the kernel's side only")
    a = p.parse_args(argv)
    if not (a.run / "emu.log").exists():
        print(f"{a.run}: no emu.log (run the bench with --keep-logs)", file=sys.stderr)
        return 2
    scenario, cc, _ = a.run.name.rsplit("-", 2)
    meta = json.loads((a.run.parent.parent / "results.json").read_text())["meta"]
    sides = [("kernel", *kernel_rows(a.run))]
    if not a.no_ccsim:
        sides.append(("ccsim", *ccsim_rows(scenario, cc, float(meta.get("seconds", 60.0)))))
    print(f"{scenario} / {cc}: ACKs by the gap after the last data segment, whole run\n")
    print("| side | data lost | ACKs | kind | " + " | ".join(name for _, _, name in BINS_US) + " |")
    print("|---|---|---|---|" + "---|" * len(BINS_US))
    for side, rows, lost in sides:
        for kind, c in table(rows).items():
            print(f"| {side} | {lost} | {c['n']} | {kind} | " + " | ".join(str(c[n]) for _, _, n in BINS_US) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
