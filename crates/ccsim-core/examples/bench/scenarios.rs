//! The benchmark's scenarios, as documents (what a parsed TOML file gives): the two
//! foundation dumbbells, and the scaling suite (dumbbells of 16 … 4 096 flows, parking lots
//! of 2 … 16 hops with cross traffic, a k = 16 fat-tree with a permutation matrix, a chain
//! of 100 000 links, a queue that fills). Shared by `examples/bench.rs` and the golden-result
//! test (`tests/golden_results.rs`), so both run exactly these definitions.
#![allow(dead_code)]

use ccsim_core::scenario::builders::{dumbbell, DumbbellParams};
use serde_json::{json, Value};

/// The foundation benchmark's names.
pub const FOUNDATION: [&str; 2] = ["dumbbell-16", "dumbbell-64-1g"];

/// The foundation benchmark's runs: the foundation dumbbells, then each with every flow on
/// BBR (issue #20's packets-per-second figure for a rate-based controller; not in the speed
/// bar of `benches/ab.sh`), and `dctcp-16`: dumbbell-16's network with DCTCP flows and a step
/// marker at K = 60 packets on the bottleneck (C·RTT = 333 packets; K > C·RTT/7).
pub const FOUNDATION_BENCH: [&str; 5] = [
    "dumbbell-16",
    "dumbbell-64-1g",
    "dumbbell-16-bbr",
    "dumbbell-64-1g-bbr",
    "dctcp-16",
];

/// Flows of the scaled dumbbells.
pub const DUMBBELL_FLOWS: [u32; 5] = [16, 64, 256, 1024, 4096];
/// Hops of the parking lots.
pub const PARKING_HOPS: [u32; 4] = [2, 4, 8, 16];

/// Every scenario of the scaling suite, in the order the benchmark runs them.
pub fn scaling_names() -> Vec<String> {
    let mut v: Vec<String> = DUMBBELL_FLOWS
        .iter()
        .map(|n| format!("dumbbell-scaled-{n}"))
        .collect();
    v.extend(PARKING_HOPS.iter().map(|k| format!("parking-lot-{k}")));
    v.push("fat-tree-16".into());
    v.push("chain-10000".into());
    v.push("chain-100000".into());
    v.push("queue-fill".into());
    v
}

/// Whether the scenario is only validated (parsed and built), not run.
pub fn validate_only(name: &str) -> bool {
    name.starts_with("chain-")
}

/// The scenario document called `name`, or `None` for an unknown name.
pub fn document(name: &str) -> Option<Value> {
    // a scenario document saved as JSON (e.g. a sweep point's, to profile it in isolation)
    if name.ends_with(".json") {
        let text = std::fs::read_to_string(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        return Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}")));
    }
    if let Some(n) = name.strip_prefix("dumbbell-scaled-") {
        return Some(dumbbell_scaled(n.parse().ok()?));
    }
    if let Some(k) = name.strip_prefix("parking-lot-") {
        return Some(parking_lot(k.parse().ok()?));
    }
    if let Some(k) = name.strip_prefix("fat-tree-") {
        return Some(fat_tree(k.parse().ok()?));
    }
    if let Some(n) = name.strip_prefix("chain-") {
        return Some(chain(n.parse().ok()?));
    }
    match name {
        "dumbbell-16" | "dumbbell-64-1g" => Some(dumbbell(&foundation(name))),
        "dumbbell-16-bbr" | "dumbbell-64-1g-bbr" => {
            let mut p = foundation(name.strip_suffix("-bbr").unwrap());
            p.cc = "bbr".into();
            Some(dumbbell(&p))
        }
        "dctcp-16" => {
            let mut p = foundation("dumbbell-16");
            p.cc = "dctcp".into();
            let mut doc = dumbbell(&p);
            // The bottleneck (link entry 0, both directions) marks above K = 60 packets.
            doc["link"][0]["queue"] = json!({ "kind": "step", "k": 60, "limit": 333 });
            Some(doc)
        }
        "queue-fill" => Some(queue_fill()),
        _ => None,
    }
}

/// The foundation dumbbells (docs/performance.md, "The benchmark").
pub fn foundation(name: &str) -> DumbbellParams {
    let mut p = DumbbellParams {
        recovery: "sack".into(),
        cc: "reno".into(),
        trace_interval: "0s".into(),
        ..DumbbellParams::default()
    };
    match name {
        "dumbbell-16" => {
            p.n_flows = 16;
            p.access_rate = "1Gbps".into();
            p.bottleneck_rate = "100Mbps".into();
            p.queue_packets = 333;
            p.duration = "100s".into();
        }
        "dumbbell-64-1g" => {
            p.n_flows = 64;
            p.access_rate = "10Gbps".into();
            p.bottleneck_rate = "1Gbps".into();
            p.queue_packets = 3333;
            p.duration = "20s".into();
        }
        other => panic!("unknown benchmark {other}"),
    }
    p
}

/// `n` flows of 6.25 Mb/s each: `dumbbell-16` scaled. The bottleneck carries n × 6.25 Mb/s
/// (100 Mb/s at 16 flows, 25.6 Gb/s at 4 096), every queue holds one bandwidth-delay
/// product of the bottleneck at the 40 ms base RTT (333 packets at 16 flows), access links
/// are 1 Gb/s. Simulated for 1 600 / n seconds, at least 2 s: about the same number of
/// packets per flow at every size from 256 flows up (100 s at 16 flows, as `dumbbell-16`).
pub fn dumbbell_scaled(n: u32) -> Value {
    let rate_bps = u64::from(n) * 6_250_000;
    // 1500-byte packets, 40 ms
    let bdp_packets = (rate_bps as f64 * 0.040 / 12_000.0).round() as u64;
    let secs = (1600.0 / f64::from(n)).max(2.0);
    dumbbell(&DumbbellParams {
        n_flows: n,
        bottleneck_rate: format!("{rate_bps}bps"),
        access_rate: "1Gbps".into(),
        queue_packets: bdp_packets,
        duration: format!("{secs}s"),
        recovery: "sack".into(),
        cc: "reno".into(),
        trace_interval: "0s".into(),
        ..DumbbellParams::default()
    })
}

fn droptail(packets: u64) -> Value {
    json!({ "kind": "droptail", "limit": packets })
}

fn duplex(a: &str, b: &str, rate: &str, delay: &str, queue: u64) -> Value {
    json!({ "between": [a, b], "rate": rate, "delay": delay, "queue": droptail(queue) })
}

fn bulk_tcp(name: &str, from: &str, to: &str) -> Value {
    json!({
        "name": name, "from": from, "to": to, "transport": "tcp", "cc": "reno",
        "recovery": "sack", "app": { "kind": "bulk", "size": "inf" },
    })
}

fn document_of(duration: &str, links: Vec<Value>, flows: Vec<Value>) -> Value {
    json!({
        "simulation": { "duration": duration, "seed": 1 },
        "trace": { "interval": "0s" },
        "link": links,
        "flow": flows,
    })
}

/// Flows per group in the parking lots: through the whole line, and across each hop.
pub const PARKING_FLOWS: u32 = 8;

/// A parking lot of `k` bottleneck hops r0 – r1 – … – rk (100 Mb/s, 10 ms, 333 packets),
/// with 8 long flows from hosts at r0 to hosts at rk and, on every hop, 8 cross flows from
/// hosts at its first router to hosts at its second; hosts attach over 1 Gb/s, 5 ms links.
/// Every hop is shared by 16 flows. Simulated for 20 s.
pub fn parking_lot(k: u32) -> Value {
    let mut links = Vec::new();
    for i in 0..k {
        links.push(duplex(
            &format!("r{i}"),
            &format!("r{}", i + 1),
            "100Mbps",
            "10ms",
            333,
        ));
    }
    let mut flows = Vec::new();
    let host = |links: &mut Vec<Value>, name: String, router: u32| {
        links.push(duplex(&name, &format!("r{router}"), "1Gbps", "5ms", 333));
        name
    };
    for j in 0..PARKING_FLOWS {
        let s = host(&mut links, format!("ls{j}"), 0);
        let d = host(&mut links, format!("ld{j}"), k);
        flows.push(bulk_tcp(&format!("long{j}"), &s, &d));
    }
    for i in 0..k {
        for j in 0..PARKING_FLOWS {
            let s = host(&mut links, format!("cs{i}_{j}"), i);
            let d = host(&mut links, format!("cd{i}_{j}"), i + 1);
            flows.push(bulk_tcp(&format!("cross{i}_{j}"), &s, &d));
        }
    }
    document_of("20s", links, flows)
}

/// A k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and k/2
/// aggregation switches, (k/2)² core switches, k/2 hosts per edge switch (k³/4 hosts:
/// 1 024 for k = 16). Every link 1 Gb/s, 10 µs, 100 packets. One bulk TCP flow per host,
/// to the host a seeded random permutation without fixed points gives it (every host sends
/// one flow and receives one). Routes are the static shortest paths (ties to the lower link
/// index). Simulated for 0.1 s.
pub fn fat_tree(k: u32) -> Value {
    assert!(k >= 2 && k % 2 == 0, "a fat-tree needs an even k");
    let half = k / 2;
    let mut links = Vec::new();
    let link = |a: String, b: String| duplex(&a, &b, "1Gbps", "10us", 100);
    let mut hosts = Vec::new();
    for p in 0..k {
        for e in 0..half {
            for h in 0..half {
                let host = format!("h{p}_{e}_{h}");
                links.push(link(host.clone(), format!("e{p}_{e}")));
                hosts.push(host);
            }
            for a in 0..half {
                links.push(link(format!("e{p}_{e}"), format!("a{p}_{a}")));
            }
        }
        for a in 0..half {
            for c in 0..half {
                links.push(link(format!("a{p}_{a}"), format!("c{}", a * half + c)));
            }
        }
    }
    let to = derangement(hosts.len(), 0x5eed);
    let flows = (0..hosts.len())
        .map(|i| bulk_tcp(&format!("f{i}"), &hosts[i], &hosts[to[i]]))
        .collect();
    document_of("0.1s", links, flows)
}

/// A permutation of 0..n without fixed points, from a seeded shuffle (SplitMix64).
fn derangement(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    loop {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        if p.iter().enumerate().all(|(i, &j)| i != j) {
            return p;
        }
    }
}

/// `n` duplex links in a line c0 – c1 – … – cn (1 Gb/s, 1 ms) and one bulk TCP flow from
/// end to end: a scenario only validated (parsed and built), to measure set-up alone.
pub fn chain(n: u32) -> Value {
    let links = (0..n)
        .map(|i| {
            duplex(
                &format!("c{i}"),
                &format!("c{}", i + 1),
                "1Gbps",
                "1ms",
                100,
            )
        })
        .collect();
    let flows = vec![bulk_tcp("end-to-end", "c0", &format!("c{n}"))];
    document_of("1s", links, flows)
}

/// A queue that only fills: 10 Gb/s of 1 000-byte UDP datagrams into a 100 Mb/s link
/// whose queue holds 2 000 000 packets, for 1 s. About 1.24 M packets are queued at the end:
/// the memory a queued packet costs.
pub fn queue_fill() -> Value {
    json!({
        "simulation": { "duration": "1s", "seed": 1 },
        "trace": { "interval": "0s" },
        "link": [
            { "from": "src", "to": "router", "rate": "10Gbps", "delay": "1ms",
              "queue": droptail(100) },
            { "from": "router", "to": "dst", "rate": "100Mbps", "delay": "1ms",
              "queue": droptail(2_000_000) },
        ],
        "flow": [{
            "name": "flood", "from": "src", "to": "dst", "transport": "udp",
            "app": { "kind": "cbr", "rate": "10Gbps", "packet_size": 1000 },
        }],
    })
}
