//! A flow's `paths`: explicit node lists pinning its packets (see `net::pinned`).

use super::reader::*;
use super::Net;
use crate::scenario::model::{DropMetric, SelectKind, SelectSpec};
use serde_json::Value;

/// Most paths one flow may list (the packet header numbers them in a byte).
pub(crate) const MAX_PATHS: usize = 255;

/// Parse `paths` at `path`: a list of node lists, each from `from` to `to` with a link
/// between consecutive nodes (and back, when the transport `replies`). At most `max` entries;
/// `why_max` explains the limit in the error.
#[allow(clippy::too_many_arguments)]
pub(crate) fn parse_paths(
    cx: &mut Cx,
    path: &str,
    v: &Value,
    net: &Net,
    ends: Option<(usize, usize)>,
    replies: bool,
    max: usize,
    why_max: &str,
) -> Vec<Vec<usize>> {
    let Value::Array(entries) = v else {
        cx.err(
            path,
            format!(
                "expected a list of node lists, e.g. paths = [[\"s\", \"a\", \"d\"]], found {}",
                describe(v)
            ),
        );
        return Vec::new();
    };
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
        let Value::Array(names) = e else {
            cx.err(
                &at,
                format!("expected a list of node names, found {}", describe(e)),
            );
            continue;
        };
        let mut nodes = Vec::with_capacity(names.len());
        let mut ok = true;
        for (j, n) in names.iter().enumerate() {
            let Some(s) = string(cx, &index(&at, j), n, "a node name") else {
                ok = false;
                continue;
            };
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

/// Selector names, in `SelectKind` order.
pub(crate) const SELECTORS: &[&str] = &["drop", "rttvar", "rtt", "wrtt"];
const SELECT_KEYS: &[&str] = &["kind", "refresh", "drop_metric"];

/// `select = "wrtt"` or `select = { kind = "drop", refresh = 4, drop_metric = "count" }`.
/// A `refresh` of 0 stands for "the number of paths", resolved by the caller.
pub(crate) fn parse_select(cx: &mut Cx, path: &str, v: &Value) -> Option<SelectSpec> {
    let m = match as_kind_table(v) {
        Some(m) => m,
        None => table(cx, path, v, "a selector (a kind string or a table)")?.clone(),
    };
    check_keys(cx, path, &m, SELECT_KEYS);
    let kind = match kind(cx, path, &m, "path selector", SELECTORS)? {
        0 => SelectKind::Drop,
        1 => SelectKind::RttVar,
        2 => SelectKind::Rtt,
        _ => SelectKind::Wrtt,
    };
    let refresh = m
        .get("refresh")
        .and_then(|v| {
            uint_in(
                cx,
                &join(path, "refresh"),
                v,
                "the refresh constant",
                1,
                1 << 20,
            )
        })
        .unwrap_or(0) as u32;
    let drop_metric = match m.get("drop_metric").map(|v| {
        choice(
            cx,
            &join(path, "drop_metric"),
            v,
            "drop metric",
            &["count", "per_packet"],
        )
    }) {
        Some(Some(1)) => DropMetric::PerPacket,
        _ => DropMetric::Count,
    };
    Some(SelectSpec {
        kind,
        refresh,
        drop_metric,
    })
}
