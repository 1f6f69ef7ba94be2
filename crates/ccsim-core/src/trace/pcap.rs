//! Packet captures (`[trace] pcap`): what Wireshark or tshark would see on an interface,
//! written as a pcap file (the nanosecond-resolution variant, magic `0xa1b23c4d`; link type
//! 1, Ethernet).
//!
//! During the run a captured link only appends a copy of each packet it accepts, with the
//! times its transmission starts and it reaches the far end (`LinkCapture::record`, the
//! only work on the hot path, and only on captured links). Headers are synthesised at the
//! end, from the simulated fields:
//!
//! * Ethernet: locally administered addresses `02:00:<node as 4 bytes>` of the link's two
//!   nodes; IPv4: `10.x.y.z` = node index + 1, TTL 64, DF, no ECN (ccsim does not model ECN),
//!   a correct header checksum;
//! * TCP (and MPTCP subflows): ports from the flow and connection (`ports`); sequence number
//!   = segment × MSS, acknowledgement number = the cumulative ACK's segment × MSS (capped at
//!   a finite transfer's size), SACK blocks likewise (RFC 2018), the timestamp option
//!   (RFC 7323) with TSval = the data segment's send time in µs and TSecr = the echoed send
//!   time on ACKs (the receiver's own clock is not modelled: its TSval is 0), the window =
//!   the flow's `max_window` in bytes capped at 65535 (no SYN, so no window scaling), and a
//!   checksum that is correct for an all-zero payload;
//! * UDP for CBR, ARC (no standard header exists for it) and routing announcements (RIP's
//!   port 520); SCTP (RFC 4960) with one DATA chunk (TSN) or one SACK chunk (cumulative TSN
//!   ack, a_rwnd, gap blocks) and its CRC32c.
//!
//! Payload bytes are not simulated: each frame holds the headers only (captured length)
//! while its original length counts the payload, as a capture with a short snap length
//! would. Payload lengths and sequence numbers are the simulated ones; the synthesised TCP
//! options make a frame longer than the simulated packet by their size (12 bytes of
//! timestamps, 4 + 8 per SACK block).

use crate::packet::{Packet, PacketKind};
use crate::params::{Alt, Dflt, Param, Ty};
use crate::units::SimTime;

/// `[trace] pcap`: the links to capture (the names are resolved when the scenario is
/// assembled, into [`PcapSpec`]s).
pub const PARAM: Param = Param::new(
    "pcap",
    Ty::List {
        of: &Ty::Text,
        len: None,
        what: "a list of link names such as [\"bottleneck\"] (one pcap file each)",
    },
    Dflt::None("no captures"),
)
.alt(Alt::Word("none", "no captures"))
.doc("packet captures to write, one pcap file each: the name of a [[link]] entry (both directions, as seen from its first node) or \"a->b\" (that direction, seen from a); docs/scenario.md, \"Packet captures\"")
.source("none: a capture costs memory and time only when asked for");

/// One packet capture: what an interface on `node` would see of the link `out` leaving it
/// (at the start of each transmission) and of the link `back` coming in (at each arrival).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcapSpec {
    /// The name it was asked for by: a `[[link]]` entry's name or a directed link `"a->b"`.
    pub name: String,
    /// The capturing node.
    pub node: usize,
    /// The directed link leaving `node`.
    pub out: usize,
    /// The directed link arriving at `node` from the same neighbour (both directions of a
    /// duplex entry), if captured.
    pub back: Option<usize>,
}

/// One packet accepted by a captured link: when its transmission starts and when it reaches
/// the far end.
#[derive(Clone, Copy, Debug)]
pub struct Record {
    /// Start of transmission (what an interface sending it would record).
    pub start: SimTime,
    /// Arrival at the far end (what the receiving interface would record).
    pub arrive: SimTime,
    /// The packet.
    pub pkt: Packet,
}

/// The packets a captured link accepted, in the link's FIFO order (so in order of both
/// `start` and `arrive`).
#[derive(Clone, Debug, Default)]
pub struct LinkCapture {
    /// The records, in order.
    pub records: Vec<Record>,
    /// Arrival times of the packets lost on the way to a link failure (in order): they do not
    /// arrive, so an arrival capture leaves them out.
    pub lost: Vec<SimTime>,
}

impl LinkCapture {
    /// Note a packet the link accepted. Out of line and cold: a link without a capture
    /// (the usual case) keeps its offer path as short as before captures existed.
    #[cold]
    #[inline(never)]
    pub fn record(&mut self, start: SimTime, arrive: SimTime, pkt: &Packet) {
        self.records.push(Record {
            start,
            arrive,
            pkt: *pkt,
        });
    }

    /// The packet due at the far end at `now` was lost to a link failure.
    pub fn lost(&mut self, now: SimTime) {
        self.lost.push(now);
    }

    /// Bytes held by the records, plus those of the pcap file they become at the end (at
    /// most [`MAX_RECORD_BYTES`] per packet): what the run-time memory guard counts, so
    /// that a capture of a busy link stops the run before it outgrows the memory limit.
    pub fn memory_bytes(&self) -> u64 {
        use std::mem::size_of;
        (self.records.capacity() * size_of::<Record>()
            + self.lost.capacity() * size_of::<SimTime>()
            + self.records.len() * MAX_RECORD_BYTES) as u64
    }
}

/// pcap global header: nanosecond magic, version 2.4, snap length, Ethernet.
const MAGIC_NS: u32 = 0xa1b2_3c4d;
const SNAPLEN: u32 = 65535;
const LINKTYPE_ETHERNET: u32 = 1;
const ETH_LEN: usize = 14;
const IP_LEN: usize = 20;
const UDP_LEN: usize = 8;
/// NOP, NOP, timestamps (kind 8, length 10).
const TS_OPTION_LEN: usize = 12;
/// RIP's UDP port (RFC 2453 §3.1), for routing announcements.
const RIP_PORT: u16 = 520;
/// The largest record a packet becomes in the file: its 16-byte record header and a TCP
/// ACK's headers with timestamps and every SACK block (UDP and SCTP frames are shorter).
pub const MAX_RECORD_BYTES: usize =
    16 + ETH_LEN + IP_LEN + 20 + TS_OPTION_LEN + 4 + 8 * crate::packet::MAX_SACK_BLOCKS;

/// The transport a flow's packets are written as (built from the flow's configuration by
/// the simulation, `sim_results`).
#[derive(Clone, Copy, Debug)]
pub enum Proto {
    /// TCP, or MPTCP subflows.
    Tcp {
        /// Payload bytes per segment (sequence numbers are segment × MSS).
        mss: u64,
        /// Header bytes the simulation adds to each packet.
        header: u64,
        /// A finite transfer's size (ACK numbers stop there).
        total: Option<u64>,
        /// The advertised window in bytes.
        window: u16,
        /// Ports per MPTCP subflow.
        subflow_ports: bool,
    },
    /// UDP; payload = wire size − `header`.
    Udp {
        /// Header bytes the simulation counts in each packet.
        header: u64,
    },
    /// SCTP; DATA payload = wire size − `overhead`.
    Sctp {
        /// Per-packet overhead of a DATA packet.
        overhead: u64,
        /// The advertised receiver window (a_rwnd).
        rwnd: u32,
    },
}

impl Proto {
    /// TCP with `mss`-byte segments and `header` bytes per packet; `total` a finite
    /// transfer's size; `max_window` in segments (the window field: that many bytes, at
    /// most 65535, as without window scaling).
    pub fn tcp(
        mss: u32,
        header: u32,
        total: Option<u64>,
        max_window: Option<u32>,
        subflow_ports: bool,
    ) -> Proto {
        Proto::Tcp {
            mss: mss as u64,
            header: header as u64,
            total,
            window: max_window.map_or(u16::MAX, |w| {
                (w as u64 * mss as u64).min(u16::MAX as u64) as u16
            }),
            subflow_ports,
        }
    }

    /// UDP carried in plain IPv4 + UDP headers (CBR).
    pub const UDP: Proto = Proto::Udp {
        header: (IP_LEN + UDP_LEN) as u64,
    };
}

/// What the writer needs of the scenario: each flow's ends and transport, each link's ends.
#[derive(Clone, Debug)]
pub struct Headers {
    flows: Vec<(u32, u32, Proto)>,
    /// Link index → (from node, to node).
    links: Vec<(u32, u32)>,
}

impl Headers {
    /// The header synthesis for flows (source node, destination node, transport; by flow
    /// index) over links (from node, to node; by link index).
    pub fn new(flows: Vec<(u32, u32, Proto)>, links: Vec<(u32, u32)>) -> Headers {
        Headers { flows, links }
    }
}

/// Which time of a record a capture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamp {
    /// The start of transmission (the link leaves the capturing node).
    Start,
    /// The arrival (the link enters the capturing node).
    Arrival,
}

/// A pcap file of the records of up to two links (each with the time it shows), merged in
/// time order (ties: the first link's first), up to `end`; an arrival capture leaves out the
/// packets lost to a link failure. Returns the file and its number of packets.
pub fn write(
    headers: &Headers,
    parts: &[(usize, &LinkCapture, Stamp)],
    end: SimTime,
) -> (Vec<u8>, u64) {
    let total: usize = parts.iter().map(|p| p.1.records.len()).sum();
    let mut out = Vec::with_capacity(24 + 100 * total);
    for v in [MAGIC_NS, 2 | (4 << 16), 0, 0, SNAPLEN, LINKTYPE_ETHERNET] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    // Per part: the next record, and the next lost arrival.
    let mut at = vec![(0usize, 0usize); parts.len()];
    let mut frame = Vec::with_capacity(128);
    let mut n = 0;
    loop {
        // The part whose next shown record is earliest (in time, then part order).
        let mut best: Option<(SimTime, usize)> = None;
        for (k, &(_, cap, stamp)) in parts.iter().enumerate() {
            let (i, lost) = &mut at[k];
            let t = loop {
                let Some(r) = cap.records.get(*i) else {
                    break None;
                };
                if stamp == Stamp::Start {
                    break Some(r.start);
                }
                while cap.lost.get(*lost).is_some_and(|&l| l < r.arrive) {
                    *lost += 1;
                }
                if cap.lost.get(*lost) == Some(&r.arrive) {
                    *i += 1; // lost on the way: it never arrives
                    continue;
                }
                break Some(r.arrive);
            };
            if let Some(t) = t.filter(|&t| t <= end) {
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, k));
                }
            }
        }
        let Some((t, k)) = best else { break };
        let (link, cap, _) = parts[k];
        let r = &cap.records[at[k].0];
        at[k].0 += 1;
        frame.clear();
        let orig = headers.frame(link, &r.pkt, &mut frame);
        for v in [
            (t.0 / 1_000_000_000) as u32,
            (t.0 % 1_000_000_000) as u32,
            frame.len() as u32,
            orig as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&frame);
        n += 1;
    }
    (out, n)
}

/// The IPv4 address of a node: 10.0.0.0 + index + 1.
fn ip(node: u32) -> [u8; 4] {
    let a = node.wrapping_add(1);
    [10, (a >> 16) as u8, (a >> 8) as u8, a as u8]
}

/// A node's MAC address: locally administered, unicast.
fn mac(node: u32) -> [u8; 6] {
    let b = node.to_be_bytes();
    [0x02, 0x00, b[0], b[1], b[2], b[3]]
}

/// Ports of a flow's connection: the sender's 49152 + flow (mod 8192), the receiver's
/// 57344 + (connection × 33 + subflow) (mod 8192), both in the dynamic range (RFC 6335),
/// so each flow, on/off connection and MPTCP subflow is its own TCP stream.
fn ports(flow: u32, conn: u32, subflow: u8) -> (u16, u16) {
    let src = 49152 + (flow % 8192) as u16;
    let dst = 57344 + ((conn as u64 * 33 + subflow as u64) % 8192) as u16;
    (src, dst)
}

/// One's-complement sum of big-endian 16-bit words (RFC 1071).
fn sum16(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// CRC32c (Castagnoli, reflected polynomial 0x82F63B78), as SCTP uses (RFC 4960 App. B).
fn crc32c(data: &[u8], zeros: usize) -> u32 {
    const fn table() -> [u32; 256] {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0x82F6_3B78 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    }
    static TABLE: [u32; 256] = table();
    let mut c = !0u32;
    for &b in data.iter().chain(std::iter::repeat_n(&0u8, zeros)) {
        c = TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

impl Headers {
    /// Synthesise `pkt`'s frame as sent on `link` into `f` (headers only); returns the
    /// frame's original length (with the payload).
    fn frame(&self, link: usize, pkt: &Packet, f: &mut Vec<u8>) -> usize {
        let (from, to) = self.links[link];
        f.extend_from_slice(&mac(to));
        f.extend_from_slice(&mac(from));
        f.extend_from_slice(&0x0800u16.to_be_bytes());
        let ip_at = f.len();
        f.extend_from_slice(&[0; IP_LEN]);
        let (proto, src, dst, payload) = if pkt.kind == PacketKind::Route {
            // Between neighbouring routers; the payload is the announcement.
            self.udp(
                f,
                RIP_PORT,
                RIP_PORT,
                pkt.size as u64,
                (IP_LEN + UDP_LEN) as u64,
            );
            let payload = (pkt.size as usize).saturating_sub(IP_LEN + UDP_LEN);
            (17, from, to, payload)
        } else {
            let flow = pkt.flow.0;
            let (a, b, kind) = self.flows[flow as usize];
            let forward = pkt.dst.0 == b;
            let (src, dst) = if forward { (a, b) } else { (b, a) };
            let sub = match kind {
                Proto::Tcp {
                    subflow_ports: true,
                    ..
                } => pkt.path,
                _ => 0,
            };
            let (p_tx, p_rx) = ports(flow, pkt.conn, sub);
            let (sp, dp) = if forward { (p_tx, p_rx) } else { (p_rx, p_tx) };
            match kind {
                Proto::Tcp { .. } => (6, src, dst, self.tcp(f, kind, pkt, sp, dp)),
                Proto::Udp { header } => {
                    let payload = (pkt.size as u64).saturating_sub(header);
                    self.udp(
                        f,
                        sp,
                        dp,
                        payload + (IP_LEN + UDP_LEN) as u64,
                        (IP_LEN + UDP_LEN) as u64,
                    );
                    (17, src, dst, payload as usize)
                }
                Proto::Sctp { overhead, rwnd } => (
                    132,
                    src,
                    dst,
                    sctp(f, pkt, sp, dp, overhead, rwnd, flow + 1),
                ),
            }
        };
        let l4_at = ip_at + IP_LEN;
        let total = f.len() - ip_at + payload;
        // IPv4 (RFC 791): version 4, IHL 5, no DSCP/ECN, DF, TTL 64.
        let (s, d) = (ip(src), ip(dst));
        let hdr = &mut f[ip_at..l4_at];
        hdr[0] = 0x45;
        hdr[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        hdr[6] = 0x40;
        hdr[8] = 64;
        hdr[9] = proto;
        hdr[12..16].copy_from_slice(&s);
        hdr[16..20].copy_from_slice(&d);
        let c = fold(sum16(hdr, 0));
        hdr[10..12].copy_from_slice(&c.to_be_bytes());
        // TCP and UDP checksums over the pseudo-header, the header and an all-zero payload
        // (zeros add nothing to the sum, RFC 1071).
        if proto == 6 || proto == 17 {
            let l4_len = f.len() - l4_at + payload;
            let mut acc = sum16(&s, 0);
            acc = sum16(&d, acc);
            acc += proto as u32 + l4_len as u32;
            acc = sum16(&f[l4_at..], acc);
            let mut c = fold(acc);
            if proto == 17 && c == 0 {
                c = 0xffff; // RFC 768: zero means "no checksum"
            }
            let at = l4_at + if proto == 6 { 16 } else { 6 };
            f[at..at + 2].copy_from_slice(&c.to_be_bytes());
        }
        if proto == 132 {
            let c = crc32c(&f[l4_at..], payload);
            f[l4_at + 8..l4_at + 12].copy_from_slice(&c.to_le_bytes());
        }
        ETH_LEN + total
    }

    /// A UDP header for `len` bytes of IP packet (`header` of them IP + UDP).
    fn udp(&self, f: &mut Vec<u8>, sp: u16, dp: u16, len: u64, header: u64) {
        let udp_len = (len.max(header) - IP_LEN as u64) as u16;
        f.extend_from_slice(&sp.to_be_bytes());
        f.extend_from_slice(&dp.to_be_bytes());
        f.extend_from_slice(&udp_len.to_be_bytes());
        f.extend_from_slice(&[0, 0]);
    }

    /// A TCP header (RFC 9293) with the timestamp option and, on ACKs, SACK blocks; returns
    /// the payload length.
    fn tcp(&self, f: &mut Vec<u8>, kind: Proto, pkt: &Packet, sp: u16, dp: u16) -> usize {
        let Proto::Tcp {
            mss,
            header,
            total,
            window,
            ..
        } = kind
        else {
            unreachable!("a TCP flow")
        };
        let bytes = |seg: u64| -> u32 {
            let b = seg * mss;
            total.map_or(b, |t| b.min(t)) as u32
        };
        let us = |t: SimTime| (t.0 / 1000) as u32;
        let data = pkt.kind == PacketKind::Data;
        let nsack = if data { 0 } else { pkt.nsack as usize };
        let opt_len = TS_OPTION_LEN + if nsack > 0 { 4 + 8 * nsack } else { 0 };
        let (seq, ack, payload, tsval, tsecr) = if data {
            let payload = (pkt.size as u64).saturating_sub(header) as usize;
            // The receiver sends no data: its sequence number stays at 1 past an ISN of 0.
            (bytes(pkt.seq), 1, payload, us(pkt.ts), 0)
        } else {
            (1, bytes(pkt.seq), 0, 0, us(pkt.ts))
        };
        f.extend_from_slice(&sp.to_be_bytes());
        f.extend_from_slice(&dp.to_be_bytes());
        f.extend_from_slice(&seq.to_be_bytes());
        f.extend_from_slice(&ack.to_be_bytes());
        f.push((((20 + opt_len) / 4) as u8) << 4);
        // ACK, and PSH on a data segment the sender marked (`transport::tcp::push`)
        let psh = data && pkt.flags & crate::packet::FLAG_PSH != 0;
        f.push(if psh { 0x18 } else { 0x10 });
        f.extend_from_slice(&window.to_be_bytes());
        f.extend_from_slice(&[0, 0, 0, 0]); // checksum (filled in later), urgent pointer
        f.extend_from_slice(&[1, 1, 8, 10]);
        f.extend_from_slice(&tsval.to_be_bytes());
        f.extend_from_slice(&tsecr.to_be_bytes());
        if nsack > 0 {
            f.extend_from_slice(&[1, 1, 5, (2 + 8 * nsack) as u8]);
            for i in 0..nsack {
                let b = pkt.sack_block(i);
                f.extend_from_slice(&bytes(b.start).to_be_bytes());
                f.extend_from_slice(&bytes(b.end).to_be_bytes());
            }
        }
        payload
    }
}

/// An SCTP packet (RFC 4960 §3) with one DATA or SACK chunk; returns the payload length.
fn sctp(
    f: &mut Vec<u8>,
    pkt: &Packet,
    sp: u16,
    dp: u16,
    overhead: u64,
    rwnd: u32,
    tag: u32,
) -> usize {
    f.extend_from_slice(&sp.to_be_bytes());
    f.extend_from_slice(&dp.to_be_bytes());
    f.extend_from_slice(&tag.to_be_bytes());
    f.extend_from_slice(&[0; 4]); // CRC32c, filled in later
    if pkt.kind == PacketKind::SctpData {
        let payload = (pkt.size as u64).saturating_sub(overhead) as usize;
        // DATA: unordered (U), a whole message (B, E); TSN, stream 0, PPID 0.
        f.extend_from_slice(&[0, 0x07]);
        f.extend_from_slice(&((16 + payload) as u16).to_be_bytes());
        f.extend_from_slice(&(pkt.seq as u32).to_be_bytes());
        f.extend_from_slice(&[0; 8]);
        payload
    } else {
        // SACK: `seq` is the next expected TSN; gap blocks are offsets from the cumulative
        // TSN ack, inclusive (RFC 4960 §3.3.4).
        let cum = pkt.seq.wrapping_sub(1) as u32;
        let n = pkt.nsack as usize;
        f.extend_from_slice(&[3, 0]);
        f.extend_from_slice(&((16 + 4 * n) as u16).to_be_bytes());
        f.extend_from_slice(&cum.to_be_bytes());
        f.extend_from_slice(&rwnd.to_be_bytes());
        f.extend_from_slice(&(n as u16).to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        for i in 0..n {
            let (s, e) = crate::transport::sctp::gaps::gap_block(pkt, i);
            f.extend_from_slice(&((s + 1 - pkt.seq) as u16).to_be_bytes());
            f.extend_from_slice(&((e - pkt.seq) as u16).to_be_bytes());
        }
        0
    }
}

#[cfg(test)]
#[path = "pcap_tests.rs"]
mod tests;
