//! The first flow's BBR RTprop and PROBE_RTT count over a run, printed whenever either
//! changes (sampled every millisecond): when RTprop is renewed, and by what sample.
//!
//!     cargo run --release -p ccsim-core --example bbr_rtprop -- SCENARIO.json [SECONDS]
//!
//! SCENARIO.json is a scenario document in JSON whose flow 0 runs BBR, e.g. the kernel
//! bench's (`kernel_bench.ccsim_doc(...)` dumped with `json.dump`); docs/validation.md §6,
//! "BBR", uses it on the 10⁻² loss scenario.

use ccsim_core::cc::bbr::Bbr;
use ccsim_core::cc::AnyCc;
use ccsim_core::ids::EndpointId;
use ccsim_core::transport::Endpoint;
use ccsim_core::units::{Dur, SimTime};
use ccsim_core::Simulation;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: bbr_rtprop SCENARIO.json [SECONDS]");
    let secs: u64 = args.next().map_or(60, |s| s.parse().expect("SECONDS"));
    let text = std::fs::read_to_string(&path).expect("read the scenario");
    let sc = ccsim_core::scenario::from_json_str(&text, &path).expect("a valid scenario");
    let mut sim = Simulation::new(sc).expect("a valid scenario");
    let (mut count, mut rtprop) = (0, None);
    let mut t = Dur::from_millis(1);
    while t < Dur::from_secs(secs) {
        sim.run_until(SimTime::ZERO + t);
        if let Endpoint::TcpSender(s) = sim.endpoint(EndpointId(0)) {
            if let AnyCc::Boxed(b) = s.cc() {
                if let Some(b) = b.as_any().downcast_ref::<Bbr>() {
                    if b.probe_rtt_count() != count || b.rt_prop() != rtprop {
                        (count, rtprop) = (b.probe_rtt_count(), b.rt_prop());
                        let ms = rtprop.map_or(f64::NAN, |d| d.secs() * 1e3);
                        println!(
                            "{:.3} s  PROBE_RTT entries {count}  RTprop {ms:.6} ms",
                            t.secs()
                        );
                    }
                }
            }
        }
        t = t + Dur::from_millis(1);
    }
}
