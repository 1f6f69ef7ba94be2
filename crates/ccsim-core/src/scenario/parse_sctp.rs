//! SCTP/CMT flows (`transport = "sctp"`): the `sctp` parameter table, the controller
//! (`cc = "cmt" | "berp" | { kind = "cmt" | "berp", ... }`), the RTO and the file to send.
//! Destinations are the flow's pinned `paths` (docs/sctp.md).

use super::parse_flow::{bytes_in, parse_rto, parse_tcp_app};
use super::reader::*;
use crate::scenario::model::*;
use crate::scenario::model_sctp::*;
use serde_json::{Map, Value};

/// Most destinations (pinned paths) of one association.
pub(crate) const MAX_SCTP_PATHS: usize = 32;
/// Keys an SCTP flow may have besides the common ones.
pub(crate) const SCTP_KEYS: &[&str] = &["cc", "rto", "sctp"];
const PARAM_KEYS: &[&str] = &[
    "mtu",
    "overhead",
    "init_cwnd",
    "init_ssthresh",
    "rwnd",
    "sack_delay",
    "fast_rtx_threshold",
    "sfr",
    "cuc",
    "dac",
    "rtx_policy",
    "max_burst",
    "cwnd_rule",
    "pf",
    "pf_cwnd",
];
const CMT_KEYS: &[&str] = &["kind", "floor"];
const BERP_KEYS: &[&str] = &[
    "kind",
    "p",
    "floor",
    "beta",
    "beta_clamp",
    "increase",
    "attribution",
];
const CONTROLLERS: &[&str] = &["cmt", "berp"];

fn float_in(cx: &mut Cx, path: &str, v: &Value, what: &str, lo: f64, hi: f64) -> Option<f64> {
    let x = number(cx, path, v, what)?;
    if !(x > lo && x < hi) {
        cx.err(path, format!("{what} must be in ({lo}, {hi}), found {x}"));
        return None;
    }
    Some(x)
}

/// An ssthresh floor in MTUs, in (0, 1e6].
fn floor_mtus(cx: &mut Cx, path: &str, t: &Map<String, Value>, out: &mut f64) {
    if let Some(v) = t.get("floor") {
        let p = join(path, "floor");
        if let Some(x) = number(cx, &p, v, "a floor in MTUs") {
            if (0.0..=1e6).contains(&x) && x > 0.0 {
                *out = x;
            } else {
                cx.err(&p, format!("floor must be in (0, 1e6] MTUs, found {x}"));
            }
        }
    }
}

fn parse_berp(cx: &mut Cx, path: &str, t: &Map<String, Value>) -> BerpSpec {
    check_keys(cx, path, t, BERP_KEYS);
    let mut b = BerpSpec::default();
    if let Some(v) = t.get("p") {
        if let Some(x) = float_in(cx, &join(path, "p"), v, "p", 0.0, 1.0) {
            b.p = x;
        }
    }
    floor_mtus(cx, path, t, &mut b.floor_mtus);
    if let Some(v) = t.get("beta") {
        let p = join(path, "beta");
        match v {
            Value::String(s) if s == "estimate" => b.beta = BerpBeta::Estimate,
            Value::Number(_) => {
                if let Some(x) = float_in(cx, &p, v, "beta", 0.0, 1.0) {
                    b.beta = BerpBeta::Fixed(x);
                }
            }
            other => cx.err(
                &p,
                format!(
                    "expected \"estimate\" (eq. (2)) or a number in (0, 1), found {}",
                    describe(other)
                ),
            ),
        }
    }
    if let Some(v) = t.get("beta_clamp") {
        if let Some(x) = boolean(cx, &join(path, "beta_clamp"), v, "beta_clamp") {
            b.beta_clamp = x;
        }
    }
    if let Some(v) = t.get("increase") {
        match choice(
            cx,
            &join(path, "increase"),
            v,
            "increase trigger",
            &["pba", "per_sack"],
        ) {
            Some(1) => b.increase = BerpIncrease::PerSack,
            Some(_) => b.increase = BerpIncrease::Pba,
            None => {}
        }
    }
    if let Some(v) = t.get("attribution") {
        match choice(
            cx,
            &join(path, "attribution"),
            v,
            "byte attribution",
            &["last_sent", "sack_path"],
        ) {
            Some(1) => b.attribution = BerpAttribution::SackPath,
            Some(_) => b.attribution = BerpAttribution::LastSent,
            None => {}
        }
    }
    b
}

fn parse_controller(cx: &mut Cx, path: &str, v: &Value) -> CmtCcSpec {
    let owned;
    let t = match as_kind_table(v) {
        Some(m) => {
            owned = m;
            &owned
        }
        None => match table(
            cx,
            path,
            v,
            "a controller: \"cmt\", \"berp\", { kind = \"cmt\", floor = 2 } or { kind = \"berp\", p = 0.9 }",
        ) {
            Some(t) => t,
            None => return CmtCcSpec::Cmt(CmtSpec::default()),
        },
    };
    match kind(cx, path, t, "SCTP controller", CONTROLLERS) {
        Some(1) => CmtCcSpec::Berp(parse_berp(cx, path, t)),
        Some(_) => {
            check_keys(cx, path, t, CMT_KEYS);
            let mut c = CmtSpec::default();
            floor_mtus(cx, path, t, &mut c.floor_mtus);
            CmtCcSpec::Cmt(c)
        }
        None => CmtCcSpec::Cmt(CmtSpec::default()),
    }
}

fn flag(cx: &mut Cx, p: &str, t: &Map<String, Value>, key: &str, out: &mut bool) {
    if let Some(v) = t.get(key) {
        if let Some(x) = boolean(cx, &join(p, key), v, key) {
            *out = x;
        }
    }
}

fn parse_params(cx: &mut Cx, p: &str, t: &Map<String, Value>, spec: &mut SctpSpec) {
    check_keys(cx, p, t, PARAM_KEYS);
    if let Some(v) = t.get("mtu") {
        if let Some(x) = bytes_in(cx, &join(p, "mtu"), v, "the MTU", 64) {
            spec.mtu = x;
        }
    }
    if let Some(v) = t.get("overhead") {
        if let Some(x) = bytes_in(cx, &join(p, "overhead"), v, "the per-packet overhead", 0) {
            spec.overhead = x;
        }
    }
    if spec.overhead >= spec.mtu {
        cx.err(
            &join(p, "overhead"),
            format!(
                "overhead ({}) must be below the MTU ({}) to leave room for payload",
                spec.overhead, spec.mtu
            ),
        );
        spec.overhead = spec.mtu - 1;
    }
    if let Some(v) = t.get("init_cwnd") {
        let kp = join(p, "init_cwnd");
        if v.is_string() {
            // A size: ns-2.35's Reset sets min(4·MTU, max(4380 B, 2·MTU)) = 4380 B.
            if let Some(b) =
                size_or_bytes(cx, &kp, v, "MTUs (a number) or a size such as \"4380B\"")
            {
                if b.0 == 0 {
                    cx.err(&kp, "init_cwnd must be greater than zero");
                } else {
                    spec.init_cwnd_bytes = Some(b.0);
                }
            }
        } else if let Some(x) = uint_in(cx, &kp, v, "init_cwnd (MTUs)", 1, 1 << 20) {
            spec.init_cwnd = x as u32;
        }
    }
    for (key, out) in [
        ("init_ssthresh", &mut spec.init_ssthresh),
        ("rwnd", &mut spec.rwnd),
    ] {
        if let Some(v) = t.get(key) {
            let kp = join(p, key);
            if let Some(b) = size_or_bytes(cx, &kp, v, "a size in bytes such as \"64KB\"") {
                if b.0 == 0 {
                    cx.err(&kp, format!("{key} must be greater than zero"));
                } else {
                    *out = b.0;
                }
            }
        }
    }
    if let Some(v) = t.get("sack_delay") {
        let kp = join(p, "sack_delay");
        match v {
            Value::Bool(false) => spec.sack_delay = None,
            _ => {
                if let Some(d) = positive_duration(cx, &kp, v) {
                    spec.sack_delay = Some(d);
                }
            }
        }
    }
    if let Some(v) = t.get("fast_rtx_threshold") {
        if let Some(x) = uint_in(
            cx,
            &join(p, "fast_rtx_threshold"),
            v,
            "fast_rtx_threshold",
            1,
            1000,
        ) {
            spec.fast_rtx_threshold = x as u32;
        }
    }
    flag(cx, p, t, "sfr", &mut spec.sfr);
    flag(cx, p, t, "cuc", &mut spec.cuc);
    flag(cx, p, t, "dac", &mut spec.dac);
    if let Some(v) = t.get("rtx_policy") {
        match choice(
            cx,
            &join(p, "rtx_policy"),
            v,
            "retransmission policy",
            &["same", "ssthresh", "cwnd"],
        ) {
            Some(0) => spec.rtx_policy = RtxPolicy::Same,
            Some(1) => spec.rtx_policy = RtxPolicy::Ssthresh,
            Some(_) => spec.rtx_policy = RtxPolicy::Cwnd,
            None => {}
        }
    }
    if let Some(v) = t.get("max_burst") {
        if let Some(x) = uint_in(cx, &join(p, "max_burst"), v, "max_burst", 0, 1 << 20) {
            spec.max_burst = x as u32;
        }
    }
    if let Some(v) = t.get("cwnd_rule") {
        match choice(
            cx,
            &join(p, "cwnd_rule"),
            v,
            "window rule",
            &["whole_packets", "ns2"],
        ) {
            Some(1) => spec.cwnd_rule = CwndRule::Ns2,
            Some(_) => spec.cwnd_rule = CwndRule::WholePackets,
            None => {}
        }
    }
    flag(cx, p, t, "pf", &mut spec.pf);
    if let Some(v) = t.get("pf_cwnd") {
        if let Some(x) = uint_in(cx, &join(p, "pf_cwnd"), v, "pf_cwnd (MTUs)", 1, 1 << 20) {
            spec.pf_cwnd = x as u32;
        }
    }
}

/// Parse an SCTP flow's transport-specific keys.
pub(crate) fn parse_sctp(cx: &mut Cx, path: &str, m: &Map<String, Value>) -> SctpSpec {
    let mut spec = SctpSpec::default();
    if let Some(v) = m.get("rto") {
        spec.rto = parse_rto(cx, &join(path, "rto"), v, spec.rto);
    }
    if let Some(v) = m.get("cc") {
        spec.cc = parse_controller(cx, &join(path, "cc"), v);
    }
    match m.get("app") {
        Some(v) => {
            let app = parse_tcp_app(cx, &join(path, "app"), v);
            if matches!(app, TcpApp::OnOff { .. }) {
                cx.err(
                    &join(path, "app"),
                    "an SCTP association sends one file: use kind = \"bulk\"",
                );
            }
            spec.app = app;
        }
        None => cx.err(
            path,
            "app is required, e.g. app = { kind = \"bulk\", size = \"60MB\" }",
        ),
    }
    if let Some(v) = m.get("sctp") {
        let p = join(path, "sctp");
        if let Some(t) = table(cx, &p, v, "SCTP parameters such as { rwnd = \"64KB\" }") {
            parse_params(cx, &p, t, &mut spec);
        }
    }
    spec
}
