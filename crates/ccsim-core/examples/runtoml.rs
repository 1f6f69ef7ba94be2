//! Dev helper: run a scenario file and print the flow summaries.
fn main() {
    let path = std::env::args().nth(1).expect("scenario.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let sc = ccsim_core::scenario::from_toml_str(&text, &path).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let r = ccsim_core::Simulation::new(sc).unwrap().finish();
    for f in &r.flows {
        println!(
            "{:<12} {:<14} {:<6} goodput {:>7.3} Mb/s  retx {:>5} fr {:>4} to {:>3} dly {:>4} rtt min/mean {:.1}/{:.1} ms drops {}",
            f.name, f.transport, f.cc, f.goodput_bps / 1e6, f.retransmissions, f.fast_recoveries,
            f.timeouts, f.delay_backoffs, f.rtt_min_s * 1e3, f.rtt_mean_s * 1e3, f.drops.total()
        );
    }
    println!(
        "conservation holds: {}; backoffs rows {}",
        r.conservation.holds(),
        r.series.backoffs.len()
    );
}
