"""The kernel TCP endpoints of the bench: a bulk receiver and a bulk sender that samples
TCP_INFO. Run inside the bench's network namespaces by `kernel_bench.py`; standard library
only, so they run under any Python 3.9+.

    python3 endpoints.py recv --port P --flows N --seconds T --out FILE
    python3 endpoints.py send --dst IP --port P --flow CC:SPORT ... --seconds T
                              [--interval 0.02] --out FILE

The sender opens one connection per `--flow` (congestion control set per socket with
TCP_CONGESTION before connecting, source port fixed so the emulator can tell flows apart),
writes as fast as the socket takes data for T seconds, and reads TCP_INFO of every socket
every `interval` seconds. Output is JSON: per flow, the time its connect() returned and the
samples (CLOCK_MONOTONIC ns, then the fields below), and the sender namespace's TCP counters
(`NETSTAT_KEPT`) once a second. Both sides stop by themselves at their
deadline, whatever the network does.
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import sys
import threading
import time

# struct tcp_info (include/uapi/linux/tcp.h, Linux ≥ 6.7), native alignment: (name, format).
TCP_INFO_LAYOUT = (
    [(n, "B") for n in ("state", "ca_state", "retransmits", "probes", "backoff", "options", "wscale", "app_limited")]
    + [(n, "I") for n in ("rto", "ato", "snd_mss", "rcv_mss", "unacked", "sacked", "lost", "retrans", "fackets",
                          "last_data_sent", "last_ack_sent", "last_data_recv", "last_ack_recv", "pmtu",
                          "rcv_ssthresh", "rtt", "rttvar", "snd_ssthresh", "snd_cwnd", "advmss", "reordering",
                          "rcv_rtt", "rcv_space", "total_retrans")]
    + [(n, "Q") for n in ("pacing_rate", "max_pacing_rate", "bytes_acked", "bytes_received")]
    + [(n, "I") for n in ("segs_out", "segs_in", "notsent_bytes", "min_rtt", "data_segs_in", "data_segs_out")]
    + [(n, "Q") for n in ("delivery_rate", "busy_time", "rwnd_limited", "sndbuf_limited")]
    + [(n, "I") for n in ("delivered", "delivered_ce")]
    + [(n, "Q") for n in ("bytes_sent", "bytes_retrans")]
    + [(n, "I") for n in ("dsack_dups", "reord_seen", "rcv_ooopack", "snd_wnd", "rcv_wnd", "rehash")]
    + [(n, "H") for n in ("total_rto", "total_rto_recoveries")]
    + [("total_rto_time", "I")]
)
TCP_INFO_FMT = "@" + "".join(f for _, f in TCP_INFO_LAYOUT)
TCP_INFO_NAMES = [n for n, _ in TCP_INFO_LAYOUT]
# What the bench keeps of each sample (the rest is parsed to find these offsets).
KEPT = ("ca_state", "rto", "unacked", "sacked", "lost", "retrans", "rtt", "rttvar", "snd_ssthresh", "snd_cwnd",
        "total_retrans", "bytes_acked", "bytes_sent", "delivered", "min_rtt", "rwnd_limited", "sndbuf_limited",
        "busy_time", "total_rto", "total_rto_recoveries", "pacing_rate", "dsack_dups", "delivery_rate")
# BBR's model from TCP_CC_INFO (struct tcp_bbr_info, include/uapi/linux/inet_diag.h; tcp_bbr.c
# bbr_get_info): BtlBw in payload bytes/s and the gains in units of 1/256; 0 for a
# controller without get_info (reno, cubic).
CC_KEPT = ("bbr_bw", "bbr_min_rtt", "bbr_pacing_gain", "bbr_cwnd_gain")
# The sender namespace's TCP counters kept (/proc/net/netstat, TcpExt; net/ipv4/proc.c):
# recovery entries (SACK and Reno), tail loss probes, and undos, for every flow of the run.
NETSTAT_KEPT = ("TCPSackRecovery", "TCPRenoRecovery", "TCPLossProbes", "TCPLossProbeRecovery", "TCPTimeouts",
                "TCPLossUndo", "TCPFullUndo", "TCPPartialUndo", "TCPDSACKUndo", "TCPSpuriousRTOs")
TCP_INFO = getattr(socket, "TCP_INFO", 11)
TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
TCP_CC_INFO = 26  # include/uapi/linux/tcp.h


def tcp_info(sock: socket.socket) -> dict:
    size = struct.calcsize(TCP_INFO_FMT)
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, size)
    if len(raw) < size:
        raise SystemExit(f"TCP_INFO returned {len(raw)} bytes, want {size}: kernel older than 6.7")
    vals = dict(zip(TCP_INFO_NAMES, struct.unpack(TCP_INFO_FMT, raw)))
    return {k: vals[k] for k in KEPT}


def bbr_info(sock: socket.socket) -> list[int]:
    """`CC_KEPT` of a BBR socket (zeros for another controller)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, 20)
    if len(raw) < 20:
        return [0] * len(CC_KEPT)
    bw_lo, bw_hi, min_rtt, pacing_gain, cwnd_gain = struct.unpack("@5I", raw)
    return [bw_hi << 32 | bw_lo, min_rtt, pacing_gain, cwnd_gain]


def netstat() -> list[int]:
    """The `NETSTAT_KEPT` counters of this network namespace (0 for one the kernel lacks)."""
    try:
        with open("/proc/net/netstat") as f:
            lines = [ln.split() for ln in f if ln.startswith("TcpExt:")]
    except OSError:
        return [0] * len(NETSTAT_KEPT)
    if len(lines) < 2:
        return [0] * len(NETSTAT_KEPT)
    values = dict(zip(lines[0][1:], lines[1][1:]))
    return [int(values.get(k, 0)) for k in NETSTAT_KEPT]


def recv_main(a: argparse.Namespace) -> None:
    deadline = time.monotonic() + a.seconds
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", a.port))
    ls.listen(16)
    ls.settimeout(0.2)
    totals: dict[str, int] = {}
    threads = []

    def drain(c: socket.socket, key: str) -> None:
        c.settimeout(0.2)
        buf = bytearray(1 << 20)
        n = 0
        while time.monotonic() < deadline:
            try:
                k = c.recv_into(buf)
            except socket.timeout:
                continue
            except OSError:
                break
            if k == 0:
                break
            n += k
            if a.pingpong:  # tcp_delack_timer_handler leaves pingpong mode; enter it again at every read
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 0)
        totals[key] = n
        c.close()

    while len(threads) < a.flows and time.monotonic() < deadline:
        try:
            c, peer = ls.accept()
        except socket.timeout:
            continue
        t = threading.Thread(target=drain, args=(c, str(peer[1])), daemon=True)
        t.start()
        threads.append(t)
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()) + 1.0)
    with open(a.out, "w") as f:
        json.dump({"bytes_by_sport": totals}, f)


def send_main(a: argparse.Namespace) -> None:
    flows = []
    for spec in a.flow:
        cc, sport = spec.split(":")
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
        got = s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).split(b"\0")[0].decode()
        if got != cc:
            raise SystemExit(f"TCP_CONGESTION {cc} not set (got {got})")
        s.bind(("0.0.0.0", int(sport)))
        flows.append({"cc": cc, "sport": int(sport), "sock": s, "samples": []})

    def connect(fl: dict) -> None:
        fl["sock"].settimeout(5.0)
        fl["sock"].connect((a.dst, a.port))
        fl["start_ns"] = time.monotonic_ns()

    # all connections are opened together (their handshakes take one RTT of their path)
    ts = [threading.Thread(target=connect, args=(fl,)) for fl in flows]
    for t in ts:
        t.start()
    for t in ts:
        t.join(6.0)
    if any("start_ns" not in fl for fl in flows):
        raise SystemExit("a connection did not open within 5 s")
    end = min(fl["start_ns"] for fl in flows) + int(a.seconds * 1e9)
    stop = threading.Event()

    def pump(fl: dict) -> None:
        s = fl["sock"]
        s.settimeout(0.1)
        data = b"\0" * (1 << 16)
        while not stop.is_set():
            try:
                s.send(data)
            except socket.timeout:
                continue
            except OSError as e:
                fl["error"] = str(e)
                return

    pumps = [threading.Thread(target=pump, args=(fl,), daemon=True) for fl in flows]
    for t in pumps:
        t.start()
    step = int(a.interval * 1e9)
    nxt = time.monotonic_ns()
    counters = [[nxt] + netstat()]  # the namespace's counters once a second
    while nxt < end:
        for fl in flows:
            info = tcp_info(fl["sock"])
            fl["samples"].append([time.monotonic_ns()] + [info[k] for k in KEPT] + bbr_info(fl["sock"]))
        if nxt - counters[-1][0] >= 1_000_000_000:
            counters.append([time.monotonic_ns()] + netstat())
        nxt += step
        time.sleep(max(0.0, (nxt - time.monotonic_ns()) / 1e9))
    counters.append([time.monotonic_ns()] + netstat())
    stop.set()
    for t in pumps:
        t.join(1.0)
    out = {"fields": ["t_ns", *KEPT, *CC_KEPT], "flows": [], "netstat": {"fields": ["t_ns", *NETSTAT_KEPT], "samples": counters}}
    for fl in flows:
        fl["sock"].close()
        out["flows"].append({k: fl.get(k) for k in ("cc", "sport", "start_ns", "samples", "error")})
    with open(a.out, "w") as f:
        json.dump(out, f)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--flows", type=int, required=True)
    r.add_argument("--seconds", type=float, required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--pingpong", action="store_true",
                   help="diagnostic (ack_paths.py): TCP_QUICKACK 0 after every read, i.e. the socket in pingpong "
                        "mode, which turns off tcp_cleanup_rbuf's ACK of a pushed segment")
    s = sub.add_parser("send")
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--flow", action="append", required=True, help="CC:SPORT")
    s.add_argument("--seconds", type=float, required=True)
    s.add_argument("--interval", type=float, default=0.02)
    s.add_argument("--out", required=True)
    a = p.parse_args(argv)
    (recv_main if a.cmd == "recv" else send_main)(a)


if __name__ == "__main__":
    sys.exit(main())
