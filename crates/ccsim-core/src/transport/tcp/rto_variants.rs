//! The two non-RFC retransmission-timer estimators, as their sources compute them (the
//! arithmetic is written here from the rules; nothing is copied):
//!
//! - **Linux** (`net/ipv4/tcp_input.c` `tcp_rtt_estimator`, lines 884–950 of Linux 6.12;
//!   `tcp_set_rto` 989 and `__tcp_set_rto`, `include/net/tcp.h` 775): srtt and the mean
//!   deviation are kept scaled (8·srtt, 4·mdev). A falling RTT moves mdev with gain 1/32
//!   instead of 1/4; `rttvar` follows the largest mdev of the current window of data, never
//!   below rto_min, and decays by a quarter of its excess once per window. RTO = srtt +
//!   rttvar, so rto_min is a floor on the variance term, not on the RTO.
//! - **ns-2** (`tcp/tcp.cc` `rtt_update` 565–609, `rtt_timeout` 529–561, `rtt_backoff`
//!   611–627 of ns-2.35): every quantity is an integer number of `tcpTick_` ticks, srtt kept
//!   with 3 fractional bits and rttvar with 2 (`T_SRTT_BITS`, `T_RTTVAR_BITS`);
//!   rtxcur = srtt + 4·rttvar (`rttvar_exp_` 2), truncated to a whole tick.
//!
//! Times are nanoseconds (Linux works in microseconds; only the rounding differs).

/// Linux's estimator state (all nanoseconds; `srtt8` = 8·srtt, 0 before the first sample).
#[derive(Clone, Debug, Default)]
pub struct LinuxRtt {
    srtt8: u64,
    /// 4·mdev (`mdev_us`).
    mdev4: u64,
    /// Largest `mdev4` in the current window (`mdev_max_us`).
    mdev_max: u64,
    /// The variance term of the RTO (`rttvar_us`), at least rto_min.
    rttvar: u64,
    /// snd.nxt when the current window started (`rtt_seq`).
    rtt_seq: u64,
}

impl LinuxRtt {
    /// One measurement `m`, with snd.una after the ACK and snd.nxt, and rto_min.
    pub fn sample(&mut self, m: u64, una: u64, nxt: u64, rto_min: u64) {
        if self.srtt8 == 0 {
            // No previous measure (tcp_input.c:940–946): srtt = m, mdev = m/2 so RTO = 3m.
            self.srtt8 = m << 3;
            self.mdev4 = m << 1;
            self.rttvar = self.mdev4.max(rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = nxt;
        } else {
            let mut err = m as i64 - (self.srtt8 >> 3) as i64;
            self.srtt8 = (self.srtt8 as i64 + err) as u64; // srtt += err/8
            let quarter = (self.mdev4 >> 2) as i64;
            if err < 0 {
                // A falling RTT (909–921): the deviation moves with gain 1/4 · 1/8.
                err = -err - quarter;
                if err > 0 {
                    err >>= 3;
                }
            } else {
                err -= quarter;
            }
            self.mdev4 = (self.mdev4 as i64 + err) as u64; // mdev = 3/4 mdev + 1/4 |err|
            if self.mdev4 > self.mdev_max {
                self.mdev_max = self.mdev4;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            // Once per window of data (931–935): decay rttvar towards the window's maximum.
            if una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = nxt;
                self.mdev_max = rto_min;
            }
        }
        self.srtt8 = self.srtt8.max(1);
    }

    /// srtt + rttvar (`__tcp_set_rto`), before the jiffy rounding and the backoff.
    pub fn base_rto(&self) -> Option<u64> {
        (self.srtt8 != 0).then(|| (self.srtt8 >> 3) + self.rttvar)
    }

    /// The smoothed RTT, 0 before the first sample.
    pub fn srtt(&self) -> u64 {
        self.srtt8 >> 3
    }
}

/// ns-2's estimator state, in ticks (`t_srtt_` = 8·srtt, `t_rttvar_` = 4·rttvar; 0 before
/// the first sample) and the current timeout `t_rtxcur_` in nanoseconds.
#[derive(Clone, Debug, Default)]
pub struct Ns2Rtt {
    srtt8: i64,
    rttvar4: i64,
    rtxcur: Option<u64>,
}

impl Ns2Rtt {
    /// With timestamps (`ts_option_`): int(tao/tick + 0.5), at least 1 (tcp.cc:569, 577).
    pub fn ticks_rounded(tao: u64, tick: u64) -> i64 {
        if tick == 0 {
            return 1;
        }
        ((tao + tick / 2) / tick).max(1) as i64
    }

    /// Without timestamps: the clock ticks crossed between `sent` and `now`,
    /// int((tao + sendtime mod tick)/tick), at least 1 (tcp.cc:571–578; boot_time_ = 0).
    pub fn ticks_crossed(
        sent: crate::units::SimTime,
        now: crate::units::SimTime,
        tick: u64,
    ) -> i64 {
        if tick == 0 {
            return 1;
        }
        (now.0 / tick - sent.0 / tick).max(1) as i64
    }

    /// One measurement of `t_rtt` ticks (tcp.cc:586–599).
    pub fn sample(&mut self, t_rtt: i64, tick: u64) {
        if self.srtt8 != 0 {
            let mut delta = t_rtt - (self.srtt8 >> 3); // d = m − srtt
            self.srtt8 += delta; // srtt = 7/8 srtt + 1/8 m
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 += delta; // rttvar = 3/4 rttvar + 1/4 |d|
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            self.srtt8 = t_rtt << 3; // srtt = rtt
            self.rttvar4 = t_rtt << 1; // rttvar = rtt/2
        }
        // rtxcur = srtt + 2^rttvar_exp_·rttvar, in whole ticks (tcp.cc:605–606).
        let ticks = ((self.rttvar4 << 3) + self.srtt8) >> 3;
        self.rtxcur = Some(ticks as u64 * tick);
    }

    /// `rtt_backoff` past a multiplier of 8: the next sample starts afresh (t_srtt_ = 0).
    pub fn forget_srtt(&mut self) {
        self.srtt8 = 0;
    }

    /// The timeout before clamping and backoff; `None` before the first sample
    /// (`rtxcur_init_` applies).
    pub fn rtxcur(&self) -> Option<u64> {
        self.rtxcur
    }

    /// The smoothed RTT, (t_srtt_ >> 3) ticks.
    pub fn srtt(&self, tick: u64) -> u64 {
        (self.srtt8.max(0) >> 3) as u64 * tick
    }
}
