"""Which rule of the kernel's receiver sent each ACK (issue #26; docs/validation.md §6, item 2).

    # as root: one short kernel run with the receiver's ACK decisions traced
    .venv/bin/python benches/linux/ack_paths.py record --scenario loss1e-2 --cc reno --seconds 14 \
        --out out/ack-paths
    # no root: every ACK by the code path that sent it and the segments it acknowledged
    .venv/bin/python benches/linux/ack_paths.py analyse out/ack-paths/runs/loss1e-2-reno-0

`record` runs one kernel case of `kernel_bench.py` (the emulator's per-packet log kept) with,
in a tracefs instance of its own (CLOCK_MONOTONIC):

- `net:net_dev_start_xmit` on the receiver's veth (`r0`), each with a kernel stack trace (an
  event trigger): every frame the receiver sends, and the function that sent it;
- `tcp:tcp_probe` for the sender's port (every ACK the sender receives, with its snd_una
  before the ACK: what each ACK acknowledged) and for the receiver's (every data segment it
  receives, with the task it was processed in: a softirq, or the reading application
  draining the socket's backlog);
- `tcp:tcp_rcv_space_adjust` for the receiver's port: each `tcp_recvmsg` (an application
  read) and `tcp:tcp_rcvbuf_grow` (autotuning);
- the receiver and sender namespaces' TcpExt counters and the receiver's ACK sysctls.

Function tracing and kprobes are not available on the bench machine (kprobes are not built
in; `set_ftrace_filter` is refused), so the stack trace of the transmit is the witness: the
frames above `__tcp_transmit_skb` name the caller (`__tcp_send_ack` and `tcp_send_ack` are
tail calls and do not appear). Paths, with the 6.18 source that takes them (cited in
docs/validation.md §6):

| path | frames | kernel |
|---|---|---|
| `segment` | `tcp_v4_do_rcv` ← `tcp_v4_rcv` | an arriving segment, `tcp_rcv_established` → `__tcp_ack_snd_check` sends at once |
| `backlog` | `tcp_v4_do_rcv` ← `__release_sock` | the same, for a segment queued while the reader held the socket |
| `release_cb` | `tcp_release_cb` | an ACK deferred while the reader held the socket (`tcp_backlog_ack_defer`), sent when it lets go |
| `read` | `tcp_recvmsg_locked` / `__tcp_cleanup_rbuf` | the application's read: `tcp_cleanup_rbuf` |
| `delack` | `tcp_delack_timer_handler` | the delayed-ACK timer |
| `sack_comp` | `tcp_compressed_ack_kick` | the SACK-compression timer |

`analyse` pairs the receiver's ACK transmits in order with the sender's ACK arrivals (no ACK
is lost; the pairing is checked by the one-way delay), counts each ACK's newly acknowledged
segments and its SACK blocks (from the frame length), and tabulates path × size over a
steady-state window, with what the receiver did in between (segments arrived, reads).
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kernel_bench as KB  # noqa: E402
import slowstart_trace as S  # noqa: E402
from slowstart_trace import TRACEFS  # noqa: E402

RECEIVER_DEV, SENDER_DEV = "r0", "s0"  # netns.py: the endpoints' veth ends
ACK_FRAME = 14 + 52  # Ethernet + IPv4 + TCP with timestamps, no SACK
SYNACK_FRAME = 74  # with MSS, SACK-permitted, timestamps and window scale


# ---------------------------------------------------------------- recording (root)

class AckTrace:
    """Tracepoints in a tracefs instance of our own; the receiver's transmits with stacks."""

    def __init__(self) -> None:
        self.dir = TRACEFS / "instances" / f"ccsim_ack{os.getpid()}"
        rx = f"sport == {KB.PORT}"
        self.events = {
            ("net", "net_dev_start_xmit"): f'name == "{RECEIVER_DEV}" || name == "{SENDER_DEV}"',
            ("tcp", "tcp_probe"): f"sport == {KB.SPORT0} || {rx}",
            ("tcp", "tcp_rcv_space_adjust"): rx,
            ("tcp", "tcp_rcvbuf_grow"): rx,
        }

    def __enter__(self) -> "AckTrace":
        if not (TRACEFS / "instances").is_dir():
            subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], check=True)
        self.dir.mkdir()
        (self.dir / "trace_clock").write_text("mono")
        (self.dir / "buffer_size_kb").write_text("65536")
        for (sub, ev), flt in self.events.items():
            d = self.dir / "events" / sub / ev
            (d / "filter").write_text(flt)
            if ev == "net_dev_start_xmit":
                (d / "trigger").write_text(f"stacktrace if {flt}")
            (d / "enable").write_text("1")
        return self

    def stop(self) -> None:
        for sub, ev in self.events:
            (self.dir / "events" / sub / ev / "enable").write_text("0")

    def read(self) -> str:
        self.stop()
        return (self.dir / "trace").read_text()

    def __exit__(self, *exc) -> None:
        try:
            self.stop()
            trig = self.dir / "events" / "net" / "net_dev_start_xmit" / "trigger"
            trig.write_text(f"!stacktrace if {self.events[('net', 'net_dev_start_xmit')]}")
        finally:
            self.dir.rmdir()


def netstat(tb, role: str) -> dict:
    txt = subprocess.run(tb.exec_args(role, "cat", "/proc/net/netstat"), capture_output=True, text=True,
                         timeout=10).stdout
    lines = txt.splitlines()
    for h, v in zip(lines[::2], lines[1::2]):
        if h.startswith("TcpExt:"):
            return dict(zip(h.split()[1:], map(int, v.split()[1:])))
    return {}


def counters(tb, d: Path) -> None:
    keep = ("DelayedACK", "Quick", "AckCompressed", "Backlog", "OFO", "DSACK", "HPHits", "PureAcks", "Prune",
            "Retrans", "Loss", "Recovery", "RcvCoalesce")
    out = {role: {k: v for k, v in netstat(tb, role).items() if any(x in k for x in keep)}
           for role in ("receiver", "sender")}
    sysctls = ("tcp_backlog_ack_defer", "tcp_comp_sack_nr", "tcp_comp_sack_delay_ns", "tcp_comp_sack_slack_ns",
               "tcp_rmem", "tcp_moderate_rcvbuf")
    out["receiver_sysctls"] = {
        s: subprocess.run(tb.exec_args("receiver", "cat", f"/proc/sys/net/ipv4/{s}"), capture_output=True,
                          text=True, timeout=10).stdout.strip() for s in sysctls}
    (d / "tcpext.json").write_text(json.dumps(out, indent=1))


class Capture:
    """The receiver's veth captured (headers only) while the run lasts: the data segments'
    PSH flags, which the kernel's receiver acts on (`tcp_measure_rcv_mss`: ICSK_ACK_PUSHED)."""

    def __init__(self) -> None:
        self.proc = None

    def start(self, tb, d: Path) -> None:
        self.proc = tb.spawn("receiver", "dumpcap", "-q", "-i", RECEIVER_DEV, "-s", "96", "-P",
                             "-w", str(d / "receiver.pcap"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()  # our own child, by its handle: dumpcap closes the file
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass


def record(a: argparse.Namespace) -> int:
    cap = Capture()

    def on_up(tb, d: Path) -> None:
        for kv in a.receiver_sysctl:  # e.g. net.ipv4.tcp_comp_sack_nr=0 (no SACK compression)
            subprocess.run(tb.exec_args("receiver", "sysctl", "-qw", kv), check=True, timeout=10)
        if a.capture:
            cap.start(tb, d)

    def before_teardown(tb, d: Path) -> None:
        cap.stop()
        counters(tb, d)

    KB.traced_run(a, AckTrace(), "acktrace.txt", "a",
                  lambda trace: f"{trace.count('net_dev_start_xmit:')} receiver transmits",
                  before_teardown=before_teardown, on_up=on_up, recv_args=("--pingpong",) if a.pingpong else ())
    return 0


# ---------------------------------------------------------------- parsing

LINE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<flags>\S+)\s+(?P<ts>\d+\.\d+): "
                  r"(?P<ev><stack trace>|\w+)(?:: (?P<rest>.*))?$")
KV = re.compile(r"(\w+)=(\S+)")


def parse(text: str) -> list[dict]:
    """Events in order; a `<stack trace>` is attached to the event before it as `stack`."""
    evs: list[dict] = []
    for line in text.splitlines():
        if line.startswith(" => "):
            if evs and "stack" in evs[-1]:
                evs[-1]["stack"].append(line[4:].strip())
            continue
        m = LINE.match(line)
        if not m:
            continue
        if m["ev"] == "<stack trace>":
            if evs and evs[-1]["ev"] == "net_dev_start_xmit" and "stack" not in evs[-1]:
                evs[-1]["stack"] = []
            continue
        e = {"ev": m["ev"], "t": float(m["ts"]) * 1e6, "task": m["task"].strip(), "pid": int(m["pid"]),
             "flags": m["flags"]}
        e.update(dict(KV.findall(m["rest"] or "")))
        evs.append(e)
    return evs


GENERIC = {"trace_event_raw_event_net_dev_start_xmit", "__traceiter_net_dev_start_xmit", "dev_hard_start_xmit", "__dev_queue_xmit", "dev_queue_xmit",
           "ip_finish_output2", "__ip_finish_output", "ip_finish_output", "ip_output", "__ip_queue_xmit",
           "ip_queue_xmit", "__tcp_transmit_skb", "tcp_transmit_skb", "__tcp_send_ack", "tcp_send_ack",
           "ip_local_out", "__ip_local_out", "ip_build_and_send_pkt"}


def path_of(stack: list[str]) -> str:
    """The receiver rule that sent a frame, from the frames above the IP output."""
    fr = [re.sub(r"\+0x.*$", "", f) for f in stack]
    fr = [f for f in fr if f not in GENERIC]
    s = set(fr)
    top = fr[:4]
    if "tcp_v4_send_synack" in s or "tcp_conn_request" in s:
        return "synack"
    if "tcp_compressed_ack_kick" in s:
        return "sack_comp"
    if "tcp_delack_timer_handler" in s or "tcp_delack_timer" in s:
        return "delack" + ("_deferred" if "tcp_release_cb" in s else "")
    if top and top[0] == "tcp_release_cb":
        return "release_cb"
    if top and top[0] in ("tcp_recvmsg_locked", "tcp_recvmsg", "__tcp_cleanup_rbuf", "tcp_cleanup_rbuf"):
        return "read"
    if top and top[0] in ("tcp_v4_do_rcv", "tcp_rcv_established", "__tcp_ack_snd_check", "tcp_ack_snd_check"):
        return "backlog" if "__release_sock" in s else "segment"
    return "other:" + "<".join(top)


def sender_path_of(stack: list[str]) -> str:
    """What made the sender transmit a data segment: an ACK (in a softirq, or from the socket's
    backlog when the writing application let go of the socket), the application's write, a
    timer, or TCP small queues."""
    s = {re.sub(r"\+0x.*$", "", f) for f in stack}
    if "__release_sock" in s:
        return "ack_backlog"
    if "tcp_v4_rcv" in s:
        return "ack"
    if s & {"tcp_sendmsg_locked", "tcp_sendmsg"}:
        return "write"
    if s & {"tcp_tsq_handler", "tcp_tasklet_func", "tcp_release_cb"}:
        return "tsq"
    if s & {"tcp_write_timer_handler", "tcp_write_timer", "tcp_retransmit_timer", "tcp_send_loss_probe"}:
        return "timer"
    return "other"


def sender_table(evs: list[dict], t0: float, since: float, until: float) -> list[str]:
    """The sender's data transmits by cause, with the delay from the last ACK's arrival."""
    acks = [e["t"] for e in evs if e["ev"] == "tcp_probe" and e["src"].endswith(f":{KB.SPORT0}")]
    tx = [e for e in evs if e["ev"] == "net_dev_start_xmit" and e["dev"] == SENDER_DEV and int(e["len"]) > 200
          and since <= (e["t"] - t0) / 1e6 < until]
    by: dict[str, list[float]] = defaultdict(list)
    for e in tx:
        i = bisect.bisect_right(acks, e["t"])
        by[sender_path_of(e.get("stack", []))].append(e["t"] - acks[i - 1] if i else float("nan"))
    lines = ["", f"The sender's data transmits by cause ({since:g}–{until:g} s), with the time since the last ACK "
             "arrived at the sender (µs: median, 90th percentile):", "", "| cause | segments | median | p90 |",
             "|---|---|---|---|"]
    for k, v in sorted(by.items(), key=lambda kv: -len(kv[1])):
        v = sorted(v)
        lines.append(f"| {k} | {len(v)} | {v[len(v) // 2]:.0f} | {v[int(len(v) * 0.9)]:.0f} |")
    return lines


def sack_blocks(frame_len: int) -> int:
    """SACK blocks in an ACK frame: 2 + 8·n option bytes, padded to 4 by two NOPs."""
    return max(0, (frame_len - ACK_FRAME - 4) // 8) if frame_len > ACK_FRAME else 0


# ---------------------------------------------------------------- analysis

def acks_with_paths(evs: list[dict]) -> tuple[list[dict], dict]:
    """The receiver's data-phase ACKs in order, each with its path, SACK blocks and the
    segments it acknowledged (from the sender's snd_una before this ACK and the next)."""
    sport = str(KB.SPORT0)
    tx = [e for e in evs if e["ev"] == "net_dev_start_xmit" and e["dev"] == RECEIVER_DEV]
    for e in tx:
        e["path"] = path_of(e.get("stack", []))
        e["len"] = int(e["len"])
    xmits = [e for e in tx if e["path"] != "synack"]
    probes = [e for e in evs if e["ev"] == "tcp_probe" and e["src"].endswith(":" + sport)]
    n = min(len(xmits), len(probes))
    delays = sorted(p["t"] - x["t"] for x, p in zip(xmits[:n], probes[:n]))
    mss = KB.MSS
    acks = []
    for i in range(n - 1):
        x = xmits[i]
        una0, una1 = int(probes[i]["snd_una"], 16), int(probes[i + 1]["snd_una"], 16)
        acks.append({"t": x["t"], "path": x["path"], "sack": sack_blocks(x["len"]),
                     "segs": ((una1 - una0) & 0xFFFFFFFF) / mss, "task": x["task"], "flags": x["flags"]})
    check = {"receiver_transmits": len(tx), "synack": len(tx) - len(xmits), "sender_ack_arrivals": len(probes),
             "paired": n,
             "one_way_delay_us": {"min": delays[0], "median": delays[len(delays) // 2], "max": delays[-1]}
             if delays else None}
    return acks, check


def read_pcap(raw: bytes) -> list[tuple[int, int, int, int, int, int]]:
    """(sport, dport, seq, ack, tcp flags, payload) of each TCP/IPv4 frame of a classic pcap."""
    return [(sp, dp, seq, ack, fl, pl) for _t, sp, dp, seq, ack, fl, pl, _hl in S.pcap_tcp_frames(raw)]


PSH, SYN = 0x08, 0x02


def mark_pushed(d: Path, acks: list[dict], xmits: int) -> dict | None:
    """From the capture: each ACK's own acknowledgment number (the receiver's frames in the
    capture are its transmits in the trace, in order: used only when the counts agree, which
    they do not when dumpcap started late) and whether a data segment with PSH arrived since
    the ACK before it. None without a capture."""
    f = d / "receiver.pcap"
    if not f.exists():
        return None
    pk = read_pcap(f.read_bytes())
    out = [p for p in pk if p[0] == KB.PORT]
    data = [p for p in pk if p[1] == KB.PORT and p[5] > 0]
    if len(out) != xmits:
        return {"error": f"capture has {len(out)} receiver frames, the trace {xmits}"}
    pushed_ends = sorted((p[2] + p[5]) & 0xFFFFFFFF for p in data if p[4] & PSH)
    agree = 0
    for i, x in enumerate(acks):
        j = i + 1  # acks[i] is transmit i + 1 (after the SYN-ACK)
        x["ack"], lo = out[j][3], out[j - 1][3]
        a_, b_ = bisect.bisect_right(pushed_ends, lo), bisect.bisect_right(pushed_ends, x["ack"])
        x["psh"] = b_ > a_
        agree += abs(((x["ack"] - lo) & 0xFFFFFFFF) / KB.MSS - x["segs"]) < 0.01
    return {"data_segments": len(data), "with_psh": len(pushed_ends), "ack_numbers_agree": agree,
            "of": len(acks)}


def size_class(a: dict) -> str:
    s = a["segs"]
    if s < 0.5:
        return "dup+sack" if a["sack"] else "dup"
    k = int(round(s))
    return ("5+" if k >= 5 else str(k)) + ("+sack" if a["sack"] else "")


def context(evs: list[dict], acks: list[dict]) -> None:
    """Per ACK: data segments the receiver took in since the previous ACK (and how many of
    them in the reader's context, i.e. from the backlog), and reads in between."""
    rport = str(KB.PORT)
    data = [e for e in evs if e["ev"] == "tcp_probe" and e["src"].endswith(":" + rport) and int(e["data_len"]) > 0]
    reads = [e["t"] for e in evs if e["ev"] == "tcp_rcv_space_adjust"]
    di = ri = 0
    prev = -1.0
    for a in acks:
        seg = bk = rd = 0
        while di < len(data) and data[di]["t"] <= a["t"]:
            if data[di]["t"] > prev:
                seg += 1
                bk += "python" in data[di]["task"]
            di += 1
        while ri < len(reads) and reads[ri] <= a["t"]:
            rd += reads[ri] > prev
            ri += 1
        a["arrived"], a["from_backlog"], a["reads"] = seg, bk, rd
        prev = a["t"]


def read_latency(evs: list[dict]) -> str:
    """How soon the application reads after a data segment arrives (whole run), and how many
    arrivals each read found."""
    rport = f":{KB.PORT}"
    data = [e["t"] for e in evs if e["ev"] == "tcp_probe" and e["src"].endswith(rport) and int(e["data_len"]) > 0]
    reads = [e["t"] for e in evs if e["ev"] == "tcp_rcv_space_adjust"]
    lat = sorted(reads[i] - t for t in data if (i := bisect.bisect_right(reads, t)) < len(reads))
    found = Counter(min(bisect.bisect_right(data, b) - bisect.bisect_right(data, a_), 3)
                    for a_, b in zip(reads, reads[1:]))
    if not lat:
        return "No reads traced."
    q = [lat[int(f * (len(lat) - 1))] for f in (0.1, 0.25, 0.5, 0.75)]
    return (f"Reads: the next read after a data segment arrives (µs, 10/25/50/75 %; out-of-order segments wait for "
            f"the hole): {q[0]:.0f} / {q[1]:.0f} / {q[2]:.0f} / {q[3]:.0f}; segments found by a read (3 = 3 or more): "
            + json.dumps(dict(sorted(found.items()))))


def analyse(a: argparse.Namespace) -> int:
    d = a.run_dir
    evs = parse((d / "acktrace.txt").read_text())
    acks, check = acks_with_paths(evs)
    context(evs, acks)
    check["capture"] = mark_pushed(d, acks, check["receiver_transmits"])
    t0 = acks[0]["t"] if acks else 0.0
    win = [x for x in acks if a.since <= (x["t"] - t0) / 1e6 < a.until]
    table: dict[str, Counter] = defaultdict(Counter)
    for x in win:
        table[x["path"]][size_class(x)] += 1
    cols = ["dup", "dup+sack", "1", "1+sack", "2", "2+sack", "3", "3+sack", "4", "4+sack", "5+", "5++sack"]
    cols = [c for c in cols if any(table[p][c] for p in table)]
    lines = [f"# Receiver ACKs by path: {d.name}, {a.since:g}–{a.until:g} s after the first ACK", "",
             "Pairing: " + json.dumps(check), "",
             "| path | " + " | ".join(cols) + " | all |", "|---|" + "---|" * (len(cols) + 1)]
    for p in sorted(table, key=lambda p: -sum(table[p].values())):
        lines.append(f"| {p} | " + " | ".join(str(table[p][c]) for c in cols) + f" | {sum(table[p].values())} |")
    tot = Counter()
    for p in table:
        tot.update(table[p])
    lines.append("| all | " + " | ".join(str(tot[c]) for c in cols) + f" | {sum(tot.values())} |")
    # what happened between the previous ACK and this one, for the odd sizes
    lines += ["", "Between the previous ACK and this one (segments taken in / of them from the backlog / reads):",
              "", "| path | size | ACKs | segments in (mean) | from backlog (mean) | ACKs with a read before | "
              "a PSH segment acknowledged |", "|---|---|---|---|---|---|---|"]
    grp: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for x in win:
        grp[(x["path"], size_class(x))].append(x)
    for (p, c), xs in sorted(grp.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"| {p} | {c} | {len(xs)} | {sum(x['arrived'] for x in xs) / len(xs):.2f} | "
                     f"{sum(x['from_backlog'] for x in xs) / len(xs):.2f} | {sum(x['reads'] > 0 for x in xs)} | "
                     f"{sum(bool(x.get('psh')) for x in xs) if any('psh' in x for x in xs) else '–'} |")
    lines += ["", read_latency(evs)]
    if any(e["ev"] == "net_dev_start_xmit" and e["dev"] == SENDER_DEV for e in evs):
        lines += sender_table(evs, t0, a.since, a.until)
    tcpext = d / "tcpext.json"
    if tcpext.exists():
        lines += ["", "Counters (whole run): `" + json.dumps(json.loads(tcpext.read_text())) + "`"]
    unk = Counter(x["path"] for x in acks if x["path"].startswith("other"))
    if unk:
        lines += ["", "Unclassified stacks: " + json.dumps(unk.most_common(5))]
    txt = "\n".join(lines) + "\n"
    (d / "ack_paths.md").write_text(txt)
    print(txt)
    if a.dump:
        (d / "acks.json").write_text(json.dumps(acks))
    return 0


# ---------------------------------------------------------------- waiting by the ACK that released it

def waiting_by_ack(sends: list[float], acks: list[tuple[float, str]], t0: float, lo: float, hi: float) -> dict:
    """Each data packet's wait at a 1.2 ms server (Lindley, from its arrival time alone), summed
    by the size of the ACK that released it (the last ACK to reach the sender ≤ 300 µs before
    it; the sender transmits in the ACK's softirq, `sender_table`), as time-average packets."""
    s = sorted(x for x in sends if lo <= (x - t0) / 1e6 < hi)
    at = [a[0] for a in acks]
    tot: dict[str, float] = defaultdict(float)
    n: Counter = Counter()
    w, prev = 0.0, None
    for x in s:
        if prev is not None:
            w = max(0.0, w + S.SERVICE_MS - (x - prev) / 1e3)
        prev = x
        i = bisect.bisect_right(at, x)
        c = acks[i - 1][1] if i and x - at[i - 1] < 300 else "none"
        tot[c] += w
        n[c] += 1
    ms = (hi - lo) * 1e3
    return {"total": round(sum(tot.values()) / ms, 3),
            "by_ack_size": {c: {"packets": n[c], "waiting": round(tot[c] / ms, 3)} for c in sorted(tot)}}


SINCE_DUP_MS = (0, 45, 90, 180, 360, float("inf"))


def pair_backlog(sends: list[float], acks: list[dict], t0: float, lo: float, hi: float) -> dict:
    """For each ACK of two new segments: does the first packet it released wait at a 1.2 ms
    server (a backlog the flight carries), by the time since the last duplicate ACK."""
    s = sorted(sends)
    w = [0.0]
    for a_, b_ in zip(s, s[1:]):
        w.append(max(0.0, w[-1] + S.SERVICE_MS * 1e3 - (b_ - a_)))
    # acks: slowstart_trace's stream, each with snd_una after it
    size = [(y["t"], y["una"] - x["una"]) for x, y in zip(acks, acks[1:])]
    dups = [t for t, n in size if n < 0.5]
    got: dict[int, list[float]] = defaultdict(list)
    for (t, n), nxt in zip(size, [*(u for u, _ in size[1:]), float("inf")]):
        if not (lo <= (t - t0) / 1e6 < hi) or round(n) != 2:
            continue
        j = bisect.bisect_right(dups, t) - 1
        since_ms = (t - dups[j]) / 1e3 if j >= 0 else float("inf")
        b = bisect.bisect_right(SINCE_DUP_MS, since_ms) - 1
        i = bisect.bisect_left(s, t)
        if i < len(s) and s[i] < min(t + 400, nxt):
            got[b].append(w[i])
    out = {}
    for b, v in sorted(got.items()):
        name = f"{SINCE_DUP_MS[b]:g}-{SINCE_DUP_MS[b + 1]:g} ms"
        out[name] = {"pairs": len(v), "first_waits": round(sum(x > 1 for x in v) / len(v), 2),
                     "mean_us": round(sum(v) / len(v))}
    return out


CWND_BINS = (0, 8, 12, 16, 20, 26, 10_000)


def pair_backlog_by_cwnd(sends: list[float], acks: list[dict], cwnd_at, t0: float, lo: float,
                         hi: float) -> dict:
    """The same as `pair_backlog`, by the sender's window when the ACK arrived
    (`cwnd_at(t)`, segments): the backlog at equal windows."""
    s = sorted(sends)
    w = [0.0]
    for a_, b_ in zip(s, s[1:]):
        w.append(max(0.0, w[-1] + S.SERVICE_MS * 1e3 - (b_ - a_)))
    got: dict[int, list[float]] = defaultdict(list)
    for p, x, y in zip(acks, acks[1:], acks[2:]):
        if not (lo <= (x["t"] - t0) / 1e6 < hi) or round(x["una"] - p["una"]) != 2:
            continue
        i = bisect.bisect_left(s, x["t"])
        if i < len(s) and s[i] < min(x["t"] + 400, y["t"]):
            got[bisect.bisect_right(CWND_BINS, cwnd_at(x)) - 1].append(w[i])
    return {f"cwnd {CWND_BINS[b]}-{CWND_BINS[b + 1]}": {"pairs": len(v), "first_waits": round(sum(x > 1 for x in v) / len(v), 2),
                                                      "mean_us": round(sum(v) / len(v))}
            for b, v in sorted(got.items())}


def ccsim_cwnd(run: dict, seconds: float):
    """ccsim's first flow's window (segments) at a time, from a 1 ms trace of the same run."""
    import ccsim
    doc = KB.ccsim_doc(run["scenario"], run["cc"], seconds, run["seed"], [0.0] * KB.SCENARIOS[run["scenario"]].flows,
                       "linux")
    doc["trace"]["interval"] = "1ms"
    fs = ccsim.run(doc, progress=False).flow_series
    f0 = fs[fs.flow == "f0"]
    ts, cw = list(f0.time_s * 1e6), list(f0.cwnd_bytes / KB.MSS)
    return ts, cw


def ack_class(segs: float) -> str:
    return "dup" if segs < 0.5 else str(min(int(round(segs)), 5))


def waiting(a: argparse.Namespace) -> int:
    d = a.run_dir
    if not (d / "probe.txt").exists():
        (d / "probe.txt").symlink_to("acktrace.txt")  # slowstart_trace.kernel_stream reads probe.txt
    k = S.kernel_stream(d)
    run = json.loads((d / "run.json").read_text())
    c = S.ccsim_stream(run["scenario"], run["cc"], run["seed"], a.until)
    out = {}
    for side, st in (("kernel", k), ("ccsim", c)):
        # slowstart_trace's streams give each ACK with snd_una after it: its size is the step from
        # the ACK before
        acks = [(y["t"], ack_class(y["una"] - x["una"])) for x, y in zip(st["acks"], st["acks"][1:])]
        out[side] = waiting_by_ack(st["sends"], acks, st["sends"][0], a.since, a.until)
        out[side]["pair_backlog_by_time_since_dup_ack"] = pair_backlog(st["sends"], st["acks"], st["sends"][0],
                                                                       a.since, a.until)
        if side == "kernel":
            cwnd_at = lambda x: x["cwnd"]  # noqa: E731 (tcp_probe: the window before the ACK)
        else:
            ts, cw = ccsim_cwnd(run, a.until)  # the capture's times are the simulation's
            cwnd_at = lambda x: cw[max(bisect.bisect_right(ts, x["t"]) - 1, 0)]  # noqa: E731
        out[side]["pair_backlog_by_cwnd"] = pair_backlog_by_cwnd(st["sends"], st["acks"], cwnd_at, st["sends"][0],
                                                                a.since, a.until)
    print(f"{run['scenario']} {run['cc']} kernel run {run['run']} / ccsim seed {run['seed']}, "
          f"{a.since:g}–{a.until:g} s: waiting (time-average packets) by the ACK that released the packet")
    for side, v in out.items():
        print(f"  {side}: {json.dumps(v)}")
    return 0


# ---------------------------------------------------------------- the ACK loop's jitter

def emulator_data(d: Path) -> tuple[list[float], list[float]]:
    """The data direction's frames in the emulator's log: every arrival (µs, CLOCK_MONOTONIC),
    and the delivery time of each frame that was not lost, in order."""
    head = (d / "emu.log").read_text().splitlines()
    t0 = int(re.search(r"t0_mono_ns=(\d+)", head[1]).group(1))
    cols = head[2].split(",")
    arr, deliv = [], []
    for line in head[3:]:
        r = dict(zip(cols, line.split(",")))
        if r["dir"] == "0" and int(r["size"]) >= 100:
            arr.append((t0 + int(r["arrival_ns"])) / 1e3)
            if r["verdict"] == "sent":
                deliv.append((t0 + int(r["deliver_ns"])) / 1e3)
    return arr, deliv


def lindley_waiting(ts: list[float], t0: float, lo: float, hi: float) -> float:
    """Time-average number waiting at a 1.2 ms server from arrival times (µs)."""
    ts = sorted(x for x in ts if lo <= (x - t0) / 1e6 < hi)
    w = tot = 0.0
    for a_, b_ in zip(ts, ts[1:]):
        w = max(0.0, w + S.SERVICE_MS * 1e3 - (b_ - a_))
        tot += w
    return tot / ((hi - lo) * 1e6)


def loop(a: argparse.Namespace) -> int:
    """The receiver's delay from a segment's delivery to the ACK that acknowledges it, the
    whole loop to the packets that ACK released, and the waiting the arrivals would give if
    that loop delay were constant (this round's jitter removed; needs a complete capture)."""
    d = a.run_dir
    evs = parse((d / "acktrace.txt").read_text())
    arr, deliv = emulator_data(d)
    pct = lambda v, q: v[int(q * (len(v) - 1))]  # noqa: E731
    tx = [e["t"] for e in evs if e["ev"] == "net_dev_start_xmit" and e["dev"] == SENDER_DEV and int(e["len"]) > 200]
    if len(tx) == len(arr):  # every data frame the sender sent reaches the emulator, in order
        lat = sorted(r - t for r, t in zip(arr, tx))
        print(f"{d.name}: the emulator reads a data frame after the sender's transmit (µs): 50/99 % "
              f"{pct(lat, .5):.0f} / {pct(lat, .99):.0f}, largest {lat[-1]:.0f}; waiting from the emulator's "
              f"arrivals {lindley_waiting(arr, arr[0], a.since, a.until):.3f}, from the transmits "
              f"{lindley_waiting(tx, tx[0], a.since, a.until):.3f}")
    acks, check = acks_with_paths(evs)
    cap = mark_pushed(d, acks, check["receiver_transmits"])
    if not cap or "error" in cap:
        print(f"needs a complete capture of the receiver's veth: {cap}")
        return 2
    pk = read_pcap((d / "receiver.pcap").read_bytes())
    data = [p for p in pk if p[1] == KB.PORT and p[5] > 0]
    end_at = {(p[2] + p[5]) & 0xFFFFFFFF: t for p, t in zip(data, deliv)}  # FIFO: k-th captured = k-th delivered
    probes = [e["t"] for e in evs if e["ev"] == "tcp_probe" and e["src"].endswith(f":{KB.SPORT0}")]
    seg_at = [end_at.get(x["ack"]) if x["segs"] > 0.5 else None for x in acks]
    t0 = acks[0]["t"]
    rx = sorted(x["t"] - t for x, t in zip(acks, seg_at)
                if t is not None and not x["sack"] and a.since <= (x["t"] - t0) / 1e6 < a.until)
    released, loop_us = [], []
    for t in arr:
        j = bisect.bisect_right(probes, t) - 1
        ok = 0 <= j < len(seg_at) and t - probes[j] < 300 and seg_at[j] is not None
        released.append(seg_at[j] if ok else None)
        if ok:
            loop_us.append(t - seg_at[j])
    dl = sorted(loop_us)
    med = dl[len(dl) // 2]
    steady = [r + med if r is not None else t for t, r in zip(arr, released)]
    print(f"{d.name}, {a.since:g}–{a.until:g} s:")
    print(f"  receiver: segment delivered -> its ACK sent (new data, no SACK; µs): 10/50/90/99 % "
          f"{pct(rx, .1):.0f} / {pct(rx, .5):.0f} / {pct(rx, .9):.0f} / {pct(rx, .99):.0f}")
    print(f"  loop: segment delivered -> the packets its ACK released reach the bottleneck (µs): 10/50/90 % "
          f"{pct(dl, .1):.0f} / {med:.0f} / {pct(dl, .9):.0f}; {len(dl)} of {len(arr)} packets")
    print(f"  waiting (1.2 ms server): as sent {lindley_waiting(arr, arr[0], a.since, a.until):.3f}, "
          f"with a constant loop delay {lindley_waiting(steady, arr[0], a.since, a.until):.3f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--scenario", default="loss1e-2", choices=list(KB.SCENARIOS))
    r.add_argument("--cc", default="reno", choices=["reno", "cubic"])
    r.add_argument("--run", type=int, default=0)
    r.add_argument("--seconds", type=float, default=14.0)
    r.add_argument("--out", type=Path, default=KB.ROOT / "out" / "ack-paths")
    r.add_argument("--pingpong", action="store_true",
                   help="the receiving socket in pingpong mode (TCP_QUICKACK 0 after every read): a diagnostic "
                        "that turns off the ACK of a pushed segment at the read")
    r.add_argument("--receiver-sysctl", action="append", default=[], metavar="KEY=VALUE",
                   help="set in the receiver's namespace before the run, e.g. net.ipv4.tcp_comp_sack_nr=0")
    r.add_argument("--no-capture", dest="capture", action="store_false",
                   help="no dumpcap of the receiver's veth (the PSH flags are then unknown)")
    s = sub.add_parser("analyse")
    s.add_argument("run_dir", type=Path)
    s.add_argument("--since", type=float, default=2.0)
    s.add_argument("--until", type=float, default=12.0)
    s.add_argument("--dump", action="store_true", help="also write acks.json (every ACK with its path)")
    w = sub.add_parser("waiting", help="waiting at the bottleneck by the size of the ACK that released each "
                       "packet, kernel and ccsim (same seed)")
    w.add_argument("run_dir", type=Path)
    w.add_argument("--since", type=float, default=2.0)
    w.add_argument("--until", type=float, default=12.0)
    lp = sub.add_parser("loop", help="the ACK loop's delays, and the waiting with them made constant")
    lp.add_argument("run_dir", type=Path)
    lp.add_argument("--since", type=float, default=2.0)
    lp.add_argument("--until", type=float, default=12.0)
    a = p.parse_args(argv)
    if a.cmd == "record" and not (5 <= a.seconds <= 30):
        p.error("--seconds: allowed 5–30 (a short run)")
    return {"record": record, "analyse": analyse, "waiting": waiting, "loop": loop}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
