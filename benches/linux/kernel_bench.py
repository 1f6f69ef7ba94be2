"""ccsim against the real Linux kernel: run each scenario with the kernel's TCP over a
user-space bottleneck emulator in network namespaces, run the same scenario in ccsim, and
print the ratios ccsim / kernel.

    sudo .venv/bin/python benches/linux/kernel_bench.py [--quick] [--runs 3] [--seconds 60]
        [--scenarios q8,q33,...] [--cc reno,cubic,bbr] [--jobs 1] [--out DIR]
    .venv/bin/python benches/linux/kernel_bench.py --from-kernel DIR/results.json
        (ccsim side and tables only, from a saved kernel run; no root needed)

Needs root, `ip` and `ethtool`; without them it says why and exits 0 (skipped). Writes
DIR/results.json and DIR/table.md (DIR defaults to out/kernel-bench/<time>). See
benches/linux/README.md for the method and docs/validation.md for the measured table.
"""

from __future__ import annotations

import argparse
import atexit
import concurrent.futures as cf
import csv
import datetime as dt
import json
import math
import os
import platform
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import metrics as M  # noqa: E402
import netns  # noqa: E402
from scenarios import BUILTIN, BenchScenario, ScenarioFileError, load_file  # noqa: E402

MSS, HEADER = 1448, 52  # 1500-B MTU, IPv4 + TCP + timestamps (docs/sources/linux.md §1.2)
PORT = 5201
SPORT0 = 5001
SSTHRESH_INF = 0x7FFFFFFF  # TCP_INFINITE_SSTHRESH

# The scenarios by name: the built-in seven (10 Mb/s, 40 ms base RTT) and those of
# --scenario-file or of saved runs (scenarios.py), registered as they are read.
SCENARIOS: dict[str, BenchScenario] = dict(BUILTIN)
RATE_BPS = BUILTIN["q33"].rate_bps  # the built-in scenarios' bottleneck
CCS = ("reno", "cubic", "bbr")
CCSIM_CC = {"reno": "reno", "cubic": "cubic", "bbr": "bbr"}
# Controllers that do not cut their window on a loss (BBR): ccsim's reductions per minute
# are its entries into fast recovery and timeouts in the window (`ccsim_run`), as the
# kernel's are its entries into Recovery or Loss; PROBE_RTT's cut of the window is not one,
# and there is no sawtooth period.
LOSS_EPISODE_CC = ("bbr",)
HANDSHAKE_PROFILES = ("linux", "ns2")  # stack profiles with handshake = true (docs/tcp.md §11)
METRICS = ("goodput_mbps", "srtt_ms", "queue_pkts", "retx", "retx_2s", "timeouts", "ss_peak", "first_ssthresh",
           "period_s", "reductions_per_min", "recoveries_per_min", "share0")
# Emulator timing limits beyond which a run is flagged and left out of the statistics. A
# stall of the emulator delays the frames in flight once, in order (no reordering); it can
# change a TCP decision only through a spurious timeout, and the RTO is at least srtt +
# 200 ms, so a stall under half the minimum RTO only adds to one round's RTT samples. The
# 99th percentile bounds the everyday timing error.
LAG_P99_MAX_NS = 1_000_000
LAG_MAX_NS = 100_000_000


def register(sc: BenchScenario, source: str) -> None:
    """Make `sc` runnable by name; the same name with another definition is an error."""
    have = SCENARIOS.get(sc.name)
    if have is not None and have != sc:
        raise ScenarioFileError(f"{source}: scenario {sc.name!r} is defined differently elsewhere: "
                                f"{sc.to_json()} against {have.to_json()}")
    SCENARIOS[sc.name] = sc


def register_saved(path: Path) -> list[str]:
    """The scenarios of a saved results.json's kernel runs (recorded since --scenario-file;
    runs saved before have built-in scenarios only), registered; their names in order."""
    try:
        runs = json.loads(path.read_text())["kernel"]
    except (OSError, ValueError, KeyError) as e:
        raise ScenarioFileError(f"{path}: not a kernel bench results.json ({e})") from None
    names = []
    for r in runs:
        if "scenario_def" in r:
            register(BenchScenario.from_json(r["scenario_def"]), str(path))
        if r["scenario"] not in names:
            names.append(r["scenario"])
    return names


def describe(sc: BenchScenario) -> str:
    rtts = "/".join(f"{2 * (sc.one_way_ms + x):g}" for x in sc.extra_ms)
    loss = f", loss {sc.loss:g}" if sc.loss else ""
    return (f"{sc.name}: {sc.flows} flow(s), {sc.rate_bps / 1e6:g} Mb/s, base RTT {rtts} ms, DropTail {sc.limit} p"
            f"{loss}" + (f" ({sc.description})" if sc.description else ""))


def _interrupt(*_) -> None:
    raise KeyboardInterrupt


def window(seconds: float) -> tuple[float, float]:
    """The measurement window: the last five sixths of the run (10–60 s of a 60 s run)."""
    return seconds / 6.0, seconds


# ---------------------------------------------------------------- kernel side

def build_emulator() -> Path:
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ccsim-kernel-emu"], cwd=ROOT, check=True)
    return ROOT / "target" / "release" / "ccsim-kernel-emu"


def kernel_series(snd: dict, t_start: int, seconds: float) -> list[M.Series]:
    fields = snd["fields"]
    col = {k: i for i, k in enumerate(fields)}
    out = []
    for fl in snd["flows"]:
        a = np.array(fl["samples"], dtype=np.float64)
        t = (a[:, col["t_ns"]] - t_start) / 1e9
        ss = a[:, col["snd_ssthresh"]].copy()
        ss[ss >= SSTHRESH_INF] = np.nan
        ca = a[:, col["ca_state"]]
        # entries into Recovery (3) or Loss (4): each is one window reduction
        red = [float(t[i]) for i in range(1, len(t)) if ca[i] >= 3 and ca[i - 1] < 3]
        red = M.merge_events(red)
        retx = a[:, col["total_retrans"]]
        i2 = int(np.searchsorted(t, 2.0, side="right")) - 1
        out.append(M.Series(t=t, cwnd=a[:, col["snd_cwnd"]], ssthresh=ss, srtt=a[:, col["rtt"]] / 1e6,
                            acked=a[:, col["bytes_acked"]], reductions=red, retransmissions=int(retx[-1]),
                            timeouts=int(a[-1, col["total_rto"]]), retx_2s=int(retx[max(i2, 0)])))
    return out


def traced_run(a: argparse.Namespace, tracer, trace_file: str, tag: str, describe, **kw) -> Path | None:
    """One kernel run of ``a.scenario``/``a.cc``/``a.run`` (``a.seconds``, into ``a.out``)
    inside ``tracer`` (a context whose ``read()`` gives the trace text), for the trace
    scripts: the trace saved as ``trace_file`` and the run as ``run.json`` in its run
    directory, and a line printed (``describe(trace)``, the emulator's lag, the flags). ``kw``
    goes to ``kernel_run``. ``None`` (and a line saying why) where the bench cannot run."""
    why = netns.can_run()
    if why:
        print(f"skipped: {why}")
        return None
    emu = build_emulator()
    a.out.mkdir(parents=True, exist_ok=True)
    try:
        with tracer as tr:
            r = kernel_run(a.scenario, a.cc, a.run, a.seconds, a.out, emu, f"{tag}{os.getpid() % 1000}", True, **kw)
            trace = tr.read()
    finally:
        netns.teardown_all()
    d = a.out / "runs" / f"{a.scenario}-{a.cc}-{a.run}"
    (d / trace_file).write_text(trace)
    (d / "run.json").write_text(json.dumps(r, indent=1))
    lag = r["emulator"]["lag_ns"]
    print(f"{d}: {describe(trace)}, lag p99 {lag['p99'] / 1e3:.0f} µs, max {lag['max'] / 1e3:.0f} µs; flags {flags(r)}")
    return d


def queue_from_log(log: Path, emu_t0: int, t_start: int, w0: float, w1: float) -> float:
    iv = []
    with open(log) as f:
        rows = (line for line in f if not line.startswith("#"))
        for r in csv.DictReader(rows):
            if r["dir"] == "0" and r["verdict"] == "sent":
                enter = int(r["arrival_ns"]) + int(r["extra_ns"])
                iv.append((enter, int(r["tx_end_ns"])))
    a = (np.array(iv, dtype=np.float64) + (emu_t0 - t_start)) / 1e9 if iv else np.zeros((0, 2))
    return M.queue_time_average(a, w0, w1)


def lost_data_packets(log: Path) -> list[int]:
    """The data frames (over 100 B) the emulator's Bernoulli loss dropped, numbered from 0 in
    the order they entered the bottleneck: what ccsim's `scripted` loss drops to replay the
    run's loss draws (`--paired-loss`)."""
    rows = []
    with open(log) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["dir"] == "0" and int(r["size"]) > 100:
                rows.append((int(r["arrival_ns"]), r["verdict"] == "lost"))
    rows.sort(key=lambda x: x[0])
    return [i for i, (_, lost) in enumerate(rows) if lost]


def netstat_recoveries_per_min(snd: dict, t_start: int, w0: float, w1: float) -> float:
    """Entries into fast recovery (TcpExt TCPSackRecovery + TCPRenoRecovery, every flow of the
    sender's namespace) per minute between the counter snapshots nearest w0 and w1 (endpoints.py
    takes one a second); NaN for a run recorded without them."""
    ns = snd.get("netstat")
    if not ns or len(ns["samples"]) < 2:
        return math.nan
    col = {k: i for i, k in enumerate(ns["fields"])}
    a = np.array(ns["samples"], dtype=np.float64)
    t = (a[:, 0] - t_start) / 1e9
    rec = a[:, col["TCPSackRecovery"]] + a[:, col["TCPRenoRecovery"]]
    i, j = int(np.argmin(np.abs(t - w0))), int(np.argmin(np.abs(t - w1)))
    if t[j] - t[i] <= 0:
        return math.nan
    return 60.0 * float(rec[j] - rec[i]) / float(t[j] - t[i])


def kernel_run(name: str, cc: str, k: int, seconds: float, out: Path, emu: Path, tag: str,
               keep_logs: bool, sysctls: tuple[str, ...] = (), before_teardown=None, on_up=None,
               recv_args: tuple[str, ...] = ()) -> dict:
    sc = SCENARIOS[name]
    extras = sc.extra_ms
    d = out / "runs" / f"{name}-{cc}-{k}"
    d.mkdir(parents=True, exist_ok=True)
    seed = k + 1
    emu_args = [str(emu), "run", "--sender-if", "es", "--receiver-if", "er", "--rate-bps", str(sc.rate_bps),
                "--delay-ms", str(sc.one_way_ms), "--limit", str(sc.limit), "--loss", repr(sc.loss), "--seed", str(seed),
                "--duration-s", str(seconds + 20), "--log", str(d / "emu.log"), "--summary", str(d / "emu.json"),
                "--rt-priority", "50"]
    for i, x in enumerate(extras):
        if x > 0:
            emu_args += ["--extra", f"{SPORT0 + i}={x}"]
    py = sys.executable
    with netns.Testbed(tag, sysctls) as tb:
        if on_up:  # e.g. a packet capture in a namespace (ack_paths.py)
            on_up(tb, d)
        em = tb.spawn("emulator", *emu_args, stderr=open(d / "emu.err", "w"))
        rc = tb.spawn("receiver", py, str(HERE / "endpoints.py"), "recv", "--port", str(PORT), "--flows",
                      str(len(extras)), "--seconds", str(seconds + 12), "--out", str(d / "rcv.json"), *recv_args)
        time.sleep(0.5)
        send = tb.exec_args("sender", py, str(HERE / "endpoints.py"), "send", "--dst", netns.RECEIVER_IP,
                            "--port", str(PORT), "--seconds", str(seconds), "--out", str(d / "snd.json"))
        for i in range(len(extras)):
            send += ["--flow", f"{cc}:{SPORT0 + i}"]
        # spawned through the testbed, so a teardown (Ctrl-C, SIGTERM) kills it too
        sp = tb.spawn("sender", *send[len(tb.exec_args("sender")):], stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
        try:
            _, err = sp.communicate(timeout=seconds + 30)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{name}/{cc}/{k}: the sender did not finish in {seconds + 30:.0f} s")
        if sp.returncode != 0:
            raise RuntimeError(f"{name}/{cc}/{k}: sender failed: {err.strip()[-500:]}")
        try:
            rc.wait(seconds + 15)
        except subprocess.TimeoutExpired:
            rc.kill()
        em.terminate()  # the emulator ends its run and writes its log and summary
        em.wait(60)
        if before_teardown:  # e.g. the sender namespace's counters (slowstart_trace.py)
            before_teardown(tb, d)
        offloads, qdisc = tb.offloads, tb.qdisc
    snd = json.loads((d / "snd.json").read_text())
    summ = json.loads((d / "emu.json").read_text())
    t_start = min(f["start_ns"] for f in snd["flows"])
    starts = [(f["start_ns"] - t_start) / 1e9 for f in snd["flows"]]
    w0, w1 = window(seconds)
    flows = kernel_series(snd, t_start, seconds)
    q = queue_from_log(d / "emu.log", summ["t0_mono_ns"], t_start, w0, w1)
    lost = lost_data_packets(d / "emu.log") if sc.loss > 0 else None
    if not keep_logs:
        (d / "emu.log").unlink()
    flags = []
    if not summ["replay_exact"]:
        flags.append(f"log does not replay: {summ['first_problems'][:2]}")
    if summ["oversize_frames"] or summ["send_errors"]:
        flags.append(f"{summ['oversize_frames']} oversize frames, {summ['send_errors']} send errors")
    if any(f.get("error") for f in snd["flows"]):
        flags.append("sender error: " + "; ".join(str(f.get("error")) for f in snd["flows"]))
    last = [f["samples"][-1] for f in snd["flows"]]
    col = {k: i for i, k in enumerate(snd["fields"])}
    rwnd_frac = max(s[col["rwnd_limited"]] for s in last) / (seconds * 1e6)
    sndbuf_frac = max(s[col["sndbuf_limited"]] for s in last) / (seconds * 1e6)
    m = M.scenario_metrics(flows, q, w0, w1)
    m["recoveries_per_min"] = netstat_recoveries_per_min(snd, t_start, w0, w1)
    return {"scenario": name, "scenario_def": sc.to_json(), "cc": cc, "run": k, "seed": seed, "starts_s": starts,
            "metrics": m, "flags": flags,
            "emulator": {k2: summ[k2] for k2 in ("packets", "sent", "lost", "overflow", "replay_exact", "lag_ns",
                                                  "oversize_frames", "max_frame", "send_errors", "realtime")},
            "rwnd_limited_frac": rwnd_frac, "sndbuf_limited_frac": sndbuf_frac,
            "offloads": offloads, "qdisc": qdisc, **({"lost_data_packets": lost} if lost is not None else {})}


# ---------------------------------------------------------------- ccsim side

def linux_profile_available() -> bool:
    import ccsim
    doc = ccsim_doc("q33", "reno", 1.0, 1, [0.0], profile="linux")
    try:
        ccsim.Scenario(doc).validate()
        return True
    except ccsim.ScenarioError:
        return False


def ccsim_doc(name: str, cc: str, seconds: float, seed: int, starts: list[float], profile: str | None,
              host_jitter_us: tuple[float, float] = (0.0, 0.0), flow_set: dict | None = None,
              lost: list[int] | None = None) -> dict:
    """The scenario in ccsim. `host_jitter_us`: the link `jitter` of the senders' access links
    (data direction) and of the receivers' (ACK direction), for the hosts' varying processing
    times (`--host-jitter`); 0 keeps the links' delays exact. `flow_set`: keys written on every
    flow after the profile (`--ccsim-set`), e.g. {"tso_defer": True}. `lost`: the data packets
    a kernel run's emulator dropped (`lost_data_packets`), dropped again in place of ccsim's
    own Bernoulli draws (`--paired-loss`)."""
    sc = SCENARIOS[name]
    limit, loss, extras = sc.limit, sc.loss, sc.extra_ms
    if lost is not None:
        loss = {"kind": "scripted", "data_packets": lost} if lost else "none"
    q = {"kind": "droptail", "limit": limit}
    fast = {"rate": "10Gbps", "queue": {"kind": "droptail", "limit": 10000}}
    links = [
        {"from": "r1", "to": "r2", "rate": f"{sc.rate_bps}bps", "delay": f"{sc.one_way_ms}ms", "queue": q,
         "loss": loss},
        {"from": "r2", "to": "r1", "rate": f"{sc.rate_bps}bps", "delay": f"{sc.one_way_ms}ms", "queue": q},
    ]
    flows = []
    for i, x in enumerate(extras):
        js, jr = host_jitter_us
        if js or jr:  # one-way links: the jitter on the direction the host's processing delays
            links.append({"from": f"s{i}", "to": "r1", "delay": f"{x}ms", "jitter": f"{js}us", **fast})
            links.append({"from": "r1", "to": f"s{i}", "delay": f"{x}ms", **fast})
            links.append({"from": "r2", "to": f"d{i}", "delay": "0ms", **fast})
            links.append({"from": f"d{i}", "to": "r2", "delay": "0ms", "jitter": f"{jr}us", **fast})
        else:
            links.append({"between": [f"s{i}", "r1"], "delay": f"{x}ms", **fast})
            links.append({"between": ["r2", f"d{i}"], "delay": "0ms", **fast})
        # The kernel's time 0 is when the first connect() returned; the sender starts writing
        # on every connection once the last one has returned (endpoints.py), so all flows'
        # data leaves at max(starts). With the profiles' handshake (linux, ns2) ccsim's data
        # leaves one RTT after its app starts: the apps start so that every flow's data
        # leaves together, at the longest RTT (the metrics' windows are seconds long).
        if profile in HANDSHAKE_PROFILES:
            start = 2 * (max(extras) - x) / 1000
        else:
            start = max(starts)
        fl = {"name": f"f{i}", "from": f"s{i}", "to": f"d{i}", "cc": CCSIM_CC[cc], "mss": MSS, "header": HEADER,
              "app": {"kind": "bulk", "size": "inf", "start": f"{round(start * 1e4) / 10}ms"}}
        if profile:
            fl["stack"] = profile
        else:  # the closest options today (docs/sources/linux.md §1)
            fl.update({"recovery": "sack", "init_cwnd": 10, "delayed_ack": "40ms",
                       "rto": {"min": "200ms", "initial": "1s", "max": "120s"}})
        for key, value in (flow_set or {}).items():
            if key.startswith("cc.") and isinstance(fl["cc"], str):
                fl["cc"] = {"kind": fl["cc"]}  # a controller parameter: cc.edt=false
            *tables, last = key.split(".")
            t = fl
            for k in tables:
                t = t.setdefault(k, {})
            t[last] = value
        flows.append(fl)
    return {"simulation": {"duration": f"{seconds}s", "seed": seed},
            "trace": {"interval": "20ms", "flows": "all", "links": ["r1->r2"]}, "link": links, "flow": flows}


def window_descents(t: np.ndarray, cw: np.ndarray, cut: float = 0.9) -> list[float]:
    """The first sample of each run of non-increasing samples that starts with a fall and ends
    below `cut` × the window before it: one window reduction each. PRR's window, as the
    kernel's `tcpi_snd_cwnd`, steps down over the recovery's round trip (docs/tcp.md §4.6),
    so one reduction spans several 20 ms samples and its first step may be small."""
    out = []
    j = 1
    while j < len(t):
        if cw[j] < cw[j - 1]:
            k = j
            while k + 1 < len(t) and cw[k + 1] <= cw[k]:
                k += 1
            if cw[k] < cut * cw[j - 1]:
                out.append(float(t[j]))
            j = k + 1
        else:
            j += 1
    return out


def ccsim_series(res, n: int) -> list[M.Series]:
    fs = res.flow_series
    rows = res.flows.set_index("name")
    out = []
    for i in range(n):
        f = fs[fs.flow == f"f{i}"]
        t = f.time_s.to_numpy()
        ss = f.ssthresh_bytes.to_numpy() / MSS
        dtv = np.diff(t, prepend=t[0])
        acked = np.cumsum(f.rate_bps.to_numpy() * dtv / 8.0)
        cw = f.cwnd_bytes.to_numpy()
        # a reduction: ssthresh set to a new value, or a descent of the window by more than
        # 10 % (a cut to the same ssthresh as last time leaves ssthresh unchanged)
        red = sorted([float(t[j]) for j in range(1, len(t)) if np.isfinite(ss[j]) and ss[j] != ss[j - 1]]
                     + window_descents(t, cw))
        r = rows.loc[f"f{i}"]
        out.append(M.Series(t=t, cwnd=f.cwnd_bytes.to_numpy() / MSS, ssthresh=ss, srtt=f.srtt_s.to_numpy(),
                            acked=acked, reductions=M.merge_events(red), retransmissions=int(r.retransmissions),
                            timeouts=int(r.timeouts)))
    return out


def ccsim_run(name: str, cc: str, seconds: float, seed: int, starts: list[float], profile: str | None,
              host_jitter_us: tuple[float, float] = (0.0, 0.0), flow_set: dict | None = None,
              lost: list[int] | None = None) -> dict:
    import ccsim
    n = SCENARIOS[name].flows
    res = ccsim.run(ccsim_doc(name, cc, seconds, seed, starts, profile, host_jitter_us, flow_set, lost),
                    progress=False)
    flows = ccsim_series(res, n)
    # a 2 s run is the first 2 s of the long one (same seed, deterministic): its counters
    early = ccsim.run(ccsim_doc(name, cc, 2.0, seed, starts, profile, host_jitter_us, flow_set, lost),
                      progress=False)
    for s, (_, r) in zip(flows, early.flows.iterrows()):
        s.retx_2s = int(r.retransmissions)
    w0, w1 = window(seconds)
    ls = res.link_series
    lq = ls[ls.link == "r1->r2"]
    q = M.mean_in(lq.time_s.to_numpy(), lq.queue_packets.to_numpy(), w0, w1)
    m = M.scenario_metrics(flows, q, w0, w1)
    # recoveries after w0 (the long run's less those of a run to w0, its prefix): every
    # flow's for rec/min; for LOSS_EPISODE_CC, the first flow's with its timeouts for cuts/min
    before = ccsim.run(ccsim_doc(name, cc, w0, seed, starts, profile, host_jitter_us, flow_set, lost),
                       progress=False)
    late = res.flows.fast_recoveries.to_numpy()[:n] - before.flows.fast_recoveries.to_numpy()[:n]
    m["recoveries_per_min"] = 60.0 * float(late.sum()) / (w1 - w0)
    if cc in LOSS_EPISODE_CC:
        a, b = res.flows.iloc[0], before.flows.iloc[0]
        episodes = (a.fast_recoveries + a.timeouts) - (b.fast_recoveries + b.timeouts)
        m["reductions_per_min"] = 60.0 * float(episodes) / (w1 - w0)
        m["period_s"] = math.nan
    return {"scenario": name, "cc": cc, "seed": seed, "metrics": m}


# ---------------------------------------------------------------- tables

def timing_flags(r: dict) -> list[str]:
    lag = r["emulator"]["lag_ns"]
    if lag["p99"] > LAG_P99_MAX_NS or lag["max"] > LAG_MAX_NS:
        return [f"emulator lag p99 {lag['p99'] / 1e6:.2f} ms, max {lag['max'] / 1e6:.1f} ms"]
    return []


def flags(r: dict) -> list[str]:
    """Integrity flags recorded by the run (no exact replay, oversize frames, send errors,
    sender errors) and the timing limits above, applied now."""
    return [f for f in r["flags"] if not f.startswith("emulator lag")] + timing_flags(r)


def summarise(kernel: list[dict], sim: list[dict]) -> dict:
    out = {}
    for name in SCENARIOS:
        for cc in CCS:
            kr = [r for r in kernel if r["scenario"] == name and r["cc"] == cc and not flags(r)]
            sr = [r for r in sim if r["scenario"] == name and r["cc"] == cc]
            if not kr and not sr:
                continue
            row = {}
            for m in METRICS:
                ks = M.summarise([r["metrics"].get(m, math.nan) for r in kr])
                ss = M.summarise([r["metrics"].get(m, math.nan) for r in sr])
                ratio = None
                if ks["mean"] and ss["mean"] is not None:
                    ratio = ss["mean"] / ks["mean"]
                row[m] = {"kernel": ks, "ccsim": ss, "ratio": ratio}
            out[f"{name}/{cc}"] = {"scenario": name, "cc": cc, "kernel_runs": len(kr), "ccsim_runs": len(sr),
                                   "metrics": row}
    return out


def fmt(x: float | None, m: str) -> str:
    if x is None:
        return "–"
    if m in ("retx", "retx_2s", "timeouts", "ss_peak", "first_ssthresh") and abs(x) >= 10:
        return f"{x:.0f}"
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


SHORT = {"goodput_mbps": "goodput", "srtt_ms": "srtt", "queue_pkts": "queue", "retx": "retx", "retx_2s": "retx<2s",
         "timeouts": "RTOs", "ss_peak": "SS peak", "first_ssthresh": "1st ssthresh", "period_s": "period",
         "reductions_per_min": "cuts/min", "recoveries_per_min": "rec/min", "share0": "share f0"}


def markdown(summary: dict, meta: dict) -> str:
    sc = f" (sender sysctls: {', '.join(meta['sender_sysctls'])})" if meta.get("sender_sysctls") else ""
    sc += " (receiver in pingpong mode)" if meta.get("receiver_pingpong") else ""
    lines = [f"Kernel {meta['kernel']}{sc}, {meta['runs']} run(s) of {meta['seconds']} s per case, window "
             f"{meta['window'][0]:.0f}–{meta['window'][1]:.0f} s; ccsim {meta['ccsim_options']}.", "",
             "**Ratios ccsim / kernel** (kernel run-to-run spread, (max − min) / mean, in brackets):", ""]
    if len(meta.get("sources", [])) > 1:
        lines[1:1] = ["", "Kernel runs from: " + "; ".join(meta["sources"]) + "."]
    custom = sorted({row["scenario"] for row in summary.values()} - set(BUILTIN))
    if custom:
        lines[1:1] = ["", "Scenarios not built in: " + "; ".join(describe(SCENARIOS[n]) for n in custom) + "."]
    head = "| scenario | cc | " + " | ".join(SHORT[m] for m in METRICS) + " |"
    lines += [head, "|" + "---|" * (len(METRICS) + 2)]
    for key, row in summary.items():
        cells = []
        for m in METRICS:
            c = row["metrics"][m]
            k = c["kernel"]
            if c["ratio"] is None:
                if k["mean"] == 0 and c["ccsim"]["mean"] == 0:
                    cells.append("0 = 0")
                elif k["mean"] == 0 and c["ccsim"]["mean"] is not None:
                    cells.append(f"k 0, c {fmt(c['ccsim']['mean'], m)}")
                else:
                    cells.append("–")
                continue
            spread = (k["max"] - k["min"]) / abs(k["mean"]) if k["n"] > 1 else None
            cells.append(f"{c['ratio']:.2f}" + (f" ({100 * spread:.0f}%)" if spread is not None else ""))
        lines.append(f"| {row['scenario']} | {row['cc']} | " + " | ".join(cells) + " |")
    lines += ["", "**Kernel values** (mean over runs, [min–max]); units: Mb/s, ms, packets, segments, s:", "",
              head, "|" + "---|" * (len(METRICS) + 2)]
    for key, row in summary.items():
        cells = []
        for m in METRICS:
            k = row["metrics"][m]["kernel"]
            if k["mean"] is None:
                cells.append("–")
            elif k["n"] > 1:
                cells.append(f"{fmt(k['mean'], m)} [{fmt(k['min'], m)}–{fmt(k['max'], m)}]")
            else:
                cells.append(fmt(k["mean"], m))
        lines.append(f"| {row['scenario']} | {row['cc']} | " + " | ".join(cells) + " |")
    spread = any(row["ccsim_runs"] > 1 and any(row["metrics"][m]["ccsim"]["min"] != row["metrics"][m]["ccsim"]["max"]
                                               for m in METRICS if row["metrics"][m]["ccsim"]["mean"] is not None)
                 for row in summary.values())
    lines += ["", "**ccsim values** (mean over seeds" + (", [min–max]" if spread else "") + "):", "", head,
              "|" + "---|" * (len(METRICS) + 2)]
    for key, row in summary.items():
        cells = []
        for m in METRICS:
            c = row["metrics"][m]["ccsim"]
            if spread and c["mean"] is not None and c["n"] > 1:
                cells.append(f"{fmt(c['mean'], m)} [{fmt(c['min'], m)}–{fmt(c['max'], m)}]")
            else:
                cells.append(fmt(c["mean"], m))
        lines.append(f"| {row['scenario']} | {row['cc']} | " + " | ".join(cells) + " |")
    lag = meta.get("emulator_lag_over_runs_us")
    if lag:
        lines += ["", f"Emulator timing error (write time − logical departure), over {lag['runs']} kernel runs: median "
                      f"p50 {lag['p50_median']:.0f} µs, median p99 {lag['p99_median']:.0f} µs (largest "
                      f"{lag['p99_max']:.0f} µs), largest single lag {lag['max_max'] / 1e3:.1f} ms (median of the "
                      f"runs' largest {lag['max_median'] / 1e3:.1f} ms; {lag['runs_with_max_over_20ms']} runs over "
                      f"20 ms). Every log replayed exactly unless listed below."]
    if meta.get("flagged"):
        lines += ["", "Runs left out (emulator timing or integrity): " + "; ".join(meta["flagged"])]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main

def load_kernel_runs(paths: list[Path], scen: list[str], ccs: list[str]) -> tuple[list[dict], dict]:
    """The kernel runs of `scen` × `ccs` in saved results files, each case from the first
    file that has it, and the first file's meta with every file's kernel build and date."""
    kernel: list[dict] = []
    meta: dict = {}
    taken: set[tuple[str, str]] = set()
    for path in paths:
        old = json.loads(path.read_text())
        m = old["meta"]
        if not meta:
            meta = dict(m)
            meta["sources"] = []
        elif m["seconds"] != meta["seconds"]:
            raise SystemExit(f"{path}: runs of {m['seconds']} s, the first file's {meta['seconds']} s")
        cases = {(r["scenario"], r["cc"]) for r in old["kernel"]} - taken
        runs = [r for r in old["kernel"] if (r["scenario"], r["cc"]) in cases
                and r["scenario"] in scen and r["cc"] in ccs]
        kernel += runs
        taken |= cases
        if runs:
            meta["sources"].append(f"{path.name}: kernel {m['kernel']}, {m.get('date', '?')}, "
                                   + ", ".join(sorted({f"{r['scenario']}/{r['cc']}" for r in runs}))
                                   + f" ({m['runs']} run(s) each)")
    counts = {m for m in (sum(1 for r in kernel if (r["scenario"], r["cc"]) == c) for c in taken) if m}
    if counts:  # the runs per case actually taken
        meta["runs"] = counts.pop() if len(counts) == 1 else f"{min(counts)}–{max(counts)}"
    return kernel, meta


def counters_from_runs(kernel: list[dict], d: Path, seconds: float) -> None:
    """rec/min for saved kernel runs that lack it, from the namespace counters in the sender
    logs under `d` (runs/<scenario>-<cc>-<k>/snd.json), where they were recorded; and the
    lost data packets of lossy runs from their kept emulator logs (emu.log)."""
    w0, w1 = window(seconds)
    for r in kernel:
        log = d / "runs" / f"{r['scenario']}-{r['cc']}-{r['run']}" / "emu.log"
        if "lost_data_packets" not in r and SCENARIOS[r["scenario"]].loss > 0 and log.exists():
            r["lost_data_packets"] = lost_data_packets(log)
        if math.isfinite(r["metrics"].get("recoveries_per_min", math.nan)):
            continue
        f = d / "runs" / f"{r['scenario']}-{r['cc']}-{r['run']}" / "snd.json"
        if f.exists():
            snd = json.loads(f.read_text())
            t_start = min(fl["start_ns"] for fl in snd["flows"])
            r["metrics"]["recoveries_per_min"] = netstat_recoveries_per_min(snd, t_start, w0, w1)


def _flow_key(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r}: give KEY=VALUE, e.g. tso_defer=true")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _jitter_pair(text: str) -> tuple[float, float]:
    try:
        js, jr = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give two numbers of µs, e.g. 70,204") from None
    if js < 0 or jr < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: jitter cannot be negative")
    return js, jr


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="one 10 s run per case (to try the bench)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--scenarios", help="comma-separated names (default: those of --scenario-file if given, "
                   f"else those of the --from-kernel runs, else the built-in {','.join(BUILTIN)})")
    p.add_argument("--scenario-file", type=Path, action="append", default=[], metavar="FILE",
                   help="a TOML file of [[scenario]] tables (benches/linux/scenarios.py, README); repeatable")
    p.add_argument("--cc", default=",".join(CCS))
    p.add_argument("--jobs", type=int, default=1, help="kernel runs at once (each in its own namespaces)")
    p.add_argument("--out", type=Path)
    p.add_argument("--keep-logs", action="store_true", help="keep the emulator's per-packet logs")
    p.add_argument("--sysctl", action="append", default=[], metavar="KEY=VALUE",
                   help="a net.ipv4.tcp_* setting for the sender's namespace (to test a mechanism, e.g. "
                        "net.ipv4.tcp_recovery=0); repeatable")
    p.add_argument("--pingpong", action="store_true",
                   help="diagnostic: the receiving sockets in pingpong mode (TCP_QUICKACK 0 after every read), "
                        "which turns off the read's immediate ACK of a segment with PSH (docs/validation.md §6)")
    p.add_argument("--host-jitter", type=_jitter_pair, default=(0.0, 0.0), metavar="DATA_US,ACK_US",
                   help="ccsim side: a uniform link jitter on the senders' access links (data direction) and the "
                        "receivers' (ACK direction), in µs, for the hosts' varying processing times (measured on "
                        "this bench: 70,204 — docs/validation.md §6); default 0,0")
    p.add_argument("--ccsim-set", action="append", default=[], type=_flow_key, metavar="KEY=VALUE",
                   help="ccsim side: a flow key written over the profile on every flow (a JSON value, or a "
                        "bare word taken as a string; a dotted key sets a nested table), e.g. tso_defer=true, "
                        "rto.min=300ms or cc.edt=false (a parameter of the flow's controller); repeatable")
    p.add_argument("--from-kernel", type=Path, action="append",
                   help="reuse a results.json's kernel runs (those of --scenarios and --cc); run only ccsim. "
                        "Repeatable: the files' runs together (a case taken from the first file that has it), "
                        "each file's kernel build noted in the table")
    p.add_argument("--runs-dir", type=Path, action="append", default=[],
                   help="with --from-kernel: a kernel bench output directory whose kept runs "
                        "(runs/<scenario>-<cc>-<k>/snd.json) give rec/min to the runs saved without it, and "
                        "whose kept emulator logs give the lost packets for --paired-loss")
    p.add_argument("--ccsim-seeds", type=int, default=0, metavar="N",
                   help="ccsim side: seeds 1..N for each case instead of one per kernel run (with --host-jitter, "
                        "the spread timing alone gives; not with --paired-loss)")
    p.add_argument("--paired-loss", action="store_true",
                   help="ccsim side: each lossy run drops the very data packets (by their order at the "
                        "bottleneck) that the kernel run's emulator dropped, in place of ccsim's own draws")
    p.add_argument("--ccsim-profile", default="auto",
                   help="'auto' (the `linux` stack profile if ccsim has one, else the closest options), "
                        "'none' or a profile name")
    a = p.parse_args(argv)
    if a.quick:
        a.runs, a.seconds = 1, 10.0
    try:
        from_files = []
        for f in a.scenario_file:
            for sc in load_file(f).values():
                register(sc, str(f))
                from_files.append(sc.name)
        saved = []
        for f in a.from_kernel or []:
            saved += [n for n in register_saved(f) if n not in saved]
    except ScenarioFileError as e:
        p.error(str(e))
    scen = [s for s in (a.scenarios or ",".join(from_files or saved or BUILTIN)).split(",") if s]
    ccs = [c for c in a.cc.split(",") if c]
    bad = [s for s in scen if s not in SCENARIOS] + [c for c in ccs if c not in CCS]
    bad += [kv for kv in a.sysctl if not kv.startswith("net.ipv4.tcp_") or "=" not in kv]
    if bad or a.runs < 1 or not (5 <= a.seconds <= 600) or not (1 <= a.jobs <= 4):
        p.error(f"unknown {bad}; allowed scenarios {list(SCENARIOS)}, cc {list(CCS)}, --sysctl "
                f"net.ipv4.tcp_*=VALUE; runs ≥ 1, seconds in [5, 600], jobs in [1, 4]")
    out = a.out or ROOT / "out" / "kernel-bench" / dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)

    if a.from_kernel:
        kernel, meta = load_kernel_runs(a.from_kernel, scen, ccs)
        a.seconds, a.runs = meta["seconds"], meta["runs"]
        for d in a.runs_dir:
            counters_from_runs(kernel, d, a.seconds)
    else:
        why = netns.can_run()
        if why:
            print(f"kernel bench skipped: {why}")
            return 0
        atexit.register(netns.teardown_all)
        signal.signal(signal.SIGTERM, _interrupt)
        emu = build_emulator()
        jobs = [(s, c, k) for s in scen for c in ccs for k in range(a.runs)]
        kernel, done = [], 0
        lock = threading.Lock()
        t0 = time.monotonic()

        def one(job, idx):
            nonlocal done
            s, c, k = job
            r = kernel_run(s, c, k, a.seconds, out, emu, f"{os.getpid() % 10000}{idx}", a.keep_logs,
                           tuple(a.sysctl), recv_args=("--pingpong",) if a.pingpong else ())
            with lock:
                done += 1
                lag = r["emulator"]["lag_ns"]
                print(f"[{done}/{len(jobs)} {time.monotonic() - t0:.0f}s] {s}/{c}/{k}: "
                      f"{r['metrics']['goodput_mbps']:.2f} Mb/s, retx {r['metrics']['retx']:.0f}, "
                      f"lag p99 {lag['p99'] / 1e3:.0f} µs max {lag['max'] / 1e3:.0f} µs"
                      + (f"  FLAGGED: {flags(r)}" if flags(r) else ""), flush=True)
            return r

        ex = cf.ThreadPoolExecutor(a.jobs)
        try:
            futs = [ex.submit(one, j, i) for i, j in enumerate(jobs)]
            for f in futs:
                kernel.append(f.result())
        except KeyboardInterrupt:
            print("interrupted: tearing the namespaces down", file=sys.stderr)
            ex.shutdown(wait=False, cancel_futures=True)
            netns.teardown_all()  # kills this bench's processes; the running jobs then fail fast
            return 130
        finally:
            netns.teardown_all()
        ex.shutdown()
        meta = {"kernel": platform.release(), "date": dt.datetime.now().isoformat(timespec="seconds"),
                "command": " ".join(shlex.quote(x) for x in sys.argv), "seconds": a.seconds, "runs": a.runs,
                "window": window(a.seconds), "scenarios": {n: SCENARIOS[n].to_json() for n in scen},
                "offloads": kernel[0]["offloads"] if kernel else {}, "qdisc": kernel[0]["qdisc"] if kernel else {},
                "sender_sysctls": a.sysctl, "receiver_pingpong": a.pingpong}
    profile = None
    if a.ccsim_profile == "auto":
        profile = "linux" if linux_profile_available() else None
    elif a.ccsim_profile != "none":
        profile = a.ccsim_profile
    meta["ccsim_options"] = (f"stack = \"{profile}\"" if profile else
                             "SACK recovery, init_cwnd 10, MSS 1448 + 52 B headers, delayed ACK 40 ms, "
                             "rto.min 200 ms")
    if a.ccsim_set:
        meta["ccsim_options"] += "; " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in a.ccsim_set)
    if any(a.host_jitter):
        meta["ccsim_options"] += (f"; host jitter {a.host_jitter[0]:g} µs (senders' data) and "
                                  f"{a.host_jitter[1]:g} µs (receivers' ACKs)")
    if a.paired_loss:
        meta["ccsim_options"] += "; the kernel runs' own losses (--paired-loss)"
        missing = [f"{r['scenario']}/{r['cc']}/{r['run']}" for r in kernel
                   if r["scenario"] in scen and SCENARIOS[r["scenario"]].loss > 0 and "lost_data_packets" not in r]
        if missing:
            p.error(f"--paired-loss: no lost packets recorded for {', '.join(missing)}; give --runs-dir with "
                    f"their kept emulator logs (kernel_bench.py --keep-logs)")
    if a.ccsim_seeds and a.paired_loss:
        p.error("--ccsim-seeds: each ccsim run pairs with one kernel run under --paired-loss; give one or the other")
    if a.ccsim_seeds:
        meta["ccsim_options"] += f"; ccsim seeds 1–{a.ccsim_seeds}"
    sim = []
    done = set()
    for r in kernel:
        if r["cc"] not in CCSIM_CC or r["scenario"] not in scen:
            continue
        if a.ccsim_seeds:  # seeds 1..N once per case, not one per kernel run
            if (r["scenario"], r["cc"]) in done:
                continue
            done.add((r["scenario"], r["cc"]))
            seeds = range(1, a.ccsim_seeds + 1)
        else:
            seeds = [r["seed"]]
        lost = r.get("lost_data_packets") if a.paired_loss else None
        for seed in seeds:
            sim.append(ccsim_run(r["scenario"], r["cc"], a.seconds, seed, r["starts_s"], profile, a.host_jitter,
                                 dict(a.ccsim_set), lost))
    meta["flagged"] = [f"{r['scenario']}/{r['cc']}/{r['run']}: {'; '.join(flags(r))}" for r in kernel if flags(r)]
    meta["emulator_lag_limits_ns"] = [LAG_P99_MAX_NS, LAG_MAX_NS]
    lags = [r["emulator"]["lag_ns"] for r in kernel]
    if lags:
        meta["emulator_lag_over_runs_us"] = {
            "p50_median": float(np.median([x["p50"] for x in lags])) / 1e3,
            "p99_median": float(np.median([x["p99"] for x in lags])) / 1e3,
            "p99_max": max(x["p99"] for x in lags) / 1e3, "max_median": float(np.median([x["max"] for x in lags])) / 1e3,
            "max_max": max(x["max"] for x in lags) / 1e3,
            "runs_with_max_over_20ms": sum(x["max"] > 20e6 for x in lags), "runs": len(lags)}
    summary = summarise(kernel, sim)
    (out / "results.json").write_text(json.dumps({"meta": meta, "kernel": kernel, "ccsim": sim, "summary": summary},
                                                 indent=1))
    md = markdown(summary, meta)
    (out / "table.md").write_text(md)
    print(md)
    print(f"wrote {out / 'results.json'} and {out / 'table.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
