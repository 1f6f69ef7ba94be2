//! A link as a scenario configures it: the `[[link]]` parameters, the loss models, and the
//! resolved `LinkSpec` the engine builds a `Link` from.

use super::queue::{QueueSpec, QUEUE_KINDS};
use crate::params::{Bound, Dflt, Kind, Kinds, Param, Resolved, Ty};
use crate::units::{Dur, Rate};
use serde::{Deserialize, Serialize};

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
    Param::new("rate", Ty::Rate, Dflt::Required("a link needs a rate, e.g. rate = \"10Mbps\""))
        .doc("transmission rate")
        .source("required"),
    Param::new(
        "delay",
        Ty::Duration { positive: false },
        Dflt::Required("a link needs a propagation delay, e.g. delay = \"10ms\""),
    )
    .doc("propagation delay")
    .source("required"),
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
