//! The foundation benchmark: dumbbell-16 and dumbbell-64-1g (see docs/performance.md).
//!
//! `cargo run --release -p ccsim-core --example bench [-- --repeat N] [--only NAME] [--threads 1|2] [--pcap LINK]`
//! Each scenario runs in a fresh child process per repetition so that its peak memory
//! (VmHWM) is its own. Prints median, min and max wall time of the simulation proper
//! (building and running, not process start), data packets delivered per wall second and
//! peak resident memory. `--pcap LINK` captures LINK (e.g. `bottleneck`) into a pcap file
//! built in memory and dropped, to measure what a capture costs.
//!
//! `bench --train FILE...` runs scenario files instead and prints nothing but their names:
//! the training workload of a profile-guided build (`benches/pgo.sh`), kept apart from the
//! two benchmark scenarios so that the profile is not fitted to them.

use std::process::Command;
use std::time::Instant;

use ccsim_core::scenario::builders::{dumbbell, DumbbellParams};
use ccsim_core::scenario::{from_json_value, from_toml_str};
use ccsim_core::Simulation;

fn params(name: &str) -> DumbbellParams {
    // `<dumbbell>-bbr`: the same dumbbell with every flow on BBR (issue #20's packets-per-
    // second figure for a rate-based controller); not in the speed bar of `benches/ab.sh`.
    let (name, cc) = match name.strip_suffix("-bbr") {
        Some(base) => (base, "bbr"),
        None => (name, "reno"),
    };
    let mut p = DumbbellParams {
        recovery: "sack".into(),
        cc: cc.into(),
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

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// One run in this process: prints "wall_s data_packets packets rss_kib events".
fn child(name: &str, threads: u32, pcap: Option<&str>) {
    let p = params(name);
    let mut doc = dumbbell(&p);
    doc["simulation"]["threads"] = threads.into();
    if let Some(link) = pcap {
        doc["trace"]["pcap"] = serde_json::json!([link]);
    }
    let t0 = Instant::now();
    let sc = from_json_value(&doc, name).expect("benchmark scenario is valid");
    let sim = Simulation::new(sc).expect("builds");
    let r = sim.finish();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let wall = t0.elapsed().as_secs_f64();
    let data: u64 = r.flows.iter().map(|f| f.bytes_delivered / p.mss).sum();
    println!(
        "{wall} {data} {} {} {}",
        r.conservation.delivered,
        peak_rss_kib(),
        r.events
    );
}

/// Run every scenario file in `paths` to its end, on one thread and then on two.
fn train(paths: &[String]) {
    for path in paths {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for threads in [1, 2] {
            let mut sc = from_toml_str(&text, path).unwrap_or_else(|e| panic!("{e}"));
            sc.threads = threads;
            let r = Simulation::new(sc).expect("builds").finish();
            println!("{path} (threads = {threads}): {} events", r.events);
        }
    }
}

/// The value after `--name` on the command line, if given.
fn option<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    let i = args.iter().position(|a| a == name)?;
    Some(
        args.get(i + 1)
            .unwrap_or_else(|| panic!("{name} needs a value")),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == "--train") {
        train(&args[2..]);
        return;
    }
    let threads: u32 = option(&args, "--threads").map_or(1, |v| v.parse().expect("--threads 1|2"));
    let pcap = option(&args, "--pcap");
    if let Some(name) = option(&args, "--child") {
        child(name, threads, pcap);
        return;
    }
    let repeat: usize = option(&args, "--repeat").map_or(5, |v| v.parse().expect("--repeat N"));
    let only = option(&args, "--only");
    let exe = std::env::current_exe().unwrap();
    println!(
        "threads: {threads}{}",
        pcap.map_or(String::new(), |l| format!(", pcap of {l}"))
    );
    println!(
        "{:<16} {:>9} {:>9} {:>9} {:>14} {:>12} {:>9} {:>11}",
        "scenario", "median s", "min s", "max s", "data pkts", "data pkts/s", "peak MB", "events"
    );
    for name in ["dumbbell-16", "dumbbell-64-1g", "dumbbell-16-bbr", "dumbbell-64-1g-bbr"] {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let mut walls = Vec::new();
        let (mut data, mut rss, mut events) = (0u64, 0u64, 0u64);
        for _ in 0..repeat {
            let mut cmd = Command::new(&exe);
            cmd.args(["--child", name, "--threads", &threads.to_string()]);
            if let Some(link) = pcap {
                cmd.args(["--pcap", link]);
            }
            let out = cmd.output().expect("child runs");
            let s = String::from_utf8_lossy(&out.stdout);
            let v: Vec<&str> = s.split_whitespace().collect();
            walls.push(v[0].parse::<f64>().unwrap());
            data = v[1].parse().unwrap();
            rss = rss.max(v[3].parse().unwrap());
            events = v[4].parse().unwrap();
        }
        walls.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let med = walls[walls.len() / 2];
        println!(
            "{:<16} {:>9.4} {:>9.4} {:>9.4} {:>14} {:>12.0} {:>9.1} {:>11}",
            name,
            med,
            walls[0],
            walls[walls.len() - 1],
            data,
            data as f64 / med,
            rss as f64 / 1024.0,
            events
        );
    }
}
