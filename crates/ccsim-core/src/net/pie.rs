//! PIE, Proportional Integral controller Enhanced (RFC 8033): a drop probability updated
//! every `t_update` from the queueing delay's distance to `target` (the proportional term,
//! weight α) and its change since the last update (the integral-like term, weight β), with
//! the RFC's auto-tuning of the step by the size of the probability (§4.2), a burst
//! allowance (§4.4), the step cap above 10 % (§5.3) and ECN marking below `mark_ecnth`
//! (§5.1). Arrivals are dropped (or marked) at random with that probability, at enqueue.
//!
//! Queueing delay. RFC 8033 §4.3 estimates it from the departure rate, or lets the
//! implementation measure it with timestamps; ccsim timestamps each packet at enqueue and
//! takes the delay of the last packet dequeued, as Linux's sch_pie does by default
//! (`dq_rate_estimator` off; `pie_process_dequeue` in net/sched/sch_pie.c, which also sets
//! the delay to 0 when the dequeue leaves the queue empty). A PIE link therefore runs the
//! dequeue-time link model (`net::link`, `Pipe::Sched`): exact by construction.
//!
//! The periodic update. The RFC runs `calculate_drop_prob` on a timer every `t_update`.
//! Between two packet events the queue and the measured delay do not change, so the
//! updates due up to an event are run, in order, when the event comes (`catch_up`), each
//! with the values it would have seen: the same sequence of probabilities as a timer, with
//! no timer event. An update due at the same instant as a packet event runs first.
//!
//! Not modelled: turning PIE off and on with the queue (§5.2) and derandomisation (§5.4),
//! both optional in the RFC; the random drop uses the link's `queue` stream.

use std::collections::VecDeque;

use crate::packet::{Packet, FLAG_CE};
use crate::params::{Bound, Dflt, Kind, Lit, Param, Ty};
use crate::results::DropCause;
use crate::rng::SimRng;
use crate::units::{Dur, SimTime};
use serde::{Deserialize, Serialize};

/// PIE's parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // declared, with doc and source, in PARAMS
pub struct PieSpec {
    pub target: Dur,
    pub t_update: Dur,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Dur,
    pub limit: u64,
    pub ecn: bool,
    pub mark_ecnth: f64,
}

impl Default for PieSpec {
    fn default() -> PieSpec {
        crate::params::defaults(PARAMS)
    }
}

/// PIE's parameter table.
pub const PARAMS: &[Param] = &[
    Param::positive_duration("target", "15ms")
        .doc("reference queueing delay (QDELAY_REF) the controller steers towards")
        .source("RFC 8033 §4.2 and §6 (15 ms)"),
    Param::positive_duration("t_update", "15ms")
        .doc("period of the drop-probability update (T_UPDATE)")
        .source("RFC 8033 §4.2 and §6 (15 ms)"),
    Param::float("alpha", 0.125, Bound::Incl(0.0), Bound::None)
        .doc("weight (Hz) of the delay's distance to target in each update")
        .source("RFC 8033 §4.2 and §6 (α = 0.125 Hz)"),
    Param::float("beta", 1.25, Bound::Incl(0.0), Bound::None)
        .doc("weight (Hz) of the delay's change since the previous update")
        .source("RFC 8033 §4.2 and §6 (β = 1.25 Hz)"),
    Param::duration("max_burst", "150ms")
        .doc("burst allowance: no random drop until this much time has passed since the queue was last quiet")
        .source("RFC 8033 §4.4 and §6 (MAX_BURST 150 ms)"),
    Param::new("limit", Ty::Packets { min: 1, max: u64::MAX }, Dflt::Value(Lit::Int(1000)))
        .doc("hard limit of the queue in packets (waiting plus the one in transmission); arrivals beyond it are dropped at the tail")
        .source("Linux sch_pie.c default limit 1000 packets (RFC 8033 leaves the buffer size open)"),
    Param::boolean("ecn", false)
        .doc("mark ECN-capable arrivals CE instead of dropping them while the drop probability is below mark_ecnth")
        .source("RFC 8033 §5.1; Linux sch_pie.c (ecn off by default)"),
    Param::float("mark_ecnth", 0.1, Bound::Incl(0.0), Bound::Incl(1.0))
        .doc("with ecn: above this drop probability ECN-capable packets are dropped too")
        .source("RFC 8033 §5.1 (10 %)"),
];

/// `queue = { kind = "pie" }`.
pub const KIND: Kind = Kind::new(
    "pie",
    "PIE: random early drop with a probability steered to a 15 ms queueing delay (RFC 8033)",
    &[PARAMS],
);

/// PIE state and its queue.
#[derive(Clone, Debug)]
pub struct Pie {
    p: PieSpec,
    queue: VecDeque<(Packet, SimTime)>,
    bytes: u64,
    /// Largest packet seen: the "2 × MEAN_PKTSIZE" of the work-conserving guard (Linux
    /// uses twice the MTU).
    maxpacket: u64,
    drop_prob: f64,
    /// Queueing delay of the last packet dequeued (0 once the queue emptied), seconds.
    qdelay: f64,
    qdelay_old: f64,
    /// Remaining burst allowance.
    burst_allowance: Dur,
    /// When the next periodic update is due.
    next_update: SimTime,
}

impl Pie {
    /// An empty PIE queue whose update timer started at time 0.
    pub fn new(p: PieSpec) -> Pie {
        Pie {
            p,
            queue: VecDeque::with_capacity(64),
            bytes: 0,
            maxpacket: 0,
            drop_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            burst_allowance: p.max_burst,
            next_update: SimTime::ZERO + p.t_update,
        }
    }

    /// Packets waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes of memory the queue takes.
    pub fn memory_bytes(&self) -> u64 {
        (self.queue.capacity() * std::mem::size_of::<(Packet, SimTime)>()) as u64
    }

    /// The current drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// The burst allowance left.
    pub fn burst_allowance(&self) -> Dur {
        self.burst_allowance
    }

    /// RFC 8033 §4.2 `calculate_drop_prob` (with §4.4's burst allowance and §5.3's cap),
    /// run once per `t_update` with the delay measured now.
    fn update(&mut self) {
        let target = self.p.target.secs();
        let cur = self.qdelay;
        let mut p = self.p.alpha * (cur - target) + self.p.beta * (cur - self.qdelay_old);
        // Auto-tuning (§4.2): the smaller the probability, the smaller its steps.
        let scale = match self.drop_prob {
            d if d < 1e-6 => 1.0 / 2048.0,
            d if d < 1e-5 => 1.0 / 512.0,
            d if d < 1e-4 => 1.0 / 128.0,
            d if d < 1e-3 => 1.0 / 32.0,
            d if d < 1e-2 => 1.0 / 8.0,
            d if d < 1e-1 => 1.0 / 2.0,
            _ => 1.0,
        };
        p *= scale;
        // §5.3: above 10 %, at most 2 % more per update.
        if self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        // §4.2: decay when the queue has been empty for two updates.
        if cur == 0.0 && self.qdelay_old == 0.0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        // §4.4: the allowance runs down while congested and is restored once quiet.
        self.burst_allowance = Dur(self.burst_allowance.0.saturating_sub(self.p.t_update.0));
        if self.drop_prob == 0.0 && cur < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.burst_allowance = self.p.max_burst;
        }
        self.qdelay_old = cur;
    }

    /// Run the periodic updates due by `now` (see the module notes).
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            self.update();
            self.next_update = self.next_update + self.p.t_update;
        }
    }

    /// RFC 8033 §4.1 `drop_early`: whether the arrival is a random-drop candidate.
    fn drop_early(&self, rng: &mut SimRng) -> bool {
        if self.burst_allowance > Dur::ZERO {
            return false; // §4.4
        }
        // Work-conserving guard: little delay and a small probability, or a nearly empty
        // queue.
        if (self.qdelay_old < self.p.target.secs() / 2.0 && self.drop_prob < 0.2)
            || self.bytes <= 2 * self.maxpacket
        {
            return false;
        }
        rng.bernoulli(self.drop_prob)
    }

    /// An arrival at `now`; `in_service` packets are on the transmitter (they count
    /// towards the limit). Returns whether it was marked CE, or why it is dropped.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        in_service: u64,
        rng: &mut SimRng,
    ) -> Result<bool, DropCause> {
        self.catch_up(now);
        if self.queue.len() as u64 + in_service >= self.p.limit {
            return Err(DropCause::QueueOverflow);
        }
        self.maxpacket = self.maxpacket.max(pkt.size as u64);
        let mut marked = false;
        if self.drop_early(rng) {
            // §5.1: mark instead of dropping while the probability is moderate.
            if self.p.ecn && pkt.is_ect() && self.drop_prob <= self.p.mark_ecnth {
                pkt.flags |= FLAG_CE;
                marked = true;
            } else {
                return Err(DropCause::Aqm);
            }
        }
        self.bytes += pkt.size as u64;
        self.queue.push_back((pkt, now));
        Ok(marked)
    }

    /// The head of the queue at `now`, with the time it entered; the delay it waited
    /// becomes the measured queueing delay.
    pub fn dequeue(&mut self, now: SimTime) -> Option<(Packet, SimTime)> {
        self.catch_up(now);
        let (pkt, enq) = self.queue.pop_front()?;
        self.bytes -= pkt.size as u64;
        self.qdelay = if self.queue.is_empty() {
            0.0
        } else {
            now.since(enq).secs()
        };
        Some((pkt, enq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{EndpointId, FlowId, NodeId};
    use crate::packet::{PacketKind, FLAG_ECT};

    fn pkt() -> Packet {
        Packet::new(PacketKind::Data, FlowId(0), NodeId(1), EndpointId(1), 1500)
    }

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }

    fn pie() -> Pie {
        Pie::new(PieSpec::default())
    }

    /// Hold the measured delay at `delay_ms` from `from` to `until` (ms): every ms one
    /// packet leaves that entered `delay_ms` earlier, and one more waits behind it (pushed
    /// directly: `enqueue` would run the random drop).
    fn hold_delay(p: &mut Pie, from: u64, until: u64, delay_ms: u64) {
        let entered = |t: u64| SimTime((t * 1_000_000).wrapping_sub(delay_ms * 1_000_000));
        p.queue.push_back((pkt(), entered(from)));
        p.bytes += 1500;
        for t in from..until {
            p.queue.push_back((pkt(), entered(t + 1)));
            p.bytes += 1500;
            p.dequeue(ms(t));
        }
    }

    #[test]
    fn defaults_are_the_rfcs() {
        let s = PieSpec::default();
        assert_eq!(s.target, Dur::from_millis(15));
        assert_eq!(s.t_update, Dur::from_millis(15));
        assert_eq!((s.alpha, s.beta), (0.125, 1.25));
        assert_eq!(s.max_burst, Dur::from_millis(150));
        assert_eq!(s.mark_ecnth, 0.1);
    }

    #[test]
    fn one_update_follows_the_control_law_with_auto_tuning() {
        // From p = 0 with qdelay_old = 0 and a measured delay of 30 ms:
        // Δp = (α·(0.030 − 0.015) + β·(0.030 − 0)) / 2048 (p < 10⁻⁶).
        let mut p = pie();
        p.qdelay = 0.030;
        p.update();
        let expect = (0.125 * 0.015 + 1.25 * 0.030) / 2048.0;
        assert!((p.drop_prob() - expect).abs() < 1e-15, "{}", p.drop_prob());
        // The next update with the same delay: the β term vanishes, and p is now in
        // [10⁻⁵, 10⁻⁴), so the step is divided by 128.
        let before = p.drop_prob();
        assert!((1e-5..1e-4).contains(&before));
        p.update();
        let step = 0.125 * 0.015 / 128.0;
        assert!((p.drop_prob() - before - step).abs() < 1e-15);
    }

    #[test]
    fn the_step_is_capped_at_two_percent_above_ten_percent() {
        let mut p = pie();
        p.drop_prob = 0.5;
        p.qdelay_old = 0.0;
        p.qdelay = 1.0; // Δp = 0.125·0.985 + 1.25 = 1.37 uncapped
        p.update();
        assert!((p.drop_prob() - 0.52).abs() < 1e-12);
    }

    #[test]
    fn an_idle_queue_decays_the_probability_by_two_percent_per_update() {
        let mut p = pie();
        p.drop_prob = 0.5;
        p.qdelay = 0.0;
        p.qdelay_old = 0.0;
        p.update();
        // Δp = α·(0 − 0.015) = −0.001875 (no scaling above 10 %), then × 0.98.
        assert!((p.drop_prob() - (0.5 - 0.125 * 0.015) * 0.98).abs() < 1e-12);
    }

    #[test]
    fn the_probability_stays_within_zero_and_one() {
        let mut p = pie();
        p.drop_prob = 0.995;
        p.qdelay = 5.0;
        p.update();
        assert_eq!(p.drop_prob(), 1.0);
        let mut p = pie();
        p.qdelay_old = 1.0;
        p.qdelay = 0.0;
        p.update();
        assert_eq!(p.drop_prob(), 0.0);
    }

    #[test]
    fn updates_run_every_t_update_without_a_timer() {
        // A delay held at 30 ms from 30 to 180 ms (measured from the dequeue at 30 ms on):
        // the updates at 45, 60, …, 180 ms all ran (ten of them) by the dequeue at 180 ms,
        // each seeing 30 ms; the updates at 15 and 30 ms saw no delay yet and did nothing.
        let mut a = pie();
        hold_delay(&mut a, 30, 181, 30);
        let mut b = pie();
        b.qdelay = 0.030;
        for _ in 0..10 {
            b.update();
        }
        assert_eq!(a.drop_prob(), b.drop_prob());
        assert_eq!(a.next_update, ms(195));
    }

    #[test]
    fn the_burst_allowance_runs_down_then_drops_start() {
        // §4.4: with max_burst = 150 ms and t_update = 15 ms, the allowance is gone after
        // ten updates of a congested queue; no arrival is dropped before.
        let mut p = pie();
        let mut rng = SimRng::stream(7, "pie");
        let mut first_drop = None;
        for t in 0..2000u64 {
            // Two arrivals and one departure per ms: the queue and its delay grow.
            for _ in 0..2 {
                if p.enqueue(ms(t), pkt(), 1, &mut rng) == Err(DropCause::Aqm)
                    && first_drop.is_none()
                {
                    first_drop = Some(t);
                }
            }
            p.dequeue(ms(t));
        }
        let t = first_drop.expect("PIE drops under a growing queue");
        assert!(t >= 150, "dropped at {t} ms, inside the burst allowance");
        assert_eq!(p.burst_allowance(), Dur::ZERO);
    }

    #[test]
    fn below_half_the_target_nothing_is_dropped() {
        // The work-conserving guard (§4.1): qdelay_old < target/2 and p < 0.2.
        let mut p = pie();
        p.burst_allowance = Dur::ZERO;
        p.drop_prob = 0.15;
        p.qdelay_old = 0.005;
        let mut rng = SimRng::stream(3, "pie");
        for i in 0..200 {
            p.enqueue(ms(0), pkt(), 1, &mut rng)
                .unwrap_or_else(|e| panic!("{i}: {e:?}"));
        }
    }

    #[test]
    fn ecn_capable_arrivals_are_marked_below_mark_ecnth_and_dropped_above() {
        let mut ect = pkt();
        ect.flags |= FLAG_ECT;
        let mut rng = SimRng::stream(5, "pie");
        let spec = PieSpec {
            ecn: true,
            ..PieSpec::default()
        };
        for (prob, marked) in [(0.08, true), (0.5, false)] {
            let mut p = Pie::new(spec);
            p.burst_allowance = Dur::ZERO;
            p.qdelay_old = 0.030;
            p.next_update = SimTime::NEVER;
            for _ in 0..20 {
                p.queue.push_back((pkt(), ms(0)));
                p.bytes += 1500;
            }
            p.drop_prob = prob;
            let (mut marks, mut drops) = (0, 0);
            for _ in 0..2000 {
                match p.enqueue(ms(0), ect, 1, &mut rng) {
                    Ok(marked) => {
                        marks += marked as u64;
                        // Keep the backlog as it was.
                        p.queue.pop_back();
                        p.bytes -= 1500;
                    }
                    Err(_) => drops += 1,
                }
            }
            if marked {
                assert!(marks > 100 && drops == 0, "{marks} {drops}");
            } else {
                assert!(drops > 800 && marks == 0, "{marks} {drops}");
            }
        }
    }

    #[test]
    fn the_delay_is_the_last_dequeued_packets_and_zero_once_empty() {
        let mut p = pie();
        let mut rng = SimRng::stream(1, "pie");
        p.enqueue(ms(0), pkt(), 0, &mut rng).unwrap();
        p.enqueue(ms(1), pkt(), 0, &mut rng).unwrap();
        p.dequeue(ms(4));
        assert!((p.qdelay - 0.004).abs() < 1e-12);
        p.dequeue(ms(6));
        assert_eq!(p.qdelay, 0.0);
        assert!(p.dequeue(ms(7)).is_none());
    }
}
