//! The network: links (queue + pipe), queue disciplines, static routing, pinned paths and
//! reachability.

pub mod droptail;
pub mod dv;
pub mod link;
pub mod link_config;
pub mod pinned;
pub mod queue;
pub mod reach;
pub mod red;
pub mod ring;
pub mod routing;

pub use link::Link;
pub use queue::{Occupancy, QueueDisc};
