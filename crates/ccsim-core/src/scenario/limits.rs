//! Limits checked on the raw document before it is read field by field: its size, its
//! nesting depth, control characters in any key or string, and numbers that are not
//! finite. Each problem is located like the parser's (`flow[0].name`), and the document
//! the parser then reads is a sanitised copy: control characters are escaped (so no later
//! message prints them raw), non-finite numbers and over-deep values become `null` (and
//! the parser's own complaint about those places is dropped, so each is reported once).
//!
//! A separate pass over the JSON value so that it stays independent of how the parser
//! reads the fields (see docs/reliability.md).

use crate::scenario::Problem;
use serde_json::{Map, Value};

/// The largest scenario document read (TOML or JSON text): 16 MiB. A network of
/// thousands of links and flows is well under 1 MiB.
pub const MAX_INPUT_BYTES: usize = 16 << 20;

/// The deepest nesting of tables and lists accepted. The deepest legitimate place in a
/// scenario (`flow[0].paths[1][2]`, `routing.initial[0].split[1]`) is 4 levels down.
pub const MAX_DEPTH: usize = 32;

/// Prefix of the text that stands for a non-finite number. JSON cannot carry NaN or
/// infinity, so the Python side and the TOML reader write `"\u{0}nan"`, `"\u{0}inf"` or
/// `"\u{0}-inf"` instead; a real string can never hold `\u{0}` (control characters are
/// refused), so the marker cannot be confused with one.
pub const NON_FINITE_MARKER: char = '\u{0}';

/// The JSON value standing for a non-finite float (see [`NON_FINITE_MARKER`]).
pub fn non_finite_value(f: f64) -> Value {
    let text = if f.is_nan() {
        "nan"
    } else if f > 0.0 {
        "inf"
    } else {
        "-inf"
    };
    Value::String(format!("{NON_FINITE_MARKER}{text}"))
}

/// A problem with the text as a whole (before it is parsed), if any.
pub fn check_text(text: &str) -> Option<Problem> {
    (text.len() > MAX_INPUT_BYTES).then(|| Problem {
        path: String::new(),
        message: format!(
            "the document is {} bytes, more than the {} MiB a scenario may have",
            text.len(),
            MAX_INPUT_BYTES >> 20
        ),
    })
}

/// Check `doc`; returns the problems and, when there are any, the sanitised copy to parse
/// in its place.
pub fn check_document(doc: &Value) -> (Vec<Problem>, Option<Value>) {
    let mut problems = Vec::new();
    if !needs_work(doc, 0) {
        return (problems, None);
    }
    let mut copy = doc.clone();
    sanitise(&mut copy, "", 0, &mut problems);
    (problems, Some(copy))
}

/// Whether the pass has anything to report (most documents: no, and no copy is made).
fn needs_work(v: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    match v {
        Value::String(s) => bad_char(s).is_some(),
        Value::Array(a) => a.iter().any(|c| needs_work(c, depth + 1)),
        Value::Object(m) => m
            .iter()
            .any(|(k, c)| bad_char(k).is_some() || needs_work(c, depth + 1)),
        _ => false,
    }
}

fn sanitise(v: &mut Value, path: &str, depth: usize, out: &mut Vec<Problem>) {
    if depth > MAX_DEPTH {
        out.push(problem(
            path,
            format!(
                "nested more than {MAX_DEPTH} tables or lists deep; a scenario needs a few levels"
            ),
        ));
        *v = Value::Null;
        return;
    }
    match v {
        Value::String(s) => {
            if let Some(kind) = non_finite(s) {
                out.push(problem(path, non_finite_message(kind)));
                *v = Value::Null;
            } else if let Some((at, c)) = bad_char(s) {
                out.push(problem(path, control_message("the text", at, c)));
                *s = escape(s);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter_mut().enumerate() {
                sanitise(c, &format!("{path}[{i}]"), depth + 1, out);
            }
        }
        Value::Object(m) => {
            let old = std::mem::take(m);
            let mut fresh = Map::new();
            for (k, mut c) in old {
                let key = match bad_char(&k) {
                    Some((at, ch)) => {
                        let safe = escape(&k);
                        out.push(problem(
                            &join(path, &safe),
                            control_message("the key", at, ch),
                        ));
                        safe
                    }
                    None => k,
                };
                sanitise(&mut c, &join(path, &key), depth + 1, out);
                fresh.insert(key, c);
            }
            *m = fresh;
        }
        _ => {}
    }
}

fn problem(path: &str, message: String) -> Problem {
    Problem {
        path: path.to_string(),
        message,
    }
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// `Some("nan" | "inf" | "-inf")` for the non-finite marker.
fn non_finite(s: &str) -> Option<&str> {
    let rest = s.strip_prefix(NON_FINITE_MARKER)?;
    matches!(rest, "nan" | "inf" | "-inf").then_some(rest)
}

fn non_finite_message(kind: &str) -> String {
    let hint = if kind == "inf" {
        "; for an unlimited size write the string \"inf\" (app.size = \"inf\")"
    } else {
        ""
    };
    format!("the number {kind} is not allowed: every number must be finite{hint}")
}

/// Characters a name or value may not hold: C0 and C1 controls, DEL, and the Unicode
/// bidirectional and invisible formatting controls that can make printed text lie about
/// what it holds (terminal escapes, "Trojan source" reordering).
fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// The first forbidden character and its position (in characters), if any.
fn bad_char(s: &str) -> Option<(usize, char)> {
    // Printable ASCII, nearly every string, is checked a byte at a time.
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return None;
    }
    s.chars().enumerate().find(|(_, c)| forbidden(*c))
}

fn control_message(what: &str, at: usize, c: char) -> String {
    format!(
        "{what} contains the control character U+{:04X} at position {}; names and values \
         are printed in summaries, so control and invisible formatting characters are not allowed",
        c as u32,
        at + 1
    )
}

/// `s` with every forbidden character written as `\u{XXXX}`, safe to print.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if forbidden(c) {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `problem_path` is `reported` or lies below it (`link[0].queue` below `link[0]`).
pub fn is_within(problem_path: &str, reported: &str) -> bool {
    match problem_path.strip_prefix(reported) {
        Some("") => true,
        Some(rest) => reported.is_empty() || rest.starts_with('.') || rest.starts_with('['),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clean_documents_are_not_copied() {
        let doc = json!({"simulation": {"duration": "1s"}, "flow": [{"name": "a b"}]});
        let (p, copy) = check_document(&doc);
        assert!(p.is_empty() && copy.is_none());
    }

    #[test]
    fn control_characters_are_located_and_escaped() {
        let doc = json!({"flow": [{"name": "x\u{1b}[2J"}], "link": [{"na\u{7}me": 1}]});
        let (p, copy) = check_document(&doc);
        let paths: Vec<&str> = p.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["flow[0].name", "link[0].na\\u{0007}me"]);
        assert!(
            p[0].message.contains("U+001B at position 2"),
            "{}",
            p[0].message
        );
        let copy = copy.unwrap();
        assert_eq!(copy["flow"][0]["name"], "x\\u{001B}[2J");
        assert!(!copy.to_string().contains('\u{1b}'));
    }

    #[test]
    fn bidi_overrides_are_refused_and_ordinary_unicode_is_not() {
        let (p, _) = check_document(&json!({"flow": [{"name": "ab\u{202E}cd"}]}));
        assert_eq!(p.len(), 1);
        let (p, _) = check_document(&json!({"flow": [{"name": "débit→Ω 流"}]}));
        assert!(p.is_empty());
    }

    #[test]
    fn non_finite_markers_name_the_key() {
        let doc = json!({"link": [{"loss": non_finite_value(f64::NAN)}],
                         "flow": [{"app": {"size": non_finite_value(f64::INFINITY)}}]});
        let (p, copy) = check_document(&doc);
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].path, "link[0].loss");
        assert!(p[1].message.contains("nan is not allowed"));
        assert!(p[0].message.contains("\"inf\""), "{}", p[0].message);
        assert_eq!(copy.unwrap()["link"][0]["loss"], Value::Null);
    }

    #[test]
    fn deep_nesting_is_cut_at_the_limit() {
        let mut v = json!(1);
        for _ in 0..100 {
            v = json!([v]);
        }
        let (p, copy) = check_document(&json!({ "simulation": v }));
        assert_eq!(p.len(), 1);
        assert!(p[0].path.starts_with("simulation[0][0]"));
        assert!(p[0].message.contains("32"));
        assert!(copy.is_some());
    }

    #[test]
    fn oversized_text_is_refused() {
        assert!(check_text("x").is_none());
        let big = "#".repeat(MAX_INPUT_BYTES + 1);
        assert!(check_text(&big).unwrap().message.contains("16 MiB"));
    }

    #[test]
    fn within() {
        assert!(is_within("link[0].queue.limit", "link[0]"));
        assert!(is_within("link[0]", "link[0]"));
        assert!(!is_within("link[01]", "link[0]"));
        assert!(!is_within("link[10]", "link[1]"));
        assert!(is_within("x", ""));
    }
}
