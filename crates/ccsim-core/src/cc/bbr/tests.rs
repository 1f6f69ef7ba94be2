//! BBR's rules one by one, driven by hand-made ACKs and rate samples (no simulation). MSS is
//! 1000 bytes; every ACK below ends a packet-timed round (its sample's prior_delivered is
//! the delivered count of the previous ACK), so "n ACKs" is "n rounds". Expected values are
//! the draft's and tcp_bbr.c's arithmetic, worked out beside each check.

use super::*;
use crate::units::Dur;

pub(super) const MSS: u64 = 1000;

pub(super) fn ms(x: u64) -> Dur {
    Dur::from_millis(x)
}

/// A BBR controller and the clock and counters of its hand-made path.
pub(super) struct Drive {
    pub(super) b: Bbr,
    pub(super) now: SimTime,
    delivered: u64,
}

/// One ACK: after `dt`, it delivers `acked` segments, carries an RTT sample `rtt` and a
/// rate sample of `rate` bytes/s over one RTT, with `in_flight` segments left (and
/// `prior` before it).
/// `pace_gap`: how long after the ACK the pacer lets the next segment leave.
#[derive(Clone, Copy)]
pub(super) struct Ack {
    pub(super) dt: Dur,
    pub(super) rate: f64,
    pub(super) rtt: Dur,
    pub(super) acked: u64,
    pub(super) in_flight: u64,
    pub(super) prior: u64,
    pub(super) app_limited: bool,
    pub(super) losses: u64,
    pub(super) state: CaState,
    pub(super) pace_gap: Dur,
    /// The rate sample's RTT (Linux's rs->rtt_us); `rtt` is the echoed timestamp's.
    pub(super) rs_rtt: Option<Dur>,
}

impl Default for Ack {
    fn default() -> Ack {
        Ack {
            dt: ms(100),
            rate: 1e6,
            rtt: ms(100),
            acked: 2,
            in_flight: 50,
            prior: 50,
            app_limited: false,
            losses: 0,
            state: CaState::Open,
            pace_gap: Dur::ZERO,
            rs_rtt: None,
        }
    }
}

impl Drive {
    pub(super) fn new() -> Drive {
        Drive::with(BbrConfig::default())
    }

    pub(super) fn with(p: BbrConfig) -> Drive {
        Drive {
            b: Bbr::new(Bytes(MSS), Bytes(10 * MSS), 1, p),
            now: SimTime::ZERO,
            delivered: 0,
        }
    }

    pub(super) fn ack(&mut self, a: Ack) {
        self.now = self.now + a.dt;
        let prior_delivered = self.delivered;
        let in_interval = (a.rate * a.rtt.secs()) as u64;
        self.delivered = (prior_delivered + a.acked * MSS).max(prior_delivered + 1);
        let rs = RateSample {
            delivered: Bytes(in_interval),
            interval: Some(a.rtt),
            prior_delivered: Bytes(prior_delivered),
            total_delivered: Bytes(self.delivered),
            is_app_limited: a.app_limited,
            acked_sacked: Bytes(a.acked * MSS),
            losses: Bytes(a.losses * MSS),
            prior_in_flight: Bytes(a.prior * MSS),
            ca_state: a.state,
            next_departure: self.now + a.pace_gap,
            rtt: a.rs_rtt,
        };
        let ev = AckEvent {
            now: self.now,
            rtt: Some(a.rtt),
            srtt: a.rtt,
            in_flight: Bytes(a.in_flight * MSS),
            in_recovery: a.state == CaState::Recovery,
            ..AckEvent::for_test(a.acked * MSS, a.rtt, MSS)
        };
        self.b.on_ack(&ev);
        self.b.on_rate_sample(&ev, &rs);
    }

    /// STARTUP at 1, 2, 4 MB/s then 4 MB/s for 3 rounds: the pipe is full at the 6th ACK.
    /// `in_flight` is kept high so that DRAIN does not end at once.
    pub(super) fn fill_pipe(&mut self) {
        for rate in [1e6, 2e6, 4e6, 4e6, 4e6, 4e6] {
            self.ack(Ack {
                rate,
                in_flight: 1000,
                prior: 1000,
                ..Ack::default()
            });
        }
    }

    /// Through DRAIN into PROBE_BW at 4 MB/s.
    pub(super) fn probe_bw(&mut self) {
        self.fill_pipe();
        self.ack(Ack {
            rate: 4e6,
            in_flight: 300,
            prior: 300,
            ..Ack::default()
        });
        assert_eq!(self.b.mode(), Mode::ProbeBw);
    }
}

#[test]
fn startup_paces_at_high_gain_times_the_initial_window_over_one_millisecond() {
    // draft-00 §4.2.1: no RTT yet, so the nominal bandwidth is 10 segments per 1 ms.
    let d = Drive::new();
    assert_eq!(d.b.mode(), Mode::Startup);
    assert_eq!(d.b.cwnd_segments(), 10);
    let want = 2.885_390_081_777_927 * 10_000.0 / 1e-3;
    assert!((d.b.pacing_bytes_per_sec() - want).abs() < 1.0);
    assert_eq!(d.b.ssthresh(), Bytes(u64::MAX));
}

#[test]
fn the_first_rtt_resets_the_initial_pacing_rate_from_srtt() {
    // tcp_bbr.c:292–293: 2.885 · 10 000 B / 100 ms once SRTT is known (the bandwidth
    // sample, 10 kB/s · 2.885, is lower and STARTUP never lowers the rate).
    let mut d = Drive::new();
    d.ack(Ack {
        rate: 1e4,
        ..Ack::default()
    });
    let want = 2.885_390_081_777_927 * 10_000.0 / 0.1;
    assert!(
        (d.b.pacing_bytes_per_sec() - want).abs() < 1.0,
        "{}",
        d.b.pacing_bytes_per_sec()
    );
}

#[test]
fn startup_grows_the_window_by_what_is_acked() {
    // Before the pipe is full cwnd only grows: +acked while below the target
    // 2.885·BtlBw·RTprop (tcp_bbr.c:543–544).
    let mut d = Drive::new();
    d.ack(Ack {
        rate: 1e6,
        acked: 4,
        ..Ack::default()
    });
    assert_eq!(d.b.cwnd_segments(), 14);
    d.ack(Ack {
        rate: 1e6,
        acked: 6,
        ..Ack::default()
    });
    assert_eq!(d.b.cwnd_segments(), 20);
}

#[test]
fn the_bandwidth_estimate_is_the_max_over_ten_rounds() {
    let mut d = Drive::new();
    d.ack(Ack {
        rate: 5e6,
        ..Ack::default()
    });
    for _ in 0..10 {
        d.ack(Ack {
            rate: 1e6,
            ..Ack::default()
        });
        assert_eq!(d.b.btl_bw(), 5e6);
    }
    // Round 12: the 5 MB/s sample of round 1 is more than 10 rounds old.
    d.ack(Ack {
        rate: 1e6,
        ..Ack::default()
    });
    assert_eq!(d.b.btl_bw(), 1e6);
}

#[test]
fn an_application_limited_sample_cannot_lower_the_estimate_but_can_raise_it() {
    let mut d = Drive::new();
    d.ack(Ack {
        rate: 2e6,
        ..Ack::default()
    });
    d.ack(Ack {
        rate: 1e6,
        app_limited: true,
        ..Ack::default()
    });
    assert_eq!(d.b.btl_bw(), 2e6);
    d.ack(Ack {
        rate: 3e6,
        app_limited: true,
        ..Ack::default()
    });
    assert_eq!(d.b.btl_bw(), 3e6);
}

#[test]
fn three_rounds_without_a_quarter_more_bandwidth_fill_the_pipe_and_start_drain() {
    let mut d = Drive::new();
    for rate in [1e6, 2e6, 4e6, 4e6, 4e6] {
        d.ack(Ack {
            rate,
            in_flight: 1000,
            prior: 1000,
            ..Ack::default()
        });
        assert_eq!(d.b.mode(), Mode::Startup);
    }
    // 4.9 MB/s is less than 1.25 · 4 MB/s: the third round without growth.
    d.ack(Ack {
        rate: 4.9e6,
        in_flight: 1000,
        prior: 1000,
        ..Ack::default()
    });
    assert!(d.b.filled_pipe());
    assert_eq!(d.b.mode(), Mode::Drain);
    assert!((d.b.pacing_gain() - 0.346_573_590_279_972_6).abs() < 1e-12);
    // ssthresh = inflight(BtlBw, 1): 4.9 MB/s · 100 ms = 490 segments, +3 = 493, even 494.
    assert_eq!(d.b.ssthresh(), Bytes(494 * MSS));
}

#[test]
fn growth_of_a_quarter_restarts_the_full_pipe_count() {
    let mut d = Drive::new();
    // Two rounds without growth, then 5 MB/s = 1.25 · 4 MB/s, which counts as growth: the
    // count starts again, and the pipe is full three rounds later.
    for rate in [4e6, 4e6, 4e6, 5e6, 5e6, 5e6] {
        d.ack(Ack {
            rate,
            in_flight: 1000,
            prior: 1000,
            ..Ack::default()
        });
        assert_eq!(d.b.mode(), Mode::Startup);
    }
    d.ack(Ack {
        rate: 5e6,
        in_flight: 1000,
        prior: 1000,
        ..Ack::default()
    });
    assert_eq!(d.b.mode(), Mode::Drain);
}

#[test]
fn drain_ends_when_the_flight_is_down_to_the_bdp() {
    let mut d = Drive::new();
    d.fill_pipe();
    assert_eq!(d.b.mode(), Mode::Drain);
    // inflight(4 MB/s, 1) = 400 + 3 → 404 segments.
    d.ack(Ack {
        rate: 4e6,
        in_flight: 405,
        prior: 405,
        ..Ack::default()
    });
    assert_eq!(d.b.mode(), Mode::Drain);
    d.ack(Ack {
        rate: 4e6,
        in_flight: 404,
        prior: 404,
        ..Ack::default()
    });
    assert_eq!(d.b.mode(), Mode::ProbeBw);
    assert_ne!(
        d.b.pacing_gain(),
        0.75,
        "PROBE_BW never starts in the draining phase"
    );
}

#[test]
fn probe_bw_cycles_the_eight_gains_one_phase_per_rtprop() {
    let mut d = Drive::new();
    d.probe_bw();
    // A phase ends when strictly more than RTprop (100 ms) passed, so ACKs 101 ms apart
    // end one phase each. The 5/4 phase also needs the flight at 5/4·BDP (600 ≥ 504).
    let mut gains = Vec::new();
    for _ in 0..16 {
        d.ack(Ack {
            dt: ms(101),
            rate: 4e6,
            in_flight: 600,
            prior: 600,
            ..Ack::default()
        });
        gains.push(d.b.pacing_gain());
    }
    let i = gains
        .iter()
        .position(|&g| g == 1.25)
        .expect("a probing phase");
    assert_eq!(
        &gains[i..i + 8],
        &[1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    );
}

#[test]
fn the_probing_phase_waits_for_its_flight_unless_a_loss_says_it_will_not_fit() {
    let mut d = Drive::new();
    d.probe_bw();
    let step = Ack {
        dt: ms(101),
        rate: 4e6,
        in_flight: 300,
        prior: 300,
        ..Ack::default()
    };
    while d.b.pacing_gain() != 1.25 {
        d.ack(step);
    }
    // inflight(4 MB/s, 1.25) = 500 + 3 → 504: a flight of 300 does not end the phase.
    d.ack(step);
    d.ack(step);
    assert_eq!(d.b.pacing_gain(), 1.25);
    d.ack(Ack { losses: 1, ..step });
    assert_eq!(d.b.pacing_gain(), 0.75);
    // The draining phase ends early once the flight is at most inflight(bw, 1) = 404.
    d.ack(Ack { dt: ms(1), ..step });
    assert_eq!(d.b.pacing_gain(), 1.0);
}

#[test]
fn in_probe_bw_the_window_is_two_bdp_plus_the_quantization_budget() {
    let mut d = Drive::new();
    d.probe_bw();
    for _ in 0..100 {
        d.ack(Ack {
            dt: ms(10),
            rate: 4e6,
            acked: 50,
            ..Ack::default()
        });
    }
    // 2 · 4 MB/s · 100 ms = 800 segments, + 3 = 803, even: 804.
    assert_eq!(d.b.cwnd_segments(), 804);
    assert_eq!(d.b.cwnd(), Bytes(804 * MSS));
}

#[test]
fn rtprop_ten_seconds_old_starts_probe_rtt_which_holds_four_packets_for_200_ms_and_a_round() {
    let mut d = Drive::new();
    d.probe_bw();
    let before = d.b.cwnd_segments();
    // RTT samples above RTprop (100 ms) never refresh it; at 10 s after the last refresh
    // the filter has expired.
    let slow = Ack {
        dt: ms(500),
        rate: 4e6,
        rtt: ms(120),
        acked: 0,
        ..Ack::default()
    };
    let t0 = d.now;
    while d.b.mode() != Mode::ProbeRtt {
        d.ack(slow);
        assert!(d.now.since(t0) <= Dur::from_secs(11));
    }
    assert_eq!(d.b.probe_rtt_count(), 1);
    assert!(d.now.since(SimTime::ZERO) > Dur::from_secs(10));
    assert_eq!(d.b.cwnd_segments(), 4);
    assert_eq!(d.b.pacing_gain(), 1.0);
    assert!(d.b.marks_app_limited());
    // The flight falls to 4 packets: 200 ms start now. A round ends on the next ACK, but
    // the 200 ms have not passed; at 201 ms both have.
    let low = Ack {
        dt: ms(100),
        rate: 4e6,
        rtt: ms(100),
        in_flight: 4,
        prior: 4,
        ..Ack::default()
    };
    d.ack(low);
    d.ack(low);
    assert_eq!(d.b.mode(), Mode::ProbeRtt);
    d.ack(Ack { dt: ms(101), ..low });
    assert_eq!(d.b.mode(), Mode::ProbeBw);
    // The window saved on entry is restored, then this ACK's 2 segments are added.
    assert_eq!(d.b.cwnd_segments(), before + 2);
    assert!(!d.b.marks_app_limited());
}

#[test]
fn recovery_conserves_packets_for_a_round_then_restores_the_window() {
    let mut d = Drive::new();
    d.probe_bw();
    for _ in 0..50 {
        d.ack(Ack {
            dt: ms(10),
            rate: 4e6,
            acked: 50,
            ..Ack::default()
        });
    }
    let full = d.b.cwnd_segments();
    assert_eq!(full, 804);
    d.b.on_congestion(&CongestionEvent {
        now: d.now,
        kind: CongestionKind::FastRetransmit,
        flight_size: Bytes(700 * MSS),
        mss: Bytes(MSS),
    });
    assert_eq!(
        d.b.cwnd_segments(),
        full,
        "BBR does not cut the window on a loss"
    );
    // First ACK in recovery: cwnd = in flight + acked = 600 + 2 (tcp_bbr.c:495–500).
    let rec = Ack {
        dt: ms(1),
        rate: 4e6,
        acked: 2,
        in_flight: 600,
        prior: 601,
        losses: 1,
        state: CaState::Recovery,
        ..Ack::default()
    };
    d.ack(rec);
    assert_eq!(d.b.cwnd_segments(), 602);
    // Still conserving within the round: max(cwnd − losses, in flight + acked).
    let cont = Ack {
        dt: ms(1),
        rate: 4e6,
        acked: 1,
        in_flight: 590,
        prior: 590,
        state: CaState::Recovery,
        ..Ack::default()
    };
    let mut d2_before = d.b.cwnd_segments();
    d.delivered -= 1; // keep the next sample inside the round recovery started
    d.ack(cont);
    assert_eq!(d.b.cwnd_segments(), d2_before.max(591));
    d2_before = d.b.cwnd_segments();
    // Recovery over: the window saved at its start comes back (tcp_bbr.c:501–504).
    d.ack(Ack {
        dt: ms(1),
        rate: 4e6,
        acked: 1,
        in_flight: 500,
        prior: 500,
        ..Ack::default()
    });
    assert!(d2_before < full);
    assert_eq!(d.b.cwnd_segments(), full);
}

#[test]
fn a_timeout_leaves_one_segment_and_the_window_grows_back_by_what_is_acked() {
    let mut d = Drive::new();
    d.probe_bw();
    d.b.on_congestion(&CongestionEvent {
        now: d.now,
        kind: CongestionKind::Timeout,
        flight_size: Bytes(300 * MSS),
        mss: Bytes(MSS),
    });
    assert_eq!(d.b.cwnd_segments(), 1);
    d.ack(Ack {
        dt: ms(300),
        rate: 4e6,
        acked: 1,
        in_flight: 0,
        prior: 1,
        state: CaState::Loss,
        ..Ack::default()
    });
    // cwnd + acked = 2, raised to the floor of min_cwnd = 4.
    assert_eq!(d.b.cwnd_segments(), 4);
}

#[test]
fn the_starting_phase_of_probe_bw_depends_on_the_seed_only() {
    let start = |seed| {
        let mut d = Drive::new();
        d.b = Bbr::new(Bytes(MSS), Bytes(10 * MSS), seed, BbrConfig::default());
        d.probe_bw();
        d.b.cycle_index
    };
    assert_eq!(start(7), start(7));
    let phases: std::collections::BTreeSet<usize> = (0..64).map(start).collect();
    assert!(!phases.contains(&1), "never the draining phase");
    assert_eq!(
        phases.len(),
        7,
        "seven possible starting phases: {phases:?}"
    );
}

#[test]
fn rtprop_expires_strictly_after_its_window() {
    // tcp_bbr.c `bbr_update_min_rtt`: PROBE_RTT starts when the clock is `after` the
    // stamp plus the window (strictly later), so an ACK exactly at the end of the window
    // keeps the estimate; the next one, a millisecond later, expires it.
    let mut d = Drive::new();
    d.probe_bw(); // every ACK so far sampled 100 ms: the stamp is the last one's time
    let later = Ack {
        rtt: ms(120),
        rate: 4e6,
        in_flight: 300,
        prior: 300,
        ..Ack::default()
    };
    d.ack(Ack {
        dt: ms(10_000),
        ..later
    });
    assert_eq!(
        d.b.mode(),
        Mode::ProbeBw,
        "at exactly 10 s the estimate holds"
    );
    d.ack(Ack { dt: ms(1), ..later });
    assert_eq!(d.b.mode(), Mode::ProbeRtt, "after 10 s it has expired");
}
