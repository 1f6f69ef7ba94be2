//! Scenario documents: the typed model, the validating parser and ready-made builders.

pub mod budget;
pub mod builders;
pub mod limits;
pub mod model;
pub mod model_mptcp;
pub mod model_sctp;
pub mod parse;
pub mod units;

pub use model::*;
pub use model_mptcp::*;
pub use model_sctp::*;
pub use parse::{from_json_str, from_json_value, from_toml_str};

use std::fmt;

/// One problem found in a scenario document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where: a dotted path such as `link[2].rate` (empty for the whole document).
    pub path: String,
    /// What is wrong, with the allowed values where there is a closed set.
    pub message: String,
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
