//! SCTP/CMT in whole simulations: RFC 4960 behaviour on one path, CMT over two pinned
//! paths, and data integrity under random loss.

use ccsim_core::ids::EndpointId;
use ccsim_core::scenario::from_toml_str;
use ccsim_core::transport::sctp::{SctpReceiver, SctpSender};
use ccsim_core::transport::Endpoint;
use ccsim_core::{RunResult, Simulation};

fn run(toml: &str) -> (RunResult, SctpSender, SctpReceiver) {
    let sc = from_toml_str(toml, "<test>").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc).unwrap();
    sim.run_until(sim.end_time());
    let tx = match sim.endpoint(EndpointId(0)) {
        Endpoint::SctpSender(s) => s.clone(),
        _ => unreachable!(),
    };
    let rx = match sim.endpoint(EndpointId(1)) {
        Endpoint::SctpReceiver(r) => r.clone(),
        _ => unreachable!(),
    };
    (sim.finish(), tx, rx)
}

/// One path s–r–d: 10 Mb/s access, a 1 Mb/s bottleneck with `loss`.
fn single_path(loss: f64, size: &str, secs: u32, cc: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{secs}s"
seed = 3
[trace]
interval = "100ms"
[[link]]
between = ["s", "r"]
rate = "10Mbps"
delay = "5ms"
[[link]]
between = ["r", "d"]
rate = "1Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "50p" }}
loss = {loss}
[[flow]]
name = "a"
from = "s"
to = "d"
transport = "sctp"
cc = "{cc}"
app = {{ kind = "bulk", size = "{size}" }}
"#
    )
}

#[test]
fn single_path_fills_the_bottleneck_and_delivers_everything() {
    let (r, tx, rx) = run(&single_path(0.0, "2MB", 60, "cmt"));
    let f = &r.flows[0];
    assert_eq!(f.transport, "sctp");
    assert_eq!(rx.bytes_delivered, 2_000_000);
    assert_eq!(rx.duplicates, 0);
    let t = f.completion_time_s.expect("completes");
    // 2 MB at 1 Mb/s with 1452/1500 efficiency is ≈ 16.5 s; rwnd 64 KB ≫ BDP.
    assert!(t < 19.0, "completion {t}");
    assert!(tx.done());
    assert!(r.conservation.holds());
}

#[test]
fn no_data_lost_under_random_loss() {
    for cc in ["cmt", "berp"] {
        let (r, tx, rx) = run(&single_path(0.05, "500KB", 200, cc));
        assert_eq!(rx.bytes_delivered, 500_000, "{cc}");
        assert_eq!(rx.tsns_delivered, 500_000u64.div_ceil(1452), "{cc}");
        assert!(tx.stats.retransmissions > 0, "{cc}");
        assert!(r.flows[0].completion_time_s.is_some());
        assert!(r.conservation.holds());
    }
}
