//! BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00; Linux net/ipv4/tcp_bbr.c, cited
//! at 6.12.117 line numbers, with the later additions left out: see docs/controllers/bbr.md).
//!
//! BBR models the path by two numbers: the bottleneck bandwidth BtlBw, the windowed maximum
//! of delivery-rate samples over 10 packet-timed rounds, and the round-trip propagation
//! time RTprop, the minimum RTT over 10 s. It paces at pacing_gain·BtlBw and keeps at most
//! cwnd_gain·BtlBw·RTprop in flight. The gains come from the state machine (`state.rs`):
//! STARTUP (2/ln 2) until the bandwidth stops growing by 25 % for 3 rounds, DRAIN (its
//! inverse) until the queue it built is gone, PROBE_BW (the cycle 5/4, 3/4, 1 ×6, one phase
//! per RTprop) and PROBE_RTT (4 packets for 200 ms and a round) whenever RTprop is 10 s old.
//!
//! The sender measures delivery rates (`transport/tcp/rate_sample.rs`) and hands one
//! sample per ACK to `on_rate_sample`, Linux's `cong_control` (`bbr_main`,
//! tcp_bbr.c:1027–1037). Windows here are in segments, as Linux counts packets; rates in
//! payload bytes per second.

mod state;
#[cfg(test)]
mod tests;

pub mod filter;

use super::{
    AckEvent, AnyCc, CaState, CcKind, CongestionControl, CongestionEvent, CongestionKind,
    RateSample,
};
use crate::params::{Bound, Kind, Param};
use crate::rng::SimRng;
use crate::units::{Bytes, Dur, Rate, SimTime};
use filter::WindowedMax;
use serde::{Deserialize, Serialize};
pub use state::Mode;

/// BBR's parameters (declared in [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in PARAMS
pub struct BbrConfig {
    pub high_gain: f64,
    pub drain_gain: f64,
    pub cwnd_gain: f64,
    pub bw_window_rounds: u64,
    pub min_rtt_window: Dur,
    pub probe_rtt_time: Dur,
    pub min_cwnd: u64,
    pub full_bw_growth: f64,
    pub full_bw_rounds: u64,
}

/// BBR's parameter table.
pub const PARAMS: &[Param] = &[
    Param::float("high_gain", 2.885_390_081_777_927, Bound::Excl(1.0), Bound::Incl(10.0))
        .doc("pacing and cwnd gain in STARTUP, 2/ln 2: the smallest gain that doubles the sending rate every round")
        .source("draft-cardwell-iccrg-bbr-congestion-control-00 §4.3.2.1 (2/ln 2); tcp_bbr.c:154 (2885/1000)"),
    Param::float("drain_gain", 0.346_573_590_279_972_6, Bound::Excl(0.0), Bound::Excl(1.0))
        .doc("pacing gain in DRAIN, 1/high_gain: drains STARTUP's queue in about one round")
        .source("draft-00 §4.3.3 (1/high_gain); tcp_bbr.c:158"),
    Param::float("cwnd_gain", 2.0, Bound::Excl(0.0), Bound::Incl(10.0))
        .doc("cwnd = cwnd_gain·BtlBw·RTprop in PROBE_BW: tolerates delayed and stretched ACKs")
        .source("draft-00 §4.3.4 (2); tcp_bbr.c:160"),
    Param::int("bw_window_rounds", 10, 1, 1000)
        .unit("rounds")
        .doc("length of the BtlBw max filter in packet-timed rounds")
        .source("draft-00 §4.1.1.4 (BtlBwFilterLen = 10); tcp_bbr.c:133 (CYCLE_LEN + 2)"),
    Param::positive_duration("min_rtt_window", "10s")
        .doc("length of the RTprop min filter; PROBE_RTT starts when RTprop is this old")
        .source("draft-00 §4.1.2.3 (RTpropFilterLen = 10 s); tcp_bbr.c:135"),
    Param::positive_duration("probe_rtt_time", "200ms")
        .doc("least time PROBE_RTT holds the flight at min_cwnd (and at least one round)")
        .source("draft-00 §4.3.5 (ProbeRTTDuration = 200 ms); tcp_bbr.c:137"),
    Param::int("min_cwnd", 4, 1, 1000)
        .unit("segments")
        .doc("least cwnd, and the flight PROBE_RTT keeps")
        .source("draft-00 §4.2.3.1 (BBRMinPipeCwnd = 4); tcp_bbr.c:175"),
    Param::float("full_bw_growth", 1.25, Bound::Excl(1.0), Bound::Incl(10.0))
        .doc("STARTUP's pipe is full when BtlBw grew less than this factor for full_bw_rounds rounds")
        .source("draft-00 §4.3.2.2 (25 %); tcp_bbr.c:179"),
    Param::int("full_bw_rounds", 3, 1, 100)
        .unit("rounds")
        .doc("rounds without full_bw_growth that end STARTUP")
        .source("draft-00 §4.3.2.2 (3 rounds); tcp_bbr.c:181"),
];

impl Default for BbrConfig {
    fn default() -> BbrConfig {
        crate::params::defaults(PARAMS)
    }
}

/// `cc = "bbr"`.
pub const KIND: CcKind = CcKind {
    kind: Kind::new(
        "bbr",
        "BBR v1, draft-cardwell-iccrg-bbr-congestion-control-00 and Linux tcp_bbr.c (docs/controllers/bbr.md)",
        &[PARAMS],
    ),
    build: |p, ctx| {
        let c: BbrConfig = super::config(p)?;
        Ok(AnyCc::boxed(Bbr::new(ctx.mss, ctx.init_cwnd, ctx.seed, c)))
    },
};

/// Length of the PROBE_BW gain cycle (tcp_bbr.c:130).
const CYCLE_LEN: usize = 8;
/// PROBE_BW's pacing gains, one phase each (draft-00 §4.3.4.3; tcp_bbr.c:162–167).
const PACING_GAIN_CYCLE: [f64; CYCLE_LEN] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The phase PROBE_BW starts in is drawn among the 7 that are not the draining 3/4
/// (tcp_bbr.c:169, 617–624).
const CYCLE_RAND: u64 = 7;

/// BBR state.
#[derive(Clone, Debug)]
pub struct Bbr {
    p: BbrConfig,
    mss: u64,
    /// Initial window (segments): the cwnd before an RTT is known and the floor of the
    /// first flight (Linux's TCP_INIT_CWND in `bbr_bdp` and `bbr_set_cwnd`).
    init_cwnd: u64,
    /// The gain-cycle phase draws (`flow:<name>:cc`).
    rng: SimRng,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,

    /// BtlBw filter over payload bytes per second, timed in rounds.
    bw: WindowedMax,
    round_count: u64,
    /// C.delivered at which the current round ends.
    next_round_delivered: u64,
    round_start: bool,
    /// RTprop and when it was measured.
    min_rtt: Option<Dur>,
    min_rtt_stamp: SimTime,
    /// When the latest ACK that delivered data arrived (Linux `tp->delivered_mstamp`).
    delivered_time: SimTime,

    /// STARTUP's full-pipe detection.
    full_bw: f64,
    full_bw_count: u64,
    filled_pipe: bool,

    /// PROBE_BW: phase and when it started.
    cycle_index: usize,
    cycle_stamp: SimTime,

    /// PROBE_RTT: when it may end, once its flight reached min_cwnd, and whether a round
    /// passed since.
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    probe_rtt_count: u64,

    /// Window (segments), the window saved before recovery or PROBE_RTT, and the
    /// recovery bookkeeping of `bbr_set_cwnd_to_recover_or_restore`.
    cwnd: u64,
    prior_cwnd: u64,
    packet_conservation: bool,
    prev_ca_state: CaState,
    /// Set when DRAIN starts (segments); unbounded before.
    ssthresh: Option<u64>,

    /// Pacing rate (payload bytes per second) and whether it was set from an RTT.
    pacing_rate: f64,
    has_seen_rtt: bool,
}

impl Bbr {
    /// A BBR sender in STARTUP with `init_cwnd` bytes, pacing at high_gain·init_cwnd/1 ms
    /// until an RTT is known (`bbr_init`, tcp_bbr.c:1039–1088; `bbr_init_pacing_rate_from_rtt`,
    /// 266–284). `seed` seeds the gain-cycle draws.
    pub fn new(mss: Bytes, init_cwnd: Bytes, seed: u64, p: BbrConfig) -> Bbr {
        let mss = mss.0.max(1);
        let init = (init_cwnd.0 / mss).max(1);
        let mut b = Bbr {
            p,
            mss,
            init_cwnd: init,
            rng: SimRng::stream(seed, "bbr:cycle"),
            mode: Mode::Startup,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            bw: WindowedMax::default(),
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            delivered_time: SimTime::ZERO,
            full_bw: 0.0,
            full_bw_count: 0,
            filled_pipe: false,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            probe_rtt_count: 0,
            cwnd: init,
            prior_cwnd: 0,
            packet_conservation: false,
            prev_ca_state: CaState::Open,
            ssthresh: None,
            pacing_rate: 0.0,
            has_seen_rtt: false,
        };
        b.init_pacing_rate(Dur::ZERO);
        b
    }

    /// The current state.
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// BtlBw, payload bytes per second (0 before the first sample).
    pub fn btl_bw(&self) -> f64 {
        self.bw.get()
    }
    /// RTprop, once an RTT was measured.
    pub fn rt_prop(&self) -> Option<Dur> {
        self.min_rtt
    }
    /// Whether STARTUP found the pipe full.
    pub fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }
    /// Times PROBE_RTT was entered.
    pub fn probe_rtt_count(&self) -> u64 {
        self.probe_rtt_count
    }
    /// Window in segments.
    pub fn cwnd_segments(&self) -> u64 {
        self.cwnd
    }
    /// The current pacing gain.
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    /// Pacing rate, payload bytes per second.
    pub fn pacing_bytes_per_sec(&self) -> f64 {
        self.pacing_rate
    }

    /// Pacing from the initial window over the smoothed RTT, or 1 ms before any sample
    /// (tcp_bbr.c:266–284; draft-00 §4.2.1 BBRInitPacingRate).
    fn init_pacing_rate(&mut self, srtt: Dur) {
        let rtt = if srtt.0 > 0 {
            self.has_seen_rtt = true;
            srtt.secs()
        } else {
            1e-3
        };
        let nominal = (self.init_cwnd * self.mss) as f64 / rtt;
        self.pacing_rate = self.p.high_gain * nominal;
    }

    /// pacing_rate = gain·bw, never lowered before the pipe is full (tcp_bbr.c:286–297;
    /// draft-00 §4.2.1 BBRSetPacingRateWithGain).
    fn set_pacing_rate(&mut self, bw: f64, gain: f64, srtt: Dur) {
        if !self.has_seen_rtt && srtt.0 > 0 {
            self.init_pacing_rate(srtt);
        }
        let rate = gain * bw;
        if rate > 0.0 && (self.filled_pipe || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    /// gain·BtlBw·RTprop in segments, rounded up (`bbr_bdp`, tcp_bbr.c:360–383), or the
    /// initial window before any RTT.
    fn bdp(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => self.init_cwnd,
            Some(rtt) => (gain * bw * rtt.secs() / self.mss as f64).ceil() as u64,
        }
    }

    /// The flight to aim at: the BDP plus three departures' worth of segments, rounded up
    /// to even (`bbr_quantization_budget`, tcp_bbr.c:395–411; a departure is one segment
    /// here, there being no TSO).
    fn inflight(&self, bw: f64, gain: f64) -> u64 {
        let cwnd = self.bdp(bw, gain) + 3;
        (cwnd + 1) & !1
    }

    /// Remember the window before recovery or PROBE_RTT cuts it (tcp_bbr.c:321–330).
    fn save_cwnd(&mut self) {
        if self.prev_ca_state == CaState::Open && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// The window after an ACK that delivered `acked` segments (`bbr_set_cwnd` and
    /// `bbr_set_cwnd_to_recover_or_restore`, tcp_bbr.c:480–552).
    fn set_cwnd(&mut self, rs: &RateSample, in_flight: u64, acked: u64, bw: f64) {
        if acked > 0 {
            self.cwnd = self.recover_or_restore(rs, in_flight, acked, bw);
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.p.min_cwnd);
        }
    }

    fn recover_or_restore(&mut self, rs: &RateSample, in_flight: u64, acked: u64, bw: f64) -> u64 {
        let mut cwnd = self.cwnd;
        // An ACK for P packets releases at most 2·P: deduct the losses first.
        let losses = rs.losses.0.div_ceil(self.mss);
        if losses > 0 {
            cwnd = cwnd.saturating_sub(losses).max(1);
        }
        let (prev, state) = (self.prev_ca_state, rs.ca_state);
        if state == CaState::Recovery && prev != CaState::Recovery {
            // The first round of recovery conserves packets (and starts a round now).
            self.packet_conservation = true;
            self.next_round_delivered = rs.total_delivered.0;
            cwnd = in_flight + acked;
        } else if prev != CaState::Open && state == CaState::Open {
            // Recovery is over: restore the window saved at its start.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return cwnd.max(in_flight + acked);
        }
        let target = self.inflight(bw, self.cwnd_gain);
        if self.filled_pipe {
            cwnd = (cwnd + acked).min(target);
        } else if cwnd < target || rs.total_delivered.0 < self.init_cwnd * self.mss {
            cwnd += acked;
        }
        cwnd.max(self.p.min_cwnd)
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn cwnd(&self) -> Bytes {
        Bytes(self.cwnd * self.mss)
    }
    fn ssthresh(&self) -> Bytes {
        Bytes(self.ssthresh.map_or(u64::MAX, |s| s * self.mss))
    }
    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate((self.pacing_rate * 8.0).max(1.0) as u64))
    }
    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn marks_app_limited(&self) -> bool {
        self.mode == Mode::ProbeRtt // low-rate samples are ignored there (tcp_bbr.c:965–967)
    }

    /// Everything happens in `on_rate_sample`, which follows on the same ACK.
    fn on_ack(&mut self, _ev: &AckEvent) {}

    fn on_rate_sample(&mut self, ev: &AckEvent, rs: &RateSample) {
        if rs.acked_sacked.0 > 0 {
            self.delivered_time = ev.now;
        }
        let in_flight = ev.in_flight.0 / self.mss;
        self.update_model(ev, rs, in_flight);
        let bw = self.btl_bw();
        self.set_pacing_rate(bw, self.pacing_gain, ev.srtt);
        let acked = rs.acked_sacked.0.div_ceil(self.mss);
        self.set_cwnd(rs, in_flight, acked, bw);
    }

    /// Entering recovery keeps the window (BBR does not cut on loss) but saves it for the
    /// end of recovery (`bbr_ssthresh`, tcp_bbr.c:1101–1105). A timeout leaves one segment
    /// in the window (`tcp_enter_loss`) and restarts full-pipe detection as the end of a
    /// round (`bbr_set_state`, tcp_bbr.c:1129–1141).
    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.save_cwnd();
        if ev.kind == CongestionKind::Timeout {
            self.cwnd = 1;
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true;
        }
    }
}
