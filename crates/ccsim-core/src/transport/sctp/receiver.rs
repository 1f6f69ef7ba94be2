//! The receiving endpoint of an association: TSN map, in-order delivery to the
//! application (each TSN exactly once), and SACK generation (RFC 4960 §6.2, §6.7).
//!
//! SACK policy: every second data packet, or when the delayed-SACK timer (200 ms) expires.
//! A duplicate TSN is SACKed at once (§6.2). Without DAC a packet that leaves or fills a
//! gap is SACKed at once too (§6.7); with DAC (Iyengar et al. §IV-C) the receiver keeps
//! delaying under reordering and tells the sender in the SACK whether one or two packets
//! arrived since the previous SACK (`FLAG_DAC_TWO`). A SACK goes back on the path of the
//! last data packet it acknowledges (§6.4).

use super::gaps::set_gap_blocks;
use super::{FLAG_DAC_TWO, FLAG_HEARTBEAT, GAP_BLOCK_BYTES, SACK_BYTES};
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{Packet, PacketKind};
use crate::units::{Dur, SimTime};

/// SCTP receiver.
#[derive(Clone, Debug)]
pub struct SctpReceiver {
    flow: FlowId,
    dst: NodeId,
    peer: EndpointId,
    payload: u64,
    total_bytes: Option<u64>,
    sack_delay: Option<Dur>,
    dac: bool,
    /// Next expected TSN (cumulative TSN ack + 1).
    cum: u64,
    /// TSNs held above `cum`, as sorted disjoint ranges `[start, end)`.
    ooo: Vec<(u64, u64)>,
    unacked: u32,
    last_path: u8,
    deadline: Option<SimTime>,
    /// Payload bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// TSNs delivered to the application (each exactly once).
    pub tsns_delivered: u64,
    /// Data chunks received again after they were already held or delivered.
    pub duplicates: u64,
    /// SACKs sent.
    pub sacks_sent: u64,
    /// Payload bytes of new (not duplicate) chunks received, by `Packet.path`.
    pub bytes_by_path: Vec<u64>,
    /// When a finite transfer was fully delivered.
    pub completion: Option<SimTime>,
}

impl SctpReceiver {
    /// A receiver for `flow`, SACKing to endpoint `peer` at node `dst`, for chunks of
    /// `payload` bytes of a transfer of `total_bytes`.
    pub fn new(
        flow: FlowId,
        dst: NodeId,
        peer: EndpointId,
        payload: u32,
        total_bytes: Option<u64>,
        sack_delay: Option<Dur>,
        dac: bool,
    ) -> SctpReceiver {
        SctpReceiver {
            flow,
            dst,
            peer,
            payload: payload as u64,
            total_bytes,
            sack_delay,
            dac,
            cum: 0,
            ooo: Vec::new(),
            unacked: 0,
            last_path: 0,
            deadline: None,
            bytes_delivered: 0,
            tsns_delivered: 0,
            duplicates: 0,
            sacks_sent: 0,
            bytes_by_path: Vec::new(),
            completion: None,
        }
    }

    /// Next expected TSN.
    pub fn cum(&self) -> u64 {
        self.cum
    }

    /// Earliest time to be woken.
    pub fn next_wakeup(&self) -> SimTime {
        self.deadline.unwrap_or(SimTime::NEVER)
    }

    fn chunk_bytes(&self, tsn: u64) -> u64 {
        self.total_bytes.map_or(self.payload, |t| {
            t.saturating_sub(tsn * self.payload).min(self.payload)
        })
    }

    fn held(&self, tsn: u64) -> bool {
        tsn < self.cum || self.ooo.iter().any(|&(s, e)| s <= tsn && tsn < e)
    }

    /// Insert `tsn` (not held) into the out-of-order ranges.
    fn insert(&mut self, tsn: u64) {
        let i = self.ooo.partition_point(|&(_, e)| e < tsn);
        if i < self.ooo.len() && self.ooo[i].1 == tsn {
            self.ooo[i].1 += 1;
            if i + 1 < self.ooo.len() && self.ooo[i + 1].0 == tsn + 1 {
                self.ooo[i].1 = self.ooo[i + 1].1;
                self.ooo.remove(i + 1);
            }
        } else if i < self.ooo.len() && self.ooo[i].0 == tsn + 1 {
            self.ooo[i].0 = tsn;
        } else {
            self.ooo.insert(i, (tsn, tsn + 1));
        }
    }

    /// A data packet arrived (or a HEARTBEAT, answered at once on its path with its send
    /// time echoed, RFC 4960 §8.3).
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.flags & FLAG_HEARTBEAT != 0 {
            let mut ack = Packet::new(
                PacketKind::SctpSack,
                self.flow,
                self.dst,
                self.peer,
                pkt.size,
            );
            ack.flags = FLAG_HEARTBEAT;
            ack.ts = pkt.ts;
            ack.path = pkt.path;
            out.push(ack);
            return;
        }
        let tsn = pkt.seq;
        self.last_path = pkt.path;
        if self.held(tsn) {
            // §6.2: a duplicate is SACKed immediately.
            self.duplicates += 1;
            self.unacked += 1;
            self.send_sack(out);
            return;
        }
        let k = pkt.path as usize;
        if self.bytes_by_path.len() <= k {
            self.bytes_by_path.resize(k + 1, 0);
        }
        self.bytes_by_path[k] += self.chunk_bytes(tsn);
        let had_gap = !self.ooo.is_empty();
        if tsn == self.cum {
            self.deliver(tsn);
            self.cum += 1;
            // Pull in the range that now continues the sequence.
            if let Some(&(s, e)) = self.ooo.first() {
                if s == self.cum {
                    for t in s..e {
                        self.deliver(t);
                    }
                    self.cum = e;
                    self.ooo.remove(0);
                }
            }
        } else {
            self.insert(tsn);
        }
        if let Some(total) = self.total_bytes {
            if self.completion.is_none() && self.bytes_delivered >= total {
                self.completion = Some(now);
            }
        }
        self.unacked += 1;
        let gap_event = had_gap || !self.ooo.is_empty();
        let immediate = match self.sack_delay {
            None => true,
            Some(_) => self.unacked >= 2 || (!self.dac && gap_event),
        };
        if immediate {
            self.send_sack(out);
        } else if self.deadline.is_none() {
            self.deadline = self.sack_delay.map(|d| now + d);
        }
    }

    fn deliver(&mut self, tsn: u64) {
        self.bytes_delivered += self.chunk_bytes(tsn);
        self.tsns_delivered += 1;
    }

    /// The delayed-SACK timer.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.deadline.is_some_and(|d| d <= now) {
            self.send_sack(out);
        }
    }

    fn send_sack(&mut self, out: &mut Vec<Packet>) {
        let mut p = Packet::new(PacketKind::SctpSack, self.flow, self.dst, self.peer, 0);
        p.seq = self.cum;
        let n = set_gap_blocks(&mut p, &self.ooo);
        p.size = SACK_BYTES + GAP_BLOCK_BYTES * n as u32;
        p.path = self.last_path;
        if self.unacked >= 2 {
            p.flags |= FLAG_DAC_TWO;
        }
        out.push(p);
        self.sacks_sent += 1;
        self.unacked = 0;
        self.deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::super::gaps::gap_block;
    use super::*;

    fn data(tsn: u64, path: u8) -> Packet {
        let mut p = Packet::new(
            PacketKind::SctpData,
            FlowId(0),
            NodeId(1),
            EndpointId(1),
            1500,
        );
        p.seq = tsn;
        p.path = path;
        p
    }

    fn rx(dac: bool) -> SctpReceiver {
        SctpReceiver::new(
            FlowId(0),
            NodeId(0),
            EndpointId(0),
            1000,
            Some(10_500),
            Some(Dur::from_millis(200)),
            dac,
        )
    }

    #[test]
    fn every_second_packet_or_the_timer() {
        let mut r = rx(true);
        let mut out = Vec::new();
        r.on_data(SimTime::ZERO, &data(0, 1), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.next_wakeup(), SimTime::ZERO + Dur::from_millis(200));
        r.on_data(SimTime::ZERO, &data(1, 2), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 2);
        assert_eq!(out[0].path, 2, "SACK returns on the path of the last data");
        assert_ne!(out[0].flags & FLAG_DAC_TWO, 0);
        r.on_data(SimTime::ZERO, &data(2, 1), &mut out);
        r.on_timer(SimTime::ZERO + Dur::from_millis(200), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].flags & FLAG_DAC_TWO, 0);
    }

    #[test]
    fn gaps_are_reported_and_sacked_at_once_without_dac() {
        let mut r = rx(false);
        let mut out = Vec::new();
        r.on_data(SimTime::ZERO, &data(0, 1), &mut out);
        r.on_data(SimTime::ZERO, &data(2, 1), &mut out);
        r.on_data(SimTime::ZERO, &data(3, 1), &mut out);
        r.on_data(SimTime::ZERO, &data(5, 1), &mut out);
        let last = out.last().unwrap();
        assert_eq!(last.seq, 1);
        assert_eq!(last.nsack, 2);
        assert_eq!(gap_block(last, 0), (2, 4));
        assert_eq!(gap_block(last, 1), (5, 6));
        // With DAC the same arrivals SACK only every second packet.
        let mut d = rx(true);
        let mut o2 = Vec::new();
        for t in [0, 2, 3, 5] {
            d.on_data(SimTime::ZERO, &data(t, 1), &mut o2);
        }
        assert_eq!(o2.len(), 2);
    }

    #[test]
    fn each_tsn_is_delivered_once_and_duplicates_are_sacked_at_once() {
        let mut r = rx(true);
        let mut out = Vec::new();
        for t in [1, 0, 0, 3, 2, 4, 5, 6, 7, 8, 9, 10, 3] {
            r.on_data(SimTime::ZERO, &data(t, 1), &mut out);
        }
        assert_eq!(r.tsns_delivered, 11);
        assert_eq!(r.duplicates, 2);
        // 10 full chunks of 1000 and a last one of 500.
        assert_eq!(r.bytes_delivered, 10_500);
        assert_eq!(r.completion, Some(SimTime::ZERO));
        assert_eq!(r.cum(), 11);
    }

    #[test]
    fn the_first_out_of_order_chunk_is_sacked_at_once() {
        // RFC 4960 §6.7: an endpoint that detects a gap in the TSNs it received SHOULD send
        // a SACK with Gap Ack Blocks immediately (without DAC, RFC 4960 §6.2's every-second
        // rule aside). TSNs 0 and 1 are SACKed together; TSN 3 opens the first gap and is
        // SACKed alone, at once, reporting it.
        let mut r = rx(false);
        let mut out = Vec::new();
        r.on_data(SimTime::ZERO, &data(0, 1), &mut out);
        r.on_data(SimTime::ZERO, &data(1, 1), &mut out);
        assert_eq!(out.len(), 1);
        r.on_data(SimTime::ZERO, &data(3, 1), &mut out);
        assert_eq!(out.len(), 2, "no SACK for the out-of-order TSN 3");
        assert_eq!((out[1].seq, out[1].nsack), (2, 1));
        assert_eq!(gap_block(&out[1], 0), (3, 4));
    }
}
