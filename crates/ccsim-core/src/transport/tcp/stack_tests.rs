//! The stack profiles: every value cited, every path a real parameter, resolution and
//! provenance on a flow and from `[simulation] stack`, explicit keys winning.

use super::{LINUX, NS2, PRESETS, SIMULATION_ORIGIN, SOURCES};
use crate::params::{Lit, Origin};
use crate::scenario::{explain, toml_value, FlowParams};

fn flows(flow_keys: &str, sim_keys: &str) -> Vec<FlowParams> {
    let text = format!(
        "[simulation]\nduration = \"1s\"\n{sim_keys}\n\
         [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
         [[flow]]\nfrom = \"a\"\nto = \"b\"\napp = \"bulk\"\n{flow_keys}\n"
    );
    let doc = toml_value(&text, "t").unwrap_or_else(|e| panic!("{e}"));
    explain(&doc, "t").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn lookup(f: &FlowParams, key: &str) -> (String, Origin) {
    f.params
        .iter()
        .find(|(k, _, _)| k == key)
        .map(|(_, v, o)| (v.clone(), *o))
        .unwrap_or_else(|| panic!("{}: no {key} in {:?}", f.name, f.params))
}

/// The value as a document writes it.
fn toml(v: Lit) -> String {
    match v {
        Lit::Str(s) => format!("\"{s}\""),
        Lit::Int(i) => i.to_string(),
        Lit::Float(f) => format!("{f:?}"),
        Lit::Bool(b) => b.to_string(),
        Lit::Table => "{}".into(),
    }
}

#[test]
fn every_profile_value_has_one_source_and_every_source_a_value() {
    for layer in PRESETS {
        for (path, _) in layer.values {
            let n = SOURCES
                .iter()
                .filter(|(p, k, _)| *p == layer.name && k == path)
                .count();
            assert_eq!(n, 1, "{}: {path} has {n} sources", layer.name);
        }
    }
    for (p, k, src) in SOURCES {
        let layer = PRESETS.iter().find(|l| l.name == *p).expect("a profile");
        assert!(layer.get(k).is_some(), "{p}.{k} is cited but not set");
        assert!(src.len() > 10, "{p}.{k}: {src}");
    }
}

/// Each profile value reaches a parameter of a TCP flow (with the controller its path
/// names), with the profile as its origin and the value the same key written explicitly
/// gives: no path is misspelled or out of place.
#[test]
fn every_profile_value_resolves_on_a_tcp_flow_with_the_profile_as_origin() {
    for layer in [&LINUX, &NS2] {
        for (path, lit) in layer.values {
            let written = toml(*lit);
            let (profiled, explicit, key) = match path.strip_prefix("cc.") {
                Some(rest) => {
                    let (kind, key) = rest.split_once('.').expect("cc.kind.key");
                    (
                        format!("cc = \"{kind}\""),
                        format!("cc = {{ kind = \"{kind}\", {key} = {written} }}"),
                        format!("cc.{key}"),
                    )
                }
                None => match path.split_once('.') {
                    Some((table, key)) => (
                        String::new(),
                        format!("{table} = {{ {key} = {written} }}"),
                        path.to_string(),
                    ),
                    None => (
                        String::new(),
                        format!("{path} = {written}"),
                        path.to_string(),
                    ),
                },
            };
            let f = flows(&format!("stack = \"{}\"\n{profiled}", layer.name), "");
            let e = flows(&explicit, "");
            let (want, _) = lookup(&e[0], &key);
            assert_eq!(
                lookup(&f[0], &key),
                (want, Origin::Profile(layer.name)),
                "{}: {path}",
                layer.name
            );
        }
    }
}

#[test]
fn rfc_is_the_built_in_defaults() {
    let plain = flows("", "");
    let rfc = flows("stack = \"rfc\"", "");
    assert_eq!(
        lookup(&rfc[0], "stack"),
        ("\"rfc\"".into(), Origin::Explicit)
    );
    for (k, v, o) in &plain[0].params {
        if k == "stack" {
            assert_eq!(*o, Origin::Default);
            continue;
        }
        assert_eq!(lookup(&rfc[0], k), (v.clone(), *o), "{k}");
    }
}

#[test]
fn an_explicit_key_beats_the_profile() {
    let f = flows(
        "stack = \"linux\"\ninit_cwnd = 4\nrto = { min = \"1s\" }",
        "",
    );
    assert_eq!(lookup(&f[0], "init_cwnd"), ("4".into(), Origin::Explicit));
    assert_eq!(
        lookup(&f[0], "rto.min"),
        ("\"1s\"".into(), Origin::Explicit)
    );
    assert_eq!(
        lookup(&f[0], "rto.max"),
        ("\"120s\"".into(), Origin::Profile("linux"))
    );
    assert_eq!(
        lookup(&f[0], "mss"),
        ("\"1448B\"".into(), Origin::Profile("linux"))
    );
    // A value the profile does not set keeps its built-in default.
    assert_eq!(lookup(&f[0], "dupthresh"), ("3".into(), Origin::Default));
}

#[test]
fn the_linux_profile_chooses_vegas_linux_thresholds_unless_the_flow_says_otherwise() {
    let f = flows("stack = \"linux\"\ncc = \"vegas\"", "");
    assert_eq!(
        lookup(&f[0], "cc.alpha"),
        ("2.0".into(), Origin::Profile("linux"))
    );
    let f = flows(
        "stack = \"linux\"\ncc = { kind = \"vegas\", preset = \"ns2\" }",
        "",
    );
    assert_eq!(
        lookup(&f[0], "cc.alpha"),
        ("1.0".into(), Origin::Profile("ns2"))
    );
}

#[test]
fn simulation_stack_applies_to_flows_that_name_none() {
    let f = flows("", "stack = \"ns2\"");
    assert_eq!(
        lookup(&f[0], "stack"),
        ("\"ns2\"".into(), Origin::Profile(SIMULATION_ORIGIN))
    );
    assert_eq!(
        lookup(&f[0], "rto.granularity"),
        ("\"10ms\"".into(), Origin::Profile("ns2"))
    );
    // The flow's own stack wins, also when it is rfc.
    let f = flows("stack = \"rfc\"", "stack = \"ns2\"");
    assert_eq!(lookup(&f[0], "stack"), ("\"rfc\"".into(), Origin::Explicit));
    assert_eq!(
        lookup(&f[0], "rto.granularity"),
        ("\"1ms\"".into(), Origin::Default)
    );
    let f = flows("stack = \"linux\"", "stack = \"ns2\"");
    assert_eq!(
        lookup(&f[0], "init_cwnd"),
        ("10".into(), Origin::Profile("linux"))
    );
}

#[test]
fn a_bad_stack_is_located_with_the_allowed_names() {
    for (flow, sim, at) in [
        ("stack = \"bsd\"", "", "flow[0].stack"),
        ("", "stack = \"bsd\"", "simulation.stack"),
    ] {
        let text = format!(
            "[simulation]\nduration = \"1s\"\n{sim}\n[[link]]\nbetween = [\"a\", \"b\"]\n\
             rate = \"10Mbps\"\ndelay = \"10ms\"\n[[flow]]\nfrom = \"a\"\nto = \"b\"\n\
             app = \"bulk\"\n{flow}\n"
        );
        let e = crate::scenario::from_toml_str(&text, "t").expect_err("bad stack");
        let p = e
            .problems
            .iter()
            .find(|p| p.path == at)
            .unwrap_or_else(|| panic!("{e}"));
        assert!(p.message.contains("rfc, linux, ns2"), "{}", p.message);
    }
}

/// docs/tcp.md §11 has a row for every key a profile sets.
#[test]
fn the_docs_table_has_every_profile_key() {
    let doc = include_str!("../../../../../docs/tcp.md");
    let section = doc
        .split("## 11. Stack profiles")
        .nth(1)
        .expect("docs/tcp.md §11");
    for (_, path, _) in SOURCES {
        assert!(
            section.contains(&format!("| `{path}` |")),
            "docs/tcp.md §11 has no row for {path}"
        );
    }
}
