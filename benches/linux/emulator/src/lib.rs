//! The bottleneck emulator of the real-kernel bench (`benches/linux/README.md`): the link
//! model in logical time, its per-packet log, and the replay self-check. The live AF_PACKET
//! loop (`io`, `emulate`) is Linux-only; the model and the check build and test anywhere.

pub mod log;
pub mod model;
pub mod replay;
pub mod summary;

#[cfg(target_os = "linux")]
pub mod emulate;
#[cfg(target_os = "linux")]
pub mod io;
