//! Per-packet event tables (`[trace] events`): each table has one row per event the
//! summaries count, in time order, the same in both link models and on two threads, and
//! recording them changes nothing else.

use ccsim_core::results::{RunResult, Table};
use ccsim_core::scenario::from_toml_str;
use ccsim_core::Simulation;

/// Four flows (two of them ECN-capable Reno through a step marker on the data path) over a
/// two-hop path with random loss on the access link; `extra` goes into `[simulation]`,
/// `events` into `[trace]`.
fn doc(extra: &str, events: &str) -> String {
    let mut d = format!(
        r#"
[simulation]
duration = "8s"
seed = 3
{extra}
[trace]
interval = "0s"
{events}
[[link]]
from = "s"
to = "r"
rate = "100Mbps"
delay = "5ms"
loss = 0.002
[[link]]
from = "r"
to = "s"
rate = "100Mbps"
delay = "5ms"
[[link]]
name = "bottleneck"
between = ["r", "d"]
rate = "10Mbps"
delay = "10ms"
queue = {{ kind = "step", k = 20, limit = "40p" }}
"#
    );
    for (i, ecn) in ["off", "off", "rfc3168", "rfc3168"].iter().enumerate() {
        d += &format!(
            "[[flow]]\nname = \"f{i}\"\nfrom = \"s\"\nto = \"d\"\ncc = \"reno\"\necn = \"{ecn}\"\nrto = {{ min = \"200ms\" }}\napp = {{ kind = \"bulk\", start = \"{}ms\" }}\n",
            100 * i
        );
    }
    d
}

const ALL: &str = r#"events = ["drop", "mark", "retx", "timeout"]"#;

fn run(text: &str) -> RunResult {
    let sc = from_toml_str(text, "t").unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(sc).unwrap().finish()
}

fn col<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    &t.columns[t.names.iter().position(|n| *n == name).unwrap()]
}

fn sorted(t: &Table) -> bool {
    col(t, "time_s").windows(2).all(|w| w[0] <= w[1])
}

#[test]
fn each_table_has_one_row_per_counted_event() {
    let r = run(&doc("", ALL));
    let s = &r.series;
    assert_eq!(s.drops.len() as u64, r.conservation.dropped.total());
    assert!(s.drops.len() > 10, "the scenario drops: {}", s.drops.len());
    let marks: u64 = r.links.iter().map(|l| l.ecn_marks).sum();
    assert!(marks > 0);
    assert_eq!(s.marks.len() as u64, marks);
    let retx: u64 = r.flows.iter().map(|f| f.retransmissions).sum();
    assert_eq!(s.retx.len() as u64, retx);
    let timeouts: u64 = r.flows.iter().map(|f| f.timeouts).sum();
    assert_eq!(s.timeouts.len() as u64, timeouts);
    for t in [&s.drops, &s.marks, &s.retx, &s.timeouts] {
        assert!(sorted(t));
        assert!(col(t, "time_s").iter().all(|&x| (0.0..=8.0).contains(&x)));
    }
    // Per link and cause, the drop rows add up to the link's counts.
    for (i, l) in r.links.iter().enumerate() {
        for (c, &n) in l.drops.0.iter().enumerate() {
            let rows = (0..s.drops.len())
                .filter(|&k| {
                    col(&s.drops, "link")[k] == i as f64 && col(&s.drops, "cause")[k] == c as f64
                })
                .count();
            assert_eq!(rows as u64, n, "link {i} cause {c}");
        }
    }
    // Marks only on ECN-capable flows' data (flows 2 and 3).
    assert!(col(&s.marks, "flow").iter().all(|&f| f >= 2.0));
    // Retransmissions of a flow: its count, with a kind each.
    for (i, f) in r.flows.iter().enumerate() {
        let rows = col(&s.retx, "flow")
            .iter()
            .filter(|&&x| x == i as f64)
            .count();
        assert_eq!(rows as u64, f.retransmissions);
    }
    assert!(col(&s.retx, "kind")
        .iter()
        .all(|&k| k == 0.0 || k == 1.0 || k == 2.0));
    assert!(col(&s.timeouts, "rto_s").iter().all(|&x| x >= 0.2));
}

#[test]
fn recording_changes_no_result() {
    let off = run(&doc("", ""));
    let on = run(&doc("", ALL));
    assert_eq!(
        serde_json::to_string(&off).unwrap(),
        serde_json::to_string(&on).unwrap()
    );
    assert!(off.series.drops.is_empty() && off.series.retx.is_empty());
    // Only the kinds asked for.
    let drops_only = run(&doc("", r#"events = ["drop"]"#));
    assert_eq!(drops_only.series.drops.columns, on.series.drops.columns);
    assert!(drops_only.series.marks.is_empty() && drops_only.series.timeouts.is_empty());
}

#[test]
fn the_link_models_and_two_threads_record_the_same_events() {
    let fast = run(&doc("", ALL));
    for extra in ["link_model = \"per_hop\"", "threads = 2"] {
        let other = run(&doc(extra, ALL));
        for (a, b) in [
            (&fast.series.drops, &other.series.drops),
            (&fast.series.marks, &other.series.marks),
            (&fast.series.retx, &other.series.retx),
            (&fast.series.timeouts, &other.series.timeouts),
        ] {
            assert_eq!(a.columns, b.columns, "{extra}");
        }
    }
}

#[test]
fn unknown_kinds_are_located() {
    let e = from_toml_str(&doc("", r#"events = ["drops"]"#), "t")
        .unwrap_err()
        .to_string();
    assert!(e.contains("trace.events[0]") && e.contains("retx"), "{e}");
}
