//! Westwood+ (Grieco & Mascolo, ACM CCR 2004; ALGORITHMS.md §1.6).
//!
//! Probing is Reno's (slow start, then about one MSS per RTT, counting bytes, or once per
//! ACK with `counting = "per_ack"` as ns-2's and ns-3's Westwood+, which inherit their
//! Reno agent's per-ACK increase). Westwood+
//! additionally estimates the bandwidth the flow gets and uses it to set ssthresh after a
//! loss, instead of halving:
//!
//! - **Sample**, once per round (`on_round`): bytes delivered in the round / round duration.
//!   Rounds shorter than `min_interval` (default 50 ms, Linux) are merged with the next ones
//!   until the interval is long enough, so ACK compression on short paths does not produce
//!   wild samples.
//! - **Filter** (`WestwoodFilter`, implemented once in `cc/bwe.rs` and shared with
//!   CMT-BERP): the first sample initialises the estimate (Linux); after that
//!   - `Ewma` (default, Grieco & Mascolo): b̂ ← 0.9·b̂ + 0.1·b;
//!   - `Linux`: two cascaded EWMAs of gain 7/8, s ← (7s + b)/8, b̂ ← (7b̂ + s)/8;
//!   - `Tustin` (ns-3): b̂ ← 0.9·b̂ + 0.1·(b + b_prev)/2.
//! - **Fast retransmit**: ssthresh = max(b̂·RTTmin, 2·MSS); cwnd = ssthresh if cwnd > ssthresh.
//! - **Timeout**: ssthresh likewise; cwnd = 1 MSS.
//!
//! RTTmin is the smallest RTT sample seen. Before the first estimate a loss is handled as
//! Reno (ssthresh = max(FlightSize/2, 2·MSS)).

use super::bwe::{BandwidthFilter, WestwoodFilter};
use super::reno::{reno_increase, Counting, COUNTING};
use super::{
    AckEvent, AnyCc, CcKind, CongestionControl, CongestionEvent, CongestionKind, RoundEvent,
};
use crate::params::{Kind, Param};
use crate::units::{Bytes, Dur, Rate};
use serde::{Deserialize, Serialize};

/// Westwood+ bandwidth-estimate parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct WestwoodSpec {
    pub filter: WestwoodFilter,
    pub min_interval: Dur,
    pub counting: Counting,
}

impl Default for WestwoodSpec {
    fn default() -> WestwoodSpec {
        crate::params::defaults(PARAMS)
    }
}

/// Westwood+'s parameter table.
pub const PARAMS: &[Param] = &[
    Param::choice("filter", "ewma", &["ewma", "linux", "tustin"])
        .doc("low-pass filter of the per-RTT bandwidth samples: EWMA 0.9, Linux's two cascaded 7/8 EWMAs, or ns-3's Tustin filter")
        .source("Grieco & Mascolo 2004 (EWMA with gain 0.9)"),
    Param::duration("min_interval", "50ms")
        .doc("shortest sampling interval: rounds are merged until they span this long")
        .source("Linux net/ipv4/tcp_westwood.c:47 TCP_WESTWOOD_RTT_MIN (HZ/20 = 50 ms; docs/sources/linux.md)"),
    COUNTING,
];

/// `cc = "westwood"`.
pub const KIND: CcKind = CcKind {
    kind: Kind::new(
        "westwood",
        "Westwood+, Grieco & Mascolo 2004 (docs/controllers/westwood.md)",
        &[PARAMS],
    ),
    build: |p, ctx| {
        let c: WestwoodSpec = super::config(p)?;
        Ok(AnyCc::Westwood(Westwood::new(ctx.mss, ctx.init_cwnd, c)))
    },
};

/// Westwood+ state. Windows in fractional bytes, estimate in bytes per second.
#[derive(Clone, Debug)]
pub struct Westwood {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    p: WestwoodSpec,
    min_rtt: Option<Dur>,
    /// Bytes and time accumulated towards the next sample.
    acc_bytes: u64,
    acc_time: Dur,
    /// Filtered estimate (bytes/s).
    bwe: BandwidthFilter,
}

impl Westwood {
    /// Start with `init_cwnd` bytes and an unbounded ssthresh.
    pub fn new(mss: Bytes, init_cwnd: Bytes, p: WestwoodSpec) -> Westwood {
        Westwood {
            mss: mss.0 as f64,
            cwnd: init_cwnd.0 as f64,
            ssthresh: f64::MAX,
            p,
            min_rtt: None,
            acc_bytes: 0,
            acc_time: Dur::ZERO,
            bwe: BandwidthFilter::new(p.filter, 0.9),
        }
    }

    /// The filtered bandwidth estimate (payload bits per second), once there is one.
    pub fn bandwidth_estimate(&self) -> Option<Rate> {
        self.bwe.estimate().map(|b| Rate((b * 8.0).round() as u64))
    }

    /// The smallest RTT seen.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }

    /// ssthresh after a loss: BWE·RTTmin, at least 2 MSS; Reno's if there is no estimate.
    fn loss_ssthresh(&self, flight: Bytes) -> f64 {
        let floor = 2.0 * self.mss;
        match (self.bwe.estimate(), self.min_rtt) {
            (Some(b), Some(r)) => (b * r.secs()).max(floor),
            _ => (flight.0 as f64 / 2.0).max(floor),
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }
    fn cwnd(&self) -> Bytes {
        Bytes(self.cwnd as u64)
    }
    fn ssthresh(&self) -> Bytes {
        Bytes(self.ssthresh.min(u64::MAX as f64) as u64)
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        if let Some(r) = ev.rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        if ev.acked.0 == 0 || ev.in_recovery {
            return;
        }
        // Reno growth (RFC 5681 §3.1, by bytes or once per ACK).
        self.cwnd = reno_increase(
            self.cwnd,
            self.ssthresh,
            ev.acked.0 as f64,
            self.mss,
            self.p.counting,
        );
    }
    fn on_round(&mut self, ev: &RoundEvent) {
        self.acc_bytes += ev.delivered_in_round.0;
        self.acc_time = self.acc_time + ev.duration;
        if self.acc_time >= self.p.min_interval && self.acc_time > Dur::ZERO {
            let sample = self.acc_bytes as f64 / self.acc_time.secs();
            self.bwe.push(sample);
            self.acc_bytes = 0;
            self.acc_time = Dur::ZERO;
        }
    }
    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.ssthresh = self.loss_ssthresh(ev.flight_size);
        match ev.kind {
            CongestionKind::FastRetransmit => {
                if self.cwnd > self.ssthresh {
                    self.cwnd = self.ssthresh;
                }
            }
            CongestionKind::Timeout => self.cwnd = self.mss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::bwe::WestwoodFilter;
    use crate::cc::reno::Counting as AckCounting;
    use crate::units::SimTime;

    const MSS: u64 = 1000;

    fn ack(acked: u64, rtt_ms: u64) -> AckEvent {
        AckEvent::for_test(acked, Dur::from_millis(rtt_ms), MSS)
    }

    fn round(bytes: u64, ms: u64) -> RoundEvent {
        RoundEvent {
            now: SimTime::ZERO,
            min_rtt_in_round: Some(Dur::from_millis(ms)),
            delivered_in_round: Bytes(bytes),
            duration: Dur::from_millis(ms),
        }
    }

    fn loss(kind: CongestionKind, flight: u64) -> CongestionEvent {
        CongestionEvent {
            now: SimTime::ZERO,
            kind,
            flight_size: Bytes(flight),
            mss: Bytes(MSS),
        }
    }

    fn spec(filter: WestwoodFilter) -> WestwoodSpec {
        WestwoodSpec {
            filter,
            ..WestwoodSpec::default()
        }
    }

    #[test]
    fn first_sample_initialises_then_ewma_point_nine() {
        let mut w = Westwood::new(Bytes(MSS), Bytes(3 * MSS), spec(WestwoodFilter::Ewma));
        assert_eq!(w.bandwidth_estimate(), None);
        // 100 000 B in 100 ms = 1 MB/s = 8 Mb/s.
        w.on_round(&round(100_000, 100));
        assert_eq!(w.bandwidth_estimate(), Some(Rate(8_000_000)));
        // A 2 MB/s sample moves it a tenth of the way: 1.1 MB/s.
        w.on_round(&round(200_000, 100));
        assert_eq!(w.bandwidth_estimate(), Some(Rate(8_800_000)));
    }

    #[test]
    fn linux_and_tustin_filters() {
        let mut l = Westwood::new(Bytes(MSS), Bytes(3 * MSS), spec(WestwoodFilter::Linux));
        l.on_round(&round(100_000, 100));
        l.on_round(&round(200_000, 100));
        // stage1 = (7·1 + 2)/8 = 1.125 MB/s; est = (7·1 + 1.125)/8 = 1.015625 MB/s.
        assert_eq!(l.bandwidth_estimate(), Some(Rate(8_125_000)));
        let mut t = Westwood::new(Bytes(MSS), Bytes(3 * MSS), spec(WestwoodFilter::Tustin));
        t.on_round(&round(100_000, 100));
        t.on_round(&round(200_000, 100));
        // 0.9·1 + 0.1·(2 + 1)/2 = 1.05 MB/s.
        assert_eq!(t.bandwidth_estimate(), Some(Rate(8_400_000)));
    }

    #[test]
    fn short_rounds_are_merged_up_to_the_minimum_interval() {
        let mut w = Westwood::new(Bytes(MSS), Bytes(3 * MSS), WestwoodSpec::default());
        w.on_round(&round(10_000, 20));
        w.on_round(&round(10_000, 20));
        assert_eq!(w.bandwidth_estimate(), None);
        w.on_round(&round(10_000, 20));
        // 30 000 B over 60 ms = 0.5 MB/s.
        assert_eq!(w.bandwidth_estimate(), Some(Rate(4_000_000)));
    }

    #[test]
    fn fast_retransmit_sets_ssthresh_to_the_bandwidth_delay_product() {
        let mut w = Westwood::new(Bytes(MSS), Bytes(100 * MSS), WestwoodSpec::default());
        w.on_ack(&ack(0, 100)); // RTTmin = 100 ms
        w.on_round(&round(500_000, 1000)); // 0.5 MB/s → BWE·RTTmin = 50 000 B
        w.on_congestion(&loss(CongestionKind::FastRetransmit, 100 * MSS));
        assert_eq!(w.ssthresh(), Bytes(50 * MSS));
        assert_eq!(w.cwnd(), Bytes(50 * MSS));
        // Below the estimate the window is kept.
        let mut k = Westwood::new(Bytes(MSS), Bytes(30 * MSS), WestwoodSpec::default());
        k.on_ack(&ack(0, 100));
        k.on_round(&round(500_000, 1000));
        k.on_congestion(&loss(CongestionKind::FastRetransmit, 30 * MSS));
        assert_eq!(k.ssthresh(), Bytes(50 * MSS));
        assert_eq!(k.cwnd(), Bytes(30 * MSS));
    }

    #[test]
    fn timeout_keeps_the_estimate_and_sets_one_mss() {
        let mut w = Westwood::new(Bytes(MSS), Bytes(100 * MSS), WestwoodSpec::default());
        w.on_ack(&ack(0, 100));
        w.on_round(&round(10_000, 1000)); // tiny estimate: the 2·MSS floor applies
        w.on_congestion(&loss(CongestionKind::Timeout, 100 * MSS));
        assert_eq!(w.ssthresh(), Bytes(2 * MSS));
        assert_eq!(w.cwnd(), Bytes(MSS));
    }

    #[test]
    fn without_an_estimate_a_loss_is_reno() {
        let mut w = Westwood::new(Bytes(MSS), Bytes(20 * MSS), WestwoodSpec::default());
        w.on_congestion(&loss(CongestionKind::FastRetransmit, 20 * MSS));
        assert_eq!(w.cwnd(), Bytes(10 * MSS));
    }

    #[test]
    fn congestion_avoidance_counts_bytes_or_acks() {
        // cwnd = ssthresh = 10 MSS (a loss without an estimate halves 20), then a delayed
        // ACK of 2 MSS: by bytes cwnd += MSS·2·MSS/cwnd = 200 B (RFC 5681 §3.1); per ACK
        // cwnd += MSS·MSS/cwnd = 100 B (eq. 3).
        for (counting, grown) in [(AckCounting::Bytes, 200), (AckCounting::PerAck, 100)] {
            let p = WestwoodSpec {
                counting,
                ..WestwoodSpec::default()
            };
            let mut w = Westwood::new(Bytes(MSS), Bytes(20 * MSS), p);
            w.on_congestion(&loss(CongestionKind::FastRetransmit, 20 * MSS));
            w.on_recovery_exit(SimTime::ZERO);
            w.on_ack(&ack(2 * MSS, 100));
            assert_eq!(w.cwnd(), Bytes(10 * MSS + grown), "{counting:?}");
        }
    }

    #[test]
    fn growth_is_reno() {
        let mut w = Westwood::new(Bytes(MSS), Bytes(2 * MSS), WestwoodSpec::default());
        w.on_ack(&ack(2 * MSS, 100));
        assert_eq!(w.cwnd(), Bytes(3 * MSS));
        w.on_ack(&AckEvent {
            in_recovery: true,
            ..ack(MSS, 100)
        });
        assert_eq!(w.cwnd(), Bytes(3 * MSS));
    }
}
