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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::StartSpec;
    use crate::units::{Bytes, Rate};

    /// The gaps between the first `n + 1` datagrams of a 1 Mb/s source of 1000-byte
    /// datagrams (nominally one every 8 ms) with `jitter`, in milliseconds.
    fn gaps_ms(jitter: f64, n: usize) -> Vec<f64> {
        let spec = CbrSpec {
            packet_size: Bytes(1000),
            rate: Rate::mbps(1),
            jitter,
            start: StartSpec {
                lo: SimTime::ZERO,
                hi: SimTime::ZERO,
            },
            stop: None,
        };
        let rng = SimRng::stream(7, "udp-tests");
        let mut s = UdpSource::new(FlowId(0), NodeId(1), EndpointId(1), &spec, rng);
        let mut out = Vec::new();
        while out.len() <= n {
            s.on_timer(s.next_wakeup(), &mut out);
        }
        let ts: Vec<f64> = out.iter().map(|p| p.ts.secs() * 1e3).collect();
        ts.windows(2).take(n).map(|w| w[1] - w[0]).collect()
    }

    #[test]
    fn without_jitter_datagrams_leave_every_size_over_rate() {
        // 1000 bytes at 1 Mb/s: 8 ms.
        assert!(gaps_ms(0.0, 100).iter().all(|&g| (g - 8.0).abs() < 1e-9));
    }

    #[test]
    fn jittered_gaps_stay_in_their_band_and_keep_the_mean_rate() {
        // Each gap is the nominal 8 ms scaled by 1 + U(−j, +j) (the module doc): with j = ½
        // every gap lies in [4, 12] ms, both halves of the band are used, and the mean of
        // 20 000 gaps is 8 ms within 0.1 ms (its standard error is 8·½/√3/√20 000 ≈ 0.016 ms).
        let gaps = gaps_ms(0.5, 20_000);
        assert!(gaps.iter().all(|&g| (4.0..=12.0).contains(&g)));
        assert!(gaps.iter().any(|&g| g < 5.0) && gaps.iter().any(|&g| g > 11.0));
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert!((mean - 8.0).abs() < 0.1, "mean gap {mean} ms");
    }

    #[test]
    fn the_sink_reports_min_mean_and_max_one_way_delay() {
        let mut sink = UdpSink::default();
        assert!(sink.delay_stats().0.is_nan(), "no datagram yet");
        for (sent_ms, arrived_ms) in [(0, 10), (5, 35), (10, 30)] {
            let mut p = Packet::new(PacketKind::Udp, FlowId(0), NodeId(1), EndpointId(1), 1000);
            p.ts = SimTime::ZERO + Dur::from_millis(sent_ms);
            sink.on_packet(SimTime::ZERO + Dur::from_millis(arrived_ms), &p);
        }
        // Delays 10, 30 and 20 ms.
        let (lo, mean, hi) = sink.delay_stats();
        assert!(
            (lo - 0.010).abs() < 1e-12
                && (mean - 0.020).abs() < 1e-12
                && (hi - 0.030).abs() < 1e-12
        );
        assert_eq!((sink.packets, sink.bytes), (3, 3000));
    }
}
