//! The run-time memory guard: a run whose queues or time series outgrow the memory limit
//! stops cleanly, says what grew, and never aborts (docs/reliability.md).

use ccsim_core::scenario::from_toml_str;
use ccsim_core::units::SimTime;
use ccsim_core::Simulation;

/// A 10 Gb/s constant-rate source into a 1 Mb/s link whose queue never fills.
fn flood(threads: u32, trace: &str) -> String {
    format!(
        r#"
        [simulation]
        duration = "10s"
        threads = {threads}
        [trace]
        {trace}
        [[link]]
        between = ["s", "r"]
        rate = "10Gbps"
        delay = "20ms"
        [[link]]
        between = ["r", "d"]
        rate = "1Mbps"
        delay = "20ms"
        queue = {{ kind = "droptail", limit = "1000000000000p" }}
        [[flow]]
        from = "s"
        to = "d"
        transport = "udp"
        app = {{ kind = "cbr", rate = "10Gbps" }}
        "#
    )
}

/// Parse with a generous limit (so that validation passes), then run under `limit`.
fn run_under(text: &str, limit: u64) -> (Simulation, SimTime) {
    let mut sc = from_toml_str(
        &text.replace(
            "duration = \"10s\"",
            "duration = \"10s\"\nmemory_limit = \"1TB\"",
        ),
        "t",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    sc.memory_limit = Some(limit);
    let mut sim = Simulation::new(sc).unwrap_or_else(|e| panic!("{e}"));
    let end = sim.end_time();
    sim.run_until(end);
    (sim, end)
}

#[test]
fn a_queue_outgrowing_the_limit_stops_the_run_naming_the_link() {
    let (sim, end) = run_under(&flood(1, "links = \"none\"\nflows = \"none\""), 8 << 20);
    let why = sim.failure().expect("the run was stopped").to_string();
    assert!(why.contains("queued packets"), "{why}");
    assert!(why.contains("r->d"), "{why}");
    assert!(sim.now() < end, "stopped before the end");
    let in_use: u64 = sim.memory_in_use().iter().map(|p| p.1).sum();
    assert!(
        in_use > 8 << 20 && in_use < 20 << 20,
        "checked often: {in_use}"
    );
    // collecting what there is does not panic
    let r = sim.finish();
    assert!(r.conservation.created > 0);
}

#[test]
fn a_split_run_stops_both_threads() {
    let (sim, end) = run_under(&flood(2, "links = \"none\"\nflows = \"none\""), 8 << 20);
    let why = sim.failure().expect("the run was stopped");
    assert!(why.contains("memory limit"), "{why}");
    assert!(sim.now() < end);
}

#[test]
fn a_trace_outgrowing_the_limit_names_the_time_series() {
    let text = flood(1, "interval = \"1us\"").replace("1000000000000p", "100p");
    let (sim, _) = run_under(&text, 16 << 20);
    let why = sim.failure().expect("the run was stopped");
    assert!(why.contains("time series"), "{why}");
    assert!(why.contains("trace.max_samples"), "{why}");
}

#[test]
fn a_capture_outgrowing_the_limit_names_the_packet_captures() {
    // 10 Gb/s of 1000-byte packets captured on s->r: 1.25 M records a second.
    let text = flood(1, "interval = \"0s\"\npcap = [\"s->r\"]").replace("1000000000000p", "100p");
    let (sim, end) = run_under(&text, 16 << 20);
    let why = sim.failure().expect("the run was stopped");
    assert!(why.contains("packet captures"), "{why}");
    assert!(why.contains("trace.pcap"), "{why}");
    assert!(sim.now() < end);
    let r = sim.finish();
    assert_eq!(r.pcaps.len(), 1, "what was captured is still written");
}

#[test]
fn runs_under_the_limit_are_not_touched() {
    let text = flood(1, "interval = \"100ms\"")
        .replace("1000000000000p", "100p")
        .replace("rate = \"10Gbps\" }", "rate = \"2Mbps\" }");
    let (sim, end) = run_under(&text, 64 << 20);
    assert!(sim.failure().is_none());
    assert_eq!(sim.now(), end);
}

/// The dequeue-time disciplines keep their queue themselves (not in the link's pipe): it
/// counts toward the limit all the same, so a CoDel, PIE or FQ-CoDel queue that outgrows
/// it (10 Gb/s into 1 Mb/s: each drops far fewer than arrive; PIE none during its 150 ms
/// burst allowance) stops the run naming the link.
#[test]
fn a_dequeue_time_discipline_queue_outgrowing_the_limit_stops_the_run() {
    for kind in ["codel", "pie", "fq_codel"] {
        // (a 1-µs access link: its wire holds little, so the bottleneck's queue dominates)
        let text = flood(1, "links = \"none\"\nflows = \"none\"")
            .replacen("delay = \"20ms\"", "delay = \"1us\"", 1)
            .replace(
                "kind = \"droptail\", limit = \"1000000000000p\"",
                &format!("kind = \"{kind}\", limit = \"1000000000p\""),
            );
        let (sim, end) = run_under(&text, 2 << 20);
        let why = sim.failure().expect("the run was stopped").to_string();
        assert!(why.contains("queued packets"), "{kind}: {why}");
        assert!(why.contains("r->d"), "{kind}: {why}");
        assert!(sim.now() < end, "{kind}: stopped before the end");
    }
}

/// One TCP connection over one duplex link runs inline from end to end (no samples, no
/// other events): its links must still forget the packets that arrived. They forgot them
/// only up to the event that started the inline run, so every packet of the run stayed in
/// the rings (69 MB for ARC's 1 GB transfers; `sim_inline::handle_inline`).
#[test]
fn a_connection_that_runs_inline_throughout_keeps_only_its_packets_in_flight() {
    let text = r#"
        [simulation]
        duration = "300s"
        [trace]
        links = "none"
        flows = "none"
        [[link]]
        between = ["a", "b"]
        rate = "10Mbps"
        delay = "50ms"
        queue = { kind = "droptail", limit = "100p" }
        [[flow]]
        from = "a"
        to = "b"
        transport = "tcp"
        max_window = 60
        app = { kind = "bulk" }
        "#;
    let sc = from_toml_str(text, "t").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc).unwrap_or_else(|e| panic!("{e}"));
    let end = sim.end_time();
    sim.run_until(end);
    let queued = sim.memory_in_use()[0];
    assert_eq!(queued.0, "queued packets");
    // About 250 000 packets crossed the link; a window of 60 needs rings of a few hundred.
    assert!(queued.1 < 256 << 10, "the links hold {} bytes", queued.1);
}
