//! What a run produces: per-flow and per-link summaries, the packet-conservation account,
//! and columnar time series.

use serde::Serialize;

/// Why a packet was dropped. The order is the column order of every per-cause count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    /// Arrived at a full DropTail queue (or RED's hard limit).
    QueueOverflow,
    /// Early drop by RED.
    Red,
    /// Bernoulli loss on the link.
    RandomLoss,
    /// Scripted loss on the link (tests).
    ScriptedLoss,
    /// The node had no route to the destination.
    NoRoute,
    /// The link was down.
    LinkDown,
    /// Dropped by an active queue management's congestion signal (the step marker's
    /// threshold, CoDel, PIE) because the packet was not ECN-capable.
    Aqm,
}

impl DropCause {
    /// Every cause, in column order.
    pub const ALL: [DropCause; 7] = [
        DropCause::QueueOverflow,
        DropCause::Red,
        DropCause::RandomLoss,
        DropCause::ScriptedLoss,
        DropCause::NoRoute,
        DropCause::LinkDown,
        DropCause::Aqm,
    ];
    /// Number of causes.
    pub const COUNT: usize = 7;
    /// Snake-case name, as in summaries and column names.
    pub fn name(self) -> &'static str {
        match self {
            DropCause::QueueOverflow => "queue_overflow",
            DropCause::Red => "red",
            DropCause::RandomLoss => "random_loss",
            DropCause::ScriptedLoss => "scripted_loss",
            DropCause::NoRoute => "no_route",
            DropCause::LinkDown => "link_down",
            DropCause::Aqm => "aqm",
        }
    }
}

/// Counts per drop cause, indexed by `DropCause as usize`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounts(pub [u64; DropCause::COUNT]);

impl DropCounts {
    /// Count one drop.
    #[inline]
    pub fn add(&mut self, c: DropCause) {
        self.0[c as usize] += 1;
    }
    /// All drops.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

impl Serialize for DropCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(DropCause::COUNT))?;
        for c in DropCause::ALL {
            m.serialize_entry(c.name(), &self.0[c as usize])?;
        }
        m.end()
    }
}

/// Packet conservation: `created == delivered + dropped.total() + in_flight`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Conservation {
    /// Packets put on the network by any endpoint.
    pub created: u64,
    /// Packets that reached their destination node.
    pub delivered: u64,
    /// Packets dropped, by cause.
    pub dropped: DropCounts,
    /// Packets in queues or on wires when the run ended.
    pub in_flight: u64,
}

impl Conservation {
    /// Whether the identity holds.
    pub fn holds(&self) -> bool {
        self.created == self.delivered + self.dropped.total() + self.in_flight
    }
}

/// Summary of one flow.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowSummary {
    /// Flow name.
    pub name: String,
    /// "tcp" or "udp".
    pub transport: String,
    /// Controller name ("reno", …), empty for UDP.
    pub cc: String,
    /// Loss recovery ("newreno", …), empty for UDP.
    pub recovery: String,
    /// Source node name.
    pub src: String,
    /// Destination node name.
    pub dst: String,
    /// When the application started (s); NaN if it never did.
    pub start_s: f64,
    /// Payload bytes delivered in order to the receiving application.
    pub bytes_delivered: u64,
    /// bytes_delivered × 8 / (end − start), end = completion or the end of the run.
    pub goodput_bps: f64,
    /// When a finite transfer completed: the absolute simulated time (s since the start
    /// of the run) at which its last byte reached the receiver, if it did.
    pub completion_time_s: Option<f64>,
    /// Payload bytes of a finite TCP transfer (absent for greedy and on/off sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// Flow completion time: completion_time_s − start_s (s), if it completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fct_s: Option<f64>,
    /// The FCT of the transfer alone on an empty path at line rate (`measure::fct`), for
    /// single-path TCP transfers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal_fct_s: Option<f64>,
    /// fct_s / ideal_fct_s (≥ 1), if both exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<f64>,
    /// Data packets sent, including retransmissions.
    pub data_packets_sent: u64,
    /// Retransmitted data packets.
    pub retransmissions: u64,
    /// Fast-retransmit (recovery) episodes.
    pub fast_recoveries: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// This flow's packets (data and ACK) dropped in the network, by cause.
    pub drops: DropCounts,
    /// Smallest RTT sample (s); NaN without samples.
    pub rtt_min_s: f64,
    /// Mean of RTT samples (s); NaN without samples.
    pub rtt_mean_s: f64,
    /// Largest RTT sample (s); NaN without samples.
    pub rtt_max_s: f64,
    /// With `[measure]`: the 50th, 95th and 99th percentiles of the RTT samples (s), from
    /// a histogram (`measure::histogram`, within 1.6 %); single-estimator senders only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_p50_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub rtt_p95_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub rtt_p99_s: Option<f64>,
    /// Number of TCP connections opened (on/off sources open one per ON period).
    pub connections: u64,
    /// MPTCP: DAIMD's delay-triggered window reductions (0 for other controllers).
    pub delay_backoffs: u64,
    /// TCP with ECN: data segments that reached the receiver marked CE.
    pub ecn_marks: u64,
    /// TCP with ECN: window reductions in response to ECN-Echo (at most one per window,
    /// RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// Per pinned path (flows with `paths`): what went over each.
    pub paths: Vec<PathSummary>,
}

/// One pinned path of a flow: the paths table has one row per (flow, path).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PathSummary {
    /// Path number (1-based, as in the scenario's `paths` list).
    pub path: u32,
    /// Payload bytes delivered in order over this path.
    pub bytes_delivered: u64,
    /// Connections that used this path (a MATCP source picks one per connection).
    pub connections: u64,
}

/// Summary of one directed link.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkSummary {
    /// Canonical name "from->to".
    pub name: String,
    /// Packets offered to the link.
    pub packets_in: u64,
    /// Packets that finished transmission.
    pub packets_out: u64,
    /// Bytes that finished transmission.
    pub bytes_out: u64,
    /// bytes_out × 8 / (rate × duration).
    pub utilisation: f64,
    /// Drops at this link, by cause.
    pub drops: DropCounts,
    /// ECN-capable packets this link's queue marked CE instead of dropping.
    pub ecn_marks: u64,
    /// With `[measure]`: the queueing delay of the packets the link accepted (entering it to
    /// starting transmission): mean and maximum exact, percentiles from a histogram
    /// (`measure::histogram`, within 1.6 %); NaN when none was accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_delay: Option<QueueDelay>,
}

/// Queueing-delay statistics of a link (s).
#[derive(Clone, Debug, Default, Serialize)]
#[allow(missing_docs)]
pub struct QueueDelay {
    pub packets: u64,
    pub mean_s: f64,
    pub p50_s: f64,
    pub p95_s: f64,
    pub p99_s: f64,
    pub max_s: f64,
}

impl QueueDelay {
    /// The statistics of a histogram of delays.
    pub fn of(h: &crate::measure::histogram::Histogram) -> QueueDelay {
        QueueDelay {
            packets: h.count(),
            mean_s: h.mean_s(),
            p50_s: h.quantile_s(0.5),
            p95_s: h.quantile_s(0.95),
            p99_s: h.quantile_s(0.99),
            max_s: h.max_s(),
        }
    }
}

/// Columnar time series. Each table is a set of equally long `f64` columns.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Per-flow samples: time_s, flow (index), cwnd_bytes (window in use, with fast-recovery
    /// inflation), ssthresh_bytes, srtt_s, rate_bps (goodput since the previous sample).
    pub flows: Table,
    /// Per-link samples: time_s, link (index), queue_packets, queue_bytes.
    pub links: Table,
    /// Per-path samples of multipath flows (`trace::PATH_COLUMNS`): time_s, flow, path,
    /// cwnd_bytes, ssthresh_bytes, srtt_s, bwe_bps, beta, alpha.
    pub paths: Table,
    /// Distance-vector routing samples, one row per (node, destination, next hop):
    /// time_s, node, dest, next_hop (indices), alpha, metric_s (π = p + q_next),
    /// price_s (the node price q). Empty without adaptive routing.
    pub routes: Table,
    /// MPTCP subflow window reductions, one row each: time_s, flow (the subflow's row in
    /// the flow summaries), cause (0 loss, 1 timeout, 2 DAIMD delay, 3 wVegas drain),
    /// cwnd_before_bytes, cwnd_after_bytes.
    pub backoffs: Table,
    /// Per-packet events (`[trace] events`, `trace::events`), one row each, sorted by
    /// time, over the whole run: drops (`DROP_COLUMNS`), ECN marks (`MARK_COLUMNS`), TCP
    /// retransmissions (`RETX_COLUMNS`) and timeouts (`TIMEOUT_COLUMNS`). Empty unless asked for.
    pub drops: Table,
    #[allow(missing_docs)]
    pub marks: Table,
    #[allow(missing_docs)]
    pub retx: Table,
    #[allow(missing_docs)]
    pub timeouts: Table,
}

/// Named `f64` columns of equal length.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Column names.
    pub names: Vec<&'static str>,
    /// Columns, parallel to `names`.
    pub columns: Vec<Vec<f64>>,
}

impl Table {
    /// An empty table with these columns.
    pub fn with_columns(names: &[&'static str]) -> Table {
        Table {
            names: names.to_vec(),
            columns: names.iter().map(|_| Vec::new()).collect(),
        }
    }
    /// Append one row (must have one value per column).
    pub fn push(&mut self, row: &[f64]) {
        debug_assert_eq!(row.len(), self.columns.len());
        for (c, v) in self.columns.iter_mut().zip(row) {
            c.push(*v);
        }
    }
    /// Bytes of memory the columns take.
    pub fn memory_bytes(&self) -> u64 {
        self.columns.iter().map(|c| c.capacity() as u64 * 8).sum()
    }
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, |c| c.len())
    }
    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunResult {
    /// ccsim version.
    pub version: String,
    /// Simulated time at the end (s).
    pub end_time_s: f64,
    /// Scenario seed.
    pub seed: u64,
    /// Events processed.
    pub events: u64,
    /// Per-flow summaries, in flow order.
    pub flows: Vec<FlowSummary>,
    /// Per-link summaries, in link order.
    pub links: Vec<LinkSummary>,
    /// The measurement window the flow and link summaries cover (`[measure]`); absent:
    /// the whole run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measure: Option<crate::measure::Window>,
    /// Packet conservation account (always over the whole run).
    pub conservation: Conservation,
    /// Things in the scenario that are legal but probably not what was meant.
    pub warnings: Vec<String>,
    /// Distance-vector protocol counters, with adaptive routing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<crate::net::dv::DvStats>,
    /// Time series (not serialised with the summary).
    #[serde(skip)]
    pub series: Series,
    /// Packet captures (`[trace] pcap`), in the order asked for (not serialised).
    #[serde(skip)]
    pub pcaps: Vec<PcapFile>,
}

/// One packet capture: a pcap file (nanosecond variant) built at the end of the run.
#[derive(Clone, Debug, Default)]
pub struct PcapFile {
    /// The name it was asked for by (`[trace] pcap`).
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Packets in it.
    pub packets: u64,
}
