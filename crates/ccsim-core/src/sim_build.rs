//! Building a simulation from a typed scenario (a child module of `sim`): links and their
//! queue disciplines, routes, endpoints with their applications, controllers and random
//! streams, the samplers, and the checks a scenario built by hand (not parsed) must pass.

use super::*;
use crate::apps::SenderApp;
use crate::engine::{Event, EventQueue};
use crate::ids::LinkId as Lid;
use crate::ids::{EndpointId, FlowId, LinkId, NodeId};
use crate::net::codel::Codel;
use crate::net::droptail::DropTail;
use crate::net::dv::{DistanceVector, ROUTE_COLUMNS};
use crate::net::ecmp;
use crate::net::fq_codel::FqCodel;
use crate::net::pie::Pie;
use crate::net::pinned::PinnedPaths;
use crate::net::red::{Red, RedParams};
use crate::net::routing::ForwardingTable;
use crate::net::step::StepMark;
use crate::net::{Link, QueueDisc};
use crate::results::{DropCounts, Table};
use crate::rng::SimRng;
use crate::scenario::TcpApp;
use crate::scenario::{LinkModel, QueueSpec, Scenario, ScenarioError, TransportSpec};
use crate::trace::Sampler;
use crate::trace::BACKOFF_COLUMNS;
use crate::transport::arc::{ArcReceiver, ArcSender};
use crate::transport::mptcp::{MptcpReceiver, MptcpSender};
use crate::transport::sctp::{SctpReceiver, SctpSender};
use crate::transport::tcp::path_select::PathSelector;
use crate::transport::tcp::sack_compress::SackCompress;
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::udp::{UdpSink, UdpSource};
use crate::transport::Endpoint;
use crate::units::{Rate, SimTime};

impl Simulation {
    /// Build the whole network; with `part`, only that part's endpoints are started.
    pub(super) fn build(
        scenario: Scenario,
        part: Option<sim_parallel::Part>,
    ) -> Result<Simulation, ScenarioError> {
        let n = scenario.nodes.len();
        let mut problems = Vec::new();
        for (i, l) in scenario.links.iter().enumerate() {
            if l.from >= n || l.to >= n || l.from == l.to {
                problems.push(invalid(
                    format!("link[{i}]"),
                    "endpoints must be two known, distinct nodes".into(),
                ));
            }
            if l.rate.0 == 0 {
                problems.push(invalid(format!("link[{i}].rate"), "must be > 0".into()));
            }
            // The parser refuses these too (`scenario::assemble`), with the entry's path.
            if l.schedule.is_some()
                && (scenario.link_model != LinkModel::Fast
                    || matches!(
                        l.queue,
                        QueueSpec::Codel(_) | QueueSpec::Pie(_) | QueueSpec::FqCodel(_)
                    ))
            {
                problems.push(invalid(
                    format!("link[{i}]"),
                    "a time-varying link needs the fast link model and a FIFO queue (droptail, red or step)".into(),
                ));
            }
        }
        for (i, f) in scenario.flows.iter().enumerate() {
            if f.from >= n || f.to >= n || f.from == f.to {
                problems.push(invalid(
                    format!("flow[{i}]"),
                    "endpoints must be two known, distinct nodes".into(),
                ));
            }
        }
        if !problems.is_empty() {
            return Err(ScenarioError {
                source: "<scenario>".into(),
                problems,
            });
        }
        let seed = scenario.seed;
        let fwd = ForwardingTable::for_flows(&scenario);
        let flow_paths = flow_paths(&scenario);
        let mut pinned =
            PinnedPaths::new(&scenario.links, &flow_paths).map_err(|m| ScenarioError {
                source: "<scenario>".into(),
                problems: vec![invalid("flow".into(), m)],
            })?;
        if scenario.ecmp {
            ecmp::pin_routes(
                &scenario.links,
                n,
                scenario.routing,
                seed,
                &flow_paths,
                &mut pinned,
            );
        }
        let mut events = EventQueue::new();
        let links: Vec<Link> = scenario
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let disc = match &l.queue {
                    QueueSpec::DropTail { limit } => QueueDisc::DropTail(DropTail::new(*limit)),
                    QueueSpec::Red(r) => {
                        QueueDisc::Red(Red::new(RedParams::resolve(r, l.rate, l.delay)))
                    }
                    QueueSpec::Step(s) => QueueDisc::Step(StepMark::new(*s)),
                    QueueSpec::Codel(c) => QueueDisc::Codel(Box::new(Codel::new(*c))),
                    QueueSpec::Pie(p) => QueueDisc::Pie(Box::new(Pie::new(*p))),
                    QueueSpec::FqCodel(f) => QueueDisc::FqCodel(Box::new(FqCodel::new(*f))),
                };
                let mut link = Link::new(
                    LinkId(i as u32),
                    NodeId(l.from as u32),
                    NodeId(l.to as u32),
                    l.rate,
                    l.delay,
                    disc,
                    &l.loss,
                    scenario.link_model,
                    seed,
                    &format!("link:{}", l.name),
                );
                if let Some(s) = &l.schedule {
                    link.set_schedule(s.clone());
                }
                link.set_jitter(l.jitter, seed, &format!("link:{}", l.name));
                link
            })
            .collect();
        let mut links = links;
        let mut part = part;
        // Chaining assumes a fixed upstream per link: not with adaptive routes or failures.
        // Nor with a link that decides at dequeue (CoDel, PIE, FQ-CoDel): it runs the dequeue-time model,
        // which is offered packets at the current time only, so nothing is fed ahead.
        let static_net = scenario.dv.is_none()
            && scenario.link_events.is_empty()
            && !scenario.links.iter().any(|l| l.queue.decides_at_dequeue());
        let mut inline_in = vec![None; 2 * scenario.flows.len()];
        let mut merges = Vec::new();
        if scenario.link_model == LinkModel::Fast && static_net {
            let routes = sim_merge::every_route(&scenario, &fwd, &pinned);
            let chains = sim_merge::chain_feeders(&routes, links.len());
            if let Some(p) = &mut part {
                p.assign_links(&scenario, &links, &chains);
                p.extend_lookahead(&scenario, &links, &chains, &routes);
            }
            for (l, from) in chains.into_iter().enumerate() {
                // A part chains only into the links it runs.
                if part.as_ref().is_some_and(|p| !p.runs(LinkId(l as u32))) {
                    continue;
                }
                links[l].chained_from = from;
                if let Some(up) = from {
                    links[up.idx()].feeds_chain = true;
                }
            }
            inline_in = sim_inline::inline_endpoints(&scenario, &routes, &fwd, &pinned);
            let local = |l: &Link| part.as_ref().is_none_or(|p| p.runs(l.id));
            let (points, into) = sim_merge::merge_points(&routes, &links, local);
            for (l, m) in into.into_iter().enumerate() {
                links[l].merge_into = m;
            }
            merges = points;
        }
        if let Some(p) = &part {
            for l in &mut links {
                l.exits = p.runs(l.id) && !p.owns(l.to);
            }
        }
        for p in &scenario.trace.pcap {
            for l in std::iter::once(p.out).chain(p.back) {
                links[l].enable_capture();
            }
        }
        let mut endpoints = Vec::with_capacity(2 * scenario.flows.len());
        let mut ep_node = Vec::with_capacity(2 * scenario.flows.len());
        let mut ep_path = Vec::with_capacity(2 * scenario.flows.len());
        let mut flows = Vec::with_capacity(scenario.flows.len());
        let mut warnings = Vec::new();
        for (i, f) in scenario.flows.iter().enumerate() {
            let fid = FlowId(i as u32);
            let tx = EndpointId(endpoints.len() as u32);
            let rx = EndpointId(tx.0 + 1);
            let (src, dst) = (NodeId(f.from as u32), NodeId(f.to as u32));
            let rng = SimRng::stream_of(seed, &["flow:", &f.name, ":app"]);
            match &f.transport {
                TransportSpec::Tcp(t) => {
                    if let Some(d) = t.delayed_ack {
                        if t.rto.min <= d {
                            warnings.push(format!(
                                "flow {}: minimum RTO ({}) is not above the delayed-ACK timeout ({}); a \
                                 sender at one segment may time out while its ACK is delayed",
                                f.name, t.rto.min, d
                            ));
                        }
                    }
                    let app = SenderApp::new(&t.app, rng);
                    let total = app.total_bytes();
                    let cc_seed = SimRng::stream_of(seed, &["flow:", &f.name, ":cc"]).next_u64();
                    let mut tx_ep =
                        TcpSender::new(fid, dst, rx, t.clone(), app).with_cc_seed(cc_seed);
                    if let Some(sel) = t.select {
                        let rng = SimRng::stream_of(seed, &["flow:", &f.name, ":select"]);
                        tx_ep = tx_ep.with_selector(PathSelector::new(sel, f.paths.len(), rng));
                    }
                    endpoints.push(Endpoint::TcpSender(tx_ep));
                    endpoints.push(Endpoint::TcpReceiver(
                        TcpReceiver::new(fid, src, tx, t.mss, t.header, t.delayed_ack, total)
                            .with_sack_option_bytes(t.sack_option_bytes)
                            .with_quick_acks(t.quick_acks)
                            .with_rcv_autotune(t.rcv_autotune)
                            .with_ack_pushed(t.ack_pushed)
                            .with_sack_compress(SackCompress::of(t))
                            .with_ecn(t.ecn)
                            .with_sack_block_bytes(t.sack_block_bytes),
                    ));
                }
                TransportSpec::Arc(a) => {
                    let app = SenderApp::new(&a.app, rng);
                    let total = app.total_bytes();
                    // ARC caps its rate at its interface: the first link towards the peer.
                    let first = match pinned.count(fid) {
                        1 => pinned.links(fid, 1, true).first().copied(),
                        _ => fwd.next_link(f.from, f.to),
                    };
                    let interface = first.map_or(Rate(u64::MAX), |l| scenario.links[l.idx()].rate);
                    endpoints.push(Endpoint::ArcSender(ArcSender::new(
                        fid,
                        dst,
                        rx,
                        a.clone(),
                        interface,
                        app,
                    )));
                    endpoints.push(Endpoint::ArcReceiver(ArcReceiver::new(
                        fid, src, tx, a, total,
                    )));
                }
                TransportSpec::Sctp(c) => {
                    let app = SenderApp::new(&c.app, rng);
                    let total = app.total_bytes();
                    let n_paths = f.paths.len();
                    endpoints.push(Endpoint::SctpSender(SctpSender::new(
                        fid,
                        dst,
                        rx,
                        c.clone(),
                        n_paths,
                        app,
                    )));
                    endpoints.push(Endpoint::SctpReceiver(SctpReceiver::new(
                        fid,
                        src,
                        tx,
                        c.mtu - c.overhead,
                        total,
                        c.sack_delay,
                        c.dac,
                    )));
                }
                TransportSpec::Mptcp(m) => {
                    let total = match m.tcp.app {
                        TcpApp::Bulk { size, .. } => size.map(|b| b.0),
                        TcpApp::OnOff { .. } => None,
                    };
                    let tx_ep = MptcpSender::new(fid, dst, rx, m, rng);
                    endpoints.push(Endpoint::MptcpSender(tx_ep));
                    endpoints.push(Endpoint::MptcpReceiver(MptcpReceiver::new(
                        fid, src, tx, m, total,
                    )));
                }
                TransportSpec::Udp(c) => {
                    endpoints.push(Endpoint::UdpSource(UdpSource::new(fid, dst, rx, c, rng)));
                    endpoints.push(Endpoint::UdpSink(UdpSink::default()));
                }
            }
            ep_node.push(src);
            ep_node.push(dst);
            let n_paths = match &f.transport {
                TransportSpec::Mptcp(m) => m.joins.len(),
                _ => 0,
            };
            let stamp = u8::from(pinned.count(fid) == 1);
            ep_path.push(stamp);
            ep_path.push(stamp);
            flows.push(FlowRuntime {
                sender: tx,
                receiver: rx,
                drops: DropCounts::default(),
                path_drops: vec![DropCounts::default(); n_paths],
            });
        }
        let subflow_rows: Vec<(usize, usize)> = flows
            .iter()
            .enumerate()
            .flat_map(|(i, rt)| (0..rt.path_drops.len()).map(move |k| (i, k)))
            .collect();
        let sampler = Sampler::new(
            scenario.trace.interval,
            scenario.trace.flows.clone(),
            scenario.trace.links.clone(),
        );
        let next_sample = if sampler.enabled() {
            events.push_timer(SimTime::ZERO, Event::Sample);
            SimTime::ZERO
        } else {
            SimTime::NEVER
        };
        let end = SimTime::ZERO + scenario.duration;
        // Only a whole network is measured (two threads run on one with a window).
        let measure = match scenario.measure {
            Some(window) if part.is_none() => Some(crate::measure::MeasureRun {
                window,
                at_from: None,
                at_until: None,
            }),
            _ => None,
        };
        let dv = scenario
            .dv
            .as_ref()
            .map(|d| DistanceVector::new(d, &scenario.nodes, &scenario.links, seed));
        let mut link_events: Vec<(SimTime, Lid, bool)> = scenario
            .link_events
            .iter()
            .flat_map(|e| e.links.iter().map(move |&l| (e.at, Lid(l as u32), e.up)))
            .collect();
        link_events.sort_by_key(|e| e.0);
        let mut sim = Simulation {
            now: SimTime::ZERO,
            end,
            events,
            links,
            fwd,
            pinned,
            ep_pending: vec![Vec::with_capacity(4); endpoints.len()],
            endpoints,
            ep: ep_node
                .iter()
                .zip(&ep_path)
                .map(|(&node, &path)| EpState {
                    node,
                    path,
                    clock: SimTime::ZERO,
                    due: SimTime::NEVER,
                })
                .collect(),
            flows,
            out: Vec::with_capacity(64),
            created: 0,
            delivered: 0,
            dropped: DropCounts::default(),
            n_events: 0,
            sampler,
            warnings,
            dv,
            link_events,
            next_link_event: 0,
            control_pending: Vec::new(),
            route_table: Table::with_columns(&ROUTE_COLUMNS),
            subflow_rows,
            backoffs: Table::with_columns(&BACKOFF_COLUMNS),
            inline_in,
            inline_work: Default::default(),
            inlining: false,
            flushing: 0,
            horizon: SimTime::ZERO,
            next_sample,
            memory_limit: crate::scenario::budget::memory_limit(&scenario),
            scenario,
            part,
            peer: None,
            merges,
            failure: None,
            measure,
            node_drops: None,
        };
        sim.enable_events();
        sim.reschedule_control();
        if sim.measure.is_some() {
            // Distributions of RTTs and queueing delays are kept only when measuring.
            for e in &mut sim.endpoints {
                e.each_rtt(&mut |r| r.keep_distribution());
            }
            for l in &mut sim.links {
                l.enable_sojourn();
            }
        }
        for e in 0..sim.endpoints.len() {
            if sim.part.as_ref().is_none_or(|p| p.owns(sim.ep[e].node)) {
                sim.reschedule(EndpointId(e as u32));
            }
        }
        Ok(sim)
    }
}
