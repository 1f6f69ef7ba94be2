//! Resolved parameters: every value of a table, checked and normalised, with its origin.

use super::{Kind, Origin, Param, Ty};
use crate::units::parse::{format_duration, format_rate, format_size};
use crate::units::{Bytes, Dur, Rate};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The resolved parameters of one table (a component's configuration before it is typed).
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The kind, for a kind-tagged table.
    pub kind: Option<&'static Kind>,
    /// One entry per declared parameter, in declaration order.
    pub entries: Vec<Entry>,
}

/// One resolved parameter.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its declaration.
    pub param: &'static Param,
    /// Where the value came from.
    pub origin: Origin,
    /// The normalised value (`null` for none); unused when `sub` is set.
    pub value: Value,
    /// The nested table, for tables and kind-tagged tables.
    pub sub: Option<Resolved>,
    /// The document's value was refused (a problem is recorded); the default stands in
    /// so that the rest can be checked.
    pub bad: bool,
}

impl Entry {
    /// The normalised value, nested tables included.
    pub fn json(&self) -> Value {
        match &self.sub {
            Some(r) => r.to_json(),
            None => self.value.clone(),
        }
    }
}

impl Resolved {
    /// Every value as one JSON object (with `kind` for a kind-tagged table): what serde reads
    /// into the component's configuration type.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(k) = self.kind {
            m.insert("kind".into(), Value::from(k.name));
        }
        for e in &self.entries {
            m.insert(e.param.name.into(), e.json());
        }
        Value::Object(m)
    }

    /// The typed configuration. An error means a declaration and its type disagree (a bug
    /// the declaration tests catch), never a user's mistake.
    pub fn config<T: DeserializeOwned>(&self) -> Result<T, String> {
        typed(self.to_json())
    }

    /// The entry of parameter `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.param.name == name)
    }

    /// The entry of parameter `name`, mutably.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.param.name == name)
    }

    /// The normalised value of `name` (`null` if absent or none).
    pub fn value(&self, name: &str) -> Value {
        self.get(name).map_or(Value::Null, Entry::json)
    }

    /// The value of `name` as type `T`.
    pub fn get_as<T: DeserializeOwned>(&self, name: &str) -> Result<T, String> {
        typed(self.value(name)).map_err(|e| format!("{name}: {e}"))
    }

    /// Whether `name` was written in the document and accepted.
    pub fn good(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|e| e.origin == Origin::Explicit && !e.bad)
    }

    /// Whether `name` was written in the document.
    pub fn explicit(&self, name: &str) -> bool {
        self.get(name).is_some_and(|e| e.origin == Origin::Explicit)
    }

    /// Every leaf value as (dotted path, value as a document would write it, origin), nested
    /// tables flattened (`rto.min`, `cc.kind`, `cc.beta`).
    pub fn flatten(&self, prefix: &str) -> Vec<(String, String, Origin)> {
        let mut out = Vec::new();
        self.flatten_into(prefix, Origin::Default, &mut out);
        out
    }

    fn flatten_into(&self, prefix: &str, origin: Origin, out: &mut Vec<(String, String, Origin)>) {
        if let Some(k) = self.kind {
            out.push((join(prefix, "kind"), format!("\"{}\"", k.name), origin));
        }
        for e in &self.entries {
            let path = join(prefix, e.param.name);
            match &e.sub {
                Some(r) => r.flatten_into(&path, e.origin, out),
                None => out.push((path, display(e.param, &e.value), e.origin)),
            }
        }
    }
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// A normalised value as a document would write it (`"100ms"`, `1460`, `"none"`).
pub fn display(p: &Param, v: &Value) -> String {
    if v.is_null() {
        return match p.alt {
            super::Alt::Word(w, _) => format!("\"{w}\""),
            super::Alt::False(_) | super::Alt::Bool(_) => "false".into(),
            super::Alt::No | super::Alt::Words(_) => "none".into(),
        };
    }
    let n = v.as_u64();
    match (p.ty, n) {
        (Ty::Duration { .. }, Some(ns)) => format!("\"{}\"", format_duration(Dur(ns))),
        (Ty::Rate, Some(bps)) => format!("\"{}\"", format_rate(Rate(bps))),
        (Ty::Size { .. }, Some(b)) => format!("\"{}\"", format_size(Bytes(b))),
        (Ty::Start, _) => {
            let lo = v.get("lo").and_then(Value::as_u64).unwrap_or(0);
            let hi = v.get("hi").and_then(Value::as_u64).unwrap_or(0);
            if lo == hi {
                format!("\"{}\"", format_duration(Dur(lo)))
            } else {
                format!(
                    "[\"{}\", \"{}\"]",
                    format_duration(Dur(lo)),
                    format_duration(Dur(hi))
                )
            }
        }
        (Ty::List { of, .. }, _) => {
            let e = Param {
                ty: *of,
                alt: super::Alt::No,
                ..*p
            };
            let items: Vec<String> = v
                .as_array()
                .map(|a| a.iter().map(|x| display(&e, x)).collect())
                .unwrap_or_default();
            format!("[{}]", items.join(", "))
        }
        (Ty::CountOrSize { .. }, _) => match (v.get("count"), v.get("bytes")) {
            (Some(n), _) => n.to_string(),
            (_, Some(b)) => format!("\"{}\"", format_size(Bytes(b.as_u64().unwrap_or(0)))),
            _ => v.to_string(),
        },
        (Ty::QueueLimit, _) => match (v.get("packets"), v.get("bytes")) {
            (Some(p), _) => format!("\"{p}p\""),
            (_, Some(b)) => format!("\"{}\"", format_size(Bytes(b.as_u64().unwrap_or(0)))),
            _ => v.to_string(),
        },
        _ => v.to_string(),
    }
}

/// A normalised value as type `T`.
pub fn typed<T: DeserializeOwned>(v: Value) -> Result<T, String> {
    serde_json::from_value(v)
        .map_err(|e| format!("internal error: a declaration and its type disagree: {e}"))
}
