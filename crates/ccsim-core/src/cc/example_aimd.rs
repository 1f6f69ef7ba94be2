//! Generalised AIMD(a, b): the worked example of docs/adding-a-controller.md, compiled and
//! registered in the tests only (the `#[cfg(test)]` line of `cc::CONTROLLERS`). The whole
//! controller is this file: its state, its `CongestionControl` implementation, its
//! parameter table and its registry entry.

use super::{AckEvent, AnyCc, CcKind, CongestionControl, CongestionEvent, CongestionKind};
use crate::params::{Bound, Kind, Param};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// The parameters, declared once in `PARAMS` (names, ranges, defaults, docs, sources).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AimdConfig {
    /// Segments added per RTT.
    pub a: f64,
    /// Fraction of the flight removed on a loss.
    pub b: f64,
}

/// AIMD's parameter table.
pub const PARAMS: &[Param] = &[
    Param::float("a", 1.0, Bound::Excl(0.0), Bound::Incl(100.0))
        .unit("segments per RTT")
        .doc("additive increase: segments added per RTT in congestion avoidance")
        .source("Reno's 1 (RFC 5681)"),
    Param::float("b", 0.5, Bound::Excl(0.0), Bound::Excl(1.0))
        .doc("multiplicative decrease: fraction of the flight removed on a loss")
        .source("Reno's ½ (RFC 5681)"),
];

/// `cc = { kind = "aimd", a = 0.2, b = 0.125 }`.
pub const KIND: CcKind = CcKind {
    kind: Kind::new(
        "aimd",
        "generalised AIMD(a, b) (docs/adding-a-controller.md)",
        &[PARAMS],
    ),
    build: |p, ctx| {
        let c: AimdConfig = super::config(p)?;
        Ok(AnyCc::boxed(Aimd::new(ctx.mss, ctx.init_cwnd, c)))
    },
};

/// AIMD state, windows in fractional bytes.
#[derive(Clone, Debug)]
pub struct Aimd {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    p: AimdConfig,
}

impl Aimd {
    /// Start with `init_cwnd` bytes and an unbounded ssthresh.
    pub fn new(mss: Bytes, init_cwnd: Bytes, p: AimdConfig) -> Aimd {
        Aimd {
            mss: mss.0 as f64,
            cwnd: init_cwnd.0 as f64,
            ssthresh: f64::MAX,
            p,
        }
    }
}

impl CongestionControl for Aimd {
    fn name(&self) -> &'static str {
        "aimd"
    }
    fn cwnd(&self) -> Bytes {
        Bytes(self.cwnd as u64)
    }
    fn ssthresh(&self) -> Bytes {
        Bytes(self.ssthresh.min(u64::MAX as f64) as u64)
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if ev.acked.0 == 0 || ev.in_recovery {
            return; // a duplicate ACK, or fast recovery: the transport owns the window
        }
        let n = ev.acked.0 as f64;
        if self.cwnd < self.ssthresh {
            self.cwnd += n.min(self.mss); // slow start
        } else {
            self.cwnd += self.p.a * self.mss * n / self.cwnd; // +a·MSS per window of bytes
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        let flight = ev.flight_size.0 as f64;
        self.ssthresh = (flight * (1.0 - self.p.b)).max(2.0 * self.mss);
        self.cwnd = match ev.kind {
            CongestionKind::FastRetransmit => self.ssthresh,
            CongestionKind::Timeout => self.mss,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Dur, SimTime};

    const MSS: u64 = 1000;

    #[test]
    fn decrease_keeps_one_minus_b_of_the_flight_then_adds_a_per_window() {
        let p = AimdConfig { a: 1.0, b: 0.125 };
        let mut c = Aimd::new(Bytes(MSS), Bytes(10 * MSS), p);
        c.on_congestion(&CongestionEvent {
            now: SimTime::ZERO,
            kind: CongestionKind::FastRetransmit,
            flight_size: Bytes(16 * MSS),
            mss: Bytes(MSS),
        });
        assert_eq!(c.cwnd(), Bytes(14 * MSS)); // 16 · (1 − 1/8)
        for _ in 0..14 {
            c.on_ack(&AckEvent::for_test(MSS, Dur::from_millis(50), MSS));
        }
        // One window of ACKs adds about a = 1 segment (a little less: cwnd grows meanwhile).
        let w = c.cwnd().0 as f64 / MSS as f64;
        assert!(w > 14.95 && w < 15.0, "{w}");
    }
}
