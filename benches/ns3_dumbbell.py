"""The benchmark dumbbells in ns-3 (PyPI `ns3`), for a side-by-side timing with ccsim.

    python benches/ns3_dumbbell.py dumbbell-16|dumbbell-64-1g [--seconds S]

Same topology as `crates/ccsim-core/examples/bench.rs`: n senders and n receivers on their
own hosts, access links (1 Gb/s or 10 Gb/s, 5 ms), a bottleneck (100 Mb/s or 1 Gb/s, 10 ms),
DropTail queues of 333 (or 3333) packets on every device, 1500-byte packets (MSS 1460 +
40-byte headers), TCP NewReno with SACK, bulk senders starting at time 0, ACKs through the
mirror-image links. Prints the wall time of Simulator::Run and the payload delivered.
ns-3's own defaults are kept where ccsim's differ in ways that do not change the work much
(e.g. its delayed-ACK timer); this is a speed comparison, not a validation.
"""

import argparse
import time

from ns import ns

P = {
    "dumbbell-16": dict(n=16, access="1Gbps", bottleneck="100Mbps", queue=333, secs=100.0),
    "dumbbell-64-1g": dict(n=64, access="10Gbps", bottleneck="1Gbps", queue=3333, secs=20.0),
}


def build_and_run(name: str, secs: float | None) -> tuple[float, int]:
    p = P[name]
    secs = secs or p["secs"]
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1460))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))
    q = ns.QueueSizeValue(ns.QueueSize(f"{p['queue']}p"))

    routers = ns.NodeContainer()
    routers.Create(2)
    senders = ns.NodeContainer()
    senders.Create(p["n"])
    receivers = ns.NodeContainer()
    receivers.Create(p["n"])
    stack = ns.InternetStackHelper()
    stack.Install(routers)
    stack.Install(senders)
    stack.Install(receivers)

    def p2p(rate: str, delay: str) -> "ns.PointToPointHelper":
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        h.SetChannelAttribute("Delay", ns.StringValue(delay))
        h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", q)
        return h

    addr = ns.Ipv4AddressHelper()
    bott = p2p(p["bottleneck"], "10ms").Install(routers.Get(0), routers.Get(1))
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(bott)
    access = p2p(p["access"], "5ms")
    rx_addrs = []
    for i in range(p["n"]):
        d = access.Install(senders.Get(i), routers.Get(0))
        addr.SetBase(ns.Ipv4Address(f"10.1.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(d)
        d = access.Install(routers.Get(1), receivers.Get(i))
        addr.SetBase(ns.Ipv4Address(f"10.2.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        rx_addrs.append(addr.Assign(d).GetAddress(1))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    port = 5000
    sinks = []
    for i in range(p["n"]):
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        apps = sink.Install(receivers.Get(i))
        apps.Start(ns.Seconds(0.0))
        sinks.append(apps.Get(0))
        src = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(rx_addrs[i], port).ConvertTo())
        src.SetAttribute("MaxBytes", ns.UintegerValue(0))
        src.Install(senders.Get(i)).Start(ns.Seconds(0.0))
    ns.Simulator.Stop(ns.Seconds(secs))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0
    delivered = sum(ns.DynamicCast[ns.PacketSink](s).GetTotalRx() for s in sinks)
    ns.Simulator.Destroy()
    return wall, delivered


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("name", choices=sorted(P))
    ap.add_argument("--seconds", type=float, default=None)
    a = ap.parse_args()
    wall, delivered = build_and_run(a.name, a.seconds)
    print(f"{a.name} wall_s={wall:.3f} payload_bytes={delivered} data_pkts={delivered // 1460}")


if __name__ == "__main__":
    main()
