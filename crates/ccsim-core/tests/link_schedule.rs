//! Time-varying links (`rate_schedule`) and trace-driven links (`delivery_trace`, Mahimahi's
//! format): scenarios that use them, and the located errors of the combinations the fast
//! link model cannot compute (`net::link_schedule` has the departure unit tests).

use ccsim_core::scenario::from_toml_str;
use ccsim_core::Simulation;
use std::path::PathBuf;

/// One TCP flow over `bottleneck` (the keys of the s->d link after `from`/`to`), with a
/// fixed-rate ACK path.
fn doc(bottleneck: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "10s"
{extra}
[[link]]
name = "bottleneck"
from = "s"
to = "d"
delay = "10ms"
queue = {{ kind = "droptail", limit = "50p" }}
{bottleneck}
[[link]]
from = "d"
to = "s"
rate = "10Mbps"
delay = "10ms"
[[flow]]
name = "f"
from = "s"
to = "d"
app = {{ kind = "bulk" }}
"#
    )
}

/// A trace file in the temporary directory (one per test, by name).
fn trace_file(name: &str, lines: impl Iterator<Item = u64>) -> PathBuf {
    let p = std::env::temp_dir().join(format!("ccsim-{}-{name}.trace", std::process::id()));
    let text: String = lines.map(|t| format!("{t}\n")).collect();
    std::fs::write(&p, text).unwrap();
    p
}

fn run(text: &str) -> ccsim_core::results::RunResult {
    let sc = from_toml_str(text, "t").unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(sc).unwrap().finish()
}

#[test]
fn a_schedule_without_steps_changes_nothing() {
    let fixed = run(&doc("rate = \"8Mbps\"", ""));
    let sched = run(&doc("rate = \"8Mbps\"\nrate_schedule = []", ""));
    let constant = run(&doc(
        "rate = \"8Mbps\"\nrate_schedule = [[\"3s\", \"8Mbps\"]]",
        "",
    ));
    for r in [&sched, &constant] {
        assert_eq!(r.events, fixed.events);
        assert_eq!(r.flows[0].bytes_delivered, fixed.flows[0].bytes_delivered);
        assert_eq!(r.links[0].bytes_out, fixed.links[0].bytes_out);
        assert_eq!(r.links[0].utilisation, fixed.links[0].utilisation);
    }
}

#[test]
fn a_rate_step_changes_what_the_link_carries() {
    // 10 Mb/s for 5 s, then 2 Mb/s: the link carries close to 5·10 + 5·2 = 60 Mbit.
    let r = run(&doc(
        "rate = \"10Mbps\"\nrate_schedule = [[\"5s\", \"2Mbps\"]]",
        "[measure]\nfrom = \"6s\"",
    ));
    let mbps = r.links[0].bytes_out as f64 * 8.0 / 4e6;
    assert!((1.7..=2.01).contains(&mbps), "{mbps} Mb/s after the step");
    // Utilisation is against the scheduled capacity of the window (2 Mb/s), not `rate`.
    assert!(r.links[0].utilisation > 0.85, "{}", r.links[0].utilisation);
    assert!(r.links[0].utilisation <= 1.0 + 1e-9);
    assert!(r.conservation.holds());
}

#[test]
fn a_constant_trace_behaves_as_a_fixed_rate_link() {
    // One opportunity per millisecond = 12 Mb/s of 1500-byte packets, over a 1-s trace
    // that repeats.
    let tr = trace_file("constant", 1..=1000);
    let traced = run(&doc(
        &format!("delivery_trace = {:?}", tr.display().to_string()),
        "",
    ));
    let fixed = run(&doc("rate = \"12Mbps\"", ""));
    let (a, b) = (traced.flows[0].goodput_bps, fixed.flows[0].goodput_bps);
    assert!((a / b - 1.0).abs() < 0.03, "trace {a} vs fixed {b}");
    assert!(traced.links[0].utilisation > 0.9 && traced.links[0].utilisation <= 1.0);
    assert!(traced.conservation.holds());
    std::fs::remove_file(tr).ok();
}

#[test]
fn the_shipped_cellular_scenario_runs_on_its_trace() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../python/ccsim/scenarios");
    let path = dir.join("cellular.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    // The trace path is relative to the scenario file.
    let sc = from_toml_str(&text, path.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
    assert!(sc.links.iter().any(|l| l.schedule.is_some()));
    let r = Simulation::new(sc).unwrap().finish();
    let down = r.links.iter().find(|l| l.name == "r1->ue").unwrap();
    assert!(
        (0.5..=1.0).contains(&down.utilisation),
        "{}",
        down.utilisation
    );
    assert!(r.conservation.holds());
    // Without the file's directory the relative path is not found, and the error says so.
    let e = from_toml_str(&text, "<text>").unwrap_err().to_string();
    assert!(
        e.contains("link[1].delivery_trace") && e.contains("cannot read"),
        "{e}"
    );
}

#[test]
fn combinations_the_fast_model_cannot_compute_are_located() {
    let steps = "rate = \"10Mbps\"\nrate_schedule = [[\"1s\", \"5Mbps\"]]";
    let e = from_toml_str(&doc(steps, "link_model = \"per_hop\""), "t")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("link[0].rate_schedule") && e.contains("fast link model"),
        "{e}"
    );
    let codel = doc(steps, "").replace("kind = \"droptail\", limit = \"50p\"", "kind = \"codel\"");
    let e = from_toml_str(&codel, "t").unwrap_err().to_string();
    assert!(e.contains("link[0].queue") && e.contains("codel"), "{e}");
}

#[test]
fn bad_schedules_and_traces_are_located() {
    let cases = [
        ("", "link[0].rate", "missing"),
        (
            "rate = \"1Mbps\"\nrate_schedule = [[\"2s\", \"5Mbps\"], [\"1s\", \"3Mbps\"]]",
            "link[0].rate_schedule[1][0]",
            "must increase",
        ),
        (
            "rate = \"1Mbps\"\nrate_schedule = [[\"2s\", \"fast\"]]",
            "link[0].rate_schedule[0][1]",
            "",
        ),
        (
            "rate = \"1Mbps\"\ndelivery_trace = \"x.trace\"",
            "link[0].delivery_trace",
            "not both",
        ),
        (
            "delivery_trace = \"/nonexistent/x.trace\"",
            "link[0].delivery_trace",
            "cannot read",
        ),
    ];
    for (keys, path, words) in cases {
        let e = from_toml_str(&doc(keys, ""), "t").unwrap_err().to_string();
        assert!(e.contains(path) && e.contains(words), "{keys}: {e}");
    }
    let dir = std::env::temp_dir().display().to_string();
    let e = from_toml_str(&doc(&format!("delivery_trace = {dir:?}"), ""), "t")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("link[0].delivery_trace") && e.contains("not a regular file"),
        "{e}"
    );
    let bad = trace_file("bad", [1, 5, 3].into_iter());
    let e = from_toml_str(
        &doc(
            &format!("delivery_trace = {:?}", bad.display().to_string()),
            "",
        ),
        "t",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("link[0].delivery_trace") && e.contains("line 3"),
        "{e}"
    );
    std::fs::remove_file(bad).ok();
}
