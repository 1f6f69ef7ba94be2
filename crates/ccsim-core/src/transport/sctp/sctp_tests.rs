//! Scripted SACK sequences against the sender: RFC 4960 rules and CMT's changes, one rule
//! per test.

use super::super::gaps::set_gap_blocks;
use super::super::sender::DestStatus;
use super::super::{SctpReceiver, FLAG_DAC_TWO, FLAG_HEARTBEAT};
use super::*;
use crate::apps::SenderApp;
use crate::apps::{StartSpec, TcpApp};
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::PacketKind;
use crate::rng::SimRng;
use crate::transport::sctp::config::SctpSpec;
use crate::units::{Bytes, Dur};

const MTU: f64 = 1500.0;
const CHUNK: u64 = 1452 + 16;

fn sender(spec: SctpSpec, paths: usize) -> (SctpSender, Vec<Packet>) {
    let app = SenderApp::new(
        &TcpApp::Bulk {
            size: Some(Bytes(10_000_000)),
            start: StartSpec {
                lo: SimTime::ZERO,
                hi: SimTime::ZERO,
            },
        },
        SimRng::stream(1, "t"),
    );
    let mut s = SctpSender::new(FlowId(0), NodeId(1), EndpointId(1), spec, paths, app);
    let mut out = Vec::new();
    s.on_timer(SimTime::ZERO, &mut out);
    (s, out)
}

fn sack(cum: u64, gaps: &[(u64, u64)], path: u8, two: bool) -> Packet {
    let mut p = Packet::new(
        PacketKind::SctpSack,
        FlowId(0),
        NodeId(0),
        EndpointId(0),
        48,
    );
    p.seq = cum;
    set_gap_blocks(&mut p, gaps);
    p.path = path;
    if two {
        p.flags |= FLAG_DAC_TWO;
    }
    p
}

fn ms(x: u64) -> SimTime {
    SimTime::ZERO + Dur::from_millis(x)
}

fn one_path(cwnd_mtus: u32) -> SctpSpec {
    SctpSpec {
        init_cwnd: cwnd_mtus,
        init_ssthresh: 1, // congestion avoidance from the start
        rwnd: 1 << 30,
        max_burst: 0,
        ..SctpSpec::default()
    }
}

#[test]
fn initial_window_and_slow_start_by_one_mtu_per_sack() {
    let spec = SctpSpec {
        max_burst: 0,
        ..SctpSpec::default()
    };
    let (mut s, out) = sender(spec, 0);
    // Two MTUs of cwnd: two 1468-byte chunks.
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].path, 0);
    let mut o = Vec::new();
    s.on_packet(ms(100), &sack(2, &[], 0, true), &mut o);
    // Slow start: + min(acked, MTU) = + 1500.
    assert_eq!(s.windows().paths[0].cwnd, 3.0 * MTU);
    assert!(
        s.rtt(0).srtt() > Dur::ZERO,
        "RTT sampled from the timed chunk"
    );
}

#[test]
fn fast_retransmit_after_four_miss_indications_halves_once() {
    let (mut s, out) = sender(one_path(20), 0);
    assert_eq!(out.len(), 20);
    let mut o = Vec::new();
    // TSN 0 lost; SACKs gap-ack 1, 1–2, 1–3: three miss indications, no action.
    for k in 1..=3 {
        s.on_packet(ms(100 + k), &sack(0, &[(1, 1 + k)], 0, false), &mut o);
    }
    assert_eq!(s.stats.fast_retransmits, 0);
    assert_eq!(s.windows().paths[0].cwnd, 20.0 * MTU);
    o.clear();
    s.on_packet(ms(104), &sack(0, &[(1, 5)], 0, false), &mut o);
    assert_eq!(s.stats.fast_retransmits, 1);
    // Halved (RFC 4960 §7.2.3): ssthresh = max(cwnd/2, 4 MTU) = 10 MTU, cwnd = ssthresh.
    assert_eq!(s.windows().paths[0].cwnd, 10.0 * MTU);
    assert_eq!(s.windows().paths[0].ssthresh, 10.0 * MTU);
    assert_eq!(o[0].seq, 0, "the missing TSN goes out at once");
    assert_ne!(o[0].flags & crate::packet::FLAG_RETX, 0);
    // TSN 5 also lost: marked later, but the window is not cut again in fast recovery.
    for k in 0..4 {
        s.on_packet(
            ms(110 + k),
            &sack(0, &[(1, 5), (6, 8 + k)], 0, false),
            &mut o,
        );
    }
    assert_eq!(s.stats.fast_retransmits, 2);
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!(s.windows().paths[0].cwnd, 10.0 * MTU);
}

#[test]
fn the_threshold_is_configurable_and_dac_counts_two() {
    let spec = SctpSpec {
        fast_rtx_threshold: 3,
        ..one_path(20)
    };
    let (mut s, _) = sender(spec, 0);
    let mut o = Vec::new();
    for k in 1..=3 {
        s.on_packet(ms(100 + k), &sack(0, &[(1, 1 + k)], 0, false), &mut o);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    // DAC: a SACK saying two packets arrived counts as two indications.
    let (mut d, _) = sender(one_path(20), 0);
    d.on_packet(ms(101), &sack(0, &[(1, 3)], 0, true), &mut o);
    d.on_packet(ms(102), &sack(0, &[(1, 5)], 0, true), &mut o);
    assert_eq!(d.stats.fast_retransmits, 1);
    let (mut nd, _) = sender(
        SctpSpec {
            dac: false,
            ..one_path(20)
        },
        0,
    );
    nd.on_packet(ms(101), &sack(0, &[(1, 3)], 0, true), &mut o);
    nd.on_packet(ms(102), &sack(0, &[(1, 5)], 0, true), &mut o);
    assert_eq!(nd.stats.fast_retransmits, 0);
}

#[test]
fn t3_expiry_sets_one_mtu_backs_off_and_resends() {
    let (mut s, out) = sender(one_path(8), 0);
    assert_eq!(out.len(), 8);
    let first_rto = s.rtt(0).rto();
    assert_eq!(
        first_rto,
        Dur::from_secs(3),
        "initial RTO 3 s (RFC 4960 §6.3.1)"
    );
    assert_eq!(s.next_wakeup(), SimTime::ZERO + first_rto);
    let mut o = Vec::new();
    s.on_timer(SimTime::ZERO + first_rto, &mut o);
    assert_eq!(s.stats.timeouts, 1);
    // ssthresh = max(cwnd/2, 4 MTU) = 4 MTU; cwnd = 1 MTU.
    assert_eq!(s.windows().paths[0].cwnd, MTU);
    assert_eq!(s.windows().paths[0].ssthresh, 4.0 * MTU);
    assert_eq!(s.rtt(0).rto(), Dur::from_secs(6), "backed off");
    assert_eq!(o.len(), 1, "one MTU: the lowest marked chunk");
    assert_eq!(o[0].seq, 0);
    assert_eq!(s.flight(0), CHUNK);
}

#[test]
fn sfr_counts_misses_only_from_sacks_for_the_same_destination() {
    let spec = SctpSpec {
        max_burst: 0,
        rwnd: 1 << 30,
        init_cwnd: 4,
        ..SctpSpec::default()
    };
    let (mut s, out) = sender(spec.clone(), 2);
    // Round-robin: even TSNs to path 1 (index 0), odd to path 2.
    assert_eq!(out[0].path, 1);
    assert_eq!(out[1].path, 2);
    let mut o = Vec::new();
    // TSN 0 (path 1) is slow, path 2's TSNs 1, 3, 5, 7 arrive: 4 SACKs from path 2.
    for k in 0..4u64 {
        s.on_packet(ms(50 + k), &sack(0, &[(1, 2 + 2 * k)], 2, false), &mut o);
    }
    // Only path-2 data newly acked, so TSN 0 (path 1) gets no miss indication with SFR.
    assert_eq!(s.stats.fast_retransmits, 0);
    // Without SFR the same SACKs mark TSN 0 (RFC 4960: below the highest newly acked TSN).
    let (mut n, _) = sender(SctpSpec { sfr: false, ..spec }, 2);
    for k in 0..4u64 {
        n.on_packet(ms(50 + k), &sack(0, &[(1, 2 + 2 * k)], 2, false), &mut o);
    }
    assert_eq!(n.stats.fast_retransmits, 1);
}

#[test]
fn cuc_lets_a_destination_grow_while_the_cumulative_ack_is_held_by_another() {
    let spec = SctpSpec {
        max_burst: 0,
        rwnd: 1 << 30,
        init_cwnd: 2,
        sfr: true,
        ..SctpSpec::default()
    };
    // TSN 0 (path 1) is outstanding; path 2's TSNs 1 and 3 are acked by gap blocks
    // (round-robin: even TSNs on path 1, odd on path 2).
    let grow = |cuc: bool| {
        let (mut s, _) = sender(
            SctpSpec {
                cuc,
                ..spec.clone()
            },
            2,
        );
        let mut o = Vec::new();
        s.on_packet(ms(50), &sack(0, &[(1, 2)], 2, false), &mut o);
        s.on_packet(ms(51), &sack(0, &[(1, 2), (3, 4)], 2, false), &mut o);
        s.windows().paths[1].cwnd
    };
    // CUC: path 2's pseudo-cumack advanced twice: slow start adds min(acked, MTU) twice.
    assert_eq!(grow(true), 2.0 * MTU + 2.0 * CHUNK as f64);
    // RFC 4960 alone: the cumulative ack did not move, no growth.
    assert_eq!(grow(false), 2.0 * MTU);
}

#[test]
fn rtx_policies_choose_the_destination() {
    let spec = SctpSpec {
        max_burst: 0,
        rwnd: 1 << 30,
        ..SctpSpec::default()
    };
    let (mut s, _) = sender(spec.clone(), 2);
    s.cc.paths[1].cwnd = 10.0 * MTU;
    assert_eq!(s.rtx_dest(0), Some(1), "RTX-CWND: the larger cwnd");
    s.spec.rtx_policy = crate::transport::sctp::config::RtxPolicy::Same;
    assert_eq!(s.rtx_dest(0), Some(0));
    s.spec.rtx_policy = crate::transport::sctp::config::RtxPolicy::Ssthresh;
    s.cc.paths[0].ssthresh = 1e6;
    assert_eq!(s.rtx_dest(1), Some(0), "RTX-SSTHRESH: the larger ssthresh");
}

#[test]
fn ns2_cwnd_rule_counts_chunks_and_rounds_a_fractional_window_up() {
    // ns-2.35 SctpAgent::Reset: cwnd = min(4·1468, max(4380, 2·1468)) = 4380 B, and
    // SendMuch sends while outstanding < cwnd: 0, 1468, 2936 < 4380, so three packets.
    let ns2 = SctpSpec {
        max_burst: 0,
        rwnd: 1 << 30,
        init_cwnd_bytes: Some(4380),
        cwnd_rule: crate::transport::sctp::config::CwndRule::Ns2,
        ..SctpSpec::default()
    };
    let (_, out) = sender(ns2.clone(), 0);
    assert_eq!(out.len(), 3);
    // The same 4380 B under whole packets: 2 · 1468 fits, 3 · 1468 = 4404 does not.
    let (_, out) = sender(
        SctpSpec {
            cwnd_rule: crate::transport::sctp::config::CwndRule::WholePackets,
            ..ns2.clone()
        },
        0,
    );
    assert_eq!(out.len(), 2);
    // Under the ns-2 rule the window unit is the chunk: a timeout leaves one packet.
    let (mut s, _) = sender(ns2, 0);
    let mut o = Vec::new();
    s.on_timer(SimTime::ZERO + Dur::from_secs(3), &mut o);
    assert_eq!(s.windows().paths[0].cwnd, CHUNK as f64);
    assert_eq!(o.len(), 1);
}

fn pf_spec() -> SctpSpec {
    SctpSpec {
        max_burst: 0,
        rwnd: 1 << 30,
        pf: true,
        ..SctpSpec::default()
    }
}

#[test]
fn cmt_pf_marks_a_destination_at_its_first_timeout_and_heartbeats_it() {
    let (mut s, out) = sender(pf_spec(), 2);
    assert_eq!(out.len(), 4, "two packets per destination");
    // Path 2 answers (TSNs 1 and 3), path 1 stays silent until its T3 fires at 3 s.
    let mut o = Vec::new();
    s.on_packet(ms(60), &sack(0, &[(1, 2), (3, 4)], 2, true), &mut o);
    // Keep path 2's timer (1 s after its RTT sample) from firing: only path 1 fails.
    s.dests[1].t3 = Some(SimTime::ZERO + Dur::from_secs(100));
    o.clear();
    s.on_timer(SimTime::ZERO + Dur::from_secs(3), &mut o);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(
        s.stats.pf_marks, 1,
        "PF at the first timeout (ns-2 iErrorCount == 1)"
    );
    assert_eq!(s.dests[0].status, DestStatus::PotentiallyFailed);
    let hb: Vec<_> = o.iter().filter(|p| p.flags & FLAG_HEARTBEAT != 0).collect();
    assert_eq!(hb.len(), 1);
    assert_eq!(hb[0].path, 1, "the heartbeat probes the failed path");
    // Every data packet (the retransmissions of TSNs 0 and 2 and any new data) avoids it.
    let data: Vec<_> = o.iter().filter(|p| p.flags & FLAG_HEARTBEAT == 0).collect();
    assert!(!data.is_empty());
    assert!(
        data.iter().all(|p| p.path == 2),
        "no data to a PF destination"
    );
    assert!(o
        .iter()
        .any(|p| p.seq == 0 && p.flags & FLAG_HEARTBEAT == 0));
    // The HEARTBEAT ACK: active again with cwnd = pf_cwnd (2) MTUs, ssthresh kept.
    let ssthresh = s.windows().paths[0].ssthresh;
    let mut ack = sack(0, &[], 1, false);
    ack.flags = FLAG_HEARTBEAT;
    ack.ts = SimTime::ZERO + Dur::from_secs(3);
    o.clear();
    s.on_packet(SimTime::ZERO + Dur::from_millis(3060), &ack, &mut o);
    assert_eq!(s.dests[0].status, DestStatus::Active);
    assert_eq!(s.windows().paths[0].cwnd, 2.0 * MTU);
    assert_eq!(s.windows().paths[0].ssthresh, ssthresh);
    assert_eq!(
        s.rtt(0).rto(),
        Dur::from_secs(1),
        "RTT sample from the heartbeat, no back-off"
    );
    assert!(o.iter().any(|p| p.path == 1), "data flows to path 1 again");
}

#[test]
fn cmt_pf_unanswered_heartbeats_back_off_and_all_pf_reactivates_one() {
    let (mut s, _) = sender(pf_spec(), 2);
    let mut o = Vec::new();
    // Both destinations time out at 3 s: both PF, and one is made active (1 MTU) at once.
    s.on_timer(SimTime::ZERO + Dur::from_secs(3), &mut o);
    assert_eq!(s.stats.pf_marks, 2);
    let active: Vec<_> = (0..2)
        .filter(|&d| s.dests[d].status == DestStatus::Active)
        .collect();
    assert_eq!(active.len(), 1);
    let a = active[0];
    assert_eq!(s.windows().paths[a].cwnd, MTU);
    let b = 1 - a;
    // The other's heartbeat times out after its (doubled) RTO: another heartbeat, RTO again doubled.
    let deadline = s.dests[b].hb_deadline.expect("heartbeat pending");
    assert_eq!(deadline, SimTime::ZERO + Dur::from_secs(9));
    o.clear();
    s.on_timer(deadline, &mut o);
    assert_eq!(s.dests[b].errors, 2);
    assert_eq!(s.rtt(b).rto(), Dur::from_secs(12));
    assert!(o
        .iter()
        .any(|p| p.flags & FLAG_HEARTBEAT != 0 && p.path == b as u8 + 1));
    // New data sent once to a PF destination and acknowledged clears it (no such data here,
    // so acknowledging the active path's data leaves b PF).
    assert_eq!(s.dests[b].status, DestStatus::PotentiallyFailed);
}

#[test]
fn receiver_answers_a_heartbeat_on_its_path_echoing_the_time() {
    let mut r = SctpReceiver::new(
        FlowId(0),
        NodeId(0),
        EndpointId(0),
        1452,
        None,
        Some(Dur::from_millis(200)),
        true,
    );
    let mut hb = Packet::new(
        PacketKind::SctpData,
        FlowId(0),
        NodeId(1),
        EndpointId(1),
        56,
    );
    hb.flags = FLAG_HEARTBEAT;
    hb.ts = ms(7);
    hb.path = 2;
    let mut out = Vec::new();
    r.on_data(ms(30), &hb, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].kind, PacketKind::SctpSack);
    assert_eq!(out[0].flags, FLAG_HEARTBEAT);
    assert_eq!((out[0].path, out[0].ts), (2, ms(7)));
    assert_eq!(r.tsns_delivered, 0);
}
