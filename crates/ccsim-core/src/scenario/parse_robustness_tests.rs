//! Robustness tests of the scenario parser: mutated documents never panic; the example
//! files and the reference's example parse.

use super::parse_tests::{parse, FULL};
use crate::scenario::*;
use serde_json::json;

/// Replace the value at every position in `v` by each of `weird`, and remove each key,
/// calling `f` on every variant.
fn mutations(
    v: &serde_json::Value,
    weird: &[serde_json::Value],
    f: &mut dyn FnMut(serde_json::Value),
) {
    fn walk(
        root: &serde_json::Value,
        ptr: String,
        here: &serde_json::Value,
        weird: &[serde_json::Value],
        f: &mut dyn FnMut(serde_json::Value),
    ) {
        for w in weird {
            let mut doc = root.clone();
            if let Some(slot) = doc.pointer_mut(&ptr) {
                *slot = w.clone();
            }
            f(doc);
        }
        match here {
            serde_json::Value::Object(m) => {
                for (k, c) in m {
                    let mut doc = root.clone();
                    if let Some(serde_json::Value::Object(pm)) = doc.pointer_mut(&ptr) {
                        pm.remove(k);
                    }
                    f(doc);
                    walk(root, format!("{ptr}/{k}"), c, weird, f);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    walk(root, format!("{ptr}/{i}"), c, weird, f);
                }
            }
            _ => {}
        }
    }
    walk(v, String::new(), v, weird, f);
}

#[test]
fn malformed_documents_never_panic() {
    let full: serde_json::Value = {
        let t: toml::Value = toml::from_str(FULL).unwrap();
        serde_json::to_value(t).unwrap()
    };
    let weird = [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(-0.0),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e300),
        json!(""),
        json!("x"),
        json!("->"),
        json!("a->b"),
        json!("inf"),
        json!("auto"),
        json!("0s"),
        json!("5 ms"),
        json!("99999999999999999999999999h"),
        json!("1.5p"),
        json!("s1"),
        json!([]),
        json!(["s1"]),
        json!(["s1", "s1"]),
        json!(["0s", "1s", "2s"]),
        json!([1, 2]),
        json!({}),
        json!({"kind": "red"}),
        json!({"kind": 3}),
        json!({"kind": "scripted", "data_packets": [1.5, -1, "x"]}),
    ];
    let mut n = 0;
    let mut errors = 0;
    mutations(&full, &weird, &mut |doc| {
        n += 1;
        match from_json_value(&doc, "fuzz") {
            Ok(_) => {}
            Err(e) => {
                errors += 1;
                assert!(!e.problems.is_empty());
            }
        }
    });
    assert!(
        n > 2000 && errors > 1000,
        "{n} documents, {errors} rejected"
    );

    // Byte-level mutations of the TOML text (deterministic LCG).
    let bytes = FULL.as_bytes();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) as usize
    };
    let alphabet = b"[]{}=\",.-0123456789 \nabsp";
    for _ in 0..3000 {
        let mut t = bytes.to_vec();
        for _ in 0..1 + next() % 4 {
            let at = next() % t.len();
            match next() % 3 {
                0 => {
                    t.remove(at);
                }
                1 => t.insert(at, alphabet[next() % alphabet.len()]),
                _ => t[at] = alphabet[next() % alphabet.len()],
            }
        }
        let text = String::from_utf8_lossy(&t);
        let _ = from_toml_str(&text, "fuzz");
    }
}

#[test]
fn example_scenarios_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("scenarios directory") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if let Err(e) = from_toml_str(&text, &path.display().to_string()) {
            panic!("{e}");
        }
        n += 1;
    }
    assert!(n >= 3, "only {n} scenario files found in {}", dir.display());
}

#[test]
fn reference_example_parses() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario.md");
    let text = std::fs::read_to_string(&path).expect("docs/scenario.md");
    let start = text.find("```toml\n").expect("a toml block") + "```toml\n".len();
    let len = text[start..].find("```").expect("end of the toml block");
    let s = parse(&text[start..start + len]);
    assert_eq!(s.flows.len(), 1);
    assert_eq!(s.trace.links, [0, 1]);
}
