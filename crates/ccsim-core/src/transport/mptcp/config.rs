//! MPTCP's configuration (`transport = "mptcp"`; docs/mptcp.md): the coupled controller,
//! the scheduler, subflow join times and the connection-level receive buffer; every TCP
//! sender parameter applies to each subflow. One subflow per entry of the flow's `paths`.

use crate::apps::BULK;
use crate::cc::coupled::{CoupledSpec, COUPLED_KINDS};
use crate::cc::CcSpec;
use crate::params::{self, Dflt, Kind, Kinds, Layer, Lit, Param, Resolved, Ty};
use crate::transport::tcp::config::{TcpSpec, SENDER};
use crate::units::Dur;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Most subflows of one connection (`Packet::path` is a byte).
pub const MAX_SUBFLOWS: usize = 32;

/// A Multipath TCP connection: one subflow per entry of the flow's `paths`, each a TCP
/// sender with the parameters of `tcp` and a coupled controller.
#[derive(Clone, Debug)]
pub struct MptcpSpec {
    /// Subflow TCP parameters (mss, recovery, delayed ACK, RTO, …) and the connection's
    /// application (bulk, finite or greedy). `tcp.cc` is `CcSpec::Coupled(coupled)`.
    pub tcp: TcpSpec,
    /// The coupled controller every subflow runs.
    pub coupled: CoupledSpec,
    /// Which subflow gets each new segment.
    pub scheduler: SchedulerSpec,
    /// Per subflow: delay after the connection starts before the subflow may send (the
    /// first subflow's is 0). As long as the number of paths.
    pub joins: Vec<Dur>,
    /// Connection-level receive buffer in bytes (the data-level window the receiver
    /// advertises); `None`: unlimited.
    pub recv_buffer: Option<u64>,
}

impl MptcpSpec {
    /// From a resolved MPTCP flow whose `joins` the assembler has set.
    pub fn from_resolved(r: &Resolved) -> Result<MptcpSpec, String> {
        let coupled: CoupledSpec = r.get_as("cc")?;
        let mut tcp_json = r.to_json();
        if let Value::Object(m) = &mut tcp_json {
            m.remove("cc");
        }
        let mut tcp: TcpSpec = params::typed(tcp_json)?;
        tcp.cc = CcSpec::Coupled(coupled);
        Ok(MptcpSpec {
            tcp,
            coupled,
            scheduler: r.get_as("scheduler")?,
            joins: r.get_as("joins")?,
            recv_buffer: r.get_as("recv_buffer")?,
        })
    }
}

/// MPTCP packet scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerSpec {
    /// The subflow with the lowest smoothed RTT among those with window space (Linux
    /// default); subflows without an RTT sample yet rank first, in order.
    #[default]
    MinRtt,
    /// Subflows with window space in turn.
    RoundRobin,
}

/// MPTCP's own default for the TCP sender: SACK recovery, as Linux MPTCP subflows.
pub const MPTCP_DEFAULTS: Layer = Layer {
    name: "mptcp",
    about: "Linux MPTCP subflows use SACK",
    profile: false,
    values: &[("recovery", Lit::Str("sack"))],
};

/// The transfer of an MPTCP connection.
pub const MPTCP_APPS: Kinds = Kinds {
    what: "application kind",
    list: || vec![&BULK],
    note: " (an MPTCP flow takes a bulk application, finite or greedy)",
    number: None,
};

/// The `cc` of an MPTCP flow.
pub const CC: &[Param] = &[Param::kinded("cc", &COUPLED_KINDS, "lia")
    .doc("the coupled controller every subflow runs, with its parameters")
    .source("LIA (RFC 6356), Linux MPTCP's default")];

/// The keys an MPTCP flow adds to the TCP sender's.
pub const MPTCP_PARAMS: &[Param] = &[
    Param::choice("scheduler", "minrtt", &["minrtt", "roundrobin"])
        .doc("which subflow with window space carries each new segment: lowest smoothed RTT (subflows without a sample first) or in turn")
        .source("Linux MPTCP's default scheduler (lowest RTT)"),
    Param::new(
        "joins",
        Ty::List {
            of: &Ty::Duration { positive: false },
            len: None,
            what: "a list of join delays, one per path, such as [\"0s\", \"10s\"]",
        },
        Dflt::Later("all \"0s\": every subflow starts with the connection"),
    )
    .doc("when each subflow starts, after the connection's start (app.start); one per path")
    .source("our choice: all subflows at once"),
    Param::new("recv_buffer", Ty::Size { min: 1, max: u64::MAX }, Dflt::None("unlimited"))
        .doc("connection-level receive buffer: data sequence numbers more than this above the data ACK are not sent; at least one MSS")
        .source("unlimited"),
    Param::new(
        "app",
        Ty::Kinded(&MPTCP_APPS),
        Dflt::Required("an application is required, e.g. app = { kind = \"bulk\" }"),
    )
    .doc("the transfer")
    .source("required"),
];

/// `transport = "mptcp"`.
pub const KIND: Kind = Kind {
    layers: &[&MPTCP_DEFAULTS],
    ..Kind::new(
        "mptcp",
        "Multipath TCP, one subflow per path with a coupled controller (docs/mptcp.md)",
        &[CC, SENDER, MPTCP_PARAMS],
    )
};
