//! `Simulation` and `RawResult`: a simulation advanced from Python in chunks, and what it
//! produced, handed over as JSON (summary) and little-endian `f64` column bytes (series).
use std::panic::{catch_unwind, AssertUnwindSafe};

use ccsim_core::results::{RunResult, Table};
use ccsim_core::units::{Dur, SimTime};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::{panic_error, scenario_error, SimError};

fn finished_error() -> PyErr {
    SimError::new_err("simulation already finished")
}

/// Seconds from Python → `SimTime`; +inf means "the end".
fn sim_time(t_s: f64) -> PyResult<SimTime> {
    if t_s.is_nan() || t_s < 0.0 {
        return Err(PyValueError::new_err(format!(
            "time must be a non-negative number of seconds, got {t_s}"
        )));
    }
    Ok(SimTime::ZERO + Dur::from_secs_f64(t_s))
}

/// A simulation built from a scenario document (JSON text).
///
/// `run_until` and `finish` release the GIL while the core runs.
#[pyclass(module = "ccsim._core", name = "Simulation")]
pub struct PySimulation {
    inner: Option<ccsim_core::Simulation>,
}

impl PySimulation {
    fn live(&mut self) -> PyResult<&mut ccsim_core::Simulation> {
        self.inner.as_mut().ok_or_else(finished_error)
    }
}

#[pymethods]
impl PySimulation {
    /// Validate the document and build every node, link, route and endpoint.
    #[new]
    #[pyo3(signature = (doc_json, source = "<python>"))]
    fn new(py: Python<'_>, doc_json: &str, source: &str) -> PyResult<Self> {
        let built = py.allow_threads(|| {
            catch_unwind(|| {
                ccsim_core::scenario::from_json_str(doc_json, source)
                    .and_then(ccsim_core::Simulation::new)
            })
        });
        match built {
            Ok(Ok(sim)) => Ok(PySimulation { inner: Some(sim) }),
            Ok(Err(e)) => Err(scenario_error(py, e)),
            Err(payload) => Err(panic_error(payload)),
        }
    }

    /// Current simulated time (s).
    fn now_s(&mut self) -> PyResult<f64> {
        Ok(self.live()?.now().secs())
    }

    /// Simulated time at which the run ends (s).
    fn end_s(&mut self) -> PyResult<f64> {
        Ok(self.live()?.end_time().secs())
    }

    /// Whether `finish` has been called (or the core failed).
    #[getter]
    fn finished(&self) -> bool {
        self.inner.is_none()
    }

    /// Process every event up to and including `t_s` seconds (capped at the end).
    fn run_until(&mut self, py: Python<'_>, t_s: f64) -> PyResult<()> {
        let t = sim_time(t_s)?;
        let sim = self.live()?;
        let outcome = py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| sim.run_until(t))));
        if let Err(payload) = outcome {
            self.inner = None;
            return Err(panic_error(payload));
        }
        // the run-time memory guard stopped the run: an error, and the simulation is gone
        if let Some(why) = sim.failure() {
            let err = SimError::new_err(why.to_owned());
            self.inner = None;
            return Err(err);
        }
        Ok(())
    }

    /// Run to the end and collect the results. The simulation cannot be used afterwards.
    fn finish(&mut self, py: Python<'_>) -> PyResult<RawResult> {
        let end = self.live()?.end_time();
        self.run_until(py, end.secs())?;
        let sim = self.inner.take().ok_or_else(finished_error)?;
        let result = py
            .allow_threads(|| catch_unwind(AssertUnwindSafe(|| sim.finish())))
            .map_err(panic_error)?;
        Ok(RawResult { result })
    }
}

/// What a run produced, in the core's shapes.
#[pyclass(module = "ccsim._core", frozen)]
pub struct RawResult {
    result: RunResult,
}

fn columns_as_bytes<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (name, column) in table.names.iter().zip(&table.columns) {
        let bytes = PyBytes::new_with(py, column.len() * 8, |buf| {
            for (chunk, v) in buf.chunks_exact_mut(8).zip(column) {
                chunk.copy_from_slice(&v.to_le_bytes());
            }
            Ok(())
        })?;
        out.set_item(*name, bytes)?;
    }
    Ok(out)
}

#[pymethods]
impl RawResult {
    /// The summary (flows, links, conservation, …) as JSON text. NaN is written as null.
    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.result)
            .map_err(|e| SimError::new_err(format!("cannot serialise the summary: {e}")))
    }

    /// Names of the time-series tables.
    #[staticmethod]
    fn table_names() -> Vec<&'static str> {
        vec![
            "flows", "links", "paths", "routes", "backoffs", "drops", "marks", "retx", "timeouts",
        ]
    }

    /// Names of the packet captures (`[trace] pcap`), in the order asked for.
    fn pcap_names(&self) -> Vec<String> {
        self.result.pcaps.iter().map(|p| p.name.clone()).collect()
    }

    /// One packet capture as the bytes of a pcap file (nanosecond variant).
    fn pcap<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        match self.result.pcaps.iter().find(|p| p.name == name) {
            Some(p) => Ok(PyBytes::new(py, &p.bytes)),
            None => Err(PyKeyError::new_err(format!(
                "no packet capture {name:?}; captured: {:?} (name links in [trace] pcap)",
                self.pcap_names()
            ))),
        }
    }

    /// One time-series table: column name → little-endian `f64` bytes.
    fn table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        let series = &self.result.series;
        match name {
            "flows" => columns_as_bytes(py, &series.flows),
            "links" => columns_as_bytes(py, &series.links),
            "paths" => columns_as_bytes(py, &series.paths),
            "routes" => columns_as_bytes(py, &series.routes),
            "backoffs" => columns_as_bytes(py, &series.backoffs),
            "drops" => columns_as_bytes(py, &series.drops),
            "marks" => columns_as_bytes(py, &series.marks),
            "retx" => columns_as_bytes(py, &series.retx),
            "timeouts" => columns_as_bytes(py, &series.timeouts),
            other => Err(PyKeyError::new_err(format!(
                "no table {other:?}; tables: {}",
                Self::table_names().join(", ")
            ))),
        }
    }
}
