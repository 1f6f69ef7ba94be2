//! `transport = "mptcp"` flows: the coupled controller (`cc`), the scheduler, subflow join
//! times and the connection-level receive buffer; the subflows' TCP parameters are those
//! of a TCP flow. One subflow per entry of the flow's `paths`.

use super::reader::*;
use crate::scenario::model::*;
use crate::scenario::model_mptcp::*;
use crate::units::Dur;
use serde_json::{Map, Value};

/// Keys an MPTCP flow takes besides the common ones (`paths` among them) and the TCP ones.
pub(crate) const MPTCP_KEYS: &[&str] = &["scheduler", "joins", "recv_buffer"];
/// Coupled controllers, as written in scenarios.
pub(crate) const COUPLED: &[&str] = &["lia", "olia", "balia", "wvegas", "daimd", "reno"];
const SCHEDULERS: &[&str] = &["minrtt", "roundrobin"];
/// Most subflows of one connection (`Packet::path` is a byte).
pub(crate) const MAX_SUBFLOWS: usize = 32;

/// Parse the MPTCP-specific keys of flow `path`; `tcp` holds its subflow TCP parameters.
pub(crate) fn parse_mptcp(
    cx: &mut Cx,
    path: &str,
    m: &Map<String, Value>,
    mut tcp: TcpSpec,
) -> MptcpSpec {
    // One subflow per path; the paths themselves are checked by `parse_paths`.
    let n = match m.get("paths") {
        Some(Value::Array(a)) => a.len().clamp(1, MAX_SUBFLOWS),
        Some(_) => 1,
        None => {
            cx.err(
                path,
                "an MPTCP flow needs paths, one per subflow, e.g. paths = [[\"s\", \"a\", \
                 \"d\"], [\"s\", \"b\", \"d\"]]",
            );
            1
        }
    };
    if !m.contains_key("recovery") {
        tcp.recovery = RecoverySpec::Sack; // Linux MPTCP subflows use SACK
    }
    if tcp.handshake {
        cx.err(
            &join(path, "handshake"),
            "the handshake is modelled for TCP flows only; an MPTCP flow's subflows send at once",
        );
        tcp.handshake = false;
    }
    if tcp.select.is_some() {
        cx.err(
            &join(path, "select"),
            "a path selector applies to TCP flows; an MPTCP flow uses every path, one subflow each",
        );
        tcp.select = None;
    }
    if let TcpApp::OnOff { .. } = tcp.app {
        cx.err(
            &join(path, "app"),
            "an MPTCP flow takes a bulk application (finite or greedy), not on/off",
        );
    }
    let coupled = parse_coupled(cx, path, m);
    tcp.cc = CcSpec::Coupled(coupled);
    let scheduler = match m.get("scheduler") {
        None => SchedulerSpec::MinRtt,
        Some(v) => match choice(cx, &join(path, "scheduler"), v, "scheduler", SCHEDULERS) {
            Some(1) => SchedulerSpec::RoundRobin,
            _ => SchedulerSpec::MinRtt,
        },
    };
    let joins = parse_joins(cx, &join(path, "joins"), m.get("joins"), n);
    let recv_buffer = m.get("recv_buffer").and_then(|v| {
        let p = join(path, "recv_buffer");
        let b = size_or_bytes(cx, &p, v, "a buffer size such as \"4MB\"")?;
        if b.0 < tcp.mss as u64 {
            cx.err(
                &p,
                format!(
                    "recv_buffer must hold at least one segment ({} bytes)",
                    tcp.mss
                ),
            );
            return None;
        }
        Some(b.0)
    });
    MptcpSpec {
        tcp,
        coupled,
        scheduler,
        joins,
        recv_buffer,
    }
}

fn parse_joins(cx: &mut Cx, p: &str, v: Option<&Value>, n: usize) -> Vec<Dur> {
    let zeros = vec![Dur::ZERO; n];
    let Some(v) = v else {
        return zeros;
    };
    let Value::Array(a) = v else {
        cx.err(
            p,
            format!(
                "expected a list of join delays, one per path, such as [\"0s\", \"10s\"], \
                 found {}",
                describe(v)
            ),
        );
        return zeros;
    };
    if a.len() != n {
        cx.err(
            p,
            format!("expected one join delay per path ({n}), found {}", a.len()),
        );
        return zeros;
    }
    a.iter()
        .enumerate()
        .map(|(i, d)| duration(cx, &index(p, i), d).unwrap_or(Dur::ZERO))
        .collect()
}

/// The `cc` key of an MPTCP flow (absent: LIA).
fn parse_coupled(cx: &mut Cx, path: &str, m: &Map<String, Value>) -> CoupledSpec {
    let default = CoupledSpec::Lia {
        counting: AckCounting::Bytes,
    };
    let Some(v) = m.get("cc") else {
        return default;
    };
    let p = join(path, "cc");
    let owned = as_kind_table(v);
    let t = match (&owned, v) {
        (Some(t), _) | (None, Value::Object(t)) => t,
        (None, other) => {
            cx.err(
                &p,
                format!(
                    "expected a coupled controller name such as \"lia\" or a table such as \
                     {{ kind = \"daimd\", d0 = \"20ms\" }}, found {}",
                    describe(other)
                ),
            );
            return default;
        }
    };
    let k = kind(cx, &p, t, "coupled controller", COUPLED);
    match k {
        Some(3) => {
            check_keys(
                cx,
                &p,
                t,
                &["kind", "total_alpha", "initial_alpha", "gamma"],
            );
            let d = WvegasSpec::default();
            CoupledSpec::Wvegas(WvegasSpec {
                total_alpha: positive(cx, &p, t, "total_alpha", d.total_alpha),
                initial_alpha: positive(cx, &p, t, "initial_alpha", d.initial_alpha),
                gamma: positive(cx, &p, t, "gamma", d.gamma),
            })
        }
        Some(4) => {
            check_keys(
                cx,
                &p,
                t,
                &[
                    "kind",
                    "d0",
                    "d0_rtt",
                    "w0",
                    "hold",
                    "delay_beta",
                    "counting",
                    "quiet",
                    "signal",
                ],
            );
            let d = DaimdSpec::default();
            let hold = match t.get("hold") {
                None => d.hold,
                Some(Value::String(s)) if s == "srtt" => None,
                Some(v) => duration(cx, &join(&p, "hold"), v).or(d.hold),
            };
            let delay_beta = positive(cx, &p, t, "delay_beta", d.delay_beta);
            if delay_beta >= 1.0 {
                cx.err(
                    &join(&p, "delay_beta"),
                    format!("delay_beta must be between 0 and 1 (exclusive), found {delay_beta}"),
                );
            }
            let w0 = match t.get("w0") {
                None => d.w0,
                Some(v) => match number(cx, &join(&p, "w0"), v, "W0 in packets") {
                    Some(x) if x >= 0.0 => x,
                    Some(x) => {
                        cx.err(
                            &join(&p, "w0"),
                            format!("w0 must be ≥ 0 packets, found {x}"),
                        );
                        d.w0
                    }
                    None => d.w0,
                },
            };
            let quiet = match t.get("quiet") {
                None => d.quiet,
                Some(Value::String(s)) if s == "hold" => DaimdQuiet::Hold,
                Some(Value::String(s)) if s == "srtt" => DaimdQuiet::Srtt,
                Some(v) => match duration(cx, &join(&p, "quiet"), v) {
                    Some(q) => DaimdQuiet::Fixed(q),
                    None => d.quiet,
                },
            };
            let signal = match t.get("signal").map(|v| {
                let sp = join(&p, "signal");
                choice(cx, &sp, v, "DAIMD delay signal", &["sample", "srtt"])
            }) {
                Some(Some(1)) => DaimdSignal::Srtt,
                _ => DaimdSignal::Sample,
            };
            CoupledSpec::Daimd(DaimdSpec {
                d0: t
                    .get("d0")
                    .and_then(|v| duration(cx, &join(&p, "d0"), v))
                    .unwrap_or(d.d0),
                w0,
                d0_rtt: t.get("d0_rtt").map(|_| positive(cx, &p, t, "d0_rtt", 0.45)),
                hold,
                delay_beta,
                counting: counting(cx, &p, t),
                quiet,
                signal,
            })
        }
        Some(i) => {
            check_keys(cx, &p, t, &["kind", "counting"]);
            let counting = counting(cx, &p, t);
            match i {
                1 => CoupledSpec::Olia { counting },
                2 => CoupledSpec::Balia { counting },
                5 => CoupledSpec::Reno { counting },
                _ => CoupledSpec::Lia { counting },
            }
        }
        None => default,
    }
}

fn counting(cx: &mut Cx, p: &str, t: &Map<String, Value>) -> AckCounting {
    match t.get("counting").map(|c| {
        choice(
            cx,
            &join(p, "counting"),
            c,
            "ACK counting",
            &["bytes", "per_ack"],
        )
    }) {
        Some(Some(1)) => AckCounting::PerAck,
        _ => AckCounting::Bytes,
    }
}

/// An optional number > 0 at `t[key]`.
fn positive(cx: &mut Cx, p: &str, t: &Map<String, Value>, key: &str, default: f64) -> f64 {
    let Some(v) = t.get(key) else {
        return default;
    };
    let kp = join(p, key);
    match number(cx, &kp, v, key) {
        Some(x) if x > 0.0 => x,
        Some(x) => {
            cx.err(&kp, format!("{key} must be greater than 0, found {x}"));
            default
        }
        None => default,
    }
}
