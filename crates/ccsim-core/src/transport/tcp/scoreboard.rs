//! The sender's SACK scoreboard over the outstanding segments `[base, end)`.
//!
//! Each segment carries three flags: SACKed, lost (RFC 6675 `IsLost`) and retransmitted
//! (a retransmission is in flight). Counts are kept incrementally so that `pipe`
//! (RFC 6675 §4 `SetPipe`) costs O(1):
//! pipe = outstanding − sacked − lost + retransmitted (lost and retransmitted counted over
//! segments not SACKed). Loss marking advances a frontier: a segment is lost once at least
//! `threshold` SACKed segments lie above it (RFC 6675 with DupThresh; threshold 1 gives the
//! ns-2 Sack1 rule "every hole below the highest SACK").

use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETX: u8 = 4;

/// Scoreboard state.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    base: u64,
    flags: VecDeque<u8>,
    sacked: u64,
    lost: u64,
    retx: u64,
    frontier: u64,
    sacked_above_frontier: u64,
    rxt_hint: u64,
    /// One past the highest SACKed segment, at least `base` (FACK's snd.fack).
    fack: u64,
    /// SACKed segments at or above `base` as sorted, disjoint, non-adjacent ranges.
    ranges: Vec<(u64, u64)>,
    /// Segments ever marked lost (the delivery-rate sample's losses).
    lost_total: u64,
    /// Whether `sack` records the ranges it newly SACKs in `newly_sacked` (for the
    /// delivery-rate sampler; off unless the controller asks for rate samples).
    log_sacked: bool,
    newly_sacked: Vec<(u64, u64)>,
}

impl Scoreboard {
    /// An empty scoreboard starting at segment `base`.
    pub fn new(base: u64) -> Scoreboard {
        Scoreboard {
            base,
            frontier: base,
            rxt_hint: base,
            fack: base,
            ..Default::default()
        }
    }

    /// First outstanding segment.
    pub fn base(&self) -> u64 {
        self.base
    }
    /// One past the last segment sent.
    pub fn end(&self) -> u64 {
        self.base + self.flags.len() as u64
    }
    /// Segments outstanding.
    pub fn outstanding(&self) -> u64 {
        self.flags.len() as u64
    }
    /// SACKed segments.
    pub fn sacked(&self) -> u64 {
        self.sacked
    }
    /// One past the highest SACKed segment (snd.fack, Mathis & Mahdavi 1996), at least `base`.
    pub fn fack(&self) -> u64 {
        self.fack.max(self.base)
    }
    /// FACK's outstanding-data estimate awnd = snd.nxt − snd.fack + retransmissions in flight.
    pub fn awnd(&self) -> u64 {
        self.end() - self.fack() + self.retx
    }
    /// Segments ever marked lost.
    pub fn lost_total(&self) -> u64 {
        self.lost_total
    }
    /// Record the ranges `sack` newly SACKs, to be taken with `take_newly_sacked`.
    pub fn log_sacked(&mut self) {
        self.log_sacked = true;
    }
    /// The ranges newly SACKed since the last call (empty unless `log_sacked` was called).
    pub fn take_newly_sacked(&mut self, into: &mut Vec<(u64, u64)>) {
        into.clear();
        std::mem::swap(into, &mut self.newly_sacked);
    }
    /// RFC 6675 pipe, in segments.
    pub fn pipe(&self) -> u64 {
        self.outstanding() - self.sacked - self.lost + self.retx
    }

    /// A new segment (`end()`) was sent.
    #[inline]
    pub fn push_sent(&mut self) {
        self.flags.push_back(0);
    }

    /// Cumulative ACK up to `ack` (exclusive). Returns segments removed that were not SACKed.
    pub fn ack_to(&mut self, ack: u64) -> u64 {
        if ack <= self.base {
            return 0; // nothing newly acknowledged (a duplicate ACK): no state changes
        }
        if self.sacked == 0 && self.lost == 0 && self.retx == 0 {
            // No segment is flagged (the common case): all those removed are fresh.
            let n = ack.min(self.end()).saturating_sub(self.base);
            self.flags.drain(..n as usize);
            self.base += n;
            self.frontier = self.frontier.max(self.base);
            self.rxt_hint = self.rxt_hint.max(self.base);
            return n;
        }
        let mut fresh = 0;
        while self.base < ack {
            let Some(f) = self.flags.pop_front() else {
                break;
            };
            if f & SACKED != 0 {
                self.sacked -= 1;
                if self.base >= self.frontier {
                    self.sacked_above_frontier -= 1;
                }
            } else {
                fresh += 1;
                if f & LOST != 0 {
                    self.lost -= 1;
                }
                if f & RETX != 0 {
                    self.retx -= 1;
                }
            }
            self.base += 1;
        }
        self.base = self.base.max(ack.min(self.end()));
        let base = self.base;
        // The ranges are sorted and disjoint: those wholly acknowledged are a prefix (a
        // retain over all of them made every ACK cost the number of holes).
        let gone = self.ranges.partition_point(|r| r.1 <= base);
        self.ranges.drain(..gone);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(base);
        }
        self.frontier = self.frontier.max(self.base);
        self.rxt_hint = self.rxt_hint.max(self.base);
        fresh
    }

    /// Record a SACK block `[start, end)`. Returns segments newly SACKed.
    ///
    /// The SACKed segments are also kept as sorted disjoint ranges, so a block only walks
    /// the segments it newly covers: receivers repeat long blocks in every ACK (a block
    /// behind a persistent hole grows to thousands of segments), and walking them all each
    /// time made long transfers quadratic.
    pub fn sack(&mut self, start: u64, end: u64) -> u64 {
        let lo = start.max(self.base);
        let hi = end.min(self.end());
        if lo >= hi {
            return 0;
        }
        let i = self.ranges.partition_point(|r| r.1 < lo);
        // Inside one known range (a block repeated from an earlier ACK, the common case):
        // nothing new, and no range changes (ranges never touch: they merge when they do).
        if let Some(&(a, b)) = self.ranges.get(i) {
            if a <= lo && hi <= b {
                self.fack = self.fack.max(hi);
                return 0;
            }
        }
        let mut j = i;
        let mut cur = lo;
        let mut fresh = 0;
        while j < self.ranges.len() && self.ranges[j].0 <= hi {
            let (a, b) = self.ranges[j];
            if a > cur {
                fresh += self.mark_sacked(cur, a.min(hi));
            }
            cur = cur.max(b);
            j += 1;
        }
        if cur < hi {
            fresh += self.mark_sacked(cur, hi);
        }
        let (new_lo, new_hi) = if i < j {
            (lo.min(self.ranges[i].0), hi.max(self.ranges[j - 1].1))
        } else {
            (lo, hi)
        };
        if i == j {
            self.ranges.insert(i, (new_lo, new_hi));
        } else {
            self.ranges[i] = (new_lo, new_hi);
            self.ranges.drain(i + 1..j);
        }
        if hi > lo {
            self.fack = self.fack.max(hi);
        }
        fresh
    }

    /// Set the SACKed flag on `[lo, hi)` (segments not SACKed before).
    fn mark_sacked(&mut self, lo: u64, hi: u64) -> u64 {
        if self.log_sacked {
            self.newly_sacked.push((lo, hi));
        }
        let mut fresh = 0;
        for s in lo..hi {
            let f = &mut self.flags[(s - self.base) as usize];
            if *f & SACKED != 0 {
                continue;
            }
            if *f & LOST != 0 {
                self.lost -= 1;
            }
            if *f & RETX != 0 {
                self.retx -= 1;
            }
            *f = SACKED;
            self.sacked += 1;
            if s >= self.frontier {
                self.sacked_above_frontier += 1;
            }
            fresh += 1;
        }
        fresh
    }

    /// Mark as lost every un-SACKed segment with at least `threshold` SACKed segments above.
    pub fn mark_lost(&mut self, threshold: u64) {
        let end = self.end();
        while self.frontier < end && self.sacked_above_frontier >= threshold.max(1) {
            let f = &mut self.flags[(self.frontier - self.base) as usize];
            if *f & SACKED != 0 {
                self.sacked_above_frontier -= 1;
            } else if *f & LOST == 0 {
                *f |= LOST;
                self.lost += 1;
                self.lost_total += 1;
            }
            self.frontier += 1;
        }
    }

    /// As `mark_lost`, returning the highest segment newly marked, if any.
    pub fn mark_lost_highest(&mut self, threshold: u64) -> Option<u64> {
        let lost_before = self.lost;
        let frontier_before = self.frontier;
        self.mark_lost(threshold);
        if self.lost == lost_before {
            return None;
        }
        (frontier_before..self.frontier)
            .rev()
            .find(|&s| self.is_lost(s))
    }

    /// After a timeout: every un-SACKed segment is lost and no retransmission is in flight
    /// (RFC 6675 §5.1).
    pub fn mark_all_lost(&mut self) {
        for f in self.flags.iter_mut() {
            if *f & SACKED == 0 {
                *f = LOST;
            }
        }
        let lost = self.outstanding() - self.sacked;
        self.lost_total += lost - self.lost;
        self.lost = lost;
        self.retx = 0;
        self.frontier = self.end();
        self.sacked_above_frontier = 0;
        self.rxt_hint = self.base;
    }

    /// Mark segment `seq` lost (the first retransmission on entering recovery).
    pub fn mark_one_lost(&mut self, seq: u64) {
        if seq < self.base || seq >= self.end() {
            return;
        }
        let f = &mut self.flags[(seq - self.base) as usize];
        if *f & (SACKED | LOST) == 0 {
            *f |= LOST;
            self.lost += 1;
            self.lost_total += 1;
        }
        self.rxt_hint = self.rxt_hint.min(seq);
    }

    /// Whether `seq` is marked lost.
    pub fn is_lost(&self, seq: u64) -> bool {
        seq >= self.base && seq < self.end() && self.flags[(seq - self.base) as usize] & LOST != 0
    }

    /// The lowest lost segment not SACKed and not already retransmitted (RFC 6675 NextSeg
    /// rule 1).
    pub fn next_lost(&mut self) -> Option<u64> {
        let end = self.end();
        while self.rxt_hint < end {
            let f = self.flags[(self.rxt_hint - self.base) as usize];
            if f & LOST != 0 && f & (SACKED | RETX) == 0 {
                return Some(self.rxt_hint);
            }
            if f & LOST == 0 && f & SACKED == 0 && self.rxt_hint >= self.frontier {
                return None;
            }
            self.rxt_hint += 1;
        }
        None
    }

    /// RACK found the retransmission of `seq` lost (`rack.rs`): it is no longer in flight
    /// and is due again. Returns whether it was an outstanding, un-SACKed retransmission.
    pub fn mark_retransmission_lost(&mut self, seq: u64) -> bool {
        if seq < self.base || seq >= self.end() {
            return false;
        }
        let f = &mut self.flags[(seq - self.base) as usize];
        if *f & SACKED != 0 || *f & RETX == 0 {
            return false;
        }
        *f &= !RETX;
        self.retx -= 1;
        if *f & LOST == 0 {
            *f |= LOST;
            self.lost += 1;
        }
        self.lost_total += 1;
        self.rxt_hint = self.rxt_hint.min(seq);
        true
    }

    /// Segment `seq` was retransmitted.
    pub fn on_retransmit(&mut self, seq: u64) {
        if seq < self.base || seq >= self.end() {
            return;
        }
        let f = &mut self.flags[(seq - self.base) as usize];
        if *f & (SACKED | RETX) == 0 {
            *f |= RETX;
            self.retx += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new(0);
        for _ in 0..n {
            b.push_sent();
        }
        b
    }

    #[test]
    fn pipe_counts_outstanding_minus_sacked_and_lost_plus_retransmitted() {
        let mut b = board(10);
        assert_eq!(b.pipe(), 10);
        assert_eq!(b.sack(3, 7), 4);
        assert_eq!(b.pipe(), 6);
        b.mark_lost(3);
        // Segments 0, 1, 2 each have 4 SACKed above: lost.
        assert_eq!(b.pipe(), 3);
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0);
        assert_eq!(b.pipe(), 4);
        assert_eq!(b.next_lost(), Some(1));
    }

    #[test]
    fn rfc6675_needs_dupthresh_sacked_segments_above() {
        let mut b = board(10);
        b.sack(2, 4);
        b.mark_lost(3);
        assert!(!b.is_lost(0) && !b.is_lost(1));
        b.sack(5, 6);
        b.mark_lost(3);
        assert!(b.is_lost(0) && b.is_lost(1));
        // Segment 4 has only one SACKed segment above it.
        assert!(!b.is_lost(4));
    }

    #[test]
    fn sack1_rule_marks_every_hole_below_the_highest_sack() {
        let mut b = board(10);
        b.sack(8, 9);
        b.mark_lost(1);
        assert!((0..8).all(|s| b.is_lost(s)));
        assert!(!b.is_lost(9));
    }

    #[test]
    fn cumulative_ack_removes_state_and_returns_fresh_segments() {
        let mut b = board(10);
        b.sack(2, 4);
        b.mark_lost(2);
        b.on_retransmit(0);
        assert_eq!(b.ack_to(5), 3); // 0, 1 and 4 were not SACKed
        assert_eq!(b.base(), 5);
        assert_eq!(b.pipe(), 5);
        assert_eq!(b.sacked(), 0);
    }

    #[test]
    fn cumulative_ack_without_flags_takes_the_short_way_to_the_same_state() {
        // `flagged` keeps one SACKed segment (10) above every ACK, so it takes the
        // per-segment path; `plain` has no flags and takes the short one.
        let mut flagged = board(12);
        flagged.sack(10, 11);
        let mut plain = board(12);
        for ack in [2, 5, 5, 9, 10] {
            assert_eq!(flagged.ack_to(ack), plain.ack_to(ack), "ack {ack}");
            assert_eq!(
                (flagged.base(), flagged.end(), flagged.pipe() + 1),
                (plain.base(), plain.end(), plain.pipe()),
                "ack {ack}"
            );
        }
        // Past the end: everything left goes; the SACKed segment is not fresh.
        assert_eq!(flagged.ack_to(30), 1);
        assert_eq!(plain.ack_to(30), 2);
        assert_eq!((plain.base(), plain.outstanding()), (12, 0));
        assert_eq!((flagged.base(), flagged.outstanding()), (12, 0));
    }

    #[test]
    fn fack_is_the_highest_sack_and_awnd_counts_from_it() {
        let mut b = board(10);
        assert_eq!(b.fack(), 0);
        b.sack(5, 7);
        b.sack(2, 3);
        assert_eq!(b.fack(), 7);
        // awnd = snd.nxt − snd.fack + retransmissions in flight = 10 − 7 + 0.
        assert_eq!(b.awnd(), 3);
        b.mark_lost(1);
        b.on_retransmit(0);
        assert_eq!(b.awnd(), 4);
        b.ack_to(8);
        assert_eq!(b.fack(), 8);
        assert_eq!(b.awnd(), 2);
    }

    #[test]
    fn overlapping_and_repeated_blocks_count_each_segment_once() {
        let mut b = board(20);
        assert_eq!(b.sack(5, 8), 3);
        assert_eq!(b.sack(5, 8), 0);
        assert_eq!(b.sack(4, 10), 3); // 4, 8, 9
        assert_eq!(b.sack(12, 14), 2);
        assert_eq!(b.sack(9, 13), 2); // 10, 11 (joins the two ranges)
        assert_eq!(b.sacked(), 10);
        assert_eq!(b.ranges, vec![(4, 14)]);
        b.ack_to(6);
        assert_eq!(b.ranges, vec![(6, 14)]);
        assert_eq!(b.sack(0, 20), 6); // 14..20 only
        assert_eq!(b.sacked(), 14);
    }

    #[test]
    fn random_blocks_agree_with_a_per_segment_model() {
        let mut r = crate::rng::SimRng::stream(5, "sb");
        let mut b = board(300);
        let mut model = vec![false; 300];
        for _ in 0..2000 {
            let a = r.next_u64() % 300;
            let len = r.next_u64() % 40;
            let e = (a + len).min(300);
            let fresh = b.sack(a, e);
            let expect = (a..e)
                .filter(|&s| s >= b.base() && !model[s as usize])
                .count() as u64;
            for s in a.max(b.base())..e {
                model[s as usize] = true;
            }
            assert_eq!(fresh, expect);
            if r.next_u64().is_multiple_of(50) {
                let to = (b.base() + r.next_u64() % 10).min(300);
                b.ack_to(to);
            }
            let count = (b.base()..300).filter(|&s| model[s as usize]).count() as u64;
            assert_eq!(b.sacked(), count);
        }
    }

    #[test]
    fn timeout_marks_everything_unsacked_lost() {
        let mut b = board(6);
        b.sack(4, 5);
        b.on_retransmit(0);
        b.mark_all_lost();
        assert_eq!(b.pipe(), 0);
        let mut order = Vec::new();
        while let Some(s) = b.next_lost() {
            b.on_retransmit(s);
            order.push(s);
        }
        assert_eq!(order, vec![0, 1, 2, 3, 5]);
    }

    #[test]
    fn a_sacked_segment_the_cumulative_ack_covers_no_longer_counts_towards_dupthresh() {
        // RFC 6675 §4 IsLost(SeqNum): lost once DupThresh SACKed segments lie above it in
        // the scoreboard, which holds only data above the cumulative ACK (SND.UNA). Segment
        // 2 is SACKed, then the cumulative ACK passes it (0 and 1 were only reordered): with
        // 5 and 6 SACKed, segments 3 and 4 have two SACKed segments above them, not three.
        let mut b = board(10);
        b.sack(2, 3);
        assert_eq!(b.ack_to(3), 2);
        b.sack(5, 7);
        b.mark_lost(3);
        assert!(!b.is_lost(3) && !b.is_lost(4));
        // A third SACKed segment above them makes them lost (8, 5 and 6); 7 has one above.
        b.sack(8, 9);
        b.mark_lost(3);
        assert!(b.is_lost(3) && b.is_lost(4) && !b.is_lost(7));
    }
}
