//! Per-packet event tables (`[trace] events`): drops, ECN marks, retransmissions and
//! retransmission timeouts, one row each, for questions sampled series cannot answer
//! ("why did this flow starve?").
//!
//! Off by default and off the hot path when off: links and senders hold an
//! `Option<Box<…>>` that is `None`, tested only where a drop, a mark, a retransmission or
//! a timeout already happens (never on an accepted packet or an ordinary ACK), and the
//! recording itself is out of line (`#[cold]`). The simulation gathers the rows at the end
//! (`Simulation::finish`), leaves out what a chained link decided for times after the end
//! and sorts each table by time.

use crate::packet::{Packet, PacketKind};
use crate::params::{Alt, Dflt, Param, Ty};
use crate::results::{DropCause, Table};
use crate::units::SimTime;

/// The kinds of event table, as `[trace] events` names them.
pub const KINDS: &[&str] = &["drop", "mark", "retx", "timeout"];

/// `[trace] events`.
pub const PARAM: Param = Param::new(
    "events",
    Ty::List {
        of: &Ty::Choice(KINDS),
        len: None,
        what: "a list of event kinds such as [\"drop\", \"retx\"]",
    },
    Dflt::None("no event tables"),
)
.alt(Alt::Word("none", "no event tables"))
.doc("per-packet event tables to record, one row per event: \"drop\" (time, link, flow, cause, packet kind, seq), \"mark\" (ECN CE marks: time, link, flow, seq), \"retx\" (TCP retransmissions: time, flow, seq, kind fast/rto/other), \"timeout\" (TCP retransmission timeouts: time, flow, RTO, backoff); over the whole run; docs/python.md, \"Event tables\"")
.source("none: a table costs memory only when asked for");

/// Which tables are recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventKinds {
    /// Packet drops (links; a missing route at a node).
    pub drop: bool,
    /// ECN CE marks by a queue.
    pub mark: bool,
    /// TCP retransmissions.
    pub retx: bool,
    /// TCP retransmission timeouts.
    pub timeout: bool,
}

impl EventKinds {
    /// From the names of `[trace] events` (names outside `KINDS` were refused when read).
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> EventKinds {
        let mut k = EventKinds::default();
        for n in names {
            match n {
                "drop" => k.drop = true,
                "mark" => k.mark = true,
                "retx" => k.retx = true,
                "timeout" => k.timeout = true,
                _ => {}
            }
        }
        k
    }
    /// Whether any table is recorded.
    pub fn any(&self) -> bool {
        self.drop || self.mark || self.retx || self.timeout
    }
}

/// Columns of the drop table: time (s), link (index; NaN for a drop at a node without a
/// route), flow (index; NaN for a routing announcement), cause (`DropCause` index),
/// packet (`PacketKind` index), seq (segment, cumulative ACK, datagram or TSN number).
pub const DROP_COLUMNS: [&str; 6] = ["time_s", "link", "flow", "cause", "packet", "seq"];
/// Columns of the mark table: time (s), link, flow, seq.
pub const MARK_COLUMNS: [&str; 4] = ["time_s", "link", "flow", "seq"];
/// Columns of the retransmission table: time (s), flow, seq, kind (`RetxKind` index).
pub const RETX_COLUMNS: [&str; 4] = ["time_s", "flow", "seq", "kind"];
/// Columns of the timeout table: time (s), flow, rto_s (the timer that expired), backoff
/// (the exponent in force after it: the next RTO is the base RTO × 2^backoff, capped).
pub const TIMEOUT_COLUMNS: [&str; 4] = ["time_s", "flow", "rto_s", "backoff"];

/// Why a segment was sent again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetxKind {
    /// In fast recovery (fast retransmit, or a hole SACK or a partial ACK showed).
    Fast = 0,
    /// After a retransmission timeout, until what was outstanding is acknowledged.
    Rto = 1,
    /// Outside recovery (e.g. a segment resent after a spurious-loss undo).
    Other = 2,
}

/// The code of a packet kind in the `packet` column (Python names them in this order).
fn packet_code(k: PacketKind) -> f64 {
    (match k {
        PacketKind::Data => 0,
        PacketKind::Ack => 1,
        PacketKind::Syn => 2,
        PacketKind::SynAck => 3,
        PacketKind::Udp => 4,
        PacketKind::SctpData => 5,
        PacketKind::SctpSack => 6,
        PacketKind::Route => 7,
    }) as f64
}

fn flow_code(p: &Packet) -> f64 {
    if p.kind == PacketKind::Route {
        f64::NAN
    } else {
        p.flow.idx() as f64
    }
}

/// A link's drops and marks.
#[derive(Clone, Debug)]
pub struct LinkEvents {
    link: f64,
    /// Drop rows (`DROP_COLUMNS`), if recorded.
    pub drops: Option<Table>,
    /// Mark rows (`MARK_COLUMNS`), if recorded.
    pub marks: Option<Table>,
}

impl LinkEvents {
    /// The tables of link `link` that `kinds` asks for (`None`: neither).
    pub fn new(link: usize, kinds: EventKinds) -> Option<Box<LinkEvents>> {
        (kinds.drop || kinds.mark).then(|| {
            Box::new(LinkEvents {
                link: link as f64,
                drops: kinds.drop.then(|| Table::with_columns(&DROP_COLUMNS)),
                marks: kinds.mark.then(|| Table::with_columns(&MARK_COLUMNS)),
            })
        })
    }

    /// Bytes the tables take.
    pub fn memory_bytes(&self) -> u64 {
        self.drops.as_ref().map_or(0, Table::memory_bytes)
            + self.marks.as_ref().map_or(0, Table::memory_bytes)
    }

    /// `pkt` dropped at `t`.
    #[cold]
    #[inline(never)]
    pub fn record_drop(&mut self, t: SimTime, pkt: &Packet, cause: DropCause) {
        if let Some(d) = &mut self.drops {
            d.push(&drop_row(t, self.link, pkt, cause));
        }
    }

    /// `pkt` marked CE at `t`.
    #[cold]
    #[inline(never)]
    pub fn record_mark(&mut self, t: SimTime, pkt: &Packet) {
        if let Some(m) = &mut self.marks {
            m.push(&[t.secs(), self.link, flow_code(pkt), pkt.seq as f64]);
        }
    }
}

/// A drop row; `link` is NaN for a drop at a node.
pub fn drop_row(t: SimTime, link: f64, pkt: &Packet, cause: DropCause) -> [f64; 6] {
    [
        t.secs(),
        link,
        flow_code(pkt),
        cause as usize as f64,
        packet_code(pkt.kind),
        pkt.seq as f64,
    ]
}

/// A sender's retransmissions and timeouts.
#[derive(Clone, Debug)]
pub struct SenderEvents {
    flow: f64,
    /// Retransmission rows (`RETX_COLUMNS`), if recorded.
    pub retx: Option<Table>,
    /// Timeout rows (`TIMEOUT_COLUMNS`), if recorded.
    pub timeouts: Option<Table>,
}

impl SenderEvents {
    /// The tables of flow `flow`'s sender that `kinds` asks for (`None`: neither).
    pub fn new(flow: usize, kinds: EventKinds) -> Option<Box<SenderEvents>> {
        (kinds.retx || kinds.timeout).then(|| {
            Box::new(SenderEvents {
                flow: flow as f64,
                retx: kinds.retx.then(|| Table::with_columns(&RETX_COLUMNS)),
                timeouts: kinds.timeout.then(|| Table::with_columns(&TIMEOUT_COLUMNS)),
            })
        })
    }

    /// Segment `seq` sent again at `t`.
    #[cold]
    #[inline(never)]
    pub fn record_retx(&mut self, t: SimTime, seq: u64, kind: RetxKind) {
        if let Some(r) = &mut self.retx {
            r.push(&[t.secs(), self.flow, seq as f64, kind as u8 as f64]);
        }
    }

    /// The retransmission timer (`rto_s`) expired at `t`; `backoff` after it.
    #[cold]
    #[inline(never)]
    pub fn record_timeout(&mut self, t: SimTime, rto_s: f64, backoff: u32) {
        if let Some(r) = &mut self.timeouts {
            r.push(&[t.secs(), self.flow, rto_s, backoff as f64]);
        }
    }
}

/// Append `from`'s rows to `to` (same columns).
pub fn append(to: &mut Table, from: &Table) {
    for (a, b) in to.columns.iter_mut().zip(&from.columns) {
        a.extend_from_slice(b);
    }
}

/// Keep the rows at or before `end` (s) and sort them by time, keeping the order of
/// rows at the same time (stable).
pub fn settle(t: &mut Table, end: f64) {
    let n = t.len();
    let mut order: Vec<usize> = (0..n).filter(|&i| t.columns[0][i] <= end).collect();
    order.sort_by(|&a, &b| t.columns[0][a].total_cmp(&t.columns[0][b]));
    for c in &mut t.columns {
        *c = order.iter().map(|&i| c[i]).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settle_sorts_stably_and_drops_rows_after_the_end() {
        let mut t = Table::with_columns(&["time_s", "x"]);
        for (a, b) in [(2.0, 0.0), (1.0, 1.0), (3.0, 2.0), (1.0, 3.0)] {
            t.push(&[a, b]);
        }
        settle(&mut t, 2.5);
        assert_eq!(t.columns[0], vec![1.0, 1.0, 2.0]);
        assert_eq!(t.columns[1], vec![1.0, 3.0, 0.0]);
    }

    #[test]
    fn kinds_from_names() {
        let k = EventKinds::from_names(["drop", "timeout"]);
        assert!(k.drop && k.timeout && !k.mark && !k.retx && k.any());
        assert!(!EventKinds::default().any());
    }
}
