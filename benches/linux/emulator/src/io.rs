//! Linux packet I/O for the live emulator: AF_PACKET sockets bound to one interface each,
//! the monotonic clock, ppoll with a nanosecond timeout, real-time priority and a stop flag
//! set by SIGINT/SIGTERM. Everything here is a thin wrapper over libc; no model logic.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

pub static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// SIGINT and SIGTERM end the run cleanly (the log is still written).
pub fn install_stop_handlers() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// SCHED_FIFO at `prio`, so wake-ups are prompt on a loaded machine (the emulator sleeps
/// in ppoll between events; it never spins). Returns false if refused.
pub fn set_realtime(prio: i32) -> bool {
    let sp = libc::sched_param {
        sched_priority: prio,
    };
    // SAFETY: valid pointer; pid 0 is this thread.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &sp) == 0 }
}

/// Keep the process's pages resident (no page faults in the timed loop); best effort.
pub fn lock_memory() {
    // SAFETY: plain syscall.
    unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
}

fn check(ret: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if ret < 0 {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(ret)
    }
}

pub struct PacketSocket {
    pub fd: libc::c_int,
    pub name: String,
}

impl PacketSocket {
    /// A raw packet socket receiving every frame that arrives on `ifname` (not the ones it
    /// sends) and sending frames out of it unchanged.
    pub fn open(ifname: &str) -> io::Result<Self> {
        let cname =
            std::ffi::CString::new(ifname).map_err(|_| io::Error::other("bad interface name"))?;
        // SAFETY: plain libc calls with valid arguments; errors are checked.
        unsafe {
            let ifindex = libc::if_nametoindex(cname.as_ptr());
            if ifindex == 0 {
                return Err(io::Error::other(format!(
                    "no interface {ifname} in this namespace"
                )));
            }
            let proto = (libc::ETH_P_ALL as u16).to_be() as libc::c_int;
            let fd = check(
                libc::socket(
                    libc::AF_PACKET,
                    libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                    proto,
                ),
                "socket(AF_PACKET)",
            )?;
            let sock = PacketSocket {
                fd,
                name: ifname.to_string(),
            };
            let one: libc::c_int = 1;
            let set = |level, opt, v: &libc::c_int, what| {
                check(
                    libc::setsockopt(fd, level, opt, v as *const _ as *const libc::c_void, 4),
                    what,
                )
            };
            set(
                libc::SOL_PACKET,
                libc::PACKET_IGNORE_OUTGOING,
                &one,
                "PACKET_IGNORE_OUTGOING",
            )?;
            let buf: libc::c_int = 8 << 20;
            set(
                libc::SOL_SOCKET,
                libc::SO_RCVBUFFORCE,
                &buf,
                "SO_RCVBUFFORCE",
            )?;
            set(
                libc::SOL_SOCKET,
                libc::SO_SNDBUFFORCE,
                &buf,
                "SO_SNDBUFFORCE",
            )?;
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_protocol = proto as u16;
            sll.sll_ifindex = ifindex as i32;
            check(
                libc::bind(
                    fd,
                    &sll as *const _ as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_ll>() as u32,
                ),
                "bind(AF_PACKET)",
            )?;
            // frames of other interfaces may have been queued before the bind
            let mut scratch = vec![0u8; 65536];
            while sock.recv(&mut scratch)?.is_some() {}
            Ok(sock)
        }
    }

    /// One frame if one is waiting (non-blocking).
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            // SAFETY: buf is valid for its length.
            let n = unsafe {
                libc::recv(
                    self.fd,
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                    libc::MSG_TRUNC,
                )
            };
            if n >= 0 {
                return Ok(Some(n as usize));
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::WouldBlock => return Ok(None),
                io::ErrorKind::Interrupted => continue,
                _ => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("recv on {}: {e}", self.name),
                    ))
                }
            }
        }
    }

    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: frame is valid for its length; the socket is bound to its interface.
        let n = unsafe {
            libc::send(
                self.fd,
                frame.as_ptr() as *const libc::c_void,
                frame.len(),
                0,
            )
        };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
}

impl Drop for PacketSocket {
    fn drop(&mut self) {
        // SAFETY: fd is ours.
        unsafe { libc::close(self.fd) };
    }
}

/// Wait until a frame arrives on one of `socks` or `timeout_ns` passes (or a signal).
pub fn wait(socks: &[&PacketSocket], timeout_ns: u64) {
    let mut fds: Vec<libc::pollfd> = socks
        .iter()
        .map(|s| libc::pollfd {
            fd: s.fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as i64,
        tv_nsec: (timeout_ns % 1_000_000_000) as i64,
    };
    // SAFETY: valid pollfd array and timespec; no signal mask change.
    unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
}
