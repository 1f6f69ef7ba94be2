//! TCP: sender, receiver, RTO estimator and SACK scoreboard.

pub mod receiver;
pub mod rto;
pub mod scoreboard;
pub mod sender;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use crate::scenario::{CcSpec, RecoverySpec, RtoSpec, TcpSpec};

/// Sender parameters resolved from a `TcpSpec`.
#[derive(Clone, Debug)]
pub struct TcpConfig {
    /// Congestion controller.
    pub cc: CcSpec,
    /// Loss recovery.
    pub recovery: RecoverySpec,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Header bytes per packet.
    pub header: u32,
    /// Maximum window in segments.
    pub max_window: Option<u32>,
    /// Initial window in segments.
    pub init_cwnd: u32,
    /// Duplicate-ACK threshold.
    pub dupthresh: u32,
    /// RTO parameters.
    pub rto: RtoSpec,
}

impl From<&TcpSpec> for TcpConfig {
    fn from(s: &TcpSpec) -> TcpConfig {
        TcpConfig {
            cc: s.cc.clone(),
            recovery: s.recovery,
            mss: s.mss,
            header: s.header,
            max_window: s.max_window,
            init_cwnd: s.init_cwnd,
            dupthresh: s.dupthresh,
            rto: s.rto,
        }
    }
}
