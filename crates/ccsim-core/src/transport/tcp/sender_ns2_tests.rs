//! ns-2's sending and window rules (`sender_ns2.rs`) driven ACK by ACK: each expected value
//! is the arithmetic of the ns-2.35 source line cited.

use super::super::config::{
    Halving, InitSsthresh, LossFlight, MaxWindowWord, RecoverySpec, TcpSpec,
};
use super::super::rto::RtoSpec;
use super::TcpSender;
use crate::apps::SenderApp;
use crate::apps::{StartSpec, TcpApp};
use crate::cc::{CcSpec, CongestionControl};
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{Packet, PacketKind, SackBlock};
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
        halving: Halving::Exact,
        sack_block_bytes: false,
        init_ssthresh: None,
    }
}

fn ms(t: u64) -> SimTime {
    SimTime(Dur::from_millis(t).0)
}

fn open(spec: TcpSpec) -> (TcpSender, Vec<u64>) {
    let app = SenderApp::new(&spec.app, SimRng::stream(1, "test"));
    let mut s = TcpSender::new(FlowId(0), NodeId(1), EndpointId(1), spec, app);
    let mut out = Vec::new();
    s.on_timer(SimTime::ZERO, &mut out);
    let sent = out.iter().map(|p| p.seq).collect();
    (s, sent)
}

fn ack(seq: u64, sacks: &[(u64, u64)]) -> Packet {
    let mut p = Packet::new(PacketKind::Ack, FlowId(0), NodeId(0), EndpointId(0), 40);
    p.seq = seq;
    p.conn = 1;
    p.ts = SimTime::ZERO;
    for (i, &(start, end)) in sacks.iter().enumerate() {
        p.set_sack_block(i, SackBlock { start, end });
    }
    p.nsack = sacks.len() as u8;
    p
}

fn feed(s: &mut TcpSender, now: SimTime, a: &Packet) -> Vec<u64> {
    let mut out = Vec::new();
    s.on_ack(now, a, &mut out);
    out.iter().map(|p| p.seq).collect()
}

/// NewReno in fast recovery sends at most `recovery_burst` new segments per ACK (ns-2
/// `send_much(0, 0, 2)`, tcp-newreno.cc:300–303). It bites when a partial ACK opens the
/// receiver window (`window_`) by several segments at once: 10 segments out under a window
/// of 10, segments 0 and 5 lost; the partial ACK of 0..5 resends 5 and may send 10..14.
#[test]
fn newreno_recovery_burst_limits_new_segments_per_ack() {
    for burst in [None, Some(2)] {
        let (mut s, sent) = open(TcpSpec {
            max_window: Some(10),
            recovery_burst: burst,
            ssthresh_from: LossFlight::Cwnd,
            ..spec(RecoverySpec::NewReno, 40)
        });
        assert_eq!(sent, (0..10).collect::<Vec<_>>());
        for (i, t) in [1, 2, 3, 4, 6, 7, 8, 9].iter().enumerate() {
            let out = feed(&mut s, ms(100 + t), &ack(0, &[]));
            assert_eq!(out, if i == 2 { vec![0] } else { vec![] }, "dupack {i}");
        }
        assert!(s.in_recovery());
        let out = feed(&mut s, ms(200), &ack(5, &[]));
        match burst {
            None => assert_eq!(out, vec![5, 10, 11, 12, 13, 14]),
            Some(_) => assert_eq!(out, vec![5, 10, 11]),
        }
        // Outside recovery there is no limit: the full ACK ends it.
        let out = feed(&mut s, ms(300), &ack(12, &[]));
        assert!(!s.in_recovery());
        if burst.is_some() {
            assert_eq!(out, (12..22).collect::<Vec<_>>());
        }
    }
}

/// FACK with `fack_restart` enters recovery with cwnd = 1 (tcp-fack.cc:197, tcp.cc:1317) and
/// every ACK in recovery opens it by one segment below ssthresh (tcp-fack.cc:233).
#[test]
fn fack_restart_starts_recovery_at_one_segment_and_slow_starts() {
    let (mut s, sent) = open(TcpSpec {
        fack_restart: true,
        ..spec(RecoverySpec::Fack, 20)
    });
    assert_eq!(sent.len(), 20);
    // Segment 0 lost; SACKs of 1..k: entry when fack − una > 3, at the SACK of 1..4.
    let mut out = Vec::new();
    for k in 2..=4 {
        assert!(!s.in_recovery());
        out.extend(feed(&mut s, ms(100 + k), &ack(0, &[(1, k)])));
    }
    assert!(s.in_recovery());
    assert_eq!(out, vec![0], "the fast retransmit only");
    assert_eq!(s.cc().ssthresh(), Bytes(10 * MSS));
    assert_eq!(s.window_segments(), 1);
    feed(&mut s, ms(110), &ack(0, &[(1, 5)]));
    assert_eq!(s.window_segments(), 2);
    feed(&mut s, ms(111), &ack(0, &[(1, 6)]));
    assert_eq!(s.window_segments(), 3);
    // Off: cwnd = ssthresh at entry.
    let (mut s, _) = open(spec(RecoverySpec::Fack, 20));
    for k in 2..=4 {
        feed(&mut s, ms(100 + k), &ack(0, &[(1, k)]));
    }
    assert_eq!(s.window_segments(), 10);
}

/// ns-2's halving (`halving = "ns2"`): ssthresh = int(min(cwnd, window_)/2) (tcp.cc:1254,
/// 1296), against the exact half.
#[test]
fn ns2_halving_takes_the_integer_half_of_the_window() {
    let cases = [
        (Halving::Exact, None, 21, 10_500),
        (Halving::Ns2, None, 21, 10_000),
        (Halving::Ns2, None, 20, 10_000),
        (Halving::Ns2, Some(16), 21, 8_000),
    ];
    for (halving, max_window, cwnd, want) in cases {
        let (mut s, _) = open(TcpSpec {
            halving,
            max_window,
            ssthresh_from: LossFlight::Cwnd,
            ..spec(RecoverySpec::NewReno, cwnd)
        });
        let n = max_window.unwrap_or(cwnd) as u64;
        for t in 1..=3 {
            feed(&mut s, ms(100 + t), &ack(0, &[]));
        }
        assert!(s.in_recovery(), "{n}");
        assert_eq!(
            s.cc().ssthresh(),
            Bytes(want),
            "{halving:?} {max_window:?} {cwnd}"
        );
    }
}

/// `init_ssthresh = "max_window"`: ns-2 starts ssthresh_ at int(wnd_), the `window_`
/// (tcp.cc:462), so slow start (cwnd_ += 1 per ACK while cwnd_ < ssthresh_, tcp.cc:1122)
/// stops at the window and congestion avoidance (+1/cwnd_ per ACK) follows. Unset, the
/// threshold is unlimited (RFC 5681 §3.1) and slow start goes on past the window.
#[test]
fn init_ssthresh_max_window_ends_slow_start_at_the_window() {
    let word = Some(InitSsthresh::Word(MaxWindowWord::MaxWindow));
    for (init_ssthresh, max_window, ssthresh) in [
        (None, Some(4), None),
        (word, Some(4), Some(4 * MSS)),
        (word, None, None), // no window_: nothing to start from
        (Some(InitSsthresh::Segments(3)), Some(4), Some(3 * MSS)),
    ] {
        let (mut s, sent) = open(TcpSpec {
            init_ssthresh,
            max_window,
            ..spec(RecoverySpec::NewReno, 2)
        });
        assert_eq!(sent, vec![0, 1]);
        let start = s.cc().ssthresh();
        match ssthresh {
            Some(b) => assert_eq!(start, Bytes(b)),
            None => assert!(start.0 > 1 << 40, "unlimited: {start:?}"),
        }
        // Slow start to cwnd 4 (two ACKs), then two more ACKs.
        for (i, seq) in (1..=4).enumerate() {
            feed(&mut s, ms(100 + i as u64), &ack(seq, &[]));
        }
        let cwnd = s.cc().cwnd().0;
        match ssthresh {
            // 2 → 3 → 4 in slow start, then 4 + 1/4 + 1/4.25 (Reno by bytes, one MSS per ACK).
            Some(b) if b == 4 * MSS => assert!((4400..4500).contains(&cwnd), "{cwnd}"),
            // 2 → 3 in slow start, then 3 + 1/3 + 1/3.33 + 1/3.63.
            Some(_) => assert!((3800..4000).contains(&cwnd), "{cwnd}"),
            None => assert_eq!(cwnd, 6 * MSS),
        }
    }
}
