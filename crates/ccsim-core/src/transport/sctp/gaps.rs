//! Gap-ack blocks in the packet header. The three 64-bit SACK slots of `Packet` hold up to
//! six blocks as 16-bit offsets `[start, end)` from the SACK's `seq` (the next expected
//! TSN): two blocks per slot. Offsets fit because the receiver window bounds how far above
//! the cumulative TSN data can be (65535 chunks is far above any rwnd used here; a block
//! beyond it is not reported, which only delays its acknowledgement).

use crate::packet::{Packet, MAX_SACK_BLOCKS};

/// Most gap blocks a SACK carries.
pub const MAX_GAP_BLOCKS: usize = 2 * MAX_SACK_BLOCKS;

fn pack(a: u64, b: u64) -> u32 {
    (a as u32) | ((b as u32) << 16)
}

fn unpack(x: u32) -> (u64, u64) {
    ((x & 0xffff) as u64, (x >> 16) as u64)
}

/// Store `blocks` (absolute TSN ranges above `pkt.seq`, ascending) into `pkt`; returns how
/// many were stored.
pub fn set_gap_blocks(pkt: &mut Packet, blocks: &[(u64, u64)]) -> usize {
    let mut n = 0;
    for &(s, e) in blocks.iter().take(MAX_GAP_BLOCKS) {
        let (a, b) = (s - pkt.seq, e - pkt.seq);
        if b > u16::MAX as u64 {
            break;
        }
        let slot = &mut pkt.sack[n / 2];
        if n.is_multiple_of(2) {
            slot.0 = pack(a, b);
        } else {
            slot.1 = pack(a, b);
        }
        n += 1;
    }
    pkt.nsack = n as u8;
    n
}

/// Gap block `i` of a SACK, in absolute TSNs `[start, end)`.
pub fn gap_block(pkt: &Packet, i: usize) -> (u64, u64) {
    let slot = pkt.sack[i / 2];
    let (a, b) = unpack(if i.is_multiple_of(2) { slot.0 } else { slot.1 });
    (pkt.seq + a, pkt.seq + b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{EndpointId, FlowId, NodeId};
    use crate::packet::PacketKind;

    #[test]
    fn six_blocks_round_trip_and_the_header_stays_64_bytes() {
        let mut p = Packet::new(
            PacketKind::SctpSack,
            FlowId(0),
            NodeId(0),
            EndpointId(0),
            48,
        );
        p.seq = 1_000_000_000;
        let blocks: Vec<(u64, u64)> = (0..7)
            .map(|k| (p.seq + 2 + 3 * k, p.seq + 4 + 3 * k))
            .collect();
        assert_eq!(set_gap_blocks(&mut p, &blocks), 6);
        for (i, b) in blocks.iter().take(6).enumerate() {
            assert_eq!(gap_block(&p, i), *b);
        }
        assert_eq!(std::mem::size_of::<Packet>(), 64);
    }

    #[test]
    fn blocks_beyond_sixteen_bits_are_not_reported() {
        let mut p = Packet::new(
            PacketKind::SctpSack,
            FlowId(0),
            NodeId(0),
            EndpointId(0),
            48,
        );
        p.seq = 10;
        assert_eq!(
            set_gap_blocks(&mut p, &[(12, 13), (10 + 70_000, 10 + 70_001)]),
            1
        );
    }
}
