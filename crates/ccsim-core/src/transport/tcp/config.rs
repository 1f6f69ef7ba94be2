//! The TCP sender's configuration: its parameters (shared with MPTCP subflows), their
//! declarations, and the `transport = "tcp"` kind of a flow.

use super::ecn::EcnMode;
pub use super::pacing::Pacing;
use super::path_select::{SelectSpec, SELECT_KINDS};
use super::rto::{self, RtoSpec};
use super::stack;
use crate::apps::{TcpApp, TCP_APPS};
use crate::cc::{CcSpec, CC_KINDS};
use crate::params::{Alt, Dflt, Kind, Param, Resolved, Ty};
use crate::units::Dur;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// TCP parameters (declared in [`SENDER`] and [`TCP_PARAMS`]). Defaults follow the RFCs;
/// the ns-2-era reproductions set ns-2's values explicitly.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in SENDER/TCP_PARAMS
pub struct TcpSpec {
    /// Congestion-avoidance controller (set by the caller for MPTCP subflows).
    #[serde(default)]
    pub cc: CcSpec,
    pub recovery: RecoverySpec,
    pub mss: u32,
    pub header: u32,
    pub max_window: Option<u32>,
    pub init_cwnd: u32,
    pub dupthresh: u32,
    pub delayed_ack: Option<Dur>,
    pub rto: RtoSpec,
    pub app: TcpApp,
    /// MATCP path selection over the flow's pinned paths, one path per connection; `None`
    /// sends on the single pinned path (or the routing table).
    #[serde(default)]
    pub select: Option<SelectSpec>,
    pub limited_transmit: bool,
    /// TCP flows only (not MPTCP subflows), hence the serde default.
    #[serde(default)]
    pub handshake: bool,
    /// The receiver's quick-ACK credit (TCP flows only).
    #[serde(default)]
    pub quick_acks: u32,
    /// Linux's receive window and its autotuning at the receiver (`rcv_autotune.rs`; TCP
    /// flows only); the sender then echoes the receiver's ACKs in its data.
    #[serde(default)]
    pub rcv_autotune: bool,
    /// PSH marks on data (`push.rs`; TCP flows only).
    #[serde(default)]
    pub push_flags: PushFlags,
    /// The receiver acknowledges a pushed full-sized segment at once (TCP flows only).
    #[serde(default)]
    pub ack_pushed: bool,
    /// Linux's SACK compression at the receiver (`sack_compress.rs`; TCP flows only) and its
    /// three sysctls.
    #[serde(default)]
    pub sack_compress: bool,
    #[serde(default = "comp_sack_delay")]
    pub sack_compress_delay: Dur,
    #[serde(default = "comp_sack_slack")]
    pub sack_compress_slack: Dur,
    #[serde(default = "comp_sack_nr")]
    pub sack_compress_nr: u32,
    /// Linux's TSO deferral (`tso_defer.rs`; TCP flows only).
    #[serde(default)]
    pub tso_defer: bool,
    /// How a pacing controller's segments are spaced (`pacing.rs`; TCP flows only).
    #[serde(default)]
    pub pacing: Pacing,
    pub ssthresh_from: LossFlight,
    pub sack_option_bytes: bool,
    #[serde(default)]
    pub lost_retransmit: LostRetransmit,
    #[serde(default)]
    pub loss_marking: LossMarking,
    #[serde(default)]
    pub prr: PrrForm,
    /// ECN (declared in TCP_PARAMS; MPTCP subflows do not use it).
    #[serde(default)]
    pub ecn: EcnMode,
    /// ns-2 behaviours (`sender_ns2.rs`, the ns2 stack profile).
    #[serde(default)]
    pub recovery_burst: Option<u32>,
    #[serde(default)]
    pub fack_restart: bool,
    #[serde(default)]
    pub halving: Halving,
    #[serde(default)]
    pub sack_block_bytes: bool,
    #[serde(default)]
    pub init_ssthresh: Option<InitSsthresh>,
}

/// The slow-start threshold a connection starts with (`init_ssthresh`); none is unlimited.
/// In a document: a number of segments or `"max_window"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InitSsthresh {
    /// This many segments.
    Segments(u32),
    /// The flow's `max_window` (unlimited without one): ns-2's `ssthresh_ = int(wnd_)` at
    /// reset (tcp.cc:462), `wnd_` being `window_`.
    Word(MaxWindowWord),
}

/// The one word `init_ssthresh` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxWindowWord {
    /// `"max_window"`.
    MaxWindow,
}

impl TcpSpec {
    /// The initial slow-start threshold in bytes, `None` for unlimited.
    pub fn initial_ssthresh(&self) -> Option<u64> {
        let segments = match self.init_ssthresh? {
            InitSsthresh::Segments(n) => n,
            InitSsthresh::Word(MaxWindowWord::MaxWindow) => self.max_window?,
        };
        Some(segments as u64 * self.mss as u64)
    }
}

/// How the loss response halves (`halving`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Halving {
    /// The amount as it is (RFC 5681 §3.1: FlightSize/2, possibly a fraction of a segment).
    #[default]
    Exact,
    /// ns-2: `ssthresh_ = int(min(cwnd_, window_)/2)` (tcp.cc:1254, 1296): the amount capped at
    /// `max_window` and rounded down to an even number of segments.
    Ns2,
}

impl Default for TcpSpec {
    /// What the parser fills in for a flow that sets nothing but a greedy bulk application
    /// (`tests/core_constants.rs` checks the two agree): every declared default.
    fn default() -> TcpSpec {
        let mut cx = crate::params::Cx::default();
        let m = serde_json::Map::from_iter([("app".to_string(), Value::from("bulk"))]);
        let r = crate::params::read::read_kind(&mut cx, "", &m, &KIND, &Default::default());
        r.config().expect("declared defaults fit TcpSpec")
    }
}

/// Loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB) over RFC 6675's SACK loss
    /// detection: during recovery the data sent follows the data delivered.
    Prr,
}

impl RecoverySpec {
    /// Whether the recovery keeps a SACK scoreboard (every variant but Reno and NewReno).
    pub fn uses_sack(self) -> bool {
        matches!(
            self,
            RecoverySpec::Sack | RecoverySpec::Sack1 | RecoverySpec::Fack | RecoverySpec::Prr
        )
    }
}

/// The amount a loss response starts from (`CongestionEvent::flight_size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossFlight {
    /// Everything outstanding, snd.nxt − snd.una (RFC 5681 §3.1 eq. 4).
    #[default]
    FlightSize,
    /// The RFC 6675 pipe at detection (ns-3's `BytesInFlight`); without SACK, FlightSize
    /// minus the duplicate ACKs received (each a segment that left the network).
    Pipe,
    /// The congestion window (Linux `tcp_reno_ssthresh`: max(cwnd/2, 2)).
    Cwnd,
}

/// `tcp_comp_sack_delay_ns`, `tcp_comp_sack_slack_ns`, `tcp_comp_sack_nr` (tcp_sk_init,
/// net/ipv4/tcp_ipv4.c:3647–3649 at 6.12.117).
fn comp_sack_delay() -> Dur {
    Dur::from_millis(1)
}
fn comp_sack_slack() -> Dur {
    Dur::from_micros(100)
}
fn comp_sack_nr() -> u32 {
    44
}

/// Which data segments carry PSH (`push_flags`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushFlags {
    /// None (no receiver looks at them unless `ack_pushed`).
    #[default]
    None,
    /// Linux's: the last segment of each GSO packet of two or more (`push.rs`).
    Linux,
}

/// How a lost retransmission is found (`lost_retransmit`, SACK recoveries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LostRetransmit {
    /// By the retransmission timer (RFC 6675 retransmits a segment once per recovery).
    #[default]
    Timeout,
    /// RACK's rule (RFC 8985 §6.2, `rack.rs`): lost once a segment sent after it is SACKed.
    Rack,
}

/// When an original segment is marked lost (`loss_marking`, SACK recoveries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossMarking {
    /// RFC 6675 `IsLost`: DupThresh SACKed segments above it.
    #[default]
    Dupthresh,
    /// RACK with no reordering seen (RFC 8985 §6.2, Linux `tcp_rack_detect_loss`): in
    /// recovery, or once DupThresh segments are SACKed, one SACKed segment above it.
    Rack,
}

/// PRR's form (`prr`, `recovery = "prr"`): RFC 6937's or Linux's (`prr.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrrForm {
    /// RFC 6937 §3 (PRR-SSRB): RecoverFS = FlightSize at entry; the slow-start bound's
    /// extra segment on every ACK.
    #[default]
    Rfc6937,
    /// Linux `tcp_cwnd_reduction`: RecoverFS = the window at entry (`prior_cwnd`); the
    /// extra segment only when the ACK advanced snd.una and marked no new loss.
    Linux,
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

fn initial_window(r: &Resolved) -> Value {
    let mss = r.value("mss").as_u64().unwrap_or(1460);
    Value::from(rfc5681_initial_window(mss.min(u32::MAX as u64) as u32))
}

/// Largest MSS and header, in bytes.
const MAX_SEGMENT: u64 = 1_000_000;
const U32: u64 = u32::MAX as u64;

/// The sender's parameters, shared by TCP flows and MPTCP subflows.
pub const SENDER: &[Param] = &[
    Param::choice("recovery", "newreno", &["reno", "newreno", "sack", "sack1", "fack", "prr"])
        .doc("loss recovery, independent of the controller: reno (RFC 5681), newreno (RFC 6582), sack (RFC 6675), sack1 (ns-2 Sack1-like), fack (Mathis & Mahdavi 1996), prr (sack with Proportional Rate Reduction, RFC 6937; docs/tcp.md §4.6)")
        .source("RFC 6582 (NewReno, the RFCs' recovery without SACK); MPTCP subflows default to sack as Linux's"),
    Param::size("mss", 1460, 1, MAX_SEGMENT)
        .doc("payload bytes per segment")
        .source("Ethernet MTU 1500 − 40 bytes of IPv4 and TCP headers"),
    Param::size("header", 40, 0, MAX_SEGMENT)
        .doc("header bytes added on the wire to data and ACK packets")
        .source("IPv4 (20) + TCP without options (20)"),
    Param::new("max_window", Ty::Packets { min: 1, max: U32 }, Dflt::None("unlimited"))
        .doc("maximum window in segments (a receiver window)")
        .source("unlimited (ns-2.35 ns-default.tcl:919 window_ 20: set it for ns-2-era reproductions)"),
    Param::new("init_cwnd", Ty::Int { min: 1, max: U32 }, Dflt::None(""))
        .derived("RFC 5681 §3.1 from the MSS: 4 if mss ≤ 1095, 3 if mss ≤ 2190, else 2", initial_window)
        .unit("segments")
        .doc("initial window")
        .source("RFC 5681 §3.1"),
    Param::int("dupthresh", 3, 1, U32)
        .unit("duplicate ACKs")
        .doc("duplicate ACKs that trigger fast retransmit")
        .source("RFC 5681 §3.2 (3)"),
    Param::positive_duration("delayed_ack", "100ms")
        .alt(Alt::Bool("acknowledge every segment"))
        .doc("delayed-ACK timeout: the receiver acknowledges every second segment or after this delay")
        .source("ns-2.35 tcl/lib/ns-default.tcl:1066 Agent/TCPSink/DelAck interval_ 100ms (docs/sources/ns2.md); RFC 5681 §4.2 allows up to 500 ms"),
    Param::table("rto", rto::TCP_PARAMS)
        .doc("retransmission timer (RFC 6298, or Linux's or ns-2's estimator)")
        .source("see the rto table"),
    Param::boolean("limited_transmit", false)
        .doc("the first dupthresh − 1 duplicate ACKs each release a new segment (with SACK the pipe governs, RFC 6675 §5 step 1); docs/tcp.md §10.1")
        .source("our choice: off, as the RFCs' baseline and ns-2's agents (RFC 3042 is optional; Linux and ns-3 have it on)"),
    Param::choice("ssthresh_from", "flight_size", &["flight_size", "pipe", "cwnd"])
        .doc("what the loss response halves: FlightSize, the RFC 6675 pipe at detection (ns-3), or cwnd (Linux tcp_reno_ssthresh); docs/tcp.md §10.6")
        .source("RFC 5681 §3.1 eq. 4 (FlightSize)"),
    Param::boolean("sack_option_bytes", false)
        .doc("ACKs carrying SACK blocks grow by the SACK option: 12, 20 or 28 bytes for 1–3 blocks (4-byte aligned); docs/tcp.md §10.8")
        .source("our choice: off, an ACK is header bytes (RFC 2018 §3 gives the option's size)"),
    Param::choice("lost_retransmit", "timeout", &["timeout", "rack"])
        .doc("SACK recoveries: how a lost retransmission is found — by the retransmission timer (RFC 6675), or rack: lost once a segment sent after it is SACKed, and sent again in the same recovery (RFC 8985 §6.2 with reo_wnd 0); docs/tcp.md §10.10")
        .source("RFC 6675 (timeout); Linux tcp_rack_detect_loss / tcp_rack_mark_skb_lost, net/ipv4/tcp_recovery.c (the linux profile)"),
    Param::choice("loss_marking", "dupthresh", &["dupthresh", "rack"])
        .doc("SACK recoveries: when a segment not yet retransmitted is lost — dupthresh: DupThresh SACKed segments above it (RFC 6675 IsLost); rack: in recovery, or once DupThresh segments are SACKed, any SACKed segment above it, as RACK with no reordering seen (RFC 8985 §6.2 with reo_wnd 0; its reordering timer is not modelled); docs/tcp.md §10.10")
        .source("RFC 6675 (dupthresh); Linux tcp_rack_detect_loss, tcp_rack_reo_wnd, net/ipv4/tcp_recovery.c:5–30, 51–93 (the linux profile)"),
    Param::choice("prr", "rfc6937", &["rfc6937", "linux"])
        .doc("recovery = \"prr\": rfc6937, RecoverFS = FlightSize at entry and, below ssthresh, one segment more than delivered on every ACK (PRR-SSRB); linux, RecoverFS = the window at entry and that extra segment only when the ACK advanced snd.una and marked no new loss; docs/tcp.md §4.6")
        .source("RFC 6937 §3 (rfc6937); Linux tcp_init_cwnd_reduction, tcp_cwnd_reduction, net/ipv4/tcp_input.c:2709–2747 (the linux profile)"),
    Param::new("recovery_burst", Ty::Int { min: 1, max: U32 }, Dflt::None("no limit"))
        .unit("segments")
        .doc("NewReno: at most this many new segments per ACK during fast recovery (ns-2's send_much(0, 0, 2)); docs/tcp.md §11.1")
        .source("none: RFC 6582 sets no limit; ns-2.35 tcp/tcp-newreno.cc:300–303 sends at most 2 (the ns2 profile)"),
    Param::boolean("fack_restart", false)
        .doc("FACK: enter recovery with cwnd = 1 segment and open it on every ACK in recovery (+1 below ssthresh, else +1/cwnd), as ns-2's Agent/TCP/Fack; docs/tcp.md §11.1")
        .source("our choice: off, cwnd = ssthresh (Mathis & Mahdavi 1996 §4); ns-2.35 tcp/tcp-fack.cc:197, 233 (the ns2 profile)"),
    Param::choice("halving", "exact", &["exact", "ns2"])
        .doc("how the loss response halves: exact, or ns-2's int(min(amount, max_window)/2) in whole segments; docs/tcp.md §11.1")
        .source("RFC 5681 §3.1 (exact); ns-2.35 tcp/tcp.cc:1254, 1296 (the ns2 profile)"),
    Param::boolean("sack_block_bytes", false)
        .doc("ACKs grow by 8 bytes per SACK block, with no option header or padding, as ns-2's sinks (sack_option_bytes wins); docs/tcp.md §11.1")
        .source("our choice: off; ns-2.35 tcp/tcp-sink.cc:755 (the ns2 profile)"),
    Param::new("init_ssthresh", Ty::Packets { min: 1, max: U32 }, Dflt::None("unlimited"))
        .alt(Alt::Words(&[("max_window", "the flow's max_window (unlimited without one), as ns-2's ssthresh_ = window_")]))
        .doc("the slow-start threshold a connection starts with, in segments or \"max_window\"; docs/tcp.md §11.1")
        .source("RFC 5681 §3.1 (arbitrarily high); ns-2.35 tcp/tcp.cc:462 ssthresh_ = int(wnd_), the window_ (the ns2 profile)"),
];

/// The `cc` of a TCP flow.
pub const CC: &[Param] = &[Param::kinded("cc", &CC_KINDS, "reno")
    .doc("congestion-avoidance controller, with its parameters")
    .source("Reno (RFC 5681)")];

/// `ecn`'s default: DCTCP's echo for the DCTCP controller (RFC 8257 needs it), else off.
fn ecn_for_controller(r: &Resolved) -> Value {
    let cc = r.value("cc");
    let dctcp = cc.get("kind").and_then(Value::as_str) == Some(crate::cc::dctcp::KIND.kind.name);
    Value::from(if dctcp { "dctcp" } else { "off" })
}

/// The other keys of a TCP flow: ECN, path selection and the application.
pub const TCP_PARAMS: &[Param] = &[
    Param::choice("ecn", "off", &["off", "rfc3168", "dctcp"])
        .derived("\"dctcp\" with cc = \"dctcp\", else \"off\"", ecn_for_controller)
        .doc("ECN: off; rfc3168 (ECT data, ECE until CWR, one window reduction per window of data); dctcp (as rfc3168 with DCTCP's per-packet echo, RFC 8257 §3.2)")
        .source("RFC 3168 §6.1 and RFC 8257 §3.2; off by default as in ns-2 (Agent/TCP ecn_ 0), and DCTCP needs its echo"),
    Param::new(
        "select",
        Ty::Kinded(&SELECT_KINDS),
        Dflt::None("the single pinned path, or the routing table"),
    )
    .doc("MATCP path selection: one of the flow's paths per connection (Dimopoulos et al. 2006)")
    .source("none"),
    Param::boolean("handshake", false)
        .doc("a SYN / SYN-ACK exchange first, so data starts one round trip after the connection opens (TCP flows only); docs/tcp.md §10.7")
        .source("our choice: off, data at once (every real stack and ns-3 open with a handshake; ns-2's one-way agents do not)"),
    Param::int("quick_acks", 0, 0, U32)
        .unit("ACKs")
        .doc("the receiver acknowledges every in-order segment at once for a connection's first this many ACKs, and again after a duplicate segment (Linux's quick-ACK mode); 0: off; docs/tcp.md §6")
        .source("our choice: 0, RFC 5681 §4.2's every-second-segment rule from the start (Linux: up to TCP_MAX_QUICKACKS 16, the linux profile)"),
    Param::boolean("rcv_autotune", false)
        .doc("the receiver models Linux's receive window: it grows by two segments per in-order segment up to what the autotuned receive buffer holds, and every segment that grows it is acknowledged at once (tcp_grow_window; the buffer grows once per receiver RTT from what was read, tcp_rcv_space_adjust); only the ACK timing follows from it; docs/tcp.md §6")
        .source("our choice: off, the ACK policy of RFC 5681 §4.2 (Linux: tcp_grow_window and tcp_rcvbuf_grow, net/ipv4/tcp_input.c, the linux profile)"),
    Param::choice("push_flags", "none", &["none", "linux"])
        .doc("which data segments carry PSH: none, or linux: the last segment of each GSO packet of two or more segments that one transmission sends (packets of up to about a millisecond of the pacing rate, at least 2 segments; tcp_tso_autosize); only a receiver with ack_pushed looks at them; docs/tcp.md §6")
        .source("our choice: none (PSH changes nothing without ack_pushed); Linux: __tcp_transmit_skb sets PSH on every GSO packet of more than one segment, net/ipv4/tcp_output.c (the linux profile)"),
    Param::boolean("ack_pushed", false)
        .doc("the receiver acknowledges at once an in-order full-sized segment carrying PSH when it holds no out-of-order data (the application's read then empties the receive queue); docs/tcp.md §6")
        .source("our choice: off, RFC 5681 §4.2's every-second-segment rule (Linux ≥ 6.10: tcp_measure_rcv_mss sets ICSK_ACK_PUSHED, __tcp_cleanup_rbuf acks at the read, net/ipv4/tcp_input.c and tcp.c; the linux profile)"),
    Param::boolean("sack_compress", false)
        .doc("the receiver holds SACKs: after three duplicate ACKs since rcv_nxt last moved, an out-of-order segment's SACK waits min(sack_compress_delay, 5 % of the receiver's RTT) plus sack_compress_slack, and any ACK sent takes the held ones along (Linux's SACK compression); SACK recoveries only; the receiver's RTT is rcv_autotune's estimate, else the handshake's, else the delay is not capped; docs/tcp.md §6")
        .source("our choice: off, RFC 5681 §4.2's immediate ACK of out-of-order data (Linux ≥ 4.18: __tcp_ack_snd_check and tcp_sack_new_ofo_skb, net/ipv4/tcp_input.c:5810–5875, 4836–4862; the linux profile)"),
    Param::positive_duration("sack_compress_delay", "1ms")
        .doc("with sack_compress: the most a SACK is held (net.ipv4.tcp_comp_sack_delay_ns)")
        .source("Linux: tcp_comp_sack_delay_ns = NSEC_PER_MSEC, tcp_sk_init, net/ipv4/tcp_ipv4.c:3647 (6.12.117)"),
    Param::duration("sack_compress_slack", "100us")
        .doc("with sack_compress: the compression timer's slack, added to its delay (the hrtimer fires at the late end on an otherwise idle CPU; net.ipv4.tcp_comp_sack_slack_ns)")
        .source("Linux: tcp_comp_sack_slack_ns = 100 µs, net/ipv4/tcp_ipv4.c:3648 (6.12.117); the 6.18 kernel's held SACKs left 1.10–1.20 ms after the data (docs/validation.md §6)"),
    Param::int("sack_compress_nr", 44, 1, U32)
        .unit("SACKs")
        .doc("with sack_compress: held SACKs that send an ACK at once (net.ipv4.tcp_comp_sack_nr)")
        .source("Linux: tcp_comp_sack_nr = 44, net/ipv4/tcp_ipv4.c:3649 (6.12.117)"),
    Param::boolean("tso_defer", false)
        .doc("SACK senders: hold back a remainder smaller than a GSO packet (and than a third of cwnd) until the next ACK when it transmitted within the last millisecond and the oldest outstanding segment's ACK is expected within min(srtt/2, 1 ms), outside recovery (Linux's TSO deferral); docs/tcp.md §6")
        .source("our choice: off, every segment the window allows leaves at once (Linux: tcp_tso_should_defer, net/ipv4/tcp_output.c; the linux profile)"),
    Param::choice("pacing", "segment", &["segment", "linux"])
        .doc("how a pacing controller's (BBR's) segments are spaced: segment, each its payload's time at the rate after the previous; linux, the kernel's internal pacing: GSO bursts of tcp_tso_autosize segments (2 at 10 Mb/s) that leave together and then wait their whole time, lateness credited up to half a burst, the first 10 segments unpaced, retransmissions paced too, each a packet of its own; docs/tcp.md §2")
        .source("our choice: segment, the smooth pacing of draft-cardwell-iccrg-bbr-congestion-control §4.2.1 (Linux: tcp_pacing_check and tcp_update_skb_after_send, net/ipv4/tcp_output.c:2579–2596, 1251–1273; the linux profile)"),
    Param::new(
        "app",
        Ty::Kinded(&TCP_APPS),
        Dflt::Required("an application is required, e.g. app = { kind = \"bulk\" }"),
    )
    .doc("the application driving the sender")
    .source("required"),
];

/// `transport = "tcp"` (the default); `stack` chooses a profile (`stack.rs`).
pub const KIND: Kind = Kind {
    presets: stack::PRESETS,
    preset_key: "stack",
    ..Kind::new(
        "tcp",
        "TCP with a window-based congestion controller (docs/tcp.md)",
        &[stack::PARAMS, CC, SENDER, TCP_PARAMS],
    )
};
