//! Ready-made scenario documents.
//!
//! TEMPORARY STUB on the `python-front` branch so the bindings compile; the core branch owns
//! this file and its version replaces this one at merge.

use serde_json::{json, Map, Value};

/// A dumbbell: `n_flows` senders `s<i>` — router `r1` — bottleneck — router `r2` — receivers
/// `d<i>`, one greedy TCP flow `f<i>` per pair. `params_json` is a JSON object of optional
/// parameters (see the module docs of the real builder); unknown keys are errors.
pub fn dumbbell_from_json(params_json: &str) -> Result<Value, String> {
    let params: Value =
        serde_json::from_str(params_json).map_err(|e| format!("parameters are not JSON: {e}"))?;
    let Value::Object(mut p) = params else {
        return Err("parameters must be a JSON object".into());
    };
    let mut take = |key: &str, default: Value| p.remove(key).unwrap_or(default);
    let n_flows = take("n_flows", json!(1));
    let bottleneck_rate = take("bottleneck_rate", json!("100Mbps"));
    let bottleneck_delay = take("bottleneck_delay", json!("10ms"));
    let access_rate = take("access_rate", json!("1Gbps"));
    let access_delay = take("access_delay", json!("5ms"));
    let queue_packets = take("queue_packets", json!(333));
    let duration = take("duration", json!("100s"));
    let seed = take("seed", json!(1));
    let cc = take("cc", json!("reno"));
    let recovery = take("recovery", json!("sack"));
    let mss = take("mss", json!(1460));
    let start_spread = take("start_spread", json!("0s"));
    let trace_interval = take("trace_interval", json!("100ms"));
    let link_model = take("link_model", json!("fast"));
    if let Some(k) = p.keys().next() {
        return Err(format!("unknown dumbbell parameter {k:?}"));
    }
    let n = n_flows
        .as_u64()
        .filter(|n| *n >= 1)
        .ok_or_else(|| format!("n_flows must be a positive integer, got {n_flows}"))?;
    let queue = queue_packets.as_u64().ok_or_else(|| {
        format!("queue_packets must be a non-negative integer, got {queue_packets}")
    })?;
    let start = if start_spread == json!("0s") {
        json!("0s")
    } else {
        json!(["0s", start_spread])
    };

    let mut links = Vec::new();
    let mut flows = Vec::new();
    for i in 1..=n {
        links.push(
            json!({"between": [format!("s{i}"), "r1"], "rate": access_rate, "delay": access_delay}),
        );
    }
    links.push(json!({
        "between": ["r1", "r2"], "rate": bottleneck_rate, "delay": bottleneck_delay,
        "queue": {"kind": "droptail", "limit": format!("{queue}p")},
    }));
    for i in 1..=n {
        links.push(
            json!({"between": ["r2", format!("d{i}")], "rate": access_rate, "delay": access_delay}),
        );
        flows.push(json!({
            "name": format!("f{i}"), "from": format!("s{i}"), "to": format!("d{i}"),
            "transport": "tcp", "cc": cc, "recovery": recovery, "mss": mss,
            "app": {"kind": "bulk", "start": start},
        }));
    }
    let mut doc = Map::new();
    doc.insert(
        "simulation".into(),
        json!({"duration": duration, "seed": seed, "link_model": link_model}),
    );
    doc.insert(
        "trace".into(),
        json!({"interval": trace_interval, "flows": "all", "links": ["r1->r2"]}),
    );
    doc.insert("link".into(), Value::Array(links));
    doc.insert("flow".into(), Value::Array(flows));
    Ok(Value::Object(doc))
}
