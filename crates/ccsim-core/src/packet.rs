//! The packet header. Payload bytes are never simulated; a packet is a small `Copy` value
//! moved between preallocated link rings, so the hot path allocates nothing.

use crate::ids::{EndpointId, FlowId, NodeId};
use crate::units::SimTime;

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// A TCP data segment; `seq` is the segment number.
    Data,
    /// A TCP acknowledgement; `seq` is the next expected segment (cumulative ACK).
    Ack,
    /// A TCP SYN, when the flow models the handshake (`transport::tcp::handshake`).
    Syn,
    /// The receiver's SYN-ACK, echoing the SYN's timestamp.
    SynAck,
    /// A UDP datagram; `seq` is its number.
    Udp,
    /// An SCTP packet with one DATA chunk; `seq` is its TSN (`transport::sctp`).
    SctpData,
    /// An SCTP SACK; `seq` is the next expected TSN (cumulative TSN ack + 1), gap-ack
    /// blocks packed in `sack` (`transport::sctp::gaps`).
    SctpSack,
    /// A distance-vector route announcement between neighbouring routers (`net::dv`):
    /// `conn` is the announcing node, `seq` the destination, `ts` the metric in seconds
    /// (`SimTime::NEVER` = infinite), `flags` may carry `net::dv::FLAG_IMPROPER`.
    Route,
}

/// A SACK block: segments `[start, end)` held by the receiver above the cumulative ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    /// First segment of the block.
    pub start: u64,
    /// One past the last segment.
    pub end: u64,
}

/// Most SACK blocks an ACK carries (RFC 2018 with timestamps: 3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// Flag: this data segment is a retransmission.
pub const FLAG_RETX: u8 = 1;
/// Flag: the segment whose timestamp this ACK echoes was a retransmission (Karn's rule).
pub const FLAG_ECHO_RETX: u8 = 2;
/// Flag, on TCP ACKs only: the ACK echoes no timestamp (set with `FLAG_ECHO_RETX`, so it
/// never gives an RTT sample, even with `rto.karn = false`).
pub const FLAG_NO_ECHO: u8 = 4;
/// Flag, on TCP data segments only (the bit of `FLAG_NO_ECHO`, an ACK flag): PSH
/// (`transport::tcp::push`).
pub const FLAG_PSH: u8 = 4;
// Bits 4 and 8 are taken by kind-specific flags (`FLAG_NO_ECHO` on TCP ACKs,
// `net::dv::FLAG_IMPROPER` on route announcements, SCTP's `FLAG_DAC_TWO` and
// `FLAG_HEARTBEAT`). The four ECN bits below fit
// in the rest of the byte, so the header stays at 64 bytes (RFC 3168 §5, §6.1).
/// Flag: ECN-Capable Transport (IP ECT(0), RFC 3168 §5): a queue may mark instead of
/// dropping. Set by a TCP sender with `ecn` on, on new data segments only (§6.1.5).
pub const FLAG_ECT: u8 = 16;
/// Flag: Congestion Experienced (IP CE, RFC 3168 §5), set by a queue on an ECT packet.
pub const FLAG_CE: u8 = 32;
/// Flag: TCP ECN-Echo on an ACK (RFC 3168 §6.1.3; per packet with DCTCP, RFC 8257 §3.2).
pub const FLAG_ECE: u8 = 64;
/// Flag: TCP Congestion Window Reduced on a data segment (RFC 3168 §6.1.2).
pub const FLAG_CWR: u8 = 128;

/// A packet header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Flow it belongs to.
    pub flow: FlowId,
    /// Destination node (forwarding key).
    pub dst: NodeId,
    /// Endpoint that consumes it at the destination.
    pub dst_ep: EndpointId,
    /// Bytes on the wire.
    pub size: u32,
    /// Connection number within the flow (on/off sources open a new one per ON period).
    pub conn: u32,
    /// Segment number (data, UDP) or cumulative ACK (next expected segment).
    pub seq: u64,
    /// Data: send time. ACK: the echoed send time of the data that triggered it.
    pub ts: SimTime,
    /// SACK blocks (ACK only) as `[start, end)` offsets from `seq`, most recent first;
    /// `nsack` are valid. Offsets keep the header at 64 bytes (blocks always lie within
    /// a window above the cumulative ACK). Use `sack_block` / `set_sack_block`.
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
    /// Number of valid SACK blocks.
    pub nsack: u8,
    /// Kind of packet.
    pub kind: PacketKind,
    /// `FLAG_*` bits.
    pub flags: u8,
    /// Pinned path: 0 follows the routing table; `k >= 1` follows the flow's `k`-th path
    /// (see `net::pinned`), in the direction of `dst`.
    pub path: u8,
}

const _: () = assert!(std::mem::size_of::<Packet>() <= 64);

impl Default for Packet {
    fn default() -> Packet {
        Packet::new(PacketKind::Data, FlowId(0), NodeId(0), EndpointId(0), 0)
    }
}

impl Packet {
    /// A packet with no SACK blocks and no flags.
    pub fn new(
        kind: PacketKind,
        flow: FlowId,
        dst: NodeId,
        dst_ep: EndpointId,
        size: u32,
    ) -> Packet {
        Packet {
            flow,
            dst,
            dst_ep,
            size,
            conn: 0,
            seq: 0,
            ts: SimTime::ZERO,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            nsack: 0,
            kind,
            flags: 0,
            path: 0,
        }
    }
    /// SACK block `i` in absolute segment numbers.
    #[inline]
    pub fn sack_block(&self, i: usize) -> SackBlock {
        let (a, b) = self.sack[i];
        SackBlock {
            start: self.seq + a as u64,
            end: self.seq + b as u64,
        }
    }

    /// Store SACK block `i` (set `seq` first; the block must lie above it).
    #[inline]
    pub fn set_sack_block(&mut self, i: usize, b: SackBlock) {
        debug_assert!(b.start >= self.seq && b.end - self.seq <= u32::MAX as u64);
        self.sack[i] = ((b.start - self.seq) as u32, (b.end - self.seq) as u32);
    }

    /// A 64-bit word carried in the third SACK slot, for transports that send at most two
    /// SACK blocks (ARC: the sender's RTTmin in ns on data, the bandwidth estimate in
    /// bytes/s on reports).
    #[inline]
    pub fn aux(&self) -> u64 {
        let (hi, lo) = self.sack[MAX_SACK_BLOCKS - 1];
        ((hi as u64) << 32) | lo as u64
    }

    /// Set the word returned by `aux`.
    #[inline]
    pub fn set_aux(&mut self, v: u64) {
        self.sack[MAX_SACK_BLOCKS - 1] = ((v >> 32) as u32, v as u32);
    }

    /// A TCP data segment's echo of its receiver's clock, held in the first SACK slot (data
    /// carries no SACK blocks): the cumulative ACK number of the newest ACK its sender had
    /// received, standing for the timestamp that ACK carried (TS.Recent, RFC 7323 §4.3),
    /// so the receiver can time its own ACKs (`rcv_autotune`). None when not set.
    #[inline]
    pub fn echoed_ack(&self) -> Option<u64> {
        let (lo, hi) = self.sack[0];
        (hi != 0).then(|| ((hi as u64 - 1) << 32) | lo as u64)
    }

    /// Set the echo returned by `echoed_ack` (ACK numbers below 2^64 − 2^32).
    #[inline]
    pub fn set_echoed_ack(&mut self, ack: u64) {
        self.sack[0] = (ack as u32, (ack >> 32) as u32 + 1);
    }

    /// Whether this is a TCP data segment.
    #[inline]
    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }

    /// Whether a queue may mark this packet instead of dropping it (ECT, RFC 3168 §5).
    #[inline]
    pub fn is_ect(&self) -> bool {
        self.flags & FLAG_ECT != 0
    }
}
