//! The document's own structure — its top-level tables and the keys every `[[flow]]` entry
//! has — and the first pass, which reads the whole document with the declarations of the
//! components each table configures.

use super::repeats::Repeats;
use crate::net::dv::config::{EVENT_PARAMS, ROUTING_KINDS};
use crate::net::link_config;
use crate::params::read::{
    check_keys, read_fields, read_flat, read_kinded, read_named, read_table, table, Scope,
};
use crate::params::text::{describe, index};
use crate::params::{Cx, Dflt, Layer, Param, Resolved, Ty};
use crate::transport::tcp::stack;
use crate::transport::TRANSPORTS;
use crate::{measure, sim_config, trace};
use serde_json::Value;
use std::rc::Rc;

/// Most flows one `[[flow]]` entry may expand to (guards against a typo allocating
/// millions of flows).
pub const MAX_COUNT: u64 = 100_000;

const NAME: Ty = Ty::Text;

/// The names of `transport::TRANSPORTS` (a test checks they agree).
pub const TRANSPORT_NAMES: &[&str] = &["tcp", "udp", "arc", "sctp", "mptcp"];

/// The keys every `[[flow]]` entry has; its `transport` brings the rest.
pub const FLOW_PARAMS: &[Param] = &[
    Param::new("name", NAME, Dflt::Later("\"flow<i>\", i the entry's index"))
        .doc("unique flow name; with count > 1 the flows are named \"<name>.0\", \"<name>.1\", …")
        .source("flow<i>"),
    Param::new("from", NAME, Dflt::Required("the source node is required, e.g. from = \"s1\""))
        .doc("source host; must appear in a link")
        .source("required"),
    Param::new("to", NAME, Dflt::Required("the destination node is required, e.g. to = \"d1\""))
        .doc("destination host; must differ from from and be reachable (and, except for UDP, reach back)")
        .source("required"),
    Param::choice("transport", "tcp", TRANSPORT_NAMES)
        .doc("the transport: its keys sit beside these (see the transport's table)")
        .source("TCP"),
    Param::int("count", 1, 1, MAX_COUNT)
        .doc("replicate the entry")
        .source("one flow"),
    Param::new(
        "paths",
        Ty::List {
            of: &Ty::List {
                of: &NAME,
                len: None,
                what: "a list of node names",
            },
            len: None,
            what: "a list of node lists, e.g. paths = [[\"s\", \"a\", \"d\"]]",
        },
        Dflt::None("the routing table"),
    )
    .doc("pin the flow's packets to explicit node paths (one per subflow or destination for multipath transports; several with select for TCP)")
    .source("the routing table"),
];

/// A `[[flow]]` entry: common keys, and a transport whose keys sit beside them.
pub const FLOW: Ty = Ty::Flat {
    common: FLOW_PARAMS,
    tag: "transport",
    kinds: &TRANSPORTS,
};

/// The top level of a scenario document.
pub const TOP_PARAMS: &[Param] = &[
    Param::new(
        "simulation",
        Ty::Table(sim_config::PARAMS),
        Dflt::Required("a [simulation] table with at least duration = \"...\" is required"),
    )
    .doc("run length, seed, routing metric, link model, threads")
    .source("required"),
    Param::table("trace", trace::PARAMS)
        .doc("what is sampled into time series")
        .source("every flow and link every 100 ms"),
    Param::new(
        "link",
        Ty::List {
            of: &Ty::Table(link_config::PARAMS),
            len: None,
            what: "a list of link tables ([[link]] entries in TOML)",
        },
        Dflt::Required(
            "at least one [[link]] entry is required, e.g. [[link]] between = [\"a\", \"b\"], \
             rate = \"10Mbps\", delay = \"10ms\"",
        ),
    )
    .doc("the network; nodes are created by naming them in links")
    .source("required"),
    Param::new(
        "flow",
        Ty::List {
            of: &FLOW,
            len: None,
            what: "a list of flow tables ([[flow]] entries in TOML)",
        },
        Dflt::None("no traffic"),
    )
    .doc("the traffic")
    .source("none"),
    Param::kinded("routing", &ROUTING_KINDS, "static")
        .doc("static shortest paths, one per destination or (ecmp) one per flow, or adaptive distance-vector routing (docs/routing.md)")
        .source("static"),
    Param::new(
        "event",
        Ty::List {
            of: &Ty::Table(EVENT_PARAMS),
            len: None,
            what: "a list of event tables ([[event]] entries in TOML)",
        },
        Dflt::None("no events"),
    )
    .doc("scheduled link failures and recoveries (docs/routing.md)")
    .source("none"),
    Param::table("measure", measure::PARAMS)
        .doc("the measurement window every summary is computed over (docs/python.md, \"Summary columns\")")
        .source("none: the whole run, each flow over its own interval"),
    Param::new("$schema", NAME, Dflt::None("none"))
        .doc("the JSON Schema an editor checks the document with; ignored by ccsim")
        .source("none"),
];

/// The JSON Schema of scenario documents, for editors (python/ccsim/schema/
/// scenario.schema.json; `cargo run -p ccsim-core --example gen_schema` writes it).
pub fn schema() -> Value {
    let mut s = crate::params::schema::document_schema(
        TOP_PARAMS,
        "ccsim scenario",
        "A ccsim scenario document (docs/scenario.md; every parameter in docs/parameters.md). \
         Generated from the components' parameter declarations; ccsim itself also checks \
         what a schema cannot (node names, routes, min < max).",
    );
    // A link needs a rate or a delivery trace (`link_config::rate_of`): one of two keys,
    // which a list of required keys cannot say.
    if let Some(Value::Object(link)) = s.pointer_mut("/properties/link/items") {
        link.insert(
            "anyOf".into(),
            serde_json::json!([{ "required": ["rate"] }, { "required": ["delivery_trace"] }]),
        );
    }
    s
}

/// The parameter reference (docs/parameters.md; written by the same example).
pub fn reference() -> String {
    crate::params::reference::markdown(
        TOP_PARAMS,
        "Scenario parameters: reference",
        "Every key of a scenario document, generated from the parameter declarations next to \
         each component's code (`cargo run -p ccsim-core --example gen_schema` rewrites this \
         file; a test fails when it is stale). [scenario.md](scenario.md) explains the format \
         with examples; this page lists each key's type, range or allowed values, default \
         and where the default comes from. Units: durations such as `\"10ms\"`, rates such \
         as `\"10Mbps\"`, sizes such as `\"1500B\"` (or an integer number of bytes) and \
         packet counts such as `\"50p\"` (or an integer); see [scenario.md](scenario.md#units).",
    )
}

/// One `[[flow]]` entry as read: its common keys and its transport's (`None` when the
/// transport is unknown).
#[derive(Clone, Debug)]
pub struct FlowDoc {
    /// Index of the entry.
    pub index: usize,
    /// name, from, to, transport, count, paths.
    pub common: Resolved,
    /// The transport's keys (shared with the entries that repeat this one).
    pub transport: Option<Rc<Resolved>>,
    /// The number of the earlier entry this one repeats but for its name, endpoints,
    /// count and paths (its transport is a copy of that entry's; `repeats.rs`).
    pub template: Option<usize>,
}

/// The keys in which `[[link]]` and `[[flow]]` entries that otherwise repeat one another
/// differ (`repeats.rs`).
const LINK_IDENTITY: &[&str] = &["between", "from", "to", "name"];
const FLOW_IDENTITY: &[&str] = &["name", "from", "to", "count", "paths"];

/// One `[[link]]` entry as read.
#[derive(Clone, Debug)]
pub struct LinkDoc {
    /// Index of the entry.
    pub index: usize,
    /// Its keys; for an entry that repeats an earlier one, that one's (shared).
    pub table: Rc<Resolved>,
    /// For a repeat, its own endpoints and name (`LINK_IDENTITY`), read from it.
    pub own: Option<Resolved>,
    /// The number of the earlier entry it repeats but for its endpoints and name, or
    /// the number it is remembered under (`repeats.rs`).
    pub template: Option<usize>,
}

impl LinkDoc {
    /// The entry's endpoints and name (`between`, `from`, `to`, `name`).
    pub fn ids(&self) -> &Resolved {
        self.own.as_ref().unwrap_or(&self.table)
    }
}

/// The document as read: every table resolved that could be (problems are in the `Cx`).
#[derive(Clone, Debug, Default)]
pub struct Doc {
    /// `[simulation]` (`None` if missing or not a table).
    pub simulation: Option<Resolved>,
    /// `[trace]`.
    pub trace: Option<Resolved>,
    /// `[measure]` (`None` when absent: summaries over the whole run).
    pub measure: Option<Resolved>,
    /// `[[link]]` entries that are tables.
    pub links: Vec<LinkDoc>,
    /// `[[flow]]` entries that are tables.
    pub flows: Vec<FlowDoc>,
    /// `[routing]`.
    pub routing: Option<Resolved>,
    /// `[[event]]` entries that are tables, with their index.
    pub events: Vec<(usize, Resolved)>,
}

/// Read the whole document; `profiles` are layers of defaults applied to every flow (most
/// specific first).
pub fn read(cx: &mut Cx, doc: &Value, profiles: &[&'static Layer]) -> Option<Doc> {
    let top = match doc {
        Value::Object(m) => m,
        other => {
            cx.err(
                "",
                format!(
                    "expected a table (the whole scenario document), found {}",
                    describe(other)
                ),
            );
            return None;
        }
    };
    let names: Vec<&str> = TOP_PARAMS.iter().map(|p| p.name).collect();
    check_keys(cx, "", top, &names);
    let mut out = Doc::default();
    let none = Scope::default();
    match top.get("simulation") {
        Some(v) => out.simulation = read_table(cx, "simulation", v, sim_config::PARAMS, &none),
        None => cx.err(
            "simulation",
            "missing; a [simulation] table with at least duration = \"...\" is required",
        ),
    }
    out.trace = match top.get("trace") {
        Some(v) => read_table(cx, "trace", v, trace::PARAMS, &none),
        None => read_table(
            cx,
            "trace",
            &Value::Object(Default::default()),
            trace::PARAMS,
            &none,
        ),
    };
    if let Some(v) = top.get("measure") {
        out.measure = read_table(cx, "measure", v, measure::PARAMS, &none);
    }
    match top.get("link") {
        None => cx.err(
            "link",
            "missing; at least one [[link]] entry is required, e.g. [[link]] between = \
             [\"a\", \"b\"], rate = \"10Mbps\", delay = \"10ms\"",
        ),
        Some(v) => {
            let entries = list(cx, "link", v, "link");
            if entries.is_some_and(|e| e.is_empty()) {
                cx.err("link", "at least one link is required");
            }
            let mut repeats: Repeats<Rc<Resolved>> = Repeats::new(LINK_IDENTITY);
            for (i, e) in entries.unwrap_or_default().iter().enumerate() {
                let path = index("link", i);
                if let Some((m, (n, table))) =
                    e.as_object().and_then(|m| Some((m, repeats.find(m)?)))
                {
                    let own = read_named(cx, &path, m, link_config::PARAMS, LINK_IDENTITY, &none);
                    out.links.push(LinkDoc {
                        index: i,
                        table: Rc::clone(table),
                        own: Some(own),
                        template: Some(n),
                    });
                    continue;
                }
                let before = cx.problems.len();
                if let Some(r) = read_table(cx, &path, e, link_config::PARAMS, &none) {
                    let table = Rc::new(r);
                    let template = match e.as_object() {
                        Some(m) if cx.problems.len() == before => {
                            Some(repeats.remember(m, Rc::clone(&table)))
                        }
                        _ => None,
                    };
                    out.links.push(LinkDoc {
                        index: i,
                        table,
                        own: None,
                        template,
                    });
                }
            }
        }
    }
    if let Some(v) = top.get("flow") {
        // `[simulation] stack` chooses the stack of every flow that names none (below the
        // caller's profiles).
        let mut layers = profiles.to_vec();
        let sim_stack = out.simulation.as_ref().map(|s| s.value("stack"));
        if let Some(l) = sim_stack
            .as_ref()
            .and_then(|v| v.as_str())
            .and_then(stack::simulation_layer)
        {
            layers.push(l);
        }
        let scope = Scope::new(&layers);
        let mut repeats: Repeats<Rc<Resolved>> = Repeats::new(FLOW_IDENTITY);
        for (i, e) in list(cx, "flow", v, "flow")
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let path = index("flow", i);
            if let Some((m, (n, transport))) =
                e.as_object().and_then(|m| Some((m, repeats.find(m)?)))
            {
                let common = read_fields(cx, &path, m, &[FLOW_PARAMS], None, &scope);
                out.flows.push(FlowDoc {
                    index: i,
                    common,
                    transport: Some(Rc::clone(transport)),
                    template: Some(n),
                });
                continue;
            }
            let before = cx.problems.len();
            if let Some((common, transport)) =
                read_flat(cx, &path, e, FLOW_PARAMS, "transport", &TRANSPORTS, &scope)
            {
                let transport = transport.map(Rc::new);
                let template = match (e.as_object(), &transport) {
                    (Some(m), Some(t)) if cx.problems.len() == before => {
                        Some(repeats.remember(m, Rc::clone(t)))
                    }
                    _ => None,
                };
                out.flows.push(FlowDoc {
                    index: i,
                    common,
                    transport,
                    template,
                });
            }
        }
    }
    if let Some(v) = top.get("routing") {
        if table(cx, "routing", v).is_some() {
            out.routing = read_kinded(cx, "routing", v, &ROUTING_KINDS, "routing", &none);
        }
    }
    if let Some(v) = top.get("event") {
        for (i, e) in list(cx, "event", v, "event")
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            if let Some(r) = read_table(cx, &index("event", i), e, EVENT_PARAMS, &none) {
                out.events.push((i, r));
            }
        }
    }
    if let Some(v) = top.get("$schema") {
        if !v.is_string() {
            cx.err(
                "$schema",
                format!("expected a string, found {}", describe(v)),
            );
        }
    }
    Some(out)
}

/// The entries of a `[[what]]` list.
fn list<'a>(cx: &mut Cx, path: &str, v: &'a Value, what: &str) -> Option<&'a [Value]> {
    match v {
        Value::Array(a) => Some(a.as_slice()),
        other => {
            cx.err(
                path,
                format!(
                    "expected a list of {what} tables ([[{what}]] entries in TOML), found {}",
                    describe(other)
                ),
            );
            None
        }
    }
}
