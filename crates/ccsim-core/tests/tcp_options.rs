//! The TCP options of issues #19, #27 and #16 in whole scenarios: each option's effect on
//! a run, against the same run without it (docs/tcp.md §10). The rules themselves are
//! unit-tested next to their code (`transport/tcp/sender_tests.rs`, `rto.rs`, `prr.rs`,
//! `cc/vegas.rs`, `cc/westwood.rs`, `cc/coupled/mod.rs`).

use ccsim_core::ids::EndpointId;
use ccsim_core::results::{FlowSummary, RunResult};
use ccsim_core::scenario::from_toml_str;
use ccsim_core::transport::Endpoint;
use ccsim_core::units::{Dur, SimTime};
use ccsim_core::Simulation;

fn run(toml: &str) -> RunResult {
    let sc = from_toml_str(toml, "<test>").unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(sc).unwrap().finish()
}

fn flow0(r: &RunResult) -> &FlowSummary {
    &r.flows[0]
}

/// s → r (1 Gb/s, 1 ms) → d (`rate`, `owd_ms` − 1 ms, `queue` packets, `loss`), ACKs back
/// the same way without loss; one TCP flow with the extra keys `flow`.
fn path(secs: f64, rate: &str, owd_ms: f64, queue: u32, loss: &str, flow: &str) -> String {
    format!(
        "[simulation]\nduration = \"{secs}s\"\nseed = 1\n\
         [trace]\nflows = \"all\"\nlinks = \"all\"\ninterval = \"100ms\"\n\
         [[link]]\nbetween = [\"s\", \"r\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"\n\
         queue = {{ kind = \"droptail\", limit = \"1000p\" }}\n\
         [[link]]\nfrom = \"r\"\nto = \"d\"\nrate = \"{rate}\"\ndelay = \"{d}ms\"\n\
         queue = {{ kind = \"droptail\", limit = \"{queue}p\" }}\nloss = {loss}\n\
         [[link]]\nfrom = \"d\"\nto = \"r\"\nrate = \"{rate}\"\ndelay = \"{d}ms\"\n\
         queue = {{ kind = \"droptail\", limit = \"{queue}p\" }}\n\
         [[flow]]\nname = \"f\"\nfrom = \"s\"\nto = \"d\"\n{flow}\n",
        d = owd_ms - 1.0
    )
}

/// The values of flow series column `name` for flow 0 from `t0` on.
fn series_from(r: &RunResult, name: &str, t0: f64) -> Vec<f64> {
    let t = &r.series.flows;
    let col = |n: &str| &t.columns[t.names.iter().position(|x| *x == n).unwrap()];
    col("time_s")
        .iter()
        .zip(col(name))
        .filter(|(t, _)| **t >= t0)
        .map(|(_, v)| *v)
        .collect()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn limited_transmit_turns_first_flight_losses_into_fast_retransmits() {
    // The first segment of a three-segment initial window is lost: two duplicate ACKs,
    // so without limited transmit only the RTO (1 s) repairs it (RFC 3042 §1).
    let one = |lt: bool| {
        let flow = format!(
            "app = {{ kind = \"bulk\", size = \"100KB\" }}\ndelayed_ack = false\n\
             limited_transmit = {lt}"
        );
        run(&path(
            5.0,
            "10Mbps",
            50.0,
            100,
            "{ kind = \"scripted\", data_packets = [0] }",
            &flow,
        ))
    };
    let (off, on) = (one(false), one(true));
    assert_eq!((flow0(&off).timeouts, flow0(&off).fast_recoveries), (1, 0));
    assert_eq!((flow0(&on).timeouts, flow0(&on).fast_recoveries), (0, 1));
    let done = |r: &RunResult| flow0(r).completion_time_s.unwrap();
    assert!(
        done(&on) + 0.5 < done(&off),
        "{} vs {}",
        done(&on),
        done(&off)
    );

    // 100 short transfers over a 5 % loss link: limited transmit repairs most first-flight
    // losses by fast retransmit instead of a timeout.
    let many = |lt: bool| {
        let toml = path(
            60.0,
            "100Mbps",
            25.0,
            1000,
            "0.05",
            &format!(
                "count = 100\napp = {{ kind = \"bulk\", size = \"30KB\", start = [\"0s\", \"40s\"] }}\n\
                 limited_transmit = {lt}"
            ),
        );
        let r = run(&toml);
        let sum = |f: fn(&FlowSummary) -> u64| r.flows.iter().map(f).sum::<u64>();
        (sum(|f| f.timeouts), sum(|f| f.fast_recoveries))
    };
    let (to_off, fr_off) = many(false);
    let (to_on, fr_on) = many(true);
    eprintln!("timeouts {to_off} → {to_on}, fast recoveries {fr_off} → {fr_on}");
    assert!((to_on as f64) < 0.7 * to_off as f64, "{to_on} vs {to_off}");
    assert!(fr_on > fr_off);
}

#[test]
fn prr_completes_sooner_than_rfc6675_after_one_or_ten_losses() {
    // PRR sends during the first half of recovery (one segment per two delivered) where
    // RFC 6675 waits for pipe to fall below cwnd, and its slow-start bound rebuilds the
    // flight after many losses: the same retransmissions, an earlier completion.
    let t = |recovery: &str, drops: &str| {
        let flow = format!(
            "app = {{ kind = \"bulk\", size = \"584000B\" }}\ndelayed_ack = false\n\
             recovery = \"{recovery}\""
        );
        let loss = format!("{{ kind = \"scripted\", data_packets = {drops} }}");
        let r = run(&path(20.0, "10Mbps", 50.0, 1000, &loss, &flow));
        let f = flow0(&r);
        assert_eq!(
            (f.timeouts, f.fast_recoveries),
            (0, 1),
            "{recovery} {drops}"
        );
        (f.completion_time_s.unwrap(), f.retransmissions)
    };
    for drops in ["[60]", "[60, 61, 62, 63, 64, 65, 66, 67, 68, 69]"] {
        let (sack, sack_rx) = t("sack", drops);
        let (prr, prr_rx) = t("prr", drops);
        eprintln!("{drops}: sack {sack:.4} s, prr {prr:.4} s");
        assert_eq!(sack_rx, prr_rx);
        assert!(prr < sack, "{drops}: prr {prr} sack {sack}");
    }
}

#[test]
fn linux_rto_avoids_the_spurious_timeouts_of_rfc6298_over_a_bdp_queue() {
    // One Reno flow, 10 Mb/s, 100 ms, a one-BDP buffer, rto.min 200 ms (#16's DAIMD path
    // A): the queue doubles the RTT within a few round trips, faster than RFC 6298's
    // per-ACK-smoothed RTTVAR follows, and the RFC timer fires while data is still in
    // flight. Linux's variance term never falls below rto_min.
    let r = |estimator: &str| {
        let flow = format!(
            "app = \"bulk\"\nrecovery = \"sack\"\nrto = {{ min = \"200ms\", estimator = \"{estimator}\" }}"
        );
        run(&path(100.0, "10Mbps", 50.0, 83, "0", &flow))
    };
    let (rfc, linux) = (r("rfc6298"), r("linux"));
    let drops = |r: &RunResult| r.links.iter().map(|l| l.drops.total()).sum::<u64>();
    let (f, l) = (flow0(&rfc), flow0(&linux));
    eprintln!(
        "rfc6298: {} timeouts, {} retransmissions, {} drops; linux: {} timeouts, {} \
         retransmissions, {} drops",
        f.timeouts,
        f.retransmissions,
        drops(&rfc),
        l.timeouts,
        l.retransmissions,
        drops(&linux)
    );
    assert!(f.timeouts >= 3 && f.retransmissions > 2 * drops(&rfc));
    assert_eq!(l.timeouts, 0);
    assert_eq!(
        l.retransmissions,
        drops(&linux),
        "one retransmission per drop"
    );
    assert!(l.goodput_bps > 1.1 * f.goodput_bps);
}

#[test]
fn ssthresh_from_pipe_cuts_deeper_and_from_cwnd_less_deep_than_flight_size() {
    // 2 % random loss: at a fast retransmit the pipe is FlightSize less the three SACKed
    // segments and the lost one, so halving it leaves a smaller ssthresh and less goodput.
    let r = |from: &str, extra: &str, loss: &str| {
        let flow = format!(
            "app = \"bulk\"\nrecovery = \"sack\"\nssthresh_from = \"{from}\"\n{extra}\n\
             rto = {{ min = \"200ms\", restart_at_fast_retransmit = true }}"
        );
        run(&path(100.0, "10Mbps", 50.0, 200, loss, &flow))
    };
    let ss = |r: &RunResult| mean(&series_from(r, "ssthresh_bytes", 5.0)) / 1460.0;
    let (flight, pipe) = (r("flight_size", "", "0.02"), r("pipe", "", "0.02"));
    eprintln!(
        "mean ssthresh: flight {:.2}, pipe {:.2} segments",
        ss(&flight),
        ss(&pipe)
    );
    assert!(ss(&pipe) < 0.8 * ss(&flight));
    assert!(flow0(&pipe).goodput_bps < flow0(&flight).goodput_bps);
    // A receiver window of 20 below a larger cwnd (0.5 % loss): FlightSize is 20 at most,
    // cwnd grows past it.
    let w20 = "max_window = 20";
    let (flight, cwnd) = (r("flight_size", w20, "0.005"), r("cwnd", w20, "0.005"));
    eprintln!(
        "window 20: flight {:.2}, cwnd {:.2}",
        ss(&flight),
        ss(&cwnd)
    );
    assert!(ss(&cwnd) > 1.1 * ss(&flight));
}

#[test]
fn the_handshake_delays_every_event_by_one_syn_round_trip() {
    // A lossless 100 KB transfer: with the handshake, data starts when the SYN-ACK
    // arrives, so completion moves by the SYN's round trip: 2 × (1 + 49) ms of
    // propagation plus a 40-byte packet's transmission on each of the four links
    // (2 × 0.32 µs at 1 Gb/s, 2 × 32 µs at 10 Mb/s) = 100.06464 ms.
    let t = |hs: bool| {
        let flow = format!("app = {{ kind = \"bulk\", size = \"100KB\" }}\nhandshake = {hs}");
        flow0(&run(&path(5.0, "10Mbps", 50.0, 100, "0", &flow)))
            .completion_time_s
            .unwrap()
    };
    let shift = t(true) - t(false);
    assert!((shift - 0.100_064_64).abs() < 1e-9, "{shift}");
}

#[test]
fn vegas_linux_slow_start_exit_leaves_a_smaller_standing_queue() {
    // 10 Mb/s, 500 ms, a deep buffer, every segment acknowledged: slow start overshoots
    // before Vegas sees the queue. ns-2's exit keeps 7/8 of the overshoot, which Vegas
    // then drains by one packet per round trip; Linux's sets the window the measured rate
    // supports (cwnd·BaseRTT/RTT + 1).
    let queue_at = |exit: &str, t: f64| {
        let flow = format!(
            "app = \"bulk\"\nrecovery = \"sack\"\ndelayed_ack = false\n\
             cc = {{ kind = \"vegas\", ss_exit = \"{exit}\" }}"
        );
        let r = run(&path(25.0, "10Mbps", 250.0, 5000, "0", &flow));
        let l = &r.series.links;
        let col = |n: &str| &l.columns[l.names.iter().position(|x| *x == n).unwrap()];
        let (time, link, q) = (col("time_s"), col("link"), col("queue_packets"));
        (0..time.len())
            .find(|&i| link[i] == 2.0 && (time[i] - t).abs() < 1e-9)
            .map(|i| q[i])
            .unwrap()
    };
    let (ns2, linux) = (queue_at("ns2", 20.0), queue_at("linux", 20.0));
    eprintln!("queue at 20 s: ns2 exit {ns2}, linux exit {linux}");
    assert!(ns2 > 500.0, "the overshoot this test is about");
    assert!(linux < 0.6 * ns2);
}

#[test]
fn westwood_per_ack_counting_grows_half_as_fast_with_delayed_acks() {
    // One early loss ends slow start; then a lossless path with a deep buffer. Counting
    // bytes, cwnd grows about one segment per RTT; counting ACKs (one per two segments with
    // delayed ACKs) about half a segment.
    let slope = |counting: &str| {
        let flow = format!(
            "app = \"bulk\"\nrecovery = \"sack\"\ncc = {{ kind = \"westwood\", counting = \"{counting}\" }}"
        );
        let r = run(&path(
            30.0,
            "100Mbps",
            50.0,
            5000,
            "{ kind = \"scripted\", data_packets = [30] }",
            &flow,
        ));
        let w = series_from(&r, "cwnd_bytes", 10.0);
        (w[w.len() - 1] - w[0]) / (w.len() - 1) as f64
    };
    let ratio = slope("per_ack") / slope("bytes");
    eprintln!("per-ACK / per-byte growth: {ratio:.3}");
    assert!((0.4..0.65).contains(&ratio), "{ratio}");
}

#[test]
fn sack_option_bytes_add_twelve_bytes_to_each_one_block_ack() {
    // A window of 10 segments, one lost: the nine segments behind the hole each draw an
    // ACK with one SACK block (RFC 2018: 2 + 8 bytes, padded to 12); nothing else changes
    // on the ACK path.
    let acks = |on: bool| {
        let flow = format!(
            "app = {{ kind = \"bulk\", size = \"292000B\" }}\ndelayed_ack = false\n\
             max_window = 10\ninit_cwnd = 10\nsack_option_bytes = {on}"
        );
        let r = run(&path(
            5.0,
            "10Mbps",
            50.0,
            1000,
            "{ kind = \"scripted\", data_packets = [20] }",
            &flow,
        ));
        let l = r.links.iter().find(|l| l.name == "d->r").unwrap();
        (l.packets_out, l.bytes_out)
    };
    let ((n0, b0), (n1, b1)) = (acks(false), acks(true));
    assert_eq!(n0, n1);
    assert_eq!(b1 - b0, 9 * 12);
}

#[test]
fn restarting_the_timer_at_fast_retransmit_removes_timeouts_when_the_rto_is_two_rtts() {
    // rto.min 200 ms over a 100 ms path: a fast retransmit is acknowledged about two RTTs
    // after the last new ACK restarted the timer, so the RFC 6298 timer (not restarted
    // at the retransmission) often expires first; ns-2 restarts it there.
    let timeouts = |restart: bool| {
        let flow = format!(
            "app = \"bulk\"\ndelayed_ack = false\n\
             rto = {{ min = \"200ms\", restart_at_fast_retransmit = {restart} }}"
        );
        flow0(&run(&path(100.0, "10Mbps", 50.0, 100, "0.03", &flow))).timeouts
    };
    let (off, on) = (timeouts(false), timeouts(true));
    eprintln!("timeouts: {off} without the restart, {on} with it");
    assert!((on as f64) < 0.6 * off as f64, "{on} vs {off}");
}

#[test]
fn one_timed_segment_gives_one_sample_per_round_trip() {
    // A lossless 200 ms path with a 20-segment window: every ACK (one per two segments)
    // carries a sample with timestamps, about 50 per second; one timed segment per RTT
    // gives at most one per 200 ms.
    let samples = |mode: &str| {
        let toml = path(
            10.0,
            "10Mbps",
            100.0,
            100,
            "0",
            &format!("app = \"bulk\"\nmax_window = 20\nrto = {{ samples = \"{mode}\" }}"),
        );
        let sc = from_toml_str(&toml, "<test>").unwrap();
        let mut sim = Simulation::new(sc).unwrap();
        sim.run_until(SimTime::ZERO + Dur::from_secs(10));
        match sim.endpoint(EndpointId(0)) {
            Endpoint::TcpSender(s) => s.rtt().sample_count(),
            _ => unreachable!(),
        }
    };
    let (every, timed) = (samples("every_ack"), samples("one_per_rtt"));
    eprintln!("samples in 10 s: every ACK {every}, timed segment {timed}");
    assert!((40..=50).contains(&timed), "{timed}");
    assert!(every > 8 * timed);
}

#[test]
fn new_ack_samples_drop_exactly_the_duplicate_acks_samples() {
    // RFC 7323 §4's RTTM rule (`rto.samples = "new_ack"`): only ACKs that advance SND.UNA
    // give samples. Without loss (a 20-segment window never fills the 100-packet queue)
    // every ACK does, so both modes take the same samples; with 3 % loss the duplicate
    // ACKs (each echoing the out-of-order segment that caused it) no longer do. Without
    // Karn's rule (`rto.karn = false`) the ACKs echoing a retransmission add theirs.
    let samples = |loss: &str, rto: &str| {
        let toml = path(
            20.0,
            "10Mbps",
            50.0,
            100,
            loss,
            &format!("app = \"bulk\"\nrecovery = \"sack\"\nmax_window = 20\nrto = {{ {rto} }}"),
        );
        let sc = from_toml_str(&toml, "<test>").unwrap();
        let mut sim = Simulation::new(sc).unwrap();
        sim.run_until(SimTime::ZERO + Dur::from_secs(20));
        match sim.endpoint(EndpointId(0)) {
            Endpoint::TcpSender(s) => s.rtt().sample_count(),
            _ => unreachable!(),
        }
    };
    let (every_ack, new_ack) = ("samples = \"every_ack\"", "samples = \"new_ack\"");
    assert_eq!(samples("0", every_ack), samples("0", new_ack));
    let (every, new) = (samples("0.03", every_ack), samples("0.03", new_ack));
    eprintln!("samples in 20 s at 3 % loss: every ACK {every}, new ACKs only {new}");
    assert!(
        new > 0 && (new as f64) < 0.95 * every as f64,
        "{new} vs {every}"
    );
    let no_karn = samples("0.03", "samples = \"new_ack\", karn = false");
    eprintln!("new ACKs only, without Karn's rule: {no_karn}");
    assert!(no_karn > new, "{no_karn} vs {new}");
}

#[test]
fn the_ns2_estimator_keeps_srtt_in_whole_ticks() {
    // ns-2 measures in tcpTick_ units: every smoothed RTT is a whole number of 10 ms ticks
    // (the path's RTT, 105 ms plus queueing, is not).
    let srtts = |rto: &str| {
        let flow = format!("app = \"bulk\"\nrecovery = \"sack\"\nrto = {rto}");
        series_from(
            &run(&path(10.0, "10Mbps", 52.5, 50, "0.01", &flow)),
            "srtt_s",
            1.0,
        )
    };
    let whole = |x: f64| ((x * 100.0) - (x * 100.0).round()).abs() < 1e-6;
    let ns2 = srtts("{ estimator = \"ns2\", granularity = \"10ms\" }");
    assert!(ns2.iter().all(|&s| whole(s)), "{ns2:?}");
    let rfc = srtts("{}");
    assert!(rfc.iter().filter(|&&s| !whole(s)).count() > rfc.len() / 2);
}
