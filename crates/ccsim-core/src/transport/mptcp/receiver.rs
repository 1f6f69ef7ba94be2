//! The MPTCP receiver: one TCP receiver per subflow (subflow ACKs and SACKs, delayed
//! ACKs) and a connection-level reassembly buffer. Every ACK carries the data ACK.

use super::config::MptcpSpec;
use super::reassembly::Reassembly;
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::Packet;
use crate::transport::tcp::TcpReceiver;
use crate::units::SimTime;

/// MPTCP connection receiver.
#[derive(Clone, Debug)]
pub struct MptcpReceiver {
    subs: Vec<TcpReceiver>,
    mss: u64,
    total_bytes: Option<u64>,
    data: Reassembly,
    tmp: Vec<Packet>,
    /// Payload bytes delivered in order at the data level.
    pub bytes_delivered: u64,
    /// When a finite transfer was fully delivered.
    pub completion: Option<SimTime>,
}

impl MptcpReceiver {
    /// A receiver for `flow`, acknowledging to endpoint `peer` at node `dst`.
    pub fn new(
        flow: FlowId,
        dst: NodeId,
        peer: EndpointId,
        spec: &MptcpSpec,
        total_bytes: Option<u64>,
    ) -> MptcpReceiver {
        let t = &spec.tcp;
        let subs = spec
            .joins
            .iter()
            .map(|_| {
                // Two SACK blocks: the third slot carries the data ACK.
                TcpReceiver::new(flow, dst, peer, t.mss, t.header, t.delayed_ack, None)
                    .with_max_sack_blocks(2)
                    .with_sack_option_bytes(t.sack_option_bytes)
            })
            .collect();
        MptcpReceiver {
            subs,
            mss: t.mss as u64,
            total_bytes,
            data: Reassembly::default(),
            tmp: Vec::with_capacity(4),
            bytes_delivered: 0,
            completion: None,
        }
    }

    /// Subflow `k`'s receiver.
    pub fn subflow(&self, k: usize) -> &TcpReceiver {
        &self.subs[k]
    }
    /// The data-level reassembly state.
    pub fn reassembly(&self) -> &Reassembly {
        &self.data
    }

    /// Earliest delayed-ACK deadline.
    pub fn next_wakeup(&self) -> SimTime {
        self.subs
            .iter()
            .map(|s| s.next_wakeup())
            .min()
            .unwrap_or(SimTime::NEVER)
    }

    fn flush(&mut self, k: usize, out: &mut Vec<Packet>) {
        let ack = self.data.next();
        for mut p in self.tmp.drain(..) {
            p.path = (k + 1) as u8;
            p.set_aux(ack);
            out.push(p);
        }
    }

    /// Delayed-ACK timers.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        for k in 0..self.subs.len() {
            if self.subs[k].next_wakeup() <= now {
                self.subs[k].on_timer(now, &mut self.tmp);
                self.flush(k, out);
            }
        }
    }

    /// A data segment arrived on the subflow of path `pkt.path`.
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        let k = pkt.path as usize;
        if k == 0 || k > self.subs.len() {
            return;
        }
        let k = k - 1;
        // The data level first, so that this segment's ACK carries the new data ACK.
        let (a, b) = self.data.insert(pkt.aux());
        if b > a {
            let bytes = (b - a) * self.mss;
            let bytes = match self.total_bytes {
                Some(total) => bytes.min(total.saturating_sub(a * self.mss)),
                None => bytes,
            };
            self.bytes_delivered += bytes;
            if let Some(total) = self.total_bytes {
                if self.completion.is_none() && self.bytes_delivered >= total {
                    self.completion = Some(now);
                }
            }
        }
        self.subs[k].on_data(now, pkt, &mut self.tmp);
        self.flush(k, out);
    }
}
