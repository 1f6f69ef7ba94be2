//! Deterministic random streams, one per random process.
//!
//! Every random process (a link's losses, a RED queue's drops, a flow's start times and
//! on/off periods) draws from its own stream, derived from the scenario seed and a stable
//! label such as `"link:r1->r2:loss"`. Adding a flow therefore never changes the losses
//! another link sees. The generator is xoshiro256++ (Blackman & Vigna), seeded through
//! SplitMix64 from an FNV-1a hash of the label: small, fast and identical on every platform.

/// One random stream.
#[derive(Clone, Debug)]
pub struct SimRng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a of the concatenation of `parts` (byte by byte, so the parts need not be joined).
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl SimRng {
    /// The stream named `label` under scenario seed `seed`.
    pub fn stream(seed: u64, label: &str) -> SimRng {
        Self::from_label_hash(seed, fnv1a(&[label]))
    }

    /// The stream named by the concatenation of `parts`: `stream(seed, &parts.concat())`
    /// without building the label (set-up names streams per link and flow).
    pub fn stream_of(seed: u64, parts: &[&str]) -> SimRng {
        Self::from_label_hash(seed, fnv1a(parts))
    }

    fn from_label_hash(seed: u64, h: u64) -> SimRng {
        let mut st = seed ^ h.rotate_left(17);
        let s = [
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
        ];
        SimRng { s }
    }

    /// Next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U lies in (0, 1], so the logarithm is finite.
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Uniform integer in [lo, hi] (inclusive).
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo + 1;
        lo + (self.uniform() * span as f64) as u64 % span
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_in_parts_names_the_same_stream_as_the_whole_label() {
        let mut a = SimRng::stream(7, "flow:f12:app");
        let mut b = SimRng::stream_of(7, &["flow:", "f12", ":app"]);
        let mut c = SimRng::stream_of(7, &["flow:", "f1", ":app"]);
        let (x, y, z) = (a.next_u64(), b.next_u64(), c.next_u64());
        assert_eq!(x, y);
        assert_ne!(x, z);
    }

    #[test]
    fn same_seed_and_label_give_the_same_stream() {
        let mut a = SimRng::stream(7, "link:a->b:loss");
        let mut b = SimRng::stream(7, "link:a->b:loss");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn labels_and_seeds_separate_streams() {
        let x = SimRng::stream(7, "link:a->b:loss").next_u64();
        assert_ne!(x, SimRng::stream(7, "link:b->a:loss").next_u64());
        assert_ne!(x, SimRng::stream(8, "link:a->b:loss").next_u64());
    }

    #[test]
    fn uniform_mean_and_bernoulli_rate_are_right() {
        let mut r = SimRng::stream(1, "t");
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
        let hits = (0..n).filter(|_| r.bernoulli(0.01)).count();
        assert!((hits as f64 / n as f64 - 0.01).abs() < 0.001);
        let m: f64 = (0..n).map(|_| r.exponential(8.0)).sum::<f64>() / n as f64;
        assert!((m - 8.0).abs() < 0.1, "{m}");
    }
}
