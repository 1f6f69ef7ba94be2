//! Entries that repeat. A generated scenario (a dumbbell of 4 096 flows, a fat-tree's
//! links) writes one table many times over, the copies differing only in their names and
//! endpoints. The reader resolves and types each distinct table once and reuses the result
//! for its repeats (issue #24: set-up in near-linear time; reading every copy was two
//! thirds of a 4 096-flow dumbbell's set-up). A table is reused only if its own reading
//! found no problem, so a faulty table is still read, and reported, entry by entry.

use serde_json::{Map, Value};

/// How many distinct tables are remembered: generators interleave a few kinds of entry
/// (flows of two controllers, access and core links), not hundreds.
const KEEP: usize = 8;

/// The last few distinct tables read and what reading each gave, compared without their
/// identity keys (names and endpoints).
pub(crate) struct Repeats<T> {
    identity: &'static [&'static str],
    /// (the table without its identity keys, the template's number, its result), most
    /// recent last.
    seen: Vec<(Map<String, Value>, usize, T)>,
    next: usize,
}

impl<T> Repeats<T> {
    pub fn new(identity: &'static [&'static str]) -> Self {
        Repeats {
            identity,
            seen: Vec::new(),
            next: 0,
        }
    }

    /// The number and result of a remembered table equal to `m` but for the identity keys.
    pub fn find(&self, m: &Map<String, Value>) -> Option<(usize, &T)> {
        self.seen
            .iter()
            .rev()
            .find(|(t, _, _)| same_but(m, t, self.identity))
            .map(|(_, n, r)| (*n, r))
    }

    /// Remember `m` (read without a problem) and its result; returns the template's number.
    pub fn remember(&mut self, m: &Map<String, Value>, result: T) -> usize {
        if self.seen.len() == KEEP {
            self.seen.remove(0);
        }
        let t: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| !self.identity.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let n = self.next;
        self.next += 1;
        self.seen.push((t, n, result));
        n
    }
}

/// Whether `m` without the `identity` keys equals `template`.
fn same_but(m: &Map<String, Value>, template: &Map<String, Value>, identity: &[&str]) -> bool {
    let mut n = 0;
    for (k, v) in m {
        if identity.contains(&k.as_str()) {
            continue;
        }
        n += 1;
        if template.get(k) != Some(v) {
            return false;
        }
    }
    n == template.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_table_repeats_when_only_its_identity_keys_differ() {
        let mut r: Repeats<u32> = Repeats::new(&["name", "from", "to"]);
        let a = map(json!({"name": "f0", "from": "s0", "to": "d0", "cc": "reno", "mss": 1460}));
        assert_eq!(r.remember(&a, 7), 0);
        let b = map(json!({"name": "f1", "from": "s1", "to": "d1", "mss": 1460, "cc": "reno"}));
        assert_eq!(r.find(&b), Some((0, &7)));
        // one value differs, a key is missing, a key is added: not a repeat
        let c = map(json!({"name": "f2", "from": "s2", "to": "d2", "cc": "cubic", "mss": 1460}));
        let d = map(json!({"name": "f3", "from": "s3", "to": "d3", "cc": "reno"}));
        let e = map(json!({"from": "s3", "to": "d3", "cc": "reno", "mss": 1460, "count": 2}));
        assert_eq!(r.find(&c), None);
        assert_eq!(r.find(&d), None);
        assert_eq!(r.find(&e), None);
    }

    #[test]
    fn only_the_last_few_distinct_tables_are_kept() {
        let mut r: Repeats<usize> = Repeats::new(&["name"]);
        for i in 0..=KEEP {
            r.remember(&map(json!({ "rate": i })), i);
        }
        assert_eq!(r.find(&map(json!({ "rate": 0 }))), None);
        assert_eq!(r.find(&map(json!({ "rate": KEEP }))), Some((KEEP, &KEEP)));
        assert_eq!(
            r.find(&map(json!({ "rate": 1, "name": "x" }))),
            Some((1, &1))
        );
    }
}

#[cfg(test)]
mod reading_tests {
    use crate::scenario::{explain, from_json_value};
    use serde_json::{json, Value};

    /// A dumbbell of `n` flows written out entry by entry, as a generator writes it.
    fn generated(n: usize, flow: impl Fn(usize) -> Value) -> Value {
        let mut links = vec![
            json!({"between": ["r1", "r2"], "rate": "10Mbps", "delay": "10ms", "name": "bottleneck"}),
        ];
        for i in 0..n {
            links.push(
                json!({"between": [format!("s{i}"), "r1"], "rate": "100Mbps", "delay": "1ms"}),
            );
            links.push(
                json!({"between": ["r2", format!("d{i}")], "rate": "100Mbps", "delay": "1ms"}),
            );
        }
        let flows: Vec<Value> = (0..n).map(flow).collect();
        json!({"simulation": {"duration": "1s"}, "link": links, "flow": flows})
    }

    fn bulk(i: usize) -> Value {
        json!({"name": format!("f{i}"), "from": format!("s{i}"), "to": format!("d{i}"), "cc": "cubic", "mss": 1000, "app": {"kind": "bulk"}})
    }

    #[test]
    fn repeated_entries_read_as_if_each_were_read_alone() {
        let doc = generated(5, bulk);
        let sc = from_json_value(&doc, "t").unwrap();
        assert_eq!(sc.flows.len(), 5);
        assert_eq!(sc.links.len(), 22);
        // every flow typed as the first, every access link as the first access link
        for f in &sc.flows[1..] {
            assert_eq!(
                format!("{:?}", f.transport),
                format!("{:?}", sc.flows[0].transport)
            );
        }
        for l in &sc.links[4..] {
            assert_eq!((l.rate, l.delay), (sc.links[2].rate, sc.links[2].delay));
        }
        // and each keeps its own endpoints and name
        assert_eq!(sc.flows[3].name, "f3");
        assert_ne!(sc.flows[3].from, sc.flows[2].from);
        // explain: the same resolved values and origins but for the identity keys
        let params: Vec<Vec<_>> = explain(&doc, "t")
            .unwrap()
            .into_iter()
            .map(|f| {
                f.params
                    .into_iter()
                    .filter(|(k, _, _)| !["name", "from", "to"].contains(&k.as_str()))
                    .collect()
            })
            .collect();
        assert!(params[0].len() > 10);
        assert!(params.windows(2).all(|w| w[0] == w[1]));
    }

    #[test]
    fn a_problem_in_a_repeated_entry_is_reported_where_it_is() {
        // flow 3 repeats flow 0 but names an unknown node; flow 4 has a bad value of its own
        let doc = generated(5, |i| match i {
            3 => {
                json!({"name": "f3", "from": "nowhere", "to": "d3", "cc": "cubic", "mss": 1000, "app": {"kind": "bulk"}})
            }
            4 => {
                json!({"name": "f4", "from": "s4", "to": "d4", "cc": "cubic", "mss": 0, "app": {"kind": "bulk"}})
            }
            _ => bulk(i),
        });
        let err = from_json_value(&doc, "t").unwrap_err();
        let paths: Vec<&str> = err.problems.iter().map(|p| p.path.as_str()).collect();
        assert!(paths.contains(&"flow[3].from"), "{paths:?}");
        assert!(paths.contains(&"flow[4].mss"), "{paths:?}");
        assert_eq!(paths.len(), 2, "{paths:?}");
    }

    #[test]
    fn every_copy_of_a_faulty_table_is_reported() {
        // the faulty table is never remembered, so each copy is read and reported
        let doc = generated(
            3,
            |i| json!({"name": format!("f{i}"), "from": format!("s{i}"), "to": format!("d{i}"), "cc": "cubic", "mss": 0, "app": {"kind": "bulk"}}),
        );
        let err = from_json_value(&doc, "t").unwrap_err();
        let paths: Vec<&str> = err.problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["flow[0].mss", "flow[1].mss", "flow[2].mss"]);
    }

    #[test]
    fn a_repeated_link_keeps_its_own_endpoint_checks() {
        let mut doc = generated(2, bulk);
        // link[3] repeats link[1] but connects a node to itself
        doc["link"][3]["between"] = json!(["r1", "r1"]);
        let err = from_json_value(&doc, "t").unwrap_err();
        assert!(
            err.problems.iter().any(|p| p.path == "link[3].between"),
            "{:?}",
            err.problems
        );
    }
}
