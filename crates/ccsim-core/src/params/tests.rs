//! Tests of the generic reader on small made-up declarations: values, ranges, words for
//! "none", kind-tagged tables, and where each value comes from (document, profile, default).

use super::read::{read_fields, read_kinded, read_table, Scope};
use super::*;
use serde_json::{json, Value};

const INNER: &[Param] = &[
    Param::duration("min", "1s").doc("d").source("s"),
    Param::positive_duration("max", "60s").doc("d").source("s"),
];

const TABLE: &[Param] = &[
    Param::float("beta", 0.7, Bound::Excl(0.0), Bound::Excl(1.0))
        .doc("d")
        .source("s"),
    Param::int("count", 3, 1, 10).doc("d").source("s"),
    Param::choice("mode", "a", &["a", "b"]).doc("d").source("s"),
    Param::positive_duration("delay", "100ms")
        .alt(Alt::Bool("off"))
        .doc("d")
        .source("s"),
    Param::size("size", 0, 1, 100)
        .alt(Alt::Word("inf", "no end"))
        .default_to(Lit::Str("inf"))
        .doc("d")
        .source("s"),
    Param::int("twice", 0, 0, 100)
        .derived("twice count", |r| {
            Value::from(2 * r.value("count").as_u64().unwrap_or(0))
        })
        .doc("d")
        .source("s"),
    Param::table("inner", INNER).doc("d").source("s"),
];

/// A profile of the kind #19's stack profiles are: named default overrides.
const PROFILE: Layer = Layer {
    name: "test-stack",
    about: "a test profile",
    profile: true,
    values: &[("count", Lit::Int(5)), ("inner.min", Lit::Str("200ms"))],
};

fn read(doc: Value, layers: &[&'static Layer]) -> (Resolved, Vec<Problem>) {
    let mut cx = Cx::default();
    let r = read_table(&mut cx, "t", &doc, TABLE, &Scope::new(layers)).expect("a table");
    (r, cx.problems)
}

fn origin(r: &Resolved, path: &str) -> Origin {
    r.flatten("")
        .into_iter()
        .find(|(p, _, _)| p == path)
        .map(|(_, _, o)| o)
        .unwrap_or_else(|| panic!("no {path}"))
}

#[test]
fn defaults_are_read_through_their_own_types() {
    let (r, ps) = read(json!({}), &[]);
    assert!(ps.is_empty(), "{ps:?}");
    assert_eq!(
        r.to_json(),
        json!({
            "beta": 0.7, "count": 3, "mode": "a", "delay": 100_000_000u64, "size": null,
            "twice": 6, "inner": { "min": 1_000_000_000u64, "max": 60_000_000_000u64 }
        })
    );
    assert!(r.flatten("").iter().all(|(_, _, o)| *o == Origin::Default));
}

#[test]
fn every_problem_is_located_with_the_allowed_values() {
    let (_, ps) = read(
        json!({ "beta": 1.3, "count": "x", "mode": "c", "delay": "0s", "size": 0,
                "inner": { "max": 5, "typo": 1 }, "other": true }),
        &[],
    );
    let got: Vec<(&str, &str)> = ps
        .iter()
        .map(|p| (p.path.as_str(), p.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("t.other", "unknown key; allowed: beta, count, mode, delay, size, twice, inner"),
            ("t.beta", "1.3 is out of range; allowed 0 < beta < 1"),
            ("t.count", "expected an integer, 1 ≤ count ≤ 10, found the string \"x\""),
            ("t.mode", "unknown mode \"c\"; allowed: a, b"),
            (
                "t.delay",
                "must be greater than zero, e.g. \"10ms\" (or write delay = false: off; true is \
                 the default)"
            ),
            (
                "t.size",
                "0B is out of range; allowed 1B ≤ size ≤ 100B (or write size = \"inf\": no end)"
            ),
            ("t.inner.typo", "unknown key; allowed: min, max"),
            (
                "t.inner.max",
                "expected a duration as a string with a unit, e.g. \"10ms\"; found the bare number 5"
            ),
        ]
    );
}

#[test]
fn words_stand_for_none_and_true_for_the_default() {
    let (r, ps) = read(json!({ "delay": false, "size": "inf" }), &[]);
    assert!(ps.is_empty(), "{ps:?}");
    assert_eq!(
        (r.value("delay"), r.value("size")),
        (Value::Null, Value::Null)
    );
    let (r, _) = read(json!({ "delay": true, "size": "50B" }), &[]);
    assert_eq!(r.value("delay"), json!(100_000_000u64));
    assert_eq!(r.value("size"), json!(50));
    assert_eq!(display(&TABLE[3], &Value::Null), "false");
}

#[test]
fn a_profile_sits_between_the_document_and_the_default() {
    let (r, ps) = read(json!({ "mode": "b" }), &[&PROFILE]);
    assert!(ps.is_empty(), "{ps:?}");
    assert_eq!(r.value("count"), json!(5));
    assert_eq!(r.get("inner").unwrap().json()["min"], json!(200_000_000u64));
    assert_eq!(origin(&r, "count"), Origin::Profile("test-stack"));
    assert_eq!(origin(&r, "inner.min"), Origin::Profile("test-stack"));
    assert_eq!(origin(&r, "inner.max"), Origin::Default);
    assert_eq!(origin(&r, "mode"), Origin::Explicit);
    // A derived default follows the profile's value.
    assert_eq!(r.value("twice"), json!(10));
    // An explicit key beats the profile.
    let (r, _) = read(json!({ "count": 2, "inner": { "min": "1s" } }), &[&PROFILE]);
    assert_eq!(r.value("count"), json!(2));
    assert_eq!(origin(&r, "count"), Origin::Explicit);
    assert_eq!(origin(&r, "inner.min"), Origin::Explicit);
    // Displayed as a document writes it.
    let shown: Vec<String> = r
        .flatten("")
        .into_iter()
        .map(|(p, v, o)| format!("{p} = {v} ({o})"))
        .collect();
    assert!(
        shown.contains(&"inner.min = \"1s\" (explicit)".to_string()),
        "{shown:?}"
    );
    assert!(
        shown.contains(&"delay = \"100ms\" (default)".to_string()),
        "{shown:?}"
    );
}

const KIND_A: Kind = Kind::new("a", "kind a", &[TABLE]);
const PRESET: Layer = Layer {
    name: "fast",
    about: "a preset",
    profile: true,
    values: &[("beta", Lit::Float(0.5))],
};
const OWN: Layer = Layer {
    name: "own",
    about: "kind b's own defaults",
    profile: false,
    values: &[("inner.max", Lit::Str("2s"))],
};
const KIND_B: Kind = Kind {
    presets: &[&PRESET],
    layers: &[&OWN],
    ..Kind::new(
        "b",
        "kind b",
        &[&[
            Param::choice("preset", "none", &["none", "fast"]),
            Param::float("beta", 0.7, Bound::Excl(0.0), Bound::Excl(1.0)),
            Param::table("inner", INNER),
        ]],
    )
};
const KINDS: Kinds = Kinds {
    what: "thing",
    list: || vec![&KIND_A, &KIND_B],
    note: " (a note)",
    number: Some(("a", "beta")),
};

fn kinded(v: Value, layers: &[&'static Layer]) -> (Option<Resolved>, Vec<Problem>) {
    let mut cx = Cx::default();
    let r = read_kinded(&mut cx, "k", &v, &KINDS, "k", &Scope::new(layers));
    (r, cx.problems)
}

#[test]
fn kind_tagged_tables_by_name_table_or_number() {
    let (r, ps) = kinded(json!("a"), &[]);
    assert!(ps.is_empty());
    assert_eq!(r.unwrap().kind.unwrap().name, "a");
    let (r, _) = kinded(json!(0.25), &[]);
    let r = r.unwrap();
    assert_eq!((r.kind.unwrap().name, r.value("beta")), ("a", json!(0.25)));
    let (_, ps) = kinded(json!({ "kind": "c" }), &[]);
    assert_eq!(ps[0].path, "k.kind");
    assert_eq!(ps[0].message, "unknown thing \"c\"; allowed: a, b (a note)");
    let (_, ps) = kinded(json!({ "beta": 0.5 }), &[]);
    assert_eq!(
        ps[0].message,
        "missing; the table needs a kind, one of: a, b"
    );
    let (_, ps) = kinded(json!(true), &[]);
    assert_eq!(
        ps[0].message,
        "expected a number (beta of a), \"a\", \"b\" or a table such as { kind = \"a\" }, found \
         the boolean true"
    );
    let (_, ps) = kinded(json!({ "kind": "b", "count": 1 }), &[]);
    assert_eq!(
        ps[0].message,
        "unknown key; allowed: kind, preset, beta, inner"
    );
}

#[test]
fn presets_and_a_kinds_own_defaults_are_layers_too() {
    let (r, _) = kinded(json!({ "kind": "b", "preset": "fast" }), &[]);
    let r = r.unwrap();
    assert_eq!(r.value("beta"), json!(0.5));
    assert_eq!(origin(&r, "beta"), Origin::Profile("fast"));
    assert_eq!(
        r.get("inner").unwrap().json()["max"],
        json!(2_000_000_000u64)
    );
    assert_eq!(origin(&r, "inner.max"), Origin::Default);
    // A profile of the enclosing table addresses the kind by name; a preset chosen in the
    // table itself is more specific.
    const OUTER: Layer = Layer {
        name: "outer",
        about: "",
        profile: true,
        values: &[
            ("k.b.beta", Lit::Float(0.25)),
            ("k.b.inner.min", Lit::Str("0s")),
        ],
    };
    let (r, _) = kinded(json!("b"), &[&OUTER]);
    let r = r.unwrap();
    assert_eq!(
        (r.value("beta"), origin(&r, "beta")),
        (json!(0.25), Origin::Profile("outer"))
    );
    assert_eq!(origin(&r, "inner.min"), Origin::Profile("outer"));
    let (r, _) = kinded(json!({ "kind": "b", "preset": "fast" }), &[&OUTER]);
    assert_eq!(r.unwrap().value("beta"), json!(0.5));
}

#[test]
fn reading_nothing_gives_the_declared_defaults() {
    let mut cx = Cx::default();
    let r = read_fields(
        &mut cx,
        "",
        &Default::default(),
        &[INNER],
        None,
        &Scope::default(),
    );
    assert!(cx.problems.is_empty());
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Inner {
        min: crate::units::Dur,
        max: crate::units::Dur,
    }
    assert_eq!(
        r.config::<Inner>(),
        Ok(Inner {
            min: crate::units::Dur::from_secs(1),
            max: crate::units::Dur::from_secs(60)
        })
    );
    let i: Inner = defaults(INNER);
    assert_eq!(i.max, crate::units::Dur::from_secs(60));
}

/// The shape of issue #19's stack profiles: a flat kind (a flow's transport) whose key
/// `stack` chooses one of its presets; any explicit key still wins, and each value's origin
/// says where it came from.
#[test]
fn a_flat_kinds_preset_key_chooses_a_profile() {
    const COMMON: &[Param] = &[Param::choice("transport", "tcp", &["tcp"])];
    const LINUX: Layer = Layer {
        name: "linux",
        about: "a test stack",
        profile: true,
        values: &[("count", Lit::Int(10)), ("inner.min", Lit::Str("200ms"))],
    };
    const TCP: Kind = Kind {
        presets: &[&LINUX],
        preset_key: "stack",
        ..Kind::new(
            "tcp",
            "a transport",
            &[&[Param::choice("stack", "rfc", &["rfc", "linux"])], TABLE],
        )
    };
    const KINDS: Kinds = Kinds {
        what: "transport",
        list: || vec![&TCP],
        note: "",
        number: None,
    };
    let read = |v: Value| {
        let mut cx = Cx::default();
        let (_, k) = read::read_flat(
            &mut cx,
            "f",
            &v,
            COMMON,
            "transport",
            &KINDS,
            &Scope::default(),
        )
        .expect("a table");
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        k.expect("a transport")
    };
    let r = read(json!({ "stack": "linux", "inner": { "max": "2s" } }));
    assert_eq!(
        (r.value("count"), origin(&r, "count")),
        (json!(10), Origin::Profile("linux"))
    );
    assert_eq!(origin(&r, "inner.min"), Origin::Profile("linux"));
    assert_eq!(origin(&r, "inner.max"), Origin::Explicit);
    assert_eq!(origin(&r, "beta"), Origin::Default);
    let r = read(json!({ "stack": "linux", "count": 4 }));
    assert_eq!(
        (r.value("count"), origin(&r, "count")),
        (json!(4), Origin::Explicit)
    );
    let r = read(json!({}));
    assert_eq!(
        (r.value("count"), origin(&r, "count")),
        (json!(3), Origin::Default)
    );
}
