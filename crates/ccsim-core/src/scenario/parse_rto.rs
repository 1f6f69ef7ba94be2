//! `rto` tables: the four bounds every retransmission timer has (TCP, ARC, SCTP), and for
//! TCP flows the estimator and timer options of `parse_tcp_options`.

use super::parse_tcp_options::{parse_tcp_rto_options, TCP_RTO_KEYS};
use super::reader::*;
use crate::scenario::model::*;
use crate::units::Dur;
use serde_json::{Map, Value};

const RTO_KEYS: &[&str] = &["min", "max", "initial", "granularity"];

/// A TCP flow's RTO defaults (docs/tcp.md §8): min 1 s, max 60 s, initial 1 s, G 1 ms.
pub(crate) fn default_rto() -> RtoSpec {
    RtoSpec::rfc6298(
        Dur::from_secs(1),
        Dur::from_secs(60),
        Dur::from_secs(1),
        Dur::from_millis(1),
    )
}

/// A TCP flow's `rto` table: the bounds, and the estimator and timer options.
pub(crate) fn parse_tcp_rto(cx: &mut Cx, path: &str, v: &Value) -> RtoSpec {
    let Some(m) = rto_table(cx, path, v) else {
        return default_rto();
    };
    let keys: Vec<&str> = RTO_KEYS.iter().chain(TCP_RTO_KEYS).copied().collect();
    check_keys(cx, path, m, &keys);
    let r = rto_bounds(cx, path, m, default_rto());
    parse_tcp_rto_options(cx, path, m, r)
}

fn rto_table<'a>(cx: &mut Cx, path: &str, v: &'a Value) -> Option<&'a Map<String, Value>> {
    table(
        cx,
        path,
        v,
        "RTO parameters such as { min = \"200ms\", max = \"60s\" }",
    )
}

/// An ARC or SCTP `rto` table: the bounds only.
pub(crate) fn parse_rto(cx: &mut Cx, path: &str, v: &Value, defaults: RtoSpec) -> RtoSpec {
    let Some(m) = rto_table(cx, path, v) else {
        return defaults;
    };
    check_keys(cx, path, m, RTO_KEYS);
    rto_bounds(cx, path, m, defaults)
}

/// `min`, `max`, `initial` and `granularity` of an `rto` table over `defaults`.
fn rto_bounds(cx: &mut Cx, path: &str, m: &Map<String, Value>, defaults: RtoSpec) -> RtoSpec {
    let mut r = defaults;
    if let Some(d) = m
        .get("min")
        .and_then(|v| duration(cx, &join(path, "min"), v))
    {
        r.min = d;
    }
    let max_ok = m
        .get("max")
        .map(|v| positive_duration(cx, &join(path, "max"), v));
    if let Some(Some(d)) = max_ok {
        r.max = d;
    }
    if let Some(d) = m
        .get("initial")
        .and_then(|v| positive_duration(cx, &join(path, "initial"), v))
    {
        r.initial = d;
    }
    if let Some(d) = m
        .get("granularity")
        .and_then(|v| duration(cx, &join(path, "granularity"), v))
    {
        r.granularity = d;
    }
    if r.min > r.max && !matches!(max_ok, Some(None)) {
        cx.err(
            path,
            format!("min ({}) must not exceed max ({})", r.min, r.max),
        );
    }
    r
}
