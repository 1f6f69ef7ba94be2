//! Measuring as researchers measure: the `[measure]` window over which every summary is
//! computed.
//!
//! Without `[measure]`, summaries cover the whole run (each flow from its start to its
//! completion or the end), as they always have. With it, the simulation takes an account of
//! every cumulative counter when the window opens and when it closes (`Simulation::
//! run_until` stops at both instants), and the summaries are the differences: bytes
//! delivered in the window, goodput = those bytes over the window's length, utilisation =
//! bytes transmitted in the window over what the link could carry in it, drops and
//! retransmissions in the window, RTT statistics of the samples taken in it.

pub mod fct;
pub mod histogram;

use crate::params::{Dflt, Param, Ty};
use crate::results::{DropCounts, FlowSummary, LinkSummary};
use crate::units::{Dur, SimTime};
use serde::{Deserialize, Serialize};

/// The `[measure]` table's parameters.
pub const PARAMS: &[Param] = &[
    Param::duration("from", "0s")
        .doc("start of the measurement window: every summary (goodput, utilisation, RTT statistics, drops, …) counts only what happens after it, e.g. \"10s\" to leave out slow start")
        .source("our choice: 0 s (the whole run, as without [measure])"),
    Param::new("until", Ty::Duration { positive: true }, Dflt::None("the end of the run"))
        .doc("end of the measurement window (at most the run's duration)")
        .source("the end of the run"),
];

/// The resolved `[measure]` table.
#[derive(Clone, Debug, Deserialize)]
#[allow(missing_docs)] // declared in PARAMS
pub struct MeasureConfig {
    pub from: Dur,
    pub until: Option<Dur>,
}

/// The measurement window of a scenario, in simulated time (`from < until ≤ end`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Window {
    /// Start (s).
    pub from_s: f64,
    /// End (s).
    pub until_s: f64,
    #[serde(skip)]
    /// Start.
    pub from: SimTime,
    #[serde(skip)]
    /// End.
    pub until: SimTime,
}

impl Window {
    /// The window `[from, until]`.
    pub fn new(from: SimTime, until: SimTime) -> Window {
        Window {
            from_s: from.secs(),
            until_s: until.secs(),
            from,
            until,
        }
    }

    /// Its length in seconds.
    pub fn secs(&self) -> f64 {
        self.until.since(self.from).secs()
    }
}

/// A window being measured: the accounts taken at its edges so far.
#[derive(Clone, Debug)]
pub struct MeasureRun {
    /// The window.
    pub window: Window,
    /// The account when it opened.
    pub at_from: Option<Account>,
    /// The account when it closed (`None` until then, and when it closes at the end).
    pub at_until: Option<Account>,
}

impl MeasureRun {
    /// The next instant an account is due, if any (the end's is taken by `finish`).
    pub fn next_mark(&self, end: SimTime) -> Option<SimTime> {
        if self.at_from.is_none() {
            Some(self.window.from)
        } else if self.at_until.is_none() && self.window.until < end {
            Some(self.window.until)
        } else {
            None
        }
    }
}

/// Every cumulative counter of the summaries at one instant.
#[derive(Clone, Debug, Default)]
pub struct Account {
    /// Flow summaries as of the instant (goodput not meaningful).
    pub flows: Vec<FlowSummary>,
    /// Link summaries as of the instant (utilisation not meaningful).
    pub links: Vec<LinkSummary>,
}

fn sub_drops(a: &DropCounts, b: &DropCounts) -> DropCounts {
    let mut d = *a;
    for (x, y) in d.0.iter_mut().zip(b.0) {
        *x -= y;
    }
    d
}

/// A flow's summary over the window: counters `at_until − at_from`, RTT statistics of the
/// samples taken in the window (the estimators' reports restart when it opens), goodput
/// over the window's length. Name, start and completion time stay those of the whole run.
pub fn flow_in_window(
    whole: &FlowSummary,
    at_from: &FlowSummary,
    at_until: &FlowSummary,
    w: &Window,
) -> FlowSummary {
    let mut s = whole.clone();
    s.bytes_delivered = at_until.bytes_delivered - at_from.bytes_delivered;
    s.data_packets_sent = at_until.data_packets_sent - at_from.data_packets_sent;
    s.retransmissions = at_until.retransmissions - at_from.retransmissions;
    s.fast_recoveries = at_until.fast_recoveries - at_from.fast_recoveries;
    s.timeouts = at_until.timeouts - at_from.timeouts;
    s.connections = at_until.connections - at_from.connections;
    s.delay_backoffs = at_until.delay_backoffs - at_from.delay_backoffs;
    s.ecn_marks = at_until.ecn_marks - at_from.ecn_marks;
    s.ecn_reductions = at_until.ecn_reductions - at_from.ecn_reductions;
    s.drops = sub_drops(&at_until.drops, &at_from.drops);
    (s.rtt_min_s, s.rtt_mean_s, s.rtt_max_s) =
        (at_until.rtt_min_s, at_until.rtt_mean_s, at_until.rtt_max_s);
    (s.rtt_p50_s, s.rtt_p95_s, s.rtt_p99_s) =
        (at_until.rtt_p50_s, at_until.rtt_p95_s, at_until.rtt_p99_s);
    for (p, (a, b)) in s
        .paths
        .iter_mut()
        .zip(at_from.paths.iter().zip(&at_until.paths))
    {
        p.bytes_delivered = b.bytes_delivered - a.bytes_delivered;
        p.connections = b.connections - a.connections;
    }
    s.goodput_bps = s.bytes_delivered as f64 * 8.0 / w.secs();
    s
}

/// A link's summary over the window; utilisation is the bytes transmitted in the window
/// over what the link can carry in it (`capacity_bits`: `rate × length`, or what its
/// schedule or trace offers in the window).
pub fn link_in_window(
    at_from: &LinkSummary,
    at_until: &LinkSummary,
    capacity_bits: f64,
) -> LinkSummary {
    let bytes_out = at_until.bytes_out - at_from.bytes_out;
    LinkSummary {
        name: at_until.name.clone(),
        packets_in: at_until.packets_in - at_from.packets_in,
        packets_out: at_until.packets_out - at_from.packets_out,
        bytes_out,
        utilisation: bytes_out as f64 * 8.0 / capacity_bits,
        drops: sub_drops(&at_until.drops, &at_from.drops),
        ecn_marks: at_until.ecn_marks - at_from.ecn_marks,
        // The histogram restarted when the window opened.
        queue_delay: at_until.queue_delay.clone(),
    }
}
