//! MATCP path selection in the engine: the selectors steer whole connections onto pinned
//! paths, learn from what those connections saw, and never split a connection.

mod common;

use ccsim_core::ids::EndpointId;
use ccsim_core::scenario::*;
use ccsim_core::transport::Endpoint;
use ccsim_core::units::Dur;
use ccsim_core::Simulation;
use common::*;

/// `sources` on/off TCP-SACK sources behind edge `e`, each choosing among `paths`
/// bottlenecks e -> h<k> -> k (sink k). Path `lossy` (1-based) drops `loss` of its packets.
fn edge(sources: usize, paths: usize, lossy: Option<(usize, f64)>, kind: SelectKind) -> Scenario {
    let mut net = Net::new(300.0, 7);
    for k in 1..=paths {
        let h = format!("h{k}");
        net.duplex("e", &h, 100.0, 1.0, 200);
        let loss = match lossy {
            Some((p, l)) if p == k => LossSpec::Bernoulli(l),
            _ => LossSpec::None,
        };
        let q = QueueSpec::DropTail {
            limit: QueueLimit::Packets(100),
        };
        net.link(&h, "k", 10.0, 20.0, q.clone(), loss);
        net.link("k", &h, 10.0, 20.0, q, LossSpec::None);
    }
    for i in 0..sources {
        let s = format!("s{i}");
        net.duplex(&s, "e", 100.0, 1.0, 200);
        let mut t = tcp(RecoverySpec::Sack1);
        t.max_window = Some(16);
        t.delayed_ack = None;
        t.app = TcpApp::OnOff {
            on_mean: Dur::from_secs(4),
            off_mean: Dur::from_secs(2),
            start: between(0.0, 2.0),
        };
        t.select = Some(SelectSpec {
            kind,
            refresh: 2 * paths as u32,
            drop_metric: DropMetric::Count,
        });
        let f = net.flow(&format!("f{i}"), &s, "k", t);
        for k in 1..=paths {
            net.pin(f, &[&s, "e", &format!("h{k}"), "k"]);
        }
    }
    net.sc
}

fn receiver(sim: &Simulation, flow: usize) -> &ccsim_core::transport::tcp::TcpReceiver {
    match sim.endpoint(EndpointId(2 * flow as u32 + 1)) {
        Endpoint::TcpReceiver(r) => r,
        _ => unreachable!(),
    }
}

#[test]
fn the_drop_selector_moves_new_flows_off_a_lossy_path() {
    let sc = edge(2, 2, Some((1, 0.03)), SelectKind::Drop);
    let r = Simulation::new(sc).unwrap().finish();
    let (mut on_lossy, mut on_clean) = (0, 0);
    for f in &r.flows {
        on_lossy += f.paths[0].connections;
        on_clean += f.paths[1].connections;
    }
    // The refresh (R = 4) re-probes the lossy path after every four flows on the clean one,
    // so about a fifth of the flows still go there; without learning it would be half.
    let share = on_lossy as f64 / (on_lossy + on_clean) as f64;
    println!("drop selector: {on_lossy} flows on the lossy path, {on_clean} on the clean one");
    assert!(on_lossy + on_clean > 60, "too few flows to judge");
    assert!(share < 0.30, "lossy path share {share:.2}");
    let bytes = |k: usize| {
        r.flows
            .iter()
            .map(|f| f.paths[k].bytes_delivered)
            .sum::<u64>()
    };
    assert!(
        bytes(1) > 2 * bytes(0),
        "clean {} vs lossy {}",
        bytes(1),
        bytes(0)
    );
}

#[test]
fn no_connection_is_split_across_paths_and_per_path_bytes_add_up() {
    for kind in [SelectKind::Wrtt, SelectKind::RttVar] {
        let sc = edge(6, 4, Some((2, 0.01)), kind);
        let mut sim = Simulation::new(sc).unwrap();
        sim.run_until(ccsim_core::units::SimTime(Dur::from_secs(300).0));
        let mut connections = 0;
        for f in 0..6 {
            let rx = receiver(&sim, f);
            assert_eq!(
                rx.off_path_segments, 0,
                "{kind:?}: a connection changed path"
            );
        }
        let r = sim.finish();
        for f in &r.flows {
            let per_path: u64 = f.paths.iter().map(|p| p.bytes_delivered).sum();
            assert_eq!(per_path, f.bytes_delivered, "{}", f.name);
            let used = f.paths.iter().filter(|p| p.connections > 0).count();
            assert!(used >= 3, "{kind:?} {}: only {used} paths used", f.name);
            connections += f.connections;
            assert_eq!(
                f.paths.iter().map(|p| p.connections).sum::<u64>(),
                f.connections
            );
        }
        assert!(connections > 200, "{connections} connections");
    }
}
