//! The validated, typed scenario: what the engine builds from.
//!
//! A scenario document (TOML file or Python dict) is read once with the components'
//! parameter declarations (`params`) and assembled by `scenario::assemble`, which resolves
//! names to indices, expands `duplex` links and `count`ed flows and checks what spans the
//! document. Nothing past this point validates again. Each component's configuration type
//! lives next to its code (`TcpSpec` in `transport::tcp::config`, `RedSpec` in `net::red`,
//! …); this module holds only what ties them together.

use crate::apps::CbrSpec;
use crate::net::dv::{DvSpec, LinkEvent};
use crate::net::link_config::{LinkModel, LinkSpec};
use crate::net::routing::RoutingMetric;
use crate::trace::TraceSpec;
use crate::transport::arc_config::ArcSpec;
use crate::transport::mptcp::MptcpSpec;
use crate::transport::sctp::SctpSpec;
use crate::transport::tcp::TcpSpec;
use crate::units::Dur;

/// `Scenario::threads` for `[simulation] threads = "auto"`: two threads when the network
/// splits with a long enough lookahead and a core is free (`Simulation::new`), else one.
pub const THREADS_AUTO: u32 = 0;

/// A whole scenario, ready to build.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Simulated time to run.
    pub duration: Dur,
    /// Seed from which every random stream is derived.
    pub seed: u64,
    /// How static routes are chosen.
    pub routing: RoutingMetric,
    /// How links are simulated (identical results; `PerHop` exists to check `Fast`).
    pub link_model: LinkModel,
    /// Threads to run on (1 or 2; identical results), or `THREADS_AUTO` (0). With 2 the
    /// network is split in two across its longest-delay links and each part runs on its
    /// own core (`sim_parallel`); with auto, 2 when that pays now (`Simulation::new`).
    pub threads: u32,
    /// `[simulation] memory_limit` in bytes: the estimate at validation and the run-time
    /// guard hold a run under it (`None`: `budget::default_memory_limit`).
    pub memory_limit: Option<u64>,
    /// What to sample into time series.
    pub trace: TraceSpec,
    /// The measurement window of the summaries (`[measure]`); `None`: the whole run.
    pub measure: Option<crate::measure::Window>,
    /// Node names, indexed by `NodeId`.
    pub nodes: Vec<String>,
    /// Directed links, indexed by `LinkId`.
    pub links: Vec<LinkSpec>,
    /// Flows, indexed by `FlowId`.
    pub flows: Vec<FlowSpec>,
    /// Adaptive distance-vector routing (`[routing] kind = "distance-vector"`); `None` keeps
    /// the static shortest paths.
    pub dv: Option<DvSpec>,
    /// Equal-cost multipath (`[routing] kind = "ecmp"`): each flow without pinned paths
    /// takes one of the shortest paths, chosen per flow and direction (`net::ecmp`).
    pub ecmp: bool,
    /// Scheduled link failures and recoveries (`[[event]]`), in time order.
    pub link_events: Vec<LinkEvent>,
}

/// One flow between two hosts.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    /// Unique name.
    pub name: String,
    /// Source node.
    pub from: usize,
    /// Destination node.
    pub to: usize,
    /// Transport and its application.
    pub transport: TransportSpec,
    /// Pinned paths, each a node list from `from` to `to` (its reverse is the return path).
    /// Empty: the static routing table. A packet with `path = k` follows entry `k - 1`.
    pub paths: Vec<Vec<usize>>,
}

/// A flow's transport.
#[derive(Clone, Debug)]
pub enum TransportSpec {
    /// TCP with a window-based congestion controller.
    Tcp(TcpSpec),
    /// UDP constant bit rate.
    Udp(CbrSpec),
    /// ARC, the rate-based transport for planetary links (Grieco & Mascolo 2005).
    Arc(ArcSpec),
    /// SCTP with Concurrent Multipath Transfer (RFC 4960; Iyengar et al. 2006).
    Sctp(SctpSpec),
    /// Multipath TCP (one subflow per path).
    Mptcp(MptcpSpec),
}

impl Scenario {
    /// Index of the node called `name`.
    pub fn node(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n == name)
    }
    /// Index of the directed link called `name` (`"from->to"`).
    pub fn link(&self, name: &str) -> Option<usize> {
        self.links.iter().position(|l| l.name == name)
    }
    /// Index of the flow called `name`.
    pub fn flow(&self, name: &str) -> Option<usize> {
        self.flows.iter().position(|f| f.name == name)
    }
}
