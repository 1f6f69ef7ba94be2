//! Sampling and the end-of-run summary of a `Simulation` (a child module of `sim`, so it
//! reads the simulation's state directly).

use super::Simulation;
use crate::apps::TcpApp;
use crate::cc::coupled::BackoffCause;
use crate::cc::{AnyCc, CongestionControl};
use crate::measure::fct::ideal_fct;
use crate::measure::{flow_in_window, link_in_window, Account};
use crate::net::pinned::link_between;
use crate::results::{
    Conservation, DropCounts, FlowSummary, LinkSummary, PathSummary, PcapFile, QueueDelay,
    RunResult, Series,
};
use crate::scenario::{RecoverySpec, Scenario, TcpSpec, TransportSpec};
use crate::trace::{pcap, FlowSample};
use crate::transport::mptcp::{MptcpReceiver, MptcpSender};
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::Endpoint;
use crate::units::SimTime;

/// A TCP sender/receiver pair's sample (a flow, or an MPTCP subflow).
fn tcp_sample(s: &TcpSender, r: &TcpReceiver) -> FlowSample {
    let ss = s.cc().ssthresh().0;
    let srtt = s.rtt().srtt();
    FlowSample {
        cwnd: s.reported_cwnd() as f64,
        // No ssthresh yet (initial "infinity"): NaN.
        ssthresh: if ss >= u64::MAX / 4 {
            f64::NAN
        } else {
            ss as f64
        },
        srtt: if srtt.0 == 0 { f64::NAN } else { srtt.secs() },
        delivered: r.bytes_delivered,
    }
}

impl Simulation {
    fn flow_sample(&self, f: usize) -> FlowSample {
        let rt = &self.flows[f];
        match (
            &self.endpoints[rt.sender.idx()],
            &self.endpoints[rt.receiver.idx()],
        ) {
            (Endpoint::TcpSender(s), Endpoint::TcpReceiver(r)) => tcp_sample(s, r),
            (Endpoint::ArcSender(s), Endpoint::ArcReceiver(r)) => {
                let srtt = s.rtt().srtt();
                FlowSample {
                    cwnd: s.window(self.now) * (s.packet_bytes() as f64),
                    ssthresh: f64::NAN,
                    srtt: if srtt.0 == 0 { f64::NAN } else { srtt.secs() },
                    delivered: r.bytes_delivered(),
                }
            }
            (Endpoint::SctpSender(s), Endpoint::SctpReceiver(r)) => {
                crate::transport::sctp::flow_sample(s, r)
            }
            (Endpoint::MptcpSender(s), Endpoint::MptcpReceiver(r)) => {
                let n = s.subflow_count();
                let cwnd: u64 = (0..n).map(|k| s.subflow(k).reported_cwnd()).sum();
                let srtt = (0..n)
                    .map(|k| s.subflow(k).rtt().srtt())
                    .filter(|d| d.0 > 0)
                    .min();
                FlowSample {
                    cwnd: cwnd as f64,
                    ssthresh: f64::NAN,
                    srtt: srtt.map_or(f64::NAN, |d| d.secs()),
                    delivered: r.bytes_delivered,
                }
            }
            (_, Endpoint::UdpSink(k)) => FlowSample {
                cwnd: f64::NAN,
                ssthresh: f64::NAN,
                srtt: f64::NAN,
                delivered: k.bytes,
            },
            _ => unreachable!("flow endpoints are built in pairs"),
        }
    }

    /// Subflow `k` of MPTCP flow `f`, sampled like a flow.
    fn subflow_sample(&self, f: usize, k: usize) -> FlowSample {
        let rt = &self.flows[f];
        match (
            &self.endpoints[rt.sender.idx()],
            &self.endpoints[rt.receiver.idx()],
        ) {
            (Endpoint::MptcpSender(s), Endpoint::MptcpReceiver(r)) => {
                tcp_sample(s.subflow(k), r.subflow(k))
            }
            _ => unreachable!("subflow rows belong to MPTCP flows"),
        }
    }

    /// Collect the MPTCP senders' backoffs into the backoff table.
    fn collect_backoffs(&mut self) {
        let mut got = Vec::new();
        let mut row = self.flows.len();
        for rt in &mut self.flows {
            if let Endpoint::MptcpSender(s) = &mut self.endpoints[rt.sender.idx()] {
                s.take_backoffs(&mut got);
                for b in got.drain(..) {
                    let o = b.backoff;
                    self.backoffs.push(&[
                        o.at.secs(),
                        (row + b.subflow) as f64,
                        o.cause as u8 as f64,
                        o.before,
                        o.after,
                    ]);
                }
            }
            row += rt.path_drops.len();
        }
    }

    pub(super) fn sample(&mut self, now: SimTime) {
        for k in 0..self.sampler.flows.len() {
            let s = self.flow_sample(self.sampler.flows[k]);
            self.sampler.record_flow(now, k, s);
            let f = self.sampler.flows[k];
            if let Endpoint::SctpSender(tx) = &self.endpoints[self.flows[f].sender.idx()] {
                crate::transport::sctp::record_paths(&mut self.sampler, now, f, tx);
            }
        }
        for j in 0..self.subflow_rows.len() {
            let (f, k) = self.subflow_rows[j];
            if self.sampler.flows.contains(&f) {
                let s = self.subflow_sample(f, k);
                let row = self.flows.len() + j;
                self.sampler.record_row(now, j, row, s);
            }
        }
        self.collect_backoffs();
        for k in 0..self.sampler.links.len() {
            let l = self.sampler.links[k];
            let (packets, bytes) = self.links[l].occupancy_at(now);
            self.sampler.record_link(now, l, packets, bytes);
        }
        if let Some(dv) = &self.dv {
            dv.record(now, &mut self.route_table);
        }
        self.sampler.finish_instant(now);
    }

    /// The summaries as of `t` (the current time, or the end): every counter settled at
    /// `t` (see `Link::settled`). Returns (the account, packets in flight, drops by cause).
    /// Goodput is over each flow's interval up to `t`, utilisation over `[0, t]`.
    pub(super) fn account_at(&self, t: SimTime) -> (Account, u64, DropCounts) {
        let end = t;
        let sc = &self.scenario;
        let mut links = Vec::with_capacity(self.links.len());
        let mut in_flight = 0;
        let mut dropped = self.dropped;
        let mut flow_drops: Vec<DropCounts> = self.flows.iter().map(|f| f.drops).collect();
        for (i, l) in self.links.iter().enumerate() {
            let (stats, held, undo) = l.settled(end);
            in_flight += held;
            for d in undo {
                // A chained link decided this drop for a time after `t`: per hop, the
                // packet is still upstream, counted in flight there.
                dropped.0[d.cause as usize] -= 1;
                flow_drops[d.flow.idx()].0[d.cause as usize] -= 1;
            }
            let cap = l
                .schedule_capacity(SimTime::ZERO, end)
                .unwrap_or_else(|| l.rate.as_f64() * end.secs());
            links.push(LinkSummary {
                name: sc.links[i].name.clone(),
                packets_in: stats.packets_in,
                packets_out: stats.packets_out,
                bytes_out: stats.bytes_out,
                utilisation: if cap > 0.0 {
                    stats.bytes_out as f64 * 8.0 / cap
                } else {
                    0.0
                },
                drops: stats.drops,
                ecn_marks: stats.ecn_marks,
                queue_delay: l.sojourn_at(end).as_ref().map(QueueDelay::of),
            });
        }
        let mut flows = Vec::with_capacity(sc.flows.len());
        for (i, f) in sc.flows.iter().enumerate() {
            let rt = &self.flows[i];
            let mut s = FlowSummary {
                name: f.name.clone(),
                src: sc.nodes[f.from].clone(),
                dst: sc.nodes[f.to].clone(),
                drops: flow_drops[i],
                start_s: f64::NAN,
                ..Default::default()
            };
            let (start, completion) = match (
                &self.endpoints[rt.sender.idx()],
                &self.endpoints[rt.receiver.idx()],
                &f.transport,
            ) {
                (Endpoint::TcpSender(tx), Endpoint::TcpReceiver(rx), TransportSpec::Tcp(t)) => {
                    s.transport = "tcp".into();
                    s.cc = tx.cc().name().into();
                    s.recovery = recovery_name(t.recovery).into();
                    s.bytes_delivered = rx.bytes_delivered;
                    s.data_packets_sent = tx.stats.data_sent;
                    s.retransmissions = tx.stats.retransmissions;
                    s.fast_recoveries = tx.stats.fast_recoveries;
                    s.timeouts = tx.stats.timeouts;
                    s.connections = tx.stats.connections;
                    s.ecn_marks = rx.ce_received;
                    s.ecn_reductions = tx.stats.ecn_reductions;
                    (s.rtt_min_s, s.rtt_mean_s, s.rtt_max_s) = tx.rtt().stats();
                    rtt_percentiles(&mut s, tx.rtt());
                    for k in 1..=f.paths.len() {
                        s.paths.push(PathSummary {
                            path: k as u32,
                            bytes_delivered: rx.bytes_by_path.get(k).copied().unwrap_or(0),
                            connections: match tx.selector() {
                                Some(sel) => sel.chosen[k - 1],
                                None => tx.stats.connections,
                            },
                        });
                    }
                    (tx.stats.first_open, rx.completion)
                }
                (Endpoint::SctpSender(tx), Endpoint::SctpReceiver(rx), TransportSpec::Sctp(_)) => {
                    crate::transport::sctp::summarise(&mut s, tx, rx);
                    (tx.stats.first_open, rx.completion)
                }
                (Endpoint::UdpSource(src), Endpoint::UdpSink(sink), TransportSpec::Udp(_)) => {
                    s.transport = "udp".into();
                    s.bytes_delivered = sink.bytes;
                    s.data_packets_sent = src.sent;
                    (s.rtt_min_s, s.rtt_mean_s, s.rtt_max_s) = (f64::NAN, f64::NAN, f64::NAN);
                    (src.first_sent, None)
                }
                (Endpoint::ArcSender(tx), Endpoint::ArcReceiver(rx), TransportSpec::Arc(_)) => {
                    s.transport = "arc".into();
                    s.cc = "arc".into();
                    s.bytes_delivered = rx.bytes_delivered();
                    s.data_packets_sent = tx.stats.data_sent;
                    s.retransmissions = tx.stats.retransmissions;
                    // Reductions on a hole count as recoveries, on a report timeout as timeouts.
                    s.fast_recoveries = tx.stats.loss_events;
                    s.timeouts = tx.stats.timeouts;
                    s.connections = tx.stats.first_open.is_some() as u64;
                    (s.rtt_min_s, s.rtt_mean_s, s.rtt_max_s) = tx.rtt().stats();
                    rtt_percentiles(&mut s, tx.rtt());
                    (tx.stats.first_open, rx.completion())
                }
                (
                    Endpoint::MptcpSender(tx),
                    Endpoint::MptcpReceiver(rx),
                    TransportSpec::Mptcp(m),
                ) => {
                    s.transport = "mptcp".into();
                    s.cc = m.coupled.name().into();
                    s.recovery = recovery_name(m.tcp.recovery).into();
                    s.bytes_delivered = rx.bytes_delivered;
                    let n = tx.subflow_count();
                    for k in 0..n {
                        let sf = tx.subflow(k);
                        s.data_packets_sent += sf.stats.data_sent;
                        s.retransmissions += sf.stats.retransmissions;
                        s.fast_recoveries += sf.stats.fast_recoveries;
                        s.timeouts += sf.stats.timeouts;
                    }
                    s.connections = 1;
                    let stats: Vec<_> = (0..n).map(|k| tx.subflow(k).rtt().stats()).collect();
                    s.rtt_min_s = stats.iter().map(|x| x.0).fold(f64::NAN, f64::min);
                    s.rtt_max_s = stats.iter().map(|x| x.2).fold(f64::NAN, f64::max);
                    s.rtt_mean_s = f64::NAN;
                    s.delay_backoffs = (0..n).map(|k| delay_backoffs(tx.subflow(k))).sum();
                    // The paths table: subflow k's subflow-level bytes on path k.
                    for k in 0..n {
                        s.paths.push(PathSummary {
                            path: k as u32 + 1,
                            bytes_delivered: rx.subflow(k).bytes_delivered,
                            connections: tx.subflow(k).stats.connections,
                        });
                    }
                    (Some(tx.start), rx.completion)
                }
                _ => unreachable!("flow endpoints match their transport"),
            };
            if let Some(st) = start {
                s.start_s = st.secs();
                let stop = completion.unwrap_or(end);
                let span = stop.since(st).secs();
                s.goodput_bps = if span > 0.0 {
                    s.bytes_delivered as f64 * 8.0 / span
                } else {
                    0.0
                };
            }
            s.completion_time_s = completion.map(|c| c.secs());
            flows.push(s);
        }
        for &(f, k) in &self.subflow_rows {
            let rt = &self.flows[f];
            let (Endpoint::MptcpSender(tx), Endpoint::MptcpReceiver(rx)) = (
                &self.endpoints[rt.sender.idx()],
                &self.endpoints[rt.receiver.idx()],
            ) else {
                unreachable!("subflow rows belong to MPTCP flows")
            };
            flows.push(subflow_summary(sc, f, k, tx, rx, rt.path_drops[k], end));
        }
        (Account { flows, links }, in_flight, dropped)
    }

    /// Take the account at an edge of the measurement window (the simulation stands at
    /// `t`); when the window opens, the RTT reports restart.
    pub(super) fn measure_mark(&mut self, t: SimTime) {
        let (acc, _, _) = self.account_at(t);
        let Some(m) = self.measure.as_mut() else {
            return;
        };
        if m.at_from.is_none() {
            m.at_from = Some(acc);
            for e in &mut self.endpoints {
                e.each_rtt(&mut |r| r.restart_stats());
            }
            for l in &mut self.links {
                l.restart_sojourn(t);
            }
        } else {
            m.at_until = Some(acc);
        }
    }

    /// Run to the end and collect results.
    pub fn finish(mut self) -> RunResult {
        self.run_until(self.end);
        self.merge_peer();
        self.collect_backoffs();
        let end = self.end;
        let events = self.collect_events(end);
        let (whole, in_flight, dropped) = self.account_at(end);
        let Account {
            mut flows,
            mut links,
        } = whole;
        let mut window = None;
        if let Some(m) = self.measure.take() {
            let w = m.window;
            let at_from = m.at_from.expect("the window opened before the end");
            let at_until = m.at_until.unwrap_or(Account {
                flows: flows.clone(),
                links: links.clone(),
            });
            for (i, f) in flows.iter_mut().enumerate() {
                *f = flow_in_window(f, &at_from.flows[i], &at_until.flows[i], &w);
            }
            for (i, l) in links.iter_mut().enumerate() {
                let link = &self.links[i];
                let cap = link
                    .schedule_capacity(w.from, w.until)
                    .unwrap_or_else(|| link.rate.as_f64() * w.secs());
                *l = link_in_window(&at_from.links[i], &at_until.links[i], cap);
            }
            window = Some(w);
        }
        self.completion_times(&mut flows);
        let conservation = Conservation {
            created: self.created,
            delivered: self.delivered,
            dropped,
            in_flight,
        };
        RunResult {
            version: crate::VERSION.into(),
            end_time_s: end.secs(),
            seed: self.scenario.seed,
            events: self.n_events,
            flows,
            links,
            measure: window,
            conservation,
            warnings: std::mem::take(&mut self.warnings),
            routing: self.dv.as_ref().map(|dv| dv.stats.clone()),
            series: Series {
                flows: std::mem::take(&mut self.sampler.flow_table),
                links: std::mem::take(&mut self.sampler.link_table),
                paths: std::mem::take(&mut self.sampler.path_table),
                routes: std::mem::take(&mut self.route_table),
                backoffs: std::mem::take(&mut self.backoffs),
                drops: events.drops,
                marks: events.marks,
                retx: events.retx,
                timeouts: events.timeouts,
            },
            pcaps: self.write_pcaps(end),
        }
    }

    /// The packet captures, synthesised from the captured links' records (`trace::pcap`).
    fn write_pcaps(&self, end: SimTime) -> Vec<PcapFile> {
        let specs = &self.scenario.trace.pcap;
        if specs.is_empty() {
            return Vec::new();
        }
        let headers = pcap_headers(&self.scenario);
        let empty = pcap::LinkCapture::default();
        let cap = |l: usize| self.links[l].capture.as_deref().unwrap_or(&empty);
        specs
            .iter()
            .map(|p| {
                let mut parts = vec![(p.out, cap(p.out), pcap::Stamp::Start)];
                if let Some(b) = p.back {
                    parts.push((b, cap(b), pcap::Stamp::Arrival));
                }
                let (bytes, packets) = pcap::write(&headers, &parts, end);
                PcapFile {
                    name: p.name.clone(),
                    bytes,
                    packets,
                }
            })
            .collect()
    }
}

/// What the pcap writer needs of `sc`: each flow's ends and how its packets are written
/// (TCP and MPTCP subflows as TCP; CBR and ARC as UDP, ARC having no standard header;
/// SCTP), each link's ends.
fn pcap_headers(sc: &Scenario) -> pcap::Headers {
    let tcp = |t: &TcpSpec, subflows: bool| {
        let total = match t.app {
            TcpApp::Bulk { size, .. } if !subflows => size.map(|b| b.0),
            _ => None,
        };
        pcap::Proto::tcp(t.mss, t.header, total, t.max_window, subflows)
    };
    let flows = sc
        .flows
        .iter()
        .map(|f| {
            let proto = match &f.transport {
                TransportSpec::Tcp(t) => tcp(t, false),
                TransportSpec::Mptcp(m) => tcp(&m.tcp, true),
                TransportSpec::Udp(_) => pcap::Proto::UDP,
                TransportSpec::Arc(a) => pcap::Proto::Udp {
                    header: a.header as u64,
                },
                TransportSpec::Sctp(c) => pcap::Proto::Sctp {
                    overhead: c.overhead as u64,
                    rwnd: c.rwnd.min(u32::MAX as u64) as u32,
                },
            };
            (f.from as u32, f.to as u32, proto)
        })
        .collect();
    let links = sc
        .links
        .iter()
        .map(|l| (l.from as u32, l.to as u32))
        .collect();
    pcap::Headers::new(flows, links)
}

impl Simulation {
    /// FCT, and for single-path TCP transfers the ideal FCT and slowdown (`measure::fct`).
    fn completion_times(&self, flows: &mut [FlowSummary]) {
        let sc = &self.scenario;
        for (i, f) in sc.flows.iter().enumerate() {
            let s = &mut flows[i];
            if let Some(done) = s.completion_time_s {
                if !s.start_s.is_nan() {
                    // In whole nanoseconds (both are SimTimes, exact in f64 seconds × 1e9).
                    let ns = |x: f64| (x * 1e9).round() as u64;
                    s.fct_s = Some(crate::units::Dur(ns(done) - ns(s.start_s)).secs());
                }
            }
            let TransportSpec::Tcp(t) = &f.transport else {
                continue;
            };
            let TcpApp::Bulk {
                size: Some(size), ..
            } = &t.app
            else {
                continue;
            };
            s.size_bytes = Some(size.0);
            let path = match f.paths.as_slice() {
                [] => self.fwd.path(&sc.links, f.from, f.to),
                [nodes] => nodes
                    .windows(2)
                    .map(|w| link_between(&sc.links, w[0], w[1]))
                    .collect(),
                _ => None,
            };
            let Some(path) = path else { continue };
            let specs: Vec<_> = path.iter().map(|l| &sc.links[l.idx()]).collect();
            let ideal = ideal_fct(&specs, size.0, t.mss as u64, t.header as u64);
            s.ideal_fct_s = ideal.map(|d| d.secs());
            if let (Some(fct), Some(ideal)) = (s.fct_s, s.ideal_fct_s) {
                s.slowdown = Some(fct / ideal);
            }
        }
    }
}

/// The RTT percentiles of one estimator, when its distribution is kept.
fn rtt_percentiles(s: &mut FlowSummary, r: &crate::transport::tcp::rto::RttEstimator) {
    if let Some([p50, p95, p99]) = r.report().percentiles() {
        (s.rtt_p50_s, s.rtt_p95_s, s.rtt_p99_s) = (Some(p50), Some(p95), Some(p99));
    }
}

fn recovery_name(r: RecoverySpec) -> &'static str {
    match r {
        RecoverySpec::Reno => "reno",
        RecoverySpec::NewReno => "newreno",
        RecoverySpec::Sack => "sack",
        RecoverySpec::Sack1 => "sack1",
        RecoverySpec::Fack => "fack",
        RecoverySpec::Prr => "prr",
    }
}

fn delay_backoffs(tx: &TcpSender) -> u64 {
    match tx.cc() {
        AnyCc::Coupled(c) => c.counts[BackoffCause::Delay as usize],
        _ => 0,
    }
}

/// The summary row of subflow `k` of MPTCP flow `f`, named "<flow>/sf<k+1>"; its bytes
/// are those the subflow delivered in order at the subflow level.
fn subflow_summary(
    sc: &Scenario,
    f: usize,
    k: usize,
    tx: &MptcpSender,
    rx: &MptcpReceiver,
    drops: DropCounts,
    end: SimTime,
) -> FlowSummary {
    let spec = &sc.flows[f];
    let TransportSpec::Mptcp(m) = &spec.transport else {
        unreachable!("subflow rows belong to MPTCP flows")
    };
    let (sf, r) = (tx.subflow(k), rx.subflow(k));
    let mut s = FlowSummary {
        name: format!("{}/sf{}", spec.name, k + 1),
        transport: "mptcp-subflow".into(),
        cc: m.coupled.name().into(),
        recovery: recovery_name(m.tcp.recovery).into(),
        src: sc.nodes[spec.from].clone(),
        dst: sc.nodes[spec.to].clone(),
        drops,
        start_s: f64::NAN,
        bytes_delivered: r.bytes_delivered,
        data_packets_sent: sf.stats.data_sent,
        retransmissions: sf.stats.retransmissions,
        fast_recoveries: sf.stats.fast_recoveries,
        timeouts: sf.stats.timeouts,
        connections: sf.stats.connections,
        delay_backoffs: delay_backoffs(sf),
        ..Default::default()
    };
    (s.rtt_min_s, s.rtt_mean_s, s.rtt_max_s) = sf.rtt().stats();
    rtt_percentiles(&mut s, sf.rtt());
    if let Some(st) = sf.stats.first_open {
        s.start_s = st.secs();
        let stop = rx.completion.unwrap_or(end);
        let span = stop.since(st).secs();
        s.goodput_bps = if span > 0.0 {
            s.bytes_delivered as f64 * 8.0 / span
        } else {
            0.0
        };
    }
    s
}
