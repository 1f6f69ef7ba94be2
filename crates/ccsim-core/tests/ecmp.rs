//! Equal-cost multipath with per-flow hashing (`[routing] kind = "ecmp"`) on a fat-tree.

mod common;

use std::collections::BTreeSet;

use ccsim_core::ids::{FlowId, LinkId};
use ccsim_core::scenario::*;
use ccsim_core::Simulation;
use common::*;

/// The core switches a flow's data crosses.
fn cores(sim: &Simulation, sc: &Scenario, f: usize) -> BTreeSet<String> {
    sim.route(FlowId(f as u32), true)
        .iter()
        .map(|l: &LinkId| sc.nodes[sc.links[l.idx()].to].clone())
        .filter(|n| n.starts_with('c'))
        .collect()
}

#[test]
fn every_route_is_a_shortest_path_and_flows_spread_over_the_cores() {
    let sc = ecmp_fat_tree(1.0, 3);
    let sim = Simulation::new(sc.clone()).unwrap();
    let mut used = BTreeSet::new();
    for (i, f) in sc.flows.iter().enumerate() {
        for (there, (a, b)) in [(true, (f.from, f.to)), (false, (f.to, f.from))] {
            let r = sim.route(FlowId(i as u32), there);
            // Host -> edge -> aggregation -> core -> aggregation -> edge -> host: six hops,
            // the shortest between pods, joined end to end.
            assert_eq!(r.len(), 6, "{}: {r:?}", f.name);
            assert_eq!(sc.links[r[0].idx()].from, a);
            assert_eq!(sc.links[r[5].idx()].to, b);
            for w in r.windows(2) {
                assert_eq!(sc.links[w[0].idx()].to, sc.links[w[1].idx()].from);
            }
        }
        used.extend(cores(&sim, &sc, i));
    }
    // 17 flows over 4 cores: a uniform hash leaves one unused with probability 4·(3/4)^17 ≈ 0.03;
    // seed 3 is one where all are used. Without ECMP, every flow takes the lowest-numbered
    // equal path: one core.
    assert_eq!(used.len(), 4, "{used:?}");
    let mut table = sc.clone();
    table.ecmp = false;
    let sim = Simulation::new(table.clone()).unwrap();
    let single: BTreeSet<_> = (0..table.flows.len())
        .flat_map(|i| cores(&sim, &table, i))
        .collect();
    assert_eq!(single.len(), 1, "{single:?}");
}

#[test]
fn routes_depend_on_the_seed_and_the_flow_not_on_other_flows() {
    let sc = ecmp_fat_tree(1.0, 3);
    let a = Simulation::new(sc.clone()).unwrap();
    let routes = |sim: &Simulation, n: usize| -> Vec<Vec<LinkId>> {
        (0..n).map(|i| sim.route(FlowId(i as u32), true)).collect()
    };
    let n = sc.flows.len();
    assert_eq!(
        routes(&a, n),
        routes(&Simulation::new(sc.clone()).unwrap(), n)
    );
    let mut other = sc.clone();
    other.seed = 4;
    let moved = routes(&a, n)
        .iter()
        .zip(routes(&Simulation::new(other).unwrap(), n))
        .filter(|(x, y)| **x != *y)
        .count();
    assert!(moved > 0, "a new seed re-hashes the flows");
    // Removing flow 0 leaves every other flow's route as it was (streams are per flow).
    let mut fewer = sc.clone();
    fewer.flows.remove(0);
    fewer.trace.flows = (0..fewer.flows.len()).collect();
    let b = Simulation::new(fewer).unwrap();
    assert_eq!(routes(&a, n)[1..].to_vec(), routes(&b, n - 1));
}

#[test]
fn ecmp_spreads_load_where_single_path_routing_piles_it_up() {
    // The same permutation with and without ECMP: single-path routing puts every inter-pod
    // flow on one core, so they share its links; spread over four cores they get more.
    let with = ecmp_fat_tree(5.0, 3);
    let mut without = with.clone();
    without.ecmp = false;
    let total = |sc: &Scenario| -> u64 {
        let r = Simulation::new(sc.clone()).unwrap().finish();
        assert!(r.conservation.holds());
        r.flows
            .iter()
            .filter(|f| f.transport == "tcp")
            .map(|f| f.bytes_delivered)
            .sum()
    };
    let (spread, piled) = (total(&with), total(&without));
    assert!(
        spread as f64 > 1.5 * piled as f64,
        "ECMP {spread} B vs one path {piled} B"
    );
}

#[test]
fn the_routing_table_parses_ecmp_and_refuses_its_unknown_keys() {
    let base = r#"
        [simulation]
        duration = "1s"
        [[link]]
        between = ["a", "b"]
        rate = "1Mbps"
        delay = "1ms"
    "#;
    let sc = from_toml_str(&format!("{base}\n[routing]\nkind = \"ecmp\"\n"), "t").unwrap();
    assert!(sc.ecmp && sc.dv.is_none());
    let sc = from_toml_str(base, "t").unwrap();
    assert!(!sc.ecmp);
    let e = from_toml_str(
        &format!("{base}\n[routing]\nkind = \"ecmp\"\nbeta = 1\n"),
        "t",
    )
    .unwrap_err();
    assert_eq!(e.problems.len(), 1, "{e}");
    assert_eq!(e.problems[0].path, "routing.beta");
    assert!(e.problems[0].message.contains("allowed: kind"), "{e}");
    let e = from_toml_str(&format!("{base}\n[routing]\nkind = \"ecnp\"\n"), "t").unwrap_err();
    assert!(
        e.to_string().contains("static, ecmp, distance-vector"),
        "{e}"
    );
}
