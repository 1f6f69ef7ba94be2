//! The `cc` key of a TCP flow: controller kind and its checked parameters.

use super::reader::*;
use crate::scenario::model::*;
use serde_json::{Map, Value};

const CONTROLLERS: &[&str] = &["reno", "vegas", "westwood", "cubic", "fast"];

/// Parse `flow[i].cc` (absent: Reno with its defaults).
pub(crate) fn parse_cc(cx: &mut Cx, path: &str, m: &Map<String, Value>) -> CcSpec {
    match m.get("cc") {
        None => CcSpec::default(),
        Some(v) => {
            let p = join(path, "cc");
            let owned = as_kind_table(v);
            match (&owned, v) {
                (Some(t), _) | (None, Value::Object(t)) => {
                    match kind(cx, &p, t, "controller", CONTROLLERS) {
                        Some(1) => parse_vegas(cx, &p, t),
                        Some(2) => parse_westwood(cx, &p, t),
                        Some(3) => parse_cubic(cx, &p, t),
                        Some(4) => parse_fast(cx, &p, t),
                        Some(_) => parse_reno(cx, &p, t),
                        None => CcSpec::default(),
                    }
                }
                (None, other) => {
                    cx.err(
                        &p,
                        format!(
                            "expected a controller name such as \"reno\" or a table such as \
                             {{ kind = \"reno\" }}, found {}",
                            describe(other)
                        ),
                    );
                    CcSpec::default()
                }
            }
        }
    }
}

fn parse_reno(cx: &mut Cx, p: &str, t: &Map<String, Value>) -> CcSpec {
    check_keys(cx, p, t, &["kind", "counting"]);
    CcSpec::Reno {
        counting: ack_counting(cx, p, t),
    }
}

/// The optional `counting` key: `"bytes"` (default) or `"per_ack"`.
fn ack_counting(cx: &mut Cx, p: &str, t: &Map<String, Value>) -> AckCounting {
    match t.get("counting").map(|c| {
        let what = "ACK counting";
        choice(cx, &join(p, "counting"), c, what, &["bytes", "per_ack"])
    }) {
        Some(Some(1)) => AckCounting::PerAck,
        _ => AckCounting::Bytes,
    }
}

/// A bound of a parameter range: the value and whether it is included.
#[derive(Clone, Copy)]
struct Bound(f64, bool);

/// An optional number `t[key]` within `lo`..`hi`, with a message naming the range;
/// `default` when absent or invalid.
#[allow(clippy::too_many_arguments)]
fn cc_number(
    cx: &mut Cx,
    p: &str,
    t: &Map<String, Value>,
    key: &str,
    what: &str,
    lo: Bound,
    hi: Bound,
    default: f64,
) -> f64 {
    let Some(v) = t.get(key) else {
        return default;
    };
    let path = join(p, key);
    let Some(x) = number(cx, &path, v, what) else {
        return default;
    };
    let above_lo = if lo.1 { x >= lo.0 } else { x > lo.0 };
    let below_hi = if hi.1 { x <= hi.0 } else { x < hi.0 };
    if !(above_lo && below_hi) {
        let (a, b) = (if lo.1 { "[" } else { "(" }, if hi.1 { "]" } else { ")" });
        cx.err(
            &path,
            format!(
                "{key} ({what}) must be in {a}{}, {}{b}, found {x}",
                lo.0, hi.0
            ),
        );
        return default;
    }
    x
}

fn cc_bool(cx: &mut Cx, p: &str, t: &Map<String, Value>, key: &str, default: bool) -> bool {
    match t.get(key) {
        Some(v) => boolean(cx, &join(p, key), v, key).unwrap_or(default),
        None => default,
    }
}

/// Largest packet count accepted for the delay-based thresholds.
const MAXQ: Bound = Bound(1e6, true);

fn parse_vegas(cx: &mut Cx, p: &str, t: &Map<String, Value>) -> CcSpec {
    check_keys(
        cx,
        p,
        t,
        &["kind", "preset", "alpha", "beta", "gamma", "ss_exit"],
    );
    let mut spec = VegasSpec::default();
    if let Some(v) = t.get("preset") {
        if choice(cx, &join(p, "preset"), v, "Vegas preset", &["ns2", "linux"]) == Some(1) {
            spec = VegasSpec::LINUX;
        }
    }
    let what = "packets queued";
    spec.alpha = cc_number(cx, p, t, "alpha", what, Bound(0.0, true), MAXQ, spec.alpha);
    spec.beta = cc_number(cx, p, t, "beta", what, Bound(0.0, true), MAXQ, spec.beta);
    spec.gamma = cc_number(cx, p, t, "gamma", what, Bound(0.0, true), MAXQ, spec.gamma);
    if let Some(v) = t.get("ss_exit") {
        let exits = &["ns2", "linux"];
        if choice(cx, &join(p, "ss_exit"), v, "Vegas slow-start exit", exits) == Some(1) {
            spec.ss_exit = VegasSsExit::Linux;
        }
    }
    if spec.alpha > spec.beta {
        cx.err(
            &join(p, "beta"),
            format!(
                "beta must not be below alpha, found alpha = {} and beta = {}",
                spec.alpha, spec.beta
            ),
        );
    }
    CcSpec::Vegas(spec)
}

fn parse_westwood(cx: &mut Cx, p: &str, t: &Map<String, Value>) -> CcSpec {
    check_keys(cx, p, t, &["kind", "filter", "min_interval", "counting"]);
    let mut spec = WestwoodSpec::default();
    if let Some(v) = t.get("filter") {
        spec.filter = match choice(
            cx,
            &join(p, "filter"),
            v,
            "Westwood+ filter",
            &["ewma", "linux", "tustin"],
        ) {
            Some(1) => WestwoodFilter::Linux,
            Some(2) => WestwoodFilter::Tustin,
            _ => WestwoodFilter::Ewma,
        };
    }
    if let Some(v) = t.get("min_interval") {
        if let Some(d) = duration(cx, &join(p, "min_interval"), v) {
            spec.min_interval = d;
        }
    }
    spec.counting = ack_counting(cx, p, t);
    CcSpec::Westwood(spec)
}

fn parse_cubic(cx: &mut Cx, p: &str, t: &Map<String, Value>) -> CcSpec {
    check_keys(
        cx,
        p,
        t,
        &["kind", "c", "beta", "fast_convergence", "reno_friendly"],
    );
    let d = CubicSpec::default();
    CcSpec::Cubic(CubicSpec {
        c: cc_number(
            cx,
            p,
            t,
            "c",
            "segments/s³",
            Bound(0.0, false),
            Bound(1e6, true),
            d.c,
        ),
        beta: cc_number(
            cx,
            p,
            t,
            "beta",
            "multiplicative decrease",
            Bound(0.0, false),
            Bound(1.0, false),
            d.beta,
        ),
        fast_convergence: cc_bool(cx, p, t, "fast_convergence", d.fast_convergence),
        reno_friendly: cc_bool(cx, p, t, "reno_friendly", d.reno_friendly),
    })
}

fn parse_fast(cx: &mut Cx, p: &str, t: &Map<String, Value>) -> CcSpec {
    check_keys(
        cx,
        p,
        t,
        &[
            "kind",
            "alpha",
            "gamma",
            "every_other_rtt",
            "avg_window_factor",
            "base_filter",
            "mi_threshold",
            "update_interval",
            "pace_increases",
        ],
    );
    let d = FastSpec::default();
    let dur_key = |cx: &mut Cx, key: &str| t.get(key).and_then(|v| duration(cx, &join(p, key), v));
    let mi_threshold = dur_key(cx, "mi_threshold");
    let update_interval = dur_key(cx, "update_interval");
    let pace_increases = cc_bool(cx, p, t, "pace_increases", d.pace_increases);
    if pace_increases && update_interval.is_none() {
        cx.err(
            &join(p, "pace_increases"),
            "pacing spreads an increase over one update interval: give update_interval too \
             (the ns-2 module's fast_update_cwnd_interval_, e.g. update_interval = \"100ms\")",
        );
    }
    CcSpec::Fast(FastSpec {
        mi_threshold,
        update_interval,
        pace_increases,
        alpha: cc_number(
            cx,
            p,
            t,
            "alpha",
            "packets queued",
            Bound(0.0, false),
            MAXQ,
            d.alpha,
        ),
        gamma: cc_number(
            cx,
            p,
            t,
            "gamma",
            "step size",
            Bound(0.0, false),
            Bound(1.0, true),
            d.gamma,
        ),
        every_other_rtt: cc_bool(cx, p, t, "every_other_rtt", d.every_other_rtt),
        // Mallada & Paganini's variant (docs/routing.md): both absent by default.
        avg_window_factor: t.contains_key("avg_window_factor").then(|| {
            cc_number(
                cx,
                p,
                t,
                "avg_window_factor",
                "RTTs of averaging (a = 1/(k·cwnd))",
                Bound(0.0, false),
                MAXQ,
                4.0,
            )
        }),
        base_filter: t.contains_key("base_filter").then(|| {
            cc_number(
                cx,
                p,
                t,
                "base_filter",
                "ACKs of base-RTT filtering (b = 1/n)",
                Bound(1.0, true),
                Bound(1e9, true),
                3000.0,
            )
        }),
    })
}
