//! Who runs which window of a two-thread run (a child module of `sim`, used by
//! `sim_parallel`): two threads share the two parts' windows, and a thread whose partner
//! is descheduled runs the partner's windows too, instead of waiting for it.
//!
//! Window k of part p (`task(p, k)`: take over the crossings of window k − 1, then run
//! window k and post its crossings) may start once part p has run window k − 1 and the
//! other part has too. Results do not depend on which thread runs a window: each part is a
//! whole simulation of its own, and the windows of each run in order (`sim_parallel`).
//! Each thread runs its own part's windows as they become ready and takes the other
//! part's when they are ready and nobody has started them — with every core free that
//! is rare (the owner is spinning for it), with the other core busy it is the rule, and
//! the run proceeds as on one thread while the other thread sleeps.
//!
//! Waiting: a thread that just ran a window spins for `SPIN` (a window is microseconds of
//! work, and a wake-up costs about as much), then parks (a futex on Linux) until the
//! other thread makes progress and unparks it. Before issue #24 the waiter called
//! `yield_now` in a loop, which with the other core busy made two threads 3–13× slower
//! than one. A woken thread that finds nothing to run parks again at once.
//!
//! Solo phases: with the other core busy, two threads running in parallel lose more to the
//! scheduler than they gain (`sim_solo`), so the run measures phases of both kinds and, when
//! one thread alone is faster, lets one thread (the "owner") take every window while the
//! other sleeps until the owner tries parallel again or the run ends. The owner is the thread
//! faster alone, each measured alone once before one is kept (`solo_owner`): the thread
//! that shares its core with a busy process is slow alone too, and the phase that chooses
//! solo may end on either thread.
//!
//! No lost wake-up: the waiter announces it sleeps (`sleeping`) and then re-reads the
//! progress counter; the other thread advances the counter and then reads `sleeping`.
//! All four are sequentially consistent, so at least one sees the other's write; and an
//! `unpark` before the `park` makes the `park` return at once. A park also times out now
//! and then, so that a waiter notices the other thread's failure even if that thread
//! died before it could unpark it.

use super::sim_solo::{Chooser, Mode, PHASE};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long a thread that just ran a window spins for the next one before it sleeps.
pub const SPIN: Duration = Duration::from_micros(50);

/// Most doublings of the interval between wake-ups of a thread whose wake-ups find nothing
/// to run: 2^10 windows, tens of milliseconds, before the sleeper gets another chance.
const MAX_BACKOFF: usize = 10;

/// Longest sleep before a waiter looks whether the other thread failed.
const SLEEP_CHECK: Duration = Duration::from_millis(20);

/// Windows between two looks at the clock for the end of a phase.
const PHASE_CHECK: usize = 64;

/// `Schedule::solo` when both threads take windows.
const PARALLEL: usize = usize::MAX;

/// A value alone on its cache lines (two, against adjacent-line prefetching), so that one
/// thread polling it does not slow the other thread's writes to its neighbours.
#[derive(Default)]
#[repr(align(128))]
pub(super) struct Padded<T>(pub T);

/// How a two-thread run went: windows each thread ran of the other part's, and waits that
/// ended asleep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShareCounts {
    /// Windows a thread ran for the other part (its thread being descheduled or late).
    pub taken_over: usize,
    /// Waits that ended in a sleep.
    pub parked: usize,
    /// Phases measured (`sim_solo`), and how many of them ran on one thread.
    pub phases: usize,
    /// Phases that ran on one thread.
    pub solo_phases: usize,
}

/// The phase in progress and the record of phases so far (`sim_solo`). It outlives one
/// `run_two` (a run from Python goes in 100 slices, each shorter than a phase).
#[derive(Clone, Debug)]
pub(super) struct Phases {
    mode: Mode,
    /// The thread (0: the caller of `run_two`, 1: the one it starts) owning a solo phase.
    owner: usize,
    /// The latest wall time per window of a solo phase on each thread (ns), if measured: a
    /// thread that shares its core with a busy process is slow alone too.
    solo_ns: [Option<f64>; 2],
    start: Instant,
    /// Windows of this phase run in earlier calls.
    carried: usize,
    /// The progress count at which this phase started, in the current call.
    start_step: usize,
    chooser: Chooser,
    phases: usize,
    solo_phases: usize,
}

impl Default for Phases {
    fn default() -> Self {
        Phases {
            mode: Mode::Parallel,
            owner: 0,
            solo_ns: [None, None],
            start: Instant::now(),
            carried: 0,
            start_step: 0,
            chooser: Chooser::default(),
            phases: 0,
            solo_phases: 0,
        }
    }
}

/// The shared state of two threads running two parts.
struct Schedule {
    /// Windows each part has run.
    done: [Padded<AtomicUsize>; 2],
    /// Whether each part has finished (set before its last `done` increment).
    finished: [AtomicBool; 2],
    /// Bumped after every window run: what a sleeping thread waits to change.
    progress: Padded<AtomicUsize>,
    /// Each thread, registered before it first waits.
    threads: [OnceLock<Thread>; 2],
    /// Whether each thread is (about to be) parked.
    sleeping: [Padded<AtomicBool>; 2],
    /// Per thread: a back-off level, up to `MAX_BACKOFF`, raised by each of its wake-ups
    /// that found nothing to run (the other thread had run it) and lowered by each that
    /// did. A sleeper at level n is woken only after every 2^n-th window, so that while
    /// its core is taken the running thread does not pay a wake-up per window for nothing.
    useless: [AtomicUsize; 2],
    /// Set when a thread failed: the other stops.
    aborted: AtomicBool,
    taken_over: AtomicUsize,
    parked: AtomicUsize,
    /// The thread that takes every window in a solo phase, or `PARALLEL`.
    solo: Padded<AtomicUsize>,
    phases: Mutex<Phases>,
}

impl Schedule {
    fn new(phases: Phases) -> Self {
        let solo = match phases.mode {
            Mode::Parallel => PARALLEL,
            Mode::Solo => phases.owner,
        };
        Schedule {
            done: Default::default(),
            finished: Default::default(),
            progress: Default::default(),
            threads: Default::default(),
            sleeping: Default::default(),
            useless: Default::default(),
            aborted: Default::default(),
            taken_over: Default::default(),
            parked: Default::default(),
            solo: Padded(AtomicUsize::new(solo)),
            phases: Mutex::new(phases),
        }
    }
}

/// Run `a` (part 0) and `b` (part 1) window by window on two threads (this one and one
/// more) until both are finished. `task(part, k)` runs window k of the part and returns
/// whether the part goes on (false: it has finished). `phases` carries the choice between
/// one and two threads from one call to the next. Panics if a task panics.
pub(super) fn run_two<S: Send>(
    a: &mut S,
    b: &mut S,
    task: &(dyn Fn(&mut S, usize, usize) -> bool + Sync),
    phases: &mut Phases,
) -> ShareCounts {
    let before = (phases.phases, phases.solo_phases);
    if phases.phases == 0 && phases.carried == 0 {
        phases.start = Instant::now(); // the first phase starts with the run, not the build
    }
    let sched = Schedule::new(phases.clone());
    let parts = [Mutex::new(a), Mutex::new(b)];
    std::thread::scope(|s| {
        s.spawn(|| sched.worker(1, &parts, task));
        sched.worker(0, &parts, task);
    });
    let steps = sched.progress.0.load(Ordering::SeqCst);
    if let Ok(mut p) = sched.phases.into_inner() {
        p.carried += steps - p.start_step;
        p.start_step = 0;
        *phases = p;
    }
    ShareCounts {
        taken_over: sched.taken_over.load(Ordering::Relaxed),
        parked: sched.parked.load(Ordering::Relaxed),
        phases: phases.phases - before.0,
        solo_phases: phases.solo_phases - before.1,
    }
}

/// Tells the other thread to stop waiting if this one (thread `.1`) panics.
struct AbortOnPanic<'a>(&'a Schedule, usize);

impl Drop for AbortOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.aborted.store(true, Ordering::SeqCst);
            if let Some(t) = self.0.threads[1 - self.1].get() {
                t.unpark();
            }
        }
    }
}

/// The thread to own a solo phase, `me` being the one that starts it: a thread not yet
/// measured alone (`me` first), else the faster alone. Solo on the thread that shares its
/// core with a busy process is slower than parallel, solo on the other faster; the phase's
/// starter is either, so each is measured before one is kept.
fn solo_owner(solo_ns: &[Option<f64>; 2], me: usize) -> usize {
    match (solo_ns[me], solo_ns[1 - me]) {
        (None, _) => me,
        (_, None) => 1 - me,
        (Some(a), Some(b)) => {
            if b < a {
                1 - me
            } else {
                me
            }
        }
    }
}

impl Schedule {
    /// Thread `me`'s loop: its own part's windows first, the other part's when it can.
    fn worker<S: Send>(
        &self,
        me: usize,
        parts: &[Mutex<&mut S>; 2],
        task: &(dyn Fn(&mut S, usize, usize) -> bool + Sync),
    ) {
        let _ = self.threads[me].set(std::thread::current());
        let _guard = AbortOnPanic(self, me);
        let mut just_ran = true;
        let mut woken = false;
        loop {
            if self.finished.iter().all(|f| f.load(Ordering::Acquire)) {
                return;
            }
            if self.solo.0.load(Ordering::SeqCst) == 1 - me {
                // A solo phase of the other thread: sleep until it ends or the run does.
                self.sleep_while_solo(me);
                just_ran = true;
                woken = false;
                continue;
            }
            let seen = self.progress.0.load(Ordering::SeqCst);
            let ran = [me, 1 - me]
                .into_iter()
                .find(|&p| self.try_run(me, p, parts, task));
            if self.finished.iter().all(|f| f.load(Ordering::Acquire)) {
                return;
            }
            let useless = &self.useless[me];
            match ran {
                Some(p) => {
                    if p != me {
                        self.taken_over.fetch_add(1, Ordering::Relaxed);
                    }
                    if woken {
                        let n = useless.load(Ordering::Relaxed);
                        useless.store(n.saturating_sub(1), Ordering::Relaxed);
                    }
                    just_ran = true;
                }
                None => {
                    if woken {
                        let n = useless.load(Ordering::Relaxed);
                        useless.store((n + 1).min(MAX_BACKOFF), Ordering::Relaxed);
                    }
                    woken = self.wait(me, seen, just_ran);
                    just_ran = false;
                    continue;
                }
            }
            woken = false;
        }
    }

    /// Run part `p`'s next window if it is ready and nobody runs it; whether it ran.
    fn try_run<S: Send>(
        &self,
        me: usize,
        p: usize,
        parts: &[Mutex<&mut S>; 2],
        task: &(dyn Fn(&mut S, usize, usize) -> bool + Sync),
    ) -> bool {
        if self.finished[p].load(Ordering::Acquire) {
            return false;
        }
        let k = self.done[p].0.load(Ordering::Acquire);
        if self.done[1 - p].0.load(Ordering::Acquire) < k {
            return false; // the other part has not finished window k − 1
        }
        // (A poisoned lock: the other thread failed, which `wait` reports.)
        let Ok(mut part) = parts[p].try_lock() else {
            return false;
        };
        if self.done[p].0.load(Ordering::Acquire) != k {
            return false; // the other thread ran it meanwhile
        }
        // Again under the lock: the other thread may have run the part's last window
        // between the first look at `finished` and the load of `k` (it sets `finished`
        // before `done`, both under the lock), and `k` is then one past the end. Seen once
        // at a load of 9: a part ran window 3 000 of 3 000.
        if self.finished[p].load(Ordering::Acquire) {
            return false;
        }
        let goes_on = task(&mut part, p, k);
        if !goes_on {
            self.finished[p].store(true, Ordering::Release);
        }
        self.done[p].0.store(k + 1, Ordering::Release);
        drop(part);
        let step = self.progress.0.fetch_add(1, Ordering::SeqCst) + 1;
        // Wake a sleeping partner: in parallel phases, less often while its wake-ups find
        // nothing to run; in a solo phase only the owner (the sleeper then waits for the
        // phase to end); always at the end, when it must see that both parts finished.
        let other = 1 - me;
        let wake = match self.solo.0.load(Ordering::SeqCst) {
            PARALLEL => step % (1usize << self.useless[other].load(Ordering::Relaxed)) == 0,
            owner => owner == other,
        };
        if wake || !goes_on {
            self.wake(other);
        }
        if step % PHASE_CHECK == 0 {
            self.end_phase(me, step);
        }
        true
    }

    /// Unpark thread `t` if it sleeps.
    fn wake(&self, t: usize) {
        if self.sleeping[t].0.swap(false, Ordering::SeqCst) {
            if let Some(th) = self.threads[t].get() {
                th.unpark();
            }
        }
    }

    /// If the phase has lasted `PHASE`, record it and choose the next (`sim_solo`); a solo
    /// phase is owned by the thread that starts it.
    fn end_phase(&self, me: usize, step: usize) {
        let Ok(mut ph) = self.phases.try_lock() else {
            return;
        };
        if step < ph.start_step {
            // A stale check: this thread was descheduled between its step and here, and the
            // other thread ended the phase at a later step meanwhile.
            return;
        }
        let elapsed = ph.start.elapsed();
        if elapsed < PHASE {
            return;
        }
        let windows = (ph.carried + step - ph.start_step).max(1);
        let ns = elapsed.as_nanos() as f64 / windows as f64;
        let used = ph.mode;
        ph.phases += 1;
        if used == Mode::Solo {
            ph.solo_phases += 1;
            let owner = ph.owner;
            ph.solo_ns[owner] = Some(ns);
        }
        let next = ph.chooser.next(used, ns);
        ph.mode = next;
        ph.owner = solo_owner(&ph.solo_ns, me);
        ph.start = Instant::now();
        ph.carried = 0;
        ph.start_step = step;
        let owner = ph.owner;
        drop(ph);
        match next {
            Mode::Solo => {
                self.solo.0.store(owner, Ordering::SeqCst);
                if owner != me {
                    self.wake(owner);
                }
            }
            Mode::Parallel => {
                self.solo.0.store(PARALLEL, Ordering::SeqCst);
                self.wake(1 - me);
            }
        }
    }

    /// Sleep while the other thread owns a solo phase (or until the run ends).
    fn sleep_while_solo(&self, me: usize) {
        self.park_while(me, || {
            self.solo.0.load(Ordering::SeqCst) == 1 - me
                && !self.finished.iter().all(|f| f.load(Ordering::Acquire))
        });
    }

    /// Wait until the progress counter moves past `seen`: spinning first if `spin`, then
    /// asleep. Whether it slept. Panics if the other thread failed.
    fn wait(&self, me: usize, seen: usize, spin: bool) -> bool {
        if spin {
            let start = Instant::now();
            let mut spins = 0u32;
            while self.progress.0.load(Ordering::Acquire) == seen {
                self.check_aborted();
                spins += 1;
                // Read the clock now and then only: it costs more than a spin.
                if spins % 64 == 0 && start.elapsed() >= SPIN {
                    break;
                }
                std::hint::spin_loop();
            }
        }
        if self.progress.0.load(Ordering::SeqCst) != seen {
            return false;
        }
        // Until the other thread wakes this one (clearing `sleeping`): it may leave this
        // one asleep while it runs both parts (see `useless`).
        self.park_while(me, || self.progress.0.load(Ordering::SeqCst) == seen)
    }

    /// Park thread `me` while `blocked()` holds, until the other thread clears its
    /// `sleeping` flag. No lost wake-up: the flag is raised before `blocked` is re-read,
    /// and the waker changes what `blocked` reads before it clears the flag. Whether it
    /// parked (counted in `parked`).
    fn park_while(&self, me: usize, blocked: impl Fn() -> bool) -> bool {
        let sleeping = &self.sleeping[me].0;
        sleeping.store(true, Ordering::SeqCst);
        if !blocked() {
            sleeping.store(false, Ordering::SeqCst);
            return false;
        }
        self.parked.fetch_add(1, Ordering::Relaxed);
        while sleeping.load(Ordering::SeqCst) {
            self.check_aborted();
            std::thread::park_timeout(SLEEP_CHECK);
        }
        true
    }

    fn check_aborted(&self) {
        assert!(
            !self.aborted.load(Ordering::Relaxed),
            "the other thread of a two-thread run failed"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part of the toy run: the windows it ran, and what it read from the other part.
    #[derive(Default)]
    struct Toy {
        ran: Vec<usize>,
        read: Vec<usize>,
    }

    const WINDOWS: usize = 3_000;

    /// Each window reads how many windows the other part has run (from a shared log the
    /// other part writes): always exactly k, whichever thread ran it, with part 1's
    /// thread slow now and then (so that part 0's thread runs part 1's windows or sleeps).
    #[test]
    fn each_window_sees_the_other_part_at_the_same_window_whoever_runs_it() {
        let logs = [AtomicUsize::new(0), AtomicUsize::new(0)];
        let (mut a, mut b) = (Toy::default(), Toy::default());
        let task = |t: &mut Toy, p: usize, k: usize| {
            if p == 1 && k % 300 == 0 {
                std::thread::sleep(Duration::from_millis(2));
            }
            t.read.push(logs[1 - p].load(Ordering::SeqCst));
            t.ran.push(k);
            logs[p].store(k + 1, Ordering::SeqCst);
            k + 1 < WINDOWS
        };
        let counts = run_two(&mut a, &mut b, &task, &mut Phases::default());
        for t in [&a, &b] {
            assert_eq!(t.ran, (0..WINDOWS).collect::<Vec<_>>());
            // the other part has run window k − 1 and not yet k + 1
            for (k, &r) in t.read.iter().enumerate() {
                assert!(r == k || r == k + 1, "window {k} read {r}");
            }
        }
        assert!(counts.taken_over + counts.parked > 0, "{counts:?}");
    }

    /// A thread much slower than the other (as when it shares its core with a busy
    /// process): the run goes solo on the fast thread for most phases, and every window
    /// still sees the other part at the same window. The choice depends on wall-clock
    /// speeds, which a loaded machine can equalise for a whole run (both threads
    /// descheduled alike), so the choice is asked of up to three runs; the windows' order
    /// is checked in every run.
    #[test]
    fn a_slow_thread_is_left_asleep_in_solo_phases() {
        let mut last = None;
        for _ in 0..3 {
            let counts = slow_thread_run();
            if counts.phases >= 3 && 2 * counts.solo_phases >= counts.phases {
                return;
            }
            last = Some(counts);
        }
        panic!("no run went solo for most phases: {last:?}");
    }

    /// One run of `a_slow_thread_is_left_asleep_in_solo_phases`: its windows checked, its
    /// counts returned.
    fn slow_thread_run() -> ShareCounts {
        let main = std::thread::current().id();
        let logs = [AtomicUsize::new(0), AtomicUsize::new(0)];
        let (mut a, mut b) = (Toy::default(), Toy::default());
        const LONG: usize = 10_000;
        let task = |t: &mut Toy, p: usize, k: usize| {
            // a window is 10 µs of work, 300 µs on the slow thread
            let work = if std::thread::current().id() == main {
                10
            } else {
                300
            };
            let start = Instant::now();
            while start.elapsed() < Duration::from_micros(work) {
                std::hint::spin_loop();
            }
            t.read.push(logs[1 - p].load(Ordering::SeqCst));
            t.ran.push(k);
            logs[p].store(k + 1, Ordering::SeqCst);
            k + 1 < LONG
        };
        let counts = run_two(&mut a, &mut b, &task, &mut Phases::default());
        for t in [&a, &b] {
            assert_eq!(t.ran, (0..LONG).collect::<Vec<_>>());
            for (k, &r) in t.read.iter().enumerate() {
                assert!(r == k || r == k + 1, "window {k} read {r}");
            }
        }
        counts
    }

    /// The solo owner: a thread not measured alone first (the phase's starter before the
    /// other), then the faster alone.
    #[test]
    fn solo_goes_to_the_thread_faster_alone() {
        assert_eq!(solo_owner(&[None, None], 1), 1);
        assert_eq!(solo_owner(&[Some(600.0), None], 0), 1);
        assert_eq!(solo_owner(&[Some(600.0), Some(20.0)], 0), 1);
        assert_eq!(solo_owner(&[Some(600.0), Some(20.0)], 1), 1);
        assert_eq!(solo_owner(&[Some(20.0), Some(20.0)], 1), 1);
    }

    /// A thread descheduled between its step and its phase check, while the other thread
    /// ended the phase at a later step and that phase too has lasted `PHASE`: the stale
    /// check ends nothing (it used to subtract past zero, a panic in tests under load).
    #[test]
    fn a_stale_phase_check_ends_no_phase() {
        let sched = Schedule::new(Phases::default());
        let long_ago = || Instant::now().checked_sub(2 * PHASE).unwrap();
        sched.phases.lock().unwrap().start = long_ago();
        sched.end_phase(1, 2 * PHASE_CHECK);
        assert_eq!(sched.phases.lock().unwrap().phases, 1);
        sched.phases.lock().unwrap().start = long_ago();
        sched.end_phase(0, PHASE_CHECK);
        let ph = sched.phases.lock().unwrap();
        assert_eq!((ph.phases, ph.start_step), (1, 2 * PHASE_CHECK));
    }

    #[test]
    fn a_failing_task_stops_both_threads() {
        let (mut a, mut b) = (Toy::default(), Toy::default());
        let task = |_: &mut Toy, p: usize, k: usize| {
            assert!(!(p == 1 && k == 50), "boom");
            true
        };
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_two(&mut a, &mut b, &task, &mut Phases::default())
        }));
        assert!(r.is_err());
    }
}
