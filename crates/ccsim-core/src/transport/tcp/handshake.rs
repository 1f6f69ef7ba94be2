//! The connection handshake, when a flow models it (`handshake = true`): the sender's SYN
//! and the receiver's SYN-ACK, so the first data segment leaves one round trip after the
//! connection opens, as in every real stack (RFC 9293 §3.5) and in ns-3. The third
//! segment of the handshake rides on the first data segment (no separate packet). SYN and
//! SYN-ACK are `header` bytes (their options are not modelled).
//!
//! - The SYN is timed by the retransmission timer from the RTO before any sample
//!   (`rto.initial`); each timeout backs it off and sends it again (RFC 6298 §5.4–5.6).
//! - The SYN-ACK echoes the SYN's timestamp: if the SYN was not retransmitted it gives the
//!   first RTT sample (Karn's rule; RFC 6298 §2's sample from the handshake).
//! - After a lost SYN or SYN-ACK the initial window is one segment (RFC 5681 §3.1) and the
//!   RTO before the first data sample is at least 3 s (RFC 6298 §5.7).
//! - SYN and SYN-ACK are packet kinds of their own, so the data path never tests for
//!   them and scripted losses (which count data packets) do not count them.
//! - ns-2's one-way agents model the same delay differently (`syn_ true`, tcp.cc:699–705 of
//!   ns-2.35): segment 0 is a header-only packet and the window opens when it is
//!   acknowledged.

use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{Packet, PacketKind, FLAG_ECHO_RETX, FLAG_RETX};
use crate::units::SimTime;

/// Where the sender's handshake stands (whether a SYN was retransmitted is kept beside it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// Established (or not modelled): data may flow.
    Done,
    /// A SYN is to be sent.
    SynDue,
    /// A SYN is out, waiting for the SYN-ACK.
    SynSent,
}

/// The SYN of connection `conn` (a header-only packet).
#[allow(clippy::too_many_arguments)]
pub fn syn(
    flow: FlowId,
    dst: NodeId,
    peer: EndpointId,
    header: u32,
    conn: u32,
    path: u8,
    now: SimTime,
    retx: bool,
) -> Packet {
    let mut p = Packet::new(PacketKind::Syn, flow, dst, peer, header);
    p.conn = conn;
    p.path = path;
    p.ts = now;
    if retx {
        p.flags = FLAG_RETX;
    }
    p
}

/// The receiver's SYN-ACK to `syn`, echoing the SYN's timestamp.
pub fn syn_ack(syn: &Packet, flow: FlowId, dst: NodeId, peer: EndpointId, header: u32) -> Packet {
    let mut p = Packet::new(PacketKind::SynAck, flow, dst, peer, header);
    p.conn = syn.conn;
    p.path = syn.path;
    p.ts = syn.ts;
    if syn.flags & FLAG_RETX != 0 {
        p.flags |= FLAG_ECHO_RETX;
    }
    p
}
