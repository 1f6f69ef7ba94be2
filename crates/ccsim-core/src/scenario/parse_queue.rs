//! Queue and loss tables of `[[link]]` entries.

use super::reader::*;
use crate::scenario::model::*;
use serde_json::{Map, Value};

const DROPTAIL_KEYS: &[&str] = &["kind", "limit"];
const RED_KEYS: &[&str] = &[
    "kind",
    "min_th",
    "max_th",
    "max_p",
    "w_q",
    "gentle",
    "wait",
    "limit",
    "mean_pktsize",
    "queue_in_bytes",
    "bytes",
];

pub(crate) fn default_droptail() -> QueueSpec {
    QueueSpec::DropTail {
        limit: QueueLimit::Packets(100),
    }
}

fn default_red() -> RedSpec {
    RedSpec::default()
}

pub(crate) fn parse_queue(cx: &mut Cx, path: &str, v: &Value) -> QueueSpec {
    let owned = as_kind_table(v);
    let m = match (&owned, v) {
        (Some(m), _) => m,
        (None, Value::Object(m)) => m,
        (None, other) => {
            cx.err(
                path,
                format!(
                    "expected \"droptail\", \"red\" or a table such as \
                     {{ kind = \"droptail\", limit = \"333p\" }}, found {}",
                    describe(other)
                ),
            );
            return default_droptail();
        }
    };
    match kind(cx, path, m, "queue kind", &["droptail", "red"]) {
        Some(0) => {
            check_keys(cx, path, m, DROPTAIL_KEYS);
            let limit = m
                .get("limit")
                .and_then(|v| queue_limit(cx, &join(path, "limit"), v))
                .unwrap_or(QueueLimit::Packets(100));
            QueueSpec::DropTail { limit }
        }
        Some(_) => {
            check_keys(cx, path, m, RED_KEYS);
            QueueSpec::Red(parse_red(cx, path, m))
        }
        None => default_droptail(),
    }
}

/// A RED threshold: a number of packets ≥ 0 (or "25p"), or "auto".
fn threshold(cx: &mut Cx, path: &str, v: &Value) -> Option<f64> {
    match v {
        Value::String(s) if s == "auto" => None,
        Value::String(s) if s.trim_end().ends_with('p') => crate::scenario::units::parse_packets(s)
            .map_err(|e| cx.err(path, e))
            .ok()
            .map(|n| n as f64),
        Value::Number(_) => {
            let f = number(cx, path, v, "packets")?;
            if f < 0.0 {
                cx.err(path, format!("a threshold must not be negative, found {f}"));
                return None;
            }
            Some(f)
        }
        other => {
            cx.err(
                path,
                format!(
                    "expected a number of packets (such as 25 or \"25p\") or \"auto\", found {}",
                    describe(other)
                ),
            );
            None
        }
    }
}

fn parse_red(cx: &mut Cx, path: &str, m: &Map<String, Value>) -> RedSpec {
    let mut r = default_red();
    r.min_th = m
        .get("min_th")
        .and_then(|v| threshold(cx, &join(path, "min_th"), v));
    r.max_th = m
        .get("max_th")
        .and_then(|v| threshold(cx, &join(path, "max_th"), v));
    if let (Some(lo), Some(hi)) = (r.min_th, r.max_th) {
        if lo >= hi {
            cx.err(
                &join(path, "max_th"),
                format!("max_th ({hi}) must be greater than min_th ({lo})"),
            );
        }
    }
    if let Some(v) = m.get("max_p") {
        let p = join(path, "max_p");
        if let Some(f) = number(cx, &p, v, "a probability") {
            if f > 0.0 && f <= 1.0 {
                r.max_p = f;
            } else {
                cx.err(
                    &p,
                    format!("max_p must be greater than 0 and at most 1, found {f}"),
                );
            }
        }
    }
    if let Some(v) = m.get("w_q") {
        let p = join(path, "w_q");
        match v {
            Value::String(s) if s == "auto" => {}
            Value::Number(_) => {
                if let Some(f) = number(cx, &p, v, "a weight") {
                    if f > 0.0 && f <= 1.0 {
                        r.w_q = Some(f);
                    } else {
                        cx.err(
                            &p,
                            format!("w_q must be greater than 0 and at most 1, found {f}"),
                        );
                    }
                }
            }
            other => cx.err(
                &p,
                format!(
                    "expected a weight in (0, 1] such as 0.002, or \"auto\", found {}",
                    describe(other)
                ),
            ),
        }
    }
    if let Some(b) = m
        .get("gentle")
        .and_then(|v| boolean(cx, &join(path, "gentle"), v, "gentle mode"))
    {
        r.gentle = b;
    }
    if let Some(b) = m
        .get("wait")
        .and_then(|v| boolean(cx, &join(path, "wait"), v, "wait between drops"))
    {
        r.wait = b;
    }
    if let Some(b) = m
        .get("queue_in_bytes")
        .and_then(|v| boolean(cx, &join(path, "queue_in_bytes"), v, "queue in bytes"))
    {
        r.queue_in_bytes = b;
    }
    if let Some(b) = m
        .get("bytes")
        .and_then(|v| boolean(cx, &join(path, "bytes"), v, "byte-mode dropping"))
    {
        r.bytes = b;
    }
    if let Some(v) = m.get("limit") {
        let p = join(path, "limit");
        if let Some(n) = packets(cx, &p, v, "a RED limit in packets") {
            if n == 0 {
                cx.err(&p, "the limit must be at least 1 packet, e.g. \"50p\"");
            } else {
                r.limit = n;
            }
        }
    }
    if let Some(v) = m.get("mean_pktsize") {
        let p = join(path, "mean_pktsize");
        if let Some(b) = size_or_bytes(cx, &p, v, "a mean packet size") {
            if b.0 == 0 {
                cx.err(
                    &p,
                    "the mean packet size must be greater than zero, e.g. \"500B\"",
                );
            } else {
                r.mean_pktsize = b;
            }
        }
    }
    r
}

/// A loss probability p in [0, 1).
fn probability(cx: &mut Cx, path: &str, v: &Value) -> Option<f64> {
    let p = number(cx, path, v, "a loss probability such as 0.01")?;
    if (0.0..1.0).contains(&p) {
        Some(p)
    } else {
        cx.err(
            path,
            format!("a loss probability must be at least 0 and less than 1, found {p}"),
        );
        None
    }
}

pub(crate) fn parse_loss(cx: &mut Cx, path: &str, v: &Value) -> LossSpec {
    let bernoulli = |p: f64| {
        if p == 0.0 {
            LossSpec::None
        } else {
            LossSpec::Bernoulli(p)
        }
    };
    match v {
        Value::Number(_) => probability(cx, path, v).map_or(LossSpec::None, bernoulli),
        Value::String(s) if s == "none" => LossSpec::None,
        Value::Object(m) => match kind(cx, path, m, "loss kind", &["bernoulli", "scripted"]) {
            Some(0) => {
                check_keys(cx, path, m, &["kind", "p"]);
                required(
                    cx,
                    path,
                    m,
                    "p",
                    "the loss probability is required, e.g. p = 0.01",
                )
                .and_then(|v| probability(cx, &join(path, "p"), v))
                .map_or(LossSpec::None, bernoulli)
            }
            Some(_) => {
                check_keys(cx, path, m, &["kind", "data_packets"]);
                let dp = join(path, "data_packets");
                match required(
                    cx,
                    path,
                    m,
                    "data_packets",
                    "the data packets to drop are required, e.g. data_packets = [3, 4, 5]",
                ) {
                    Some(Value::Array(a)) => {
                        let mut out: Vec<u64> = a
                            .iter()
                            .enumerate()
                            .filter_map(|(k, e)| {
                                uint(cx, &index(&dp, k), e, "a data packet number (0-based)")
                            })
                            .collect();
                        out.sort_unstable();
                        out.dedup();
                        LossSpec::Scripted(out)
                    }
                    Some(other) => {
                        cx.err(
                            &dp,
                            format!(
                                "expected a list of packet numbers such as [3, 4, 5], found {}",
                                describe(other)
                            ),
                        );
                        LossSpec::None
                    }
                    None => LossSpec::None,
                }
            }
            None => LossSpec::None,
        },
        other => {
            cx.err(
                path,
                format!(
                    "expected a probability such as 0.01, or a table such as \
                     {{ kind = \"bernoulli\", p = 0.01 }} or {{ kind = \"scripted\", \
                     data_packets = [3, 4, 5] }}, found {}",
                    describe(other)
                ),
            );
            LossSpec::None
        }
    }
}
