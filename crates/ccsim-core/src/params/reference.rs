//! The parameter reference (docs/parameters.md), generated from the declarations: one table
//! per component table, kind and transport, in the order a document nests them.

use super::text::{num, type_text};
use super::{Dflt, Kind, Layer, Lit, Param, Ty};
use std::fmt::Write;

/// A literal as a TOML document writes it.
pub fn lit_text(l: Lit) -> String {
    match l {
        Lit::Bool(b) => b.to_string(),
        Lit::Int(i) => i.to_string(),
        Lit::Float(f) => num(f),
        Lit::Str(s) => format!("\"{s}\""),
        Lit::Table => "{}".into(),
    }
}

/// What an absent key means, in words.
pub fn default_text(p: &Param) -> String {
    match p.default {
        Dflt::Value(Lit::Table) => "each key's default".into(),
        Dflt::Value(l) => lit_text(l),
        Dflt::Required(_) => "required".into(),
        Dflt::None(m) if m.is_empty() => "none".into(),
        Dflt::None(m) => format!("none: {m}"),
        Dflt::Derived(how, _) | Dflt::Later(how) => how.into(),
    }
}

/// A section of the reference: a table of parameters under a heading.
struct Section {
    /// Identity of what it documents (`document.flow.tcp.cc`), for links to it.
    path: String,
    anchor: String,
    heading: String,
    about: String,
    params: Vec<&'static Param>,
}

/// Walks the declarations from the top, collecting one section per table and kind, each
/// once (a table shared by several owners, such as `rto`, where it is first met).
#[derive(Default)]
struct Walk {
    sections: Vec<Section>,
    /// What was documented, by content (a `const` has no address of its own).
    seen: Vec<String>,
}

fn key_of_refs(params: &[&Param]) -> String {
    params.iter().map(|p| p.name).collect::<Vec<_>>().join(",")
}

/// What identifies a table by its content: its keys.
fn key_of(params: &[Param]) -> String {
    params.iter().map(|p| p.name).collect::<Vec<_>>().join(",")
}

fn anchor(shown: &str) -> String {
    shown
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

fn layer_text(l: &Layer) -> String {
    let values: Vec<String> = l
        .values
        .iter()
        .map(|(k, v)| format!("`{k} = {}`", lit_text(*v)))
        .collect();
    format!("{} ({})", values.join(", "), l.about)
}

impl Walk {
    /// Whether `key` is met for the first time (and mark it).
    fn first(&mut self, key: String) -> bool {
        if self.seen.contains(&key) {
            return false;
        }
        self.seen.push(key);
        true
    }

    fn push(
        &mut self,
        path: &str,
        shown: &str,
        heading: String,
        about: String,
        params: Vec<&'static Param>,
    ) {
        self.add(path, &heading, about, params.clone());
        for p in params {
            let (child, child_shown) =
                (format!("{path}.{}", p.name), format!("{shown}.{}", p.name));
            self.ty(&child, &child_shown, &p.ty);
        }
    }

    /// Sections for a value of type `ty` met at `path` (shown as `shown`).
    fn ty(&mut self, path: &str, shown: &str, ty: &Ty) {
        match *ty {
            Ty::Table(params) => {
                if self.first(key_of(params)) {
                    self.push(
                        path,
                        shown,
                        format!("`{shown}`"),
                        String::new(),
                        params.iter().collect(),
                    );
                }
            }
            Ty::Kinded(kinds) => {
                for k in (kinds.list)() {
                    let heading = format!("`{shown}` with `kind = \"{}\"`", k.name);
                    self.kind(&format!("{path}={}", k.name), shown, heading, k);
                }
            }
            Ty::List { of, .. } => self.ty(path, shown, of),
            Ty::Flat { common, tag, kinds } => {
                if self.first(key_of(common)) {
                    self.push(
                        path,
                        shown,
                        format!("`{shown}`"),
                        String::new(),
                        common.iter().collect(),
                    );
                }
                for k in (kinds.list)() {
                    let heading = format!("`{shown}` with `{tag} = \"{}\"`", k.name);
                    self.kind(&format!("{path}={}", k.name), shown, heading, k);
                }
            }
            _ => {}
        }
    }

    /// A section for kind `k` of the value at `path`; its nested tables are shown under
    /// `shown` (a transport's `rto` is `flow.rto`).
    fn kind(&mut self, path: &str, shown: &str, heading: String, k: &'static Kind) {
        let params: Vec<&'static Param> = k.all_params().collect();
        let key = format!("{}:{}:{}", k.name, k.about, key_of_refs(&params));
        if !self.first(key) {
            return;
        }
        let mut about = format!("{}.", k.about);
        for p in k.presets {
            let _ = write!(
                about,
                " `{} = \"{}\"` sets {}.",
                k.preset_key,
                p.name,
                layer_text(p)
            );
        }
        for l in k.layers {
            let _ = write!(about, " Its own defaults: {}.", layer_text(l));
        }
        self.add(path, &heading, about, params.clone());
        for p in params {
            self.ty(
                &format!("{path}.{}", p.name),
                &format!("{shown}.{}", p.name),
                &p.ty,
            );
        }
    }

    fn add(&mut self, path: &str, heading: &str, about: String, params: Vec<&'static Param>) {
        let mut a = anchor(&heading.replace("document.", ""));
        while self.sections.iter().any(|s| s.anchor == a) {
            a.push_str("-1");
        }
        self.sections.push(Section {
            path: path.into(),
            anchor: a,
            heading: heading.into(),
            about,
            params,
        });
    }

    /// A link to the sections documenting the value at `path`, if any.
    fn link(&self, path: &str) -> Option<String> {
        let hits: Vec<&Section> = self
            .sections
            .iter()
            .filter(|s| s.path == path || s.path.starts_with(&format!("{path}=")))
            .collect();
        match hits.as_slice() {
            [] => None,
            [one] => Some(format!("see [below](#{})", one.anchor)),
            many => Some(format!(
                "see {}",
                many.iter()
                    .map(|s| format!(
                        "[{}](#{})",
                        s.path.rsplit('=').next().unwrap_or(""),
                        s.anchor
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The reference of a document whose top level is `top`, as Markdown.
pub fn markdown(top: &'static [Param], title: &str, intro: &str) -> String {
    let mut w = Walk::default();
    w.push(
        "document",
        "document",
        "The document".into(),
        String::new(),
        top.iter().collect(),
    );
    // Top-level keys are headed as a TOML file writes them: `[simulation]`, `[[link]]`.
    for s in &mut w.sections {
        for p in top {
            let toml = match p.ty {
                Ty::List { .. } => format!("[[{}]]", p.name),
                _ => format!("[{}]", p.name),
            };
            let prefix = format!("`document.{}", p.name);
            if let Some(rest) = s.heading.strip_prefix(&prefix) {
                s.heading = if rest.starts_with('`') {
                    format!("`{toml}{rest}")
                } else {
                    format!("`{}{rest}", p.name)
                };
            }
        }
    }
    let mut out = format!("# {title}\n\n{intro}\n\nContents: ");
    let toc: Vec<String> = w
        .sections
        .iter()
        .map(|s| {
            let text = s
                .heading
                .replace('`', "")
                .replace('[', "\\[")
                .replace(']', "\\]");
            format!("[{text}](#{})", s.anchor)
        })
        .collect();
    out.push_str(&toc.join(" · "));
    out.push('\n');
    for s in &w.sections {
        let _ = write!(out, "\n<a id=\"{}\"></a>\n\n## {}\n\n", s.anchor, s.heading);
        if !s.about.is_empty() {
            let _ = writeln!(out, "{}\n", s.about);
        }
        if s.params.is_empty() {
            out.push_str("No parameters.\n");
            continue;
        }
        out.push_str("| key | type | default | meaning | source of the default |\n");
        out.push_str("|---|---|---|---|---|\n");
        for p in &s.params {
            let mut ty = type_text(p);
            if !p.unit.is_empty() {
                let _ = write!(ty, " ({})", p.unit);
            }
            if let Some(l) = w.link(&format!("{}.{}", s.path, p.name)) {
                let _ = write!(ty, "; {l}");
            }
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                p.name,
                cell(&ty),
                cell(&default_text(p)),
                cell(p.doc),
                cell(p.source)
            );
        }
    }
    out
}
