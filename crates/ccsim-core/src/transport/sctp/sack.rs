//! SACK processing at the sender (RFC 4960 §6.2.1, §6.3, §7.2 with CMT's changes):
//!
//! 1. Acknowledge chunks up to the cumulative TSN and inside the gap blocks, per
//!    destination of their last transmission; take an RTT sample when the timed chunk of a
//!    destination is acked without having been retransmitted (Karn, §6.3.1 C5).
//! 2. Miss indications (§7.2.4). RFC 4960 counts one for each missing TSN below the highest
//!    TSN newly acked. **SFR** (Iyengar et al. §IV-A) splits this per destination: a
//!    missing TSN last sent to d gets an indication only if the SACK newly acks some TSN
//!    sent to d and the highest TSN it acks for d lies above it. **DAC** (§IV-C): when all
//!    TSNs newly acked went to the missing TSN's destination and all lie above it, the
//!    indication counts as many packets as the SACK says arrived (1 or 2).
//!    At `fast_rtx_threshold` indications the chunk is marked for fast retransmit; the
//!    destination it was sent to reduces its window once per fast recovery.
//! 3. Window growth (§7.2.1–7.2.2) per destination with newly acked bytes. Without **CUC**
//!    only when the cumulative TSN advances (RFC 4960); with CUC (§IV-B) when the
//!    destination's pseudo-cumack advances: the lowest TSN in flight to it is acked.
//!    Never during the destination's fast recovery.
//! 4. T3 timers per destination (§6.3.2 R2, R3) and the bandwidth samples of eq. (3).

use super::gaps::gap_block;
use super::sender::{ChunkState, DestStatus, SctpSender};
use crate::cc::cmt::{BerpAttribution, CmtCcSpec};
use crate::packet::Packet;
use crate::units::SimTime;

/// What one SACK did for one destination.
#[derive(Clone, Copy, Default)]
struct PerDest {
    /// Bytes newly acked whose last transmission went to this destination.
    newly_bytes: u64,
    /// Highest TSN of this destination newly acked.
    highest_newly: Option<u64>,
    /// Highest TSN of this destination this SACK acks (newly or again).
    highest_in_sack: Option<u64>,
    /// Lowest TSN in flight to this destination before the SACK (its pseudo-cumack).
    pseudo_cum: Option<u64>,
    pseudo_cum_acked: bool,
    flight_before: u64,
}

impl SctpSender {
    /// Process one SACK; `dac_count` is the number of packets it reports (1 or 2).
    pub(super) fn on_sack(&mut self, now: SimTime, pkt: &Packet, dac_count: u32) {
        self.stats.sacks += 1;
        let cum = pkt.seq.min(self.next_tsn);
        if cum < self.base {
            return; // §6.2.1: an older SACK (paths reorder SACKs).
        }
        let n = self.dests.len();
        let mut per = vec![PerDest::default(); n];
        for (i, c) in self.chunks.iter().enumerate() {
            let p = &mut per[c.dest as usize];
            if c.state == ChunkState::InFlight && p.pseudo_cum.is_none() {
                p.pseudo_cum = Some(self.base + i as u64);
            }
        }
        for (d, p) in per.iter_mut().enumerate() {
            p.flight_before = self.dests[d].flight;
        }
        let mut newly_dests: u32 = 0; // bit set of destinations with newly acked TSNs
        let mut lowest_newly = u64::MAX;
        let mut highest_newly = None;
        let mut sack_bytes = 0u64;

        // 1. Acknowledge.
        let ack = |s: &mut SctpSender, tsn: u64, per: &mut [PerDest]| {
            let i = (tsn - s.base) as usize;
            let c = &mut s.chunks[i];
            let d = c.dest as usize;
            let p = &mut per[d];
            p.highest_in_sack = Some(p.highest_in_sack.map_or(tsn, |h: u64| h.max(tsn)));
            if c.state == ChunkState::GapAcked {
                return false;
            }
            if c.state == ChunkState::InFlight {
                s.dests[d].flight -= c.bytes as u64;
                // CMT-PF: new data (sent once, not marked for retransmission) acknowledged
                // clears the destination's errors and makes it active (ns-2.35
                // `SendBufferDequeueUpTo`, `ProcessGapAckBlocks`).
                if s.spec.pf && c.tx == 1 {
                    s.dests[d].errors = 0;
                    if s.dests[d].status != DestStatus::Active {
                        s.dests[d].status = DestStatus::Active;
                    }
                }
            }
            c.state = ChunkState::GapAcked;
            s.gap_bytes += c.bytes as u64;
            p.newly_bytes += c.bytes as u64;
            p.highest_newly = Some(tsn);
            if p.pseudo_cum == Some(tsn) {
                p.pseudo_cum_acked = true;
            }
            let tx = c.tx;
            if let Some((t, sent)) = s.dests[d].probe {
                if t == tsn {
                    s.dests[d].probe = None;
                    if tx == 1 {
                        s.dests[d].rtt.sample(now.since(sent));
                        s.dests[d].rtt.reset_backoff();
                    }
                }
            }
            true
        };
        for tsn in self.base..cum {
            if ack(self, tsn, &mut per) {
                let d = self.chunks[(tsn - self.base) as usize].dest;
                newly_dests |= 1 << d;
                lowest_newly = lowest_newly.min(tsn);
                highest_newly = Some(tsn);
            }
        }
        for b in 0..pkt.nsack as usize {
            let (s, e) = gap_block(pkt, b);
            for tsn in s.max(cum)..e.min(self.next_tsn) {
                if ack(self, tsn, &mut per) {
                    let d = self.chunks[(tsn - self.base) as usize].dest;
                    newly_dests |= 1 << d;
                    lowest_newly = lowest_newly.min(tsn);
                    highest_newly = Some(highest_newly.map_or(tsn, |h: u64| h.max(tsn)));
                }
            }
        }
        // Slide the cumulative ack point.
        let cum_advanced = cum > self.base;
        while self.base < cum {
            let c = self
                .chunks
                .pop_front()
                .expect("record of every TSN below next_tsn");
            self.gap_bytes -= c.bytes as u64;
            self.base += 1;
        }
        for p in &per {
            sack_bytes += p.newly_bytes;
        }

        // 2. Miss indications and fast retransmit.
        let single_dest = newly_dests.count_ones() == 1;
        let mut reduce = vec![false; n];
        let thresh = self.spec.fast_rtx_threshold;
        for i in 0..self.chunks.len() {
            let tsn = self.base + i as u64;
            let c = self.chunks[i];
            if c.state != ChunkState::InFlight || c.fast_rtx_done {
                continue;
            }
            let d = c.dest as usize;
            let missing = if self.spec.sfr {
                per[d].highest_newly.is_some() && per[d].highest_in_sack.is_some_and(|h| tsn < h)
            } else {
                highest_newly.is_some_and(|h| tsn < h)
            };
            if !missing {
                continue;
            }
            let inc = if self.spec.dac
                && single_dest
                && newly_dests & (1 << d) != 0
                && lowest_newly > tsn
            {
                dac_count
            } else {
                1
            };
            let c = &mut self.chunks[i];
            c.miss += inc;
            if c.miss >= thresh {
                c.state = ChunkState::Marked;
                c.fast_rtx_done = true;
                c.fast_pending = true;
                self.dests[d].flight -= c.bytes as u64;
                self.stats.fast_retransmits += 1;
                if self.dests[d].probe.is_some_and(|(t, _)| t == tsn) {
                    self.dests[d].probe = None;
                }
                reduce[d] = true;
            }
        }
        let highest_sent = self.next_tsn.saturating_sub(1);
        for (d, r) in reduce.iter().enumerate() {
            if *r && self.dests[d].recovery_exit.is_none() {
                // §7.2.4 step 2: reduce once, remember the exit point.
                self.cc.on_fast_retransmit(d);
                self.dests[d].recovery_exit = Some(highest_sent);
                self.stats.fast_recoveries += 1;
            }
        }

        // 3. Window growth, bandwidth samples, RTT into the controller.
        for d in 0..n {
            self.cc.paths[d].srtt = self.dests[d].rtt.srtt().secs();
        }
        let attribution = match self.spec.cc {
            CmtCcSpec::Berp(b) => b.attribution,
            CmtCcSpec::Cmt(_) => BerpAttribution::LastSent,
        };
        for (d, p) in per.iter().enumerate() {
            let in_recovery = self.dests[d].recovery_exit.is_some();
            if p.newly_bytes > 0 && !in_recovery {
                let may_grow = if self.spec.cuc {
                    p.pseudo_cum_acked
                } else {
                    cum_advanced
                };
                if may_grow {
                    // "Fully utilised" (§7.2.1): no room for another packet before the SACK.
                    let limited = self.was_cwnd_limited(d, p.flight_before);
                    self.cc.on_ack(d, p.newly_bytes as f64, limited);
                }
            }
            if attribution == BerpAttribution::LastSent {
                self.cc.on_bandwidth_sample(d, now, p.newly_bytes as f64);
            }
            if self.dests[d].flight == 0 {
                self.cc.on_path_idle(d);
            }
        }
        if attribution == BerpAttribution::SackPath {
            let d = (pkt.path as usize).saturating_sub(1).min(n - 1);
            self.cc.on_bandwidth_sample(d, now, sack_bytes as f64);
        }

        // 4. Fast-recovery exit and T3 timers, per destination.
        for (d, p) in per.iter().enumerate() {
            if let Some(exit) = self.dests[d].recovery_exit {
                let pending = self.chunks.iter().enumerate().any(|(i, c)| {
                    c.dest as usize == d
                        && c.state != ChunkState::GapAcked
                        && self.base + i as u64 <= exit
                });
                if !pending {
                    self.dests[d].recovery_exit = None;
                }
            }
            let rto = self.dests[d].rtt.rto();
            let dest = &mut self.dests[d];
            if dest.flight == 0 {
                dest.t3 = None; // R2
            } else if p.pseudo_cum_acked {
                dest.t3 = Some(now + rto); // R3
            }
        }
    }
}

#[cfg(test)]
#[path = "sctp_tests.rs"]
mod tests;
