//! Units as newtypes: simulated time in integer nanoseconds, sizes in bytes, rates in bit/s.
//!
//! Plain `u64`s never carry a time, size or rate across a module boundary. Human strings
//! ("10Mbps", "5ms", "1GB", "333p") are read and written by `parse`, used only where
//! parameters are read (`params`), never on the simulation path.
//!
//! The serde forms are the plain integers (nanoseconds, bytes, bit/s): they are what the
//! parameter reader hands to the components' configuration types (`params::Resolved`).

pub mod parse;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Nanoseconds in a second (the simulated clock's unit is the nanosecond).
pub const NS_PER_SEC: u64 = 1_000_000_000;

/// An instant of simulated time: nanoseconds since the start of the run.
///
/// `u64` nanoseconds cover 584 years, so planetary runs (RTT 2000 s, hours simulated) fit.
#[derive(
    Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct SimTime(pub u64);

/// A span of simulated time in nanoseconds.
#[derive(
    Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Dur(pub u64);

/// A size in bytes.
#[derive(
    Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Bytes(pub u64);

/// A rate in bits per second.
#[derive(
    Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Rate(pub u64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// "Never": later than any event.
    pub const NEVER: SimTime = SimTime(u64::MAX);

    /// Seconds as a float (for summaries and plots only).
    pub fn secs(self) -> f64 {
        self.0 as f64 / NS_PER_SEC as f64
    }
    /// The span from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    /// Zero length.
    pub const ZERO: Dur = Dur(0);
    /// Longer than any run.
    pub const INFINITE: Dur = Dur(u64::MAX);

    /// From whole nanoseconds.
    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    /// From whole microseconds.
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    /// From whole milliseconds.
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NS_PER_SEC)
    }
    /// From fractional seconds, rounded to the nearest nanosecond (negative becomes zero).
    pub fn from_secs_f64(s: f64) -> Dur {
        if s <= 0.0 {
            Dur(0)
        } else if s >= u64::MAX as f64 / NS_PER_SEC as f64 {
            Dur::INFINITE
        } else {
            Dur((s * NS_PER_SEC as f64).round() as u64)
        }
    }
    /// Seconds as a float.
    pub fn secs(self) -> f64 {
        self.0 as f64 / NS_PER_SEC as f64
    }
    /// Multiply by an integer, saturating.
    pub fn saturating_mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl Bytes {
    /// Zero bytes.
    pub const ZERO: Bytes = Bytes(0);
    /// Bits in this many bytes.
    pub fn bits(self) -> u64 {
        self.0 * 8
    }
}

impl Rate {
    /// From bits per second.
    pub const fn bps(b: u64) -> Rate {
        Rate(b)
    }
    /// From megabits per second.
    pub const fn mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    /// Time to serialise `size` at this rate, rounded up to a whole nanosecond so that
    /// every packet takes a positive time on the wire.
    pub fn tx_time(self, size: Bytes) -> Dur {
        let num = size.0 as u128 * 8 * NS_PER_SEC as u128;
        let r = self.0.max(1) as u128;
        Dur(num.div_ceil(r) as u64)
    }
    /// Bytes carried in `d` at this rate (rounded down).
    pub fn bytes_in(self, d: Dur) -> Bytes {
        Bytes((self.0 as u128 * d.0 as u128 / (8 * NS_PER_SEC as u128)) as u64)
    }
    /// Bits per second as a float.
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }
}

impl Add<Dur> for SimTime {
    type Output = SimTime;
    fn add(self, d: Dur) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for SimTime {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}
impl Add for Bytes {
    type Output = Bytes;
    fn add(self, b: Bytes) -> Bytes {
        Bytes(self.0 + b.0)
    }
}
impl AddAssign for Bytes {
    fn add_assign(&mut self, b: Bytes) {
        self.0 += b.0;
    }
}
impl Sub for Bytes {
    type Output = Bytes;
    fn sub(self, b: Bytes) -> Bytes {
        Bytes(self.0.saturating_sub(b.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.secs())
    }
}
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}bps", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_a_full_packet_at_100mbps_is_120us() {
        assert_eq!(Rate::mbps(100).tx_time(Bytes(1500)), Dur::from_micros(120));
    }

    #[test]
    fn tx_time_rounds_up_to_a_positive_nanosecond() {
        assert_eq!(Rate(u64::MAX).tx_time(Bytes(1)), Dur(1));
        assert_eq!(Rate(3).tx_time(Bytes(1)), Dur(2_666_666_667));
    }

    #[test]
    fn planetary_times_fit() {
        let t = SimTime::ZERO + Dur::from_secs(10 * 24 * 3600) + Dur::from_secs(2000);
        assert!((t.secs() - 866_000.0).abs() < 1e-6);
    }

    #[test]
    fn secs_f64_roundtrip() {
        assert_eq!(Dur::from_secs_f64(0.1), Dur::from_millis(100));
        assert_eq!(Dur::from_secs_f64(-1.0), Dur::ZERO);
    }
}
