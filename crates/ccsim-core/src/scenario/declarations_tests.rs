//! Tests of the components' declarations as a whole: every parameter documented with the
//! source of its default, every default valid for its own type, every registered
//! controller buildable, and `explain` reporting where each value came from.

use super::document::{FlowDoc, TOP_PARAMS, TRANSPORT_NAMES};
use crate::cc::{CcContext, CcSpec, CONTROLLERS};
use crate::params::read::{read_fields, Scope};
use crate::params::{Cx, Dflt, Kind, Origin, Param, Ty};
use crate::scenario::*;
use crate::units::Bytes;

/// Every table of parameters reachable from the top of a document (each kind's too).
fn tables() -> Vec<(String, Vec<&'static Param>, Option<&'static Kind>)> {
    fn walk(
        path: &str,
        ty: &Ty,
        out: &mut Vec<(String, Vec<&'static Param>, Option<&'static Kind>)>,
    ) {
        match *ty {
            Ty::Table(ps) => add(path, ps.iter().collect(), None, out),
            Ty::Kinded(kinds) => {
                for k in (kinds.list)() {
                    add(
                        &format!("{path}={}", k.name),
                        k.all_params().collect(),
                        Some(k),
                        out,
                    )
                }
            }
            Ty::Flat { common, kinds, .. } => {
                add(path, common.iter().collect(), None, out);
                for k in (kinds.list)() {
                    add(
                        &format!("{path}={}", k.name),
                        k.all_params().collect(),
                        Some(k),
                        out,
                    )
                }
            }
            Ty::List { of, .. } | Ty::Map(of) => walk(path, of, out),
            _ => {}
        }
    }
    fn add(
        path: &str,
        ps: Vec<&'static Param>,
        kind: Option<&'static Kind>,
        out: &mut Vec<(String, Vec<&'static Param>, Option<&'static Kind>)>,
    ) {
        if out.iter().any(|(p, _, _)| p == path) {
            return;
        }
        out.push((path.to_string(), ps.clone(), kind));
        for p in ps {
            walk(&format!("{path}.{}", p.name), &p.ty, out);
        }
    }
    let mut out = Vec::new();
    add("", TOP_PARAMS.iter().collect(), None, &mut out);
    out
}

#[test]
fn every_parameter_is_documented_with_the_source_of_its_default() {
    let all = tables();
    assert!(all.len() > 40, "{} tables", all.len());
    for (path, ps, _) in &all {
        let mut names: Vec<&str> = ps.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ps.len(), "{path}: a key declared twice");
        for p in ps {
            // The Vegas preset's and a few structural keys' docs come from their table.
            assert!(!p.doc.is_empty(), "{path}.{}: no doc", p.name);
            assert!(!p.source.is_empty(), "{path}.{}: no source", p.name);
            if let (Ty::Choice(names), Dflt::Value(crate::params::Lit::Str(d))) = (p.ty, p.default)
            {
                assert!(
                    names.contains(&d),
                    "{path}.{}: default {d} not allowed",
                    p.name
                );
            }
        }
    }
}

#[test]
fn every_default_is_valid_for_its_own_type() {
    for (path, ps, kind) in tables() {
        let groups: Vec<&'static [Param]> = match kind {
            Some(k) => k.params.to_vec(),
            None => vec![],
        };
        let mut cx = Cx::default();
        if kind.is_some() {
            read_fields(
                &mut cx,
                &path,
                &Default::default(),
                &groups,
                kind,
                &Scope::default(),
            );
        } else {
            for p in ps {
                let m = Default::default();
                let one = std::slice::from_ref(p);
                read_fields(&mut cx, &path, &m, &[one], None, &Scope::default());
            }
        }
        for pr in &cx.problems {
            assert!(
                pr.message.starts_with("missing;"),
                "{path}: a default does not read: {}: {}",
                pr.path,
                pr.message
            );
        }
    }
}

#[test]
fn the_transport_names_are_the_transports() {
    let names = crate::transport::TRANSPORTS.names();
    assert_eq!(names, TRANSPORT_NAMES);
}

#[test]
fn every_registered_controller_builds_from_its_defaults() {
    let ctx = CcContext {
        mss: Bytes(1460),
        init_cwnd: Bytes(3 * 1460),
        seed: 0,
    };
    for c in CONTROLLERS {
        let mut cx = Cx::default();
        let r = read_fields(
            &mut cx,
            "",
            &Default::default(),
            c.kind.params,
            Some(&c.kind),
            &Scope::default(),
        );
        assert!(cx.problems.is_empty(), "{}: {:?}", c.kind.name, cx.problems);
        let spec = CcSpec::Named {
            kind: c,
            params: std::sync::Arc::new(r.to_json()),
        };
        let cc = crate::cc::AnyCc::build(&spec, ctx).unwrap_or_else(|e| panic!("{e}"));
        use crate::cc::CongestionControl;
        assert_eq!(cc.name(), c.kind.name);
    }
    // The configuration types' defaults come from the same declarations.
    assert_eq!(CubicSpec::default().beta, 0.7);
    assert_eq!(VegasSpec::default(), VegasSpec::NS2);
    assert_eq!(
        SctpSpec::default().rto.initial,
        crate::units::Dur::from_secs(3)
    );
    assert_eq!(
        ArcSpec::default().rto.max,
        crate::units::Dur::from_secs(100_000)
    );
    assert_eq!(RtoSpec::default().initial, crate::units::Dur::from_secs(1));
    assert_eq!(DvSpec::default().announce_bytes, 52);
    assert_eq!(RedSpec::default().limit, 50);
    assert_eq!(BerpSpec::default().beta, BerpBeta::Estimate);
    assert_eq!(DaimdSpec::default().hold, None);
    assert_eq!(WvegasSpec::default().total_alpha, 10.0);
    assert_eq!(FastSpec::default().avg_window_factor, None);
}

const THREE_FLOWS: &str = r#"
[simulation]
duration = "1s"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "5ms"
[[link]]
between = ["a", "c"]
rate = "10Mbps"
delay = "5ms"
[[link]]
between = ["c", "b"]
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "t"
count = 2
from = "a"
to = "b"
mss = 536
cc = { kind = "cubic", beta = 0.8 }
rto = { min = "200ms" }
app = "bulk"
[[flow]]
name = "m"
from = "a"
to = "b"
transport = "mptcp"
paths = [["a", "b"], ["a", "c", "b"]]
app = "bulk"
[[flow]]
name = "r"
from = "a"
to = "b"
transport = "arc"
app = { kind = "bulk", size = "1MB" }
"#;

fn lookup<'a>(f: &'a FlowParams, key: &str) -> (&'a str, Origin) {
    f.params
        .iter()
        .find(|(k, _, _)| k == key)
        .map(|(_, v, o)| (v.as_str(), *o))
        .unwrap_or_else(|| panic!("{}: no {key} in {:?}", f.name, f.params))
}

#[test]
fn explain_gives_every_resolved_parameter_of_every_flow_and_its_origin() {
    let doc = toml_value(THREE_FLOWS, "t").unwrap();
    let flows = explain(&doc, "t").unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["t.0", "t.1", "m", "r"]);
    let t = &flows[1];
    assert_eq!(lookup(t, "cc.kind"), ("\"cubic\"", Origin::Explicit));
    assert_eq!(lookup(t, "cc.beta"), ("0.8", Origin::Explicit));
    assert_eq!(lookup(t, "cc.c"), ("0.4", Origin::Default));
    assert_eq!(lookup(t, "rto.min"), ("\"200ms\"", Origin::Explicit));
    assert_eq!(lookup(t, "rto.max"), ("\"60s\"", Origin::Default));
    assert_eq!(lookup(t, "init_cwnd"), ("4", Origin::Default)); // RFC 5681 for mss 536
    assert_eq!(lookup(t, "delayed_ack"), ("\"100ms\"", Origin::Default));
    assert_eq!(lookup(t, "max_window"), ("none", Origin::Default));
    let m = &flows[2];
    assert_eq!(lookup(m, "recovery"), ("\"sack\"", Origin::Default)); // MPTCP's own default
    assert_eq!(lookup(m, "cc.kind"), ("\"lia\"", Origin::Default));
    assert_eq!(lookup(m, "joins"), ("[\"0s\", \"0s\"]", Origin::Default));
    let r = &flows[3];
    assert_eq!(lookup(r, "rto.max"), ("\"100000s\"", Origin::Default));
    assert_eq!(lookup(r, "app.size"), ("\"1MB\"", Origin::Explicit));
    // Every explained TCP parameter is one the sender has.
    let n_tcp = flows[0].params.len();
    assert!(n_tcp > 20, "{n_tcp}");
    let _: Option<&FlowDoc> = None;
}
