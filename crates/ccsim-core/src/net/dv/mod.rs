//! Multipath distance-vector routing with adaptive split ratios: the RIP variant of Mallada &
//! Paganini (NET-COOP 2007, §3.2), run by every node (docs/routing.md).
//!
//! Every router keeps, per destination, all next hops with their metric π_j = p_ij + q_j and
//! split α_ij (`table::DestTable`). Announcements (destination, metric, improper flag) are
//! real packets on the links (`PacketKind::Route`, one entry per packet), so they take link
//! capacity and propagation delay and can be lost. They are sent by every router every Δr,
//! and at once for one destination when the router's announced state changes structurally
//! (a new destination, the improper flag, a change to or from an infinite metric, or a new
//! poison-reverse target; ALGORITHMS.md §3.0.4 item 4). Splits adapt every Δa. By default all
//! routers tick together at multiples of Δr and Δa, in node order; `jitter`, `first_update`
//! and `period_jitter` desynchronise them as RIP (RFC 2453 §3.8) and ns-2's DV do.
//!
//! The agent is sans-IO like the transports: the simulation gives it link prices and link
//! state, delivers announcements to it, and sends what it queues in `outbox`.

pub mod config;
pub mod table;

use crate::ids::{EndpointId, FlowId, LinkId, NodeId};
use crate::net::link_config::LinkSpec;
use crate::packet::{Packet, PacketKind};
use crate::results::Table;
use crate::rng::SimRng;
use crate::units::{Dur, SimTime};
pub use config::{DvInitial, DvSpec, LinkEvent};
use table::{DestTable, Row};

/// Flag on a route announcement: the announced route is improper.
pub const FLAG_IMPROPER: u8 = 4;
/// The `flow` of route announcements (they belong to no flow).
pub const ROUTE_FLOW: FlowId = FlowId(u32::MAX);

/// Column names of the routes time series.
pub const ROUTE_COLUMNS: [&str; 7] = [
    "time_s", "node", "dest", "next_hop", "alpha", "metric_s", "price_s",
];

/// Counters of the protocol.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct DvStats {
    /// Node names, indexed as in the routes time series.
    pub nodes: Vec<String>,
    /// Announcement packets handed to links.
    pub announcements_sent: u64,
    /// Announcement packets received by routers.
    pub announcements_received: u64,
    /// Triggered (non-periodic) announcements among those sent.
    pub triggered: u64,
    /// Adaptation rounds (all routers together).
    pub adaptations: u64,
    /// (Adaptation round, destination) pairs whose splits in use formed a loop.
    pub loops_seen: u64,
}

/// The routing agents of every node.
#[derive(Debug)]
pub struct DistanceVector {
    spec: DvSpec,
    n: usize,
    /// `tables[i][d]`: router i's table for destination d.
    tables: Vec<Vec<Option<DestTable>>>,
    /// Outgoing links of each node with their far ends.
    out: Vec<Vec<(usize, LinkId)>>,
    /// Link far ends, and whether each link is up.
    link_to: Vec<usize>,
    link_up: Vec<bool>,
    /// Each router's forwarding stream (`node:<name>:split`).
    rngs: Vec<SimRng>,
    /// What each router last announced per destination (see `Announced`).
    announced: Vec<Vec<Option<Announced>>>,
    /// Each router's next announcement and adaptation times.
    next_announce: Vec<SimTime>,
    next_adapt: Vec<SimTime>,
    /// Each router's timer stream (`node:<name>:timers`): phases and jittered periods.
    timer_rngs: Vec<SimRng>,
    /// Announcements to send: (link, packet).
    pub outbox: Vec<(LinkId, Packet)>,
    /// Counters.
    pub stats: DvStats,
}

/// The structural part of a router's announced state for one destination; a change sends a
/// triggered announcement: an infinite metric, the improper flag, the poison-reverse target,
/// and the set of next hops in use (bit mask of row positions).
type Announced = (bool, bool, Option<usize>, u64);

fn signature(t: &DestTable) -> Announced {
    let used = t
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.alpha > 0.0)
        .fold(0u64, |m, (k, _)| m | (1u64 << (k % 64)));
    (!t.q.is_finite(), t.improper, t.sole_next_hop(), used)
}

/// A timer period Δ·U(1 − x, 1 + x) (RFC 2453 §3.8; ns-2 DV `send-periodic-update`); Δ
/// exactly, without a draw, when x = 0.
fn jittered(period: Dur, x: f64, rng: &mut SimRng) -> Dur {
    if x == 0.0 {
        return period;
    }
    Dur::from_secs_f64(period.secs() * (1.0 - x + 2.0 * x * rng.uniform()))
}

fn encode_metric(q: f64) -> SimTime {
    if q.is_finite() {
        SimTime::ZERO + Dur::from_secs_f64(q.max(0.0))
    } else {
        SimTime::NEVER
    }
}

fn decode_metric(t: SimTime) -> f64 {
    if t == SimTime::NEVER {
        f64::INFINITY
    } else {
        t.secs()
    }
}

impl DistanceVector {
    /// Agents for `nodes` (names) over `links`, with the scenario's initial tables.
    pub fn new(spec: &DvSpec, nodes: &[String], links: &[LinkSpec], seed: u64) -> DistanceVector {
        let n = nodes.len();
        let mut out = vec![Vec::new(); n];
        for (i, l) in links.iter().enumerate() {
            out[l.from].push((l.to, LinkId(i as u32)));
        }
        let mut tables: Vec<Vec<Option<DestTable>>> = vec![vec![None; n]; n];
        for (i, row) in tables.iter_mut().enumerate() {
            // A router reaches itself at price 0 and announces it from the start.
            row[i] = Some(DestTable::new(Vec::new()));
        }
        for init in &spec.initial {
            let rows = init
                .split
                .iter()
                .filter_map(|&(j, a)| {
                    out[init.node]
                        .iter()
                        .find(|&&(to, _)| to == j)
                        .map(|&(_, l)| Row::new(j, l, a))
                })
                .collect();
            tables[init.node][init.dest] = Some(DestTable::new(rows));
        }
        // Timer phases: RIP randomises its timers so that routers do not synchronise
        // (RFC 2453 §3.8); `jitter` = 0 keeps every router on the same instants. The first
        // announcement may also come at U(0, first_update) (ns-2's DV).
        let mut timer_rngs: Vec<SimRng> = nodes
            .iter()
            .map(|name| SimRng::stream(seed, &format!("node:{name}:timers")))
            .collect();
        let phases: Vec<Dur> = timer_rngs
            .iter_mut()
            .map(|rng| {
                let span = spec.announce_interval.min(spec.adapt_interval).secs();
                let mut p = rng.uniform() * spec.jitter * span;
                if spec.first_update > Dur::ZERO {
                    p += rng.uniform() * spec.first_update.secs();
                }
                Dur::from_secs_f64(p)
            })
            .collect();
        let mut dv_first_adapt = Vec::with_capacity(n);
        for (i, &p) in phases.iter().enumerate() {
            let period = jittered(spec.adapt_interval, spec.period_jitter, &mut timer_rngs[i]);
            dv_first_adapt.push(SimTime::ZERO + p + period);
        }
        DistanceVector {
            spec: spec.clone(),
            n,
            tables,
            out,
            link_to: links.iter().map(|l| l.to).collect(),
            link_up: vec![true; links.len()],
            rngs: nodes
                .iter()
                .map(|name| SimRng::stream(seed, &format!("node:{name}:split")))
                .collect(),
            announced: vec![vec![None; n]; n],
            next_announce: phases.iter().map(|&p| SimTime::ZERO + p).collect(),
            next_adapt: dv_first_adapt,
            timer_rngs,
            outbox: Vec::new(),
            stats: DvStats {
                nodes: nodes.to_vec(),
                ..DvStats::default()
            },
        }
    }

    /// Router `node`'s table for `dest`, if it knows the destination.
    pub fn table(&self, node: usize, dest: usize) -> Option<&DestTable> {
        self.tables[node][dest].as_ref()
    }

    /// The node price q for `dest` at `node` (None if unknown).
    pub fn price(&self, node: usize, dest: usize) -> Option<f64> {
        self.table(node, dest).map(|t| t.q)
    }

    /// The outgoing link for a packet at `node` towards `dest`, drawn from the node's stream.
    #[inline]
    pub fn next_link(&mut self, node: usize, dest: usize) -> Option<LinkId> {
        let t = self.tables[node][dest].as_ref()?;
        let u = self.rngs[node].uniform();
        t.choose(u)
    }

    /// When the agents next need a tick.
    pub fn next_wakeup(&self) -> SimTime {
        let a = self.next_announce.iter().min().copied();
        let b = self.next_adapt.iter().min().copied();
        a.into_iter().chain(b).min().unwrap_or(SimTime::NEVER)
    }

    /// Periodic work due at `now`, router by router: adaptation (every Δa), then
    /// announcements (every Δr). `prices[l]` is link l's queueing delay in seconds.
    pub fn on_tick(&mut self, now: SimTime, prices: &[f64]) {
        let dt = self.spec.adapt_interval.secs();
        let mut adapted = false;
        for i in 0..self.n {
            let adapt = now >= self.next_adapt[i];
            let announce = now >= self.next_announce[i];
            if !(adapt || announce) {
                continue;
            }
            self.measure(i, prices);
            if adapt {
                let period = jittered(
                    self.spec.adapt_interval,
                    self.spec.period_jitter,
                    &mut self.timer_rngs[i],
                );
                self.next_adapt[i] = now + period;
                adapted = true;
                for t in self.tables[i].iter_mut().flatten() {
                    t.adapt(self.spec.beta, dt);
                    t.recompute();
                }
            }
            if announce {
                let period = jittered(
                    self.spec.announce_interval,
                    self.spec.period_jitter,
                    &mut self.timer_rngs[i],
                );
                self.next_announce[i] = now + period;
                for d in 0..self.n {
                    self.announce(now, i, d, false);
                }
            } else {
                // Structural changes (a hop starts or stops carrying traffic) go out at once.
                for d in 0..self.n {
                    self.trigger_if_changed(now, i, d);
                }
            }
        }
        if adapted {
            self.stats.adaptations += 1;
            for d in 0..self.n {
                if self.has_loop(d) {
                    self.stats.loops_seen += 1;
                }
            }
        }
    }

    /// Store router i's link prices (infinite while a link is down) and recompute its prices.
    fn measure(&mut self, i: usize, prices: &[f64]) {
        for t in self.tables[i].iter_mut().flatten() {
            for r in t.rows.iter_mut() {
                r.price = if self.link_up[r.link.idx()] {
                    prices[r.link.idx()]
                } else {
                    f64::INFINITY
                };
            }
            t.recompute();
        }
    }

    /// Link `l` failed (`up = false`) or recovered. The router at its near end sees its
    /// own interface: a failure moves the failed hop's share at once (an adaptation step
    /// with an infinite metric), and both changes are announced.
    pub fn set_link(&mut self, now: SimTime, l: LinkId, up: bool) {
        self.link_up[l.idx()] = up;
        let Some(i) = (0..self.n).find(|&i| self.out[i].iter().any(|&(_, x)| x == l)) else {
            return;
        };
        for d in 0..self.n {
            if let Some(t) = self.tables[i][d].as_mut() {
                let mut touched = false;
                for r in t.rows.iter_mut().filter(|r| r.link == l) {
                    r.price = if up { 0.0 } else { f64::INFINITY };
                    touched = true;
                }
                if touched {
                    if !up {
                        t.adapt(self.spec.beta, self.spec.adapt_interval.secs());
                    }
                    t.recompute();
                }
            }
        }
        for d in 0..self.n {
            self.announce(now, i, d, true);
        }
    }

    /// Queue router `i`'s announcement for destination `d` to every neighbour over live
    /// links; poison reverse towards the neighbour that receives all the traffic.
    fn announce(&mut self, now: SimTime, i: usize, d: usize, triggered: bool) {
        let Some(t) = self.tables[i][d].as_ref() else {
            return;
        };
        let (q, improper) = if i == d {
            (0.0, false)
        } else {
            (t.q, t.improper)
        };
        let poison = if i == d { None } else { t.sole_next_hop() };
        let poison_any = self.spec.poison_any && i != d;
        self.announced[i][d] = Some(signature(t));
        for k in 0..self.out[i].len() {
            let (j, l) = self.out[i][k];
            if !self.link_up[l.idx()] {
                continue;
            }
            let used = poison_any && t.rows.iter().any(|r| r.nbr == j && r.alpha > 0.0);
            let metric = if poison == Some(j) || used {
                f64::INFINITY
            } else {
                q
            };
            let mut p = Packet::new(
                PacketKind::Route,
                ROUTE_FLOW,
                NodeId(j as u32),
                EndpointId(0),
                self.spec.announce_bytes,
            );
            p.conn = i as u32;
            p.seq = d as u64;
            p.ts = encode_metric(metric);
            p.flags = if improper { FLAG_IMPROPER } else { 0 };
            self.outbox.push((l, p));
            self.stats.announcements_sent += 1;
            self.stats.triggered += triggered as u64;
        }
        let _ = now;
    }

    fn trigger_if_changed(&mut self, now: SimTime, i: usize, d: usize) {
        let Some(t) = self.tables[i][d].as_ref() else {
            return;
        };
        if i == d {
            return;
        }
        if Some(signature(t)) != self.announced[i][d] {
            self.announce(now, i, d, true);
        }
    }

    /// An announcement reached router `node` (the packet's destination).
    pub fn on_announcement(&mut self, now: SimTime, node: usize, pkt: &Packet) {
        self.stats.announcements_received += 1;
        let (j, d) = (pkt.conn as usize, pkt.seq as usize);
        if d == node || j >= self.n || d >= self.n {
            return;
        }
        let metric = decode_metric(pkt.ts);
        let improper = pkt.flags & FLAG_IMPROPER != 0;
        let Some(&(_, l)) = self.out[node].iter().find(|&&(to, _)| to == j) else {
            return; // no link back to j: it cannot be a next hop
        };
        let price = |dv: &Self| {
            if dv.link_up[l.idx()] {
                0.0
            } else {
                f64::INFINITY
            }
        };
        match self.tables[node][d].as_mut() {
            None => {
                if !metric.is_finite() {
                    return;
                }
                // A new destination: its first route takes all the traffic (paper §3.2).
                let mut r = Row::new(j, l, 1.0);
                r.q_nbr = metric;
                r.nbr_improper = improper;
                r.price = price(self);
                self.tables[node][d] = Some(DestTable::new(vec![r]));
            }
            Some(t) => {
                match t.row_mut(j) {
                    Some(r) => {
                        r.q_nbr = metric;
                        r.nbr_improper = improper;
                    }
                    None if metric.is_finite() => {
                        // A new route to a known destination starts unused.
                        let mut r = Row::new(j, l, 0.0);
                        r.q_nbr = metric;
                        r.nbr_improper = improper;
                        r.price = if self.link_up[l.idx()] {
                            0.0
                        } else {
                            f64::INFINITY
                        };
                        t.rows.push(r);
                    }
                    None => return,
                }
                t.recompute();
            }
        }
        self.trigger_if_changed(now, node, d);
    }

    /// Whether the next hops in use towards `d` contain a cycle.
    pub fn has_loop(&self, d: usize) -> bool {
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; self.n];
        for s in 0..self.n {
            if state[s] != 0 {
                continue;
            }
            let mut stack = vec![(s, 0usize)];
            state[s] = 1;
            while let Some(&mut (v, ref mut k)) = stack.last_mut() {
                let next = self.tables[v][d].as_ref().and_then(|t| {
                    if v == d {
                        return None;
                    }
                    t.rows
                        .iter()
                        .filter(|r| r.alpha > 0.0)
                        .nth(*k)
                        .map(|r| r.nbr)
                });
                *k += 1;
                match next {
                    Some(w) if state[w] == 1 => return true,
                    Some(w) if state[w] == 0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    Some(_) => {}
                    None => {
                        state[v] = 2;
                        stack.pop();
                    }
                }
            }
        }
        false
    }

    /// Append every (node, destination, next hop) row to the routes time series.
    pub fn record(&self, now: SimTime, out: &mut Table) {
        for i in 0..self.n {
            for d in 0..self.n {
                if i == d {
                    continue;
                }
                if let Some(t) = &self.tables[i][d] {
                    for r in &t.rows {
                        out.push(&[
                            now.secs(),
                            i as f64,
                            d as f64,
                            r.nbr as f64,
                            r.alpha,
                            r.metric(),
                            t.q,
                        ]);
                    }
                }
            }
        }
    }

    /// Far end of link `l`.
    pub fn link_to(&self, l: LinkId) -> usize {
        self.link_to[l.idx()]
    }
}

#[cfg(test)]
mod timer_tests {
    use super::*;
    use crate::net::link_config::LossSpec;
    use crate::net::queue::{QueueLimit, QueueSpec};
    use crate::units::Rate;

    fn link(from: usize, to: usize) -> LinkSpec {
        LinkSpec {
            name: format!("{from}->{to}"),
            alias: None,
            from,
            to,
            rate: Rate::mbps(10),
            delay: Dur::from_millis(1),
            queue: QueueSpec::DropTail {
                limit: QueueLimit::Packets(10),
            },
            loss: LossSpec::None,
            schedule: None,
            jitter: crate::units::Dur::ZERO,
        }
    }

    /// The times router 0 sends its periodic announcements up to `until`.
    fn announcement_times(spec: &DvSpec, until: f64) -> Vec<f64> {
        let names = vec!["a".to_string(), "b".to_string()];
        let mut dv = DistanceVector::new(spec, &names, &[link(0, 1), link(1, 0)], 7);
        let mut times = vec![];
        loop {
            let now = dv.next_wakeup();
            if now.secs() > until {
                return times;
            }
            dv.on_tick(now, &[0.0, 0.0]);
            // Nothing is delivered, so router 0 only knows itself and only its periodic
            // rounds announce (on link 0, its only link).
            if dv.outbox.iter().any(|(l, _)| l.idx() == 0) {
                times.push(now.secs());
            }
            dv.outbox.clear();
        }
    }

    #[test]
    fn periods_are_exact_by_default_and_redrawn_each_time_with_period_jitter() {
        let exact = announcement_times(&DvSpec::default(), 5.0);
        assert_eq!(exact.len(), 11);
        assert!(exact.windows(2).all(|w| (w[1] - w[0] - 0.5).abs() < 1e-9));
        // ns-2's DV (route-proto.tcl): first update U(0, 0.5 s), then advertInterval ×
        // U(0.9, 1.1) each time the timer is set.
        let ns2 = DvSpec {
            period_jitter: 0.1,
            first_update: Dur::from_millis(500),
            ..DvSpec::default()
        };
        let t = announcement_times(&ns2, 50.0);
        assert!(t[0] > 0.0 && t[0] < 0.5, "first update {}", t[0]);
        let gaps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            gaps.iter()
                .all(|&g| (0.45 - 1e-9..=0.55 + 1e-9).contains(&g)),
            "{gaps:?}"
        );
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let distinct = gaps.iter().filter(|&&g| (g - gaps[0]).abs() > 1e-6).count();
        assert!(
            (mean - 0.5).abs() < 0.01 && distinct > gaps.len() / 2,
            "{mean} {distinct}"
        );
    }
}
