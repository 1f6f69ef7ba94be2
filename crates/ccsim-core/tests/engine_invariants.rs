//! Engine invariants on every example scenario and on stress topologies:
//! packet conservation, determinism, and the fast link model matching the per-hop one.

mod common;

use ccsim_core::results::RunResult;
use ccsim_core::scenario::*;
use ccsim_core::units::{Bytes, Dur};
use ccsim_core::Simulation;
use common::*;

fn scenarios() -> Vec<(String, Scenario)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths {
        if p.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&p).unwrap();
            let mut sc = from_toml_str(&text, &p.display().to_string()).unwrap();
            // Keep the suite fast: at most 10 simulated seconds each.
            sc.duration = sc.duration.min(Dur::from_secs(10));
            // The invariants below compare whole-run accounts: no measurement window.
            sc.measure = None;
            out.push((p.file_name().unwrap().to_string_lossy().into_owned(), sc));
        }
    }
    assert!(out.len() >= 3, "expected the example scenarios");
    out.push((
        "dumbbell-16".into(),
        dumbbell(16, 1000.0, 100.0, 333, 5.0, RecoverySpec::Sack, 0.5),
    ));
    out.push(("lossy-mix".into(), lossy_mix()));
    out.push(("lossy-dumbbell".into(), lossy_dumbbell()));
    out.push(("byte-queue".into(), byte_queue()));
    out.push(("direct-link".into(), direct_link()));
    out.push(("two-networks".into(), two_networks()));
    out.push(("pinned-diamond".into(), pinned_diamond()));
    out.push(("ecmp-fat-tree".into(), ecmp_fat_tree(4.0, 3)));
    out.push(("jittery-dumbbell".into(), jittery_dumbbell()));
    out.into_iter()
        .map(|(n, sc)| (n, with_captures(sc)))
        .collect()
}

/// `sc` with packet captures of its first link (and the reverse link, seen from the first's
/// sending node) and its last link: every comparison below then covers the captures too.
fn with_captures(mut sc: Scenario) -> Scenario {
    let first = &sc.links[0];
    let back = sc
        .links
        .iter()
        .position(|l| l.from == first.to && l.to == first.from);
    let last = sc.links.len() - 1;
    sc.trace.pcap = vec![PcapSpec {
        name: "first".into(),
        node: first.from,
        out: 0,
        back,
    }];
    if last > 0 {
        sc.trace.pcap.push(PcapSpec {
            name: "last".into(),
            node: sc.links[last].from,
            out: last,
            back: None,
        });
    }
    sc
}

/// Two routes between s and d; flows pinned to either share links with unpinned ones,
/// so chaining must account for pinned paths (a wrong feeder shows up as a Fast/PerHop
/// mismatch).
fn pinned_diamond() -> Scenario {
    let mut net = Net::new(10.0, 5);
    net.duplex("s", "a", 20.0, 2.0, 30);
    net.duplex("a", "d", 10.0, 2.0, 20);
    net.duplex("s", "b", 20.0, 8.0, 30);
    net.duplex("b", "d", 10.0, 8.0, 20);
    net.duplex("a", "b", 10.0, 1.0, 20);
    let short = net.flow("short", "s", "d", tcp(RecoverySpec::Sack));
    let long = net.flow("long", "s", "d", tcp(RecoverySpec::NewReno));
    net.pin(long, &["s", "b", "d"]);
    let cross = net.flow("cross", "s", "d", tcp(RecoverySpec::Sack));
    net.pin(cross, &["s", "a", "b", "d"]);
    let u = net.udp("udp", "a", "d", 2.0, 500, 0.2);
    net.pin(u, &["a", "b", "d"]);
    let _ = short;
    net.trace_all()
}

/// Every loss-recovery variant.
const RECOVERIES: [RecoverySpec; 5] = [
    RecoverySpec::Reno,
    RecoverySpec::NewReno,
    RecoverySpec::Sack,
    RecoverySpec::Sack1,
    RecoverySpec::Fack,
];

/// A dumbbell whose endpoints all run inline (each on its own host), with random loss both
/// ways, RED, every recovery flavour, an on/off source, a finite transfer ending in a short
/// segment, no delayed ACKs on one flow and a window cap on another: timers of every kind
/// fire between the packets an inline endpoint handles.
fn lossy_dumbbell() -> Scenario {
    let mut net = Net::new(12.0, 17);
    let red = QueueSpec::Red(RedSpec {
        limit: 40,
        ..RedSpec::default()
    });
    net.link("r1", "r2", 8.0, 15.0, red, LossSpec::Bernoulli(0.01));
    let q = QueueSpec::DropTail {
        limit: QueueLimit::Packets(40),
    };
    net.link("r2", "r1", 8.0, 15.0, q, LossSpec::Bernoulli(0.005));
    for (i, rec) in RECOVERIES.into_iter().enumerate() {
        let (s, d) = (format!("s{i}"), format!("d{i}"));
        net.duplex(&s, "r1", 100.0, 1.0 + i as f64, 50);
        net.duplex("r2", &d, 100.0, 2.0, 50);
        let mut t = tcp(rec);
        match i {
            0 => {
                t.app = TcpApp::Bulk {
                    size: Some(Bytes(700_001)),
                    start: between(0.0, 0.5),
                }
            }
            1 => {
                t.app = TcpApp::OnOff {
                    on_mean: Dur::from_secs(2),
                    off_mean: Dur::from_secs(1),
                    start: between(0.0, 1.0),
                }
            }
            2 => t.delayed_ack = None,
            3 => t.max_window = Some(12),
            _ => {}
        }
        net.flow(&format!("t{i}"), &s, &d, t);
    }
    net.trace_all()
}

/// `lossy_dumbbell` with a delay jitter on every link (up to 3 ms: larger than a
/// bottleneck packet's 1.5 ms, so the order bound binds) and CoDel in the ACK direction
/// (its dequeue-time model): each model draws the jitter in its link's FIFO order.
fn jittery_dumbbell() -> Scenario {
    let mut sc = lossy_dumbbell();
    for (i, l) in sc.links.iter_mut().enumerate() {
        l.jitter = Dur::from_micros(if i < 2 { 3_000 } else { 200 + 50 * i as u64 });
    }
    sc.links[1].queue = QueueSpec::Codel(CodelSpec::default());
    sc
}

/// Links both ways between hosts `a` and `b`: 5 Mb/s, `delay_ms`, DropTail 20 packets,
/// with the given losses there and back.
fn host_pair(net: &mut Net, a: &str, b: &str, delay_ms: f64, there: LossSpec, back: LossSpec) {
    let q = || QueueSpec::DropTail {
        limit: QueueLimit::Packets(20),
    };
    net.link(a, b, 5.0, delay_ms, q(), there);
    net.link(b, a, 5.0, delay_ms, q(), back);
}

/// Two hosts on one lossy link, no router between them: each inline endpoint's packets
/// reach the other without an event (runs queue behind each other, no recursion).
fn direct_link() -> Scenario {
    let mut net = Net::new(6.0, 23);
    let loss = || LossSpec::Bernoulli(0.01);
    host_pair(&mut net, "a", "b", 4.0, loss(), loss());
    net.flow("direct", "a", "b", tcp(RecoverySpec::Sack));
    net.trace_all()
}

/// Two networks with no link between them (a split puts one in each part, with nothing to
/// exchange).
fn two_networks() -> Scenario {
    let mut net = Net::new(4.0, 29);
    let loss = LossSpec::Bernoulli(0.01);
    host_pair(&mut net, "a", "b", 1.0, loss.clone(), LossSpec::None);
    host_pair(&mut net, "c", "d", 2.0, LossSpec::None, loss);
    net.flow("ab", "a", "b", tcp(RecoverySpec::Sack));
    net.flow("cd", "c", "d", tcp(RecoverySpec::NewReno));
    net.trace_all()
}

/// A bottleneck whose DropTail limit is in bytes, small enough to overflow often.
fn byte_queue() -> Scenario {
    let mut net = Net::new(8.0, 5);
    let q = |b| QueueSpec::DropTail {
        limit: QueueLimit::Bytes(b),
    };
    net.link("r1", "r2", 5.0, 10.0, q(20_000), LossSpec::None);
    net.link("r2", "r1", 5.0, 10.0, q(6_000), LossSpec::None);
    for (i, rec) in RECOVERIES.into_iter().enumerate() {
        let (s, d) = (format!("s{i}"), format!("d{i}"));
        net.duplex(&s, "r1", 100.0, 1.0 + i as f64, 50);
        net.duplex("r2", &d, 100.0, 2.0, 50);
        net.flow(&format!("t{i}"), &s, &d, tcp(rec));
    }
    net.trace_all()
}

/// Random loss both ways, RED, a UDP flow, every recovery flavour and on/off sources.
fn lossy_mix() -> Scenario {
    let mut net = Net::new(20.0, 11);
    net.duplex("a", "r1", 100.0, 2.0, 50);
    net.duplex("b", "r1", 100.0, 3.0, 50);
    let red = QueueSpec::Red(RedSpec {
        limit: 60,
        ..RedSpec::default()
    });
    net.link("r1", "r2", 10.0, 20.0, red, LossSpec::Bernoulli(0.01));
    net.link(
        "r2",
        "r1",
        10.0,
        20.0,
        QueueSpec::DropTail {
            limit: QueueLimit::Bytes(30_000),
        },
        LossSpec::Bernoulli(0.01),
    );
    net.duplex("r2", "c", 100.0, 1.0, 50);
    for (i, rec) in RECOVERIES.into_iter().enumerate() {
        let mut t = tcp(rec);
        if i == 3 {
            t.app = TcpApp::OnOff {
                on_mean: Dur::from_secs(2),
                off_mean: Dur::from_secs(1),
                start: between(0.0, 1.0),
            };
        }
        if i == 2 {
            t.delayed_ack = None;
            t.max_window = Some(16);
        }
        net.flow(&format!("t{i}"), if i % 2 == 0 { "a" } else { "b" }, "c", t);
    }
    net.udp("cbr", "b", "c", 2.0, 500, 0.3);
    // An ARC transfer across the same lossy RED bottleneck.
    let (from, to) = (net.node("a"), net.node("c"));
    let arc = from_toml_str(
        "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"x\", \"y\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
         [[flow]]\nfrom = \"x\"\nto = \"y\"\ntransport = \"arc\"\napp = { kind = \"bulk\", size = \"2MB\" }\n",
        "arc",
    )
    .unwrap()
    .flows
    .remove(0)
    .transport;
    net.sc.flows.push(FlowSpec {
        name: "arc".into(),
        from,
        to,
        transport: arc,
        paths: vec![],
    });
    net.trace_all()
}

fn run(sc: &Scenario) -> RunResult {
    Simulation::new(sc.clone()).unwrap().finish()
}

/// Everything a run reports, as one comparable string (series and packet captures
/// included, bit for bit).
fn fingerprint(r: &RunResult) -> String {
    let mut s = serde_json::to_string(r).unwrap();
    for p in &r.pcaps {
        // FNV-1a of the capture file: any byte differing shows.
        let h = p.bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        s.push_str(&format!(
            "{}:{}:{}:{h:x},",
            p.name,
            p.packets,
            p.bytes.len()
        ));
    }
    for t in [&r.series.flows, &r.series.links] {
        for c in &t.columns {
            for v in c {
                s.push_str(&format!("{:x},", v.to_bits()));
            }
        }
    }
    s
}

/// `fingerprint` without the event count, which differs between link models by design.
fn results_fingerprint(r: &RunResult) -> String {
    let mut r = r.clone();
    r.events = 0;
    fingerprint(&r)
}

#[test]
fn every_packet_is_delivered_dropped_or_in_flight() {
    for (name, sc) in scenarios() {
        let r = run(&sc);
        let c = &r.conservation;
        assert!(c.created > 0, "{name}: nothing sent");
        assert!(c.holds(), "{name}: {c:?}");
        // The per-link drop counts add up to the global ones.
        let link_drops: u64 = r.links.iter().map(|l| l.drops.total()).sum();
        assert_eq!(
            link_drops + c.dropped.0[DropCauseNoRoute::IDX],
            c.dropped.total(),
            "{name}"
        );
        // MPTCP subflow rows break their connection's counts down: not counted twice.
        let flow_drops: u64 = r
            .flows
            .iter()
            .filter(|f| f.transport != "mptcp-subflow")
            .map(|f| f.drops.total())
            .sum();
        assert_eq!(flow_drops, c.dropped.total(), "{name}");
    }
}

struct DropCauseNoRoute;
impl DropCauseNoRoute {
    const IDX: usize = ccsim_core::results::DropCause::NoRoute as usize;
}

#[test]
fn packet_captures_change_nothing_else_and_see_every_packet_the_link_sends() {
    for (name, sc) in scenarios() {
        let with = run(&sc);
        let mut plain = sc.clone();
        plain.trace.pcap.clear();
        let without = run(&plain);
        assert!(without.pcaps.is_empty());
        let mut stripped = with.clone();
        stripped.pcaps.clear();
        assert_eq!(fingerprint(&stripped), fingerprint(&without), "{name}");
        // The last link's capture shows each packet whose transmission started by the end:
        // those counted out, and at most one still being sent.
        let last = with.pcaps.iter().find(|p| p.name == "last");
        if let Some(p) = last {
            let out = with.links.last().unwrap().packets_out;
            assert!(
                p.packets == out || p.packets == out + 1,
                "{name}: {} vs {out}",
                p.packets
            );
        }
    }
}

#[test]
fn same_seed_same_results_byte_for_byte() {
    for (name, sc) in scenarios() {
        assert_eq!(fingerprint(&run(&sc)), fingerprint(&run(&sc)), "{name}");
    }
}

#[test]
fn a_different_seed_changes_random_outcomes() {
    let sc = lossy_mix();
    let mut other = sc.clone();
    other.seed += 1;
    assert_ne!(fingerprint(&run(&sc)), fingerprint(&run(&other)));
}

#[test]
fn fast_link_model_matches_the_per_hop_model_counter_for_counter() {
    // The scenario's own sampling, and an odd interval whose instants fall between and
    // exactly on packet arrivals (what a chained, inline or merge-fed computation has done
    // ahead must not show before its time).
    for (name, sc) in scenarios() {
        if sc.links.iter().any(|l| l.schedule.is_some()) {
            continue; // a time-varying link exists in the fast model only (refused per hop)
        }
        for interval in [sc.trace.interval, Dur(7_654_321)] {
            let mut fast = sc.clone();
            fast.link_model = LinkModel::Fast;
            fast.trace.interval = interval;
            let what = format!("{name}, sampling every {interval}: fast and per-hop models");
            let (a, b) = fast_and_per_hop(&fast, &what);
            // Per-hop processes extra transmission-end events; everything else is identical.
            assert!(b.events > a.events, "{name}");
        }
    }
}

#[test]
fn inline_endpoints_and_merge_points_match_the_per_hop_model_with_and_without_sampling() {
    // Inline endpoints stop at the next sample: with no sampling they run furthest ahead,
    // with an odd short interval they often stop just short of it.
    for (name, sc) in [
        (
            "dumbbell-16",
            dumbbell(16, 1000.0, 100.0, 333, 5.0, RecoverySpec::Sack, 0.5),
        ),
        ("lossy-dumbbell", lossy_dumbbell()),
        ("direct-link", direct_link()),
    ] {
        let sim = Simulation::new(sc.clone()).unwrap();
        assert!(
            sim.inline_endpoints() == 2 * sc.flows.len(),
            "{name}: every endpoint should run inline"
        );
        // Both bottleneck directions are fed ahead (not the direct link: one feeder each).
        let merges = if name == "direct-link" { 0 } else { 2 };
        assert_eq!(sim.merge_points(), merges, "{name}");
        fast_matches_per_hop_with_and_without_sampling(name, &sc);
    }
}

/// Runs `sc` in the fast and the per-hop model, with no sampling (inline endpoints run
/// furthest ahead) and an odd interval, and checks the results are the same. Returns the
/// fast model's results.
fn fast_matches_per_hop_with_and_without_sampling(name: &str, sc: &Scenario) -> Vec<RunResult> {
    let mut out = Vec::new();
    for interval in [Dur(0), Dur(7_654_321)] {
        let mut fast = sc.clone();
        fast.trace.interval = interval;
        out.push(fast_and_per_hop(&fast, &format!("{name}, sampling every {interval}")).0);
    }
    out
}

/// Runs `fast` (the fast link model) and the same scenario per hop, checks packet
/// conservation and that the results are the same, and returns both (fast, per-hop).
fn fast_and_per_hop(fast: &Scenario, what: &str) -> (RunResult, RunResult) {
    let mut slow = fast.clone();
    slow.link_model = LinkModel::PerHop;
    let (a, b) = (run(fast), run(&slow));
    assert!(a.conservation.holds(), "{what}: {:?}", a.conservation);
    assert_eq!(results_fingerprint(&a), results_fingerprint(&b), "{what}");
    (a, b)
}

#[test]
fn running_in_steps_gives_the_same_results_as_one_run() {
    // `run_until` may stop anywhere (the CLI's progress line, the Python API); inline
    // endpoints and merge points must not have run past the stop, nor a split run's parts.
    for threads in [1, 2] {
        let mut sc = lossy_dumbbell();
        sc.threads = threads;
        let whole = run(&sc);
        let mut sim = Simulation::new(sc.clone()).unwrap();
        assert_eq!(sim.is_split(), threads == 2);
        let mut t = 0u64;
        while t < sc.duration.0 {
            t += 123_456_789;
            sim.run_until(ccsim_core::units::SimTime(t));
        }
        let mut stepped = sim.finish();
        stepped.events = whole.events;
        assert_eq!(
            fingerprint(&stepped),
            fingerprint(&whole),
            "{threads} threads"
        );
    }
}

#[test]
fn two_threads_give_the_same_results_as_one() {
    // A split run takes crossing packets over at the end of each window instead of when
    // they were sent; nothing else may change (series included), with and without sampling.
    let mut split = Vec::new();
    for (name, sc) in scenarios() {
        for interval in [sc.trace.interval, Dur(0), Dur(7_654_321)] {
            let mut one = sc.clone();
            one.trace.interval = interval;
            let mut two = one.clone();
            two.threads = 2;
            let sim = Simulation::new(two).unwrap();
            if !sim.is_split() {
                let r = sim.finish();
                assert!(
                    r.warnings.iter().any(|w| w.starts_with("threads = 2")),
                    "{name}"
                );
                continue;
            }
            split.push(name.clone());
            if name == "dumbbell-16" {
                // One bottleneck direction fed ahead in each part.
                assert_eq!(sim.merge_points(), 2, "{name}");
                // The receivers' part also runs the access links towards the senders.
                assert_eq!(sim.links_run_across(), 16, "{name}");
                // Windows as long as the bottleneck and the access link after it, without
                // sampling; the bottleneck's delay with it.
                let windows = if interval.0 == 0 { 15 } else { 10 };
                assert_eq!(sim.lookahead(), Some(Dur::from_millis(windows)), "{name}");
            }
            let (a, b) = (run(&one), sim.finish());
            assert!(b.conservation.holds(), "{name}: {:?}", b.conservation);
            assert_eq!(
                results_fingerprint(&a),
                results_fingerprint(&b),
                "{name}, sampling every {interval}: two threads differ from one"
            );
        }
    }
    for name in [
        "dumbbell-16",
        "lossy-dumbbell",
        "lossy-mix",
        "direct-link",
        "two-networks",
    ] {
        assert!(
            split.iter().any(|s| s == name),
            "{name} should split: {split:?}"
        );
    }
}

#[test]
fn threads_auto_says_what_it_chose_and_changes_nothing_else() {
    // Whatever the machine's load makes it choose, the results are those of one thread
    // but for one warning naming the choice.
    for (name, sc) in scenarios() {
        let mut auto = sc.clone();
        auto.threads = ccsim_core::scenario::THREADS_AUTO;
        let mut b = Simulation::new(auto).unwrap().finish();
        let said: Vec<String> = b
            .warnings
            .iter()
            .filter(|w| w.starts_with("threads = \"auto\": "))
            .cloned()
            .collect();
        assert_eq!(said.len(), 1, "{name}: {:?}", b.warnings);
        b.warnings
            .retain(|w| !w.starts_with("threads = \"auto\": "));
        assert_eq!(
            results_fingerprint(&run(&sc)),
            results_fingerprint(&b),
            "{name} ({})",
            said[0]
        );
    }
}

#[test]
fn adding_a_flow_does_not_change_another_links_losses() {
    // Two disjoint lossy paths; a new flow on path B must leave path A's loss draws alone.
    let build = |extra: bool| {
        let mut net = Net::new(10.0, 5);
        let q = || QueueSpec::DropTail {
            limit: QueueLimit::Packets(100),
        };
        net.link("a", "x", 10.0, 10.0, q(), LossSpec::Bernoulli(0.02));
        net.link("x", "a", 10.0, 10.0, q(), LossSpec::None);
        net.link("b", "y", 10.0, 10.0, q(), LossSpec::Bernoulli(0.02));
        net.link("y", "b", 10.0, 10.0, q(), LossSpec::None);
        net.flow("fa", "a", "x", tcp(RecoverySpec::Sack));
        if extra {
            net.flow("fb", "b", "y", tcp(RecoverySpec::Sack));
        }
        net.trace_all()
    };
    let (one, two) = (run(&build(false)), run(&build(true)));
    assert_eq!(one.flows[0].bytes_delivered, two.flows[0].bytes_delivered);
    assert_eq!(one.links[0].drops, two.links[0].drops);
    assert!(two.links[2].drops.total() > 0);
}

#[test]
fn fast_and_per_hop_agree_at_arbitrary_end_times_with_drops_on_chained_links() {
    // A dumbbell whose egress links (chained behind the bottleneck) are lossy and tiny, so
    // drops and entries are decided ahead of time on chained links; end the run at odd
    // instants so some of them lie past the end.
    let mut base = dumbbell(6, 1000.0, 50.0, 40, 1.0, RecoverySpec::Sack, 0.2);
    for l in base.links.iter_mut() {
        if l.name.starts_with("r2->d") {
            l.loss = LossSpec::Bernoulli(0.05);
            l.queue = QueueSpec::DropTail {
                limit: QueueLimit::Packets(8),
            };
            l.rate = ccsim_core::units::Rate(40_000_000);
        }
    }
    // The egress links are chained behind the bottleneck all the way into the endpoints,
    // which run inline (the event count below checks the chaining's effect).
    let sim = Simulation::new(base.clone()).unwrap();
    assert_eq!(sim.inline_endpoints(), 2 * base.flows.len());
    assert_eq!(sim.merge_points(), 2);
    for end_ns in [
        3_141_592_653u64,
        3_718_281_828,
        4_000_000_001,
        4_442_135_623,
        5_099_019_513,
        5_830_951_894,
    ] {
        let mut fast = base.clone();
        fast.duration = Dur(end_ns);
        let (a, b) = fast_and_per_hop(&fast, &format!("end {end_ns} ns"));
        // Chaining removes the router events behind the bottleneck: the fast model needs
        // well under the per-hop model's events (which has two per hop).
        assert!(
            (a.events as f64) < 0.4 * b.events as f64,
            "{} vs {}",
            a.events,
            b.events
        );
        let egress_drops: u64 = a
            .links
            .iter()
            .filter(|l| l.name.starts_with("r2->d"))
            .map(|l| l.drops.total())
            .sum();
        assert!(egress_drops > 0);
    }
}

#[test]
fn jitter_moves_arrivals_and_loses_nothing() {
    let (plain, jittery) = (run(&lossy_dumbbell()), run(&jittery_dumbbell()));
    assert!(jittery.conservation.holds(), "{:?}", jittery.conservation);
    assert_ne!(results_fingerprint(&plain), results_fingerprint(&jittery));
    // The flows' smallest RTT grows by at least the access links' mean extra delay.
    let min_rtt = |r: &RunResult| r.flows.iter().map(|f| f.rtt_min_s).fold(f64::MAX, f64::min);
    assert!(
        min_rtt(&jittery) > min_rtt(&plain),
        "jitter did not delay anything"
    );
}

#[test]
fn the_byte_queue_overflows() {
    // The byte-limited queues must actually refuse packets, or the model comparisons above
    // would not test byte limits.
    let r = run(&byte_queue());
    let overflow = r.links[0].drops.0[ccsim_core::results::DropCause::QueueOverflow as usize];
    assert!(overflow > 20, "only {overflow} overflow drops");
}

/// MATCP's network in small: six sources on two edges, each flow with three labelled paths
/// (one per bottleneck, RED on each) to one shared destination, on/off connections, every
/// selector. A source leaves and is reached through its own access link whatever path a
/// connection takes, so it runs inline; the destination's links are shared, so it does not.
fn matcp_paths() -> Scenario {
    let mut text = String::from(
        r#"
        [simulation]
        duration = "20s"
        seed = 5
        [trace]
        interval = "0s"
        "#,
    );
    for p in 1..=3 {
        let delay = 10 + 5 * p;
        text += &format!(
            r#"
            [[link]]
            from = "h{p}"
            to = "t{p}"
            rate = "4Mbps"
            delay = "{delay}ms"
            queue = {{ kind = "red", limit = "40p", min_th = 8, max_th = 20, max_p = 0.1, gentle = true }}
            [[link]]
            from = "t{p}"
            to = "h{p}"
            rate = "4Mbps"
            delay = "{delay}ms"
            [[link]]
            between = ["t{p}", "k"]
            rate = "100Mbps"
            delay = "1ms"
            "#
        );
        for e in 1..=2 {
            text += &format!(
                "[[link]]\nbetween = [\"e{e}\", \"h{p}\"]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n"
            );
        }
    }
    let kinds = ["drop", "rttvar", "rtt", "wrtt", "drop", "wrtt"];
    for (i, kind) in kinds.iter().enumerate() {
        let e = 1 + i % 2;
        text += &format!(
            r#"
            [[link]]
            between = ["s{i}", "e{e}"]
            rate = "100Mbps"
            delay = "{d}ms"
            [[flow]]
            from = "s{i}"
            to = "k"
            transport = "tcp"
            recovery = "sack1"
            max_window = 16
            delayed_ack = {dack}
            paths = [["s{i}", "e{e}", "h1", "t1", "k"], ["s{i}", "e{e}", "h2", "t2", "k"], ["s{i}", "e{e}", "h3", "t3", "k"]]
            select = {{ kind = "{kind}", refresh = 2 }}
            app = {{ kind = "onoff", on = "1500ms", off = "700ms", start = ["0s", "{i}00ms"] }}
            "#,
            d = 1 + i,
            dack = i % 3 != 0,
        );
    }
    from_toml_str(&text, "matcp-paths").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn matcp_sources_run_inline_and_match_the_per_hop_model() {
    let sc = matcp_paths();
    let sim = Simulation::new(sc.clone()).unwrap();
    assert_eq!(
        sim.inline_endpoints(),
        sc.flows.len(),
        "every source, no destination"
    );
    for a in fast_matches_per_hop_with_and_without_sampling("matcp-paths", &sc) {
        // The connections came and went, on more than one path, and the queues dropped.
        assert!(a.flows.iter().all(|f| f.connections > 2), "{:?}", a.flows);
        assert!(a
            .flows
            .iter()
            .all(|f| f.paths.iter().filter(|p| p.bytes_delivered > 0).count() > 1));
        assert!(a.flows.iter().map(|f| f.retransmissions).sum::<u64>() > 0);
    }
}
