//! Applications: when a source opens and closes connections, and how much it sends.
//!
//! - Bulk: one connection at the start time, `size` bytes or infinite.
//! - On/off: alternating exponential ON and OFF periods; each ON period opens a new greedy
//!   connection, closed when the period ends (the MATCP traffic model).
//! - CBR (UDP): see `transport::udp`.
//!
//! Start times may be drawn uniformly from a range; every draw comes from the flow's own
//! random stream (`flow:<name>:app`).

use crate::params::{self, Alt, Bound, Dflt, Kinds, Lit, Param, Ty};
use crate::rng::SimRng;
use crate::units::{Bytes, Dur, Rate, SimTime};
use serde::{Deserialize, Serialize};

/// When an application starts: a fixed time, or uniform in a range (drawn from the flow's
/// own random stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartSpec {
    /// Earliest start.
    pub lo: SimTime,
    /// Latest start (equal to `lo` for a fixed start).
    pub hi: SimTime,
}

/// Application on a TCP flow (and the file an ARC, SCTP or MPTCP flow sends).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TcpApp {
    /// A transfer of `size` bytes (`None`: infinite), starting at `start`.
    Bulk {
        /// Bytes to send; `None` for a greedy source.
        size: Option<Bytes>,
        /// Start time.
        start: StartSpec,
    },
    /// Alternating exponential ON and OFF periods; each ON period is a new greedy
    /// connection that stops sending when the period ends (the MATCP traffic model).
    OnOff {
        /// Mean ON period.
        #[serde(rename = "on")]
        on_mean: Dur,
        /// Mean OFF period.
        #[serde(rename = "off")]
        off_mean: Dur,
        /// Start of the first ON period.
        start: StartSpec,
    },
}

/// UDP constant-bit-rate source (`app = { kind = "cbr", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in CBR_PARAMS
pub struct CbrSpec {
    pub packet_size: Bytes,
    pub rate: Rate,
    pub jitter: f64,
    pub start: StartSpec,
    pub stop: Option<SimTime>,
}

/// The `start` parameter of every application.
pub const START: Param = Param::new("start", Ty::Start, Dflt::Value(Lit::Str("0s")))
    .doc("when it starts: a time, or [lo, hi] for a time drawn uniformly in that range from the flow's own random stream")
    .source("our choice: at the start of the run");

const BULK_PARAMS: &[Param] = &[
    Param::size("size", 0, 1, u64::MAX)
        .alt(Alt::Word("inf", "a greedy source that always has data"))
        .default_to(Lit::Str("inf"))
        .doc("bytes to transfer")
        .source("our choice: a greedy source, the usual long-lived flow"),
    START,
];

const ONOFF_PARAMS: &[Param] = &[
    Param::positive_duration("on", "1s")
        .required("the mean ON period is required, e.g. on = \"8s\"")
        .doc("mean of the exponentially distributed ON periods")
        .source("required"),
    Param::positive_duration("off", "1s")
        .required("the mean OFF period is required, e.g. off = \"6s\"")
        .doc("mean of the exponentially distributed OFF periods")
        .source("required"),
    START,
];

/// The parameters of a UDP constant-bit-rate source.
pub const CBR_PARAMS: &[Param] = &[
    Param::new("rate", Ty::Rate, Dflt::Required("the sending rate is required, e.g. rate = \"1Mbps\""))
        .doc("sending rate")
        .source("required"),
    Param::size("packet_size", 1000, 1, u64::MAX)
        .doc("bytes on the wire of each packet")
        .source("our choice: 1000 B, a round ns-2-style CBR packet (ns-2's Application/Traffic/CBR packetSize_ is 210)"),
    Param::float("jitter", 0.0, Bound::Incl(0.0), Bound::Excl(1.0))
        .doc("each interval is scaled by 1 + U(−jitter, +jitter); 0 is strictly periodic")
        .source("ns-2 CBR random_ 0 (strictly periodic)"),
    START,
    Param::new("stop", Ty::Duration { positive: false }, Dflt::None("runs to the end"))
        .doc("no packets after this time; later than the start")
        .source("runs to the end"),
];

/// `app = { kind = "bulk", size = "1GB" }` (or `app = "bulk"`).
pub const BULK: params::Kind = params::Kind::new(
    "bulk",
    "a transfer of size bytes, or a greedy source (size = \"inf\")",
    &[BULK_PARAMS],
);

/// `app = { kind = "onoff", on = "8s", off = "6s" }`.
pub const ONOFF: params::Kind = params::Kind::new(
    "onoff",
    "alternating exponential ON and OFF periods; each ON period is a new greedy connection (the MATCP traffic model)",
    &[ONOFF_PARAMS],
);

/// `app = { kind = "cbr", rate = "1Mbps" }`.
pub const CBR: params::Kind = params::Kind::new("cbr", "constant bit rate", &[CBR_PARAMS]);

/// The applications of a TCP flow.
pub const TCP_APPS: Kinds = Kinds {
    what: "application kind for a TCP flow",
    list: || vec![&BULK, &ONOFF],
    note: "",
    number: None,
};

/// The applications of a UDP flow.
pub const UDP_APPS: Kinds = Kinds {
    what: "application kind for a UDP flow",
    list: || vec![&CBR],
    note: "",
    number: None,
};

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
enum AppKind {
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
    kind: AppKind,
    next: Option<SimTime>,
    rng: SimRng,
}

impl SenderApp {
    /// Build from the scenario, drawing the start time from `rng`.
    pub fn new(spec: &TcpApp, mut rng: SimRng) -> SenderApp {
        let (kind, start) = match spec {
            TcpApp::Bulk { size, start } => (
                AppKind::Bulk {
                    size: size.map(|b| b.0),
                },
                *start,
            ),
            TcpApp::OnOff {
                on_mean,
                off_mean,
                start,
            } => (
                AppKind::OnOff {
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
            AppKind::Bulk { size } => size,
            AppKind::OnOff { .. } => None,
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
            AppKind::Bulk { .. } => {
                self.next = None;
                Some(AppEvent::Open)
            }
            AppKind::OnOff {
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
