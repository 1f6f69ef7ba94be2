//! Connection-level reassembly: data sequence numbers (segments) arrive in any order, on
//! any subflow, possibly twice; the application gets each exactly once, in order.

/// The receiver's data-level buffer.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    /// Next data segment the application expects (the data ACK).
    next: u64,
    /// Segments held above `next`, as sorted disjoint ranges `[start, end)`.
    held: Vec<(u64, u64)>,
    /// Segments that arrived when already delivered or held.
    pub duplicates: u64,
}

impl Reassembly {
    /// The data ACK: next expected data segment.
    pub fn next(&self) -> u64 {
        self.next
    }
    /// Segments held out of order.
    pub fn held(&self) -> u64 {
        self.held.iter().map(|r| r.1 - r.0).sum()
    }

    /// Segment `dsn` arrived; returns the range `[a, b)` now delivered in order (empty if
    /// none).
    pub fn insert(&mut self, dsn: u64) -> (u64, u64) {
        let start = self.next;
        if dsn < self.next {
            self.duplicates += 1;
            return (start, start);
        }
        let i = self.held.partition_point(|r| r.1 < dsn);
        if i < self.held.len() && self.held[i].0 <= dsn && dsn < self.held[i].1 {
            self.duplicates += 1;
            return (start, start);
        }
        // Merge with neighbours.
        let joins_prev = i < self.held.len() && self.held[i].1 == dsn;
        let j = if joins_prev { i + 1 } else { i };
        let joins_next = j < self.held.len() && self.held[j].0 == dsn + 1;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.held[i].1 = self.held[j].1;
                self.held.remove(j);
            }
            (true, false) => self.held[i].1 = dsn + 1,
            (false, true) => self.held[j].0 = dsn,
            (false, false) => self.held.insert(i, (dsn, dsn + 1)),
        }
        if self.held.first().is_some_and(|r| r.0 == self.next) {
            self.next = self.held.remove(0).1;
        }
        (start, self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;

    #[test]
    fn delivers_each_segment_once_in_order_whatever_the_arrival_order() {
        let mut rng = SimRng::stream(7, "reassembly-test");
        let n = 2000u64;
        // Arrivals: every segment once, shuffled, plus 500 random duplicates.
        let mut arrivals: Vec<u64> = (0..n).collect();
        for _ in 0..500 {
            arrivals.push((rng.uniform() * n as f64) as u64);
        }
        for i in (1..arrivals.len()).rev() {
            let j = (rng.uniform() * (i + 1) as f64) as usize;
            arrivals.swap(i, j);
        }
        let mut r = Reassembly::default();
        let mut delivered = Vec::new();
        for d in arrivals {
            let (a, b) = r.insert(d);
            assert_eq!(
                a,
                delivered.len() as u64,
                "delivery must continue where it stopped"
            );
            delivered.extend(a..b);
        }
        assert_eq!(delivered, (0..n).collect::<Vec<_>>());
        assert_eq!(r.duplicates, 500);
        assert_eq!(r.held(), 0);
    }
}
