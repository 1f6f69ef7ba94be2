//! SCTP with Concurrent Multipath Transfer (CMT-SCTP): RFC 4960 as CMT changes it
//! (Iyengar, Amer & Stewart, "Concurrent Multipath Transfer Using SCTP Multihoming over
//! Independent End-to-End Paths", ToN 2006). `docs/sctp.md` describes the model.
//!
//! One association is one flow: a sender endpoint at the multihomed source and a receiver
//! endpoint at the multihomed destination. Destination address k of the receiver is
//! modelled by the flow's k-th pinned path (`Packet.path = k + 1`); with no pinned paths
//! the association has one destination reached by the routing table. One TSN space spans
//! all destinations; every packet carries one DATA chunk of up to MTU − overhead payload
//! bytes. The receiver SACKs with a cumulative TSN and gap-ack blocks, delayed (every
//! second packet, 200 ms), to the address the data came from (RFC 4960 §6.4).
//!
//! The sender (`sender.rs`, `sack.rs`) keeps per-destination cwnd/ssthresh/pba (in
//! `cc::cmt::CmtWindows`), an RFC 6298/4960 RTO and a T3-rtx timer, and implements CMT's
//! split fast retransmit (SFR), cwnd update for CMT (CUC), delayed ack for CMT (DAC),
//! the RTX-SAME / RTX-SSTHRESH / RTX-CWND retransmission policies and, as an option,
//! CMT-PF's potentially-failed destinations with heartbeats (`pf.rs`).

pub mod config;
pub mod gaps;
mod pf;
mod receiver;
mod sack;
mod sender;

pub use config::{CwndRule, RtxPolicy, SctpSpec};
pub use receiver::SctpReceiver;
pub use sender::{SctpSender, SctpStats};

/// SACK flag (DAC, Iyengar et al. §IV-C): two data packets arrived since the previous SACK
/// (absent: one).
pub const FLAG_DAC_TWO: u8 = 4;
/// On a DATA-kind packet: a HEARTBEAT chunk; on a SACK-kind packet: a HEARTBEAT ACK
/// (CMT-PF, RFC 4960 §8.3).
pub const FLAG_HEARTBEAT: u8 = 8;
/// Bytes on the wire of a HEARTBEAT or HEARTBEAT ACK: IP 20 + common header 12 + a 24-byte
/// chunk (header and heartbeat information carrying the send time).
pub const HEARTBEAT_BYTES: u32 = 56;
/// SCTP common header + SACK chunk header + IP header, bytes on the wire of a SACK
/// without gap blocks (20 + 12 + 16).
pub const SACK_BYTES: u32 = 48;
/// Bytes per gap-ack block in a SACK.
pub const GAP_BLOCK_BYTES: u32 = 4;
/// DATA chunk header: counted in the chunk size that cwnd and flight size measure.
pub const DATA_CHUNK_HEADER: u32 = 16;

use crate::results::{FlowSummary, PathSummary};
use crate::trace::{FlowSample, Sampler};
use crate::units::SimTime;

fn nan_if_zero(x: f64) -> f64 {
    if x == 0.0 {
        f64::NAN
    } else {
        x
    }
}

/// The association as one flow: total cwnd and ssthresh, mean srtt of the destinations.
pub fn flow_sample(s: &SctpSender, r: &SctpReceiver) -> FlowSample {
    let w = s.windows();
    let n = s.n_dests();
    let srtts: Vec<f64> = (0..n)
        .map(|d| s.rtt(d).srtt().secs())
        .filter(|&x| x > 0.0)
        .collect();
    FlowSample {
        cwnd: w.total_cwnd(),
        ssthresh: w.paths.iter().map(|p| p.ssthresh).sum(),
        srtt: if srtts.is_empty() {
            f64::NAN
        } else {
            srtts.iter().sum::<f64>() / srtts.len() as f64
        },
        delivered: r.bytes_delivered,
    }
}

/// One row per destination: cwnd, ssthresh, srtt, bandwidth estimate, β_i and α.
pub fn record_paths(sampler: &mut Sampler, now: SimTime, flow: usize, s: &SctpSender) {
    let w = s.windows();
    for (d, p) in w.paths.iter().enumerate() {
        sampler.record_path(&[
            now.secs(),
            flow as f64,
            (d + 1) as f64,
            p.cwnd,
            p.ssthresh,
            nan_if_zero(s.rtt(d).srtt().secs()),
            p.bandwidth_estimate().map_or(f64::NAN, |b| b * 8.0),
            w.beta(d),
            w.alpha(),
        ]);
    }
}

/// Fill a flow summary from the association's endpoints.
pub fn summarise(s: &mut FlowSummary, tx: &SctpSender, rx: &SctpReceiver) {
    s.transport = "sctp".into();
    s.cc = tx.windows().name().into();
    s.recovery = "cmt".into();
    s.bytes_delivered = rx.bytes_delivered;
    s.data_packets_sent = tx.stats.data_sent;
    s.retransmissions = tx.stats.retransmissions;
    s.fast_recoveries = tx.stats.fast_recoveries;
    s.timeouts = tx.stats.timeouts;
    s.connections = tx.stats.first_open.is_some() as u64;
    if tx.pinned() {
        for d in 0..tx.n_dests() {
            s.paths.push(PathSummary {
                path: d as u32 + 1,
                bytes_delivered: rx.bytes_by_path.get(d + 1).copied().unwrap_or(0),
                connections: s.connections,
            });
        }
    }
    let (mut lo, mut sum, mut hi, mut k) = (f64::INFINITY, 0.0, f64::NEG_INFINITY, 0);
    for d in 0..tx.n_dests() {
        let (a, m, b) = tx.rtt(d).stats();
        if !m.is_nan() {
            lo = lo.min(a);
            hi = hi.max(b);
            sum += m;
            k += 1;
        }
    }
    (s.rtt_min_s, s.rtt_mean_s, s.rtt_max_s) = if k == 0 {
        (f64::NAN, f64::NAN, f64::NAN)
    } else {
        (lo, sum / k as f64, hi)
    };
}
