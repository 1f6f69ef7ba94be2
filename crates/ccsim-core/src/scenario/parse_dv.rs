//! `[routing]` (adaptive distance-vector routing) and `[[event]]` (link failures and
//! recoveries). See docs/routing.md.

use super::reader::*;
use super::Net;
use crate::scenario::model::*;
use crate::units::SimTime;
use serde_json::Value;

const ROUTING_KEYS: &[&str] = &[
    "kind",
    "beta",
    "announce_interval",
    "adapt_interval",
    "announce_bytes",
    "jitter",
    "poison_reverse",
    "initial",
];
const INITIAL_KEYS: &[&str] = &["node", "dest", "split"];
const EVENT_KEYS: &[&str] = &["at", "link", "between", "action"];

fn node_named(cx: &mut Cx, path: &str, v: &Value, net: &Net) -> Option<usize> {
    let name = string(cx, path, v, "a node name")?;
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

/// `[routing]`: the distance-vector protocol's parameters (`None` for static routing:
/// absent, `kind = "static"` or `kind = "ecmp"`) and whether static routes are ECMP's.
pub(crate) fn parse_routing(cx: &mut Cx, v: Option<&Value>, net: &Net) -> (Option<DvSpec>, bool) {
    let path = "routing";
    let Some(m) = v.and_then(|v| table(cx, path, v, "[routing]")) else {
        return (None, false);
    };
    let k = kind(
        cx,
        path,
        m,
        "routing kind",
        &["static", "ecmp", "distance-vector"],
    );
    match k {
        Some(2) => {
            check_keys(cx, path, m, ROUTING_KEYS);
            (Some(parse_dv(cx, m, net)), false)
        }
        // Static shortest paths, one per destination or (ECMP) per flow: nothing to set.
        Some(k) => {
            check_keys(cx, path, m, &["kind"]);
            (None, k == 1)
        }
        None => {
            check_keys(cx, path, m, ROUTING_KEYS);
            (None, false)
        }
    }
}

/// The parameters of `[routing] kind = "distance-vector"`.
fn parse_dv(cx: &mut Cx, m: &serde_json::Map<String, Value>, net: &Net) -> DvSpec {
    let path = "routing";
    let mut spec = DvSpec::default();
    if let Some(v) = m.get("beta") {
        if let Some(b) = number(cx, "routing.beta", v, "the adaptation gain") {
            if b > 0.0 && b.is_finite() {
                spec.beta = b;
            } else {
                cx.err("routing.beta", format!("must be > 0, found {b}"));
            }
        }
    }
    for (key, slot) in [
        ("announce_interval", &mut spec.announce_interval),
        ("adapt_interval", &mut spec.adapt_interval),
    ] {
        if let Some(d) = m
            .get(key)
            .and_then(|v| positive_duration(cx, &join(path, key), v))
        {
            *slot = d;
        }
    }
    if let Some(v) = m.get("announce_bytes") {
        if let Some(b) = uint_in(cx, "routing.announce_bytes", v, "bytes", 1, 65535) {
            spec.announce_bytes = b as u32;
        }
    }
    if let Some(v) = m.get("jitter") {
        match number(cx, "routing.jitter", v, "a fraction of the timer period") {
            Some(x) if (0.0..=1.0).contains(&x) => spec.jitter = x,
            Some(x) => cx.err("routing.jitter", format!("must be in [0, 1], found {x}")),
            None => {}
        }
    }
    if let Some(v) = m.get("poison_reverse") {
        if let Some(k) = choice(
            cx,
            "routing.poison_reverse",
            v,
            "poison reverse",
            &["all-traffic", "any-traffic"],
        ) {
            spec.poison_any = k == 1;
        }
    }
    if let Some(v) = m.get("initial") {
        spec.initial = parse_initial(cx, v, net);
    }
    spec
}

fn parse_initial(cx: &mut Cx, v: &Value, net: &Net) -> Vec<DvInitial> {
    let path = "routing.initial";
    let Value::Array(items) = v else {
        cx.err(
            path,
            format!(
                "expected a list of {{ node, dest, split }} tables, found {}",
                describe(v)
            ),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = index(path, i);
        let Some(m) = table(cx, &p, item, "an initial table entry") else {
            continue;
        };
        check_keys(cx, &p, m, INITIAL_KEYS);
        let node = required(cx, &p, m, "node", "the router")
            .and_then(|v| node_named(cx, &join(&p, "node"), v, net));
        let dest = required(cx, &p, m, "dest", "the destination")
            .and_then(|v| node_named(cx, &join(&p, "dest"), v, net));
        let sp = join(&p, "split");
        let split_tbl = required(
            cx,
            &p,
            m,
            "split",
            "next hops and their splits, e.g. { \"b\" = 1.0 }",
        )
        .and_then(|v| table(cx, &sp, v, "a table of next hop = split"));
        let (Some(node), Some(dest), Some(tbl)) = (node, dest, split_tbl) else {
            continue;
        };
        if node == dest {
            cx.err(&join(&p, "dest"), "a router needs no table for itself");
            continue;
        }
        let mut split = Vec::new();
        let mut ok = true;
        for (name, a) in tbl {
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
            match number(cx, &hp, a, "a split ratio") {
                Some(x) if (0.0..=1.0).contains(&x) => split.push((j, x)),
                Some(x) => {
                    cx.err(&hp, format!("a split ratio must be in [0, 1], found {x}"));
                    ok = false;
                }
                None => ok = false,
            }
        }
        let sum: f64 = split.iter().map(|s| s.1).sum();
        if ok && (split.is_empty() || (sum - 1.0).abs() > 1e-6) {
            cx.err(&sp, format!("the split ratios must sum to 1, found {sum}"));
            continue;
        }
        if ok {
            out.push(DvInitial { node, dest, split });
        }
    }
    out
}

/// `[[event]]`: link failures and recoveries, sorted by time.
pub(crate) fn parse_events(cx: &mut Cx, v: Option<&Value>, net: &Net) -> Vec<LinkEvent> {
    let Some(v) = v else {
        return Vec::new();
    };
    let Value::Array(items) = v else {
        cx.err(
            "event",
            format!("expected [[event]] entries, found {}", describe(v)),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = index("event", i);
        let Some(m) = table(cx, &p, item, "an [[event]] entry") else {
            continue;
        };
        check_keys(cx, &p, m, EVENT_KEYS);
        let at = required(cx, &p, m, "at", "when, e.g. at = \"30s\"")
            .and_then(|v| duration(cx, &join(&p, "at"), v));
        let up = required(cx, &p, m, "action", "\"down\" or \"up\"")
            .and_then(|v| choice(cx, &join(&p, "action"), v, "action", &["down", "up"]))
            .map(|k| k == 1);
        let links = match (m.get("link"), m.get("between")) {
            (Some(v), None) => {
                let lp = join(&p, "link");
                string(cx, &lp, v, "a link name").and_then(|name| {
                    if let Some(l) = net.link(name) {
                        Some(vec![l])
                    } else if let Some((_, _, ix)) = net.aliases.iter().find(|(a, _, _)| a == name)
                    {
                        Some(ix.clone())
                    } else {
                        let names: Vec<&str> = net.links.iter().map(|l| l.name.as_str()).collect();
                        cx.err(
                            &lp,
                            format!(
                                "unknown link {:?}; links: {}",
                                shorten(name),
                                list(&names, 12)
                            ),
                        );
                        None
                    }
                })
            }
            (None, Some(Value::Array(ab))) if ab.len() == 2 => {
                let bp = join(&p, "between");
                let a = node_named(cx, &index(&bp, 0), &ab[0], net);
                let b = node_named(cx, &index(&bp, 1), &ab[1], net);
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
            (None, Some(v)) => {
                cx.err(
                    &join(&p, "between"),
                    format!("expected two node names, found {}", describe(v)),
                );
                None
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
