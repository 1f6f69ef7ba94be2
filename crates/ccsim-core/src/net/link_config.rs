//! A link as a scenario configures it: the `[[link]]` parameters, the loss models, and the
//! resolved `LinkSpec` the engine builds a `Link` from.

use super::link_schedule::{DeliveryTrace, LinkSchedule};
use super::queue::{QueueSpec, QUEUE_KINDS};
use crate::params::text::{index, join, shorten};
use crate::params::{Bound, Cx, Dflt, Kind, Kinds, Param, Resolved, Ty};
use crate::units::parse::{parse_duration, parse_rate};
use crate::units::{Dur, Rate, SimTime};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// One direction of a link, resolved: endpoints are node indices.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    /// Canonical name `"from->to"`.
    pub name: String,
    /// Name of the `[[link]]` entry, if given (shared by both directions of a duplex).
    pub alias: Option<String>,
    /// Transmitting node.
    pub from: usize,
    /// Receiving node.
    pub to: usize,
    /// Transmission rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: Dur,
    /// Queue discipline in front of the transmitter.
    pub queue: QueueSpec,
    /// Random or scripted loss applied to packets entering the link.
    pub loss: LossSpec,
    /// A time-varying capacity (`rate_schedule` or `delivery_trace`), shared by both
    /// directions of a duplex entry; `rate` is then its rate at time 0 (a schedule) or its
    /// mean (a trace).
    pub schedule: Option<std::sync::Arc<super::link_schedule::LinkSchedule>>,
    /// Bound of the uniform extra delay per packet (`net::link_jitter`); zero: none.
    pub jitter: Dur,
}

/// How links are simulated (`[simulation] link_model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkModel {
    /// Departure and arrival times computed at enqueue; one event per link head.
    Fast,
    /// The straightforward reference: an event per transmission end and per arrival.
    PerHop,
}

/// Loss applied at link entry.
#[derive(Clone, Debug, PartialEq)]
pub enum LossSpec {
    /// No loss.
    None,
    /// Each packet independently with probability p.
    Bernoulli(f64),
    /// Drop exactly these data packets (0-based count of data packets entering the link);
    /// for scripted tests such as "three losses in one window".
    Scripted(Vec<u64>),
}

impl LossSpec {
    /// From a resolved `loss` table: `p = 0` is no loss; scripted packet numbers are sorted
    /// and each kept once.
    pub fn from_resolved(r: &Resolved) -> Result<LossSpec, String> {
        Ok(match r.kind.map_or("none", |k| k.name) {
            "bernoulli" => match r.get_as::<f64>("p")? {
                p if p == 0.0 => LossSpec::None,
                p => LossSpec::Bernoulli(p),
            },
            "scripted" => {
                let mut v: Vec<u64> = r.get_as("data_packets")?;
                v.sort_unstable();
                v.dedup();
                LossSpec::Scripted(v)
            }
            _ => LossSpec::None,
        })
    }
}

/// `loss = { kind = "bernoulli", p = 0.01 }` (or `loss = 0.01`).
pub const BERNOULLI: Kind = Kind::new(
    "bernoulli",
    "each packet dropped independently with probability p",
    &[&[Param::float("p", 0.0, Bound::Incl(0.0), Bound::Excl(1.0))
        .required("the loss probability is required, e.g. p = 0.01")
        .doc("loss probability; 0 means no loss")
        .source("required")]],
);

/// `loss = { kind = "scripted", data_packets = [3, 4, 5] }`.
pub const SCRIPTED: Kind = Kind::new(
    "scripted",
    "drop exactly the listed data packets (for scripted tests such as three losses in one window)",
    &[&[Param::new(
        "data_packets",
        Ty::List {
            of: &Ty::Int {
                min: 0,
                max: u64::MAX,
            },
            len: None,
            what: "a list of packet numbers such as [3, 4, 5]",
        },
        Dflt::Required("the data packets to drop are required, e.g. data_packets = [3, 4, 5]"),
    )
    .doc("data packets to drop, counted from 0 among the data packets entering the link; order and repeats do not matter")
    .source("required")]],
);

/// `loss = "none"` (the default).
pub const NO_LOSS: Kind = Kind::new("none", "no loss", &[]);

/// The loss models of a link's `loss`.
pub const LOSS_KINDS: Kinds = Kinds {
    what: "loss kind",
    list: || vec![&BERNOULLI, &SCRIPTED, &NO_LOSS],
    note: "",
    number: Some(("bernoulli", "p")),
};

const NAME: Ty = Ty::Text;

/// The parameters of a `[[link]]` entry. Endpoints and names are checked when the scenario
/// is assembled (`scenario::assemble`): give `between` or `from` and `to`.
pub const PARAMS: &[Param] = &[
    Param::new(
        "between",
        Ty::List {
            of: &NAME,
            len: Some(2),
            what: "a list of two node names, e.g. between = [\"r1\", \"r2\"]",
        },
        Dflt::None("give from and to instead"),
    )
    .doc("a duplex link: both directions (a->b, then b->a) with the same parameters")
    .source("required unless from and to are given"),
    Param::new("from", NAME, Dflt::None("give between instead"))
        .doc("transmitting node of a one-way link")
        .source("required with to, unless between is given"),
    Param::new("to", NAME, Dflt::None("give between instead"))
        .doc("receiving node of a one-way link")
        .source("required with from, unless between is given"),
    Param::new("rate", Ty::Rate, Dflt::None("give delivery_trace instead"))
        .doc("transmission rate (with rate_schedule: the rate until its first step)")
        .source("required unless delivery_trace is given"),
    Param::new(
        "rate_schedule",
        Ty::List {
            of: &Ty::List {
                of: &Ty::Text,
                len: Some(2),
                what: "a [time, rate] pair such as [\"5s\", \"2Mbps\"]",
            },
            len: None,
            what: "a list of [time, rate] steps such as [[\"5s\", \"2Mbps\"], [\"10s\", \"10Mbps\"]]",
        },
        Dflt::None("a fixed rate"),
    )
    .doc("a time-varying rate: from each step's time on, the link transmits at its rate (times increasing, rates > 0; rate holds before the first step, the last step's rate to the end); fast link model with a FIFO queue only; docs/scenario.md, \"Time-varying and trace-driven links\"")
    .source("none: the rate is fixed"),
    Param::new("delivery_trace", NAME, Dflt::None("a fixed rate"))
        .doc("a packet-delivery trace file in Mahimahi's format (one integer millisecond timestamp per line, each an opportunity to deliver 1500 bytes; the trace repeats after its last timestamp), instead of rate; a relative path is relative to the scenario file's directory (the current directory for a document without a file); fast link model with a FIFO queue only")
        .source("none: the rate is fixed; format of Mahimahi's mm-link (src/frontend/link_queue.cc)"),
    Param::new(
        "delay",
        Ty::Duration { positive: false },
        Dflt::Required("a link needs a propagation delay, e.g. delay = \"10ms\""),
    )
    .doc("propagation delay")
    .source("required"),
    Param::duration("jitter", "0s")
        .doc("a random extra propagation delay per packet, uniform in [0, jitter), that never reorders packets (one that would overtake the packet ahead arrives with it); each direction of a duplex entry draws from its own stream; for the variable processing times of real hosts (docs/scenario.md, \"Delay jitter\")")
        .source("none: every packet takes exactly delay; the uniform, order-keeping form is ns-2's TCP overhead_ (tcp.cc send_much) on a link"),
    Param::kinded("queue", &QUEUE_KINDS, "droptail")
        .doc("queue discipline in front of the transmitter; each direction of a duplex entry has its own")
        .source("DropTail (ns-2's default queue)"),
    Param::kinded("loss", &LOSS_KINDS, "none")
        .doc("loss applied to packets entering the link (before the queue); each direction draws from its own random stream; on a duplex link both directions unless loss_direction says otherwise")
        .source("no loss"),
    Param::choice("loss_direction", "both", &["both", "forward", "reverse"])
        .doc("on a duplex link (between = [a, b]): which direction the loss applies to: both, forward (a->b only, e.g. the data path) or reverse (b->a only)")
        .source("both: a duplex link's parameters apply to both directions"),
    Param::new("name", NAME, Dflt::None("no alias"))
        .doc("an alias of the entry (both directions of a duplex), for trace.links, [[event]] and sweep paths")
        .source("none"),
];

/// The largest trace file read (bytes): some 60 million opportunities, an hour at 200 Mb/s.
pub const MAX_TRACE_BYTES: u64 = 512 << 20;

/// A `[[link]]` entry's rate and time-varying capacity (`rate`, `rate_schedule`,
/// `delivery_trace`), with every problem reported at its path. `dir` is the directory a
/// relative trace path is relative to (the scenario file's; `None`: the current
/// directory). The rate is `None` only after a problem.
pub fn rate_of(
    cx: &mut Cx,
    path: &str,
    r: &Resolved,
    dir: Option<&Path>,
) -> (Option<Rate>, Option<Arc<LinkSchedule>>) {
    // A value refused while reading was reported there.
    if ["rate", "rate_schedule", "delivery_trace"]
        .iter()
        .any(|k| r.explicit(k) && !r.good(k))
    {
        return (None, None);
    }
    let rate: Option<Rate> = r.get_as("rate").ok().flatten();
    let trace_file = r.value("delivery_trace").as_str().map(str::to_string);
    let steps = r.explicit("rate_schedule");
    match (rate, trace_file) {
        (Some(_), Some(_)) => {
            cx.err(
                &join(path, "delivery_trace"),
                "give rate or delivery_trace, not both (a trace sets the link's capacity)",
            );
            (None, None)
        }
        (None, None) => {
            cx.err(
                &join(path, "rate"),
                "missing; a link needs a rate, e.g. rate = \"10Mbps\" (or a delivery_trace file)",
            );
            (None, None)
        }
        (_, Some(_)) if steps => {
            cx.err(
                &join(path, "rate_schedule"),
                "give rate_schedule or delivery_trace, not both",
            );
            (None, None)
        }
        (None, Some(file)) => {
            let p = join(path, "delivery_trace");
            let full = match dir {
                Some(d) if Path::new(&file).is_relative() => d.join(&file),
                _ => Path::new(&file).to_path_buf(),
            };
            // A regular file of bounded size (not a device or a pipe that never ends).
            let shown = shorten(&full.display().to_string());
            match std::fs::metadata(&full) {
                Ok(m) if !m.is_file() => {
                    cx.err(&p, format!("\"{shown}\" is not a regular file"));
                    return (None, None);
                }
                Ok(m) if m.len() > MAX_TRACE_BYTES => {
                    cx.err(
                        &p,
                        format!("\"{shown}\" is {} bytes; a trace file may have at most {MAX_TRACE_BYTES}", m.len()),
                    );
                    return (None, None);
                }
                _ => {}
            }
            let text = match std::fs::read_to_string(&full) {
                Ok(t) => t,
                Err(e) => {
                    cx.err(
                        &p,
                        format!(
                            "cannot read \"{}\": {e}",
                            shorten(&full.display().to_string())
                        ),
                    );
                    return (None, None);
                }
            };
            match DeliveryTrace::parse(&text) {
                Ok(tr) => (
                    Some(tr.mean_rate()),
                    Some(Arc::new(LinkSchedule::Trace(tr))),
                ),
                Err(e) => {
                    cx.err(&p, format!("\"{}\": {e}", shorten(&file)));
                    (None, None)
                }
            }
        }
        (Some(base), None) if steps => {
            let p = join(path, "rate_schedule");
            let mut out: Vec<(SimTime, Rate)> = Vec::new();
            let mut ok = true;
            if let Value::Array(items) = r.value("rate_schedule") {
                for (k, item) in items.iter().enumerate() {
                    let ip = index(&p, k);
                    let pair = item
                        .as_array()
                        .filter(|a| a.len() == 2)
                        .map(|a| (a[0].as_str(), a[1].as_str()));
                    let Some((Some(t), Some(v))) = pair else {
                        ok = false;
                        continue;
                    };
                    let t = parse_duration(t).map_err(|e| cx.err(&index(&ip, 0), e));
                    let v = parse_rate(v).map_err(|e| cx.err(&index(&ip, 1), e));
                    let (Ok(t), Ok(v)) = (t, v) else {
                        ok = false;
                        continue;
                    };
                    if v.0 == 0 {
                        cx.err(
                            &index(&ip, 1),
                            "must be > 0 (a link down event models an outage)",
                        );
                        ok = false;
                        continue;
                    }
                    let t = SimTime::ZERO + t;
                    if let Some(&(prev, _)) = out.last() {
                        if t <= prev {
                            cx.err(
                                &index(&ip, 0),
                                format!("{} is not after the previous step ({}); step times must increase", Dur(t.0), Dur(prev.0)),
                            );
                            ok = false;
                            continue;
                        }
                    }
                    out.push((t, v));
                }
            }
            if !ok {
                return (None, None);
            }
            (
                Some(base),
                Some(Arc::new(LinkSchedule::Steps { base, steps: out })),
            )
        }
        (Some(base), None) => (Some(base), None),
    }
}
