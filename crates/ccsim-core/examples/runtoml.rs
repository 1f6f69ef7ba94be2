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
    if std::env::var("SERIES").is_ok() {
        let t = &r.series.flows;
        for i in 0..t.len() {
            let time = t.columns[0][i];
            if ((time * 10.0).round() as u64).is_multiple_of(20) {
                println!(
                    "t {:>6.1} row {} cwnd {:>8.0} ss {:>8.0} srtt {:.4} rate {:.2}",
                    time,
                    t.columns[1][i],
                    t.columns[2][i],
                    t.columns[3][i],
                    t.columns[4][i],
                    t.columns[5][i] / 1e6
                );
            }
        }
    }
    println!(
        "conservation holds: {}; backoffs rows {}",
        r.conservation.holds(),
        r.series.backoffs.len()
    );
}
