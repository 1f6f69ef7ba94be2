// scratch, not committed
#[path = "bench/measure.rs"]
#[allow(dead_code)]
mod measure;
#[path = "bench/scenarios.rs"]
mod scenarios;
use ccsim_core::scenario::from_json_value;
use ccsim_core::Simulation;
use std::time::Instant;
fn main() {
    let name = std::env::args().nth(1).unwrap();
    let reps: usize = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(5);
    let doc = scenarios::document(&name).unwrap();
    for _ in 0..reps {
        let t = Instant::now();
        let c = measure::cpu_seconds();
        let sc = from_json_value(&doc, &name).unwrap();
        let p = t.elapsed().as_secs_f64();
        let sim = Simulation::new(sc).unwrap();
        let b = t.elapsed().as_secs_f64();
        let cpu = measure::cpu_seconds() - c;
        drop(sim);
        println!("parse {p:.4} total {b:.4} cpu {cpu:.4}");
    }
}
