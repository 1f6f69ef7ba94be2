#[path = "../tests/common/mod.rs"]
mod common;
use ccsim_core::scenario::*;
use ccsim_core::Simulation;
use common::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args[1].as_str() {
        "fair" => {
            let secs: f64 = args[2].parse().unwrap();
            let spread: f64 = args[3].parse().unwrap();
            let r = Simulation::new(dumbbell(
                16,
                1000.0,
                100.0,
                333,
                secs,
                RecoverySpec::Sack,
                spread,
            ))
            .unwrap()
            .finish();
            let g: Vec<f64> = r
                .flows
                .iter()
                .map(|f| f.bytes_delivered as f64 * 8.0 / secs / 1e6)
                .collect();
            println!(
                "{:?}",
                g.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>()
            );
            println!(
                "jain {:.4} to {:?}",
                jain(&g),
                r.flows.iter().map(|f| f.timeouts).collect::<Vec<_>>()
            );
            println!(
                "fr {:?}",
                r.flows
                    .iter()
                    .map(|f| f.fast_recoveries)
                    .collect::<Vec<_>>()
            );
        }
        "util" => {
            for rec in [
                RecoverySpec::Reno,
                RecoverySpec::NewReno,
                RecoverySpec::Sack,
            ] {
                let mut net = Net::new(120.0, 1);
                net.duplex("s", "r", 1000.0, 1.0, 1000);
                net.duplex("r", "d", 10.0, 49.0, 83);
                net.flow("f", "s", "d", tcp(rec));
                let r = Simulation::new(net.trace_all()).unwrap().finish();
                let f = &r.flows[0];
                println!(
                    "{rec:?} goodput {:.3} Mb/s fr {} to {} retx {} drops {:?}",
                    f.goodput_bps / 1e6,
                    f.fast_recoveries,
                    f.timeouts,
                    f.retransmissions,
                    f.drops
                );
            }
        }
        "trace" => {
            let mut net = Net::new(60.0, 1);
            net.duplex("s", "r", 1000.0, 1.0, 1000);
            net.duplex("r", "d", 10.0, 49.0, 83);
            let rec = match args[2].as_str() {
                "sack" => RecoverySpec::Sack,
                "reno" => RecoverySpec::Reno,
                _ => RecoverySpec::NewReno,
            };
            net.flow("f", "s", "d", tcp(rec));
            let mut sim = Simulation::new(net.trace_all()).unwrap();
            let mut t = 0.0;
            let step: f64 = args.get(3).map(|x| x.parse().unwrap()).unwrap_or(0.5);
            let from: f64 = args.get(4).map(|x| x.parse().unwrap()).unwrap_or(0.0);
            let to: f64 = args.get(5).map(|x| x.parse().unwrap()).unwrap_or(60.0);
            sim.run_until(ccsim_core::units::SimTime((from * 1e9) as u64));
            t = from;
            while t < to {
                t += step;
                sim.run_until(ccsim_core::units::SimTime((t * 1e9) as u64));
                if let ccsim_core::transport::Endpoint::TcpSender(s) =
                    sim.endpoint(ccsim_core::ids::EndpointId(0))
                {
                    use ccsim_core::cc::CongestionControl;
                    println!("t={t:5.1} cwnd={:7.1} ssth={:7.1} srtt={:.3} rto={:.3} una={} fr={} to={} rec={}", s.effective_cwnd() as f64/1460.0, s.cc().inner().ssthresh().0 as f64/1460.0, s.rtt().srtt().secs(), s.rtt().rto().secs(), s.snd_una(), s.stats.fast_recoveries, s.stats.timeouts, s.in_recovery());
                    println!("    {}", s.debug_state());
                }
            }
        }
        "heap" => {
            let mut sim = Simulation::new(dumbbell(
                16,
                1000.0,
                100.0,
                333,
                20.0,
                RecoverySpec::Sack,
                0.0,
            ))
            .unwrap();
            for k in 1..20 {
                sim.run_until(ccsim_core::units::SimTime(k * 1_000_000_000));
                print!("{} ", sim.events_pending());
            }
            println!();
        }
        _ => {}
    }
}
