//! The scenario model of Multipath TCP flows: subflow paths, coupled controller, packet
//! scheduler and join times. See docs/mptcp.md.

use super::model::{AckCounting, TcpSpec};
use crate::units::Dur;

/// A Multipath TCP connection (`transport = "mptcp"`): one subflow per entry of the flow's
/// `paths`, each a TCP sender with the parameters of `tcp` and a coupled controller.
#[derive(Clone, Debug)]
pub struct MptcpSpec {
    /// Subflow TCP parameters (mss, recovery, delayed ACK, RTO, …) and the connection's
    /// application (bulk, finite or greedy). `tcp.cc` is `CcSpec::Coupled(coupled)`.
    pub tcp: TcpSpec,
    /// The coupled controller every subflow runs.
    pub coupled: CoupledSpec,
    /// Which subflow gets each new segment.
    pub scheduler: SchedulerSpec,
    /// Per subflow: delay after the connection starts before the subflow may send (the
    /// first subflow's is 0). As long as the number of paths.
    pub joins: Vec<Dur>,
    /// Connection-level receive buffer in bytes (the data-level window the receiver
    /// advertises); `None`: unlimited.
    pub recv_buffer: Option<u64>,
}

/// Coupled congestion controller of an MPTCP connection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CoupledSpec {
    /// Each subflow runs Reno on its own (no coupling): the baseline RFC 6356 improves on.
    Reno {
        /// ACK counting in congestion avoidance.
        counting: AckCounting,
    },
    /// Linked Increases (RFC 6356).
    Lia {
        /// ACK counting in congestion avoidance.
        counting: AckCounting,
    },
    /// Opportunistic LIA (Khalili et al., CoNEXT 2012).
    Olia {
        /// ACK counting in congestion avoidance.
        counting: AckCounting,
    },
    /// Balanced Linked Adaptation (Peng et al., ToN 2016).
    Balia {
        /// ACK counting in congestion avoidance.
        counting: AckCounting,
    },
    /// Weighted Vegas (Cao, Xu & Fu, ICNP 2012).
    Wvegas(WvegasSpec),
    /// LIA plus a delay-triggered decrease (González et al., MELECON 2016).
    Daimd(DaimdSpec),
}

impl CoupledSpec {
    /// The controller's name as written in scenarios.
    pub fn name(&self) -> &'static str {
        match self {
            CoupledSpec::Reno { .. } => "reno",
            CoupledSpec::Lia { .. } => "lia",
            CoupledSpec::Olia { .. } => "olia",
            CoupledSpec::Balia { .. } => "balia",
            CoupledSpec::Wvegas(_) => "wvegas",
            CoupledSpec::Daimd(_) => "daimd",
        }
    }
}

/// wVegas parameters (Linux `mptcp_wvegas.c` defaults, ALGORITHMS.md §2.4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WvegasSpec {
    /// Packets the whole connection aims to keep queued, shared by the subflows' weights.
    pub total_alpha: f64,
    /// Each subflow's target before its first weight is computed, and its floor.
    pub initial_alpha: f64,
    /// Slow-start exit threshold on the queued-packets estimate.
    pub gamma: f64,
}

impl Default for WvegasSpec {
    fn default() -> WvegasSpec {
        WvegasSpec {
            total_alpha: 10.0,
            initial_alpha: 2.0,
            gamma: 1.0,
        }
    }
}

/// DAIMD parameters. The paper names D0, W0 and T but gives no values; the defaults and
/// their reasons are in docs/controllers/daimd.md (ALGORITHMS.md §3.3.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DaimdSpec {
    /// D0: queueing delay (RTT sample − minimum RTT) at or above which delay congestion is
    /// suspected. Default 20 ms (the Hamilton delay-based AIMD threshold).
    pub d0: Dur,
    /// If set, D0 is this fraction of the subflow's smallest RTT instead of `d0` (a
    /// path-relative threshold, for the sensitivity study; ALGORITHMS.md §3.3.2).
    pub d0_rtt: Option<f64>,
    /// W0: the delay backoff is allowed only while cwnd > W0 packets. Default 4.
    pub w0: f64,
    /// T: how long the delay condition must hold before a backoff; `None` = one smoothed
    /// RTT of the subflow (default). After a delay backoff the detector is quiet for T, and
    /// only then may the hold start again.
    pub hold: Option<Dur>,
    /// Multiplicative decrease on delay congestion (paper: 0.7).
    pub delay_beta: f64,
    /// ACK counting in congestion avoidance (the LIA increase).
    pub counting: AckCounting,
    /// How long the detector is quiet after a delay backoff, before the hold may start
    /// again. Default T (`Hold`).
    pub quiet: DaimdQuiet,
    /// The "packet delay" D compared with D0. Default: the ACK's RTT sample − the
    /// subflow's smallest RTT.
    pub signal: DaimdSignal,
}

/// DAIMD's quiet time after a delay backoff (not in the paper; docs/controllers/daimd.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DaimdQuiet {
    /// As long as the hold time T (default).
    #[default]
    Hold,
    /// One smoothed RTT of the subflow.
    Srtt,
    /// A fixed time (zero: the hold may start again at the next ACK).
    Fixed(Dur),
}

/// What DAIMD takes as the "packet delay" D (not defined by the paper).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DaimdSignal {
    /// The ACK's RTT sample − the subflow's smallest RTT sample (default).
    #[default]
    Sample,
    /// The smoothed RTT − the subflow's smallest RTT sample.
    Srtt,
}

impl Default for DaimdSpec {
    fn default() -> DaimdSpec {
        DaimdSpec {
            d0: Dur::from_millis(20),
            d0_rtt: None,
            w0: 4.0,
            hold: None,
            delay_beta: 0.7,
            counting: AckCounting::Bytes,
            quiet: DaimdQuiet::Hold,
            signal: DaimdSignal::Sample,
        }
    }
}

/// MPTCP packet scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SchedulerSpec {
    /// The subflow with the lowest smoothed RTT among those with window space (Linux
    /// default); subflows without an RTT sample yet rank first, in order.
    #[default]
    MinRtt,
    /// Subflows with window space in turn.
    RoundRobin,
}
