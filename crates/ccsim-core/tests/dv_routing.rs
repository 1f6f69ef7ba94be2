//! Multipath distance-vector routing with FAST sources (Mallada & Paganini 2007): the paper's
//! equilibrium, recursion (1), loop freedom, link failure and the link-model equivalence.

use ccsim_core::ids::EndpointId;
use ccsim_core::net::dv::table::DestTable;
use ccsim_core::results::DropCause;
use ccsim_core::rng::SimRng;
use ccsim_core::scenario::{from_toml_str, LinkModel, Scenario};
use ccsim_core::transport::Endpoint;
use ccsim_core::units::{Dur, SimTime};
use ccsim_core::{RunResult, Simulation};

const PAPER: &str = include_str!("../../../scenarios/fast_multipath_rip.toml");

fn paper(duration: &str, extra: &str) -> Scenario {
    let text = PAPER.replace("duration = \"100s\"", &format!("duration = \"{duration}\"")) + extra;
    from_toml_str(&text, "fast_multipath_rip.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// The paper run with every router ticking at multiples of Δr and Δa (no timer jitter).
fn paper_synchronised(duration: &str) -> Scenario {
    let text = PAPER
        .replace("duration = \"100s\"", &format!("duration = \"{duration}\""))
        .replace("first_update = \"500ms\"", "first_update = \"0s\"")
        .replace("period_jitter = 0.1", "period_jitter = 0.0");
    assert_ne!(text, PAPER);
    from_toml_str(&text, "fast_multipath_rip.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// Mean of a routes-series column over rows matching (node, dest, next hop) in [t0, t1].
fn mean_alpha(r: &RunResult, node: f64, dest: f64, hop: f64, t0: f64, t1: f64) -> f64 {
    let c = &r.series.routes.columns;
    let v: Vec<f64> = (0..r.series.routes.len())
        .filter(|&i| c[1][i] == node && c[2][i] == dest && c[3][i] == hop)
        .filter(|&i| c[0][i] >= t0 && c[0][i] <= t1)
        .map(|i| c[4][i])
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Mean goodput of flow `f` in packets of 1000 bytes per second over (t0, t1].
fn mean_rate_pps(r: &RunResult, f: f64, t0: f64, t1: f64) -> f64 {
    let c = &r.series.flows.columns;
    let v: Vec<f64> = (0..r.series.flows.len())
        .filter(|&i| c[1][i] == f && c[0][i] > t0 && c[0][i] <= t1)
        .map(|i| c[5][i] / 8000.0)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn paper_equilibrium_split_and_rates() {
    // Node indices: "1" = 0, "2" = 1, "3" = 2, "4" = 3.
    let r = Simulation::new(paper("100s", "")).unwrap().finish();
    assert!(r.conservation.holds());
    // Lossless once routes are learned: the only drops are the first SYNs, sent before any
    // router knew node 4 (each source resends its SYN after the initial RTO).
    let d = &r.conservation.dropped;
    assert_eq!(
        d.total(),
        d.0[DropCause::NoRoute as usize],
        "the paper's design is lossless"
    );
    assert!(d.total() <= 2, "{d:?}");
    let top = mean_alpha(&r, 0.0, 3.0, 1.0, 70.0, 100.0);
    assert!(
        (top - 0.2).abs() <= 0.03,
        "split at node 1 on the top path {top}"
    );
    assert!(
        mean_alpha(&r, 1.0, 3.0, 3.0, 70.0, 100.0) > 0.99,
        "node 2 uses (2,4)"
    );
    // Rates near the optimum (c1 + c2)/2 = 3756 packets/s each: within 5 % with ccsim's
    // per-round FAST law, within 10 % with the ns-2 module's timed, paced update (the
    // scenario's; source 1 oscillates more, docs/routing.md).
    for f in [0.0, 1.0] {
        let x = mean_rate_pps(&r, f, 70.0, 100.0);
        assert!(
            (x - 3756.0).abs() <= 0.1 * 3756.0,
            "flow {f}: {x} packets/s"
        );
    }
    let dv = r.routing.as_ref().unwrap();
    assert!(dv.announcements_received > 0 && dv.announcements_received <= dv.announcements_sent);
}

#[test]
fn node_prices_satisfy_recursion_one() {
    let mut sim = Simulation::new(paper("100s", "")).unwrap();
    let (mut worst_stale, mut sum_stale, mut n_stale): (f64, f64, f64) = (0.0, 0.0, 0.0);
    let mut t = SimTime::ZERO;
    while t < sim.end_time() {
        t += Dur::from_millis(250);
        sim.run_until(t);
        let dv = sim.routing().unwrap();
        for i in 0..3 {
            // Routes are learned: a router may not know node 4 in the first instants.
            let Some(tb) = dv.table(i, 3) else {
                assert!(t.secs() < 1.0, "node {i} has no route to 4 at {t}");
                continue;
            };
            let tb: &DestTable = tb;
            // In the table: q_i = Σ α_ij (p_ij + q_j as announced), exactly.
            let own: f64 = tb
                .rows
                .iter()
                .filter(|r| r.alpha > 0.0)
                .map(|r| r.alpha * r.metric())
                .sum();
            assert!(
                (tb.q - own).abs() < 1e-12,
                "t {t}: node {i}: {} vs {own}",
                tb.q
            );
            // Against the neighbours' current prices: equal up to announcement delay.
            if t.secs() > 60.0 {
                let now: f64 = tb
                    .rows
                    .iter()
                    .filter(|r| r.alpha > 0.0)
                    .map(|r| r.alpha * (r.price + dv.price(r.nbr, 3).unwrap()))
                    .sum();
                worst_stale = worst_stale.max((tb.q - now).abs());
                sum_stale += (tb.q - now).abs();
                n_stale += 1.0;
            }
        }
    }
    // Against current neighbour prices the table lags by up to Δr (±10 % with ns-2's timer
    // jitter) plus a propagation delay; the (3,4) queue swings by 100-150 ms within a few
    // seconds, so single gaps reach a good part of one swing, but on average the recursion
    // holds to a few ms (docs/routing.md, measured).
    let mean = sum_stale / n_stale;
    eprintln!("recursion (1) against current prices: mean gap {mean:.5} s, max {worst_stale:.5} s");
    assert!(
        mean < 0.01 && worst_stale < 0.15,
        "mean {mean}, max {worst_stale}"
    );
}

/// Whether the next hops in use towards `d` form a loop, checked every 100 ms.
fn run_counting_loops(sc: Scenario, d: usize) -> (u64, RunResult) {
    let mut sim = Simulation::new(sc).unwrap();
    let mut loops = 0;
    let mut t = SimTime::ZERO;
    while t < sim.end_time() {
        t += Dur::from_millis(100);
        sim.run_until(t);
        loops += sim.routing().unwrap().has_loop(d) as u64;
    }
    (loops, sim.finish())
}

#[test]
fn no_loop_on_the_paper_topology() {
    // The paper's rules: no loop towards the data destination.
    let (loops, r) = run_counting_loops(paper("100s", ""), 3);
    assert_eq!(loops, 0);
    assert!(r.conservation.holds());
    // With RIP's full poison reverse none towards any destination (the paper's rules let
    // tiny loops, α ~ 1e-4, form for a few seconds on the idle ACK paths, where every price
    // is near zero and announcements are stale; docs/routing.md).
    let text = PAPER.replace(
        "beta = 0.5\n",
        "beta = 0.5\npoison_reverse = \"any-traffic\"\n",
    );
    let sc2 = from_toml_str(&text, "paper").unwrap();
    assert!(sc2.dv.as_ref().unwrap().poison_any);
    for d in 0..4 {
        let (loops, _) = run_counting_loops(sc2.clone(), d);
        assert_eq!(loops, 0, "destination {d}");
    }
}

#[test]
fn synchronised_routers_keep_a_loop_that_jittered_timers_avoid() {
    // Learned routes and the paper's poison reverse (issue #27): when every router ticks at
    // the same instants and data flows as soon as routes exist (sources at 1 s), nodes 1
    // and 2 route to node 4 through each other for most of the run; with ns-2's jittered DV
    // timers (the scenario's default) they do not.
    let late = |sc: &str| sc.replace("start = \"0s\"", "start = \"1s\"");
    let sync = PAPER
        .replace("duration = \"100s\"", "duration = \"60s\"")
        .replace("first_update = \"500ms\"", "first_update = \"0s\"")
        .replace("period_jitter = 0.1", "period_jitter = 0.0");
    let (loops, _) = run_counting_loops(from_toml_str(&late(&sync), "sync").unwrap(), 3);
    assert!(loops > 300, "synchronised: loop in {loops} of 600 samples");
    let jittered = PAPER.replace("duration = \"100s\"", "duration = \"60s\"");
    let (loops, _) = run_counting_loops(from_toml_str(&late(&jittered), "ns2").unwrap(), 3);
    assert!(loops < 60, "jittered: loop in {loops} of 600 samples");
}

/// A random connected topology with a random loop-free initial table towards node 0 (every
/// node splits its traffic at random among neighbours of lower rank), and two FAST sources
/// to node 0.
fn random_topology(seed: u64) -> String {
    let mut rng = SimRng::stream(seed, "test:topology");
    let n = 6 + rng.range_inclusive(0, 2) as usize;
    let mut edges = std::collections::BTreeSet::new();
    for i in 1..n {
        edges.insert((rng.range_inclusive(0, i as u64 - 1) as usize, i));
    }
    while edges.len() < n + 2 {
        let a = rng.range_inclusive(0, n as u64 - 1) as usize;
        let b = rng.range_inclusive(0, n as u64 - 1) as usize;
        if a != b {
            edges.insert((a.min(b), a.max(b)));
        }
    }
    // Ranks: hop distance from the destination (node 0) plus a random fraction, so every
    // node has a lower-ranked neighbour (no dead end) and the table below is loop-free.
    let mut hops = vec![usize::MAX; n];
    hops[0] = 0;
    for _ in 0..n {
        for &(a, b) in &edges {
            hops[a] = hops[a].min(hops[b].saturating_add(1));
            hops[b] = hops[b].min(hops[a].saturating_add(1));
        }
    }
    let rank: Vec<u64> = (0..n)
        .map(|i| hops[i] as u64 * 1000 + rng.next_u64() % 1000)
        .collect();
    let mut s = "[simulation]\nduration = \"40s\"\nseed = 1\n".to_string();
    for &(a, b) in &edges {
        let mbps = 10 + rng.range_inclusive(0, 30);
        let ms = 5 + rng.range_inclusive(0, 15);
        s += &format!(
            "[[link]]\nbetween = [\"n{a}\", \"n{b}\"]\nrate = \"{mbps}Mbps\"\ndelay = \"{ms}ms\"\n\
             queue = {{ kind = \"droptail\", limit = \"4000p\" }}\n"
        );
    }
    for (k, src) in [n - 1, n - 2].iter().enumerate() {
        s += &format!(
            "[[flow]]\nname = \"f{k}\"\nfrom = \"n{src}\"\nto = \"n0\"\ntransport = \"tcp\"\nmss = 1000\n\
             header = 40\nrecovery = \"reno\"\ndupthresh = 1000000\ndelayed_ack = false\n\
             cc = {{ kind = \"fast\", alpha = 100, avg_window_factor = 4, base_filter = 3000 }}\n\
             app = {{ kind = \"bulk\", start = \"1s\" }}\n"
        );
    }
    s += "[routing]\nkind = \"distance-vector\"\npoison_reverse = \"any-traffic\"\ninitial = [\n";
    for i in 1..n {
        let lower: Vec<usize> = edges
            .iter()
            .filter_map(|&(a, b)| {
                if a == i && rank[b] < rank[i] {
                    Some(b)
                } else if b == i && rank[a] < rank[i] {
                    Some(a)
                } else {
                    None
                }
            })
            .collect();
        let higher: Vec<usize> = edges
            .iter()
            .filter_map(|&(a, b)| {
                if a == i {
                    Some(b)
                } else if b == i {
                    Some(a)
                } else {
                    None
                }
            })
            .filter(|j| !lower.contains(j))
            .collect();
        let w: Vec<f64> = lower
            .iter()
            .map(|_| 1.0 + (rng.next_u64() % 100) as f64)
            .collect();
        let sum: f64 = w.iter().sum();
        let mut split: Vec<String> = lower
            .iter()
            .zip(&w)
            .map(|(j, x)| format!("\"n{j}\" = {}", x / sum))
            .collect();
        split.extend(higher.iter().map(|j| format!("\"n{j}\" = 0.0")));
        s += &format!(
            "  {{ node = \"n{i}\", dest = \"n0\", split = {{ {} }} }},\n",
            split.join(", ")
        );
    }
    s + "]\n"
}

#[test]
fn no_loop_towards_the_destination_on_random_topologies() {
    for seed in 1..=4 {
        let text = random_topology(seed);
        let sc = from_toml_str(&text, "random").unwrap_or_else(|e| panic!("{e}\n{text}"));
        let (loops, r) = run_counting_loops(sc, 0);
        assert_eq!(loops, 0, "seed {seed}:\n{text}");
        assert!(r.conservation.holds());
        assert!(
            r.flows.iter().all(|f| f.bytes_delivered > 0),
            "seed {seed}: {:?}\n{text}",
            r.flows
        );
    }
}

#[test]
fn link_failure_reroutes_and_traffic_resumes() {
    let events = "\n[[event]]\nat = \"40s\"\nbetween = [\"3\", \"4\"]\naction = \"down\"\n\
                  [[event]]\nat = \"60s\"\nbetween = [\"3\", \"4\"]\naction = \"up\"\n";
    let r = Simulation::new(paper("100s", events)).unwrap().finish();
    assert!(r.conservation.holds());
    assert!(
        r.conservation.dropped.0[5] > 0,
        "packets on the failed link are lost"
    );
    // Node 1 stops using the bottom path at once, node 3 routes via node 1.
    assert!(mean_alpha(&r, 0.0, 3.0, 2.0, 41.0, 60.0) < 1e-9);
    assert!(mean_alpha(&r, 2.0, 3.0, 0.0, 41.0, 60.0) > 0.999);
    // Traffic resumes: both sources share (2,4) (4507 packets/s) while (3,4) is down.
    let during = mean_rate_pps(&r, 0.0, 50.0, 60.0) + mean_rate_pps(&r, 1.0, 50.0, 60.0);
    assert!((during - 4507.0).abs() < 0.1 * 4507.0, "{during}");
    // Source 1 lost the packets on (3,4) and timed out; its window law runs at round ends,
    // and the post-timeout round lasts until the go-back-N retransmission is acknowledged,
    // so it resumes late (docs/routing.md) — but it does resume.
    assert!(mean_rate_pps(&r, 0.0, 85.0, 100.0) > 1000.0);
    // After recovery node 3 moves back to (3,4), gradually (price-driven), then node 1
    // starts using the bottom path again.
    assert!(mean_alpha(&r, 2.0, 3.0, 3.0, 95.0, 100.0) > 0.99);
    assert!(mean_alpha(&r, 0.0, 3.0, 2.0, 99.0, 100.0) > 0.0);
}

#[test]
fn fast_and_per_hop_link_models_agree_with_adaptive_routing() {
    let run = |m: LinkModel| {
        let mut sc = paper(
            "20s",
            "\n[[event]]\nat = \"12s\"\nlink = \"2->4\"\naction = \"down\"\n",
        );
        sc.link_model = m;
        Simulation::new(sc).unwrap().finish()
    };
    let (a, b) = (run(LinkModel::Fast), run(LinkModel::PerHop));
    for (x, y) in a.flows.iter().zip(&b.flows) {
        assert_eq!(x.bytes_delivered, y.bytes_delivered);
        assert_eq!(x.drops, y.drops);
    }
    for (x, y) in a.links.iter().zip(&b.links) {
        assert_eq!(
            (x.packets_in, x.packets_out, x.drops),
            (y.packets_in, y.packets_out, y.drops),
            "{}",
            x.name
        );
    }
    assert_eq!(a.series.routes.columns, b.series.routes.columns);
}

#[test]
fn sources_receive_their_node_price() {
    // Without timer jitter every router ticks at 30 s, so the price pushed then is the table's.
    let mut sim = Simulation::new(paper_synchronised("30s")).unwrap();
    sim.run_until(SimTime::ZERO + Dur::from_secs(30));
    let q = sim.routing().unwrap().price(0, 3).unwrap();
    let Endpoint::TcpSender(tx) = sim.endpoint(EndpointId(0)) else {
        panic!("flow 0 is TCP")
    };
    let ccsim_core::cc::AnyCc::Fast(f) = tx.cc() else {
        panic!("FAST")
    };
    // Pushed at the last tick (30 s) from the same table.
    assert!(
        (f.price() - q).abs() < 1e-12 && q > 0.0,
        "{} vs {q}",
        f.price()
    );
}
