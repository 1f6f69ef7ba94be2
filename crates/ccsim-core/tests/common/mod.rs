//! Scenario construction for integration tests, without going through the parser.
#![allow(dead_code)]

use ccsim_core::scenario::*;
use ccsim_core::units::{Bytes, Dur, Rate, SimTime};

pub fn tcp(recovery: RecoverySpec) -> TcpSpec {
    TcpSpec {
        cc: CcSpec::default(),
        recovery,
        mss: 1460,
        header: 40,
        max_window: None,
        init_cwnd: 3,
        dupthresh: 3,
        delayed_ack: Some(Dur::from_millis(100)),
        rto: RtoSpec::rfc6298(
            Dur::from_secs(1),
            Dur::from_secs(60),
            Dur::from_secs(1),
            Dur::from_millis(1),
        ),
        app: TcpApp::Bulk {
            size: None,
            start: at(0.0),
        },
        select: None,
        ecn: EcnMode::Off,
        limited_transmit: false,
        handshake: false,
        quick_acks: 0,
        rcv_autotune: false,
        push_flags: Default::default(),
        ack_pushed: false,
        sack_compress: false,
        sack_compress_delay: Dur::from_millis(1),
        sack_compress_slack: Dur::from_micros(100),
        sack_compress_nr: 44,
        tso_defer: false,
        pacing: Default::default(),
        lost_retransmit: Default::default(),
        loss_marking: Default::default(),
        prr: Default::default(),
        ssthresh_from: LossFlight::FlightSize,
        sack_option_bytes: false,
        recovery_burst: None,
        fack_restart: false,
        halving: Default::default(),
        sack_block_bytes: false,
        init_ssthresh: None,
    }
}

pub fn at(s: f64) -> StartSpec {
    let t = SimTime(Dur::from_secs_f64(s).0);
    StartSpec { lo: t, hi: t }
}

pub fn between(s: f64, e: f64) -> StartSpec {
    StartSpec {
        lo: SimTime(Dur::from_secs_f64(s).0),
        hi: SimTime(Dur::from_secs_f64(e).0),
    }
}

pub struct Net {
    pub sc: Scenario,
}

impl Net {
    pub fn new(duration_s: f64, seed: u64) -> Net {
        Net {
            sc: Scenario {
                duration: Dur::from_secs_f64(duration_s),
                seed,
                routing: RoutingMetric::Delay,
                link_model: LinkModel::Fast,
                threads: 1,
                memory_limit: None,
                trace: TraceSpec {
                    interval: Dur::from_millis(100),
                    flows: vec![],
                    links: vec![],
                    pcap: vec![],
                    events: Default::default(),
                },
                measure: None,
                nodes: vec![],
                links: vec![],
                flows: vec![],
                dv: None,
                ecmp: false,
                link_events: vec![],
            },
        }
    }

    pub fn node(&mut self, name: &str) -> usize {
        if let Some(i) = self.sc.node(name) {
            return i;
        }
        self.sc.nodes.push(name.into());
        self.sc.nodes.len() - 1
    }

    /// A duplex link; `queue` packets of DropTail in both directions.
    pub fn duplex(
        &mut self,
        a: &str,
        b: &str,
        mbps: f64,
        delay_ms: f64,
        queue: u64,
    ) -> (usize, usize) {
        let q = QueueSpec::DropTail {
            limit: QueueLimit::Packets(queue),
        };
        let x = self.link(a, b, mbps, delay_ms, q.clone(), LossSpec::None);
        let y = self.link(b, a, mbps, delay_ms, q, LossSpec::None);
        (x, y)
    }

    pub fn link(
        &mut self,
        a: &str,
        b: &str,
        mbps: f64,
        delay_ms: f64,
        queue: QueueSpec,
        loss: LossSpec,
    ) -> usize {
        let (from, to) = (self.node(a), self.node(b));
        self.sc.links.push(LinkSpec {
            name: format!("{a}->{b}"),
            alias: None,
            from,
            to,
            rate: Rate((mbps * 1e6) as u64),
            delay: Dur::from_secs_f64(delay_ms / 1000.0),
            queue,
            loss,
            schedule: None,
            jitter: Dur::ZERO,
        });
        self.sc.links.len() - 1
    }

    pub fn flow(&mut self, name: &str, from: &str, to: &str, t: TcpSpec) -> usize {
        let (from, to) = (self.node(from), self.node(to));
        self.sc.flows.push(FlowSpec {
            name: name.into(),
            from,
            to,
            transport: TransportSpec::Tcp(t),
            paths: vec![],
        });
        self.sc.flows.len() - 1
    }

    pub fn udp(
        &mut self,
        name: &str,
        from: &str,
        to: &str,
        mbps: f64,
        size: u64,
        jitter: f64,
    ) -> usize {
        let (from, to) = (self.node(from), self.node(to));
        self.sc.flows.push(FlowSpec {
            name: name.into(),
            from,
            to,
            transport: TransportSpec::Udp(CbrSpec {
                packet_size: Bytes(size),
                rate: Rate((mbps * 1e6) as u64),
                jitter,
                start: at(0.0),
                stop: None,
            }),
            paths: vec![],
        });
        self.sc.flows.len() - 1
    }

    /// Pin `flow` onto one more path, given as node names.
    pub fn pin(&mut self, flow: usize, nodes: &[&str]) {
        let p = nodes.iter().map(|n| self.node(n)).collect();
        self.sc.flows[flow].paths.push(p);
    }

    pub fn trace_all(mut self) -> Scenario {
        self.sc.trace.flows = (0..self.sc.flows.len()).collect();
        self.sc.trace.links = (0..self.sc.links.len()).collect();
        self.sc
    }
}

/// The benchmark dumbbell: n flows, each on its own pair of hosts.
pub fn dumbbell(
    n: usize,
    access_mbps: f64,
    bottleneck_mbps: f64,
    queue: u64,
    secs: f64,
    recovery: RecoverySpec,
    start_spread: f64,
) -> Scenario {
    let mut net = Net::new(secs, 1);
    net.duplex("r1", "r2", bottleneck_mbps, 10.0, queue);
    for i in 0..n {
        net.duplex(&format!("s{i}"), "r1", access_mbps, 5.0, queue);
        net.duplex("r2", &format!("d{i}"), access_mbps, 5.0, queue);
        let mut t = tcp(recovery);
        t.app = TcpApp::Bulk {
            size: None,
            start: between(0.0, start_spread),
        };
        net.flow(&format!("f{i}"), &format!("s{i}"), &format!("d{i}"), t);
    }
    net.trace_all()
}

pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    s * s / (xs.len() as f64 * s2)
}

/// A k-ary fat-tree (Al-Fares et al., SIGCOMM 2008) of duplex links, all `mbps` and
/// `delay_ms`: cores `c<i>`, per pod `p` aggregation switches `a<p>_<j>` and edge switches
/// `e<p>_<j>`, and `k/2` hosts `h<p>_<e>_<h>` per edge switch. Returns the hosts in order.
pub fn fat_tree(net: &mut Net, k: usize, mbps: f64, delay_ms: f64, queue: u64) -> Vec<String> {
    let half = k / 2;
    for c in 0..half * half {
        for p in 0..k {
            net.duplex(
                &format!("c{c}"),
                &format!("a{p}_{}", c / half),
                mbps,
                delay_ms,
                queue,
            );
        }
    }
    let mut hosts = Vec::new();
    for p in 0..k {
        for a in 0..half {
            for e in 0..half {
                net.duplex(
                    &format!("a{p}_{a}"),
                    &format!("e{p}_{e}"),
                    mbps,
                    delay_ms,
                    queue,
                );
            }
        }
        for e in 0..half {
            for h in 0..half {
                let host = format!("h{p}_{e}_{h}");
                net.duplex(&format!("e{p}_{e}"), &host, mbps, delay_ms, queue);
                hosts.push(host);
            }
        }
    }
    hosts
}

/// A k = 4 fat-tree of 10 Mb/s, 1 ms links with ECMP: each host sends a greedy TCP flow to
/// the host half the tree away (every flow crosses the core), plus a UDP flow.
pub fn ecmp_fat_tree(secs: f64, seed: u64) -> Scenario {
    let mut net = Net::new(secs, seed);
    let hosts = fat_tree(&mut net, 4, 10.0, 1.0, 30);
    let n = hosts.len();
    for (i, h) in hosts.iter().enumerate() {
        let to = &hosts[(i + n / 2) % n];
        net.flow(&format!("f{i}"), h, to, tcp(RecoverySpec::Sack));
    }
    net.udp("udp", &hosts[0], &hosts[5], 1.0, 500, 0.3);
    net.sc.ecmp = true;
    net.trace_all()
}
