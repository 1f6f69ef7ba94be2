"""Three network namespaces joined by veth pairs, for the kernel bench.

    [sender ns]  s0 ── es  [emulator ns]  er ── r0  [receiver ns]
    10.213.0.1/24                                   10.213.0.2/24

The emulator namespace has no addresses: its two ports are bridged in user space by
`ccsim-kernel-emu`. Every address is private and lives only inside namespaces created here.
Each veth is created directly inside its namespaces (`ip -n NS link add ... peer ... netns`),
so nothing is ever added to the host's namespace and parallel testbeds cannot collide.

Segmentation offloads are turned off on all four veth ends with ethtool (TSO, GSO, GRO,
LRO, scatter-gather and checksum offload: with checksum offload on, frames read by the
emulator would carry partial checksums) and the result is read back with `ethtool -k`; the
emulator independently counts any frame longer than 1514 B. IPv6 is disabled (no router
solicitations), neighbours are static (no ARP), and the sender does not cache TCP metrics
between connections (`tcp_no_metrics_save`).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading

SENDER_IP = "10.213.0.1"
RECEIVER_IP = "10.213.0.2"
OFFLOAD_FEATURES = ("tso", "gso", "gro", "lro", "sg", "tx", "rx")
# ethtool -k names of what must read "off" afterwards
MUST_BE_OFF = ("tcp-segmentation-offload", "generic-segmentation-offload", "generic-receive-offload",
               "large-receive-offload", "tx-checksumming", "scatter-gather")

_live: set["Testbed"] = set()
_lock = threading.Lock()


def sh(*args: str, check: bool = True, timeout: float = 20.0) -> str:
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def teardown_all() -> None:
    """Delete every namespace created by this process (on any exit path)."""
    with _lock:
        beds = list(_live)
    for b in beds:
        b.down()


class Testbed:
    def __init__(self, tag: str, sender_sysctls: tuple[str, ...] = ()):
        self.ns = {k: f"ccsk{tag}{k[0]}" for k in ("sender", "emulator", "receiver")}
        self.sender_sysctls = sender_sysctls  # "key=value", set in the sender's namespace
        self.procs: list[subprocess.Popen] = []
        self.offloads: dict[str, dict[str, str]] = {}
        self.qdisc: dict[str, str] = {}

    def exec_args(self, role: str, *cmd: str) -> list[str]:
        return ["ip", "netns", "exec", self.ns[role], *cmd]

    def up(self) -> "Testbed":
        with _lock:
            _live.add(self)
        s, e, r = self.ns["sender"], self.ns["emulator"], self.ns["receiver"]
        for n in (s, e, r):
            sh("ip", "netns", "add", n)
            sh("ip", "netns", "exec", n, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
               "net.ipv6.conf.default.disable_ipv6=1")
            sh("ip", "-n", n, "link", "set", "lo", "up")
        for n in (s, r):
            sh("ip", "netns", "exec", n, "sysctl", "-qw", "net.ipv4.tcp_no_metrics_save=1")
        for kv in self.sender_sysctls:  # per-namespace TCP settings, e.g. net.ipv4.tcp_recovery=0
            sh("ip", "netns", "exec", s, "sysctl", "-qw", kv)
        sh("ip", "-n", s, "link", "add", "s0", "type", "veth", "peer", "name", "es", "netns", e)
        sh("ip", "-n", r, "link", "add", "r0", "type", "veth", "peer", "name", "er", "netns", e)
        ends = [(s, "s0"), (e, "es"), (e, "er"), (r, "r0")]
        for n, dev in ends:
            args = []
            for f in OFFLOAD_FEATURES:
                args += [f, "off"]
            # ethtool exits non-zero when one feature is fixed; what matters is the read-back
            sh("ip", "netns", "exec", n, "ethtool", "-K", dev, *args, check=False)
            sh("ip", "netns", "exec", n, "sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1", check=False)
        sh("ip", "-n", e, "link", "set", "es", "promisc", "on")
        sh("ip", "-n", e, "link", "set", "er", "promisc", "on")
        sh("ip", "-n", s, "addr", "add", f"{SENDER_IP}/24", "dev", "s0")
        sh("ip", "-n", r, "addr", "add", f"{RECEIVER_IP}/24", "dev", "r0")
        for n, dev in ends:
            sh("ip", "-n", n, "link", "set", dev, "up")
        mac = {dev: json.loads(sh("ip", "-n", n, "-j", "link", "show", dev))[0]["address"] for n, dev in ends}
        sh("ip", "-n", s, "neigh", "replace", RECEIVER_IP, "lladdr", mac["r0"], "dev", "s0", "nud", "permanent")
        sh("ip", "-n", r, "neigh", "replace", SENDER_IP, "lladdr", mac["s0"], "dev", "r0", "nud", "permanent")
        self.check_offloads(ends)
        for n, dev in ((s, "s0"), (r, "r0")):
            self.qdisc[dev] = json.loads(sh("ip", "-n", n, "-j", "link", "show", dev))[0].get("qdisc", "?")
        return self

    def check_offloads(self, ends: list[tuple[str, str]]) -> None:
        for n, dev in ends:
            out = sh("ip", "netns", "exec", n, "ethtool", "-k", dev)
            feats = {}
            for line in out.splitlines():
                k, _, v = line.strip().partition(":")
                if k in MUST_BE_OFF:
                    feats[k] = v.strip().split()[0] if v.strip() else "?"
            self.offloads[dev] = feats
            on = [k for k, v in feats.items() if v != "off"]
            if on or len(feats) != len(MUST_BE_OFF):
                raise RuntimeError(f"{dev}: offloads not off: {feats}")

    def spawn(self, role: str, *cmd: str, **kw) -> subprocess.Popen:
        p = subprocess.Popen(self.exec_args(role, *cmd), **kw)
        self.procs.append(p)
        return p

    def down(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()  # only processes this testbed started, by their own handle
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    pass
        self.procs.clear()
        for n in self.ns.values():
            sh("ip", "netns", "del", n, check=False)
        with _lock:
            _live.discard(self)

    def __enter__(self) -> "Testbed":
        return self.up()

    def __exit__(self, *exc) -> None:
        self.down()


def can_run() -> str | None:
    """None if this machine can run the bench, else why not."""
    if os.geteuid() != 0:
        return "needs root (network namespaces and AF_PACKET sockets)"
    for tool in ("ip", "ethtool"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            return f"needs `{tool}` (apt-get install {'iproute2' if tool == 'ip' else tool})"
    probe = f"ccskprobe{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        return f"cannot create a network namespace: {r.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None
