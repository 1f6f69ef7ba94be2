//! The second pass: what spans the document. Node names become indices, `[[link]]` entries
//! become directed links, names in `[trace]`, `[routing]` and `[[event]]` are resolved, and
//! the cross-field checks run (`constraints`). Flows are in `assemble_flows`.

use super::assemble_flows::{self, Flows};
use super::constraints;
use super::document::{Doc, LinkDoc};
use super::model::Scenario;
use crate::measure::{MeasureConfig, Window};
use crate::net::dv::{DvInitial, DvSpec, LinkEvent};
use crate::net::link_config::{rate_of, LinkModel, LinkSpec, LossSpec};
use crate::net::queue::QueueSpec;
use crate::params::text::{index, join, list, shorten};
use crate::params::{Cx, Resolved};
use crate::sim_config::SimConfig;
use crate::trace::events::EventKinds;
use crate::trace::pcap::PcapSpec;
use crate::trace::TraceSpec;
use crate::units::{Dur, Rate, SimTime};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;

/// A typed value, or `None`. A failure after problems were found is their consequence (a
/// missing or refused value) and is not reported again; without one it is a declaration
/// bug, reported as an internal error at `path` rather than a panic.
pub(crate) fn checked<T>(cx: &mut Cx, path: &str, v: Result<T, String>) -> Option<T> {
    match v {
        Ok(t) => Some(t),
        Err(e) => {
            if cx.problems.is_empty() {
                cx.err(path, e);
            }
            None
        }
    }
}

/// The typed value of a resolved table (see [`checked`]).
pub(crate) fn typed<T: DeserializeOwned>(cx: &mut Cx, path: &str, r: &Resolved) -> Option<T> {
    checked(cx, path, r.config())
}

/// The value of `name` in `r` as `T` (see [`checked`]).
pub(crate) fn get<T: DeserializeOwned>(
    cx: &mut Cx,
    path: &str,
    r: &Resolved,
    name: &str,
) -> Option<T> {
    checked(cx, path, r.get_as(name))
}

/// The string value of `name`, if it is one.
pub(crate) fn text(r: &Resolved, name: &str) -> Option<String> {
    r.value(name).as_str().map(str::to_string)
}

/// Assemble the scenario from the read document; `None` if a required part is missing.
pub(crate) fn assemble(cx: &mut Cx, doc: &mut Doc, source: &str) -> Option<Scenario> {
    let sim = doc
        .simulation
        .as_ref()
        .and_then(|r| typed::<SimConfig>(cx, "simulation", r));
    // A relative trace path is relative to the scenario file's directory.
    let source_path = std::path::Path::new(source);
    let dir = source_path
        .is_file()
        .then(|| source_path.parent().map(|d| d.to_path_buf()))
        .flatten();
    let model = sim.as_ref().map_or(LinkModel::Fast, |s| s.link_model);
    let net = links(cx, &doc.links, dir.as_deref(), model);
    let flows = assemble_flows::flows(cx, &mut doc.flows, &net);
    let trace = doc
        .trace
        .as_ref()
        .map(|r| trace(cx, r, &net, &flows))
        .unwrap_or(TraceSpec {
            interval: Dur::from_millis(100),
            flows: Vec::new(),
            links: Vec::new(),
            pcap: Vec::new(),
            events: EventKinds::default(),
        });
    let measure_cfg = doc
        .measure
        .as_ref()
        .and_then(|r| typed::<MeasureConfig>(cx, "measure", r));
    let dv = doc.routing.as_ref().and_then(|r| routing(cx, r, &net));
    let ecmp = doc
        .routing
        .as_ref()
        .is_some_and(|r| r.kind.map(|k| k.name) == Some("ecmp"));
    let link_events = events(cx, &doc.events, &net);
    let sim = sim?;
    let measure = measure_cfg.and_then(|m| window(cx, &m, sim.duration));
    let mut trace = trace;
    if let Some(n) = doc
        .trace
        .as_ref()
        .and_then(|r| r.value("max_samples").as_u64())
    {
        // decimate: the whole run at the finest interval that keeps at most n samples
        let least = sim.duration.0.div_ceil(n.saturating_sub(1).max(1));
        trace.interval = trace.interval.max(Dur(least));
    }
    Some(Scenario {
        duration: sim.duration,
        seed: sim.seed,
        routing: sim.routing,
        link_model: sim.link_model,
        threads: sim.threads.unwrap_or(super::THREADS_AUTO),
        memory_limit: sim.memory_limit,
        trace,
        measure,
        nodes: net.nodes,
        links: net.links,
        flows: flows.flows,
        dv,
        ecmp,
        link_events,
    })
}

/// The measurement window, checked against the run's duration.
fn window(cx: &mut Cx, m: &MeasureConfig, duration: Dur) -> Option<Window> {
    let until = m.until.unwrap_or(duration);
    if until > duration {
        cx.err(
            "measure.until",
            format!(
                "{} is after the end of the run (simulation.duration = {}); allowed: at most the duration",
                until, duration
            ),
        );
        return None;
    }
    if m.from >= until {
        let what = if m.until.is_some() {
            format!("measure.until = {until}")
        } else {
            format!("the end of the run ({duration})")
        };
        cx.err(
            "measure.from",
            format!(
                "{} is not before {what}; the window must not be empty",
                m.from
            ),
        );
        return None;
    }
    Some(Window::new(SimTime::ZERO + m.from, SimTime::ZERO + until))
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
    /// Position of each entry name in `aliases`.
    alias_ix: HashMap<String, usize>,
    node_ix: HashMap<String, usize>,
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
    pub fn link(&self, name: &str) -> Option<usize> {
        self.link_ix.get(name).copied()
    }

    /// The directed links a name selects: `"a->b"` or the name of a `[[link]]` entry.
    pub fn links_named(&self, name: &str) -> Option<Vec<usize>> {
        if let Some(l) = self.link(name) {
            return Some(vec![l]);
        }
        self.alias_ix.get(name).map(|&k| self.aliases[k].2.clone())
    }

    /// The node called `name`, or a problem listing the known ones.
    pub fn known_node(&self, cx: &mut Cx, path: &str, name: &str) -> Option<usize> {
        match self.node(name) {
            Some(i) => Some(i),
            None if self.nodes.is_empty() => {
                cx.err(
                    path,
                    format!(
                        "unknown node \"{}\": no nodes are defined (nodes are created by naming \
                         them in [[link]] entries)",
                        shorten(name)
                    ),
                );
                None
            }
            None => {
                cx.err(
                    path,
                    format!(
                        "unknown node \"{}\"; known nodes: {}",
                        shorten(name),
                        list(&self.nodes, 10)
                    ),
                );
                None
            }
        }
    }
}

fn links(cx: &mut Cx, entries: &[LinkDoc], dir: Option<&std::path::Path>, model: LinkModel) -> Net {
    let mut net = Net::default();
    // The typed values of each repeated entry, from its first reading (`repeats.rs`).
    let mut typed: HashMap<usize, LinkValues> = HashMap::new();
    for e in entries {
        let values = match e.template.and_then(|n| typed.get(&n)) {
            Some(v) => v.clone(),
            None => {
                let before = cx.problems.len();
                let v = link_values(cx, &index("link", e.index), &e.table, dir, model);
                if let (Some(n), true) = (e.template, cx.problems.len() == before) {
                    typed.insert(n, v.clone());
                }
                v
            }
        };
        link(cx, &mut net, e, values);
    }
    net
}

/// What a `[[link]]` entry configures besides its endpoints and name.
#[derive(Clone)]
struct LinkValues {
    rate: Rate,
    delay: Dur,
    queue: Option<QueueSpec>,
    loss: LossSpec,
    schedule: Option<std::sync::Arc<crate::net::link_schedule::LinkSchedule>>,
    jitter: Dur,
}

fn link_values(
    cx: &mut Cx,
    path: &str,
    r: &Resolved,
    dir: Option<&std::path::Path>,
    model: LinkModel,
) -> LinkValues {
    let (rate, schedule) = rate_of(cx, path, r, dir);
    let rate = rate.unwrap_or(Rate(1));
    let delay: Dur = get(cx, path, r, "delay").unwrap_or(Dur::ZERO);
    let queue: Option<QueueSpec> = r.get("queue").and_then(|e| e.sub.as_ref()).and_then(|q| {
        constraints::red(cx, &join(path, "queue"), q);
        typed(cx, &join(path, "queue"), q)
    });
    if schedule.is_some() {
        scheduled_link_checks(cx, path, r, queue.as_ref(), model);
    }
    let loss = r
        .get("loss")
        .and_then(|e| e.sub.as_ref())
        .map(|l| checked(cx, path, LossSpec::from_resolved(l)).unwrap_or(LossSpec::None))
        .unwrap_or(LossSpec::None);
    let jitter: Dur = get(cx, path, r, "jitter").unwrap_or(Dur::ZERO);
    LinkValues {
        rate,
        delay,
        queue,
        loss,
        schedule,
        jitter,
    }
}

/// A time-varying link's departures are computed when a packet is admitted (the fast link
/// model, `net::link_schedule`): the per-hop model and the dequeue-time disciplines, which
/// serialise at a fixed rate event by event, cannot take a schedule.
fn scheduled_link_checks(
    cx: &mut Cx,
    path: &str,
    r: &Resolved,
    queue: Option<&QueueSpec>,
    model: LinkModel,
) {
    let key = if r.explicit("delivery_trace") {
        "delivery_trace"
    } else {
        "rate_schedule"
    };
    if model == LinkModel::PerHop {
        cx.err(
            &join(path, key),
            "a time-varying link needs the fast link model; remove simulation.link_model = \"per_hop\" or the schedule",
        );
    }
    let dequeue_time = match queue {
        Some(QueueSpec::Codel(_)) => Some("codel"),
        Some(QueueSpec::Pie(_)) => Some("pie"),
        Some(QueueSpec::FqCodel(_)) => Some("fq_codel"),
        _ => None,
    };
    if let Some(kind) = dequeue_time {
        cx.err(
            &join(path, "queue"),
            format!(
                "{kind} decides at dequeue, in a model that transmits at a fixed rate; a time-varying link ({key}) takes droptail, red or step"
            ),
        );
    }
}

/// Whether `s` may name a node of a link: non-empty and without "->" (`path`, made only
/// for a problem, locates it).
fn node_name_ok(cx: &mut Cx, path: impl FnOnce() -> String, s: &str) -> bool {
    if s.trim().is_empty() {
        cx.err(&path(), "a node name must not be empty");
        return false;
    }
    if s.contains("->") {
        cx.err(
            &path(),
            format!("node name \"{}\" must not contain \"->\"", shorten(s)),
        );
        return false;
    }
    true
}

fn link(cx: &mut Cx, net: &mut Net, e: &LinkDoc, values: LinkValues) {
    let i = e.index;
    let path = index("link", i);
    // Endpoints and name are the entry's own; the rest may be shared with its template.
    let r = e.ids();
    // Endpoints: node ids (registered in order of first appearance) and the key to blame.
    // Paths of problems are made only when there is one (a fat-tree has 10⁵ links).
    let mut ends: Option<(usize, usize, bool, &str)> = None;
    let given = |k: &str| r.explicit(k);
    match (given("between"), given("from"), given("to")) {
        (true, false, false) => {
            if let Some(Value::Array(a)) = r.get("between").map(|e| &e.value) {
                let mut ids = Vec::new();
                for (k, v) in a.iter().enumerate() {
                    let id = v
                        .as_str()
                        .filter(|s| node_name_ok(cx, || index(&join(&path, "between"), k), s))
                        .map(|n| net.node_id(n));
                    ids.push(id);
                }
                if let [Some(x), Some(y)] = ids[..] {
                    ends = Some((x, y, true, "between"));
                }
            }
        }
        (true, _, _) => cx.err(
            &path,
            "give either between = [\"a\", \"b\"] (both directions) or from = \"a\" and \
             to = \"b\" (one direction), not both",
        ),
        (false, false, false) => cx.err(
            &path,
            "missing endpoints: give between = [\"a\", \"b\"] (both directions) or \
             from = \"a\" and to = \"b\" (one direction)",
        ),
        (false, f, t) => {
            let mut end = |cx: &mut Cx, key: &str, present: bool| {
                if !present {
                    cx.err(
                        &join(&path, key),
                        "missing; a one-way link needs from and to",
                    );
                    return None;
                }
                text(r, key)
                    .filter(|s| node_name_ok(cx, || join(&path, key), s))
                    .map(|n| net.node_id(&n))
            };
            let x = end(cx, "from", f);
            let y = end(cx, "to", t);
            if let (Some(x), Some(y)) = (x, y) {
                ends = Some((x, y, false, "to"));
            }
        }
    }
    let LinkValues {
        rate,
        delay,
        queue,
        loss,
        schedule,
        jitter,
    } = values;
    let direction = text(&e.table, "loss_direction").unwrap_or_else(|| "both".into());
    if e.table.explicit("loss_direction") && !r.explicit("between") && direction != "both" {
        cx.err(
            &join(&path, "loss_direction"),
            "applies to a duplex link (between = [\"a\", \"b\"]); a one-way link's loss \
             is on its only direction",
        );
    }
    let np = || join(&path, "name");
    let alias = text(r, "name").and_then(|s| {
        if s.is_empty() {
            cx.err(&np(), "a link name must not be empty");
            None
        } else if s.contains("->") {
            cx.err(
                &np(),
                format!(
                    "link name \"{}\" must not contain \"->\" (that form is reserved for \
                     directed names such as \"r1->r2\")",
                    shorten(&s)
                ),
            );
            None
        } else if let Some(&(_, e, _)) = net.alias_ix.get(&s).map(|&k| &net.aliases[k]) {
            cx.err(
                &np(),
                format!(
                    "duplicate link name \"{}\" (also used by link[{e}])",
                    shorten(&s)
                ),
            );
            None
        } else {
            Some(s)
        }
    });

    let mut made = Vec::new();
    if let (Some((x, y, duplex, ep)), Some(queue)) = (ends, queue) {
        if x == y {
            cx.err(
                &join(&path, ep),
                format!(
                    "a link cannot connect node \"{}\" to itself",
                    shorten(&net.nodes[x])
                ),
            );
        } else {
            let dirs: &[(usize, usize)] = if duplex { &[(x, y), (y, x)] } else { &[(x, y)] };
            for (k, &(a, b)) in dirs.iter().enumerate() {
                let lossy = match direction.as_str() {
                    "forward" => k == 0,
                    "reverse" => k == 1,
                    _ => true,
                };
                let name = format!("{}->{}", net.nodes[a], net.nodes[b]);
                if let Some(k) = net.link(&name) {
                    cx.err(
                        &join(&path, ep),
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
                    loss: if lossy { loss.clone() } else { LossSpec::None },
                    schedule: schedule.clone(),
                    jitter,
                });
            }
        }
    }
    if let Some(a) = alias {
        net.alias_ix.insert(a.clone(), net.aliases.len());
        net.aliases.push((a, i, made));
    }
}

// ---------------------------------------------------------------------------------------
// [trace]

fn trace(cx: &mut Cx, r: &Resolved, net: &Net, flows: &Flows) -> TraceSpec {
    let interval: Dur = get(cx, "trace", r, "interval").unwrap_or(Dur::from_millis(100));
    let flow_ix = match r.value("flows") {
        Value::Array(names) => {
            let mut out = Vec::new();
            for (k, name) in names.iter().enumerate() {
                let name = name.as_str().unwrap_or_default();
                let path = index("trace.flows", k);
                if let Some(i) = flows.names.iter().position(|f| f == name) {
                    out.push(i);
                } else if let Some((_, ix)) = flows.groups.iter().find(|(g, _)| g == name) {
                    out.extend_from_slice(ix);
                } else {
                    let known: Vec<&str> = flows.names.iter().map(String::as_str).collect();
                    cx.err(
                        &path,
                        if known.is_empty() {
                            format!("unknown flow \"{}\"; no flows are defined", shorten(name))
                        } else {
                            format!(
                                "unknown flow \"{}\"; known flows: {}",
                                shorten(name),
                                list(&known, 10)
                            )
                        },
                    );
                }
            }
            out
        }
        Value::String(s) if s == "none" => Vec::new(),
        _ => (0..flows.names.len()).collect(),
    };
    let link_ix = match r.value("links") {
        Value::Array(names) => {
            let mut out = Vec::new();
            for (k, name) in names.iter().enumerate() {
                let name = name.as_str().unwrap_or_default();
                match net.links_named(name) {
                    Some(ix) => out.extend(ix),
                    None => cx.err(&index("trace.links", k), unknown_link(name, net)),
                }
            }
            out
        }
        Value::String(s) if s == "none" => Vec::new(),
        _ => (0..net.links.len()).collect(),
    };
    TraceSpec {
        interval,
        flows: sorted_unique(flow_ix),
        links: sorted_unique(link_ix),
        pcap: pcap(cx, &r.value("pcap"), net),
        events: match r.value("events") {
            Value::Array(names) => EventKinds::from_names(names.iter().filter_map(Value::as_str)),
            _ => EventKinds::default(), // "none" or absent
        },
    }
}

/// `[trace] pcap` names: a `[[link]]` entry's name (both directions of a duplex entry, seen
/// from its first node) or a directed link `"a->b"` (that direction, seen from `a`).
fn pcap(cx: &mut Cx, names: &Value, net: &Net) -> Vec<PcapSpec> {
    let mut out: Vec<PcapSpec> = Vec::new();
    let Value::Array(names) = names else {
        return out; // "none" or absent
    };
    for (k, name) in names.iter().enumerate() {
        let name = name.as_str().unwrap_or_default();
        let path = index("trace.pcap", k);
        let Some(links) = net.links_named(name) else {
            cx.err(&path, unknown_link(name, net));
            continue;
        };
        if out.iter().any(|p| p.name == name) {
            cx.err(&path, format!("\"{}\" is captured twice", shorten(name)));
            continue;
        }
        out.push(PcapSpec {
            name: name.to_string(),
            node: net.links[links[0]].from,
            out: links[0],
            back: links.get(1).copied(),
        });
    }
    out
}

/// The message for a link name that names no link, listing the known ones.
fn unknown_link(name: &str, net: &Net) -> String {
    let mut known: Vec<&str> = net.aliases.iter().map(|(a, _, _)| a.as_str()).collect();
    known.extend(net.links.iter().map(|l| l.name.as_str()));
    format!(
        "unknown link \"{}\"; write \"from->to\" or the name of a [[link]] entry; known: {}",
        shorten(name),
        list(&known, 10)
    )
}

fn sorted_unique(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v.dedup();
    v
}

// ---------------------------------------------------------------------------------------
// [routing] and [[event]]

/// A node named in `[routing]` or `[[event]]`.
fn node_named(cx: &mut Cx, path: &str, v: &Value, net: &Net) -> Option<usize> {
    let name = v.as_str()?;
    match net.node(name) {
        Some(i) => Some(i),
        None => {
            cx.err(
                path,
                format!(
                    "unknown node {:?}; nodes: {}",
                    shorten(name),
                    list(&net.nodes, 12)
                ),
            );
            None
        }
    }
}

/// `[routing]`: `None` for static routing.
fn routing(cx: &mut Cx, r: &Resolved, net: &Net) -> Option<DvSpec> {
    if r.kind.map(|k| k.name) != Some("distance-vector") {
        return None;
    }
    let mut initial = Vec::new();
    if let Value::Array(items) = r.value("initial") {
        for (i, item) in items.iter().enumerate() {
            let p = index("routing.initial", i);
            if let Some(e) = initial_entry(cx, &p, item, net) {
                initial.push(e);
            }
        }
    }
    checked(cx, "routing", DvSpec::from_resolved(r, initial))
}

fn initial_entry(cx: &mut Cx, p: &str, item: &Value, net: &Net) -> Option<DvInitial> {
    let node = node_named(cx, &join(p, "node"), &item["node"], net);
    let dest = node_named(cx, &join(p, "dest"), &item["dest"], net);
    let (node, dest) = (node?, dest?);
    if node == dest {
        cx.err(&join(p, "dest"), "a router needs no table for itself");
        return None;
    }
    let sp = join(p, "split");
    let mut split = Vec::new();
    let mut ok = true;
    for (name, a) in item["split"].as_object()? {
        let hp = join(&sp, name);
        let Some(j) = net.node(name) else {
            cx.err(&hp, format!("unknown node {:?}", shorten(name)));
            ok = false;
            continue;
        };
        if !net.links.iter().any(|l| l.from == node && l.to == j) {
            cx.err(
                &hp,
                format!(
                    "{name:?} is not a neighbour of {:?} (no link between them)",
                    net.nodes[node]
                ),
            );
            ok = false;
            continue;
        }
        split.push((j, a.as_f64().unwrap_or(0.0)));
    }
    let sum: f64 = split.iter().map(|s| s.1).sum();
    if ok && (split.is_empty() || (sum - 1.0).abs() > 1e-6) {
        cx.err(&sp, format!("the split ratios must sum to 1, found {sum}"));
        return None;
    }
    ok.then_some(DvInitial { node, dest, split })
}

/// `[[event]]`: link failures and recoveries, sorted by time.
fn events(cx: &mut Cx, entries: &[(usize, Resolved)], net: &Net) -> Vec<LinkEvent> {
    let mut out = Vec::new();
    for (i, r) in entries {
        let p = index("event", *i);
        let at: Option<Dur> = r.value("at").as_u64().map(Dur);
        let up = r.value("action").as_str().map(|a| a == "up");
        let links = match (r.explicit("link"), r.explicit("between")) {
            (true, false) => {
                let lp = join(&p, "link");
                let name = text(r, "link").unwrap_or_default();
                match net.links_named(&name) {
                    Some(ix) => Some(ix),
                    None => {
                        let names: Vec<&str> = net.links.iter().map(|l| l.name.as_str()).collect();
                        cx.err(
                            &lp,
                            format!(
                                "unknown link {:?}; links: {}",
                                shorten(&name),
                                list(&names, 12)
                            ),
                        );
                        None
                    }
                }
            }
            (false, true) => {
                let bp = join(&p, "between");
                match r.value("between") {
                    Value::Array(ab) if ab.len() == 2 => {
                        let a = node_named(cx, &index(&bp, 0), &ab[0], net);
                        let b = node_named(cx, &index(&bp, 1), &ab[1], net);
                        let (a, b) = (a, b);
                        match (a, b) {
                            (Some(a), Some(b)) => {
                                let ls: Vec<usize> = (0..net.links.len())
                                    .filter(|&l| {
                                        let s = &net.links[l];
                                        (s.from, s.to) == (a, b) || (s.from, s.to) == (b, a)
                                    })
                                    .collect();
                                if ls.is_empty() {
                                    cx.err(&bp, "no link joins these two nodes");
                                    None
                                } else {
                                    Some(ls)
                                }
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            _ => {
                cx.err(
                    &p,
                    "give exactly one of link = \"a->b\" (or a link entry's name) and \
                     between = [\"a\", \"b\"] (both directions)",
                );
                None
            }
        };
        if let (Some(at), Some(up), Some(links)) = (at, up, links) {
            out.push(LinkEvent {
                at: SimTime(at.0),
                links,
                up,
            });
        }
    }
    out.sort_by_key(|e| e.at);
    out
}
