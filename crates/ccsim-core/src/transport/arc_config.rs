//! ARC's configuration (`transport = "arc"`): packet sizes, the `arc` parameter table, the
//! report timeout and the file to send. Every value the paper leaves open is named here
//! (ALGORITHMS.md §3.4; docs/arc.md).

use super::tcp::rto::{self, RtoSpec};
use crate::apps::{TcpApp, BULK};
use crate::params::{self, Alt, Bound, Dflt, Kind, Kinds, Layer, Lit, Param, Resolved, Ty};
use crate::units::Dur;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How ARC's receiver initialises its bandwidth filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArcFilterInit {
    /// With the first sample (Linux Westwood's behaviour; ALGORITHMS.md §3.4.3's default).
    #[default]
    FirstSample,
    /// At zero (a sensitivity variant: the estimate then needs many periods to rise).
    Zero,
}

/// What ARC's window becomes on a congestion event before the receiver has reported any
/// bandwidth estimate (no sampling interval has ended, B̂ = 0). The paper does not cover
/// the case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArcNoEstimate {
    /// Halve the window, as TCP would (the default; docs/arc.md).
    #[default]
    Halve,
    /// Apply eq. (2) with B̂ = 0: the window restarts from one packet.
    Zero,
}

/// ARC parameters (declared in [`FLOW_PARAMS`] and [`ARC_PARAMS`]).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in FLOW_PARAMS/ARC_PARAMS
pub struct ArcSpec {
    pub mss: u32,
    pub header: u32,
    pub probe_period: Dur,
    pub gain_periods: f64,
    pub filter_gain: f64,
    pub filter_init: ArcFilterInit,
    pub init_window: f64,
    pub window_cap: Option<u64>,
    pub no_estimate: ArcNoEstimate,
    pub report_delay: Option<Dur>,
    pub rto: RtoSpec,
    pub app: TcpApp,
}

impl ArcSpec {
    /// From a resolved ARC flow (the `arc` table's values sit beside the others here).
    pub fn from_resolved(r: &Resolved) -> Result<ArcSpec, String> {
        let mut v = r.to_json();
        if let Some(Value::Object(arc)) = v.get_mut("arc").map(Value::take) {
            if let Value::Object(m) = &mut v {
                m.extend(arc);
            }
        }
        params::typed(v)
    }
}

impl Default for ArcSpec {
    /// The defaults of docs/arc.md, sending an infinite bulk transfer from time 0.
    fn default() -> ArcSpec {
        let mut cx = params::Cx::default();
        let m = serde_json::Map::from_iter([("app".to_string(), Value::from("bulk"))]);
        let r = params::read::read_kind(&mut cx, "", &m, &KIND, &Default::default());
        ArcSpec::from_resolved(&r).expect("declared defaults fit ArcSpec")
    }
}

/// The `arc` table.
pub const ARC_PARAMS: &[Param] = &[
    Param::positive_duration("probe_period", "100ms")
        .doc("α: quick probing doubles the window every α, gentle probing adds one packet every α")
        .source("Grieco & Mascolo 2005 (α = 0.1 s)"),
    Param::float("gain_periods", 4.0, Bound::Excl(0.0), Bound::Incl(1e6))
        .unit("feedback periods")
        .doc("k = 1 / (gain_periods · RTTmin): the control's time constant in feedback periods")
        .source("Grieco & Mascolo 2005 (k = 1/(4·RTTmin))"),
    Param::float("filter_gain", 0.9, Bound::Incl(0.0), Bound::Excl(1.0))
        .doc("receiver filter gain γ in b̂ ← γ·b̂ + (1 − γ)·b (1 would never learn)")
        .source("Westwood+ (Grieco & Mascolo 2004): 0.9"),
    Param::choice("filter_init", "first_sample", &["first_sample", "zero"])
        .doc("receiver filter initialisation: with the first sample, or at zero (a sensitivity variant)")
        .source("Linux tcp_westwood.c initialises with the first sample (ALGORITHMS.md §3.4.3)"),
    Param::float("init_window", 2.0, Bound::Excl(0.0), Bound::Incl(1e9))
        .unit("packets")
        .doc("window at the start of quick probing")
        .source("our choice: 2 packets, TCP's classic initial window (the paper leaves it open)"),
    Param::new("window_cap", Ty::Packets { min: 1, max: u64::MAX }, Dflt::None("uncapped"))
        .doc("cap on the window (a receiver window)")
        .source("uncapped"),
    Param::choice("no_estimate", "halve", &["halve", "zero"])
        .doc("the window after a congestion event that comes before any bandwidth estimate (B̂ = 0): halved, as TCP would, or eq. (2) with B̂ = 0 (it restarts from one packet)")
        .source("our choice: halve (the paper does not cover the case; docs/arc.md)"),
    Param::positive_duration("report_delay", "100ms")
        .alt(Alt::False("a report for every data packet"))
        .optional("a report for every data packet")
        .doc("report every second in-order packet or after this delay, like a delayed ACK (out-of-order data is reported at once)")
        .source("ALGORITHMS.md §3.4.4: a report per packet"),
];

/// ARC's own defaults for the shared RTO table: RFC 6298's minimum, a maximum far above
/// the largest planetary RTT, and a longer initial value.
pub const ARC_DEFAULTS: Layer = Layer {
    name: "arc",
    about: "ARC's report-timeout bounds (ALGORITHMS.md §3.4.4)",
    profile: false,
    values: &[
        ("rto.max", Lit::Str("100000s")),
        ("rto.initial", Lit::Str("3s")),
    ],
};

/// The file an ARC flow sends.
pub const ARC_APPS: Kinds = Kinds {
    what: "application kind",
    list: || vec![&BULK],
    note: " (an ARC flow sends one file)",
    number: None,
};

/// The keys of an ARC flow besides the common ones.
pub const FLOW_PARAMS: &[Param] = &[
    Param::size("mss", 1460, 1, 1_000_000)
        .doc("payload bytes per packet")
        .source("as TCP: Ethernet MTU 1500 − 40"),
    Param::size("header", 40, 0, 1_000_000)
        .doc("header bytes per packet")
        .source("as TCP: IPv4 + TCP headers"),
    Param::table("rto", rto::PARAMS)
        .doc("report timeout: RFC 6298's estimator; ARC's defaults are min 1 s, max 100000 s, initial 3 s")
        .source("ALGORITHMS.md §3.4.4"),
    Param::table("arc", ARC_PARAMS)
        .doc("the control's parameters")
        .source("see the arc table"),
    Param::new(
        "app",
        Ty::Kinded(&ARC_APPS),
        Dflt::Required("app is required, e.g. app = { kind = \"bulk\", size = \"1GB\" }"),
    )
    .doc("the file to send")
    .source("required"),
];

/// `transport = "arc"`.
pub const KIND: Kind = Kind {
    layers: &[&ARC_DEFAULTS],
    ..Kind::new(
        "arc",
        "ARC, the rate-based transport for planetary links, Grieco & Mascolo 2005 (docs/arc.md)",
        &[FLOW_PARAMS],
    )
};
