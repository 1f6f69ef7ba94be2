//! SCTP/CMT parts of the scenario model (`transport = "sctp"`; docs/sctp.md).

use super::model::{RtoSpec, StartSpec, TcpApp};
use crate::units::{Dur, SimTime};

/// SCTP/CMT association parameters (`docs/sctp.md`). Defaults follow ns-2.35's SCTP agent,
/// which the CMT-BERP paper used (ALGORITHMS.md §1.12, §3.1.4).
#[derive(Clone, Debug)]
pub struct SctpSpec {
    /// Path MTU: bytes on the wire of a full data packet. Default 1500.
    pub mtu: u32,
    /// Per-packet overhead of a data packet: IP 20 + SCTP common header 12 + DATA chunk
    /// header 16. Default 48, so a full packet carries 1452 payload bytes.
    pub overhead: u32,
    /// Initial cwnd per destination, in MTUs. Default 2 (ns-2 `initialCwnd_`).
    pub init_cwnd: u32,
    /// Initial cwnd per destination in bytes, when given as a size (`init_cwnd = "4380B"`,
    /// ns-2.35's `SctpAgent::Reset`); overrides `init_cwnd`.
    pub init_cwnd_bytes: Option<u64>,
    /// Initial ssthresh per destination, bytes. Default 65536 (ns-2 `initialSsthresh_`).
    pub init_ssthresh: u64,
    /// Receiver buffer (advertised window), bytes. Default 65536 (ns-2 `initialRwnd_`).
    pub rwnd: u64,
    /// Delayed-SACK timer; `None` SACKs every packet. Default 200 ms (RFC 4960 §6.2).
    pub sack_delay: Option<Dur>,
    /// Miss indications that trigger fast retransmit. Default 4 (the paper's "four
    /// duplicates", RFC 2960; RFC 4960 uses 3).
    pub fast_rtx_threshold: u32,
    /// Split fast retransmit (CMT). Default on.
    pub sfr: bool,
    /// cwnd update for CMT via per-destination pseudo-cumacks. Default on.
    pub cuc: bool,
    /// Delayed ack for CMT. Default on.
    pub dac: bool,
    /// Where retransmissions go. Default RTX-CWND (ns-2.35 default).
    pub rtx_policy: RtxPolicy,
    /// Most new packets sent per destination in reply to one SACK (RFC 4960 §6.1
    /// Max.Burst); 0 is unlimited. Default 4 (ns-2 `useMaxBurst_`).
    pub max_burst: u32,
    /// Retransmission timer per destination (RFC 4960 §6.3: min 1 s, max 60 s,
    /// initial 3 s).
    pub rto: RtoSpec,
    /// How a window admits packets. Default `WholePackets`.
    pub cwnd_rule: CwndRule,
    /// CMT-PF (potentially-failed destinations, ns-2.35 `useCmtPF_`). Default off.
    pub pf: bool,
    /// cwnd in MTUs of a PF destination made active again by a HEARTBEAT ACK (ns-2.35
    /// `cmtPFCwnd_`). Default 2.
    pub pf_cwnd: u32,
    /// Congestion control: CMT-CC or CMT-BERP.
    pub cc: CmtCcSpec,
    /// The file to send (bulk only).
    pub app: TcpApp,
}

/// CMT's retransmission-destination policies (Iyengar et al. 2006 §IV).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RtxPolicy {
    /// The destination the data was last sent to (RTX-SAME).
    Same,
    /// The destination with the largest ssthresh (RTX-SSTHRESH).
    Ssthresh,
    /// The destination with the largest cwnd (RTX-CWND).
    #[default]
    Cwnd,
}

/// How a destination's window admits new packets (docs/sctp.md, "Sending").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CwndRule {
    /// Windows in MTUs; a packet may go if flight + chunk ≤ cwnd, so a window of k MTUs
    /// carries k packets (default).
    #[default]
    WholePackets,
    /// ns-2.35's agent: windows counted in units of the largest DATA chunk (MTU − IP and
    /// common headers, 1468 B), and a packet may go while flight < cwnd (RFC 4960 §6.1 B
    /// read literally, `SctpCMTAgent::SendMuch`), so a fractional window rounds up.
    Ns2,
}

/// CMT-CC parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CmtSpec {
    /// ssthresh floor in MTUs after a fast retransmit or T3 timeout: max(cwnd/2, floor·MTU).
    /// Default 4 (RFC 4960 §7.2.3, ns-2.35's plain SCTP agent); ns-2.35's CMT agent uses
    /// `initialCwnd_` = 2 (`SctpCMTAgent::FastRtx`, `Timeout`).
    pub floor_mtus: f64,
}

impl Default for CmtSpec {
    fn default() -> CmtSpec {
        CmtSpec { floor_mtus: 4.0 }
    }
}

/// Congestion control of a CMT association.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CmtCcSpec {
    /// RFC 4960 congestion control applied independently per destination (CMT-CC).
    Cmt(CmtSpec),
    /// CMT-BERP (Shailendra, Bhattacharjee & Bose), `cc/cmt.rs`.
    Berp(BerpSpec),
}

/// When BERP's coupled increase is applied (ALGORITHMS.md §3.1.3 item 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BerpIncrease {
    /// RFC 4960's partial_bytes_acked trigger: once P_a ≥ w_i on a cwnd-limited path,
    /// add min(α·P_a·MTU/w_T, P_a·MTU/w_i), then P_a −= w_i (default).
    #[default]
    Pba,
    /// On every SACK: add min(α·acked·MTU/w_T, acked·MTU/w_i) (RFC 6356's byte form).
    PerSack,
}

/// How BERP's β_i is obtained.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BerpBeta {
    /// β_i = BWE_i / Σ BWE (eq. (2)); 1/n until every path has an estimate (default).
    Estimate,
    /// A constant (½ makes BERP LIA-coupled CMT, the paper's MPTCP special case).
    Fixed(f64),
}

/// Which path a SACK's newly acked bytes count towards in the bandwidth estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BerpAttribution {
    /// The path each acked chunk was last sent on (default).
    #[default]
    LastSent,
    /// The path the SACK arrived on.
    SackPath,
}

/// CMT-BERP parameters (ALGORITHMS.md §3.1; each open choice of the paper is named here).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BerpSpec {
    /// p of the bandwidth filter, eq. (4). Default 0.9 (paper).
    pub p: f64,
    /// ssthresh floor in MTUs after a decrease. Default 4 (paper, RFC 4960).
    pub floor_mtus: f64,
    /// β_i source. Default eq. (2).
    pub beta: BerpBeta,
    /// Clamp the estimated β_i to [1/(2n), 1 − 1/(2n)]. Default on (ALGORITHMS.md §3.1.3
    /// item 4, an addition to the paper).
    pub beta_clamp: bool,
    /// Increase trigger. Default RFC 4960 pba.
    pub increase: BerpIncrease,
    /// Byte attribution for eq. (3). Default the path of the last transmission.
    pub attribution: BerpAttribution,
}

impl Default for BerpSpec {
    fn default() -> BerpSpec {
        BerpSpec {
            p: 0.9,
            floor_mtus: 4.0,
            beta: BerpBeta::Estimate,
            beta_clamp: true,
            increase: BerpIncrease::Pba,
            attribution: BerpAttribution::LastSent,
        }
    }
}

impl Default for SctpSpec {
    fn default() -> SctpSpec {
        SctpSpec {
            mtu: 1500,
            overhead: 48,
            init_cwnd: 2,
            init_cwnd_bytes: None,
            init_ssthresh: 65536,
            rwnd: 65536,
            sack_delay: Some(Dur::from_millis(200)),
            fast_rtx_threshold: 4,
            sfr: true,
            cuc: true,
            dac: true,
            rtx_policy: RtxPolicy::Cwnd,
            max_burst: 4,
            rto: RtoSpec {
                min: Dur::from_secs(1),
                max: Dur::from_secs(60),
                initial: Dur::from_secs(3),
                granularity: Dur::from_millis(1),
            },
            cwnd_rule: CwndRule::WholePackets,
            pf: false,
            pf_cwnd: 2,
            cc: CmtCcSpec::Cmt(CmtSpec::default()),
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
