//! The network: links (queue + pipe), queue disciplines, static routing (one shortest path per
//! destination, or ECMP's per flow), pinned paths and reachability.

pub mod codel;
pub mod droptail;
pub mod dv;
pub mod ecmp;
pub mod fq_codel;
pub mod link;
pub mod link_config;
pub mod link_schedule;
pub mod pie;
pub mod pinned;
pub mod queue;
pub mod reach;
pub mod red;
pub mod ring;
pub mod routing;
pub mod sched;
pub mod step;

pub use link::Link;
pub use queue::{Admit, Occupancy, QueueDisc};
