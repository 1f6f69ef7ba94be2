//! TCP: sender, receiver, RTO estimators, SACK scoreboard, PRR, RACK's lost-retransmission
//! rule, the handshake and the timed segment.

pub mod config;
pub mod ecn;
pub mod handshake;
pub mod pacing;
pub mod path_select;
pub mod prr;
pub mod push;
pub mod rack;
pub mod rate_sample;
pub mod rcv_autotune;
pub mod receiver;
pub mod rto;
pub mod rto_variants;
pub mod sack_compress;
pub mod scoreboard;
pub mod sender;
pub mod stack;
pub mod timed_segment;
pub mod tso_defer;

pub use config::{RecoverySpec, TcpSpec};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;
