//! The `[simulation]` table: run length, seed, routing metric, link model, threads.

use crate::net::link_config::LinkModel;
use crate::net::routing::RoutingMetric;
use crate::params::{Alt, Dflt, Param, Ty};
use crate::units::Dur;
use serde::Deserialize;

/// The resolved `[simulation]` table (declared in [`PARAMS`]).
#[derive(Clone, Debug, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct SimConfig {
    pub duration: Dur,
    pub seed: u64,
    pub routing: RoutingMetric,
    pub link_model: LinkModel,
    pub threads: Option<u32>,
    pub memory_limit: Option<u64>,
}

/// The `[simulation]` table's parameters.
pub const PARAMS: &[Param] = &[
    Param::new(
        "duration",
        Ty::Duration { positive: true },
        Dflt::Required("how long to simulate is required, e.g. duration = \"100s\""),
    )
    .doc("simulated time to run")
    .source("required"),
    Param::int("seed", 1, 0, u64::MAX)
        .doc("every random stream (loss on each link, each flow's start time, …) is derived from it, so a run is reproducible and adding a flow does not change another link's losses")
        .source("our choice: 1"),
    Param::choice("routing", "delay", &["delay", "hops"])
        .doc("static shortest paths by the sum of propagation delays (ties: fewer hops, then lower link index) or by hop count (ties: lower delay, then lower link index)")
        .source("our choice: delay, which routes over the links a topology's delays favour"),
    Param::choice("link_model", "fast", &["fast", "per_hop"])
        .doc("how links are simulated, with identical results: fast computes departure and arrival times at enqueue; per_hop is the reference with an event per transmission end and per arrival")
        .source("fast (per_hop exists to check it)"),
    Param::int("threads", 1, 1, 2)
        .alt(Alt::Word("auto", "two threads when the network splits with a lookahead of at least 1 ms and another core is free when the run is built, else one; a warning says which and why"))
        .doc("threads to run on, with identical results; 2 splits the network across its longest-delay links (docs/architecture.md, \"Two threads\")")
        .source("1: sweeps already use every core"),
    Param::new("memory_limit", Ty::Size { min: 1 << 20, max: u64::MAX }, Dflt::None("half of the machine's memory, or CCSIM_MEMORY_LIMIT"))
        .doc("memory the run may use: the estimate at validation and the run-time guard hold it under this (docs/reliability.md)")
        .source("our choice: half of the machine's memory, or the environment variable CCSIM_MEMORY_LIMIT (scenario/budget.rs)"),
    crate::transport::tcp::stack::SIMULATION_PARAM,
];
