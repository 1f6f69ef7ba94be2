//! Tests of the options of issues #16, #19 and #27 as a document gives them: the TCP
//! sender's (`transport/tcp/config.rs`, `rto.rs`), the controllers' (Vegas `ss_exit`,
//! Westwood+ `counting`, DAIMD `quiet` and `signal`) and the distance-vector timers'.

use super::parse_tests::assert_problem;
use crate::cc::coupled::daimd::{DaimdQuiet, DaimdSignal};
use crate::cc::vegas::VegasSsExit;
use crate::scenario::*;
use crate::transport::tcp::config::LossFlight;
use crate::transport::tcp::rto::{RtoEstimator, RttSamples};
use crate::units::Dur;

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
    assert_problem(
        &ps,
        "flow[0].rto.samples",
        "every_ack, one_per_rtt, new_ack",
    );
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
    assert_problem(
        &ps,
        "flow[0].handshake",
        "applies only to flows with transport = \"tcp\"; this one has transport = \"mptcp\"",
    );
    // UDP flows take no TCP key.
    let udp = "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\n\
               rate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nfrom = \"a\"\nto = \"b\"\n\
               transport = \"udp\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }\n\
               limited_transmit = true\n";
    let ps = from_toml_str(udp, "t").unwrap_err().problems;
    assert_problem(
        &ps,
        "flow[0].limited_transmit",
        "applies only to flows with transport",
    );
}

#[test]
fn vegas_slow_start_exit_and_westwood_counting() {
    let vegas = |s: &str| -> VegasSpec { tcp(&format!("cc = {s}")).cc.config().unwrap() };
    assert_eq!(
        vegas("{ kind = \"vegas\", ss_exit = \"linux\" }").ss_exit,
        VegasSsExit::Linux
    );
    assert_eq!(vegas("\"vegas\"").ss_exit, VegasSsExit::Ns2);
    // The presets set α, β, γ only.
    assert_eq!(
        vegas("{ kind = \"vegas\", preset = \"linux\" }").ss_exit,
        VegasSsExit::Ns2
    );
    let w: WestwoodSpec = tcp("cc = { kind = \"westwood\", counting = \"per_ack\" }")
        .cc
        .config()
        .unwrap();
    assert_eq!(w.counting, AckCounting::PerAck);
    let ps = problems("cc = { kind = \"vegas\", ss_exit = \"bsd\" }");
    assert_problem(&ps, "flow[0].cc.ss_exit", "ns2, linux");
    let ps = problems("cc = { kind = \"westwood\", counting = \"packets\" }");
    assert_problem(&ps, "flow[0].cc.counting", "bytes, per_ack");
}

/// A one-MPTCP-flow document with `cc = <cc>`.
fn daimd_doc(cc: &str) -> String {
    format!(
        "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n\
         delay = \"1ms\"\n[[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"mptcp\"\n\
         paths = [[\"a\", \"b\"]]\napp = {{ kind = \"bulk\" }}\ncc = {cc}\n"
    )
}

fn daimd(cc: &str) -> DaimdSpec {
    let sc = from_toml_str(&daimd_doc(cc), "t").unwrap();
    match &sc.flows[0].transport {
        TransportSpec::Mptcp(m) => match m.coupled {
            CoupledSpec::Daimd(d) => d,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn daimd_quiet_time_and_delay_signal() {
    let d = daimd("\"daimd\"");
    assert_eq!((d.quiet, d.signal), (DaimdQuiet::Hold, DaimdSignal::Sample));
    let d = daimd("{ kind = \"daimd\", quiet = \"srtt\", signal = \"srtt\" }");
    assert_eq!((d.quiet, d.signal), (DaimdQuiet::Srtt, DaimdSignal::Srtt));
    let d = daimd("{ kind = \"daimd\", quiet = \"hold\" }");
    assert_eq!(d.quiet, DaimdQuiet::Hold);
    let d = daimd("{ kind = \"daimd\", quiet = \"50ms\" }");
    assert_eq!(d.quiet, DaimdQuiet::Fixed(Dur::from_millis(50)));
    assert_eq!(
        daimd("{ kind = \"daimd\", quiet = \"0s\" }").quiet,
        DaimdQuiet::Fixed(Dur::ZERO)
    );
    let e = from_toml_str(&daimd_doc("{ kind = \"daimd\", quiet = \"never\" }"), "t");
    assert_problem(
        &e.unwrap_err().problems,
        "flow[0].cc.quiet",
        "or write quiet = \"hold\": as long as the hold time T, or \"srtt\"",
    );
    let e = from_toml_str(&daimd_doc("{ kind = \"daimd\", signal = \"ewma\" }"), "t");
    assert_problem(
        &e.unwrap_err().problems,
        "flow[0].cc.signal",
        "sample, srtt",
    );
}

fn routing(keys: &str) -> Result<Scenario, ScenarioError> {
    from_toml_str(
        &format!(
            "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\n\
             rate = \"1Mbps\"\ndelay = \"1ms\"\n[routing]\nkind = \"distance-vector\"\n{keys}\n"
        ),
        "t",
    )
}

#[test]
fn distance_vector_timer_jitter_and_first_update() {
    let dv = routing("").unwrap().dv.unwrap();
    assert_eq!((dv.period_jitter, dv.first_update), (0.0, Dur::ZERO));
    let dv = routing("period_jitter = 0.1\nfirst_update = \"500ms\"")
        .unwrap()
        .dv
        .unwrap();
    assert_eq!(
        (dv.period_jitter, dv.first_update),
        (0.1, Dur::from_millis(500))
    );
    let ps = routing("period_jitter = 1.0").unwrap_err().problems;
    assert_problem(
        &ps,
        "routing.period_jitter",
        "allowed 0 ≤ period_jitter < 1",
    );
    let ps = routing("first_update = \"soon\"").unwrap_err().problems;
    assert_problem(&ps, "routing.first_update", "10ms");
}
