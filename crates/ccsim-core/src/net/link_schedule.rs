//! Time-varying links: a rate schedule (`rate_schedule`) or a packet-delivery trace in
//! Mahimahi's format (`delivery_trace`), and the departure computation of the fast link
//! model for them.
//!
//! The fast model fixes a packet's future when the link accepts it (`net::link`); a
//! scheduled link only replaces `finish = start + size / rate` by a walk over the schedule
//! from `start`, so no event exists per rate step or per delivery opportunity. `start` is
//! `max(arrival, previous finish)` as on a fixed-rate link: the link serves its FIFO
//! without idling while it holds a packet, so queue limits, occupancy and the queueing
//! delay (entering the link to `start`) keep their meaning.
//!
//! Mahimahi's trace semantics (`mm-link`, src/frontend/link_queue.cc in
//! github.com/ravinet/mahimahi, `LinkQueue::rationalize` and `use_a_delivery_opportunity`):
//! each line is a millisecond timestamp, non-decreasing, the last one above zero; each is
//! one opportunity to deliver `PACKET_SIZE` bytes (1504 there, the TUN payload: link_queue.hh
//! line 19; 1500 bytes of IP packet here, [`TRACE_BYTES`]). A packet takes bytes from
//! successive opportunities until it is complete and leaves at the opportunity that
//! completes it; bytes an opportunity has left go to the next queued packet; an opportunity
//! with no packet queued is lost. Opportunities at the time a packet arrives are used
//! before it is queued (`rationalize(now)` runs before the enqueue in `read_packet`), so a
//! packet waits for a later one. At the end the trace repeats, shifted by its last
//! timestamp (`base_timestamp_ += schedule_.back()`).

use crate::units::{Rate, SimTime, NS_PER_SEC};

/// Bytes one delivery opportunity of a trace carries: an MTU-sized (1500-byte) packet.
pub const TRACE_BYTES: u64 = 1500;

const NS_PER_MS: u64 = 1_000_000;

/// A link's capacity over time.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkSchedule {
    /// Piecewise-constant rate: `base` until the first step, then each step's rate from its
    /// time on (times strictly increasing; the last rate holds to the end of the run).
    Steps {
        /// The rate before the first step (the link's `rate`).
        base: Rate,
        /// (time, rate) steps.
        steps: Vec<(SimTime, Rate)>,
    },
    /// A Mahimahi packet-delivery trace, repeated.
    Trace(DeliveryTrace),
}

/// A packet-delivery trace: opportunities at `ms[k]` milliseconds, repeated every
/// `period_ms` (the last timestamp).
#[derive(Clone, Debug, PartialEq)]
pub struct DeliveryTrace {
    /// The opportunities' times within one repetition (ms, non-decreasing).
    pub ms: Vec<u64>,
}

impl DeliveryTrace {
    /// A trace from the text of a trace file: one integer millisecond timestamp per line.
    /// Errors name the line (1-based) and say what is wrong.
    pub fn parse(text: &str) -> Result<DeliveryTrace, String> {
        let mut ms: Vec<u64> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                // A final newline is fine; an empty line inside the trace is not (Mahimahi
                // refuses it too).
                if text.lines().skip(i).all(|l| l.trim().is_empty()) {
                    break;
                }
                return Err(format!("line {}: empty line", i + 1));
            }
            let t: u64 = line.parse().map_err(|_| {
                format!(
                    "line {}: \"{}\" is not a whole number of milliseconds",
                    i + 1,
                    crate::params::text::shorten(line)
                )
            })?;
            if ms.last().is_some_and(|&p| t < p) {
                return Err(format!(
                    "line {}: {t} ms is before the previous timestamp ({} ms); timestamps must not decrease",
                    i + 1,
                    ms[ms.len() - 1]
                ));
            }
            if t > u64::MAX / NS_PER_MS / 4 {
                return Err(format!("line {}: {t} ms is too large", i + 1));
            }
            ms.push(t);
        }
        match ms.last() {
            None => Err("no timestamps: a trace has one millisecond timestamp per line".into()),
            Some(0) => Err("the trace must last a nonzero time (its last timestamp is 0)".into()),
            Some(_) => Ok(DeliveryTrace { ms }),
        }
    }

    /// The period (ms): the trace repeats after its last timestamp.
    pub fn period_ms(&self) -> u64 {
        *self.ms.last().expect("a trace has timestamps")
    }

    /// The mean rate the trace offers (bit/s, rounded down, at least 1).
    pub fn mean_rate(&self) -> Rate {
        let bits = self.ms.len() as u128 * TRACE_BYTES as u128 * 8 * 1000;
        Rate(((bits / self.period_ms() as u128) as u64).max(1))
    }

    /// The time of opportunity `j` (counted over the repetitions).
    fn time(&self, j: u64) -> u64 {
        let n = self.ms.len() as u64;
        ((j / n) * self.period_ms() + self.ms[(j % n) as usize]) * NS_PER_MS
    }

    /// The first opportunity strictly after `t` (ns).
    fn first_after(&self, t: u64) -> u64 {
        let n = self.ms.len() as u64;
        let period_ns = self.period_ms() * NS_PER_MS;
        let cycle = t / period_ns;
        let base = cycle * period_ns;
        let k = self.ms.partition_point(|&m| base + m * NS_PER_MS <= t) as u64;
        // k == n: every opportunity of this repetition is at or before `t`; the next
        // repetition's first is after it (it starts at (cycle + 1) · period > t).
        cycle * n + k
    }

    /// Opportunities in `[from, until)` (ns), for the capacity over a window.
    fn count_in(&self, from: u64, until: u64) -> u64 {
        let before = |t: u64| if t == 0 { 0 } else { self.first_after(t - 1) };
        before(until).saturating_sub(before(from))
    }
}

/// The transmitter's state on a scheduled link: where the previous packet finished.
#[derive(Clone, Debug)]
pub struct ScheduledTx {
    /// The schedule.
    pub schedule: std::sync::Arc<LinkSchedule>,
    /// (Trace) the opportunity that completed the previous packet, and its bytes left.
    opportunity: u64,
    left: u64,
}

impl ScheduledTx {
    /// A transmitter that has sent nothing yet.
    pub fn new(schedule: std::sync::Arc<LinkSchedule>) -> ScheduledTx {
        ScheduledTx {
            schedule,
            opportunity: 0,
            left: 0,
        }
    }

    /// When a packet of `size` bytes that reached the link at `at` has been transmitted,
    /// `busy_until` being when the previous packet's transmission ended. (Its
    /// transmission starts at `max(at, busy_until)`.)
    pub fn finish(&mut self, at: SimTime, busy_until: SimTime, size: u32) -> SimTime {
        let start = at.max(busy_until);
        match &*self.schedule {
            LinkSchedule::Steps { base, steps } => steps_finish(*base, steps, start, size),
            LinkSchedule::Trace(tr) => {
                let mut need = size as u64;
                // Queued before the opportunity that completed the previous packet: it
                // takes that opportunity's bytes left; otherwise the next opportunity.
                let (mut j, mut avail) = if at < busy_until {
                    if self.left > 0 {
                        (self.opportunity, self.left)
                    } else {
                        (self.opportunity + 1, TRACE_BYTES)
                    }
                } else {
                    (tr.first_after(start.0), TRACE_BYTES)
                };
                while need > avail {
                    need -= avail;
                    j += 1;
                    avail = TRACE_BYTES;
                }
                self.opportunity = j;
                self.left = avail - need;
                SimTime(tr.time(j))
            }
        }
    }
}

/// The end of a transmission of `size` bytes from `start` under a stepped rate: the bits
/// are served at each segment's rate in turn (rounded up to a whole nanosecond at the end,
/// as `Rate::tx_time` does: a constant schedule equals a fixed-rate link exactly).
fn steps_finish(base: Rate, steps: &[(SimTime, Rate)], start: SimTime, size: u32) -> SimTime {
    // Work in bit·ns: a rate of r bit/s serves r bit·ns per ns.
    let mut work = size as u128 * 8 * NS_PER_SEC as u128;
    let mut t = start.0;
    let mut i = steps.partition_point(|s| s.0 .0 <= t);
    loop {
        let r = if i == 0 { base } else { steps[i - 1].1 }.0 as u128;
        let end = steps.get(i).map_or(u64::MAX, |s| s.0 .0);
        if r > 0 {
            let cap = r * (end - t) as u128;
            if work <= cap {
                return SimTime(t + work.div_ceil(r) as u64);
            }
            work -= cap;
        }
        t = end;
        i += 1;
    }
}

impl LinkSchedule {
    /// Bits the link could carry in `[from, until)` (ns), for its utilisation.
    pub fn capacity_bits(&self, from: SimTime, until: SimTime) -> f64 {
        if until <= from {
            return 0.0;
        }
        match self {
            LinkSchedule::Steps { base, steps } => {
                let mut bits = 0.0;
                let mut t = from.0;
                let mut i = steps.partition_point(|s| s.0 .0 <= t);
                while t < until.0 {
                    let r = if i == 0 { *base } else { steps[i - 1].1 };
                    let end = steps.get(i).map_or(until.0, |s| s.0 .0.min(until.0));
                    bits += r.as_f64() * (end - t) as f64 / NS_PER_SEC as f64;
                    t = end;
                    i += 1;
                }
                bits
            }
            LinkSchedule::Trace(tr) => (tr.count_in(from.0, until.0) * TRACE_BYTES * 8) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;
    use std::sync::Arc;

    fn ms(v: u64) -> SimTime {
        SimTime(v * NS_PER_MS)
    }

    fn trace(ms: &[u64]) -> ScheduledTx {
        ScheduledTx::new(Arc::new(LinkSchedule::Trace(DeliveryTrace {
            ms: ms.to_vec(),
        })))
    }

    /// A saturated FIFO: `n` packets of `size` all queued at 0; their finish times.
    fn back_to_back(tx: &mut ScheduledTx, n: usize, size: u32) -> Vec<SimTime> {
        let mut busy = SimTime::ZERO;
        (0..n)
            .map(|_| {
                busy = tx.finish(SimTime::ZERO, busy, size);
                busy
            })
            .collect()
    }

    #[test]
    fn constant_schedule_equals_a_fixed_rate_link() {
        let rate = Rate(7_000_003);
        let sched = Arc::new(LinkSchedule::Steps {
            base: rate,
            steps: vec![],
        });
        let mut tx = ScheduledTx::new(sched);
        let mut busy = SimTime::ZERO;
        for (at, size) in [(0, 1500), (10, 40), (2_000_000, 1500), (2_000_001, 999)] {
            let start = SimTime(at).max(busy);
            let want = start + rate.tx_time(Bytes(size as u64));
            busy = tx.finish(SimTime(at), busy, size);
            assert_eq!(busy, want);
        }
    }

    #[test]
    fn a_step_changes_the_rate_at_the_right_packet() {
        // 12 Mb/s (1 ms per 1500 B) until 5 ms, then 6 Mb/s (2 ms per 1500 B).
        let sched = Arc::new(LinkSchedule::Steps {
            base: Rate(12_000_000),
            steps: vec![(ms(5), Rate(6_000_000))],
        });
        let mut tx = ScheduledTx::new(sched);
        let got = back_to_back(&mut tx, 7, 1500);
        let want: Vec<SimTime> = [1, 2, 3, 4, 5, 7, 9].iter().map(|&m| ms(m)).collect();
        assert_eq!(got, want);
        // A packet straddling the step: half its bits at each rate.
        let sched = Arc::new(LinkSchedule::Steps {
            base: Rate(12_000_000),
            steps: vec![(SimTime(500_000), Rate(6_000_000))],
        });
        let mut tx = ScheduledTx::new(sched);
        assert_eq!(
            tx.finish(SimTime::ZERO, SimTime::ZERO, 1500),
            SimTime(1_500_000)
        );
    }

    #[test]
    fn constant_rate_trace_paces_like_a_fixed_rate_link() {
        // One opportunity per ms = 12 Mb/s of 1500-byte packets: a saturated queue leaves
        // one packet per ms, as a 12 Mb/s link does.
        let mut tx = trace(&[1]);
        let got = back_to_back(&mut tx, 5, 1500);
        let fixed: Vec<SimTime> = (1..=5)
            .map(|k| SimTime(k * Rate(12_000_000).tx_time(Bytes(1500)).0))
            .collect();
        assert_eq!(got, fixed);
        assert_eq!(DeliveryTrace { ms: vec![1] }.mean_rate(), Rate(12_000_000));
    }

    #[test]
    fn trace_shares_and_loses_opportunities_as_mahimahi_does() {
        let mut tx = trace(&[2, 4, 6, 8, 10]);
        // Two 750-byte packets queued together share the opportunity at 2 ms.
        let a = tx.finish(SimTime::ZERO, SimTime::ZERO, 750);
        let b = tx.finish(SimTime::ZERO, a, 750);
        assert_eq!((a, b), (ms(2), ms(2)));
        // A 2000-byte packet queued behind them takes the opportunities at 4 and 6 ms.
        let c = tx.finish(SimTime::ZERO, b, 2000);
        assert_eq!(c, ms(6));
        // The 1000 bytes left at 6 ms are lost when the next packet arrives at 6 ms or
        // later (an opportunity at the arrival time is used before the packet is queued).
        let d = tx.finish(ms(6), c, 100);
        assert_eq!(d, ms(8));
        // Arriving between opportunities: the next one.
        let e = tx.finish(SimTime(8_500_000), d, 1500);
        assert_eq!(e, ms(10));
    }

    #[test]
    fn trace_wraps_around_shifted_by_its_last_timestamp() {
        let mut tx = trace(&[0, 3, 3, 5]);
        // Repetition c has opportunities at 5c, 5c+3, 5c+3, 5c+5 ms.
        let got = back_to_back(&mut tx, 9, 1500);
        // The first packet arrives at 0: the opportunity at 0 is not for it.
        let want: Vec<SimTime> = [3, 3, 5, 5, 8, 8, 10, 10, 13]
            .iter()
            .map(|&m| ms(m))
            .collect();
        assert_eq!(got, want);
        assert_eq!(tx.finish(ms(1003), ms(10), 1500), ms(1005));
        let tr = DeliveryTrace {
            ms: vec![0, 3, 3, 5],
        };
        assert_eq!(tr.count_in(0, 5 * NS_PER_MS), 3);
        assert_eq!(tr.count_in(0, 5 * NS_PER_MS + 1), 5);
    }

    #[test]
    fn trace_files_are_checked_line_by_line() {
        assert_eq!(DeliveryTrace::parse("1\n2\n2\n").unwrap().ms, vec![1, 2, 2]);
        assert!(DeliveryTrace::parse("1\n\n2\n")
            .unwrap_err()
            .contains("line 2"));
        assert!(DeliveryTrace::parse("1\nx\n")
            .unwrap_err()
            .contains("line 2"));
        assert!(DeliveryTrace::parse("3\n2\n")
            .unwrap_err()
            .contains("must not decrease"));
        assert!(DeliveryTrace::parse("")
            .unwrap_err()
            .contains("no timestamps"));
        assert!(DeliveryTrace::parse("0\n0\n")
            .unwrap_err()
            .contains("nonzero"));
    }

    #[test]
    fn capacity_over_a_window() {
        let s = LinkSchedule::Steps {
            base: Rate(1_000_000),
            steps: vec![(ms(1000), Rate(3_000_000))],
        };
        assert_eq!(s.capacity_bits(ms(500), ms(1500)), 2_000_000.0);
    }
}
