//! The self-check: recompute every verdict and departure of a log from its arrivals alone,
//! and compare. The recomputation is written independently of `model::LinkModel` (it counts
//! the system's occupancy by scanning the admitted packets' transmission ends, and applies
//! Lindley's recursion start = max(arrival, previous end) directly), so a slip in the live
//! event loop — a packet modelled out of order, at the wrong time, or with the wrong delay —
//! shows as a mismatch. It also reports the emulator's timing error: how much later than its
//! logical departure each frame was actually written out.

use crate::log::{Record, RunParams};
use crate::model::{stream_seed, Rng, Verdict};

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Lag {
    /// Frames written out (with a logical departure to compare against).
    pub n: usize,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    /// Frames written out before their logical departure (must be 0).
    pub early: usize,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Report {
    pub packets: [usize; 2],
    pub sent: [usize; 2],
    pub lost: usize,
    pub overflow: [usize; 2],
    /// Packets whose logged verdict or times differ from the recomputation.
    pub mismatches: usize,
    /// Packets modelled before one that entered the queue earlier (same direction).
    pub order_violations: usize,
    /// Human-readable descriptions of the first few problems.
    pub first_problems: Vec<String>,
    pub lag: Lag,
}

impl Report {
    pub fn exact(&self) -> bool {
        self.mismatches == 0 && self.order_violations == 0 && self.lag.early == 0
    }
}

pub fn replay(params: &RunParams, records: &[Record]) -> Report {
    let mut rep = Report::default();
    let mut rng = [
        Rng::new(stream_seed(params.seed, 0)),
        Rng::new(stream_seed(params.seed, 1)),
    ];
    let mut ends: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    let mut last_in = [0u64; 2];
    let mut lags = Vec::with_capacity(records.len());
    let problem = |rep: &mut Report, s: String| {
        if rep.first_problems.len() < 5 {
            rep.first_problems.push(s);
        }
    };
    for (i, r) in records.iter().enumerate() {
        let d = r.dir;
        let p = &params.links[d];
        rep.packets[d] += 1;
        let t_in = r.t_in();
        if t_in < last_in[d] {
            rep.order_violations += 1;
            problem(
                &mut rep,
                format!(
                    "record {i}: enters at {t_in} ns, before the previous packet ({} ns)",
                    last_in[d]
                ),
            );
        }
        last_in[d] = last_in[d].max(t_in);
        let lost = p.loss > 0.0 && rng[d].uniform() < p.loss;
        let expected = if lost {
            Verdict::Lost
        } else {
            // packets whose transmission has not ended by t_in: scan back over the
            // (non-decreasing) ends until one has ended.
            let busy = ends[d].iter().rev().take_while(|&&e| e > t_in).count();
            if busy >= p.limit {
                Verdict::Overflow
            } else {
                let start = ends[d].last().map_or(t_in, |&e| e.max(t_in));
                let tx_end = start + p.ser_ns(r.size);
                ends[d].push(tx_end);
                Verdict::Sent {
                    tx_end,
                    deliver: tx_end + p.prop_ns + r.after(),
                }
            }
        };
        match expected {
            Verdict::Lost => rep.lost += 1,
            Verdict::Overflow => rep.overflow[d] += 1,
            Verdict::Sent { .. } => rep.sent[d] += 1,
        }
        if expected != r.verdict {
            rep.mismatches += 1;
            problem(
                &mut rep,
                format!(
                    "record {i} (dir {d}, arrival {} ns): logged {:?}, model {:?}",
                    r.arrival, r.verdict, expected
                ),
            );
        }
        if let (Verdict::Sent { deliver, .. }, Some(sent)) = (r.verdict, r.sent) {
            if sent < deliver {
                rep.lag.early += 1;
                problem(
                    &mut rep,
                    format!("record {i}: written at {sent} ns, before its departure {deliver} ns"),
                );
            }
            lags.push(sent.saturating_sub(deliver));
        }
    }
    lags.sort_unstable();
    let q = |f: f64| {
        lags.get(((lags.len() as f64 - 1.0) * f).round() as usize)
            .copied()
            .unwrap_or(0)
    };
    rep.lag.n = lags.len();
    rep.lag.p50_ns = q(0.5);
    rep.lag.p99_ns = q(0.99);
    rep.lag.max_ns = lags.last().copied().unwrap_or(0);
    rep
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{ACK, DATA};
    use crate::model::{LinkModel, LinkParams};

    const MS: u64 = 1_000_000;

    fn params(limit: usize, loss: f64) -> RunParams {
        let l = LinkParams {
            rate_bps: 10_000_000,
            prop_ns: 20 * MS,
            limit,
            loss,
        };
        RunParams {
            links: [l, LinkParams { loss: 0.0, ..l }],
            seed: 11,
            t0_mono_ns: 0,
        }
    }

    /// A synthetic arrival trace: bursts of data from two flows (one with a 20 ms access
    /// delay), ACKs the other way, run through the live model in entrance order as the
    /// emulator's event loop does, then logged with a small, positive send lag.
    fn synthetic(p: &RunParams) -> Vec<Record> {
        let mut rng = Rng::new(5);
        let mut arrivals = Vec::new();
        let mut t = 0u64;
        for k in 0..4000u64 {
            t += rng.next_u64() % (2 * MS); // mean 1 ms: overloads a 10 Mb/s link (1.2 ms/pkt)
            let flow = (k % 3 == 0) as u64;
            arrivals.push((DATA, t, flow * 20 * MS, 1500u32, 5001 + flow as u16));
            if k % 2 == 0 {
                arrivals.push((ACK, t + 300, flow * 20 * MS, 52, 5201));
            }
        }
        // the event loop models each packet when it enters the queue
        let mut order: Vec<usize> = (0..arrivals.len()).collect();
        let t_in = |a: &(usize, u64, u64, u32, u16)| if a.0 == DATA { a.1 + a.2 } else { a.1 };
        order.sort_by_key(|&i| (t_in(&arrivals[i]), i));
        let mut links = [
            LinkModel::new(p.links[0], stream_seed(p.seed, 0)),
            LinkModel::new(p.links[1], stream_seed(p.seed, 1)),
        ];
        order
            .into_iter()
            .map(|i| {
                let (dir, arrival, extra, size, port) = arrivals[i];
                let after = if dir == DATA { 0 } else { extra };
                let verdict = links[dir].offer(t_in(&arrivals[i]), size, after);
                let sent = match verdict {
                    Verdict::Sent { deliver, .. } => Some(deliver + 20_000 + (i as u64 % 7) * 1000),
                    _ => None,
                };
                Record {
                    dir,
                    arrival,
                    extra,
                    size,
                    sport: port,
                    dport: 5201,
                    verdict,
                    sent,
                }
            })
            .collect()
    }

    #[test]
    fn a_synthetic_trace_replays_exactly_with_losses_and_overflows() {
        let p = params(8, 0.01);
        let recs = synthetic(&p);
        let rep = replay(&p, &recs);
        assert!(rep.exact(), "{rep:?}");
        assert_eq!(rep.packets, [4000, 2000]);
        assert!(rep.lost > 10 && rep.overflow[0] > 100, "{rep:?}");
        assert_eq!(rep.sent[0] + rep.lost + rep.overflow[0], 4000);
        assert_eq!(rep.lag.n, rep.sent[0] + rep.sent[1]);
        assert_eq!(rep.lag.max_ns, 26_000);
        assert!(rep.lag.p50_ns >= 20_000);
    }

    #[test]
    fn a_wrong_departure_a_wrong_drop_and_a_reordering_are_each_caught() {
        let p = params(8, 0.01);
        let good = synthetic(&p);
        let sent_at = good
            .iter()
            .position(|r| matches!(r.verdict, Verdict::Sent { .. }) && r.dir == DATA)
            .unwrap();

        let mut late = good.clone();
        if let Verdict::Sent { tx_end, deliver } = late[sent_at].verdict {
            late[sent_at].verdict = Verdict::Sent {
                tx_end: tx_end + 1,
                deliver: deliver + 1,
            };
        }
        assert_eq!(replay(&p, &late).mismatches, 1);

        let mut dropped = good.clone();
        dropped[sent_at].verdict = Verdict::Overflow;
        assert!(replay(&p, &dropped).mismatches >= 1);

        let mut swapped = good.clone();
        let j = (1..swapped.len())
            .find(|&j| {
                swapped[j].dir == DATA
                    && swapped[j - 1].dir == DATA
                    && swapped[j].t_in() > swapped[j - 1].t_in()
            })
            .unwrap();
        swapped.swap(j - 1, j);
        let rep = replay(&p, &swapped);
        assert!(rep.order_violations >= 1 && !rep.exact());

        let mut early = good.clone();
        if let Verdict::Sent { deliver, .. } = early[sent_at].verdict {
            early[sent_at].sent = Some(deliver - 1);
        }
        assert_eq!(replay(&p, &early).lag.early, 1);

        // another seed gives other losses: the log no longer replays
        let other = RunParams {
            seed: 12,
            ..p.clone()
        };
        assert!(replay(&other, &good).mismatches > 0);
    }

    #[test]
    fn queue_limit_one_packet_more_or_less_is_caught() {
        let p = params(8, 0.0);
        let recs = synthetic(&p);
        assert!(replay(&p, &recs).exact());
        assert!(replay(&params(9, 0.0), &recs).mismatches > 0);
        assert!(replay(&params(7, 0.0), &recs).mismatches > 0);
    }
}
