//! ARC on planetary-style links.

mod common;

use ccsim_core::scenario::*;
use ccsim_core::units::{Bytes, SimTime};
use ccsim_core::Simulation;
use common::*;

fn arc_spec(size: Option<u64>) -> ArcSpec {
    ArcSpec {
        app: TcpApp::Bulk {
            size: size.map(Bytes),
            start: at(0.0),
        },
        ..ArcSpec::default()
    }
}

/// The ARC paper's scenario: one 1 Mb/s link, uniform loss p both ways, 100-packet buffer.
fn planetary(rtt_s: f64, p: f64, secs: f64, size: Option<u64>, seed: u64) -> Scenario {
    let mut net = Net::new(secs, seed);
    let q = || QueueSpec::DropTail {
        limit: QueueLimit::Packets(100),
    };
    let loss = || {
        if p > 0.0 {
            LossSpec::Bernoulli(p)
        } else {
            LossSpec::None
        }
    };
    net.link("s", "d", 1.0, rtt_s * 500.0, q(), loss());
    net.link("d", "s", 1.0, rtt_s * 500.0, q(), loss());
    let (from, to) = (net.node("s"), net.node("d"));
    net.sc.flows.push(FlowSpec {
        name: "arc".into(),
        from,
        to,
        transport: TransportSpec::Arc(arc_spec(size)),
        paths: vec![],
    });
    net.trace_all()
}

/// Goodput between `t0` and the end, as a fraction of the 1 Mb/s capacity.
fn steady_fraction(sc: Scenario, t0: f64) -> f64 {
    let end = sc.duration.secs();
    let mut sim = Simulation::new(sc).unwrap();
    sim.run_until(SimTime((t0 * 1e9) as u64));
    let before = delivered(&sim);
    let r = sim.finish();
    let after = r.flows[0].bytes_delivered;
    (after - before) as f64 * 8.0 / (end - t0) / 1e6
}

fn delivered(sim: &Simulation) -> u64 {
    match sim.endpoint(ccsim_core::ids::EndpointId(1)) {
        ccsim_core::transport::Endpoint::ArcReceiver(r) => r.bytes_delivered(),
        _ => unreachable!(),
    }
}

#[test]
fn arc_fills_a_1mbps_link_with_rtt_5s_and_loss_0_001() {
    let mut fractions = Vec::new();
    for seed in 1..=3 {
        let f = steady_fraction(planetary(5.0, 0.001, 600.0, None, seed), 100.0);
        fractions.push(f);
    }
    eprintln!("ARC, RTT 5 s, p = 0.001: goodput/capacity from 100 s to 600 s = {fractions:?} (payload ceiling 0.973)");
    for f in fractions {
        assert!(f >= 0.90, "{f}");
    }
}

#[test]
fn a_file_arrives_complete_over_lossy_links_in_both_directions() {
    for (rtt, p) in [(0.2, 0.01), (20.0, 0.005)] {
        let size = 3_000_000;
        let r = Simulation::new(planetary(rtt, p, 3600.0, Some(size), 7))
            .unwrap()
            .finish();
        let f = &r.flows[0];
        eprintln!(
            "ARC file of {size} B, RTT {rtt} s, p {p}: completion {:?} s, retransmissions {}, loss events {}, timeouts {}",
            f.completion_time_s, f.retransmissions, f.fast_recoveries, f.timeouts
        );
        assert_eq!(f.bytes_delivered, size);
        assert!(f.completion_time_s.is_some());
        assert!(f.retransmissions > 0 && f.drops.total() > 0);
        assert!(r.conservation.holds());
    }
}

#[test]
fn delayed_reports_halve_the_reports_in_order_and_keep_the_link_full() {
    // Lossless: every second in-order packet is reported. With loss, out-of-order packets
    // (behind a hole, for about a round trip) are reported at once, so fewer are saved.
    for (p, max_ratio) in [(0.0, 0.55), (0.001, 0.8)] {
        let mut every = planetary(5.0, p, 600.0, None, 1);
        every.trace.interval = ccsim_core::units::Dur::ZERO;
        let mut delayed = every.clone();
        if let TransportSpec::Arc(a) = &mut delayed.flows[0].transport {
            a.report_delay = Some(ccsim_core::units::Dur::from_millis(100));
        }
        let a = Simulation::new(every).unwrap().finish();
        let b = Simulation::new(delayed).unwrap().finish();
        let reports = |r: &ccsim_core::RunResult| r.links[1].packets_in as f64;
        let ratio = reports(&b) / reports(&a);
        eprintln!(
            "ARC p = {p}: reports {} every packet vs {} delayed (ratio {ratio:.2}); goodput {:.3} vs {:.3} Mb/s",
            reports(&a),
            reports(&b),
            a.flows[0].goodput_bps / 1e6,
            b.flows[0].goodput_bps / 1e6
        );
        assert!(ratio < max_ratio, "{ratio}");
        assert!(b.flows[0].goodput_bps > 0.85e6);
    }
}

#[test]
fn without_loss_arc_approaches_the_link_rate_and_keeps_the_queue_bounded() {
    let sc = planetary(2.0, 0.0, 300.0, None, 1);
    let r = Simulation::new(sc).unwrap().finish();
    let q = &r.series.links;
    let (ti, qi) = (0, 2);
    let late: Vec<f64> = (0..q.len())
        .filter(|&i| q.columns[ti][i] > 100.0 && q.columns[1][i] == 0.0)
        .map(|i| q.columns[qi][i])
        .collect();
    let max_q = late.iter().cloned().fold(0.0, f64::max);
    let g = r.flows[0].goodput_bps / 1e6;
    eprintln!("ARC lossless RTT 2 s: goodput {g:.3} Mb/s, max queue after 100 s {max_q} packets, drops {}", r.flows[0].drops.total());
    assert!(g > 0.9);
}
