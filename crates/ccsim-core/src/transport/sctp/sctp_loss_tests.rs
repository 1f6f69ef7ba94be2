//! The sender's loss reaction on one destination, scripted: T3-rtx expiry and backoff
//! (RFC 4960 §6.3.1–6.3.3), Karn's rule (§6.3.1 C5), the T3 timer rules (§6.3.2 R1–R3),
//! fast retransmit and fast recovery (§7.2.3–7.2.4). Defaults otherwise (`SctpSpec`):
//! MTU 1500, 48 bytes of overhead, so a full chunk is 1452 + 16 = 1468 bytes of window.

use super::super::gaps::set_gap_blocks;
use super::*;
use crate::apps::SenderApp;
use crate::apps::{StartSpec, TcpApp};
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{PacketKind, FLAG_RETX};
use crate::rng::SimRng;
use crate::transport::sctp::config::SctpSpec;
use crate::units::{Bytes, Dur};

const MTU: f64 = 1500.0;
const PAYLOAD: u64 = 1452;
const CHUNK: u64 = PAYLOAD + 16;

fn ms(x: u64) -> SimTime {
    SimTime::ZERO + Dur::from_millis(x)
}

/// An association of one destination whose window holds `cwnd_mtus` full packets (in
/// congestion avoidance, no Max.Burst), sending `chunks` chunks (`None`: without end).
/// Returns the sender and the TSNs it sent at time 0.
fn association(cwnd_mtus: u32, chunks: Option<u64>) -> (SctpSender, Vec<u64>) {
    let spec = SctpSpec {
        init_cwnd: cwnd_mtus,
        init_ssthresh: 1,
        rwnd: 1 << 30,
        max_burst: 0,
        ..SctpSpec::default()
    };
    let app = SenderApp::new(
        &TcpApp::Bulk {
            size: Some(Bytes(chunks.map_or(1 << 40, |n| n * PAYLOAD))),
            start: StartSpec {
                lo: SimTime::ZERO,
                hi: SimTime::ZERO,
            },
        },
        SimRng::stream(1, "sctp-loss"),
    );
    let mut s = SctpSender::new(FlowId(0), NodeId(1), EndpointId(1), spec, 0, app);
    let mut out = Vec::new();
    s.on_timer(SimTime::ZERO, &mut out);
    let tsns = out.iter().map(|p| p.seq).collect();
    (s, tsns)
}

/// A SACK at `at`: cumulative TSN ack point `cum` (next expected), gap blocks `gaps`.
/// Returns the TSNs sent in reply, retransmissions marked by `(tsn, true)`.
#[track_caller]
fn sack(s: &mut SctpSender, at: SimTime, cum: u64, gaps: &[(u64, u64)]) -> Vec<(u64, bool)> {
    let mut p = Packet::new(
        PacketKind::SctpSack,
        FlowId(0),
        NodeId(0),
        EndpointId(0),
        48,
    );
    p.seq = cum;
    set_gap_blocks(&mut p, gaps);
    let mut out = Vec::new();
    s.on_packet(at, &p, &mut out);
    sent(&out)
}

fn sent(out: &[Packet]) -> Vec<(u64, bool)> {
    out.iter()
        .map(|p| (p.seq, p.flags & FLAG_RETX != 0))
        .collect()
}

/// Run the next timer; returns when it fired and what was sent.
#[track_caller]
fn expire(s: &mut SctpSender) -> (SimTime, Vec<(u64, bool)>) {
    let at = s.next_wakeup();
    assert!(at < SimTime::NEVER, "no timer is running");
    let mut out = Vec::new();
    s.on_timer(at, &mut out);
    (at, sent(&out))
}

#[test]
fn consecutive_t3_expiries_resend_the_first_chunk_and_double_the_rto_up_to_rto_max() {
    // §6.3.1 C1: RTO.Initial = 3 s; §6.3.3 E2: RTO ← 2·RTO, bounded by RTO.Max = 60 s (C7);
    // E1: cwnd = 1 MTU, so E3 sends one packet, the lowest TSN. 3, 6, 12, 24, 48, 60, 60 s.
    let (mut s, tsns) = association(8, None);
    assert_eq!(tsns, (0..8).collect::<Vec<_>>());
    let mut at = 0;
    for rto_s in [3, 6, 12, 24, 48, 60, 60] {
        at += rto_s * 1000;
        assert_eq!(expire(&mut s), (ms(at), vec![(0, true)]), "RTO {rto_s} s");
        assert_eq!(s.windows().paths[0].cwnd, MTU);
    }
    assert_eq!(s.stats.timeouts, 7);
    // §7.2.3: ssthresh = max(cwnd/2, 4·MTU): 8 MTU halved at the first expiry, then the
    // 4-MTU floor.
    assert_eq!(s.windows().paths[0].ssthresh, 4.0 * MTU);
}

#[test]
fn after_t3_the_marked_chunks_go_before_new_data_as_the_window_opens() {
    // §6.3.3 E3 and §6.1 rule C: every chunk in flight is marked; retransmissions first.
    // The SACK of TSN 0 in slow start (cwnd 1 MTU ≤ ssthresh 4 MTU, window fully used) adds
    // min(1468, MTU): cwnd = 2968 bytes, room for two chunks: TSNs 1 and 2 again.
    let (mut s, _) = association(8, None);
    expire(&mut s);
    assert_eq!(sack(&mut s, ms(3100), 1, &[]), [(1, true), (2, true)]);
    assert_eq!(s.windows().paths[0].cwnd, MTU + CHUNK as f64);
    assert_eq!(s.stats.retransmissions, 3);
}

#[test]
fn karn_no_rtt_sample_from_a_retransmitted_chunk_and_the_backoff_stays() {
    // §6.3.1 C5: no RTT measurement from a retransmitted chunk; the doubled RTO (6 s) stays
    // until a new chunk is timed. Then C2: R = 100 ms, SRTT = R, RTTVAR = R/2, RTO =
    // 100 + 4·50 = 300 ms, raised to RTO.Min = 1 s (C6–C7).
    let (mut s, tsns) = association(2, None);
    assert_eq!(tsns, [0, 1]);
    expire(&mut s); // 3 s: TSN 0 again
                    // The SACK of the resent TSN 0 (slow start: cwnd 2968 bytes): TSN 1 again, then new 2.
    assert_eq!(sack(&mut s, ms(3100), 1, &[]), [(1, true), (2, false)]);
    assert_eq!(s.rtt(0).srtt(), Dur::ZERO);
    assert_eq!(s.rtt(0).rto(), Dur::from_secs(6));
    // The SACK of TSN 2, sent new at 3.1 s and timed: R = 100 ms.
    sack(&mut s, ms(3200), 3, &[]);
    assert_eq!(s.rtt(0).srtt(), Dur::from_millis(100));
    assert_eq!(s.rtt(0).rto(), Dur::from_secs(1));
}

#[test]
fn the_t3_timer_restarts_on_the_lowest_tsn_and_stops_when_all_is_acknowledged() {
    // §6.3.2 R1: started by the first chunk sent; R3: restarted when a SACK acks the
    // lowest outstanding TSN of the destination; R2: stopped when nothing is outstanding.
    let (mut s, tsns) = association(4, Some(4));
    assert_eq!(tsns, [0, 1, 2, 3]);
    assert_eq!(s.next_wakeup(), ms(3000));
    // 100 ms: TSN 0 acked (R = 100 ms, RTO 1 s): restart at 1.1 s.
    sack(&mut s, ms(100), 1, &[]);
    assert_eq!(s.next_wakeup(), ms(1100));
    // 200 ms: only TSN 3 by a gap block; the lowest outstanding (1) is not acked: no restart.
    sack(&mut s, ms(200), 1, &[(3, 4)]);
    assert_eq!(s.next_wakeup(), ms(1100));
    sack(&mut s, ms(300), 4, &[]);
    assert!(s.done());
    assert_eq!(s.next_wakeup(), SimTime::NEVER);
}

#[test]
fn a_fast_retransmitted_chunk_is_not_fast_retransmitted_again_only_t3_resends_it() {
    // §7.2.4: once fast-retransmitted, a chunk is resent again only by the T3-rtx timer.
    let (mut s, _) = association(20, None);
    for k in 1..=4 {
        sack(&mut s, ms(100 + k), 0, &[(1, 1 + k)]);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    // The retransmission is lost too: four more miss indications change nothing.
    for k in 5..=8 {
        assert_eq!(sack(&mut s, ms(100 + k), 0, &[(1, 1 + k)]), []);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    let (_, resent) = expire(&mut s);
    assert_eq!(resent[0], (0, true));
}

#[test]
fn fast_recovery_reduces_once_then_again_for_a_loss_after_its_exit_point() {
    // §7.2.4 step 2 and §7.2.3: on entry ssthresh = max(cwnd/2, 4·MTU), cwnd = ssthresh,
    // and the exit point is the highest TSN outstanding; no further reduction until a SACK
    // covers it, and no window growth meanwhile (§7.2.1–7.2.2).
    let (mut s, _) = association(20, None);
    // Each gap SACK frees a chunk's worth of window: TSNs 20, 21, 22 leave before the
    // fourth miss indication, so the exit point is 22.
    let mut new = Vec::new();
    for k in 1..=4 {
        new.extend(sack(&mut s, ms(100 + k), 0, &[(1, 1 + k)]));
    }
    assert_eq!(new, [(20, false), (21, false), (22, false), (0, true)]);
    assert_eq!(s.windows().paths[0].cwnd, 10.0 * MTU);
    // TSNs 5–19 arrive: nothing cuts or grows the window.
    sack(&mut s, ms(200), 0, &[(1, 20)]);
    assert_eq!(s.windows().paths[0].cwnd, 10.0 * MTU);
    // TSN 20 arrives, 21 was lost too, below the exit point: four miss indications mark
    // it, no new cut.
    for k in 1..=4 {
        sack(&mut s, ms(210 + k), 21, &[(22, 23 + k)]);
    }
    assert_eq!(s.stats.fast_retransmits, 2);
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!(s.windows().paths[0].cwnd, 10.0 * MTU);
    // The SACK covering 22 ends fast recovery; a loss after it (TSN 27) cuts again:
    // max(cwnd/2, 4 MTU).
    sack(&mut s, ms(300), 27, &[]);
    let cwnd = s.windows().paths[0].cwnd;
    for k in 1..=4 {
        sack(&mut s, ms(400 + k), 27, &[(28, 28 + k)]);
    }
    assert_eq!(s.stats.fast_recoveries, 2);
    assert_eq!(s.windows().paths[0].ssthresh, (cwnd / 2.0).max(4.0 * MTU));
    assert_eq!(s.windows().paths[0].cwnd, (cwnd / 2.0).max(4.0 * MTU));
}

#[test]
fn after_t3_a_sack_that_frees_no_window_sends_nothing() {
    // §6.1 rule B: nothing is sent to a destination with cwnd or more outstanding; only
    // the T3 expiry's packet (§6.3.3 E3) and a fast retransmission's (§7.2.4 step 3)
    // ignore the window. After the expiry TSN 0 fills the 1-MTU window; a SACK that
    // acknowledges nothing new frees nothing, so the marked TSN 1 waits.
    let (mut s, _) = association(8, None);
    assert_eq!(expire(&mut s).1, [(0, true)]);
    assert_eq!(sack(&mut s, ms(3100), 0, &[]), []);
    // The SACK of TSN 0 frees it: TSN 1 goes, with the window grown in slow start.
    assert_eq!(sack(&mut s, ms(3200), 1, &[]), [(1, true), (2, true)]);
}
