//! Reading a scenario document by hand: a problem collector and typed field readers.
//!
//! Every reader reports a located problem and returns `None` on a bad value, so the parser
//! can go on and report every problem at once. Nothing here panics on any input.

use crate::scenario::model::{QueueLimit, StartSpec};
use crate::scenario::units;
use crate::scenario::Problem;
use crate::units::{Bytes, Dur, Rate, SimTime};
use serde_json::{Map, Value};

/// Collected problems.
#[derive(Default)]
pub(crate) struct Cx {
    pub problems: Vec<Problem>,
}

impl Cx {
    /// Record a problem at `path`.
    pub fn err(&mut self, path: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            path: path.to_string(),
            message: message.into(),
        });
    }
}

/// `parent.key` (or `key` at the top).
pub(crate) fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[i]`.
pub(crate) fn index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// A short description of a value for "found ..." messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "nothing (null)".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("the integer {n}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string \"{}\"", shorten(s)),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a table".into(),
    }
}

/// At most 60 characters of `s`, for messages.
pub(crate) fn shorten(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(57).collect();
        t.push_str("...");
        t
    }
}

/// `a, b, c` (the first `max` items, then "…").
pub(crate) fn list<S: AsRef<str>>(items: &[S], max: usize) -> String {
    let mut out: Vec<&str> = items.iter().take(max).map(|s| s.as_ref()).collect();
    if items.len() > max {
        out.push("...");
    }
    out.join(", ")
}

/// The value as a table, or a "wrong type" problem.
pub(crate) fn table<'a>(
    cx: &mut Cx,
    path: &str,
    v: &'a Value,
    what: &str,
) -> Option<&'a Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        other => {
            cx.err(
                path,
                format!("expected a table ({what}), found {}", describe(other)),
            );
            None
        }
    }
}

/// Report every key of `m` that is not in `allowed`.
pub(crate) fn check_keys(cx: &mut Cx, path: &str, m: &Map<String, Value>, allowed: &[&str]) {
    for k in m.keys() {
        if !allowed.contains(&k.as_str()) {
            cx.err(
                &join(path, k),
                format!("unknown key; allowed: {}", allowed.join(", ")),
            );
        }
    }
}

/// A string value, or a "wrong type" problem naming `what` and an example.
pub(crate) fn string<'a>(cx: &mut Cx, path: &str, v: &'a Value, what: &str) -> Option<&'a str> {
    match v {
        Value::String(s) => Some(s),
        other => {
            cx.err(
                path,
                format!("expected a string ({what}), found {}", describe(other)),
            );
            None
        }
    }
}

/// A string from a closed set; returns its index in `allowed`.
pub(crate) fn choice(
    cx: &mut Cx,
    path: &str,
    v: &Value,
    what: &str,
    allowed: &[&str],
) -> Option<usize> {
    let s = string(cx, path, v, &format!("one of: {}", allowed.join(", ")))?;
    match allowed.iter().position(|a| *a == s) {
        Some(i) => Some(i),
        None => {
            cx.err(
                path,
                format!(
                    "unknown {what} \"{}\"; allowed: {}",
                    shorten(s),
                    allowed.join(", ")
                ),
            );
            None
        }
    }
}

/// A non-negative integer that fits u64.
pub(crate) fn uint(cx: &mut Cx, path: &str, v: &Value, what: &str) -> Option<u64> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Some(u)
            } else if n.as_i64().is_some() {
                cx.err(path, format!("{what} must not be negative, found {n}"));
                None
            } else {
                cx.err(
                    path,
                    format!("expected a whole number ({what}), found the number {n}"),
                );
                None
            }
        }
        other => {
            cx.err(
                path,
                format!("expected an integer ({what}), found {}", describe(other)),
            );
            None
        }
    }
}

/// An integer in `lo..=hi`.
pub(crate) fn uint_in(
    cx: &mut Cx,
    path: &str,
    v: &Value,
    what: &str,
    lo: u64,
    hi: u64,
) -> Option<u64> {
    let u = uint(cx, path, v, what)?;
    if u < lo || u > hi {
        cx.err(
            path,
            format!("{what} must be between {lo} and {hi}, found {u}"),
        );
        return None;
    }
    Some(u)
}

/// A finite number (integer or float).
pub(crate) fn number(cx: &mut Cx, path: &str, v: &Value, what: &str) -> Option<f64> {
    match v.as_f64() {
        Some(f) if f.is_finite() => Some(f),
        _ => {
            cx.err(
                path,
                format!("expected a number ({what}), found {}", describe(v)),
            );
            None
        }
    }
}

/// A boolean.
pub(crate) fn boolean(cx: &mut Cx, path: &str, v: &Value, what: &str) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        other => {
            cx.err(
                path,
                format!("expected true or false ({what}), found {}", describe(other)),
            );
            None
        }
    }
}

/// The "found a number" message for unit-bearing fields.
fn needs_unit(cx: &mut Cx, path: &str, v: &Value, what: &str, example: &str) {
    let msg = match v {
        Value::Number(n) => format!(
            "expected {what} as a string with a unit, e.g. \"{example}\"; found the bare number {n}"
        ),
        other => format!(
            "expected {what} as a string with a unit, e.g. \"{example}\"; found {}",
            describe(other)
        ),
    };
    cx.err(path, msg);
}

/// A duration string ("10ms").
pub(crate) fn duration(cx: &mut Cx, path: &str, v: &Value) -> Option<Dur> {
    match v {
        Value::String(s) => units::parse_duration(s).map_err(|e| cx.err(path, e)).ok(),
        other => {
            needs_unit(cx, path, other, "a duration", "10ms");
            None
        }
    }
}

/// A duration that must be greater than zero.
pub(crate) fn positive_duration(cx: &mut Cx, path: &str, v: &Value) -> Option<Dur> {
    let d = duration(cx, path, v)?;
    if d == Dur::ZERO {
        cx.err(path, "must be greater than zero, e.g. \"10ms\"");
        return None;
    }
    Some(d)
}

/// A rate string ("10Mbps"), greater than zero.
pub(crate) fn rate(cx: &mut Cx, path: &str, v: &Value) -> Option<Rate> {
    match v {
        Value::String(s) => units::parse_rate(s).map_err(|e| cx.err(path, e)).ok(),
        other => {
            needs_unit(cx, path, other, "a rate", "10Mbps");
            None
        }
    }
}

/// A size: a string with a unit ("1500B") or a bare integer meaning bytes.
pub(crate) fn size_or_bytes(cx: &mut Cx, path: &str, v: &Value, what: &str) -> Option<Bytes> {
    match v {
        Value::String(s) => units::parse_size(s).map_err(|e| cx.err(path, e)).ok(),
        Value::Number(_) => uint(cx, path, v, what).map(Bytes),
        other => {
            cx.err(
                path,
                format!(
                    "expected {what}: a size such as \"1500B\" or an integer number of bytes, found {}",
                    describe(other)
                ),
            );
            None
        }
    }
}

/// A packet count: "50p" or a bare integer.
pub(crate) fn packets(cx: &mut Cx, path: &str, v: &Value, what: &str) -> Option<u64> {
    match v {
        Value::String(s) => units::parse_packets(s).map_err(|e| cx.err(path, e)).ok(),
        Value::Number(_) => uint(cx, path, v, what),
        other => {
            cx.err(
                path,
                format!(
                    "expected {what}: packets such as \"50p\" or an integer, found {}",
                    describe(other)
                ),
            );
            None
        }
    }
}

/// A queue limit: "333p", a size such as "500KB", or a bare integer (packets); > 0.
pub(crate) fn queue_limit(cx: &mut Cx, path: &str, v: &Value) -> Option<QueueLimit> {
    let limit = match v {
        Value::String(s) => units::parse_queue_limit(s)
            .map_err(|e| cx.err(path, e))
            .ok()?,
        Value::Number(_) => QueueLimit::Packets(uint(cx, path, v, "queue limit in packets")?),
        other => {
            cx.err(
                path,
                format!(
                    "expected a queue limit: packets such as \"333p\", a size such as \"500KB\" \
                     or an integer number of packets, found {}",
                    describe(other)
                ),
            );
            return None;
        }
    };
    match limit {
        QueueLimit::Packets(0) | QueueLimit::Bytes(0) => {
            cx.err(
                path,
                "a queue limit must be greater than zero, e.g. \"333p\"",
            );
            None
        }
        l => Some(l),
    }
}

/// A start time: a duration, or a two-element list `["lo", "hi"]` for uniform in a range.
pub(crate) fn start(cx: &mut Cx, path: &str, v: &Value) -> Option<StartSpec> {
    match v {
        Value::String(_) => {
            let d = duration(cx, path, v)?;
            Some(StartSpec {
                lo: SimTime(d.0),
                hi: SimTime(d.0),
            })
        }
        Value::Array(a) if a.len() == 2 => {
            let lo = duration(cx, &index(path, 0), &a[0]);
            let hi = duration(cx, &index(path, 1), &a[1]);
            let (lo, hi) = (lo?, hi?);
            if lo > hi {
                cx.err(
                    path,
                    format!(
                        "the range must not be reversed: the first bound ({lo}) is later \
                         than the second ({hi})"
                    ),
                );
                return None;
            }
            Some(StartSpec {
                lo: SimTime(lo.0),
                hi: SimTime(hi.0),
            })
        }
        other => {
            cx.err(
                path,
                format!(
                    "expected a start time such as \"2s\" or a range such as [\"0s\", \"1s\"] \
                     (uniformly random within it), found {}",
                    match other {
                        Value::Array(a) => format!("a list of {} elements", a.len()),
                        o => describe(o),
                    }
                ),
            );
            None
        }
    }
}

/// The `kind` of a table (required), checked against `allowed`; index into `allowed`.
pub(crate) fn kind(
    cx: &mut Cx,
    path: &str,
    m: &Map<String, Value>,
    what: &str,
    allowed: &[&str],
) -> Option<usize> {
    match m.get("kind") {
        Some(k) => choice(cx, &join(path, "kind"), k, what, allowed),
        None => {
            cx.err(
                &join(path, "kind"),
                format!(
                    "missing; the table needs a kind, one of: {}",
                    allowed.join(", ")
                ),
            );
            None
        }
    }
}

/// A required field: the value, or a "missing" problem with a hint such as
/// `a rate is required, e.g. rate = "10Mbps"`.
pub(crate) fn required<'a>(
    cx: &mut Cx,
    path: &str,
    m: &'a Map<String, Value>,
    key: &str,
    hint: &str,
) -> Option<&'a Value> {
    let v = m.get(key);
    if v.is_none() {
        cx.err(&join(path, key), format!("missing; {hint}"));
    }
    v
}

/// A string `kind` standing for `{ kind = "..." }`.
pub(crate) fn as_kind_table(v: &Value) -> Option<Map<String, Value>> {
    match v {
        Value::String(s) => {
            let mut m = Map::new();
            m.insert("kind".into(), Value::String(s.clone()));
            Some(m)
        }
        _ => None,
    }
}
