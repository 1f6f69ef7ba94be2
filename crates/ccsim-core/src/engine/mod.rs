//! The event engine: a deterministic priority queue of small typed events.

mod queue;

pub use queue::{Event, EventClass, EventQueue, MAX_ENDPOINTS};
