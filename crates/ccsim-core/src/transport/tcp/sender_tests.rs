//! The sender's loss reaction, driven by hand-made ACK sequences and timer firings, one rule
//! per test: RFC 6298 (the retransmission timer, Karn's rule), RFC 5681 §3 (Reno's fast
//! retransmit and recovery), RFC 6582 (NewReno), RFC 6675 (SACK), ns-2's Sack1 and FACK
//! (Mathis & Mahdavi 1996).
//!
//! Segments are numbered from 0 and an ACK carries the next segment expected. MSS is the
//! default 1460 bytes; a window of 10 segments is 14 600 bytes and half of it 7300 = 5·MSS,
//! so window arithmetic below needs no rounding. Every expected value is the arithmetic of
//! the rule cited beside it, not a value read from a run.

use super::*;
use crate::apps::{StartSpec, TcpApp};
use crate::cc::reno::{Counting as AckCounting, RenoConfig};
use crate::cc::CcSpec;
use crate::packet::SackBlock;
use crate::rng::SimRng;
use crate::units::Dur;
use std::collections::HashMap;
use RecoverySpec::{Fack, NewReno, Reno, Sack, Sack1};
use Tx::{New, Re};

const MSS: u64 = 1460;

/// `x` milliseconds into the run.
fn ms(x: u64) -> SimTime {
    SimTime::ZERO + Dur::from_millis(x)
}

/// A data segment the sender put on the wire: new data or a retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tx {
    New(u64),
    Re(u64),
}

/// The default TCP configuration with `recovery` and an initial window of `iw` segments.
fn cfg(recovery: RecoverySpec, iw: u32) -> TcpSpec {
    TcpSpec {
        recovery,
        init_cwnd: iw,
        ..TcpSpec::default()
    }
}

/// `c` with Reno counting once per ACK (RFC 5681 §3.1 eq. 3: cwnd += SMSS²/cwnd), so the
/// congestion-avoidance step of a single ACK is one known number.
fn per_ack(c: TcpSpec) -> TcpSpec {
    TcpSpec {
        cc: CcSpec::new(
            &crate::cc::reno::KIND,
            &RenoConfig {
                counting: AckCounting::PerAck,
                ..RenoConfig::default()
            },
        ),
        ..c
    }
}

/// A sender and the send time of each segment's latest copy (what an ACK echoes).
struct Tcp {
    s: TcpSender,
    sent: HashMap<u64, (SimTime, bool)>,
}

impl Tcp {
    /// A sender opened at time 0, and what it sent then.
    fn open(cfg: TcpSpec) -> (Tcp, Vec<Tx>) {
        let app = SenderApp::new(&cfg.app, SimRng::stream(1, "sender-tests"));
        let s = TcpSender::new(FlowId(0), NodeId(1), EndpointId(1), cfg, app);
        let mut t = Tcp {
            s,
            sent: HashMap::new(),
        };
        let mut out = Vec::new();
        t.s.on_timer(SimTime::ZERO, &mut out);
        let tx = t.record(SimTime::ZERO, out);
        (t, tx)
    }

    fn record(&mut self, now: SimTime, out: Vec<Packet>) -> Vec<Tx> {
        out.iter()
            .map(|p| {
                assert_eq!(p.kind, PacketKind::Data);
                let retx = p.flags & FLAG_RETX != 0;
                self.sent.insert(p.seq, (now, retx));
                if retx {
                    Re(p.seq)
                } else {
                    New(p.seq)
                }
            })
            .collect()
    }

    /// The receiver's ACK arriving at `at`: next expected `cum`, SACK `blocks`, echoing the
    /// timestamp of segment `echo`'s latest copy (flagged if that was a retransmission, as
    /// the receiver does for Karn's rule). Returns what the sender sent in reply.
    #[track_caller]
    fn ack_from(&mut self, at: SimTime, cum: u64, echo: u64, blocks: &[(u64, u64)]) -> Vec<Tx> {
        self.ack_conn(at, cum, echo, blocks, 1)
    }

    #[track_caller]
    fn ack_conn(
        &mut self,
        at: SimTime,
        cum: u64,
        echo: u64,
        blocks: &[(u64, u64)],
        conn: u32,
    ) -> Vec<Tx> {
        let (ts, retx) = *self
            .sent
            .get(&echo)
            .unwrap_or_else(|| panic!("segment {echo} was never sent"));
        let mut p = Packet::new(PacketKind::Ack, FlowId(0), NodeId(0), EndpointId(0), 40);
        p.seq = cum;
        p.ts = ts;
        p.conn = conn;
        if retx {
            p.flags |= FLAG_ECHO_RETX;
        }
        for (i, &(start, end)) in blocks.iter().enumerate() {
            p.set_sack_block(i, SackBlock { start, end });
        }
        p.nsack = blocks.len() as u8;
        let mut out = Vec::new();
        self.s.on_ack(at, &p, &mut out);
        self.record(at, out)
    }

    /// A cumulative ACK of `cum`, sent for the segment just below it.
    #[track_caller]
    fn ack(&mut self, at: SimTime, cum: u64) -> Vec<Tx> {
        self.ack_from(at, cum, cum - 1, &[])
    }

    /// A duplicate ACK (of snd.una) sent for the out-of-order segment `from`.
    #[track_caller]
    fn dupack(&mut self, at: SimTime, from: u64) -> Vec<Tx> {
        let una = self.s.snd_una();
        self.ack_from(at, una, from, &[])
    }

    /// Run the next timer (the retransmission timer, in these tests).
    #[track_caller]
    fn expire(&mut self) -> (SimTime, Vec<Tx>) {
        let at = self.s.next_wakeup();
        assert!(at < SimTime::NEVER, "no timer is running");
        let mut out = Vec::new();
        self.s.on_timer(at, &mut out);
        (at, self.record(at, out))
    }

    /// The window in use, bytes (cwnd plus fast-recovery inflation).
    fn cwnd(&self) -> u64 {
        self.s.effective_cwnd()
    }

    fn ssthresh(&self) -> u64 {
        self.s.cc().ssthresh().0
    }

    /// When the retransmission timer expires (no other timer runs in these tests).
    fn deadline(&self) -> SimTime {
        self.s.next_wakeup()
    }
}

/// A NewReno sender (10-segment initial window, `c` otherwise) that lost segment 0 and has
/// just entered fast recovery on the duplicate ACKs of segments 1, 2 and 3.
fn in_recovery(c: TcpSpec) -> Tcp {
    let (mut t, sent) = Tcp::open(c);
    assert_eq!(sent, (0..10).map(New).collect::<Vec<_>>());
    for from in 1..=3 {
        t.dupack(ms(100 + from), from);
    }
    assert!(t.s.in_recovery());
    t
}

// ------------------------------------------------------------------ RFC 6298 timer

#[test]
fn the_timer_starts_with_the_first_segment_at_the_initial_rto() {
    // RFC 5681 §3.1: IW = 3 segments for an SMSS of 1460. RFC 6298 §2.1: RTO = 1 s before
    // any sample; §5.1: the first segment sent starts the timer.
    let (t, sent) = Tcp::open(TcpSpec::default());
    assert_eq!(sent, [New(0), New(1), New(2)]);
    assert_eq!(t.deadline(), ms(1000));
}

#[test]
fn each_consecutive_timeout_resends_the_first_segment_and_doubles_the_rto_up_to_60_s() {
    // RFC 6298 §5.4–5.6: resend the earliest unacknowledged segment, RTO ← 2·RTO, restart
    // the timer; §2.5: the 60 s maximum bounds the doubling. RTO 1, 2, 4, …, 32, 60, 60 s.
    let (mut t, _) = Tcp::open(TcpSpec::default());
    let mut at = 0;
    for rto_s in [1, 2, 4, 8, 16, 32, 60, 60] {
        at += rto_s * 1000;
        let (when, sent) = t.expire();
        assert_eq!(when, ms(at), "expiry after an RTO of {rto_s} s");
        // RFC 5681 §3.1: the loss window is one segment, so only segment 0 goes.
        assert_eq!(sent, [Re(0)]);
    }
    assert_eq!(t.s.stats.timeouts, 8);
    assert_eq!(t.s.stats.retransmissions, 8);
    assert_eq!(
        t.s.stats.data_sent,
        3 + 8,
        "the flow summary's data packets, resent ones included"
    );
}

#[test]
fn a_timeout_sets_ssthresh_from_the_flight_size_and_the_window_to_one_segment() {
    // RFC 5681 §3.1 eq. (4): ssthresh = max(FlightSize/2, 2·SMSS) = 10·1460/2 = 7300 and
    // cwnd = LW = 1 SMSS. A second timeout of the same segment, nothing acknowledged in
    // between, holds ssthresh where it is.
    let (mut t, _) = Tcp::open(cfg(NewReno, 10));
    t.expire();
    assert_eq!((t.ssthresh(), t.cwnd()), (7300, MSS));
    t.expire();
    assert_eq!((t.ssthresh(), t.cwnd()), (7300, MSS));
}

#[test]
fn karn_no_sample_from_a_retransmission_and_the_backoff_stays_until_a_valid_sample() {
    // RFC 6298 §3 (Karn): no RTT sample from an ACK of a retransmitted segment, and the
    // backed-off RTO is kept (§5, note after 5.7) until new data gives a sample.
    let (mut t, _) = Tcp::open(TcpSpec::default());
    // 1 s: segment 0 again, RTO now 2 s.
    t.expire();
    // 1.5 s: the ACK of the retransmitted 0. Slow start from one segment (RFC 5681 eq. 2:
    // cwnd = 2 segments) resends 1 and 2 (go-back-N).
    assert_eq!(t.ack_from(ms(1500), 1, 0, &[]), [Re(1), Re(2)]);
    assert_eq!(
        t.s.rtt().srtt(),
        Dur::ZERO,
        "no sample from a retransmission"
    );
    // §5.3: a new ACK restarts the timer, with the backed-off RTO.
    assert_eq!(t.deadline(), ms(1500 + 2000));
    // 1.6 s: the ACK of the resent 2 (cwnd 3 segments): still no sample, new data 3–5.
    assert_eq!(t.ack(ms(1600), 3), [New(3), New(4), New(5)]);
    assert_eq!(t.deadline(), ms(1600 + 2000));
    // 1.7 s: the ACK of segment 3, first sent at 1.6 s: R = 100 ms. §2.2: SRTT = 100 ms,
    // RTTVAR = 50 ms, RTO = 100 + 4·50 = 300 ms, raised to the 1 s minimum (§2.4); the
    // backoff is gone.
    t.ack(ms(1700), 4);
    assert_eq!(t.s.rtt().srtt(), Dur::from_millis(100));
    assert_eq!(t.deadline(), ms(1700 + 1000));
}

#[test]
fn a_new_ack_restarts_the_timer_a_duplicate_does_not_and_the_last_ack_stops_it() {
    // RFC 6298 §5.3 and §5.2, on a transfer of four segments.
    let four = TcpSpec {
        app: TcpApp::Bulk {
            size: Some(Bytes(4 * MSS)),
            start: StartSpec {
                lo: SimTime::ZERO,
                hi: SimTime::ZERO,
            },
        },
        ..TcpSpec::default()
    };
    let (mut t, sent) = Tcp::open(four);
    assert_eq!(sent, [New(0), New(1), New(2)]);
    // 100 ms: RTT 100 ms, RTO = max(100 + 4·50 ms, 1 s) = 1 s from now.
    assert_eq!(t.ack(ms(100), 1), [New(3)]);
    assert_eq!(t.deadline(), ms(1100));
    t.dupack(ms(150), 3);
    assert_eq!(
        t.deadline(),
        ms(1100),
        "a duplicate ACK leaves the timer alone"
    );
    assert_eq!(t.ack(ms(200), 4), []);
    assert_eq!(
        t.deadline(),
        SimTime::NEVER,
        "everything acknowledged: no timer"
    );
    assert!(!t.s.is_open());
    // A late duplicate of the last ACK finds the connection closed and changes nothing.
    assert_eq!(t.ack(ms(250), 4), []);
    assert_eq!(t.deadline(), SimTime::NEVER);
}

// ------------------------------------------- RFC 5681 §3.2 / RFC 6582: NewReno

#[test]
fn the_third_duplicate_ack_retransmits_and_halves_the_flight_size() {
    // RFC 5681 §3.2 steps 1–3 (RFC 6582 §3.2 step 2): segment 0 lost. The first two
    // duplicates send nothing (no limited transmit); the third resends segment 0 and sets
    // ssthresh = max(FlightSize/2, 2·SMSS) = 7300, cwnd = ssthresh + 3·SMSS = 11 680.
    let (mut t, _) = Tcp::open(cfg(NewReno, 10));
    assert_eq!(t.dupack(ms(101), 1), []);
    assert_eq!(t.dupack(ms(102), 2), []);
    assert!(!t.s.in_recovery());
    assert!(t.ssthresh() > 1 << 60, "no ssthresh before a loss");
    assert_eq!(t.dupack(ms(103), 3), [Re(0)]);
    assert!(t.s.in_recovery());
    assert_eq!(t.ssthresh(), 7300);
    assert_eq!(t.cwnd(), 7300 + 3 * MSS);
    assert_eq!(t.s.stats.fast_recoveries, 1);
    assert_eq!(
        t.deadline(),
        ms(1000),
        "the timer keeps running from the first send"
    );
}

#[test]
fn the_configured_dupthresh_counts_the_duplicates() {
    // RFC 5681 §3.2 with DupThresh = 4 (`dupthresh`): three duplicates are not enough.
    let (mut t, _) = Tcp::open(TcpSpec {
        dupthresh: 4,
        ..cfg(NewReno, 10)
    });
    for from in 1..=3 {
        assert_eq!(t.dupack(ms(100 + from), from), []);
    }
    assert_eq!(t.dupack(ms(104), 4), [Re(0)]);
    // Step 3 inflates by the DupThresh duplicates that have left the network.
    assert_eq!(t.cwnd(), 7300 + 4 * MSS);
}

#[test]
fn each_further_duplicate_ack_inflates_the_window_by_one_segment() {
    // RFC 5681 §3.2 steps 4–5: after k further duplicates cwnd = 7300 + (3 + k)·1460, a
    // window of 8 + k segments; with segments 0–9 outstanding, new data leaves from k = 3
    // on, one segment per duplicate.
    let mut t = in_recovery(cfg(NewReno, 10));
    let sends = [
        vec![],
        vec![],
        vec![New(10)],
        vec![New(11)],
        vec![New(12)],
        vec![New(13)],
    ];
    for (k, want) in (1..=6).zip(sends) {
        assert_eq!(t.dupack(ms(103 + k), 3 + k), want, "duplicate {}", 3 + k);
        assert_eq!(t.cwnd(), 7300 + (3 + k) * MSS);
    }
    assert_eq!(t.s.stats.fast_recoveries, 1);
}

#[test]
fn a_full_ack_deflates_the_window_to_ssthresh_and_ends_recovery() {
    // RFC 6582 §3.2 step 3, full acknowledgment, option (2): cwnd = ssthresh (RFC 5681
    // §3.2 step 6), then the ACK's own congestion-avoidance step (eq. 3, per-ACK counting):
    // 7300 + 1460²/7300 = 7592 bytes, a window of 5 segments.
    let mut t = in_recovery(per_ack(cfg(NewReno, 10)));
    for from in 4..=9 {
        t.dupack(ms(100 + from), from);
    }
    // The resent segment 0 arrives: ACK 14 covers recover (10) and segments 10–13.
    assert_eq!(
        t.ack_from(ms(200), 14, 0, &[]),
        [New(14), New(15), New(16), New(17), New(18)]
    );
    assert!(!t.s.in_recovery());
    assert_eq!(t.cwnd(), 7592);
    assert_eq!(t.ssthresh(), 7300);
}

#[test]
fn a_full_ack_with_data_still_outstanding_leaves_only_the_deflated_window() {
    // As above, but ACK 10 covers recover exactly while 10–13 are still in flight: the
    // 5-segment window (7592 bytes) has room for one more segment, 14.
    let mut t = in_recovery(per_ack(cfg(NewReno, 10)));
    for from in 4..=9 {
        t.dupack(ms(100 + from), from);
    }
    assert_eq!(t.ack_from(ms(200), 10, 0, &[]), [New(14)]);
    assert!(!t.s.in_recovery());
    assert_eq!(t.cwnd(), 7592);
}

#[test]
fn a_partial_ack_resends_the_next_hole_and_deflates_by_the_amount_acknowledged() {
    // RFC 6582 §3.2 step 3, partial acknowledgment. Segments 0 and 2 lost: duplicates from
    // 1, 3, 4, …, 9 (eight) enter recovery at the third and send 10, 11, 12 (as above).
    let (mut t, _) = Tcp::open(cfg(NewReno, 10));
    let mut sent = Vec::new();
    for (i, from) in [1, 3, 4, 5, 6, 7, 8, 9].into_iter().enumerate() {
        sent.extend(t.dupack(ms(101 + i as u64), from));
    }
    assert_eq!(sent, [Re(0), New(10), New(11), New(12)]);
    assert_eq!(t.cwnd(), 7300 + 8 * MSS);
    // The resent 0 arrives: ACK 2, two segments. Resend segment 2 at once; deflate by the
    // 2·1460 bytes acknowledged and add back one SMSS: cwnd = 7300 + (8 − 2 + 1)·1460 =
    // 17 520, 12 segments from una = 2, so segment 13 also fits. Recovery goes on.
    assert_eq!(t.ack_from(ms(200), 2, 0, &[]), [Re(2), New(13)]);
    assert!(t.s.in_recovery());
    assert_eq!(t.cwnd(), 7300 + 7 * MSS);
    assert_eq!(t.ssthresh(), 7300);
    assert_eq!(
        t.s.cc().cwnd(),
        Bytes(7300),
        "the controller does not grow in recovery"
    );
    assert_eq!(t.s.stats.fast_recoveries, 1);
}

#[test]
fn only_the_first_partial_ack_restarts_the_timer() {
    // RFC 6582 §3.2 step 3 and §4 ("Impatient"): the first partial ACK resets the timer,
    // later ones do not. Segments 0, 2 and 4 lost; duplicates from 1, 3, 5–9.
    let (mut t, _) = Tcp::open(cfg(NewReno, 10));
    for (i, from) in [1, 3, 5, 6, 7, 8, 9].into_iter().enumerate() {
        t.dupack(ms(101 + i as u64), from);
    }
    // RTT samples of about 100 ms: RTO = 1 s (the minimum).
    assert_eq!(t.ack_from(ms(200), 2, 0, &[])[0], Re(2));
    assert_eq!(t.deadline(), ms(1200));
    assert_eq!(t.ack_from(ms(300), 4, 2, &[])[0], Re(4));
    assert_eq!(
        t.deadline(),
        ms(1200),
        "a later partial ACK leaves the timer running"
    );
    assert!(t.s.in_recovery());
    // The full ACK restarts it (RFC 6298 §5.3).
    t.ack_from(ms(400), 10, 4, &[]);
    assert!(!t.s.in_recovery());
    assert_eq!(t.deadline(), ms(1400));
}

#[test]
fn a_timeout_ends_recovery_and_goes_back_to_the_first_unacknowledged_segment() {
    // RFC 6582 §3.2 step 4: a timeout ends fast recovery; RFC 5681 §3.1: ssthresh from the
    // FlightSize of 10 segments, cwnd one segment, no inflation left.
    let mut t = in_recovery(cfg(NewReno, 10));
    let (when, sent) = t.expire();
    assert_eq!(when, ms(1000));
    assert_eq!(sent, [Re(0)]);
    assert!(!t.s.in_recovery());
    assert_eq!((t.ssthresh(), t.cwnd()), (7300, MSS));
    assert_eq!(t.s.stats.timeouts, 1);
}

#[test]
fn after_a_timeout_duplicates_below_recover_start_no_fast_retransmit() {
    // RFC 6582 §3.2 steps 4 and 1: the timeout sets recover to the highest segment sent (9);
    // duplicate ACKs that do not cover it neither retransmit nor touch ssthresh. Plain Reno
    // behaves the same after a timeout (ns-2 tcp-reno.cc with `bugfix_`).
    for rec in [NewReno, Reno] {
        let (mut t, _) = Tcp::open(cfg(rec, 10));
        t.expire(); // 1 s: ssthresh 7300, segment 0 again
                    // The receiver held 1: ACK 2; cwnd two segments, go-back-N resends 2 and 3.
        assert_eq!(t.ack_from(ms(1100), 2, 0, &[]), [Re(2), Re(3)]);
        // Three duplicate ACKs of 2 (copies of segments the receiver already had).
        for from in 3..=5 {
            assert_eq!(t.dupack(ms(1200 + from), from), [], "{rec:?}");
        }
        assert_eq!(t.s.stats.fast_recoveries, 0, "{rec:?}");
        assert_eq!(t.ssthresh(), 7300, "{rec:?}");
        // Once an ACK covers recover the guard lifts: ACK 10 (slow start: three segments,
        // 10–12 leave), then three duplicates of it start a fast retransmit. ssthresh =
        // max(3·1460/2, 2·SMSS) = 2920, cwnd = 2920 + 3·1460: five segments, two of them new.
        assert_eq!(t.ack(ms(1300), 10), [New(10), New(11), New(12)], "{rec:?}");
        for from in 11..=12 {
            assert_eq!(t.dupack(ms(1400 + from), from), [], "{rec:?}");
        }
        let sent = t.ack_from(ms(1413), 10, 12, &[]);
        assert_eq!(sent, [Re(10), New(13), New(14)], "{rec:?}");
        assert_eq!(t.s.stats.fast_recoveries, 1, "{rec:?}");
    }
}

#[test]
fn sack_after_a_timeout_starts_no_recovery_below_recover() {
    // RFC 6582 §3.2 step 1 applied to SACK entry (RFC 6675 §5): after the timeout every
    // un-SACKed segment is lost (§5.1), so IsLost(HighACK + 1) holds, yet no new recovery may
    // start until recover (9) is acknowledged.
    let (mut t, _) = Tcp::open(cfg(Sack, 10));
    t.expire(); // segments 0 and 2 were lost; no ACK came back before the timer expired
                // ACK 2 SACKing 3–9: pipe = 8 − 7 − 1 = 0, cwnd two segments: the hole 2, then new 10.
    assert_eq!(t.ack_from(ms(1100), 2, 0, &[(3, 10)]), [Re(2), New(10)]);
    for at in 1201..=1203 {
        assert_eq!(t.ack_from(ms(at), 2, 9, &[(3, 10)]), []);
    }
    assert_eq!(t.s.stats.fast_recoveries, 0);
    assert_eq!(t.ssthresh(), 7300);
}

#[test]
fn an_ack_below_snd_una_is_no_duplicate_and_an_old_connections_ack_is_ignored() {
    // RFC 5681 §2: a duplicate ACK acknowledges exactly snd.una. An older ACK (reordered)
    // counts for nothing, and neither do ACKs of a finished connection.
    let (mut t, _) = Tcp::open(cfg(NewReno, 10));
    t.ack(ms(100), 2);
    for at in 101..=104 {
        assert_eq!(t.ack_from(ms(at), 1, 0, &[]), []);
    }
    for at in 105..=108 {
        assert_eq!(t.ack_conn(ms(at), 2, 5, &[], 0), []);
    }
    assert!(!t.s.in_recovery());
    assert_eq!(t.s.stats.fast_recoveries, 0);
    assert_eq!(t.s.snd_una(), 2);
}

#[test]
fn ssthresh_halves_the_flight_size_not_the_congestion_window() {
    // RFC 5681 §3.1, note to eq. (4): FlightSize, not cwnd. A 6-segment window cap keeps
    // 6 segments in flight under a 10-segment cwnd: ssthresh = 6·1460/2 = 4380 (not 7300).
    let (mut t, sent) = Tcp::open(TcpSpec {
        max_window: Some(6),
        ..cfg(NewReno, 10)
    });
    assert_eq!(sent.len(), 6);
    for from in 1..=3 {
        t.dupack(ms(100 + from), from);
    }
    assert_eq!(t.ssthresh(), 4380);
}

// ---------------------------------------------------------- RFC 5681 §3.2: Reno

#[test]
fn reno_leaves_recovery_on_the_first_new_ack_and_halves_again_on_the_next_loss() {
    // RFC 5681 §3.2 step 6: the first ACK of new data, even a partial one, deflates the
    // window to ssthresh and ends recovery (per-ACK step: 7300 + 1460²/7300 = 7592, a
    // 5-segment window). Segments 0 and 2 lost, as in the NewReno partial-ACK test.
    let (mut t, _) = Tcp::open(per_ack(cfg(Reno, 10)));
    let mut sent = Vec::new();
    for (i, from) in [1, 3, 4, 5, 6, 7, 8, 9].into_iter().enumerate() {
        sent.extend(t.dupack(ms(101 + i as u64), from));
    }
    assert_eq!(sent, [Re(0), New(10), New(11), New(12)]);
    // ACK 2: recovery ends, segment 2 is not resent, and 2–12 fill more than 5 segments.
    assert_eq!(t.ack_from(ms(200), 2, 0, &[]), []);
    assert!(!t.s.in_recovery());
    assert_eq!(t.cwnd(), 7592);
    // Three duplicates of 2 (from 10, 11, 12) start a second fast retransmit: Reno has no
    // recover guard after a fast retransmit (as ns-2's Reno). ssthresh = FlightSize/2 =
    // (13 − 2)·1460/2 = 8030.
    assert_eq!(t.dupack(ms(300), 10), []);
    assert_eq!(t.dupack(ms(301), 11), []);
    assert_eq!(t.dupack(ms(302), 12), [Re(2)]);
    assert_eq!(t.ssthresh(), 8030);
    assert_eq!(t.cwnd(), 8030 + 3 * MSS);
    assert_eq!(t.s.stats.fast_recoveries, 2);
}

// ------------------------------------------------------------------ RFC 6675: SACK

#[test]
fn sack_recovery_starts_once_dupthresh_segments_are_sacked_above_the_hole() {
    // RFC 6675 §5: enter recovery when IsLost(HighACK + 1); §4 IsLost: more than
    // (DupThresh − 1)·SMSS bytes SACKed above, i.e. three segments. A single ACK SACKing
    // two segments above the hole does nothing; one SACKing three enters at once.
    let (mut t, _) = Tcp::open(cfg(Sack, 10));
    assert_eq!(t.ack_from(ms(100), 0, 2, &[(1, 3)]), []);
    assert!(!t.s.in_recovery());
    let (mut t, _) = Tcp::open(cfg(Sack, 10));
    assert_eq!(t.ack_from(ms(100), 0, 3, &[(1, 4)]), [Re(0)]);
    assert!(t.s.in_recovery());
    // (4.2): ssthresh = cwnd = FlightSize/2; no inflation with SACK.
    assert_eq!((t.ssthresh(), t.cwnd()), (7300, 7300));
}

#[test]
fn sack_recovery_sends_only_while_cwnd_exceeds_pipe() {
    // RFC 6675 §5 step (C) with SetPipe (§4): after entry pipe = 10 outstanding − 3 SACKed
    // − 1 lost + 1 retransmitted = 7 against cwnd = 5 segments. Each segment SACKed takes
    // one off pipe; from pipe = 4 (cwnd − pipe = 1 SMSS) each ACK releases one new segment.
    let (mut t, _) = Tcp::open(cfg(Sack, 10));
    t.ack_from(ms(100), 0, 3, &[(1, 4)]);
    let sends = [
        vec![],
        vec![],
        vec![New(10)],
        vec![New(11)],
        vec![New(12)],
        vec![New(13)],
    ];
    for (seg, want) in (4..10).zip(sends) {
        assert_eq!(
            t.ack_from(ms(100 + seg), 0, seg, &[(1, seg + 1)]),
            want,
            "SACK of {seg}"
        );
        assert_eq!(t.cwnd(), 7300, "no inflation with SACK");
    }
}

#[test]
fn sack_resends_holes_before_new_data_and_stays_in_recovery_until_the_recovery_point() {
    // Holes 0 and 2. NextSeg (RFC 6675 §4) rule 1: a lost segment before new data; §5:
    // recovery ends only when the cumulative ACK covers RecoveryPoint (10).
    let (mut t, _) = Tcp::open(cfg(Sack, 10));
    assert_eq!(t.ack_from(ms(101), 0, 1, &[(1, 2)]), []);
    assert_eq!(t.ack_from(ms(103), 0, 3, &[(3, 4), (1, 2)]), []);
    // Segment 0 has three SACKed above (1, 3, 4): pipe = 10 − 3 − 1 + 1 = 7.
    assert_eq!(t.ack_from(ms(104), 0, 4, &[(3, 5), (1, 2)]), [Re(0)]);
    // 2 has three above now (3, 4, 5): lost. pipe = 10 − 4 − 2 + 1 = 5: nothing.
    assert_eq!(t.ack_from(ms(105), 0, 5, &[(3, 6), (1, 2)]), []);
    // pipe 4: the hole 2 goes first.
    assert_eq!(t.ack_from(ms(106), 0, 6, &[(3, 7), (1, 2)]), [Re(2)]);
    // pipe = 10 − 6 − 2 + 2 = 4: new data.
    assert_eq!(t.ack_from(ms(107), 0, 7, &[(3, 8), (1, 2)]), [New(10)]);
    // The resent 0 arrives: ACK 2, partial. pipe = 9 − 5 − 1 + 1 = 4: one more new segment.
    assert_eq!(t.ack_from(ms(200), 2, 0, &[(3, 8)]), [New(11)]);
    assert!(t.s.in_recovery());
    assert_eq!(t.s.stats.fast_recoveries, 1);
    assert_eq!(t.ssthresh(), 7300);
    // The resent 2 arrives: ACK 10 reaches the recovery point.
    t.ack_from(ms(210), 10, 2, &[]);
    assert!(!t.s.in_recovery());
}

#[test]
fn after_a_timeout_sack_resends_only_the_unsacked_segments_in_order() {
    // RFC 6675 §5.1: after an RTO every un-SACKed segment is lost and none is in flight;
    // they are resent in order, SACKed ones skipped, with pipe governing.
    let (mut t, _) = Tcp::open(cfg(Sack, 10));
    assert_eq!(t.ack_from(ms(100), 0, 5, &[(5, 7)]), []);
    assert_eq!(t.expire(), (ms(1000), vec![Re(0)]));
    // ACK 1: cwnd 2 segments, pipe = 9 − 2 SACKed − 7 lost = 0: resend 1 and 2.
    assert_eq!(t.ack_from(ms(1100), 1, 0, &[(5, 7)]), [Re(1), Re(2)]);
    // ACK 3: cwnd 3 segments, pipe 0: resend 3 and 4, skip the SACKed 5 and 6, resend 7.
    assert_eq!(t.ack_from(ms(1200), 3, 2, &[(5, 7)]), [Re(3), Re(4), Re(7)]);
    assert_eq!(t.s.stats.fast_recoveries, 0);
}

// ------------------------------------------------------------- ns-2 Sack1, FACK

#[test]
fn sack1_waits_for_dupthresh_duplicates_then_every_hole_below_the_highest_sack_is_lost() {
    // docs/tcp.md §4.4 (ns-2 Sack1): entry only on the third duplicate ACK, not on IsLost;
    // in recovery a hole is lost as soon as one segment above it is SACKed.
    let (mut t, _) = Tcp::open(cfg(Sack1, 10));
    assert_eq!(
        t.ack_from(ms(101), 0, 3, &[(1, 4)]),
        [],
        "no entry on one ACK"
    );
    assert_eq!(t.ack_from(ms(102), 0, 4, &[(1, 5)]), []);
    assert_eq!(t.ack_from(ms(103), 0, 5, &[(1, 6)]), [Re(0)]);
    // pipe = 10 − 5 − 1 + 1 = 5 = cwnd.
    // Segment 7 SACKed above the hole 6: 6 is lost at once. pipe = 10 − 6 − 2 + 1 = 3:
    // resend 6, then new 10.
    assert_eq!(
        t.ack_from(ms(107), 0, 7, &[(7, 8), (1, 6)]),
        [Re(6), New(10)]
    );
}

#[test]
fn fack_enters_when_the_forward_most_sack_is_more_than_dupthresh_above_una() {
    // Mathis & Mahdavi 1996 (ns-2 Agent/TCP/Fack): recovery starts when snd.fack − snd.una
    // exceeds 3 segments. SACKing only segment 2 (fack 3) does not; only 3 (fack 4) does.
    let (mut t, _) = Tcp::open(cfg(Fack, 10));
    assert_eq!(t.ack_from(ms(100), 0, 2, &[(2, 3)]), []);
    assert!(!t.s.in_recovery());
    let (mut t, _) = Tcp::open(cfg(Fack, 10));
    assert_eq!(t.ack_from(ms(100), 0, 3, &[(3, 4)]), [Re(0)]);
    assert!(t.s.in_recovery());
    assert_eq!(t.ssthresh(), 7300);
    // Every hole below fack is lost (0, 1, 2); the window limits awnd = snd.nxt − snd.fack
    // + retransmissions in flight: 10 − 4 + 1 = 7, then one less per SACKed segment.
    assert_eq!(t.ack_from(ms(104), 0, 4, &[(3, 5)]), []); // awnd 6
    assert_eq!(t.ack_from(ms(105), 0, 5, &[(3, 6)]), []); // awnd 5
    assert_eq!(t.ack_from(ms(106), 0, 6, &[(3, 7)]), [Re(1)]); // awnd 4 → 5
    assert_eq!(t.ack_from(ms(107), 0, 7, &[(3, 8)]), [Re(2)]); // 10 − 8 + 2 → 5
    assert_eq!(t.ack_from(ms(108), 0, 8, &[(3, 9)]), [New(10)]); // 10 − 9 + 3 → 11 − 9 + 3
}

/// A controller with a fixed window of 10 segments that logs whether each rate sample it
/// is given is application-limited.
#[derive(Clone, Debug, Default)]
struct AppLimitedLog(std::sync::Arc<std::sync::Mutex<Vec<bool>>>);

impl CongestionControl for AppLimitedLog {
    fn name(&self) -> &'static str {
        "app-limited-log"
    }
    fn cwnd(&self) -> Bytes {
        Bytes(10 * MSS)
    }
    fn ssthresh(&self) -> Bytes {
        Bytes(u64::MAX / 2)
    }
    fn on_ack(&mut self, _ev: &AckEvent) {}
    fn on_congestion(&mut self, _ev: &CongestionEvent) {}
    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn on_rate_sample(&mut self, _ev: &AckEvent, rs: &crate::cc::RateSample) {
        self.0.lock().unwrap().push(rs.is_app_limited);
    }
}

/// A SACK sender whose application is an MPTCP subflow's grant of `grant` segments, with a
/// window of 10 segments (the log): opened at time 0 (BBR paces the first segment, so the
/// rest leave at the first timer), and the log of its rate samples.
fn granted_sender(grant: u64) -> (Tcp, AppLimitedLog) {
    let cfg = TcpSpec {
        // a controller that asks for rate samples, so that the sender keeps them
        cc: CcSpec::new(&crate::cc::bbr::KIND, &crate::cc::bbr::BbrConfig::default()),
        ..cfg(Sack, 10)
    };
    let app = SenderApp::new(&cfg.app, SimRng::stream(1, "sender-tests"));
    let mut s = TcpSender::new(FlowId(0), NodeId(1), EndpointId(1), cfg, app).with_grants();
    s.set_grant(grant);
    let mut out = Vec::new();
    s.on_timer(SimTime::ZERO, &mut out);
    // BBR paces its first segments; the log's window is not paced.
    let log = AppLimitedLog::default();
    s.cc = AnyCc::Boxed(Box::new(log.clone()));
    let mut t = Tcp {
        s,
        sent: HashMap::new(),
    };
    assert_eq!(t.record(SimTime::ZERO, out), [New(0)]);
    (t, log)
}

/// tcp_rate_check_app_limited (tcp_rate.c:194–208): when the application has nothing more
/// to send, the window is not full and no lost segment waits, the sender is marked
/// application-limited, and the segments it sends until that much is delivered give
/// application-limited rate samples (`tcp_rate_skb_sent`, tcp_rate.c:40–70, records the
/// mark with each segment; `tcp_rate_gen` ends it). Here the application is an
/// MPTCP subflow's grant: 2 segments in a window of 10, then 2 more.
#[test]
fn segments_sent_after_the_application_ran_dry_give_application_limited_samples() {
    let (mut t, log) = granted_sender(2);
    let mut out = Vec::new();
    t.s.on_timer(ms(1), &mut out);
    assert_eq!(t.record(ms(1), out), [New(1)]);
    t.s.set_grant(4);
    assert_eq!(t.ack(ms(100), 1), [New(2), New(3)]);
    for cum in 2..=4 {
        assert_eq!(t.ack(ms(100 + cum), cum), []);
    }
    // Segments 0 and 1 left before the mark, 2 and 3 inside it.
    assert_eq!(*log.0.lock().unwrap(), [false, false, true, true]);
}

/// The mark lasts until everything in flight when it was set is delivered: tcp_rate.c:206
/// sets it to C.delivered + the packets in flight, and `tcp_rate_gen` (tcp_rate.c:123–124)
/// ends it only once C.delivered exceeds that. With 4 segments in flight at the mark, an
/// ACK for 2 of them (a delayed ACK, RFC 5681 §4.2) leaves the bubble open: the segments
/// the application's new data then sends are application-limited.
#[test]
fn the_application_limited_mark_lasts_until_what_was_in_flight_is_delivered() {
    let (mut t, log) = granted_sender(4);
    let mut out = Vec::new();
    t.s.on_timer(ms(1), &mut out);
    // the grant is spent with 4 segments in flight and a window of 10: the mark is set
    assert_eq!(t.record(ms(1), out), [New(1), New(2), New(3)]);
    t.s.set_grant(6);
    assert_eq!(t.ack(ms(100), 2), [New(4), New(5)]);
    for cum in [4, 6] {
        assert_eq!(t.ack(ms(100 + cum), cum), []);
    }
    // Segments 0–3 left before the mark, 4 and 5 inside it (2 of the 4 delivered when
    // they left). Each ACK gives one sample, that of the latest segment it covers.
    assert_eq!(*log.0.lock().unwrap(), [false, false, true]);
}
