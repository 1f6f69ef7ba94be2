//! Checks between the values of one table (min < max and the like), run after every value
//! was read and checked on its own. Each names both values.

use crate::params::text::join;
use crate::params::{Cx, Resolved};
use crate::units::parse::format_duration;
use crate::units::Dur;

/// Both values, when both were written or defaulted without a problem.
fn pair(r: &Resolved, a: &str, b: &str) -> Option<(serde_json::Value, serde_json::Value)> {
    let ok = |n: &str| r.get(n).is_some_and(|e| !e.bad);
    (ok(a) && ok(b)).then(|| (r.value(a), r.value(b)))
}

/// RED: min_th < max_th when both are numbers.
pub(crate) fn red(cx: &mut Cx, path: &str, q: &Resolved) {
    if q.kind.map(|k| k.name) != Some("red") {
        return;
    }
    if let Some((lo, hi)) = pair(q, "min_th", "max_th") {
        if let (Some(lo), Some(hi)) = (lo.as_f64(), hi.as_f64()) {
            if lo >= hi {
                cx.err(
                    &join(path, "max_th"),
                    format!("max_th ({hi}) must be greater than min_th ({lo})"),
                );
            }
        }
    }
}

/// RTO: min ≤ max; ns-2's estimator counts in ticks of a non-zero granularity.
fn rto(cx: &mut Cx, path: &str, r: &Resolved) {
    if let Some((est, g)) = pair(r, "estimator", "granularity") {
        if est == "ns2" && g.as_u64() == Some(0) {
            cx.err(
                &join(path, "granularity"),
                "the ns2 estimator counts in ticks of the granularity (ns-2's tcpTick_), which \
                 must be greater than zero, e.g. granularity = \"10ms\"",
            );
        }
    }
    if let Some((lo, hi)) = pair(r, "min", "max") {
        if let (Some(lo), Some(hi)) = (lo.as_u64(), hi.as_u64()) {
            if lo > hi {
                cx.err(
                    path,
                    format!(
                        "min ({}) must not exceed max ({})",
                        format_duration(Dur(lo)),
                        format_duration(Dur(hi))
                    ),
                );
            }
        }
    }
}

/// The checks of a flow's transport table.
pub(crate) fn transport(cx: &mut Cx, path: &str, t: &Resolved) {
    let sub = |name: &str| t.get(name).and_then(|e| e.sub.as_ref());
    if let Some(r) = sub("rto") {
        rto(cx, &join(path, "rto"), r);
    }
    if let Some(cc) = sub("cc").filter(|c| c.kind.map(|k| k.name) == Some("vegas")) {
        if let Some((a, b)) = pair(cc, "alpha", "beta") {
            if let (Some(a), Some(b)) = (a.as_f64(), b.as_f64()) {
                if a > b {
                    cx.err(
                        &join(path, "cc.beta"),
                        format!("beta must not be below alpha, found alpha = {a} and beta = {b}"),
                    );
                }
            }
        }
    }
    if let Some(cc) = sub("cc").filter(|c| c.kind.map(|k| k.name) == Some("fast")) {
        if let Some((pace, interval)) = pair(cc, "pace_increases", "update_interval") {
            if pace == true && interval.is_null() {
                cx.err(
                    &join(path, "cc.pace_increases"),
                    "pacing spreads an increase over one update interval: give update_interval \
                     too (the ns-2 module's fast_update_cwnd_interval_, e.g. update_interval = \
                     \"100ms\")",
                );
            }
        }
    }
    if let Some(s) = sub("sctp") {
        if let Some((o, m)) = pair(s, "overhead", "mtu") {
            if let (Some(o), Some(m)) = (o.as_u64(), m.as_u64()) {
                if o >= m {
                    cx.err(
                        &join(path, "sctp.overhead"),
                        format!(
                            "overhead ({o}) must be below the MTU ({m}) to leave room for payload"
                        ),
                    );
                }
            }
        }
    }
    if let Some(app) = sub("app").filter(|a| a.kind.map(|k| k.name) == Some("cbr")) {
        if let Some((stop, start)) = pair(app, "stop", "start") {
            let hi = start.get("hi").and_then(|v| v.as_u64());
            if let (Some(stop), Some(hi)) = (stop.as_u64(), hi) {
                if stop <= hi {
                    cx.err(
                        &join(path, "app.stop"),
                        format!(
                            "stop ({}) must be later than start ({})",
                            format_duration(Dur(stop)),
                            format_duration(Dur(hi))
                        ),
                    );
                }
            }
        }
    }
}
