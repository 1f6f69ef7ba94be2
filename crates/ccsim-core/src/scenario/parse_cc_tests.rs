//! Tests of the `cc` key: controller kinds and their parameters.

use super::parse_tests::assert_problem;
use crate::scenario::*;
use crate::units::Dur;
use serde::de::DeserializeOwned;

#[test]
fn reno_ack_counting_is_selectable_and_checked() {
    let doc = |cc: &str| {
        format!(
            "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
             [[flow]]\nfrom = \"a\"\nto = \"b\"\ncc = {cc}\napp = {{ kind = \"bulk\" }}\n"
        )
    };
    let sc = from_toml_str(&doc("{ kind = \"reno\", counting = \"per_ack\" }"), "t").unwrap();
    match &sc.flows[0].transport {
        TransportSpec::Tcp(t) => assert_eq!(
            t.cc,
            CcSpec::new(
                &crate::cc::reno::KIND,
                &RenoConfig {
                    counting: AckCounting::PerAck,
                    ..RenoConfig::default()
                }
            )
        ),
        _ => panic!("tcp expected"),
    }
    let err =
        from_toml_str(&doc("{ kind = \"reno\", counting = \"sometimes\" }"), "t").unwrap_err();
    assert_eq!(err.problems[0].path, "flow[0].cc.counting");
    assert!(
        err.problems[0].message.contains("bytes, per_ack"),
        "{}",
        err.problems[0].message
    );
}

/// A one-flow document with `cc = <cc>`.
fn cc_doc(cc: &str) -> String {
    format!(
        "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
         [[flow]]\nfrom = \"a\"\nto = \"b\"\ncc = {cc}\napp = {{ kind = \"bulk\" }}\n"
    )
}

fn cc_of(cc: &str) -> CcSpec {
    let sc = from_toml_str(&cc_doc(cc), "t").unwrap();
    match &sc.flows[0].transport {
        TransportSpec::Tcp(t) => t.cc.clone(),
        _ => panic!("tcp expected"),
    }
}

/// The typed configuration of controller `kind` given as `cc`.
fn cfg<T: DeserializeOwned>(cc: &str, kind: &str) -> T {
    let c = cc_of(cc);
    assert_eq!(c.name(), kind);
    c.config().expect("the controller's configuration type")
}

fn cc_problems(cc: &str) -> Vec<Problem> {
    from_toml_str(&cc_doc(cc), "t").unwrap_err().problems
}

#[test]
fn vegas_presets_and_overrides() {
    assert_eq!(cfg::<VegasSpec>("\"vegas\"", "vegas"), VegasSpec::NS2);
    assert_eq!(
        cfg::<VegasSpec>("{ kind = \"vegas\", preset = \"linux\" }", "vegas"),
        VegasSpec {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
            ss_exit: VegasSsExit::Ns2,
            loss: Default::default(),
        }
    );
    assert_eq!(
        cfg::<VegasSpec>(
            "{ kind = \"vegas\", preset = \"linux\", beta = 6, gamma = 0.5 }",
            "vegas"
        ),
        VegasSpec {
            alpha: 2.0,
            beta: 6.0,
            gamma: 0.5,
            ss_exit: VegasSsExit::Ns2,
            loss: Default::default(),
        }
    );
    let ps = cc_problems("{ kind = \"vegas\", preset = \"bsd\" }");
    assert_problem(&ps, "flow[0].cc.preset", "allowed: ns2, linux");
    let ps = cc_problems("{ kind = \"vegas\", alpha = -1 }");
    assert_problem(
        &ps,
        "flow[0].cc.alpha",
        "-1 is out of range; allowed 0 ≤ alpha ≤ 1000000",
    );
    let ps = cc_problems("{ kind = \"vegas\", alpha = 5, beta = 3 }");
    assert_problem(&ps, "flow[0].cc.beta", "beta must not be below alpha");
    let ps = cc_problems("{ kind = \"vegas\", delta = 5 }");
    assert_problem(
        &ps,
        "flow[0].cc.delta",
        "allowed: kind, preset, alpha, beta, gamma",
    );
    let ps = cc_problems("{ kind = \"vegas\", gamma = \"one\" }");
    assert_problem(&ps, "flow[0].cc.gamma", "expected a number");
}

#[test]
fn westwood_filter_and_interval() {
    assert_eq!(
        cfg::<WestwoodSpec>("\"westwood\"", "westwood"),
        WestwoodSpec::default()
    );
    assert_eq!(
        cfg::<WestwoodSpec>(
            "{ kind = \"westwood\", filter = \"tustin\", min_interval = \"10ms\" }",
            "westwood"
        ),
        WestwoodSpec {
            filter: WestwoodFilter::Tustin,
            min_interval: Dur::from_millis(10),
            counting: AckCounting::Bytes,
        }
    );
    let ps = cc_problems("{ kind = \"westwood\", filter = \"kalman\" }");
    assert_problem(&ps, "flow[0].cc.filter", "allowed: ewma, linux, tustin");
    let ps = cc_problems("{ kind = \"westwood\", min_interval = 50 }");
    assert_problem(&ps, "flow[0].cc.min_interval", "10ms");
    let ps = cc_problems("{ kind = \"westwood\", gain = 0.9 }");
    assert_problem(
        &ps,
        "flow[0].cc.gain",
        "allowed: kind, filter, min_interval",
    );
}

#[test]
fn cubic_parameters_are_checked() {
    assert_eq!(cfg::<CubicSpec>("\"cubic\"", "cubic"), CubicSpec::default());
    assert_eq!(
        cfg::<CubicSpec>(
            "{ kind = \"cubic\", c = 0.8, beta = 0.5, fast_convergence = false }",
            "cubic"
        ),
        CubicSpec {
            c: 0.8,
            beta: 0.5,
            fast_convergence: false,
            reno_friendly: true,
            ..CubicSpec::default()
        }
    );
    let ps = cc_problems("{ kind = \"cubic\", beta = 1 }");
    assert_problem(
        &ps,
        "flow[0].cc.beta",
        "1 is out of range; allowed 0 < beta < 1",
    );
    let ps = cc_problems("{ kind = \"cubic\", c = 0 }");
    assert_problem(&ps, "flow[0].cc.c", "allowed 0 < c ≤ 1000000");
    let ps = cc_problems("{ kind = \"cubic\", reno_friendly = \"yes\" }");
    assert_problem(&ps, "flow[0].cc.reno_friendly", "expected");
    let ps = cc_problems("{ kind = \"cubic\", hystart = \"yes\" }");
    assert_problem(&ps, "flow[0].cc.hystart", "expected");
    let ps = cc_problems("{ kind = \"cubic\", arithmetic = \"integer\" }");
    assert_problem(&ps, "flow[0].cc.arithmetic", "rfc9438, linux");
    let ps = cc_problems("{ kind = \"cubic\", hystrat = true }");
    assert_problem(
        &ps,
        "flow[0].cc.hystrat",
        "allowed: kind, c, beta, fast_convergence, reno_friendly, arithmetic, hystart",
    );
}

#[test]
fn fast_parameters_are_checked() {
    assert_eq!(cfg::<FastSpec>("\"fast\"", "fast"), FastSpec::default());
    assert_eq!(
        cfg::<FastSpec>(
            "{ kind = \"fast\", alpha = 200, gamma = 0.25, every_other_rtt = true }",
            "fast"
        ),
        FastSpec {
            alpha: 200.0,
            gamma: 0.25,
            every_other_rtt: true,
            ..FastSpec::default()
        }
    );
    let m: FastSpec = cfg(
        "{ kind = \"fast\", mi_threshold = \"5ms\", update_interval = \"100ms\", pace_increases = true }",
        "fast",
    );
    assert_eq!(
        (m.mi_threshold, m.update_interval, m.pace_increases),
        (Some(Dur::from_millis(5)), Some(Dur::from_millis(100)), true)
    );
    let ps = cc_problems("{ kind = \"fast\", pace_increases = true }");
    assert_problem(&ps, "flow[0].cc.pace_increases", "give update_interval too");
    let ps = cc_problems("{ kind = \"fast\", mi_threshold = 0.005 }");
    assert_problem(&ps, "flow[0].cc.mi_threshold", "10ms");
    let f: FastSpec = cfg(
        "{ kind = \"fast\", avg_window_factor = 4, base_filter = 3000 }",
        "fast",
    );
    assert_eq!(
        (f.avg_window_factor, f.base_filter),
        (Some(4.0), Some(3000.0))
    );
    let ps = cc_problems("{ kind = \"fast\", base_filter = 0.5 }");
    assert_problem(
        &ps,
        "flow[0].cc.base_filter",
        "allowed 1 ≤ base_filter ≤ 1000000000",
    );
    let ps = cc_problems("{ kind = \"fast\", alpha = 0 }");
    assert_problem(&ps, "flow[0].cc.alpha", "allowed 0 < alpha ≤ 1000000");
    let ps = cc_problems("{ kind = \"fast\", gamma = 1.5 }");
    assert_problem(&ps, "flow[0].cc.gamma", "allowed 0 < gamma ≤ 1");
    let ps = cc_problems("{ kind = \"fast\", beta = 1 }");
    assert_problem(
        &ps,
        "flow[0].cc.beta",
        "allowed: kind, alpha, gamma, every_other_rtt, avg_window_factor, base_filter, mi_threshold, update_interval, pace_increases",
    );
    // Reno's key is not accepted by another controller.
    let ps = cc_problems("{ kind = \"fast\", counting = \"bytes\" }");
    assert_problem(&ps, "flow[0].cc.counting", "unknown key");
}

#[test]
fn arc_flows_take_their_own_keys_with_defaults_and_checks() {
    let base = "[simulation]\nduration = \"1s\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
    let ok = format!("{base}[[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"arc\"\napp = {{ kind = \"bulk\", size = \"1MB\" }}\narc = {{ window_cap = \"1667p\", filter_init = \"zero\", report_delay = \"100ms\", no_estimate = \"zero\" }}\n");
    let sc = from_toml_str(&ok, "t").unwrap();
    match &sc.flows[0].transport {
        TransportSpec::Arc(a) => {
            assert_eq!(a.window_cap, Some(1667));
            assert_eq!(a.filter_init, ArcFilterInit::Zero);
            assert_eq!(a.no_estimate, ArcNoEstimate::Zero);
            assert_eq!(a.report_delay, Some(crate::units::Dur::from_millis(100)));
            assert_eq!(a.probe_period, crate::units::Dur::from_millis(100));
            assert_eq!(a.rto.max, crate::units::Dur::from_secs(100_000));
        }
        other => panic!("{other:?}"),
    }
    let bad = format!("{base}[[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"arc\"\ncc = \"reno\"\napp = {{ kind = \"onoff\", on = \"1s\", off = \"1s\" }}\narc = {{ filter_gain = 1.5, probing = 3, no_estimate = \"third\" }}\n");
    let e = from_toml_str(&bad, "t").unwrap_err();
    assert_problem(
        &e.problems,
        "flow[0].cc",
        "cc applies only to flows with transport = \"tcp\", \"sctp\" or \"mptcp\"; this one has transport = \"arc\"",
    );
    assert_problem(
        &e.problems,
        "flow[0].app.kind",
        "allowed: bulk (an ARC flow sends one file)",
    );
    assert_problem(
        &e.problems,
        "flow[0].arc.filter_gain",
        "1.5 is out of range; allowed 0 ≤ filter_gain < 1",
    );
    assert_problem(&e.problems, "flow[0].arc.probing", "unknown key");
    assert_problem(&e.problems, "flow[0].arc.no_estimate", "halve");
}

/// The worked example of docs/adding-a-controller.md (`cc/example_aimd.rs`, registered by
/// one `#[cfg(test)]` line of `cc::CONTROLLERS`): a scenario names it, its parameters are
/// checked from its declarations alone, and it runs, boxed, like any other controller.
#[test]
fn the_worked_example_controller_is_named_checked_and_run() {
    use crate::cc::example_aimd::AimdConfig;
    let cc: AimdConfig = cfg("{ kind = \"aimd\", b = 0.125 }", "aimd");
    assert_eq!(cc, AimdConfig { a: 1.0, b: 0.125 });
    let ps = cc_problems("{ kind = \"aimd\", b = 1.5 }");
    assert_problem(
        &ps,
        "flow[0].cc.b",
        "1.5 is out of range; allowed 0 < b < 1",
    );
    let ps = cc_problems("{ kind = \"aimd\", c = 1 }");
    assert_problem(&ps, "flow[0].cc.c", "unknown key; allowed: kind, a, b");
    let sc = from_toml_str(&cc_doc("\"aimd\""), "t").unwrap();
    let r = crate::Simulation::new(sc).unwrap().finish();
    assert!(r.flows[0].bytes_delivered > 0);
    assert_eq!(r.flows[0].cc, "aimd");
}
