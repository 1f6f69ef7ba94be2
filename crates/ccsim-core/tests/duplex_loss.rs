//! `loss_direction`: random loss on one direction of a duplex link.

use ccsim_core::net::link_config::LossSpec;
use ccsim_core::scenario::from_toml_str;
use ccsim_core::Simulation;

fn doc(direction: &str) -> String {
    format!(
        r#"
[simulation]
duration = "5s"
[[link]]
between = ["s", "d"]
rate = "10Mbps"
delay = "10ms"
loss = 0.05
{direction}
[[flow]]
name = "f"
from = "s"
to = "d"
app = {{ kind = "bulk" }}
"#
    )
}

#[test]
fn forward_loss_leaves_the_ack_path_clean() {
    let sc = from_toml_str(&doc("loss_direction = \"forward\""), "t").unwrap();
    assert!(matches!(sc.links[0].loss, LossSpec::Bernoulli(_)));
    assert!(matches!(sc.links[1].loss, LossSpec::None));
    let r = Simulation::new(sc).unwrap().finish();
    assert!(r.links[0].drops.total() > 0);
    assert_eq!(r.links[1].drops.total(), 0, "ACKs are not lost");
    let sc = from_toml_str(&doc("loss_direction = \"reverse\""), "t").unwrap();
    assert!(matches!(sc.links[0].loss, LossSpec::None));
    // The default keeps both directions lossy, as before.
    let sc = from_toml_str(&doc(""), "t").unwrap();
    assert!(matches!(sc.links[1].loss, LossSpec::Bernoulli(_)));
}

#[test]
fn a_direction_on_a_one_way_link_is_located() {
    let text = doc("loss_direction = \"reverse\"")
        .replace("between = [\"s\", \"d\"]", "from = \"s\"\nto = \"d\"");
    let e = from_toml_str(&text, "t").unwrap_err().to_string();
    assert!(
        e.contains("link[0].loss_direction") && e.contains("duplex"),
        "{e}"
    );
    let e = from_toml_str(&doc("loss_direction = \"up\""), "t")
        .unwrap_err()
        .to_string();
    assert!(e.contains("loss_direction") && e.contains("forward"), "{e}");
}
