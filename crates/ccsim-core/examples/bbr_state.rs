//! A flow's BBR state (the first flow's, or FLOW's) sampled every 20 ms over [FROM, SECONDS), as the kernel
//! bench's sender samples TCP_INFO: the window, the flight (RFC 6675 pipe), the pacing
//! rate, BtlBw and the pacing gain, and whether the sender is in loss recovery.
//!
//!     cargo run --release -p ccsim-core --example bbr_state -- SCENARIO.json [SECONDS] [FROM] [FLOW]
//!
//! Prints one CSV row per sample (time, in recovery, cwnd and flight in segments, pacing
//! rate, BtlBw, pacing gain, RTprop in ms). SCENARIO.json is a scenario document in JSON whose flow
//! FLOW (0 if not given; its index among the document's flows, each a sender and a receiver) runs BBR, e.g. the kernel bench's (`kernel_bench.ccsim_doc(...)` dumped with
//! `json.dump`); docs/validation.md §6, "SACK compression, shown", sets it beside the
//! kernel's TCP_INFO and TCP_CC_INFO samples of a kept run (`snd.json`).

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
        .expect("usage: bbr_state SCENARIO.json [SECONDS] [FROM] [FLOW]");
    let secs: u64 = args.next().map_or(60, |s| s.parse().expect("SECONDS"));
    let from: u64 = args.next().map_or(10, |s| s.parse().expect("FROM"));
    let flow: u32 = args.next().map_or(0, |s| s.parse().expect("FLOW"));
    let text = std::fs::read_to_string(&path).expect("read the scenario");
    let sc = ccsim_core::scenario::from_json_str(&text, &path).expect("a valid scenario");
    let mut sim = Simulation::new(sc).expect("a valid scenario");
    println!("t_s,recovery,cwnd,in_flight,pacing_mbps,btl_bw_mbps,pacing_gain,rt_prop_ms");
    let mut t = Dur::from_millis(20);
    while t < Dur::from_secs(secs) {
        sim.run_until(SimTime::ZERO + t);
        if t >= Dur::from_secs(from) {
            if let Endpoint::TcpSender(s) = sim.endpoint(EndpointId(2 * flow)) {
                if let AnyCc::Boxed(b) = s.cc() {
                    if let Some(b) = b.as_any().downcast_ref::<Bbr>() {
                        println!(
                            "{:.3},{},{},{},{:.4},{:.4},{},{:.3}",
                            t.secs(),
                            u8::from(s.in_recovery()),
                            b.cwnd_segments(),
                            s.in_flight_segments(),
                            b.pacing_bytes_per_sec() * 8e-6,
                            b.btl_bw() * 8e-6,
                            b.pacing_gain(),
                            b.rt_prop().map_or(f64::NAN, |d| d.secs() * 1e3)
                        );
                    }
                }
            }
        }
        t = t + Dur::from_millis(20);
    }
}
