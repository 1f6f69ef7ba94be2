//! Python bindings for ccsim-core: `ccsim._core`.
//!
//! Thin by design: JSON text in, JSON text and column bytes out, one error mapping
//! (`errors.rs`). The Python package `ccsim` (python/ccsim) builds the user-facing API on top.
#![deny(unsafe_code)]

mod errors;
mod sim;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use errors::{scenario_error, ScenarioError, SimError};

/// The ccsim version (the core crate's).
#[pyfunction]
fn version() -> &'static str {
    ccsim_core::VERSION
}

/// Validate a scenario document (JSON text) and build it without running it, so that
/// problems found only when building (such as a missing route) are reported too.
/// Raises `ScenarioError` listing every problem.
#[pyfunction]
#[pyo3(signature = (doc_json, source = "<python>"))]
fn validate(py: Python<'_>, doc_json: &str, source: &str) -> PyResult<()> {
    py.allow_threads(|| {
        ccsim_core::scenario::from_json_str(doc_json, source).and_then(ccsim_core::Simulation::new)
    })
    .map(drop)
    .map_err(|e| scenario_error(py, e))
}

/// The problems of a scenario document (JSON text) as (path, message) pairs, without
/// building it: what `Scenario.set` and sweep overrides check before anything runs.
#[pyfunction]
#[pyo3(signature = (doc_json, source = "<python>"))]
fn problems(py: Python<'_>, doc_json: &str, source: &str) -> Vec<(String, String)> {
    py.allow_threads(
        || match ccsim_core::scenario::from_json_str(doc_json, source) {
            Ok(_) => Vec::new(),
            Err(e) => e
                .problems
                .into_iter()
                .map(|p| (p.path, p.message))
                .collect(),
        },
    )
}

/// The JSON Schema of scenario documents (JSON text), generated from the components'
/// parameter declarations; the same file is shipped as `ccsim/schema/scenario.schema.json`.
#[pyfunction]
fn schema() -> String {
    ccsim_core::scenario::schema_text()
}

/// Every resolved parameter of every flow of a valid document (JSON text): a JSON list of
/// `{"name": ..., "params": [[key, value, origin], ...]}`, origin being "explicit",
/// "default" or "profile <name>". Raises `ScenarioError` for an invalid document.
#[pyfunction]
#[pyo3(signature = (doc_json, source = "<python>"))]
fn explain(py: Python<'_>, doc_json: &str, source: &str) -> PyResult<String> {
    let out = py.allow_threads(|| {
        let doc: serde_json::Value =
            serde_json::from_str(doc_json).map_err(|e| ccsim_core::ScenarioError {
                source: source.into(),
                problems: vec![ccsim_core::scenario::Problem {
                    path: String::new(),
                    message: format!("invalid JSON: {e}"),
                }],
            })?;
        ccsim_core::scenario::explain(&doc, source)
    });
    match out {
        Ok(flows) => {
            let v: Vec<serde_json::Value> = flows
                .into_iter()
                .map(|f| {
                    let params: Vec<serde_json::Value> = f
                        .params
                        .into_iter()
                        .map(|(k, v, o)| serde_json::json!([k, v, o.to_string()]))
                        .collect();
                    serde_json::json!({ "name": f.name, "params": params })
                })
                .collect();
            Ok(serde_json::Value::Array(v).to_string())
        }
        Err(e) => Err(scenario_error(py, e)),
    }
}

/// A dumbbell scenario document (JSON text) from its parameters (a JSON object).
/// Raises `ValueError` for unknown or bad parameters.
#[pyfunction]
fn dumbbell_doc(params_json: &str) -> PyResult<String> {
    let doc = ccsim_core::scenario::builders::dumbbell_from_json(params_json)
        .map_err(PyValueError::new_err)?;
    Ok(doc.to_string())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", ccsim_core::VERSION)?;
    m.add("SimError", py.get_type::<SimError>())?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(dumbbell_doc, m)?)?;
    m.add_function(wrap_pyfunction!(problems, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_class::<sim::PySimulation>()?;
    m.add_class::<sim::RawResult>()?;
    Ok(())
}
