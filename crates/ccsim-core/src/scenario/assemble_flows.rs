//! The second pass over `[[flow]]` entries: node names, reachability, pinned paths, the
//! path selector, the transport's typed configuration, `count` expansion and unique names.

use super::assemble::{checked, get, text, Net};
use super::constraints;
use super::document::FlowDoc;
use super::model::{FlowSpec, TransportSpec};
use crate::cc::{AnyCc, CcContext};
use crate::net::reach::Reachability;
use crate::params::text::{index, join, list, shorten};
use crate::params::{Cx, Origin, Resolved};
use crate::transport::arc_config::ArcSpec;
use crate::transport::mptcp::config::MAX_SUBFLOWS;
use crate::transport::mptcp::MptcpSpec;
use crate::transport::sctp::SctpSpec;
use crate::transport::tcp::TcpSpec;
use crate::units::Bytes;
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

/// Most destinations (pinned paths) of one SCTP association.
const MAX_SCTP_PATHS: usize = 32;
/// Most paths one flow may list (the packet header numbers them in a byte).
const MAX_PATHS: usize = 255;

/// The expanded flows and, for each entry with `count` > 1, its base name and flow indices
/// (so that `trace.flows` may name the whole group).
#[derive(Default)]
pub(crate) struct Flows {
    pub flows: Vec<FlowSpec>,
    /// Every flow's name, also of the flows whose transport could not be read (so that
    /// `trace.flows` does not report them as unknown).
    pub names: Vec<String>,
    pub groups: Vec<(String, Vec<usize>)>,
}

pub(crate) fn flows(cx: &mut Cx, entries: &mut [FlowDoc], net: &Net) -> Flows {
    let mut out = Flows::default();
    // One reachability structure for every flow (net/reach.rs), not a search per flow.
    let edges: Vec<(usize, usize)> = net.links.iter().map(|l| (l.from, l.to)).collect();
    let mut reach = Reachability::new(net.nodes.len(), &edges);
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut typed = HashMap::new();
    for e in entries {
        flow(cx, net, &mut reach, e, &mut names, &mut typed, &mut out);
    }
    out
}

/// A repeated entry's typed transport and its resolved table after `transport_spec`, by
/// the entry's template number (`repeats.rs`).
type Typed = HashMap<usize, (TransportSpec, Rc<Resolved>)>;

fn flow(
    cx: &mut Cx,
    net: &Net,
    reach: &mut Reachability,
    e: &mut FlowDoc,
    names: &mut HashMap<String, usize>,
    typed: &mut Typed,
    out: &mut Flows,
) {
    let i = e.index;
    let path = index("flow", i);
    let c = &e.common;
    let name_path = join(&path, "name");
    let name = match text(c, "name") {
        Some(s) if s.trim().is_empty() => {
            cx.err(&name_path, "a flow name must not be empty");
            format!("flow{i}")
        }
        Some(s) => s,
        None => format!("flow{i}"),
    };
    let from = text(c, "from").and_then(|s| net.known_node(cx, &join(&path, "from"), &s));
    let to = text(c, "to").and_then(|s| net.known_node(cx, &join(&path, "to"), &s));
    let count: u64 = c.value("count").as_u64().unwrap_or(1);
    let transport = e.transport.as_ref().and_then(|t| t.kind).map(|k| k.name);
    let replies = transport != Some("udp");

    // Endpoints and reachability.
    if let (Some(a), Some(b)) = (from, to) {
        if a == b {
            cx.err(
                &join(&path, "to"),
                format!(
                    "from and to are the same node \"{}\"; a flow needs two different nodes",
                    shorten(&net.nodes[a])
                ),
            );
        } else if !reach.reaches(a, b) {
            cx.err(
                &path,
                format!(
                    "node \"{}\" cannot be reached from node \"{}\" over the links",
                    shorten(&net.nodes[b]),
                    shorten(&net.nodes[a])
                ),
            );
        } else if replies && !reach.reaches(b, a) {
            cx.err(
                &path,
                format!(
                    "TCP needs a return path for its ACKs, but node \"{}\" cannot be reached \
                     from node \"{}\" over the links",
                    shorten(&net.nodes[a]),
                    shorten(&net.nodes[b])
                ),
            );
        }
    }

    // Pinned paths: one for single-path transports, several for a multipath transport or
    // a TCP flow that selects one per connection (MATCP).
    let selects =
        transport == Some("tcp") && e.transport.as_ref().is_some_and(|t| t.explicit("select"));
    let (max_paths, why) = match transport {
        _ if selects => (usize::MAX, ""),
        Some("sctp") => (
            MAX_SCTP_PATHS,
            "an SCTP association has at most 32 destinations",
        ),
        Some("mptcp") => (MAX_SUBFLOWS, "one MPTCP subflow per path"),
        _ => (
            1,
            "this flow sends on one path (pin it with a single node list, or give a TCP \
             flow a path selector: select = \"wrtt\")",
        ),
    };
    let written = c.value("paths").as_array().map(Vec::len);
    let paths = match c.value("paths") {
        Value::Array(v) => pinned_paths(
            cx,
            &join(&path, "paths"),
            &v,
            net,
            from.zip(to),
            replies,
            max_paths,
            why,
        ),
        _ => Vec::new(),
    };

    // An entry that repeats an earlier one (and pins no paths) is typed as that one was.
    let template = e.template.filter(|_| written.is_none());
    let spec = match template.and_then(|n| typed.get(&n)) {
        Some((spec, t)) => {
            e.transport = Some(Rc::clone(t));
            Some(spec.clone())
        }
        None => {
            let before = cx.problems.len();
            // (a table shared with repeats is copied before it is filled in)
            let spec = e
                .transport
                .as_mut()
                .and_then(|t| transport_spec(cx, &path, Rc::make_mut(t), written, &paths));
            if let (Some(n), Some(s), Some(t)) = (template, &spec, &e.transport) {
                if cx.problems.len() == before {
                    typed.insert(n, (s.clone(), Rc::clone(t)));
                }
            }
            spec
        }
    };

    // Expansion and unique names.
    let first = out.names.len();
    let mut reported = false;
    for k in 0..count {
        let n = if count > 1 {
            format!("{name}.{k}")
        } else {
            name.clone()
        };
        if let Some(&other) = names.get(&n) {
            if !reported {
                let at = if c.explicit("name") {
                    name_path.clone()
                } else {
                    path.clone()
                };
                cx.err(
                    &at,
                    format!(
                        "duplicate flow name \"{}\" (also used by flow[{other}]); flow names \
                         must be unique",
                        shorten(&n)
                    ),
                );
                reported = true;
            }
        } else {
            names.insert(n.clone(), i);
        }
        out.names.push(n.clone());
        if let Some(spec) = &spec {
            out.flows.push(FlowSpec {
                name: n,
                from: from.unwrap_or(usize::MAX),
                to: to.unwrap_or(usize::MAX),
                transport: spec.clone(),
                paths: paths.clone(),
            });
        }
    }
    if count > 1 {
        out.groups.push((name, (first..out.names.len()).collect()));
    }
}

/// Fill what depends on the paths (`written`: how many entries `paths` has, if given), run
/// the transport's cross-field checks and build its typed configuration.
fn transport_spec(
    cx: &mut Cx,
    path: &str,
    t: &mut Resolved,
    written: Option<usize>,
    paths: &[Vec<usize>],
) -> Option<TransportSpec> {
    let paths_given = written.is_some();
    constraints::transport(cx, path, t);
    let kind = t.kind?.name;
    Some(match kind {
        "tcp" => {
            if let Some(sel) = t.get_mut("select").and_then(|e| e.sub.as_mut()) {
                if !paths_given {
                    cx.err(
                        &join(path, "select"),
                        "a path selector needs the paths to choose from: paths = [[...], [...]]",
                    );
                }
                if let Some(r) = sel.get_mut("refresh") {
                    if r.value.is_null() {
                        r.value = Value::from(paths.len().max(1));
                    }
                }
            }
            let tcp: TcpSpec = super::assemble::typed(cx, path, t)?;
            check_controller(cx, path, &tcp);
            TransportSpec::Tcp(tcp)
        }
        "udp" => TransportSpec::Udp(get(cx, path, t, "app")?),
        "arc" => TransportSpec::Arc(checked(cx, path, ArcSpec::from_resolved(t))?),
        "sctp" => TransportSpec::Sctp(checked(cx, path, SctpSpec::from_resolved(t))?),
        "mptcp" => {
            if !paths_given {
                cx.err(
                    path,
                    "an MPTCP flow needs paths, one per subflow, e.g. paths = [[\"s\", \"a\", \
                     \"d\"], [\"s\", \"b\", \"d\"]]",
                );
            }
            let n = written.unwrap_or(1).clamp(1, MAX_SUBFLOWS);
            if let Some(j) = t.get_mut("joins") {
                match &j.value {
                    Value::Array(a) if j.origin == Origin::Explicit && a.len() != n => {
                        cx.err(
                            &join(path, "joins"),
                            format!("expected one join delay per path ({n}), found {}", a.len()),
                        );
                        j.value = Value::from(vec![0u64; n]);
                    }
                    Value::Array(_) => {}
                    _ => j.value = Value::from(vec![0u64; n]),
                }
            }
            let m = checked(cx, path, MptcpSpec::from_resolved(t))?;
            if m.recv_buffer.is_some_and(|b| b < m.tcp.mss as u64) {
                cx.err(
                    &join(path, "recv_buffer"),
                    format!(
                        "recv_buffer must hold at least one segment ({} bytes)",
                        m.tcp.mss
                    ),
                );
            }
            TransportSpec::Mptcp(m)
        }
        _ => return None,
    })
}

/// Build the flow's controller once, so that a declaration that does not fit its type is
/// reported here rather than during the run.
fn check_controller(cx: &mut Cx, path: &str, tcp: &TcpSpec) {
    let ctx = CcContext {
        mss: Bytes(tcp.mss as u64),
        init_cwnd: Bytes(tcp.init_cwnd as u64 * tcp.mss as u64),
        seed: 0,
    };
    checked(cx, &join(path, "cc"), AnyCc::build(&tcp.cc, ctx));
}

/// Check `paths` (already read as lists of node-name lists): each from `from` to `to`, with
/// a link between consecutive nodes (and back, when the transport `replies`), no loops, at
/// most `max` entries (`why_max` explains the limit).
#[allow(clippy::too_many_arguments)]
fn pinned_paths(
    cx: &mut Cx,
    path: &str,
    entries: &[Value],
    net: &Net,
    ends: Option<(usize, usize)>,
    replies: bool,
    max: usize,
    why_max: &str,
) -> Vec<Vec<usize>> {
    if entries.is_empty() {
        cx.err(path, "must list at least one path (or leave `paths` out)");
    }
    if entries.len() > max.min(MAX_PATHS) {
        cx.err(
            path,
            format!(
                "{} paths given; at most {} allowed: {why_max}",
                entries.len(),
                max.min(MAX_PATHS)
            ),
        );
    }
    let mut out = Vec::with_capacity(entries.len());
    for (k, e) in entries.iter().enumerate() {
        let at = index(path, k);
        let names = e.as_array().map(Vec::as_slice).unwrap_or_default();
        let mut nodes = Vec::with_capacity(names.len());
        let mut ok = true;
        for (j, n) in names.iter().enumerate() {
            let s = n.as_str().unwrap_or_default();
            match net.node(s) {
                Some(i) => nodes.push(i),
                None => {
                    cx.err(
                        &index(&at, j),
                        format!(
                            "unknown node \"{}\"; known nodes: {}",
                            shorten(s),
                            list(&net.nodes, 10)
                        ),
                    );
                    ok = false;
                }
            }
        }
        if !ok {
            continue;
        }
        if nodes.len() < 2 {
            cx.err(
                &at,
                "a path needs at least two nodes (the source and the destination)",
            );
            continue;
        }
        if let Some((a, b)) = ends {
            if nodes[0] != a || nodes[nodes.len() - 1] != b {
                cx.err(
                    &at,
                    format!(
                        "a path must start at the flow's source \"{}\" and end at its \
                         destination \"{}\"",
                        shorten(&net.nodes[a]),
                        shorten(&net.nodes[b])
                    ),
                );
                continue;
            }
        }
        let mut seen = vec![false; net.nodes.len()];
        for (j, w) in nodes.windows(2).enumerate() {
            let (a, b) = (w[0], w[1]);
            if seen[a] {
                cx.err(
                    &index(&at, j),
                    format!(
                        "node \"{}\" appears twice; a path must not loop",
                        shorten(&net.nodes[a])
                    ),
                );
                ok = false;
            }
            seen[a] = true;
            let has = |x: usize, y: usize| net.links.iter().any(|l| l.from == x && l.to == y);
            if !has(a, b) {
                cx.err(
                    &index(&at, j + 1),
                    format!(
                        "no link from \"{}\" to \"{}\"",
                        shorten(&net.nodes[a]),
                        shorten(&net.nodes[b])
                    ),
                );
                ok = false;
            } else if replies && !has(b, a) {
                cx.err(
                    &index(&at, j + 1),
                    format!(
                        "no link from \"{}\" back to \"{}\" for the return path (acknowledgements \
                         follow the path in reverse)",
                        shorten(&net.nodes[b]),
                        shorten(&net.nodes[a])
                    ),
                );
                ok = false;
            }
        }
        if seen[nodes[nodes.len() - 1]] {
            cx.err(&at, "the destination appears twice; a path must not loop");
            ok = false;
        }
        if ok {
            out.push(nodes);
        }
    }
    out
}
