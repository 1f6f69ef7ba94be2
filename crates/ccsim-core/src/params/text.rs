//! Small pieces of messages: locations (`flow[2].cc.beta`), found values, lists, ranges.

use super::{Bound, Param, Ty};
use serde_json::Value;

/// `parent.key` (or `key` at the top).
pub fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[i]`.
pub fn index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// A short description of a value for "found ..." messages.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Null => "nothing (null)".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("the integer {n}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string \"{}\"", shorten(s)),
        Value::Array(a) => format!("a list of {} elements", a.len()),
        Value::Object(_) => "a table".into(),
    }
}

/// At most 60 characters of `s`, for messages.
pub fn shorten(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(57).collect();
        t.push_str("...");
        t
    }
}

/// `a, b, c` (the first `max` items, then "...").
pub fn list<S: AsRef<str>>(items: &[S], max: usize) -> String {
    let mut out: Vec<&str> = items.iter().take(max).map(|s| s.as_ref()).collect();
    if items.len() > max {
        out.push("...");
    }
    out.join(", ")
}

/// `"a", "b" or "c"`.
pub fn quoted_or(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("\"{s}\"")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// A number as messages and docs write it (`1000000`, `0.5`).
pub fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The allowed range of a number as `0 < beta < 1`, `alpha ≥ 0`, or `None` if unbounded.
pub fn float_range(name: &str, min: Bound, max: Bound) -> Option<String> {
    let lo = match min {
        Bound::Incl(x) => Some(format!("{} ≤ ", num(x))),
        Bound::Excl(x) => Some(format!("{} < ", num(x))),
        Bound::None => None,
    };
    let hi = match max {
        Bound::Incl(x) => Some(format!(" ≤ {}", num(x))),
        Bound::Excl(x) => Some(format!(" < {}", num(x))),
        Bound::None => None,
    };
    match (lo, hi) {
        (None, None) => None,
        (Some(l), Some(h)) => Some(format!("{l}{name}{h}")),
        (Some(l), None) => {
            // "0 < x" reads better as "x > 0".
            let (x, op) = l.trim_end().rsplit_once(' ').unwrap_or(("", ""));
            let flipped = if op == "<" { ">" } else { "≥" };
            Some(format!("{name} {flipped} {x}"))
        }
        (None, Some(h)) => Some(format!("{name}{h}")),
    }
}

/// The allowed range of a whole number as `1 ≤ mss ≤ 1000000`, or `None` if unbounded.
pub fn int_range(name: &str, min: u64, max: u64) -> Option<String> {
    match (min, max) {
        (0, u64::MAX) => None,
        (lo, u64::MAX) => Some(format!("{name} ≥ {lo}")),
        (0, hi) => Some(format!("{name} ≤ {hi}")),
        (lo, hi) if lo == hi => Some(format!("{name} = {lo}")),
        (lo, hi) => Some(format!("{lo} ≤ {name} ≤ {hi}")),
    }
}

/// What a parameter's type accepts, for the reference ("duration > 0, or false: …").
pub fn type_text(p: &Param) -> String {
    let base = base_type_text(p);
    match p.alt {
        super::Alt::No => base,
        super::Alt::Word(w, m) => format!("{base}, or \"{w}\" ({m})"),
        super::Alt::False(m) => format!("{base}, or false ({m})"),
        super::Alt::Bool(m) => format!("{base}, true (the default) or false ({m})"),
        super::Alt::Words(ws) => {
            let each: Vec<String> = ws.iter().map(|(w, m)| format!("\"{w}\" ({m})")).collect();
            format!("{base}, or {}", each.join(", or "))
        }
    }
}

fn base_type_text(p: &Param) -> String {
    match p.ty {
        Ty::Bool => "boolean".into(),
        Ty::Int { min, max } => match int_range("n", min, max) {
            Some(r) => format!("integer, {r}"),
            None => "integer ≥ 0".into(),
        },
        Ty::Float { min, max } => match float_range("x", min, max) {
            Some(r) => format!("number, {r}"),
            None => "number".into(),
        },
        Ty::Duration { positive: true } => "duration > 0".into(),
        Ty::Duration { positive: false } => "duration".into(),
        Ty::Rate => "rate > 0".into(),
        Ty::Size { min, max } => {
            let sz = |x: u64| crate::units::parse::format_size_short(crate::units::Bytes(x));
            match (min, max) {
                (0, u64::MAX) => "size or integer bytes".into(),
                (lo, u64::MAX) => format!("size or integer bytes, ≥ {}", sz(lo)),
                (0, hi) => format!("size or integer bytes, ≤ {}", sz(hi)),
                (lo, hi) => format!("size or integer bytes, {} … {}", sz(lo), sz(hi)),
            }
        }
        Ty::Packets { min, max } => match int_range("n", min, max) {
            Some(r) => format!("packets (\"16p\" or integer n), {r}"),
            None => "packets (\"16p\" or integer)".into(),
        },
        Ty::QueueLimit => "packets (\"333p\" or integer) or size (\"500KB\"), > 0".into(),
        Ty::CountOrSize { min, max } => format!(
            "integer n, {}, or size (\"4380B\") > 0",
            int_range("n", min, max).unwrap_or_default()
        ),
        Ty::Start => "duration, or [lo, hi] (uniform in the range)".into(),
        Ty::Choice(names) => quoted_or(names),
        Ty::Text => "string".into(),
        Ty::Selection(what) => format!("\"all\", \"none\" or list of {what} names"),
        Ty::List { what, .. } => what.into(),
        Ty::Map(_) => "table of name = value".into(),
        Ty::Table(_) => "table".into(),
        Ty::Kinded(k) => format!("kind name or table with `kind`: {}", quoted_or(&k.names())),
        Ty::Flat { tag, kinds, .. } => {
            format!("table whose `{tag}` is {}", quoted_or(&kinds.names()))
        }
    }
}
