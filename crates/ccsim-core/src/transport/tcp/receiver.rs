//! TCP receiver: cumulative ACKs, SACK blocks (RFC 2018), out-of-order buffer and delayed
//! ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2).
//!
//! ACK policy: an in-order segment is acknowledged at once if delayed ACKs are off, if it
//! is the second unacknowledged one, or if it fills a hole; otherwise the delayed-ACK timer
//! is armed. Out-of-order and duplicate segments are acknowledged at once. Each ACK echoes
//! the send time of the first segment received since the previous ACK, and says whether
//! that segment was a retransmission so the sender can apply Karn's rule. A SYN (when the
//! flow models the handshake) is answered at once with a SYN-ACK.
//!
//! Quick ACKs (`quick_acks = n`, Linux's receiver; off by default): a connection's first
//! n ACKs are sent at once for every in-order segment, and a duplicate segment grants the
//! credit again. Linux grants `tcp_incr_quickack` credit on a connection's first data
//! segment (`tcp_event_data_recv`, net/ipv4/tcp_input.c:1029–1034) and
//! `tcp_enter_quickack_mode` on a segment it already has (`tcp_data_queue`); while credit
//! is left every segment is acknowledged at once (`tcp_in_quickack_mode`, :336–342;
//! `__tcp_ack_snd_check`), and each ACK sent takes one (`tcp_dec_quickack_mode`,
//! include/net/tcp.h:409–424).
//!
//! Receive window (`rcv_autotune = true`, the linux profile): Linux acknowledges at once
//! every segment that grows the window it offers (`tcp_grow_window` sets one credit), and
//! the window follows the autotuned receive buffer; `rcv_autotune.rs` models both.
//!
//! SACK compression (`sack_compress`, the linux profile; `sack_compress.rs`): after three
//! duplicate ACKs, further out-of-order segments' SACKs wait up to about a millisecond.

use super::ecn::{EcnMode, EcnReceiver};
use super::handshake;
use super::rcv_autotune::RcvAutotune;
use super::sack_compress::SackCompress;
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::{
    Packet, PacketKind, SackBlock, FLAG_CE, FLAG_CWR, FLAG_ECE, FLAG_ECHO_RETX, FLAG_NO_ECHO,
    FLAG_PSH, FLAG_RETX, MAX_SACK_BLOCKS,
};
use crate::units::{Dur, SimTime};

/// TCP receiver state.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    flow: FlowId,
    /// Node of the sender (where ACKs go).
    dst: NodeId,
    peer: EndpointId,
    mss: u64,
    header: u32,
    delack: Option<Dur>,
    total_bytes: Option<u64>,
    conn: u32,
    rcv_nxt: u64,
    /// Out-of-order segments held, as sorted disjoint ranges `[start, end)` above rcv_nxt.
    ooo: Vec<(u64, u64)>,
    /// Most recently received out-of-order segments, newest first (for SACK block order).
    recent: [u64; MAX_SACK_BLOCKS],
    nrecent: usize,
    /// Most SACK blocks per ACK (3; 2 for transports that use the third slot).
    max_sack: usize,
    /// Whether an ACK's wire size counts its SACK option (RFC 2018 §3).
    sack_option_bytes: bool,
    /// Whether an ACK's wire size counts 8 bytes per SACK block (ns-2's sinks).
    sack_block_bytes: bool,
    unacked: u32,
    /// Quick-ACK credit granted at a connection's start (0: off), and what is left of it.
    quick_acks: u32,
    quick: u32,
    /// Linux's receive window and its autotuning (`rcv_autotune`): a segment that grows
    /// the window is acknowledged at once. None: off.
    autotune: Option<Box<RcvAutotune>>,
    /// Segments that became in order at the arrival being handled: still unread when its
    /// ACK leaves (the application reads after the stack), so in the buffer the window
    /// model counts.
    unread: u64,
    /// Acknowledge a pushed full-sized in-order segment at once (`ack_pushed`).
    ack_pushed: bool,
    /// Linux's SACK compression (`sack_compress`). None: every SACK goes at once. Its timer
    /// shares `delack_deadline` (either sends an ACK, and any ACK cancels both).
    compress: Option<Box<SackCompress>>,
    delack_deadline: Option<SimTime>,
    echo: Option<(SimTime, bool)>,
    /// Payload bytes delivered in order to the application (all connections).
    pub bytes_delivered: u64,
    /// When a finite transfer was fully delivered.
    pub completion: Option<SimTime>,
    /// Path the current connection's data arrives on; ACKs go back on it.
    path: u8,
    /// Payload bytes delivered per path number (index 0: unpinned).
    pub bytes_by_path: Vec<u64>,
    /// Data segments that arrived on another path than their connection's first segment
    /// (an invariant check: MATCP keeps each connection on one path, so this stays 0).
    pub off_path_segments: u64,
    /// ECN echo state (RFC 3168 §6.1.3 or RFC 8257 §3.2).
    ecn: EcnReceiver,
    /// Data segments received with CE set.
    pub ce_received: u64,
}

impl TcpReceiver {
    /// A receiver for `flow`, acknowledging to endpoint `peer` at node `dst`.
    pub fn new(
        flow: FlowId,
        dst: NodeId,
        peer: EndpointId,
        mss: u32,
        header: u32,
        delack: Option<Dur>,
        total_bytes: Option<u64>,
    ) -> TcpReceiver {
        TcpReceiver {
            flow,
            dst,
            peer,
            mss: mss as u64,
            header,
            delack,
            total_bytes,
            conn: 0,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: [0; MAX_SACK_BLOCKS],
            nrecent: 0,
            max_sack: MAX_SACK_BLOCKS,
            sack_option_bytes: false,
            sack_block_bytes: false,
            unacked: 0,
            quick_acks: 0,
            quick: 0,
            autotune: None,
            unread: 0,
            ack_pushed: false,
            compress: None,
            delack_deadline: None,
            echo: None,
            bytes_delivered: 0,
            completion: None,
            path: 0,
            bytes_by_path: Vec::new(),
            off_path_segments: 0,
            ecn: EcnReceiver::default(),
            ce_received: 0,
        }
    }

    /// Echo congestion marks as `mode` says (RFC 3168 or DCTCP's per-packet echo).
    pub fn with_ecn(mut self, mode: EcnMode) -> TcpReceiver {
        self.ecn = EcnReceiver::new(mode);
        self
    }

    /// Send at most `n` SACK blocks per ACK.
    pub fn with_max_sack_blocks(mut self, n: usize) -> TcpReceiver {
        self.max_sack = n.min(MAX_SACK_BLOCKS);
        self
    }

    /// Count the SACK option in the wire size of ACKs that carry blocks: kind and length
    /// (2 bytes) plus 8 per block (RFC 2018 §3), padded to a multiple of 4 (RFC 9293
    /// §3.1's 32-bit data offset): 12, 20 or 28 bytes for 1–3 blocks, as Linux sends it
    /// (`TCPOLEN_SACK_BASE_ALIGNED` + n·`TCPOLEN_SACK_PERBLOCK`, include/net/tcp.h:238–239).
    pub fn with_sack_option_bytes(mut self, on: bool) -> TcpReceiver {
        self.sack_option_bytes = on;
        self
    }

    /// Count 8 bytes per SACK block in the wire size of ACKs, with no option header or
    /// padding, as ns-2's sinks do (tcp-sink.cc:755); `with_sack_option_bytes` wins.
    pub fn with_sack_block_bytes(mut self, on: bool) -> TcpReceiver {
        self.sack_block_bytes = on;
        self
    }

    /// Acknowledge every in-order segment at once for a connection's first `n` ACKs, and
    /// again after a duplicate segment (Linux's quick-ACK mode; see the module's notes).
    pub fn with_quick_acks(mut self, n: u32) -> TcpReceiver {
        self.quick_acks = n;
        self
    }

    /// Model Linux's receive window (`rcv_autotune.rs`): every segment that grows it is
    /// acknowledged at once, as `tcp_grow_window` does.
    pub fn with_rcv_autotune(mut self, on: bool) -> TcpReceiver {
        self.autotune = on.then(|| Box::new(RcvAutotune::new(self.mss)));
        self
    }

    /// The receive-window state, when modelled.
    pub fn rcv_autotune(&self) -> Option<&RcvAutotune> {
        self.autotune.as_deref()
    }

    /// Next expected segment.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Acknowledge at once an in-order full-sized segment that carries PSH when no
    /// out-of-order data is held (Linux: `tcp_measure_rcv_mss` sets ICSK_ACK_PUSHED and the
    /// read that empties the receive queue acks, `__tcp_cleanup_rbuf`; the application here
    /// reads every segment as it arrives, and out-of-order data keeps the queue from
    /// emptying).
    pub fn with_ack_pushed(mut self, on: bool) -> TcpReceiver {
        self.ack_pushed = on;
        self
    }

    /// Hold SACKs as Linux's SACK compression does (`sack_compress.rs`); the receiver's RTT
    /// estimate caps the delay (`receiver_rtt`).
    pub fn with_sack_compress(mut self, c: Option<SackCompress>) -> TcpReceiver {
        self.compress = c.map(Box::new);
        self
    }

    /// The delayed-ACK deadline (or the held SACKs', the earlier), if armed.
    pub fn next_wakeup(&self) -> SimTime {
        self.delack_deadline.unwrap_or(SimTime::NEVER)
    }

    /// The delayed-ACK timer (or SACK compression's) may have expired.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.delack_deadline.is_some_and(|d| d <= now) {
            self.send_ack(now, out);
        }
    }

    fn payload_of_range(&self, a: u64, b: u64) -> u64 {
        let bytes = (b - a) * self.mss;
        match self.total_bytes {
            Some(total) => bytes.min(total.saturating_sub(a * self.mss)),
            None => bytes,
        }
    }

    #[inline(always)]
    fn deliver(&mut self, now: SimTime, a: u64, b: u64) {
        let bytes = self.payload_of_range(a, b);
        self.bytes_delivered += bytes;
        let k = self.path as usize;
        if k > 0 {
            if self.bytes_by_path.len() <= k {
                self.bytes_by_path.resize(k + 1, 0);
            }
            self.bytes_by_path[k] += bytes;
        }
        self.rcv_nxt = b;
        if let Some(total) = self.total_bytes {
            if self.completion.is_none() && self.rcv_nxt * self.mss >= total {
                self.completion = Some(now);
            }
        }
    }

    /// A data segment arrived.
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.conn < self.conn {
            return; // a straggler from a finished connection
        }
        if pkt.conn > self.conn {
            self.new_connection(pkt); // an on/off source opened a new connection
        } else if pkt.path != self.path {
            self.off_path_segments += 1;
        }
        if self.ecn.enabled() {
            self.ecn_on_data(now, pkt, out);
        }
        if self.echo.is_none() {
            self.echo = Some((pkt.ts, pkt.flags & FLAG_RETX != 0));
        }
        if let Some(c) = self.compress.as_deref_mut() {
            c.on_data(now);
        }
        let seq = pkt.seq;
        if seq == self.rcv_nxt {
            self.deliver(now, seq, seq + 1);
            if self.ooo.is_empty() && self.autotune.is_none() {
                self.ack_in_order(now, pkt, out, false);
            } else {
                self.on_in_order_held(now, pkt, out);
            }
        } else if seq > self.rcv_nxt {
            if self.compress.is_some() {
                return self.on_out_of_order_compressed(now, pkt, out);
            }
            if self.insert_ooo(seq) && self.autotune.is_some() {
                self.autotune_on_ooo(pkt);
            }
            self.send_ack(now, out);
        } else {
            // Duplicate: tell the sender where we are (Linux also re-enters quick mode).
            self.quick = self.quick.max(self.quick_acks);
            self.send_ack(now, out);
        }
    }

    /// The ACK of an in-order segment (RFC 5681 §4.2): at once when it fills (part of) a gap
    /// (`filled_hole`); else at least every second full-sized segment, or when the
    /// delayed-ACK timer expires.
    #[inline]
    fn ack_in_order(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        out: &mut Vec<Packet>,
        filled_hole: bool,
    ) {
        if filled_hole
            || self.delack.is_none()
            || self.unacked >= 1
            || self.quick > 0
            || (pkt.flags & FLAG_PSH != 0 && self.pushed_ack_due(pkt))
        {
            self.send_ack(now, out);
        } else {
            self.unacked += 1;
            if self.delack_deadline.is_none() {
                self.delack_deadline = self.delack.map(|d| now + d);
            }
        }
    }

    /// An in-order segment, delivered, with segments held out of order or the window model
    /// on: the held segments it joins are delivered, the window model sees it, and its ACK
    /// goes as `ack_in_order` says — but under SACK compression Linux sends the ACK of a
    /// partial fill by compression's rule unless it is a window update or quick-ACK mode is
    /// on (`__tcp_ack_snd_check`, net/ipv4/tcp_input.c:5816–5857 of 6.12): at once too, but
    /// as the first of the three duplicates that go at once before SACKs are held.
    #[cold]
    #[inline(never)]
    fn on_in_order_held(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        self.unread = 1;
        let filled_hole = !self.ooo.is_empty();
        let held = if filled_hole && self.autotune.is_some() {
            self.ooo_segments()
        } else {
            0
        };
        if filled_hole && self.ooo[0].0 == self.rcv_nxt {
            let (a, b) = self.ooo.remove(0);
            self.unread += b - a;
            self.deliver(now, a, b);
        }
        if self.autotune.is_some() {
            self.autotune_on_segment(now, pkt, held);
        }
        if filled_hole
            && self.compress.is_some()
            && !self.ooo.is_empty()
            && self.quick == 0
            && !self.window_update_due()
        {
            self.compressed_ack(now, out);
        } else {
            self.ack_in_order(now, pkt, out, filled_hole);
        }
        self.unread = 0;
    }

    /// An out-of-order segment under SACK compression (`sack_compress.rs`): the SACKs held
    /// go first if it starts a block beside two others or extends the third or later
    /// (`tcp_sack_new_ofo_skb`); then its SACK goes at once in quick-ACK mode or by the
    /// compression's rules, else it is held.
    #[cold]
    #[inline(never)]
    fn on_out_of_order_compressed(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        let seq = pkt.seq;
        let rank = self.sack_block_rank(seq);
        let holding = self.compress.as_ref().is_some_and(|c| c.holding());
        let flush = holding && rank.map_or(self.ooo.len() >= 2, |r| r >= 2);
        if flush && rank.is_none() {
            self.send_ack(now, out); // before the new block, as the kernel sends it
        }
        if self.insert_ooo(seq) && self.autotune.is_some() {
            self.autotune_on_ooo(pkt);
        }
        if flush && rank.is_some() {
            self.send_ack(now, out); // with the extended block
        }
        self.compressed_ack(now, out);
    }

    /// The ACK of a segment that arrived with segments held out of order, by SACK
    /// compression's rule: at once in quick-ACK mode or by `SackCompress::on_out_of_order`,
    /// else held until compression's timer.
    #[cold]
    #[inline(never)]
    fn compressed_ack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let rtt = self.receiver_rtt();
        let rcv_nxt = self.rcv_nxt;
        let quick = self.quick > 0;
        let c = self.compress.as_mut().expect("compression on");
        if quick || c.on_out_of_order(now, rcv_nxt, rtt) {
            self.send_ack(now, out);
        } else {
            let d = c.deadline();
            self.delack_deadline = Some(self.delack_deadline.map_or(d, |x| x.min(d)));
        }
    }

    /// Whether an ACK of in-order data now is a window update (`RcvAutotune::
    /// window_update_due`); without the window model, taken to be one.
    #[cold]
    #[inline(never)]
    fn window_update_due(&self) -> bool {
        let mem = self.ooo_segments() + self.unread;
        self.autotune
            .as_ref()
            .is_none_or(|at| at.window_update_due(self.rcv_nxt, mem))
    }

    /// The rank, most recently changed first, of the SACK block that `seq` would extend
    /// (adjacent or inside; `tcp_sack_extend`), among those the receiver reports.
    fn sack_block_rank(&self, seq: u64) -> Option<usize> {
        let (blocks, n) = self.recent_blocks();
        blocks[..n]
            .iter()
            .position(|&(a, b)| a <= seq + 1 && seq <= b)
    }

    /// The blocks holding the most recently received out-of-order segments, most recent
    /// first, each once: the first SACK blocks an ACK reports (RFC 2018 §4).
    fn recent_blocks(&self) -> ([(u64, u64); MAX_SACK_BLOCKS], usize) {
        let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
        let mut n = 0;
        for &s in &self.recent[..self.nrecent] {
            if let Some(b) = self.block_containing(s) {
                if !blocks[..n].contains(&b) {
                    blocks[n] = b;
                    n += 1;
                }
            }
        }
        (blocks, n)
    }

    /// The receiver's RTT for SACK compression: Linux's `rcv_rtt_est`, or the handshake's
    /// srtt when smaller (`__tcp_ack_snd_check`), zero before a `rcv_rtt_est` sample. Without
    /// the receive-window model (which keeps `rcv_rtt_est`), the handshake's srtt, else
    /// unknown.
    fn receiver_rtt(&self) -> Option<Dur> {
        let handshake = self.compress.as_ref().and_then(|c| c.handshake_rtt());
        let Some(at) = &self.autotune else {
            return handshake;
        };
        let rcv = Dur::from_micros(at.rtt_us());
        Some(match handshake {
            Some(h) if h > Dur::ZERO && h < rcv => h,
            _ => rcv,
        })
    }

    /// Whether a pushed in-order segment is acknowledged at once (`ack_pushed`): full-sized
    /// (tcp_measure_rcv_mss's `len == rcv_mss`) and nothing held out of order.
    #[cold]
    #[inline(never)]
    fn pushed_ack_due(&self, pkt: &Packet) -> bool {
        self.ack_pushed
            && self.ooo.is_empty()
            && self.payload_of_range(pkt.seq, pkt.seq + 1) == self.mss
    }

    /// The receive window at an in-order segment, then the application's read of it
    /// (out of line: receivers without the model keep `on_data` as it was).
    #[cold]
    #[inline(never)]
    fn autotune_on_segment(&mut self, now: SimTime, pkt: &Packet, held: u64) {
        let len = self.payload_of_range(pkt.seq, pkt.seq + 1);
        let copied = self.rcv_nxt * self.mss;
        if let Some(at) = &mut self.autotune {
            if at.on_segment(now, pkt.ts, pkt.echoed_ack(), len, copied, held) {
                self.quick |= 1; // tcp_grow_window: icsk_ack.quick |= 1
            }
            at.on_read(now, copied);
        }
    }

    /// An out-of-order segment grows the window too (`rcv_autotune.rs`).
    #[cold]
    #[inline(never)]
    fn autotune_on_ooo(&mut self, pkt: &Packet) {
        let len = self.payload_of_range(pkt.seq, pkt.seq + 1);
        let held = self.ooo_segments();
        if let Some(at) = &mut self.autotune {
            if at.on_ooo_segment(len, held) {
                self.quick |= 1; // tcp_grow_window, from tcp_data_queue_ofo
            }
        }
    }

    /// Segments held out of order.
    fn ooo_segments(&self) -> u64 {
        self.ooo.iter().map(|&(a, b)| b - a).sum()
    }

    /// ECN at a data segment (out of line: flows without ECN keep `on_data` as short as
    /// before ECN existed).
    #[cold]
    #[inline(never)]
    fn ecn_on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        let ce = pkt.flags & FLAG_CE != 0;
        self.ce_received += ce as u64;
        // RFC 8257 §3.2: a change of CE state with a delayed ACK pending acknowledges the
        // segments held so far at once, with the old state.
        if self.ecn.flush_before(ce, self.delack_deadline.is_some()) {
            self.send_ack(now, out);
        }
        self.ecn.on_data(ce, pkt.flags & FLAG_CWR != 0);
    }

    /// A SYN (the flow models the handshake): a new connection's resets the state; every
    /// SYN of the current connection is answered with a SYN-ACK at once.
    #[cold]
    #[inline(never)]
    pub fn on_syn(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.conn < self.conn {
            return;
        }
        if pkt.conn > self.conn {
            self.new_connection(pkt);
        }
        if let Some(c) = self.compress.as_deref_mut() {
            c.on_synack(now);
        }
        out.push(handshake::syn_ack(
            pkt,
            self.flow,
            self.dst,
            self.peer,
            self.header,
        ));
    }

    /// Forget the previous connection: `pkt` is the first packet of a newer one.
    fn new_connection(&mut self, pkt: &Packet) {
        self.conn = pkt.conn;
        self.rcv_nxt = 0;
        self.ooo.clear();
        self.nrecent = 0;
        self.unacked = 0;
        self.quick = self.quick_acks;
        self.unread = 0;
        self.delack_deadline = None;
        self.echo = None;
        if let Some(c) = self.compress.as_deref_mut() {
            c.restart();
        }
        self.path = pkt.path;
        self.ecn.restart();
        if let Some(at) = &mut self.autotune {
            **at = RcvAutotune::new(self.mss);
        }
    }

    /// Hold an out-of-order segment; whether it was new (not already held).
    fn insert_ooo(&mut self, seq: u64) -> bool {
        // Most recent first, without duplicates (RFC 2018 §4).
        let mut recent = [seq; MAX_SACK_BLOCKS];
        let mut n = 1;
        for &s in &self.recent[..self.nrecent] {
            if s != seq && n < MAX_SACK_BLOCKS {
                recent[n] = s;
                n += 1;
            }
        }
        self.recent = recent;
        self.nrecent = n;
        let i = self.ooo.partition_point(|r| r.1 < seq);
        if i < self.ooo.len() && self.ooo[i].0 <= seq && seq < self.ooo[i].1 {
            return false; // already held
        }
        let joins_prev = i < self.ooo.len() && self.ooo[i].1 == seq;
        let joins_next_idx = if joins_prev { i + 1 } else { i };
        let joins_next = joins_next_idx < self.ooo.len() && self.ooo[joins_next_idx].0 == seq + 1;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.ooo[i].1 = self.ooo[i + 1].1;
                self.ooo.remove(i + 1);
            }
            (true, false) => self.ooo[i].1 = seq + 1,
            (false, true) => self.ooo[i].0 = seq,
            (false, false) => self.ooo.insert(i, (seq, seq + 1)),
        }
        true
    }

    fn block_containing(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ooo.partition_point(|r| r.1 <= seq);
        self.ooo.get(i).copied().filter(|r| r.0 <= seq)
    }

    fn send_ack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let mut p = Packet::new(PacketKind::Ack, self.flow, self.dst, self.peer, self.header);
        p.seq = self.rcv_nxt;
        p.conn = self.conn;
        p.path = self.path;
        if let Some((ts, retx)) = self.echo.take() {
            p.ts = ts;
            if retx {
                p.flags |= FLAG_ECHO_RETX;
            }
        } else {
            p.flags |= FLAG_ECHO_RETX | FLAG_NO_ECHO; // nothing to echo: no RTT sample
        }
        // SACK blocks: the block with the newest segment first, then other recent blocks,
        // then the remaining blocks from the highest down (RFC 2018 §4).
        let mut n = 0;
        let max_sack = self.max_sack;
        // (Nothing held out of order, the common case: no blocks, whatever `recent` says.)
        if !self.ooo.is_empty() {
            let (recent, nrecent) = self.recent_blocks();
            for &b in &recent[..nrecent] {
                push_sack_block(&mut p, &mut n, max_sack, b);
            }
            // (Stops when the option is full: a receiver behind many losses holds hundreds.)
            for b in self.ooo.iter().rev() {
                if n >= max_sack {
                    break;
                }
                push_sack_block(&mut p, &mut n, max_sack, *b);
            }
        }
        p.nsack = n as u8;
        if self.ecn.ece() {
            p.flags |= FLAG_ECE;
        }
        if self.sack_option_bytes && n > 0 {
            p.size += (2 + 8 * n as u32).next_multiple_of(4);
        } else if self.sack_block_bytes {
            p.size += 8 * n as u32;
        }
        self.unacked = 0;
        self.quick = self.quick.saturating_sub(1);
        self.delack_deadline = None;
        if let Some(c) = &mut self.compress {
            c.on_ack_sent();
        }
        if self.autotune.is_some() {
            let mem = self.ooo_segments() + self.unread;
            if let Some(at) = &mut self.autotune {
                at.on_ack_sent(now, self.rcv_nxt, mem);
            }
        }
        out.push(p);
    }
}

/// Put `blk` in the ACK's SACK option as block `n` unless the option holds `max` blocks or
/// one starting where `blk` does.
#[inline]
fn push_sack_block(p: &mut Packet, n: &mut usize, max: usize, blk: (u64, u64)) {
    if *n < max && !(0..*n).any(|i| p.sack_block(i).start == blk.0) {
        p.set_sack_block(
            *n,
            SackBlock {
                start: blk.0,
                end: blk.1,
            },
        );
        *n += 1;
    }
}

#[cfg(test)]
#[path = "receiver_tests.rs"]
mod tests;
