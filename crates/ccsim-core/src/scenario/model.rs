//! The validated, typed scenario: what the engine builds from.
//!
//! A scenario document (TOML file or Python dict) is checked once by `scenario::parse`, which
//! resolves names to indices, expands `duplex` links and `count`ed flows, fills every default
//! and collects every problem with its location. Nothing past this point validates again.
//! The file format is described in `docs/scenario.md`; each default below is cited there.

use super::model_mptcp::{CoupledSpec, MptcpSpec};
use super::model_sctp::SctpSpec;
use crate::units::{Bytes, Dur, Rate, SimTime};

/// `[simulation] threads = "auto"`: two threads when the network splits with a long
/// enough lookahead and a core is free (`Simulation::new`), else one.
pub const THREADS_AUTO: u32 = 0;

/// A whole scenario, ready to build.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Simulated time to run.
    pub duration: Dur,
    /// Seed from which every random stream is derived.
    pub seed: u64,
    /// How static routes are chosen.
    pub routing: RoutingMetric,
    /// How links are simulated (identical results; `PerHop` exists to check `Fast`).
    pub link_model: LinkModel,
    /// Threads to run on (1 or 2; identical results), or `THREADS_AUTO` (0). With 2 the
    /// network is split in two across its longest-delay links and each part runs on its
    /// own core (`sim_parallel`); with auto, 2 when that pays now (`Simulation::new`).
    pub threads: u32,
    /// `[simulation] memory_limit` in bytes: the estimate at validation and the run-time
    /// guard hold a run under it (`None`: `budget::default_memory_limit`).
    pub memory_limit: Option<u64>,
    /// What to sample into time series.
    pub trace: TraceSpec,
    /// Node names, indexed by `NodeId`.
    pub nodes: Vec<String>,
    /// Directed links, indexed by `LinkId`.
    pub links: Vec<LinkSpec>,
    /// Flows, indexed by `FlowId`.
    pub flows: Vec<FlowSpec>,
    /// Adaptive distance-vector routing (`[routing] kind = "distance-vector"`); `None` keeps
    /// the static shortest paths.
    pub dv: Option<DvSpec>,
    /// Scheduled link failures and recoveries (`[[event]]`), in time order.
    pub link_events: Vec<LinkEvent>,
}

/// The multipath distance-vector protocol of Mallada & Paganini (NET-COOP 2007), see
/// docs/routing.md and ALGORITHMS.md §3.0.2.
#[derive(Clone, Debug, PartialEq)]
pub struct DvSpec {
    /// Adaptation gain β (per second per second of price gap). Default 0.5 (paper).
    pub beta: f64,
    /// Period Δr of announcements. Default 500 ms (paper).
    pub announce_interval: Dur,
    /// Period Δa of split adaptation. Default 500 ms (paper).
    pub adapt_interval: Dur,
    /// Bytes on the wire of one announcement (one entry per packet): 20 (IP) + 8 (UDP) +
    /// 4 (RIP header) + 20 (one RIP entry) = 52 by default (RFC 2453 §3.6).
    pub announce_bytes: u32,
    /// Each router's timers are offset by U(0, jitter)·min(Δr, Δa), drawn once from
    /// `node:<name>:timers`. Default 0: all routers tick together (the paper gives no
    /// offsets; RFC 2453 §3.8 randomises RIP's timers against synchronisation).
    pub jitter: f64,
    /// Poison reverse: `false` (the paper) announces an infinite metric only to a neighbour
    /// receiving all the traffic (α = 1); `true` to every neighbour receiving any (RIP's
    /// poison reverse, RFC 2453 §3.4.3), which rules out two-node loops formed on stale
    /// prices.
    pub poison_any: bool,
    /// Tables given at start: (node, destination, [(next-hop node, split)]).
    pub initial: Vec<DvInitial>,
}

impl Default for DvSpec {
    fn default() -> DvSpec {
        DvSpec {
            beta: 0.5,
            announce_interval: Dur::from_millis(500),
            adapt_interval: Dur::from_millis(500),
            announce_bytes: 52,
            jitter: 0.0,
            poison_any: false,
            initial: Vec::new(),
        }
    }
}

/// A routing-table entry given in the scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct DvInitial {
    /// Router.
    pub node: usize,
    /// Destination.
    pub dest: usize,
    /// Next hops (neighbour nodes) and their split ratios, summing to 1.
    pub split: Vec<(usize, f64)>,
}

/// A link going down or coming up.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkEvent {
    /// When.
    pub at: SimTime,
    /// Directed links affected (both directions for a duplex `between`).
    pub links: Vec<usize>,
    /// `true`: the link comes up; `false`: it fails.
    pub up: bool,
}

/// Metric for static shortest-path routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoutingMetric {
    /// Sum of propagation delays (ties: fewer hops, then lower link index).
    Delay,
    /// Number of hops (ties: lower delay, then lower link index).
    Hops,
}

/// Link simulation strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkModel {
    /// Departure and arrival times computed at enqueue; one event per link head.
    Fast,
    /// The straightforward reference: an event per transmission end and per arrival.
    PerHop,
}

/// Which flows and links are sampled, and how often.
#[derive(Clone, Debug)]
pub struct TraceSpec {
    /// Sampling interval; `Dur::ZERO` turns sampling off.
    pub interval: Dur,
    /// Flow indices to sample.
    pub flows: Vec<usize>,
    /// Link indices to sample.
    pub links: Vec<usize>,
}

/// One direction of a link.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    /// Canonical name `"from->to"`.
    pub name: String,
    /// Name of the `[[link]]` entry, if given (shared by both directions of a duplex).
    pub alias: Option<String>,
    /// Transmitting node.
    pub from: usize,
    /// Receiving node.
    pub to: usize,
    /// Transmission rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: Dur,
    /// Queue discipline in front of the transmitter.
    pub queue: QueueSpec,
    /// Random or scripted loss applied to packets entering the link.
    pub loss: LossSpec,
}

/// A queue's size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// At most this many packets held, counting the one being transmitted (the same capacity
    /// as ns-2's DropTail, which refuses an arrival when `waiting + 1 >= limit`).
    Packets(u64),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// Queue discipline.
#[derive(Clone, Debug)]
pub enum QueueSpec {
    /// Drop arrivals when full. Default limit: 100 packets.
    DropTail {
        /// Size limit.
        limit: QueueLimit,
    },
    /// Random Early Detection (Floyd & Jacobson 1993) with ns-2's defaults.
    Red(RedSpec),
}

/// RED parameters; thresholds in packets. `None` means ns-2's automatic setting.
#[derive(Clone, Debug)]
pub struct RedSpec {
    /// Lower threshold (packets); auto: max(5, 5 ms × C / 2).
    pub min_th: Option<f64>,
    /// Upper threshold (packets); auto: 3 × min_th.
    pub max_th: Option<f64>,
    /// Drop probability at max_th. Default 0.1 (ns-2 linterm 10).
    pub max_p: f64,
    /// EWMA weight; auto: 1 − exp(−1 / (10 · RTT · C)) as ns-2 `q_weight_ = -1`.
    pub w_q: Option<f64>,
    /// Gentle mode (ns-2 default true).
    pub gentle: bool,
    /// Uniform inter-drop spacing (ns-2 `wait_`, default true).
    pub wait: bool,
    /// Hard limit in packets. Default 50 (ns-2).
    pub limit: u64,
    /// Mean packet size used to convert the link rate to packets/s. Default 500 B (ns-2).
    pub mean_pktsize: Bytes,
    /// Queue measured in bytes (ns-2 `queue_in_bytes_`): the average and the thresholds in
    /// bytes (thresholds and limit × `mean_pktsize`). Default false (ns-2.35: true).
    pub queue_in_bytes: bool,
    /// Byte-mode drop probability (ns-2 `bytes_`): arrivals counted in mean-size packets,
    /// the probability scaled by size / `mean_pktsize`. Default false (ns-2.35: true).
    pub bytes: bool,
}

impl Default for ArcSpec {
    /// The defaults of docs/arc.md: 1460 + 40-byte packets, α = 100 ms, k = 1/(4·RTTmin),
    /// γ = 0.9 initialised with the first sample, 2 packets to start, no window cap, report
    /// timeout min 1 s, max 10⁵ s, initial 3 s; an infinite bulk transfer from time 0.
    fn default() -> ArcSpec {
        ArcSpec {
            mss: 1460,
            header: 40,
            probe_period: Dur::from_millis(100),
            gain_periods: 4.0,
            filter_gain: 0.9,
            filter_init: ArcFilterInit::FirstSample,
            init_window: 2.0,
            window_cap: None,
            report_delay: None,
            rto: RtoSpec {
                min: Dur::from_secs(1),
                max: Dur::from_secs(100_000),
                initial: Dur::from_secs(3),
                granularity: Dur::from_millis(1),
            },
            app: TcpApp::Bulk {
                size: None,
                start: StartSpec {
                    lo: SimTime::ZERO,
                    hi: SimTime::ZERO,
                },
            },
        }
    }
}

impl Default for RedSpec {
    /// ns-2's defaults (ALGORITHMS.md §1.9): automatic thresholds and weight, max_p 0.1,
    /// gentle, uniform drop spacing, limit 50 packets, mean packet size 500 B.
    fn default() -> RedSpec {
        RedSpec {
            min_th: None,
            max_th: None,
            max_p: 0.1,
            w_q: None,
            gentle: true,
            wait: true,
            limit: 50,
            mean_pktsize: Bytes(500),
            queue_in_bytes: false,
            bytes: false,
        }
    }
}

/// Loss applied at link entry.
#[derive(Clone, Debug, PartialEq)]
pub enum LossSpec {
    /// No loss.
    None,
    /// Each packet independently with probability p.
    Bernoulli(f64),
    /// Drop exactly these data packets (0-based count of data packets entering the link);
    /// for scripted tests such as "three losses in one window".
    Scripted(Vec<u64>),
}

/// One flow between two hosts.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    /// Unique name.
    pub name: String,
    /// Source node.
    pub from: usize,
    /// Destination node.
    pub to: usize,
    /// Transport and its application.
    pub transport: TransportSpec,
    /// Pinned paths, each a node list from `from` to `to` (its reverse is the return path).
    /// Empty: the static routing table. A packet with `path = k` follows entry `k - 1`.
    pub paths: Vec<Vec<usize>>,
}

/// A flow's transport.
#[derive(Clone, Debug)]
pub enum TransportSpec {
    /// TCP with a window-based congestion controller.
    Tcp(TcpSpec),
    /// UDP constant bit rate.
    Udp(CbrSpec),
    /// ARC, the rate-based transport for planetary links (Grieco & Mascolo 2005).
    Arc(ArcSpec),
    /// SCTP with Concurrent Multipath Transfer (RFC 4960; Iyengar et al. 2006), `transport/sctp`.
    Sctp(SctpSpec),
    /// Multipath TCP (one subflow per path).
    Mptcp(MptcpSpec),
}

/// How ARC's receiver initialises its bandwidth filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ArcFilterInit {
    /// With the first sample (Linux Westwood's behaviour; ALGORITHMS.md §3.4.3's default).
    #[default]
    FirstSample,
    /// At zero (a sensitivity variant: the estimate then needs many periods to rise).
    Zero,
}

/// ARC parameters (ALGORITHMS.md §3.4; every value the paper leaves open is named here).
#[derive(Clone, Debug)]
pub struct ArcSpec {
    /// Payload bytes per packet. Default 1460.
    pub mss: u32,
    /// Header bytes per packet. Default 40.
    pub header: u32,
    /// α: quick probing doubles the window every α, gentle probing adds one packet every α.
    /// Default 100 ms (paper).
    pub probe_period: Dur,
    /// k = 1 / (gain_periods · RTTmin): the time constant is this many feedback periods.
    /// Default 4 (paper).
    pub gain_periods: f64,
    /// Receiver filter gain γ in b̂ ← γ·b̂ + (1 − γ)·b. Default 0.9 (Westwood+).
    pub filter_gain: f64,
    /// Receiver filter initialisation.
    pub filter_init: ArcFilterInit,
    /// Window at the start of quick probing, packets. Default 2.
    pub init_window: f64,
    /// Cap on the window in packets (a receiver window); `None` is uncapped (default).
    pub window_cap: Option<u64>,
    /// Report period: `None` reports every data packet (default, ALGORITHMS.md §3.4.4);
    /// a duration reports every second in-order packet or after that delay, like a
    /// delayed ACK (out-of-order data is always reported at once).
    pub report_delay: Option<Dur>,
    /// Report timeout: RFC 6298 estimator with these bounds (default min 1 s, max 10⁵ s,
    /// initial 3 s).
    pub rto: RtoSpec,
    /// The file to send (bulk only).
    pub app: TcpApp,
}

/// When an application starts: a fixed time, or uniform in a range (drawn from the flow's
/// own random stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartSpec {
    /// Earliest start.
    pub lo: SimTime,
    /// Latest start (equal to `lo` for a fixed start).
    pub hi: SimTime,
}

/// TCP parameters. Defaults follow ns-2 where the papers used ns-2, RFCs otherwise.
#[derive(Clone, Debug)]
pub struct TcpSpec {
    /// Congestion-avoidance controller.
    pub cc: CcSpec,
    /// Loss-recovery algorithm, independent of the controller.
    pub recovery: RecoverySpec,
    /// Payload bytes per segment. Default 1460.
    pub mss: u32,
    /// Header bytes added on the wire (data and ACK). Default 40.
    pub header: u32,
    /// Maximum window in segments (ns-2 `window_`); `None` is unlimited (the default).
    pub max_window: Option<u32>,
    /// Initial window in segments; default by RFC 5681 §3.1 from the MSS (3 for 1460).
    pub init_cwnd: u32,
    /// Duplicate ACKs that trigger fast retransmit. Default 3.
    pub dupthresh: u32,
    /// Delayed-ACK timeout; `None` acks every segment. Default 100 ms (ns-2 DelAck).
    pub delayed_ack: Option<Dur>,
    /// Retransmission-timeout parameters.
    pub rto: RtoSpec,
    /// The application driving the sender.
    pub app: TcpApp,
    /// MATCP path selection over the flow's pinned paths, one path per connection; `None`
    /// sends on the single pinned path (or the routing table).
    pub select: Option<SelectSpec>,
}

impl Default for TcpSpec {
    /// What the scenario parser fills in for a flow that sets nothing but its application
    /// (docs/scenario.md; `tests/core_constants.rs` checks the two agree): Reno counting
    /// bytes, NewReno recovery, MSS 1460 + 40 header bytes, no window cap, the RFC 5681
    /// initial window (3 segments), DupThresh 3, 100 ms delayed ACKs, RFC 6298 timer
    /// bounds (min 1 s, max 60 s, initial 1 s, G = 1 ms), a greedy bulk source from time 0.
    fn default() -> TcpSpec {
        TcpSpec {
            cc: CcSpec::default(),
            recovery: RecoverySpec::NewReno,
            mss: 1460,
            header: 40,
            max_window: None,
            init_cwnd: rfc5681_initial_window(1460),
            dupthresh: 3,
            delayed_ack: Some(Dur::from_millis(100)),
            rto: RtoSpec {
                min: Dur::from_secs(1),
                max: Dur::from_secs(60),
                initial: Dur::from_secs(1),
                granularity: Dur::from_millis(1),
            },
            app: TcpApp::Bulk {
                size: None,
                start: StartSpec {
                    lo: SimTime::ZERO,
                    hi: SimTime::ZERO,
                },
            },
            select: None,
        }
    }
}

/// MATCP path selector (Dimopoulos et al. 2006, §2.2.1; ALGORITHMS.md §3.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectKind {
    /// Fewest drops.
    Drop,
    /// Smallest queueing delay (smoothed RTT at flow end − the path's minimum RTT).
    RttVar,
    /// Smallest smoothed RTT.
    Rtt,
    /// Random, with probability (RTT_total − RTT_x) / Σ_y (RTT_total − RTT_y).
    Wrtt,
}

/// What the Drop selector counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DropMetric {
    /// Retransmitted segments since the last refresh (the default).
    #[default]
    Count,
    /// Retransmitted segments per segment sent since the last refresh.
    PerPacket,
}

/// Path selection parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelectSpec {
    /// The selector.
    pub kind: SelectKind,
    /// Refresh constant R: after R consecutive flows on one path every metric is zeroed
    /// (Drop, RttVar, Rtt). Default: the number of paths (ALGORITHMS.md §3.2.2 item 3).
    pub refresh: u32,
    /// Drop selector's metric.
    pub drop_metric: DropMetric,
}

/// RFC 6298 retransmission timer parameters.
#[derive(Clone, Copy, Debug)]
pub struct RtoSpec {
    /// Lower bound. Default 1 s (RFC 6298 §2.4; ns-2 used 0.2 s).
    pub min: Dur,
    /// Upper bound, also of backoff. Default 60 s.
    pub max: Dur,
    /// Before the first RTT sample. Default 1 s (RFC 6298 §2.1).
    pub initial: Dur,
    /// Clock granularity G in RTO = SRTT + max(G, 4·RTTVAR). Default 1 ms.
    pub granularity: Dur,
}

/// Congestion controllers selectable in scenarios.
#[derive(Clone, Debug, PartialEq)]
pub enum CcSpec {
    /// Reno AIMD (RFC 5681).
    Reno {
        /// How congestion avoidance counts acknowledgements. Default: bytes.
        counting: AckCounting,
    },
    /// TCP Vegas (Brakmo & Peterson 1995), `cc/vegas.rs`.
    Vegas(VegasSpec),
    /// Westwood+ (Grieco & Mascolo 2004), `cc/westwood.rs`.
    Westwood(WestwoodSpec),
    /// CUBIC (RFC 9438), `cc/cubic.rs`.
    Cubic(CubicSpec),
    /// FAST TCP (Jin, Wei & Low 2004), `cc/fast.rs`.
    Fast(FastSpec),
    /// A coupled multipath controller (MPTCP subflows; see `model_mptcp`).
    Coupled(CoupledSpec),
}

/// Vegas thresholds, in packets queued by the flow (ALGORITHMS.md §1.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasSpec {
    /// Below this many queued packets, grow by one packet per RTT. Default 1 (ns-2/paper).
    pub alpha: f64,
    /// Above this many, shrink by one packet per RTT. Default 3 (ns-2/paper).
    pub beta: f64,
    /// Leave slow start when more than this many are queued. Default 1.
    pub gamma: f64,
}

impl VegasSpec {
    /// ns-2 `Agent/TCP/Vegas` and the original paper: α, β, γ = 1, 3, 1 (the default).
    pub const NS2: VegasSpec = VegasSpec {
        alpha: 1.0,
        beta: 3.0,
        gamma: 1.0,
    };
    /// Linux `tcp_vegas.c` and ns-3: α, β, γ = 2, 4, 1.
    pub const LINUX: VegasSpec = VegasSpec {
        alpha: 2.0,
        beta: 4.0,
        gamma: 1.0,
    };
}

impl Default for VegasSpec {
    fn default() -> VegasSpec {
        VegasSpec::NS2
    }
}

/// Westwood+ bandwidth-estimate parameters (ALGORITHMS.md §1.6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WestwoodSpec {
    /// Low-pass filter applied to the per-RTT samples. Default: EWMA 0.9 (paper).
    pub filter: WestwoodFilter,
    /// Shortest sampling interval: rounds are merged until they span this long.
    /// Default 50 ms (Linux `tcp_westwood.c`).
    pub min_interval: Dur,
}

impl Default for WestwoodSpec {
    fn default() -> WestwoodSpec {
        WestwoodSpec {
            filter: WestwoodFilter::Ewma,
            min_interval: Dur::from_millis(50),
        }
    }
}

/// The Westwood+ bandwidth filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WestwoodFilter {
    /// b ← 0.9·b + 0.1·sample (Grieco & Mascolo).
    #[default]
    Ewma,
    /// Two cascaded EWMAs of gain 7/8 (Linux `tcp_westwood.c`).
    Linux,
    /// b ← 0.9·b + 0.1·(sample + previous sample)/2 (ns-3 `TcpWestwoodPlus`, Tustin).
    Tustin,
}

/// CUBIC parameters (RFC 9438 §4.2, §4.6, §4.7, §4.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicSpec {
    /// C in W(t) = C·(t − K)³ + W_max, segments/s³. Default 0.4 (RFC 9438 §5).
    pub c: f64,
    /// Multiplicative decrease β_cubic. Default 0.7 (RFC 9438 §4.6).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7). Default on.
    pub fast_convergence: bool,
    /// Reno-friendly region (RFC 9438 §4.3). Default on.
    pub reno_friendly: bool,
}

impl Default for CubicSpec {
    fn default() -> CubicSpec {
        CubicSpec {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
        }
    }
}

/// FAST TCP parameters (ALGORITHMS.md §1.7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FastSpec {
    /// Packets each flow aims to keep queued. Default 250 (ALGORITHMS.md §3.0.4 item 10).
    pub alpha: f64,
    /// Step γ ∈ (0, 1] of the window update. Default 0.5 (ns-2 module).
    pub gamma: f64,
    /// Update every other round instead of every round. Default false (ns-2 module v1.1).
    pub every_other_rtt: bool,
    /// RTT averaging weight: `None` is the ns-2 module's min(1/256, 3/cwnd); `Some(k)` is
    /// a = 1/(k·cwnd) (Mallada & Paganini eq. 4: k = 4).
    pub avg_window_factor: Option<f64>,
    /// Base RTT: `None` is the smallest sample; `Some(n)` is Mallada & Paganini's filter
    /// (eq. 5) BaseRTT ← (1 − 1/n)·BaseRTT + (1/n)·(avgRTT − q) driven by the routers'
    /// price q at the source node (n = 3000 in the paper).
    pub base_filter: Option<f64>,
}

impl Default for FastSpec {
    fn default() -> FastSpec {
        FastSpec {
            alpha: 250.0,
            gamma: 0.5,
            every_other_rtt: false,
            avg_window_factor: None,
            base_filter: None,
        }
    }
}

impl Default for CcSpec {
    fn default() -> CcSpec {
        CcSpec::Reno {
            counting: AckCounting::Bytes,
        }
    }
}

/// How window growth in congestion avoidance counts acknowledgements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AckCounting {
    /// By bytes acknowledged: about one SMSS per cwnd of bytes acked (RFC 5681 §3.1,
    /// recommended), so delayed ACKs do not slow growth.
    #[default]
    Bytes,
    /// Once per ACK of new data, SMSS·SMSS/cwnd (RFC 5681 §3.1 eq. 3, ns-2 `Agent/TCP`):
    /// with delayed ACKs, about ½ SMSS per RTT.
    PerAck,
}

/// Loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoverySpec {
    /// Fast retransmit and fast recovery, exit on the first new ACK (RFC 5681).
    Reno,
    /// Partial ACKs keep recovery going (RFC 6582).
    NewReno,
    /// SACK scoreboard and pipe (RFC 6675).
    Sack,
    /// ns-2 `Sack1`-like: dupack-only entry, every hole below the highest SACK retransmittable.
    Sack1,
    /// Forward acknowledgement (Mathis & Mahdavi 1996; ns-2 `Agent/TCP/Fack`): recovery
    /// starts when the highest SACK is more than DupThresh segments above snd.una (or on the
    /// DupThresh-th duplicate ACK); every hole below it is lost; during recovery
    /// awnd = snd.nxt − snd.fack + retransmissions in flight is held below cwnd.
    Fack,
}

/// Application on a TCP flow.
#[derive(Clone, Debug)]
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
        on_mean: Dur,
        /// Mean OFF period.
        off_mean: Dur,
        /// Start of the first ON period.
        start: StartSpec,
    },
}

/// UDP constant-bit-rate source.
#[derive(Clone, Debug)]
pub struct CbrSpec {
    /// Bytes per packet on the wire.
    pub packet_size: Bytes,
    /// Sending rate.
    pub rate: Rate,
    /// Each interval is scaled by (1 + U(−jitter, +jitter)); 0 means strictly periodic.
    pub jitter: f64,
    /// First packet.
    pub start: StartSpec,
    /// No packets after this time; `None` runs to the end.
    pub stop: Option<SimTime>,
}

impl Scenario {
    /// Index of the node called `name`.
    pub fn node(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n == name)
    }
    /// Index of the directed link called `name` (`"from->to"`).
    pub fn link(&self, name: &str) -> Option<usize> {
        self.links.iter().position(|l| l.name == name)
    }
    /// Index of the flow called `name`.
    pub fn flow(&self, name: &str) -> Option<usize> {
        self.flows.iter().position(|f| f.name == name)
    }
}

/// The initial window of RFC 5681 §3.1 for a given SMSS, in segments.
pub fn rfc5681_initial_window(mss: u32) -> u32 {
    if mss > 2190 {
        2
    } else if mss > 1095 {
        3
    } else {
        4
    }
}
