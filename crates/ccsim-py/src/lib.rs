//! Python bindings for ccsim-core (stub).
use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", ccsim_core::VERSION)?;
    Ok(())
}
