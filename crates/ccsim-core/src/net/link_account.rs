//! A link's accounts as of a time: counters settled for what was computed ahead (chained
//! offers), packets in flight, and the queueing-delay histogram at a measurement window's
//! edges. A part of `net::link` (a child module, so it reaches the link's fields).

use super::{Link, LinkStats, Pipe};
use crate::measure::histogram::Histogram;
use crate::units::SimTime;

use super::LateDrop;

impl Link {
    /// The counters as of `t` (`t ≥` every event processed, i.e. the current time or
    /// the end): transmissions that ended by `t` counted out, what was computed ahead for
    /// times after `t` (chained offers and their drops) left out. Returns (the counters,
    /// packets in flight at `t`, drops to undo on the flows' accounts). The link is not
    /// changed, so a measurement window can read it mid-run.
    pub fn settled(&self, t: SimTime) -> (LinkStats, u64, Vec<LateDrop>) {
        let mut stats = self.stats.clone();
        match &self.pipe {
            Pipe::Fast(f) => {
                let mut in_flight = 0;
                for (i, e) in f.ring.iter().enumerate() {
                    let counted_out = i < f.done;
                    let out_by_end = e.finish <= t;
                    if e.enter > t {
                        // Entered after `t` (chained): it is still upstream.
                        stats.packets_in -= 1;
                        if counted_out {
                            stats.packets_out -= 1;
                            stats.bytes_out -= e.size as u64;
                        }
                        continue;
                    }
                    if counted_out && !out_by_end {
                        stats.packets_out -= 1;
                        stats.bytes_out -= e.size as u64;
                    } else if !counted_out && out_by_end {
                        stats.packets_out += 1;
                        stats.bytes_out += e.size as u64;
                    }
                    if e.arrive > t {
                        in_flight += 1;
                    }
                }
                stats.ecn_marks -= f.late_marks.iter().filter(|&&tm| tm > t).count() as u64;
                let mut undo = Vec::new();
                for &(td, cause, flow) in &f.late_drops {
                    if td > t {
                        stats.packets_in -= 1;
                        stats.drops.0[cause as usize] -= 1;
                        undo.push(LateDrop { cause, flow });
                    }
                }
                (stats, in_flight, undo)
            }
            Pipe::PerHop(p) => (
                stats,
                (p.waiting.len() + p.in_service.is_some() as usize + p.wire.len()) as u64,
                Vec::new(),
            ),
            Pipe::Sched(p) => {
                let queued = self.queued();
                (
                    stats,
                    (queued + p.in_service.is_some() as usize + p.wire.len()) as u64,
                    Vec::new(),
                )
            }
        }
    }

    /// (Fast model.) The queueing delays already counted of packets that have not started
    /// transmission by `t` (the fast model counts a packet when it accepts it, the per-hop
    /// model when its transmission starts; a window's edges count the latter).
    fn pending_sojourns(&self, t: SimTime) -> Vec<u64> {
        match &self.pipe {
            Pipe::Fast(f) if self.sojourn.is_some() => {
                // A packet starts when it enters or when the one before it finishes (FIFO,
                // never idle while holding a packet), with a fixed rate or a schedule. The
                // ring's first entry follows packets that reached the far end by now ≤ `t`,
                // so taking its start as its entry decides `start > t` the same way.
                let mut prev_finish = 0;
                f.ring
                    .iter()
                    .filter_map(|e| {
                        let start = e.enter.0.max(prev_finish);
                        prev_finish = e.finish.0;
                        (start > t.0).then(|| start - e.enter.0)
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The queueing delays of the packets that started transmission by `t`, when measured.
    pub fn sojourn_at(&self, t: SimTime) -> Option<Histogram> {
        let mut h = (**self.sojourn.as_ref()?).clone();
        for v in self.pending_sojourns(t) {
            h.remove(v);
        }
        Some(h)
    }

    /// Count queueing delays from `t` on only (a measurement window opens): packets that
    /// start transmission after `t` are kept.
    pub fn restart_sojourn(&mut self, t: SimTime) {
        if self.sojourn.is_some() {
            let mut h = Histogram::default();
            for v in self.pending_sojourns(t) {
                h.record(v);
            }
            self.sojourn = Some(Box::new(h));
        }
    }

    /// Settle the accounts at the end of the run (see `settled`) and return (packets in
    /// flight, drops to undo).
    pub fn finish(&mut self, end: SimTime) -> (u64, Vec<LateDrop>) {
        let (stats, in_flight, undo) = self.settled(end);
        self.stats = stats;
        (in_flight, undo)
    }
}
