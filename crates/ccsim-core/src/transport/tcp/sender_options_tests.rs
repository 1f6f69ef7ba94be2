//! The sender's optional mechanisms driven ACK by ACK: each expected value is the arithmetic
//! of the rule cited (RFC 3042, RFC 5681, RFC 6675, RFC 6937, RFC 6298, ns-2's tcp.cc).

use super::super::config::{LossFlight, RecoverySpec, TcpSpec};
use super::super::rto::{RtoSpec, RttSamples};
use super::TcpSender;
use crate::apps::SenderApp;
use crate::apps::{StartSpec, TcpApp};
use crate::cc::fast::{FastSpec, KIND as FAST};
use crate::cc::CcSpec;
use crate::cc::CongestionControl;
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{Packet, PacketKind, SackBlock, FLAG_ECHO_RETX, FLAG_NO_ECHO, FLAG_RETX};
use crate::rng::SimRng;
use crate::units::{Bytes, Dur, SimTime};

const MSS: u64 = 1000;

fn spec(recovery: RecoverySpec, init_cwnd: u32) -> TcpSpec {
    TcpSpec {
        cc: CcSpec::default(),
        recovery,
        mss: MSS as u32,
        header: 40,
        max_window: None,
        init_cwnd,
        dupthresh: 3,
        delayed_ack: None,
        rto: RtoSpec::rfc6298(
            Dur::from_secs(1),
            Dur::from_secs(60),
            Dur::from_secs(1),
            Dur::from_millis(1),
        ),
        app: TcpApp::Bulk {
            size: None,
            start: StartSpec {
                lo: SimTime::ZERO,
                hi: SimTime::ZERO,
            },
        },
        select: None,
        limited_transmit: false,
        handshake: false,
        quick_acks: 0,
        rcv_autotune: false,
        push_flags: Default::default(),
        ack_pushed: false,
        sack_compress: false,
        sack_compress_delay: Dur::from_millis(1),
        sack_compress_slack: Dur::from_micros(100),
        sack_compress_nr: 44,
        tso_defer: false,
        pacing: Default::default(),
        ssthresh_from: LossFlight::FlightSize,
        sack_option_bytes: false,
        lost_retransmit: Default::default(),
        loss_marking: Default::default(),
        prr: Default::default(),
        ecn: super::super::ecn::EcnMode::Off,
        recovery_burst: None,
        fack_restart: false,
        halving: Default::default(),
        sack_block_bytes: false,
        init_ssthresh: None,
    }
}

fn ms(t: u64) -> SimTime {
    SimTime(Dur::from_millis(t).0)
}

/// A sender opened at time 0, and the segments it sent then.
fn open(spec: TcpSpec) -> (TcpSender, Vec<Packet>) {
    let app = SenderApp::new(&spec.app, SimRng::stream(1, "test"));
    let mut s = TcpSender::new(FlowId(0), NodeId(1), EndpointId(1), spec, app);
    let mut out = Vec::new();
    s.on_timer(SimTime::ZERO, &mut out);
    (s, out)
}

/// An ACK of everything below `seq`, with SACK blocks, echoing a send time of `echo`.
fn ack(seq: u64, sacks: &[(u64, u64)], echo: SimTime) -> Packet {
    let mut p = Packet::new(PacketKind::Ack, FlowId(0), NodeId(0), EndpointId(0), 40);
    p.seq = seq;
    p.conn = 1;
    p.ts = echo;
    for (i, &(start, end)) in sacks.iter().enumerate() {
        p.set_sack_block(i, SackBlock { start, end });
    }
    p.nsack = sacks.len() as u8;
    p
}

/// Feed `a` at `now`; the segment numbers sent in response.
fn feed(s: &mut TcpSender, now: SimTime, a: &Packet) -> Vec<u64> {
    let mut out = Vec::new();
    s.on_ack(now, a, &mut out);
    out.iter().map(|p| p.seq).collect()
}

/// The receiver's SYN-ACK echoing a SYN sent at `echo` (`retx`: a retransmitted SYN).
fn syn_ack(echo: SimTime, retx: bool) -> Packet {
    let mut p = Packet::new(PacketKind::SynAck, FlowId(0), NodeId(0), EndpointId(0), 40);
    p.conn = 1;
    p.ts = echo;
    if retx {
        p.flags = FLAG_ECHO_RETX;
    }
    p
}

fn syn_ack_feed(s: &mut TcpSender, now: SimTime, a: &Packet) -> Vec<u64> {
    let mut out = Vec::new();
    s.on_syn_ack(now, a, &mut out);
    out.iter().map(|p| p.seq).collect()
}

fn seqs(out: &[Packet]) -> Vec<u64> {
    out.iter().map(|p| p.seq).collect()
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_dupacks() {
    // RFC 3042 §2, without SACK: 10 segments out, segment 0 lost.
    for lt in [false, true] {
        let (mut s, out) = open(TcpSpec {
            limited_transmit: lt,
            ..spec(RecoverySpec::NewReno, 10)
        });
        assert_eq!(seqs(&out), (0..10).collect::<Vec<_>>());
        let d1 = feed(&mut s, ms(100), &ack(0, &[], ms(0)));
        let d2 = feed(&mut s, ms(101), &ack(0, &[], ms(0)));
        if lt {
            assert_eq!((d1, d2), (vec![10], vec![11]));
        } else {
            assert!(d1.is_empty() && d2.is_empty());
        }
        assert_eq!(
            s.cc().cwnd(),
            Bytes(10 * MSS),
            "cwnd unchanged (RFC 3042 §2)"
        );
        // Third: fast retransmit. FlightSize leaves out the limited-transmit segments
        // (RFC 5681 §3.2 step 2): ssthresh = 10/2 = 5 segments either way.
        assert_eq!(feed(&mut s, ms(102), &ack(0, &[], ms(0))), vec![0]);
        assert_eq!(s.cc().ssthresh(), Bytes(5 * MSS));
    }
}

#[test]
fn limited_transmit_with_sack_is_governed_by_the_pipe() {
    // RFC 6675 §5 step 1: while DupAcks < DupThresh, send new data while cwnd − pipe ≥ 1.
    let (mut s, _) = open(TcpSpec {
        limited_transmit: true,
        ..spec(RecoverySpec::Sack, 10)
    });
    // SACK of 1: pipe = 10 − 1 = 9 → one new segment.
    assert_eq!(feed(&mut s, ms(100), &ack(0, &[(1, 2)], ms(0))), vec![10]);
    // A duplicate without new SACK information frees nothing (pipe = 11 − 1 = 10).
    assert!(feed(&mut s, ms(101), &ack(0, &[(1, 2)], ms(0))).is_empty());
    // The third duplicate ACK starts recovery: pipe = 11 − 2 SACKed − 1 lost + 1
    // retransmitted = 9 is above the new cwnd of 5, so only the fast retransmit leaves.
    assert_eq!(feed(&mut s, ms(102), &ack(0, &[(1, 3)], ms(0))), vec![0]);
    assert_eq!(
        s.cc().ssthresh(),
        Bytes(5 * MSS),
        "FlightSize 11 − 1 LT = 10"
    );
}

#[test]
fn limited_transmit_turns_a_timeout_into_a_fast_retransmit_with_three_segments() {
    // Initial window 3, the first segment lost: two duplicate ACKs only, so without
    // limited transmit the sender waits for the RTO; with it, segments 3 and 4 bring the
    // third duplicate ACK.
    let (mut s, _) = open(TcpSpec {
        limited_transmit: true,
        ..spec(RecoverySpec::NewReno, 3)
    });
    assert_eq!(feed(&mut s, ms(100), &ack(0, &[], ms(0))), vec![3]);
    assert_eq!(feed(&mut s, ms(101), &ack(0, &[], ms(0))), vec![4]);
    assert_eq!(feed(&mut s, ms(200), &ack(0, &[], ms(100))), vec![0]);
    assert_eq!(s.stats.fast_recoveries, 1);
}

#[test]
fn ssthresh_from_flight_size_pipe_or_cwnd() {
    // cwnd 10 segments, receiver window 6: segments 0–5 out, 0 lost, three duplicate ACKs
    // SACK 1, 1–2, 1–3. At the fast retransmit: FlightSize 6 → ssthresh 3; pipe = 6 − 3
    // SACKed − 1 lost = 2 → 2 (and the 2·SMSS floor); cwnd 10 → 5 (RFC 5681 eq. 4 on each).
    for (from, expect) in [
        (LossFlight::FlightSize, 3),
        (LossFlight::Pipe, 2),
        (LossFlight::Cwnd, 5),
    ] {
        let (mut s, out) = open(TcpSpec {
            ssthresh_from: from,
            max_window: Some(6),
            ..spec(RecoverySpec::Sack, 10)
        });
        assert_eq!(out.len(), 6);
        for (i, end) in [2, 3, 4].into_iter().enumerate() {
            feed(&mut s, ms(100 + i as u64), &ack(0, &[(1, end)], ms(0)));
        }
        assert_eq!(s.cc().ssthresh(), Bytes(expect * MSS), "{from:?}");
    }
    // Without SACK the pipe is FlightSize less the duplicate ACKs: 10 − 3 = 7 → 3.5.
    let (mut s, _) = open(TcpSpec {
        ssthresh_from: LossFlight::Pipe,
        ..spec(RecoverySpec::NewReno, 10)
    });
    for i in 0..3 {
        feed(&mut s, ms(100 + i), &ack(0, &[], ms(0)));
    }
    assert_eq!(s.cc().ssthresh(), Bytes(3500));
}

#[test]
fn prr_spreads_the_reduction_over_the_round_trip() {
    // 20 segments out, segment 0 lost; SACKs arrive one segment at a time. Recovery
    // starts on the third duplicate ACK with RecoverFS = 20 and ssthresh = 10; that ACK
    // and each later one deliver one segment, and PRR sends ⌈k·10/20⌉ − prr_out
    // (RFC 6937 §3) with the fast retransmit counted: nothing, nothing, one new segment,
    // nothing, one, … (RFC 6675 would send nothing until pipe fell below cwnd = 10).
    let run = |recovery| {
        let (mut s, _) = open(spec(recovery, 20));
        let mut sent = Vec::new();
        for k in 1..=12u64 {
            sent.push(feed(&mut s, ms(100 + k), &ack(0, &[(1, 1 + k)], ms(0))));
        }
        sent
    };
    let prr = run(RecoverySpec::Prr);
    assert!(prr[0].is_empty() && prr[1].is_empty());
    assert_eq!(prr[2], vec![0], "the fast retransmit");
    let counts: Vec<usize> = prr[3..].iter().map(Vec::len).collect();
    // Delivered k = 2..10 in recovery: ⌈2/2⌉−1=0, ⌈3/2⌉−1=1, ⌈4/2⌉−2=0, 1, 0, 1, 0, 1, 0.
    assert_eq!(counts, vec![0, 1, 0, 1, 0, 1, 0, 1, 0]);
    assert_eq!(prr[4], vec![20], "new data");
    let sack = run(RecoverySpec::Sack);
    assert_eq!(sack[2], vec![0]);
    // RFC 6675: pipe = 20 − k SACKed − 1 lost + 1 retransmitted stays ≥ 10 until k = 11.
    assert!(sack[3..10].iter().all(Vec::is_empty), "{sack:?}");
}

#[test]
fn prr_ends_recovery_at_ssthresh() {
    // When the loss is repaired the window is ssthresh (RFC 6937 §3: recovery ends with
    // cwnd = ssthresh), with no inflation to undo.
    let (mut s, _) = open(spec(RecoverySpec::Prr, 20));
    for k in 1..=3u64 {
        feed(&mut s, ms(100 + k), &ack(0, &[(1, 1 + k)], ms(0)));
    }
    assert!(s.in_recovery());
    assert_eq!(s.cc().ssthresh(), Bytes(10 * MSS));
    feed(&mut s, ms(200), &ack(20, &[], ms(103)));
    assert!(!s.in_recovery());
    // cwnd = ssthresh, then this ACK's congestion-avoidance step: + MSS·20 000/10 000.
    assert_eq!(s.effective_cwnd(), 12 * MSS);
}

#[test]
fn the_timer_restarts_at_fast_retransmit_when_asked() {
    // A new ACK at 100 ms restarts the timer (RTO 1 s after a 100 ms sample, the RFC 6298
    // minimum): deadline 1.1 s. The fast retransmit at 220 ms restarts it only with
    // restart_at_fast_retransmit (ns-2 reset_rtx_timer(1,0)): deadline 1.22 s.
    for (restart, deadline) in [(false, 1100), (true, 1220)] {
        let mut sp = spec(RecoverySpec::NewReno, 10);
        sp.rto.restart_at_fast_retransmit = restart;
        let (mut s, _) = open(sp);
        feed(&mut s, ms(100), &ack(1, &[], ms(0)));
        for t in [200, 210, 220] {
            feed(&mut s, ms(t), &ack(1, &[], ms(0)));
        }
        assert_eq!(s.stats.fast_recoveries, 1);
        assert_eq!(s.next_wakeup(), ms(deadline), "restart = {restart}");
    }
}

#[test]
fn one_timed_segment_per_round_trip() {
    let mut sp = spec(RecoverySpec::NewReno, 2);
    sp.rto.samples = RttSamples::OnePerRtt;
    let (mut s, _) = open(sp); // segments 0 and 1 at 0; 0 is timed
                               // ACK of 0 at 100 ms: the sample is 100 ms. Segments 2, 3 leave; 2 is timed at 100 ms.
    assert_eq!(feed(&mut s, ms(100), &ack(1, &[], ms(0))), vec![2, 3]);
    assert_eq!(s.rtt().srtt(), Dur::from_millis(100));
    // ACK of 1 at 150 ms: segment 2 is not covered, so no sample (every-ACK sampling would
    // take 150 ms here).
    feed(&mut s, ms(150), &ack(2, &[], ms(0)));
    assert_eq!(s.rtt().srtt(), Dur::from_millis(100));
    // ACK of 2 and 3 at 260 ms: 160 ms for segment 2 → SRTT = 7/8·100 + 1/8·160 = 107.5.
    feed(&mut s, ms(260), &ack(4, &[], ms(100)));
    assert_eq!(s.rtt().srtt(), Dur::from_micros(107_500));
}

/// srtt after a first sample of 100 ms, then three duplicate ACKs (SACKing segments 1–3
/// after a loss of 0) echoing segments sent at 100 ms that arrive at 400 ms (300 ms
/// samples), then the ACK of everything through segment 4 at 500 ms echoing 200 ms.
fn srtt_after_dupacks(samples: RttSamples) -> (Dur, Dur) {
    let mut sp = spec(RecoverySpec::Sack, 5);
    sp.rto.samples = samples;
    let (mut s, _) = open(sp); // segments 0–4 at time 0
    feed(&mut s, ms(100), &ack(0, &[(1, 2)], ms(0))); // a duplicate ACK first: no advance
    let first = s.rtt().srtt();
    for end in 3..6 {
        feed(&mut s, ms(400), &ack(0, &[(1, end)], ms(100)));
    }
    feed(&mut s, ms(500), &ack(5, &[], ms(200)));
    (first, s.rtt().srtt())
}

#[test]
fn new_ack_samples_skip_acks_that_do_not_advance_snd_una() {
    // RFC 7323 §4 (RTTM rule; RFC 1323 §3.3): a TSecr updates the RTT estimate only if its
    // ACK advances SND.UNA. No duplicate ACK gives a sample; the first sample is the new
    // ACK's 500 − 200 = 300 ms, which RFC 6298 §2.2 takes as SRTT.
    let (first, last) = srtt_after_dupacks(RttSamples::NewAck);
    assert_eq!(first, Dur::ZERO, "no sample yet");
    assert_eq!(last, Dur::from_millis(300));
    // Every ACK: the first duplicate ACK's 100 ms starts SRTT, the three 300 ms samples and
    // the 300 ms of the new ACK follow: 300 − 200·(7/8)^4.
    let (first, last) = srtt_after_dupacks(RttSamples::EveryAck);
    assert_eq!(first, Dur::from_millis(100));
    let expect = 0.300 - 0.200 * 0.875f64.powi(4);
    assert!(
        (last.secs() - expect).abs() < 1e-6,
        "{} vs {expect}",
        last.secs()
    );
}

#[test]
fn new_ack_samples_still_apply_karns_rule() {
    // An ACK that advances SND.UNA but echoes a retransmission gives no sample either.
    let mut sp = spec(RecoverySpec::NewReno, 2);
    sp.rto.samples = RttSamples::NewAck;
    let (mut s, _) = open(sp);
    feed(&mut s, ms(100), &ack(1, &[], ms(0)));
    assert_eq!(s.rtt().srtt(), Dur::from_millis(100));
    let mut a = ack(2, &[], ms(50));
    a.flags = FLAG_ECHO_RETX;
    feed(&mut s, ms(400), &a);
    assert_eq!(s.rtt().srtt(), Dur::from_millis(100));
}

#[test]
fn without_karns_rule_a_retransmissions_echo_gives_a_sample() {
    // RFC 6298 §3: with timestamps the echo names the transmission the ACK answers, so a
    // sample from a retransmitted segment is safe. `rto.karn = false` takes it; an ACK
    // that echoes nothing still gives none.
    let mut sp = spec(RecoverySpec::NewReno, 3);
    sp.rto.karn = false;
    let (mut s, _) = open(sp);
    feed(&mut s, ms(100), &ack(1, &[], ms(0)));
    assert_eq!(s.rtt().srtt(), Dur::from_millis(100));
    let mut a = ack(2, &[], ms(80)); // a retransmission sent at 80 ms, ACKed at 380 ms
    a.flags = FLAG_ECHO_RETX;
    feed(&mut s, ms(380), &a);
    // 7/8·100 + 1/8·300 = 125 ms.
    assert_eq!(s.rtt().srtt(), Dur::from_millis(125));
    let mut none = ack(3, &[], ms(0));
    none.flags = FLAG_ECHO_RETX | FLAG_NO_ECHO;
    feed(&mut s, ms(400), &none);
    assert_eq!(s.rtt().srtt(), Dur::from_millis(125));
}

#[test]
fn with_one_timed_segment_the_controller_still_sees_every_echo() {
    // ns-2's Vegas and FAST time every packet themselves: only the RTO estimator is limited
    // to the timed segment.
    let mut sp = spec(RecoverySpec::NewReno, 2);
    sp.rto.samples = RttSamples::OnePerRtt;
    sp.cc = CcSpec::new(&FAST, &FastSpec::default());
    let (mut s, _) = open(sp);
    feed(&mut s, ms(100), &ack(1, &[], ms(0)));
    // The ACK of 1 at 150 ms is not the timed segment's: no estimator sample, but FAST's
    // average moves by a = 1/256 of (150 − 100) ms.
    feed(&mut s, ms(150), &ack(2, &[], ms(0)));
    assert_eq!(s.rtt().srtt(), Dur::from_millis(100));
    let crate::cc::AnyCc::Fast(f) = &s.cc else {
        panic!("not FAST")
    };
    let avg = f.avg_rtt().unwrap().secs();
    assert!((avg - (0.100 + 0.050 / 256.0)).abs() < 1e-9, "{avg}");
}

#[test]
fn the_timed_segment_is_cancelled_by_a_fast_retransmit() {
    let mut sp = spec(RecoverySpec::NewReno, 10);
    sp.rto.samples = RttSamples::OnePerRtt;
    let (mut s, _) = open(sp);
    feed(&mut s, ms(100), &ack(1, &[], ms(0))); // sample 100 ms; segment 10 is timed
    for t in [200, 201, 202] {
        feed(&mut s, ms(t), &ack(1, &[], ms(0))); // fast retransmit: timing cancelled
    }
    // The ACK covering everything through 10 gives no sample: SRTT stays 100 ms.
    feed(&mut s, ms(300), &ack(12, &[], ms(100)));
    assert_eq!(s.rtt().srtt(), Dur::from_millis(100));
}

#[test]
fn the_handshake_delays_data_by_one_round_trip_and_gives_the_first_sample() {
    let (mut s, out) = open(TcpSpec {
        handshake: true,
        ..spec(RecoverySpec::NewReno, 3)
    });
    assert_eq!(out.len(), 1);
    assert!(out[0].kind == PacketKind::Syn && out[0].size == 40);
    assert_eq!(s.stats.data_sent, 0);
    let synack = syn_ack(SimTime::ZERO, false);
    assert_eq!(syn_ack_feed(&mut s, ms(100), &synack), vec![0, 1, 2]);
    assert_eq!(s.rtt().srtt(), Dur::from_millis(100));
    // A duplicate SYN-ACK changes nothing.
    assert!(syn_ack_feed(&mut s, ms(101), &synack).is_empty());
    assert_eq!(s.stats.fast_recoveries, 0);
}

#[test]
fn a_lost_syn_is_resent_and_data_starts_with_one_segment() {
    let (mut s, _) = open(TcpSpec {
        handshake: true,
        ..spec(RecoverySpec::NewReno, 3)
    });
    // The SYN is timed with the initial RTO (1 s), then backed off.
    assert_eq!(s.next_wakeup(), ms(1000));
    let mut out = Vec::new();
    s.on_timer(ms(1000), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].kind, out[0].flags), (PacketKind::Syn, FLAG_RETX));
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.next_wakeup(), ms(3000), "RTO doubled: 1 s + 2 s");
    let synack = syn_ack(ms(1000), true);
    // RFC 5681 §3.1: one segment; RFC 6298 §5.7: no sample, so the RTO is 3 s.
    assert_eq!(syn_ack_feed(&mut s, ms(1100), &synack), vec![0]);
    assert_eq!(s.rtt().rto(), Dur::from_secs(3));
    assert_eq!(s.next_wakeup(), ms(4100));
}

/// `lost_retransmit = "rack"` (RFC 8985 §6.2 with reo_wnd 0): segment 0 is lost, then its
/// fast retransmission too. Once segment 10, sent after that retransmission, is SACKed,
/// RACK finds the retransmission lost and sends 0 again at once; RFC 6675 alone waits for
/// the timer.
#[test]
fn rack_resends_a_lost_retransmission_once_a_later_segment_is_sacked() {
    for rack in [false, true] {
        let lost_retransmit = if rack {
            super::super::config::LostRetransmit::Rack
        } else {
            super::super::config::LostRetransmit::Timeout
        };
        let (mut s, out) = open(TcpSpec {
            lost_retransmit,
            ..spec(RecoverySpec::Sack, 10)
        });
        assert_eq!(seqs(&out), (0..10).collect::<Vec<_>>());
        let mut sent = Vec::new();
        for (i, hi) in (2..=10).enumerate() {
            sent.extend(feed(&mut s, ms(100 + i as u64), &ack(0, &[(1, hi)], ms(0))));
        }
        assert_eq!(
            sent.first(),
            Some(&0),
            "fast retransmit at the third dupack"
        );
        assert!(
            sent.contains(&10),
            "new data after the retransmission: {sent:?}"
        );
        let again = feed(&mut s, ms(150), &ack(0, &[(1, 11)], ms(0)));
        assert_eq!(again.contains(&0), rack, "rack {rack}: {again:?}");
    }
}

/// Linux re-arms the timer whenever loss recovery resends the head (`rto.
/// restart_on_head_retransmit`): after RACK resends a lost fast retransmission at 150 ms,
/// the deadline is one RTO from then; without the rule it stays where the first
/// retransmission left it.
#[test]
fn the_timer_restarts_when_the_head_is_resent_again() {
    for restart in [false, true] {
        let mut sp = TcpSpec {
            lost_retransmit: super::super::config::LostRetransmit::Rack,
            ..spec(RecoverySpec::Sack, 10)
        };
        sp.rto.restart_on_head_retransmit = restart;
        let (mut s, _) = open(sp);
        for (i, hi) in (2..=10).enumerate() {
            feed(&mut s, ms(100 + i as u64), &ack(0, &[(1, hi)], ms(0)));
        }
        let first = s.next_wakeup();
        let again = feed(&mut s, ms(150), &ack(0, &[(1, 11)], ms(0)));
        assert!(again.contains(&0), "RACK resends the head: {again:?}");
        let rto = s.rtt().rto();
        if restart {
            assert_eq!(s.next_wakeup(), ms(150) + rto);
            assert!(first < ms(150) + rto);
        } else {
            assert_eq!(s.next_wakeup(), first, "the timer left as it was");
        }
    }
}

/// `loss_marking = "rack"` (RFC 8985 §6.2, reo_wnd 0 in recovery: Linux `tcp_rack_reo_wnd`):
/// segments 0 and 4 of 0–9 are lost. Three SACKs enter recovery and resend 0; the SACK of 5
/// then makes 4 lost at once (sent before a delivered segment), where RFC 6675 waits for
/// DupThresh SACKed segments above it (5, 6 and 7).
#[test]
fn rack_marking_resends_a_hole_in_recovery_once_a_later_segment_is_sacked() {
    for rack in [false, true] {
        let loss_marking = if rack {
            super::super::config::LossMarking::Rack
        } else {
            super::super::config::LossMarking::Dupthresh
        };
        let (mut s, _) = open(TcpSpec {
            loss_marking,
            ..spec(RecoverySpec::Sack, 10)
        });
        let mut sent = Vec::new();
        for (i, hi) in (2..=4).enumerate() {
            sent.extend(feed(&mut s, ms(100 + i as u64), &ack(0, &[(1, hi)], ms(0))));
        }
        assert_eq!(sent.first(), Some(&0), "fast retransmit at the third SACK");
        feed(&mut s, ms(103), &ack(0, &[(5, 6), (1, 4)], ms(0)));
        assert_eq!(s.sb.is_lost(4), rack, "rack {rack}");
        feed(&mut s, ms(104), &ack(0, &[(5, 8), (1, 4)], ms(0)));
        assert!(s.sb.is_lost(4), "dupthresh: 4 once 5–7 are SACKed");
    }
}

/// Under Linux's pacing (`pacing = "linux"`, a pacing controller) the fast retransmit waits
/// for its turn, as every retransmission (`tcp_xmit_retransmit_queue` stops at
/// `tcp_pacing_check`), and leaves as a GSO packet of its own: the first duplicate ACK lets
/// limited transmit send a two-segment burst, the third, at the same instant, starts
/// recovery, and 0 leaves alone at the pacer's next departure (before this, at once).
#[test]
fn linux_pacing_holds_the_fast_retransmit_until_its_turn() {
    let (mut s, out) = open(TcpSpec {
        cc: CcSpec::new(&crate::cc::bbr::KIND, &crate::cc::bbr::BbrConfig::default()),
        pacing: super::super::pacing::Pacing::Linux,
        limited_transmit: true,
        ..spec(RecoverySpec::Sack, 10)
    });
    assert_eq!(
        seqs(&out),
        (0..10).collect::<Vec<_>>(),
        "the first 10 unpaced"
    );
    assert_eq!(
        feed(&mut s, ms(99), &ack(0, &[(1, 2)], ms(0))),
        vec![10, 11]
    );
    assert!(feed(&mut s, ms(99), &ack(0, &[(1, 3)], ms(0))).is_empty());
    let third = feed(&mut s, ms(99), &ack(0, &[(1, 4)], ms(0)));
    assert!(s.in_recovery() && s.sb.is_lost(0));
    assert!(third.is_empty(), "{third:?}");
    let at = s.next_wakeup();
    assert!(at > ms(99) && at < ms(105), "{at:?}");
    let mut out = Vec::new();
    s.on_timer(at, &mut out);
    assert_eq!(
        seqs(&out),
        vec![0],
        "the retransmission, a packet of its own"
    );
    assert!(s.next_wakeup() > at, "new data waits one segment's time");
}
