//! The run summary as JSON (written by hand: the crate's only dependency is libc).

use crate::log::RunParams;
use crate::replay::Report;

fn esc(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            c if (c as u32) < 0x20 => format!("\\u{:04x}", c as u32).chars().collect(),
            c => vec![c],
        })
        .collect()
}

/// `extra` is a list of further `"key": value` members (already JSON).
pub fn json(params: &RunParams, rep: &Report, extra: &[(&str, String)]) -> String {
    let d = &params.links[0];
    let a = &params.links[1];
    let problems: Vec<String> = rep
        .first_problems
        .iter()
        .map(|p| format!("\"{}\"", esc(p)))
        .collect();
    let mut s = format!(
        "{{\n  \"rate_bps\": {}, \"prop_ns\": {}, \"limit\": {}, \"ack_limit\": {}, \"ack_rate_bps\": {}, \"ack_prop_ns\": {}, \"loss\": {:?}, \"seed\": {}, \"t0_mono_ns\": {},\n  \"packets\": [{}, {}], \"sent\": [{}, {}], \"lost\": {}, \"overflow\": [{}, {}],\n  \"replay_exact\": {}, \"mismatches\": {}, \"order_violations\": {}, \"first_problems\": [{}],\n  \"lag_ns\": {{\"n\": {}, \"p50\": {}, \"p99\": {}, \"max\": {}, \"early\": {}}}",
        d.rate_bps, d.prop_ns, d.limit, a.limit, a.rate_bps, a.prop_ns, d.loss, params.seed, params.t0_mono_ns,
        rep.packets[0], rep.packets[1], rep.sent[0], rep.sent[1], rep.lost, rep.overflow[0], rep.overflow[1],
        rep.exact(), rep.mismatches, rep.order_violations, problems.join(", "),
        rep.lag.n, rep.lag.p50_ns, rep.lag.p99_ns, rep.lag.max_ns, rep.lag.early
    );
    for (k, v) in extra {
        s.push_str(&format!(",\n  \"{}\": {}", esc(k), v));
    }
    s.push_str("\n}\n");
    s
}
