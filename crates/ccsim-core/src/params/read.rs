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

use super::text::{describe, join, list, quoted_or, shorten};
use super::value;
use super::{Alt, Dflt, Entry, Kind, Kinds, Layer, Lit, Origin, Param, Resolved, Ty};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;

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
        if self.layers.is_empty() {
            // Paths matter only to layers, relative to where each applies: with none in
            // force, nothing is built (the common case, and the parser's hot path).
            return Scope::default();
        }
        Scope {
            layers: self.layers.clone(),
            prefix: format!("{}{name}.", self.prefix),
        }
    }

    /// The scope of kind `kind` of the kind-tagged table `name`: its own layers apply last,
    /// a chosen preset first.
    fn kind(&self, name: &str, kind: &'static Kind, preset: Option<&'static Layer>) -> Scope {
        let mut s = Scope::default();
        if !self.layers.is_empty() {
            s = self.nested(&format!("{name}.{}", kind.name));
            if name.is_empty() {
                s.prefix = format!("{}{}.", self.prefix, kind.name);
            }
        }
        for l in kind.layers {
            s.layers.push((l, s.prefix.clone()));
        }
        if let Some(p) = preset.or_else(|| s.preset_of(kind)) {
            s.layers.insert(0, (p, s.prefix.clone()));
        }
        s
    }

    /// The preset of `kind` that a profile in force chooses by the kind's preset key (the
    /// `linux` stack chooses Vegas's `preset = "linux"`; `[simulation] stack` a flow's
    /// `stack`), for a table that does not write the key itself.
    fn preset_of(&self, kind: &'static Kind) -> Option<&'static Layer> {
        if kind.presets.is_empty() {
            return None;
        }
        match self.lookup(kind.preset_key)? {
            (Lit::Str(name), _) => kind.presets.iter().find(|l| l.name == name).copied(),
            _ => None,
        }
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
        if self.layers.is_empty() {
            return None;
        }
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

/// Read from `m` only the parameters of `params` named in `names` (keys are not checked
/// here): the keys of a table that repeats an earlier one but for these
/// (`scenario/repeats.rs`). None of them may be a derived default.
pub fn read_named(
    cx: &mut Cx,
    path: &str,
    m: &Map<String, Value>,
    params: &'static [Param],
    names: &[&str],
    scope: &Scope,
) -> Resolved {
    Resolved {
        kind: None,
        entries: params
            .iter()
            .filter(|p| names.contains(&p.name))
            .map(|p| read_entry(cx, path, m, p, scope))
            .collect(),
    }
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
    if let Some(p) = kind.preset(m).or_else(|| s.preset_of(kind)) {
        s.layers.insert(0, (p, s.prefix.clone()));
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
    if let Some(v) = m.get(p.name) {
        // A name (text with no alternative word) has nothing to check but its type: no
        // path is built for it (generated scenarios name 10⁴–10⁵ nodes, links and flows).
        if let (Ty::Text, Alt::No, Value::String(s)) = (p.ty, p.alt, v) {
            return Entry {
                param: p,
                origin: Origin::Explicit,
                value: Value::from(s.as_str()),
                sub: None,
                bad: false,
            };
        }
        let at = join(path, p.name);
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
        let mut e = default_entry(cx, path, p, scope, false);
        e.origin = Origin::Explicit;
        e.bad = true;
        return e;
    }
    default_entry(cx, path, p, scope, true)
}

thread_local! {
    /// Declared defaults already read, by parameter (see `default_entry`).
    static DEFAULTS: RefCell<HashMap<usize, (Value, Option<Resolved>)>> = RefCell::default();
}

/// The value of an absent key of the table at `path`: a profile's, or the declared default.
fn default_entry(cx: &mut Cx, path: &str, p: &'static Param, scope: &Scope, report: bool) -> Entry {
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
                    cx.err(&join(path, p.name), format!("missing; {hint}"));
                }
                None
            }
            Dflt::None(_) | Dflt::Derived(..) | Dflt::Later(_) => None,
        },
    };
    if let Some(lit) = lit {
        // A declared default read with no profile in force is the same every time: read it
        // once per parameter (and thread).
        let memo = e.origin == Origin::Default && scope.layers.is_empty();
        let key = p as *const Param as usize;
        if memo {
            if let Some((value, sub)) = DEFAULTS.with(|d| d.borrow().get(&key).cloned()) {
                e.value = value;
                e.sub = sub;
                return e;
            }
        }
        // Defaults are valid (the declaration tests read each one): their path, built only
        // for a message, is the parameter's name.
        let mut inner = Cx::default();
        match read_value(&mut inner, p.name, &lit.to_value(), p, scope) {
            Some((value, sub)) => {
                if memo {
                    DEFAULTS.with(|d| d.borrow_mut().insert(key, (value.clone(), sub.clone())));
                }
                e.value = value;
                e.sub = sub;
            }
            None => {
                // A declaration bug (the unit tests read every default), never the user's.
                for pr in inner.problems {
                    cx.err(
                        &join(path, &pr.path),
                        format!("internal error: bad default: {}", pr.message),
                    );
                }
            }
        }
    }
    e
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
        (Alt::Words(ws), Value::String(s)) if ws.iter().any(|(w, _)| w == s) => {
            return Some((Value::String(s.clone()), None))
        }
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
        _ => value::plain(cx, path, v, p, &p.ty).map(|x| (x, None)),
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
        if kind.is_some_and(|k| own(k, key)) {
            continue;
        }
        let others: Vec<&str> = (kinds.list)()
            .into_iter()
            .filter(|k| own(k, key))
            .map(|k| k.name)
            .collect();
        match kind {
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
                    kinds
                        .names()
                        .iter()
                        .map(|n| format!("\"{n}\""))
                        .collect::<Vec<_>>()
                        .join(", "),
                    kinds.names().first().copied().unwrap_or(""),
                    describe(other)
                ),
            );
            return None;
        }
    };
    let kp = || join(path, "kind");
    let kind = match m.get("kind") {
        None => {
            cx.err(
                &kp(),
                format!(
                    "missing; the table needs a kind, one of: {}",
                    kinds.names().join(", ")
                ),
            );
            return None;
        }
        Some(Value::String(s)) => match kinds.find(s) {
            Some(k) => k,
            None => {
                cx.err(
                    &kp(),
                    format!(
                        "unknown {} \"{}\"; allowed: {}{}",
                        kinds.what,
                        shorten(s),
                        list(&kinds.names(), 30),
                        kinds.note
                    ),
                );
                return None;
            }
        },
        Some(other) => {
            cx.err(
                &kp(),
                format!(
                    "expected a string, one of: {}; found {}",
                    kinds.names().join(", "),
                    describe(other)
                ),
            );
            return None;
        }
    };
    let mut allowed = vec!["kind"];
    allowed.extend(kind.all_params().map(|p| p.name));
    check_keys(cx, path, m, &allowed);
    let s = scope.kind(name, kind, kind.preset(m));
    Some(read_fields(cx, path, m, kind.params, Some(kind), &s))
}
