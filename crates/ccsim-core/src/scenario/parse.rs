//! Entry points: a document (TOML text, JSON text, or a JSON value such as a Python dict
//! converted by the bindings) → [`Scenario`], or every problem at once; and [`explain`],
//! every resolved parameter of every flow with its origin.

#[cfg(test)]
#[path = "declarations_tests.rs"]
mod declarations_tests;
#[cfg(test)]
#[path = "parse_cc_tests.rs"]
mod parse_cc_tests;
#[cfg(test)]
#[path = "parse_paths_tests.rs"]
mod parse_paths_tests;
#[cfg(test)]
#[path = "parse_robustness_tests.rs"]
mod parse_robustness_tests;
#[cfg(test)]
#[path = "parse_tcp_options_tests.rs"]
mod parse_tcp_options_tests;
#[cfg(test)]
#[path = "parse_tests.rs"]
mod parse_tests;

use super::assemble::assemble;
use super::document;
use super::model::Scenario;
use super::{budget, limits};
use super::{Problem, ScenarioError};
use crate::params::{Cx, Layer, Origin};
use serde_json::Value;

/// Parse and validate a JSON-like document; `source` names it in the error.
pub fn from_json_value(doc: &Value, source: &str) -> Result<Scenario, ScenarioError> {
    resolve(doc, source, &[]).map(|(s, _)| s)
}

/// Read, assemble and check `doc` with these profiles; the scenario and its flows'
/// resolved parameters.
///
/// The raw document is checked first (`limits`: nesting, control characters, non-finite
/// numbers), then read with the declarations and assembled, then its memory and work are
/// estimated (`budget`); every problem of the passes is reported together.
fn resolve(
    doc: &Value,
    source: &str,
    profiles: &[&'static Layer],
) -> Result<(Scenario, Vec<document::FlowDoc>), ScenarioError> {
    let (limit_problems, sanitised) = limits::check_document(doc);
    let doc = sanitised.as_ref().unwrap_or(doc);
    let mut cx = Cx::default();
    let scenario = document::read(&mut cx, doc, profiles).and_then(|mut d| {
        let s = assemble(&mut cx, &mut d, source);
        s.map(|s| (s, d.flows))
    });
    // a value the limits pass reported is not reported again
    cx.problems.retain(|p| {
        !limit_problems
            .iter()
            .any(|l| limits::is_within(&p.path, &l.path))
    });
    cx.problems.extend(limit_problems);
    if let Some((s, _)) = &scenario {
        if cx.problems.is_empty() {
            cx.problems.extend(budget::check(s));
        }
    }
    match scenario {
        Some(s) if cx.problems.is_empty() => Ok(s),
        _ => {
            if cx.problems.is_empty() {
                cx.err("", "the document could not be read");
            }
            let mut problems = cx.problems;
            problems.sort_by_key(|p| order_key(&p.path));
            Err(ScenarioError {
                source: source.into(),
                problems,
            })
        }
    }
}

/// Every resolved parameter of one flow.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowParams {
    /// The flow's name (each copy of a `count`ed entry has its own).
    pub name: String,
    /// (key path such as `rto.min` or `cc.beta`, value as a document writes it, origin).
    pub params: Vec<(String, String, Origin)>,
}

/// For each flow of a valid document, every resolved parameter with its value and where
/// it came from (the document, a profile, or the built-in default): what `ccsim validate
/// --explain` prints.
pub fn explain(doc: &Value, source: &str) -> Result<Vec<FlowParams>, ScenarioError> {
    let (sc, entries) = resolve(doc, source, &[])?;
    let mut out = Vec::with_capacity(sc.flows.len());
    let mut flows = sc.flows.iter();
    for e in &entries {
        let mut params = e.common.flatten("");
        if let Some(t) = &e.transport {
            params.extend(t.flatten(""));
        }
        let count = e.common.value("count").as_u64().unwrap_or(1);
        for _ in 0..count {
            if let Some(f) = flows.next() {
                out.push(FlowParams {
                    name: f.name.clone(),
                    params: params.clone(),
                });
            }
        }
    }
    Ok(out)
}

fn text_error(source: &str, message: String) -> ScenarioError {
    ScenarioError {
        source: source.into(),
        problems: vec![Problem {
            path: String::new(),
            message,
        }],
    }
}

/// JSON text as a value, or the syntax error with its line and column.
pub fn json_value(text: &str, source: &str) -> Result<Value, ScenarioError> {
    if let Some(p) = limits::check_text(text) {
        return Err(text_error(source, p.message));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok(v),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => Err(text_error(
            source,
            format!(
                "nested more than {} tables or lists deep (at line {}, column {}); a scenario \
                 needs a few levels",
                limits::MAX_DEPTH,
                e.line(),
                e.column()
            ),
        )),
        Err(e) => Err(text_error(
            source,
            format!(
                "invalid JSON at line {}, column {}: {e}",
                e.line(),
                e.column()
            ),
        )),
    }
}

/// Parse and validate JSON text.
pub fn from_json_str(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    json_value(text, source).and_then(|v| from_json_value(&v, source))
}

/// Parse and validate TOML text.
pub fn from_toml_str(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    toml_value(text, source).and_then(|v| from_json_value(&v, source))
}

/// TOML text as a JSON value, or the syntax error with its line and column.
pub fn toml_value(text: &str, source: &str) -> Result<Value, ScenarioError> {
    if let Some(p) = limits::check_text(text) {
        return Err(text_error(source, p.message));
    }
    match toml::from_str::<toml::Value>(text) {
        Ok(v) => Ok(toml_to_json(v)),
        Err(e) => {
            let mut message = e.message().trim().to_string();
            if let Some(span) = e.span() {
                let (line, col) = line_col(text, span.start);
                message = format!("invalid TOML at line {line}, column {col}: {message}");
            } else {
                message = format!("invalid TOML: {message}");
            }
            Err(text_error(source, message))
        }
    }
}

/// 1-based line and column (in characters) of byte offset `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// TOML to JSON: datetimes become strings, non-finite floats the marker that `limits`
/// reports by key (JSON has no NaN or infinity).
fn toml_to_json(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => match serde_json::Number::from_f64(f) {
            Some(n) => Value::Number(n),
            None => limits::non_finite_value(f),
        },
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.into_iter().map(|(k, v)| (k, toml_to_json(v))).collect())
        }
    }
}

/// Sort key putting problems in document order: section, then entry index.
fn order_key(path: &str) -> (u8, usize) {
    let head_end = path.find(['.', '[']).unwrap_or(path.len());
    let rank = match &path[..head_end] {
        "simulation" => 1,
        "trace" => 2,
        "link" => 3,
        "flow" => 4,
        "routing" => 5,
        "event" => 6,
        _ => 0,
    };
    let idx = path[head_end..]
        .strip_prefix('[')
        .and_then(|r| r.split(']').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    (rank, idx)
}
