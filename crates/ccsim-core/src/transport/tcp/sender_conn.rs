//! A connection's life on the sender: the application opens one (an on/off source opens a
//! new one per ON period, numbered by `conn`) and closes it. Opening starts every piece of
//! per-connection state afresh (window, estimator, scoreboard, recovery, rounds); closing
//! stops sending and reports the connection's outcome to a path selector. A child module
//! of `sender`, so it works on the sender's state directly.

use super::{Phase, TcpSender};
use crate::cc::CongestionControl;
use crate::transport::tcp::handshake::Handshake;
use crate::transport::tcp::pacing::LinuxPacer;
use crate::transport::tcp::path_select::FlowOutcome;
use crate::transport::tcp::rate_sample::RateSampler;
use crate::transport::tcp::scoreboard::Scoreboard;
use crate::transport::tcp::timed_segment::TimedSegment;
use crate::units::SimTime;

impl TcpSender {
    pub(super) fn open_connection(&mut self, now: SimTime) {
        if self.open {
            self.close_connection();
        }
        if let Some(sel) = &mut self.selector {
            self.path = sel.choose();
        }
        self.conn_outcome = FlowOutcome::default();
        self.conn += 1;
        self.stats.connections += 1;
        self.stats.first_open.get_or_insert(now);
        self.open = true;
        self.syn = if self.cfg.handshake {
            Handshake::SynDue
        } else {
            Handshake::Done
        };
        self.syn_retx = false;
        self.timed = TimedSegment::default();
        self.prr_quota = 0;
        self.lt_sent = 0;
        self.cc = Self::fresh_cc(&self.cfg, self.cc_seed.wrapping_add(self.conn as u64));
        self.rtt.restart();
        self.una = 0;
        self.nxt = 0;
        if let Some(d) = &mut self.tso {
            d.reset();
        }
        self.sb = Scoreboard::new(0);
        if let Some(r) = &mut self.rack {
            r.clear();
        }
        self.rate = None;
        if self.cc.wants_rate_samples() {
            self.rate = Some(Box::new(RateSampler::new(0)));
            self.sb.log_sacked();
        }
        self.dupacks = 0;
        self.phase = Phase::Open;
        self.recover_guard = 0;
        self.inflation = 0;
        self.rto_deadline = None;
        self.pace_next = now;
        if let Some(p) = &mut self.pacer {
            **p = LinuxPacer::default();
        }
        self.pace_timer = None;
        self.round_end = 0;
        self.round_start = now;
        self.round_min_rtt = None;
        self.round_delivered = self.delivered;
        self.ecn.restart();
    }

    /// The application stops the connection: nothing more is sent (an on/off source's ON
    /// period ended); segments in flight still arrive and are counted.
    pub(super) fn close_connection(&mut self) {
        if let Some(sel) = &mut self.selector {
            let srtt = self.rtt.srtt();
            self.conn_outcome.srtt = (srtt.0 > 0).then_some(srtt);
            sel.record(self.path, self.conn_outcome);
        }
        self.open = false;
        self.rto_deadline = None;
        self.pace_timer = None;
    }
}
