//! BBR's model update and state machine, run on every ACK in the order of `bbr_update_model`
//! (tcp_bbr.c:1016–1025): bandwidth filter and round counting, the PROBE_BW gain cycle,
//! STARTUP's full-pipe check, DRAIN's exit, the RTprop filter with PROBE_RTT, and the gains
//! of the new state.

use super::{Bbr, RttSample, ACK_EPOCH_RESET, CYCLE_LEN, CYCLE_RAND, PACING_GAIN_CYCLE};
use crate::cc::{AckEvent, RateSample};
use crate::units::Dur;

/// BBR's four states (draft-00 §4.3; tcp_bbr.c:81–86).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ramp up at high_gain until the bandwidth stops growing.
    Startup,
    /// Drain the queue STARTUP built.
    Drain,
    /// Cycle the pacing gain around the estimated bandwidth.
    ProbeBw,
    /// Hold the flight at min_cwnd to measure RTprop.
    ProbeRtt,
}

impl Bbr {
    pub(super) fn update_model(&mut self, ev: &AckEvent, rs: &RateSample, in_flight: u64) {
        self.update_bw(rs);
        self.update_ack_aggregation(rs);
        self.update_cycle_phase(rs);
        self.check_full_bw_reached(rs);
        self.check_drain(in_flight);
        self.update_min_rtt(ev, rs, in_flight);
        self.update_gains();
    }

    /// Count packet-timed rounds and feed the max filter (`bbr_update_bw`,
    /// tcp_bbr.c:761–811; draft-00 §4.1.1.3–4.1.1.5). A round ends when a packet sent after
    /// the previous round ended is delivered. Application-limited samples count only if
    /// they do not lower the estimate.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate() else {
            return; // not a valid observation
        };
        if rs.prior_delivered.0 >= self.next_round_delivered {
            self.next_round_delivered = rs.total_delivered.0;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw
                .update(self.p.bw_window_rounds, self.round_count, bw);
        }
    }

    /// The excess of data delivered over BtlBw·time since an ACK epoch began, kept as a
    /// max over the last `extra_acked_window_rounds`..2× rounds, for the window's
    /// aggregation allowance (`bbr_update_ack_aggregation`, tcp_bbr.c:814–863). An epoch
    /// restarts when the ACKs fall behind BtlBw (or after 2²⁰ segments).
    fn update_ack_aggregation(&mut self, rs: &RateSample) {
        let acked = rs.acked_sacked.0.div_ceil(self.mss);
        if self.p.extra_acked_gain == 0.0 || acked == 0 || rs.interval.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(0x1F);
            if self.extra_acked_rounds >= self.p.extra_acked_window_rounds {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0;
            }
        }
        let epoch = self.delivered_time.since(self.ack_epoch_stamp);
        let mut expected = (self.btl_bw() * epoch.secs() / self.mss as f64) as u64;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + acked >= ACK_EPOCH_RESET {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = self.delivered_time;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(ACK_EPOCH_RESET - 1);
        let extra = self.ack_epoch_acked.saturating_sub(expected).min(self.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        *slot = (*slot).max(extra);
    }

    /// Move to the next gain phase when it is time (`bbr_is_next_cycle_phase` and
    /// `bbr_update_cycle_phase`, tcp_bbr.c:554–608; draft-00 §4.3.4.3): a phase lasts
    /// RTprop; the 5/4 phase also waits until the flight reached 5/4·BDP (or a loss says
    /// it will not fit), the 3/4 phase ends early once the flight fell to the BDP.
    fn update_cycle_phase(&mut self, rs: &RateSample) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let min_rtt = self.min_rtt.unwrap_or_default();
        let full_length = self.delivered_time.since(self.cycle_stamp) > min_rtt;
        let prior_in_flight = self.in_net_at_edt(rs.prior_in_flight.0 / self.mss);
        let bw = self.btl_bw();
        let gain = self.pacing_gain;
        let next = if gain == 1.0 {
            full_length
        } else if gain > 1.0 {
            full_length && (rs.losses.0 > 0 || prior_in_flight >= self.inflight(bw, gain))
        } else {
            full_length || prior_in_flight <= self.inflight(bw, 1.0)
        };
        if next {
            self.advance_cycle_phase();
        }
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_index = (self.cycle_index + 1) % CYCLE_LEN;
        self.cycle_stamp = self.delivered_time;
    }

    /// STARTUP filled the pipe once BtlBw grew by less than full_bw_growth in
    /// full_bw_rounds consecutive non-application-limited rounds
    /// (`bbr_check_full_bw_reached`, tcp_bbr.c:873–890; draft-00 §4.3.2.2).
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.filled_pipe || !self.round_start || rs.is_app_limited {
            return;
        }
        let max_bw = self.btl_bw();
        if max_bw >= self.full_bw * self.p.full_bw_growth {
            self.full_bw = max_bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.filled_pipe = self.full_bw_count >= self.p.full_bw_rounds;
    }

    /// STARTUP → DRAIN when the pipe is full; DRAIN → PROBE_BW once the flight is down to
    /// the BDP (`bbr_check_drain`, tcp_bbr.c:893–906; draft-00 §4.3.3).
    fn check_drain(&mut self, in_flight: u64) {
        let bw = self.btl_bw();
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.ssthresh = Some(self.inflight(bw, 1.0));
        }
        if self.mode == Mode::Drain && self.in_net_at_edt(in_flight) <= self.inflight(bw, 1.0) {
            self.enter_probe_bw();
        }
    }

    /// PROBE_BW starts in a random phase other than the draining one
    /// (`bbr_reset_probe_bw_mode`, tcp_bbr.c:617–624; draft-00 §4.3.4.3).
    fn enter_probe_bw(&mut self) {
        self.mode = Mode::ProbeBw;
        let r = (self.rng.next_u64() % CYCLE_RAND) as usize;
        self.cycle_index = CYCLE_LEN - 1 - r;
        self.advance_cycle_phase();
    }

    /// The RTprop filter and PROBE_RTT (`bbr_update_min_rtt`, tcp_bbr.c:941–985;
    /// `bbr_check_probe_rtt_done`, 908–920; draft-00 §4.1.2.3, §4.3.5). An RTT sample
    /// replaces RTprop if not higher (draft-00's `≤`; Linux 6.12 has `<`, tcp_bbr.c:951),
    /// or if RTprop is older than min_rtt_window, which also
    /// starts PROBE_RTT. PROBE_RTT lasts probe_rtt_time and at least one round from the
    /// moment the flight fell to min_cwnd, then returns to PROBE_BW (or STARTUP if the pipe
    /// was never filled) with the saved window.
    fn update_min_rtt(&mut self, ev: &AckEvent, rs: &RateSample, in_flight: u64) {
        let now = ev.now;
        let expired = now > self.min_rtt_stamp + self.p.min_rtt_window;
        let sample = match self.p.rtt_sample {
            RttSample::Timestamp => ev.rtt,
            RttSample::Linux => rs.rtt,
        };
        if let Some(rtt) = sample {
            let lower = |m: Dur| rtt < m || (!self.p.min_rtt_strict && rtt == m);
            if self.min_rtt.is_none_or(lower) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_count += 1;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if in_flight <= self.p.min_cwnd => {
                self.probe_rtt_done = Some(now + self.p.probe_rtt_time);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = rs.total_delivered.0;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.min_rtt_stamp = now;
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw();
                    } else {
                        self.mode = Mode::Startup;
                    }
                }
            }
        }
    }

    /// The gains of each state (`bbr_update_gains`, tcp_bbr.c:987–1014; draft-00 §4.3).
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.p.high_gain, self.p.high_gain),
            Mode::Drain => (self.p.drain_gain, self.p.high_gain),
            Mode::ProbeBw => (PACING_GAIN_CYCLE[self.cycle_index], self.p.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }
}
