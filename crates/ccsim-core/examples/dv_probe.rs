//! Run a scenario file and print flow rates, link queues and routing splits over time
//! (a development aid for the distance-vector routing, docs/routing.md).
use ccsim_core::scenario::from_toml_str;
use ccsim_core::Simulation;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: dv_probe SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("read");
    let sc = from_toml_str(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    let r = Simulation::new(sc).expect("build").finish();
    let f = &r.series.flows;
    let (t, fl, rate, cw) = (&f.columns[0], &f.columns[1], &f.columns[5], &f.columns[2]);
    let l = &r.series.links;
    let ro = &r.series.routes;
    for sec in (0..=r.end_time_s as usize).step_by(5) {
        let ts = sec as f64;
        let mut line = format!("t={ts:5.0}");
        for i in 0..t.len() {
            if (t[i] - ts).abs() < 1e-9 {
                line += &format!(
                    " f{}: {:6.0}pk/s w={:5.0}",
                    fl[i],
                    rate[i] / 8320.0,
                    cw[i] / 1000.0
                );
            }
        }
        for i in 0..l.len() {
            if (l.columns[0][i] - ts).abs() < 1e-9 {
                line += &format!(" L{}q={:4.0}", l.columns[1][i], l.columns[2][i]);
            }
        }
        for i in 0..ro.len() {
            let c = &ro.columns;
            if (c[0][i] - ts).abs() < 1e-9
                && c[2][i] == 3.0
                && (c[1][i] == 0.0 || c[1][i] == 3.0 || c[1][i] == 2.0)
            {
                line += &format!(" a[{}->{}]={:.2}", c[1][i], c[3][i], c[4][i]);
            }
            if (c[0][i] - ts).abs() < 1e-9 && c[2][i] == 3.0 && c[4][i] > 0.0 && c[1][i] == 0.0 {
                line += &format!(" q={:.3}", c[6][i]);
            }
        }
        println!("{line}");
    }
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
}
