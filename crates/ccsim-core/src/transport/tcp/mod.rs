//! TCP: sender, receiver, RTO estimator and SACK scoreboard.

pub mod config;
pub mod path_select;
pub mod receiver;
pub mod rto;
pub mod scoreboard;
pub mod sender;

pub use config::{RecoverySpec, TcpSpec};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;
