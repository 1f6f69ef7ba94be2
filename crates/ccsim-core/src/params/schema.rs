//! A JSON Schema (draft-07) of a document from its declarations, for editors: completion,
//! hover text (each key's doc, default and source) and inline errors in TOML (Taplo / Even
//! Better TOML) and JSON (VS Code). It checks what a schema can: types, ranges, allowed
//! values, unit strings, unknown keys and required keys. What spans the document (node
//! names, routes, min < max) is left to ccsim, which reports it when the file is run or
//! validated.

use super::{Alt, Bound, Dflt, Kind, Kinds, Lit, Param, Ty};
use serde_json::{json, Map, Value};

/// A decimal number (no sign, no exponent) immediately followed by one of `units`.
fn unit_pattern(units: &str) -> String {
    format!("^[0-9]+(\\.[0-9]+)?({units})$")
}

const DURATION_UNITS: &str = "ns|us|µs|ms|s|min|h";
const RATE_UNITS: &str = "bps|kbps|Kbps|Mbps|Gbps|Tbps";
const SIZE_UNITS: &str = "B|KB|kB|MB|GB|TB|KiB|MiB|GiB|TiB";

/// A unit string whose number is not zero.
fn nonzero(units: &str) -> Value {
    json!({ "not": { "pattern": format!("^0+(\\.0+)?({units})$") } })
}

fn string_with(units: &str, positive: bool) -> Value {
    let s = json!({ "type": "string", "pattern": unit_pattern(units) });
    if positive {
        json!({ "allOf": [s, nonzero(units)] })
    } else {
        s
    }
}

fn int(min: u64, max: u64) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("integer"));
    m.insert("minimum".into(), json!(min));
    if max < (1 << 53) {
        m.insert("maximum".into(), json!(max));
    }
    Value::Object(m)
}

/// The schema of a value of type `ty` (nested parameters included).
pub fn value_schema(p: &Param, ty: &Ty) -> Value {
    let base = match *ty {
        Ty::Bool => json!({ "type": "boolean" }),
        Ty::Int { min, max } => int(min, max),
        Ty::Float { min, max } => {
            let mut m = Map::new();
            m.insert("type".into(), json!("number"));
            match min {
                Bound::Incl(x) => m.insert("minimum".into(), json!(x)),
                Bound::Excl(x) => m.insert("exclusiveMinimum".into(), json!(x)),
                Bound::None => None,
            };
            match max {
                Bound::Incl(x) => m.insert("maximum".into(), json!(x)),
                Bound::Excl(x) => m.insert("exclusiveMaximum".into(), json!(x)),
                Bound::None => None,
            };
            if p.unit == "packets" {
                json!({ "anyOf": [Value::Object(m), { "type": "string", "pattern": "^[0-9]+p$" }] })
            } else {
                Value::Object(m)
            }
        }
        Ty::Duration { positive } => string_with(DURATION_UNITS, positive),
        Ty::Rate => string_with(RATE_UNITS, true),
        Ty::Size { min, max } => json!({ "anyOf": [
            int(min, max),
            { "type": "string", "pattern": unit_pattern(SIZE_UNITS) },
        ] }),
        Ty::Packets { min, max } => json!({ "anyOf": [
            int(min, max),
            { "type": "string", "pattern": "^[0-9]+p$" },
        ] }),
        Ty::QueueLimit => json!({ "anyOf": [
            int(1, u64::MAX),
            { "allOf": [
                { "type": "string", "pattern": unit_pattern(&format!("p|{SIZE_UNITS}")) },
                nonzero(&format!("p|{SIZE_UNITS}")),
            ] },
        ] }),
        Ty::CountOrSize { min, max } => json!({ "anyOf": [
            int(min, max),
            string_with(SIZE_UNITS, true),
        ] }),
        Ty::Start => {
            let d = string_with(DURATION_UNITS, false);
            json!({ "anyOf": [d, { "type": "array", "items": d, "minItems": 2, "maxItems": 2 }] })
        }
        Ty::Choice(names) => json!({ "enum": names }),
        Ty::Text => json!({ "type": "string" }),
        Ty::Selection(_) => json!({ "anyOf": [
            { "enum": ["all", "none"] },
            { "type": "array", "items": { "type": "string" } },
        ] }),
        Ty::List { of, len, .. } => {
            let mut m = Map::new();
            m.insert("type".into(), json!("array"));
            m.insert("items".into(), value_schema(p, of));
            if let Some(n) = len {
                m.insert("minItems".into(), json!(n));
                m.insert("maxItems".into(), json!(n));
            }
            Value::Object(m)
        }
        Ty::Map(of) => json!({ "type": "object", "additionalProperties": value_schema(p, of) }),
        Ty::Table(params) => table_schema(&[params], &[]),
        Ty::Kinded(kinds) => kinded_schema(kinds),
        Ty::Flat { common, tag, kinds } => flat_schema(common, tag, kinds),
    };
    match p.alt {
        Alt::No => base,
        Alt::Word(w, _) => json!({ "anyOf": [base, { "enum": [w] }] }),
        Alt::False(_) => json!({ "anyOf": [base, { "enum": [false] }] }),
        Alt::Bool(_) => json!({ "anyOf": [base, { "type": "boolean" }] }),
        Alt::Words(ws) => {
            let words: Vec<&str> = ws.iter().map(|(w, _)| *w).collect();
            json!({ "anyOf": [base, { "enum": words }] })
        }
    }
}

/// A literal as the JSON a document would hold.
fn lit(l: Lit) -> Value {
    l.to_value()
}

/// The schema of one parameter: its value's, with its doc (and default and source) as the
/// description editors show.
fn param_schema(p: &Param) -> Value {
    let mut s = value_schema(p, &p.ty);
    let default = match p.default {
        Dflt::Value(Lit::Table) => None,
        Dflt::Value(l) => Some(lit(l)),
        _ => None,
    };
    let default_text = super::reference::default_text(p);
    let mut desc = p.doc.to_string();
    if !p.unit.is_empty() {
        desc.push_str(&format!(" (in {})", p.unit));
    }
    desc.push_str(&format!(". Default: {default_text}."));
    if !p.source.is_empty() && p.source != "required" {
        desc.push_str(&format!(" Source: {}.", p.source));
    }
    if let Value::Object(m) = &mut s {
        m.insert("description".into(), Value::from(desc));
        if let Some(d) = default {
            m.insert("default".into(), d);
        }
    }
    s
}

/// An object with these parameters (and `extra` keys such as `kind`), nothing else.
fn table_schema(groups: &[&'static [Param]], extra: &[(&str, Value)]) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for (k, v) in extra {
        props.insert((*k).into(), v.clone());
    }
    for p in groups.iter().flat_map(|g| g.iter()) {
        props.insert(p.name.into(), param_schema(p));
        if let Dflt::Required(_) = p.default {
            required.push(p.name);
        }
    }
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("properties".into(), Value::Object(props));
    m.insert("additionalProperties".into(), json!(false));
    if !required.is_empty() {
        m.insert("required".into(), json!(required));
    }
    Value::Object(m)
}

/// The keys of every kind, for completion before a kind is chosen. A key whose schema
/// differs between kinds (a flow's `cc`) accepts any of them here; the kind's own branch
/// checks it exactly.
fn union(groups: impl Iterator<Item = &'static Param>) -> Map<String, Value> {
    let mut seen: Vec<(&str, Vec<Value>)> = Vec::new();
    for p in groups {
        let s = param_schema(p);
        match seen.iter_mut().find(|(n, _)| *n == p.name) {
            Some((_, v)) if !v.contains(&s) => v.push(s),
            Some(_) => {}
            None => seen.push((p.name, vec![s])),
        }
    }
    let mut props = Map::new();
    for (name, mut v) in seen {
        let s = if v.len() == 1 {
            v.remove(0)
        } else {
            json!({ "anyOf": v })
        };
        props.insert(name.into(), s);
    }
    props
}

/// `"kind"` or `{ kind = "...", ... }` (or a number, for kinds with a number form).
fn kinded_schema(kinds: &Kinds) -> Value {
    let list = (kinds.list)();
    let names: Vec<&str> = list.iter().map(|k| k.name).collect();
    let kind_desc = list
        .iter()
        .map(|k| format!("{}: {}", k.name, k.about))
        .collect::<Vec<_>>()
        .join("; ");
    let mut props = union(list.iter().flat_map(|k| k.all_params()));
    props.insert(
        "kind".into(),
        json!({ "enum": names, "description": kind_desc }),
    );
    let branches: Vec<Value> = list
        .iter()
        .map(|k| {
            json!({
                "if": { "properties": { "kind": { "const": k.name } }, "required": ["kind"] },
                "then": table_schema(k.params, &[("kind", json!({ "const": k.name }))]),
            })
        })
        .collect();
    let table = json!({
        "type": "object",
        "required": ["kind"],
        "properties": props,
        "allOf": branches,
    });
    let mut any = vec![json!({ "enum": names, "description": kind_desc }), table];
    if let Some((k, key)) = kinds.number {
        if let Some(p) = (kinds.list)()
            .iter()
            .find(|x| x.name == k)
            .and_then(|x| x.param(key))
        {
            any.insert(0, value_schema(p, &p.ty));
        }
    }
    json!({ "anyOf": any })
}

/// A table whose `tag` names its kind, the kind's keys beside the common ones. The first
/// kind is the default (its branch also applies when `tag` is absent).
fn flat_schema(common: &'static [Param], tag: &str, kinds: &Kinds) -> Value {
    let list = (kinds.list)();
    let names: Vec<&str> = list.iter().map(|k| k.name).collect();
    let mut props = union(
        common
            .iter()
            .chain(list.iter().flat_map(|k| k.all_params())),
    );
    let tag_desc = list
        .iter()
        .map(|k| format!("{}: {}", k.name, k.about))
        .collect::<Vec<_>>()
        .join("; ");
    props.insert(
        tag.into(),
        json!({ "enum": names, "default": names.first(), "description": tag_desc }),
    );
    let branches: Vec<Value> = list
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let mut cond = json!({ "properties": { tag: { "const": k.name } } });
            if i > 0 {
                cond["required"] = json!([tag]);
            }
            let mut then = table_schema(&kind_groups(common, k), &[]);
            then["properties"][tag] = json!({ "const": k.name });
            json!({ "if": cond, "then": then })
        })
        .collect();
    let required: Vec<&str> = common
        .iter()
        .filter(|p| matches!(p.default, Dflt::Required(_)))
        .map(|p| p.name)
        .collect();
    json!({
        "type": "object",
        "properties": props,
        "required": required,
        "allOf": branches,
    })
}

fn kind_groups(common: &'static [Param], k: &Kind) -> Vec<&'static [Param]> {
    let mut g = vec![common];
    g.extend_from_slice(k.params);
    g
}

/// The schema of a whole document whose top level is `top`.
pub fn document_schema(top: &'static [Param], title: &str, description: &str) -> Value {
    let mut s = table_schema(&[top], &[]);
    let m = s.as_object_mut().expect("an object schema");
    let mut out = Map::new();
    out.insert(
        "$schema".into(),
        json!("http://json-schema.org/draft-07/schema#"),
    );
    out.insert("title".into(), Value::from(title));
    out.insert("description".into(), Value::from(description));
    out.append(m);
    Value::Object(out)
}
