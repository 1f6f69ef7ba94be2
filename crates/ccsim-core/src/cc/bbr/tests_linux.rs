//! Linux's additions to BBR v1 (the linux profile's `cc.bbr.*` values), one rule per test,
//! driven by the hand-made ACKs of `tests.rs` (MSS 1000 B, every ACK ends a round; the
//! PROBE_BW path has BtlBw 4 MB/s = 4 segments/ms and RTprop 100 ms, so BDP = 400
//! segments). Expected values are tcp_bbr.c's arithmetic, worked out beside each check.

use super::tests::{ms, Ack, Drive};
use super::*;

fn cfg() -> BbrConfig {
    BbrConfig::default()
}

/// ACKs of `acked` segments every 10 ms at 4 MB/s in PROBE_BW.
fn steady(acked: u64) -> Ack {
    Ack {
        dt: ms(10),
        rate: 4e6,
        acked,
        ..Ack::default()
    }
}

#[test]
fn the_pacing_margin_paces_one_percent_below_gain_times_bandwidth() {
    let draft = Drive::new();
    let mut d = Drive::with(BbrConfig {
        pacing_margin: 0.01,
        ..cfg()
    });
    // bbr_init_pacing_rate_from_rtt goes through bbr_bw_to_pacing_rate, margin included.
    let ratio = d.b.pacing_bytes_per_sec() / draft.b.pacing_bytes_per_sec();
    assert!((ratio - 0.99).abs() < 1e-12, "{ratio}");
    d.probe_bw();
    for _ in 0..20 {
        d.ack(steady(40));
        let want = d.b.pacing_gain() * 4e6 * 0.99;
        assert!((d.b.pacing_bytes_per_sec() - want).abs() < 1e-6);
    }
}

#[test]
fn the_tso_goal_is_a_millisecond_of_pacing_at_least_two_segments_above_1_2_mbps() {
    let mut b = Drive::with(BbrConfig {
        quantization: Quantization::Linux,
        ..cfg()
    })
    .b;
    // (pacing rate B/s, segments): below 150 kB/s one segment; then max(rate/1024/MSS, 2);
    // the GSO limit 65536 − 1 − 320 B caps it at 65 segments of 1000 B.
    for (rate, segs) in [
        (100e3, 1),
        (149_999.0, 1),
        (150e3, 2),
        (1e6, 2),
        (4e6, 3),
        (5e6, 4),
        (1e9, 65),
        (1e12, 65),
    ] {
        b.pacing_rate = rate;
        assert_eq!(b.tso_segs_goal(), segs, "pacing {rate}");
    }
    let mut draft = Drive::new().b;
    draft.pacing_rate = 1e9;
    assert_eq!(draft.tso_segs_goal(), 1);
}

#[test]
fn linux_quantization_adds_three_tso_bursts_and_two_more_in_the_probing_phase() {
    let mut d = Drive::with(BbrConfig {
        quantization: Quantization::Linux,
        ..cfg()
    });
    d.probe_bw();
    let (mut probing, mut cruising) = (None, None);
    for _ in 0..200 {
        d.ack(steady(50));
        let gain = d.b.pacing_gain();
        if gain > 1.0 {
            probing = Some(d.b.cwnd_segments());
        } else if gain == 1.0 {
            cruising = Some(d.b.cwnd_segments());
        }
    }
    // 5/4 phase: pacing 5 MB/s, goal 4: 800 + 12 = 812 (even), + 2 = 814.
    assert_eq!(probing, Some(814));
    // gain 1: pacing 4 MB/s, goal 3: 800 + 9 = 809, rounded up to even: 810.
    assert_eq!(cruising, Some(810));
}

#[test]
fn ack_aggregation_widens_the_window_by_the_recent_excess_for_five_to_ten_rounds() {
    let mut d = Drive::with(BbrConfig {
        extra_acked_gain: 1.0,
        ..cfg()
    });
    // Not before the pipe is full (bbr_ack_aggregation_cwnd's bbr_full_bw_reached()).
    d.ack(Ack::default());
    assert_eq!(d.b.aggregation_cwnd(4e6), 0);
    d.probe_bw();
    for _ in 0..30 {
        d.ack(steady(40));
    }
    // 40 segments per 10 ms is exactly BtlBw: every epoch restarts, and an epoch's first
    // ACK counts whole: extra = 40; target 800 + 40 + 3 = 843, even 844.
    assert_eq!(d.b.cwnd_segments(), 844);
    // A 100-segment ACK: the epoch restarts (40 ≤ 40 expected), extra = 100: 904.
    d.ack(steady(100));
    assert_eq!(d.b.cwnd_segments(), 904);
    // While ACKs keep up with BtlBw the epoch goes on and its excess stays 100; ACKs at
    // half the rate (40 per 20 ms) end it: 140 − 80 = 60 on the first, then the epoch
    // restarts (140 ≤ 160) and every ACK is its own epoch's 40. The filter keeps the 100
    // for at least 5 rounds…
    let slow = Ack {
        dt: ms(20),
        ..steady(40)
    };
    for _ in 0..4 {
        d.ack(slow);
        assert_eq!(d.b.cwnd_segments(), 904);
    }
    // …and forgets it (and the 60) within 10 rounds of each.
    for _ in 0..7 {
        d.ack(slow);
    }
    assert_eq!(d.b.cwnd_segments(), 844);
}

#[test]
fn ack_aggregation_is_capped_at_extra_acked_max_of_bandwidth() {
    let mut d = Drive::with(BbrConfig {
        extra_acked_gain: 1.0,
        extra_acked_max: ms(5),
        ..cfg()
    });
    d.probe_bw();
    for _ in 0..30 {
        d.ack(steady(40));
    }
    // min(40, 4 segments/ms · 5 ms = 20): 800 + 20 + 3 = 823, even 824.
    assert_eq!(d.b.cwnd_segments(), 824);
}

#[test]
fn the_flight_at_the_next_departure_subtracts_what_btlbw_delivers_until_then() {
    let mut d = Drive::with(BbrConfig { edt: true, ..cfg() });
    d.probe_bw();
    d.ack(Ack {
        pace_gap: ms(2),
        ..steady(40)
    });
    // 2 ms at 4 segments/ms: 8 delivered before the next departure.
    d.b.pacing_gain = 1.0;
    assert_eq!(d.b.in_net_at_edt(100), 92);
    assert_eq!(d.b.in_net_at_edt(5), 0);
    // Probing adds the departing burst (one segment without Linux quantization).
    d.b.pacing_gain = 1.25;
    assert_eq!(d.b.in_net_at_edt(100), 93);
    let mut off = Drive::new();
    off.probe_bw();
    off.ack(Ack {
        pace_gap: ms(2),
        ..steady(40)
    });
    assert_eq!(off.b.in_net_at_edt(100), 100);
}

#[test]
fn drain_ends_once_the_flight_at_the_next_departure_is_down_to_the_bdp() {
    // DRAIN's target at gain 1: 400 + 3 = 403, even 404. A flight of 410 with the next
    // departure 2 ms away is 402 in the network then.
    let drain_ack = Ack {
        rate: 4e6,
        in_flight: 410,
        prior: 410,
        pace_gap: ms(2),
        ..Ack::default()
    };
    let mut edt = Drive::with(BbrConfig { edt: true, ..cfg() });
    edt.fill_pipe();
    assert_eq!(edt.b.mode(), Mode::Drain);
    edt.ack(drain_ack);
    assert_eq!(edt.b.mode(), Mode::ProbeBw);
    let mut now = Drive::new();
    now.fill_pipe();
    now.ack(drain_ack);
    assert_eq!(now.b.mode(), Mode::Drain);
}

#[test]
fn with_a_strict_filter_equal_rtt_samples_do_not_postpone_probe_rtt() {
    let probe_rtts = |strict: bool| {
        let mut d = Drive::with(BbrConfig {
            min_rtt_strict: strict,
            ..cfg()
        });
        d.probe_bw();
        // Every sample equals RTprop (100 ms), one every 500 ms for 12 s.
        while d.now.since(SimTime::ZERO) < Dur::from_secs(12) {
            d.ack(Ack {
                dt: ms(500),
                acked: 0,
                rate: 4e6,
                ..Ack::default()
            });
        }
        d.b.probe_rtt_count()
    };
    // `<`: RTprop was set at the first ACK (0.1 s) and expires after 10 s.
    assert_eq!(probe_rtts(true), 1);
    // `≤`: each equal sample renews it.
    assert_eq!(probe_rtts(false), 0);
}

#[test]
fn bbr_sets_its_own_window_in_recovery() {
    assert!(Drive::new().b.sets_window_in_recovery());
}

#[test]
fn rtprop_takes_the_rtt_sample_the_profile_names() {
    // The ACK's echoed timestamp says 100 ms, the rate sample's (Linux's rs->rtt_us) 90.
    let drive = |rtt_sample: RttSample| {
        let mut d = Drive::with(BbrConfig {
            rtt_sample,
            ..cfg()
        });
        d.ack(Ack {
            rs_rtt: Some(ms(90)),
            ..Ack::default()
        });
        d.b.rt_prop()
    };
    assert_eq!(drive(RttSample::Timestamp), Some(ms(100)));
    assert_eq!(drive(RttSample::Linux), Some(ms(90)));
}

#[test]
fn the_handshake_rtt_starts_rtprop_and_the_window_target_uses_it() {
    // bbr_init (at establishment): min_rtt_us = tcp_min_rtt(tp), the SYN-ACK's 100 ms,
    // stamped then; the pacing rate from srtt at once (has_seen_rtt). The data's samples,
    // one serialisation longer (101 ms), do not replace it (strict or not: they are higher).
    let mut d = Drive::new();
    d.b.on_established(SimTime::ZERO + ms(1), ms(100), ms(100));
    assert_eq!(d.b.rt_prop(), Some(ms(100)));
    let want = 2.885 * 10.0 * 1000.0 / 0.1; // init_cwnd 10 of 1000 B over 100 ms
    assert!((d.b.pacing_bytes_per_sec() / want - 1.0).abs() < 1e-3);
    for _ in 0..5 {
        d.ack(Ack {
            rtt: ms(101),
            ..Ack::default()
        });
    }
    assert_eq!(d.b.rt_prop(), Some(ms(100)));
    // The filter expires 10 s after establishment (at 1 ms; now 501 ms → 10.101 s).
    d.ack(Ack {
        dt: ms(9_600),
        rtt: ms(101),
        ..Ack::default()
    });
    assert_eq!(
        d.b.rt_prop(),
        Some(ms(101)),
        "expired: the new sample replaces it"
    );
    // Without a handshake sample (Karn's rule withheld it) nothing is seeded.
    let mut k = Drive::new();
    k.b.on_established(SimTime::ZERO, Dur::ZERO, Dur::ZERO);
    assert_eq!(k.b.rt_prop(), None);
}
