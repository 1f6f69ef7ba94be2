"""PSH marks and ACK sizes, kernel and ccsim: of each flow's data segments, the share that
carries PSH and the gaps between successive ones, and the receiver's ACKs by the segments
they newly acknowledge (0: a duplicate). The kernel's from the header capture of an
`ack_paths.py record` run (the receiver's veth), ccsim's from a run of the same scenario and
length in the `linux` profile with captures of the receiver's links. docs/validation.md §6
("Pushed segments") has the figures.

    sudo .venv/bin/python benches/linux/ack_paths.py record --scenario two --cc reno --run 0 --seconds 14 --out DIR
    .venv/bin/python benches/linux/push_marks.py DIR/runs/two-reno-0
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kernel_bench as K  # noqa: E402
import slowstart_trace as S  # noqa: E402

PSH = 0x08


def marks(frames: list[tuple], data_port: int, mss: int = K.MSS) -> dict:
    """Statistics of one flow from (t, sport, dport, seq, ack, flags, payload) frames: its
    data segments are those from `data_port` with a payload, its ACKs those to it."""
    data = [f for f in frames if f[1] == data_port and f[6] > 0]
    pushed = [i for i, f in enumerate(data) if f[5] & PSH]
    gaps = Counter(b - a for a, b in zip(pushed, pushed[1:]))
    acks = [f[4] for f in frames if f[2] == data_port]
    sizes = Counter(min((b - a) // mss, 5) for a, b in zip(acks, acks[1:]) if b >= a)
    return {"segments": len(data), "psh_share": len(pushed) / len(data) if data else 0.0,
            "gaps": dict(sorted(gaps.items())), "ack_sizes": dict(sorted(sizes.items()))}


def show(tag: str, m: dict) -> str:
    total = sum(m["gaps"].values()) or 1
    g = ", ".join(f"{k}: {v / total:.2f}" for k, v in m["gaps"].items() if v / total >= 0.005)
    s = ", ".join(f"{'5+' if k == 5 else k}: {v}" for k, v in m["ack_sizes"].items())
    return f"{tag}: {m['segments']} segments, PSH on {m['psh_share']:.2f}, gaps {g}; ACKs by segments {s}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", type=Path, help="an ack_paths.py record run directory (receiver.pcap, run.json)")
    ap.add_argument("--seconds", type=float, default=14.0, help="the run's length (ack_paths.py record --seconds)")
    a = ap.parse_args()
    run = json.loads((a.run_dir / "run.json").read_text())
    snd = json.loads((a.run_dir / "snd.json").read_text())
    frames = S.pcap_tcp_frames((a.run_dir / "receiver.pcap").read_bytes())
    for f in snd["flows"]:
        print(show(f"kernel flow {f['sport']}", marks(frames, f["sport"])))
    import ccsim

    n = len(snd["flows"])
    seconds = float(snd.get("seconds") or a.seconds)
    doc = K.ccsim_doc(run["scenario"], run["cc"], seconds, run["seed"], [0.0] * n, "linux")
    doc["trace"]["pcap"] = [f"r2->d{i}" for i in range(n)] + [f"d{i}->r2" for i in range(n)]
    res = ccsim.run(doc, progress=False)
    for i in range(n):
        fr = S.pcap_tcp_frames(res.pcap(f"r2->d{i}")) + S.pcap_tcp_frames(res.pcap(f"d{i}->r2"))
        fr.sort(key=lambda x: x[0])
        print(show(f"ccsim flow {i}", marks(fr, 49152 + i)))


if __name__ == "__main__":
    main()
