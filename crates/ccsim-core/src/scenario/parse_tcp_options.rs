//! The TCP mechanisms of issues #19 and #27 that are options of a flow or of its `rto`
//! table, each off (today's behaviour) by default. One function per group, so the keys are
//! easy to move to another way of declaring parameters.

use super::reader::*;
use crate::scenario::model::*;
use serde_json::{Map, Value};

/// Keys of a TCP flow's `rto` table beyond the bounds every RTO table has.
pub(crate) const TCP_RTO_KEYS: &[&str] = &["estimator", "samples", "restart_at_fast_retransmit"];

const LOSS_FLIGHTS: &[&str] = &["flight_size", "pipe", "cwnd"];
const ESTIMATORS: &[&str] = &["rfc6298", "linux", "ns2"];
const SAMPLES: &[&str] = &["every_ack", "one_per_rtt"];

/// The flow-level options (keys listed in `parse_flow`'s `TCP_KEYS`): (limited_transmit,
/// handshake, ssthresh_from, sack_option_bytes).
pub(crate) fn parse_tcp_options(
    cx: &mut Cx,
    path: &str,
    m: &Map<String, Value>,
) -> (bool, bool, LossFlight, bool) {
    let flag = |cx: &mut Cx, key: &str| {
        m.get(key)
            .and_then(|v| boolean(cx, &join(path, key), v, key))
            .unwrap_or(false)
    };
    let limited_transmit = flag(cx, "limited_transmit");
    let handshake = flag(cx, "handshake");
    let sack_option_bytes = flag(cx, "sack_option_bytes");
    let ssthresh_from = match m.get("ssthresh_from").map(|v| {
        let p = join(path, "ssthresh_from");
        choice(cx, &p, v, "loss-response basis", LOSS_FLIGHTS)
    }) {
        Some(Some(1)) => LossFlight::Pipe,
        Some(Some(2)) => LossFlight::Cwnd,
        _ => LossFlight::FlightSize,
    };
    (
        limited_transmit,
        handshake,
        ssthresh_from,
        sack_option_bytes,
    )
}

/// The TCP-only keys of an `rto` table (already checked against the allowed keys).
pub(crate) fn parse_tcp_rto_options(
    cx: &mut Cx,
    path: &str,
    m: &Map<String, Value>,
    mut r: RtoSpec,
) -> RtoSpec {
    if let Some(v) = m.get("estimator") {
        r.estimator = match choice(cx, &join(path, "estimator"), v, "RTO estimator", ESTIMATORS) {
            Some(1) => RtoEstimator::Linux,
            Some(2) => RtoEstimator::Ns2,
            _ => RtoEstimator::Rfc6298,
        };
    }
    if let Some(v) = m.get("samples") {
        if choice(cx, &join(path, "samples"), v, "RTT sampling", SAMPLES) == Some(1) {
            r.samples = RttSamples::OnePerRtt;
        }
    }
    if let Some(v) = m.get("restart_at_fast_retransmit") {
        let p = join(path, "restart_at_fast_retransmit");
        r.restart_at_fast_retransmit =
            boolean(cx, &p, v, "restart_at_fast_retransmit").unwrap_or(false);
    }
    if r.estimator == RtoEstimator::Ns2 && r.granularity.0 == 0 {
        cx.err(
            &join(path, "granularity"),
            "the ns2 estimator counts in ticks of the granularity (ns-2's tcpTick_), which \
             must be greater than zero, e.g. granularity = \"10ms\"",
        );
    }
    r
}
