//! The benchmark (see docs/performance.md).
//!
//! `cargo run --release -p ccsim-core --example bench -- [OPTIONS]`
//!
//! - no `--suite` (the foundation benchmark): dumbbell-16 and dumbbell-64-1g, `--repeat N`
//!   (and their `-bbr` variants, every flow on BBR, and `dctcp-16`, DCTCP with a step marker
//!   at K = 60: outside the speed bar of `benches/ab.sh`),
//!   `--repeat N` runs each (default 5), `--only NAME`, `--threads 1|2|auto`. Prints median,
//!   min and max wall time of the simulation proper (parsing, building and running, not
//!   process start), its CPU time, data packets delivered per wall second and peak resident
//!   memory. `--pcap LINK` (any suite) captures LINK (e.g. `bottleneck`) into a pcap file
//!   built in memory and dropped, to measure what a capture costs.
//! - `--suite scaling`: dumbbells of 16 … 4 096 flows with the capacity scaled per flow,
//!   parking lots of 2 … 16 hops with cross traffic, a k = 16 fat-tree with a permutation
//!   matrix, chains of 10 000 and 100 000 links (validated only) and a queue that fills
//!   (`bench/scenarios.rs`). Set-up (parse and build) and the event loop are timed apart,
//!   in wall and CPU time; ns of loop CPU time per delivered packet; resident memory before,
//!   after set-up and at its peak; memory per flow, per link and per queued packet.
//!   `--repeat N` (default 3), `--only A,B` (names containing A or B), `--json FILE` (every
//!   run's figures, for `benches/plot_scaling.py`).
//! - `--suite threads`: dumbbell-16 and dumbbell-64-1g on one thread and on two, with every
//!   core free and with a CPU-bound loop (a child process the benchmark starts and stops)
//!   on the other core; `--repeat N` rounds (default 5), each running the four cases.
//!
//! Every run is a fresh child process (`--child NAME`), so its memory figures are its own.
//! `bench --train FILE...` runs scenario files instead and prints nothing but their names:
//! the training workload of a profile-guided build (`benches/pgo.sh`), kept apart from the
//! benchmark scenarios so that the profile is not fitted to them.

#[path = "bench/measure.rs"]
mod measure;
#[path = "bench/scenarios.rs"]
mod scenarios;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use ccsim_core::scenario::{from_json_value, from_toml_str};
use ccsim_core::Simulation;
use measure::{cpu_seconds, status_kib, BusyCore};

/// One run in this process. Prints "wall_s data_packets delivered peak_kib events" and then
/// `key=value` figures (see `Fig`).
fn child(name: &str, threads: &str, pcap: Option<&str>) {
    let mut doc = scenarios::document(name).unwrap_or_else(|| panic!("unknown benchmark {name}"));
    doc["simulation"]["threads"] = match threads.parse::<u32>() {
        Ok(n) => n.into(),
        Err(_) => threads.into(),
    };
    if let Some(link) = pcap {
        doc["trace"]["pcap"] = serde_json::json!([link]);
    }
    let rss_before = status_kib("VmRSS:");
    let (w0, c0) = (Instant::now(), cpu_seconds());
    let sc = from_json_value(&doc, name).unwrap_or_else(|e| panic!("{e}"));
    let parse_wall = w0.elapsed().as_secs_f64();
    drop(doc);
    let (flows, links) = (sc.flows.len(), sc.links.len());
    let sim = Simulation::new(sc).expect("builds");
    let setup_wall = w0.elapsed().as_secs_f64();
    let setup_cpu = cpu_seconds() - c0;
    let rss_setup = status_kib("VmRSS:");
    let mut figs = format!(
        "setup_wall={setup_wall} setup_cpu={setup_cpu} parse_wall={parse_wall} \
         rss_before_kib={rss_before} rss_setup_kib={rss_setup} flows={flows} links={links}"
    );
    if scenarios::validate_only(name) {
        println!("{setup_wall} 0 0 {} 0 {figs}", status_kib("VmHWM:"));
        return;
    }
    let split = sim.is_split();
    let mut sim = sim;
    let (w1, c1) = (Instant::now(), cpu_seconds());
    sim.run_until(ccsim_core::units::SimTime::NEVER);
    let share = sim.thread_share().unwrap_or_default();
    let r = sim.finish();
    let loop_wall = w1.elapsed().as_secs_f64();
    let loop_cpu = cpu_seconds() - c1;
    let wall = w0.elapsed().as_secs_f64();
    let unexpected: Vec<_> = r
        .warnings
        .iter()
        .filter(|w| !w.starts_with("threads"))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");
    figs += &format!(
        " loop_wall={loop_wall} loop_cpu={loop_cpu} threads_used={} in_flight={} \
         taken_over={} parked={} phases={} solo_phases={}",
        if split { 2 } else { 1 },
        r.conservation.in_flight,
        share.taken_over,
        share.parked,
        share.phases,
        share.solo_phases
    );
    // in-order payload over the MSS of every benchmark flow (1460 bytes)
    let delivered_data: u64 = r.flows.iter().map(|f| f.bytes_delivered / 1460).sum();
    println!(
        "{wall} {delivered_data} {} {} {} {figs}",
        r.conservation.delivered,
        status_kib("VmHWM:"),
        r.events
    );
}

/// `--pcap LINK`: every child run captures LINK.
static PCAP: OnceLock<String> = OnceLock::new();

/// A child run's figures by name: `wall`, `data`, `delivered`, `peak_kib`, `events` and the
/// `key=value` ones.
type Fig = BTreeMap<String, f64>;

fn run_child(exe: &Path, name: &str, threads: &str) -> Fig {
    try_child(exe, name, threads).unwrap_or_else(|e| panic!("{name} failed: {e}"))
}

/// A child run's figures, or the end of what it wrote to stderr if it failed.
fn try_child(exe: &Path, name: &str, threads: &str) -> Result<Fig, String> {
    let mut cmd = Command::new(exe);
    cmd.args(["--child", name, "--threads", threads]);
    if let Some(link) = PCAP.get() {
        cmd.args(["--pcap", link]);
    }
    let out = cmd.output().expect("child runs");
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(3).collect();
        return Err(format!("{} ({})", tail.join(" / "), out.status));
    }
    let s = String::from_utf8_lossy(&out.stdout);
    let mut fig = Fig::new();
    for (i, tok) in s.split_whitespace().enumerate() {
        match tok.split_once('=') {
            Some((k, v)) => fig.insert(k.into(), v.parse().unwrap()),
            None => {
                let k = ["wall", "data", "delivered", "peak_kib", "events"][i];
                fig.insert(k.into(), tok.parse().unwrap())
            }
        };
    }
    Ok(fig)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn med(runs: &[Fig], key: &str) -> f64 {
    median(
        runs.iter()
            .map(|f| f.get(key).copied().unwrap_or(f64::NAN))
            .collect(),
    )
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

fn foundation(exe: &Path, repeat: usize, only: Option<&str>, threads: &str) {
    println!("threads: {threads}");
    println!(
        "{:<16} {:>9} {:>9} {:>9} {:>9} {:>14} {:>12} {:>9} {:>11}",
        "scenario",
        "median s",
        "min s",
        "max s",
        "cpu s",
        "data pkts",
        "data pkts/s",
        "peak MB",
        "events"
    );
    for name in scenarios::FOUNDATION_BENCH {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let runs: Vec<Fig> = (0..repeat).map(|_| run_child(exe, name, threads)).collect();
        let walls: Vec<f64> = runs.iter().map(|f| f["wall"]).collect();
        let m = median(walls.clone());
        let lo = walls.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = walls.iter().copied().fold(0.0, f64::max);
        let cpu = median(
            runs.iter()
                .map(|f| f["setup_cpu"] + f["loop_cpu"])
                .collect(),
        );
        let data = runs[0]["data"];
        let peak = runs.iter().map(|f| f["peak_kib"]).fold(0.0, f64::max);
        println!(
            "{:<16} {:>9.4} {:>9.4} {:>9.4} {:>9.4} {:>14} {:>12.0} {:>9.1} {:>11}",
            name,
            m,
            lo,
            hi,
            cpu,
            data,
            data / m,
            peak / 1024.0,
            runs[0]["events"]
        );
    }
}

fn scaling(exe: &Path, repeat: usize, only: Option<&str>, threads: &str, json: Option<&str>) {
    println!("threads: {threads}; medians of {repeat} runs; ns/pkt: loop CPU time per delivered packet (data and ACKs)");
    println!(
        "{:<20} {:>6} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7} {:>11} {:>7} {:>9} {:>9}",
        "scenario",
        "flows",
        "links",
        "setup s",
        "setup cpu",
        "loop s",
        "loop cpu",
        "setup%",
        "delivered",
        "ns/pkt",
        "setup MB",
        "peak MB"
    );
    let mut all = BTreeMap::new();
    for name in scenarios::scaling_names() {
        if only.is_some_and(|o| !o.split(',').any(|o| name.contains(o))) {
            continue;
        }
        let runs: Result<Vec<Fig>, String> = (0..repeat)
            .map(|_| try_child(exe, &name, threads))
            .collect();
        let runs = match runs {
            Ok(r) => r,
            Err(e) => {
                println!("{name:<20} failed: {e}");
                continue;
            }
        };
        let r0 = &runs[0];
        let (sw, sc) = (med(&runs, "setup_wall"), med(&runs, "setup_cpu"));
        let (lw, lc) = (med(&runs, "loop_wall"), med(&runs, "loop_cpu"));
        let delivered = r0["delivered"];
        println!(
            "{:<20} {:>6} {:>7} {:>9.4} {:>9.4} {:>9.3} {:>9.3} {:>7.1} {:>11} {:>7.0} {:>9.1} {:>9.1}",
            name,
            r0["flows"],
            r0["links"],
            sw,
            sc,
            lw,
            lc,
            100.0 * sw / (sw + lw.max(0.0)),
            delivered,
            lc * 1e9 / delivered,
            (med(&runs, "rss_setup_kib") - med(&runs, "rss_before_kib")) / 1024.0,
            med(&runs, "peak_kib") / 1024.0,
        );
        all.insert(name, runs);
    }
    memory_rates(&all);
    if let Some(path) = json {
        let doc = serde_json::json!({ "threads": threads, "runs": all });
        std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).expect("write --json");
        println!("wrote {path}");
    }
}

/// Bytes per flow, per link and per queued packet, from the scaling runs that give them.
fn memory_rates(all: &BTreeMap<String, Vec<Fig>>) {
    let setup_bytes =
        |runs: &Vec<Fig>| (med(runs, "rss_setup_kib") - med(runs, "rss_before_kib")) * 1024.0;
    // Per directed link (with half a node): the chain, one flow for 200 000 links.
    let per_link = all
        .get("chain-100000")
        .map(|runs| setup_bytes(runs) / runs[0]["links"]);
    if let Some(b) = per_link {
        println!("set-up memory per directed link (chain-100000, with its half node): {b:.0} B");
    }
    // Per flow: the slope of set-up memory over the scaled dumbbells (a flow brings two
    // hosts and four directed links), less its links.
    let pts: Vec<(f64, f64)> = all
        .iter()
        .filter(|(n, _)| n.starts_with("dumbbell-scaled-"))
        .map(|(_, runs)| (runs[0]["flows"], setup_bytes(runs)))
        .collect();
    if pts.len() >= 2 {
        let n = pts.len() as f64;
        let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
        let (mx, my) = (sx / n, sy / n);
        let cov: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let var: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let slope = cov / var;
        print!(
            "set-up memory per dumbbell flow (slope; with its 2 hosts and 4 links): {slope:.0} B"
        );
        if let Some(b) = per_link {
            print!(", of which the flow itself {:.0} B", slope - 4.0 * b);
        }
        println!();
    }
    if let Some(runs) = all.get("queue-fill") {
        let grown = (med(runs, "peak_kib") - med(runs, "rss_setup_kib")) * 1024.0;
        let queued = runs[0]["in_flight"];
        println!(
            "memory per queued packet (queue-fill: {queued} packets queued at the end): {:.0} B",
            grown / queued
        );
    }
}

fn threads_suite(exe: &Path, repeat: usize, only: Option<&str>) {
    println!(
        "{repeat} rounds; each round runs one and two threads, with every core free and with a \
         busy loop on another core"
    );
    for name in scenarios::FOUNDATION {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let mut runs: BTreeMap<(bool, &str), Vec<Fig>> = BTreeMap::new();
        for round in 0..repeat {
            for busy in [false, true] {
                let _load = busy.then(|| BusyCore::start(exe));
                let order = if round % 2 == 0 {
                    ["1", "2"]
                } else {
                    ["2", "1"]
                };
                for t in order {
                    runs.entry((busy, t))
                        .or_default()
                        .push(run_child(exe, name, t));
                }
            }
        }
        println!("{name}:");
        println!(
            "  {:<10} {:>7} {:>9} {:>9} {:>9} {:>12}",
            "other core", "threads", "wall s", "cpu s", "2T / 1T", "pairs 2T/1T"
        );
        for busy in [false, true] {
            for t in ["1", "2"] {
                let v = &runs[&(busy, t)];
                let wall = med(v, "wall");
                let cpu = median(v.iter().map(|f| f["setup_cpu"] + f["loop_cpu"]).collect());
                let (ratio, pairs) = if t == "2" {
                    let one = &runs[&(busy, "1")];
                    let pairs = median(
                        v.iter()
                            .zip(one)
                            .map(|(a, b)| a["wall"] / b["wall"])
                            .collect(),
                    );
                    (
                        format!("{:.3}", wall / med(one, "wall")),
                        format!("{pairs:.3}"),
                    )
                } else {
                    (String::new(), String::new())
                };
                println!(
                    "  {:<10} {:>7} {:>9.4} {:>9.4} {:>9} {:>12}",
                    if busy { "busy" } else { "free" },
                    t,
                    wall,
                    cpu,
                    ratio,
                    pairs
                );
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--train") => return train(&args[2..]),
        Some("--busy") => measure::spin_forever(),
        _ => {}
    }
    let threads = option(&args, "--threads").unwrap_or("1");
    let pcap = option(&args, "--pcap");
    if let Some(name) = option(&args, "--child") {
        child(name, threads, pcap);
        return;
    }
    let suite = option(&args, "--suite");
    let repeat = option(&args, "--repeat").map(|v| v.parse().expect("--repeat N"));
    let only = option(&args, "--only");
    let exe = std::env::current_exe().unwrap();
    if let Some(link) = pcap {
        println!("pcap of {link}");
        PCAP.set(link.to_string()).unwrap();
    }
    match suite {
        None => foundation(&exe, repeat.unwrap_or(5), only, threads),
        Some("scaling") => scaling(
            &exe,
            repeat.unwrap_or(3),
            only,
            threads,
            option(&args, "--json"),
        ),
        Some("threads") => threads_suite(&exe, repeat.unwrap_or(5), only),
        Some(other) => panic!("unknown suite {other}: scaling or threads"),
    }
}
