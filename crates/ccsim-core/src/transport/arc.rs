//! ARC, Adaptive Rate Control for planetary links (Grieco & Mascolo, IFAC 2005), as worked
//! out in ALGORITHMS.md §3.4. A rate-based transport, not a window on top of TCP:
//!
//! - The sender paces at r = k·[w − outstanding]⁺ packets/s with k = 1/(4·RTTmin), capped
//!   at its interface rate (the Smith-predictor law, eq. (1) of the paper; outstanding =
//!   sent − reported received − declared lost).
//! - w grows with time, not with ACKs: quick probing doubles it every α = 0.1 s until the
//!   first congestion event, gentle probing then adds one packet every α.
//! - On a congestion event (a new hole in the receiver's sequence, or no report for a report
//!   timeout) w ← B̂·(RTTmin + 1/k), eq. (2), with B̂ the receiver's filtered bandwidth
//!   estimate carried in every report; at most once per round (holes in packets sent before
//!   the previous reduction are ignored).
//! - The receiver reports every data packet it gets (cumulative point, two SACK-like ranges,
//!   B̂) and samples its received bytes once per sender RTTmin into a Westwood+-style filter.
//! - Reliability: reported holes are resent first (selective repeat); after a report timeout
//!   everything unreported is resent.
//!
//! The sender learns RTTmin from its first packet's report before probing (the paper's ns-2
//! agent learns it from the SYN exchange): the first round trip carries one packet.

use super::arc_config::{ArcFilterInit, ArcNoEstimate, ArcSpec};
use super::tcp::rto::RttEstimator;
use super::tcp::scoreboard::Scoreboard;
use super::tcp::TcpReceiver;
use crate::apps::{AppEvent, SenderApp};
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{Packet, PacketKind, FLAG_ECHO_RETX, FLAG_RETX};
use crate::units::{Dur, Rate, SimTime};

/// Largest window the sender keeps (packets): quick probing over a long RTT would otherwise
/// overflow; the rate is capped by the interface anyway.
const MAX_WINDOW: f64 = 1e12;

/// Probing phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probing {
    /// W(t) = W(t0)·2^((t − t0)/α): the slow-start analogue.
    Quick,
    /// W(t) = W(t0) + (t − t0)/α: the congestion-avoidance analogue.
    Gentle,
}

/// ARC sender counters.
#[derive(Clone, Debug, Default)]
pub struct ArcStats {
    /// Data packets sent, retransmissions included.
    pub data_sent: u64,
    /// Retransmitted packets.
    pub retransmissions: u64,
    /// Reductions caused by a hole.
    pub loss_events: u64,
    /// Reductions caused by a report timeout.
    pub timeouts: u64,
    /// When the transfer started.
    pub first_open: Option<SimTime>,
}

/// ARC sender.
#[derive(Clone, Debug)]
pub struct ArcSender {
    flow: FlowId,
    dst: NodeId,
    peer: EndpointId,
    spec: ArcSpec,
    /// Packets per second the interface can send.
    max_pps: f64,
    app: SenderApp,
    open: bool,
    /// Window at `t0`, packets.
    w0: f64,
    t0: SimTime,
    probing: Probing,
    /// Latest bandwidth estimate from the receiver, bytes/s on the wire.
    bhat: f64,
    rtt_min: Option<Dur>,
    /// `gain()` and `window_limit()`, functions of `rtt_min` only, kept with it
    /// (`set_rtt_min`): the sending loop asks for them at every packet, and their
    /// divisions were a fifth of a long run's CPU.
    k: f64,
    limit: f64,
    /// Holes below this packet do not trigger a reduction (sent before the last one).
    reduction_point: u64,
    sb: Scoreboard,
    rtt: RttEstimator,
    rto_deadline: Option<SimTime>,
    /// When the last packet left (the pacing reference).
    last_send: Option<SimTime>,
    wake: Option<SimTime>,
    /// Counters.
    pub stats: ArcStats,
}

impl ArcSender {
    /// A sender for `flow` towards the receiver `peer` at node `dst`, on an interface of
    /// rate `interface`.
    pub fn new(
        flow: FlowId,
        dst: NodeId,
        peer: EndpointId,
        spec: ArcSpec,
        interface: Rate,
        app: SenderApp,
    ) -> ArcSender {
        let size = (spec.mss + spec.header) as f64;
        let mut s = ArcSender {
            flow,
            dst,
            peer,
            max_pps: interface.as_f64() / (8.0 * size),
            app,
            open: false,
            w0: spec.init_window,
            t0: SimTime::ZERO,
            probing: Probing::Quick,
            bhat: 0.0,
            rtt_min: None,
            k: 0.0,
            limit: 0.0,
            reduction_point: 0,
            sb: Scoreboard::new(0),
            rtt: RttEstimator::new(spec.rto),
            rto_deadline: None,
            last_send: None,
            wake: None,
            stats: ArcStats::default(),
            spec,
        };
        s.set_rtt_min(None);
        s
    }

    fn packet_size(&self) -> f64 {
        (self.spec.mss + self.spec.header) as f64
    }

    /// Bytes per full packet on the wire.
    pub fn packet_bytes(&self) -> u64 {
        (self.spec.mss + self.spec.header) as u64
    }

    /// The window at `now`, packets (time-driven probing from the last update).
    pub fn window(&self, now: SimTime) -> f64 {
        let x = now.since(self.t0).secs() / self.spec.probe_period.secs();
        let w = match self.probing {
            Probing::Quick => self.w0 * 2f64.powf(x.min(1023.0)),
            Probing::Gentle => self.w0 + x,
        };
        w.min(self.window_limit())
    }

    /// The largest window in use: the configured cap, and the largest window the interface
    /// can turn into rate, max_pps·(RTTmin + 1/k) (beyond it r = k·(w − outstanding) is at
    /// the interface rate whenever the pipe is not already over-full, so a larger w would
    /// only build queue). Quick probing would otherwise grow w without bound over a long
    /// RTT before any feedback.
    fn window_limit(&self) -> f64 {
        self.limit
    }

    /// Set RTTmin and the terms that depend on it.
    fn set_rtt_min(&mut self, rtt_min: Option<Dur>) {
        self.rtt_min = rtt_min;
        self.k = self
            .rtt_min
            .map_or(0.0, |r| 1.0 / (self.spec.gain_periods * r.secs().max(1e-9)));
        self.limit = self.computed_window_limit();
    }

    fn computed_window_limit(&self) -> f64 {
        let mut cap = self.spec.window_cap.map_or(MAX_WINDOW, |c| c as f64);
        let k = self.gain();
        if k > 0.0 {
            let rtt_min = self.rtt_min.map_or(0.0, |r| r.secs());
            cap = cap.min(self.max_pps * (rtt_min + 1.0 / k));
        }
        cap.clamp(1.0, MAX_WINDOW)
    }

    /// The gain k = 1/(gain_periods·RTTmin), per second (zero before RTTmin is known).
    pub fn gain(&self) -> f64 {
        self.k
    }

    /// Packets sent and neither reported received nor declared lost.
    pub fn outstanding(&self) -> u64 {
        self.sb.pipe()
    }

    /// The sending rate at `now`, packets/s: k·[w − outstanding]⁺, capped by the interface.
    pub fn rate(&self, now: SimTime) -> f64 {
        let excess = (self.window(now) - self.outstanding() as f64).max(0.0);
        (self.gain() * excess).min(self.max_pps)
    }

    /// The receiver's bandwidth estimate last reported, bytes/s.
    pub fn bandwidth_estimate(&self) -> f64 {
        self.bhat
    }

    /// Current probing phase.
    pub fn probing(&self) -> Probing {
        self.probing
    }

    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// Its RTT estimator, for the measurement's reports (`Endpoint::each_rtt`).
    pub fn each_rtt(&mut self, f: &mut dyn FnMut(&mut RttEstimator)) {
        f(&mut self.rtt);
    }

    /// Earliest time to be woken.
    pub fn next_wakeup(&self) -> SimTime {
        let mut t = self.app.next_event().unwrap_or(SimTime::NEVER);
        if let Some(d) = self.rto_deadline {
            t = t.min(d);
        }
        if let Some(d) = self.wake {
            t = t.min(d);
        }
        t
    }

    fn app_has(&self, seq: u64) -> bool {
        self.app
            .total_bytes()
            .is_none_or(|total| seq * (self.spec.mss as u64) < total)
    }

    fn payload(&self, seq: u64) -> u64 {
        let mss = self.spec.mss as u64;
        self.app
            .total_bytes()
            .map_or(mss, |t| t.saturating_sub(seq * mss).min(mss))
    }

    /// Handle whatever is due at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.app.poll(now) == Some(AppEvent::Open) {
            self.open = true;
            self.stats.first_open.get_or_insert(now);
            self.t0 = now;
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.on_report_timeout(now);
        }
        self.try_send(now, out);
    }

    /// Eq. (2): w ← B̂·(RTTmin + 1/k), then gentle probing from here. Without an estimate
    /// yet (B̂ = 0: no sampling period has ended) the paper gives no rule: `no_estimate`
    /// halves the window, as TCP would (default), or applies eq. (2) with B̂ = 0, which
    /// restarts from one packet.
    fn reduce(&mut self, now: SimTime) {
        let k = self.gain();
        let rtt_min = self.rtt_min.map_or(0.0, |r| r.secs());
        let target = if k > 0.0 && self.bhat > 0.0 {
            self.bhat / self.packet_size() * (rtt_min + 1.0 / k)
        } else {
            match self.spec.no_estimate {
                ArcNoEstimate::Halve => self.window(now) / 2.0,
                ArcNoEstimate::Zero => 0.0,
            }
        };
        self.w0 = target.max(1.0);
        self.t0 = now;
        self.probing = Probing::Gentle;
        self.reduction_point = self.sb.end();
    }

    fn on_report_timeout(&mut self, now: SimTime) {
        self.stats.timeouts += 1;
        // Before the first report (the handshake packet or its report was lost, or the RTT
        // exceeds the initial timeout) there is nothing to reduce: resend and back off.
        if self.rtt_min.is_some() {
            self.reduce(now);
        }
        self.sb.mark_all_lost();
        self.rtt.back_off();
        self.rto_deadline = Some(self.rtt.deadline(now));
        self.last_send = None;
    }

    /// A report from the receiver.
    pub fn on_report(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if !self.open {
            return;
        }
        let r = now.since(pkt.ts);
        if pkt.flags & FLAG_ECHO_RETX == 0 {
            self.rtt.sample(r);
            self.rtt.reset_backoff();
        }
        if self.rtt_min.is_none() {
            // The handshake round trip is over: start quick probing. A report of a resent
            // handshake packet echoes the send time of the copy that arrived, so it measures
            // RTTmin too (as TCP timestamps do, RFC 7323 §4); Karn's rule keeps it out of the
            // timeout estimator only.
            self.t0 = now;
            self.w0 = self.spec.init_window;
            self.set_rtt_min(Some(r));
        } else if pkt.flags & FLAG_ECHO_RETX == 0 && self.rtt_min.is_some_and(|m| r < m) {
            self.set_rtt_min(Some(r));
        }
        self.bhat = pkt.aux() as f64;
        let ack = pkt.seq.min(self.sb.end());
        self.sb.ack_to(ack);
        for i in 0..pkt.nsack as usize {
            let b = pkt.sack_block(i);
            self.sb.sack(b.start, b.end);
        }
        // A hole below the highest reported packet is a loss (the receiver reports every
        // packet, so reordering cannot cause one on a single path).
        if let Some(hole) = self.sb.mark_lost_highest(1) {
            if hole >= self.reduction_point && self.rtt_min.is_some() {
                self.stats.loss_events += 1;
                self.reduce(now);
            }
        }
        if self.app.total_bytes().is_some() && !self.app_has(self.sb.base()) {
            self.open = false; // everything delivered
            self.rto_deadline = None;
            self.wake = None;
            return;
        }
        self.rto_deadline = (self.sb.outstanding() > 0).then(|| self.rtt.deadline(now));
        self.try_send(now, out);
    }

    fn send(&mut self, now: SimTime, seq: u64, out: &mut Vec<Packet>) {
        let retx = seq < self.sb.end();
        let size = (self.payload(seq) + self.spec.header as u64) as u32;
        let mut p = Packet::new(PacketKind::Data, self.flow, self.dst, self.peer, size);
        p.seq = seq;
        p.ts = now;
        p.conn = 1;
        // Tell the receiver the sampling period for its bandwidth filter.
        p.set_aux(self.rtt_min.map_or(0, |r| r.0));
        if retx {
            p.flags |= FLAG_RETX;
            self.stats.retransmissions += 1;
            self.sb.on_retransmit(seq);
        } else {
            self.sb.push_sent();
        }
        self.stats.data_sent += 1;
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.rtt.deadline(now));
        }
        out.push(p);
    }

    fn try_send(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.wake = None;
        if !self.open {
            return;
        }
        if self.rtt_min.is_none() {
            // Handshake: one packet, then wait for its report; after a report timeout the
            // packet (declared lost) goes again.
            if let Some(seq) = self.sb.next_lost() {
                self.send(now, seq, out);
            } else if self.sb.end() == 0 && self.app_has(0) {
                self.send(now, 0, out);
            }
            return;
        }
        // The law is continuous in time: a packet is due once 1/r(now) has passed since the
        // previous one. Because w (and so r) grows between packets, r is re-evaluated at
        // least once per probe period rather than fixed at the previous send.
        loop {
            let r = self.rate(now);
            if r <= 0.0 {
                self.wake = self.when_window_exceeds(now);
                return;
            }
            let gap = Dur::from_secs_f64(1.0 / r).max(Dur(1));
            if let Some(last) = self.last_send {
                let due = last + gap;
                if now < due {
                    self.wake = Some(due.min(now + self.spec.probe_period));
                    return;
                }
            }
            let seq = match self.sb.next_lost() {
                Some(s) => s,
                None if self.app_has(self.sb.end()) => self.sb.end(),
                None => return,
            };
            self.send(now, seq, out);
            self.last_send = Some(now);
        }
    }

    /// When the growing window will exceed what is outstanding (the rate turns positive).
    fn when_window_exceeds(&self, now: SimTime) -> Option<SimTime> {
        let target = self.outstanding() as f64 + 1e-6;
        if target >= self.window_limit() {
            return None; // only a report can open the window
        }
        let a = self.spec.probe_period.secs();
        let dt = match self.probing {
            Probing::Quick => a * (target / self.w0).log2(),
            Probing::Gentle => a * (target - self.w0),
        };
        let t = self.t0 + Dur::from_secs_f64(dt);
        Some(t.max(now + Dur(1)))
    }
}

/// ARC receiver: reports every data packet and keeps the bandwidth estimate.
#[derive(Clone, Debug)]
pub struct ArcReceiver {
    inner: TcpReceiver,
    gain: f64,
    bhat: Option<f64>,
    interval_start: Option<SimTime>,
    interval_bytes: u64,
}

impl ArcReceiver {
    /// A receiver for `flow`, reporting to endpoint `peer` at node `dst`.
    pub fn new(
        flow: FlowId,
        dst: NodeId,
        peer: EndpointId,
        spec: &ArcSpec,
        total: Option<u64>,
    ) -> ArcReceiver {
        ArcReceiver {
            inner: TcpReceiver::new(
                flow,
                dst,
                peer,
                spec.mss,
                spec.header,
                spec.report_delay,
                total,
            )
            .with_max_sack_blocks(2),
            gain: spec.filter_gain,
            bhat: match spec.filter_init {
                ArcFilterInit::Zero => Some(0.0),
                ArcFilterInit::FirstSample => None,
            },
            interval_start: None,
            interval_bytes: 0,
        }
    }

    /// The delayed-report deadline, if `report_delay` is set and a report is pending.
    pub fn next_wakeup(&self) -> SimTime {
        self.inner.next_wakeup()
    }

    /// A delayed report may be due.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let before = out.len();
        self.inner.on_timer(now, out);
        let bhat = self.bandwidth_estimate().round() as u64;
        for r in &mut out[before..] {
            r.set_aux(bhat);
        }
    }

    /// The filtered bandwidth estimate, bytes/s (zero before the first sample).
    pub fn bandwidth_estimate(&self) -> f64 {
        self.bhat.unwrap_or(0.0)
    }

    /// Payload bytes delivered in order.
    pub fn bytes_delivered(&self) -> u64 {
        self.inner.bytes_delivered
    }

    /// When the file was complete.
    pub fn completion(&self) -> Option<SimTime> {
        self.inner.completion
    }

    /// A data packet arrived: sample, then report.
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        // Sampling starts with the data phase: a packet sent before the sender knew RTTmin
        // (the handshake packet, or its retransmission) would stretch the first interval
        // over the idle handshake and make the first sample, which initialises the filter,
        // far too small.
        if pkt.aux() > 0 {
            self.sample(now, pkt.size as u64, Dur(pkt.aux()));
        }
        let before = out.len();
        self.inner.on_data(now, pkt, out);
        let bhat = self.bandwidth_estimate().round() as u64;
        for r in &mut out[before..] {
            r.set_aux(bhat);
        }
    }

    /// Count `bytes` received at `now`; close the interval once `period` (the sender's
    /// RTTmin) has passed: b = bytes / interval, b̂ ← γ·b̂ + (1 − γ)·b.
    fn sample(&mut self, now: SimTime, bytes: u64, period: Dur) {
        let start = *self.interval_start.get_or_insert(now);
        self.interval_bytes += bytes;
        let elapsed = now.since(start);
        if elapsed >= period && elapsed.0 > 0 {
            let sample = self.interval_bytes as f64 / elapsed.secs();
            self.bhat = Some(match self.bhat {
                None => sample,
                Some(b) => self.gain * b + (1.0 - self.gain) * sample,
            });
            self.interval_start = Some(now);
            self.interval_bytes = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;

    fn spec() -> ArcSpec {
        ArcSpec::default()
    }

    fn sender() -> ArcSender {
        let s = spec();
        let app = SenderApp::new(&s.app, SimRng::stream(1, "a"));
        ArcSender::new(FlowId(0), NodeId(1), EndpointId(1), s, Rate::mbps(1), app)
    }

    fn report(seq: u64, ts: SimTime, bhat: u64) -> Packet {
        let mut p = Packet::new(PacketKind::Ack, FlowId(0), NodeId(0), EndpointId(0), 40);
        p.seq = seq;
        p.ts = ts;
        p.conn = 1;
        p.set_aux(bhat);
        p
    }

    fn started() -> (ArcSender, Vec<Packet>) {
        let mut s = sender();
        let mut out = Vec::new();
        s.on_timer(SimTime::ZERO, &mut out);
        assert_eq!(out.len(), 1, "one handshake packet");
        // Its report after 2 s: RTTmin = 2 s, k = 1/8 per second.
        s.on_report(
            SimTime(2_000_000_000),
            &report(1, SimTime::ZERO, 125_000),
            &mut out,
        );
        (s, out)
    }

    #[test]
    fn quick_probing_doubles_the_window_every_probe_period() {
        let (s, _) = started();
        let t = SimTime(2_000_000_000);
        assert!((s.window(t) - 2.0).abs() < 1e-9);
        assert!((s.window(t + Dur::from_millis(300)) - 16.0).abs() < 1e-9);
        assert!((s.gain() - 0.125).abs() < 1e-12);
    }

    #[test]
    fn rate_is_gain_times_window_excess_capped_by_the_interface() {
        let (s, _) = started();
        let t = SimTime(2_000_000_000);
        // w = 2 and the report released one packet: r = k·(2 − 1) = 0.125 packets/s.
        assert_eq!(s.outstanding(), 1);
        assert!((s.rate(t) - 0.125).abs() < 1e-9, "{}", s.rate(t));
        // Much later the window is huge; the interface caps r at 1 Mb/s / 12 000 b.
        assert!((s.rate(t + Dur::from_secs(10)) - 1e6 / 12_000.0).abs() < 1e-6);
    }

    #[test]
    fn a_hole_sets_the_window_to_the_estimated_bandwidth_delay_product_and_probes_gently() {
        let (mut s, mut out) = started();
        // Let it send for a while.
        // Let it send for 3 s, less than the report timeout (RTO = 2 + 4·1 = 6 s).
        let mut t = SimTime(2_000_000_000);
        while s.next_wakeup() < SimTime(5_000_000_000) {
            t = s.next_wakeup();
            s.on_timer(t, &mut out);
        }
        assert_eq!(s.stats.timeouts, 0);
        assert!(s.sb.end() > 10);
        // Report: packets 1..5 received except 3, with B̂ = 100 kB/s.
        let mut r = report(3, SimTime(2_000_000_000), 100_000);
        r.nsack = 1;
        r.set_sack_block(0, crate::packet::SackBlock { start: 4, end: 6 });
        let before = s.stats.loss_events;
        s.on_report(t, &r, &mut out);
        assert_eq!(s.stats.loss_events, before + 1);
        assert_eq!(s.probing(), Probing::Gentle);
        // w = B̂·(RTTmin + 1/k) = 100 000/1500 · (2 + 8) = 666.7 packets.
        assert!(
            (s.window(t) - 100_000.0 / 1500.0 * 10.0).abs() < 1e-6,
            "{}",
            s.window(t)
        );
        // Gentle: +1 packet per 100 ms.
        assert!((s.window(t + Dur::from_secs(1)) - s.window(t) - 10.0).abs() < 1e-9);
        // The hole is resent before new data.
        out.clear();
        let t2 = s.next_wakeup();
        s.on_timer(t2, &mut out);
        assert!(out.iter().any(|p| p.seq == 3 && p.flags & FLAG_RETX != 0));
    }

    #[test]
    fn receiver_filters_bandwidth_once_per_sender_rtt_min() {
        let s = spec();
        let mut rx = ArcReceiver::new(FlowId(0), NodeId(0), EndpointId(0), &s, None);
        let mut out = Vec::new();
        // 1500-byte packets every 12 ms (1 Mb/s), RTTmin stamped as 1 s.
        for i in 0..500u64 {
            let mut p = Packet::new(PacketKind::Data, FlowId(0), NodeId(1), EndpointId(1), 1500);
            p.seq = i;
            p.conn = 1;
            p.set_aux(1_000_000_000);
            rx.on_data(SimTime(i * 12_000_000), &p, &mut out);
        }
        let b = rx.bandwidth_estimate();
        assert!((b - 125_000.0).abs() / 125_000.0 < 0.02, "{b}");
        assert_eq!(out.len(), 500, "one report per data packet");
        assert_eq!(out.last().unwrap().aux(), b.round() as u64);
    }

    #[test]
    fn a_hole_before_any_estimate_halves_or_restarts_from_one_packet() {
        for (mode, expect_half) in [(ArcNoEstimate::Halve, true), (ArcNoEstimate::Zero, false)] {
            let sp = ArcSpec {
                no_estimate: mode,
                ..spec()
            };
            let app = SenderApp::new(&sp.app, SimRng::stream(1, "a"));
            let mut s = ArcSender::new(FlowId(0), NodeId(1), EndpointId(1), sp, Rate::mbps(1), app);
            let mut out = Vec::new();
            s.on_timer(SimTime::ZERO, &mut out);
            // The handshake's report carries no estimate (B̂ = 0).
            let t0 = SimTime(2_000_000_000);
            s.on_report(t0, &report(1, SimTime::ZERO, 0), &mut out);
            let mut t = t0;
            while s.next_wakeup() < SimTime(3_000_000_000) {
                t = s.next_wakeup();
                s.on_timer(t, &mut out);
            }
            let w = s.window(t);
            // A report echoing a packet sent one RTTmin (2 s) earlier: RTTmin stays 2 s.
            let mut r = report(2, SimTime(t.0 - 2_000_000_000), 0);
            r.nsack = 1;
            r.set_sack_block(0, crate::packet::SackBlock { start: 3, end: 4 });
            s.on_report(t, &r, &mut out);
            assert_eq!(s.probing(), Probing::Gentle);
            let want = if expect_half { w / 2.0 } else { 1.0 };
            assert!(
                (s.window(t) - want).abs() < 1e-9,
                "{mode:?}: {} vs {want}",
                s.window(t)
            );
        }
    }
}

#[cfg(test)]
#[path = "arc_tests.rs"]
mod probing_tests;
