//! The receiver's ACK rules, one per test: delayed ACKs and quick ACKs, SACK blocks (RFC
//! 2018), ns-2's sinks, Linux's SACK compression and the window it offers.

use super::*;

fn rx(delack: Option<Dur>) -> TcpReceiver {
    TcpReceiver::new(
        FlowId(0),
        NodeId(0),
        EndpointId(0),
        1000,
        40,
        delack,
        Some(10_500),
    )
}

fn seg(seq: u64) -> Packet {
    let mut p = Packet::new(PacketKind::Data, FlowId(0), NodeId(1), EndpointId(1), 1040);
    p.seq = seq;
    p.conn = 1;
    p.ts = SimTime(seq);
    p
}

/// ns-2's sinks add 8 bytes per SACK block to the 40-byte ACK (tcp-sink.cc:755), no
/// option header or padding; with `sack_option_bytes` the RFC 2018 option wins.
#[test]
fn sack_block_bytes_add_eight_per_block() {
    let sizes = |blocks: bool, option: bool| {
        let mut r = rx(None)
            .with_sack_block_bytes(blocks)
            .with_sack_option_bytes(option);
        let mut out = Vec::new();
        // 0 in order; 2 and 4 out of order: ACKs with 0, 1 and 2 SACK blocks.
        for s in [0, 2, 4] {
            r.on_data(SimTime(s), &seg(s), &mut out);
        }
        out.iter().map(|p| (p.nsack, p.size)).collect::<Vec<_>>()
    };
    assert_eq!(sizes(false, false), [(0, 40), (1, 40), (2, 40)]);
    assert_eq!(sizes(true, false), [(0, 40), (1, 48), (2, 56)]);
    assert_eq!(sizes(true, true), [(0, 40), (1, 52), (2, 60)]);
}

#[test]
fn delayed_ack_every_second_segment_or_on_timer() {
    let mut r = rx(Some(Dur::from_millis(100)));
    let mut out = Vec::new();
    r.on_data(SimTime(0), &seg(0), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.next_wakeup(), SimTime(100_000_000));
    r.on_data(SimTime(5), &seg(1), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, 2);
    assert_eq!(
        out[0].ts,
        SimTime(0),
        "echoes the first unacknowledged segment"
    );
    r.on_data(SimTime(10), &seg(2), &mut out);
    r.on_timer(SimTime(100_000_010), &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].seq, 3);
}

/// Quick ACKs: the first 3 in-order segments are acknowledged one by one, then every
/// second; a duplicate segment grants the credit again.
#[test]
fn quick_acks_acknowledge_every_segment_at_the_start() {
    let mut r = rx(Some(Dur::from_millis(40))).with_quick_acks(3);
    let mut out = Vec::new();
    for s in 0..7 {
        r.on_data(SimTime(s), &seg(s), &mut out);
    }
    let acks: Vec<u64> = out.iter().map(|p| p.seq).collect();
    assert_eq!(acks, [1, 2, 3, 5, 7]);
    r.on_data(SimTime(8), &seg(3), &mut out); // a duplicate: ACK, credit 3 − 1 left
    r.on_data(SimTime(9), &seg(7), &mut out);
    r.on_data(SimTime(10), &seg(8), &mut out);
    r.on_data(SimTime(11), &seg(9), &mut out);
    let acks: Vec<u64> = out[5..].iter().map(|p| p.seq).collect();
    assert_eq!(acks, [7, 8, 9]);
    let mut off = rx(Some(Dur::from_millis(40)));
    let mut out = Vec::new();
    for s in 0..4 {
        off.on_data(SimTime(s), &seg(s), &mut out);
    }
    assert_eq!(out.len(), 2, "off: every second segment");
}

#[test]
fn a_pushed_full_segment_is_acked_at_once_only_with_ack_pushed() {
    let pushed = |seq| {
        let mut p = seg(seq);
        p.flags |= FLAG_PSH;
        p
    };
    for (on, want) in [(false, 0), (true, 1)] {
        let mut r = rx(Some(Dur::from_millis(40))).with_ack_pushed(on);
        let mut out = Vec::new();
        r.on_data(SimTime::ZERO, &pushed(0), &mut out);
        assert_eq!(out.len(), want, "ack_pushed {on}");
    }
    // Not with a hole open (the read cannot empty the queue), nor for an unpushed one.
    let mut r = rx(Some(Dur::from_millis(40))).with_ack_pushed(true);
    let mut out = Vec::new();
    r.on_data(SimTime::ZERO, &seg(0), &mut out);
    assert!(out.is_empty());
    r.on_data(SimTime::ZERO, &seg(1), &mut out); // every second segment
    assert_eq!(out.len(), 1);
    r.on_data(SimTime::ZERO, &seg(3), &mut out); // out of order: acked at once anyway
    assert_eq!(out.len(), 2);
    out.clear();
    r.on_data(SimTime::ZERO, &pushed(5), &mut out); // beyond the hole
    r.on_data(SimTime::ZERO, &seg(2), &mut out); // fills the hole up to 4: acked
    assert_eq!(out.len(), 2);
    out.clear();
    r.on_data(SimTime::ZERO, &pushed(4), &mut out); // fills the last hole: acked
    assert_eq!(out.len(), 1);
}

#[test]
fn out_of_order_is_acked_at_once_with_sack_blocks_newest_first() {
    let mut r = rx(Some(Dur::from_millis(100)));
    let mut out = Vec::new();
    for s in [0, 1, 3, 4, 7] {
        r.on_data(SimTime(s), &seg(s), &mut out);
    }
    let last = out.last().unwrap();
    assert_eq!(last.seq, 2);
    assert_eq!(last.nsack, 2);
    assert_eq!(last.sack_block(0), SackBlock { start: 7, end: 8 });
    assert_eq!(last.sack_block(1), SackBlock { start: 3, end: 5 });
    // Filling the hole acks everything up to the next hole at once.
    r.on_data(SimTime(9), &seg(2), &mut out);
    let last = out.last().unwrap();
    assert_eq!(last.seq, 5);
    assert_eq!(last.nsack, 1);
}

/// Linux's SACK compression: three duplicate ACKs at once, then the SACK waits for the
/// timer (no RTT estimate here: the whole 1 ms, plus 100 µs of slack), and the ACK that
/// fills the hole goes at once and takes the held SACK along.
#[test]
fn sack_compression_holds_sacks_after_three_duplicates() {
    let us = |x: u64| SimTime::ZERO + Dur::from_micros(x);
    let mut r = rx(Some(Dur::from_millis(40))).with_sack_compress(Some(SackCompress::new(
        Dur::from_millis(1),
        Dur::from_micros(100),
        44,
    )));
    let mut out = Vec::new();
    r.on_data(us(0), &seg(0), &mut out); // in order: delayed
    assert_eq!(out.len(), 0);
    for (k, s) in [2, 3, 4].into_iter().enumerate() {
        r.on_data(us(1000 * (k as u64 + 1)), &seg(s), &mut out);
        assert_eq!(out.len(), k + 1, "duplicate ACK {k} at once");
    }
    r.on_data(us(4000), &seg(5), &mut out);
    assert_eq!(out.len(), 3, "the fourth SACK is held");
    assert_eq!(r.next_wakeup(), us(5100));
    r.on_timer(us(5100), &mut out);
    assert_eq!(out.len(), 4);
    assert_eq!(out[3].sack_block(0), SackBlock { start: 2, end: 6 });
    r.on_data(us(6000), &seg(6), &mut out);
    assert_eq!(out.len(), 4, "held again");
    // the retransmission fills the hole: an ACK at once, carrying the held SACK
    r.on_data(us(6050), &seg(1), &mut out);
    assert_eq!((out.len(), out[4].seq, out[4].nsack), (5, 7, 0));
    assert_eq!(r.next_wakeup(), SimTime::NEVER);
}

/// Linux sends the ACK of a partial fill at once; when it is no window update (the
/// data held out of order lowers the window below the one offered), by SACK
/// compression's rule, as the first of the three duplicates that go at once: two more
/// SACKs go at once, the third is held. Without the window model, three go at once.
#[test]
fn a_partial_fill_counts_as_a_duplicate_when_it_is_no_window_update() {
    let us = |x: u64| SimTime::ZERO + Dur::from_micros(x);
    let compress = || Some(SackCompress::new(Dur::from_millis(1), Dur::ZERO, 44));
    let at_once_after_fill = |mut r: TcpReceiver| {
        let mut out = Vec::new();
        for (k, s) in [0, 2, 4, 5, 6].into_iter().enumerate() {
            r.on_data(us(1000 * k as u64), &seg(s), &mut out);
        }
        assert_eq!(out.len(), 3, "three duplicates at once, the fourth held");
        r.on_timer(us(5000), &mut out);
        r.on_data(us(6000), &seg(1), &mut out); // fills 1, joins 2; 3 still missing
        assert_eq!(
            (out.len(), out[4].seq),
            (5, 3),
            "the partial fill's ACK at once"
        );
        let mut n = 0;
        for s in 7..10 {
            let before = out.len();
            r.on_data(us(7000 + 100 * s), &seg(s), &mut out);
            if out.len() == before {
                break;
            }
            n += 1;
        }
        n
    };
    let modelled = rx(Some(Dur::from_millis(40)))
        .with_rcv_autotune(true)
        .with_sack_compress(compress());
    assert_eq!(at_once_after_fill(modelled), 2);
    let plain = rx(Some(Dur::from_millis(40))).with_sack_compress(compress());
    assert_eq!(at_once_after_fill(plain), 3);
}

/// RFC 2018 §4: with more islands than blocks, the first block holds the newest
/// segment and the others repeat the most recently reported islands, not the lowest.
#[test]
fn with_more_islands_than_blocks_the_most_recent_are_reported() {
    let mut r = rx(None);
    let mut out = Vec::new();
    for s in [0, 2, 8, 4, 6] {
        r.on_data(SimTime(s), &seg(s), &mut out);
    }
    let last = out.last().unwrap();
    let blocks: Vec<(u64, u64)> = (0..last.nsack as usize)
        .map(|i| last.sack_block(i))
        .map(|b| (b.start, b.end))
        .collect();
    assert_eq!(blocks, [(6, 7), (4, 5), (8, 9)]);
}

#[test]
fn goodput_counts_payload_and_a_short_last_segment_and_completion() {
    let mut r = rx(None);
    let mut out = Vec::new();
    for s in 0..11 {
        r.on_data(SimTime(s), &seg(s), &mut out);
    }
    assert_eq!(r.bytes_delivered, 10_500);
    assert_eq!(r.completion, Some(SimTime(10)));
    assert_eq!(out.len(), 11);
}

#[test]
fn duplicates_do_not_count_twice() {
    let mut r = rx(None);
    let mut out = Vec::new();
    r.on_data(SimTime(0), &seg(0), &mut out);
    r.on_data(SimTime(1), &seg(0), &mut out);
    r.on_data(SimTime(2), &seg(2), &mut out);
    r.on_data(SimTime(3), &seg(2), &mut out);
    assert_eq!(r.bytes_delivered, 1000);
    assert_eq!(out.len(), 4);
}
