//! `[routing]` (the distance-vector protocol's parameters) and `[[event]]` (link failures and
//! recoveries) as a scenario configures them. See docs/routing.md.

use crate::params::{Bound, Dflt, Kind, Kinds, Param, Resolved, Ty};
use crate::units::{Dur, SimTime};

/// The multipath distance-vector protocol of Mallada & Paganini (NET-COOP 2007), resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct DvSpec {
    /// Adaptation gain β (per second per second of price gap).
    pub beta: f64,
    /// Period Δr of announcements.
    pub announce_interval: Dur,
    /// Period Δa of split adaptation.
    pub adapt_interval: Dur,
    /// Bytes on the wire of one announcement (one entry per packet).
    pub announce_bytes: u32,
    /// Each router's timers are offset by U(0, jitter)·min(Δr, Δa), drawn once from
    /// `node:<name>:timers`.
    pub jitter: f64,
    /// Each time a router sets its announcement or adaptation timer, the period is
    /// Δ·U(1 − x, 1 + x), drawn from `node:<name>:timers` (RFC 2453 §3.8; ns-2's DV
    /// advertInterval·U(0.9, 1.1), x = 0.1). 0: exact periods.
    pub period_jitter: f64,
    /// Each router's first announcement comes at U(0, first_update), its first adaptation
    /// one period later (ns-2's DV: U(0, 0.5 s)). 0: at time 0.
    pub first_update: Dur,
    /// Poison reverse: `false` (the paper) announces an infinite metric only to a neighbour
    /// receiving all the traffic (α = 1); `true` to every neighbour receiving any (RIP's
    /// poison reverse, RFC 2453 §3.4.3).
    pub poison_any: bool,
    /// Tables given at start: (node, destination, [(next-hop node, split)]).
    pub initial: Vec<DvInitial>,
}

impl DvSpec {
    /// From the resolved `[routing]` table and the initial tables (their node names
    /// resolved by the caller).
    pub fn from_resolved(r: &Resolved, initial: Vec<DvInitial>) -> Result<DvSpec, String> {
        Ok(DvSpec {
            beta: r.get_as("beta")?,
            announce_interval: r.get_as("announce_interval")?,
            adapt_interval: r.get_as("adapt_interval")?,
            announce_bytes: r.get_as("announce_bytes")?,
            jitter: r.get_as("jitter")?,
            period_jitter: r.get_as("period_jitter")?,
            first_update: r.get_as("first_update")?,
            poison_any: r.get_as::<String>("poison_reverse")? == "any-traffic",
            initial,
        })
    }
}

impl Default for DvSpec {
    fn default() -> DvSpec {
        let r = crate::params::read::read_fields(
            &mut Default::default(),
            "",
            &Default::default(),
            DISTANCE_VECTOR.params,
            Some(&DISTANCE_VECTOR),
            &Default::default(),
        );
        DvSpec::from_resolved(&r, Vec::new()).expect("declared defaults fit DvSpec")
    }
}

/// A routing-table entry given in the scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct DvInitial {
    /// Router.
    pub node: usize,
    /// Destination.
    pub dest: usize,
    /// Next hops (neighbour nodes) and their split ratios, summing to 1.
    pub split: Vec<(usize, f64)>,
}

/// A link going down or coming up.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkEvent {
    /// When.
    pub at: SimTime,
    /// Directed links affected (both directions for a duplex `between`).
    pub links: Vec<usize>,
    /// `true`: the link comes up; `false`: it fails.
    pub up: bool,
}

const NAME: Ty = Ty::Text;
const TWO_NAMES: Ty = Ty::List {
    of: &NAME,
    len: Some(2),
    what: "two node names, e.g. between = [\"a\", \"b\"]",
};

/// One entry of `routing.initial`.
pub const INITIAL_PARAMS: &[Param] = &[
    Param::new(
        "node",
        NAME,
        Dflt::Required("the router, e.g. node = \"a\""),
    )
    .doc("the router")
    .source("required"),
    Param::new(
        "dest",
        NAME,
        Dflt::Required("the destination, e.g. dest = \"d\""),
    )
    .doc("the destination")
    .source("required"),
    Param::new(
        "split",
        Ty::Map(&Ty::Float {
            min: Bound::Incl(0.0),
            max: Bound::Incl(1.0),
        }),
        Dflt::Required("next hops and their splits, e.g. split = { \"b\" = 1.0 }"),
    )
    .doc("next-hop neighbour = split ratio; the ratios sum to 1")
    .source("required"),
];

/// `[routing] kind = "distance-vector"`'s parameters.
pub const DV_PARAMS: &[Param] = &[
    Param::float("beta", 0.5, Bound::Excl(0.0), Bound::None)
        .doc("adaptation gain β of the split ratios, per second per second of price gap")
        .source("Mallada & Paganini 2007 (β = 0.5)"),
    Param::positive_duration("announce_interval", "500ms")
        .doc("period Δr of the announcements")
        .source("Mallada & Paganini 2007 (Δr = 500 ms)"),
    Param::positive_duration("adapt_interval", "500ms")
        .doc("period Δa of the split adaptation")
        .source("Mallada & Paganini 2007 (Δa = 500 ms)"),
    Param::int("announce_bytes", 52, 1, 65535)
        .unit("bytes")
        .doc("bytes on the wire of one announcement (one entry per packet)")
        .source("RFC 2453 §3.6: IP 20 + UDP 8 + RIP header 4 + one entry 20"),
    Param::float("jitter", 0.0, Bound::Incl(0.0), Bound::Incl(1.0))
        .doc("each router's timers are offset by U(0, jitter)·min(Δr, Δa), drawn once")
        .source("the paper gives no offsets (0: all routers tick together); RFC 2453 §3.8 randomises RIP's timers"),
    Param::float("period_jitter", 0.0, Bound::Incl(0.0), Bound::Excl(1.0))
        .doc("each time a router sets its announcement or adaptation timer, the period is Δ·U(1 − x, 1 + x), drawn anew (ns-2's DV: 0.1; RIP: 1/6)")
        .source("the paper gives none (0: exact periods); RFC 2453 §3.8 offsets each setting by ±5 s of 30 s; ns-2 tcl/rtglib/route-proto.tcl send-periodic-update advertInterval·U(0.9, 1.1)"),
    Param::duration("first_update", "0s")
        .doc("each router's first announcement comes at U(0, first_update), its first adaptation one period later")
        .source("the paper gives none (0: at once); ns-2 tcl/rtglib/route-proto.tcl Agent/rtProto/DV init: U(0, 0.5 s)"),
    Param::choice("poison_reverse", "all-traffic", &["all-traffic", "any-traffic"])
        .doc("announce an infinite metric to a neighbour receiving all the traffic (the paper), or any of it (RIP's poison reverse, RFC 2453 §3.4.3)")
        .source("Mallada & Paganini 2007"),
    Param::new(
        "initial",
        Ty::List {
            of: &Ty::Table(INITIAL_PARAMS),
            len: None,
            what: "a list of { node, dest, split } tables",
        },
        Dflt::None("tables are learnt from the announcements"),
    )
    .doc("routing tables given at start")
    .source("none"),
];

/// `[routing] kind = "static"` (the default): shortest paths by `[simulation] routing`.
pub const STATIC: Kind = Kind::new(
    "static",
    "static shortest paths by the [simulation] routing metric",
    &[],
);

/// `[routing] kind = "distance-vector"`.
pub const DISTANCE_VECTOR: Kind = Kind::new(
    "distance-vector",
    "adaptive multipath distance-vector routing, Mallada & Paganini 2007 (docs/routing.md)",
    &[DV_PARAMS],
);

/// The kinds of `[routing]`.
pub const ROUTING_KINDS: Kinds = Kinds {
    what: "routing kind",
    list: || vec![&STATIC, &crate::net::ecmp::ECMP, &DISTANCE_VECTOR],
    note: "",
    number: None,
};

/// The parameters of an `[[event]]` entry (give `link` or `between`).
pub const EVENT_PARAMS: &[Param] = &[
    Param::new(
        "at",
        Ty::Duration { positive: false },
        Dflt::Required("when, e.g. at = \"30s\""),
    )
    .doc("when")
    .source("required"),
    Param::new("link", NAME, Dflt::None("give between instead"))
        .doc("a directed link \"a->b\" or the name of a [[link]] entry (both its directions)")
        .source("required unless between is given"),
    Param::new("between", TWO_NAMES, Dflt::None("give link instead"))
        .doc("every link between two nodes, both directions")
        .source("required unless link is given"),
    Param::new(
        "action",
        Ty::Choice(&["down", "up"]),
        Dflt::Required("\"down\" or \"up\""),
    )
    .doc("the link fails (down) or recovers (up)")
    .source("required"),
];
