//! The MPTCP sender: N TCP subflow senders fed by one scheduler and one data sequence
//! space, their coupled controllers refreshed with a view of all subflows before every
//! event.

use super::config::MptcpSpec;
use super::scheduler::{Candidate, Scheduler};
use crate::apps::{draw_start, SenderApp};
use crate::apps::{StartSpec, TcpApp};
use crate::cc::coupled::{Backoff, SubflowView};
use crate::cc::AnyCc;
use crate::cc::CcSpec;
use crate::ids::{EndpointId, FlowId, NodeId};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::transport::tcp::TcpSender;
use crate::units::SimTime;

/// One subflow: a TCP sender and the data sequence number of each of its segments.
#[derive(Clone, Debug)]
struct Subflow {
    tcp: TcpSender,
    /// DSN of subflow segment i.
    dsn: Vec<u64>,
}

/// A backoff of subflow `subflow`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubflowBackoff {
    /// Subflow index.
    pub subflow: usize,
    /// What happened.
    pub backoff: Backoff,
}

/// MPTCP connection sender.
#[derive(Clone, Debug)]
pub struct MptcpSender {
    subs: Vec<Subflow>,
    scheduler: Scheduler,
    /// Data segments of a finite transfer.
    total_segs: Option<u64>,
    /// Next new data sequence number.
    next_dsn: u64,
    /// Highest data ACK received.
    data_ack: u64,
    /// Receive buffer in segments.
    rwnd_segs: Option<u64>,
    done: bool,
    view: Vec<SubflowView>,
    tmp: Vec<Packet>,
    /// Backoffs not yet collected by the simulation (`take_backoffs`).
    backoffs: Vec<SubflowBackoff>,
    /// When the connection opened.
    pub start: SimTime,
}

impl MptcpSender {
    /// A sender for `flow` towards the receiver endpoint `peer` at node `dst`, drawing its
    /// start time from `rng`.
    pub fn new(
        flow: FlowId,
        dst: NodeId,
        peer: EndpointId,
        spec: &MptcpSpec,
        mut rng: SimRng,
    ) -> MptcpSender {
        let (size, start_spec) = match spec.tcp.app {
            TcpApp::Bulk { size, start } => (size.map(|b| b.0), start),
            // The parser accepts only bulk applications for MPTCP.
            TcpApp::OnOff { start, .. } => (None, start),
        };
        let start = draw_start(start_spec, &mut rng);
        let mut cfg = spec.tcp.clone();
        cfg.cc = CcSpec::Coupled(spec.coupled);
        let subs = spec
            .joins
            .iter()
            .map(|&j| {
                let at = start + j;
                let app = TcpApp::Bulk {
                    size: None,
                    start: StartSpec { lo: at, hi: at },
                };
                let app = SenderApp::new(&app, rng.clone());
                Subflow {
                    tcp: TcpSender::new(flow, dst, peer, cfg.clone(), app).with_grants(),
                    dsn: Vec::new(),
                }
            })
            .collect::<Vec<_>>();
        let mss = spec.tcp.mss as u64;
        MptcpSender {
            view: vec![SubflowView::default(); subs.len()],
            subs,
            scheduler: Scheduler::new(spec.scheduler),
            total_segs: size.map(|b| b.div_ceil(mss)),
            next_dsn: 0,
            data_ack: 0,
            rwnd_segs: spec.recv_buffer.map(|b| (b / mss).max(1)),
            done: false,
            tmp: Vec::with_capacity(16),
            backoffs: Vec::new(),
            start,
        }
    }

    /// Number of subflows.
    pub fn subflow_count(&self) -> usize {
        self.subs.len()
    }
    /// Subflow `k`'s TCP sender.
    pub fn subflow(&self, k: usize) -> &TcpSender {
        &self.subs[k].tcp
    }
    /// Its subflows' TCP senders (for `[trace] events`).
    pub fn each_subflow_mut(&mut self, f: &mut dyn FnMut(&mut TcpSender)) {
        for s in &mut self.subs {
            f(&mut s.tcp);
        }
    }
    /// Its subflows' RTT estimators, for the measurement's reports.
    pub fn each_rtt(&mut self, f: &mut dyn FnMut(&mut crate::transport::tcp::rto::RttEstimator)) {
        for s in &mut self.subs {
            s.tcp.each_rtt(f);
        }
    }
    /// Data segments sent for the first time (on any subflow).
    pub fn data_sent(&self) -> u64 {
        self.next_dsn
    }
    /// The highest data ACK received.
    pub fn data_ack(&self) -> u64 {
        self.data_ack
    }
    /// Move the backoffs recorded since the last call into `out`.
    pub fn take_backoffs(&mut self, out: &mut Vec<SubflowBackoff>) {
        out.append(&mut self.backoffs);
    }

    /// Earliest time this sender must be woken.
    pub fn next_wakeup(&self) -> SimTime {
        self.subs
            .iter()
            .map(|s| s.tcp.next_wakeup())
            .min()
            .unwrap_or(SimTime::NEVER)
    }

    /// Give subflow `k`'s coupled controller the current view of every subflow.
    fn refresh_view(&mut self, k: usize) {
        for (i, s) in self.subs.iter().enumerate() {
            if let AnyCc::Coupled(c) = s.tcp.cc() {
                self.view[i] = c.view_entry(s.tcp.rtt().srtt(), s.tcp.is_open());
            }
        }
        if let AnyCc::Coupled(c) = self.subs[k].tcp.cc_mut() {
            c.set_view(k, &self.view);
        }
    }

    /// Stamp subflow `k`'s outgoing packets with its path and their DSNs, and collect its
    /// controller's backoffs.
    fn flush_subflow(&mut self, k: usize, out: &mut Vec<Packet>) {
        let sf = &mut self.subs[k];
        for mut p in self.tmp.drain(..) {
            p.path = (k + 1) as u8;
            if p.is_data() {
                p.set_aux(sf.dsn[p.seq as usize]);
            }
            out.push(p);
        }
        if let AnyCc::Coupled(c) = sf.tcp.cc_mut() {
            let mut got = Vec::new();
            c.take_backoffs(&mut got);
            self.backoffs
                .extend(got.into_iter().map(|backoff| SubflowBackoff {
                    subflow: k,
                    backoff,
                }));
        }
    }

    /// Timers due at `now` on any subflow.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        for k in 0..self.subs.len() {
            if self.subs[k].tcp.next_wakeup() <= now {
                self.refresh_view(k);
                self.subs[k].tcp.on_timer(now, &mut self.tmp);
                self.flush_subflow(k, out);
            }
        }
        self.schedule(now, out);
    }

    /// An ACK arrived on the subflow of path `pkt.path`.
    pub fn on_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        let k = pkt.path as usize;
        if k == 0 || k > self.subs.len() {
            return;
        }
        let k = k - 1;
        self.data_ack = self.data_ack.max(pkt.aux());
        self.refresh_view(k);
        self.subs[k].tcp.on_ack(now, pkt, &mut self.tmp);
        self.flush_subflow(k, out);
        if self.total_segs.is_some_and(|t| self.data_ack >= t) && !self.done {
            // Every byte is acknowledged at the data level: the transfer is complete.
            self.done = true;
            for s in &mut self.subs {
                s.tcp.stop();
            }
        }
        self.schedule(now, out);
    }

    /// Hand new data segments to subflows with window space, one at a time, as the
    /// scheduler chooses.
    fn schedule(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let n = self.subs.len();
        let mut cands = Vec::with_capacity(n);
        while !self.done {
            if self.total_segs.is_some_and(|t| self.next_dsn >= t)
                || self
                    .rwnd_segs
                    .is_some_and(|r| self.next_dsn >= self.data_ack + r)
            {
                break;
            }
            cands.clear();
            for (i, s) in self.subs.iter_mut().enumerate() {
                if s.tcp.can_send_new(now) {
                    cands.push(Candidate {
                        index: i,
                        srtt: s.tcp.rtt().srtt().secs(),
                    });
                }
            }
            let Some(k) = self.scheduler.pick(&cands, n) else {
                break;
            };
            let sf = &mut self.subs[k];
            let seq = sf.tcp.next_new();
            debug_assert_eq!(seq, sf.dsn.len() as u64);
            sf.dsn.push(self.next_dsn);
            sf.tcp.set_grant(seq + 1);
            sf.tcp.pump(now, &mut self.tmp);
            if self.subs[k].tcp.next_new() == seq {
                // Not sent after all: take the grant back and stop.
                self.subs[k].dsn.pop();
                self.subs[k].tcp.set_grant(seq);
                self.flush_subflow(k, out);
                break;
            }
            self.next_dsn += 1;
            self.flush_subflow(k, out);
        }
    }
}
