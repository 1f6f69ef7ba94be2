//! Packet captures (`[trace] pcap`) on whole runs: what a capture shows against the run's
//! own counters, captures under link failures in both link models, and scenario errors.

use ccsim_core::scenario::{from_toml_str, PcapSpec};
use ccsim_core::Simulation;

/// One frame of a capture: (time ns, IPv4 source's last byte, TCP sequence number, TCP
/// payload length) for TCP frames.
fn frames(file: &[u8]) -> Vec<(u64, u8, u32, usize)> {
    assert_eq!(
        u32::from_le_bytes(file[0..4].try_into().unwrap()),
        0xa1b2_3c4d
    );
    let le = |at: usize| u32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
    let mut out = Vec::new();
    let mut at = 24;
    while at < file.len() {
        let t = le(at) as u64 * 1_000_000_000 + le(at + 4) as u64;
        let incl = le(at + 8);
        let f = &file[at + 16..at + 16 + incl];
        let ip = &f[14..];
        let ip_len = u16::from_be_bytes([ip[2], ip[3]]) as usize;
        let tcp = &ip[20..];
        let thl = (tcp[12] >> 4) as usize * 4;
        let seq = u32::from_be_bytes(tcp[4..8].try_into().unwrap());
        out.push((t, ip[15], seq, ip_len - 20 - thl));
        at += 16 + incl;
    }
    out
}

const LOSSY: &str = r#"
[simulation]
duration = "60s"
seed = 3
[trace]
interval = "0s"
pcap = ["access", "r->d"]
[[link]]
name = "access"
between = ["s", "r"]
rate = "2Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = 1000 }
[[link]]
from = "r"
to = "d"
rate = "10Mbps"
delay = "20ms"
loss = 0.02
[[link]]
from = "d"
to = "r"
rate = "10Mbps"
delay = "20ms"
[[flow]]
name = "f"
from = "s"
to = "d"
recovery = "sack"
app = { kind = "bulk", size = "2MB" }
"#;

#[test]
fn the_senders_link_shows_every_segment_and_its_retransmissions() {
    let r = Simulation::new(from_toml_str(LOSSY, "lossy").unwrap())
        .unwrap()
        .finish();
    let f = &r.flows[0];
    assert!(
        f.completion_time_s.is_some() && f.retransmissions > 10,
        "{f:?}"
    );
    let access = frames(&r.pcaps[0].bytes);
    // Data leaves s (10.0.0.1); ACKs come back from d (10.0.0.3).
    let data: Vec<_> = access.iter().filter(|x| x.1 == 1).collect();
    assert_eq!(data.len() as u64, f.data_packets_sent);
    assert!(data.iter().all(|x| x.3 == 1460 || x.3 == 2_000_000 % 1460));
    // A retransmission is a segment below the highest sent so far.
    let mut next = 0u32;
    let mut retx = 0;
    for &&(_, _, seq, len) in &data {
        if seq < next {
            retx += 1;
        }
        next = next.max(seq + len as u32);
    }
    assert_eq!(retx, f.retransmissions);
    assert_eq!(next, 2_000_000, "every byte sent");
    // Times increase; frames after the sender's are ACKs arriving at s.
    assert!(access.windows(2).all(|w| w[0].0 <= w[1].0));
    assert_eq!(
        access.len() - data.len(),
        access.iter().filter(|x| x.1 == 3).count()
    );
    // On the lossy link, packets lost on entry are not seen.
    let lossy = &r.links[2];
    assert_eq!(r.pcaps[1].packets, lossy.packets_in - lossy.drops.total());
}

#[test]
fn link_failures_look_alike_in_both_link_models_and_lost_packets_never_arrive() {
    let text = r#"
        [simulation]
        duration = "5s"
        [trace]
        interval = "0s"
        pcap = ["mid", "b->a"]
        [[link]]
        between = ["s", "a"]
        rate = "100Mbps"
        delay = "1ms"
        [[link]]
        name = "mid"
        between = ["a", "b"]
        rate = "10Mbps"
        delay = "10ms"
        [[link]]
        between = ["b", "d"]
        rate = "100Mbps"
        delay = "1ms"
        [[flow]]
        from = "s"
        to = "d"
        app = { kind = "bulk", size = "1MB" }
        [[event]]
        at = "0.3s"
        between = ["a", "b"]
        action = "down"
        [[event]]
        at = "0.8s"
        between = ["a", "b"]
        action = "up"
    "#;
    let mut sc = from_toml_str(text, "fail").unwrap();
    // A third capture seen from b: b->a leaving, a->b arriving.
    let (ab, ba) = (sc.link("a->b").unwrap(), sc.link("b->a").unwrap());
    sc.trace.pcap.push(PcapSpec {
        name: "at b".into(),
        node: sc.node("b").unwrap(),
        out: ba,
        back: Some(ab),
    });
    let fast = Simulation::new(sc.clone()).unwrap().finish();
    let mut per_hop = sc.clone();
    per_hop.link_model = ccsim_core::scenario::LinkModel::PerHop;
    let slow = Simulation::new(per_hop).unwrap().finish();
    assert!(fast.links[ab].drops.0[5] > 0, "the failure dropped packets");
    assert!(fast.flows[0].completion_time_s.is_some());
    assert_eq!(fast.pcaps.len(), 3);
    for (a, b) in fast.pcaps.iter().zip(&slow.pcaps) {
        assert_eq!(a.bytes, b.bytes, "{}", a.name);
    }
    // Data (from s, 10.0.0.1) leaving a on a->b, and arriving at b. Those still on the link
    // (queued or on the wire) when it fails at 0.3 s, i.e. arriving after it (1500 B take
    // 1.2 ms at 10 Mb/s, then 10 ms), and sent before it comes back at 0.8 s, are lost.
    let left_a: Vec<_> = frames(&fast.pcaps[0].bytes)
        .into_iter()
        .filter(|x| x.1 == 1)
        .collect();
    let reached_b = frames(&fast.pcaps[2].bytes)
        .into_iter()
        .filter(|x| x.1 == 1)
        .count();
    let lost = left_a
        .iter()
        .filter(|x| x.0 + 11_200_000 > 300_000_000 && x.0 < 800_000_000)
        .count();
    assert!(lost > 0);
    assert_eq!(reached_b, left_a.len() - lost);
}

#[test]
fn pcap_names_are_checked() {
    let base = r#"
        [simulation]
        duration = "1s"
        [[link]]
        name = "x"
        between = ["a", "b"]
        rate = "1Mbps"
        delay = "1ms"
    "#;
    let sc = from_toml_str(&format!("{base}\n[trace]\npcap = [\"x\", \"b->a\"]\n"), "t").unwrap();
    let names: Vec<_> = sc
        .trace
        .pcap
        .iter()
        .map(|p| (p.name.as_str(), p.node, p.out, p.back))
        .collect();
    assert_eq!(names, vec![("x", 0, 0, Some(1)), ("b->a", 1, 1, None)]);
    let e = from_toml_str(
        &format!("{base}\n[trace]\npcap = [\"y\", \"x\", \"x\"]\n"),
        "t",
    )
    .unwrap_err();
    let problems: Vec<_> = e
        .problems
        .iter()
        .map(|p| (p.path.as_str(), p.message.as_str()))
        .collect();
    assert_eq!(problems.len(), 2, "{e}");
    assert_eq!(problems[0].0, "trace.pcap[0]");
    assert!(
        problems[0].1.contains("unknown link \"y\"") && problems[0].1.contains("known: x"),
        "{e}"
    );
    assert_eq!(problems[1], ("trace.pcap[2]", "\"x\" is captured twice"));
    let e = from_toml_str(&format!("{base}\n[trace]\npcap = \"all\"\n"), "t").unwrap_err();
    // "all" is refused: name the links (one file each), or write "none".
    assert_eq!(e.problems.len(), 1, "{e}");
    assert_eq!(e.problems[0].path, "trace.pcap");
    assert!(
        e.problems[0]
            .message
            .contains("expected a list of link names such as [\"bottleneck\"]")
            && e.problems[0].message.contains("pcap = \"none\"")
            && e.problems[0].message.contains("found the string \"all\""),
        "{e}"
    );
    let sc = from_toml_str(&format!("{base}\n[trace]\npcap = \"none\"\n"), "t").unwrap();
    assert!(sc.trace.pcap.is_empty());
}
