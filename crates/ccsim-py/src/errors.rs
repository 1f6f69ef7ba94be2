//! The exception hierarchy and the one mapping from core errors to Python exceptions.
//!
//! ```text
//! Exception
//!  └─ SimError            anything the simulator refuses or fails at
//!      └─ ScenarioError   a scenario document with problems; .problems, .source
//! ```
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;

create_exception!(
    ccsim.exceptions,
    SimError,
    PyException,
    "Base class of every error raised by the simulator."
);
create_exception!(
    ccsim.exceptions,
    ScenarioError,
    SimError,
    "A scenario document has problems. `problems` is a list of (path, message) tuples, \
     `source` names the document (a file name or \"<python>\")."
);

/// `ccsim_core::ScenarioError` → `ScenarioError` with `problems` and `source` attributes.
pub fn scenario_error(py: Python<'_>, e: ccsim_core::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string().trim_end().to_owned());
    let problems: Vec<(String, String)> = e
        .problems
        .into_iter()
        .map(|p| (p.path, p.message))
        .collect();
    let value = err.value(py);
    let attrs = PyList::new(py, problems)
        .and_then(|list| value.setattr("problems", list))
        .and_then(|_| value.setattr("source", e.source));
    match attrs {
        Ok(()) => err,
        Err(set_err) => set_err,
    }
}

/// A panic inside the core, caught at the boundary: a bug, reported as `SimError`.
pub fn panic_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    };
    SimError::new_err(format!(
        "internal error in the simulator core (a bug): {msg}"
    ))
}
