//! # ccsim-core
//!
//! A packet-level discrete-event simulator for congestion-control research. Pure Rust: no
//! Python here; the `ccsim-py` crate binds it.
//!
//! ```text
//!  scenario document (TOML / JSON)
//!        │ scenario::parse — validated once, every problem located
//!        ▼
//!  Scenario (typed) ──► Simulation::new: nodes, links, static routes, endpoints
//!        │
//!        ▼ event loop (engine::EventQueue, ties by (time, class, insertion))
//!  links (queue + pipe, FIFO arithmetic) ──► nodes (forwarding) ──► endpoints
//!        │                                         TCP sender/receiver, UDP CBR
//!        │                                         └─► cc::CongestionControl (pure)
//!        ▼
//!  RunResult: flow/link summaries, conservation account, columnar time series
//! ```
//!
//! Design rules: integer-nanosecond time (`units`), one random stream per random process
//! (`rng`), typed small events and at most one pending event per link and per endpoint,
//! congestion controllers as pure state machines fed by events (`cc`).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod apps;
pub mod cc;
pub mod engine;
pub mod ids;
pub mod measure;
pub mod net;
pub mod packet;
pub mod params;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod sim_config;
pub mod trace;
pub mod transport;
pub mod units;

pub use results::RunResult;
pub use scenario::{Scenario, ScenarioError};
pub use sim::Simulation;

/// The ccsim version, recorded in every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
