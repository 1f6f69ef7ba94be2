//! The stack profiles' effects on a run (issue #19): each scenario changes only `stack` (or
//! one key beside it), and the outcome follows from the profile's values.

use ccsim_core::results::{RunResult, Table};
use ccsim_core::scenario::from_toml_str;
use ccsim_core::Simulation;

fn run(toml: &str) -> RunResult {
    let sc = from_toml_str(toml, "stack_profiles").unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(sc).expect("a valid scenario").finish()
}

/// One bulk flow over one link.
fn one_flow(flow_keys: &str, rate: &str, delay: &str, loss: f64, secs: u32) -> RunResult {
    let app = if flow_keys.contains("app =") {
        ""
    } else {
        "app = \"bulk\"\n"
    };
    run(&format!(
        "[simulation]\nduration = \"{secs}s\"\nseed = 3\n\
         [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"{rate}\"\ndelay = \"{delay}\"\n\
         queue = {{ kind = \"droptail\", limit = 1000 }}\nloss = {loss}\n\
         [[flow]]\nfrom = \"a\"\nto = \"b\"\n{app}{flow_keys}\n"
    ))
}

/// ns2: window_ 20 packets of packetSize_ 1000 B caps a loss-free flow at 20 packets per
/// RTT, whatever the link allows (rfc: unlimited window, link-limited).
#[test]
fn ns2_profile_caps_the_window_at_window_and_sends_1000_byte_payloads() {
    // 100 Mb/s, RTT 100 ms: 20 · 1000 B per 0.1 s = 1.6 Mb/s of goodput.
    let ns2 = one_flow("stack = \"ns2\"", "100Mbps", "50ms", 0.0, 20);
    let f = &ns2.flows[0];
    let bound = 20.0 * 1000.0 * 8.0 / 0.1;
    assert!(
        (f.goodput_bps / bound - 1.0).abs() < 0.05,
        "goodput {} against {bound}",
        f.goodput_bps
    );
    assert_eq!(f.bytes_delivered % 1000, 0, "whole 1000-byte payloads");
    let rfc = one_flow("", "100Mbps", "50ms", 0.0, 20);
    assert!(
        rfc.flows[0].goodput_bps > 20.0 * bound,
        "{}",
        rfc.flows[0].goodput_bps
    );
    // An explicit key beats the profile: window_ 40 doubles it.
    let w40 = one_flow(
        "stack = \"ns2\"\nmax_window = 40",
        "100Mbps",
        "50ms",
        0.0,
        20,
    );
    let ratio = w40.flows[0].goodput_bps / f.goodput_bps;
    assert!((ratio - 2.0).abs() < 0.1, "{ratio}");
}

/// linux: the 200 ms RTO floor (TCP_RTO_MIN) instead of RFC 6298's 1 s. With heavy loss on
/// a short path a flow spends much of its time waiting for timeouts, so the profile's floor
/// gives far more goodput than the same profile with the RFC's floor written explicitly.
#[test]
fn linux_profile_rto_floor_recovers_from_timeouts_sooner() {
    let linux = one_flow("stack = \"linux\"", "10Mbps", "5ms", 0.05, 60);
    let floor_1s = one_flow(
        "stack = \"linux\"\nrto = { min = \"1s\" }",
        "10Mbps",
        "5ms",
        0.05,
        60,
    );
    let (l, s) = (&linux.flows[0], &floor_1s.flows[0]);
    assert!(
        l.timeouts > 20 && s.timeouts > 10,
        "{} {}",
        l.timeouts,
        s.timeouts
    );
    assert!(
        l.goodput_bps > 1.25 * s.goodput_bps,
        "{} against {}",
        l.goodput_bps,
        s.goodput_bps
    );
}

/// `[simulation] stack` reaches every flow that names none; a flow's own stack wins.
#[test]
fn simulation_stack_is_every_flows_default() {
    let r = run("[simulation]\nduration = \"20s\"\nstack = \"ns2\"\n\
         [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"100Mbps\"\ndelay = \"50ms\"\n\
         [[flow]]\nname = \"n\"\nfrom = \"a\"\nto = \"b\"\napp = \"bulk\"\n\
         [[flow]]\nname = \"r\"\nfrom = \"a\"\nto = \"b\"\napp = \"bulk\"\nstack = \"rfc\"\n");
    let bound = 20.0 * 1000.0 * 8.0 / 0.1;
    assert!(
        (r.flows[0].goodput_bps / bound - 1.0).abs() < 0.05,
        "{}",
        r.flows[0].goodput_bps
    );
    assert!(
        r.flows[1].goodput_bps > 5.0 * bound,
        "{}",
        r.flows[1].goodput_bps
    );
}

/// ns2: the agent opens with a 40-byte SYN (`syn_`, `delay_growth_`): a short transfer ends
/// one round trip later than the same profile without the handshake.
#[test]
fn ns2_profile_starts_with_a_syn_one_round_trip_before_data() {
    let done = |keys: &str| {
        let r = one_flow(
            &format!("stack = \"ns2\"\napp = {{ kind = \"bulk\", size = \"10000B\" }}\n{keys}"),
            "10Mbps",
            "50ms",
            0.0,
            5,
        );
        r.flows[0]
            .completion_time_s
            .expect("the transfer completes")
    };
    let (syn, none) = (done(""), done("handshake = false"));
    let shift = syn - none;
    // One RTT (100 ms) plus the SYN's and SYN-ACK's serialisation (40 B each at 10 Mb/s).
    assert!((0.100..0.101).contains(&shift), "{syn} − {none} = {shift}");
}

fn column<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    let i = t.names.iter().position(|n| *n == name).expect("column");
    &t.columns[i]
}

/// The first finite ssthresh of flow 0, in segments of `mss` bytes.
fn first_ssthresh(r: &RunResult, mss: f64) -> Option<f64> {
    let t = &r.series.flows;
    let (f, ss) = (column(t, "flow"), column(t, "ssthresh_bytes"));
    (0..t.len())
        .find(|&i| f[i] == 0.0 && ss[i].is_finite())
        .map(|i| ss[i] / mss)
}

/// linux, CUBIC: HyStart ends slow start by its ACK train at a window of 59 on the kernel
/// bench's 1-BDP path (10 Mb/s, 40 ms, 33 packets; the 6.18 kernel's traced exit, docs/
/// validation.md §6). The train needs the receiver to acknowledge every
/// segment at the start of a flight, which it does while its window grows (`rcv_autotune`):
/// without that the ACKs come every second segment, 2.4 ms apart, no train forms and the
/// exit comes later, by the delay rule.
#[test]
fn linux_profile_cubic_leaves_slow_start_by_the_ack_train_as_the_kernel() {
    let with = run(&bench_path("cubic", 33, ""));
    assert_eq!(first_ssthresh(&with, 1448.0), Some(59.0));
    let without = run(&bench_path("cubic", 33, "rcv_autotune = false"));
    let later = first_ssthresh(&without, 1448.0).expect("an exit");
    assert!(later > 70.0, "{later}");
}

/// The kernel bench's path (10 Mb/s, 40 ms, a DropTail of `limit` packets) for 1 s, one
/// `linux` flow of `cc` with `extra` keys, sampled every 20 ms.
fn bench_path(cc: &str, limit: u32, extra: &str) -> String {
    format!(
        "[simulation]\nduration = \"1s\"\nseed = 1\n\
         [trace]\ninterval = \"20ms\"\n\
         [[link]]\nfrom = \"r1\"\nto = \"r2\"\nrate = \"10Mbps\"\ndelay = \"20ms\"\n\
         queue = {{ kind = \"droptail\", limit = {limit} }}\n\
         [[link]]\nfrom = \"r2\"\nto = \"r1\"\nrate = \"10Mbps\"\ndelay = \"20ms\"\n\
         queue = {{ kind = \"droptail\", limit = {limit} }}\n\
         [[link]]\nbetween = [\"s\", \"r1\"]\nrate = \"10Gbps\"\ndelay = \"0ms\"\n\
         [[link]]\nbetween = [\"r2\", \"d\"]\nrate = \"10Gbps\"\ndelay = \"0ms\"\n\
         [[flow]]\nfrom = \"s\"\nto = \"d\"\ncc = \"{cc}\"\nstack = \"linux\"\n\
         mss = 1448\nheader = 52\napp = \"bulk\"\n{extra}\n"
    )
}

/// Flow 0's sampled windows (segments of 1448 B) up to and including the first sample with
/// a finite ssthresh.
fn windows_to_first_ssthresh(r: &RunResult) -> Vec<f64> {
    let t = &r.series.flows;
    let (f, cw, ss) = (
        column(t, "flow"),
        column(t, "cwnd_bytes"),
        column(t, "ssthresh_bytes"),
    );
    let mut out = Vec::new();
    for i in (0..t.len()).filter(|&i| f[i] == 0.0) {
        out.push(cw[i] / 1448.0);
        if ss[i].is_finite() {
            break;
        }
    }
    out
}

/// linux, BBR: `bbr_init` runs at establishment and starts RTprop at the handshake's RTT
/// (tcp_bbr.c:1053), 40.1 ms here, not the data's 41.3 ms; STARTUP's window target
/// 2.885·BtlBw·RTprop + 3 TSO bursts is then 104 segments and DRAIN's ssthresh (one BDP)
/// 40, the kernel bench's values for every kernel run with 33 or 133 packets of buffer
/// (docs/validation.md §6, "BBR"; 106 and 42 before).
#[test]
fn linux_bbr_starts_rtprop_at_the_handshake_rtt() {
    for limit in [33, 133] {
        let r = run(&bench_path("bbr", limit, ""));
        assert_eq!(first_ssthresh(&r, 1448.0), Some(40.0), "limit {limit}");
        let w = windows_to_first_ssthresh(&r);
        let plateau = w[..w.len() - 1].iter().cloned().fold(0.0, f64::max);
        assert_eq!(plateau, 104.0, "limit {limit}");
    }
}

/// linux, PRR's window as the kernel reports it: RFC 6937's cwnd = pipe + sndcnt steps down
/// over the recovery's round trip (the kernel's Reno with one BDP of buffer: 130, 107, 82,
/// 67 in its 20 ms samples), where the window in use by the rules before PRR fell to
/// ssthresh at once.
#[test]
fn linux_prr_window_steps_down_to_ssthresh_over_the_recovery() {
    let r = run(&bench_path("reno", 33, ""));
    let t = &r.series.flows;
    let (f, cw, ss) = (
        column(t, "flow"),
        column(t, "cwnd_bytes"),
        column(t, "ssthresh_bytes"),
    );
    let rows: Vec<usize> = (0..t.len()).filter(|&i| f[i] == 0.0).collect();
    let first = rows
        .iter()
        .position(|&i| ss[i].is_finite())
        .expect("a loss");
    let ssthresh = ss[rows[first]] / 1448.0;
    let steps: Vec<f64> = rows[first..first + 4]
        .iter()
        .map(|&i| cw[i] / 1448.0)
        .collect();
    assert!(steps[0] > ssthresh + 20.0, "{steps:?}, ssthresh {ssthresh}");
    assert!(steps.windows(2).all(|p| p[1] <= p[0]), "{steps:?}");
    assert_eq!(steps[3], ssthresh, "{steps:?}");
}

/// The mean of flow 0's sampled srtt after `from` seconds.
fn mean_srtt(r: &RunResult, from: f64) -> f64 {
    let t = &r.series.flows;
    let (time, f, srtt) = (column(t, "time_s"), column(t, "flow"), column(t, "srtt_s"));
    let v: Vec<f64> = (0..time.len())
        .filter(|&i| f[i] == 0.0 && time[i] >= from && srtt[i].is_finite())
        .map(|i| srtt[i])
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// linux, SACK compression (docs/tcp.md §6): with random loss it holds a recovery's SACKs
/// after the third, so a segment sent on a held SACK starts its delivery-rate sample 1.1 ms
/// late, its own (unheld) ACK ends it on time, and BBR's bandwidth estimate
/// rises above the bottleneck: more is queued, the srtt grows (the kernel bench's 10⁻² case:
/// 48.1 ms without, 52.6 with, the kernel 51.8; docs/validation.md §6, "BBR").
#[test]
fn linux_sack_compression_raises_bbrs_queue_under_loss() {
    let keys = "stack = \"linux\"\ncc = \"bbr\"\nmss = 1448\nheader = 52\n";
    let with = one_flow(keys, "10Mbps", "20ms", 0.005, 40);
    let without = one_flow(
        &format!("{keys}sack_compress = false\n"),
        "10Mbps",
        "20ms",
        0.005,
        40,
    );
    let (a, b) = (mean_srtt(&with, 10.0), mean_srtt(&without, 10.0));
    assert!(a > b + 0.0015, "srtt with {a} s, without {b} s");
}
