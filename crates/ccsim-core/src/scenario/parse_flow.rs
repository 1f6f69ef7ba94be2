//! `[[flow]]` entries: transport, application, TCP parameters, `count` expansion and
//! reachability.

use super::parse_arc::{parse_arc, ARC_KEYS};
use super::parse_cc::parse_cc;
use super::parse_mptcp::{parse_mptcp, MAX_SUBFLOWS, MPTCP_KEYS};
use super::parse_paths::{parse_paths, parse_select};
use super::parse_sctp::{parse_sctp, MAX_SCTP_PATHS, SCTP_KEYS};
use super::reader::*;
use super::Net;
use crate::net::reach::Reachability;
use crate::scenario::model::*;
use crate::units::{Bytes, Dur, Rate, SimTime};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The expanded flows and, for each entry with `count` > 1, its base name and flow indices
/// (so that `trace.flows` may name the whole group).
#[derive(Default)]
pub(crate) struct Flows {
    pub flows: Vec<FlowSpec>,
    pub groups: Vec<(String, Vec<usize>)>,
}

const COMMON_KEYS: &[&str] = &["name", "from", "to", "transport", "count", "app", "paths"];
const TCP_KEYS: &[&str] = &[
    "cc",
    "recovery",
    "mss",
    "header",
    "max_window",
    "init_cwnd",
    "dupthresh",
    "delayed_ack",
    "rto",
    "select",
];
const RTO_KEYS: &[&str] = &["min", "max", "initial", "granularity"];
const RECOVERIES: &[&str] = &["reno", "newreno", "sack", "sack1", "fack"];
/// Largest `count` of one entry (guards against a typo allocating millions of flows).
const MAX_COUNT: u64 = 100_000;
/// Largest MSS and header, in bytes.
const MAX_SEGMENT: u64 = 1_000_000;

pub(crate) fn parse_flows(cx: &mut Cx, v: Option<&Value>, net: &Net) -> Flows {
    let mut out = Flows::default();
    let Some(v) = v else {
        return out;
    };
    let Value::Array(entries) = v else {
        cx.err(
            "flow",
            format!(
                "expected a list of flow tables ([[flow]] entries in TOML), found {}",
                describe(v)
            ),
        );
        return out;
    };
    // One reachability structure for every flow (net/reach.rs), not a search per flow.
    let edges: Vec<(usize, usize)> = net.links.iter().map(|l| (l.from, l.to)).collect();
    let mut reach = Reachability::new(net.nodes.len(), &edges);
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        parse_flow(cx, net, &mut reach, i, e, &mut names, &mut out);
    }
    out
}

/// A node named in a flow: it must exist in the links.
fn known_node(cx: &mut Cx, path: &str, v: &Value, net: &Net) -> Option<usize> {
    let s = string(cx, path, v, "a node name")?;
    match net.node(s) {
        Some(i) => Some(i),
        None if net.nodes.is_empty() => {
            cx.err(
                path,
                format!(
                    "unknown node \"{}\": no nodes are defined (nodes are created by naming \
                     them in [[link]] entries)",
                    shorten(s)
                ),
            );
            None
        }
        None => {
            cx.err(
                path,
                format!(
                    "unknown node \"{}\"; known nodes: {}",
                    shorten(s),
                    list(&net.nodes, 10)
                ),
            );
            None
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Transport {
    Tcp,
    Udp,
    Arc,
    Sctp,
    Mptcp,
}

fn parse_flow(
    cx: &mut Cx,
    net: &Net,
    reach: &mut Reachability,
    i: usize,
    e: &Value,
    names: &mut HashMap<String, usize>,
    out: &mut Flows,
) {
    let path = index("flow", i);
    let Some(m) = table(cx, &path, e, "a [[flow]] entry") else {
        return;
    };
    let transport = match m.get("transport") {
        None => Some(Transport::Tcp),
        Some(v) => choice(
            cx,
            &join(&path, "transport"),
            v,
            "transport",
            &["tcp", "udp", "arc", "sctp", "mptcp"],
        )
        .map(|k| match k {
            0 => Transport::Tcp,
            1 => Transport::Udp,
            2 => Transport::Arc,
            3 => Transport::Sctp,
            _ => Transport::Mptcp,
        }),
    };
    for k in m.keys() {
        let key = k.as_str();
        if COMMON_KEYS.contains(&key) {
            continue;
        }
        if transport == Some(Transport::Sctp) {
            if !SCTP_KEYS.contains(&key) {
                cx.err(
                    &join(&path, key),
                    format!(
                        "unknown key for an SCTP flow; allowed: {}",
                        COMMON_KEYS
                            .iter()
                            .chain(SCTP_KEYS)
                            .copied()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
            continue;
        }
        if transport == Some(Transport::Arc) {
            if !ARC_KEYS.contains(&key) {
                cx.err(
                    &join(&path, key),
                    format!(
                        "unknown key for an ARC flow; allowed: {}",
                        COMMON_KEYS
                            .iter()
                            .chain(ARC_KEYS)
                            .copied()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
            continue;
        }
        if TCP_KEYS.contains(&key) {
            if transport == Some(Transport::Udp) {
                cx.err(
                    &join(&path, key),
                    format!(
                        "{key} applies only to TCP flows, and this flow has transport = \"udp\""
                    ),
                );
            }
            continue;
        }
        if transport == Some(Transport::Mptcp) && MPTCP_KEYS.contains(&key) {
            continue;
        }
        let allowed: Vec<&str> = if transport == Some(Transport::Udp) {
            COMMON_KEYS.to_vec()
        } else if transport == Some(Transport::Mptcp) {
            COMMON_KEYS
                .iter()
                .chain(TCP_KEYS)
                .chain(MPTCP_KEYS)
                .copied()
                .collect()
        } else {
            COMMON_KEYS.iter().chain(TCP_KEYS).copied().collect()
        };
        cx.err(
            &join(&path, key),
            format!("unknown key; allowed: {}", allowed.join(", ")),
        );
    }

    let name_path = join(&path, "name");
    let name = match m.get("name") {
        None => format!("flow{i}"),
        Some(v) => match string(cx, &name_path, v, "a flow name") {
            Some(s) if !s.trim().is_empty() => s.to_string(),
            Some(_) => {
                cx.err(&name_path, "a flow name must not be empty");
                format!("flow{i}")
            }
            None => format!("flow{i}"),
        },
    };
    let from = required(
        cx,
        &path,
        m,
        "from",
        "the source node is required, e.g. from = \"s1\"",
    )
    .and_then(|v| known_node(cx, &join(&path, "from"), v, net));
    let to = required(
        cx,
        &path,
        m,
        "to",
        "the destination node is required, e.g. to = \"d1\"",
    )
    .and_then(|v| known_node(cx, &join(&path, "to"), v, net));
    let count = m
        .get("count")
        .and_then(|v| uint_in(cx, &join(&path, "count"), v, "count", 1, MAX_COUNT))
        .unwrap_or(1);

    let mut spec = match transport {
        Some(Transport::Tcp) => TransportSpec::Tcp(parse_tcp(cx, &path, m)),
        Some(Transport::Udp) => TransportSpec::Udp(parse_cbr_app(cx, &path, m)),
        Some(Transport::Arc) => TransportSpec::Arc(parse_arc(cx, &path, m)),
        Some(Transport::Sctp) => TransportSpec::Sctp(parse_sctp(cx, &path, m)),
        Some(Transport::Mptcp) => {
            // Subflow TCP parameters as for TCP; `cc` names a coupled controller.
            let mut plain = m.clone();
            plain.remove("cc");
            let tcp = parse_tcp(cx, &path, &plain);
            TransportSpec::Mptcp(parse_mptcp(cx, &path, m, tcp))
        }
        None => TransportSpec::Tcp(parse_tcp(cx, &path, m)),
    };

    // Endpoints and reachability.
    if let (Some(a), Some(b)) = (from, to) {
        if a == b {
            cx.err(
                &join(&path, "to"),
                format!(
                    "from and to are the same node \"{}\"; a flow needs two different nodes",
                    shorten(&net.nodes[a])
                ),
            );
        } else if !reach.reaches(a, b) {
            cx.err(
                &path,
                format!(
                    "node \"{}\" cannot be reached from node \"{}\" over the links",
                    shorten(&net.nodes[b]),
                    shorten(&net.nodes[a])
                ),
            );
        } else if transport != Some(Transport::Udp) && !reach.reaches(b, a) {
            cx.err(
                &path,
                format!(
                    "TCP needs a return path for its ACKs, but node \"{}\" cannot be reached \
                     from node \"{}\" over the links",
                    shorten(&net.nodes[a]),
                    shorten(&net.nodes[b])
                ),
            );
        }
    }

    // Pinned paths: one for single-path transports, several for a TCP flow that selects
    // one per connection (MATCP).
    let selects = matches!(&spec, TransportSpec::Tcp(t) if t.select.is_some());
    let (max_paths, why) = if selects {
        (usize::MAX, "")
    } else if transport == Some(Transport::Sctp) {
        (
            MAX_SCTP_PATHS,
            "an SCTP association has at most 32 destinations",
        )
    } else if transport == Some(Transport::Mptcp) {
        (MAX_SUBFLOWS, "one MPTCP subflow per path")
    } else {
        (
            1,
            "this flow sends on one path (pin it with a single node list, or give a TCP \
             flow a path selector: select = \"wrtt\")",
        )
    };
    let paths = match (m.get("paths"), from.zip(to)) {
        (Some(v), ends) => parse_paths(
            cx,
            &join(&path, "paths"),
            v,
            net,
            ends,
            transport != Some(Transport::Udp),
            max_paths,
            why,
        ),
        (None, _) => Vec::new(),
    };
    if let TransportSpec::Tcp(t) = &mut spec {
        if let Some(sel) = &mut t.select {
            if !m.contains_key("paths") {
                cx.err(
                    &join(&path, "select"),
                    "a path selector needs the paths to choose from: paths = [[...], [...]]",
                );
            }
            if sel.refresh == 0 {
                sel.refresh = paths.len().max(1) as u32;
            }
        }
    }

    // Expansion and unique names.
    let base = name.clone();
    let first = out.flows.len();
    let mut reported = false;
    for k in 0..count {
        let n = if count > 1 {
            format!("{base}.{k}")
        } else {
            base.clone()
        };
        if let Some(&other) = names.get(&n) {
            if !reported {
                let at = if m.contains_key("name") {
                    name_path.clone()
                } else {
                    path.clone()
                };
                cx.err(
                    &at,
                    format!(
                        "duplicate flow name \"{}\" (also used by flow[{other}]); flow names \
                         must be unique",
                        shorten(&n)
                    ),
                );
                reported = true;
            }
        } else {
            names.insert(n.clone(), i);
        }
        out.flows.push(FlowSpec {
            name: n,
            from: from.unwrap_or(usize::MAX),
            to: to.unwrap_or(usize::MAX),
            transport: spec.clone(),
            paths: paths.clone(),
        });
    }
    if count > 1 {
        out.groups.push((base, (first..out.flows.len()).collect()));
    }
}

/// An integer in 1..=u32::MAX (or a unit string handled by `packets`/`size_or_bytes`).
fn u32_at_least_1(cx: &mut Cx, path: &str, v: &Value, what: &str) -> Option<u32> {
    uint_in(cx, path, v, what, 1, u64::from(u32::MAX)).map(|u| u as u32)
}

pub(crate) fn bytes_in(cx: &mut Cx, path: &str, v: &Value, what: &str, lo: u64) -> Option<u32> {
    let b = size_or_bytes(cx, path, v, what)?;
    if b.0 < lo || b.0 > MAX_SEGMENT {
        cx.err(
            path,
            format!(
                "{what} must be between {lo} and {MAX_SEGMENT} bytes, found {} bytes",
                b.0
            ),
        );
        return None;
    }
    Some(b.0 as u32)
}
fn parse_tcp(cx: &mut Cx, path: &str, m: &Map<String, Value>) -> TcpSpec {
    let cc = parse_cc(cx, path, m);
    let recovery = match m.get("recovery").map(|v| {
        choice(
            cx,
            &join(path, "recovery"),
            v,
            "recovery algorithm",
            RECOVERIES,
        )
    }) {
        Some(Some(0)) => RecoverySpec::Reno,
        Some(Some(2)) => RecoverySpec::Sack,
        Some(Some(3)) => RecoverySpec::Sack1,
        Some(Some(4)) => RecoverySpec::Fack,
        _ => RecoverySpec::NewReno,
    };
    let mss = m
        .get("mss")
        .and_then(|v| bytes_in(cx, &join(path, "mss"), v, "the MSS", 1))
        .unwrap_or(1460);
    let header = m
        .get("header")
        .and_then(|v| bytes_in(cx, &join(path, "header"), v, "the header size", 0))
        .unwrap_or(40);
    let max_window = m.get("max_window").and_then(|v| {
        let p = join(path, "max_window");
        let n = packets(cx, &p, v, "a window in packets")?;
        if n == 0 || n > u64::from(u32::MAX) {
            cx.err(
                &p,
                format!(
                    "max_window must be between 1 and {} packets, found {n}",
                    u32::MAX
                ),
            );
            return None;
        }
        Some(n as u32)
    });
    let init_cwnd = m
        .get("init_cwnd")
        .and_then(|v| u32_at_least_1(cx, &join(path, "init_cwnd"), v, "init_cwnd (segments)"))
        .unwrap_or_else(|| rfc5681_initial_window(mss));
    let dupthresh = m
        .get("dupthresh")
        .and_then(|v| u32_at_least_1(cx, &join(path, "dupthresh"), v, "dupthresh"))
        .unwrap_or(3);
    let delayed_ack = match m.get("delayed_ack") {
        None | Some(Value::Bool(true)) => Some(Dur::from_millis(100)),
        Some(Value::Bool(false)) => None,
        Some(v @ Value::String(_)) => {
            let p = join(path, "delayed_ack");
            match duration(cx, &p, v) {
                Some(Dur::ZERO) => {
                    cx.err(
                        &p,
                        "a delayed-ACK timeout must be greater than zero; write \
                         delayed_ack = false to acknowledge every segment",
                    );
                    None
                }
                d => d,
            }
        }
        Some(other) => {
            cx.err(
                &join(path, "delayed_ack"),
                format!(
                    "expected a timeout such as \"100ms\", or true (100ms) or false (off), \
                     found {}",
                    describe(other)
                ),
            );
            None
        }
    };
    let rto = match m.get("rto") {
        None => default_rto(),
        Some(v) => parse_rto(cx, &join(path, "rto"), v, default_rto()),
    };
    let app = match required(
        cx,
        path,
        m,
        "app",
        "an application is required, e.g. app = { kind = \"bulk\" }",
    ) {
        Some(v) => parse_tcp_app(cx, &join(path, "app"), v),
        None => TcpApp::Bulk {
            size: None,
            start: start_zero(),
        },
    };
    TcpSpec {
        cc,
        recovery,
        mss,
        header,
        max_window,
        init_cwnd,
        dupthresh,
        delayed_ack,
        rto,
        app,
        select: m
            .get("select")
            .and_then(|v| parse_select(cx, &join(path, "select"), v)),
    }
}

pub(crate) fn default_rto() -> RtoSpec {
    RtoSpec {
        min: Dur::from_secs(1),
        max: Dur::from_secs(60),
        initial: Dur::from_secs(1),
        granularity: Dur::from_millis(1),
    }
}

pub(crate) fn parse_rto(cx: &mut Cx, path: &str, v: &Value, defaults: RtoSpec) -> RtoSpec {
    let mut r = defaults;
    let Some(m) = table(
        cx,
        path,
        v,
        "RTO parameters such as { min = \"200ms\", max = \"60s\" }",
    ) else {
        return r;
    };
    check_keys(cx, path, m, RTO_KEYS);
    if let Some(d) = m
        .get("min")
        .and_then(|v| duration(cx, &join(path, "min"), v))
    {
        r.min = d;
    }
    let max_ok = m
        .get("max")
        .map(|v| positive_duration(cx, &join(path, "max"), v));
    if let Some(Some(d)) = max_ok {
        r.max = d;
    }
    if let Some(d) = m
        .get("initial")
        .and_then(|v| positive_duration(cx, &join(path, "initial"), v))
    {
        r.initial = d;
    }
    if let Some(d) = m
        .get("granularity")
        .and_then(|v| duration(cx, &join(path, "granularity"), v))
    {
        r.granularity = d;
    }
    if r.min > r.max && !matches!(max_ok, Some(None)) {
        cx.err(
            path,
            format!("min ({}) must not exceed max ({})", r.min, r.max),
        );
    }
    r
}

fn start_zero() -> StartSpec {
    StartSpec {
        lo: SimTime::ZERO,
        hi: SimTime::ZERO,
    }
}

/// The `app` value as a table (a bare string is its `kind`).
fn app_table<'a>(
    cx: &mut Cx,
    path: &str,
    v: &'a Value,
    owned: &'a Option<Map<String, Value>>,
    example: &str,
) -> Option<&'a Map<String, Value>> {
    match (owned, v) {
        (Some(t), _) => Some(t),
        (None, Value::Object(t)) => Some(t),
        (None, other) => {
            cx.err(
                path,
                format!(
                    "expected an application table such as {example}, found {}",
                    describe(other)
                ),
            );
            None
        }
    }
}

fn app_start(cx: &mut Cx, path: &str, m: &Map<String, Value>) -> StartSpec {
    m.get("start")
        .and_then(|v| start(cx, &join(path, "start"), v))
        .unwrap_or_else(start_zero)
}

pub(crate) fn parse_tcp_app(cx: &mut Cx, path: &str, v: &Value) -> TcpApp {
    let fallback = TcpApp::Bulk {
        size: None,
        start: start_zero(),
    };
    let owned = as_kind_table(v);
    let Some(m) = app_table(cx, path, v, &owned, "{ kind = \"bulk\", size = \"1GB\" }") else {
        return fallback;
    };
    match kind(
        cx,
        path,
        m,
        "application kind for a TCP flow",
        &["bulk", "onoff"],
    ) {
        Some(0) => {
            check_keys(cx, path, m, &["kind", "size", "start"]);
            let size = match m.get("size") {
                None => None,
                Some(Value::String(s)) if s == "inf" => None,
                Some(v) => {
                    let p = join(path, "size");
                    match size_or_bytes(cx, &p, v, "a transfer size, or \"inf\"") {
                        Some(Bytes(0)) => {
                            cx.err(
                                &p,
                                "a transfer size must be greater than zero; write \"inf\" \
                                 for a greedy source",
                            );
                            None
                        }
                        s => s,
                    }
                }
            };
            TcpApp::Bulk {
                size,
                start: app_start(cx, path, m),
            }
        }
        Some(_) => {
            check_keys(cx, path, m, &["kind", "on", "off", "start"]);
            let on = required(
                cx,
                path,
                m,
                "on",
                "the mean ON period is required, e.g. on = \"8s\"",
            )
            .and_then(|v| positive_duration(cx, &join(path, "on"), v))
            .unwrap_or(Dur::from_secs(1));
            let off = required(
                cx,
                path,
                m,
                "off",
                "the mean OFF period is required, e.g. off = \"6s\"",
            )
            .and_then(|v| positive_duration(cx, &join(path, "off"), v))
            .unwrap_or(Dur::from_secs(1));
            TcpApp::OnOff {
                on_mean: on,
                off_mean: off,
                start: app_start(cx, path, m),
            }
        }
        None => fallback,
    }
}

fn parse_cbr_app(cx: &mut Cx, flow_path: &str, m: &Map<String, Value>) -> CbrSpec {
    let mut c = CbrSpec {
        packet_size: Bytes(1000),
        rate: Rate(1),
        jitter: 0.0,
        start: start_zero(),
        stop: None,
    };
    let Some(v) = required(
        cx,
        flow_path,
        m,
        "app",
        "an application is required, e.g. app = { kind = \"cbr\", rate = \"1Mbps\" }",
    ) else {
        return c;
    };
    let path = join(flow_path, "app");
    let path = path.as_str();
    let owned = as_kind_table(v);
    let Some(m) = app_table(cx, path, v, &owned, "{ kind = \"cbr\", rate = \"1Mbps\" }") else {
        return c;
    };
    if kind(cx, path, m, "application kind for a UDP flow", &["cbr"]).is_none() {
        return c;
    }
    check_keys(
        cx,
        path,
        m,
        &["kind", "rate", "packet_size", "jitter", "start", "stop"],
    );
    if let Some(r) = required(
        cx,
        path,
        m,
        "rate",
        "the sending rate is required, e.g. rate = \"1Mbps\"",
    )
    .and_then(|v| rate(cx, &join(path, "rate"), v))
    {
        c.rate = r;
    }
    if let Some(v) = m.get("packet_size") {
        let p = join(path, "packet_size");
        match size_or_bytes(cx, &p, v, "a packet size") {
            Some(Bytes(0)) => cx.err(
                &p,
                "a packet size must be greater than zero, e.g. \"1000B\"",
            ),
            Some(b) => c.packet_size = b,
            None => {}
        }
    }
    if let Some(v) = m.get("jitter") {
        let p = join(path, "jitter");
        if let Some(j) = number(cx, &p, v, "a jitter fraction such as 0.1") {
            if (0.0..1.0).contains(&j) {
                c.jitter = j;
            } else {
                cx.err(
                    &p,
                    format!("jitter must be at least 0 and less than 1, found {j}"),
                );
            }
        }
    }
    c.start = app_start(cx, path, m);
    if let Some(d) = m
        .get("stop")
        .and_then(|v| duration(cx, &join(path, "stop"), v))
    {
        if SimTime(d.0) <= c.start.hi {
            cx.err(
                &join(path, "stop"),
                format!(
                    "stop ({d}) must be later than start ({}s)",
                    c.start.hi.secs()
                ),
            );
        }
        c.stop = Some(SimTime(d.0));
    }
    c
}
