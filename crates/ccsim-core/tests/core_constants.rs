//! Engine-level checks of the core's constants. Every scenario is written in TOML and read
//! by the parser, so the parser's defaults are what runs; every check reads what a run
//! produces (time series, summaries, the sender's counters between steps) and compares it
//! with the arithmetic of the rule, never with a value computed by the code under test.
//!
//! - the window reduction at each loss: Reno ½·FlightSize (RFC 5681 eq. 4), CUBIC
//!   0.7·FlightSize (RFC 9438 §4.6), Westwood+ b̂·RTTmin (Grieco & Mascolo 2004);
//! - the fast-recovery inflation: one segment per duplicate ACK (RFC 5681 §3.2);
//! - the retransmission timer doubling during an outage, up to 60 s (RFC 6298 §5.5, §2.5);
//! - the DropTail limit, in packets and bytes, in both link models, and its default;
//! - the defaults: DupThresh 3 (with and without SACK), delayed ACKs of 100 ms for every
//!   second segment, an initial window of 3 segments and an initial RTO of 1 s.

use ccsim_core::ids::EndpointId;
use ccsim_core::results::{RunResult, Table};
use ccsim_core::scenario::{from_toml_str, TcpSpec, TransportSpec};
use ccsim_core::transport::Endpoint;
use ccsim_core::units::{Dur, SimTime};
use ccsim_core::Simulation;

const MSS: f64 = 1460.0;

fn simulation(toml: &str) -> Simulation {
    let sc = from_toml_str(toml, "core_constants").unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(sc).expect("a valid scenario")
}

fn run(toml: &str) -> RunResult {
    simulation(toml).finish()
}

fn column<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    let i = t.names.iter().position(|n| *n == name).expect("column");
    &t.columns[i]
}

/// One flow's samples: (time, cwnd in use, ssthresh), in time order.
fn flow_samples(r: &RunResult, flow: usize) -> Vec<(f64, f64, f64)> {
    let t = &r.series.flows;
    let (time, f, cwnd, ss) = (
        column(t, "time_s"),
        column(t, "flow"),
        column(t, "cwnd_bytes"),
        column(t, "ssthresh_bytes"),
    );
    (0..t.len())
        .filter(|&i| f[i] as usize == flow)
        .map(|i| (time[i], cwnd[i], ss[i]))
        .collect()
}

/// A congestion event seen in a flow's samples: ssthresh changed between two samples.
#[derive(Debug)]
struct Event {
    time: f64,
    /// The window in use just before (no inflation: the sender was not in recovery).
    cwnd_before: f64,
    ssthresh: f64,
    /// The window in use just after: ssthresh + 3·SMSS on a fast retransmit.
    cwnd_after: f64,
    /// The largest window in use from the event until the window first shrinks (the end of
    /// recovery deflates it).
    peak: f64,
}

/// The congestion events in a flow's samples: ssthresh changes, or the window shrinks
/// outside recovery (Westwood+ may set the ssthresh it already had). Recovery lasts from
/// an event until the window first shrinks again (the deflation at its end).
fn events(samples: &[(f64, f64, f64)]) -> Vec<Event> {
    let mut out = Vec::new();
    let mut in_recovery = false;
    for i in 1..samples.len() {
        let (time, cwnd_after, ssthresh) = samples[i];
        let (_, cwnd_before, ssthresh_before) = samples[i - 1];
        if in_recovery {
            in_recovery = cwnd_after >= cwnd_before;
            continue;
        }
        let new_ssthresh = !ssthresh.is_nan() && ssthresh != ssthresh_before;
        if !new_ssthresh && cwnd_after >= cwnd_before {
            continue;
        }
        in_recovery = true;
        let mut peak = cwnd_after;
        for s in &samples[i + 1..] {
            if s.1 < peak {
                break;
            }
            peak = s.1;
        }
        out.push(Event {
            time,
            cwnd_before,
            ssthresh,
            cwnd_after,
            peak,
        });
    }
    out
}

/// One flow over a 10 Mb/s bottleneck (20 ms each way, 1 ms access links) with a buffer
/// no window reaches (1000 packets) and single data packets dropped by script, far apart:
/// every congestion event is one loss, detected by duplicate ACKs. Every segment is
/// acknowledged at once (`delayed_ack = false`), so each segment after a hole brings one
/// duplicate ACK whatever the ACK pairing was. Traced every 200 µs, less than the 1.2 ms
/// a 1500-byte packet takes at 10 Mb/s, so no window change between two ACKs is missed.
fn scripted_losses(cc: &str, duration_s: u32, drops: &[u64]) -> String {
    format!(
        r#"
[simulation]
duration = "{duration_s}s"
[trace]
interval = "200us"
[[link]]
between = ["s", "r"]
rate = "100Mbps"
delay = "1ms"
[[link]]
from = "r"
to = "d"
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "1000p" }}
loss = {{ kind = "scripted", data_packets = {drops:?} }}
[[link]]
from = "d"
to = "r"
rate = "10Mbps"
delay = "20ms"
[[flow]]
name = "f"
from = "s"
to = "d"
cc = "{cc}"
delayed_ack = false
app = {{ kind = "bulk" }}
"#
    )
}

/// Eight losses in 20 s: the first in slow start, then about every 2 s.
const EIGHT_LOSSES: [u64; 8] = [150, 1200, 2700, 4300, 6200, 8200, 10500, 13000];

/// The fast-retransmit events of a scripted-loss run, after checking that the run lost
/// exactly the scripted packets and recovered from each without a timeout.
fn loss_events(cc: &str, duration_s: u32, drops: &[u64]) -> (RunResult, Vec<Event>) {
    let r = run(&scripted_losses(cc, duration_s, drops));
    let f = &r.flows[0];
    let n = drops.len() as u64;
    assert_eq!(f.drops.total(), n, "{cc}: only the scripted losses");
    assert_eq!(f.timeouts, 0, "{cc}");
    assert_eq!(f.fast_recoveries, n, "{cc}");
    let ev = events(&flow_samples(&r, 0));
    assert_eq!(ev.len() as u64, n, "{cc}: {ev:?}");
    for e in &ev {
        assert!(
            e.cwnd_after >= e.ssthresh + 3.0 * MSS,
            "{cc}: a fast retransmit: {e:?}"
        );
    }
    (r, ev)
}

/// FlightSize when the loss was detected: the sender keeps ⌊cwnd/SMSS⌋ segments out, and
/// duplicate ACKs change neither (the last sample before the event follows the last ACK
/// of new data, which comes at least two packet times before the third duplicate).
fn flight(e: &Event) -> f64 {
    (e.cwnd_before / MSS).floor() * MSS
}

#[test]
fn reno_sets_ssthresh_to_half_the_flight_size_at_each_loss() {
    // RFC 5681 §3.1 eq. (4): ssthresh = max(FlightSize/2, 2·SMSS).
    let (_, ev) = loss_events("reno", 20, &EIGHT_LOSSES);
    for e in &ev {
        let want = (flight(e) / 2.0).max(2.0 * MSS);
        assert!(
            (e.ssthresh - want).abs() <= 1.0,
            "ssthresh {} for {want}: {e:?}",
            e.ssthresh
        );
    }
}

#[test]
fn cubic_sets_ssthresh_to_0_7_of_the_flight_size_at_each_loss() {
    // RFC 9438 §4.6: ssthresh = max(flight_size·β_cubic, 2·SMSS), β_cubic = 0.7.
    let (_, ev) = loss_events("cubic", 20, &EIGHT_LOSSES);
    for e in &ev {
        let want = (0.7 * flight(e)).max(2.0 * MSS);
        assert!(
            (e.ssthresh - want).abs() <= 1.0,
            "ssthresh {} for {want}: {e:?}",
            e.ssthresh
        );
    }
}

#[test]
fn westwood_sets_ssthresh_to_the_bandwidth_estimate_times_rtt_min() {
    // Westwood+: ssthresh = b̂·RTTmin. One flow keeps the bottleneck busy (its window never
    // falls below the bandwidth-delay product), so b̂, its delivery rate, is the link's
    // payload rate 10 Mb/s · 1460/1500; RTTmin is the smallest RTT the run measured. The
    // estimate is an EWMA of per-round samples: after the slow-start ramp (first loss at
    // 0.3 s, while the estimate still rises) it is within a few per cent; 5 % is allowed.
    // Losses 7 s apart let the window grow to about four times the bandwidth-delay
    // product, so Reno's rule (half the flight) would give about twice as much.
    let (r, ev) = loss_events("westwood", 30, &[150, 6000, 12000, 18000, 24000]);
    let bdp = 10e6 / 8.0 * 1460.0 / 1500.0 * r.flows[0].rtt_min_s;
    for e in ev.iter().filter(|e| e.time > 2.0) {
        assert!(
            (e.ssthresh / bdp - 1.0).abs() < 0.05,
            "ssthresh {} for b̂·RTTmin {bdp}: {e:?}",
            e.ssthresh
        );
        assert!(e.ssthresh < 0.5 * flight(e), "{e:?}");
    }
}

#[test]
fn fast_recovery_inflates_the_window_by_one_segment_per_duplicate_ack() {
    // RFC 5681 §3.2 steps 3–4: cwnd = ssthresh + 3·SMSS at the third duplicate ACK, then
    // one SMSS per further duplicate. With one loss, every other segment of the flight
    // (FlightSize/SMSS − 1 of them) brings one duplicate ACK (segments sent in recovery
    // queue behind the retransmission and bring new ACKs), so the window peaks at
    // ssthresh + FlightSize − SMSS just before the retransmission is acknowledged.
    for cc in ["reno", "cubic", "westwood"] {
        let (_, ev) = loss_events(cc, 20, &EIGHT_LOSSES);
        for e in &ev {
            assert_eq!(e.cwnd_after, e.ssthresh.floor() + 3.0 * MSS, "{cc}: {e:?}");
            let want = e.ssthresh.floor() + flight(e) - MSS;
            assert_eq!(
                e.peak, want,
                "{cc}: peak window {}, expected {want}: {e:?}",
                e.peak
            );
        }
    }
}

/// The retransmission timer while the bottleneck is down from 10 s to 200 s: the times of
/// the timeouts from 10 s to 255 s, from the sender's counter read every millisecond.
fn timeouts_during_outage() -> Vec<f64> {
    let mut sim = simulation(
        r#"
[simulation]
duration = "260s"
[[link]]
between = ["s", "r"]
rate = "100Mbps"
delay = "1ms"
[[link]]
between = ["r", "d"]
rate = "10Mbps"
delay = "20ms"
[[flow]]
name = "f"
from = "s"
to = "d"
app = { kind = "bulk" }
[[event]]
at = "10s"
between = ["r", "d"]
action = "down"
[[event]]
at = "200s"
between = ["r", "d"]
action = "up"
"#,
    );
    let timeouts = |sim: &Simulation| match sim.endpoint(EndpointId(0)) {
        Endpoint::TcpSender(s) => s.stats.timeouts,
        _ => panic!("flow 0's sender is endpoint 0"),
    };
    sim.run_until(SimTime::ZERO + Dur::from_secs(10));
    let mut seen = timeouts(&sim);
    let mut times = Vec::new();
    for ms in 10_001..=255_000u64 {
        let t = SimTime::ZERO + Dur::from_millis(ms);
        sim.run_until(t);
        let n = timeouts(&sim);
        if n > seen {
            assert_eq!(n, seen + 1, "one timeout per millisecond at most");
            seen = n;
            times.push(t.secs());
        }
    }
    times
}

#[test]
fn the_retransmission_timer_doubles_during_an_outage_up_to_60_s() {
    // RFC 6298 §5.5: RTO ← 2·RTO at each expiry; §2.5: at most 60 s (the default maximum);
    // §2.4: the RTO before the outage is the 1 s minimum (the path's RTT is 43 ms). So the
    // first timeout comes within 1 s of the failure, and the next ones 2, 4, 8, 16, 32, 60
    // and 60 s apart; the link is back at 200 s, and the timeout after that (60 s later)
    // resends a segment that gets through: no more timeouts.
    let t = timeouts_during_outage();
    assert!(t[0] > 10.0 && t[0] <= 11.001, "first timeout at {}", t[0]);
    let gaps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    let want = [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0];
    assert_eq!(gaps.len(), want.len(), "timeouts at {t:?}");
    for (g, w) in gaps.iter().zip(want) {
        assert!((g - w).abs() < 0.0015, "gaps {gaps:?}, expected {want:?}");
    }
}

/// A UDP source at twice the rate of a 10 Mb/s link whose queue is `queue` (a TOML value,
/// or nothing for the default), with `link_model`; the link's queue traced every ms.
fn overloaded_queue(queue: Option<&str>, link_model: &str) -> f64 {
    let queue = queue.map_or(String::new(), |q| format!("queue = {q}"));
    let r = run(&format!(
        r#"
[simulation]
duration = "2s"
link_model = "{link_model}"
[trace]
interval = "1ms"
links = ["r->d"]
[[link]]
between = ["u", "r"]
rate = "100Mbps"
delay = "1ms"
[[link]]
from = "r"
to = "d"
rate = "10Mbps"
delay = "5ms"
{queue}
[[link]]
from = "d"
to = "r"
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "cbr"
from = "u"
to = "d"
transport = "udp"
app = {{ kind = "cbr", rate = "20Mbps", packet_size = "1500B" }}
"#
    ));
    assert!(
        r.links.iter().any(|l| l.drops.total() > 0),
        "the queue overflowed"
    );
    let t = &r.series.links;
    let packets = column(t, "queue_packets");
    let bytes = column(t, "queue_bytes");
    assert!(packets.iter().zip(bytes).all(|(p, b)| *b == p * 1500.0));
    packets.iter().copied().fold(0.0, f64::max)
}

#[test]
fn the_droptail_queue_holds_exactly_its_limit_in_both_link_models() {
    // docs/scenario.md: arrivals that find the queue full are dropped, the packet being
    // transmitted counting towards the limit; a byte limit admits a packet if it fits.
    // Default: 100 packets.
    for model in ["fast", "per_hop"] {
        let peak = |q: Option<&str>| overloaded_queue(q, model);
        assert_eq!(
            peak(Some(r#"{ kind = "droptail", limit = "25p" }"#)),
            25.0,
            "{model}"
        );
        assert_eq!(
            peak(Some(r#"{ kind = "droptail", limit = "30000B" }"#)),
            20.0,
            "{model}"
        );
        assert_eq!(
            peak(Some(r#"{ kind = "droptail", limit = "31499B" }"#)),
            20.0,
            "{model}"
        );
        assert_eq!(
            peak(Some(r#"{ kind = "droptail", limit = "31500B" }"#)),
            21.0,
            "{model}"
        );
        assert_eq!(peak(None), 100.0, "{model}: the default limit");
    }
}

/// A flow of `segments` full segments over a 10 Mb/s, 20 ms path (1 ms access links, a
/// 1000-packet buffer that never overflows), `recovery` (or the default), losing the data
/// packets `drops`.
fn transfer(segments: u64, recovery: Option<&str>, drops: &[u64]) -> RunResult {
    let recovery = recovery.map_or(String::new(), |r| format!("recovery = \"{r}\""));
    let loss = if drops.is_empty() {
        String::new()
    } else {
        format!("loss = {{ kind = \"scripted\", data_packets = {drops:?} }}")
    };
    run(&format!(
        r#"
[simulation]
duration = "20s"
[[link]]
between = ["s", "r"]
rate = "100Mbps"
delay = "1ms"
[[link]]
from = "r"
to = "d"
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "1000p" }}
{loss}
[[link]]
from = "d"
to = "r"
rate = "10Mbps"
delay = "20ms"
[[flow]]
name = "f"
from = "s"
to = "d"
{recovery}
app = {{ kind = "bulk", size = "{}B" }}
"#,
        segments * 1460
    ))
}

/// The path's round trip for a full segment and its ACK: propagation plus transmission.
fn base_rtt() -> f64 {
    let tx = |bytes: f64, bps: f64| bytes * 8.0 / bps;
    2.0 * 0.021 + tx(1500.0, 100e6) + tx(1500.0, 10e6) + tx(40.0, 10e6) + tx(40.0, 100e6)
}

#[test]
fn the_default_dupthresh_is_three_duplicate_acks_with_and_without_sack() {
    // RFC 5681 §3.2 (DupThresh 3) and RFC 6675 §5 (IsLost: DupThresh segments SACKed
    // above). Segment 16 is lost; ACKs go in pairs (delayed ACKs), so segment 15 has been
    // acknowledged, and each segment after the hole brings one duplicate ACK carrying one
    // more SACKed segment. Three after it (a 20-segment transfer): fast retransmit; two (19
    // segments): the retransmission timer.
    for recovery in [None, Some("sack")] {
        let three = &transfer(20, recovery, &[16]).flows[0];
        assert_eq!(
            (three.fast_recoveries, three.timeouts),
            (1, 0),
            "{recovery:?}"
        );
        let two = &transfer(19, recovery, &[16]).flows[0];
        assert_eq!((two.fast_recoveries, two.timeouts), (0, 1), "{recovery:?}");
        assert_eq!(two.bytes_delivered, 19 * 1460);
    }
    // IsLost on its own (RFC 6675 §4), once recovery runs: a second hole, 18, with exactly
    // three SACKed segments above it (19, 20, 21) is lost and resent in the same recovery
    // (pipe = 6 − 4 SACKed − 2 lost + 1 resent = 1 < cwnd = 3 segments): one fast recovery,
    // no timeout. (SACK recovery resends nothing on a partial ACK by itself.)
    let two_holes = &transfer(22, Some("sack"), &[16, 18]).flows[0];
    assert_eq!((two_holes.fast_recoveries, two_holes.timeouts), (1, 0));
    assert_eq!(two_holes.retransmissions, 2);
}

#[test]
fn the_default_delayed_ack_acknowledges_every_second_segment_or_after_100_ms() {
    // RFC 1122 §4.2.3.2 / RFC 5681 §4.2 with ns-2's 100 ms timer (docs/tcp.md §6). A lone
    // segment waits the full 100 ms: the only RTT sample is the path's plus 100 ms.
    let one = &transfer(1, None, &[]).flows[0];
    let want = base_rtt() + 0.100;
    assert!(
        (one.rtt_min_s - want).abs() < 1e-6,
        "{} for {want}",
        one.rtt_min_s
    );
    assert!((one.rtt_max_s - want).abs() < 1e-6);
    // A lossless transfer of 1000 segments: one ACK per two segments (give or take the
    // few the timer sends alone when the window leaves a segment unpaired).
    let r = transfer(1000, None, &[]);
    assert_eq!(r.flows[0].drops.total(), 0);
    let acks = r
        .links
        .iter()
        .find(|l| l.name == "d->r")
        .unwrap()
        .packets_out;
    assert!((500..=510).contains(&acks), "{acks} ACKs for 1000 segments");
}

#[test]
fn the_default_initial_window_is_three_segments_and_the_initial_rto_one_second() {
    // RFC 5681 §3.1: IW = 3 segments for SMSS 1460. Three segments arrive within the first
    // round trip; a fourth waits for the first ACK (about 1.5 round trips).
    let rtt = base_rtt();
    let three = transfer(3, None, &[]).flows[0].completion_time_s.unwrap();
    let four = transfer(4, None, &[]).flows[0].completion_time_s.unwrap();
    assert!(three < rtt, "{three}");
    assert!(four > rtt && four < 2.0 * rtt, "{four}");
    // RFC 6298 §2.1: RTO = 1 s before any RTT sample. The first segment lost, its two
    // successors bring only two duplicates: the timer resends it at 1 s.
    let late = transfer(3, None, &[0]).flows[0].clone();
    assert_eq!(late.timeouts, 1);
    let c = late.completion_time_s.unwrap();
    assert!(c > 1.0 && c < 1.0 + rtt, "{c}");
}

#[test]
fn after_a_timeout_no_fast_retransmit_starts_until_recover_is_acknowledged() {
    // A 200-segment NewReno transfer loses every fourth segment from 100 to 196 (25
    // holes, all sent before the first is detected). Fast retransmit starts at the first
    // (RFC 6582 §3.2 step 2); partial ACKs repair one hole per round trip and only the
    // first resets the timer (§3.2 step 3, §4 "Impatient"), so with 25 round trips of at
    // least 43 ms the timer expires (1 s). Go-back-N then resends segments the receiver
    // holds, and the three between each pair of holes bring three duplicate ACKs each;
    // recover was set to the highest segment sent, the last of the transfer (§3.2 step 4),
    // and no duplicate ACK covers it (step 1): no second fast retransmit, ever.
    let holes: Vec<u64> = (100..=196).step_by(4).collect();
    let f = &transfer(200, None, &holes).flows[0];
    assert_eq!(f.bytes_delivered, 200 * 1460);
    assert_eq!((f.fast_recoveries, f.timeouts), (1, 1));
}

#[test]
fn the_sender_tests_default_configuration_is_what_the_parser_fills_in() {
    // The TCP sender's unit tests build their configuration from `TcpSpec::default()`; it
    // must be the parser's defaults for a flow that sets nothing but a greedy application.
    let sc = from_toml_str(
        r#"
[simulation]
duration = "1s"
[[link]]
between = ["s", "d"]
rate = "10Mbps"
delay = "10ms"
[[flow]]
name = "f"
from = "s"
to = "d"
app = { kind = "bulk" }
"#,
        "defaults",
    )
    .unwrap();
    let TransportSpec::Tcp(parsed) = &sc.flows[0].transport else {
        panic!("a TCP flow by default");
    };
    assert_eq!(format!("{parsed:?}"), format!("{:?}", TcpSpec::default()));
}
