//! The bandwidth-estimate low-pass filter shared by Westwood+ (`cc/westwood.rs`) and
//! CMT-BERP (`cc/cmt.rs`): one implementation, two samplers.
//!
//! Westwood+ feeds it one sample per round (bytes delivered in the round / its duration);
//! BERP feeds it one sample per SACK per path (eq. (3) of Shailendra et al.: bytes newly
//! acked on the path / time since the previous SACK that acked path data). The filter:
//!
//! - the first sample initialises the estimate (Linux `tcp_westwood.c`);
//! - `Ewma`: b̂ ← g·b̂ + (1 − g)·b (Grieco & Mascolo, g = 0.9);
//! - `Linux`: two cascaded EWMAs of gain 7/8, s ← (7s + b)/8, b̂ ← (7b̂ + s)/8;
//! - `Tustin`: b̂ ← g·b̂ + (1 − g)·(b + b_prev)/2 — Casetti's constant-coefficient
//!   Westwood filter, ns-3's `TcpWestwoodPlus`, and BERP's eq. (4) with p = g = 0.9.

use serde::{Deserialize, Serialize};

/// The bandwidth filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WestwoodFilter {
    /// b ← 0.9·b + 0.1·sample (Grieco & Mascolo).
    #[default]
    Ewma,
    /// Two cascaded EWMAs of gain 7/8 (Linux `tcp_westwood.c`).
    Linux,
    /// b ← 0.9·b + 0.1·(sample + previous sample)/2 (ns-3 `TcpWestwoodPlus`, Tustin).
    Tustin,
}

/// A low-pass filter of bandwidth samples (any unit; callers use bytes/s).
#[derive(Clone, Debug)]
pub struct BandwidthFilter {
    kind: WestwoodFilter,
    /// Weight of the previous estimate (g, or BERP's p). Unused by `Linux` (fixed 7/8).
    gain: f64,
    est: Option<f64>,
    prev_sample: f64,
    stage1: f64,
}

impl BandwidthFilter {
    /// A filter of the given kind and gain with no estimate yet.
    pub fn new(kind: WestwoodFilter, gain: f64) -> BandwidthFilter {
        BandwidthFilter {
            kind,
            gain,
            est: None,
            prev_sample: 0.0,
            stage1: 0.0,
        }
    }

    /// The current estimate, once a sample has arrived.
    pub fn estimate(&self) -> Option<f64> {
        self.est
    }

    /// Feed one raw sample.
    pub fn push(&mut self, b: f64) {
        let g = self.gain;
        let est = match self.est {
            None => {
                self.stage1 = b;
                b
            }
            Some(e) => match self.kind {
                WestwoodFilter::Ewma => g * e + (1.0 - g) * b,
                WestwoodFilter::Linux => {
                    self.stage1 = (7.0 * self.stage1 + b) / 8.0;
                    (7.0 * e + self.stage1) / 8.0
                }
                WestwoodFilter::Tustin => g * e + (1.0 - g) * (b + self.prev_sample) / 2.0,
            },
        };
        self.prev_sample = b;
        self.est = Some(est);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tustin_is_berp_equation_four() {
        // B̂_k = p·B̂_{k−1} + (1 − p)·(B_k + B_{k−1})/2 with p = 0.9, first sample initialises.
        let mut f = BandwidthFilter::new(WestwoodFilter::Tustin, 0.9);
        assert_eq!(f.estimate(), None);
        f.push(100.0);
        assert_eq!(f.estimate(), Some(100.0));
        f.push(300.0);
        // 0.9·100 + 0.1·(300 + 100)/2 = 110.
        assert!((f.estimate().unwrap() - 110.0).abs() < 1e-9);
        f.push(0.0);
        // 0.9·110 + 0.1·(0 + 300)/2 = 114.
        assert!((f.estimate().unwrap() - 114.0).abs() < 1e-9);
    }

    #[test]
    fn gain_is_a_parameter() {
        let mut f = BandwidthFilter::new(WestwoodFilter::Ewma, 0.5);
        f.push(100.0);
        f.push(200.0);
        assert!((f.estimate().unwrap() - 150.0).abs() < 1e-9);
    }
}
