//! Engine-level validation of BBR v1 (docs/controllers/bbr.md): a lone flow converges to the
//! bottleneck rate with a queue below one BDP; PROBE_RTT comes every 10 s; against CUBIC its
//! share depends on the buffer depth. Measured values are printed
//! (`cargo test --release --test bbr -- --nocapture`).

mod common;

use ccsim_core::cc::bbr::{Bbr, Mode};
use ccsim_core::cc::{AnyCc, CcSpec};
use ccsim_core::ids::EndpointId;
use ccsim_core::results::Table;
use ccsim_core::scenario::*;
use ccsim_core::transport::Endpoint;
use ccsim_core::units::{Dur, SimTime};
use ccsim_core::Simulation;
use common::*;

/// Index of the bottleneck link r->d in `path`.
const BOTTLENECK: f64 = 2.0;
const MSS: f64 = 1460.0;

fn bbr() -> CcSpec {
    CcSpec::new(
        &ccsim_core::cc::bbr::KIND,
        &ccsim_core::cc::bbr::BbrConfig::default(),
    )
}

fn cubic() -> CcSpec {
    CcSpec::new(
        &ccsim_core::cc::cubic::KIND,
        &ccsim_core::cc::cubic::CubicSpec::default(),
    )
}

/// Flows from s to d over 1 Gb/s / 1 ms access and a 10 Mb/s / 49 ms bottleneck with a
/// `queue`-packet DropTail buffer: base RTT ≈ 100 ms, BDP = 10 Mb/s · 100 ms ≈ 83 packets
/// of 1500 B. Each flow is (name, controller), SACK recovery.
fn path(flows: &[(&str, CcSpec)], queue: u64, secs: f64) -> Scenario {
    let mut net = Net::new(secs, 1);
    net.duplex("s", "r", 1000.0, 1.0, 10_000);
    net.duplex("r", "d", 10.0, 49.0, queue);
    for (name, cc) in flows {
        let mut t = tcp(RecoverySpec::Sack);
        t.cc = cc.clone();
        net.flow(name, "s", "d", t);
    }
    net.trace_all()
}

fn column<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    let i = t.names.iter().position(|n| *n == name).expect(name);
    &t.columns[i]
}

/// The bottleneck queue (packets) sampled from `from_s` on.
fn queue_from(r: &ccsim_core::RunResult, from_s: f64) -> Vec<f64> {
    let t = column(&r.series.links, "time_s");
    let l = column(&r.series.links, "link");
    let q = column(&r.series.links, "queue_packets");
    (0..t.len())
        .filter(|&i| t[i] >= from_s && l[i] == BOTTLENECK)
        .map(|i| q[i])
        .collect()
}

fn bbr_of(sim: &Simulation, flow: u32) -> &Bbr {
    match sim.endpoint(EndpointId(2 * flow)) {
        Endpoint::TcpSender(s) => match s.cc() {
            AnyCc::Boxed(b) => b.as_any().downcast_ref::<Bbr>().expect("bbr"),
            _ => panic!("bbr expected"),
        },
        _ => panic!("sender expected"),
    }
}

/// BDP of `path` in packets: 10 Mb/s × 100 ms / 1500 B.
const BDP: f64 = 83.3;

/// The times BBR flow `flow` entered each state, sampling its controller every 10 ms.
fn mode_changes(sc: Scenario, flow: u32) -> (Vec<(f64, Mode)>, ccsim_core::RunResult) {
    let end = SimTime::ZERO + sc.duration;
    let mut sim = Simulation::new(sc).expect("valid scenario");
    let mut changes: Vec<(f64, Mode)> = Vec::new();
    let mut t = SimTime::ZERO;
    while t < end {
        t = t + Dur::from_millis(10);
        sim.run_until(t);
        let m = bbr_of(&sim, flow).mode();
        if changes.last().map(|c| c.1) != Some(m) {
            changes.push((t.secs(), m));
        }
    }
    (changes, sim.finish())
}

#[test]
fn a_lone_flow_converges_to_the_bottleneck_rate_with_a_queue_below_one_bdp() {
    // draft-00 §1, §4.3: after STARTUP and DRAIN, BBR paces at BtlBw and keeps the queue
    // small: the BDP plus what the 5/4 phase adds for one round, drained by the 3/4 phase.
    let sc = path(&[("b", bbr())], 1000, 30.0);
    let mut sim = Simulation::new(sc).expect("valid scenario");
    sim.run_until(SimTime::ZERO + Dur::from_secs(5));
    let b = bbr_of(&sim, 0);
    let payload_rate = 10e6 / 8.0 * 1460.0 / 1500.0; // bytes/s of payload at 10 Mb/s
    println!(
        "BtlBw {:.4} MB/s (payload capacity {:.4}), RTprop {:?}",
        b.btl_bw() / 1e6,
        payload_rate / 1e6,
        b.rt_prop()
    );
    assert_eq!(b.mode(), Mode::ProbeBw);
    assert!(
        (b.btl_bw() / payload_rate - 1.0).abs() < 0.02,
        "BtlBw {}",
        b.btl_bw()
    );
    let r = sim.finish();
    let q = queue_from(&r, 3.0);
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    let max = q.iter().cloned().fold(0.0, f64::max);
    let goodput = r.flows[0].goodput_bps;
    println!(
        "goodput {:.3} Mb/s, queue after 3 s: mean {mean:.1}, max {max} packets (BDP {BDP})",
        goodput / 1e6
    );
    assert!(max < BDP, "queue {max} packets is not below one BDP");
    assert!(goodput > 0.9 * 10e6 * 1460.0 / 1500.0, "goodput {goodput}");
    assert_eq!(
        r.flows[0].retransmissions, 0,
        "no loss with a 1000-packet buffer"
    );
}

#[test]
fn probe_rtt_comes_every_ten_seconds_and_holds_four_packets() {
    // draft-00 §4.3.5: RTprop not refreshed for 10 s starts PROBE_RTT; it lasts 200 ms
    // plus a round at min_cwnd = 4 packets, after which the 10 s start again.
    let (changes, r) = mode_changes(path(&[("b", bbr())], 1000, 45.0), 0);
    let probes: Vec<f64> = changes
        .iter()
        .filter(|c| c.1 == Mode::ProbeRtt)
        .map(|c| c.0)
        .collect();
    let exits: Vec<f64> = changes
        .windows(2)
        .filter(|w| w[0].1 == Mode::ProbeRtt)
        .map(|w| w[1].0)
        .collect();
    println!("PROBE_RTT at {probes:?}, left at {exits:?}");
    assert!(probes.len() >= 3, "{changes:?}");
    for (p, e) in probes.iter().zip(&exits) {
        let held = e - p;
        assert!((0.2..0.6).contains(&held), "PROBE_RTT held {held} s");
    }
    // The next one starts 10 s after RTprop was last refreshed: at the end of PROBE_RTT,
    // or by a sample of the first rounds after it, while the queue it drained is still
    // empty; so 10 s after its end, plus at most a few RTTs.
    for (e, p) in exits.iter().zip(&probes[1..]) {
        let gap = p - e;
        assert!(
            (9.99..11.0).contains(&gap),
            "{gap} s from a PROBE_RTT's end to the next"
        );
    }
    // The window while in PROBE_RTT is min_cwnd: 4 segments.
    let t = column(&r.series.flows, "time_s");
    let w = column(&r.series.flows, "cwnd_bytes");
    let inside: Vec<f64> = (0..t.len())
        .filter(|&i| {
            probes
                .iter()
                .zip(&exits)
                .any(|(p, e)| t[i] > p + 0.01 && t[i] < e - 0.01)
        })
        .map(|i| w[i])
        .collect();
    assert!(!inside.is_empty());
    assert!(inside.iter().all(|&c| c <= 4.0 * MSS), "{inside:?}");
}

/// BBR's share of the goodput against `n_cubic` CUBIC flows behind a `queue`-packet buffer,
/// measured after the first 10 s of a 60 s run.
fn bbr_share(queue: u64, n_cubic: usize) -> f64 {
    let mut flows = vec![("bbr", bbr())];
    let names: Vec<String> = (0..n_cubic).map(|i| format!("cubic{i}")).collect();
    for n in &names {
        flows.push((n.as_str(), cubic()));
    }
    let r = Simulation::new(path(&flows, queue, 60.0))
        .expect("valid")
        .finish();
    let t = column(&r.series.flows, "time_s");
    let f = column(&r.series.flows, "flow");
    let rate = column(&r.series.flows, "rate_bps");
    let mut sums = vec![0.0; flows.len()];
    for i in 0..t.len() {
        if t[i] > 10.0 {
            sums[f[i] as usize] += rate[i];
        }
    }
    sums[0] / sums.iter().sum::<f64>()
}

#[test]
fn against_cubic_bbr_takes_more_in_shallow_buffers_and_less_in_deep_ones() {
    // Hock, Bless & Zitterbart, "Experimental evaluation of BBR congestion control"
    // (ICNP 2017) §V: with buffers below about a BDP BBR starves CUBIC (CUBIC's losses come
    // with every BBR probe); with large buffers CUBIC fills the buffer, BBR is held at its
    // 2·BDP window and gets the smaller share. Ware et al., "Modeling BBR's interactions
    // with loss-based congestion control" (IMC 2019): in deep buffers BBR's share is set by
    // its in-flight cap, and falls as the buffer grows. The claim checked: the share falls
    // as the buffer deepens, above one half at 0.5 BDP, below one half at 8 BDP.
    let sizes = [0.5, 1.0, 2.0, 4.0, 8.0];
    let shares: Vec<f64> = sizes
        .iter()
        .map(|&k| bbr_share((k * BDP).round() as u64, 1))
        .collect();
    for (k, s) in sizes.iter().zip(&shares) {
        println!("buffer {k} BDP: BBR share {s:.3} against one CUBIC flow");
    }
    assert!(shares[0] > 0.5, "{shares:?}");
    assert!(shares[4] < 0.5, "{shares:?}");
    assert!(shares[0] > shares[2] && shares[2] > shares[4], "{shares:?}");
}

#[test]
fn in_a_shallow_buffer_one_bbr_flow_outweighs_several_cubic_flows() {
    // Hock et al. 2017 §V-B / Ware et al. 2019 §4: with shallow buffers BBR's share does
    // not shrink as 1/(n+1) with the number n of loss-based competitors.
    let share = bbr_share((0.5 * BDP).round() as u64, 3);
    println!("buffer 0.5 BDP: BBR share {share:.3} against three CUBIC flows (fair: 0.25)");
    assert!(share > 0.4, "{share}");
}

/// `recovery = "prr"` does not apply to BBR (it sets its own window in recovery, as Linux
/// runs PRR only for controllers without `cong_control`): with a shallow buffer that drops,
/// a BBR flow sends exactly what it sends with SACK recovery, while CUBIC's flows differ.
#[test]
fn prr_leaves_bbr_to_its_own_window_in_recovery() {
    let run = |cc: CcSpec, recovery: RecoverySpec| {
        let mut net = Net::new(20.0, 1);
        net.duplex("s", "r", 1000.0, 1.0, 10_000);
        net.duplex("r", "d", 10.0, 49.0, 20);
        let mut t = tcp(recovery);
        t.cc = cc;
        net.flow("f", "s", "d", t);
        let r = Simulation::new(net.trace_all()).expect("valid").finish();
        let f = &r.flows[0];
        (f.data_packets_sent, f.retransmissions, f.fast_recoveries)
    };
    let (bbr_prr, bbr_sack) = (
        run(bbr(), RecoverySpec::Prr),
        run(bbr(), RecoverySpec::Sack),
    );
    assert!(
        bbr_sack.1 > 0 && bbr_sack.2 > 0,
        "the buffer must drop: {bbr_sack:?}"
    );
    assert_eq!(bbr_prr, bbr_sack);
    let (cubic_prr, cubic_sack) = (
        run(cubic(), RecoverySpec::Prr),
        run(cubic(), RecoverySpec::Sack),
    );
    assert_ne!(cubic_prr, cubic_sack, "PRR still shapes CUBIC's recovery");
}
