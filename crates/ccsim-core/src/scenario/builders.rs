//! Ready-made scenario documents.
//!
//! A builder returns a scenario DOCUMENT (the `serde_json::Value` a parsed TOML file would
//! give), not a typed `Scenario`: callers can inspect or override any key, and the result
//! goes through the same validation (`scenario::from_json_value`) as a file.

use serde_json::{json, Value};

/// Parameters of [`dumbbell`]. Every field has a default; unknown fields are rejected.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DumbbellParams {
    /// Number of sender/receiver pairs (and TCP flows). Default 16.
    pub n_flows: u32,
    /// Rate of the r1–r2 link. Default "100Mbps".
    pub bottleneck_rate: String,
    /// Propagation delay of the r1–r2 link. Default "10ms".
    pub bottleneck_delay: String,
    /// Rate of every host–router link. Default "1Gbps".
    pub access_rate: String,
    /// Propagation delay of every host–router link. Default "5ms".
    pub access_delay: String,
    /// DropTail limit, in packets, of every link (both directions). Default 333.
    pub queue_packets: u64,
    /// Simulated time. Default "100s".
    pub duration: String,
    /// Scenario seed. Default 1.
    pub seed: u64,
    /// Congestion controller of every flow. Default "reno".
    pub cc: String,
    /// Loss recovery of every flow. Default "sack".
    pub recovery: String,
    /// Segment payload in bytes. Default 1460.
    pub mss: u64,
    /// Flows start uniformly at random in [0, start_spread]. Default "0s" (all at 0).
    pub start_spread: String,
    /// Time-series sampling interval. Default "100ms".
    pub trace_interval: String,
    /// "fast" or "per_hop". Default "fast".
    pub link_model: String,
}

impl Default for DumbbellParams {
    fn default() -> Self {
        DumbbellParams {
            n_flows: 16,
            bottleneck_rate: "100Mbps".into(),
            bottleneck_delay: "10ms".into(),
            access_rate: "1Gbps".into(),
            access_delay: "5ms".into(),
            queue_packets: 333,
            duration: "100s".into(),
            seed: 1,
            cc: "reno".into(),
            recovery: "sack".into(),
            mss: 1460,
            start_spread: "0s".into(),
            trace_interval: "100ms".into(),
            link_model: "fast".into(),
        }
    }
}

/// The classic dumbbell: hosts `s0..s{n-1}` send to `d0..d{n-1}` across one bottleneck.
///
/// ```text
///   s_i ── r1 ══ bottleneck ══ r2 ── d_i
/// ```
/// Nodes r1 and r2 come first (the bottleneck is `[[link]]` entry 0, named "bottleneck", so
/// directed links 0 and 1 are r1->r2 and r2->r1); then duplex access links s_i–r1 and
/// r2–d_i. Every link has a DropTail queue of `queue_packets`. Flow `f<i>` is an infinite
/// bulk TCP transfer from s_i to d_i. Values are not checked here: parse the document.
pub fn dumbbell(p: &DumbbellParams) -> Value {
    let queue = json!({ "kind": "droptail", "limit": p.queue_packets });
    let mut links = vec![json!({
        "name": "bottleneck",
        "between": ["r1", "r2"],
        "rate": p.bottleneck_rate,
        "delay": p.bottleneck_delay,
        "queue": queue,
    })];
    for i in 0..p.n_flows {
        links.push(json!({
            "between": [format!("s{i}"), "r1"],
            "rate": p.access_rate,
            "delay": p.access_delay,
            "queue": queue,
        }));
    }
    for i in 0..p.n_flows {
        links.push(json!({
            "between": ["r2", format!("d{i}")],
            "rate": p.access_rate,
            "delay": p.access_delay,
            "queue": queue,
        }));
    }
    let start = if is_zero_duration(&p.start_spread) {
        json!("0s")
    } else {
        json!(["0s", p.start_spread])
    };
    let flows: Vec<Value> = (0..p.n_flows)
        .map(|i| {
            json!({
                "name": format!("f{i}"),
                "from": format!("s{i}"),
                "to": format!("d{i}"),
                "transport": "tcp",
                "cc": p.cc,
                "recovery": p.recovery,
                "mss": p.mss,
                "app": { "kind": "bulk", "size": "inf", "start": start },
            })
        })
        .collect();
    json!({
        "simulation": {
            "duration": p.duration,
            "seed": p.seed,
            "link_model": p.link_model,
        },
        "trace": { "interval": p.trace_interval, "flows": "all", "links": "all" },
        "link": links,
        "flow": flows,
    })
}

/// "0s", "0ms", "0.0s"...: a spread of zero means a fixed start at 0.
fn is_zero_duration(s: &str) -> bool {
    matches!(crate::units::parse::parse_duration(s), Ok(d) if d.0 == 0)
}

/// [`dumbbell`] from JSON parameters (for the Python binding): `{"n_flows": 4, ...}`;
/// missing parameters take their defaults, unknown ones are an error naming them.
pub fn dumbbell_from_json(params: &str) -> Result<Value, String> {
    let text = if params.trim().is_empty() {
        "{}"
    } else {
        params
    };
    let p = serde_json::from_str::<DumbbellParams>(text)
        .map_err(|e| format!("dumbbell parameters: {e}"))?;
    if p.n_flows == 0 {
        return Err("dumbbell parameters: n_flows must be at least 1".into());
    }
    Ok(dumbbell(&p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{from_json_value, QueueLimit, QueueSpec, TcpApp, TransportSpec};
    use crate::units::{Dur, Rate, SimTime};

    #[test]
    fn default_dumbbell_parses() {
        let doc = dumbbell(&DumbbellParams::default());
        let s = from_json_value(&doc, "dumbbell").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.flows.len(), 16);
        // 1 bottleneck + 32 access entries, all duplex.
        assert_eq!(doc["link"].as_array().unwrap().len(), 33);
        assert_eq!(s.links.len(), 2 + 4 * 16);
        assert_eq!(s.nodes.len(), 2 + 2 * 16);
        assert_eq!(&s.nodes[..3], ["r1", "r2", "s0"]);
        assert_eq!(s.links[0].name, "r1->r2");
        assert_eq!(s.links[1].name, "r2->r1");
        for l in &s.links[..2] {
            assert_eq!(l.alias.as_deref(), Some("bottleneck"));
            assert_eq!(l.rate, Rate::mbps(100));
            assert_eq!(l.delay, Dur::from_millis(10));
        }
        for l in &s.links {
            assert!(matches!(
                l.queue,
                QueueSpec::DropTail {
                    limit: QueueLimit::Packets(333)
                }
            ));
        }
        assert_eq!(s.links[2].rate, Rate::mbps(1000));
        assert_eq!(s.duration, Dur::from_secs(100));
        assert_eq!(s.trace.links.len(), 66);
        let f = &s.flows[3];
        assert_eq!(f.name, "f3");
        assert_eq!(s.nodes[f.from], "s3");
        assert_eq!(s.nodes[f.to], "d3");
        let TransportSpec::Tcp(t) = &f.transport else {
            panic!()
        };
        assert_eq!(t.recovery, crate::scenario::RecoverySpec::Sack);
        match t.app {
            TcpApp::Bulk { size, start } => {
                assert_eq!(size, None);
                assert_eq!((start.lo, start.hi), (SimTime::ZERO, SimTime::ZERO));
            }
            _ => panic!(),
        }
    }

    #[test]
    fn parameters_from_json() {
        let doc = dumbbell_from_json(
            r#"{"n_flows": 2, "start_spread": "2s", "queue_packets": 50, "link_model": "per_hop"}"#,
        )
        .unwrap();
        let s = from_json_value(&doc, "dumbbell").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.flows.len(), 2);
        assert_eq!(s.links.len(), 10);
        let TransportSpec::Tcp(t) = &s.flows[1].transport else {
            panic!()
        };
        let TcpApp::Bulk { start, .. } = t.app else {
            panic!()
        };
        assert_eq!(start.hi, SimTime(2_000_000_000));
        assert!(dumbbell_from_json("").is_ok());
        let e = dumbbell_from_json(r#"{"n_flow": 2}"#).unwrap_err();
        assert!(e.contains("n_flow"), "{e}");
        let e = dumbbell_from_json(r#"{"n_flows": "two"}"#).unwrap_err();
        assert!(e.contains("n_flows") || e.contains("invalid type"), "{e}");
    }

    #[test]
    fn bad_parameters_are_reported_by_the_parser() {
        let p = DumbbellParams {
            bottleneck_rate: "100 Mbps".into(),
            cc: "cubc".into(),
            ..DumbbellParams::default()
        };
        let e = from_json_value(&dumbbell(&p), "dumbbell").unwrap_err();
        assert!(e.problems.iter().any(|p| p.path == "link[0].rate"));
        assert!(e.problems.iter().any(|p| p.path == "flow[0].cc.kind"));
    }
}
