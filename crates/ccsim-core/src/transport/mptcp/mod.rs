//! Multipath TCP (RFC 8684's data plane, simplified): a connection of N subflows, each a
//! TCP sender/receiver pair on its own pinned path, sharing one connection-level data
//! sequence space.
//!
//! - **Subflows** reuse the TCP machinery (`transport::tcp`): subflow sequence numbers,
//!   SACK scoreboard, fast recovery and RTO are per subflow. Subflow k (0-based) sends on
//!   the flow's pinned path k + 1 (`Packet::path`), which also identifies it at the peer.
//! - **Data sequence mapping**: each new subflow segment is bound, when the scheduler
//!   grants it, to the next data sequence number (DSN, in segments), carried in the data
//!   packet's auxiliary word; a retransmission on the subflow carries the same DSN. The
//!   receiver's data ACK (next expected DSN) rides in every ACK's auxiliary word, so
//!   subflow ACKs carry at most two SACK blocks.
//! - **Scheduler** (`scheduler`): picks the subflow for each new segment among those with
//!   window space — lowest smoothed RTT first (Linux default) or round-robin.
//! - **Coupled congestion control** (`cc::coupled`): before every event a subflow handles,
//!   the connection hands its controller a fresh read-only view of all subflows.
//! - **Receiver**: reassembles the data sequence space; only in-order connection-level
//!   bytes count as delivered, and a finite transfer completes when all have arrived.
//!
//! Left out: the handshake and option signalling (subflows are simply present from their
//! join time), connection-level reinjection of data stuck on a failed subflow, and the
//! data-level FIN. Every segment of a finite transfer is sent full-sized.

pub mod config;
pub mod reassembly;
pub mod receiver;
pub mod scheduler;
pub mod sender;

pub use config::{MptcpSpec, SchedulerSpec};
pub use receiver::MptcpReceiver;
pub use sender::MptcpSender;
