//! Tests of `paths` parsing, and of pinned paths steering packets in a run.

use super::parse_tests::{assert_problem, parse, problems};
use crate::sim::Simulation;

/// A diamond s -> {a, b} -> d where the path via `a` is shorter.
fn diamond(flow_extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "5s"

[[link]]
between = ["s", "a"]
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["a", "d"]
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["s", "b"]
rate = "10Mbps"
delay = "5ms"
[[link]]
between = ["b", "d"]
rate = "10Mbps"
delay = "5ms"
[[link]]
from = "x"
to = "d"
rate = "10Mbps"
delay = "5ms"

[[flow]]
from = "s"
to = "d"
app = {{ kind = "bulk" }}
{flow_extra}
"#
    )
}

#[test]
fn a_single_path_is_parsed_as_node_indices() {
    let sc = parse(&diamond(r#"paths = [["s", "b", "d"]]"#));
    let ix = |n: &str| sc.node(n).unwrap();
    assert_eq!(sc.flows[0].paths, vec![vec![ix("s"), ix("b"), ix("d")]]);
}

#[test]
fn bad_paths_are_reported_with_their_location() {
    let ps = problems(&diamond(r#"paths = [["s", "b", "d"], ["s", "a", "d"]]"#));
    assert_problem(&ps, "flow[0].paths", "at most 1 allowed");
    let ps = problems(&diamond(r#"paths = [["s", "q", "d"]]"#));
    assert_problem(&ps, "flow[0].paths[0][1]", "unknown node \"q\"");
    let ps = problems(&diamond(r#"paths = [["a", "d"]]"#));
    assert_problem(&ps, "flow[0].paths[0]", "must start at the flow's source");
    let ps = problems(&diamond(r#"paths = [["s", "d"]]"#));
    assert_problem(&ps, "flow[0].paths[0][1]", "no link from \"s\" to \"d\"");
    let ps = problems(&diamond(r#"paths = [["s", "a", "s", "b", "d"]]"#));
    assert_problem(&ps, "flow[0].paths[0][2]", "appears twice");
    let ps = problems(&diamond(r#"paths = "s,b,d""#));
    assert_problem(&ps, "flow[0].paths", "expected a list of node lists");
    let ps = problems(&diamond(r#"paths = []"#));
    assert_problem(&ps, "flow[0].paths", "at least one path");
}

#[test]
fn the_return_path_must_exist_for_acknowledged_transports() {
    // x -> d exists one way only: a TCP flow from x cannot be pinned onto it.
    let doc = diamond("").replace(
        "[[flow]]\nfrom = \"s\"\nto = \"d\"\n",
        "[[flow]]\nfrom = \"s\"\nto = \"d\"\n[[flow]]\nfrom = \"d\"\nto = \"x\"\ntransport = \"udp\"\npaths = [[\"d\", \"x\"]]\n",
    );
    assert_problem(
        &problems(&doc),
        "flow[1].paths[0][1]",
        "no link from \"d\" to \"x\"",
    );
}

fn link_out(r: &crate::results::RunResult, name: &str) -> u64 {
    r.links
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no link {name}"))
        .packets_out
}

#[test]
fn pinned_packets_and_their_acks_take_the_listed_path() {
    let free = Simulation::new(parse(&diamond(""))).unwrap().finish();
    assert!(link_out(&free, "s->a") > 100 && link_out(&free, "s->b") == 0);
    let sc = parse(&diamond(r#"paths = [["s", "b", "d"]]"#));
    let r = Simulation::new(sc).unwrap().finish();
    for l in ["s->b", "b->d", "d->b", "b->s"] {
        assert!(link_out(&r, l) > 100, "{l} carried {}", link_out(&r, l));
    }
    for l in ["s->a", "a->d", "d->a", "a->s"] {
        assert_eq!(link_out(&r, l), 0, "{l} must be unused");
    }
    assert!(r.flows[0].bytes_delivered > 1_000_000);
}

#[test]
fn a_selector_lets_a_tcp_flow_list_several_paths() {
    use crate::scenario::{DropMetric, SelectKind, TransportSpec};
    let sc = parse(&diamond(
        r#"paths = [["s", "a", "d"], ["s", "b", "d"]]
select = "wrtt""#,
    ));
    let TransportSpec::Tcp(t) = &sc.flows[0].transport else {
        panic!("tcp expected")
    };
    let sel = t.select.unwrap();
    assert_eq!(sel.kind, SelectKind::Wrtt);
    assert_eq!(sel.refresh, 2, "R defaults to the number of paths");
    assert_eq!(sel.drop_metric, DropMetric::Count);
    let sc = parse(&diamond(
        r#"paths = [["s", "a", "d"], ["s", "b", "d"]]
select = { kind = "drop", refresh = 7, drop_metric = "per_packet" }"#,
    ));
    let TransportSpec::Tcp(t) = &sc.flows[0].transport else {
        panic!("tcp expected")
    };
    assert_eq!(t.select.unwrap().refresh, 7);
    assert_eq!(t.select.unwrap().drop_metric, DropMetric::PerPacket);
}

#[test]
fn bad_selectors_are_reported() {
    let ps = problems(&diamond(r#"select = "wrtt""#));
    assert_problem(&ps, "flow[0].select", "needs the paths");
    let ps = problems(&diamond(
        r#"paths = [["s", "a", "d"]]
select = "fastest""#,
    ));
    assert_problem(
        &ps,
        "flow[0].select.kind",
        "allowed: drop, rttvar, rtt, wrtt",
    );
    let ps = problems(&diamond(
        r#"paths = [["s", "a", "d"]]
select = { kind = "rtt", refresh = 0, colour = 1 }"#,
    ));
    assert_problem(&ps, "flow[0].select.refresh", "");
    assert_problem(&ps, "flow[0].select.colour", "unknown");
}
