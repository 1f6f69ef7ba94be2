//! ARC flows (`transport = "arc"`): packet sizes, the `arc` parameter table, the report
//! timeout and the file to send.

use super::parse_flow::{bytes_in, parse_tcp_app};
use super::parse_rto::parse_rto;
use super::reader::*;
use crate::scenario::model::*;
use serde_json::{Map, Value};

/// Keys an ARC flow may have besides the common ones.
pub(crate) const ARC_KEYS: &[&str] = &["mss", "header", "rto", "arc"];
const PARAM_KEYS: &[&str] = &[
    "probe_period",
    "gain_periods",
    "filter_gain",
    "filter_init",
    "init_window",
    "window_cap",
    "no_estimate",
    "report_delay",
];

/// ARC's report-timeout defaults (`ArcSpec::default`): RFC 6298's minimum of 1 s and a
/// maximum far above the largest planetary RTT (ALGORITHMS.md §3.4.4).
pub(crate) fn arc_rto() -> RtoSpec {
    ArcSpec::default().rto
}

fn float_in(
    cx: &mut Cx,
    path: &str,
    v: &Value,
    what: &str,
    lo: f64,
    hi: f64,
    lo_open: bool,
) -> Option<f64> {
    let x = number(cx, path, v, what)?;
    let ok = if lo_open { x > lo } else { x >= lo } && x <= hi;
    if !ok {
        let open = if lo_open { "(" } else { "[" };
        cx.err(
            path,
            format!("{what} must be in {open}{lo}, {hi}], found {x}"),
        );
        return None;
    }
    Some(x)
}

/// Parse an ARC flow's transport-specific keys.
pub(crate) fn parse_arc(cx: &mut Cx, path: &str, m: &Map<String, Value>) -> ArcSpec {
    let mss = m
        .get("mss")
        .and_then(|v| bytes_in(cx, &join(path, "mss"), v, "the packet payload", 1))
        .unwrap_or(1460);
    let header = m
        .get("header")
        .and_then(|v| bytes_in(cx, &join(path, "header"), v, "the header size", 0))
        .unwrap_or(40);
    let rto = match m.get("rto") {
        Some(v) => parse_rto(cx, &join(path, "rto"), v, arc_rto()),
        None => arc_rto(),
    };
    let app = match m.get("app") {
        Some(v) => {
            let app = parse_tcp_app(cx, &join(path, "app"), v);
            if matches!(app, TcpApp::OnOff { .. }) {
                cx.err(
                    &join(path, "app"),
                    "an ARC flow sends one file: use kind = \"bulk\"",
                );
            }
            app
        }
        None => {
            cx.err(
                path,
                "app is required, e.g. app = { kind = \"bulk\", size = \"1GB\" }",
            );
            TcpApp::Bulk {
                size: None,
                start: StartSpec {
                    lo: crate::units::SimTime::ZERO,
                    hi: crate::units::SimTime::ZERO,
                },
            }
        }
    };
    let mut spec = ArcSpec {
        mss,
        header,
        rto,
        app,
        ..ArcSpec::default()
    };
    let Some(v) = m.get("arc") else { return spec };
    let p = join(path, "arc");
    let Some(t) = table(
        cx,
        &p,
        v,
        "ARC parameters such as { probe_period = \"100ms\" }",
    ) else {
        return spec;
    };
    check_keys(cx, &p, t, PARAM_KEYS);
    if let Some(v) = t.get("probe_period") {
        if let Some(d) = positive_duration(cx, &join(&p, "probe_period"), v) {
            spec.probe_period = d;
        }
    }
    if let Some(v) = t.get("gain_periods") {
        if let Some(x) = float_in(
            cx,
            &join(&p, "gain_periods"),
            v,
            "gain_periods",
            0.0,
            1e6,
            true,
        ) {
            spec.gain_periods = x;
        }
    }
    if let Some(v) = t.get("filter_gain") {
        if let Some(x) = float_in(
            cx,
            &join(&p, "filter_gain"),
            v,
            "filter_gain",
            0.0,
            1.0,
            false,
        ) {
            if x >= 1.0 {
                cx.err(
                    &join(&p, "filter_gain"),
                    "filter_gain must be below 1 (1 would never learn)",
                );
            } else {
                spec.filter_gain = x;
            }
        }
    }
    if let Some(v) = t.get("filter_init") {
        match choice(
            cx,
            &join(&p, "filter_init"),
            v,
            "filter initialisation",
            &["first_sample", "zero"],
        ) {
            Some(1) => spec.filter_init = ArcFilterInit::Zero,
            Some(_) => spec.filter_init = ArcFilterInit::FirstSample,
            None => {}
        }
    }
    if let Some(v) = t.get("no_estimate") {
        let what = "window after a congestion event before any bandwidth estimate";
        match choice(cx, &join(&p, "no_estimate"), v, what, &["halve", "zero"]) {
            Some(1) => spec.no_estimate = ArcNoEstimate::Zero,
            Some(_) => spec.no_estimate = ArcNoEstimate::Halve,
            None => {}
        }
    }
    if let Some(v) = t.get("init_window") {
        if let Some(x) = float_in(
            cx,
            &join(&p, "init_window"),
            v,
            "init_window",
            0.0,
            1e9,
            true,
        ) {
            spec.init_window = x;
        }
    }
    if let Some(v) = t.get("report_delay") {
        let rp = join(&p, "report_delay");
        match v {
            Value::Bool(false) => spec.report_delay = None,
            _ => {
                if let Some(d) = positive_duration(cx, &rp, v) {
                    spec.report_delay = Some(d);
                }
            }
        }
    }
    if let Some(v) = t.get("window_cap") {
        if let Some(n) = packets(cx, &join(&p, "window_cap"), v, "a window in packets") {
            if n == 0 {
                cx.err(
                    &join(&p, "window_cap"),
                    "window_cap must be at least 1 packet",
                );
            } else {
                spec.window_cap = Some(n);
            }
        }
    }
    spec
}
