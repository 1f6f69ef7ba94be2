//! Per-packet event tables (`[trace] events`, `trace::events`): switched on at build, a
//! drop at a node without a route recorded here, everything gathered at the end.

use super::Simulation;
use crate::packet::Packet;
use crate::results::{DropCause, Table};
use crate::trace::events::{
    self, drop_row, LinkEvents, SenderEvents, DROP_COLUMNS, MARK_COLUMNS, RETX_COLUMNS,
    TIMEOUT_COLUMNS,
};
use crate::units::SimTime;

/// The four event tables of a run (empty when not asked for).
pub(super) struct EventTables {
    pub drops: Table,
    pub marks: Table,
    pub retx: Table,
    pub timeouts: Table,
}

impl Simulation {
    /// Give the links and TCP senders their event tables, as `[trace] events` asks.
    pub(super) fn enable_events(&mut self) {
        let kinds = self.scenario.trace.events;
        if !kinds.any() {
            return;
        }
        for (i, l) in self.links.iter_mut().enumerate() {
            l.events = LinkEvents::new(i, kinds);
        }
        for f in 0..self.flows.len() {
            let ep = self.flows[f].sender.idx();
            self.endpoints[ep].each_tcp_sender(&mut |s| s.set_events(SenderEvents::new(f, kinds)));
        }
        if kinds.drop {
            self.node_drops = Some(Box::new(Table::with_columns(&DROP_COLUMNS)));
        }
    }

    /// `pkt` dropped at a node at `at` for want of a route (charged by the caller).
    #[cold]
    #[inline(never)]
    pub(super) fn log_no_route(&mut self, at: SimTime, pkt: &Packet) {
        if let Some(t) = &mut self.node_drops {
            t.push(&drop_row(at, f64::NAN, pkt, DropCause::NoRoute));
        }
    }

    /// The tables, with the rows of both parts of a split run (called after `merge_peer`,
    /// which hands the other part's links and endpoints back) and without what a chained
    /// link decided for times after `end`, sorted by time.
    pub(super) fn collect_events(&mut self, end: SimTime) -> EventTables {
        let mut t = EventTables {
            drops: Table::with_columns(&DROP_COLUMNS),
            marks: Table::with_columns(&MARK_COLUMNS),
            retx: Table::with_columns(&RETX_COLUMNS),
            timeouts: Table::with_columns(&TIMEOUT_COLUMNS),
        };
        if !self.scenario.trace.events.any() {
            return t;
        }
        for l in &mut self.links {
            if let Some(ev) = l.events.take() {
                ev.drops
                    .iter()
                    .for_each(|d| events::append(&mut t.drops, d));
                ev.marks
                    .iter()
                    .for_each(|m| events::append(&mut t.marks, m));
            }
        }
        for n in self.node_drops.take().into_iter() {
            events::append(&mut t.drops, &n);
        }
        for f in 0..self.flows.len() {
            let ep = self.flows[f].sender.idx();
            self.endpoints[ep].each_tcp_sender(&mut |s| {
                if let Some(ev) = s.take_events() {
                    ev.retx.iter().for_each(|r| events::append(&mut t.retx, r));
                    ev.timeouts
                        .iter()
                        .for_each(|r| events::append(&mut t.timeouts, r));
                }
            });
        }
        let end = end.secs();
        for table in [&mut t.drops, &mut t.marks, &mut t.retx, &mut t.timeouts] {
            events::settle(table, end);
        }
        t
    }
}
