//! SCTP/CMT's configuration (`transport = "sctp"`; docs/sctp.md): the `sctp` parameter
//! table, the controller, the T3-rtx timer and the file to send. Defaults follow ns-2.35's
//! SCTP agent, which the CMT-BERP paper used (ALGORITHMS.md §1.12, §3.1.4).

use crate::apps::{TcpApp, BULK};
use crate::cc::cmt::{CmtCcSpec, CMT_KINDS};
use crate::params::{self, Alt, Dflt, Kind, Kinds, Layer, Lit, Param, Resolved, Ty};
use crate::transport::tcp::rto::{self, RtoSpec};
use crate::units::Dur;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// CMT's retransmission-destination policies (Iyengar et al. 2006 §IV).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtxPolicy {
    /// The destination the data was last sent to (RTX-SAME).
    Same,
    /// The destination with the largest ssthresh (RTX-SSTHRESH).
    Ssthresh,
    /// The destination with the largest cwnd (RTX-CWND).
    #[default]
    Cwnd,
}

/// How a destination's window admits new packets (docs/sctp.md, "Sending").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndRule {
    /// Windows in MTUs; a packet may go if flight + chunk ≤ cwnd, so a window of k MTUs
    /// carries k packets (default).
    #[default]
    WholePackets,
    /// ns-2.35's agent: windows counted in units of the largest DATA chunk (MTU − IP and
    /// common headers, 1468 B), and a packet may go while flight < cwnd (RFC 4960 §6.1 B
    /// read literally, `SctpCMTAgent::SendMuch`), so a fractional window rounds up.
    Ns2,
}

/// SCTP/CMT association parameters (declared in [`SCTP_PARAMS`] and [`FLOW_PARAMS`]).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in SCTP_PARAMS/FLOW_PARAMS
pub struct SctpSpec {
    pub mtu: u32,
    pub overhead: u32,
    /// Initial cwnd per destination in MTUs (from `init_cwnd` as a number).
    pub init_cwnd: u32,
    /// Initial cwnd per destination in bytes, when `init_cwnd` is a size (`"4380B"`, ns-2.35's
    /// `SctpAgent::Reset`); overrides `init_cwnd`.
    #[serde(default)]
    pub init_cwnd_bytes: Option<u64>,
    pub init_ssthresh: u64,
    pub rwnd: u64,
    pub sack_delay: Option<Dur>,
    pub fast_rtx_threshold: u32,
    pub sfr: bool,
    pub cuc: bool,
    pub dac: bool,
    pub rtx_policy: RtxPolicy,
    pub max_burst: u32,
    pub rto: RtoSpec,
    pub cwnd_rule: CwndRule,
    pub pf: bool,
    pub pf_cwnd: u32,
    pub cc: CmtCcSpec,
    pub app: TcpApp,
}

impl SctpSpec {
    /// From a resolved SCTP flow (the `sctp` table's values sit beside the others here;
    /// `init_cwnd` is MTUs or bytes).
    pub fn from_resolved(r: &Resolved) -> Result<SctpSpec, String> {
        let mut v = r.to_json();
        if let Some(Value::Object(mut t)) = v.get_mut("sctp").map(Value::take) {
            let init = t.remove("init_cwnd").unwrap_or(Value::Null);
            t.insert(
                "init_cwnd".into(),
                init.get("count").cloned().unwrap_or(Value::from(2)),
            );
            t.insert(
                "init_cwnd_bytes".into(),
                init.get("bytes").cloned().unwrap_or(Value::Null),
            );
            if let Value::Object(m) = &mut v {
                m.extend(t);
            }
        }
        params::typed(v)
    }
}

impl Default for SctpSpec {
    /// ns-2's defaults, sending an infinite bulk transfer from time 0.
    fn default() -> SctpSpec {
        let mut cx = params::Cx::default();
        let m = serde_json::Map::from_iter([("app".to_string(), Value::from("bulk"))]);
        let r = params::read::read_kind(&mut cx, "", &m, &KIND, &Default::default());
        SctpSpec::from_resolved(&r).expect("declared defaults fit SctpSpec")
    }
}

/// The `sctp` table.
pub const SCTP_PARAMS: &[Param] = &[
    Param::size("mtu", 1500, 64, 1_000_000)
        .doc("path MTU: bytes on the wire of a full data packet")
        .source("ns-2.35 tcl/lib/ns-default.tcl Agent/SCTP mtu_ 1500 (:843)"),
    Param::size("overhead", 48, 0, 1_000_000)
        .doc("per-packet overhead of a data packet: IP 20 + SCTP common header 12 + DATA chunk header 16; below the MTU")
        .source("RFC 4960 §3 and §3.3.1 (so a full packet carries 1452 payload bytes)"),
    Param::new("init_cwnd", Ty::CountOrSize { min: 1, max: 1 << 20 }, Dflt::Value(Lit::Int(2)))
        .unit("MTUs")
        .doc("initial cwnd per destination: MTUs, or a size (ns-2.35's SctpAgent::Reset gives 4380 B)")
        .source("ns-2.35 tcl/lib/ns-default.tcl Agent/SCTP initialCwnd_ 2 (:846)"),
    Param::size("init_ssthresh", 65536, 1, u64::MAX)
        .doc("initial ssthresh per destination")
        .source("ns-2.35 tcl/lib/ns-default.tcl Agent/SCTP initialSsthresh_ 65536 (:845)"),
    Param::size("rwnd", 65536, 1, u64::MAX)
        .doc("receiver buffer (advertised window)")
        .source("ns-2.35 tcl/lib/ns-default.tcl Agent/SCTP initialRwnd_ 65536 (:844)"),
    Param::positive_duration("sack_delay", "200ms")
        .alt(Alt::False("a SACK for every packet"))
        .doc("delayed-SACK timer")
        .source("RFC 4960 §6.2 (200 ms); ns-2.35 tcl/lib/ns-default.tcl:858 Agent/SCTP sackDelay_ 0.200"),
    Param::int("fast_rtx_threshold", 4, 1, 1000)
        .unit("miss indications")
        .doc("miss indications that trigger fast retransmit")
        .source("the CMT-BERP paper's four duplicates: ns-2.34's fastRtxTrigger_ 4 (ns-2.35 ns-default.tcl:850 and RFC 4960 use 3; docs/sources/ns2.md)"),
    Param::boolean("sfr", true)
        .doc("split fast retransmit (CMT)")
        .source("Iyengar et al. 2006 §IV-A (on in CMT)"),
    Param::boolean("cuc", true)
        .doc("cwnd update for CMT via per-destination pseudo-cumacks")
        .source("Iyengar et al. 2006 §IV-B (on in CMT)"),
    Param::boolean("dac", true)
        .doc("delayed ack for CMT")
        .source("Iyengar et al. 2006 §IV-C (on in CMT)"),
    Param::choice("rtx_policy", "cwnd", &["same", "ssthresh", "cwnd"])
        .doc("where retransmissions go: the same destination, the largest ssthresh, or the largest cwnd")
        .source("ns-2.35's CMT default RTX-CWND (Iyengar et al. 2006 §V)"),
    Param::int("max_burst", 4, 0, 1 << 20)
        .unit("packets")
        .doc("most new packets sent per destination in reply to one SACK; 0 is unlimited")
        .source("RFC 4960 §6.1 Max.Burst 4; ns-2.35 ns-default.tcl:859 useMaxBurst_ 1 with MAX_BURST 4 (sctp.h:64)"),
    Param::choice("cwnd_rule", "whole_packets", &["whole_packets", "ns2"])
        .doc("how a window admits packets: whole packets (flight + chunk ≤ cwnd), or ns-2.35's rule (windows in DATA chunks, send while flight < cwnd)")
        .source("our choice: a window of k MTUs carries k packets; ns2 is SctpCMTAgent::SendMuch (docs/sctp.md)"),
    Param::boolean("pf", false)
        .doc("CMT-PF: a destination with a T3 timeout is potentially failed and probed by HEARTBEATs")
        .source("our choice: off (ns-2.35 useCmtPF_ on, ns-default.tcl:895; docs/sctp.md)"),
    Param::int("pf_cwnd", 2, 1, 1 << 20)
        .unit("MTUs")
        .doc("cwnd of a potentially-failed destination made active again by a HEARTBEAT ACK")
        .source("ns-2.35 cmtPFCwnd_ 2 (ns-default.tcl:896)"),
];

/// SCTP's RFC 4960 timer defaults for the shared RTO table (RTO.Initial 3 s).
pub const SCTP_DEFAULTS: Layer = Layer {
    name: "sctp",
    about: "RFC 4960 §15 RTO.Initial; ns-2.35 ns-default.tcl:847 Agent/SCTP initialRto_ 3.0",
    profile: false,
    values: &[("rto.initial", Lit::Str("3s"))],
};

/// The file an SCTP association sends.
pub const SCTP_APPS: Kinds = Kinds {
    what: "application kind",
    list: || vec![&BULK],
    note: " (an SCTP association sends one file)",
    number: None,
};

/// The keys of an SCTP flow besides the common ones.
pub const FLOW_PARAMS: &[Param] = &[
    Param::kinded("cc", &CMT_KINDS, "cmt")
        .doc("congestion control: CMT-CC (RFC 4960 per destination) or CMT-BERP")
        .source("CMT-CC (Iyengar et al. 2006)"),
    Param::table("rto", rto::PARAMS)
        .doc("per-destination T3-rtx timer; SCTP's defaults are min 1 s, max 60 s, initial 3 s")
        .source("RFC 4960 §6.3 and §15"),
    Param::table("sctp", SCTP_PARAMS)
        .doc("transport parameters")
        .source("see the sctp table"),
    Param::new(
        "app",
        Ty::Kinded(&SCTP_APPS),
        Dflt::Required("app is required, e.g. app = { kind = \"bulk\", size = \"60MB\" }"),
    )
    .doc("the file to send")
    .source("required"),
];

/// `transport = "sctp"`.
pub const KIND: Kind = Kind {
    layers: &[&SCTP_DEFAULTS],
    ..Kind::new(
        "sctp",
        "SCTP with Concurrent Multipath Transfer, RFC 4960 and Iyengar et al. 2006 (docs/sctp.md)",
        &[FLOW_PARAMS],
    )
};
