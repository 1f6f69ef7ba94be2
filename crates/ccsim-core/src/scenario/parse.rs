//! Validating parser: scenario document → `Scenario` (stub; see docs/scenario.md).
use super::{Problem, Scenario, ScenarioError};

/// Parse and validate a JSON-like document.
pub fn from_json_value(_doc: &serde_json::Value, source: &str) -> Result<Scenario, ScenarioError> {
    Err(ScenarioError {
        source: source.into(),
        problems: vec![Problem {
            path: String::new(),
            message: "parser not written yet".into(),
        }],
    })
}
/// Parse and validate JSON text.
pub fn from_json_str(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => from_json_value(&v, source),
        Err(e) => Err(ScenarioError {
            source: source.into(),
            problems: vec![Problem {
                path: String::new(),
                message: e.to_string(),
            }],
        }),
    }
}
/// Parse and validate TOML text.
pub fn from_toml_str(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    match toml::from_str::<toml::Value>(text) {
        Ok(v) => from_json_value(&serde_json::to_value(v).unwrap_or_default(), source),
        Err(e) => Err(ScenarioError {
            source: source.into(),
            problems: vec![Problem {
                path: String::new(),
                message: e.to_string(),
            }],
        }),
    }
}
