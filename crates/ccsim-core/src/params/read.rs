//! The one reader: a document value and its declaration → a checked, normalised value, or a
//! located problem.
//!
//! Every function records a problem and goes on (with the default in place of a bad value),
//! so that one pass reports every problem of the document. Nothing here panics on any input.
//!
//! Normalised values (what [`Resolved::config`] hands to serde): integers for whole numbers,
//! durations (ns), rates (bit/s) and sizes (bytes); `{"packets": n}` or `{"bytes": n}` for a
//! queue limit; `{"lo": ns, "hi": ns}` for a start time; the string for a choice; `null` for
//! "none" (an absent optional value, or its word such as `"auto"`).

use super::text::{describe, float_range, index, int_range, join, list, num, quoted_or, shorten};
use super::{Alt, Bound, Dflt, Entry, Kind, Kinds, Layer, Lit, Origin, Param, Resolved, Ty};
use crate::units::parse::{self as units, PacketsOrBytes};
use serde_json::{json, Map, Value};

/// One problem found in a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where: a dotted path such as `link[2].rate` (empty for the whole document).
    pub path: String,
    /// What is wrong, with the allowed values where there is a closed set.
    pub message: String,
}

/// The problems found so far.
#[derive(Default, Debug)]
pub struct Cx {
    /// In the order found.
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

/// The profiles in force while reading a table, most specific first, each with the path of
/// the table it is relative to; and the path of the current table from the root of reading.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    layers: Vec<(&'static Layer, String)>,
    prefix: String,
}

impl Scope {
    /// Reading at the root with these profiles (most specific first).
    pub fn new(layers: &[&'static Layer]) -> Scope {
        Scope {
            layers: layers.iter().map(|l| (*l, String::new())).collect(),
            prefix: String::new(),
        }
    }

    fn nested(&self, name: &str) -> Scope {
        Scope {
            layers: self.layers.clone(),
            prefix: format!("{}{name}.", self.prefix),
        }
    }

    /// The scope of kind `kind` of the kind-tagged table `name`: its own layers apply last,
    /// a chosen preset first.
    fn kind(&self, name: &str, kind: &'static Kind, preset: Option<&'static Layer>) -> Scope {
        let mut s = self.nested(&format!("{name}.{}", kind.name));
        if name.is_empty() {
            s.prefix = format!("{}{}.", self.prefix, kind.name);
        }
        for l in kind.layers {
            s.layers.push((l, s.prefix.clone()));
        }
        if let Some(p) = preset {
            s.layers.insert(0, (p, s.prefix.clone()));
        }
        s
    }

    /// Apply `layers` (their paths relative to the current table) before the others.
    pub fn with(&self, layers: &[&'static Layer]) -> Scope {
        let mut s = self.clone();
        for l in layers.iter().rev() {
            s.layers.insert(0, (l, self.prefix.clone()));
        }
        s
    }

    fn lookup(&self, name: &str) -> Option<(Lit, &'static Layer)> {
        let full = format!("{}{name}", self.prefix);
        self.layers.iter().find_map(|(l, base)| {
            let rel = full.strip_prefix(base.as_str())?;
            l.get(rel).map(|v| (v, *l))
        })
    }
}

/// Report every key of `m` that is not in `allowed`.
pub fn check_keys(cx: &mut Cx, path: &str, m: &Map<String, Value>, allowed: &[&str]) {
    for k in m.keys() {
        if !allowed.contains(&k.as_str()) {
            cx.err(
                &join(path, k),
                format!("unknown key; allowed: {}", allowed.join(", ")),
            );
        }
    }
}

/// The value as a table, or a "wrong type" problem.
pub fn table<'a>(cx: &mut Cx, path: &str, v: &'a Value) -> Option<&'a Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        other => {
            cx.err(path, format!("expected a table, found {}", describe(other)));
            None
        }
    }
}

/// Read a table of `params` (unknown keys reported).
pub fn read_table(
    cx: &mut Cx,
    path: &str,
    v: &Value,
    params: &'static [Param],
    scope: &Scope,
) -> Option<Resolved> {
    let m = table(cx, path, v)?;
    let names: Vec<&str> = params.iter().map(|p| p.name).collect();
    check_keys(cx, path, m, &names);
    Some(read_fields(cx, path, m, &[params], None, scope))
}

/// Read the parameters `groups` from `m` (keys are not checked here).
pub fn read_fields(
    cx: &mut Cx,
    path: &str,
    m: &Map<String, Value>,
    groups: &[&'static [Param]],
    kind: Option<&'static Kind>,
    scope: &Scope,
) -> Resolved {
    let mut r = Resolved {
        kind,
        entries: Vec::new(),
    };
    for p in groups.iter().flat_map(|g| g.iter()) {
        let e = read_entry(cx, path, m, p, scope);
        r.entries.push(e);
    }
    for i in 0..r.entries.len() {
        if let (Dflt::Derived(_, from), Origin::Default) =
            (r.entries[i].param.default, r.entries[i].origin)
        {
            r.entries[i].value = from(&r);
        }
    }
    r
}

/// Read the parameters of `kind` from `m`, the table itself (a flat kind such as a flow's
/// transport, whose keys sit beside the flow's own): the kind's layers apply after `scope`'s.
pub fn read_kind(
    cx: &mut Cx,
    path: &str,
    m: &Map<String, Value>,
    kind: &'static Kind,
    scope: &Scope,
) -> Resolved {
    let mut s = scope.clone();
    for l in kind.layers {
        s.layers.push((l, s.prefix.clone()));
    }
    read_fields(cx, path, m, kind.params, Some(kind), &s)
}

/// One parameter: its explicit value, a profile's, or its default.
fn read_entry(
    cx: &mut Cx,
    path: &str,
    m: &Map<String, Value>,
    p: &'static Param,
    scope: &Scope,
) -> Entry {
    let at = join(path, p.name);
    if let Some(v) = m.get(p.name) {
        if let Some((value, sub)) = read_value(cx, &at, v, p, scope) {
            return Entry {
                param: p,
                origin: Origin::Explicit,
                value,
                sub,
                bad: false,
            };
        }
        // Go on with the default so that later checks see a plausible value.
        let mut e = default_entry(cx, &at, p, scope, false);
        e.origin = Origin::Explicit;
        e.bad = true;
        return e;
    }
    default_entry(cx, &at, p, scope, true)
}

/// The value of an absent key: a profile's, or the declared default.
fn default_entry(cx: &mut Cx, at: &str, p: &'static Param, scope: &Scope, report: bool) -> Entry {
    let mut e = Entry {
        param: p,
        origin: Origin::Default,
        value: Value::Null,
        sub: None,
        bad: false,
    };
    let lit = match scope.lookup(p.name) {
        Some((lit, layer)) => {
            if layer.profile {
                e.origin = Origin::Profile(layer.name);
            }
            Some(lit)
        }
        None => match p.default {
            Dflt::Value(lit) => Some(lit),
            Dflt::Required(hint) => {
                if report {
                    cx.err(at, format!("missing; {hint}"));
                }
                None
            }
            Dflt::None(_) | Dflt::Derived(..) | Dflt::Later(_) => None,
        },
    };
    if let Some(lit) = lit {
        let mut inner = Cx::default();
        match read_value(&mut inner, at, &lit.to_value(), p, scope) {
            Some((value, sub)) => {
                e.value = value;
                e.sub = sub;
            }
            None => {
                // A declaration bug (the unit tests read every default), never the user's.
                for pr in inner.problems {
                    cx.err(
                        &pr.path,
                        format!("internal error: bad default: {}", pr.message),
                    );
                }
            }
        }
    }
    e
}

/// `or write name = "auto" (what that means)` for messages, or "".
fn alt_hint(p: &Param) -> String {
    match p.alt {
        Alt::No => String::new(),
        Alt::Word(w, m) => format!(" (or write {} = \"{w}\": {m})", p.name),
        Alt::False(m) => format!(" (or write {} = false: {m})", p.name),
        Alt::Bool(m) => format!(
            " (or write {} = false: {m}; true is the default)",
            p.name
        ),
    }
}

/// Read `v` as the value of parameter `p`: the normalised value, and the resolved nested
/// table for tables and kind-tagged tables.
pub fn read_value(
    cx: &mut Cx,
    path: &str,
    v: &Value,
    p: &'static Param,
    scope: &Scope,
) -> Option<(Value, Option<Resolved>)> {
    match (p.alt, v) {
        (Alt::Word(w, _), Value::String(s)) if s == w => return Some((Value::Null, None)),
        (Alt::False(_) | Alt::Bool(_), Value::Bool(false)) => return Some((Value::Null, None)),
        (Alt::Bool(_), Value::Bool(true)) => {
            if let Dflt::Value(lit) = p.default {
                return read_value(cx, path, &lit.to_value(), p, scope);
            }
        }
        _ => {}
    }
    match p.ty {
        Ty::Table(params) => {
            let r = read_table(cx, path, v, params, &scope.nested(p.name))?;
            Some((Value::Null, Some(r)))
        }
        Ty::Kinded(kinds) => {
            let r = read_kinded(cx, path, v, kinds, p.name, scope)?;
            Some((Value::Null, Some(r)))
        }
        _ => plain(cx, path, v, p, &p.ty).map(|x| (x, None)),
    }
}

/// Read a value of a type without nested parameters (`ty` is `p.ty`, or a list's element
/// type).
fn plain(cx: &mut Cx, path: &str, v: &Value, p: &Param, ty: &Ty) -> Option<Value> {
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
            let range = int_range(p.name, min, max).map_or(String::new(), |r| format!(", {r}"));
            let u = uint(cx, path, v, &format!("{range}{hint}"))?;
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
            in_range(cx, path, b, min, max, p.name, " bytes", &hint).map(Value::from)
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
                cx.err(path, format!("expected a string, found {}", describe(other)));
                None
            }
        },
        Ty::Selection(what) => selection(cx, path, v, what),
        Ty::List { of, len, what } => {
            let a = match v {
                Value::Array(a) if len.is_none_or(|n| a.len() == n) => a,
                other => {
                    cx.err(path, format!("expected {what}, found {}", describe(other)));
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

/// A table whose `tag` key names one of `kinds`, the kind's keys beside the `common` ones
/// (a `[[flow]]` entry): the common values, and the kind's (`None` when the tag is bad).
pub fn read_flat(
    cx: &mut Cx,
    path: &str,
    v: &Value,
    common: &'static [Param],
    tag: &str,
    kinds: &Kinds,
    scope: &Scope,
) -> Option<(Resolved, Option<Resolved>)> {
    let m = table(cx, path, v)?;
    let c = read_fields(cx, path, m, &[common], None, scope);
    let names = kinds.names();
    let kind = match c.value(tag) {
        Value::String(s) => match kinds.find(&s) {
            Some(k) => Some(k),
            None => {
                cx.err(
                    &join(path, tag),
                    format!(
                        "unknown {} \"{}\"; allowed: {}{}",
                        kinds.what,
                        shorten(&s),
                        names.join(", "),
                        kinds.note
                    ),
                );
                None
            }
        },
        _ => None,
    };
    let own = |k: &Kind, key: &str| k.all_params().any(|p| p.name == key);
    let is_common = |key: &str| common.iter().any(|p| p.name == key);
    for key in m.keys().filter(|k| !is_common(k)) {
        let others: Vec<&str> = (kinds.list)()
            .into_iter()
            .filter(|k| own(k, key))
            .map(|k| k.name)
            .collect();
        match kind {
            Some(k) if own(k, key) => {}
            Some(k) if !others.is_empty() => cx.err(
                &join(path, key),
                format!(
                    "{key} applies only to flows with {tag} = {}; this one has {tag} = \"{}\"",
                    quoted_or(&others),
                    k.name
                ),
            ),
            Some(k) => {
                let mut allowed: Vec<&str> = common.iter().map(|p| p.name).collect();
                allowed.extend(k.all_params().map(|p| p.name));
                cx.err(
                    &join(path, key),
                    format!(
                        "unknown key for {tag} = \"{}\"; allowed: {}",
                        k.name,
                        allowed.join(", ")
                    ),
                );
            }
            None if others.is_empty() => cx.err(&join(path, key), "unknown key"),
            None => {}
        }
    }
    let k = kind.map(|k| read_kind(cx, path, m, k, scope));
    Some((c, k))
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
        Value::String(s) => parse(s).map_err(|e| cx.err(path, e)).ok(),
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
            cx.err(path, format!("expected {expected}, found {}", describe(other)));
            None
        }
    }
}

/// A kind-tagged table (or the kind's name alone) of parameter `name` of the enclosing
/// table ("" when read on its own).
pub fn read_kinded(
    cx: &mut Cx,
    path: &str,
    v: &Value,
    kinds: &Kinds,
    name: &str,
    scope: &Scope,
) -> Option<Resolved> {
    let names = kinds.names();
    let owned;
    let m = match v {
        Value::Object(m) => m,
        Value::String(s) => {
            owned = Map::from_iter([("kind".to_string(), Value::from(s.as_str()))]);
            &owned
        }
        Value::Number(_) if kinds.number.is_some() => {
            let (k, key) = kinds.number.unwrap_or_default();
            let kind = kinds.find(k)?;
            let p = kind.param(key)?;
            let s = scope.kind(name, kind, None);
            let (value, _) = read_value(cx, path, v, p, &s)?;
            let mut m = Map::new();
            m.insert(key.to_string(), v.clone());
            let mut r = read_fields(&mut Cx::default(), path, &m, kind.params, Some(kind), &s);
            if let Some(e) = r.entries.iter_mut().find(|e| e.param.name == key) {
                e.value = value;
            }
            return Some(r);
        }
        other => {
            let number = match kinds.number {
                Some((k, key)) => format!("a number ({key} of {k}), "),
                None => String::new(),
            };
            cx.err(
                path,
                format!(
                    "expected {number}{} or a table such as {{ kind = \"{}\" }}, found {}",
                    names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", "),
                    names.first().copied().unwrap_or(""),
                    describe(other)
                ),
            );
            return None;
        }
    };
    let kp = join(path, "kind");
    let kind = match m.get("kind") {
        None => {
            cx.err(
                &kp,
                format!(
                    "missing; the table needs a kind, one of: {}",
                    names.join(", ")
                ),
            );
            return None;
        }
        Some(Value::String(s)) => match kinds.find(s) {
            Some(k) => k,
            None => {
                cx.err(
                    &kp,
                    format!(
                        "unknown {} \"{}\"; allowed: {}{}",
                        kinds.what,
                        shorten(s),
                        list(&names, 30),
                        kinds.note
                    ),
                );
                return None;
            }
        },
        Some(other) => {
            cx.err(
                &kp,
                format!(
                    "expected a string, one of: {}; found {}",
                    names.join(", "),
                    describe(other)
                ),
            );
            return None;
        }
    };
    let mut allowed = vec!["kind"];
    allowed.extend(kind.all_params().map(|p| p.name));
    check_keys(cx, path, m, &allowed);
    let preset = match m.get("preset") {
        Some(Value::String(s)) => kind.presets.iter().find(|l| l.name == s).copied(),
        _ => None,
    };
    let s = scope.kind(name, kind, preset);
    Some(read_fields(cx, path, m, kind.params, Some(kind), &s))
}
