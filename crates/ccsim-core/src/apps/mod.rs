//! Applications: when a source opens and closes connections, and how much it sends.
//!
//! - Bulk: one connection at the start time, `size` bytes or infinite.
//! - On/off: alternating exponential ON and OFF periods; each ON period opens a new greedy
//!   connection, closed when the period ends (the MATCP traffic model).
//! - CBR (UDP): see `transport::udp`.
//!
//! Start times may be drawn uniformly from a range; every draw comes from the flow's own
//! random stream (`flow:<name>:app`).

use crate::rng::SimRng;
use crate::scenario::{StartSpec, TcpApp};
use crate::units::{Dur, SimTime};

/// What the application asks of its transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppEvent {
    /// Open a new connection and start sending.
    Open,
    /// Stop sending on the current connection.
    Close,
}

/// Draw a start time from a spec.
pub fn draw_start(spec: StartSpec, rng: &mut SimRng) -> SimTime {
    if spec.hi <= spec.lo {
        spec.lo
    } else {
        SimTime(spec.lo.0 + (rng.uniform() * (spec.hi.0 - spec.lo.0) as f64) as u64)
    }
}

#[derive(Clone, Debug)]
enum Kind {
    Bulk {
        size: Option<u64>,
    },
    OnOff {
        on_mean: Dur,
        off_mean: Dur,
        on: bool,
    },
}

/// The application driving a TCP sender.
#[derive(Clone, Debug)]
pub struct SenderApp {
    kind: Kind,
    next: Option<SimTime>,
    rng: SimRng,
}

impl SenderApp {
    /// Build from the scenario, drawing the start time from `rng`.
    pub fn new(spec: &TcpApp, mut rng: SimRng) -> SenderApp {
        let (kind, start) = match spec {
            TcpApp::Bulk { size, start } => (
                Kind::Bulk {
                    size: size.map(|b| b.0),
                },
                *start,
            ),
            TcpApp::OnOff {
                on_mean,
                off_mean,
                start,
            } => (
                Kind::OnOff {
                    on_mean: *on_mean,
                    off_mean: *off_mean,
                    on: false,
                },
                *start,
            ),
        };
        let t = draw_start(start, &mut rng);
        SenderApp {
            kind,
            next: Some(t),
            rng,
        }
    }

    /// Bytes per connection, `None` for greedy.
    pub fn total_bytes(&self) -> Option<u64> {
        match self.kind {
            Kind::Bulk { size } => size,
            Kind::OnOff { .. } => None,
        }
    }

    /// Time of the next application event.
    pub fn next_event(&self) -> Option<SimTime> {
        self.next
    }

    /// The application event due at `now`, if any.
    pub fn poll(&mut self, now: SimTime) -> Option<AppEvent> {
        let due = self.next.filter(|&t| t <= now)?;
        match &mut self.kind {
            Kind::Bulk { .. } => {
                self.next = None;
                Some(AppEvent::Open)
            }
            Kind::OnOff {
                on_mean,
                off_mean,
                on,
            } => {
                *on = !*on;
                let mean = if *on { on_mean.secs() } else { off_mean.secs() };
                // Periods are at least 1 ns so that ON and OFF strictly alternate in time.
                let len = Dur::from_secs_f64(self.rng.exponential(mean)).max(Dur(1));
                self.next = Some(due + len);
                Some(if *on { AppEvent::Open } else { AppEvent::Close })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;

    #[test]
    fn bulk_opens_once_at_its_start() {
        let spec = TcpApp::Bulk {
            size: Some(Bytes(1000)),
            start: StartSpec {
                lo: SimTime(5),
                hi: SimTime(5),
            },
        };
        let mut a = SenderApp::new(&spec, SimRng::stream(1, "a"));
        assert_eq!(a.next_event(), Some(SimTime(5)));
        assert_eq!(a.poll(SimTime(4)), None);
        assert_eq!(a.poll(SimTime(5)), Some(AppEvent::Open));
        assert_eq!(a.next_event(), None);
        assert_eq!(a.total_bytes(), Some(1000));
    }

    #[test]
    fn onoff_alternates_with_the_right_mean_periods() {
        let spec = TcpApp::OnOff {
            on_mean: Dur::from_secs(8),
            off_mean: Dur::from_secs(6),
            start: StartSpec {
                lo: SimTime(0),
                hi: SimTime(0),
            },
        };
        let mut a = SenderApp::new(&spec, SimRng::stream(1, "a"));
        let (mut on_total, mut off_total, mut n) = (0.0, 0.0, 0);
        let mut expect_open = true;
        while n < 20_000 {
            let t = a.next_event().unwrap();
            let ev = a.poll(t).unwrap();
            assert_eq!(ev == AppEvent::Open, expect_open);
            expect_open = !expect_open;
            let len = a.next_event().unwrap().since(t).secs();
            if ev == AppEvent::Open {
                on_total += len
            } else {
                off_total += len
            }
            n += 1;
        }
        assert!((on_total / 10_000.0 - 8.0).abs() < 0.25);
        assert!((off_total / 10_000.0 - 6.0).abs() < 0.2);
    }

    #[test]
    fn start_ranges_draw_within_bounds() {
        let mut rng = SimRng::stream(2, "s");
        let spec = StartSpec {
            lo: SimTime(10),
            hi: SimTime(20),
        };
        for _ in 0..1000 {
            let t = draw_start(spec, &mut rng);
            assert!(t >= SimTime(10) && t < SimTime(20));
        }
    }
}
