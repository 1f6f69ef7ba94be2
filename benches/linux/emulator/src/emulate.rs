//! The live emulator: a two-port Ethernet bridge in the middle namespace. Frames read on the
//! sender-side port go through the data direction's model, frames read on the receiver-side
//! port through the ACK direction's; each admitted frame is written out of the other port at
//! its logical departure time.
//!
//! Event order keeps the model exact: before a frame read at time `a` is modelled, every
//! scheduled event due at or before `a` runs first, so each direction's model sees packets in
//! non-decreasing entrance time (a flow's access delay before the queue is a scheduled
//! "enter" event). A frame's arrival time is when the emulator read it; its departure is
//! computed in logical time, so a late wake-up delays that one frame only.

use crate::io::{self, PacketSocket};
use crate::log::{Record, RunParams, ACK, DATA};
use crate::model::{stream_seed, LinkModel, LinkParams, Verdict};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

pub struct Config {
    /// Interface towards the sender (data arrives here, ACKs leave here).
    pub sender_if: String,
    /// Interface towards the receiver.
    pub receiver_if: String,
    pub links: [LinkParams; 2],
    pub seed: u64,
    /// Access-link delay (ns, each way) by the sender's TCP port.
    pub extra: HashMap<u16, u64>,
    pub duration_ns: u64,
    pub rt_priority: Option<i32>,
}

#[derive(Default)]
pub struct Outcome {
    pub run: Option<RunParams>,
    pub records: Vec<Record>,
    /// Frames longer than an Ethernet MTU frame (1514 B): segmentation offload still on.
    pub oversize_frames: usize,
    pub max_frame: usize,
    /// Non-IPv4 frames, forwarded at once without modelling.
    pub passthrough: usize,
    pub send_errors: usize,
    pub realtime: bool,
}

enum Kind {
    /// A data packet whose flow has an access delay enters the queue now.
    Enter { rec: Record, frame: Vec<u8> },
    /// An admitted frame leaves now (index into the records).
    Depart { rec: usize, frame: Vec<u8> },
}

struct Event {
    time: u64,
    seq: u64,
    kind: Kind,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    // a min-heap on (time, seq)
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// IPv4 total length and TCP ports of an Ethernet frame; None for anything else.
pub fn classify(frame: &[u8]) -> Option<(u32, u16, u16)> {
    if frame.len() < 34 || frame[12..14] != [0x08, 0x00] {
        return None;
    }
    let ihl = (frame[14] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([frame[16], frame[17]]) as u32;
    let (mut sport, mut dport) = (0, 0);
    if frame[23] == 6 && frame.len() >= 14 + ihl + 4 {
        let t = 14 + ihl;
        sport = u16::from_be_bytes([frame[t], frame[t + 1]]);
        dport = u16::from_be_bytes([frame[t + 2], frame[t + 3]]);
    }
    Some((total, sport, dport))
}

struct Live {
    links: [LinkModel; 2],
    socks: [PacketSocket; 2],
    heap: BinaryHeap<Event>,
    seq: u64,
    out: Outcome,
    t0: u64,
}

impl Live {
    fn now(&self) -> u64 {
        io::mono_ns() - self.t0
    }

    fn push(&mut self, time: u64, kind: Kind) {
        self.seq += 1;
        self.heap.push(Event {
            time,
            seq: self.seq,
            kind,
        });
    }

    /// Run the model on a packet entering its direction's queue at `rec.t_in()`.
    fn model(&mut self, mut rec: Record, frame: Vec<u8>) {
        rec.verdict = self.links[rec.dir].offer(rec.t_in(), rec.size, rec.after());
        let idx = self.out.records.len();
        if let Verdict::Sent { deliver, .. } = rec.verdict {
            self.push(deliver, Kind::Depart { rec: idx, frame });
        }
        self.out.records.push(rec);
    }

    /// Run every event due at or before `t`, in time order.
    fn run_due(&mut self, t: u64) {
        while self.heap.peek().is_some_and(|e| e.time <= t) {
            let ev = self.heap.pop().expect("peeked");
            match ev.kind {
                Kind::Enter { rec, frame } => self.model(rec, frame),
                Kind::Depart { rec, frame } => {
                    let out_port = 1 - self.out.records[rec].dir;
                    match self.socks[out_port].send(&frame) {
                        Ok(()) => self.out.records[rec].sent = Some(self.now()),
                        Err(_) => self.out.send_errors += 1,
                    }
                }
            }
        }
    }

    fn on_frame(&mut self, side: usize, frame: Vec<u8>, arrival: u64, extra: &HashMap<u16, u64>) {
        self.out.max_frame = self.out.max_frame.max(frame.len());
        if frame.len() > 1514 {
            self.out.oversize_frames += 1;
        }
        let Some((size, sport, dport)) = classify(&frame) else {
            self.out.passthrough += 1;
            if self.socks[1 - side].send(&frame).is_err() {
                self.out.send_errors += 1;
            }
            return;
        };
        let dir = if side == 0 { DATA } else { ACK };
        let port = if dir == DATA { sport } else { dport };
        let x = extra.get(&port).copied().unwrap_or(0);
        let rec = Record {
            dir,
            arrival,
            extra: x,
            size,
            sport,
            dport,
            verdict: Verdict::Lost,
            sent: None,
        };
        if dir == DATA && x > 0 {
            self.push(arrival + x, Kind::Enter { rec, frame });
        } else {
            self.model(rec, frame);
        }
    }
}

pub fn run(cfg: &Config) -> std::io::Result<Outcome> {
    let socks = [
        PacketSocket::open(&cfg.sender_if)?,
        PacketSocket::open(&cfg.receiver_if)?,
    ];
    io::install_stop_handlers();
    let realtime = cfg.rt_priority.is_some_and(io::set_realtime);
    if realtime {
        io::lock_memory();
    }
    let t0 = io::mono_ns();
    let links = [
        LinkModel::new(cfg.links[DATA], stream_seed(cfg.seed, DATA)),
        LinkModel::new(cfg.links[ACK], stream_seed(cfg.seed, ACK)),
    ];
    let mut live = Live {
        links,
        socks,
        heap: BinaryHeap::with_capacity(4096),
        seq: 0,
        out: Outcome::default(),
        t0,
    };
    // room for every record of the run up front (at most ~2 000 packets/s at 10 Mb/s both
    // ways): growing a large vector mid-run would stall the loop for milliseconds
    let per_s = (cfg.links[DATA].rate_bps + cfg.links[ACK].rate_bps) / (8 * 600) + 100;
    live.out
        .records
        .reserve((per_s * (cfg.duration_ns / 1_000_000_000 + 1)).min(50_000_000) as usize);
    live.out.realtime = realtime;
    live.out.run = Some(RunParams {
        links: cfg.links,
        seed: cfg.seed,
        t0_mono_ns: t0,
    });
    let mut buf = vec![0u8; 65536];
    while !io::STOP.load(std::sync::atomic::Ordering::SeqCst) {
        let now = live.now();
        if now >= cfg.duration_ns {
            break;
        }
        live.run_due(now);
        for side in 0..2 {
            while let Some(n) = live.socks[side].recv(&mut buf)? {
                let arrival = live.now();
                live.run_due(arrival);
                let len = n.min(buf.len());
                live.on_frame(side, buf[..len].to_vec(), arrival, &cfg.extra);
            }
        }
        let now = live.now();
        let next = live
            .heap
            .peek()
            .map_or(now + 50_000_000, |e| e.time)
            .min(cfg.duration_ns);
        if next > now {
            io::wait(
                &[&live.socks[0], &live.socks[1]],
                (next - now).min(50_000_000),
            );
        }
    }
    Ok(live.out)
}

#[cfg(test)]
mod tests {
    use super::classify;

    #[test]
    fn frames_are_classified_by_ip_length_and_tcp_ports() {
        let mut f = vec![0u8; 66];
        f[12] = 0x08;
        f[14] = 0x45;
        f[16..18].copy_from_slice(&52u16.to_be_bytes());
        f[23] = 6;
        f[34..36].copy_from_slice(&5001u16.to_be_bytes());
        f[36..38].copy_from_slice(&5201u16.to_be_bytes());
        assert_eq!(classify(&f), Some((52, 5001, 5201)));
        f[13] = 0x06; // ARP
        assert_eq!(classify(&f), None);
    }
}
