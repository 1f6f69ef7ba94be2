//! Scenario documents: the document's structure, reading it with the components' parameter
//! declarations, the checks that span the document, and ready-made builders.
//!
//! ```text
//!  document (TOML / JSON / Python dict)
//!    │ document::read — every table read by `params` from its component's declaration:
//!    │                  types, ranges, unknown keys, defaults, profiles (origins kept)
//!    ▼
//!  resolved tables ──► assemble — names → indices, links, flows, paths, routes, and the
//!    │                            cross-field checks (constraints)
//!    ▼
//!  Scenario (typed) ──► Simulation::new
//! ```
//!
//! The components own their configuration types and declarations; this module depends on
//! them, never the reverse. Every problem is collected, located and reported at once.

mod assemble;
mod assemble_flows;
pub mod budget;
pub mod builders;
mod constraints;
pub mod document;
pub mod limits;
pub mod model;
mod parse;
mod repeats;

pub use model::*;
pub use parse::{
    explain, from_json_str, from_json_value, from_toml_str, json_value, toml_value, FlowParams,
};

// The components' configuration types, re-exported under the names scenarios have used.
pub use crate::apps::{CbrSpec, StartSpec, TcpApp};
pub use crate::cc::bwe::WestwoodFilter;
pub use crate::cc::cmt::{BerpAttribution, BerpBeta, BerpIncrease, BerpSpec, CmtCcSpec, CmtSpec};
pub use crate::cc::coupled::daimd::{DaimdQuiet, DaimdSignal, DaimdSpec};
pub use crate::cc::coupled::wvegas::WvegasSpec;
pub use crate::cc::coupled::CoupledSpec;
pub use crate::cc::cubic::CubicSpec;
pub use crate::cc::dctcp::DctcpConfig;
pub use crate::cc::fast::FastSpec;
pub use crate::cc::reno::{Counting as AckCounting, RenoConfig};
pub use crate::cc::vegas::{VegasSpec, VegasSsExit};
pub use crate::cc::westwood::WestwoodSpec;
pub use crate::cc::CcSpec;
pub use crate::net::codel::CodelSpec;
pub use crate::net::dv::{DvInitial, DvSpec, LinkEvent};
pub use crate::net::fq_codel::FqCodelSpec;
pub use crate::net::link_config::{LinkModel, LinkSpec, LossSpec};
pub use crate::net::pie::PieSpec;
pub use crate::net::queue::{QueueLimit, QueueSpec};
pub use crate::net::red::RedSpec;
pub use crate::net::routing::RoutingMetric;
pub use crate::net::step::StepSpec;
pub use crate::params::Problem;
pub use crate::trace::pcap::PcapSpec;
pub use crate::trace::TraceSpec;
pub use crate::transport::arc_config::{ArcFilterInit, ArcNoEstimate, ArcSpec};
pub use crate::transport::mptcp::{MptcpSpec, SchedulerSpec};
pub use crate::transport::sctp::{CwndRule, RtxPolicy, SctpSpec};
pub use crate::transport::tcp::config::{rfc5681_initial_window, LossFlight};
pub use crate::transport::tcp::ecn::EcnMode;
pub use crate::transport::tcp::path_select::{DropMetric, SelectKind, SelectSpec};
pub use crate::transport::tcp::rto::{RtoEstimator, RtoSpec, RttSamples};
pub use crate::transport::tcp::{RecoverySpec, TcpSpec};

use std::fmt;

/// The JSON Schema of scenario documents as the checked-in file holds it (pretty JSON).
pub fn schema_text() -> String {
    let mut s = serde_json::to_string_pretty(&document::schema()).unwrap_or_default();
    s.push('\n');
    s
}

/// Every problem found in a scenario document, reported together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The document's origin (a file name, or "<python>").
    pub source: String,
    /// The problems, in document order.
    pub problems: Vec<Problem>,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        writeln!(
            f,
            "{n} problem{} in scenario {}:",
            if n == 1 { "" } else { "s" },
            self.source
        )?;
        for p in &self.problems {
            if p.path.is_empty() {
                writeln!(f, "  {}", p.message)?;
            } else {
                writeln!(f, "  {}: {}", p.path, p.message)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}
