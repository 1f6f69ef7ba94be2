//! `ccsim-kernel-emu`: the bottleneck emulator of the real-kernel bench.
//!
//!     ccsim-kernel-emu run --sender-if IF --receiver-if IF --rate-bps N --delay-ms D
//!         --limit P [--ack-limit P] [--loss p] [--seed S] [--extra PORT=MS ...]
//!         --duration-s T --log FILE --summary FILE [--rt-priority N]
//!     ccsim-kernel-emu replay LOG        (re-check a log; prints the summary)
//!
//! Exit codes: 0 done (the summary says whether the log replayed exactly), 2 bad arguments
//! or an unreadable log, 1 an I/O failure while running.

use ccsim_kernel_emu::{log, model::LinkParams, replay, summary};
use std::collections::HashMap;
use std::process::exit;

const USAGE: &str = "usage: ccsim-kernel-emu run --sender-if IF --receiver-if IF --rate-bps N --delay-ms D --limit P [--ack-limit P] [--loss p] [--seed S] [--extra PORT=MS ...] --duration-s T --log FILE --summary FILE [--rt-priority N]\n       ccsim-kernel-emu replay LOG";

fn fail(msg: &str) -> ! {
    eprintln!("ccsim-kernel-emu: {msg}\n{USAGE}");
    exit(2)
}

fn num<T: std::str::FromStr>(
    opts: &HashMap<String, Vec<String>>,
    k: &str,
    default: Option<T>,
) -> T {
    match opts.get(k).and_then(|v| v.last()) {
        Some(s) => s
            .parse()
            .unwrap_or_else(|_| fail(&format!("--{k}: cannot read {s:?} as a number"))),
        None => default.unwrap_or_else(|| fail(&format!("--{k} is required"))),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("replay") if args.len() == 2 => replay_cmd(&args[1]),
        Some("run") => run_cmd(&args[1..]),
        _ => fail("expected `run OPTIONS` or `replay LOG`"),
    }
}

fn replay_cmd(path: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let (params, records) = log::parse(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let rep = replay::replay(&params, &records);
    print!("{}", summary::json(&params, &rep, &[]));
}

#[cfg(not(target_os = "linux"))]
fn run_cmd(_: &[String]) {
    eprintln!("ccsim-kernel-emu: `run` needs Linux (AF_PACKET)");
    exit(2)
}

#[cfg(target_os = "linux")]
fn run_cmd(args: &[String]) {
    use ccsim_kernel_emu::emulate;
    let mut opts: HashMap<String, Vec<String>> = HashMap::new();
    let mut it = args.iter();
    while let Some(k) = it.next() {
        let key = k
            .strip_prefix("--")
            .unwrap_or_else(|| fail(&format!("unexpected argument {k:?}")));
        const KNOWN: [&str; 14] = [
            "sender-if",
            "receiver-if",
            "rate-bps",
            "delay-ms",
            "limit",
            "ack-limit",
            "loss",
            "seed",
            "extra",
            "duration-s",
            "log",
            "summary",
            "rt-priority",
            "ack-rate-bps",
        ];
        if !KNOWN.contains(&key) {
            fail(&format!(
                "unknown option --{key}; allowed: --{}",
                KNOWN.join(", --")
            ));
        }
        let v = it
            .next()
            .unwrap_or_else(|| fail(&format!("--{key} needs a value")));
        opts.entry(key.to_string()).or_default().push(v.clone());
    }
    let rate: u64 = num(&opts, "rate-bps", None);
    let delay_ms: f64 = num(&opts, "delay-ms", None);
    let limit: usize = num(&opts, "limit", None);
    let loss: f64 = num(&opts, "loss", Some(0.0));
    if rate == 0 || limit == 0 || !(0.0..1.0).contains(&loss) || !(delay_ms >= 0.0) {
        fail("--rate-bps and --limit must be > 0, --loss in [0, 1), --delay-ms ≥ 0");
    }
    let prop_ns = (delay_ms * 1e6).round() as u64;
    let data = LinkParams {
        rate_bps: rate,
        prop_ns,
        limit,
        loss,
    };
    let ack = LinkParams {
        rate_bps: num(&opts, "ack-rate-bps", Some(rate)),
        prop_ns,
        limit: num(&opts, "ack-limit", Some(limit)),
        loss: 0.0,
    };
    let mut extra = HashMap::new();
    for e in opts.get("extra").into_iter().flatten() {
        let (p, ms) = e
            .split_once('=')
            .unwrap_or_else(|| fail(&format!("--extra {e:?}: want PORT=MS")));
        let port: u16 = p
            .parse()
            .unwrap_or_else(|_| fail(&format!("--extra {e:?}: bad port")));
        let ms: f64 = ms
            .parse()
            .ok()
            .filter(|m: &f64| *m >= 0.0)
            .unwrap_or_else(|| fail(&format!("--extra {e:?}: bad delay")));
        extra.insert(port, (ms * 1e6).round() as u64);
    }
    let dur: f64 = num(&opts, "duration-s", None);
    if !(dur > 0.0 && dur <= 3600.0) {
        fail("--duration-s must be in (0, 3600]");
    }
    let get = |k: &str| {
        opts.get(k)
            .and_then(|v| v.last())
            .cloned()
            .unwrap_or_else(|| fail(&format!("--{k} is required")))
    };
    let cfg = emulate::Config {
        sender_if: get("sender-if"),
        receiver_if: get("receiver-if"),
        links: [data, ack],
        seed: num(&opts, "seed", Some(1)),
        extra,
        duration_ns: (dur * 1e9) as u64,
        rt_priority: opts
            .get("rt-priority")
            .map(|_| num(&opts, "rt-priority", None)),
    };
    let (log_path, summary_path) = (get("log"), get("summary"));
    let out = emulate::run(&cfg).unwrap_or_else(|e| {
        eprintln!("ccsim-kernel-emu: {e}");
        exit(1)
    });
    let params = out.run.clone().expect("set by run");
    let rep = replay::replay(&params, &out.records);
    let extra_json = [
        ("oversize_frames", out.oversize_frames.to_string()),
        ("max_frame", out.max_frame.to_string()),
        ("passthrough", out.passthrough.to_string()),
        ("send_errors", out.send_errors.to_string()),
        ("realtime", out.realtime.to_string()),
    ];
    let write = |p: &str, s: String| {
        std::fs::write(p, s).unwrap_or_else(|e| {
            eprintln!("ccsim-kernel-emu: {p}: {e}");
            exit(1)
        })
    };
    write(&log_path, log::write(&params, &out.records));
    write(&summary_path, summary::json(&params, &rep, &extra_json));
}
