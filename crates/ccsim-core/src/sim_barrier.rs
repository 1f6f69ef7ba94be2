//! The window barrier of a two-thread run (a child module of `sim`, used by
//! `sim_parallel`): spin briefly, then sleep until the other thread arrives.
//!
//! A window is microseconds of work, and a wake-up costs about as much, so a waiting thread
//! first spins for `SPIN` (with every core free its partner arrives within it). Past
//! that the partner is most likely descheduled (another process holds its core), and
//! spinning would keep that core from it: the waiter parks (a futex on Linux) and the
//! arriving thread unparks it. Before issue #24 the waiter called `yield_now` in a loop,
//! which with the other core busy made two threads 3–13× slower than one.
//!
//! No lost wake-up: the waiter announces it sleeps (`sleeping`) and then re-reads the
//! generation; the arriving thread advances the generation and then reads `sleeping`. All
//! four are sequentially consistent, so at least one of them sees the other's write; and
//! an `unpark` before the `park` makes the `park` return at once. A park also times out
//! now and then, so that a waiter notices the other thread's failure even if that thread
//! died before it could unpark it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long a waiter spins before it sleeps.
pub const SPIN: Duration = Duration::from_micros(50);

/// Longest sleep before a waiter looks whether the other thread failed.
const SLEEP_CHECK: Duration = Duration::from_millis(20);

/// A value alone on its cache lines (two, against adjacent-line prefetching), so that one
/// thread polling it does not slow the other thread's writes to its neighbours.
#[derive(Default)]
#[repr(align(128))]
pub(super) struct Padded<T>(pub T);

/// A reusable barrier for two threads, called part 0 and part 1.
#[derive(Default)]
pub(super) struct Barrier {
    arrived: Padded<AtomicUsize>,
    generation: Padded<AtomicUsize>,
    /// Each part's thread, registered before its first wait.
    threads: [OnceLock<Thread>; 2],
    /// Whether each part is (about to be) parked.
    sleeping: [Padded<AtomicBool>; 2],
    /// Set when a thread failed: the other stops waiting.
    pub aborted: Padded<AtomicBool>,
    /// How many waits ended asleep (for the benchmark's and the tests' eyes).
    pub parked: AtomicUsize,
}

impl Barrier {
    /// Register the calling thread as `part`'s (before its first `wait`).
    pub fn register(&self, part: usize) {
        let _ = self.threads[part].set(std::thread::current());
    }

    /// Wait until the other part's thread has called `wait` as often as this one.
    /// Panics if the other thread failed.
    pub fn wait(&self, part: usize) {
        let g = self.generation.0.load(Ordering::SeqCst);
        if self.arrived.0.fetch_add(1, Ordering::AcqRel) == 1 {
            self.arrived.0.store(0, Ordering::Relaxed);
            self.generation.0.store(g.wrapping_add(1), Ordering::SeqCst);
            self.wake(1 - part);
            return;
        }
        let start = Instant::now();
        let mut spins = 0u32;
        while self.generation.0.load(Ordering::Acquire) == g {
            self.check_aborted();
            spins += 1;
            // Read the clock now and then only: it costs more than a spin.
            if spins % 64 != 0 || start.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            self.sleep(part, g);
            return;
        }
    }

    /// Park until the generation moves past `g`.
    #[cold]
    fn sleep(&self, part: usize, g: usize) {
        self.parked.fetch_add(1, Ordering::Relaxed);
        self.sleeping[part].0.store(true, Ordering::SeqCst);
        while self.generation.0.load(Ordering::SeqCst) == g {
            self.check_aborted();
            std::thread::park_timeout(SLEEP_CHECK);
        }
        self.sleeping[part].0.store(false, Ordering::Relaxed);
    }

    /// Unpark `part`'s thread if it sleeps.
    #[inline]
    fn wake(&self, part: usize) {
        if self.sleeping[part].0.swap(false, Ordering::SeqCst) {
            if let Some(t) = self.threads[part].get() {
                t.unpark();
            }
        }
    }

    fn check_aborted(&self) {
        assert!(
            !self.aborted.0.load(Ordering::Relaxed),
            "the other thread of a two-thread run failed"
        );
    }

    /// (On a thread's failure.) Tell the other thread, waking it if it sleeps.
    pub fn abort(&self, part: usize) {
        self.aborted.0.store(true, Ordering::SeqCst);
        if let Some(t) = self.threads[1 - part].get() {
            t.unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Two threads pass the barrier many times, one of them slow now and then (so that the
    /// other sleeps); at every crossing both have finished the same number of rounds.
    #[test]
    fn both_threads_pass_each_round_together_and_slow_partners_are_slept_for() {
        let b = Barrier::default();
        let done = [AtomicU64::new(0), AtomicU64::new(0)];
        const ROUNDS: u64 = 2_000;
        std::thread::scope(|s| {
            for part in 0..2 {
                let (b, done) = (&b, &done);
                s.spawn(move || {
                    b.register(part);
                    for r in 0..ROUNDS {
                        if part == 1 && r % 100 == 0 {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        done[part].store(r + 1, Ordering::SeqCst);
                        b.wait(part);
                        // the other part finished round r, and cannot finish r + 1 before
                        // this part arrives again
                        let other = done[1 - part].load(Ordering::SeqCst);
                        assert!(other == r + 1 || other == r + 2, "round {r}: other at {other}");
                    }
                });
            }
        });
        assert!(b.parked.load(Ordering::Relaxed) >= 10, "the waiter never slept");
    }

    #[test]
    fn a_failed_partner_wakes_the_sleeper() {
        let b = Barrier::default();
        let r = std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                b.register(0);
                b.wait(0)
            });
            std::thread::sleep(Duration::from_millis(5));
            b.abort(1);
            waiter.join()
        });
        assert!(r.is_err(), "the waiter gives up");
    }
}
