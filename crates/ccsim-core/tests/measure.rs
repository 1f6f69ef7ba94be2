//! The `[measure]` window: every summary over it, nothing else changed.

use ccsim_core::scenario::{from_toml_str, TransportSpec};
use ccsim_core::{RunResult, Simulation};

fn dumbbell(extra: &str, duration: &str) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/dumbbell.toml"
    ))
    .unwrap();
    let text = text.replace("duration = \"30s\"", &format!("duration = \"{duration}\""));
    format!("{extra}\n{text}")
}

fn run(toml: &str) -> RunResult {
    let sc = from_toml_str(toml, "measure-test").unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(sc).unwrap().finish()
}

#[test]
fn goodputs_over_a_window_sum_to_at_most_the_payload_ceiling() {
    let toml = dumbbell("[measure]\nfrom = \"10s\"", "30s");
    let sc = from_toml_str(&toml, "t").unwrap();
    let TransportSpec::Tcp(t) = &sc.flows[0].transport else {
        panic!("tcp")
    };
    // Every flow shares the 100 Mb/s bottleneck; of each packet's bytes, mss are payload.
    let ceiling = 100e6 * t.mss as f64 / (t.mss + t.header) as f64;
    let r = run(&toml);
    let w = r.measure.expect("a window");
    assert_eq!((w.from_s, w.until_s), (10.0, 30.0));
    let sum: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    eprintln!("sum of goodputs over [10 s, 30 s]: {sum:.0} b/s, ceiling {ceiling:.0}");
    // Delivery is counted at the receivers: bytes in flight or held out of order when the
    // window opens (about one BDP: 100 Mb/s × 40 ms) may add to the window's bytes.
    let allowance = 100e6 * 0.040 / 20.0;
    assert!(
        sum <= ceiling + allowance,
        "{sum} > {ceiling} + {allowance}"
    );
    assert!(sum >= 0.9 * ceiling, "the bottleneck is not filled: {sum}");
    let bottleneck = &r.links[0];
    assert_eq!(bottleneck.name, "r1->r2");
    assert!(bottleneck.utilisation <= 1.0 && bottleneck.utilisation > 0.9);
    // Goodput is the window's bytes over its length.
    for f in &r.flows {
        let g = f.bytes_delivered as f64 * 8.0 / 20.0;
        assert!((f.goodput_bps - g).abs() < 1e-6 * g.max(1.0));
    }
}

#[test]
fn window_counters_are_the_difference_of_the_whole_run_and_the_run_before_it() {
    // The account when the window opens holds every event before `from`: a run that ends
    // one nanosecond before it.
    let windowed = run(&dumbbell("[measure]\nfrom = \"10s\"", "20s"));
    let whole = run(&dumbbell("", "20s"));
    let before = run(&dumbbell("", "9999999999ns"));
    for i in 0..whole.flows.len() {
        let (w, a, b) = (&windowed.flows[i], &whole.flows[i], &before.flows[i]);
        assert_eq!(w.bytes_delivered, a.bytes_delivered - b.bytes_delivered);
        assert_eq!(
            w.data_packets_sent,
            a.data_packets_sent - b.data_packets_sent
        );
        assert_eq!(w.retransmissions, a.retransmissions - b.retransmissions);
        assert_eq!(w.drops.total(), a.drops.total() - b.drops.total());
        assert_eq!(w.start_s, a.start_s);
        // RTT statistics of the window's samples only: within the whole run's range.
        assert!(w.rtt_min_s >= a.rtt_min_s && w.rtt_max_s <= a.rtt_max_s);
    }
    for i in 0..whole.links.len() {
        let (w, a, b) = (&windowed.links[i], &whole.links[i], &before.links[i]);
        assert_eq!(w.bytes_out, a.bytes_out - b.bytes_out, "{}", a.name);
        assert_eq!(w.packets_in, a.packets_in - b.packets_in, "{}", a.name);
        assert_eq!(w.drops.total(), a.drops.total() - b.drops.total());
    }
    // Stopping at the window's edges changes nothing else.
    assert_eq!(windowed.events, whole.events);
    assert_eq!(
        serde_json::to_string(&windowed.conservation).unwrap(),
        serde_json::to_string(&whole.conservation).unwrap()
    );
}

#[test]
fn a_window_closing_before_the_end_and_both_link_models_agree() {
    let fast = run(&dumbbell(
        "[measure]\nfrom = \"5s\"\nuntil = \"15s\"",
        "20s",
    ));
    let per_hop = run(
        &dumbbell("[measure]\nfrom = \"5s\"\nuntil = \"15s\"", "20s")
            .replace("seed = 1", "seed = 1\nlink_model = \"per_hop\""),
    );
    assert_eq!(
        serde_json::to_string(&fast.flows).unwrap(),
        serde_json::to_string(&per_hop.flows).unwrap()
    );
    assert_eq!(
        serde_json::to_string(&fast.links).unwrap(),
        serde_json::to_string(&per_hop.links).unwrap()
    );
    // [5 s, 15 s) is the difference of runs ending just before each edge.
    let a = run(&dumbbell("", "14999999999ns"));
    let b = run(&dumbbell("", "4999999999ns"));
    for i in 0..a.flows.len() {
        assert_eq!(
            fast.flows[i].bytes_delivered,
            a.flows[i].bytes_delivered - b.flows[i].bytes_delivered
        );
    }
}

#[test]
fn a_run_without_measure_has_no_window_in_its_summary() {
    let r = run(&dumbbell("", "2s"));
    assert!(r.measure.is_none());
    assert!(!serde_json::to_string(&r).unwrap().contains("measure"));
}

#[test]
fn two_threads_measure_on_one_with_a_warning() {
    let toml =
        dumbbell("[measure]\nfrom = \"1s\"", "3s").replace("seed = 1", "seed = 1\nthreads = 2");
    let r = run(&toml);
    let one = run(&dumbbell("[measure]\nfrom = \"1s\"", "3s"));
    assert!(
        r.warnings.iter().any(|w| w.contains("[measure]")),
        "{:?}",
        r.warnings
    );
    assert_eq!(
        serde_json::to_string(&r.flows).unwrap(),
        serde_json::to_string(&one.flows).unwrap()
    );
}

#[test]
fn bad_windows_are_located() {
    let e = from_toml_str(
        &dumbbell("[measure]\nfrom = \"10s\"\nuntil = \"40s\"", "30s"),
        "t",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("measure.until") && e.contains("after the end"),
        "{e}"
    );
    let e = from_toml_str(&dumbbell("[measure]\nfrom = \"30s\"", "30s"), "t")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("measure.from") && e.contains("not before"),
        "{e}"
    );
    let e = from_toml_str(&dumbbell("[measure]\nstart = \"3s\"", "30s"), "t")
        .unwrap_err()
        .to_string();
    assert!(e.contains("measure.start"), "{e}");
}

fn transfer(init_cwnd: &str, size: &str) -> String {
    format!(
        r#"
[simulation]
duration = "5s"
[[link]]
between = ["s", "r"]
rate = "1Gbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[[link]]
between = ["r", "d"]
rate = "10Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[[link]]
between = ["d", "e"]
rate = "100Mbps"
delay = "2ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[[flow]]
name = "f"
from = "s"
to = "e"
{init_cwnd}
app = {{ kind = "bulk", size = "{size}", start = "0.5s" }}
"#
    )
}

#[test]
fn a_transfer_never_window_limited_completes_in_exactly_the_ideal_time() {
    // 100 full segments and a short one: an initial window above them sends all at once.
    let r = run(&transfer("init_cwnd = 200", "147000B"));
    let f = &r.flows[0];
    assert_eq!(f.size_bytes, Some(147_000));
    assert_eq!(f.start_s, 0.5);
    let fct = f.fct_s.expect("completed");
    assert!((f.completion_time_s.unwrap() - 0.5 - fct).abs() < 1e-12);
    // By hand: 13 ms of propagation; 100 × 1500 B + 1040 B at 10 Mb/s; 1500 B at 1 Gb/s
    // before the bottleneck, 1040 B at 100 Mb/s after it.
    let ideal =
        0.013 + (100.0 * 1500.0 + 1040.0) * 8.0 / 10e6 + 1500.0 * 8.0 / 1e9 + 1040.0 * 8.0 / 100e6;
    assert!(
        (f.ideal_fct_s.unwrap() - ideal).abs() < 1e-9,
        "{:?} vs {ideal}",
        f.ideal_fct_s
    );
    assert_eq!(fct, f.ideal_fct_s.unwrap());
    assert_eq!(f.slowdown, Some(1.0));
}

#[test]
fn slow_start_makes_a_short_transfer_slower_than_ideal() {
    let r = run(&transfer("", "147000B"));
    let s = r.flows[0].slowdown.expect("a slowdown");
    eprintln!("slowdown with the default initial window: {s:.3}");
    assert!(s > 1.5, "{s}");
    // A greedy flow has neither size nor FCT, and its summary no such keys.
    let r = run(&transfer("", "inf"));
    assert!(r.flows[0].fct_s.is_none() && r.flows[0].size_bytes.is_none());
    assert!(!serde_json::to_string(&r.flows).unwrap().contains("fct"));
}

#[test]
fn queueing_delay_and_rtt_percentiles_are_kept_when_measuring() {
    // Five transfers through a 10 Mb/s bottleneck, all done well before the end, so every
    // accepted packet has started transmission in both link models.
    let mut toml = transfer("", "300000B").replace("duration = \"5s\"", "duration = \"20s\"");
    for i in 1..5 {
        toml.push_str(&format!(
            "[[flow]]\nname = \"g{i}\"\nfrom = \"s\"\nto = \"e\"\napp = {{ kind = \"bulk\", size = \"300000B\", start = \"{}s\" }}\n",
            0.5 + 0.01 * i as f64
        ));
    }
    let measured = format!("[measure]\n{toml}");
    let fast = run(&measured);
    let per_hop = run(&measured.replace(
        "duration = \"20s\"",
        "duration = \"20s\"\nlink_model = \"per_hop\"",
    ));
    let plain = run(&toml);
    // Off without [measure]; with it, both models agree to the byte.
    assert!(plain.links.iter().all(|l| l.queue_delay.is_none()));
    assert!(plain.flows.iter().all(|f| f.rtt_p50_s.is_none()));
    assert_eq!(
        serde_json::to_string(&fast.links).unwrap(),
        serde_json::to_string(&per_hop.links).unwrap()
    );
    assert_eq!(
        serde_json::to_string(&fast.flows).unwrap(),
        serde_json::to_string(&per_hop.flows).unwrap()
    );
    let q = fast.links[2].queue_delay.as_ref().expect("r->d measured");
    assert_eq!(fast.links[2].name, "r->d");
    // Every accepted packet is counted; the queue builds behind the 10 Mb/s link.
    assert_eq!(
        q.packets,
        fast.links[2].packets_in - fast.links[2].drops.total()
    );
    assert!(q.max_s > 0.01 && q.p50_s <= q.p95_s && q.p95_s <= q.p99_s && q.p99_s <= q.max_s);
    // A 1000-packet buffer at 10 Mb/s holds at most 1.2 s.
    assert!(q.max_s <= 1000.0 * 1500.0 * 8.0 / 10e6);
    // RTT percentiles lie within the exact min and max.
    for f in &fast.flows {
        let (p50, p99) = (f.rtt_p50_s.unwrap(), f.rtt_p99_s.unwrap());
        assert!(f.rtt_min_s * (1.0 - 1.0 / 64.0) <= p50 && p50 <= p99 && p99 <= f.rtt_max_s);
    }
    // The run is otherwise the same as without [measure].
    assert_eq!(fast.events, plain.events);
    for (a, b) in fast.flows.iter().zip(&plain.flows) {
        assert_eq!((a.bytes_delivered, a.fct_s), (b.bytes_delivered, b.fct_s));
    }
}
