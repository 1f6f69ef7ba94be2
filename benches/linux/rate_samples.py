"""Delivery-rate samples as Linux computes them (`tcp_rate.c`), replayed offline on the
sender's side of a kernel run and of ccsim's run of the same scenario (issue #26;
docs/validation.md §6, "BBR"): where BBR's bandwidth estimate comes from.

    # as root: one kernel run with a header capture on the sender's veth (s0)
    .venv/bin/python benches/linux/rate_samples.py record --scenario q8 --cc bbr --seconds 20 --out out/rate-samples
    # no root: the samples of the kernel's capture beside those of ccsim's (trace.pcap)
    .venv/bin/python benches/linux/rate_samples.py analyse out/rate-samples/runs/q8-bbr-0

`analyse` also sorts the samples by whether SACK compression held the ACK that starts them
and the one that ends them (an ACK is held when it leaves the receiver over 0.5 ms after the
data segment before it: the kernel's from the emulator's log, ccsim's from a capture of the
receiver's link) and by which phase bounds them, and counts, after each immediate ACK of a
partial fill, the SACKs sent at once before the first held one (`__tcp_ack_snd_check`:
docs/tcp.md §6, "SACK compression").

The replay follows `tcp_rate_skb_sent` / `tcp_rate_skb_delivered` / `tcp_rate_gen` per
segment (the capture shows segments, not the kernel's GSO packets): each segment sent keeps
the delivered count, the time of the last delivery and the send time of the most recently
delivered segment; each ACK's newly (S)ACKed segments give one sample from the most recently
sent of them, delivered over max(send phase, ACK phase), dropped below the minimum RTT. Both
sides are replayed by the same code, so a difference is in the packets' timing, not in the
sampler. Needs tshark.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
MSS = 1448
FIELDS = ("frame.time_epoch", "ip.src", "tcp.seq", "tcp.len", "tcp.ack", "tcp.options.sack_le",
          "tcp.options.sack_re")


def frames(pcap: Path) -> list[tuple]:
    """(time s, source, seq, payload length, ack, SACK blocks) of every TCP frame."""
    out = subprocess.run(["tshark", "-r", str(pcap), "-T", "fields", *sum((["-e", f] for f in FIELDS), [])],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) < 7 or not f[2]:
            continue
        blocks = list(zip((int(x) for x in f[5].split(",") if x), (int(x) for x in f[6].split(",") if x)))
        rows.append((float(f[0]), f[1], int(f[2]), int(f[3]), int(f[4] or 0), blocks))
    return rows


def replay(rows: list[tuple], sender: str, base: int) -> list[dict]:
    """The samples, in order: time, rate (Mb/s of payload), segments, phases (ms), whether the
    ACK that started the sample carried SACK blocks, whether the sender was retransmitting."""
    rec: dict[int, list] = {}
    sacked: set[int] = set()
    una = high = delivered = 0
    dtime = first = None
    dtime_sack = False
    min_rtt = float("inf")
    recovery_until = None
    out = []
    for t, src, seq, length, ack, blocks in rows:
        if src == sender:
            if length == 0:
                continue
            i = (seq - base) // MSS
            retx = i in rec or i < una
            if high <= una:  # nothing outstanding: the sample starts now (tcp_rate_skb_sent)
                first = dtime = t
            rec[i] = [delivered, dtime, first, t, retx, False, dtime_sack, dtime]
            if retx and recovery_until is None:
                recovery_until = high
            high = max(high, i + 1)
            continue
        a = (ack - base) // MSS
        newly = [(s, False) for s in range(una, a) if s not in sacked]
        for le, re_ in blocks:
            for s in range((le - base) // MSS, (re_ - base) // MSS):
                if s >= a and s not in sacked:
                    sacked.add(s)
                    newly.append((s, True))
        chosen = None
        for s, by_sack in newly:
            r = rec.get(s)
            if r is None:
                continue
            delivered += 1
            if not r[4]:
                min_rtt = min(min_rtt, t - r[3])
            if r[5]:
                continue
            if chosen is None or (r[3], s) > (chosen[1][3], chosen[0]):
                chosen = (s, list(r))
            r[5] = by_sack  # a SACKed segment is not used again when cumulatively ACKed
        sacked.difference_update(range(una, a))
        una = max(una, a)
        if chosen:
            r = chosen[1]
            first = r[3]
            send, ackp = r[3] - r[2], t - r[1]
            if max(send, ackp) >= min_rtt:
                out.append({"t": t, "rate": (delivered - r[0]) * MSS * 8 / max(send, ackp) / 1e6,
                            "segments": delivered - r[0], "send_ms": send * 1e3, "ack_ms": ackp * 1e3,
                            "sack_start": r[6], "recovery": recovery_until is not None, "t0": r[7]})
        if newly:
            dtime, dtime_sack = t, bool(blocks)
        if recovery_until is not None and una >= recovery_until:
            recovery_until = None
    return out


CYCLE_S = 8 * 0.0413  # BBR's gain cycle: eight phases of RTprop (41.3 ms on the bench's path)


def cycles_with_high_sample(samples: list[dict], t0: float, from_s: float, to_s: float) -> tuple[int, int]:
    """(gain-cycle-long windows in [from_s, to_s) with a sample over 9.80 Mb/s, windows): BtlBw's
    max filter spans 10 rounds, a little more than a cycle, so a high sample in every cycle
    keeps it high."""
    n = int((to_s - from_s) / CYCLE_S)
    hit = {int((x["t"] - t0 - from_s) / CYCLE_S) for x in samples
           if x["rate"] > 9.80 and from_s <= x["t"] - t0 < from_s + n * CYCLE_S}
    return len(hit), n


def summary(name: str, samples: list[dict], from_s: float = 5.0) -> str:
    t0 = samples[0]["t"]
    s = [x for x in samples if x["t"] - t0 >= from_s]
    rates = sorted(x["rate"] for x in s)
    pct = [rates[min(len(rates) - 1, int(q * len(rates)))] for q in (0.5, 0.99)]
    hi = [x for x in s if x["rate"] > 9.80]
    early = cycles_with_high_sample(samples, t0, from_s, 10.0)
    late = cycles_with_high_sample(samples, t0, 10.0, samples[-1]["t"] - t0)
    return (f"| {name} | {len(s)} | {pct[0]:.3f} | {pct[1]:.3f} | {rates[-1]:.3f} | {len(hi)} | "
            f"{sum(x['sack_start'] for x in hi)} | {sum(x['sack_start'] for x in s)} | "
            f"{early[0]} of {early[1]} | {late[0]} of {late[1]} |")


HELD_S = 0.0005  # an ACK that leaves this long after the data before it was held


def kernel_holds(run: Path, acks: list[tuple]) -> list[float] | None:
    """The kernel's ACK holds (s), from the emulator's log (`ack_delays.emulator_log`): each
    ACK's arrival less the write of the newest data frame before it, for the capture's ACK
    frames `acks`. The log may hold a few ACKs the capture missed at its start or end: the
    two are aligned where SACK-carrying ACKs (longer than 52 B in the log) agree best; None
    if no alignment agrees on 99 %."""
    import ack_delays as AD

    data, logged, _ = AD.emulator_log(run)
    hold = [g / 1e9 if g is not None else 0.0 for g in AD.ack_gaps(data, [t for t, _ in logged])]

    def agree(o: int) -> int:
        return sum(bool(a[5]) == (logged[o + i][1] > 52) for i, a in enumerate(acks))

    best = max(range(len(logged) - len(acks) + 1), key=agree, default=None)
    if best is None or agree(best) < 0.99 * len(acks):
        return None
    return hold[best:best + len(acks)]


def by_hold(samples: list[dict], acks: list[tuple], hold: list[float], from_s: float = 5.0) -> dict:
    """The samples after `from_s` by (start held, end held, ACK-bound): count, median rate,
    count over 9.80 Mb/s. `acks` are the sender's ACK frames in order, `hold` theirs."""
    held = {a[0]: h > HELD_S for a, h in zip(acks, hold)}
    t_first = samples[0]["t"]
    cells: dict[tuple, list[float]] = {}
    for x in samples:
        if x["t"] - t_first < from_s or x["t"] not in held or x["t0"] not in held:
            continue
        key = (held[x["t0"]], held[x["t"]], x["ack_ms"] > x["send_ms"])
        cells.setdefault(key, []).append(x["rate"])
    return {k: (len(v), statistics.median(v), sum(r > 9.80 for r in v)) for k, v in sorted(cells.items())}


def after_partial_fill(acks: list[tuple], hold: list[float]) -> dict[int, int]:
    """After each immediate ACK of a partial fill (snd.una moved, SACK blocks remain): how
    many SACKs went at once before the first held one (sequences ended by another fill are
    not counted)."""
    counts: dict[int, int] = {}
    state = None
    prev = None
    for a, h in zip(acks, hold):
        if a[4] != prev:
            prev = a[4]
            state = 0 if a[5] and h <= HELD_S else None
        elif state is not None and a[5]:
            if h > HELD_S:
                counts[state] = counts.get(state, 0) + 1
                state = None
            else:
                state += 1
    return dict(sorted(counts.items()))


def record(a: argparse.Namespace) -> int:
    sys.path.insert(0, str(HERE))
    import kernel_bench as KB
    import netns

    why = netns.can_run()
    if why:
        print(f"skipped: {why}")
        return 0
    cap = {}

    def on_up(tb, d: Path) -> None:
        cap["p"] = tb.spawn("sender", "dumpcap", "-q", "-i", "s0", "-s", "128", "-P", "-w", str(d / "sender.pcap"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # dumpcap up before the connection opens

    def before_teardown(tb, d: Path) -> None:
        cap["p"].terminate()
        cap["p"].wait(10)

    KB.kernel_run(a.scenario, a.cc, 0, a.seconds, a.out, KB.build_emulator(), "9901", True,
                  before_teardown=before_teardown, on_up=on_up)
    print(f"wrote {a.out / 'runs' / f'{a.scenario}-{a.cc}-0' / 'sender.pcap'}")
    return 0


def analyse(a: argparse.Namespace) -> int:
    sys.path.insert(0, str(HERE))
    import ack_delays as AD
    import ccsim
    import kernel_bench as KB

    scenario, cc, _ = a.run.name.rsplit("-", 2)
    krows = frames(a.run / "sender.pcap")
    kernel = replay(krows, "10.213.0.1", 1)
    seconds = kernel[-1]["t"] - kernel[0]["t"]
    doc = KB.ccsim_doc(scenario, cc, round(seconds), 1, [0.0], "linux")
    doc.setdefault("trace", {})["pcap"] = ["s0->r1", "r1->s0", "r2->d0", "d0->r2"]
    res = ccsim.run(doc, progress=False)
    tmp = a.run / "ccsim"
    tmp.mkdir(exist_ok=True)

    def capture(links: tuple[str, ...]) -> list[tuple]:
        rows = []
        for link in links:
            f = tmp / f"{link.replace('->', '-')}.pcap"
            f.write_bytes(bytes(res.pcap(link)))
            rows += frames(f)
        return sorted(rows, key=lambda r: r[0])

    rows = capture(("s0->r1", "r1->s0"))
    sender = next(r[1] for r in rows if r[3] > 0)
    sim = replay(rows, sender, 0)
    at_rcv = capture(("r2->d0", "d0->r2"))
    sim_acks = [r for r in rows if r[1] != sender]
    sim_hold = [g if g is not None else 0.0 for g in AD.ack_gaps(
        [r[0] for r in at_rcv if r[1] == sender and r[3] > 0], [r[0] for r in at_rcv if r[1] != sender])]
    k_acks = [r for r in krows if r[1] != "10.213.0.1"]
    k_hold = kernel_holds(a.run, k_acks)
    if k_hold is None:
        print(f"the capture's {len(k_acks)} ACKs do not align with the emulator's log", file=sys.stderr)
        return 1
    n = min(len(sim_acks), len(sim_hold))  # ACKs still on the way at the end
    sim_acks, sim_hold = sim_acks[:n], sim_hold[:n]
    print(f"{scenario} / {cc}: delivery-rate samples after 5 s (Mb/s of payload; the bottleneck carries 9.653)\n")
    print("| side | samples | median | p99 | max | over 9.80 | … starting at a SACK | all starting at a SACK "
          "| gain cycles with one over 9.80, 5–10 s | … after 10 s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(summary("kernel", kernel))
    print(summary("ccsim", sim))
    print("\nThe samples by whether SACK compression held their first and last ACK and which phase bounds them "
          "(count, median Mb/s, over 9.80):\n")
    print("| first ACK | last ACK | bound by | kernel | ccsim |")
    print("|---|---|---|---|---|")
    kc, sc = by_hold(kernel, k_acks, k_hold), by_hold(sim, sim_acks, sim_hold)
    for key in sorted(set(kc) | set(sc)):
        cell = lambda c: "{} / {:.3f} / {}".format(*c[key]) if key in c else "–"  # noqa: E731
        names = ("held" if key[0] else "at once", "held" if key[1] else "at once", "ACKs" if key[2] else "sends")
        print(f"| {names[0]} | {names[1]} | {names[2]} | {cell(kc)} | {cell(sc)} |")
    print("\nAfter an immediate partial-fill ACK, the SACKs sent at once before the first held one "
          "(count of such sequences):\n")
    print(f"kernel {after_partial_fill(k_acks, k_hold)}; ccsim {after_partial_fill(sim_acks, sim_hold)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--scenario", default="q8")
    r.add_argument("--cc", default="bbr")
    r.add_argument("--seconds", type=float, default=20.0)
    r.add_argument("--out", type=Path, default=Path("out/rate-samples"))
    s = sub.add_parser("analyse")
    s.add_argument("run", type=Path, help="a recorded run: OUT/runs/<scenario>-<cc>-0")
    a = p.parse_args(argv)
    return record(a) if a.cmd == "record" else analyse(a)


if __name__ == "__main__":
    raise SystemExit(main())
