//! The windowed maximum of BBR's bottleneck-bandwidth estimate (BtlBw): Kathleen Nichols'
//! filter, as Linux lib/win_minmax.c implements it (6.12.117: `minmax_running_max`,
//! lines 67–82; `minmax_subwin_update`, lines 29–64). It keeps the best, second-best and
//! third-best samples with non-decreasing times, in constant space, and reports the
//! maximum over the last `window` time units (BBR counts time in packet-timed rounds).

/// One sample: a time (round count) and a value.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sample {
    t: u64,
    v: f64,
}

/// The windowed-max filter.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    /// The current maximum (0 before any sample).
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    /// Forget everything: `v` at time `t` is the only sample.
    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [Sample { t, v }; 3];
    }

    /// Add `v` measured at time `t` (non-decreasing), keeping the maximum over `window`.
    pub fn update(&mut self, window: u64, t: u64, v: f64) -> f64 {
        let new = Sample { t, v };
        // A new maximum makes every older sample useless; so does a window with nothing
        // left in it.
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > window {
            self.reset(t, v);
            return v;
        }
        if v >= self.s[1].v {
            self.s[1] = new;
            self.s[2] = new;
        } else if v >= self.s[2].v {
            self.s[2] = new;
        }
        self.age(window, new)
    }

    /// Let the best samples expire as time passes, keeping later choices spread over the
    /// window (a second choice from its second quarter, a third from its second half).
    fn age(&mut self, window: u64, new: Sample) -> f64 {
        let dt = new.t.saturating_sub(self.s[0].t);
        if dt > window {
            self.s = [self.s[1], self.s[2], new];
            if new.t.saturating_sub(self.s[0].t) > window {
                self.s = [self.s[1], self.s[2], new];
            }
        } else if self.s[1].t == self.s[0].t && dt > window / 4 {
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].t == self.s[1].t && dt > window / 2 {
            self.s[2] = new;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_larger_sample_is_the_maximum_at_once() {
        let mut f = WindowedMax::default();
        f.update(10, 0, 5.0);
        assert_eq!(f.update(10, 1, 7.0), 7.0);
        assert_eq!(f.update(10, 2, 6.0), 7.0);
    }

    #[test]
    fn the_maximum_expires_after_the_window() {
        // 100 at round 0, then 50 every round: 100 is kept through round 10 (window 10)
        // and gone at round 11, when the best remaining sample is 50.
        let mut f = WindowedMax::default();
        f.update(10, 0, 100.0);
        for t in 1..=10 {
            assert_eq!(f.update(10, t, 50.0), 100.0, "round {t}");
        }
        assert_eq!(f.update(10, 11, 50.0), 50.0);
    }

    #[test]
    fn a_falling_series_tracks_the_best_recent_sample() {
        // Values falling by 1 per round: the filter's maximum is never older than the
        // window, and never below the exact windowed maximum by more than the filter's
        // bound (the sample a quarter of the window later).
        let mut f = WindowedMax::default();
        for t in 0..100u64 {
            let got = f.update(10, t, 1000.0 - t as f64);
            let exact = 1000.0 - t.saturating_sub(10) as f64;
            assert!(
                got <= exact,
                "round {t}: {got} above the window's max {exact}"
            );
            assert!(
                got >= exact - 10.0,
                "round {t}: {got} too far below {exact}"
            );
        }
    }
}
