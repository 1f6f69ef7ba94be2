//! Engine-level validation of the delay- and rate-aware controllers (Vegas, Westwood+,
//! CUBIC, FAST) on a single bottleneck: each test checks the property that defines the
//! algorithm, with the measured values printed (`cargo test --release --test controllers
//! -- --nocapture`). See docs/controllers/*.md.

mod common;

use ccsim_core::cc::AnyCc;
use ccsim_core::ids::EndpointId;
use ccsim_core::results::Table;
use ccsim_core::scenario::*;
use ccsim_core::transport::Endpoint;
use ccsim_core::units::{Dur, SimTime};
use ccsim_core::Simulation;
use common::*;

/// Index of the bottleneck link r->d in `single_bottleneck`.
const BOTTLENECK: f64 = 2.0;

/// `n` flows from s to d over 1 Gb/s / 1 ms access and a 10 Mb/s / 49 ms bottleneck with a
/// `queue`-packet DropTail buffer: base RTT ≈ 100 ms, BDP ≈ 83 packets of 1500 B.
fn single_bottleneck(cc: CcSpec, n: usize, queue: u64, secs: f64) -> Scenario {
    let mut net = Net::new(secs, 1);
    net.duplex("s", "r", 1000.0, 1.0, 10_000);
    net.duplex("r", "d", 10.0, 49.0, queue);
    for i in 0..n {
        let mut t = tcp(RecoverySpec::NewReno);
        t.cc = cc.clone();
        net.flow(&format!("f{i}"), "s", "d", t);
    }
    net.trace_all()
}

fn column<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    let i = t.names.iter().position(|n| *n == name).expect(name);
    &t.columns[i]
}

/// Mean and range of the bottleneck queue (packets) sampled after `from_s`.
fn queue_after(r: &ccsim_core::RunResult, from_s: f64) -> (f64, f64, f64) {
    let t = column(&r.series.links, "time_s");
    let l = column(&r.series.links, "link");
    let q = column(&r.series.links, "queue_packets");
    let xs: Vec<f64> = (0..t.len())
        .filter(|&i| t[i] >= from_s && l[i] == BOTTLENECK)
        .map(|i| q[i])
        .collect();
    assert!(!xs.is_empty());
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let lo = xs.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (mean, lo, hi)
}

fn run(sc: Scenario) -> ccsim_core::RunResult {
    Simulation::new(sc).expect("valid scenario").finish()
}

/// The last per-round queue estimate of the Vegas controller of flow 0.
fn vegas_diff(sim: &Simulation) -> Option<f64> {
    match sim.endpoint(EndpointId(0)) {
        Endpoint::TcpSender(s) => match s.cc() {
            AnyCc::Vegas(v) => v.last_diff(),
            _ => panic!("vegas expected"),
        },
        _ => panic!("sender expected"),
    }
}

#[test]
fn vegas_keeps_between_alpha_and_beta_packets_queued() {
    let wide = VegasSpec {
        alpha: 6.0,
        beta: 8.0,
        gamma: 1.0,
        ..VegasSpec::NS2
    };
    for (name, spec) in [
        ("ns2", VegasSpec::NS2),
        ("linux", VegasSpec::LINUX),
        ("6/8", wide),
    ] {
        let secs = 60.0;
        let mut sim = Simulation::new(single_bottleneck(
            CcSpec::new(&ccsim_core::cc::vegas::KIND, &spec),
            1,
            1000,
            secs,
        ))
        .unwrap();
        // The controller's own estimate, sampled every 100 ms after a 20 s warm-up.
        let mut diffs = Vec::new();
        let mut t = Dur::from_secs(20);
        while t.secs() < secs {
            sim.run_until(SimTime(t.0));
            diffs.extend(vegas_diff(&sim));
            t = t + Dur::from_millis(100);
        }
        let r = sim.finish();
        let dmean = diffs.iter().sum::<f64>() / diffs.len() as f64;
        let (mean, lo, hi) = queue_after(&r, 20.0);
        let goodput = r.flows[0].bytes_delivered as f64 * 8.0 / secs / 10e6;
        eprintln!(
            "vegas {name} (α={}, β={}): diff after 20 s mean {dmean:.2}; bottleneck queue \
             mean {mean:.2}, min {lo}, max {hi} packets; goodput/capacity {goodput:.3}; drops {}",
            spec.alpha,
            spec.beta,
            r.links[2].drops.total()
        );
        // The estimate Vegas steers by stays in [α, β] …
        assert!(
            dmean >= spec.alpha && dmean <= spec.beta,
            "{name}: mean diff {dmean}"
        );
        // … and so does the real queue, give or take the in-round burst: the round's
        // minimum RTT (what diff uses) sees the queue at its lowest.
        assert!(
            mean >= spec.alpha - 0.5 && mean <= spec.beta + 1.0,
            "{name}: mean queue {mean}"
        );
        assert!(
            lo >= spec.alpha - 2.0 && hi <= spec.beta + 2.0,
            "{lo}..{hi}"
        );
        assert_eq!(r.links[2].drops.total(), 0);
    }
}

/// The Westwood+ controller of flow 0.
fn westwood_estimate(sim: &Simulation) -> Option<f64> {
    match sim.endpoint(EndpointId(0)) {
        Endpoint::TcpSender(s) => match s.cc() {
            AnyCc::Westwood(w) => w.bandwidth_estimate().map(|r| r.as_f64()),
            _ => panic!("westwood expected"),
        },
        _ => panic!("sender expected"),
    }
}

#[test]
fn westwood_estimate_converges_to_the_bottleneck_rate() {
    for filter in [
        WestwoodFilter::Ewma,
        WestwoodFilter::Linux,
        WestwoodFilter::Tustin,
    ] {
        let spec = WestwoodSpec {
            filter,
            ..WestwoodSpec::default()
        };
        let mut sc = single_bottleneck(
            CcSpec::new(&ccsim_core::cc::westwood::KIND, &spec),
            1,
            1000,
            30.0,
        );
        // Lossless: the window is capped well above the BDP (83) and below the buffer.
        if let TransportSpec::Tcp(t) = &mut sc.flows[0].transport {
            t.max_window = Some(200);
        }
        let mut sim = Simulation::new(sc).unwrap();
        // The estimate counts payload: 10 Mb/s × 1460/1500.
        let expected = 10e6 * 1460.0 / 1500.0;
        let mut last = 0.0;
        for s in [5u64, 10, 20, 30] {
            sim.run_until(SimTime(Dur::from_secs(s).0));
            let b = westwood_estimate(&sim).expect("an estimate");
            eprintln!(
                "westwood {filter:?}: t = {s} s estimate {:.4} Mb/s ({:.4} of the payload rate)",
                b / 1e6,
                b / expected
            );
            last = b;
        }
        let r = sim.finish();
        assert_eq!(r.links[2].drops.total(), 0, "the path must be lossless");
        assert!(
            (last / expected - 1.0).abs() < 0.02,
            "{filter:?}: {last} vs {expected}"
        );
    }
}

#[test]
fn fast_keeps_alpha_packets_queued_per_flow() {
    let alpha = 20.0;
    let spec = FastSpec {
        alpha,
        ..FastSpec::default()
    };
    for n in [1usize, 2] {
        let r = run(single_bottleneck(
            CcSpec::new(&ccsim_core::cc::fast::KIND, &spec),
            n,
            1000,
            60.0,
        ));
        let (mean, lo, hi) = queue_after(&r, 30.0);
        let g: Vec<f64> = r.flows.iter().map(|f| f.bytes_delivered as f64).collect();
        eprintln!(
            "fast α={alpha}, {n} flow(s): bottleneck queue after 30 s mean {mean:.2} \
             (target {}), min {lo}, max {hi}; per-flow share Jain {:.4}; drops {}",
            alpha * n as f64,
            jain(&g),
            r.links[2].drops.total()
        );
        let target = alpha * n as f64;
        assert!(
            (mean - target).abs() <= 0.1 * target,
            "{n} flows: mean queue {mean} vs {target}"
        );
        assert!(jain(&g) > 0.99);
        assert_eq!(r.links[2].drops.total(), 0);
    }
}

/// The CUBIC controller of flow 0.
fn cubic_of(sim: &Simulation) -> &ccsim_core::cc::Cubic {
    match sim.endpoint(EndpointId(0)) {
        Endpoint::TcpSender(s) => match s.cc() {
            AnyCc::Cubic(c) => c,
            _ => panic!("cubic expected"),
        },
        _ => panic!("sender expected"),
    }
}

#[test]
fn cubic_window_follows_the_cubic_curve_after_a_loss_in_the_engine() {
    // One scripted loss at the bottleneck (the 400th data packet) in a buffer large
    // enough for no other loss during the test window.
    let mut net = Net::new(14.0, 1);
    net.duplex("s", "r", 1000.0, 1.0, 10_000);
    let q = QueueSpec::DropTail {
        limit: QueueLimit::Packets(2000),
    };
    net.link(
        "r",
        "d",
        10.0,
        49.0,
        q.clone(),
        LossSpec::Scripted(vec![400]),
    );
    net.link("d", "r", 10.0, 49.0, q, LossSpec::None);
    let mut t = tcp(RecoverySpec::Sack);
    t.cc = CcSpec::new(&ccsim_core::cc::cubic::KIND, &CubicSpec::default());
    net.flow("f", "s", "d", t);
    let mut sim = Simulation::new(net.trace_all()).unwrap();
    // Run until the congestion-avoidance stage after the loss has begun.
    let mut now = Dur::ZERO;
    while cubic_of(&sim).epoch_start().is_none() {
        now = now + Dur::from_millis(10);
        assert!(now.secs() < 10.0, "no loss happened");
        sim.run_until(SimTime(now.0));
    }
    let (w_max, k, start) = {
        let c = cubic_of(&sim);
        (c.w_max(), c.k().unwrap(), c.epoch_start().unwrap())
    };
    let expected_k = (w_max * 0.3 / 0.4).cbrt();
    eprintln!(
        "cubic engine: loss at W_max = {w_max:.1} segments, epoch at {:.3} s, K = {k:.3} s \
         (cbrt(W_max·0.3/0.4) = {expected_k:.3})",
        start.secs()
    );
    assert!((k - expected_k).abs() < 1e-6);
    let mut worst: f64 = 0.0;
    let mut report = Vec::new();
    for step in 1..=100 {
        let at = start + Dur::from_millis(100 * step);
        sim.run_until(at);
        let (cwnd, srtt) = match sim.endpoint(EndpointId(0)) {
            Endpoint::TcpSender(s) => (cubic_of(&sim).cwnd_segments(), s.rtt().srtt().secs()),
            _ => unreachable!(),
        };
        let t = at.since(start).secs();
        let w = |x: f64| 0.4 * (x - k).powi(3) + w_max;
        // The window chases W(t + RTT): it lies between the curve one RTT back and one RTT
        // ahead.
        let (lo, hi) = (w(t - srtt), w(t + srtt));
        let err = if cwnd < lo {
            (lo - cwnd) / w(t)
        } else if cwnd > hi {
            (cwnd - hi) / w(t)
        } else {
            0.0
        };
        worst = worst.max(err);
        if step % 20 == 0 {
            report.push(format!("t={t:.1}s cwnd {cwnd:.1} W(t) {:.1}", w(t)));
        }
    }
    eprintln!(
        "cubic engine: {}; worst relative error {worst:.4}",
        report.join(", ")
    );
    assert!(worst < 0.02, "{worst}");
    assert_eq!(sim.finish().flows[0].timeouts, 0);
}
