//! A compact log-linear histogram of durations, for delay percentiles without storing every
//! packet.
//!
//! Values (nanoseconds) below 32 have a bucket each; above, each power of two is split into
//! 32 equal buckets, so a bucket is at most 1/32 of its lower bound wide. A quantile is
//! reported as the middle of the bucket holding the value of that rank, so its relative
//! error is at most 1/64 (1.6 %) above 32 ns (HdrHistogram's scheme with two significant
//! binary digits more; Tene, "HdrHistogram"); the maximum is the top bucket's middle, with
//! the same bound. The count and sum are exact, so the mean is too. Counts only: the same
//! samples give the same histogram, whatever the platform or order, and a value can be
//! taken out again (`remove`), which the fast link model needs at a window's edges.

/// Sub-buckets per power of two.
const SUB: u64 = 32;

/// Counts of durations in log-linear buckets, with exact count, sum and maximum.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
}

fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros() as u64; // 2^e ≤ v, e ≥ 5
    let shift = e - 5;
    ((shift + 1) * SUB + (v >> shift) - SUB) as usize
}

/// The bucket `[lo, hi)` of index `i`.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, i + 1);
    }
    let shift = i / SUB - 1;
    let m = i % SUB + SUB;
    (m << shift, (m + 1) << shift)
}

impl Histogram {
    /// Count one value (ns).
    #[inline]
    pub fn record(&mut self, v: u64) {
        let i = index(v);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
        self.sum += v as u128;
    }

    /// Take out one value counted before.
    pub fn remove(&mut self, v: u64) {
        self.counts[index(v)] -= 1;
        self.n -= 1;
        self.sum -= v as u128;
    }

    /// Values counted.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Exact mean in seconds; NaN when empty.
    pub fn mean_s(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum as f64 / self.n as f64 / 1e9
        }
    }

    /// The maximum in seconds (the top bucket's middle); NaN when empty.
    pub fn max_s(&self) -> f64 {
        self.quantile_s(1.0)
    }

    /// The `q`-quantile (0 < q ≤ 1) in seconds: the middle of the bucket holding the value
    /// of rank ⌈q·n⌉; NaN when empty.
    pub fn quantile_s(&self, q: f64) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bounds(i);
                let mid = if hi - lo == 1 { lo } else { lo + (hi - lo) / 2 };
                return mid as f64 / 1e9;
            }
        }
        f64::NAN
    }

    /// Bytes the counts take.
    pub fn memory_bytes(&self) -> u64 {
        self.counts.capacity() as u64 * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_line_and_are_at_most_a_32nd_wide() {
        let mut prev_hi = 0;
        for i in 0..1500 {
            let (lo, hi) = bounds(i);
            assert_eq!(lo, prev_hi, "bucket {i}");
            assert!(hi - lo == 1 || (hi - lo) * SUB <= lo, "bucket {i}");
            assert_eq!(index(lo), i);
            assert_eq!(index(hi - 1), i);
            prev_hi = hi;
        }
    }

    #[test]
    fn quantiles_are_within_a_64th_of_the_exact_order_statistic() {
        let mut h = Histogram::default();
        // A deterministic spread over five decades (10 µs .. 1 s).
        let mut vals: Vec<u64> = (0..10_000u64)
            .map(|k| (10_000.0 * 10f64.powf(5.0 * ((k * 7919) % 10_000) as f64 / 10_000.0)) as u64)
            .collect();
        for &v in &vals {
            h.record(v);
        }
        vals.sort_unstable();
        for q in [0.01, 0.5, 0.9, 0.95, 0.99, 1.0] {
            let exact = vals[((q * vals.len() as f64).ceil() as usize).max(1) - 1] as f64 / 1e9;
            let got = h.quantile_s(q);
            assert!(
                (got - exact).abs() <= exact / 64.0,
                "q {q}: {got} vs {exact}"
            );
        }
        let mean = vals.iter().map(|&v| v as f64).sum::<f64>() / vals.len() as f64 / 1e9;
        assert!((h.mean_s() - mean).abs() < 1e-12 * mean.max(1.0));
        // Taking values out leaves the histogram of the others.
        let mut fewer = Histogram::default();
        for &v in &vals[..5000] {
            fewer.record(v);
        }
        for &v in &vals[5000..] {
            h.remove(v);
        }
        assert_eq!(
            (h.counts.iter().sum::<u64>(), h.n, h.sum),
            (fewer.n, fewer.n, fewer.sum)
        );
        assert_eq!(h.quantile_s(0.9), fewer.quantile_s(0.9));
    }

    #[test]
    fn empty_is_nan_and_small_values_are_exact() {
        let h = Histogram::default();
        assert!(h.quantile_s(0.5).is_nan() && h.mean_s().is_nan());
        let mut h = Histogram::default();
        for v in [0, 3, 3, 7] {
            h.record(v);
        }
        assert_eq!(h.quantile_s(0.5), 3e-9);
        assert_eq!(h.quantile_s(1.0), 7e-9);
    }
}
