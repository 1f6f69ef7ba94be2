//! Step a scenario with adaptive routing and report every routing loop (development aid).
use ccsim_core::scenario::from_toml_str;
use ccsim_core::units::{Dur, SimTime};
use ccsim_core::Simulation;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: dv_loops SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("read");
    let sc = from_toml_str(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    let n = sc.nodes.len();
    let mut sim = Simulation::new(sc).expect("build");
    let mut t = SimTime::ZERO;
    while t < sim.end_time() {
        t += Dur::from_millis(10);
        sim.run_until(t);
        let dv = sim.routing().expect("adaptive routing");
        for d in 0..n {
            if dv.has_loop(d) {
                let mut s = format!("t={:.2} loop to {d}:", t.secs());
                for i in 0..n {
                    if let Some(tb) = dv.table(i, d) {
                        for r in tb.rows.iter().filter(|r| r.alpha > 0.0) {
                            s += &format!(
                                " {i}->{}({:e} q{:.5} qn{:.5} imp{})",
                                r.nbr, r.alpha, tb.q, r.q_nbr, r.nbr_improper as u8
                            );
                        }
                    }
                }
                println!("{s}");
            }
        }
    }
}
