"""The same TCP scenarios in ccsim and in ns-3 (PyPI `ns3`), side by side (issue #19).

    python benches/ns3_compare.py [--seconds S] [--seeds N | --seed-list 1,4-9]
        [--only loss|dumbbell] [--loss 0.02,0.05] [--ccsim rto.samples=new_ack]
        [--cache FILE]

Prints, for each scenario, goodput, mean smoothed RTT, mean bottleneck queue and the
loss-recovery counts (fast recoveries, timeouts) of both simulators as means over the seeds
with the half-width of their 95 % confidence interval (Student's t over the per-seed
values), and the ratio ccsim / ns-3 with its 95 % interval (delta method on the log of the
ratio of two independent means); `*` marks a ratio whose interval excludes 1. A benchmark,
not a test: docs/validation.md §7 holds a table it printed and the mechanism behind each
difference over 5 %.

`--cache FILE` keeps each ns-3 run (JSON lines keyed by scenario, length and seed), so a
long ns-3 batch can be split over processes (`--seed-list`) and the table printed from the
cache; ccsim runs are cheap and always rerun. `--ccsim KEY=VALUE` overrides one of the ccsim
options below (dotted keys reach into tables, the value is read as JSON if it parses), for
an option sweep. benches/ns3_rtt_samples.py counts the RTT samples of both sides by kind.

Scenarios (both simulators build exactly these):

- `loss`: one NewReno flow s → r → d. s–r 1 Gb/s, 1 ms; r–d 10 Mb/s, 49 ms (RTT 100 ms),
  100-packet DropTail in both directions, Bernoulli loss p on data packets entering r–d
  (ns-3: a `RateErrorModel` per packet on d's receiving device), p in {0.1, 0.5, 1, 2, 5} %.
- `dumbbell`: four NewReno flows s_i → r1 → r2 → d_i with access delays giving base RTTs
  of 20, 40, 80 and 160 ms over a 10 Mb/s, 5 ms bottleneck with a 100-packet buffer. The
  flows start at times drawn uniformly in [0, 1] s from the seed (the same times in both
  simulators): with deterministic starts a DropTail dumbbell locks into one phase pattern
  and the per-flow shares depend on it (Floyd & Jacobson 1992), so shares are compared as
  means over seeds, with their spread.

ccsim is set to ns-3.44's TCP defaults (queried at run time from the installed ns-3 and
printed): NewReno's once-per-ACK increase (`counting = "per_ack"`), PRR recovery with SACK,
limited transmit, ssthresh from the pipe (`BytesInFlight`), the SYN handshake, initial
window 10, delayed ACKs of 200 ms every second segment, RTO min 1 s / initial 1 s / 1 ms
granularity, RFC 6298 estimator with samples from every ACK (timestamps), and on the wire
1448 + 54 bytes per data packet (IPv4 20 + TCP 20 + timestamps 12 + PPP 2: a full 1500-byte
IP packet; ns-3 does not shrink a 1460-byte segment for its options and would fragment it)
with the SACK option counted. ns-3's socket buffers are raised to 16 MB (its 128 KB default would cap the
window below the path's BDP + buffer) and its default queue disc is removed, so the device
DropTail queue is the only queue, as in ccsim.
"""

import argparse
import copy
import json
import math
import random
import statistics as st
import time
from pathlib import Path

import ccsim

# The payload that fills a 1500-byte IP packet beside 20 B IP, 20 B TCP and 12 B of timestamps:
# ns-3 does not shrink its segments for options, and a 1460-byte segment would be fragmented.
MSS = 1448
LOSS_RATES = [0.001, 0.005, 0.01, 0.02, 0.05]
DUMBBELL_RTTS_MS = [20, 40, 80, 160]


# ---------------------------------------------------------------------------------------
# ns-3


def ns3():
    from ns import ns  # imported late: loading ns-3 takes seconds

    if not hasattr(ns.cppyy.gbl, "cmp3"):
        # Trace sinks and samplers in C++ (Python callbacks per packet would be too slow).
        ns.cppyy.cppdef(
            r"""
            #include "ns3/core-module.h"
            #include "ns3/network-module.h"
            #include "ns3/internet-module.h"
            #include "ns3/point-to-point-module.h"
            #include <map>
            #include <string>
            namespace cmp3 {
            using namespace ns3;
            std::map<uint32_t, uint64_t> recoveries, timeouts, rttN;
            std::map<uint32_t, double> rttSum;
            std::map<uint32_t, Time> srtt;
            uint64_t qN = 0; double qSum = 0;
            Ptr<Queue<Packet>> bottleneck;
            uint32_t NodeOf(const std::string& ctx) {
                auto a = ctx.find("/NodeList/") + 10;
                return std::stoul(ctx.substr(a, ctx.find('/', a) - a));
            }
            void Cong(std::string ctx, TcpSocketState::TcpCongState_t o,
                      TcpSocketState::TcpCongState_t n) {
                if (n == TcpSocketState::CA_RECOVERY && o != TcpSocketState::CA_RECOVERY)
                    recoveries[NodeOf(ctx)]++;
                if (n == TcpSocketState::CA_LOSS && o != TcpSocketState::CA_LOSS)
                    timeouts[NodeOf(ctx)]++;
            }
            void Rtt(std::string ctx, Time o, Time n) { srtt[NodeOf(ctx)] = n; }
            // A socket exists once its BulkSend application has started: hook each
            // sender's sockets just after its start (a hook before it finds none).
            void Hook(uint32_t node) {
                std::string base = "/NodeList/" + std::to_string(node) +
                                   "/$ns3::TcpL4Protocol/SocketList/*/";
                Config::Connect(base + "CongState", MakeCallback(&Cong));
                Config::Connect(base + "RTT", MakeCallback(&Rtt));
            }
            void HookAt(uint32_t node, double at) { Simulator::Schedule(Seconds(at), &Hook, node); }
            void Sample(double period) {
                for (auto& kv : srtt) {
                    if (!kv.second.IsZero()) {
                        rttSum[kv.first] += kv.second.GetSeconds();
                        rttN[kv.first]++;
                    }
                }
                if (bottleneck) { qSum += bottleneck->GetNPackets(); qN++; }
                Simulator::Schedule(Seconds(period), &Sample, period);
            }
            void Start(double period) {
                recoveries.clear(); timeouts.clear(); rttN.clear(); rttSum.clear();
                srtt.clear(); qN = 0; qSum = 0;
                Simulator::Schedule(Seconds(period), &Sample, period);
            }
            }
            """
        )
    return ns


def ns3_defaults() -> dict:
    ns = ns3()
    out = {}
    for tn, names in {
        "ns3::TcpSocketBase": ["Sack", "Timestamp", "MinRto", "ClockGranularity", "LimitedTransmit"],
        "ns3::TcpSocket": ["InitialCwnd", "DelAckTimeout", "DelAckCount", "ConnTimeout"],
        "ns3::RttEstimator": ["InitialEstimation"],
        "ns3::TcpL4Protocol": ["RecoveryType", "RttEstimatorType"],
    }.items():
        tid = ns.TypeId.LookupByName(tn)
        for i in range(tid.GetAttributeN()):
            a = tid.GetAttribute(i)
            if a.name in names:
                out[f"{tn.split('::')[1]}::{a.name}"] = a.originalInitialValue.SerializeToString(
                    a.checker
                )
    return out


def ns3_run(hosts, links, flows, loss_link, loss, bottleneck, secs, seed, hook=None):
    """Build and run one scenario in ns-3.

    hosts: node names; links: (a, b, rate, delay_ms, queue_pkts); flows: (src, dst, start_s);
    loss_link: index of the link whose far end drops data packets with probability `loss`;
    bottleneck: index of the link whose a→b queue is sampled; hook(node, start): called for
    each sender after the built-in traces are scheduled (benches/ns3_rtt_samples.py hooks
    its own). Returns per-flow dicts and the mean bottleneck queue.
    """
    ns = ns3()
    ns.Simulator.Destroy()
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(seed)
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(MSS))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))
    nodes = {}
    for h in hosts:
        c = ns.NodeContainer()
        c.Create(1)
        nodes[h] = c
    stack = ns.InternetStackHelper()
    for c in nodes.values():
        stack.Install(c)
    addr = ns.Ipv4AddressHelper()
    tch = ns.TrafficControlHelper()
    devs = []
    for i, (a, b, rate, delay, queue) in enumerate(links):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        p2p.SetChannelAttribute("Delay", ns.StringValue(f"{delay}ms"))
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{queue}p")))
        d = p2p.Install(nodes[a].Get(0), nodes[b].Get(0))
        addr.SetBase(ns.Ipv4Address(f"10.{i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
        ifs = addr.Assign(d)
        tch.Uninstall(d)  # the device queue is the only queue
        devs.append((d, ifs))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    if loss > 0:
        em = ns.CreateObject[ns.RateErrorModel]()
        em.SetAttribute("ErrorRate", ns.DoubleValue(loss))
        em.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
        devs[loss_link][0].Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
    q = devs[bottleneck][0].Get(0).GetObject[ns.PointToPointNetDevice]().GetQueue()
    ns.cppyy.gbl.cmp3.bottleneck = q
    sinks = []
    for k, (src, dst, start) in enumerate(flows):
        dst_ip = None
        for (a, b, *_), (d, ifs) in zip(links, devs):
            if b == dst:
                dst_ip = ifs.GetAddress(1)
            elif a == dst:
                dst_ip = ifs.GetAddress(0)
        port = 5000 + k
        sink = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo(),
        ).Install(nodes[dst].Get(0))
        sink.Start(ns.Seconds(0.0))
        sinks.append((nodes[src].Get(0).GetId(), sink.Get(0), start))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(dst_ip, port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        app = bulk.Install(nodes[src].Get(0))
        app.Start(ns.Seconds(start))
    ns.cppyy.gbl.cmp3.Start(0.01)
    for node, _, start in sinks:
        ns.cppyy.gbl.cmp3.HookAt(node, start + 0.0001)
        if hook is not None:
            hook(node, start)
    ns.Simulator.Stop(ns.Seconds(secs))
    ns.Simulator.Run()
    g = ns.cppyy.gbl.cmp3
    out = []
    for node, sink, start in sinks:
        rx = ns.DynamicCast[ns.PacketSink](sink).GetTotalRx()
        out.append(
            dict(
                goodput=rx * 8 / (secs - start),  # from the flow's start, as ccsim counts it
                srtt=g.rttSum[node] / max(1, g.rttN[node]),
                recoveries=int(g.recoveries[node]),
                timeouts=int(g.timeouts[node]),
            )
        )
    queue = g.qSum / max(1, g.qN)
    ns.Simulator.Destroy()
    return out, queue, float("nan")


# ---------------------------------------------------------------------------------------
# ccsim

NS3_MATCH = {
    "cc": {"kind": "reno", "counting": "per_ack"},
    "recovery": "prr",
    "limited_transmit": True,
    "ssthresh_from": "pipe",
    "handshake": True,
    "init_cwnd": 10,
    "delayed_ack": "200ms",
    "rto": {"min": "1s", "initial": "1s", "granularity": "1ms"},
    "mss": MSS,
    "header": 54,
    "sack_option_bytes": True,
}


def ccsim_doc(hosts, links, flows, loss_link, loss, bottleneck, secs, seed, match=None):
    """The scenario document of one run, ccsim set to `match` (default NS3_MATCH)."""
    match = NS3_MATCH if match is None else match
    dq = lambda n: {"kind": "droptail", "limit": f"{n}p"}  # noqa: E731
    doc_links = []
    for i, (a, b, rate, delay, queue) in enumerate(links):
        doc_links.append({"from": a, "to": b, "rate": rate, "delay": f"{delay}ms", "queue": dq(queue),
                          **({"loss": loss} if i == loss_link and loss > 0 else {})})
        doc_links.append({"from": b, "to": a, "rate": rate, "delay": f"{delay}ms", "queue": dq(queue)})
    doc = {
        "simulation": {"duration": f"{secs}s", "seed": seed},
        "trace": {"flows": "all", "links": [f"{links[bottleneck][0]}->{links[bottleneck][1]}"],
                  "interval": "10ms"},
        "link": doc_links,
        "flow": [{"name": f"f{k}", "from": s, "to": d, "app": {"kind": "bulk", "start": f"{t}s"},
                  **match} for k, (s, d, t) in enumerate(flows)],
    }
    return doc


def ccsim_run(hosts, links, flows, loss_link, loss, bottleneck, secs, seed, match=None):
    doc = ccsim_doc(hosts, links, flows, loss_link, loss, bottleneck, secs, seed, match)
    r = ccsim.run(ccsim.Scenario(doc), progress=False)
    fs = r.flow_series
    out = []
    for k, f in r.flows.iterrows():
        srtt = fs[fs.flow == f["name"]].srtt_s.dropna()
        out.append(dict(goodput=f.goodput_bps, srtt=float(srtt.mean()),
                        recoveries=int(f.fast_recoveries), timeouts=int(f.timeouts)))
    busy = float(r.links.set_index("name").loc[f"{links[bottleneck][0]}->{links[bottleneck][1]}"].utilisation)
    return out, float(r.link_series.queue_packets.mean()), busy


# ---------------------------------------------------------------------------------------


def loss_scenario(p):
    def build(seed):
        hosts = ["s", "r", "d"]
        links = [("s", "r", "1Gbps", 1, 100), ("r", "d", "10Mbps", 49, 100)]
        return hosts, links, [("s", "d", 0.0)], 1, p, 1
    return build


def dumbbell_scenario():
    def build(seed):
        starts = random.Random(seed)
        hosts = ["r1", "r2"]
        links = [("r1", "r2", "10Mbps", 5, 100)]
        flows = []
        for i, rtt in enumerate(DUMBBELL_RTTS_MS):
            access = (rtt / 2 - 5) / 2  # each access link, one way
            hosts += [f"s{i}", f"d{i}"]
            links += [(f"s{i}", "r1", "1Gbps", access, 100), ("r2", f"d{i}", "1Gbps", access, 100)]
            flows.append((f"s{i}", f"d{i}", round(starts.uniform(0.0, 1.0), 6)))
        return hosts, links, flows, None, 0.0, 0
    return build


# ---------------------------------------------------------------------------------------
# Statistics over seeds

METRICS = ("goodput", "srtt", "recoveries", "timeouts")


def t95(n: int) -> float:
    """Student's t for a two-sided 95 % interval with n − 1 degrees of freedom."""
    from scipy.stats import t

    return float(t.ppf(0.975, n - 1))


def mean_ci(xs) -> tuple[float, float]:
    """Mean and the half-width of its 95 % confidence interval (nan with one value)."""
    xs = list(xs)
    m = st.mean(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, t95(len(xs)) * st.stdev(xs) / math.sqrt(len(xs))


def ratio_ci(a, b) -> tuple[float, float, float]:
    """mean(a) / mean(b) and its 95 % interval: the delta method on log(ratio) of two
    independent means (each simulator's seeds are its own), Welch–Satterthwaite degrees of
    freedom."""
    ma, mb = st.mean(a), st.mean(b)
    if len(a) < 2 or len(b) < 2 or ma <= 0 or mb <= 0:
        return (ma / mb if mb else float("nan")), float("nan"), float("nan")
    va, vb = st.variance(a) / len(a) / ma**2, st.variance(b) / len(b) / mb**2
    se = math.sqrt(va + vb)
    if se == 0:
        return ma / mb, ma / mb, ma / mb
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    from scipy.stats import t

    h = float(t.ppf(0.975, df)) * se
    r = ma / mb
    return r, r * math.exp(-h), r * math.exp(h)


def fmt_mean(xs, scale=1.0, digits=3) -> str:
    m, h = mean_ci(x * scale for x in xs)
    return f"{m:.{digits}f} ± {h:.{digits}f}" if not math.isnan(h) else f"{m:.{digits}f}"


def fmt_ratio(a, b) -> str:
    r, lo, hi = ratio_ci(a, b)
    if math.isnan(lo):
        return f"{r:.3f}"
    star = "*" if lo > 1 or hi < 1 else ""
    return f"{r:.3f} [{lo:.3f}, {hi:.3f}]{star}"


# ---------------------------------------------------------------------------------------
# Runs, with the ns-3 ones cached


class Ns3Cache:
    """ns-3 runs on disk, one JSON line each (appended, so processes can share a file)."""

    def __init__(self, path: str | None):
        self.path = Path(path) if path else None
        self.runs: dict[str, dict] = {}
        if self.path and self.path.exists():
            for line in self.path.read_text().splitlines():
                if line.strip():
                    row = json.loads(line)
                    self.runs[row["key"]] = row

    @staticmethod
    def key(label: str, secs: float, seed: int) -> str:
        return f"{label}|{secs:g}|{seed}"

    def get(self, label, secs, seed):
        row = self.runs.get(self.key(label, secs, seed))
        return (row["out"], row["queue"], float("nan")) if row else None

    def put(self, label, secs, seed, run):
        row = dict(key=self.key(label, secs, seed), out=run[0], queue=run[1])
        self.runs[row["key"]] = row
        if self.path:
            with self.path.open("a") as f:
                f.write(json.dumps(row) + "\n")


def run_seeds(label, scenario, secs, seeds, match, cache, ccsim_only=False):
    """Per-seed runs of both simulators: ({sim: [(per-flow dicts, queue, busy)]}, walls)."""
    runs, walls = {}, {}
    t0 = time.perf_counter()
    runs["ccsim"] = [ccsim_run(*scenario(seed), secs, seed, match) for seed in seeds]
    walls["ccsim"] = time.perf_counter() - t0
    if ccsim_only:
        return runs, walls
    t0 = time.perf_counter()
    runs["ns-3"] = []
    for seed in seeds:
        run = cache.get(label, secs, seed)
        if run is None:
            run = ns3_run(*scenario(seed), secs, seed)
            cache.put(label, secs, seed, run)
        runs["ns-3"].append(run)
    walls["ns-3"] = time.perf_counter() - t0
    return runs, walls


def compare(label, scenario, secs, seeds, match, cache):
    runs, walls = run_seeds(label, scenario, secs, seeds, match, cache)
    a, b = runs["ccsim"], runs["ns-3"]
    col = lambda runs, k, m: [r[0][k][m] for r in runs]  # noqa: E731
    for k in range(len(a[0][0])):
        name = f"{label} flow {k}" if len(a[0][0]) > 1 else label
        ga, gb = col(a, k, "goodput"), col(b, k, "goodput")
        sa, sb = col(a, k, "srtt"), col(b, k, "srtt")
        print(f"| {name} | {fmt_mean(ga, 1e-6)} | {fmt_mean(gb, 1e-6)} | {fmt_ratio(ga, gb)} "
              f"| {fmt_mean(sa, 1e3, 1)} | {fmt_mean(sb, 1e3, 1)} | {fmt_ratio(sa, sb)} "
              f"| {fmt_mean(col(a, k, 'recoveries'), 1, 1)} / {fmt_mean(col(b, k, 'recoveries'), 1, 1)} "
              f"| {fmt_mean(col(a, k, 'timeouts'), 1, 2)} / {fmt_mean(col(b, k, 'timeouts'), 1, 2)} |")
    qa, qb = [r[1] for r in a], [r[1] for r in b]
    busy = st.mean(r[2] for r in a)
    print(f"| {label} queue (pkts) | {fmt_mean(qa, 1, 2)} | {fmt_mean(qb, 1, 2)} | {fmt_ratio(qa, qb)} "
          f"| bottleneck busy {busy:.2f} | wall {walls['ccsim']:.0f} s / {walls['ns-3']:.0f} s "
          f"| {len(seeds)} seeds | | |", flush=True)


# ---------------------------------------------------------------------------------------


def parse_seeds(text: str) -> list[int]:
    """"1,4-9" → [1, 4, 5, 6, 7, 8, 9]."""
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def with_overrides(overrides: list[str]) -> dict:
    """NS3_MATCH with `key.sub=value` overrides (the value read as JSON when it parses)."""
    match = copy.deepcopy(NS3_MATCH)
    for o in overrides:
        key, _, text = o.partition("=")
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        *path, last = key.split(".")
        d = match
        for p in path:
            d = d.setdefault(p, {})
        d[last] = value
    return match


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..N")
    ap.add_argument("--seed-list", help="explicit seeds, e.g. 1,4-9 (overrides --seeds)")
    ap.add_argument("--only", choices=["loss", "dumbbell"])
    ap.add_argument("--loss", help="loss rates to run, e.g. 0.02,0.05 (default: all)")
    ap.add_argument("--ccsim", action="append", default=[], metavar="KEY=VALUE",
                    help="override a ccsim option of NS3_MATCH (repeatable)")
    ap.add_argument("--cache", help="JSON-lines file keeping the ns-3 runs")
    a = ap.parse_args()
    seeds = parse_seeds(a.seed_list) if a.seed_list else list(range(1, a.seeds + 1))
    match = with_overrides(a.ccsim)
    cache = Ns3Cache(a.cache)
    print("ns-3 defaults:", ", ".join(f"{k} {v}" for k, v in ns3_defaults().items()))
    print(f"ccsim options: {match}")
    print(f"{a.seconds:g} s per run, seeds {seeds[0]}–{seeds[-1]} ({len(seeds)}); "
          "mean ± 95 % CI half-width; ratio ccsim / ns-3 [95 % CI], * = CI excludes 1")
    print("| scenario | goodput Mb/s ccsim | ns-3 | ratio | srtt ms ccsim | ns-3 | ratio "
          "| recoveries ccsim / ns-3 | timeouts ccsim / ns-3 |")
    print("|---|---|---|---|---|---|---|---|---|")
    rates = [float(x) for x in a.loss.split(",")] if a.loss else LOSS_RATES
    if a.only in (None, "loss"):
        for p in rates:
            compare(f"loss {p*100:g} %", loss_scenario(p), a.seconds, seeds, match, cache)
    if a.only in (None, "dumbbell"):
        compare("dumbbell", dumbbell_scenario(), a.seconds, seeds, match, cache)


if __name__ == "__main__":
    main()
