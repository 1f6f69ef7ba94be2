//! Transports as sans-IO endpoints: each is told of packets and time, pushes what it
//! sends into an outbox, and reports its next deadline.

pub mod arc;
pub mod arc_config;
pub mod mptcp;
pub mod sctp;
pub mod tcp;
pub mod udp;

use crate::packet::{Packet, PacketKind};
use crate::params::{Kind, Kinds};
use crate::units::SimTime;
use arc::{ArcReceiver, ArcSender};
use mptcp::{MptcpReceiver, MptcpSender};
use sctp::{SctpReceiver, SctpSender};
use tcp::{TcpReceiver, TcpSender};
use udp::{UdpSink, UdpSource};

/// The transports a flow's `transport` key names. A flow's keys are its own (`name`,
/// `from`, …) and those of its transport, side by side.
pub const TRANSPORTS: Kinds = Kinds {
    what: "transport",
    list: transports,
    note: "",
    number: None,
};

fn transports() -> Vec<&'static Kind> {
    vec![
        &tcp::config::KIND,
        &udp::KIND,
        &arc_config::KIND,
        &sctp::config::KIND,
        &mptcp::config::KIND,
    ]
}

/// One side of a flow.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Endpoint {
    /// TCP sender.
    TcpSender(TcpSender),
    /// TCP receiver.
    TcpReceiver(TcpReceiver),
    /// UDP CBR source.
    UdpSource(UdpSource),
    /// UDP sink.
    UdpSink(UdpSink),
    /// ARC sender.
    ArcSender(ArcSender),
    /// ARC receiver.
    ArcReceiver(ArcReceiver),
    /// SCTP/CMT sender.
    SctpSender(SctpSender),
    /// SCTP/CMT receiver.
    SctpReceiver(SctpReceiver),
    /// MPTCP connection sender.
    MptcpSender(MptcpSender),
    /// MPTCP connection receiver.
    MptcpReceiver(MptcpReceiver),
}

impl Endpoint {
    /// Apply `f` to every RTT estimator of a sender (the measurement restarts their
    /// reports when a window opens and keeps their distributions).
    pub fn each_rtt(&mut self, f: &mut dyn FnMut(&mut tcp::rto::RttEstimator)) {
        match self {
            Endpoint::TcpSender(s) => s.each_rtt(f),
            Endpoint::ArcSender(s) => s.each_rtt(f),
            Endpoint::SctpSender(s) => s.each_rtt(f),
            Endpoint::MptcpSender(s) => s.each_rtt(f),
            _ => {}
        }
    }

    /// Its TCP senders: a TCP sender itself, an MPTCP sender's subflows (for `[trace]
    /// events`, which records the retransmissions and timeouts of TCP only).
    pub fn each_tcp_sender(&mut self, f: &mut dyn FnMut(&mut tcp::TcpSender)) {
        match self {
            Endpoint::TcpSender(s) => f(s),
            Endpoint::MptcpSender(s) => s.each_subflow_mut(f),
            _ => {}
        }
    }

    /// A packet addressed to this endpoint arrived.
    #[inline]
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        match (&mut *self, pkt.kind) {
            (Endpoint::TcpSender(s), PacketKind::Ack) => s.on_ack(now, pkt, out),
            (Endpoint::TcpReceiver(r), PacketKind::Data) => r.on_data(now, pkt, out),
            (Endpoint::UdpSink(k), PacketKind::Udp) => k.on_packet(now, pkt),
            (Endpoint::ArcSender(s), PacketKind::Ack) => s.on_report(now, pkt, out),
            (Endpoint::ArcReceiver(r), PacketKind::Data) => r.on_data(now, pkt, out),
            (Endpoint::SctpSender(s), PacketKind::SctpSack) => s.on_packet(now, pkt, out),
            (Endpoint::SctpReceiver(r), PacketKind::SctpData) => r.on_data(now, pkt, out),
            (Endpoint::MptcpSender(s), PacketKind::Ack) => s.on_ack(now, pkt, out),
            (Endpoint::MptcpReceiver(r), PacketKind::Data) => r.on_data(now, pkt, out),
            _ => self.on_handshake(now, pkt, out),
        }
    }

    /// A TCP SYN or SYN-ACK (flows that model the handshake); anything else is ignored.
    #[cold]
    #[inline(never)]
    fn on_handshake(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        match (self, pkt.kind) {
            (Endpoint::TcpSender(s), PacketKind::SynAck) => s.on_syn_ack(now, pkt, out),
            (Endpoint::TcpReceiver(r), PacketKind::Syn) => r.on_syn(now, pkt, out),
            _ => {}
        }
    }

    /// Handle timers due at `now`.
    #[inline]
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        match self {
            Endpoint::TcpSender(s) => s.on_timer(now, out),
            Endpoint::TcpReceiver(r) => r.on_timer(now, out),
            Endpoint::UdpSource(u) => u.on_timer(now, out),
            Endpoint::ArcSender(s) => s.on_timer(now, out),
            Endpoint::ArcReceiver(r) => r.on_timer(now, out),
            Endpoint::SctpSender(s) => s.on_timer(now, out),
            Endpoint::SctpReceiver(r) => r.on_timer(now, out),
            Endpoint::MptcpSender(s) => s.on_timer(now, out),
            Endpoint::MptcpReceiver(r) => r.on_timer(now, out),
            Endpoint::UdpSink(_) => {}
        }
    }

    /// Earliest time this endpoint must be woken (`SimTime::NEVER` if none).
    #[inline(always)]
    pub fn next_wakeup(&self) -> SimTime {
        match self {
            Endpoint::TcpSender(s) => s.next_wakeup(),
            Endpoint::TcpReceiver(r) => r.next_wakeup(),
            Endpoint::UdpSource(u) => u.next_wakeup(),
            Endpoint::ArcSender(s) => s.next_wakeup(),
            Endpoint::ArcReceiver(r) => r.next_wakeup(),
            Endpoint::SctpSender(s) => s.next_wakeup(),
            Endpoint::SctpReceiver(r) => r.next_wakeup(),
            Endpoint::MptcpSender(s) => s.next_wakeup(),
            Endpoint::MptcpReceiver(r) => r.next_wakeup(),
            Endpoint::UdpSink(_) => SimTime::NEVER,
        }
    }
}
