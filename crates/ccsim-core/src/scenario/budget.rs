//! What a scenario will cost before it runs: an estimate of the memory it keeps (time
//! series, queued packets, routing state) checked against the memory limit, and of the
//! control work of adaptive routing checked against a fixed bound. A scenario over either
//! is refused with a located problem saying what to change; the run-time guard
//! (`Simulation`, `sim_memory.rs`) stops what the estimate cannot foresee.
//!
//! The estimates are upper bounds for the common cases, not exact figures; their rules are
//! listed in docs/reliability.md.

use crate::scenario::{Problem, QueueLimit, QueueSpec, Scenario, TransportSpec};
use crate::units::Dur;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Bytes one queued packet costs in memory: its 32-byte accounting slot and its 72-byte
/// delivery entry (packet and arrival time), in rings that grow by doubling (so up to twice
/// the slots they hold), plus the copy while one grows. Measured: 10 Gb/s of 1000-byte
/// packets into a 1 Mb/s link for 10 s (1.25e7 packets) peaks at 2.3 GB of RSS.
pub const BYTES_PER_QUEUED_PACKET: u64 = 256;
/// Copies of a time series alive while a run is handed to Python (the core's columns, the
/// bytes handed over, the DataFrame).
pub const SERIES_COPIES: u64 = 3;
/// The most routing timer firings (announcements and adaptations, summed over routers) a
/// run may schedule.
pub const MAX_ROUTING_ROUNDS: u64 = 100_000_000;
/// The default memory limit when the machine's memory cannot be read.
pub const FALLBACK_LIMIT: u64 = 8 << 30;

/// Columns of each time-series table (see `trace`, `net::dv`).
const FLOW_COLS: u64 = 6;
const LINK_COLS: u64 = 4;
const PATH_COLS: u64 = 9;
const ROUTE_COLS: u64 = 7;

/// The memory limit in force for `sc`: `[simulation] memory_limit`, else the default.
pub fn memory_limit(sc: &Scenario) -> u64 {
    sc.memory_limit.unwrap_or_else(default_memory_limit)
}

/// The default memory limit: the environment variable `CCSIM_MEMORY_LIMIT` (bytes, or a
/// size such as "2GiB") if set, else half of the machine's physical memory.
pub fn default_memory_limit() -> u64 {
    static LIMIT: OnceLock<u64> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        if let Ok(text) = std::env::var("CCSIM_MEMORY_LIMIT") {
            let t = text.trim();
            if let Some(b) = t
                .parse::<u64>()
                .ok()
                .or_else(|| crate::units::parse::parse_size(t).ok().map(|b| b.0))
            {
                if b > 0 {
                    return b;
                }
            }
        }
        machine_memory().map_or(FALLBACK_LIMIT, |m| m / 2)
    })
}

/// Physical memory in bytes (Linux: `MemTotal` of /proc/meminfo).
fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// One part of the estimate: where it comes from (a document path), what it is, bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The setting that drives it, as a document path.
    pub path: String,
    /// What grows, for the message (`Item::words`).
    pub what: What,
    /// Estimated bytes.
    pub bytes: u64,
}

/// What an item of the estimate is. A queue's words are made only for a message: a
/// fat-tree has 10⁵ queues, and formatting each was a tenth of a 4 096-flow set-up.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// Said in full.
    Text(String),
    /// The queue of a link, whose inputs can queue about `held` packets.
    Queue {
        /// The link: an index into `Scenario::links`.
        link: usize,
        /// Packets its inputs can queue in the run, up to its limit.
        held: f64,
    },
}

impl Item {
    /// What grows, in words for a message.
    pub fn words(&self, sc: &Scenario) -> String {
        match &self.what {
            What::Text(t) => t.clone(),
            What::Queue { link, held } => {
                let l = &sc.links[*link];
                let limit = match &l.queue {
                    QueueSpec::DropTail {
                        limit: QueueLimit::Bytes(b),
                    } => format!("{b}B"),
                    QueueSpec::DropTail {
                        limit: QueueLimit::Packets(p),
                    } => format!("{p}p"),
                    QueueSpec::Red(r) => format!("{}p", r.limit),
                    QueueSpec::Step(q) => format!("{}p", q.limit),
                    QueueSpec::Codel(q) => format!("{}p", q.limit),
                    QueueSpec::Pie(q) => format!("{}p", q.limit),
                    QueueSpec::FqCodel(q) => format!("{}p", q.limit),
                };
                let named = match &l.alias {
                    Some(a) => format!("link \"{}\" ({})", a, l.name),
                    None => format!("link {}", l.name),
                };
                format!(
                    "the queue of {named} (limit {limit}; its inputs can queue about {held:.3e} \
                     packets in {})",
                    sc.duration
                )
            }
        }
    }
}

/// The memory estimate of `sc`, largest part first.
pub fn memory_estimate(sc: &Scenario) -> Vec<Item> {
    let mut items = Vec::new();
    if let Some(i) = trace_item(sc) {
        items.push(i);
    }
    items.extend(queue_items(sc));
    if let Some(i) = routing_item(sc) {
        items.push(i);
    }
    items.sort_by(|a, b| b.bytes.cmp(&a.bytes));
    items
}

/// Sampling instants of the run: one at 0 and one per interval up to the end.
pub fn sample_instants(duration: Dur, interval: Dur) -> u64 {
    if interval.0 == 0 {
        0
    } else {
        duration.0 / interval.0 + 1
    }
}

fn trace_item(sc: &Scenario) -> Option<Item> {
    let t = &sc.trace;
    let instants = sample_instants(sc.duration, t.interval);
    if instants == 0 || (t.flows.is_empty() && t.links.is_empty()) {
        return None;
    }
    let mut flow_rows = 0u64;
    let mut path_rows = 0u64;
    for &f in &t.flows {
        let Some(spec) = sc.flows.get(f) else {
            continue;
        };
        flow_rows += 1;
        match &spec.transport {
            TransportSpec::Mptcp(m) => flow_rows += m.joins.len() as u64,
            TransportSpec::Sctp(_) => path_rows += spec.paths.len() as u64,
            _ => {}
        }
    }
    let route_rows = if sc.dv.is_some() {
        (sc.nodes.len() as u64).saturating_mul(sc.links.len() as u64)
    } else {
        0
    };
    let per_instant = flow_rows * FLOW_COLS
        + t.links.len() as u64 * LINK_COLS
        + path_rows * PATH_COLS
        + route_rows * ROUTE_COLS;
    let bytes = instants
        .saturating_mul(per_instant)
        .saturating_mul(8 * SERIES_COPIES);
    Some(Item {
        path: "trace.interval".into(),
        what: What::Text(format!(
            "the time series ({} samples every {} of {} flows and {} links)",
            instants,
            t.interval,
            t.flows.len(),
            t.links.len()
        )),
        bytes,
    })
}

/// Queued packets: a queue can fill only as fast as what enters its node exceeds its rate
/// (links into the node, constant-rate sources there, and window-based senders there at
/// up to twice the link's rate, as in slow start), for the whole run, up to its limit.
fn queue_items(sc: &Scenario) -> Vec<Item> {
    let secs = sc.duration.secs();
    let mut out = Vec::new();
    let data_size = |t: &TransportSpec| match t {
        TransportSpec::Udp(c) => c.packet_size.0.max(1),
        TransportSpec::Tcp(t) => u64::from(t.mss + t.header).max(1),
        _ => 576,
    };
    // forwarded traffic: at least the smallest data packet of any flow
    let forwarded = sc
        .flows
        .iter()
        .map(|f| data_size(&f.transport))
        .min()
        .unwrap_or(576);
    // Per node, in one pass each (a search per link was quadratic: 70 % of a 10 000-link
    // chain's validation): the rate of the links into it, of the links between each pair
    // of nodes, and what the flows starting there send. Sums of whole bits per second,
    // exact (as the sums of floats before were, below 2^53 b/s).
    let n = sc.nodes.len();
    let mut into = vec![0u128; n];
    let mut between: HashMap<(usize, usize), u128> = HashMap::new();
    for l in &sc.links {
        into[l.to] += u128::from(l.rate.0);
        *between.entry((l.from, l.to)).or_default() += u128::from(l.rate.0);
    }
    let mut cbr = vec![0u128; n];
    let mut smallest_at = vec![u64::MAX; n];
    let mut window_sender_at = vec![false; n];
    for f in &sc.flows {
        smallest_at[f.from] = smallest_at[f.from].min(data_size(&f.transport));
        match &f.transport {
            TransportSpec::Udp(c) => cbr[f.from] += u128::from(c.rate.0),
            _ => window_sender_at[f.from] = true,
        }
    }
    for (k, l) in sc.links.iter().enumerate() {
        // what enters l's sending node, but not from l's far end
        let back = between.get(&(l.to, l.from)).copied().unwrap_or(0);
        let mut inflow = (into[l.from] - back + cbr[l.from]) as f64;
        let mut smallest = smallest_at[l.from];
        if window_sender_at[l.from] {
            inflow += 2.0 * l.rate.as_f64();
        }
        if smallest == u64::MAX {
            smallest = forwarded;
        }
        let fill_bytes = ((inflow - l.rate.as_f64()).max(0.0) * secs / 8.0).min(1e30);
        let fill_packets = (fill_bytes / smallest as f64).ceil();
        let limit_packets = match &l.queue {
            QueueSpec::DropTail {
                limit: QueueLimit::Packets(p),
            } => *p as f64,
            QueueSpec::DropTail {
                limit: QueueLimit::Bytes(b),
            } => (*b / 40).max(1) as f64,
            QueueSpec::Red(r) => r.limit as f64,
            QueueSpec::Step(q) => q.limit as f64,
            QueueSpec::Codel(q) => q.limit as f64,
            QueueSpec::Pie(q) => q.limit as f64,
            QueueSpec::FqCodel(q) => q.limit as f64,
        };
        let held = fill_packets.min(limit_packets);
        let bytes = (held * BYTES_PER_QUEUED_PACKET as f64).min(u64::MAX as f64) as u64;
        if bytes < (1 << 20) {
            continue;
        }
        out.push(Item {
            path: "link".into(),
            what: What::Queue { link: k, held },
            bytes,
        });
    }
    out
}

/// Distance-vector state: every router keeps a row per destination and neighbour.
fn routing_item(sc: &Scenario) -> Option<Item> {
    sc.dv.as_ref()?;
    let n = sc.nodes.len() as u64;
    let bytes = n
        .saturating_mul(n)
        .saturating_mul(sc.links.len() as u64 + 1)
        * 64;
    Some(Item {
        path: "routing".into(),
        what: What::Text(format!("the distance-vector tables of {n} nodes")),
        bytes,
    })
}

/// `d` rounded up to two significant digits (a suggestion, not a measurement).
fn round_up(d: Dur) -> Dur {
    let mut scale = 1u64;
    while d.0 / scale >= 100 {
        scale *= 10;
    }
    Dur(d.0.div_ceil(scale) * scale)
}

fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e12 {
        format!("{:.1} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.0} MB", (b / 1e6).max(1.0))
    }
}

/// The problems of `sc`'s budget: memory over the limit, routing work over its bound.
pub fn check(sc: &Scenario) -> Vec<Problem> {
    let mut problems = Vec::new();
    let limit = memory_limit(sc);
    let items = memory_estimate(sc);
    let total = items.iter().fold(0u64, |a, i| a.saturating_add(i.bytes));
    if total > limit {
        let whence = if sc.memory_limit.is_some() {
            "simulation.memory_limit"
        } else {
            "the default: half of this machine's memory, or CCSIM_MEMORY_LIMIT"
        };
        for item in items.iter().take_while(|i| i.bytes * 4 >= total) {
            let advice = match item.path.as_str() {
                "trace.interval" => {
                    let fit = limit.saturating_mul(item.bytes.min(total) / total.max(1));
                    let per_instant =
                        item.bytes / sample_instants(sc.duration, sc.trace.interval).max(1);
                    let instants = (fit / per_instant.max(1)).max(2);
                    format!(
                        "use a longer trace.interval (at least {}), trace fewer flows or \
                         links, or set trace.max_samples (e.g. {}) to keep the whole run at \
                         a coarser interval",
                        round_up(Dur((sc.duration.0 / (instants - 1)).max(1))),
                        (instants / 2).clamp(2, 1_000_000)
                    )
                }
                "link" => "use a smaller queue limit, or a shorter duration".into(),
                _ => "use fewer nodes".into(),
            };
            problems.push(Problem {
                path: item.path.clone(),
                message: format!(
                    "{} would need about {} of memory, and the whole run about {}, more \
                     than the memory limit of {} ({whence}); {advice}",
                    item.words(sc),
                    human(item.bytes),
                    human(total),
                    human(limit)
                ),
            });
        }
    }
    if let Some(dv) = &sc.dv {
        let routers = sc.nodes.len() as u64;
        for (key, interval) in [
            ("announce_interval", dv.announce_interval),
            ("adapt_interval", dv.adapt_interval),
        ] {
            let rounds = (sc.duration.0 / interval.0.max(1)).saturating_mul(routers);
            if rounds > MAX_ROUTING_ROUNDS {
                let least = Dur(sc.duration.0.saturating_mul(routers) / MAX_ROUTING_ROUNDS + 1);
                problems.push(Problem {
                    path: format!("routing.{key}"),
                    message: format!(
                        "{interval} over {} with {routers} routers is {rounds} timer rounds, more \
                         than the {MAX_ROUTING_ROUNDS} a run may schedule; use at least {least}",
                        sc.duration
                    ),
                });
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::from_toml_str;

    const BASE: &str = r#"
        [simulation]
        duration = "10s"
        memory_limit = "512MiB"
        [[link]]
        between = ["s", "r"]
        rate = "10Gbps"
        delay = "1ms"
        [[link]]
        between = ["r", "d"]
        rate = "1Mbps"
        delay = "1ms"
        queue = { kind = "droptail", limit = "LIMIT" }
        [[flow]]
        from = "s"
        to = "d"
        transport = "udp"
        app = { kind = "cbr", rate = "10Gbps" }
    "#;

    fn errors(text: &str) -> Vec<Problem> {
        match from_toml_str(text, "t") {
            Ok(_) => Vec::new(),
            Err(e) => e.problems,
        }
    }

    #[test]
    fn a_queue_the_input_can_fill_is_refused_and_a_small_one_is_not() {
        let p = errors(&BASE.replace("LIMIT", "1000000000000p"));
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].path, "link");
        assert!(p[0].message.contains("r->d"), "{}", p[0].message);
        assert!(p[0].message.contains("GB of memory"), "{}", p[0].message);
        assert!(errors(&BASE.replace("LIMIT", "1000p")).is_empty());
    }

    #[test]
    fn a_trace_too_long_is_refused_naming_the_interval_and_max_samples_fits_it() {
        let long = BASE
            .replace("LIMIT", "100p")
            .replace("duration = \"10s\"", "duration = \"1000000000s\"");
        let p = errors(&long);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].path, "trace.interval");
        assert!(
            p[0].message.contains("trace.max_samples"),
            "{}",
            p[0].message
        );
        let fine = long.replacen("[[link]]", "[trace]\nmax_samples = 10000\n[[link]]", 1);
        let sc = from_toml_str(&fine, "t").unwrap();
        assert!(sample_instants(sc.duration, sc.trace.interval) <= 10_001);
        let ns = BASE.replace("LIMIT", "100p").replacen(
            "[[link]]",
            "[trace]\ninterval = \"1ns\"\n[[link]]",
            1,
        );
        assert_eq!(errors(&ns)[0].path, "trace.interval");
    }

    #[test]
    fn the_estimate_grows_with_the_duration() {
        let a = from_toml_str(&BASE.replace("LIMIT", "100p"), "t").unwrap();
        let mut b = a.clone();
        b.duration = Dur(a.duration.0 * 10);
        let sum = |s: &Scenario| memory_estimate(s).iter().map(|i| i.bytes).sum::<u64>();
        assert!(sum(&b) > 9 * sum(&a));
    }
}
