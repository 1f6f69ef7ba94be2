//! Validating parser: scenario document → [`Scenario`]. The format is described in
//! `docs/scenario.md`.
//!
//! The document (a TOML file, JSON text or a Python dict converted to `serde_json::Value`) is
//! walked by hand so that every problem is found, located (`link[2].rate`) and reported
//! together, in document order: `simulation`, `trace`, then each `[[link]]` and each
//! `[[flow]]` entry in turn. Within one table, keys are visited in the order of the reference.
//! Invalid values are replaced by placeholders so that checking can go on; a scenario is
//! returned only when no problem was found.

#[path = "parse_arc.rs"]
mod parse_arc;
#[path = "parse_cc.rs"]
mod parse_cc;
#[cfg(test)]
#[path = "parse_cc_tests.rs"]
mod parse_cc_tests;
#[path = "parse_dv.rs"]
mod parse_dv;
#[path = "parse_flow.rs"]
mod parse_flow;
#[path = "parse_mptcp.rs"]
mod parse_mptcp;
#[path = "parse_paths.rs"]
mod parse_paths;
#[path = "parse_queue.rs"]
mod parse_queue;
#[cfg(test)]
#[path = "parse_robustness_tests.rs"]
mod parse_robustness_tests;
#[path = "parse_sctp.rs"]
mod parse_sctp;
#[cfg(test)]
#[path = "parse_tests.rs"]
mod parse_tests;
#[path = "reader.rs"]
mod reader;

use super::model::*;
use super::{budget, limits};
use super::{Problem, ScenarioError};
use crate::units::{Dur, Rate};
use parse_queue::{default_droptail, parse_loss, parse_queue};
use reader::*;
use serde_json::Value;
use std::collections::HashMap;

/// Parse and validate a JSON-like document; `source` names it in the error.
///
/// The raw document is checked first (`limits`: nesting, control characters, non-finite
/// numbers), then read field by field, then its memory and work are estimated (`budget`);
/// every problem of the three passes is reported together.
pub fn from_json_value(doc: &Value, source: &str) -> Result<Scenario, ScenarioError> {
    let (limit_problems, sanitised) = limits::check_document(doc);
    let mut cx = Cx::default();
    let scenario = parse_document(&mut cx, sanitised.as_ref().unwrap_or(doc));
    // a value the limits pass reported is not reported again by the parser
    cx.problems.retain(|p| {
        !limit_problems
            .iter()
            .any(|l| limits::is_within(&p.path, &l.path))
    });
    cx.problems.extend(limit_problems);
    if let Some(s) = &scenario {
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

fn text_error(source: &str, message: String) -> ScenarioError {
    ScenarioError {
        source: source.into(),
        problems: vec![Problem {
            path: String::new(),
            message,
        }],
    }
}

/// Parse and validate JSON text.
pub fn from_json_str(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    if let Some(p) = limits::check_text(text) {
        return Err(text_error(source, p.message));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) => from_json_value(&v, source),
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

/// Parse and validate TOML text.
pub fn from_toml_str(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    if let Some(p) = limits::check_text(text) {
        return Err(text_error(source, p.message));
    }
    match toml::from_str::<toml::Value>(text) {
        Ok(v) => from_json_value(&toml_to_json(v), source),
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

const TOP_KEYS: &[&str] = &["simulation", "trace", "link", "flow", "routing", "event"];
const SIM_KEYS: &[&str] = &[
    "duration",
    "seed",
    "routing",
    "link_model",
    "threads",
    "memory_limit",
];
const TRACE_KEYS: &[&str] = &["interval", "flows", "links", "max_samples"];
const LINK_KEYS: &[&str] = &[
    "between", "from", "to", "rate", "delay", "queue", "loss", "name",
];

fn parse_document(cx: &mut Cx, doc: &Value) -> Option<Scenario> {
    let top = table(cx, "", doc, "the whole scenario document")?;
    check_keys(cx, "", top, TOP_KEYS);
    let sim = match top.get("simulation") {
        Some(v) => parse_simulation(cx, v),
        None => {
            cx.err(
                "simulation",
                "missing; a [simulation] table with at least duration = \"...\" is required",
            );
            None
        }
    };
    let trace = match top.get("trace") {
        Some(v) => parse_trace(cx, v),
        None => RawTrace::default(),
    };
    let max_samples = trace.max_samples;
    let net = parse_links(cx, top.get("link"));
    let flows = parse_flow::parse_flows(cx, top.get("flow"), &net);
    let mut trace = resolve_trace(cx, trace, &net, &flows);
    if let (Some(n), Some(s)) = (max_samples, &sim) {
        // decimate: the whole run at the finest interval that keeps at most n samples
        let least = s.duration.0.div_ceil(n.saturating_sub(1).max(1));
        trace.interval = trace.interval.max(Dur(least));
    }
    let dv = parse_dv::parse_routing(cx, top.get("routing"), &net);
    let link_events = parse_dv::parse_events(cx, top.get("event"), &net);
    let sim = sim?;
    Some(Scenario {
        duration: sim.duration,
        seed: sim.seed,
        routing: sim.routing,
        link_model: sim.link_model,
        threads: sim.threads,
        memory_limit: sim.memory_limit,
        trace,
        nodes: net.nodes,
        links: net.links,
        flows: flows.flows,
        dv,
        link_events,
    })
}

// ---------------------------------------------------------------------------------------
// [simulation]

struct Sim {
    duration: Dur,
    seed: u64,
    routing: RoutingMetric,
    link_model: LinkModel,
    threads: u32,
    memory_limit: Option<u64>,
}

fn parse_simulation(cx: &mut Cx, v: &Value) -> Option<Sim> {
    let path = "simulation";
    let m = table(cx, path, v, "[simulation]")?;
    check_keys(cx, path, m, SIM_KEYS);
    let duration = required(
        cx,
        path,
        m,
        "duration",
        "how long to simulate is required, e.g. duration = \"100s\"",
    )
    .and_then(|v| positive_duration(cx, "simulation.duration", v))
    .unwrap_or(Dur::from_secs(1));
    let seed = m
        .get("seed")
        .and_then(|v| uint(cx, "simulation.seed", v, "seed"))
        .unwrap_or(1);
    let routing = match m.get("routing").map(|v| {
        choice(
            cx,
            "simulation.routing",
            v,
            "routing metric",
            &["delay", "hops"],
        )
    }) {
        Some(Some(1)) => RoutingMetric::Hops,
        _ => RoutingMetric::Delay,
    };
    let link_model = match m.get("link_model").map(|v| {
        choice(
            cx,
            "simulation.link_model",
            v,
            "link model",
            &["fast", "per_hop"],
        )
    }) {
        Some(Some(1)) => LinkModel::PerHop,
        _ => LinkModel::Fast,
    };
    let threads = match m.get("threads") {
        None => 1,
        Some(Value::String(s)) if s == "auto" => THREADS_AUTO,
        Some(v) => match v.as_u64() {
            Some(n @ 1..=2) => n as u32,
            _ => {
                cx.err(
                    "simulation.threads",
                    format!("must be 1, 2 or \"auto\" (threads to run on), got {v}"),
                );
                1
            }
        },
    };
    let memory_limit = m.get("memory_limit").and_then(|v| {
        let b = size_or_bytes(cx, "simulation.memory_limit", v, "a memory limit")?;
        if b.0 < 1 << 20 {
            cx.err(
                "simulation.memory_limit",
                format!("must be at least 1MiB, found {b}"),
            );
            return None;
        }
        Some(b.0)
    });
    Some(Sim {
        duration,
        seed,
        routing,
        link_model,
        threads,
        memory_limit,
    })
}

// ---------------------------------------------------------------------------------------
// [trace]

/// A selection of flows or links by name, before the names are resolved.
enum Selection {
    All,
    Nothing,
    /// (path of the list element, name).
    Names(Vec<(String, String)>),
}

struct RawTrace {
    interval: Dur,
    flows: Selection,
    links: Selection,
    /// Keep at most this many sampling instants (the interval widens to fit).
    max_samples: Option<u64>,
}

impl Default for RawTrace {
    fn default() -> Self {
        RawTrace {
            interval: Dur::from_millis(100),
            flows: Selection::All,
            links: Selection::All,
            max_samples: None,
        }
    }
}

fn parse_trace(cx: &mut Cx, v: &Value) -> RawTrace {
    let mut t = RawTrace::default();
    let Some(m) = table(cx, "trace", v, "[trace]") else {
        return t;
    };
    check_keys(cx, "trace", m, TRACE_KEYS);
    if let Some(d) = m
        .get("interval")
        .and_then(|v| duration(cx, "trace.interval", v))
    {
        t.interval = d;
    }
    if let Some(v) = m.get("max_samples") {
        t.max_samples = uint_in(cx, "trace.max_samples", v, "samples", 2, u64::MAX);
    }
    if let Some(v) = m.get("flows") {
        t.flows = selection(cx, "trace.flows", v, "flow");
    }
    if let Some(v) = m.get("links") {
        t.links = selection(cx, "trace.links", v, "link");
    }
    t
}

fn selection(cx: &mut Cx, path: &str, v: &Value, what: &str) -> Selection {
    let expected = format!("\"all\", \"none\" or a list of {what} names");
    match v {
        Value::String(s) if s == "all" => Selection::All,
        Value::String(s) if s == "none" => Selection::Nothing,
        Value::String(s) => {
            cx.err(
                path,
                format!(
                    "expected {expected}, found the string \"{}\"; to select one {what}, \
                     write [\"{}\"]",
                    shorten(s),
                    shorten(s)
                ),
            );
            Selection::Nothing
        }
        Value::Array(a) => {
            let mut names = Vec::new();
            for (i, e) in a.iter().enumerate() {
                let p = index(path, i);
                if let Some(s) = string(cx, &p, e, &format!("a {what} name")) {
                    names.push((p, s.to_string()));
                }
            }
            Selection::Names(names)
        }
        other => {
            cx.err(
                path,
                format!("expected {expected}, found {}", describe(other)),
            );
            Selection::Nothing
        }
    }
}

fn resolve_trace(cx: &mut Cx, raw: RawTrace, net: &Net, flows: &parse_flow::Flows) -> TraceSpec {
    let flow_ix = match raw.flows {
        Selection::All => (0..flows.flows.len()).collect(),
        Selection::Nothing => Vec::new(),
        Selection::Names(names) => {
            let mut out = Vec::new();
            for (path, name) in names {
                if let Some(i) = flows.flows.iter().position(|f| f.name == name) {
                    out.push(i);
                } else if let Some((_, ix)) = flows.groups.iter().find(|(g, _)| *g == name) {
                    out.extend_from_slice(ix);
                } else {
                    let known: Vec<&str> = flows.flows.iter().map(|f| f.name.as_str()).collect();
                    cx.err(
                        &path,
                        if known.is_empty() {
                            format!("unknown flow \"{}\"; no flows are defined", shorten(&name))
                        } else {
                            format!(
                                "unknown flow \"{}\"; known flows: {}",
                                shorten(&name),
                                list(&known, 10)
                            )
                        },
                    );
                }
            }
            out
        }
    };
    let link_ix = match raw.links {
        Selection::All => (0..net.links.len()).collect(),
        Selection::Nothing => Vec::new(),
        Selection::Names(names) => {
            let mut out = Vec::new();
            for (path, name) in names {
                if let Some(i) = net.link(&name) {
                    out.push(i);
                } else if let Some((_, _, ix)) = net.aliases.iter().find(|(a, _, _)| *a == name) {
                    out.extend_from_slice(ix);
                } else {
                    let mut known: Vec<&str> =
                        net.aliases.iter().map(|(a, _, _)| a.as_str()).collect();
                    known.extend(net.links.iter().map(|l| l.name.as_str()));
                    cx.err(
                        &path,
                        format!(
                            "unknown link \"{}\"; write \"from->to\" or the name of a [[link]] \
                             entry; known: {}",
                            shorten(&name),
                            list(&known, 10)
                        ),
                    );
                }
            }
            out
        }
    };
    TraceSpec {
        interval: raw.interval,
        flows: sorted_unique(flow_ix),
        links: sorted_unique(link_ix),
    }
}

fn sorted_unique(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v.dedup();
    v
}

// ---------------------------------------------------------------------------------------
// [[link]]

/// The network as far as it could be read.
#[derive(Default)]
pub(crate) struct Net {
    pub nodes: Vec<String>,
    pub links: Vec<LinkSpec>,
    /// The `[[link]]` entry that defined each directed link.
    pub entry_of: Vec<usize>,
    /// Entry names, their entry index and the directed links they select.
    pub aliases: Vec<(String, usize, Vec<usize>)>,
    /// Node index by name.
    node_ix: HashMap<String, usize>,
    /// Directed link index by canonical name.
    link_ix: HashMap<String, usize>,
}

impl Net {
    fn node_id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.node_ix.get(name) {
            return i;
        }
        self.nodes.push(name.to_string());
        self.node_ix.insert(name.to_string(), self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    /// Index of the node called `name`.
    pub fn node(&self, name: &str) -> Option<usize> {
        self.node_ix.get(name).copied()
    }

    /// Index of the directed link called `name`.
    fn link(&self, name: &str) -> Option<usize> {
        self.link_ix.get(name).copied()
    }
}

fn parse_links(cx: &mut Cx, v: Option<&Value>) -> Net {
    let mut net = Net::default();
    let Some(v) = v else {
        cx.err(
            "link",
            "missing; at least one [[link]] entry is required, e.g. \
             [[link]] between = [\"a\", \"b\"], rate = \"10Mbps\", delay = \"10ms\"",
        );
        return net;
    };
    let Value::Array(entries) = v else {
        cx.err(
            "link",
            format!(
                "expected a list of link tables ([[link]] entries in TOML), found {}",
                describe(v)
            ),
        );
        return net;
    };
    if entries.is_empty() {
        cx.err("link", "at least one link is required");
    }
    for (i, e) in entries.iter().enumerate() {
        parse_link(cx, &mut net, i, e);
    }
    net
}

/// A node name: a non-empty string without "->".
fn node_name(cx: &mut Cx, path: &str, v: &Value) -> Option<String> {
    let s = string(cx, path, v, "a node name")?;
    if s.trim().is_empty() {
        cx.err(path, "a node name must not be empty");
        return None;
    }
    if s.contains("->") {
        cx.err(
            path,
            format!("node name \"{}\" must not contain \"->\"", shorten(s)),
        );
        return None;
    }
    Some(s.to_string())
}

fn parse_link(cx: &mut Cx, net: &mut Net, i: usize, e: &Value) {
    let path = index("link", i);
    let Some(m) = table(cx, &path, e, "a [[link]] entry") else {
        return;
    };
    check_keys(cx, &path, m, LINK_KEYS);

    // Endpoints: node ids (registered in order of first appearance) and the path to blame.
    let mut ends: Option<(usize, usize, bool, String)> = None;
    match (m.get("between"), m.get("from"), m.get("to")) {
        (Some(b), None, None) => {
            let bp = join(&path, "between");
            match b {
                Value::Array(a) if a.len() == 2 => {
                    let x = node_name(cx, &index(&bp, 0), &a[0]).map(|n| net.node_id(&n));
                    let y = node_name(cx, &index(&bp, 1), &a[1]).map(|n| net.node_id(&n));
                    if let (Some(x), Some(y)) = (x, y) {
                        ends = Some((x, y, true, bp));
                    }
                }
                other => cx.err(
                    &bp,
                    format!(
                        "expected a list of two node names, e.g. between = [\"r1\", \"r2\"], \
                         found {}",
                        match other {
                            Value::Array(a) => format!("a list of {} elements", a.len()),
                            o => describe(o),
                        }
                    ),
                ),
            }
        }
        (Some(_), _, _) => cx.err(
            &path,
            "give either between = [\"a\", \"b\"] (both directions) or from = \"a\" and \
             to = \"b\" (one direction), not both",
        ),
        (None, None, None) => cx.err(
            &path,
            "missing endpoints: give between = [\"a\", \"b\"] (both directions) or \
             from = \"a\" and to = \"b\" (one direction)",
        ),
        (None, f, t) => {
            let x = match f {
                Some(f) => node_name(cx, &join(&path, "from"), f).map(|n| net.node_id(&n)),
                None => {
                    cx.err(
                        &join(&path, "from"),
                        "missing; a one-way link needs from and to",
                    );
                    None
                }
            };
            let y = match t {
                Some(t) => node_name(cx, &join(&path, "to"), t).map(|n| net.node_id(&n)),
                None => {
                    cx.err(
                        &join(&path, "to"),
                        "missing; a one-way link needs from and to",
                    );
                    None
                }
            };
            if let (Some(x), Some(y)) = (x, y) {
                ends = Some((x, y, false, join(&path, "to")));
            }
        }
    }

    let rate = required(
        cx,
        &path,
        m,
        "rate",
        "a link needs a rate, e.g. rate = \"10Mbps\"",
    )
    .and_then(|v| reader::rate(cx, &join(&path, "rate"), v))
    .unwrap_or(Rate(1));
    let delay = required(
        cx,
        &path,
        m,
        "delay",
        "a link needs a propagation delay, e.g. delay = \"10ms\"",
    )
    .and_then(|v| duration(cx, &join(&path, "delay"), v))
    .unwrap_or(Dur::ZERO);
    let queue = match m.get("queue") {
        Some(v) => parse_queue(cx, &join(&path, "queue"), v),
        None => default_droptail(),
    };
    let loss = match m.get("loss") {
        Some(v) => parse_loss(cx, &join(&path, "loss"), v),
        None => LossSpec::None,
    };
    let alias = m.get("name").and_then(|v| {
        let np = join(&path, "name");
        let s = string(cx, &np, v, "a name for this link entry")?;
        if s.is_empty() {
            cx.err(&np, "a link name must not be empty");
            None
        } else if s.contains("->") {
            cx.err(
                &np,
                format!(
                    "link name \"{}\" must not contain \"->\" (that form is reserved for \
                     directed names such as \"r1->r2\")",
                    shorten(s)
                ),
            );
            None
        } else if let Some((_, e, _)) = net.aliases.iter().find(|(a, _, _)| a == s) {
            cx.err(
                &np,
                format!(
                    "duplicate link name \"{}\" (also used by link[{e}])",
                    shorten(s)
                ),
            );
            None
        } else {
            Some(s.to_string())
        }
    });

    let mut made = Vec::new();
    if let Some((x, y, duplex, ep)) = ends {
        if x == y {
            cx.err(
                &ep,
                format!(
                    "a link cannot connect node \"{}\" to itself",
                    shorten(&net.nodes[x])
                ),
            );
        } else {
            let dirs: &[(usize, usize)] = if duplex { &[(x, y), (y, x)] } else { &[(x, y)] };
            for &(a, b) in dirs {
                let name = format!("{}->{}", net.nodes[a], net.nodes[b]);
                if let Some(k) = net.link(&name) {
                    cx.err(
                        &ep,
                        format!(
                            "duplicate link \"{}\": already defined by link[{}]",
                            shorten(&name),
                            net.entry_of[k]
                        ),
                    );
                    continue;
                }
                made.push(net.links.len());
                net.link_ix.insert(name.clone(), net.links.len());
                net.entry_of.push(i);
                net.links.push(LinkSpec {
                    name,
                    alias: alias.clone(),
                    from: a,
                    to: b,
                    rate,
                    delay,
                    queue: queue.clone(),
                    loss: loss.clone(),
                });
            }
        }
    }
    if let Some(a) = alias {
        net.aliases.push((a, i, made));
    }
}

#[cfg(test)]
#[path = "parse_paths_tests.rs"]
mod parse_paths_tests;
