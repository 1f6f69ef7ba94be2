//! The MPTCP packet scheduler: which subflow carries the next new segment.

use super::config::SchedulerSpec;

/// What the scheduler knows of a subflow that has room for a new segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Subflow index.
    pub index: usize,
    /// Smoothed RTT (s); 0 before the first sample.
    pub srtt: f64,
}

/// Scheduler state (round-robin's position).
#[derive(Clone, Debug, Default)]
pub struct Scheduler {
    kind: SchedulerSpec,
    next: usize,
}

impl Scheduler {
    /// A scheduler of the given kind.
    pub fn new(kind: SchedulerSpec) -> Scheduler {
        Scheduler { kind, next: 0 }
    }

    /// Pick among `cands` (in subflow order, all with window space) for `n` subflows.
    pub fn pick(&mut self, cands: &[Candidate], n: usize) -> Option<usize> {
        let chosen = match self.kind {
            // Lowest RTT first; a subflow without an RTT sample yet goes first, so that
            // it gets one (Linux's default scheduler probes new subflows the same way).
            SchedulerSpec::MinRtt => cands
                .iter()
                .min_by(|a, b| {
                    let key = |c: &Candidate| (c.srtt > 0.0, c.srtt);
                    key(a)
                        .partial_cmp(&key(b))
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
                .map(|c| c.index),
            SchedulerSpec::RoundRobin => (0..n)
                .map(|i| (self.next + i) % n.max(1))
                .find(|i| cands.iter().any(|c| c.index == *i)),
        };
        if let Some(k) = chosen {
            self.next = k + 1;
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(index: usize, srtt: f64) -> Candidate {
        Candidate { index, srtt }
    }

    #[test]
    fn min_rtt_prefers_the_fastest_and_probes_new_subflows_first() {
        let mut s = Scheduler::new(SchedulerSpec::MinRtt);
        assert_eq!(s.pick(&[c(0, 0.1), c(1, 0.05), c(2, 0.2)], 3), Some(1));
        assert_eq!(s.pick(&[c(0, 0.1), c(2, 0.0)], 3), Some(2));
        assert_eq!(s.pick(&[], 3), None);
    }

    #[test]
    fn round_robin_takes_turns_among_candidates() {
        let mut s = Scheduler::new(SchedulerSpec::RoundRobin);
        let all = [c(0, 0.1), c(1, 0.1), c(2, 0.1)];
        let picks: Vec<_> = (0..4).map(|_| s.pick(&all, 3).unwrap()).collect();
        assert_eq!(picks, vec![0, 1, 2, 0]);
        assert_eq!(s.pick(&[c(0, 0.1), c(2, 0.1)], 3), Some(2)); // 1 has no room
    }
}
