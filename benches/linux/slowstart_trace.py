"""Slow start per ACK, kernel and ccsim side by side: what HyStart sees (issue #26).

    # as root: one short kernel run with a per-ACK trace, then the analysis of both sides
    .venv/bin/python benches/linux/slowstart_trace.py record --scenario q33 --cc cubic --run 0 \
        --seconds 6 --out out/ss-trace
    .venv/bin/python benches/linux/slowstart_trace.py analyse out/ss-trace/runs/q33-cubic-0
    .venv/bin/python benches/linux/slowstart_trace.py ackclock out/ss-trace/runs/loss1e-2-reno-0

`record` runs one kernel case of `kernel_bench.py` with the emulator's per-packet log kept, the
`tcp:tcp_probe` tracepoint enabled in a tracefs instance of its own (CLOCK_MONOTONIC, only the
bench's sender ports), and the sender namespace's TcpExt counters (`TCPHystart*`) read
before the namespaces go. The tracepoint fires for every segment the sender's socket
receives, before it is processed (`tcp_rcv_established`), with snd_una, snd_nxt, cwnd and
ssthresh as they were then.

`analyse` rebuilds, for the first flow, every ACK of the first slow start: its arrival at
the sender, the segments it acknowledges, and the RTT sample the kernel's CUBIC is given
(`cubictcp_acked` takes `sample->rtt_us`, which `tcp_clean_rtx_queue` sets from the send
time of the newest segment the ACK acknowledges cumulatively, `ca_rtt_us` from `last_ackt`).
On the kernel side the send times are the emulator's arrival times of the data frames (the
veth in front of it is synchronous) and the ACK times the tracepoint's; on the ccsim side
both come from a packet capture on the sender's access link of the same scenario and seed.
It then replays HyStart as net/ipv4/tcp_cubic.c runs it (`hystart_update`,
`bictcp_hystart_reset`, `cubictcp_acked`) on both ACK streams, round by round, and checks
the replay against the exit each side actually took (the kernel's ssthresh in the trace;
ccsim's first finite ssthresh). With the receiver's `tcp:tcp_rcvbuf_grow` events it lists the
autotuning steps (what `rcv_autotune` models).

`ackclock` compares the steady state instead (e.g. 1 % loss): how many segments each ACK
acknowledged, the data bursts and the gaps between data arrivals at the bottleneck, and the
mean number of packets waiting that these arrivals give a 1.2 ms server (Lindley's recursion):
what the mean queue is made of.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import struct
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kernel_bench as KB  # noqa: E402

TRACEFS = Path("/sys/kernel/tracing")
INF = 0x7FFFFFFF

# HyStart's constants (net/ipv4/tcp_cubic.c: hystart_low_window, hystart_ack_delta_us,
# HYSTART_MIN_SAMPLES, HYSTART_DELAY_MIN/MAX)
LOW_WINDOW, ACK_DELTA_US, MIN_SAMPLES, DELAY_MIN_US, DELAY_MAX_US = 16, 2000, 8, 4000, 16000
SERVICE_MS = 1500 * 8 / KB.RATE_BPS * 1e3  # a full segment at the bottleneck


# ---------------------------------------------------------------- recording (root)

class ProbeTrace:
    """Tracepoints in a tracefs instance of our own: `tcp:tcp_probe` for the given sender
    ports and the receiver's port, and `tcp:tcp_rcvbuf_grow` (the receiver's autotuning)."""

    EVENTS = ("tcp_probe", "tcp_rcvbuf_grow")

    def __init__(self, ports: list[int], receiver_port: int):
        self.dir = TRACEFS / "instances" / f"ccsim_ss{os.getpid()}"
        self.filters = {"tcp_probe": " || ".join(f"sport == {p}" for p in [*ports, receiver_port]),
                        "tcp_rcvbuf_grow": f"sport == {receiver_port}"}

    def __enter__(self) -> "ProbeTrace":
        if not (TRACEFS / "instances").is_dir():
            subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], check=True)
        self.dir.mkdir()
        (self.dir / "trace_clock").write_text("mono")
        (self.dir / "buffer_size_kb").write_text("32768")
        for e in self.EVENTS:
            ev = self.dir / "events" / "tcp" / e
            if ev.is_dir():
                (ev / "filter").write_text(self.filters[e])
                (ev / "enable").write_text("1")
        return self

    def stop(self) -> None:
        for e in self.EVENTS:
            ev = self.dir / "events" / "tcp" / e / "enable"
            if ev.exists():
                ev.write_text("0")

    def read(self) -> str:
        self.stop()
        return (self.dir / "trace").read_text()

    def __exit__(self, *exc) -> None:
        try:
            self.stop()
        finally:
            self.dir.rmdir()


def hystart_counters(tb, d: Path) -> None:
    """TcpExt counters of the sender's namespace (`/proc/net/netstat` is per namespace)."""
    txt = subprocess.run(tb.exec_args("sender", "cat", "/proc/net/netstat"), capture_output=True, text=True,
                         timeout=10).stdout
    lines = txt.splitlines()
    out = {}
    for h, v in zip(lines[::2], lines[1::2]):
        if h.startswith("TcpExt:"):
            out = dict(zip(h.split()[1:], map(int, v.split()[1:])))
    (d / "tcpext.json").write_text(json.dumps({k: v for k, v in out.items() if "Hystart" in k or "Retrans" in k
                                               or "Loss" in k or "Quick" in k or "Delayed" in k}, indent=1))


def record(a: argparse.Namespace) -> int:
    extras = KB.SCENARIOS[a.scenario].extra_ms
    ports = [KB.SPORT0 + i for i in range(len(extras))]
    d = KB.traced_run(a, ProbeTrace(ports, KB.PORT), "probe.txt", "t",
                      lambda trace: f"{trace.count('tcp_probe:')} probe events",
                      sysctls=tuple(a.sysctl), before_teardown=hystart_counters)
    if d is not None:
        print((d / "tcpext.json").read_text())
    return 0


# ---------------------------------------------------------------- ACK streams

PROBE = re.compile(r"\s(\d+\.\d+): tcp_probe: .*?src=[\d.]+:(\d+) .*?data_len=(\d+) snd_nxt=(0x[0-9a-f]+) "
                   r"snd_una=(0x[0-9a-f]+) snd_cwnd=(\d+) ssthresh=(\d+)")


def probe_events(path: Path, sport: int) -> list[tuple[float, int, int, int, int]]:
    """The sender's `tcp:tcp_probe` events for `sport`: (t_us, snd_nxt, snd_una, cwnd,
    ssthresh), each the state before that ACK is processed."""
    return [(float(m.group(1)) * 1e6, int(m.group(4), 16), int(m.group(5), 16), int(m.group(6)), int(m.group(7)))
            for m in PROBE.finditer(path.read_text()) if int(m.group(2)) == sport]


def kernel_stream(d: Path, sport: int = KB.SPORT0) -> dict:
    """The first flow's ACKs as the kernel's sender saw them: [(t_us, una_seg, nxt_seg, cwnd,
    ssthresh)] and the data segments' send times (µs, CLOCK_MONOTONIC)."""
    head = (d / "emu.log").read_text().splitlines()
    t0 = int(re.search(r"t0_mono_ns=(\d+)", head[1]).group(1))
    cols = head[2].split(",")
    sends = []
    for line in head[3:]:
        r = dict(zip(cols, line.split(",")))
        if r["dir"] == "0" and int(r["sport"]) == sport and int(r["size"]) >= 100:  # data, not the SYN (60 B) or ACKs
            sends.append((t0 + int(r["arrival_ns"])) / 1e3)
    ev = probe_events(d / "probe.txt", sport)
    # sequence base (ISN + 1): at the first ACK, snd_nxt covers the data frames the emulator
    # had read by then (the veth is synchronous, so these agree to within a frame)
    t_first, nxt_first = ev[0][0], ev[0][1]
    n_seen = sum(1 for s in sends if s <= t_first)
    base = (nxt_first - KB.MSS * n_seen) & 0xFFFFFFFF
    # the tracepoint shows the state before the segment is processed: what ACK i acknowledged
    # is the snd_una of event i + 1 (only ACKs arrive at this socket)
    seg = lambda x: ((x - base) & 0xFFFFFFFF) / KB.MSS  # noqa: E731
    acks = []
    for (t, nxt, una, cwnd, ss), nx in zip(ev, ev[1:]):
        acks.append({"t": t, "una": seg(nx[2]), "nxt": seg(nxt), "cwnd": cwnd,
                     "ssthresh": None if ss >= INF else ss, "snd_wnd": None})
    return {"acks": acks, "sends": sends, "n_seen_first": n_seen}


def pcap_tcp_frames(raw: bytes) -> list[tuple[float, int, int, int, int, int, int, int]]:
    """(t_us, sport, dport, seq, ack, tcp flags, payload, TCP header length with its options)
    of each TCP/IPv4 frame of a classic pcap (Ethernet): nanosecond timestamps (ccsim's
    captures) or microsecond ones (dumpcap's -P files), told apart by the file's magic number."""
    out = []
    off = 24
    per_us = 1e3 if raw[:4] == b"\x4d\x3c\xb2\xa1" else 1.0
    while off + 16 <= len(raw):
        sec, frac, incl, _orig = struct.unpack_from("<IIII", raw, off)
        f = raw[off + 16: off + 16 + incl]
        off += 16 + incl
        if len(f) < 14 + 20 + 20 or f[12:14] != b"\x08\x00" or f[23] != 6:
            continue
        ihl = (f[14] & 15) * 4
        tot = struct.unpack_from(">H", f, 16)[0]
        tcp = f[14 + ihl:]
        sp, dp, seq, ack = struct.unpack_from(">HHII", tcp, 0)
        doff = (tcp[12] >> 4) * 4
        out.append((sec * 1e6 + frac / per_us, sp, dp, seq, ack, tcp[13], tot - ihl - doff, doff))
    return out


def read_pcap(raw: bytes) -> list[tuple[float, int, int, int, int, int]]:
    """(t_us, sport, dport, seq, ack, payload) of each TCP frame of a ccsim capture."""
    return [(t, sp, dp, seq, ack, pl) for t, sp, dp, seq, ack, _fl, pl, _hl in pcap_tcp_frames(raw)]


def ccsim_stream(scenario: str, cc: str, seed: int, seconds: float) -> dict:
    """The same for ccsim's first flow: a capture on its access link (as the sender sees it)."""
    import ccsim
    doc = KB.ccsim_doc(scenario, cc, seconds, seed, [0.0] * KB.SCENARIOS[scenario].flows, "linux")
    for ln in doc["link"]:
        if ln.get("between") == ["s0", "r1"]:
            ln["name"] = "access0"
    doc["trace"]["pcap"] = ["access0"]
    res = ccsim.run(doc, progress=False)
    pk = read_pcap(res.pcap("access0"))
    data_port = min(p[1] for p in pk if p[5] > 0)
    sends: dict[int, float] = {}
    acks = []
    for t, sp, dp, seq, ack, pay in pk:
        if sp == data_port and pay > 0:
            sends.setdefault(seq // KB.MSS, t)
        elif dp == data_port:  # snd_nxt before the ACK: what was sent before it arrived
            acks.append({"t": t, "una": ack / KB.MSS, "nxt": float(len(sends)), "cwnd": None, "ssthresh": None})
    fs = res.flow_series
    f0 = fs[fs.flow == "f0"]
    fin = f0[f0.ssthresh_bytes.notna()]
    exit_ = None if fin.empty else (float(fin.time_s.iloc[0]), float(fin.ssthresh_bytes.iloc[0]) / KB.MSS)
    return {"acks": acks, "sends": [sends[i] for i in range(len(sends)) if i in sends], "exit": exit_}


# ---------------------------------------------------------------- HyStart, replayed

def replay(acks: list[dict], sends: list[float], rounds_at_any_window: bool = True) -> dict:
    """HyStart as tcp_cubic.c runs it, on an ACK stream, until it finds the exit. Each ACK
    that advances una gives the kernel's RTT sample (its arrival − the send time of the newest
    segment it covers). The window before the ACK is the trace's when known, else slow start's
    10 + segments acknowledged before it. `rounds_at_any_window`: rounds start whatever the
    window (tcp_cubic.c since "tcp_cubic: fix incorrect HyStart round start detection", 2025,
    in 6.18); False: only once cwnd ≥ hystart_low_window (the code before it)."""
    delay_min = None
    rounds: list[dict] = []
    cur = None
    end_seq = 0.0  # cubictcp_init at the handshake: snd_nxt = ISN + 1, passed by the first data ACK
    last_ack = round_start = 0.0
    prev_una = 0.0
    found = None
    for a in acks:
        una = a["una"]
        if una <= prev_una:
            continue
        cwnd = a["cwnd"] if a["cwnd"] is not None else 10 + int(round(prev_una))
        prev_una = una
        newest = int(round(una)) - 1
        if newest >= len(sends):
            break
        rtt = max(a["t"] - sends[newest], 1.0)
        delay_min = rtt if delay_min is None else min(delay_min, rtt)
        if found is not None:
            break
        if not rounds_at_any_window and cwnd < LOW_WINDOW:
            continue
        if una > end_seq:  # bictcp_hystart_reset
            end_seq, round_start, last_ack = a["nxt"], a["t"], a["t"]
            cur = {"start_us": a["t"], "cwnd0": cwnd, "una0": una, "end_seq": a["nxt"], "acks": 0, "rtts": [],
                   "train_us": 0.0, "curr_rtt": None, "delay_min": delay_min}
            rounds.append(cur)
        if cwnd < LOW_WINDOW:
            continue
        cur["acks"] += 1
        cur["rtts"].append(rtt)
        if a["t"] - last_ack <= ACK_DELTA_US:  # ACK train
            last_ack = a["t"]
            cur["train_us"] = last_ack - round_start
            if a["t"] - round_start > delay_min / 2:
                found = {"rule": "train", "cwnd": cwnd, "t_us": a["t"], "una": una}
        cur["curr_rtt"] = rtt if cur["curr_rtt"] is None else min(cur["curr_rtt"], rtt)
        if found is None and len(cur["rtts"]) > MIN_SAMPLES:
            thresh = delay_min + min(max(delay_min / 8, DELAY_MIN_US), DELAY_MAX_US)
            if cur["curr_rtt"] > thresh:
                found = {"rule": "delay", "cwnd": cwnd, "t_us": a["t"], "una": una}
        cur["delay_min"] = delay_min
    return {"rounds": [r for r in rounds if r["acks"]], "found": found, "delay_min": delay_min}


def gaps(acks: list[dict], t0: float, t1: float) -> list[float]:
    ts = [a["t"] for a in acks if t0 <= a["t"] <= t1]
    return [b - a for a, b in zip(ts, ts[1:])]


def describe(name: str, s: dict, rep: dict, t_base: float) -> list[str]:
    lines = [f"## {name}", ""]
    f = rep["found"]
    lines.append(f"replayed exit: {f['rule']} at cwnd {f['cwnd']}, t = {(f['t_us'] - t_base) / 1e3:.1f} ms"
                 if f else "replayed exit: none")
    lines += ["", "| round | start ms | cwnd | ACKs | delay_min ms | first-8 min RTT ms | RTTs ms (first, median, "
              "last) | longest train ms | ACK gaps ms (median, share ≤ 2 ms) |", "|---|---|---|---|---|---|---|---|---|"]
    for i, r in enumerate(rep["rounds"]):
        rt = sorted(r["rtts"])
        g = gaps(s["acks"], r["start_us"], r["start_us"] + 1e9)[: r["acks"]]
        gs = sorted(g)
        med = gs[len(gs) // 2] / 1e3 if gs else float("nan")
        close = sum(x <= ACK_DELTA_US for x in g) / len(g) if g else float("nan")
        first8 = min(r["rtts"][:MIN_SAMPLES + 1])
        lines.append(f"| {i} | {(r['start_us'] - t_base) / 1e3:.1f} | {r['cwnd0']} | {r['acks']} | "
                     f"{r['delay_min'] / 1e3:.2f} | {first8 / 1e3:.2f} | {r['rtts'][0] / 1e3:.2f}, "
                     f"{rt[len(rt) // 2] / 1e3:.2f}, {r['rtts'][-1] / 1e3:.2f} | {r['train_us'] / 1e3:.1f} | "
                     f"{med:.2f}, {close:.2f} |")
    return lines


def analyse(a: argparse.Namespace) -> int:
    d = a.run_dir
    run = json.loads((d / "run.json").read_text())
    k = kernel_stream(d)
    t_base = k["sends"][0]
    kexit = next(((x["t"], x["ssthresh"]) for x in k["acks"] if x["ssthresh"] is not None), None)
    rep_k = replay(k["acks"], k["sends"])
    rep_k_old = replay(k["acks"], k["sends"], rounds_at_any_window=False)
    cw_ok = all(x["cwnd"] == 10 + int(round(p["una"])) for p, x in zip(k["acks"], k["acks"][1:])
                if x["ssthresh"] is None)
    lines = [f"# Slow start per ACK: {run['scenario']} {run['cc']}, kernel run {run['run']} and ccsim seed "
             f"{run['seed']}", "",
             f"Kernel: {len(k['acks'])} ACK events of the first flow, {len(k['sends'])} data frames; the first ACK "
             f"found {k['n_seen_first']} frames sent (the initial window); cwnd = 10 + segments acknowledged "
             f"through slow start: {cw_ok}. Kernel's own exit (first ssthresh in the trace): "
             + (f"ssthresh {kexit[1]} at {(kexit[0] - t_base) / 1e3:.1f} ms" if kexit else "none")]
    tcpext = d / "tcpext.json"
    if tcpext.exists():
        lines.append("Sender namespace TcpExt: " + json.dumps(json.loads(tcpext.read_text())))
    grows = re.findall(r"\s(\d+\.\d+): tcp_rcvbuf_grow: time=(\d+) rtt_us=(\d+) copied=(\d+) inq=(\d+) space=(\d+) "
                       r"ooo=\d+ scaling_ratio=(\d+) rcvbuf=(\d+) rcv_ssthresh=(\d+) window_clamp=(\d+)",
                       (d / "probe.txt").read_text())
    if grows:
        lines += ["", "Receiver autotuning (`tcp:tcp_rcvbuf_grow`, the state before each call; ms from the first "
                  "data segment's send; `copied` counts what was read, `inq` what waits unread):", "",
                  "| ms | rtt_us | copied | inq | space | ratio | rcvbuf | rcv_ssthresh | window_clamp |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for g in grows:
            lines.append(f"| {(float(g[0]) * 1e6 - t_base) / 1e3:.1f} | " + " | ".join(g[2:3] + g[3:]) + " |")
    lines.append("")
    lines += describe("Kernel, replayed with rounds at any window (6.18's rule)", k, rep_k, t_base)
    lines += [""] + describe("Kernel, replayed with rounds from cwnd 16 (the rule before 2025)", k, rep_k_old, t_base)
    c = ccsim_stream(run["scenario"], run["cc"], run["seed"], a.ccsim_seconds)
    rep_c = replay(c["acks"], c["sends"])
    rep_c_old = replay(c["acks"], c["sends"], rounds_at_any_window=False)
    lines += ["", f"ccsim's own exit (first finite ssthresh, 20 ms trace): "
              + (f"{c['exit'][1]:.0f} at {c['exit'][0] * 1e3:.0f} ms" if c["exit"] else "none"), ""]
    lines += describe("ccsim's ACKs, replayed with 6.18's rule", c, rep_c, c["sends"][0])
    lines += [""] + describe("ccsim's ACKs, replayed with the rule before 2025", c, rep_c_old, c["sends"][0])
    txt = "\n".join(lines) + "\n"
    (d / "slowstart.md").write_text(txt)
    print(txt)
    return 0


# ---------------------------------------------------------------- the ACK clock at steady state

def ack_sizes(acks: list[dict], t0: float, a: float, b: float) -> dict:
    """How many segments each ACK in [a, b) s acknowledged cumulatively (5 = 5 or more)."""
    c: Counter = Counter()
    for p, x in zip(acks, acks[1:]):
        if a <= (x["t"] - t0) / 1e6 < b:
            c[min(int(round(x["una"] - p["una"])), 5)] += 1
    return dict(sorted(c.items()))


def arrivals(sends: list[float], t0: float, a: float, b: float) -> dict:
    """Data arrivals at the bottleneck in [a, b) s (the access links are 10 Gb/s, so a send is
    an arrival): bursts (packets ≤ 100 µs apart), the gaps between arrivals, and the mean
    number waiting that a 1.2 ms service gives them (Lindley's recursion, time-averaged)."""
    s = np.array([x for x in sends if a <= (x - t0) / 1e6 < b]) / 1e3  # ms
    g = np.diff(s)
    sizes, n = [], 1
    for x in g:
        if x <= 0.1:
            n += 1
        else:
            sizes.append(n)
            n = 1
    sizes.append(n)
    edges = [0, 0.1, 0.6, 1.2, 2.4, 5, np.inf]
    h, _ = np.histogram(g, edges)
    w, total = 0.0, 0.0
    for i in range(1, len(s)):
        w = max(0.0, w + SERVICE_MS - (s[i] - s[i - 1]))
        total += w
    return {"packets_per_s": len(s) / (b - a), "bursts": dict(sorted(Counter(min(x, 6) for x in sizes).items())),
            "gaps_ms": {f"{lo}-{hi}": round(float(c / len(g)), 3) for lo, hi, c in zip(edges, edges[1:], h)},
            "waiting": round(total / ((b - a) * 1e3), 3)}  # Little: Σ waits / time


def ackclock(a: argparse.Namespace) -> int:
    d = a.run_dir
    run = json.loads((d / "run.json").read_text())
    k = kernel_stream(d)
    c = ccsim_stream(run["scenario"], run["cc"], run["seed"], a.until)
    lo, hi = a.since, a.until
    out = {"kernel": {"acks": ack_sizes(k["acks"], k["sends"][0], lo, hi),
                      **arrivals(k["sends"], k["sends"][0], lo, hi)},
           "ccsim": {"acks": ack_sizes(c["acks"], c["sends"][0], lo, hi),
                     **arrivals(c["sends"], c["sends"][0], lo, hi)}}
    print(f"{run['scenario']} {run['cc']} kernel run {run['run']} / ccsim seed {run['seed']}, {lo:g}–{hi:g} s "
          f"after the first data segment:")
    for side, v in out.items():
        print(f"  {side}: {json.dumps(v)}")
    return 0


def held_back(events: list[tuple], since_us: float, quiet: int = 60) -> dict[int, int]:
    """How many segments the sender kept below its window after each ACK, at steady state:
    `events` are tcp_probe's (t_us, snd_nxt, snd_una, cwnd, ssthresh) in order, each the
    state before that ACK is processed, so event i + 1 shows what ACK i left outstanding
    (snd_nxt − snd_una) against the cwnd it left. Counted after `since_us` and only where
    ssthresh has not changed for `quiet` ACKs (no recovery nearby, nothing SACKed)."""
    out: dict[int, int] = {}
    for i in range(quiet, len(events)):
        t, nxt, una, cwnd, ss = events[i]
        if t < since_us or any(events[j][4] != ss for j in range(i - quiet, i)):
            continue
        deficit = cwnd - ((nxt - una) & 0xFFFFFFFF) // KB.MSS
        out[deficit] = out.get(deficit, 0) + 1
    return dict(sorted(out.items()))


def ccsim_held(scenario: str, cc: str, seed: int, seconds: float, since: float, flow_set: dict) -> dict[int, int]:
    """The same for ccsim's first flow: after each ACK reaches the sender (a capture of its
    access link both ways), cwnd (its 1 ms samples) against what is outstanding once the
    ACK's sends have left; where ssthresh held for the 60 ms before."""
    import bisect

    import ccsim
    doc = KB.ccsim_doc(scenario, cc, seconds, seed, [0.0] * KB.SCENARIOS[scenario].flows, "linux",
                       flow_set=flow_set)
    doc["trace"]["interval"] = "1ms"
    doc["trace"]["pcap"] = ["s0->r1", "r1->s0"]
    res = ccsim.run(doc, progress=False)
    data = sorted((f[0], f[3] // KB.MSS) for f in pcap_tcp_frames(res.pcap("s0->r1")) if f[6] > 0)
    acks = sorted((f[0], f[4] // KB.MSS) for f in pcap_tcp_frames(res.pcap("r1->s0")))
    fs = res.flow_series[res.flow_series.flow == "f0"]
    ts, cw, ss = (fs.time_s * 1e6).to_numpy(), (fs.cwnd_bytes / KB.MSS).to_numpy(), fs.ssthresh_bytes.to_numpy()
    sent_t, top, m = [t for t, _ in data], [], -1
    for _, seq in data:
        m = max(m, seq)
        top.append(m)
    out: dict[int, int] = {}
    for t, ack in acks:
        j = bisect.bisect_right(sent_t, t + 5) - 1  # the sends the ACK released leave with it
        k = bisect.bisect_right(ts, t + 1000) - 1  # the first sample after it
        k0 = bisect.bisect_right(ts, t - 60_000)
        if t < since * 1e6 or j < 0 or k < 0 or len(set(ss[k0:k + 1])) != 1:
            continue
        deficit = int(round(cw[k])) - (top[j] + 1 - ack)
        out[deficit] = out.get(deficit, 0) + 1
    return dict(sorted(out.items()))


def held(a: argparse.Namespace) -> int:
    ev = probe_events(a.run_dir / "probe.txt", KB.SPORT0)
    if not ev:
        print(f"no tcp_probe events of port {KB.SPORT0} in {a.run_dir / 'probe.txt'}")
        return 1
    h = held_back(ev, ev[0][0] + a.since * 1e6)
    n = sum(h.values())
    show = lambda h: ", ".join(f"{k}: {v} ({v / sum(h.values()):.1%})" for k, v in h.items()  # noqa: E731
                               if k >= 0 and v / sum(h.values()) >= 0.002)
    print(f"cwnd − outstanding after an ACK at steady state, kernel ({n} ACKs after {a.since:g} s): {show(h)}")
    run = json.loads((a.run_dir / "run.json").read_text())
    for tso in (False, True):
        c = ccsim_held(run["scenario"], run["cc"], run["seed"], a.seconds, a.since, {"tso_defer": tso})
        print(f"  ccsim, tso_defer {str(tso).lower()} ({sum(c.values())} ACKs): {show(c)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--scenario", default="q33", choices=list(KB.SCENARIOS))
    r.add_argument("--cc", default="cubic", choices=["reno", "cubic"])
    r.add_argument("--run", type=int, default=0)
    r.add_argument("--seconds", type=float, default=6.0)
    r.add_argument("--sysctl", action="append", default=[], metavar="KEY=VALUE")
    r.add_argument("--out", type=Path, default=KB.ROOT / "out" / "ss-trace")
    s = sub.add_parser("analyse")
    s.add_argument("run_dir", type=Path)
    s.add_argument("--ccsim-seconds", type=float, default=3.0)
    k = sub.add_parser("ackclock", help="ACK sizes, data bursts and arrival gaps at steady state, both sides")
    k.add_argument("run_dir", type=Path)
    k.add_argument("--since", type=float, default=2.0)
    k.add_argument("--until", type=float, default=12.0)
    h = sub.add_parser("held", help="segments the kernel's sender kept below its window after each ACK (a TSO "
                       "deferral shows as 1), at steady state")
    h.add_argument("run_dir", type=Path)
    h.add_argument("--since", type=float, default=3.0)
    h.add_argument("--seconds", type=float, default=12.0, help="the ccsim runs' length (the record's --seconds)")
    a = p.parse_args(argv)
    if a.cmd == "record" and not (5 <= a.seconds <= 30):
        p.error("--seconds: allowed 5–30 (a short run)")
    return {"record": record, "analyse": analyse, "ackclock": ackclock, "held": held}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
