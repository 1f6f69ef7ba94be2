//! Linux's receive window, as far as it decides when the receiver acknowledges at once
//! (`rcv_autotune`, the linux profile; issue #26). Linux grows the window it offers by two
//! segments for every in-order segment while the window is below what the receive buffer
//! can hold, and every segment that grows it is acknowledged at once: `tcp_grow_window`
//! raises `rcv_ssthresh` and sets `icsk_ack.quick |= 1` (net/ipv4/tcp_input.c). The buffer
//! itself is autotuned once per receiver-measured RTT from what the application read
//! (`tcp_rcv_space_adjust`, `tcp_rcvbuf_grow`), so in slow start the window catches up
//! at the start of every flight and the receiver then ACKs every segment for a while:
//! the kernel's HyStart sees these 1.2 ms ACK trains (docs/validation.md §6).
//!
//! Rules (Linux 6.18, the bench's kernel; each checked against its `tcp:tcp_rcvbuf_grow`
//! trace, `benches/linux/slowstart_trace.py`):
//! - Units: a window is a buffer size times `scaling_ratio`/256 (`tcp_win_from_space`);
//!   the ratio is a segment's payload over its buffer's truesize, measured on the first
//!   segment (`tcp_measure_rcv_mss`); the window clamp is then the buffer's window.
//! - Start: sk_rcvbuf = tcp_rmem[1] = 131 072 B; the offered window and rcv_ssthresh the
//!   SYN-ACK's, 65 535 rounded down to a segment (`tcp_select_initial_window`);
//!   rcvq_space.space = min(that, 10 segments) (`tcp_init_buffer_space`).
//! - Per in-order segment of ≥ 128 B (`tcp_event_data_recv` → `tcp_grow_window`): room =
//!   min(window_clamp, window of the free buffer) − rcv_ssthresh, the segment itself and
//!   any out-of-order data still in the buffer; if room > 0 (and the segment's truesize
//!   allows it), rcv_ssthresh += min(room, 2 segments), and the segment is acknowledged at
//!   once. Per out-of-order segment the same growth (`tcp_data_queue_ofo` calls
//!   `tcp_grow_window` for SACK flows, since upstream 2020, "tcp: grow window for OOO
//!   packets only for SACK flows"), its ACK being immediate anyway: so a recovery's
//!   out-of-order flight grows the window, and the segments after it are not each
//!   acknowledged to grow it.
//! - Per read (the application here reads every in-order segment at once;
//!   `tcp_rcv_space_adjust`): once a receiver RTT has passed since the last measure, if
//!   more than `space` bytes were read in it, `tcp_rcvbuf_grow(copied)`: rcvwin = 2·copied
//!   + 4·copied·(copied − space)/space, sk_rcvbuf = min(rcvwin·256/ratio, tcp_rmem[2]) if
//!   larger, window_clamp = its window; space = copied.
//! - The receiver's RTT (`rcv_rtt_est`, µs·8): from the timestamps, the time since it sent
//!   the ACK a data segment echoes, in the timestamp clock's milliseconds
//!   (`tcp_rcv_rtt_measure_ts`, once per echo, full segments only), and once per window of
//!   data the time to receive it (`tcp_rcv_rtt_measure`); a lower sample is taken at once,
//!   a higher timestamp sample smoothed by 1/8 (`tcp_rcv_rtt_update`, 6.16's "always seek
//!   for minimal rtt"). The echo is carried by the data (`Packet::echoed_ack`).
//!
//! Not modelled: memory pressure, a slow reader (data waiting in the queue), the smaller
//! truesize of coalesced out-of-order segments, and the window as flow control (ccsim's
//! `max_window` is separate):
//! only the ACK timing follows from this state. The SYN-ACK is not timed, so the first
//! RTT sample comes from the first data ACK's echo, a flight later than the kernel's;
//! until then no read measures, as in the kernel before its first sample.

use crate::units::SimTime;
use std::collections::VecDeque;

/// `tcp_rmem[1]`: a socket's receive buffer at the start (bytes).
pub const RMEM_DEFAULT: u64 = 131_072;
/// `tcp_rmem[2]`: the most autotuning gives it (bytes; 6.18's default).
pub const RMEM_MAX: u64 = 33_554_432;
/// Buffer bytes a full-sized segment takes (`skb->truesize`): a 2 KiB fragment and the
/// `sk_buff`, as the bench's veth receiver shows (scaling_ratio 160 with 1448-B segments).
pub const TRUESIZE: u64 = 2_304;
/// `TCP_DEFAULT_SCALING_RATIO`: window per buffer byte (/256) before a segment is measured.
const DEFAULT_RATIO: u64 = 128;
/// The receive window scale that `RMEM_MAX` gives (`tcp_select_initial_window`:
/// ilog2(tcp_rmem[2]) − 15): the offered window is a multiple of 2^10 bytes.
const WSCALE: u32 = 10;
/// `TCP_INIT_CWND`: the first `rcvq_space.space` is at most this many segments.
const INIT_SEGMENTS: u64 = 10;

/// The receive-window state of one connection.
#[derive(Clone, Debug)]
pub struct RcvAutotune {
    mss: u64,
    /// `scaling_ratio` (/256).
    ratio: u64,
    /// `sk_rcvbuf` (bytes).
    rcvbuf: u64,
    window_clamp: u64,
    rcv_ssthresh: u64,
    /// The window offered in the last ACK (`rcv_wnd`), and rcv_nxt then (`rcv_wup`, bytes).
    rcv_wnd: u64,
    rcv_wup: u64,
    /// `rcvq_space`: bytes read in the last measured RTT, where and when it started.
    space: u64,
    space_seq: u64,
    space_time: Option<SimTime>,
    /// `rcv_rtt_est.rtt_us` (µs · 8; 0: no sample yet).
    rtt_us8: u64,
    /// The echo of the last timestamp sample (one sample per echo).
    last_echo: Option<u64>,
    /// `rcv_rtt_est.seq`, `.time`: the window-based measure.
    rtt_seq: u64,
    rtt_time: Option<SimTime>,
    /// ACKs sent (cumulative ACK number, time), oldest first, until no echo can name them.
    acks: VecDeque<(u64, SimTime)>,
}

impl RcvAutotune {
    /// A connection's state before its first segment (segments of `mss` payload bytes).
    pub fn new(mss: u64) -> RcvAutotune {
        let mss = mss.max(1);
        let win0 = (RMEM_DEFAULT * DEFAULT_RATIO >> 8).min(65_535) / mss * mss;
        RcvAutotune {
            mss,
            ratio: DEFAULT_RATIO,
            rcvbuf: RMEM_DEFAULT,
            window_clamp: RMEM_DEFAULT * DEFAULT_RATIO >> 8,
            rcv_ssthresh: win0,
            rcv_wnd: win0,
            rcv_wup: 0,
            space: win0.min(INIT_SEGMENTS * mss),
            space_seq: 0,
            space_time: None,
            rtt_us8: 0,
            last_echo: None,
            rtt_seq: 0,
            rtt_time: None,
            acks: VecDeque::new(),
        }
    }

    fn win(&self, space: u64) -> u64 {
        space * self.ratio >> 8
    }

    /// The receiver's smoothed RTT estimate in µs (0: none yet).
    pub fn rtt_us(&self) -> u64 {
        self.rtt_us8 >> 3
    }

    /// `rcv_ssthresh`: the most window the receiver offers now (bytes; less while the free
    /// buffer is smaller, `select_window`).
    pub fn rcv_ssthresh(&self) -> u64 {
        self.rcv_ssthresh
    }

    /// `sk_rcvbuf` now (bytes).
    pub fn rcvbuf(&self) -> u64 {
        self.rcvbuf
    }

    /// The window Linux offers with `mem` full-sized segments in the buffer (out of order,
    /// or in order and not yet read): the free buffer's window, at most rcv_ssthresh, rounded
    /// up to the window scale's unit; below half the full window the free space is first
    /// rounded down, and under 1/16 of the buffer's window or one segment it is 0
    /// (`__tcp_select_window`, net/ipv4/tcp_output.c:3100–3170 of 6.12, window scaling on).
    fn select_window(&self, mem: u64) -> u64 {
        let unit = 1 << WSCALE;
        let full = self.win(self.rcvbuf);
        let mut free = self.win(self.rcvbuf.saturating_sub(TRUESIZE * mem));
        if free < self.window_clamp.min(full) >> 1 {
            free = free / unit * unit;
            if free < full >> 4 || free < self.mss {
                return 0;
            }
        }
        free.min(self.rcv_ssthresh).next_multiple_of(unit)
    }

    /// Whether an ACK of in-order data sent now is a window update as `__tcp_ack_snd_check`
    /// tests it (net/ipv4/tcp_input.c:5816–5823 of 6.12): more than a segment arrived since
    /// the window was last offered, and the window offered now (`mem` segments in the
    /// buffer) is not below that one. Its alternative, everything read down to
    /// SO_RCVLOWAT, does not hold while the segments just arrived are unread.
    pub fn window_update_due(&self, rcv_nxt: u64, mem: u64) -> bool {
        rcv_nxt * self.mss > self.rcv_wup + self.mss && self.select_window(mem) >= self.rcv_wnd
    }

    /// An ACK for everything below segment `ack` leaves at `now` with `mem` segments in the
    /// buffer: it offers the window of `select_window`, or what is left of the one offered
    /// before if that is more — the offered window never shrinks (`tcp_select_window`,
    /// net/ipv4/tcp_output.c:260–296, `tcp_shrink_window` = 0).
    pub fn on_ack_sent(&mut self, now: SimTime, ack: u64, mem: u64) {
        let rcv_nxt = ack * self.mss;
        let left = (self.rcv_wup + self.rcv_wnd).saturating_sub(rcv_nxt);
        let new = self.select_window(mem);
        self.rcv_wnd = if new < left {
            left.next_multiple_of(1 << WSCALE)
        } else {
            new
        };
        self.rcv_wup = rcv_nxt;
        if self.acks.back().is_none_or(|&(a, _)| a != ack) {
            self.acks.push_back((ack, now));
        } else if let Some(last) = self.acks.back_mut() {
            last.1 = now; // a duplicate ACK carries a newer timestamp
        }
    }

    /// An in-order segment of `len` payload bytes arrived at `now` (rcv_nxt is now `end`,
    /// in bytes), sent at `sent` and echoing `echo`. Returns whether it grew the window,
    /// i.e. must be acknowledged at once. `held`: out-of-order segments in the buffer.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        sent: SimTime,
        echo: Option<u64>,
        len: u64,
        end: u64,
        held: u64,
    ) -> bool {
        if self.space_time.is_none() {
            // tcp_init_buffer_space at the connection's start, then tcp_measure_rcv_mss
            self.space_time = Some(now);
            self.ratio = (len << 8) / TRUESIZE;
            self.window_clamp = self.win(self.rcvbuf);
            self.space = self.space.min(self.window_clamp);
        }
        if len >= self.mss {
            self.timestamp_sample(now, sent, echo);
        }
        self.window_sample(now, end);
        len >= 128 && self.grow_window(len, held)
    }

    /// An out-of-order segment of `len` payload bytes was queued; `held` out-of-order
    /// segments are now in the buffer, it included (`tcp_data_queue_ofo`). Returns whether
    /// it grew the window (`tcp_grow_window` then sets one quick-ACK credit too).
    pub fn on_ooo_segment(&mut self, len: u64, held: u64) -> bool {
        self.space_time.is_some() && self.grow_window(len, held.saturating_sub(1))
    }

    /// `tcp_rcv_rtt_measure_ts`: the time since the echoed ACK left, in whole milliseconds
    /// of the timestamp clock.
    fn timestamp_sample(&mut self, now: SimTime, sent: SimTime, echo: Option<u64>) {
        let Some(e) = echo else { return };
        if self.last_echo == Some(e) {
            return;
        }
        self.last_echo = Some(e);
        while self.acks.len() > 1 && self.acks[0].0 < e && self.acks[1].0 <= e {
            self.acks.pop_front();
        }
        // the newest ACK with that number that had left when the segment was sent
        let Some(&(_, t)) = self.acks.iter().rev().find(|&&(a, t)| a == e && t <= sent) else {
            return;
        };
        let ms = now.0 / 1_000_000 - t.0 / 1_000_000;
        if ms > 0 {
            self.rtt_update(ms * 1000, false);
        }
    }

    /// `tcp_rcv_rtt_measure`: the time to receive one offered window.
    fn window_sample(&mut self, now: SimTime, end: u64) {
        if let Some(t) = self.rtt_time {
            if end < self.rtt_seq {
                return;
            }
            self.rtt_update(now.since(t).0.div_ceil(1000).max(1), true);
        }
        self.rtt_seq = end + self.rcv_wnd;
        self.rtt_time = Some(now);
    }

    /// `tcp_rcv_rtt_update` (since upstream b879dcb1aeec, "tcp: always seek for minimal
    /// rtt in tcp_rcv_rtt_update()", 6.16): a lower sample is taken at once; a higher one
    /// is smoothed by 1/8 if it is a timestamp sample and ignored if a window sample.
    fn rtt_update(&mut self, sample_us: u64, win_dep: bool) {
        let m = sample_us.max(1);
        if self.rtt_us8 == 0 || m << 3 < self.rtt_us8 {
            self.rtt_us8 = m << 3;
        } else if !win_dep {
            self.rtt_us8 = self.rtt_us8 - (self.rtt_us8 >> 3) + m;
        }
    }

    /// `tcp_grow_window` for a segment still in the buffer, with `held` other segments
    /// (out of order) there too (`tcp_space` counts `sk_rmem_alloc`).
    fn grow_window(&mut self, len: u64, held: u64) -> bool {
        let free = self.win(self.rcvbuf.saturating_sub(TRUESIZE * (1 + held)));
        let room = self
            .window_clamp
            .min(free)
            .saturating_sub(self.rcv_ssthresh);
        if room == 0 {
            return false;
        }
        let incr = if self.win(TRUESIZE) <= len {
            2 * self.mss
        } else {
            self.grow_window_slow(len)
        };
        if incr == 0 {
            return false;
        }
        self.rcv_ssthresh += room.min(incr.max(2 * len));
        true
    }

    /// `__tcp_grow_window`: with a costly truesize, grow only while the window is small
    /// enough that such segments still fit.
    fn grow_window_slow(&self, len: u64) -> u64 {
        let mut truesize = self.win(TRUESIZE) >> 1;
        let mut window = self.win(RMEM_MAX) >> 1;
        while self.rcv_ssthresh <= window {
            if truesize <= len {
                return 2 * self.mss;
            }
            truesize >>= 1;
            window >>= 1;
        }
        0
    }

    /// The application has read everything up to `copied` bytes (`tcp_rcv_space_adjust`).
    pub fn on_read(&mut self, now: SimTime, copied: u64) {
        let (Some(t0), true) = (self.space_time, self.rtt_us8 > 0) else {
            return;
        };
        if now.since(t0).0 / 1000 < self.rtt_us8 >> 3 {
            return;
        }
        let got = copied - self.space_seq;
        if got > self.space {
            self.rcvbuf_grow(got);
        }
        self.space_seq = copied;
        self.space_time = Some(now);
    }

    /// `tcp_rcvbuf_grow`: a buffer for twice what was read in the last RTT, plus room for
    /// the sender to double its rate again.
    fn rcvbuf_grow(&mut self, newval: u64) {
        let old = self.space;
        self.space = newval;
        let mut rcvwin = newval << 1;
        rcvwin += (rcvwin * (newval - old) / old) << 1;
        let rcvbuf = ((rcvwin << 8) / self.ratio.max(1)).min(RMEM_MAX);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            self.window_clamp = self.win(rcvbuf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    fn ms(x: f64) -> SimTime {
        SimTime((x * 1e6) as u64)
    }

    /// The start, as the 6.18 receiver's trace shows it: a 65 160-B window (45 segments),
    /// a scaling ratio of 160 from 1448-B segments, a window clamp of 81 920 and a ceiling
    /// of 80 480 with one segment unread; the window grows by two segments per segment
    /// (each acknowledged at once) until that ceiling: six segments.
    #[test]
    fn the_window_grows_two_segments_per_segment_up_to_the_buffer() {
        let mut r = RcvAutotune::new(MSS);
        assert_eq!(r.rcv_ssthresh(), 65_160);
        let grew: Vec<bool> = (1..=10)
            .map(|i| r.on_segment(ms(i as f64), ms(0.0), None, MSS, i * MSS, 0))
            .collect();
        assert_eq!((r.ratio, r.window_clamp), (160, 81_920));
        assert_eq!(grew.iter().filter(|&&g| g).count(), 6);
        assert!(grew[..6].iter().all(|&g| g));
        assert_eq!(r.rcv_ssthresh(), 80_480);
    }

    /// tcp_rcvbuf_grow as the trace's second event: 30 408 B read against a space of
    /// 15 928 gives rcvwin 171 390, sk_rcvbuf 274 224, and a window ceiling of 169 950.
    #[test]
    fn autotuning_grows_the_buffer_as_the_kernel_trace() {
        let mut r = RcvAutotune::new(MSS);
        r.on_segment(ms(0.0), ms(0.0), None, MSS, MSS, 0);
        r.space = 15_928;
        r.rcvbuf_grow(30_408);
        assert_eq!((r.rcvbuf, r.window_clamp), (274_224, 171_390));
        // the first such growth: 15 928 against 14 480 asks for less than the buffer has
        let mut s = RcvAutotune::new(MSS);
        s.on_segment(ms(0.0), ms(0.0), None, MSS, MSS, 0);
        s.rcvbuf_grow(15_928);
        assert_eq!(s.rcvbuf, RMEM_DEFAULT);
        // the window then grows to the new ceiling: (274 224 − 2 304)·160/256
        r.rcv_ssthresh = 80_480;
        while r.grow_window(MSS, 0) {}
        assert_eq!(r.rcv_ssthresh(), 169_950);
    }

    /// Out-of-order segments grow the window as in-order ones do (tcp_data_queue_ofo), but
    /// the data they leave in the buffer lowers the ceiling: with 20 segments held, (274 224
    /// − 21 · 2 304) · 160/256 = 141 150.
    #[test]
    fn out_of_order_segments_grow_the_window_below_what_they_hold() {
        let mut r = RcvAutotune::new(MSS);
        r.on_segment(ms(0.0), ms(0.0), None, MSS, MSS, 0);
        r.space = 15_928;
        r.rcvbuf_grow(30_408);
        assert_eq!(r.rcvbuf, 274_224);
        r.rcv_ssthresh = 80_480;
        for held in 1..=20 {
            r.on_ooo_segment(MSS, held);
        }
        assert_eq!(r.rcv_ssthresh(), 80_480 + 20 * 2 * MSS);
        for _ in 0..40 {
            r.on_ooo_segment(MSS, 21);
        }
        assert_eq!(r.rcv_ssthresh(), 141_150);
        // An in-order segment with the same held data cannot grow it further.
        assert!(!r.grow_window(MSS, 20));
    }

    /// The offered window (`tcp_select_window`): the free buffer's window up to
    /// rcv_ssthresh, never less than what is left of the last one; an ACK of in-order data is
    /// a window update only if more than a segment arrived since and the window now is not
    /// below the last (`__tcp_ack_snd_check`).
    #[test]
    fn the_offered_window_never_shrinks_and_held_data_is_no_window_update() {
        let mut r = RcvAutotune::new(MSS);
        r.on_segment(ms(0.0), ms(0.0), None, MSS, MSS, 0);
        r.rcvbuf = 274_224;
        r.window_clamp = r.win(r.rcvbuf);
        r.rcv_ssthresh = 169_950;
        // one segment unread: (274 224 − 2 304)·160/256 = 169 950, rounded up to 2^10
        r.on_ack_sent(ms(1.0), 10, 1);
        assert_eq!((r.rcv_wnd, r.rcv_wup), (169_984, 10 * MSS));
        assert!(!r.window_update_due(11, 1), "one segment since: no update");
        assert!(r.window_update_due(12, 1));
        // 21 segments in the buffer: (274 224 − 21·2 304)·160/256 = 141 150 < 169 984
        assert!(!r.window_update_due(12, 21));
        // sent anyway, the ACK offers what is left of the last window, not 141 312
        r.on_ack_sent(ms(2.0), 11, 21);
        assert_eq!(
            r.rcv_wnd,
            (10 * MSS + 169_984 - 11 * MSS).next_multiple_of(1024)
        );
    }

    /// The receiver's RTT: the time since the echoed ACK left, in whole milliseconds; one
    /// sample per echo; a higher sample smoothed by 1/8, a lower one taken at once. A read
    /// measures once an RTT has passed, and grows the buffer only if more than `space` was
    /// read.
    #[test]
    fn reads_measure_once_per_receiver_rtt() {
        let mut r = RcvAutotune::new(MSS);
        r.on_ack_sent(ms(0.5), 1, 0);
        r.on_segment(ms(0.0), ms(0.0), None, MSS, MSS, 0);
        r.on_read(ms(0.0), MSS);
        assert_eq!(r.rtt_us(), 0);
        r.on_segment(ms(41.7), ms(21.0), Some(1), MSS, 2 * MSS, 0);
        assert_eq!(r.rtt_us(), 41_000);
        r.on_segment(ms(42.9), ms(22.0), Some(1), MSS, 3 * MSS, 0); // same echo: no sample
        assert_eq!(r.rtt_us(), 41_000);
        r.on_read(ms(40.0), 2 * MSS); // 40 ms since the start < 41: no measure
        assert_eq!(r.space_time, Some(ms(0.0)));
        r.on_read(ms(42.9), 12 * MSS); // 12 segments > 10: grows (within the buffer)
        assert_eq!(
            (r.space, r.space_seq, r.space_time),
            (12 * MSS, 12 * MSS, Some(ms(42.9)))
        );
        r.on_ack_sent(ms(43.0), 12, 0);
        r.on_segment(ms(93.5), ms(45.0), Some(12), MSS, 13 * MSS, 0); // 93 − 43 = 50 ms
        assert_eq!(r.rtt_us(), 41_000 + (50_000 - 41_000) / 8);
        r.on_ack_sent(ms(94.0), 13, 0);
        r.on_segment(ms(136.2), ms(100.0), Some(13), MSS, 14 * MSS, 0); // 42 ms: lower, taken
        assert_eq!(r.rtt_us(), 42_000);
    }
}
