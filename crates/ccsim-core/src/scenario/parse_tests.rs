//! Tests of the scenario parser.

use crate::scenario::*;
use crate::units::{Bytes, Dur, Rate, SimTime};
use serde_json::json;

pub(super) fn parse(toml_text: &str) -> Scenario {
    match from_toml_str(toml_text, "test.toml") {
        Ok(s) => s,
        Err(e) => panic!("unexpected problems:\n{e}"),
    }
}

pub(super) fn problems(toml_text: &str) -> Vec<Problem> {
    match from_toml_str(toml_text, "test.toml") {
        Ok(_) => panic!("expected problems, the document parsed"),
        Err(e) => e.problems,
    }
}

/// Assert that some problem is at `path` with a message containing `needle`.
#[track_caller]
pub(super) fn assert_problem(ps: &[Problem], path: &str, needle: &str) {
    assert!(
        ps.iter()
            .any(|p| p.path == path && p.message.contains(needle)),
        "no problem at {path:?} containing {needle:?}; got:\n{}",
        ps.iter()
            .map(|p| format!("  {}: {}", p.path, p.message))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

const MINIMAL: &str = r#"
[simulation]
duration = "10s"

[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "5ms"
"#;

fn with_minimal(extra: &str) -> String {
    format!("{MINIMAL}\n{extra}")
}

pub(super) const FULL: &str = r#"
[simulation]
duration = "30s"
seed = 7
routing = "hops"
link_model = "per_hop"

[trace]
interval = "10ms"
flows = ["bulk", "web"]
links = ["bottleneck", "s1->r1"]

[[link]]
between = ["s1", "r1"]
rate = "1Gbps"
delay = "0.5ms"

[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "1.5Mbps"
delay = "10ms"
queue = { kind = "red", min_th = 5, max_th = 15, max_p = 0.02, w_q = 0.002, gentle = false, wait = false, limit = "60p", mean_pktsize = "1KB" }
loss = 0.001

[[link]]
from = "r2"
to = "d1"
rate = "100Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = "64KiB" }
loss = { kind = "scripted", data_packets = [5, 3, 4, 3] }

[[link]]
from = "d1"
to = "r2"
rate = "100Mbps"
delay = "1ms"
queue = "red"
loss = { kind = "bernoulli", p = 0.0 }

[[flow]]
name = "bulk"
from = "s1"
to = "d1"
cc = { kind = "reno" }
recovery = "sack"
mss = "1000B"
header = 52
max_window = "20p"
init_cwnd = 2
dupthresh = 4
delayed_ack = false
rto = { min = "1s", max = "64s", initial = "3s", granularity = "10ms" }
app = { kind = "bulk", size = "1MB", start = ["1s", "2s"] }

[[flow]]
name = "web"
count = 3
from = "s1"
to = "d1"
app = { kind = "onoff", on = "8s", off = "6s" }

[[flow]]
from = "s1"
to = "d1"
transport = "udp"
app = { kind = "cbr", rate = "64kbps", packet_size = 200, jitter = 0.1, start = "5s", stop = "20s" }
"#;

#[test]
fn full_document_round_trips() {
    let s = parse(FULL);
    assert_eq!(s.duration, Dur::from_secs(30));
    assert_eq!(s.seed, 7);
    assert_eq!(s.routing, RoutingMetric::Hops);
    assert_eq!(s.link_model, LinkModel::PerHop);
    assert_eq!(s.threads, 1);
    assert_eq!(s.nodes, ["s1", "r1", "r2", "d1"]);
    let names: Vec<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        ["s1->r1", "r1->s1", "r1->r2", "r2->r1", "r2->d1", "d1->r2"]
    );
    let b = &s.links[2];
    assert_eq!(b.alias.as_deref(), Some("bottleneck"));
    assert_eq!(s.links[3].alias.as_deref(), Some("bottleneck"));
    assert_eq!((b.from, b.to), (1, 2));
    assert_eq!(b.rate, Rate(1_500_000));
    assert_eq!(b.delay, Dur::from_millis(10));
    assert_eq!(b.loss, LossSpec::Bernoulli(0.001));
    match &b.queue {
        QueueSpec::Red(r) => {
            assert_eq!((r.min_th, r.max_th), (Some(5.0), Some(15.0)));
            assert_eq!((r.max_p, r.w_q), (0.02, Some(0.002)));
            assert!(!r.gentle && !r.wait);
            assert_eq!((r.limit, r.mean_pktsize), (60, Bytes(1000)));
        }
        q => panic!("{q:?}"),
    }
    assert_eq!(s.links[0].delay, Dur::from_micros(500));
    assert!(matches!(
        s.links[0].queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(100)
        }
    ));
    assert!(matches!(
        s.links[4].queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Bytes(65_536)
        }
    ));
    assert_eq!(s.links[4].loss, LossSpec::Scripted(vec![3, 4, 5]));
    assert_eq!(s.links[5].loss, LossSpec::None);
    match &s.links[5].queue {
        QueueSpec::Red(r) => {
            assert_eq!((r.min_th, r.max_th, r.w_q), (None, None, None));
            assert_eq!((r.max_p, r.gentle, r.wait), (0.1, true, true));
            assert_eq!((r.limit, r.mean_pktsize), (50, Bytes(500)));
        }
        q => panic!("{q:?}"),
    }

    let fnames: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(fnames, ["bulk", "web.0", "web.1", "web.2", "flow2"]);
    let TransportSpec::Tcp(t) = &s.flows[0].transport else {
        panic!()
    };
    assert_eq!((s.flows[0].from, s.flows[0].to), (0, 3));
    assert_eq!(t.cc, CcSpec::default());
    assert_eq!(t.recovery, RecoverySpec::Sack);
    assert_eq!((t.mss, t.header, t.max_window), (1000, 52, Some(20)));
    assert_eq!((t.init_cwnd, t.dupthresh, t.delayed_ack), (2, 4, None));
    assert_eq!(t.rto.min, Dur::from_secs(1));
    assert_eq!(t.rto.max, Dur::from_secs(64));
    assert_eq!(t.rto.initial, Dur::from_secs(3));
    assert_eq!(t.rto.granularity, Dur::from_millis(10));
    match &t.app {
        TcpApp::Bulk { size, start } => {
            assert_eq!(*size, Some(Bytes(1_000_000)));
            assert_eq!(start.lo, SimTime(1_000_000_000));
            assert_eq!(start.hi, SimTime(2_000_000_000));
        }
        a => panic!("{a:?}"),
    }
    let TransportSpec::Tcp(w) = &s.flows[2].transport else {
        panic!()
    };
    // Defaults.
    assert_eq!(w.recovery, RecoverySpec::NewReno);
    assert_eq!((w.mss, w.header, w.max_window), (1460, 40, None));
    assert_eq!((w.init_cwnd, w.dupthresh), (3, 3));
    assert_eq!(w.delayed_ack, Some(Dur::from_millis(100)));
    assert_eq!(w.rto.min, Dur::from_secs(1));
    assert_eq!(w.rto.max, Dur::from_secs(60));
    assert_eq!(w.rto.initial, Dur::from_secs(1));
    assert_eq!(w.rto.granularity, Dur::from_millis(1));
    match &w.app {
        TcpApp::OnOff {
            on_mean,
            off_mean,
            start,
        } => {
            assert_eq!(
                (*on_mean, *off_mean),
                (Dur::from_secs(8), Dur::from_secs(6))
            );
            assert_eq!((start.lo, start.hi), (SimTime::ZERO, SimTime::ZERO));
        }
        a => panic!("{a:?}"),
    }
    let TransportSpec::Udp(c) = &s.flows[4].transport else {
        panic!()
    };
    assert_eq!(
        (c.rate, c.packet_size, c.jitter),
        (Rate(64_000), Bytes(200), 0.1)
    );
    assert_eq!(c.start.lo, SimTime(5_000_000_000));
    assert_eq!(c.stop, Some(SimTime(20_000_000_000)));

    assert_eq!(s.trace.interval, Dur::from_millis(10));
    assert_eq!(s.trace.flows, [0, 1, 2, 3]);
    assert_eq!(s.trace.links, [0, 2, 3]);
}

#[test]
fn minimal_document_gets_defaults() {
    let s = parse(MINIMAL);
    assert_eq!(s.seed, 1);
    assert_eq!(s.routing, RoutingMetric::Delay);
    assert_eq!(s.link_model, LinkModel::Fast);
    assert_eq!(s.trace.interval, Dur::from_millis(100));
    assert_eq!(s.trace.links, [0, 1]);
    assert!(s.trace.flows.is_empty() && s.flows.is_empty());
    assert_eq!(s.links.len(), 2);
    assert_eq!(s.links[1].name, "b->a");
    assert!(s.links[0].alias.is_none());
}

#[test]
fn small_mss_gets_rfc5681_initial_window_and_trace_off() {
    let s = parse(&with_minimal(
        r#"
[trace]
interval = "0s"
flows = "none"
links = "none"
[[flow]]
from = "a"
to = "b"
mss = 536
delayed_ack = "40ms"
app = "bulk"
"#,
    ));
    let TransportSpec::Tcp(t) = &s.flows[0].transport else {
        panic!()
    };
    assert_eq!((t.mss, t.init_cwnd), (536, 4));
    assert_eq!(t.delayed_ack, Some(Dur::from_millis(40)));
    assert_eq!(s.trace.interval, Dur::ZERO);
    assert!(s.trace.flows.is_empty() && s.trace.links.is_empty());
}

#[test]
fn json_documents_are_accepted() {
    let doc = json!({
        "simulation": {"duration": "1s"},
        "link": [{"from": "a", "to": "b", "rate": "1Mbps", "delay": "1ms"}],
        "flow": [{"from": "a", "to": "b", "transport": "udp", "app": {"kind": "cbr", "rate": "100kbps"}}]
    });
    let s = from_json_value(&doc, "<python>").unwrap();
    assert_eq!(s.links.len(), 1);
    assert_eq!(s.flows[0].name, "flow0");
    let e = from_json_str("{\"simulation\": ", "x.json").unwrap_err();
    assert!(e.problems[0].message.contains("line 1"), "{e}");
}

#[test]
fn unknown_keys_list_the_allowed_ones() {
    let ps = problems(
        r#"
[simulation]
duration = "1s"
sed = 3
[[link]]
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
bandwith = "1Mbps"
[extra]
"#,
    );
    assert_problem(
        &ps,
        "link[0].bandwith",
        "unknown key; allowed: between, from, to, rate, rate_schedule, delivery_trace, delay, jitter, queue, loss, loss_direction, name",
    );
    assert_problem(
        &ps,
        "simulation.sed",
        "allowed: duration, seed, routing, link_model, threads",
    );
    assert_problem(&ps, "extra", "allowed: simulation, trace, link, flow");
}

#[test]
fn wrong_types_name_the_expected_type() {
    let ps = problems(
        r#"
[simulation]
duration = 10
seed = "one"
[[link]]
between = "a"
rate = "1Mbps"
delay = "1ms"
queue = 5
[[flow]]
from = "a"
to = "b"
count = 1.5
dupthresh = true
app = { kind = "bulk", start = ["1s"] }
"#,
    );
    assert_problem(
        &ps,
        "simulation.duration",
        "string with a unit, e.g. \"10ms\"",
    );
    assert_problem(&ps, "simulation.duration", "bare number 10");
    assert_problem(&ps, "simulation.seed", "expected an integer");
    assert_problem(&ps, "link[0].between", "expected a list of two node names");
    assert_problem(&ps, "link[0].queue", "expected \"droptail\", \"red\", ");
    assert_problem(
        &ps,
        "link[0].queue",
        " or a table such as { kind = \"droptail\" }",
    );
    assert_problem(&ps, "flow[0].count", "expected a whole number");
    assert_problem(&ps, "flow[0].dupthresh", "expected an integer");
    assert_problem(&ps, "flow[0].app.start", "a list of 1 elements");
}

#[test]
fn bad_units_and_negative_values() {
    let ps = problems(
        r#"
[simulation]
duration = "-5s"
[[link]]
between = ["a", "b"]
rate = "10 Mbps"
delay = "5ms"
[[link]]
between = ["b", "c"]
rate = "-10Mbps"
delay = "10Mbps"
loss = -0.1
"#,
    );
    assert_problem(&ps, "simulation.duration", "must not be negative");
    assert_problem(
        &ps,
        "link[0].rate",
        "\"10 Mbps\" is not a rate: no space between number and unit, e.g. \"10Mbps\" \
         (units: bps, kbps, Mbps, Gbps, Tbps)",
    );
    assert_problem(&ps, "link[1].rate", "must not be negative");
    assert_problem(&ps, "link[1].delay", "is a rate, not a duration");
    assert_problem(
        &ps,
        "link[1].loss",
        "-0.1 is out of range; allowed 0 ≤ p < 1",
    );
}

#[test]
fn unknown_nodes_and_controllers() {
    let ps = problems(&with_minimal(
        r#"
[[flow]]
from = "a"
to = "zz"
cc = "cubc"
recovery = "rack"
app = { kind = "bulk" }
[[flow]]
from = "a"
to = "b"
cc = { kind = "copa", alpha = 1 }
app = { kind = "cbr" }
"#,
    ));
    assert_problem(&ps, "flow[0].to", "unknown node \"zz\"; known nodes: a, b");
    assert_problem(
        &ps,
        "flow[0].cc.kind",
        "unknown controller \"cubc\"; allowed: reno, vegas, westwood, cubic, fast, dctcp, bbr",
    );
    assert_problem(
        &ps,
        "flow[0].recovery",
        "unknown recovery \"rack\"; allowed: reno, newreno, sack, sack1, fack",
    );
    assert_problem(&ps, "flow[1].cc.kind", "unknown controller \"copa\"");
    assert_problem(&ps, "flow[1].app.kind", "allowed: bulk, onoff");
}

#[test]
fn known_nodes_are_listed_up_to_ten() {
    let mut doc = String::from("[simulation]\nduration = \"1s\"\n");
    for i in 0..15 {
        doc.push_str(&format!(
            "[[link]]\nbetween = [\"hub\", \"n{i}\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n"
        ));
    }
    doc.push_str("[[flow]]\nfrom = \"hub\"\nto = \"nowhere\"\napp = \"bulk\"\n");
    let ps = problems(&doc);
    assert_problem(
        &ps,
        "flow[0].to",
        "known nodes: hub, n0, n1, n2, n3, n4, n5, n6, n7, n8, ...",
    );
}

#[test]
fn duplicates_and_self_links() {
    let ps = problems(
        r#"
[simulation]
duration = "1s"
[[link]]
name = "x"
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
[[link]]
name = "x"
from = "a"
to = "b"
rate = "1Mbps"
delay = "1ms"
[[link]]
from = "c"
to = "c"
rate = "1Mbps"
delay = "1ms"
[[link]]
name = "p->q"
between = ["b", "c"]
rate = "1Mbps"
delay = "1ms"
[[flow]]
name = "f"
from = "a"
to = "b"
count = 2
app = "bulk"
[[flow]]
name = "f.1"
from = "a"
to = "b"
app = "bulk"
[[flow]]
from = "a"
to = "a"
app = "bulk"
"#,
    );
    assert_problem(
        &ps,
        "link[1].name",
        "duplicate link name \"x\" (also used by link[0])",
    );
    assert_problem(
        &ps,
        "link[1].to",
        "duplicate link \"a->b\": already defined by link[0]",
    );
    assert_problem(&ps, "link[2].to", "cannot connect node \"c\" to itself");
    assert_problem(&ps, "link[3].name", "must not contain \"->\"");
    assert_problem(
        &ps,
        "flow[1].name",
        "duplicate flow name \"f.1\" (also used by flow[0])",
    );
    assert_problem(&ps, "flow[2].to", "the same node \"a\"");
}

#[test]
fn unreachable_destinations() {
    let ps = problems(
        r#"
[simulation]
duration = "1s"
[[link]]
from = "a"
to = "b"
rate = "1Mbps"
delay = "1ms"
[[link]]
between = ["c", "d"]
rate = "1Mbps"
delay = "1ms"
[[flow]]
from = "a"
to = "b"
app = "bulk"
[[flow]]
from = "a"
to = "d"
transport = "udp"
app = { kind = "cbr", rate = "1Mbps" }
"#,
    );
    assert_problem(&ps, "flow[0]", "return path for its ACKs");
    assert_problem(
        &ps,
        "flow[0]",
        "node \"a\" cannot be reached from node \"b\"",
    );
    assert_problem(
        &ps,
        "flow[1]",
        "node \"d\" cannot be reached from node \"a\"",
    );
    // UDP needs no return path.
    let s = from_toml_str(
        r#"
[simulation]
duration = "1s"
[[link]]
from = "a"
to = "b"
rate = "1Mbps"
delay = "1ms"
[[flow]]
from = "a"
to = "b"
transport = "udp"
app = { kind = "cbr", rate = "1Mbps" }
"#,
        "t",
    );
    assert!(s.is_ok());
}

#[test]
fn udp_flow_with_tcp_keys() {
    let ps = problems(&with_minimal(
        r#"
[[flow]]
from = "a"
to = "b"
transport = "udp"
cc = "reno"
mss = 1000
bogus = 1
app = { kind = "cbr", rate = "1Mbps", jitter = 1.0, stop = "0s" }
"#,
    ));
    assert_problem(
        &ps,
        "flow[0].cc",
        "cc applies only to flows with transport = \"tcp\", \"sctp\" or \"mptcp\"",
    );
    assert_problem(&ps, "flow[0].mss", "transport = \"udp\"");
    assert_problem(
        &ps,
        "flow[0].bogus",
        "unknown key for transport = \"udp\"; allowed: name, from, to, transport, count, paths, app",
    );
    assert_problem(&ps, "flow[0].app.jitter", "allowed 0 ≤ jitter < 1");
    assert_problem(&ps, "flow[0].app.stop", "must be later than start");
}

#[test]
fn queue_loss_and_tcp_parameter_checks() {
    let ps = problems(
        r#"
[simulation]
duration = "0s"
routing = "shortest"
[trace]
flows = "some"
links = ["a->c", "nope"]
[[link]]
between = ["a", "b"]
rate = "0Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = 0 }
loss = { kind = "scripted", data_packets = [1, -2] }
[[link]]
between = ["b", "c"]
rate = "1Mbps"
delay = "1ms"
queue = { kind = "red", min_th = 20, max_th = 10, max_p = 0, w_q = "fast", limit = "1.5p" }
loss = { kind = "gilbert" }
[[link]]
between = ["c", "d"]
rate = "1Mbps"
delay = "1ms"
queue = { limit = "10p" }
[[flow]]
from = "a"
to = "d"
mss = 0
max_window = "0p"
init_cwnd = 0
delayed_ack = "0s"
rto = { min = "2s", max = "1s", initial = "0s", typo = 1 }
app = { kind = "bulk", size = 0 }
[[flow]]
from = "a"
to = "d"
app = { kind = "onoff", on = "0s" }
"#,
    );
    assert_problem(&ps, "simulation.duration", "greater than zero");
    assert_problem(&ps, "simulation.routing", "allowed: delay, hops");
    assert_problem(&ps, "trace.flows", "write [\"some\"]");
    assert_problem(&ps, "trace.links[0]", "unknown link \"a->c\"");
    assert_problem(&ps, "trace.links[1]", "known: a->b, b->a");
    assert_problem(&ps, "link[0].rate", "greater than zero");
    assert_problem(&ps, "link[0].queue.limit", "greater than zero");
    assert_problem(&ps, "link[0].loss.data_packets[1]", "must not be negative");
    assert_problem(&ps, "link[1].queue.max_th", "must be greater than min_th");
    assert_problem(
        &ps,
        "link[1].queue.max_p",
        "0 is out of range; allowed 0 < max_p ≤ 1",
    );
    assert_problem(&ps, "link[1].queue.w_q", "or write w_q = \"auto\"");
    assert_problem(&ps, "link[1].queue.limit", "whole number");
    assert_problem(&ps, "link[1].loss.kind", "allowed: bernoulli, scripted");
    assert_problem(&ps, "link[2].queue.kind", "missing; the table needs a kind");
    assert_problem(
        &ps,
        "flow[0].mss",
        "0B is out of range; allowed 1B ≤ mss ≤ 1MB",
    );
    assert_problem(
        &ps,
        "flow[0].max_window",
        "allowed 1 ≤ max_window ≤ 4294967295 packets",
    );
    assert_problem(
        &ps,
        "flow[0].init_cwnd",
        "allowed 1 ≤ init_cwnd ≤ 4294967295",
    );
    assert_problem(&ps, "flow[0].delayed_ack", "delayed_ack = false");
    assert_problem(&ps, "flow[0].rto", "must not exceed max");
    assert_problem(&ps, "flow[0].rto.initial", "greater than zero");
    assert_problem(
        &ps,
        "flow[0].rto.typo",
        "allowed: min, max, initial, granularity",
    );
    assert_problem(&ps, "flow[0].app.size", "\"inf\"");
    assert_problem(&ps, "flow[1].app.on", "greater than zero");
    assert_problem(&ps, "flow[1].app.off", "missing");
}

#[test]
fn every_problem_is_reported_in_document_order() {
    let ps = problems(
        r#"
[[flow]]
from = "a"
to = "b"
app = { kind = "bulk", size = "lots" }

[[link]]
between = ["a", "b"]
rate = "fast"
delay = "5 ms"

[[link]]
between = ["b", "c"]
rate = "1Mbps"
delay = "1ms"
queue = "sfq"

[simulation]
duration = "1 s"
link_model = "slow"
"#,
    );
    let paths: Vec<&str> = ps.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "simulation.duration",
            "simulation.link_model",
            "link[0].rate",
            "link[0].delay",
            "link[1].queue.kind",
            "flow[0].app.size",
        ]
    );
    let e = from_toml_str("[simulation]\nduration = 1\n", "bad.toml").unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("2 problems in scenario bad.toml:"),
        "{text}"
    );
    assert!(
        text.contains("  simulation.duration: expected a duration"),
        "{text}"
    );
    assert!(text.contains("  link: missing"), "{text}");
}

#[test]
fn missing_required_keys() {
    let ps = problems("[simulation]\n[[link]]\nrate = \"1Mbps\"\n[[flow]]\n");
    assert_problem(&ps, "simulation.duration", "missing");
    assert_problem(&ps, "link[0]", "missing endpoints");
    assert_problem(&ps, "link[0].delay", "missing");
    assert_problem(&ps, "flow[0].from", "missing");
    assert_problem(&ps, "flow[0].to", "missing");
    assert_problem(&ps, "flow[0].app", "missing");
    let ps = problems("");
    assert_problem(&ps, "simulation", "missing");
    assert_problem(&ps, "link", "missing");
}

#[test]
fn toml_syntax_errors_give_line_and_column() {
    let ps = problems("[simulation]\nduration = \"1s\"\nseed = = 3\n");
    assert_eq!(ps.len(), 1);
    assert_eq!(ps[0].path, "");
    assert!(
        ps[0].message.contains("line 3, column"),
        "{}",
        ps[0].message
    );
    let e = from_json_value(&json!([1, 2]), "x").unwrap_err();
    assert!(e.problems[0].message.contains("expected a table"));
    // TOML-only values (datetimes, infinities) are reported, not lost.
    let ps = problems(
        &with_minimal("[trace]\ninterval = 1979-05-27\n")
            .replace("delay = \"5ms\"", "delay = \"5ms\"\nloss = nan"),
    );
    assert_problem(&ps, "trace.interval", "1979-05-27");
    assert_problem(&ps, "link[0].loss", "nan is not allowed");
}

#[test]
fn threads_must_be_one_two_or_auto() {
    for (v, ok) in [
        ("1", true),
        ("2", true),
        ("0", false),
        ("3", false),
        ("\"2\"", false),
        ("\"Auto\"", false),
    ] {
        let doc = MINIMAL.replace("[simulation]", &format!("[simulation]\nthreads = {v}"));
        match from_toml_str(&doc, "t.toml") {
            Ok(s) => assert!(ok && s.threads.to_string() == v, "{v}"),
            Err(e) => {
                assert!(!ok, "{v}: {e}");
                assert_problem(&e.problems, "simulation.threads", "1 ≤ threads ≤ 2");
                assert_problem(&e.problems, "simulation.threads", "threads = \"auto\"");
            }
        }
    }
    let doc = MINIMAL.replace("[simulation]", "[simulation]\nthreads = \"auto\"");
    let s = from_toml_str(&doc, "t.toml").unwrap();
    assert_eq!(s.threads, THREADS_AUTO);
}
