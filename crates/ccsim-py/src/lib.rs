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
    m.add_class::<sim::PySimulation>()?;
    m.add_class::<sim::RawResult>()?;
    Ok(())
}
