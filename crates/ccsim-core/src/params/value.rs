//! Reading one value of a declared type: numbers and their ranges, unit strings, choices,
//! lists, start times, queue limits. Each problem is recorded with its path; nothing panics.

use super::read::{read_flat, read_kinded, read_table, table, Cx, Scope};
use super::text::{describe, float_range, index, int_range, join, num, shorten};
use super::{Alt, Bound, Param, Ty};
use crate::units::parse::{self as units, PacketsOrBytes};
use serde_json::{json, Map, Value};

/// `or write name = "auto" (what that means)` for messages, or "".
pub(super) fn alt_hint(p: &Param) -> String {
    match p.alt {
        Alt::No => String::new(),
        Alt::Word(w, m) => format!(" (or write {} = \"{w}\": {m})", p.name),
        Alt::False(m) => format!(" (or write {} = false: {m})", p.name),
        Alt::Bool(m) => format!(" (or write {} = false: {m}; true is the default)", p.name),
        Alt::Words(ws) => {
            let each: Vec<String> = ws.iter().map(|(w, m)| format!("\"{w}\": {m}")).collect();
            format!(" (or write {} = {})", p.name, each.join(", or "))
        }
    }
}

/// Read a value of a type without nested parameters (`ty` is `p.ty`, or a list's element
/// type).
pub(super) fn plain(cx: &mut Cx, path: &str, v: &Value, p: &Param, ty: &Ty) -> Option<Value> {
    let hint = alt_hint(p);
    match *ty {
        Ty::Bool => match v {
            Value::Bool(b) => Some(Value::Bool(*b)),
            other => {
                cx.err(
                    path,
                    format!("expected true or false{hint}, found {}", describe(other)),
                );
                None
            }
        },
        Ty::Int { min, max } => {
            // The hint is words for a problem: made only when there is one.
            let u = match v.as_u64() {
                Some(u) => u,
                None => {
                    let range =
                        int_range(p.name, min, max).map_or(String::new(), |r| format!(", {r}"));
                    uint(cx, path, v, &format!("{range}{hint}"))?
                }
            };
            in_range(cx, path, u, min, max, p.name, "", &hint).map(Value::from)
        }
        Ty::Float { min, max } => {
            let x = match v {
                Value::String(s) if p.unit == "packets" && s.trim_end().ends_with('p') => {
                    units::parse_packets(s).map_err(|e| cx.err(path, e)).ok()? as f64
                }
                _ => match v.as_f64() {
                    Some(f) if f.is_finite() => f,
                    _ => {
                        let also = if p.unit == "packets" {
                            " of packets (such as 25 or \"25p\")"
                        } else {
                            ""
                        };
                        let range = float_range(p.name, min, max)
                            .map_or(String::new(), |r| format!(", {r}"));
                        cx.err(
                            path,
                            format!(
                                "expected a number{also}{range}{hint}, found {}",
                                describe(v)
                            ),
                        );
                        return None;
                    }
                },
            };
            let above = match min {
                Bound::Incl(lo) => x >= lo,
                Bound::Excl(lo) => x > lo,
                Bound::None => true,
            };
            let below = match max {
                Bound::Incl(hi) => x <= hi,
                Bound::Excl(hi) => x < hi,
                Bound::None => true,
            };
            if !(above && below) {
                let range = float_range(p.name, min, max).unwrap_or_default();
                let unit = if p.unit.is_empty() {
                    String::new()
                } else {
                    format!(" {}", p.unit)
                };
                cx.err(
                    path,
                    format!("{} is out of range; allowed {range}{unit}{hint}", num(x)),
                );
                return None;
            }
            Some(Value::from(x))
        }
        Ty::Duration { positive } => {
            let d = with_unit(cx, path, v, "a duration", "10ms", &hint, |s| {
                units::parse_duration(s).map(|d| d.0)
            })?;
            if positive && d == 0 {
                cx.err(
                    path,
                    format!("must be greater than zero, e.g. \"10ms\"{hint}"),
                );
                return None;
            }
            Some(Value::from(d))
        }
        Ty::Rate => with_unit(cx, path, v, "a rate", "10Mbps", &hint, |s| {
            units::parse_rate(s).map(|r| r.0)
        })
        .map(Value::from),
        Ty::Size { min, max } => {
            let b = match v {
                Value::String(s) => units::parse_size(s).map_err(|e| cx.err(path, e)).ok()?.0,
                Value::Number(_) => uint(cx, path, v, &hint)?,
                other => {
                    cx.err(
                        path,
                        format!(
                            "expected a size such as \"1500B\" or an integer number of bytes{hint}, \
                             found {}",
                            describe(other)
                        ),
                    );
                    return None;
                }
            };
            size_in_range(cx, path, b, min, max, p.name, &hint).map(Value::from)
        }
        Ty::Packets { min, max } => {
            let n = match v {
                Value::String(s) => units::parse_packets(s).map_err(|e| cx.err(path, e)).ok()?,
                Value::Number(_) => uint(cx, path, v, &hint)?,
                other => {
                    cx.err(
                        path,
                        format!(
                            "expected packets such as \"50p\" or an integer{hint}, found {}",
                            describe(other)
                        ),
                    );
                    return None;
                }
            };
            in_range(cx, path, n, min, max, p.name, " packets", &hint).map(Value::from)
        }
        Ty::QueueLimit => queue_limit(cx, path, v),
        Ty::CountOrSize { min, max } => match v {
            Value::String(s) => match units::parse_size(s) {
                Ok(b) if b.0 > 0 => Some(json!({ "bytes": b.0 })),
                Ok(_) => {
                    cx.err(path, format!("{} must be greater than zero", p.name));
                    None
                }
                Err(e) => {
                    cx.err(path, e);
                    None
                }
            },
            Value::Number(_) => {
                let range = int_range(p.name, min, max).map_or(String::new(), |r| format!(", {r}"));
                let n = uint(cx, path, v, &range)?;
                in_range(cx, path, n, min, max, p.name, "", "").map(|n| json!({ "count": n }))
            }
            other => {
                cx.err(
                    path,
                    format!(
                        "expected a number of {} (an integer) or a size such as \"4380B\", found {}",
                        p.unit,
                        describe(other)
                    ),
                );
                None
            }
        },
        Ty::Start => start(cx, path, v),
        Ty::Choice(names) => {
            let s = match v {
                Value::String(s) => s,
                other => {
                    cx.err(
                        path,
                        format!(
                            "expected a string, one of: {}{hint}; found {}",
                            names.join(", "),
                            describe(other)
                        ),
                    );
                    return None;
                }
            };
            if names.contains(&s.as_str()) {
                Some(Value::from(s.as_str()))
            } else {
                cx.err(
                    path,
                    format!(
                        "unknown {} \"{}\"; allowed: {}{hint}",
                        p.name,
                        shorten(s),
                        names.join(", ")
                    ),
                );
                None
            }
        }
        Ty::Text => match v {
            Value::String(s) => Some(Value::from(s.as_str())),
            other => {
                cx.err(
                    path,
                    format!("expected a string, found {}", describe(other)),
                );
                None
            }
        },
        Ty::Selection(what) => selection(cx, path, v, what),
        Ty::List { of, len, what } => {
            let a = match v {
                Value::Array(a) if len.is_none_or(|n| a.len() == n) => a,
                other => {
                    cx.err(
                        path,
                        format!("expected {what}{hint}, found {}", describe(other)),
                    );
                    return None;
                }
            };
            let mut out = Vec::with_capacity(a.len());
            let mut ok = true;
            for (i, e) in a.iter().enumerate() {
                match element(cx, &index(path, i), e, p, of) {
                    Some(x) => out.push(x),
                    None => ok = false,
                }
            }
            ok.then_some(Value::Array(out))
        }
        Ty::Map(of) => {
            let m = table(cx, path, v)?;
            let mut out = Map::new();
            let mut ok = true;
            for (k, e) in m {
                match element(cx, &join(path, k), e, p, of) {
                    Some(x) => {
                        out.insert(k.clone(), x);
                    }
                    None => ok = false,
                }
            }
            ok.then_some(Value::Object(out))
        }
        Ty::Table(params) => {
            let r = read_table(cx, path, v, params, &Scope::default())?;
            Some(r.to_json())
        }
        Ty::Kinded(kinds) => {
            let r = read_kinded(cx, path, v, kinds, "", &Scope::default())?;
            Some(r.to_json())
        }
        Ty::Flat { common, tag, kinds } => {
            let (c, k) = read_flat(cx, path, v, common, tag, kinds, &Scope::default())?;
            let mut out = c.to_json();
            if let (Value::Object(m), Some(k)) = (&mut out, k) {
                if let Value::Object(km) = k.to_json() {
                    m.extend(km.into_iter().filter(|(key, _)| key != "kind"));
                }
            }
            Some(out)
        }
    }
}

/// An element of a list or map: its type `of`, messages naming the parent parameter.
fn element(cx: &mut Cx, path: &str, v: &Value, parent: &Param, of: &Ty) -> Option<Value> {
    let p = Param {
        alt: Alt::No,
        ..*parent
    };
    plain(cx, path, v, &p, of)
}

/// A non-negative integer that fits u64.
fn uint(cx: &mut Cx, path: &str, v: &Value, hint: &str) -> Option<u64> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Some(u)
            } else if n.as_i64().is_some() {
                cx.err(path, format!("must not be negative, found {n}"));
                None
            } else {
                cx.err(
                    path,
                    format!("expected a whole number{hint}, found the number {n}"),
                );
                None
            }
        }
        other => {
            cx.err(
                path,
                format!("expected an integer{hint}, found {}", describe(other)),
            );
            None
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn in_range(
    cx: &mut Cx,
    path: &str,
    u: u64,
    min: u64,
    max: u64,
    name: &str,
    unit: &str,
    hint: &str,
) -> Option<u64> {
    if u < min || u > max {
        let range = int_range(name, min, max).unwrap_or_default();
        cx.err(
            path,
            format!("{u}{unit} is out of range; allowed {range}{unit}{hint}"),
        );
        return None;
    }
    Some(u)
}

/// A size in `min..=max`, the range written with units (`allowed 1B ≤ mss ≤ 1MB`).
fn size_in_range(
    cx: &mut Cx,
    path: &str,
    b: u64,
    min: u64,
    max: u64,
    name: &str,
    hint: &str,
) -> Option<u64> {
    if b < min || b > max {
        let sz = |x: u64| units::format_size_short(crate::units::Bytes(x));
        let range = match (min, max) {
            (lo, u64::MAX) => format!("{name} ≥ {}", sz(lo)),
            (0, hi) => format!("{name} ≤ {}", sz(hi)),
            (lo, hi) => format!("{} ≤ {name} ≤ {}", sz(lo), sz(hi)),
        };
        cx.err(
            path,
            format!("{} is out of range; allowed {range}{hint}", sz(b)),
        );
        return None;
    }
    Some(b)
}

/// A string with a unit, parsed by `parse`; a bare number is refused with an example.
fn with_unit(
    cx: &mut Cx,
    path: &str,
    v: &Value,
    what: &str,
    example: &str,
    hint: &str,
    parse: impl Fn(&str) -> Result<u64, String>,
) -> Option<u64> {
    match v {
        // a word that is not the parameter's own ("never" for `hold`): name the words too
        Value::String(s) => parse(s)
            .map_err(|e| cx.err(path, format!("{e}{hint}")))
            .ok(),
        Value::Number(n) => {
            cx.err(
                path,
                format!(
                    "expected {what} as a string with a unit, e.g. \"{example}\"{hint}; \
                     found the bare number {n}"
                ),
            );
            None
        }
        other => {
            cx.err(
                path,
                format!(
                    "expected {what} as a string with a unit, e.g. \"{example}\"{hint}; found {}",
                    describe(other)
                ),
            );
            None
        }
    }
}

/// `"333p"`, `"500KB"` or an integer (packets); greater than zero.
fn queue_limit(cx: &mut Cx, path: &str, v: &Value) -> Option<Value> {
    let limit = match v {
        Value::String(s) => units::parse_queue_limit(s)
            .map_err(|e| cx.err(path, e))
            .ok()?,
        Value::Number(_) => PacketsOrBytes::Packets(uint(cx, path, v, "")?),
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
        PacketsOrBytes::Packets(0) | PacketsOrBytes::Bytes(0) => {
            cx.err(
                path,
                "a queue limit must be greater than zero, e.g. \"333p\"",
            );
            None
        }
        PacketsOrBytes::Packets(n) => Some(json!({ "packets": n })),
        PacketsOrBytes::Bytes(n) => Some(json!({ "bytes": n })),
    }
}

/// A start time: a duration, or `["lo", "hi"]` for uniform in a range.
fn start(cx: &mut Cx, path: &str, v: &Value) -> Option<Value> {
    let dur = |cx: &mut Cx, path: &str, v: &Value| {
        with_unit(cx, path, v, "a duration", "10ms", "", |s| {
            units::parse_duration(s).map(|d| d.0)
        })
    };
    match v {
        Value::String(_) => {
            let d = dur(cx, path, v)?;
            Some(json!({ "lo": d, "hi": d }))
        }
        Value::Array(a) if a.len() == 2 => {
            let lo = dur(cx, &index(path, 0), &a[0]);
            let hi = dur(cx, &index(path, 1), &a[1]);
            let (lo, hi) = (lo?, hi?);
            if lo > hi {
                cx.err(
                    path,
                    format!(
                        "the range must not be reversed: the first bound ({}) is later than \
                         the second ({})",
                        units::format_duration(crate::units::Dur(lo)),
                        units::format_duration(crate::units::Dur(hi))
                    ),
                );
                return None;
            }
            Some(json!({ "lo": lo, "hi": hi }))
        }
        other => {
            cx.err(
                path,
                format!(
                    "expected a start time such as \"2s\" or a range such as [\"0s\", \"1s\"] \
                     (uniformly random within it), found {}",
                    describe(other)
                ),
            );
            None
        }
    }
}

/// `"all"`, `"none"` or a list of names.
fn selection(cx: &mut Cx, path: &str, v: &Value, what: &str) -> Option<Value> {
    let expected = format!("\"all\", \"none\" or a list of {what} names");
    match v {
        Value::String(s) if s == "all" || s == "none" => Some(v.clone()),
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
            None
        }
        Value::Array(a) => {
            let mut ok = true;
            for (i, e) in a.iter().enumerate() {
                if !e.is_string() {
                    cx.err(
                        &index(path, i),
                        format!("expected a {what} name, found {}", describe(e)),
                    );
                    ok = false;
                }
            }
            ok.then(|| v.clone())
        }
        other => {
            cx.err(
                path,
                format!("expected {expected}, found {}", describe(other)),
            );
            None
        }
    }
}
