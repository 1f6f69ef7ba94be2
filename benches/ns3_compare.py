"""The same TCP scenarios in ccsim and in ns-3 (PyPI `ns3`), side by side (issue #19).

    python benches/ns3_compare.py [--seconds S] [--seeds N] [--only loss|dumbbell]

Prints, for each scenario, goodput, mean smoothed RTT, mean bottleneck queue and the
loss-recovery counts (fast recoveries, timeouts) of both simulators and their ratio
(ccsim / ns-3). A benchmark, not a test: docs/validation.md §7 holds a table it printed and
the mechanism behind each difference over 5 %.

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
import random
import statistics as st
import time

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
            void Hook() {
                Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState",
                                MakeCallback(&Cong));
                Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/RTT",
                                MakeCallback(&Rtt));
            }
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
            void Start(double hookAt, double period) {
                recoveries.clear(); timeouts.clear(); rttN.clear(); rttSum.clear();
                srtt.clear(); qN = 0; qSum = 0;
                Simulator::Schedule(Seconds(hookAt), &Hook);
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


def ns3_run(hosts, links, flows, loss_link, loss, bottleneck, secs, seed):
    """Build and run one scenario in ns-3.

    hosts: node names; links: (a, b, rate, delay_ms, queue_pkts); flows: (src, dst, start_s);
    loss_link: index of the link whose far end drops data packets with probability `loss`;
    bottleneck: index of the link whose a→b queue is sampled. Returns per-flow dicts and the
    mean bottleneck queue.
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
    ns.cppyy.gbl.cmp3.Start(0.0001, 0.01)
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


def ccsim_run(hosts, links, flows, loss_link, loss, bottleneck, secs, seed):
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
                  **NS3_MATCH} for k, (s, d, t) in enumerate(flows)],
    }
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


def compare(label, scenario, secs, seeds):
    rows = []
    for sim, run in (("ccsim", ccsim_run), ("ns-3", ns3_run)):
        t0 = time.perf_counter()
        per_seed = [run(*scenario(seed), secs, seed) for seed in range(1, seeds + 1)]
        wall = time.perf_counter() - t0
        nflows = len(per_seed[0][0])
        agg = []
        for k in range(nflows):
            agg.append({m: st.mean(ps[0][k][m] for ps in per_seed)
                        for m in ("goodput", "srtt", "recoveries", "timeouts")})
            gp = [ps[0][k]["goodput"] for ps in per_seed]
            agg[-1]["spread"] = (max(gp) - min(gp)) / 2 / st.mean(gp) if len(gp) > 1 else 0.0
        rows.append((sim, agg, st.mean(ps[1] for ps in per_seed), st.mean(ps[2] for ps in per_seed), wall))
    (_, a, qa, busy, wa), (_, b, qb, _, wb) = rows
    ratio = lambda x, y: x / y if y else float("nan")  # noqa: E731
    for k in range(len(a)):
        name = f"{label} flow {k}" if len(a) > 1 else label
        print(f"{name:<22}"
              f"{a[k]['goodput']/1e6:>8.3f}{b[k]['goodput']/1e6:>8.3f}{ratio(a[k]['goodput'], b[k]['goodput']):>7.3f}"
              f"{a[k]['srtt']*1e3:>8.1f}{b[k]['srtt']*1e3:>8.1f}{ratio(a[k]['srtt'], b[k]['srtt']):>7.3f}"
              f"{a[k]['recoveries']:>7.1f}{b[k]['recoveries']:>7.1f}"
              f"{a[k]['timeouts']:>6.1f}{b[k]['timeouts']:>6.1f}"
              f"   ±{a[k]['spread']*100:.0f} % / ±{b[k]['spread']*100:.0f} %")
    print(f"{label + ' queue':<22}{qa:>8.2f}{qb:>8.2f}{ratio(qa, qb):>7.3f}   packets, mean;"
          f" difference {qa - qb:.2f}, bottleneck busy {busy:.2f}; wall {wa:.1f} s / {wb:.1f} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--only", choices=["loss", "dumbbell"])
    a = ap.parse_args()
    print("ns-3 defaults:", ", ".join(f"{k} {v}" for k, v in ns3_defaults().items()))
    print(f"ccsim options: {NS3_MATCH}")
    print(f"{a.seconds:g} s per run, mean of {a.seeds} seeds")
    print(f"{'':<22}{'goodput Mb/s':^23}{'srtt ms':^23}{'recoveries':^14}{'timeouts':^12}")
    print(f"{'':<22}" + "   ccsim    ns-3  ratio" * 2 + "  ccsim   ns-3 ccsim  ns-3"
          "   goodput half-range over seeds (ccsim / ns-3)")
    if a.only in (None, "loss"):
        for p in LOSS_RATES:
            compare(f"loss {p*100:g} %", loss_scenario(p), a.seconds, a.seeds)
    if a.only in (None, "dumbbell"):
        compare("dumbbell", dumbbell_scenario(), a.seconds, a.seeds)


if __name__ == "__main__":
    main()
