//! Results that must not change: a hash of everything each run reports (summary, warnings,
//! every time-series value bit for bit) for the shipped scenarios and the benchmark's, on
//! one thread and on two, compared with `tests/golden/results.txt`.
//!
//! The file was written by this test (`CCSIM_BLESS_GOLDEN=1 cargo test --test
//! golden_results`) on the code before issue #24's changes to routing, set-up and the
//! two-thread barrier, which must leave every result as it was; after merging #21 (ECMP)
//! and the other branches of that session, it was written again from main's code (this
//! file and `examples/bench/scenarios.rs` copied into main's tree), not from #24's. Written
//! again after merging ECN/AQM (#20), whose results add keys (`ecn_marks`, `ecn_reductions`,
//! drops `aqm`) and a scenario (`dctcp_dumbbell.toml`): with those keys removed from the JSON,
//! every case hashed as before. Bless again only for a change that is meant to change
//! results, and say so in its commit.

#[path = "../examples/bench/scenarios.rs"]
mod bench_scenarios;
mod common;

use ccsim_core::results::RunResult;
use ccsim_core::scenario::*;
use ccsim_core::units::Dur;
use ccsim_core::Simulation;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/results.txt");

/// (name, scenario), durations capped to keep the test fast.
fn cases() -> Vec<(String, Scenario)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let mut sc = from_toml_str(&text, &p.display().to_string()).unwrap();
        sc.duration = sc.duration.min(Dur::from_secs(5));
        out.push((p.file_name().unwrap().to_string_lossy().into_owned(), sc));
    }
    let bench = |name: &str, secs: f64| {
        let doc = bench_scenarios::document(name).unwrap();
        let mut sc = from_json_value(&doc, name).unwrap_or_else(|e| panic!("{e}"));
        sc.duration = sc.duration.min(Dur::from_secs_f64(secs));
        (name.to_string(), sc)
    };
    out.push(bench("dumbbell-16", 5.0));
    out.push(bench("dumbbell-64-1g", 1.0));
    for n in [16, 64, 256] {
        out.push(bench(&format!("dumbbell-scaled-{n}"), 1.0));
    }
    for k in bench_scenarios::PARKING_HOPS {
        out.push(bench(&format!("parking-lot-{k}"), 1.0));
    }
    out.push(bench("fat-tree-4", 0.1));
    out.push(bench("fat-tree-8", 0.01));
    // The fat-trees with ECMP (#21): flows pinned to hashed equal-cost routes.
    for (k, secs) in [(4, 0.1), (8, 0.01)] {
        let name = format!("fat-tree-{k}");
        let mut doc = bench_scenarios::document(&name).unwrap();
        doc["routing"] = serde_json::json!({ "kind": "ecmp" });
        let mut sc = from_json_value(&doc, &name).unwrap_or_else(|e| panic!("{e}"));
        assert!(sc.ecmp);
        sc.duration = sc.duration.min(Dur::from_secs_f64(secs));
        out.push((format!("{name}-ecmp"), sc));
    }
    out.push(bench("queue-fill", 0.02));
    // The benchmark dumbbell sampled every 100 ms, and at an odd interval.
    for (tag, interval) in [("sampled", Dur::from_millis(100)), ("odd", Dur(7_654_321))] {
        let (_, mut sc) = bench("dumbbell-16", 3.0);
        sc.trace.interval = interval;
        sc.trace.flows = (0..sc.flows.len()).collect();
        sc.trace.links = (0..sc.links.len()).collect();
        out.push((format!("dumbbell-16-{tag}"), sc));
    }
    out.push((
        "tests-dumbbell-16".into(),
        common::dumbbell(16, 1000.0, 100.0, 333, 3.0, RecoverySpec::Sack, 0.5),
    ));
    out
}

/// FNV-1a, 64 bits: a stable hash (std's hashers may change between releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Everything a run reports: the summary as JSON, then every table's values bit for bit.
fn fingerprint(r: &RunResult) -> u64 {
    let mut s = serde_json::to_string(r).unwrap();
    let t = &r.series;
    for table in [&t.flows, &t.links, &t.paths, &t.routes, &t.backoffs] {
        for c in &table.columns {
            for v in c {
                s.push_str(&format!("{:x},", v.to_bits()));
            }
        }
        s.push(';');
    }
    fnv1a(s.as_bytes())
}

fn computed() -> Vec<String> {
    let mut lines = Vec::new();
    for (name, sc) in cases() {
        for threads in [1, 2] {
            let mut sc = sc.clone();
            sc.threads = threads;
            let r = Simulation::new(sc).unwrap().finish();
            lines.push(format!("{name} {threads} {:016x}", fingerprint(&r)));
        }
    }
    lines
}

#[test]
fn results_are_those_of_the_golden_file() {
    let now = computed();
    if std::env::var_os("CCSIM_BLESS_GOLDEN").is_some() {
        std::fs::create_dir_all(std::path::Path::new(GOLDEN).parent().unwrap()).unwrap();
        std::fs::write(GOLDEN, now.join("\n") + "\n").unwrap();
        return;
    }
    let text = std::fs::read_to_string(GOLDEN).expect("tests/golden/results.txt");
    let golden: Vec<&str> = text.lines().collect();
    let changed: Vec<String> = now
        .iter()
        .filter(|l| !golden.contains(&l.as_str()))
        .cloned()
        .collect();
    assert!(
        changed.is_empty(),
        "results changed (name threads hash):\n{}",
        changed.join("\n")
    );
    assert_eq!(now.len(), golden.len(), "the cases changed");
}
