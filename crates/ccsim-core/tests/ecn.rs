//! ECN end to end and DCTCP on a dumbbell with a step marker (RFC 3168, RFC 8257; Alizadeh
//! et al., SIGCOMM 2010 §3.3).

mod common;

use ccsim_core::results::{DropCause, Table};
use ccsim_core::scenario::*;
use ccsim_core::units::Dur;
use ccsim_core::Simulation;
use common::*;

/// N DCTCP (or other) flows through a 1 Gb/s bottleneck with a step marker at `k` packets;
/// access links 10 Gb/s; base RTT 1 ms. Samples the bottleneck queue every 50 µs.
fn dctcp_dumbbell(n: usize, k: u64, cc: CcSpec, ecn: EcnMode, secs: f64) -> (Scenario, f64) {
    let mut net = Net::new(secs, 1);
    let step = QueueSpec::Step(StepSpec { k, limit: 1000 });
    let bottleneck = net.link("r1", "r2", 1000.0, 0.3, step, LossSpec::None);
    net.link(
        "r2",
        "r1",
        1000.0,
        0.3,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(1000),
        },
        LossSpec::None,
    );
    for i in 0..n {
        net.duplex(&format!("s{i}"), "r1", 10_000.0, 0.1, 1000);
        net.duplex("r2", &format!("d{i}"), 10_000.0, 0.1, 1000);
        let mut t = tcp(RecoverySpec::Sack);
        t.cc = cc.clone();
        t.ecn = ecn;
        t.rto.min = Dur::from_millis(10);
        t.app = TcpApp::Bulk {
            size: None,
            start: between(0.0, 0.01),
        };
        net.flow(&format!("f{i}"), &format!("s{i}"), &format!("d{i}"), t);
    }
    net.sc.trace.interval = Dur::from_micros(50);
    net.sc.trace.links = vec![bottleneck];
    // C·RTT in 1500-byte packets: 2 × (0.1 + 0.3 + 0.1) ms of propagation plus one data
    // packet's transmission on each hop (10 G, 1 G, 10 G).
    let rtt = 2.0 * 0.5e-3 + 1500.0 * 8.0 * (2.0 / 10e9 + 1.0 / 1e9);
    (net.sc, 1e9 * rtt / (1500.0 * 8.0))
}

fn dctcp() -> CcSpec {
    CcSpec::new(&ccsim_core::cc::dctcp::KIND, &DctcpConfig::default())
}

fn column<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    let i = t.names.iter().position(|n| *n == name).expect("column");
    &t.columns[i]
}

/// Queue samples of the bottleneck after `from_s`.
fn queue_samples(r: &ccsim_core::RunResult, from_s: f64) -> Vec<f64> {
    let t = column(&r.series.links, "time_s");
    let q = column(&r.series.links, "queue_packets");
    t.iter()
        .zip(q)
        .filter(|(t, _)| **t >= from_s)
        .map(|(_, q)| *q)
        .collect()
}

fn percentile(xs: &[f64], p: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// The DCTCP analysis (Alizadeh et al., SIGCOMM 2010, §3.3) for N synchronised flows of
/// equal RTT behind a step marker at K: the queue peaks at Q_max = K + N and its
/// sawtooth has amplitude A = ½·√(2N(C·RTT + K)) packets, so Q_min = K + N − A (their
/// eqs. for D, A and Q_min; C·RTT in packets). Derivation: every flow's window peaks at
/// W* = (C·RTT + K)/N (+1 in the marked round), α ≈ √(2/W*) for the fraction of a
/// window marked in that round, each flow cuts W*·α/2, and N flows together
/// A = N·W*·α/2 = ½·√(2N(C·RTT + K)).
fn predicted_amplitude(n: usize, bdp: f64, k: u64) -> f64 {
    0.5 * (2.0 * n as f64 * (bdp + k as f64)).sqrt()
}

struct Steady {
    /// Queue samples after the warm-up.
    q: Vec<f64>,
    /// Bottleneck utilisation after the warm-up (bytes out of the bottleneck per flow
    /// sample, summed: payload goodput + headers).
    goodput_bps: f64,
}

fn steady(r: &ccsim_core::RunResult, from_s: f64) -> Steady {
    let t = column(&r.series.flows, "time_s");
    let rate = column(&r.series.flows, "rate_bps");
    let rows: Vec<f64> = t
        .iter()
        .zip(rate)
        .filter(|(t, _)| **t > from_s)
        .map(|(_, r)| *r)
        .collect();
    let span = t.last().unwrap() - from_s;
    let interval = 50e-6;
    Steady {
        q: queue_samples(r, from_s),
        goodput_bps: rows.iter().sum::<f64>() * interval / span,
    }
}

fn run_dctcp(n: usize, k: u64) -> (Steady, f64, ccsim_core::RunResult) {
    let (mut sc, bdp) = dctcp_dumbbell(n, k, dctcp(), EcnMode::Dctcp, 1.0);
    sc.trace.flows = (0..n).collect();
    let r = Simulation::new(sc).unwrap().finish();
    assert!(r.conservation.holds());
    (steady(&r, 0.3), bdp, r)
}

/// 1 Gb/s of 1460-byte payload in 1500-byte packets.
const CAPACITY_GOODPUT: f64 = 1e9 * 1460.0 / 1500.0;

#[test]
fn dctcp_queue_oscillates_around_k_with_the_predicted_amplitude() {
    for (n, k) in [(2, 40), (2, 20), (10, 40)] {
        let (s, bdp, r) = run_dctcp(n, k);
        let a = predicted_amplitude(n, bdp, k);
        let (lo, hi) = (percentile(&s.q, 0.01), percentile(&s.q, 0.99));
        let q_max = (k + n as u64) as f64;
        let median = percentile(&s.q, 0.5);
        let ctx = format!("N {n} K {k}: queue p1 {lo} p50 {median} p99 {hi}, A {a:.1}");
        // Amplitude (the p1–p99 spread of the sawtooth) within 25 % of A.
        assert!(((hi - lo) - a).abs() <= 0.25 * a, "{ctx}");
        // The peak is K + N, the trough K + N − A (each within 3 packets).
        assert!((hi - q_max).abs() <= 3.0, "{ctx}");
        assert!((lo - (q_max - a)).abs() <= 3.0 + 0.25 * a, "{ctx}");
        // Around K: the median between the trough and the peak.
        assert!(median > q_max - a && median < q_max, "{ctx}");
        // Marks, not losses, keep it there.
        assert_eq!(r.links[0].drops.total(), 0, "{ctx}");
        assert!(r.links[0].ecn_marks > 0, "{ctx}");
        assert!(r
            .flows
            .iter()
            .all(|f| f.retransmissions == 0 && f.ecn_reductions > 0));
    }
}

#[test]
fn dctcp_keeps_the_link_full_for_k_above_c_rtt_over_7_and_not_far_below() {
    // §3.3: Q_min > 0 for every N when K > C·RTT/7 (84.5/7 ≈ 12 packets here).
    let (s, bdp, _) = run_dctcp(2, 20);
    assert!(20.0 > bdp / 7.0);
    let empty = s.q.iter().filter(|q| **q == 0.0).count();
    assert_eq!(empty, 0, "the queue never drains above the bound");
    assert!(
        s.goodput_bps > 0.995 * CAPACITY_GOODPUT,
        "{}",
        s.goodput_bps
    );
    // K = 2 is far below it: Q_min = K + N − A < 0 predicts idle periods.
    let (s, bdp, _) = run_dctcp(2, 2);
    assert!((2 + 2) as f64 - predicted_amplitude(2, bdp, 2) < 0.0);
    let empty = s.q.iter().filter(|q| **q == 0.0).count();
    assert!(
        empty as f64 > 0.01 * s.q.len() as f64,
        "{empty} of {}",
        s.q.len()
    );
    assert!(s.goodput_bps < 0.99 * CAPACITY_GOODPUT, "{}", s.goodput_bps);
}

#[test]
fn rfc3168_reno_reacts_to_marks_once_per_window_without_losses() {
    // Reno with RFC 3168 ECN through the step marker: marks instead of drops, each
    // reduction a window apart (no more reductions than marks, far fewer with delayed
    // ACKs latching ECE until CWR), no retransmission.
    let (mut sc, _) = dctcp_dumbbell(2, 20, CcSpec::default(), EcnMode::Rfc3168, 1.0);
    sc.trace.flows = vec![0, 1];
    let r = Simulation::new(sc).unwrap().finish();
    assert!(r.conservation.holds());
    assert_eq!(r.links[0].drops.total(), 0);
    for f in &r.flows {
        assert_eq!(f.retransmissions, 0, "{}", f.name);
        assert!(f.ecn_reductions > 10, "{}: {}", f.name, f.ecn_reductions);
        assert!(
            f.ecn_reductions * 5 < f.ecn_marks,
            "{}: {} {}",
            f.name,
            f.ecn_reductions,
            f.ecn_marks
        );
    }
    // The flows' marked segments are the link's marks (the ACK path marks nothing).
    let flow_marks: u64 = r.flows.iter().map(|f| f.ecn_marks).sum();
    assert!(flow_marks <= r.links[0].ecn_marks);
    assert!(
        flow_marks + 2 * 60 >= r.links[0].ecn_marks,
        "{flow_marks} {}",
        r.links[0].ecn_marks
    );
    // Reno halves where DCTCP cuts by α/2: DCTCP keeps a fuller pipe at small K.
    let (s, _, _) = run_dctcp(2, 5);
    let reno = steady(&r, 0.3);
    assert!(
        reno.q.iter().filter(|q| **q == 0.0).count() > s.q.iter().filter(|q| **q == 0.0).count()
    );
}

#[test]
fn flows_without_ecn_are_dropped_where_ect_ones_are_marked() {
    // RFC 3168 §5: the step marker drops what it cannot mark.
    let (sc, _) = dctcp_dumbbell(2, 20, CcSpec::default(), EcnMode::Off, 1.0);
    let r = Simulation::new(sc).unwrap().finish();
    assert!(r.conservation.holds());
    assert_eq!(r.links[0].ecn_marks, 0);
    assert!(r.links[0].drops.0[DropCause::Aqm as usize] > 0);
    assert_eq!(r.links[0].drops.0[DropCause::QueueOverflow as usize], 0);
    assert!(r
        .flows
        .iter()
        .all(|f| f.ecn_marks == 0 && f.retransmissions > 0));
}

#[test]
fn red_with_ecn_marks_what_it_would_drop_early() {
    let mut net = Net::new(20.0, 3);
    let red = QueueSpec::Red(RedSpec {
        min_th: Some(5.0),
        max_th: Some(15.0),
        limit: 100,
        ecn: true,
        ..RedSpec::default()
    });
    net.link("r1", "r2", 10.0, 10.0, red.clone(), LossSpec::None);
    net.link("r2", "r1", 10.0, 10.0, red, LossSpec::None);
    net.duplex("a", "r1", 100.0, 1.0, 100);
    net.duplex("r2", "b", 100.0, 1.0, 100);
    net.duplex("c", "r1", 100.0, 1.0, 100);
    net.duplex("r2", "d", 100.0, 1.0, 100);
    let mut ect = tcp(RecoverySpec::Sack);
    ect.ecn = EcnMode::Rfc3168;
    net.flow("ect", "a", "b", ect);
    net.flow("plain", "c", "d", tcp(RecoverySpec::Sack));
    let r = Simulation::new(net.sc).unwrap().finish();
    assert!(r.conservation.holds());
    let (e, p) = (&r.flows[0], &r.flows[1]);
    assert!(e.ecn_marks > 0 && e.ecn_reductions > 0);
    // Early drops of an ECT flow become marks; what RED still drops of it are forced
    // drops (average above 2·max_th) and retransmissions, which are not ECT.
    let red = |f: &ccsim_core::results::FlowSummary| f.drops.0[DropCause::Red as usize];
    assert!(red(e) * 10 < red(p), "{} {}", red(e), red(p));
    assert!(e.ecn_marks > red(p));
    assert_eq!(p.ecn_marks, 0);
    assert_eq!(r.links[0].ecn_marks, e.ecn_marks);
}

#[test]
fn dctcp_without_its_echo_is_refused_with_a_located_message() {
    let doc = r#"
[simulation]
duration = "1s"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "1ms"
[[flow]]
from = "a"
to = "b"
cc = "dctcp"
ecn = "rfc3168"
app = "bulk"
"#;
    let e = ccsim_core::scenario::from_toml_str(doc, "t.toml").unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("flow[0].ecn") && msg.contains("needs ecn = \"dctcp\""),
        "{msg}"
    );
    // Left out, it follows the controller.
    let ok = doc.replace("ecn = \"rfc3168\"\n", "");
    let sc = ccsim_core::scenario::from_toml_str(&ok, "t.toml").unwrap();
    match &sc.flows[0].transport {
        TransportSpec::Tcp(t) => assert_eq!(t.ecn, EcnMode::Dctcp),
        _ => unreachable!(),
    }
}
