//! Coupled congestion control for Multipath TCP: one controller per subflow that sees its
//! siblings through a read-only snapshot (`SubflowView`s), refreshed by the connection
//! before every event it hands the subflow. No controller holds a pointer to another.
//!
//! All controllers share slow start (RFC 5681, per subflow, uncoupled as in RFC 6356 §3)
//! and the fast-recovery/timeout bookkeeping of the TCP transport; they differ in the
//! congestion-avoidance increase (packets per packet acknowledged) and
//! in the decrease:
//!
//! | kind    | increase per ACK (packets)                              | decrease            |
//! |---------|---------------------------------------------------------|---------------------|
//! | reno    | 1/w_r                                                   | w_r/2               |
//! | lia     | min(α/w_total, 1/w_r) (RFC 6356)                        | w_r/2               |
//! | olia    | (w_r/τ_r²)/(Σ w_p/τ_p)² + α_r/w_r (Khalili et al.)      | w_r/2               |
//! | balia   | x_r/(τ_r(Σx)²)·(1+α_r)/2·(4+α_r)/5 (Peng et al.)         | w_r/2·min(α_r, 1.5) |
//! | wvegas  | ±1 packet per RTT towards α_r queued packets (Cao et al.)| w_r/2, queue drain  |
//! | daimd   | LIA's                                                   | w_r/2; 0.7·w_r on delay |
//!
//! Windows are kept in bytes; an increase of `k` packets per packet acknowledged adds
//! `k · counted` bytes per ACK, where `counted` is the bytes acknowledged (RFC 6356's byte
//! form, the default) or one MSS per ACK (`counting = "per_ack"`, Linux's packet form).
//! Every backoff is recorded with its cause (`Backoff`), for DAIMD's traces.

pub mod balia;
pub mod daimd;
pub mod lia;
pub mod olia;
pub mod wvegas;

use super::reno::{reno_increase, reno_loss, Counting, COUNTING};
use super::{AckEvent, CongestionControl, CongestionEvent, CongestionKind, RoundEvent};
use crate::params::{Kind, Kinds, Param};
use crate::units::{Bytes, Dur, SimTime};
use daimd::{Daimd, DaimdSpec};
use serde::{Deserialize, Serialize};
use wvegas::{Wvegas, WvegasSpec};

/// Coupled congestion controller of an MPTCP connection (the `cc` of an MPTCP flow).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum CoupledSpec {
    /// Each subflow runs Reno on its own (no coupling): the baseline RFC 6356 improves on.
    Reno {
        /// ACK counting in congestion avoidance.
        counting: Counting,
    },
    /// Linked Increases (RFC 6356).
    Lia {
        /// ACK counting in congestion avoidance.
        counting: Counting,
    },
    /// Opportunistic LIA (Khalili et al., CoNEXT 2012).
    Olia {
        /// ACK counting in congestion avoidance.
        counting: Counting,
    },
    /// Balanced Linked Adaptation (Peng et al., ToN 2016).
    Balia {
        /// ACK counting in congestion avoidance.
        counting: Counting,
    },
    /// Weighted Vegas (Cao, Xu & Fu, ICNP 2012).
    Wvegas(WvegasSpec),
    /// LIA plus a delay-triggered decrease (González et al., MELECON 2016).
    Daimd(DaimdSpec),
}

impl CoupledSpec {
    /// The controller's name as written in scenarios.
    pub fn name(&self) -> &'static str {
        match self {
            CoupledSpec::Reno { .. } => "reno",
            CoupledSpec::Lia { .. } => "lia",
            CoupledSpec::Olia { .. } => "olia",
            CoupledSpec::Balia { .. } => "balia",
            CoupledSpec::Wvegas(_) => "wvegas",
            CoupledSpec::Daimd(_) => "daimd",
        }
    }
}

const COUNTING_ONLY: &[Param] = &[COUNTING];

/// The coupled controllers an MPTCP flow's `cc` can name.
pub const COUPLED_KINDS: Kinds = Kinds {
    what: "coupled controller",
    list: || vec![&LIA, &OLIA, &BALIA, &wvegas::KIND, &daimd::KIND, &RENO],
    note: "",
    number: None,
};

/// `cc = "lia"`.
pub const LIA: Kind = Kind::new(
    "lia",
    "Linked Increases, RFC 6356 (docs/controllers/lia.md)",
    &[COUNTING_ONLY],
);
/// `cc = "olia"`.
pub const OLIA: Kind = Kind::new(
    "olia",
    "Opportunistic LIA, Khalili et al. 2012 (docs/controllers/olia.md)",
    &[COUNTING_ONLY],
);
/// `cc = "balia"`.
pub const BALIA: Kind = Kind::new(
    "balia",
    "Balanced Linked Adaptation, Peng et al. 2016 (docs/controllers/balia.md)",
    &[COUNTING_ONLY],
);
/// `cc = "reno"` on an MPTCP flow: uncoupled subflows.
pub const RENO: Kind = Kind::new(
    "reno",
    "uncoupled Reno on every subflow (docs/controllers/mptcp-reno.md)",
    &[COUNTING_ONLY],
);

/// What a controller may know of one subflow of its connection (itself included).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SubflowView {
    /// Whether the subflow takes part: joined, sending and with an RTT sample. Inactive
    /// subflows are left out of every sum.
    pub active: bool,
    /// Congestion window (bytes).
    pub cwnd: f64,
    /// Smoothed RTT (s).
    pub srtt: f64,
    /// Rate estimate (bytes/s): cwnd/srtt, or wVegas's measured rate.
    pub rate: f64,
    /// OLIA's inter-loss distance ℓ_r (bytes): max of the bytes acknowledged since the last
    /// loss and between the two previous losses.
    pub ell: f64,
}

/// Why a subflow's window was cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackoffCause {
    /// A loss detected by duplicate ACKs or SACK.
    Loss = 0,
    /// A retransmission timeout.
    Timeout = 1,
    /// DAIMD's delay congestion detection.
    Delay = 2,
    /// wVegas's queue drain.
    Drain = 3,
}

/// One window reduction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    /// When.
    pub at: SimTime,
    /// Why.
    pub cause: BackoffCause,
    /// cwnd before (bytes).
    pub before: f64,
    /// cwnd after (bytes).
    pub after: f64,
}

#[derive(Clone, Debug)]
enum Algo {
    Reno,
    Lia,
    Olia,
    Balia,
    Wvegas(Wvegas),
    Daimd(Daimd),
}

/// A subflow's coupled controller.
#[derive(Clone, Debug)]
pub struct Coupled {
    name: &'static str,
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    counting: Counting,
    algo: Algo,
    /// This subflow's index in `view`.
    me: usize,
    view: Vec<SubflowView>,
    /// OLIA: bytes acknowledged since the last loss, and between the two before it.
    ell1: f64,
    ell2: f64,
    backoffs: Vec<Backoff>,
    /// Backoffs by cause, over the subflow's life.
    pub counts: [u64; 4],
}

impl Coupled {
    /// A controller of kind `spec` starting at `init_cwnd` bytes.
    pub fn new(spec: &CoupledSpec, mss: Bytes, init_cwnd: Bytes) -> Coupled {
        let (algo, counting) = match *spec {
            CoupledSpec::Reno { counting } => (Algo::Reno, counting),
            CoupledSpec::Lia { counting } => (Algo::Lia, counting),
            CoupledSpec::Olia { counting } => (Algo::Olia, counting),
            CoupledSpec::Balia { counting } => (Algo::Balia, counting),
            CoupledSpec::Wvegas(p) => (Algo::Wvegas(Wvegas::new(p)), Counting::Bytes),
            CoupledSpec::Daimd(p) => (Algo::Daimd(Daimd::new(p)), p.counting),
        };
        Coupled {
            name: spec.name(),
            mss: mss.0 as f64,
            cwnd: init_cwnd.0 as f64,
            ssthresh: f64::MAX,
            counting,
            algo,
            me: 0,
            view: Vec::new(),
            ell1: 0.0,
            ell2: 0.0,
            backoffs: Vec::new(),
            counts: [0; 4],
        }
    }

    /// Refresh the snapshot of the connection's subflows; this controller is entry `me`.
    pub fn set_view(&mut self, me: usize, view: &[SubflowView]) {
        self.me = me;
        self.view.clear();
        self.view.extend_from_slice(view);
    }

    /// This subflow as its siblings should see it, given its smoothed RTT and whether it
    /// is sending.
    pub fn view_entry(&self, srtt: Dur, sending: bool) -> SubflowView {
        let s = srtt.secs();
        let rate = match &self.algo {
            Algo::Wvegas(w) => w.rate(self.cwnd),
            _ if s > 0.0 => self.cwnd / s,
            _ => 0.0,
        };
        SubflowView {
            active: sending && s > 0.0,
            cwnd: self.cwnd,
            srtt: s,
            rate,
            ell: self.ell1.max(self.ell2),
        }
    }

    /// Move the backoffs recorded since the last call into `out`.
    pub fn take_backoffs(&mut self, out: &mut Vec<Backoff>) {
        out.append(&mut self.backoffs);
    }

    /// The view with this subflow's entry brought up to date (its window changes between
    /// refreshes).
    fn current_view(&mut self) -> &[SubflowView] {
        if let Some(v) = self.view.get_mut(self.me) {
            v.cwnd = self.cwnd;
        }
        &self.view
    }

    fn record(&mut self, at: SimTime, cause: BackoffCause, before: f64) {
        self.counts[cause as usize] += 1;
        self.backoffs.push(Backoff {
            at,
            cause,
            before,
            after: self.cwnd,
        });
    }

    /// Congestion-avoidance increase of LIA, OLIA or BALIA, in packets per packet
    /// acknowledged; Reno's 1/w until this subflow has an RTT sample.
    fn coupled_increase(&mut self) -> f64 {
        let (mss, me) = (self.mss, self.me);
        let fallback = mss / self.cwnd;
        let algo = match self.algo {
            Algo::Olia => 1,
            Algo::Balia => 2,
            _ => 0,
        };
        let view = self.current_view();
        if view.get(me).is_none_or(|v| !v.active) {
            return fallback;
        }
        match algo {
            1 => olia::increase(view, me, mss),
            2 => balia::increase(view, me, mss),
            _ => lia::increase(view, me, mss),
        }
    }
}

impl CongestionControl for Coupled {
    fn name(&self) -> &'static str {
        self.name
    }
    fn cwnd(&self) -> Bytes {
        Bytes(self.cwnd as u64)
    }
    fn ssthresh(&self) -> Bytes {
        Bytes(self.ssthresh.min(u64::MAX as f64) as u64)
    }
    fn set_initial_ssthresh(&mut self, ssthresh: Bytes) {
        self.ssthresh = ssthresh.0 as f64;
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.ell1 += ev.acked.0 as f64;
        if let Algo::Wvegas(w) = &mut self.algo {
            w.on_sample(ev);
        }
        if ev.acked.0 == 0 || ev.in_recovery {
            return;
        }
        if self.cwnd < self.ssthresh {
            // Slow start is per subflow and uncoupled (RFC 6356 §3).
            let acked = ev.acked.0 as f64;
            self.cwnd = reno_increase(self.cwnd, self.ssthresh, acked, self.mss, self.counting);
        } else {
            let k = match &self.algo {
                // wVegas moves its window once per round, in `on_round`.
                Algo::Wvegas(_) => 0.0,
                Algo::Reno => self.mss / self.cwnd,
                _ => self.coupled_increase(),
            };
            let counted = match self.counting {
                Counting::Bytes => ev.acked.0 as f64,
                Counting::PerAck => self.mss,
            };
            self.cwnd = (self.cwnd + k * counted).max(self.mss);
        }
        if let Algo::Daimd(d) = &mut self.algo {
            let before = self.cwnd;
            if let Some(after) = d.on_ack(ev, self.cwnd, self.ssthresh, self.mss) {
                self.cwnd = after;
                self.ssthresh = after;
                self.record(ev.now, BackoffCause::Delay, before);
            }
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        let before = self.cwnd;
        self.ell2 = self.ell1;
        self.ell1 = 0.0;
        (self.ssthresh, self.cwnd) = match &mut self.algo {
            Algo::Balia => {
                let me = self.me;
                let view = self.current_view().to_vec();
                balia::on_loss(&view, me, ev.kind, ev.flight_size, self.mss)
            }
            Algo::Wvegas(w) => {
                w.on_loss();
                reno_loss(ev.kind, ev.flight_size, self.mss)
            }
            _ => reno_loss(ev.kind, ev.flight_size, self.mss),
        };
        let cause = match ev.kind {
            CongestionKind::FastRetransmit => BackoffCause::Loss,
            CongestionKind::Timeout => BackoffCause::Timeout,
        };
        if let Algo::Daimd(d) = &mut self.algo {
            d.on_loss();
        }
        self.record(ev.now, cause, before);
    }

    fn on_round(&mut self, ev: &RoundEvent) {
        if !matches!(self.algo, Algo::Wvegas(_)) {
            return;
        }
        let me = self.me;
        let view = self.current_view().to_vec();
        if let Algo::Wvegas(w) = &mut self.algo {
            let before = self.cwnd;
            let out = w.on_round(&view, me, self.cwnd, self.ssthresh, self.mss);
            self.cwnd = out.cwnd;
            self.ssthresh = out.ssthresh;
            if out.drained {
                self.record(ev.now, BackoffCause::Drain, before);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::SubflowView;

    /// An active subflow of `w` packets of 1000 bytes with smoothed RTT `rtt` seconds.
    pub fn sf(w: f64, rtt: f64) -> SubflowView {
        SubflowView {
            active: true,
            cwnd: w * 1000.0,
            srtt: rtt,
            rate: w * 1000.0 / rtt,
            ell: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::daimd::DaimdSpec;
    use super::test_util::sf;
    use super::*;
    use crate::cc::reno::Counting as AckCounting;

    /// A subflow in congestion avoidance at 10 packets of 1000 bytes (a loss halved 20),
    /// next to a sibling of 10 packets, both with a 100 ms smoothed RTT.
    fn in_ca(spec: CoupledSpec) -> Coupled {
        let mut c = Coupled::new(&spec, Bytes(1000), Bytes(20_000));
        c.on_congestion(&CongestionEvent {
            now: SimTime::ZERO,
            kind: CongestionKind::FastRetransmit,
            flight_size: Bytes(20_000),
            mss: Bytes(1000),
        });
        c.set_view(0, &[sf(10.0, 0.1), sf(10.0, 0.1)]);
        c
    }

    #[test]
    fn the_coupled_increase_counts_bytes_or_acks() {
        // RFC 6356 §3 on two equal paths: α = w_total·max(w/τ²)/(Σ w/τ)² = 20·1000/200² =
        // 0.5, so each packet acknowledged adds min(α/w_total, 1/w) = min(0.025, 0.1) =
        // 0.025 packets. A delayed ACK of two segments then adds 2 × 25 = 50 bytes counting
        // bytes (RFC 6356's byte form), 25 bytes counting ACKs: Linux's
        // `mptcp_fc_cong_avoid` (multipath-tcp/mptcp, net/mptcp/mptcp_coupled.c) adds one
        // to snd_cwnd_cnt per ACK and a packet to cwnd when the count reaches
        // max(w_total/α, w) = 40, i.e. 1/40 packet per ACK whatever it acknowledges.
        let daimd = |counting| {
            CoupledSpec::Daimd(DaimdSpec {
                counting,
                ..DaimdSpec::default()
            })
        };
        for (spec, grown) in [
            (
                CoupledSpec::Lia {
                    counting: AckCounting::Bytes,
                },
                50.0,
            ),
            (
                CoupledSpec::Lia {
                    counting: AckCounting::PerAck,
                },
                25.0,
            ),
            (daimd(AckCounting::Bytes), 50.0),
            (daimd(AckCounting::PerAck), 25.0),
        ] {
            let mut c = in_ca(spec);
            let mut ev = AckEvent::for_test(2000, Dur::from_millis(100), 1000);
            ev.min_rtt = Dur::from_millis(100); // no queueing delay: DAIMD stays quiet
            c.on_ack(&ev);
            assert!(
                (c.cwnd - 10_000.0 - grown).abs() < 1e-9,
                "{spec:?}: {}",
                c.cwnd
            );
        }
    }

    #[test]
    fn a_subflow_without_an_rtt_sample_grows_as_reno() {
        // Until its own RTT is known the coupled formulas have no τ for it (RFC 6356 §3
        // needs every path's rtt_i), so it grows by Reno's 1/w per packet acknowledged:
        // a window of 10 packets, 2 000 bytes acknowledged (byte counting) → 2 000 ×
        // 1 000 / 10 000 = 200 bytes.
        for spec in [
            CoupledSpec::Lia {
                counting: AckCounting::Bytes,
            },
            CoupledSpec::Olia {
                counting: AckCounting::Bytes,
            },
        ] {
            let mut c = in_ca(spec);
            // Its entry as its siblings see it before its first RTT sample: not active.
            let unsampled = c.view_entry(Dur::ZERO, true);
            assert!(!unsampled.active);
            c.set_view(0, &[unsampled, sf(10.0, 0.1)]);
            c.on_ack(&AckEvent::for_test(2000, Dur::from_millis(100), 1000));
            assert!((c.cwnd - 10_200.0).abs() < 1e-9, "{spec:?}: {}", c.cwnd);
        }
    }

    #[test]
    fn wvegas_moves_its_window_once_per_round_towards_its_queue_target() {
        // Cao, Xu & Fu 2012 (and `mptcp_wvegas.c`): in congestion avoidance the window
        // changes only at the end of a round, by one packet: up when the subflow keeps
        // fewer than α_r packets queued, down when it keeps more. α_r is at most
        // total_alpha = 10 packets. `in_ca` leaves cwnd = ssthresh, which is congestion
        // avoidance (`tcp_in_slow_start`: cwnd < ssthresh).
        let mut c = in_ca(CoupledSpec::Wvegas(WvegasSpec::default()));
        // The window after each of a round's five ACKs (all with RTT `rtt_ms`), then after
        // the round.
        let mut round = |rtt_ms: u64| -> Vec<f64> {
            let mut seen = Vec::new();
            for _ in 0..5 {
                c.on_ack(&AckEvent::for_test(1000, Dur::from_millis(rtt_ms), 1000));
                seen.push(c.cwnd);
            }
            c.on_round(&RoundEvent {
                now: SimTime::ZERO,
                min_rtt_in_round: Some(Dur::from_millis(rtt_ms)),
                delivered_in_round: Bytes(5000),
                duration: Dur::from_millis(rtt_ms),
            });
            seen.push(c.cwnd);
            seen
        };
        // Every sample at the base RTT: nothing queued, one packet more.
        assert_eq!(
            round(100),
            [10_000.0, 10_000.0, 10_000.0, 10_000.0, 10_000.0, 11_000.0]
        );
        // 11 packets at 20 times the base RTT keep 11·1.9/2 ≈ 10.5 packets queued, above any
        // α_r: one packet less.
        assert_eq!(
            round(2000),
            [11_000.0, 11_000.0, 11_000.0, 11_000.0, 11_000.0, 10_000.0]
        );
    }
}
