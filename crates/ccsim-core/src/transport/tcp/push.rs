//! PSH marks as a Linux sender sets them (`push_flags = "linux"`), for the receiver's
//! immediate ACK of a pushed segment (`ack_pushed`, `receiver.rs`).
//!
//! Linux transmits what an ACK releases in GSO packets of at most `tcp_tso_autosize`
//! segments (`tcp_write_xmit` splits at `tcp_mss_split_point(min(cwnd quota, max_segs))`),
//! and `__tcp_transmit_skb` sets PSH on every GSO packet of more than one segment
//! (net/ipv4/tcp_output.c: "if (tcp_skb_pcount(skb) > 1) tcb->tcp_flags |= TCPHDR_PSH");
//! software segmentation keeps PSH on the packet's last segment only (`tcp_gso_segment`,
//! net/ipv4/tcp_offload.c). So of the new segments one ACK releases, every chunk of up to
//! `max_segs` that holds two or more ends with PSH. A write's last segment also carries PSH
//! (`tcp_push`); for a bulk sender writing 64 KB at a time that is one segment in 45, and
//! it is not modelled.

use crate::packet::{Packet, PacketKind, FLAG_PSH, FLAG_RETX};
use crate::units::Dur;

/// `tcp_tso_autosize`'s segments per GSO packet (net/ipv4/tcp_output.c:2020–2035) for a
/// sender without a pacing rate of its own: the rate is `tcp_update_pacing_rate`'s
/// (net/ipv4/tcp_input.c): max(cwnd, packets out) segments per srtt, × 200 % while
/// cwnd < ssthresh / 2, else × 120 %; at least `tcp_min_tso_segs` (2).
pub fn tso_segs(cwnd: u64, ssthresh: u64, out: u64, mss: u64, srtt: Dur, min_rtt: Dur) -> u64 {
    const MIN_TSO_SEGS: u64 = 2;
    if srtt == Dur::ZERO || mss == 0 {
        return MIN_TSO_SEGS;
    }
    let ratio = if cwnd < ssthresh / 2 { 200 } else { 120 };
    // bytes per second
    let rate = (mss * cwnd.max(out)) as u128 * ratio * 1_000_000_000 / (100 * srtt.0 as u128);
    autosize(rate, mss, min_rtt, MIN_TSO_SEGS)
}

/// `tcp_tso_autosize` (net/ipv4/tcp_output.c:2020–2035): segments per GSO packet at a
/// pacing rate of `rate` bytes/s: about 1 ms of it (`sk_pacing_rate >> sk_pacing_shift`,
/// shift 10), plus `gso_max_size >> (min_rtt_us >> tcp_tso_rtt_log)` on short paths (log 9,
/// gso_max_size 65 536), capped at 65 536 bytes, and at least `min_segs`.
pub fn autosize(rate: u128, mss: u64, min_rtt: Dur, min_segs: u64) -> u64 {
    const GSO_MAX: u64 = 65_536;
    if mss == 0 {
        return min_segs;
    }
    let mut bytes = (rate >> 10).min(u64::MAX as u128) as u64;
    let r = (min_rtt.0 / 1_000) >> 9;
    if r < 32 {
        bytes = bytes.saturating_add(GSO_MAX >> r);
    }
    (bytes.min(GSO_MAX) / mss).max(min_segs)
}

/// Mark PSH on the segments one transmission sent (`sent`, in order): each run of new data
/// segments is cut into chunks of `max_segs`, and a chunk of two or more ends with PSH.
/// Retransmissions leave as their own packets (`tcp_retransmit_skb`) and end a run.
pub fn mark(sent: &mut [Packet], max_segs: u64) {
    let mut run = 0u64;
    let n = sent.len();
    for i in 0..n {
        let new_data = sent[i].kind == PacketKind::Data && sent[i].flags & FLAG_RETX == 0;
        if !new_data {
            run = 0;
            continue;
        }
        run += 1;
        let next_new =
            i + 1 < n && sent[i + 1].kind == PacketKind::Data && sent[i + 1].flags & FLAG_RETX == 0;
        // The end of a full chunk, or of the run's last (partial) chunk.
        let in_chunk = (run - 1) % max_segs + 1;
        if (in_chunk == max_segs || !next_new) && in_chunk >= 2 {
            sent[i].flags |= FLAG_PSH;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{EndpointId, FlowId, NodeId};

    fn seg(retx: bool) -> Packet {
        let mut p = Packet::new(PacketKind::Data, FlowId(0), NodeId(1), EndpointId(1), 1500);
        if retx {
            p.flags |= FLAG_RETX;
        }
        p
    }

    fn marks(sent: &[Packet]) -> Vec<bool> {
        sent.iter().map(|p| p.flags & FLAG_PSH != 0).collect()
    }

    #[test]
    fn chunks_of_two_end_with_psh_and_a_lone_segment_has_none() {
        for (n, want) in [
            (1, vec![false]),
            (2, vec![false, true]),
            (3, vec![false, true, false]),
            (4, vec![false, true, false, true]),
        ] {
            let mut s: Vec<Packet> = (0..n).map(|_| seg(false)).collect();
            mark(&mut s, 2);
            assert_eq!(marks(&s), want, "{n} segments");
        }
        // Larger GSO packets: 5 segments with max 4 are a chunk of 4 and a lone one.
        let mut s: Vec<Packet> = (0..5).map(|_| seg(false)).collect();
        mark(&mut s, 4);
        assert_eq!(marks(&s), [false, false, false, true, false]);
        let mut s: Vec<Packet> = (0..3).map(|_| seg(false)).collect();
        mark(&mut s, 4);
        assert_eq!(marks(&s), [false, false, true]);
    }

    #[test]
    fn retransmissions_are_never_marked_and_split_the_runs() {
        let mut s = vec![seg(true), seg(false), seg(false), seg(true), seg(false)];
        mark(&mut s, 2);
        assert_eq!(marks(&s), [false, false, true, false, false]);
    }

    #[test]
    fn tso_segs_is_a_millisecond_of_the_pacing_rate_and_at_least_two() {
        let ms = Dur::from_millis;
        // Congestion avoidance, 40 segments over 64 ms: 1.09 MB/s, 1 060 B a "millisecond".
        assert_eq!(tso_segs(40, 30, 40, 1448, ms(64), ms(40)), 2);
        // Slow start with a large window: 300 × 1448 B / 150 ms × 2 = 5.79 MB/s, 5 656 B → 3.
        assert_eq!(tso_segs(300, 100_000, 300, 1448, ms(150), ms(40)), 3);
        // A short path adds 64 KB >> (min_rtt_us >> 9): 1 ms → 16 968 + 32 768 B, 34 segments.
        assert_eq!(tso_segs(10, 5, 10, 1448, ms(1), ms(1)), 34);
        assert_eq!(tso_segs(10, 5, 10, 1448, Dur::ZERO, Dur::ZERO), 2);
        // A paced sender's own rate and minimum (BBR's is 1 below 1.2 Mb/s): 1.2 MB/s is
        // 1 171 B a millisecond, under one segment, so the minimum decides.
        assert_eq!(autosize(1_200_000, 1448, ms(40), 2), 2);
        assert_eq!(autosize(100_000, 1448, ms(40), 1), 1);
        // 100 MB/s: 97 656 B, capped at 65 536 B: 45 segments.
        assert_eq!(autosize(100_000_000, 1448, ms(40), 2), 45);
    }
}
