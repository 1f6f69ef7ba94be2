//! The sending endpoint of an association: chunk records, per-destination state, the
//! send loop (retransmissions first, then new data round-robin over destinations with
//! room), T3-rtx timers and the RTX policies. SACK processing is in `sack.rs`, CMT-PF's
//! destination states and heartbeats in `pf.rs`.

use super::config::{CwndRule, RtxPolicy, SctpSpec};
use super::{DATA_CHUNK_HEADER, FLAG_DAC_TWO, FLAG_HEARTBEAT};
use crate::apps::{AppEvent, SenderApp};
use crate::cc::cmt::CmtWindows;
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{Packet, PacketKind, FLAG_RETX};
use crate::transport::tcp::rto::RttEstimator;
use crate::units::SimTime;
use std::collections::VecDeque;

/// Where a chunk stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ChunkState {
    /// Sent and counted in its destination's flight size.
    InFlight,
    /// Acknowledged by a gap block (held by the receiver out of order).
    GapAcked,
    /// Marked for retransmission (fast retransmit or T3), not in flight.
    Marked,
}

/// One DATA chunk not yet covered by the cumulative TSN ack.
#[derive(Clone, Copy, Debug)]
pub(super) struct Chunk {
    /// Destination of the last transmission.
    pub dest: u8,
    pub state: ChunkState,
    /// Transmissions so far.
    pub tx: u16,
    /// Miss indications since the last transmission.
    pub miss: u32,
    /// Already fast-retransmitted once (RFC 4960 §7.2.4: only T3 resends it again).
    pub fast_rtx_done: bool,
    /// Marked by fast retransmit and owed an immediate send (§7.2.4 step 3).
    pub fast_pending: bool,
    /// Chunk bytes (payload + DATA chunk header), as cwnd counts them.
    pub bytes: u32,
}

/// Per-destination state besides the window (which `CmtWindows` holds).
#[derive(Clone, Debug)]
pub(super) struct Dest {
    pub rtt: RttEstimator,
    /// T3-rtx deadline, when running.
    pub t3: Option<SimTime>,
    /// Bytes in flight to this destination.
    pub flight: u64,
    /// TSN being timed for an RTT sample and when it was sent (one per round trip,
    /// RFC 4960 §6.3.1 C4).
    pub probe: Option<(u64, SimTime)>,
    /// Fast-recovery exit point (RFC 4960 §7.2.4), per destination as in CMT.
    pub recovery_exit: Option<u64>,
    /// New packets sent since the last SACK (Max.Burst).
    pub burst: u32,
    /// CMT-PF state (ns-2.35 `eStatus`): data goes only to active destinations.
    pub status: DestStatus,
    /// Consecutive T3 and heartbeat timeouts not cleared by an acknowledgement (ns-2.35
    /// `iErrorCount`); counted only with CMT-PF.
    pub errors: u32,
    /// When the destination was last marked potentially failed.
    pub pf_since: SimTime,
    /// Outstanding HEARTBEAT: its timeout deadline.
    pub hb_deadline: Option<SimTime>,
}

/// A destination's CMT-PF status (ns-2.35 `SCTP_DEST_STATUS_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DestStatus {
    /// Data may be sent to it.
    Active,
    /// Potentially failed: only heartbeats until one is answered or new data sent to it
    /// before is acknowledged.
    PotentiallyFailed,
    /// More than Path.Max.Retrans errors: only heartbeats, and not chosen when every
    /// destination is potentially failed.
    Inactive,
}

/// SCTP sender counters.
#[derive(Clone, Debug, Default)]
pub struct SctpStats {
    /// Data packets sent, retransmissions included.
    pub data_sent: u64,
    /// Retransmitted packets.
    pub retransmissions: u64,
    /// Chunks marked by fast retransmit.
    pub fast_retransmits: u64,
    /// Fast-recovery entries (cwnd reductions by fast retransmit), all destinations.
    pub fast_recoveries: u64,
    /// T3-rtx expiries, all destinations.
    pub timeouts: u64,
    /// SACKs received.
    pub sacks: u64,
    /// When the transfer started.
    pub first_open: Option<SimTime>,
    /// HEARTBEATs sent (CMT-PF).
    pub heartbeats: u64,
    /// Times a destination was marked potentially failed (CMT-PF).
    pub pf_marks: u64,
}

/// SCTP/CMT sender.
#[derive(Clone, Debug)]
pub struct SctpSender {
    pub(super) flow: FlowId,
    pub(super) dst: NodeId,
    pub(super) peer: EndpointId,
    pub(super) spec: SctpSpec,
    /// Whether destinations are pinned paths (`Packet.path = d + 1`) or the routing table.
    pub(super) pinned: bool,
    app: SenderApp,
    open: bool,
    pub(super) payload: u64,
    total_tsns: u64,
    /// Lowest TSN not covered by the cumulative ack; `chunks[0]` is its record.
    pub(super) base: u64,
    pub(super) chunks: VecDeque<Chunk>,
    /// Next new TSN.
    pub(super) next_tsn: u64,
    pub(super) dests: Vec<Dest>,
    /// Per-destination windows and the controller (CMT-CC or BERP).
    pub(super) cc: CmtWindows,
    /// Bytes acknowledged by gap blocks (held by the receiver, using its buffer).
    pub(super) gap_bytes: u64,
    /// Round-robin position for new data.
    rr: usize,
    /// Counters.
    pub stats: SctpStats,
}

impl SctpSender {
    /// A sender for `flow` towards the receiver `peer` at node `dst`, with `n_paths` pinned
    /// destinations (0: one destination through the routing table).
    pub fn new(
        flow: FlowId,
        dst: NodeId,
        peer: EndpointId,
        spec: SctpSpec,
        n_paths: usize,
        app: SenderApp,
    ) -> SctpSender {
        let n = n_paths.max(1);
        let payload = (spec.mtu - spec.overhead) as u64;
        let total_tsns = app
            .total_bytes()
            .map_or(u64::MAX, |t| t.div_ceil(payload).max(1));
        // Window arithmetic in MTUs, or (ns-2) in units of the largest DATA chunk.
        let unit = match spec.cwnd_rule {
            CwndRule::WholePackets => spec.mtu,
            CwndRule::Ns2 => (payload + DATA_CHUNK_HEADER as u64) as u32,
        };
        let init_cwnd = spec
            .init_cwnd_bytes
            .map_or(spec.init_cwnd as f64 * unit as f64, |b| b as f64);
        let cc = CmtWindows::new(spec.cc, n, unit, init_cwnd, spec.init_ssthresh as f64);
        let dest = Dest {
            rtt: RttEstimator::new(spec.rto),
            t3: None,
            flight: 0,
            probe: None,
            recovery_exit: None,
            burst: 0,
            status: DestStatus::Active,
            errors: 0,
            pf_since: SimTime::ZERO,
            hb_deadline: None,
        };
        SctpSender {
            flow,
            dst,
            peer,
            pinned: n_paths > 0,
            app,
            open: false,
            payload,
            total_tsns,
            base: 0,
            chunks: VecDeque::new(),
            next_tsn: 0,
            dests: vec![dest; n],
            cc,
            gap_bytes: 0,
            rr: 0,
            stats: SctpStats::default(),
            spec,
        }
    }

    /// Whether the destinations are pinned paths.
    pub fn pinned(&self) -> bool {
        self.pinned
    }
    /// Number of destinations.
    pub fn n_dests(&self) -> usize {
        self.dests.len()
    }
    /// The windows and controller.
    pub fn windows(&self) -> &CmtWindows {
        &self.cc
    }
    /// Destination `d`'s RTT estimator.
    pub fn rtt(&self, d: usize) -> &RttEstimator {
        &self.dests[d].rtt
    }
    /// Its destinations' RTT estimators, for the measurement's reports.
    pub fn each_rtt(&mut self, f: &mut dyn FnMut(&mut RttEstimator)) {
        for d in &mut self.dests {
            f(&mut d.rtt);
        }
    }
    /// Bytes in flight to destination `d`.
    pub fn flight(&self, d: usize) -> u64 {
        self.dests[d].flight
    }
    /// Lowest TSN not cumulatively acknowledged.
    pub fn cum_ack(&self) -> u64 {
        self.base
    }
    /// Whether every chunk of a finite transfer is acknowledged.
    pub fn done(&self) -> bool {
        self.base >= self.total_tsns
    }

    /// Earliest time to be woken.
    pub fn next_wakeup(&self) -> SimTime {
        let mut t = self.app.next_event().unwrap_or(SimTime::NEVER);
        for d in &self.dests {
            if let Some(x) = d.t3 {
                t = t.min(x);
            }
            if let Some(x) = d.hb_deadline {
                t = t.min(x);
            }
        }
        t
    }

    /// The application and the T3-rtx timers.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.app.poll(now) == Some(AppEvent::Open) {
            self.open = true;
            self.stats.first_open.get_or_insert(now);
        }
        for d in 0..self.dests.len() {
            if self.dests[d].t3.is_some_and(|t| t <= now) {
                self.on_t3_expiry(now, d, out);
            }
            if self.dests[d].hb_deadline.is_some_and(|t| t <= now) {
                self.on_heartbeat_timeout(now, d, out);
            }
        }
        self.try_send(now, out, true);
    }

    /// RFC 4960 §6.3.3: window rule (E1, in `CmtWindows::on_timeout`), back off the RTO
    /// (E2), mark everything in flight to the destination for retransmission (E3); with
    /// CMT-PF, count the error (the first marks the destination potentially failed).
    fn on_t3_expiry(&mut self, now: SimTime, d: usize, out: &mut Vec<Packet>) {
        self.stats.timeouts += 1;
        self.cc.on_timeout(d);
        let dest = &mut self.dests[d];
        dest.rtt.back_off();
        dest.t3 = None;
        dest.probe = None;
        dest.recovery_exit = None;
        for c in self.chunks.iter_mut() {
            if c.dest as usize == d && c.state == ChunkState::InFlight {
                c.state = ChunkState::Marked;
                c.miss = 0;
                dest.flight -= c.bytes as u64;
            }
        }
        // The first marked chunk goes out at once whatever the window (§6.3.3 E3).
        if let Some(c) = self
            .chunks
            .iter_mut()
            .find(|c| c.state == ChunkState::Marked)
        {
            c.fast_pending = true;
        }
        self.cc.on_path_idle(d);
        if self.spec.pf {
            self.count_error(now, d, out);
        }
    }

    /// The destination a retransmission goes to (Iyengar et al. §IV-D); with CMT-PF the
    /// largest-cwnd and largest-ssthresh policies consider active destinations only
    /// (ns-2.35 `SctpCMTAgent::SelectRtxDest`), and none may be available.
    pub(super) fn rtx_dest(&self, last: usize) -> Option<usize> {
        let n = self.dests.len();
        let key = |i: usize| match self.spec.rtx_policy {
            RtxPolicy::Same => 0.0,
            RtxPolicy::Cwnd => self.cc.paths[i].cwnd,
            RtxPolicy::Ssthresh => self.cc.paths[i].ssthresh,
        };
        if self.spec.rtx_policy == RtxPolicy::Same {
            return Some(last);
        }
        let eligible = |i: usize| !self.spec.pf || self.dests[i].status == DestStatus::Active;
        // Largest key; ties keep the destination the data was last sent to, then the lowest.
        let mut best = eligible(last).then_some(last);
        for i in 0..n {
            if eligible(i) && best.is_none_or(|b| key(i) > key(b)) {
                best = Some(i);
            }
        }
        best
    }

    /// Whether a packet may go to destination `d` now. RFC 4960 §6.1 B forbids new data
    /// while flight ≥ cwnd. `WholePackets` reads it packet by packet (flight + chunk ≤
    /// cwnd), so that a window of k MTUs carries k packets (after a T3 timeout exactly one);
    /// `Ns2` reads it literally (flight < cwnd) with windows in chunk units, as ns-2.35's
    /// `SendMuch` does, so a fractional window rounds up. An empty destination may always
    /// send one packet.
    pub(super) fn has_room(&self, d: usize) -> bool {
        let flight = self.dests[d].flight;
        match self.spec.cwnd_rule {
            CwndRule::WholePackets => {
                flight == 0 || (flight + self.full_chunk()) as f64 <= self.cc.paths[d].cwnd
            }
            CwndRule::Ns2 => flight == 0 || (flight as f64) < self.cc.paths[d].cwnd,
        }
    }

    /// Whether destination `d`, with `flight_before` bytes in flight before a SACK, was
    /// fully utilised (RFC 4960 §7.2.1): no room for another packet under the window rule.
    pub(super) fn was_cwnd_limited(&self, d: usize, flight_before: u64) -> bool {
        let cwnd = self.cc.paths[d].cwnd;
        match self.spec.cwnd_rule {
            CwndRule::WholePackets => (flight_before + self.full_chunk()) as f64 > cwnd,
            CwndRule::Ns2 => flight_before as f64 >= cwnd,
        }
    }

    /// Bytes of a full chunk (payload + DATA chunk header).
    pub(super) fn full_chunk(&self) -> u64 {
        self.payload + DATA_CHUNK_HEADER as u64
    }

    fn chunk_payload(&self, tsn: u64) -> u64 {
        self.app.total_bytes().map_or(self.payload, |t| {
            t.saturating_sub(tsn * self.payload).min(self.payload)
        })
    }

    fn emit(&mut self, now: SimTime, out: &mut Vec<Packet>, tsn: u64, d: usize, retx: bool) {
        let payload = self.chunk_payload(tsn);
        let mut p = Packet::new(
            PacketKind::SctpData,
            self.flow,
            self.dst,
            self.peer,
            payload as u32 + self.spec.overhead,
        );
        p.seq = tsn;
        p.ts = now;
        p.path = if self.pinned { d as u8 + 1 } else { 0 };
        if retx {
            p.flags |= FLAG_RETX;
            self.stats.retransmissions += 1;
        }
        self.stats.data_sent += 1;
        out.push(p);
        let rto = self.dests[d].rtt.rto();
        let dest = &mut self.dests[d];
        // §6.3.2 R1: start the destination's timer if it is not running.
        if dest.t3.is_none() {
            dest.t3 = Some(now + rto);
        }
        if !retx && dest.probe.is_none() {
            dest.probe = Some((tsn, now));
        }
    }

    /// Receiver-window room for a new chunk: rwnd − bytes held out of order − flight
    /// (RFC 4960 §6.2.1, with the a_rwnd the receiver would advertise). With nothing in
    /// flight one chunk may always go (§6.1 A, zero-window probe).
    fn rwnd_allows(&self, bytes: u64) -> bool {
        let flight: u64 = self.dests.iter().map(|d| d.flight).sum();
        flight == 0 || self.gap_bytes + flight + bytes <= self.spec.rwnd
    }

    /// Send what the windows allow: marked chunks first (§6.1 C), then new data
    /// round-robin over destinations. `from_timer`: not in reply to a SACK (no Max.Burst).
    pub(super) fn try_send(&mut self, now: SimTime, out: &mut Vec<Packet>, from_timer: bool) {
        if !self.open {
            return;
        }
        let n = self.dests.len();
        if self.spec.pf {
            self.activate_if_all_failed();
        }
        let mut blocked = vec![false; n];
        // Only one packet per fast-retransmit or T3 event ignores the window (§7.2.4 step 3,
        // §6.3.3 E3); the rest wait for room.
        let mut forced = false;
        // Retransmissions, lowest TSN first.
        for i in 0..self.chunks.len() {
            let c = self.chunks[i];
            if c.state != ChunkState::Marked {
                continue;
            }
            let Some(d) = self.rtx_dest(c.dest as usize) else {
                continue;
            };
            let force = c.fast_pending && !forced;
            if !(force || self.has_room(d)) {
                blocked[d] = true;
                continue;
            }
            forced |= force;
            let tsn = self.base + i as u64;
            let c = &mut self.chunks[i];
            c.state = ChunkState::InFlight;
            c.dest = d as u8;
            c.tx += 1;
            c.miss = 0;
            c.fast_pending = false;
            let bytes = c.bytes as u64;
            self.dests[d].flight += bytes;
            if self.dests[d].probe.is_some_and(|(t, _)| t == tsn) {
                self.dests[d].probe = None;
            }
            self.emit(now, out, tsn, d, true);
        }
        for c in self.chunks.iter_mut() {
            c.fast_pending = false;
        }
        // New data.
        let burst = if from_timer || self.spec.max_burst == 0 {
            u32::MAX
        } else {
            self.spec.max_burst
        };
        // One packet at a time to the next destination (round-robin) with room.
        while self.next_tsn < self.total_tsns {
            let bytes = self.chunk_payload(self.next_tsn) + DATA_CHUNK_HEADER as u64;
            if !self.rwnd_allows(bytes) {
                return;
            }
            let Some(d) = (0..n).map(|k| (self.rr + k) % n).find(|&d| {
                !blocked[d]
                    && self.dests[d].status == DestStatus::Active
                    && self.has_room(d)
                    && self.dests[d].burst < burst
            }) else {
                return;
            };
            self.chunks.push_back(Chunk {
                dest: d as u8,
                state: ChunkState::InFlight,
                tx: 1,
                miss: 0,
                fast_rtx_done: false,
                fast_pending: false,
                bytes: bytes as u32,
            });
            self.dests[d].flight += bytes;
            self.dests[d].burst += 1;
            let tsn = self.next_tsn;
            self.next_tsn += 1;
            self.emit(now, out, tsn, d, false);
            self.rr = (d + 1) % n;
        }
    }

    /// A packet arrived: SACKs are processed (`sack.rs`), HEARTBEAT ACKs (`pf.rs`),
    /// anything else ignored.
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.kind == PacketKind::SctpSack && pkt.flags & FLAG_HEARTBEAT != 0 {
            self.on_heartbeat_ack(now, pkt);
            self.try_send(now, out, true);
        } else if pkt.kind == PacketKind::SctpSack {
            let two = pkt.flags & FLAG_DAC_TWO != 0;
            self.on_sack(now, pkt, if two { 2 } else { 1 });
            for d in &mut self.dests {
                d.burst = 0;
            }
            self.try_send(now, out, false);
        }
    }
}

#[cfg(test)]
#[path = "sctp_loss_tests.rs"]
mod loss_tests;
