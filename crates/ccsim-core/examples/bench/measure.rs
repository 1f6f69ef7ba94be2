//! What the benchmark reads about its own process: CPU time, resident memory, and a busy
//! loop to occupy a core.

use std::process::{Child, Command};
use std::time::Duration;

/// CPU time of this process so far, every thread included (those already ended too), in
/// seconds (`CLOCK_PROCESS_CPUTIME_ID`).
pub fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `ts` is.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// A field of /proc/self/status in KiB (`VmRSS`: resident now; `VmHWM`: the peak).
pub fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Spin on arithmetic forever (no `pause`, no system calls): the CPU-bound load that
/// `BusyCore` runs in a child process.
pub fn spin_forever() -> ! {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    loop {
        for _ in 0..1_000_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        }
        std::hint::black_box(x);
    }
}

/// A CPU-bound process started by the benchmark and stopped when this is dropped.
pub struct BusyCore(Child);

impl BusyCore {
    /// Start `exe --busy` and give it a moment to be scheduled.
    pub fn start(exe: &std::path::Path) -> BusyCore {
        let child = Command::new(exe)
            .arg("--busy")
            .spawn()
            .expect("the busy loop starts");
        std::thread::sleep(Duration::from_millis(50));
        BusyCore(child)
    }
}

impl Drop for BusyCore {
    fn drop(&mut self) {
        // Our own child, stopped by its handle.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
