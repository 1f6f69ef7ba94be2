//! SCTP/CMT in whole simulations: RFC 4960 behaviour on one path, CMT over two pinned
//! paths, and data integrity under random loss.

use ccsim_core::ids::EndpointId;
use ccsim_core::scenario::from_toml_str;
use ccsim_core::transport::sctp::{SctpReceiver, SctpSender};
use ccsim_core::transport::Endpoint;
use ccsim_core::{RunResult, Simulation};

fn run(toml: &str) -> (RunResult, SctpSender, SctpReceiver) {
    let sc = from_toml_str(toml, "<test>").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc).unwrap();
    sim.run_until(sim.end_time());
    let tx = match sim.endpoint(EndpointId(0)) {
        Endpoint::SctpSender(s) => s.clone(),
        _ => unreachable!(),
    };
    let rx = match sim.endpoint(EndpointId(1)) {
        Endpoint::SctpReceiver(r) => r.clone(),
        _ => unreachable!(),
    };
    (sim.finish(), tx, rx)
}

/// One path s–r–d: 10 Mb/s access, a 1 Mb/s bottleneck with `loss`.
fn single_path(loss: f64, size: &str, secs: u32, cc: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{secs}s"
seed = 3
[trace]
interval = "100ms"
[[link]]
between = ["s", "r"]
rate = "10Mbps"
delay = "5ms"
[[link]]
between = ["r", "d"]
rate = "1Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "50p" }}
loss = {loss}
[[flow]]
name = "a"
from = "s"
to = "d"
transport = "sctp"
cc = "{cc}"
app = {{ kind = "bulk", size = "{size}" }}
"#
    )
}

#[test]
fn single_path_fills_the_bottleneck_and_delivers_everything() {
    let (r, tx, rx) = run(&single_path(0.0, "2MB", 60, "cmt"));
    let f = &r.flows[0];
    assert_eq!(f.transport, "sctp");
    assert_eq!(rx.bytes_delivered, 2_000_000);
    assert_eq!(rx.duplicates, 0);
    let t = f.completion_time_s.expect("completes");
    // 2 MB at 1 Mb/s with 1452/1500 efficiency is ≈ 16.5 s; rwnd 64 KB ≫ BDP.
    assert!(t < 19.0, "completion {t}");
    assert!(tx.done());
    assert!(r.conservation.holds());
}

#[test]
fn no_data_lost_under_random_loss() {
    for cc in ["cmt", "berp"] {
        let (r, tx, rx) = run(&single_path(0.05, "500KB", 200, cc));
        assert_eq!(rx.bytes_delivered, 500_000, "{cc}");
        assert_eq!(rx.tsns_delivered, 500_000u64.div_ceil(1452), "{cc}");
        assert!(tx.stats.retransmissions > 0, "{cc}");
        assert!(r.flows[0].completion_time_s.is_some());
        assert!(r.conservation.holds());
        // the flow's summary names the controller the scenario asked for
        assert_eq!(r.flows[0].cc, cc);
    }
}

/// Dual-homed S and D over two disjoint paths S–a–D and S–b–D (1 Mb/s bottlenecks with
/// one-way delays `d1`, `d2` ms); `extra` goes into the flow table.
fn two_paths(d1: u32, d2: u32, loss: f64, size: &str, secs: u32, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{secs}s"
seed = 5
[trace]
interval = "100ms"
[[link]]
between = ["s", "a"]
rate = "10Mbps"
delay = "1ms"
loss = {loss}
[[link]]
between = ["a", "d"]
rate = "1Mbps"
delay = "{d1}ms"
queue = {{ kind = "droptail", limit = "50p" }}
loss = {loss}
[[link]]
between = ["s", "b"]
rate = "10Mbps"
delay = "1ms"
loss = {loss}
[[link]]
between = ["b", "d"]
rate = "1Mbps"
delay = "{d2}ms"
queue = {{ kind = "droptail", limit = "50p" }}
loss = {loss}
[[flow]]
name = "cmt"
from = "s"
to = "d"
transport = "sctp"
paths = [["s", "a", "d"], ["s", "b", "d"]]
app = {{ kind = "bulk", size = "{size}" }}
{extra}
"#
    )
}

#[test]
fn cmt_over_two_lossless_paths_gets_both() {
    let (r, tx, _) = run(&two_paths(20, 20, 0.0, "4MB", 60, ""));
    let f = &r.flows[0];
    let t = f.completion_time_s.expect("completes");
    let mbps = 4e6 * 8.0 / t / 1e6;
    eprintln!(
        "goodput {mbps:.3} Mb/s, fr {} to {}",
        f.fast_recoveries, f.timeouts
    );
    assert!(mbps >= 1.8, "goodput {mbps} Mb/s");
    assert_eq!(tx.n_dests(), 2);
    // Per-destination summary: both paths carry about half of the file.
    let per: Vec<u64> = f.paths.iter().map(|p| p.bytes_delivered).collect();
    assert_eq!(per.len(), 2);
    assert_eq!(per.iter().sum::<u64>(), 4_000_000);
    assert!(per.iter().all(|&b| b > 1_600_000), "{per:?}");
    assert!(r.conservation.holds());
}

/// Lossless paths with one-way delays 10 ms and 150 ms: every fast retransmit is spurious
/// (reordering across paths, not loss). Returns (goodput Mb/s, fast retransmits,
/// duplicate chunks at the receiver).
fn unequal_rtts(extra: &str) -> (f64, u64, u64) {
    let (r, tx, rx) = run(&two_paths(10, 150, 0.0, "3MB", 120, extra));
    let t = r.flows[0].completion_time_s.expect("completes");
    assert_eq!(rx.bytes_delivered, 3_000_000);
    (
        3e6 * 8.0 / t / 1e6,
        tx.stats.fast_retransmits,
        rx.duplicates,
    )
}

#[test]
fn sfr_prevents_the_spurious_fast_retransmits_of_naive_cmt_under_unequal_rtts() {
    let (cmt_mbps, cmt_frtx, cmt_dups) = unequal_rtts("");
    let (naive_mbps, naive_frtx, naive_dups) =
        unequal_rtts("sctp = { sfr = false, cuc = false, dac = false }");
    let (nosfr_mbps, nosfr_frtx, _) = unequal_rtts("sctp = { sfr = false }");
    eprintln!(
        "CMT {cmt_mbps:.3} Mb/s {cmt_frtx} frtx {cmt_dups} dups; naive {naive_mbps:.3} \
         {naive_frtx} {naive_dups}; no SFR {nosfr_mbps:.3} {nosfr_frtx}"
    );
    assert_eq!(cmt_frtx, 0);
    assert_eq!(cmt_dups, 0);
    // RFC 4960's rule counts the slow path's outstanding TSNs as missing on every SACK
    // of the fast path.
    assert!(
        naive_frtx > 50 && naive_dups > 50,
        "{naive_frtx} {naive_dups}"
    );
    assert!(nosfr_frtx > 50);
    // Each spurious fast retransmit also halves the slow path's window.
    assert!(cmt_mbps > 1.2 * naive_mbps, "{cmt_mbps} vs {naive_mbps}");
}

/// Total cwnd (MTUs) after 10 s in congestion avoidance from 2 MTUs per path, on two
/// symmetric lossless 100 Mb/s paths (60 ms RTT, far below the BDP so no queue builds).
fn ca_growth(cc: &str) -> (f64, SctpSender) {
    let toml = format!(
        r#"
[simulation]
duration = "10s"
[[link]]
between = ["s", "a"]
rate = "100Mbps"
delay = "15ms"
[[link]]
between = ["a", "d"]
rate = "100Mbps"
delay = "15ms"
[[link]]
between = ["s", "b"]
rate = "100Mbps"
delay = "15ms"
[[link]]
between = ["b", "d"]
rate = "100Mbps"
delay = "15ms"
[[flow]]
from = "s"
to = "d"
transport = "sctp"
paths = [["s", "a", "d"], ["s", "b", "d"]]
cc = {cc}
sctp = {{ init_ssthresh = "1B", rwnd = "100MB" }}
app = {{ kind = "bulk" }}
"#
    );
    let (_, tx, _) = run(&toml);
    (tx.windows().total_cwnd() / 1500.0, tx)
}

#[test]
fn berp_with_beta_half_is_lia_coupled_cmt() {
    let (cmt, _) = ca_growth("\"cmt\"");
    let (lia, tx) = ca_growth("{ kind = \"berp\", beta = 0.5 }");
    // Independent RFC 6356 α from the final state: w_T·max(w_i/rtt_i²)/(Σ w_i/rtt_i)².
    let w = tx.windows();
    let (mut best, mut sum, mut total) = (0f64, 0.0, 0.0);
    for (d, p) in w.paths.iter().enumerate() {
        let r = tx.rtt(d).srtt().secs();
        best = best.max(p.cwnd / (r * r));
        sum += p.cwnd / r;
        total += p.cwnd;
    }
    let alpha_lia = total * best / (sum * sum);
    assert!((w.compute_alpha() - alpha_lia).abs() < 1e-9 * alpha_lia);
    assert!(
        (alpha_lia - 0.5).abs() < 0.05,
        "symmetric paths: α ≈ 1/n, got {alpha_lia}"
    );
    // CMT-CC: +1 MTU per path per RTT (2 in total); LIA with n = 2: +1/2 in total, a quarter.
    let ratio = (lia - 4.0) / (cmt - 4.0);
    eprintln!("growth over 10 s: CMT-CC {cmt:.1} MTU, BERP(β=½) {lia:.1} MTU, ratio {ratio:.3}");
    assert!((0.2..0.3).contains(&ratio), "ratio {ratio}");
}

#[test]
fn bad_sctp_input_is_located_and_lists_allowed_values() {
    let base = two_paths(20, 20, 0.0, "1MB", 10, "");
    let bad = |extra: &str| {
        let doc = base.replace("app = {", &format!("{extra}\napp = {{"));
        from_toml_str(&doc, "<t>").unwrap_err().to_string()
    };
    let e = bad("cc = \"lia\"");
    assert!(
        e.contains("flow[0].cc.kind") && e.contains("cmt, berp"),
        "{e}"
    );
    let e = bad("cc = { kind = \"berp\", beta = 1.5 }");
    assert!(e.contains("flow[0].cc.beta"), "{e}");
    let e = bad("cc = { kind = \"berp\", p = 1 }");
    assert!(e.contains("flow[0].cc.p"), "{e}");
    let e = bad("sctp = { rtx_policy = \"fastest\", mtu = 10 }");
    assert!(
        e.contains("flow[0].sctp.rtx_policy") && e.contains("same, ssthresh, cwnd"),
        "{e}"
    );
    assert!(e.contains("flow[0].sctp.mtu"), "{e}");
    let e = bad("recovery = \"sack\"");
    assert!(
        e.contains("flow[0].recovery") && e.contains("transport = \"sctp\""),
        "{e}"
    );
    let e = bad("sctp = { overhead = 1500 }");
    assert!(e.contains("flow[0].sctp.overhead"), "{e}");
    let e = bad("cc = { kind = \"cmt\", floor = 0 }");
    assert!(e.contains("flow[0].cc.floor"), "{e}");
    let e = bad("cc = { kind = \"cmt\", p = 0.9 }");
    assert!(e.contains("flow[0].cc") && e.contains("p"), "{e}");
    let e = bad("sctp = { cwnd_rule = \"bytes\", pf = 1, pf_cwnd = 0, init_cwnd = \"0B\" }");
    assert!(
        e.contains("flow[0].sctp.cwnd_rule") && e.contains("whole_packets, ns2"),
        "{e}"
    );
    assert!(e.contains("flow[0].sctp.pf"), "{e}");
    assert!(e.contains("flow[0].sctp.pf_cwnd"), "{e}");
    assert!(e.contains("flow[0].sctp.init_cwnd"), "{e}");
}

/// ns-2.35's CMT agent as the CMT-BERP paper's baseline: the 2-MTU floor, CMT-PF and its
/// window rule, over two lossy paths.
#[test]
fn ns2_cmt_agent_with_cmt_pf_recovers_every_timeout_and_delivers_everything() {
    let extra = "cc = { kind = \"cmt\", floor = 2 }\nsctp = { pf = true, cwnd_rule = \"ns2\", init_cwnd = \"4380B\" }";
    let (r, tx, rx) = run(&two_paths(20, 20, 0.08, "1MB", 600, extra));
    assert_eq!(rx.bytes_delivered, 1_000_000);
    assert_eq!(rx.tsns_delivered, 1_000_000u64.div_ceil(1452));
    assert!(r.flows[0].completion_time_s.is_some());
    assert!(r.conservation.holds());
    // Every T3 expiry of an active destination marks it PF and heartbeats it.
    assert!(tx.stats.timeouts > 0 && tx.stats.pf_marks > 0);
    assert!(tx.stats.pf_marks <= tx.stats.timeouts);
    assert!(tx.stats.heartbeats >= tx.stats.pf_marks);
    // The 2-MTU floor (in 1468-byte units under the ns-2 rule): no ssthresh below it.
    for p in &tx.windows().paths {
        assert!(p.ssthresh >= 2.0 * 1468.0 - 1e-9, "{}", p.ssthresh);
    }
    // Without CMT-PF the same run sends no heartbeat.
    let (_, plain, _) = run(&two_paths(
        20,
        20,
        0.08,
        "1MB",
        600,
        "cc = { kind = \"cmt\", floor = 2 }",
    ));
    assert_eq!((plain.stats.heartbeats, plain.stats.pf_marks), (0, 0));
}

#[test]
fn fast_and_per_hop_link_models_agree_on_a_lossy_shared_bottleneck() {
    // Two destinations across one shared lossy link with host-internal interface links
    // (the reproduction's scenario B): chained links must account for both pinned paths
    // and their reverse (SACK) direction.
    let doc = |model: &str| {
        format!(
            r#"
[simulation]
duration = "60s"
seed = 9
link_model = "{model}"
[[link]]
between = ["s", "s1"]
rate = "10Gbps"
delay = "0ms"
[[link]]
between = ["s", "s2"]
rate = "10Gbps"
delay = "0ms"
[[link]]
between = ["s1", "n1"]
rate = "10Mbps"
delay = "5ms"
loss = 0.01
[[link]]
between = ["s2", "n1"]
rate = "10Mbps"
delay = "5ms"
loss = 0.01
[[link]]
between = ["n1", "n2"]
rate = "1Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "20p" }}
loss = 0.03
[[link]]
between = ["n2", "d1"]
rate = "10Mbps"
delay = "5ms"
[[link]]
between = ["n2", "d2"]
rate = "10Mbps"
delay = "5ms"
[[link]]
between = ["d1", "d"]
rate = "10Gbps"
delay = "0ms"
[[link]]
between = ["d2", "d"]
rate = "10Gbps"
delay = "0ms"
[[flow]]
from = "s"
to = "d"
transport = "sctp"
cc = "berp"
sctp = {{ pf = true, cwnd_rule = "ns2" }}
paths = [["s", "s1", "n1", "n2", "d1", "d"], ["s", "s2", "n1", "n2", "d2", "d"]]
app = {{ kind = "bulk" }}
"#
        )
    };
    let (fast, ..) = run(&doc("fast"));
    let (hop, ..) = run(&doc("per_hop"));
    assert_eq!(fast.flows[0].bytes_delivered, hop.flows[0].bytes_delivered);
    assert_eq!(fast.flows[0].retransmissions, hop.flows[0].retransmissions);
    assert_eq!(fast.conservation.created, hop.conservation.created);
    assert!(fast.flows[0].bytes_delivered > 1_000_000);
}
