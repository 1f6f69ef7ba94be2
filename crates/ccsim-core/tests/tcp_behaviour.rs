//! End-to-end TCP behaviour on small topologies.

mod common;

use ccsim_core::scenario::*;
use ccsim_core::units::{Bytes, SimTime};
use ccsim_core::Simulation;
use common::*;

fn run(sc: Scenario) -> ccsim_core::RunResult {
    Simulation::new(sc).expect("valid scenario").finish()
}

/// One flow over a 10 Mb/s bottleneck with 100 ms base RTT and a one-BDP buffer.
fn single_path(recovery: RecoverySpec, secs: f64) -> Scenario {
    let mut net = Net::new(secs, 1);
    // 10 Mb/s × 100 ms = 125 000 B = about 83 packets of 1500 B.
    net.duplex("s", "r", 1000.0, 1.0, 1000);
    net.duplex("r", "d", 10.0, 49.0, 83);
    net.flow("f", "s", "d", tcp(recovery));
    net.trace_all()
}

#[test]
fn a_long_flow_fills_a_one_bdp_buffered_link() {
    for rec in [
        RecoverySpec::Reno,
        RecoverySpec::NewReno,
        RecoverySpec::Sack,
        RecoverySpec::Fack,
    ] {
        // Steady state: goodput between 20 s and 120 s from two runs (no per-interval API
        // needed: the difference of two runs' delivered bytes).
        let early = run(single_path(rec, 20.0)).flows[0].bytes_delivered;
        let late = run(single_path(rec, 120.0)).flows[0].bytes_delivered;
        let goodput = (late - early) as f64 * 8.0 / 100.0;
        let ratio = goodput / 10e6;
        eprintln!("{rec:?}: steady goodput/capacity = {ratio:.4}");
        assert!(ratio >= 0.95, "{rec:?}: {ratio}");
    }
}

#[test]
fn sixteen_identical_flows_share_fairly() {
    let sc = dumbbell(16, 1000.0, 100.0, 333, 60.0, RecoverySpec::Sack, 1.0);
    let r = run(sc);
    let g: Vec<f64> = r.flows.iter().map(|f| f.bytes_delivered as f64).collect();
    let j = jain(&g);
    let util = g.iter().sum::<f64>() * 8.0 / 60.0 / 100e6;
    eprintln!("Jain = {j:.4}, goodput/capacity = {util:.4}");
    assert!(j >= 0.95, "Jain index {j}");
    assert!(r.conservation.holds());
}

/// A flow whose data packets number `drops` (0-based, counted at the bottleneck) are lost.
fn scripted(recovery: RecoverySpec, drops: Vec<u64>) -> Scenario {
    let mut net = Net::new(10.0, 1);
    net.duplex("s", "r", 1000.0, 1.0, 1000);
    let q = QueueSpec::DropTail {
        limit: QueueLimit::Packets(1000),
    };
    net.link("r", "d", 10.0, 49.0, q.clone(), LossSpec::Scripted(drops));
    net.link("d", "r", 10.0, 49.0, q, LossSpec::None);
    let mut t = tcp(recovery);
    t.app = TcpApp::Bulk {
        size: Some(Bytes(1460 * 400)),
        start: at(0.0),
    };
    net.flow("f", "s", "d", t);
    net.trace_all()
}

#[test]
fn newreno_recovers_several_losses_in_one_window_without_a_timeout_reno_does_not() {
    // Three losses in one window of about 30 segments (slow start has grown it by then).
    let drops = vec![60, 62, 64];
    let nr = run(scripted(RecoverySpec::NewReno, drops.clone()));
    let reno = run(scripted(RecoverySpec::Reno, drops.clone()));
    let sack = run(scripted(RecoverySpec::Sack, drops.clone()));
    let fack = run(scripted(RecoverySpec::Fack, drops));
    for (name, r) in [
        ("newreno", &nr),
        ("reno", &reno),
        ("sack", &sack),
        ("fack", &fack),
    ] {
        let f = &r.flows[0];
        eprintln!(
            "{name}: timeouts {} recoveries {} retx {} completion {:?}",
            f.timeouts, f.fast_recoveries, f.retransmissions, f.completion_time_s
        );
        assert_eq!(f.drops.0[DropCauseIdx::SCRIPTED], 3);
        assert!(f.completion_time_s.is_some(), "{name} must complete");
    }
    assert_eq!(nr.flows[0].timeouts, 0);
    assert_eq!(nr.flows[0].fast_recoveries, 1);
    assert_eq!(nr.flows[0].retransmissions, 3);
    assert_eq!(sack.flows[0].timeouts, 0);
    assert_eq!(sack.flows[0].retransmissions, 3);
    assert_eq!(fack.flows[0].timeouts, 0);
    assert_eq!(fack.flows[0].fast_recoveries, 1);
    assert_eq!(fack.flows[0].retransmissions, 3);
    assert!(reno.flows[0].timeouts >= 1, "Reno should need a timeout");
}

struct DropCauseIdx;
impl DropCauseIdx {
    const SCRIPTED: usize = ccsim_core::results::DropCause::ScriptedLoss as usize;
}

#[test]
fn a_finite_transfer_completes_and_delivers_exactly_its_size() {
    let mut net = Net::new(30.0, 3);
    net.duplex("s", "r", 100.0, 1.0, 100);
    let q = QueueSpec::DropTail {
        limit: QueueLimit::Packets(50),
    };
    net.link("r", "d", 5.0, 20.0, q.clone(), LossSpec::Bernoulli(0.02));
    net.link("d", "r", 5.0, 20.0, q, LossSpec::Bernoulli(0.02));
    for (i, rec) in [
        RecoverySpec::Reno,
        RecoverySpec::NewReno,
        RecoverySpec::Sack,
        RecoverySpec::Sack1,
        RecoverySpec::Fack,
    ]
    .into_iter()
    .enumerate()
    {
        let mut t = tcp(rec);
        t.app = TcpApp::Bulk {
            size: Some(Bytes(1_000_001)),
            start: at(0.0),
        };
        net.flow(&format!("f{i}"), "s", "d", t);
    }
    let r = run(net.trace_all());
    for f in &r.flows {
        eprintln!(
            "{}: completion {:?} retx {} to {}",
            f.name, f.completion_time_s, f.retransmissions, f.timeouts
        );
        assert_eq!(f.bytes_delivered, 1_000_001, "{}", f.name);
        assert!(f.completion_time_s.is_some());
        assert!(f.retransmissions > 0);
    }
    assert!(r.conservation.holds());
}

#[test]
fn planetary_rtt_runs() {
    // 2000 s one-way propagation: hours of simulated time must work.
    let mut net = Net::new(4.0 * 3600.0, 1);
    net.duplex("s", "d", 1.0, 2_000_000.0, 100);
    let mut t = tcp(RecoverySpec::NewReno);
    t.rto.max = ccsim_core::units::Dur::from_secs(100_000);
    t.rto.initial = ccsim_core::units::Dur::from_secs(10_000);
    net.flow("f", "s", "d", t);
    let r = run(net.trace_all());
    let f = &r.flows[0];
    assert!(f.bytes_delivered > 0);
    assert!((f.rtt_min_s - 4000.0).abs() < 1.0, "{}", f.rtt_min_s);
    assert!(r.end_time_s > 14_000.0);
    let _ = SimTime::ZERO;
}
