//! Time-series sampling into columnar tables; packet captures (`pcap`).

pub mod events;
pub mod pcap;

use crate::params::{Dflt, Lit, Param, Ty};
use crate::results::Table;
use crate::units::{Dur, SimTime};

/// Which flows and links are sampled, and how often (resolved `[trace]`).
#[derive(Clone, Debug)]
pub struct TraceSpec {
    /// Sampling interval; `Dur::ZERO` turns sampling off.
    pub interval: Dur,
    /// Flow indices to sample.
    pub flows: Vec<usize>,
    /// Link indices to sample.
    pub links: Vec<usize>,
    /// Packet captures to write (`[trace] pcap`), in the order named.
    pub pcap: Vec<pcap::PcapSpec>,
    /// Per-packet event tables to record (`[trace] events`).
    pub events: events::EventKinds,
}

/// The `[trace]` table (names are resolved when the scenario is assembled).
pub const PARAMS: &[Param] = &[
    Param::duration("interval", "100ms")
        .doc("sampling interval; \"0s\" turns sampling off")
        .source("our choice: 100 ms, fine enough for RTTs of tens of milliseconds"),
    Param::new("flows", Ty::Selection("flow"), Dflt::Value(Lit::Str("all")))
        .doc("flows whose window, RTT, … are sampled: flow names, or the name of a [[flow]] entry with count > 1 (all its copies)")
        .source("all"),
    Param::new("links", Ty::Selection("link"), Dflt::Value(Lit::Str("all")))
        .doc("links whose queue is sampled: \"a->b\" (one direction) or the name of a [[link]] entry (both)")
        .source("all"),
    Param::new("max_samples", Ty::Int { min: 2, max: u64::MAX }, Dflt::None("every interval"))
        .doc("keep at most this many sampling instants over the run: the interval widens to duration / (max_samples − 1) when it must")
        .source("none: every interval (docs/reliability.md)"),
    pcap::PARAM,
    events::PARAM,
];

/// Column names of the per-flow table.
pub const FLOW_COLUMNS: [&str; 6] = [
    "time_s",
    "flow",
    "cwnd_bytes",
    "ssthresh_bytes",
    "srtt_s",
    "rate_bps",
];
/// Column names of the per-path table (multipath transports: one row per flow and path;
/// `path` is 1-based, bwe in payload bit/s, NaN where a transport has no such quantity).
pub const PATH_COLUMNS: [&str; 9] = [
    "time_s",
    "flow",
    "path",
    "cwnd_bytes",
    "ssthresh_bytes",
    "srtt_s",
    "bwe_bps",
    "beta",
    "alpha",
];
/// Column names of the MPTCP backoff table.
pub const BACKOFF_COLUMNS: [&str; 5] = [
    "time_s",
    "flow",
    "cause",
    "cwnd_before_bytes",
    "cwnd_after_bytes",
];
/// Column names of the per-link table.
pub const LINK_COLUMNS: [&str; 4] = ["time_s", "link", "queue_packets", "queue_bytes"];

/// One flow's state at a sampling instant.
#[derive(Clone, Copy, Debug)]
pub struct FlowSample {
    /// Congestion window in use (NaN for UDP).
    pub cwnd: f64,
    /// Slow-start threshold (NaN for UDP or while unbounded).
    pub ssthresh: f64,
    /// Smoothed RTT in seconds (NaN without a sample).
    pub srtt: f64,
    /// Bytes delivered to the receiving application so far.
    pub delivered: u64,
}

/// Periodic sampler of selected flows and links.
#[derive(Clone, Debug)]
pub struct Sampler {
    /// Interval between samples.
    pub interval: Dur,
    /// Flow indices sampled.
    pub flows: Vec<usize>,
    /// Link indices sampled.
    pub links: Vec<usize>,
    last_delivered: Vec<u64>,
    /// Bytes delivered at the previous sample of extra rows (MPTCP subflows), by slot.
    extra_delivered: Vec<u64>,
    last_time: SimTime,
    /// Per-flow table.
    pub flow_table: Table,
    /// Per-link table.
    pub link_table: Table,
    /// Per-path table (multipath transports).
    pub path_table: Table,
}

impl Sampler {
    /// A sampler; `interval == 0` disables it.
    pub fn new(interval: Dur, flows: Vec<usize>, links: Vec<usize>) -> Sampler {
        Sampler {
            interval,
            last_delivered: vec![0; flows.len()],
            extra_delivered: Vec::new(),
            flows,
            links,
            last_time: SimTime::ZERO,
            flow_table: Table::with_columns(&FLOW_COLUMNS),
            link_table: Table::with_columns(&LINK_COLUMNS),
            path_table: Table::with_columns(&PATH_COLUMNS),
        }
    }

    /// Whether sampling is on.
    pub fn enabled(&self) -> bool {
        self.interval.0 > 0 && (!self.flows.is_empty() || !self.links.is_empty())
    }

    /// Record flow `k` (position in `self.flows`) at `now`; the rate is computed from the
    /// bytes delivered since the previous sample.
    pub fn record_flow(&mut self, now: SimTime, k: usize, s: FlowSample) {
        let dt = now.since(self.last_time).secs();
        let rate = if dt > 0.0 {
            (s.delivered - self.last_delivered[k]) as f64 * 8.0 / dt
        } else {
            0.0
        };
        self.last_delivered[k] = s.delivered;
        let flow = self.flows[k] as f64;
        self.flow_table
            .push(&[now.secs(), flow, s.cwnd, s.ssthresh, s.srtt, rate]);
    }

    /// Record an extra row of the flow table (an MPTCP subflow, slot `slot`) at `now`,
    /// under flow index `row`.
    pub fn record_row(&mut self, now: SimTime, slot: usize, row: usize, s: FlowSample) {
        if self.extra_delivered.len() <= slot {
            self.extra_delivered.resize(slot + 1, 0);
        }
        let dt = now.since(self.last_time).secs();
        let rate = if dt > 0.0 {
            (s.delivered - self.extra_delivered[slot]) as f64 * 8.0 / dt
        } else {
            0.0
        };
        self.extra_delivered[slot] = s.delivered;
        self.flow_table
            .push(&[now.secs(), row as f64, s.cwnd, s.ssthresh, s.srtt, rate]);
    }

    /// Record link `link` at `now`.
    pub fn record_link(&mut self, now: SimTime, link: usize, packets: u64, bytes: u64) {
        self.link_table
            .push(&[now.secs(), link as f64, packets as f64, bytes as f64]);
    }

    /// Record one path of a multipath flow: a row in `PATH_COLUMNS` order.
    pub fn record_path(&mut self, row: &[f64; 9]) {
        self.path_table.push(row);
    }

    /// Close a sampling instant.
    pub fn finish_instant(&mut self, now: SimTime) {
        self.last_time = now;
    }
}
