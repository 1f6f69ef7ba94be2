//! Set-up alone, repeated: parse a benchmark scenario and build its simulation `REPS` times,
//! printing wall and CPU time of each; the loop to run under a profiler
//! (docs/performance.md, "Tables that repeat, read once").
//!
//! ```sh
//! cargo run --release -p ccsim-core --example setup_prof -- dumbbell-scaled-4096 5
//! valgrind --tool=callgrind target/release/examples/setup_prof dumbbell-scaled-4096 1
//! ```
#[path = "bench/measure.rs"]
#[allow(dead_code)]
mod measure;
#[path = "bench/scenarios.rs"]
mod scenarios;

use ccsim_core::scenario::from_json_value;
use ccsim_core::Simulation;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().expect("usage: setup_prof SCENARIO [REPS]");
    let reps: usize = args
        .next()
        .map_or(5, |s| s.parse().expect("REPS: a number"));
    let doc = scenarios::document(&name).unwrap_or_else(|| panic!("unknown benchmark {name}"));
    for _ in 0..reps {
        let (t, c) = (Instant::now(), measure::cpu_seconds());
        let sc = from_json_value(&doc, &name).unwrap_or_else(|e| panic!("{e}"));
        let parsed = t.elapsed().as_secs_f64();
        let sim = Simulation::new(sc).expect("builds");
        let built = t.elapsed().as_secs_f64();
        let cpu = measure::cpu_seconds() - c;
        drop(sim);
        println!("parse {parsed:.4} s, set-up {built:.4} s wall, {cpu:.4} s CPU");
    }
}
