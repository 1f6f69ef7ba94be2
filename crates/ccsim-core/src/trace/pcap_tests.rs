//! The pcap writer's frames, parsed back by hand: file and record headers, checksums,
//! sequence and acknowledgement numbers, options, SCTP chunks.

use super::*;
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::SackBlock;

/// Headers for one flow from node 0 ("a") to node 1 ("b") over a duplex link (link 0:
/// a->b, link 1: b->a): TCP with a 1000-byte MSS (`max_window` 20 segments), UDP or SCTP.
fn headers(proto: Proto) -> Headers {
    Headers::new(vec![(0, 1, proto)], vec![(0, 1), (1, 0)])
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}
fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// One frame written for `pkt` on link `link` at `t`: (record header fields, frame bytes).
fn one(h: &Headers, link: usize, pkt: Packet, t: SimTime) -> (u32, u32, u32, u32, Vec<u8>) {
    let mut cap = LinkCapture::default();
    cap.record(t, t + crate::units::Dur::from_millis(1), &pkt);
    let (file, n) = write(h, &[(link, &cap, Stamp::Start)], SimTime::NEVER);
    assert_eq!(n, 1);
    assert_eq!(le32(&file, 0), 0xa1b2_3c4d, "nanosecond pcap magic");
    assert_eq!(le32(&file, 4), 2 | (4 << 16), "version 2.4");
    assert_eq!(le32(&file, 20), 1, "Ethernet");
    let r = &file[24..];
    let (sec, ns, incl, orig) = (le32(r, 0), le32(r, 4), le32(r, 8), le32(r, 12));
    assert_eq!(incl as usize, r.len() - 16);
    (sec, ns, incl, orig, r[16..].to_vec())
}

/// Whether the one's-complement sum over the data (with its checksum) verifies.
fn verifies(words: &[&[u8]], extra: u32) -> bool {
    let mut acc = extra;
    for w in words {
        acc = sum16(w, acc);
    }
    fold(acc) == 0
}

#[test]
fn tcp_data_segment() {
    let h = headers(Proto::tcp(1000, 40, Some(100_000), Some(20), false));
    let mut p = Packet::new(PacketKind::Data, FlowId(0), NodeId(1), EndpointId(1), 1040);
    p.seq = 7;
    p.conn = 1;
    p.ts = SimTime(2_500_123_456);
    let (sec, ns, incl, orig, f) = one(&h, 0, p, SimTime(3_000_000_007));
    assert_eq!((sec, ns), (3, 7));
    // Ethernet: to b (node 1), from a (node 0); IPv4.
    assert_eq!(&f[0..6], &[2, 0, 0, 0, 0, 1]);
    assert_eq!(&f[6..12], &[2, 0, 0, 0, 0, 0]);
    assert_eq!(be16(&f, 12), 0x0800);
    let ip = &f[14..34];
    assert_eq!(
        (ip[0], ip[1], ip[8], ip[9]),
        (0x45, 0, 64, 6),
        "v4, no ECN, TTL 64, TCP"
    );
    assert_eq!(&ip[12..20], &[10, 0, 0, 1, 10, 0, 0, 2]);
    assert!(verifies(&[ip], 0), "IPv4 header checksum");
    // TCP: 32-byte header (timestamps), 1000 bytes of payload not captured.
    let tcp = &f[34..];
    assert_eq!(tcp.len(), 32);
    assert_eq!(be16(ip, 2) as usize, 20 + 32 + 1000);
    assert_eq!(orig as usize, 14 + 20 + 32 + 1000);
    assert_eq!(incl as usize, 14 + 20 + 32);
    assert_eq!((be16(tcp, 0), be16(tcp, 2)), (49152, 57344 + 33));
    assert_eq!(be32(tcp, 4), 7000, "segment 7 of 1000 bytes");
    assert_eq!((tcp[12] >> 4, tcp[13]), (8, 0x10), "8 words, ACK");
    assert_eq!(&tcp[20..24], &[1, 1, 8, 10]);
    assert_eq!(be32(tcp, 24), 2_500_123, "TSval: send time in µs");
    let pseudo = 6 + (32 + 1000) as u32;
    assert!(verifies(&[&ip[12..20], tcp], pseudo), "TCP checksum");
}

#[test]
fn a_pushed_data_segment_carries_psh() {
    let h = headers(Proto::tcp(1000, 40, Some(100_000), Some(20), false));
    let mut p = Packet::new(PacketKind::Data, FlowId(0), NodeId(1), EndpointId(1), 1040);
    p.flags |= crate::packet::FLAG_PSH;
    let (.., f) = one(&h, 0, p, SimTime(1));
    assert_eq!(f[34 + 13], 0x18, "PSH, ACK");
    // The same bit on an ACK is FLAG_NO_ECHO, not PSH.
    let mut a = Packet::new(PacketKind::Ack, FlowId(0), NodeId(0), EndpointId(0), 40);
    a.flags |= crate::packet::FLAG_NO_ECHO;
    let (.., f) = one(&h, 0, a, SimTime(1));
    assert_eq!(f[34 + 13], 0x10, "ACK only");
}

#[test]
fn tcp_ack_with_sack_blocks_and_the_last_short_segment() {
    let h = headers(Proto::tcp(1000, 40, Some(10_500), Some(20), false));
    let mut p = Packet::new(PacketKind::Ack, FlowId(0), NodeId(0), EndpointId(0), 40);
    p.seq = 3;
    p.conn = 1;
    p.ts = SimTime(1_000_000);
    p.set_sack_block(0, SackBlock { start: 9, end: 11 });
    p.set_sack_block(1, SackBlock { start: 5, end: 6 });
    p.nsack = 2;
    let (_, _, _, orig, f) = one(&h, 1, p, SimTime(5));
    let ip = &f[14..34];
    assert_eq!(&ip[12..20], &[10, 0, 0, 2, 10, 0, 0, 1], "from b back to a");
    let tcp = &f[34..];
    assert_eq!(tcp.len(), 20 + 12 + 4 + 16);
    assert_eq!(orig as usize, 14 + 20 + 52, "no payload");
    assert_eq!((be16(tcp, 0), be16(tcp, 2)), (57344 + 33, 49152));
    assert_eq!((be32(tcp, 4), be32(tcp, 8)), (1, 3000));
    assert_eq!(be16(tcp, 14), 20_000, "window: max_window × MSS");
    assert_eq!(
        (be32(tcp, 24), be32(tcp, 28)),
        (0, 1000),
        "TSecr echoes 1 ms"
    );
    assert_eq!(&tcp[32..36], &[1, 1, 5, 18]);
    // Block [9, 11) ends at the transfer's last byte, 10500, not 11000.
    assert_eq!((be32(tcp, 36), be32(tcp, 40)), (9000, 10500));
    assert_eq!((be32(tcp, 44), be32(tcp, 48)), (5000, 6000));
    assert!(verifies(&[&ip[12..20], tcp], 6 + 52));
}

#[test]
fn udp_and_route_announcements() {
    let h = headers(Proto::UDP);
    let mut p = Packet::new(PacketKind::Udp, FlowId(0), NodeId(1), EndpointId(1), 500);
    p.conn = 0;
    let (_, _, incl, orig, f) = one(&h, 0, p, SimTime(1));
    assert_eq!(
        (incl, orig),
        (42, 514),
        "headers captured; the wire size is the simulated 500 B"
    );
    let (ip, udp) = (&f[14..34], &f[34..42]);
    assert_eq!(ip[9], 17);
    assert_eq!(be16(udp, 4), 480);
    assert!(verifies(&[&ip[12..20], udp], 17 + 480), "UDP checksum");
    let mut r = Packet::new(PacketKind::Route, FlowId(0), NodeId(1), EndpointId(0), 52);
    r.conn = 0;
    let (_, _, _, orig, f) = one(&h, 0, r, SimTime(1));
    assert_eq!(orig, 14 + 52);
    assert_eq!((be16(&f, 34), be16(&f, 36)), (520, 520), "RIP's port");
}

#[test]
fn sctp_chunks_and_crc32c() {
    // RFC 3720 B.4's test vector of CRC32c: 32 bytes of zeros give 0x8A9136AA.
    assert_eq!(crc32c(&[], 32), 0x8A91_36AA);
    assert_eq!(crc32c(b"123456789", 0), 0xE306_9283);
    let h = headers(Proto::Sctp {
        overhead: 48,
        rwnd: 65536,
    });
    let mut d = Packet::new(
        PacketKind::SctpData,
        FlowId(0),
        NodeId(1),
        EndpointId(1),
        1500,
    );
    d.seq = 42;
    let (_, _, _, orig, f) = one(&h, 0, d, SimTime(1));
    let sctp = &f[34..];
    assert_eq!(f[23], 132);
    assert_eq!(orig as usize, 14 + 1500, "20 + 12 + 16 + 1452 payload");
    assert_eq!((sctp[12], sctp[13], be16(sctp, 14)), (0, 7, 16 + 1452));
    assert_eq!(be32(sctp, 16), 42);
    let mut zeroed = sctp.to_vec();
    zeroed[8..12].fill(0);
    assert_eq!(le32(sctp, 8), crc32c(&zeroed, 1452));
    let mut s = Packet::new(
        PacketKind::SctpSack,
        FlowId(0),
        NodeId(0),
        EndpointId(0),
        28,
    );
    s.seq = 10;
    crate::transport::sctp::gaps::set_gap_blocks(&mut s, &[(12, 14), (20, 21)]);
    let (_, _, _, _, f) = one(&h, 1, s, SimTime(1));
    let sctp = &f[34..];
    assert_eq!((sctp[12], be16(sctp, 14)), (3, 16 + 8));
    assert_eq!(be32(sctp, 16), 9, "cumulative TSN ack = next expected − 1");
    assert_eq!(be32(sctp, 20), 65536, "a_rwnd");
    assert_eq!(be16(sctp, 24), 2);
    // TSNs 12..=13 and 20: offsets 3..=4 and 11..=11 from 9.
    assert_eq!(
        (
            be16(sctp, 28),
            be16(sctp, 30),
            be16(sctp, 32),
            be16(sctp, 34)
        ),
        (3, 4, 11, 11)
    );
}

#[test]
fn two_links_merge_in_time_order_up_to_the_end_and_lost_arrivals_are_left_out() {
    let h = headers(Proto::tcp(1460, 40, None, None, false));
    let data = |seq| {
        let mut p = Packet::new(PacketKind::Data, FlowId(0), NodeId(1), EndpointId(1), 1500);
        p.seq = seq;
        p
    };
    let ack = |seq| {
        let mut p = Packet::new(PacketKind::Ack, FlowId(0), NodeId(0), EndpointId(0), 40);
        p.seq = seq;
        p
    };
    let (mut out, mut back) = (LinkCapture::default(), LinkCapture::default());
    for i in 0..4 {
        out.record(SimTime(10 * i), SimTime(10 * i + 5), &data(i));
        back.record(SimTime(10 * i + 1), SimTime(10 * i + 6), &ack(i + 1));
    }
    back.lost(SimTime(16));
    let parts = [(0, &out, Stamp::Start), (1, &back, Stamp::Arrival)];
    let (file, n) = write(&h, &parts, SimTime(30));
    // Data at 0, 10, 20, 30; ACKs arriving at 6, (16 lost), 26 (36 is after the end).
    assert_eq!(n, 6);
    let mut times = Vec::new();
    let mut at = 24;
    while at < file.len() {
        times.push(le32(&file, at + 4));
        at += 16 + le32(&file, at + 8) as usize;
    }
    assert_eq!(times, vec![0, 6, 10, 20, 26, 30]);
}
