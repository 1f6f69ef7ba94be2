//! MATCP path selection (Dimopoulos, Zeephongsekul & Tari, ISCC 2006, §2.2.1): a TCP source
//! with P labelled paths picks one at the start of each flow (connection) from statistics
//! learned from its own past flows; the whole flow stays on it, so nothing is reordered.
//!
//! Selectors:
//! - **Drop**: fewest drops; **RTT variation**: smallest queueing delay (smoothed RTT at the
//!   end of the last flow on the path minus the path's minimum RTT); **RTT**: smallest
//!   smoothed RTT. These three use the refresh constant R: after R consecutive flows on the
//!   same path every metric is zeroed, and a zeroed (unmeasured) path ranks below every
//!   measured one, which forces re-probing. Ties go to the least recently used path (then
//!   uniformly at random): with random tie-breaking the probes of consecutive refresh cycles
//!   could come in opposite orders and leave a path unused for R + 2(P − 1) flows; least
//!   recently used keeps every path probed at least once every R + P − 1 flows.
//! - **Weighted RTT**: path x with probability W_x = (RTT_total − RTT_x) / Σ_y (RTT_total −
//!   RTT_y) (the paper's equation (2), Table 1), RTT_total = Σ_y RTT_y; no refresh.
//!
//! Choices the paper leaves open (ALGORITHMS.md §3.2.2) are parameters of `SelectSpec`.

use crate::params::{Dflt, Kind, Kinds, Param, Ty};
use crate::rng::SimRng;
use crate::units::Dur;
use serde::{Deserialize, Serialize};

/// MATCP path selector (Dimopoulos et al. 2006, §2.2.1; ALGORITHMS.md §3.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SelectKind {
    /// Fewest drops.
    Drop,
    /// Smallest queueing delay (smoothed RTT at flow end − the path's minimum RTT).
    RttVar,
    /// Smallest smoothed RTT.
    Rtt,
    /// Random, with probability (RTT_total − RTT_x) / Σ_y (RTT_total − RTT_y).
    Wrtt,
}

/// What the Drop selector counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropMetric {
    /// Retransmitted segments since the last refresh (the default).
    #[default]
    Count,
    /// Retransmitted segments per segment sent since the last refresh.
    PerPacket,
}

/// Path selection parameters (declared in [`PARAMS`]; `kind` names the selector).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct SelectSpec {
    pub kind: SelectKind,
    pub refresh: u32,
    pub drop_metric: DropMetric,
}

/// The parameters of every selector.
pub const PARAMS: &[Param] = &[
    Param::new("refresh", Ty::Int { min: 1, max: 1 << 20 }, Dflt::Later("the number of paths"))
        .doc("refresh constant R: after R consecutive flows on one path every metric is zeroed (drop, rttvar, rtt)")
        .source("ALGORITHMS.md §3.2.2 item 3 (the paper leaves R open): the number of paths"),
    Param::choice("drop_metric", "count", &["count", "per_packet"])
        .doc("what the drop selector counts: retransmitted segments, or retransmissions per segment sent, since the last refresh")
        .source("the paper counts drops (ALGORITHMS.md §3.2.2)"),
];

const fn selector(name: &'static str, about: &'static str) -> Kind {
    Kind::new(name, about, &[PARAMS])
}

/// The selectors of a TCP flow's `select` (in `SelectKind` order).
pub const SELECT_KINDS: Kinds = Kinds {
    what: "path selector",
    list: || {
        static K: [Kind; 4] = [
            selector("drop", "fewest drops"),
            selector(
                "rttvar",
                "smallest queueing delay (smoothed RTT − minimum RTT)",
            ),
            selector("rtt", "smallest smoothed RTT"),
            selector(
                "wrtt",
                "random, weighted by RTT_total − RTT_x (the paper's eq. (2))",
            ),
        ];
        K.iter().collect()
    },
    note: "",
    number: None,
};

/// What a finished flow (connection) learned about its path.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowOutcome {
    /// Segments retransmitted by the flow (its loss events, as the sender sees them).
    pub retransmissions: u64,
    /// Data segments the flow sent.
    pub sent: u64,
    /// Smoothed RTT at the flow's end; `None` if it got no RTT sample.
    pub srtt: Option<Dur>,
    /// The flow's smallest RTT sample.
    pub min_rtt: Option<Dur>,
}

/// Per-path statistics of one source.
#[derive(Clone, Copy, Debug, Default)]
struct PathStats {
    /// Whether the metric below holds a measurement since the last refresh.
    measured: bool,
    /// Drops since the last refresh (or drops per packet sent).
    drops: f64,
    /// Segments sent since the last refresh (for the per-packet drop metric).
    sent: u64,
    /// Smoothed RTT at the end of the last flow (s).
    srtt: f64,
    /// Smallest RTT ever seen on the path (s); never reset, it estimates propagation.
    min_rtt: f64,
}

/// A source's path selector.
#[derive(Clone, Debug)]
pub struct PathSelector {
    spec: SelectSpec,
    paths: Vec<PathStats>,
    last: Option<usize>,
    run: u32,
    rng: SimRng,
    /// Flows started per path (index = path − 1).
    pub chosen: Vec<u64>,
    /// Number of the flow that last used each path (0: never).
    last_used: Vec<u64>,
    flows: u64,
}

impl PathSelector {
    /// A selector over `n` paths (numbered 1..=n) drawing from `rng`.
    pub fn new(spec: SelectSpec, n: usize, rng: SimRng) -> PathSelector {
        assert!(n >= 1, "a selector needs at least one path");
        PathSelector {
            spec,
            paths: vec![PathStats::default(); n],
            last: None,
            run: 0,
            rng,
            chosen: vec![0; n],
            last_used: vec![0; n],
            flows: 0,
        }
    }

    /// The current metric of each path (lower is better); `None` for unmeasured paths.
    pub fn metrics(&self) -> Vec<Option<f64>> {
        self.paths
            .iter()
            .map(|p| p.measured.then(|| self.metric(p)))
            .collect()
    }

    fn metric(&self, p: &PathStats) -> f64 {
        match self.spec.kind {
            SelectKind::Drop => match self.spec.drop_metric {
                DropMetric::Count => p.drops,
                DropMetric::PerPacket => p.drops / p.sent.max(1) as f64,
            },
            SelectKind::RttVar => (p.srtt - p.min_rtt).max(0.0),
            SelectKind::Rtt | SelectKind::Wrtt => p.srtt,
        }
    }

    /// The probabilities Weighted RTT would choose each path with now.
    pub fn wrtt_weights(&self) -> Vec<f64> {
        let n = self.paths.len();
        // Unmeasured paths count with RTT 0: the largest weight, so they get probed.
        let rtts: Vec<f64> = self
            .paths
            .iter()
            .map(|p| if p.measured { p.srtt } else { 0.0 })
            .collect();
        wrtt_weights(&rtts).unwrap_or_else(|| vec![1.0 / n as f64; n])
    }

    /// Pick the path (1-based) for a new flow.
    pub fn choose(&mut self) -> u8 {
        let i = match self.spec.kind {
            SelectKind::Wrtt => {
                let w = self.wrtt_weights();
                let u = self.rng.uniform();
                let mut acc = 0.0;
                let mut pick = w.len() - 1;
                for (k, x) in w.iter().enumerate() {
                    acc += x;
                    if u < acc {
                        pick = k;
                        break;
                    }
                }
                pick
            }
            _ => self.best(),
        };
        self.chosen[i] += 1;
        self.flows += 1;
        self.last_used[i] = self.flows;
        if self.spec.kind != SelectKind::Wrtt {
            self.run = if self.last == Some(i) {
                self.run + 1
            } else {
                1
            };
            if self.run >= self.spec.refresh {
                // "After a path has been used R times in a row, every path's [metric] is
                // set to zero" (§2.2.1); the minimum RTT estimates propagation and stays.
                for p in &mut self.paths {
                    let min_rtt = p.min_rtt;
                    *p = PathStats {
                        min_rtt,
                        ..PathStats::default()
                    };
                }
                self.run = 0;
            }
        }
        self.last = Some(i);
        (i + 1) as u8
    }

    /// The lowest-ranked path: unmeasured first, then by metric; ties to the least recently
    /// used, then uniformly at random.
    fn best(&mut self) -> usize {
        let key = |k: usize| {
            let p = &self.paths[k];
            let m = if p.measured {
                self.metric(p)
            } else {
                f64::NEG_INFINITY
            };
            (m, self.last_used[k])
        };
        let lo = (0..self.paths.len())
            .map(key)
            .min_by(|a, b| a.partial_cmp(b).expect("metrics are not NaN"))
            .expect("at least one path");
        let ties: Vec<usize> = (0..self.paths.len()).filter(|&k| key(k) == lo).collect();
        if ties.len() == 1 {
            ties[0]
        } else {
            ties[((self.rng.uniform() * ties.len() as f64) as usize).min(ties.len() - 1)]
        }
    }

    /// Learn from a finished flow on `path` (1-based).
    pub fn record(&mut self, path: u8, o: FlowOutcome) {
        let Some(p) = self.paths.get_mut(path as usize - 1) else {
            return;
        };
        if let Some(m) = o.min_rtt {
            let m = m.secs();
            p.min_rtt = if p.min_rtt > 0.0 { p.min_rtt.min(m) } else { m };
        }
        p.drops += o.retransmissions as f64;
        p.sent += o.sent;
        match o.srtt {
            Some(s) => {
                p.srtt = s.secs();
                p.measured = true;
            }
            // A flow too short for an RTT sample still counts its drops.
            None if o.sent > 0 && self.spec.kind == SelectKind::Drop => p.measured = true,
            None => {}
        }
    }
}

/// Weighted-RTT probabilities for the given RTTs (equation (2)); `None` when they are
/// undefined (fewer than two paths, or every RTT zero).
pub fn wrtt_weights(rtts: &[f64]) -> Option<Vec<f64>> {
    let n = rtts.len();
    let total: f64 = rtts.iter().sum();
    if n < 2 || total <= 0.0 {
        return None;
    }
    let denom: f64 = rtts.iter().map(|r| total - r).sum();
    Some(rtts.iter().map(|r| (total - r) / denom).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: SelectKind, refresh: u32) -> SelectSpec {
        SelectSpec {
            kind,
            refresh,
            drop_metric: DropMetric::Count,
        }
    }

    fn outcome(srtt_ms: u64, min_ms: u64, retx: u64) -> FlowOutcome {
        FlowOutcome {
            retransmissions: retx,
            sent: 100,
            srtt: Some(Dur::from_millis(srtt_ms)),
            min_rtt: Some(Dur::from_millis(min_ms)),
        }
    }

    #[test]
    fn weighted_rtt_reproduces_table_1() {
        let w = wrtt_weights(&[100.0, 115.0, 111.0]).unwrap();
        for (x, num) in w.iter().zip([226.0, 211.0, 215.0]) {
            assert!((x - num / 652.0).abs() < 1e-12, "{x} vs {num}/652");
        }
        assert!(wrtt_weights(&[100.0]).is_none());
    }

    #[test]
    fn weighted_rtt_draws_with_those_probabilities() {
        let mut s = PathSelector::new(spec(SelectKind::Wrtt, 4), 3, SimRng::stream(1, "t"));
        for (k, ms) in [100, 115, 111].into_iter().enumerate() {
            s.record(k as u8 + 1, outcome(ms, ms, 0));
        }
        let n = 200_000;
        let mut count = [0u32; 3];
        for _ in 0..n {
            count[s.choose() as usize - 1] += 1;
        }
        for (c, num) in count.iter().zip([226.0, 211.0, 215.0]) {
            let p = *c as f64 / n as f64;
            assert!((p - num / 652.0).abs() < 0.005, "{p} vs {}", num / 652.0);
        }
    }

    #[test]
    fn unmeasured_paths_are_probed_before_measured_ones() {
        let mut s = PathSelector::new(spec(SelectKind::Rtt, 100), 4, SimRng::stream(2, "t"));
        let mut seen = [false; 4];
        for _ in 0..4 {
            let p = s.choose();
            assert!(
                !seen[p as usize - 1],
                "path {p} chosen twice before all were probed"
            );
            seen[p as usize - 1] = true;
            s.record(p, outcome(100 + p as u64, 100, 0));
        }
        // All measured: the smallest RTT (path 1) wins from now on.
        assert_eq!(s.choose(), 1);
        assert_eq!(s.choose(), 1);
    }

    #[test]
    fn every_path_is_probed_at_least_once_every_r_plus_p_flows() {
        for kind in [SelectKind::Drop, SelectKind::RttVar, SelectKind::Rtt] {
            for r in [1, 2, 4, 8] {
                let p = 4;
                let mut s = PathSelector::new(spec(kind, r), p, SimRng::stream(r as u64, "t"));
                let mut last_used = [0usize; 4];
                for flow in 1..=2000usize {
                    let x = s.choose();
                    last_used[x as usize - 1] = flow;
                    // Path 1 is always the best by a wide margin: only the refresh probes
                    // the others.
                    let o = if x == 1 {
                        outcome(100, 100, 0)
                    } else {
                        outcome(500, 100, 50)
                    };
                    s.record(x, o);
                    if flow >= r as usize + p {
                        for (k, &u) in last_used.iter().enumerate() {
                            assert!(
                                flow - u < r as usize + p,
                                "{kind:?} R={r}: path {} unused for {} flows",
                                k + 1,
                                flow - u
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn drop_selector_avoids_the_lossy_path_and_rttvar_the_queued_one() {
        let mut d = PathSelector::new(spec(SelectKind::Drop, 1000), 2, SimRng::stream(3, "t"));
        let mut v = PathSelector::new(spec(SelectKind::RttVar, 1000), 2, SimRng::stream(3, "t"));
        for _ in 0..2 {
            let x = d.choose();
            d.record(x, outcome(100, 100, if x == 1 { 9 } else { 1 }));
            let y = v.choose();
            // Path 1: long propagation, no queue; path 2: short propagation, 30 ms queue.
            v.record(
                y,
                if y == 1 {
                    outcome(200, 200, 0)
                } else {
                    outcome(130, 100, 0)
                },
            );
        }
        assert_eq!(d.choose(), 2);
        assert_eq!(v.choose(), 1, "RTT variation ignores propagation delay");
        assert_eq!(d.metrics(), vec![Some(9.0), Some(1.0)]);
    }

    #[test]
    fn the_refresh_keeps_each_paths_minimum_rtt() {
        // RTT variation = srtt at the end of the last flow − the smallest RTT the source has
        // ever seen on the path (ALGORITHMS.md §3.2.2 item 2): the refresh zeroes the metric
        // but the minimum estimates propagation and stays. With R = 1 every choice refreshes.
        let mut s = PathSelector::new(spec(SelectKind::RttVar, 1), 2, SimRng::stream(4, "t"));
        s.record(1, outcome(100, 100, 0));
        s.choose();
        assert_eq!(s.metrics()[0], None, "refreshed");
        // A later flow meets a standing queue: its own minimum is 150 ms, the path's stays
        // 100 ms, so the queueing delay is 160 − 100 = 60 ms.
        s.record(1, outcome(160, 150, 0));
        let v = s.metrics()[0].unwrap();
        assert!((v - 0.060).abs() < 1e-9, "{v}");
    }
}
