//! Tests of the TCP option keys (`parse_tcp_options.rs`) and the controller options that
//! came with them (Vegas `ss_exit`, Westwood+ `counting`).

use super::parse_tests::assert_problem;
use super::*;

/// A one-flow document whose flow table has the extra lines `keys`.
fn doc(keys: &str) -> String {
    format!(
        "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n\
         delay = \"1ms\"\n[[flow]]\nfrom = \"a\"\nto = \"b\"\napp = {{ kind = \"bulk\" }}\n{keys}\n"
    )
}

fn tcp(keys: &str) -> TcpSpec {
    let sc = from_toml_str(&doc(keys), "t").unwrap();
    match &sc.flows[0].transport {
        TransportSpec::Tcp(t) => t.clone(),
        _ => panic!("tcp expected"),
    }
}

fn problems(keys: &str) -> Vec<Problem> {
    from_toml_str(&doc(keys), "t").unwrap_err().problems
}

#[test]
fn every_option_defaults_to_todays_behaviour() {
    let t = tcp("");
    assert!(!t.limited_transmit && !t.handshake && !t.sack_option_bytes);
    assert_eq!(t.ssthresh_from, LossFlight::FlightSize);
    assert_eq!(t.recovery, RecoverySpec::NewReno);
    assert_eq!(t.rto.estimator, RtoEstimator::Rfc6298);
    assert_eq!(t.rto.samples, RttSamples::EveryAck);
    assert!(!t.rto.restart_at_fast_retransmit);
}

#[test]
fn flow_options_are_read() {
    let t = tcp(
        "limited_transmit = true\nhandshake = true\nsack_option_bytes = true\n\
         ssthresh_from = \"pipe\"\nrecovery = \"prr\"",
    );
    assert!(t.limited_transmit && t.handshake && t.sack_option_bytes);
    assert_eq!(t.ssthresh_from, LossFlight::Pipe);
    assert_eq!(t.recovery, RecoverySpec::Prr);
    assert_eq!(
        tcp("ssthresh_from = \"cwnd\"").ssthresh_from,
        LossFlight::Cwnd
    );
}

#[test]
fn rto_options_are_read() {
    let t = tcp(
        "rto = { estimator = \"ns2\", granularity = \"10ms\", samples = \"one_per_rtt\", \
         restart_at_fast_retransmit = true, min = \"200ms\" }",
    );
    assert_eq!(t.rto.estimator, RtoEstimator::Ns2);
    assert_eq!(t.rto.samples, RttSamples::OnePerRtt);
    assert!(t.rto.restart_at_fast_retransmit);
    assert_eq!(t.rto.min, crate::units::Dur::from_millis(200));
    assert_eq!(t.rto.granularity, crate::units::Dur::from_millis(10));
    assert_eq!(
        tcp("rto = { estimator = \"linux\" }").rto.estimator,
        RtoEstimator::Linux
    );
}

#[test]
fn bad_values_name_the_key_and_the_allowed_values() {
    let ps = problems("limited_transmit = \"yes\"");
    assert_problem(&ps, "flow[0].limited_transmit", "expected true or false");
    let ps = problems("ssthresh_from = \"window\"");
    assert_problem(&ps, "flow[0].ssthresh_from", "flight_size, pipe, cwnd");
    let ps = problems("recovery = \"rate_halving\"");
    assert_problem(&ps, "flow[0].recovery", "fack, prr");
    let ps = problems("rto = { estimator = \"bsd\" }");
    assert_problem(&ps, "flow[0].rto.estimator", "rfc6298, linux, ns2");
    let ps = problems("rto = { samples = \"sometimes\" }");
    assert_problem(&ps, "flow[0].rto.samples", "every_ack, one_per_rtt");
    let ps = problems("rto = { restart_at_fast_retransmit = 1 }");
    assert_problem(
        &ps,
        "flow[0].rto.restart_at_fast_retransmit",
        "true or false",
    );
    let ps = problems("rto = { estimator = \"ns2\", granularity = \"0s\" }");
    assert_problem(&ps, "flow[0].rto.granularity", "tcpTick_");
    let ps = problems("rto = { estimatr = \"ns2\" }");
    assert_problem(&ps, "flow[0].rto.estimatr", "restart_at_fast_retransmit");
}

#[test]
fn tcp_only_keys_are_refused_elsewhere() {
    // An ARC flow's rto table has the bounds only.
    let arc = "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\n\
               rate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nfrom = \"a\"\nto = \"b\"\n\
               transport = \"arc\"\napp = { kind = \"bulk\" }\nrto = { estimator = \"linux\" }\n";
    let ps = from_toml_str(arc, "t").unwrap_err().problems;
    assert_problem(&ps, "flow[0].rto.estimator", "unknown key");
    // The handshake is not modelled for MPTCP subflows.
    let mptcp = "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\n\
                 rate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nfrom = \"a\"\nto = \"b\"\n\
                 transport = \"mptcp\"\npaths = [[\"a\", \"b\"]]\napp = { kind = \"bulk\" }\n\
                 handshake = true\n";
    let ps = from_toml_str(mptcp, "t").unwrap_err().problems;
    assert_problem(&ps, "flow[0].handshake", "TCP flows only");
    // UDP flows take no TCP key.
    let udp = "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\n\
               rate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nfrom = \"a\"\nto = \"b\"\n\
               transport = \"udp\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }\n\
               limited_transmit = true\n";
    let ps = from_toml_str(udp, "t").unwrap_err().problems;
    assert_problem(&ps, "flow[0].limited_transmit", "only to TCP flows");
}

#[test]
fn vegas_slow_start_exit_and_westwood_counting() {
    let cc = |s: &str| tcp(&format!("cc = {s}")).cc;
    match cc("{ kind = \"vegas\", ss_exit = \"linux\" }") {
        CcSpec::Vegas(v) => assert_eq!(v.ss_exit, VegasSsExit::Linux),
        other => panic!("{other:?}"),
    }
    match cc("\"vegas\"") {
        CcSpec::Vegas(v) => assert_eq!(v.ss_exit, VegasSsExit::Ns2),
        other => panic!("{other:?}"),
    }
    match cc("{ kind = \"westwood\", counting = \"per_ack\" }") {
        CcSpec::Westwood(w) => assert_eq!(w.counting, AckCounting::PerAck),
        other => panic!("{other:?}"),
    }
    let ps = problems("cc = { kind = \"vegas\", ss_exit = \"bsd\" }");
    assert_problem(&ps, "flow[0].cc.ss_exit", "ns2, linux");
    let ps = problems("cc = { kind = \"westwood\", counting = \"packets\" }");
    assert_problem(&ps, "flow[0].cc.counting", "bytes, per_ack");
}
