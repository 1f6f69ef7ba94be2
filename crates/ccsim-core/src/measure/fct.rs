//! Flow completion times and the ideal a flow's FCT is compared with (its slowdown).
//!
//! The ideal FCT of a transfer is the time its last byte would take to reach the receiver
//! if the flow were alone on an empty path and sent at line rate from its start (no window
//! limit, no slow start, no loss). ccsim's TCP has no connection handshake (the first data
//! segment leaves at `start_s`), so the ideal has none either. Store-and-forward over the
//! flow's data path, with `b` the slowest link (the first of equals):
//!
//! ```text
//! ideal = Σ_l delay_l                       propagation over every link
//!       + Σ_{l before b} tx_l(first packet)  the first packet reaching b
//!       + Σ_k tx_b(packet k)                 b serialising every packet back to back
//!       + Σ_{l after b} tx_l(last packet)    the last packet leaving b's far end
//! ```
//!
//! where a packet is `mss + header` bytes (the last one carries the remainder) and
//! `tx_l(s) = ⌈s·8 / rate_l⌉` in nanoseconds, the links' own rounding. A single flow with a
//! window that never limits it completes in exactly this time (tests/measure.rs).

use crate::net::link_config::LinkSpec;
use crate::units::{Bytes, Dur};

/// The ideal FCT of `total` payload bytes over `path` (links in order from the sender),
/// sent as segments of `mss` payload plus `header` bytes; `None` for an empty path or
/// transfer.
pub fn ideal_fct(path: &[&LinkSpec], total: u64, mss: u64, header: u64) -> Option<Dur> {
    if path.is_empty() || total == 0 || mss == 0 {
        return None;
    }
    let full = total / mss;
    let rest = total % mss;
    let first = mss.min(total) + header;
    let last = if rest > 0 { rest } else { mss } + header;
    // The slowest link, the first of equals.
    let b = (0..path.len())
        .min_by_key(|&i| path[i].rate.0)
        .expect("a non-empty path");
    let mut t: u64 = path.iter().map(|l| l.delay.0).sum();
    for l in &path[..b] {
        t += l.rate.tx_time(Bytes(first)).0;
    }
    let rate = path[b].rate;
    t += full * rate.tx_time(Bytes(mss + header)).0;
    if rest > 0 {
        t += rate.tx_time(Bytes(rest + header)).0;
    }
    for l in &path[b + 1..] {
        t += l.rate.tx_time(Bytes(last)).0;
    }
    Some(Dur(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::link_config::LossSpec;
    use crate::net::queue::{QueueLimit, QueueSpec};
    use crate::units::Rate;

    fn link(mbps: u64, ms: u64) -> LinkSpec {
        LinkSpec {
            name: "a->b".into(),
            alias: None,
            from: 0,
            to: 1,
            rate: Rate::mbps(mbps),
            delay: Dur::from_millis(ms),
            queue: QueueSpec::DropTail {
                limit: QueueLimit::Packets(10),
            },
            loss: LossSpec::None,
            schedule: None,
            jitter: crate::units::Dur::ZERO,
        }
    }

    #[test]
    fn one_link_is_propagation_plus_serialisation_of_every_packet() {
        // 10 packets of 1500 B at 12 Mb/s = 1 ms each, plus 5 ms.
        let l = link(12, 5);
        let d = ideal_fct(&[&l], 14_600, 1460, 40).unwrap();
        assert_eq!(d, Dur::from_millis(15));
    }

    #[test]
    fn the_bottleneck_serialises_all_and_the_others_one_packet_each() {
        let (a, b, c) = (link(120, 1), link(12, 10), link(120, 1));
        // a: 0.1 ms for the first packet; b: 10 × 1 ms; c: 0.1 ms for the last.
        let d = ideal_fct(&[&a, &b, &c], 14_600, 1460, 40).unwrap();
        assert_eq!(d, Dur::from_micros(12_000 + 10_000 + 200));
        // A short last segment: 100 + 40 bytes at 12 Mb/s.
        let d = ideal_fct(&[&a, &b, &c], 14_700, 1460, 40).unwrap();
        let short = Rate::mbps(12).tx_time(Bytes(140)).0 + Rate::mbps(120).tx_time(Bytes(140)).0
            - Rate::mbps(120).tx_time(Bytes(1500)).0;
        assert_eq!(d, Dur(Dur::from_micros(22_200).0 + short));
    }
}
