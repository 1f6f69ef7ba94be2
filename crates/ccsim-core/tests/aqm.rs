//! Active queue management on a dumbbell: CoDel (RFC 8289), PIE (RFC 8033), FQ-CoDel (RFC 8290).

mod common;

use ccsim_core::results::{DropCause, Table};
use ccsim_core::scenario::*;
use ccsim_core::units::Dur;
use ccsim_core::Simulation;
use common::*;

fn column<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    let i = t.names.iter().position(|n| *n == name).expect("column");
    &t.columns[i]
}

fn percentile(xs: &[f64], p: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p).round() as usize]
}

const RATE_MBPS: f64 = 10.0;

/// `n` greedy Reno flows (SACK) through a 10 Mb/s, 20 ms bottleneck with `queue`; access
/// links 100 Mb/s, 5 ms (base RTT 60 ms). Samples the bottleneck every 10 ms.
fn dumbbell_with(queue: QueueSpec, n: usize, secs: f64, ecn: EcnMode) -> Scenario {
    let mut net = Net::new(secs, 1);
    let b = net.link("r1", "r2", RATE_MBPS, 20.0, queue, LossSpec::None);
    net.link(
        "r2",
        "r1",
        RATE_MBPS,
        20.0,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(1000),
        },
        LossSpec::None,
    );
    for i in 0..n {
        net.duplex(&format!("s{i}"), "r1", 100.0, 5.0, 1000);
        net.duplex("r2", &format!("d{i}"), 100.0, 5.0, 1000);
        let mut t = tcp(RecoverySpec::Sack);
        t.ecn = ecn;
        t.rto.min = Dur::from_millis(200);
        t.app = TcpApp::Bulk {
            size: None,
            start: between(0.0, 1.0),
        };
        net.flow(&format!("f{i}"), &format!("s{i}"), &format!("d{i}"), t);
    }
    net.sc.trace.interval = Dur::from_millis(10);
    net.sc.trace.links = vec![b];
    net.sc
}

/// Queueing delay (ms) of the bottleneck's samples after `from_s`: the bytes held (the
/// packet in transmission included) over the rate.
fn queue_delay_ms(r: &ccsim_core::RunResult, from_s: f64) -> Vec<f64> {
    let t = column(&r.series.links, "time_s");
    let b = column(&r.series.links, "queue_bytes");
    t.iter()
        .zip(b)
        .filter(|(t, _)| **t >= from_s)
        .map(|(_, b)| b * 8.0 / (RATE_MBPS * 1e6) * 1e3)
        .collect()
}

/// The standing queue (RFC 8289 §2: the queue that persists for longer than an interval):
/// the minimum of the delay samples within each `window_ms` window.
fn standing_ms(d: &[f64], samples_per_window: usize) -> Vec<f64> {
    d.chunks(samples_per_window)
        .map(|w| w.iter().cloned().fold(f64::INFINITY, f64::min))
        .collect()
}

#[test]
fn codel_holds_the_standing_queue_near_its_target() {
    let codel = QueueSpec::Codel(CodelSpec::default());
    let r = Simulation::new(dumbbell_with(codel, 4, 60.0, EcnMode::Off))
        .unwrap()
        .finish();
    assert!(r.conservation.holds());
    let d = queue_delay_ms(&r, 10.0);
    let (p50, p90) = (percentile(&d, 0.5), percentile(&d, 0.9));
    let standing = standing_ms(&d, 10);
    let s50 = percentile(&standing, 0.5);
    let aqm = r.links[0].drops.0[DropCause::Aqm as usize];
    eprintln!("codel: delay p50 {p50:.2} ms p90 {p90:.2} ms, standing (100 ms minimum) p50 {s50:.2} p90 {:.2} ms, util {:.3}, aqm drops {aqm}", percentile(&standing, 0.9), r.links[0].utilisation);
    // RFC 8289 §4.4: the standing queue (the minimum over an interval) is kept near
    // target (5 ms). The samples include the packet in transmission (1.2 ms at 10 Mb/s)
    // and the Reno sawtooth above the standing queue.
    assert!(s50 > 2.5 && s50 < 7.5, "median standing queue {s50:.2} ms");
    assert!(
        p50 < 15.0 && p90 < 25.0,
        "delay p50 {p50:.2} ms, p90 {p90:.2} ms"
    );
    assert!(aqm > 0 && r.links[0].drops.0[DropCause::QueueOverflow as usize] == 0);
    assert!(r.links[0].utilisation > 0.9, "{}", r.links[0].utilisation);
    // The same flows behind a DropTail queue of the same size fill it.
    let tail = QueueSpec::DropTail {
        limit: QueueLimit::Packets(1000),
    };
    let r = Simulation::new(dumbbell_with(tail, 4, 60.0, EcnMode::Off))
        .unwrap()
        .finish();
    let d = queue_delay_ms(&r, 10.0);
    eprintln!("droptail: p50 {:.2} ms", percentile(&d, 0.5));
    assert!(percentile(&d, 0.5) > 10.0 * p50);
}

#[test]
fn codel_with_ecn_marks_instead_of_dropping() {
    let codel = QueueSpec::Codel(CodelSpec {
        ecn: true,
        ..CodelSpec::default()
    });
    let r = Simulation::new(dumbbell_with(codel, 4, 30.0, EcnMode::Rfc3168))
        .unwrap()
        .finish();
    assert!(r.conservation.holds());
    let d = queue_delay_ms(&r, 10.0);
    let s50 = percentile(&standing_ms(&d, 10), 0.5);
    eprintln!(
        "codel ecn: standing p50 {s50:.2} ms, marks {} drops {:?}",
        r.links[0].ecn_marks, r.links[0].drops
    );
    assert!(r.links[0].ecn_marks > 0);
    assert_eq!(
        r.links[0].drops.0[DropCause::Aqm as usize],
        0,
        "ECT data is marked; only retransmissions could be dropped, and there are none"
    );
    assert!(s50 > 2.5 && s50 < 7.5, "{s50}");
    assert!(r.flows.iter().all(|f| f.ecn_reductions > 0));
}

#[test]
fn codel_runs_the_same_in_both_link_models_and_refuses_two_threads() {
    let codel = QueueSpec::Codel(CodelSpec::default());
    let mut a = dumbbell_with(codel, 3, 8.0, EcnMode::Off);
    let mut b = a.clone();
    b.link_model = LinkModel::PerHop;
    let ra = Simulation::new(a.clone()).unwrap().finish();
    let rb = Simulation::new(b).unwrap().finish();
    let key = |r: &ccsim_core::RunResult| {
        let mut r = r.clone();
        r.events = 0;
        r.warnings.clear();
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(key(&ra), key(&rb));
    assert_eq!(
        column(&ra.series.links, "queue_bytes"),
        column(&rb.series.links, "queue_bytes")
    );
    a.threads = 2;
    let rc = Simulation::new(a).unwrap().finish();
    assert!(
        rc.warnings.iter().any(|w| w.contains("codel")),
        "{:?}",
        rc.warnings
    );
    assert_eq!(key(&ra), key(&rc));
}

#[test]
fn pie_holds_the_queueing_delay_near_its_target() {
    // RFC 8033 §1, §4: PIE steers the (mean) queueing delay to QDELAY_REF = 15 ms with
    // greedy flows, where DropTail of the same size fills the buffer.
    let pie = QueueSpec::Pie(PieSpec::default());
    let r = Simulation::new(dumbbell_with(pie, 4, 60.0, EcnMode::Off))
        .unwrap()
        .finish();
    assert!(r.conservation.holds());
    let d = queue_delay_ms(&r, 10.0);
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    let (p50, p90) = (percentile(&d, 0.5), percentile(&d, 0.9));
    let aqm = r.links[0].drops.0[DropCause::Aqm as usize];
    eprintln!(
        "pie: delay mean {mean:.2} ms p50 {p50:.2} p90 {p90:.2}, util {:.3}, aqm drops {aqm}, tail {}",
        r.links[0].utilisation,
        r.links[0].drops.0[DropCause::QueueOverflow as usize]
    );
    assert!(
        mean > 10.0 && mean < 20.0,
        "mean queueing delay {mean:.2} ms"
    );
    assert!(aqm > 0 && r.links[0].drops.0[DropCause::QueueOverflow as usize] == 0);
    assert!(r.links[0].utilisation > 0.9, "{}", r.links[0].utilisation);
}

#[test]
fn pie_with_ecn_marks_at_low_probability() {
    let pie = QueueSpec::Pie(PieSpec {
        ecn: true,
        ..PieSpec::default()
    });
    let r = Simulation::new(dumbbell_with(pie, 4, 30.0, EcnMode::Rfc3168))
        .unwrap()
        .finish();
    assert!(r.conservation.holds());
    let d = queue_delay_ms(&r, 10.0);
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    eprintln!(
        "pie ecn: delay mean {mean:.2} ms, marks {} drops {:?}",
        r.links[0].ecn_marks, r.links[0].drops
    );
    assert!(r.links[0].ecn_marks > 0);
    assert!(r.flows.iter().all(|f| f.ecn_reductions > 0));
    assert!(mean > 10.0 && mean < 20.0, "{mean}");
}

/// One greedy Reno flow (if `bulk`) and a 0.5 Mb/s CBR flow of 200-byte datagrams through
/// the 10 Mb/s bottleneck with `queue`. Returns the CBR flow's mean one-way delay (ms).
fn cbr_delay_ms(queue: QueueSpec, bulk: bool, secs: f64) -> f64 {
    let mut sc = dumbbell_with(queue, bulk as usize, secs, EcnMode::Off);
    let mut net = Net { sc };
    net.duplex("c", "r1", 100.0, 5.0, 1000);
    net.duplex("r2", "k", 100.0, 5.0, 1000);
    net.udp("cbr", "c", "k", 0.5, 200, 0.0);
    sc = net.sc;
    let n = sc.flows.len();
    let mut sim = Simulation::new(sc).unwrap();
    sim.run_until(sim.end_time());
    // Flow i's receiver is endpoint 2i + 1; the CBR flow is the last.
    let sink = ccsim_core::ids::EndpointId(2 * (n as u32 - 1) + 1);
    let ccsim_core::transport::Endpoint::UdpSink(s) = sim.endpoint(sink) else {
        panic!("the CBR flow's sink");
    };
    let (_, mean, _) = s.delay_stats();
    mean * 1e3
}

#[test]
fn fq_codel_keeps_a_sparse_flows_delay_beside_a_bulk_flow() {
    // RFC 8290 §1, §4.1: a sparse flow's packets go out ahead of a bulk flow's backlog, so
    // its latency is what it is alone, where a shared FIFO adds the bulk flow's queue.
    let fq = QueueSpec::FqCodel(FqCodelSpec::default());
    let alone = cbr_delay_ms(fq.clone(), false, 20.0);
    let with_bulk = cbr_delay_ms(fq, true, 20.0);
    let codel = cbr_delay_ms(QueueSpec::Codel(CodelSpec::default()), true, 20.0);
    let tail = cbr_delay_ms(
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(1000),
        },
        true,
        20.0,
    );
    eprintln!("cbr one-way delay: alone {alone:.2} ms, fq_codel {with_bulk:.2}, codel {codel:.2}, droptail {tail:.2}");
    // At most one bulk packet (1500 B: 1.2 ms at 10 Mb/s) ahead of each CBR packet.
    assert!(with_bulk - alone < 1.2, "{alone:.2} → {with_bulk:.2} ms");
    // A single CoDel queue adds its standing queue (more than one bulk packet).
    assert!(codel - alone > 1.2, "codel {codel:.2} ms");
    assert!(
        tail - alone > 100.0,
        "a DropTail FIFO adds the bulk flow's backlog"
    );
}

/// The datagrams a UDP sink has received (`id`: the flow's sink endpoint).
fn received(sim: &Simulation, id: ccsim_core::ids::EndpointId) -> u64 {
    match sim.endpoint(id) {
        ccsim_core::transport::Endpoint::UdpSink(k) => k.packets,
        _ => panic!("endpoint {id:?} is not the UDP sink"),
    }
}

/// A link that fails loses every packet it holds, queued, in transmission or on the wire
/// (`Link::set_up`; they are dropped as "link down" when they would have reached the far
/// end): with a UDP source at twice the rate of a 10 Mb/s link, the sink receives nothing
/// after the failure, though the queue, the transmitter and the wire all held packets.
/// For each queue kind: the dequeue-time disciplines (CoDel, PIE, FQ-CoDel) in their own
/// pipe, DropTail in both link models.
#[test]
fn a_failed_link_delivers_none_of_the_packets_it_held() {
    for (queue, model) in [
        (r#"{ kind = "codel" }"#, "fast"),
        (r#"{ kind = "pie" }"#, "fast"),
        (r#"{ kind = "fq_codel" }"#, "fast"),
        (r#"{ kind = "droptail", limit = "50p" }"#, "fast"),
        (r#"{ kind = "droptail", limit = "50p" }"#, "per_hop"),
    ] {
        let sc = from_toml_str(
            &format!(
                r#"
[simulation]
duration = "1s"
link_model = "{model}"
[[link]]
between = ["u", "r"]
rate = "100Mbps"
delay = "1ms"
[[link]]
between = ["r", "d"]
rate = "10Mbps"
delay = "20ms"
queue = {queue}
[[flow]]
from = "u"
to = "d"
transport = "udp"
app = {{ kind = "cbr", rate = "20Mbps" }}
[[event]]
at = "0.5003s"
between = ["r", "d"]
action = "down"
"#
            ),
            "link_failure",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(sc).expect("a valid scenario");
        let sink = ccsim_core::ids::EndpointId(1);
        sim.run_until(ccsim_core::units::SimTime::ZERO + Dur::from_micros(500_300));
        let at_failure = received(&sim, sink);
        assert!(
            at_failure > 200,
            "{queue} ({model}): {at_failure} received before"
        );
        let end = sim.end_time();
        sim.run_until(end);
        assert_eq!(
            received(&sim, sink),
            at_failure,
            "{queue} ({model}): packets held by the failed link were delivered"
        );
    }
}
