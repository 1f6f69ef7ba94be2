//! The run-time memory guard. What grows during a run (queued packets, time series, the
//! event queue, packet captures) is summed every `CHECK_EVERY` events; over the scenario's memory limit
//! (`[simulation] memory_limit`, see `scenario::budget`) the run stops where it is and
//! `failure` says what grew. The sums are of the simulator's own structures, not of the
//! process's memory, so where a run stops depends only on the scenario and the limit.

use super::Simulation;

/// Events between two checks: between them the structures grow by at most this many
/// packets or rows (a few MB), and the check's cost is lost in the events' own.
pub(super) const CHECK_EVERY: u64 = 1 << 16;

impl Simulation {
    /// Bytes held by what grows during a run: (what, bytes) for queued packets (link and
    /// merge-point buffers), time series (every table), the event queue and packet captures
    /// (`[trace] pcap`: the records and the files they become). Of this part only, for a
    /// run on two threads.
    pub fn memory_in_use(&self) -> [(&'static str, u64); 4] {
        let queues: u64 = self.links.iter().map(|l| l.memory_bytes()).sum::<u64>()
            + self.merges.iter().map(|m| m.memory_bytes()).sum::<u64>();
        let captures: u64 = self
            .links
            .iter()
            .filter_map(|l| l.capture.as_ref())
            .map(|c| c.memory_bytes())
            .sum();
        let s = &self.sampler;
        let series = s.flow_table.memory_bytes()
            + s.link_table.memory_bytes()
            + s.path_table.memory_bytes()
            + self.route_table.memory_bytes()
            + self.backoffs.memory_bytes()
            // Event tables of drops and marks (`[trace] events`; a sender's retransmission
            // rows are bounded by the segments it sends).
            + self
                .links
                .iter()
                .filter_map(|l| l.events.as_ref())
                .map(|e| e.memory_bytes())
                .sum::<u64>()
            + self.node_drops.as_ref().map_or(0, |t| t.memory_bytes());
        [
            ("queued packets", queues),
            ("time series", series),
            ("the event queue", self.events.memory_bytes()),
            ("packet captures", captures),
        ]
    }

    /// Why the run stopped early (the memory limit was reached), if it did.
    pub fn failure(&self) -> Option<&str> {
        self.failure
            .as_deref()
            .or_else(|| self.peer.as_ref().and_then(|p| p.failure()))
    }

    /// Whether this part is over its share of the memory limit (half of it for each part
    /// of a run on two threads); if so, record why.
    #[cold]
    pub(super) fn over_memory(&mut self) -> bool {
        let limit = if self.part.is_some() {
            self.memory_limit / 2
        } else {
            self.memory_limit
        };
        let parts = self.memory_in_use();
        let total: u64 = parts.iter().map(|p| p.1).sum();
        if total <= limit {
            return false;
        }
        let (what, bytes) = parts.iter().copied().max_by_key(|p| p.1).unwrap_or(("", 0));
        let detail = if what == "queued packets" {
            let (i, l) = self
                .links
                .iter()
                .enumerate()
                .max_by_key(|(_, l)| l.memory_bytes())
                .expect("queued packets are on links");
            format!(
                " (the largest is link {}: {} packets queued; lower its queue limit)",
                self.scenario.links[i].name,
                l.occupancy_at(self.now).0
            )
        } else if what == "time series" {
            " (use a longer trace.interval, trace fewer flows or links, or set \
             trace.max_samples)"
                .to_string()
        } else if what == "packet captures" {
            " (capture fewer links (trace.pcap) or run for a shorter time)".to_string()
        } else {
            String::new()
        };
        self.failure = Some(format!(
            "the run was stopped at {:.6} s of {:.6} s: it reached the memory limit of {} MB \
             (simulation.memory_limit); {what} held {} MB{detail}",
            self.now.secs(),
            self.end.secs(),
            limit / 1_000_000,
            bytes / 1_000_000
        ));
        true
    }
}
