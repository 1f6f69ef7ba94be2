//! BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00; Linux net/ipv4/tcp_bbr.c, cited
//! at 6.12.117 line numbers; Linux's later additions are parameters, off by default and on in
//! the linux profile: see docs/controllers/bbr.md).
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
#[cfg(test)]
mod tests_linux;

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
    pub pacing_margin: f64,
    pub quantization: Quantization,
    pub extra_acked_gain: f64,
    pub extra_acked_window_rounds: u64,
    pub extra_acked_max: Dur,
    pub edt: bool,
    pub min_rtt_strict: bool,
    pub rtt_sample: RttSample,
}

/// Which RTT sample feeds RTprop (`rtt_sample`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSample {
    /// The ACK's echoed timestamp (the transport's sample; Karn's rule).
    #[default]
    Timestamp,
    /// Linux's `rs->rtt_us`: the most recently sent original segment the ACK delivered,
    /// cumulatively or by SACK, else the echoed timestamp when snd.una advanced, read in
    /// whole milliseconds and from a retransmission too.
    Linux,
}

/// How the target flight is rounded up for the end hosts (`quantization`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantization {
    /// BDP + 3 segments, rounded up to even (draft-00 §4.2.3.2, one segment per departure).
    #[default]
    Draft,
    /// Linux's `bbr_quantization_budget`: BDP + 3 TSO bursts of `bbr_tso_segs_goal`
    /// segments, rounded up to even, + 2 in PROBE_BW's 5/4 phase (tcp_bbr.c:395–411).
    Linux,
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
    // Linux's additions to the draft (4.13–5.x), off by default and on in the linux profile.
    Param::float("pacing_margin", 0.0, Bound::Incl(0.0), Bound::Excl(0.5))
        .doc("pace this fraction below gain·BtlBw, so that a queue the flow built drains (Linux: 0.01)")
        .source("0, as draft-00; tcp_bbr.c:147, 251 (bbr_pacing_margin_percent = 1, the linux profile)"),
    Param::choice("quantization", "draft", &["draft", "linux"])
        .doc("the target flight's allowance for the end hosts: draft, BDP + 3 segments rounded up to even; linux, BDP + 3·bbr_tso_segs_goal (2 segments from 1.2 Mb/s up, pacing_rate/1024 s worth above) rounded up to even, + 2 in the 5/4 phase")
        .source("draft-00 §4.2.3.2; linux: tcp_bbr.c:299–316 (bbr_min_tso_segs, bbr_tso_segs_goal), 395–411 (bbr_quantization_budget)"),
    Param::float("extra_acked_gain", 0.0, Bound::Incl(0.0), Bound::Incl(10.0))
        .doc("add this multiple of the recent ACK aggregation (data ACKed beyond BtlBw·time in an ACK epoch, max over extra_acked_window_rounds..2× rounds) to the window once the pipe is full (Linux: 1)")
        .source("0, as draft-00; tcp_bbr.c:196 (bbr_extra_acked_gain = BBR_UNIT), 457–470, 814–863 (the linux profile)"),
    Param::int("extra_acked_window_rounds", 5, 1, 31)
        .unit("rounds")
        .doc("the aggregation estimate's window: the max over the last k to 2k rounds")
        .source("tcp_bbr.c:198 (bbr_extra_acked_win_rtts = 5)"),
    Param::positive_duration("extra_acked_max", "100ms")
        .doc("the aggregation allowance is at most BtlBw times this")
        .source("tcp_bbr.c:202 (bbr_extra_acked_max_us = 100 ms)"),
    Param::boolean("edt", false)
        .doc("judge the flight at the next departure time, as pacing delays it: flight (+ one TSO burst in the 5/4 phase) − BtlBw·(next departure − now); the gain cycle's and DRAIN's tests use it")
        .source("off, as draft-00; tcp_bbr.c:437–455 (bbr_packets_in_net_at_edt), 570, 903 (the linux profile)"),
    Param::boolean("min_rtt_strict", false)
        .doc("an RTT sample replaces RTprop only if strictly lower (or RTprop expired): equal samples do not postpone PROBE_RTT")
        .source("off: draft-00 §4.1.2.3 (≤); tcp_bbr.c:950–952 (<, the linux profile)"),
    Param::choice("rtt_sample", "timestamp", &["timestamp", "linux"])
        .doc("the RTT sample RTprop takes: timestamp, the ACK's echoed timestamp (for a delayed ACK of two segments, the first one's); linux, the most recently sent original segment the ACK delivered (cumulatively or by SACK), else the echoed timestamp when snd.una advanced, in whole milliseconds of the 1 kHz timestamp clock and from a retransmission too")
        .source("timestamp: the transport's RTT sample (draft-00 §4.1.2.3 leaves the sample to the transport); linux: rs->rtt_us, tcp_ack_update_rtt, net/ipv4/tcp_input.c:3215–3239, 3470–3488, tcp_rtt_tsopt_us :709–724 (the linux profile)"),
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

    /// ACK aggregation (`extra_acked_gain` > 0): the two halves of the max filter
    /// (segments), the rounds the current half has run, which half is current, and the
    /// epoch: segments delivered since it started, and when.
    extra_acked: [u64; 2],
    extra_acked_rounds: u64,
    extra_acked_idx: usize,
    ack_epoch_acked: u64,
    ack_epoch_stamp: SimTime,
    /// How long until the pacer lets the next segment leave, at the current ACK (`edt`).
    edt_gap: Dur,
}

/// An aggregation epoch restarts after this many segments (tcp_bbr.c:200,
/// `bbr_ack_epoch_acked_reset_thresh` = 2²⁰).
const ACK_EPOCH_RESET: u64 = 1 << 20;
/// Linux's GSO size limit less the TCP header room, the ceiling of a TSO burst in bytes
/// (GSO_LEGACY_MAX_SIZE 65536 − 1 − MAX_TCP_HEADER, 320 B on x86-64; tcp_bbr.c:310–312).
const TSO_MAX_BYTES: f64 = 65_536.0 - 1.0 - 320.0;
/// Below this pacing rate (bytes per second) a TSO burst is one segment, above two
/// (`bbr_min_tso_rate` = 1.2 Mb/s, tcp_bbr.c:139, 299–302).
const MIN_TSO_RATE: f64 = 1_200_000.0 / 8.0;

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
            extra_acked: [0; 2],
            extra_acked_rounds: 0,
            extra_acked_idx: 0,
            ack_epoch_acked: 0,
            ack_epoch_stamp: SimTime::ZERO,
            edt_gap: Dur::ZERO,
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
        self.pacing_rate = self.p.high_gain * nominal * (1.0 - self.p.pacing_margin);
    }

    /// pacing_rate = gain·bw·(1 − pacing_margin), never lowered before the pipe is full
    /// (tcp_bbr.c:244–297; draft-00 §4.2.1 BBRSetPacingRateWithGain).
    fn set_pacing_rate(&mut self, bw: f64, gain: f64, srtt: Dur) {
        if !self.has_seen_rtt && srtt.0 > 0 {
            self.init_pacing_rate(srtt);
        }
        let rate = gain * bw * (1.0 - self.p.pacing_margin);
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

    /// The flight to aim at: the BDP with the end hosts' allowance (`bbr_inflight`,
    /// tcp_bbr.c:413–422).
    fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `cwnd` plus three departures' worth of segments, rounded up to even; with
    /// `quantization = "linux"` a departure is a TSO burst and the 5/4 phase adds 2
    /// (`bbr_quantization_budget`, tcp_bbr.c:395–411).
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        match self.p.quantization {
            Quantization::Draft => (cwnd + 3 + 1) & !1,
            Quantization::Linux => {
                let even = (cwnd + 3 * self.tso_segs_goal() + 1) & !1;
                let probing = self.mode == Mode::ProbeBw && self.cycle_index == 0;
                even + if probing { 2 } else { 0 }
            }
        }
    }

    /// Segments per departure: one, or with `quantization = "linux"` the TSO burst Linux
    /// sizes for BBR, about 1 ms of pacing (pacing_rate >> sk_pacing_shift 10), at least 2
    /// segments from 1.2 Mb/s up, at most 127 (`bbr_tso_segs_goal`, tcp_bbr.c:299–316).
    pub(super) fn tso_segs_goal(&self) -> u64 {
        if self.p.quantization == Quantization::Draft {
            return 1;
        }
        let bytes = (self.pacing_rate / 1024.0).min(TSO_MAX_BYTES);
        ((bytes as u64) / self.mss)
            .max(self.min_tso_segs())
            .min(0x7F)
    }

    /// The window allowance for ACK aggregation once the pipe is full: extra_acked_gain ×
    /// the recent excess, at most BtlBw·extra_acked_max (`bbr_ack_aggregation_cwnd`,
    /// tcp_bbr.c:457–470).
    fn aggregation_cwnd(&self, bw: f64) -> u64 {
        if self.p.extra_acked_gain == 0.0 || !self.filled_pipe {
            return 0;
        }
        let max_aggr = (bw * self.p.extra_acked_max.secs() / self.mss as f64) as u64;
        let aggr =
            (self.p.extra_acked_gain * self.extra_acked[0].max(self.extra_acked[1]) as f64) as u64;
        aggr.min(max_aggr)
    }

    /// The flight still in the network when the next segment leaves (`edt`): the flight,
    /// plus that departure's burst while probing (gain > 1), less what BtlBw delivers until
    /// then (`bbr_packets_in_net_at_edt`, tcp_bbr.c:437–455). Without `edt`, the flight.
    pub(super) fn in_net_at_edt(&self, in_flight: u64) -> u64 {
        if !self.p.edt {
            return in_flight;
        }
        let delivered = (self.btl_bw() * self.edt_gap.secs() / self.mss as f64) as u64;
        // while probing, the burst that leaves at the departure counts in flight
        let departing = if self.pacing_gain > 1.0 {
            self.tso_segs_goal()
        } else {
            0
        };
        let at_edt = in_flight + departing;
        at_edt.saturating_sub(delivered)
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
        let target =
            self.quantization_budget(self.bdp(bw, self.cwnd_gain) + self.aggregation_cwnd(bw));
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
    /// BBR is a `cong_control` module: its window governs recovery, not PRR.
    fn sets_window_in_recovery(&self) -> bool {
        true
    }
    /// One segment per GSO packet below 1.2 Mb/s, else two (`bbr_min_tso_segs`,
    /// tcp_bbr.c:299–302).
    fn min_tso_segs(&self) -> u64 {
        if self.pacing_rate < MIN_TSO_RATE {
            1
        } else {
            2
        }
    }

    /// `bbr_init` runs when the connection is established: RTprop starts at the handshake's
    /// RTT, stamped now (`min_rtt_us = tcp_min_rtt(tp)`, tcp_bbr.c:1053–1054), and the
    /// pacing rate at high_gain·init_cwnd/srtt (`bbr_init_pacing_rate_from_rtt`, :266–283).
    /// The data's own RTT, one serialisation longer, then does not replace it until the
    /// filter expires, so STARTUP's window target is one handshake RTT's BDP.
    fn on_established(&mut self, now: SimTime, srtt: Dur, min_rtt: Dur) {
        if min_rtt.0 > 0 {
            self.min_rtt = Some(min_rtt);
            self.min_rtt_stamp = now;
        }
        if srtt.0 > 0 {
            self.init_pacing_rate(srtt);
        }
    }

    /// Everything happens in `on_rate_sample`, which follows on the same ACK.
    fn on_ack(&mut self, _ev: &AckEvent) {}

    fn on_rate_sample(&mut self, ev: &AckEvent, rs: &RateSample) {
        if rs.acked_sacked.0 > 0 {
            self.delivered_time = ev.now;
        }
        let in_flight = ev.in_flight.0 / self.mss;
        self.edt_gap = rs.next_departure.since(ev.now);
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
