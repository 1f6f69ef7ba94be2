//! The simulation: built from a `Scenario`, advanced with `run_until`, finished into a
//! `RunResult`. (stub while the engine is written)
use crate::results::RunResult;
use crate::scenario::{Scenario, ScenarioError};
use crate::units::SimTime;

/// A simulation in progress.
pub struct Simulation {
    scenario: Scenario,
    now: SimTime,
}

impl Simulation {
    /// Build every node, link, route and endpoint of `scenario`.
    pub fn new(scenario: Scenario) -> Result<Simulation, ScenarioError> {
        Ok(Simulation {
            scenario,
            now: SimTime::ZERO,
        })
    }
    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// When the run ends.
    pub fn end_time(&self) -> SimTime {
        SimTime::ZERO + self.scenario.duration
    }
    /// Process every event up to and including `t` (capped at the end time).
    pub fn run_until(&mut self, t: SimTime) {
        self.now = t.min(self.end_time());
    }
    /// Run to the end and collect results.
    pub fn finish(mut self) -> RunResult {
        self.run_until(self.end_time());
        RunResult {
            version: crate::VERSION.into(),
            end_time_s: self.now.secs(),
            seed: self.scenario.seed,
            ..Default::default()
        }
    }
}
