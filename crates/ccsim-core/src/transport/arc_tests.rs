//! ARC's probing and its reaction to congestion, scripted (Grieco & Mascolo 2005 as worked
//! out in ALGORITHMS.md §3.4 and docs/arc.md): the handshake round trip, quick then gentle
//! probing, the reduction w = B̂·(RTTmin + 1/k) at most once per round, the report
//! timeout. Defaults: α = 100 ms, k = 1/(4·RTTmin), 1500-byte packets, a 1 Mb/s interface
//! (83⅓ packets/s), report timeout min 1 s, initial 3 s.

use super::*;
use crate::packet::SackBlock;
use crate::rng::SimRng;

const PKT: f64 = 1500.0;

fn secs(x: f64) -> SimTime {
    SimTime::ZERO + Dur::from_secs_f64(x)
}

fn sender() -> ArcSender {
    let s = ArcSpec::default();
    let app = SenderApp::new(&s.app, SimRng::stream(1, "arc-tests"));
    ArcSender::new(FlowId(0), NodeId(1), EndpointId(1), s, Rate::mbps(1), app)
}

/// A report at `at`: cumulative point `cum`, up to two SACK ranges, echoing a packet sent at
/// `ts`, carrying the receiver's estimate `bhat` (bytes/s).
fn report(cum: u64, ranges: &[(u64, u64)], ts: SimTime, bhat: u64) -> Packet {
    let mut p = Packet::new(PacketKind::Ack, FlowId(0), NodeId(0), EndpointId(0), 40);
    p.seq = cum;
    p.ts = ts;
    p.conn = 1;
    for (i, &(start, end)) in ranges.iter().enumerate() {
        p.set_sack_block(i, SackBlock { start, end });
    }
    p.nsack = ranges.len() as u8;
    p.set_aux(bhat);
    p
}

/// Run the sender's timers up to `until`; returns the packets sent.
fn run_until(s: &mut ArcSender, until: SimTime) -> Vec<Packet> {
    let mut out = Vec::new();
    while s.next_wakeup() <= until {
        let t = s.next_wakeup();
        s.on_timer(t, &mut out);
    }
    out
}

/// A sender whose handshake packet was reported after 2 s (RTTmin = 2 s, so k = 1/8 per
/// second and the interface caps the window at 83⅓·(2 + 8) = 833⅓ packets) with B̂ =
/// `bhat`, then left to send until 5 s (before its report timeout at 2 + 6 = 8 s).
fn sending(bhat: u64) -> ArcSender {
    let mut s = sender();
    let mut out = Vec::new();
    s.on_timer(SimTime::ZERO, &mut out);
    s.on_report(secs(2.0), &report(1, &[], SimTime::ZERO, bhat), &mut out);
    run_until(&mut s, secs(5.0));
    assert_eq!(s.stats.timeouts, 0);
    s
}

#[test]
fn the_window_is_capped_at_what_the_interface_can_turn_into_rate() {
    // w ≤ max_pps·(RTTmin + 1/k) = 1e6/12 000 · (2 + 8) packets (docs/arc.md).
    let s = sending(125_000);
    let cap = 1e6 / 12_000.0 * 10.0;
    assert!(
        (s.window(secs(5.0)) - cap).abs() < 1e-9,
        "{}",
        s.window(secs(5.0))
    );
    assert_eq!(s.probing(), Probing::Quick);
}

#[test]
fn a_hole_reduces_once_per_round_holes_sent_before_the_reduction_are_ignored() {
    // One reduction per round: a hole in packets sent before the last reduction is part of
    // the same congestion event (docs/arc.md). The reduction sets w = B̂·(RTTmin + 1/k) =
    // 100 000/1500·10 = 666⅔ packets and starts gentle probing (+1 packet per α).
    let mut s = sending(125_000);
    // Every packet so far was new: this is one past the last, the reduction point.
    let end = s.stats.data_sent;
    let t = secs(5.0);
    let mut out = Vec::new();
    s.on_report(t, &report(3, &[(4, 6)], secs(2.0), 100_000), &mut out);
    assert_eq!(s.stats.loss_events, 1);
    assert_eq!(s.probing(), Probing::Gentle);
    assert!((s.window(t) - 100_000.0 / PKT * 10.0).abs() < 1e-6);
    assert!((s.window(t + Dur::from_secs(1)) - s.window(t) - 10.0).abs() < 1e-9);
    // A second hole (6), in a packet sent before the reduction: no new reduction.
    s.on_report(
        t,
        &report(3, &[(7, 8), (4, 6)], secs(2.0), 90_000),
        &mut out,
    );
    assert_eq!(s.stats.loss_events, 1);
    assert!((s.window(t) - 100_000.0 / PKT * 10.0).abs() < 1e-6);
    // A hole in a packet sent after it (`end`, with `end + 1` reported) reduces again, with
    // the new estimate (the report echoes a 2 s round trip: RTTmin and k are unchanged).
    run_until(&mut s, secs(6.0));
    assert!(s.stats.data_sent > end + 2);
    let r = report(3, &[(end + 1, end + 2), (4, 6)], secs(4.0), 90_000);
    s.on_report(secs(6.0), &r, &mut out);
    assert_eq!(s.stats.loss_events, 2);
    assert!((s.window(secs(6.0)) - 90_000.0 / PKT * 10.0).abs() < 1e-6);
}

#[test]
fn without_a_bandwidth_estimate_a_hole_halves_the_window() {
    // No sampling period has ended (B̂ = 0): w ← w/2, as TCP would (docs/arc.md).
    let mut s = sending(0);
    let t = secs(5.0);
    let w = s.window(t);
    let mut out = Vec::new();
    s.on_report(t, &report(3, &[(4, 6)], secs(2.0), 0), &mut out);
    assert_eq!(s.stats.loss_events, 1);
    assert!((s.window(t) - w / 2.0).abs() < 1e-9);
}

#[test]
fn a_report_timeout_reduces_backs_off_and_resends_everything_unreported() {
    // No report for an RTO (SRTT 2 s, RTTVAR 1 s: 2 + 4·1 = 6 s after the last send at 2 s):
    // a congestion event (w = B̂·(RTTmin + 1/k) = 125 000/1500·10 = 833⅓), the RTO doubles
    // (RFC 6298 §5.5) and every unreported packet is resent first, lowest first.
    let mut s = sending(125_000);
    let out = run_until(&mut s, secs(8.0));
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.probing(), Probing::Gentle);
    assert!((s.window(secs(8.0)) - 125_000.0 / PKT * 10.0).abs() < 1e-6);
    assert_eq!(s.rtt().rto(), Dur::from_secs(12));
    let first_resent = out.iter().find(|p| p.flags & FLAG_RETX != 0).unwrap();
    assert_eq!(first_resent.seq, 1);
    assert_eq!(first_resent.ts, secs(8.0));
}

#[test]
fn a_lost_handshake_packet_is_resent_after_the_report_timeout_without_a_reduction() {
    // Before RTTmin is known there is nothing to reduce: resend the packet and back off
    // (initial timeout 3 s, then 6 s).
    let mut s = sender();
    let mut out = Vec::new();
    s.on_timer(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(s.next_wakeup(), secs(3.0));
    let resent = run_until(&mut s, secs(3.0));
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.probing(), Probing::Quick);
    assert_eq!(resent.len(), 1, "the handshake packet again");
    assert_eq!((resent[0].seq, resent[0].flags & FLAG_RETX), (0, FLAG_RETX));
    assert_eq!(s.next_wakeup(), secs(9.0));
    // Its report starts quick probing from the initial window.
    s.on_report(secs(9.5), &report(1, &[], secs(3.0), 0), &mut out);
    assert!((s.window(secs(9.5)) - 2.0).abs() < 1e-9);
}

#[test]
fn the_sender_keeps_the_receivers_latest_estimate() {
    // Each report carries the receiver's B̂ (docs/arc.md); the sender's is the latest.
    let mut s = sending(125_000);
    assert_eq!(s.bandwidth_estimate(), 125_000.0);
    let mut out = Vec::new();
    s.on_report(secs(5.0), &report(3, &[], secs(2.0), 90_000), &mut out);
    assert_eq!(s.bandwidth_estimate(), 90_000.0);
    // A full packet on the wire: MSS + header = 1460 + 40 bytes (the flow trace's window
    // in bytes is the window in packets times this).
    assert_eq!(s.packet_bytes(), PKT as u64);
}

#[test]
fn a_finite_transfer_sends_its_packets_and_no_more() {
    // An application with 4 packets of data: the handshake packet, then the other three
    // once the window opens, and nothing beyond them however far the window grows.
    let spec = ArcSpec {
        app: crate::apps::TcpApp::Bulk {
            size: Some(crate::units::Bytes(4 * 1460)),
            start: crate::apps::StartSpec {
                lo: SimTime::ZERO,
                hi: SimTime::ZERO,
            },
        },
        ..ArcSpec::default()
    };
    let app = SenderApp::new(&spec.app, SimRng::stream(1, "arc-tests"));
    let mut s = ArcSender::new(
        FlowId(0),
        NodeId(1),
        EndpointId(1),
        spec,
        Rate::mbps(1),
        app,
    );
    let mut out = Vec::new();
    s.on_timer(SimTime::ZERO, &mut out);
    s.on_report(secs(2.0), &report(1, &[], SimTime::ZERO, 0), &mut out);
    out.extend(run_until(&mut s, secs(5.0)));
    let seqs: Vec<u64> = out.iter().map(|p| p.seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3]);
}
