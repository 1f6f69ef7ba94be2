//! UDP constant-bit-rate source and its sink.
//!
//! Packets of `packet_size` bytes leave every `packet_size·8/rate` seconds, each interval
//! scaled by (1 + U(−jitter, +jitter)) from the flow's own random stream; the first at the
//! start time, none after the stop time. The sink counts whole datagrams as delivered bytes.

use crate::apps::{draw_start, CbrSpec, UDP_APPS};
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{Packet, PacketKind};
use crate::params::{Dflt, Kind, Param, Ty};
use crate::rng::SimRng;
use crate::units::{Dur, SimTime};

/// The keys of a UDP flow besides the common ones.
pub const FLOW_PARAMS: &[Param] = &[Param::new(
    "app",
    Ty::Kinded(&UDP_APPS),
    Dflt::Required("an application is required, e.g. app = { kind = \"cbr\", rate = \"1Mbps\" }"),
)
.doc("the constant-bit-rate source")
.source("required")];

/// `transport = "udp"`.
pub const KIND: Kind = Kind::new("udp", "UDP constant bit rate", &[FLOW_PARAMS]);

/// CBR source.
#[derive(Clone, Debug)]
pub struct UdpSource {
    flow: FlowId,
    dst: NodeId,
    peer: EndpointId,
    size: u32,
    interval: Dur,
    jitter: f64,
    stop: SimTime,
    next: SimTime,
    seq: u64,
    rng: SimRng,
    /// Datagrams sent.
    pub sent: u64,
    /// When the first datagram left.
    pub first_sent: Option<SimTime>,
}

impl UdpSource {
    /// A source sending to endpoint `peer` at node `dst`.
    pub fn new(
        flow: FlowId,
        dst: NodeId,
        peer: EndpointId,
        spec: &CbrSpec,
        mut rng: SimRng,
    ) -> UdpSource {
        let next = draw_start(spec.start, &mut rng);
        UdpSource {
            flow,
            dst,
            peer,
            size: spec.packet_size.0 as u32,
            interval: spec.rate.tx_time(spec.packet_size),
            jitter: spec.jitter,
            stop: spec.stop.unwrap_or(SimTime::NEVER),
            next,
            seq: 0,
            rng,
            sent: 0,
            first_sent: None,
        }
    }

    /// Next send time.
    pub fn next_wakeup(&self) -> SimTime {
        if self.next > self.stop {
            SimTime::NEVER
        } else {
            self.next
        }
    }

    /// Send every packet due by `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        while self.next <= now && self.next <= self.stop {
            let mut p = Packet::new(PacketKind::Udp, self.flow, self.dst, self.peer, self.size);
            p.seq = self.seq;
            p.ts = self.next;
            self.first_sent.get_or_insert(self.next);
            out.push(p);
            self.seq += 1;
            self.sent += 1;
            let gap = if self.jitter > 0.0 {
                let f = 1.0 + self.jitter * (2.0 * self.rng.uniform() - 1.0);
                Dur::from_secs_f64(self.interval.secs() * f).max(Dur(1))
            } else {
                self.interval
            };
            self.next += gap;
        }
    }
}

/// CBR sink.
#[derive(Clone, Debug, Default)]
pub struct UdpSink {
    /// Datagram bytes received.
    pub bytes: u64,
    /// Datagrams received.
    pub packets: u64,
    /// Sum and extremes of one-way delays (ns).
    delay_sum: f64,
    delay_min: u64,
    delay_max: u64,
}

impl UdpSink {
    /// A datagram arrived.
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet) {
        let d = now.since(pkt.ts).0;
        if self.packets == 0 {
            self.delay_min = d;
        }
        self.bytes += pkt.size as u64;
        self.packets += 1;
        self.delay_sum += d as f64;
        self.delay_min = self.delay_min.min(d);
        self.delay_max = self.delay_max.max(d);
    }

    /// (min, mean, max) one-way delay in seconds; NaN without packets.
    pub fn delay_stats(&self) -> (f64, f64, f64) {
        if self.packets == 0 {
            return (f64::NAN, f64::NAN, f64::NAN);
        }
        (
            Dur(self.delay_min).secs(),
            self.delay_sum / self.packets as f64 / 1e9,
            Dur(self.delay_max).secs(),
        )
    }
}
