//! One router's table for one destination: every next hop with its metric and split ratio,
//! the node price of recursion (1), the improper flag, split adaptation and the forwarding
//! draw (Mallada & Paganini, NET-COOP 2007, §2.3 and §3.2; ALGORITHMS.md §3.0.2 and §3.0.4).
//!
//! Prices are in seconds of queueing delay. `f64::INFINITY` stands for RIP's infinite
//! metric (poison reverse) and for a failed link.

use crate::ids::LinkId;

/// Splits below this are zero: clipping leaves exact zeros, but sums of shares may not.
const EPS: f64 = 1e-12;
/// Price differences below this (seconds) are rounding: a router whose splits sum to a hair
/// below 1 computes q_i a hair below its only next hop's q_j, which is not uphill.
const PRICE_EPS: f64 = 1e-12;

/// One next hop j of router i for a destination.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Neighbour node j.
    pub nbr: usize,
    /// Outgoing link (i, j).
    pub link: LinkId,
    /// q_j: the metric j last announced to i (infinite when poisoned or unreachable).
    pub q_nbr: f64,
    /// Whether j's last announcement carried the improper flag.
    pub nbr_improper: bool,
    /// Split ratio α_ij.
    pub alpha: f64,
    /// Link price p_ij (queueing delay of (i, j), s) at the last measurement; infinite while
    /// the link is down.
    pub price: f64,
}

impl Row {
    /// A row for neighbour `nbr` over `link` with split `alpha`, nothing announced yet.
    pub fn new(nbr: usize, link: LinkId, alpha: f64) -> Row {
        Row {
            nbr,
            link,
            q_nbr: 0.0,
            nbr_improper: false,
            alpha,
            price: 0.0,
        }
    }
    /// The route metric π_j = p_ij + q_j.
    #[inline]
    pub fn metric(&self) -> f64 {
        self.price + self.q_nbr
    }
    /// Blocked: i must not *start* sending to j (α_ij = 0) if j is improper (paper §3.2),
    /// or if j is not strictly downhill, q_j ≥ q_i — the second condition of the blocking
    /// set of Gallager (1977), whose method the paper adapts. Without it, equal prices (all
    /// zero at start, or on idle reverse paths) never flag anything improper, and two routers
    /// can start sending to each other on the same round.
    #[inline]
    pub fn blocked(&self, q_i: f64) -> bool {
        self.alpha <= 0.0 && (self.nbr_improper || self.q_nbr >= q_i)
    }
}

/// Router i's state for one destination.
#[derive(Clone, Debug, PartialEq)]
pub struct DestTable {
    /// Next hops, in the order they were learned (the forwarding walk's order).
    pub rows: Vec<Row>,
    /// Node price q_i of recursion (1).
    pub q: f64,
    /// Improper flag: some next hop in use is uphill (q_j > q_i) or improper itself.
    pub improper: bool,
}

impl DestTable {
    /// A table with these rows (their splits must sum to 1).
    pub fn new(rows: Vec<Row>) -> DestTable {
        let mut t = DestTable {
            rows,
            q: 0.0,
            improper: false,
        };
        t.recompute();
        t
    }

    /// Recompute q_i = Σ α_ij·(p_ij + q_j) (eq. 1) over next hops in use, and the improper
    /// flag. A hop in use with an infinite metric makes q_i infinite.
    pub fn recompute(&mut self) {
        let mut q = 0.0;
        for r in self.rows.iter().filter(|r| r.alpha > 0.0) {
            q += r.alpha * r.metric();
        }
        self.q = q;
        self.improper = self
            .rows
            .iter()
            .any(|r| r.alpha > 0.0 && (r.q_nbr > q + PRICE_EPS || r.nbr_improper));
    }

    /// The row for neighbour `nbr`, if known.
    pub fn row_mut(&mut self, nbr: usize) -> Option<&mut Row> {
        self.rows.iter_mut().find(|r| r.nbr == nbr)
    }

    /// The neighbour receiving all the traffic (α = 1), to which announcements carry an
    /// infinite metric (poison reverse).
    pub fn sole_next_hop(&self) -> Option<usize> {
        self.rows
            .iter()
            .find(|r| r.alpha >= 1.0 - EPS)
            .map(|r| r.nbr)
    }

    /// One adaptation step of length `dt` seconds with gain `beta` (paper §3.2):
    /// every next hop dearer than the cheapest eligible one loses β·dt·(π_j − π_min),
    /// clipped at its split (an infinite metric loses it all); the amount removed goes to
    /// the cheapest eligible next hops in equal parts. Eligible: not blocked
    /// (ALGORITHMS.md §3.0.4 items 1–3). Uses q_i as last recomputed. Returns whether a
    /// split changed.
    pub fn adapt(&mut self, beta: f64, dt: f64) -> bool {
        let q_i = self.q;
        let pi_min = self
            .rows
            .iter()
            .filter(|r| !r.blocked(q_i))
            .map(Row::metric)
            .fold(f64::INFINITY, f64::min);
        if !pi_min.is_finite() {
            return false; // no usable route: nothing better to move traffic to
        }
        let mut removed = 0.0;
        for r in self.rows.iter_mut() {
            let pi = r.metric();
            if r.alpha > 0.0 && pi > pi_min {
                let dec = if pi.is_finite() {
                    (beta * dt * (pi - pi_min)).min(r.alpha)
                } else {
                    r.alpha
                };
                r.alpha -= dec;
                if r.alpha < EPS {
                    removed += r.alpha;
                    r.alpha = 0.0;
                }
                removed += dec;
            }
        }
        if removed <= 0.0 {
            return false;
        }
        let cheapest = self
            .rows
            .iter()
            .filter(|r| !r.blocked(q_i) && r.metric() == pi_min)
            .count();
        let share = removed / cheapest as f64;
        for r in self.rows.iter_mut() {
            if !r.blocked(q_i) && r.metric() == pi_min {
                r.alpha += share;
            }
        }
        true
    }

    /// Forwarding (paper §3.2): walk the next hops until the cumulative split exceeds `u`
    /// (a uniform draw in [0, 1)). Rounding can leave the sum a hair below 1: the last hop
    /// in use then takes the packet.
    pub fn choose(&self, u: f64) -> Option<LinkId> {
        let mut acc = 0.0;
        let mut last = None;
        for r in &self.rows {
            if r.alpha > 0.0 {
                acc += r.alpha;
                last = Some(r.link);
                if acc > u {
                    return last;
                }
            }
        }
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(nbr: usize, alpha: f64, q_nbr: f64) -> Row {
        Row {
            q_nbr,
            ..Row::new(nbr, LinkId(nbr as u32), alpha)
        }
    }

    #[test]
    fn a_split_a_hair_below_one_is_not_uphill() {
        // Adaptation can leave α = 1 − 1e-16 on the only hop in use: q_i = α·(p + q_j) is
        // then a rounding step below q_j when p = 0, which must not flag the router
        // improper (it would block its neighbours from it for good).
        let mut t = DestTable::new(vec![
            row(1, 0.9999999999999999, 0.04992),
            row(2, 0.0, f64::INFINITY),
        ]);
        assert!(t.q < 0.04992);
        assert!(!t.improper);
        t.rows[0].q_nbr = 0.06;
        t.rows[0].alpha = 0.5;
        t.rows[1] = row(2, 0.5, 0.01);
        t.recompute();
        assert!(t.improper, "a hop in use above q_i is uphill");
    }

    #[test]
    fn node_price_is_the_split_weighted_route_metric() {
        let mut t = DestTable::new(vec![
            row(1, 0.25, 0.1),
            row(2, 0.75, 0.02),
            row(3, 0.0, 9.0),
        ]);
        t.rows[0].price = 0.02;
        t.recompute();
        // 0.25·(0.02 + 0.1) + 0.75·0.02 = 0.045
        assert!((t.q - 0.045).abs() < 1e-12);
        // Next hop 1 (q = 0.1) is uphill from q_i = 0.045: improper.
        assert!(t.improper);
        t.rows[0].alpha = 0.0;
        t.rows[1].alpha = 1.0;
        t.recompute();
        assert!(!t.improper);
        assert_eq!(t.sole_next_hop(), Some(2));
    }

    #[test]
    fn adaptation_moves_beta_dt_gap_to_the_cheapest() {
        let mut t = DestTable::new(vec![row(1, 1.0, 0.1), row(2, 0.0, 0.02)]);
        assert!(t.adapt(0.5, 0.5));
        // 0.5 · 0.5 · (0.1 − 0.02) = 0.02 moves.
        assert!((t.rows[0].alpha - 0.98).abs() < 1e-12);
        assert!((t.rows[1].alpha - 0.02).abs() < 1e-12);
        // Sum kept, and a large gap is clipped at the split.
        t.rows[0].q_nbr = 100.0;
        t.adapt(0.5, 0.5);
        assert_eq!((t.rows[0].alpha, t.rows[1].alpha), (0.0, 1.0));
    }

    #[test]
    fn blocked_neighbours_get_nothing_but_keep_their_share_rules() {
        // Neighbour 2 is cheaper but improper and unused: blocked, so nothing moves.
        let mut t = DestTable::new(vec![row(1, 1.0, 0.1), row(2, 0.0, 0.02)]);
        t.rows[1].nbr_improper = true;
        assert!(!t.adapt(0.5, 0.5));
        assert_eq!(t.rows[0].alpha, 1.0);
        // Once it carries traffic it is no longer blocked and can receive more.
        t.rows[0].alpha = 0.9;
        t.rows[1].alpha = 0.1;
        assert!(t.adapt(0.5, 0.5));
        assert!(t.rows[1].alpha > 0.1);
    }

    #[test]
    fn an_unused_neighbour_must_be_strictly_downhill() {
        // All prices zero (the start): nobody may start sending anywhere new.
        let mut t = DestTable::new(vec![row(1, 1.0, 0.0), row(2, 0.0, 0.0)]);
        t.rows[0].price = 0.001;
        assert!(
            !t.adapt(0.5, 0.5),
            "q_2 = 0 is not below q_i = 0 at the last recompute"
        );
        t.recompute();
        assert!(t.adapt(0.5, 0.5), "now q_i = 1 ms > q_2 = 0");
    }

    #[test]
    fn infinite_metric_loses_its_whole_share_and_ties_split_equally() {
        let mut t = DestTable::new(vec![
            row(1, 0.6, f64::INFINITY),
            row(2, 0.4, 0.1),
            row(3, 0.0, 0.1),
        ]);
        assert!(t.q.is_infinite());
        t.adapt(0.5, 0.5);
        assert_eq!(t.rows[0].alpha, 0.0);
        assert!((t.rows[1].alpha - 0.7).abs() < 1e-12);
        assert!((t.rows[2].alpha - 0.3).abs() < 1e-12);
    }

    #[test]
    fn forwarding_walks_the_cumulative_split() {
        let t = DestTable::new(vec![row(1, 0.2, 0.0), row(2, 0.0, 0.0), row(3, 0.8, 0.0)]);
        assert_eq!(t.choose(0.0), Some(LinkId(1)));
        assert_eq!(t.choose(0.1999), Some(LinkId(1)));
        assert_eq!(t.choose(0.2), Some(LinkId(3)));
        assert_eq!(t.choose(0.99999), Some(LinkId(3)));
    }
}
