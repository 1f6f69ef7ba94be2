//! Congestion control of a CMT-SCTP association: one window per destination (path), and
//! the rules that move them. Two controllers:
//!
//! - **CMT-CC**: RFC 4960 §7.2 applied independently per destination, as CMT does
//!   (Iyengar, Amer & Stewart, ToN 2006). Slow start (cwnd ≤ ssthresh): cwnd += min(acked,
//!   MTU). Congestion avoidance: partial_bytes_acked (pba) += acked; once pba ≥ cwnd on a
//!   cwnd-limited path, cwnd += MTU and pba −= cwnd. Fast retransmit: ssthresh =
//!   max(cwnd/2, floor·MTU), cwnd = ssthresh. T3 timeout: ssthresh likewise, cwnd = 1·MTU.
//!   The floor is 4 in RFC 4960 §7.2.3 and ns-2.35's plain SCTP agent, 2 (`initialCwnd_`)
//!   in ns-2.35's CMT agent (`SctpCMTAgent::FastRtx`, `Timeout`).
//! - **CMT-BERP** (Shailendra, Bhattacharjee & Bose; ALGORITHMS.md §3.1): the same slow
//!   start; congestion avoidance adds min(α·P_a·MTU/w_T, P_a·MTU/w_i) with
//!   α = 2·w_T·max_i(β_i·w_i/srtt_i²)/(Σ_i w_i/srtt_i)² (eq. (1)); a fast retransmit or
//!   timeout sets ssthresh = max(w_i − β_i·w_i, floor·MTU) with β_i = BWE_i/Σ BWE (eq. (2)).
//!
//! Both keep a per-path bandwidth estimate from SACKs, eq. (3)–(4) (`cc/bwe.rs`, Tustin form
//! with gain p): CMT-CC only traces it. The transport decides *when* a rule fires (CUC,
//! SFR, the T3 timer); this module only decides *by how much*. Windows are fractional bytes;
//! "MTU" here is the window unit the transport passes (the MTU, or ns-2's largest DATA chunk).

use super::bwe::{BandwidthFilter, WestwoodFilter};
use crate::params::{Alt, Bound, Kind, Kinds, Lit, Param};
use crate::units::SimTime;
use serde::{Deserialize, Serialize};

/// Congestion control of a CMT association (`cc` of an SCTP flow).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum CmtCcSpec {
    /// RFC 4960 congestion control applied independently per destination (CMT-CC).
    Cmt(CmtSpec),
    /// CMT-BERP (Shailendra, Bhattacharjee & Bose).
    Berp(BerpSpec),
}

/// CMT-CC's parameters (declared in [`CMT_PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in CMT_PARAMS
pub struct CmtSpec {
    #[serde(rename = "floor")]
    pub floor_mtus: f64,
}

impl Default for CmtSpec {
    fn default() -> CmtSpec {
        crate::params::defaults(CMT_PARAMS)
    }
}

/// CMT-CC's parameter table.
pub const CMT_PARAMS: &[Param] = &[Param::float("floor", 4.0, Bound::Excl(0.0), Bound::Incl(1e6))
    .unit("MTUs")
    .doc("ssthresh floor after a fast retransmit or T3 timeout: max(cwnd/2, floor·MTU)")
    .source("RFC 4960 §7.2.3 and ns-2.35's plain SCTP agent (4); ns-2.35's CMT agent uses initialCwnd_ = 2 (SctpCMTAgent::FastRtx, Timeout; docs/sources/ns-2.35.md)")];

/// When BERP's coupled increase is applied (ALGORITHMS.md §3.1.3 item 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BerpIncrease {
    /// RFC 4960's partial_bytes_acked trigger: once P_a ≥ w_i on a cwnd-limited path,
    /// add min(α·P_a·MTU/w_T, P_a·MTU/w_i), then P_a −= w_i (default).
    #[default]
    Pba,
    /// On every SACK: add min(α·acked·MTU/w_T, acked·MTU/w_i) (RFC 6356's byte form).
    PerSack,
}

/// How BERP's β_i is obtained.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "Option<f64>", into = "Option<f64>")]
pub enum BerpBeta {
    /// β_i = BWE_i / Σ BWE (eq. (2)); 1/n until every path has an estimate (default).
    Estimate,
    /// A constant (½ makes BERP LIA-coupled CMT, the paper's MPTCP special case).
    Fixed(f64),
}

impl From<Option<f64>> for BerpBeta {
    fn from(v: Option<f64>) -> BerpBeta {
        v.map_or(BerpBeta::Estimate, BerpBeta::Fixed)
    }
}

impl From<BerpBeta> for Option<f64> {
    fn from(b: BerpBeta) -> Option<f64> {
        match b {
            BerpBeta::Estimate => None,
            BerpBeta::Fixed(x) => Some(x),
        }
    }
}

/// Which path a SACK's newly acked bytes count towards in the bandwidth estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BerpAttribution {
    /// The path each acked chunk was last sent on (default).
    #[default]
    LastSent,
    /// The path the SACK arrived on.
    SackPath,
}

/// CMT-BERP's parameters (declared in [`BERP_PARAMS`]; each open choice of the paper is
/// named, ALGORITHMS.md §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // each field is declared, with its doc and source, in BERP_PARAMS
pub struct BerpSpec {
    pub p: f64,
    #[serde(rename = "floor")]
    pub floor_mtus: f64,
    pub beta: BerpBeta,
    pub beta_clamp: bool,
    pub increase: BerpIncrease,
    pub attribution: BerpAttribution,
}

impl Default for BerpSpec {
    fn default() -> BerpSpec {
        crate::params::defaults(BERP_PARAMS)
    }
}

/// CMT-BERP's parameter table.
pub const BERP_PARAMS: &[Param] = &[
    Param::float("p", 0.9, Bound::Excl(0.0), Bound::Excl(1.0))
        .doc("p of the bandwidth filter, eq. (4)")
        .source("Shailendra, Bhattacharjee & Bose, eq. (4) (p = 0.9)"),
    Param::float("floor", 4.0, Bound::Excl(0.0), Bound::Incl(1e6))
        .unit("MTUs")
        .doc("ssthresh floor after a decrease")
        .source("the paper and RFC 4960 §7.2.3 (4 MTUs)"),
    Param::float("beta", 0.5, Bound::Excl(0.0), Bound::Excl(1.0))
        .alt(Alt::Word("estimate", "β_i = BWE_i/Σ BWE, eq. (2)"))
        .default_to(Lit::Str("estimate"))
        .doc("decrease fraction β_i: the estimate of eq. (2), or a constant (½ makes BERP LIA-coupled CMT)")
        .source("the paper's eq. (2)"),
    Param::boolean("beta_clamp", true)
        .doc("clamp the estimated β_i to [1/(2n), 1 − 1/(2n)]")
        .source("our choice, ALGORITHMS.md §3.1.3 item 4: keeps a path with a poor estimate from losing nothing or everything"),
    Param::choice("increase", "pba", &["pba", "per_sack"])
        .doc("when the coupled increase applies: RFC 4960's partial_bytes_acked trigger, or on every SACK (RFC 6356's byte form)")
        .source("RFC 4960 §7.2.2 (the paper builds on CMT's pba rule); ALGORITHMS.md §3.1.3 item 1"),
    Param::choice("attribution", "last_sent", &["last_sent", "sack_path"])
        .doc("which path a SACK's newly acked bytes count towards in eq. (3): the path each chunk was last sent on, or the path the SACK arrived on")
        .source("our choice: per-path bandwidth means the bytes each path carried (ALGORITHMS.md §3.1.3)"),
];

/// The controllers of an SCTP flow's `cc`.
pub const CMT_KINDS: Kinds = Kinds {
    what: "SCTP controller",
    list: || vec![&CMT, &BERP],
    note: "",
    number: None,
};

/// `cc = "cmt"`.
pub const CMT: Kind = Kind::new(
    "cmt",
    "CMT-CC: RFC 4960 congestion control per destination (Iyengar et al. 2006)",
    &[CMT_PARAMS],
);

/// `cc = "berp"`.
pub const BERP: Kind = Kind::new(
    "berp",
    "CMT-BERP, Shailendra, Bhattacharjee & Bose (docs/sctp.md)",
    &[BERP_PARAMS],
);

/// One destination's window state.
#[derive(Clone, Debug)]
pub struct PathWindow {
    /// Congestion window, bytes.
    pub cwnd: f64,
    /// Slow-start threshold, bytes.
    pub ssthresh: f64,
    /// RFC 4960 partial_bytes_acked, bytes.
    pub pba: f64,
    /// Smoothed RTT in seconds (0 before the first sample); set by the transport.
    pub srtt: f64,
    bwe: BandwidthFilter,
    /// Arrival of the previous SACK that acked data of this path (t_{k−1} of eq. (3)).
    last_sack: Option<SimTime>,
    /// Bytes acked since `last_sack` not yet turned into a sample.
    pending: f64,
}

impl PathWindow {
    /// The filtered bandwidth estimate in bytes/s, once there is one.
    pub fn bandwidth_estimate(&self) -> Option<f64> {
        self.bwe.estimate()
    }
}

/// The windows of every destination of one association and the rules of its controller.
#[derive(Clone, Debug)]
pub struct CmtWindows {
    spec: CmtCcSpec,
    mtu: f64,
    /// Per-destination windows, in destination order.
    pub paths: Vec<PathWindow>,
    alpha: f64,
}

impl CmtWindows {
    /// `n` destinations, each starting at `init_cwnd` and `init_ssthresh` bytes; `mtu` is
    /// the unit of window arithmetic.
    pub fn new(spec: CmtCcSpec, n: usize, mtu: u32, init_cwnd: f64, init_ssthresh: f64) -> Self {
        let p = match spec {
            CmtCcSpec::Berp(b) => b.p,
            CmtCcSpec::Cmt(_) => 0.9,
        };
        let path = PathWindow {
            cwnd: init_cwnd,
            ssthresh: init_ssthresh,
            pba: 0.0,
            srtt: 0.0,
            bwe: BandwidthFilter::new(WestwoodFilter::Tustin, p),
            last_sack: None,
            pending: 0.0,
        };
        CmtWindows {
            spec,
            mtu: mtu as f64,
            paths: vec![path; n.max(1)],
            alpha: 1.0,
        }
    }

    /// "cmt" or "berp".
    pub fn name(&self) -> &'static str {
        match self.spec {
            CmtCcSpec::Cmt(_) => "cmt",
            CmtCcSpec::Berp(_) => "berp",
        }
    }

    /// Sum of the windows, w_T.
    pub fn total_cwnd(&self) -> f64 {
        self.paths.iter().map(|p| p.cwnd).sum()
    }

    /// The last α computed by BERP (1 for CMT-CC).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// β_i: BERP's decrease fraction for path `i` (½ for CMT-CC, which halves).
    pub fn beta(&self, i: usize) -> f64 {
        let CmtCcSpec::Berp(b) = self.spec else {
            return 0.5;
        };
        let n = self.paths.len() as f64;
        match b.beta {
            BerpBeta::Fixed(x) => x,
            BerpBeta::Estimate => {
                // Until every path has an estimate, 1/n (ALGORITHMS.md §3.1.3 item 4).
                let est: Option<Vec<f64>> = self
                    .paths
                    .iter()
                    .map(|p| p.bwe.estimate().filter(|&e| e > 0.0))
                    .collect();
                let Some(est) = est else { return 1.0 / n };
                let beta = est[i] / est.iter().sum::<f64>();
                if b.beta_clamp && n > 1.0 {
                    beta.clamp(1.0 / (2.0 * n), 1.0 - 1.0 / (2.0 * n))
                } else {
                    beta
                }
            }
        }
    }

    /// Eq. (1): α = 2·w_T·max_i(β_i·w_i/srtt_i²)/(Σ_i w_i/srtt_i)², over the paths with an
    /// RTT sample; 1 while fewer than one path has one. With β_i ≡ ½ it is RFC 6356's α.
    pub fn compute_alpha(&self) -> f64 {
        let mut best: f64 = 0.0;
        let mut sum = 0.0;
        let mut total = 0.0;
        let mut any = false;
        for (i, p) in self.paths.iter().enumerate() {
            total += p.cwnd;
            if p.srtt <= 0.0 {
                continue;
            }
            any = true;
            best = best.max(self.beta(i) * p.cwnd / (p.srtt * p.srtt));
            sum += p.cwnd / p.srtt;
        }
        if !any || sum <= 0.0 {
            return 1.0;
        }
        2.0 * total * best / (sum * sum)
    }

    /// A SACK newly acknowledged `acked` bytes counted for destination `i` (after CUC
    /// decided the destination may grow), RFC 4960 §7.2.1–7.2.2. `cwnd_limited`: the flight
    /// to `i` before the SACK was at least cwnd.
    pub fn on_ack(&mut self, i: usize, acked: f64, cwnd_limited: bool) {
        let mtu = self.mtu;
        let berp = match self.spec {
            CmtCcSpec::Berp(b) => Some(b),
            CmtCcSpec::Cmt(_) => None,
        };
        if self.paths[i].cwnd <= self.paths[i].ssthresh {
            // §7.2.1 slow start: only when the window was fully used.
            if cwnd_limited {
                self.paths[i].cwnd += acked.min(mtu);
            }
            return;
        }
        match berp.map(|b| b.increase) {
            Some(BerpIncrease::PerSack) => {
                if cwnd_limited {
                    self.alpha = self.compute_alpha();
                    let (w, wt) = (self.paths[i].cwnd, self.total_cwnd());
                    self.paths[i].cwnd += (self.alpha * acked * mtu / wt).min(acked * mtu / w);
                }
            }
            _ => {
                // §7.2.2: pba counts every newly acked byte; the window moves once per cwnd.
                self.paths[i].pba += acked;
                if self.paths[i].pba >= self.paths[i].cwnd && cwnd_limited {
                    let pa = self.paths[i].pba;
                    let inc = if berp.is_some() {
                        self.alpha = self.compute_alpha();
                        let (w, wt) = (self.paths[i].cwnd, self.total_cwnd());
                        (self.alpha * pa * mtu / wt).min(pa * mtu / w)
                    } else {
                        mtu
                    };
                    let p = &mut self.paths[i];
                    p.cwnd += inc;
                    // "reset partial_bytes_acked to (partial_bytes_acked − cwnd)", after the
                    // increase as the RFC and the paper list the steps.
                    p.pba = (p.pba - p.cwnd).max(0.0);
                }
            }
        }
    }

    /// Every byte sent to `i` is acknowledged: pba = 0 (RFC 4960 §7.2.2).
    pub fn on_path_idle(&mut self, i: usize) {
        self.paths[i].pba = 0.0;
    }

    /// Eq. (3)–(4): a SACK arriving at `now` newly acknowledged `bytes` of path `i`.
    /// The first such SACK only sets the reference time; zero-byte SACKs are skipped.
    pub fn on_bandwidth_sample(&mut self, i: usize, now: SimTime, bytes: f64) {
        if bytes <= 0.0 {
            return;
        }
        let p = &mut self.paths[i];
        if let Some(t) = p.last_sack {
            p.pending += bytes;
            // Two SACKs at the same instant: their bytes join the next sample, with the old
            // reference time (an infinite rate would poison the filter).
            let dt = now.since(t).secs();
            if dt > 0.0 {
                p.bwe.push(p.pending / dt);
                p.pending = 0.0;
                p.last_sack = Some(now);
            }
        } else {
            p.last_sack = Some(now);
        }
    }

    fn decrease_ssthresh(&self, i: usize) -> f64 {
        let w = self.paths[i].cwnd;
        match self.spec {
            CmtCcSpec::Cmt(c) => (w / 2.0).max(c.floor_mtus * self.mtu),
            CmtCcSpec::Berp(b) => (w - self.beta(i) * w).max(b.floor_mtus * self.mtu),
        }
    }

    /// Fast retransmit of data last sent to `i` (once per fast recovery of `i`).
    pub fn on_fast_retransmit(&mut self, i: usize) {
        let s = self.decrease_ssthresh(i);
        let p = &mut self.paths[i];
        p.ssthresh = s;
        p.cwnd = s;
        p.pba = 0.0;
    }

    /// A potentially-failed destination answered a HEARTBEAT (CMT-PF, ns-2.35
    /// `SctpCMTAgent::ProcessChunk`, HB-ACK case): cwnd = `mtus`·MTU, ssthresh kept.
    pub fn on_pf_active(&mut self, i: usize, mtus: f64) {
        let p = &mut self.paths[i];
        p.cwnd = mtus * self.mtu;
        p.pba = 0.0;
    }

    /// The window unit (bytes).
    pub fn mtu(&self) -> f64 {
        self.mtu
    }

    /// T3-rtx timer of `i` expired (RFC 4960 §7.2.3; BERP: the paper's "I·MTU" read as 1).
    pub fn on_timeout(&mut self, i: usize) {
        let s = self.decrease_ssthresh(i);
        let mtu = self.mtu;
        let p = &mut self.paths[i];
        p.ssthresh = s;
        p.cwnd = mtu;
        p.pba = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Dur;

    const MTU: f64 = 1500.0;

    fn cmt(n: usize, cwnd: f64, ssthresh: f64) -> CmtWindows {
        CmtWindows::new(CmtCcSpec::Cmt(CmtSpec::default()), n, 1500, cwnd, ssthresh)
    }

    fn berp(n: usize, spec: BerpSpec) -> CmtWindows {
        CmtWindows::new(CmtCcSpec::Berp(spec), n, 1500, 10.0 * MTU, 1.0)
    }

    #[test]
    fn slow_start_adds_at_most_one_mtu_per_sack_when_cwnd_limited() {
        let mut w = cmt(1, 2.0 * MTU, 1e9);
        w.on_ack(0, 2.0 * 1468.0, true);
        assert_eq!(w.paths[0].cwnd, 3.0 * MTU);
        w.on_ack(0, 1000.0, true);
        assert_eq!(w.paths[0].cwnd, 3.0 * MTU + 1000.0);
        // Not fully utilised: no growth (RFC 4960 §7.2.1).
        w.on_ack(0, 1468.0, false);
        assert_eq!(w.paths[0].cwnd, 3.0 * MTU + 1000.0);
    }

    #[test]
    fn congestion_avoidance_adds_one_mtu_per_cwnd_of_acked_bytes() {
        let mut w = cmt(1, 10.0 * MTU, 1.0);
        // 9 MTUs of acks: pba below cwnd, no growth.
        for _ in 0..9 {
            w.on_ack(0, MTU, true);
        }
        assert_eq!(w.paths[0].cwnd, 10.0 * MTU);
        assert_eq!(w.paths[0].pba, 9.0 * MTU);
        w.on_ack(0, MTU, true);
        assert_eq!(w.paths[0].cwnd, 11.0 * MTU);
        // pba − cwnd (the new cwnd) clamps at zero.
        assert_eq!(w.paths[0].pba, 0.0);
        // pba ≥ cwnd but the path was not cwnd-limited: no growth, pba keeps counting.
        let mut w = cmt(1, 4.0 * MTU, 1.0);
        for _ in 0..5 {
            w.on_ack(0, MTU, false);
        }
        assert_eq!(w.paths[0].cwnd, 4.0 * MTU);
        assert_eq!(w.paths[0].pba, 5.0 * MTU);
        w.on_path_idle(0);
        assert_eq!(w.paths[0].pba, 0.0);
    }

    #[test]
    fn cmt_cc_floor_is_a_parameter_ns2_cmt_agent_floors_at_two_mtus() {
        // ns-2.35 SctpCMTAgent::FastRtx / Timeout: ssthresh = max(cwnd/2, initialCwnd·MTU),
        // initialCwnd_ = 2: a 5-MTU window halves to 2.5 MTUs, not to the RFC's 4.
        let spec = CmtCcSpec::Cmt(CmtSpec { floor_mtus: 2.0 });
        let mut w = CmtWindows::new(spec, 2, 1500, 5.0 * MTU, 1.0);
        w.on_fast_retransmit(0);
        assert_eq!(w.paths[0].ssthresh, 2.5 * MTU);
        assert_eq!(w.paths[0].cwnd, 2.5 * MTU);
        w.paths[1].cwnd = 3.0 * MTU;
        w.on_timeout(1);
        assert_eq!(w.paths[1].ssthresh, 2.0 * MTU, "floored at 2 MTUs");
        assert_eq!(w.paths[1].cwnd, MTU);
        // The default keeps RFC 4960's 4 MTUs.
        let mut w = cmt(1, 5.0 * MTU, 1.0);
        w.on_fast_retransmit(0);
        assert_eq!(w.paths[0].ssthresh, 4.0 * MTU);
    }

    #[test]
    fn pf_destination_made_active_restarts_at_pf_cwnd_keeping_ssthresh() {
        let mut w = cmt(2, 10.0 * MTU, 1.0);
        w.on_timeout(0);
        assert_eq!(w.paths[0].cwnd, MTU);
        w.on_pf_active(0, 2.0);
        assert_eq!(w.paths[0].cwnd, 2.0 * MTU);
        assert_eq!(w.paths[0].ssthresh, 5.0 * MTU);
    }

    #[test]
    fn cmt_cc_halves_on_fast_retransmit_and_resets_on_timeout_per_path() {
        let mut w = cmt(2, 20.0 * MTU, 1.0);
        w.on_fast_retransmit(0);
        assert_eq!(w.paths[0].cwnd, 10.0 * MTU);
        assert_eq!(w.paths[0].ssthresh, 10.0 * MTU);
        assert_eq!(w.paths[1].cwnd, 20.0 * MTU, "other destination untouched");
        w.on_timeout(1);
        assert_eq!(w.paths[1].cwnd, MTU);
        assert_eq!(w.paths[1].ssthresh, 10.0 * MTU);
        // The 4·MTU floor.
        let mut w = cmt(1, 6.0 * MTU, 1.0);
        w.on_fast_retransmit(0);
        assert_eq!(w.paths[0].cwnd, 4.0 * MTU);
    }

    #[test]
    fn berp_beta_is_the_share_of_the_bandwidth_estimate() {
        let mut w = berp(2, BerpSpec::default());
        // No estimates yet: 1/n.
        assert_eq!(w.beta(0), 0.5);
        let t = |ms| SimTime::ZERO + Dur::from_millis(ms);
        // Path 0: 3000 B per 100 ms = 30 kB/s; path 1: 1000 B per 100 ms = 10 kB/s.
        for ms in [0, 100, 200] {
            w.on_bandwidth_sample(0, t(ms), 3000.0);
            w.on_bandwidth_sample(1, t(ms), 1000.0);
        }
        assert!((w.paths[0].bandwidth_estimate().unwrap() - 30_000.0).abs() < 1e-6);
        assert!((w.beta(0) - 0.75).abs() < 1e-9);
        assert!((w.beta(1) - 0.25).abs() < 1e-9);
        // Decrease by β_i·w_i with the 4·MTU floor: path 0 keeps a quarter of 20 MTUs.
        w.paths[0].cwnd = 20.0 * MTU;
        w.on_fast_retransmit(0);
        assert!((w.paths[0].cwnd - 5.0 * MTU).abs() < 1e-9);
        w.paths[1].cwnd = 20.0 * MTU;
        w.on_timeout(1);
        assert!((w.paths[1].ssthresh - 15.0 * MTU).abs() < 1e-9);
        assert_eq!(w.paths[1].cwnd, MTU);
    }

    #[test]
    fn berp_beta_clamp_keeps_a_decrease_on_a_starved_path() {
        let mut w = berp(2, BerpSpec::default());
        let t = |ms| SimTime::ZERO + Dur::from_millis(ms);
        for ms in [0, 100, 200] {
            w.on_bandwidth_sample(0, t(ms), 100_000.0);
            w.on_bandwidth_sample(1, t(ms), 1.0);
        }
        assert_eq!(w.beta(1), 0.25);
        assert_eq!(w.beta(0), 0.75);
        let mut u = berp(
            2,
            BerpSpec {
                beta_clamp: false,
                ..BerpSpec::default()
            },
        );
        for ms in [0, 100, 200] {
            u.on_bandwidth_sample(0, t(ms), 100_000.0);
            u.on_bandwidth_sample(1, t(ms), 1.0);
        }
        assert!(u.beta(1) < 1e-4);
    }

    /// One destination: eq. (2) gives β = B/B = 1 whether or not the clamp is on (the
    /// clamp is declared for several paths; with one its interval [1/(2n), 1 − 1/(2n)] would
    /// be the single point ½ and override the equation).
    #[test]
    fn berp_beta_on_one_destination_is_eq_2s_whole_share() {
        let t = |ms| SimTime::ZERO + Dur::from_millis(ms);
        for clamp in [true, false] {
            let mut w = berp(
                1,
                BerpSpec {
                    beta_clamp: clamp,
                    ..BerpSpec::default()
                },
            );
            for ms in [0, 100, 200] {
                w.on_bandwidth_sample(0, t(ms), 3000.0);
            }
            assert_eq!(w.beta(0), 1.0, "clamp {clamp}");
        }
    }

    #[test]
    fn berp_alpha_with_beta_half_is_lia_alpha() {
        let mut w = berp(
            2,
            BerpSpec {
                beta: BerpBeta::Fixed(0.5),
                ..BerpSpec::default()
            },
        );
        w.paths[0].cwnd = 10.0 * MTU;
        w.paths[0].srtt = 0.1;
        w.paths[1].cwnd = 30.0 * MTU;
        w.paths[1].srtt = 0.3;
        // RFC 6356: α = w_T·max(w_i/rtt_i²)/(Σ w_i/rtt_i)².
        let (w0, w1) = (10.0 * MTU, 30.0 * MTU);
        let lia = (w0 + w1) * (w0 / 0.01f64).max(w1 / 0.09) / (w0 / 0.1 + w1 / 0.3).powi(2);
        assert!((w.compute_alpha() - lia).abs() < 1e-12);
        // Symmetric paths: α = 1/n.
        w.paths[1].cwnd = 10.0 * MTU;
        w.paths[1].srtt = 0.1;
        assert!((w.compute_alpha() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn berp_increase_is_lia_per_cwnd_of_acked_bytes() {
        let mut w = berp(
            2,
            BerpSpec {
                beta: BerpBeta::Fixed(0.5),
                ..BerpSpec::default()
            },
        );
        for p in &mut w.paths {
            p.srtt = 0.1;
        }
        // Symmetric: α = ½, w_T = 20 MTU; once P_a = w_i = 10 MTU the increase is
        // min(½·10·MTU·MTU/20 MTU, 10·MTU·MTU/10 MTU) = ¼ MTU.
        for _ in 0..10 {
            w.on_ack(0, MTU, true);
        }
        assert!((w.paths[0].cwnd - 10.25 * MTU).abs() < 1e-9);
        assert!((w.alpha() - 0.5).abs() < 1e-12);
    }

    /// `increase = "per_sack"`: RFC 6356's byte form on every SACK of a cwnd-limited path,
    /// min(α·acked·MTU/w_T, acked·MTU/w_i), with no wait for partial_bytes_acked.
    #[test]
    fn berp_per_sack_increase_is_rfc_6356_byte_form_capped_by_the_path_window() {
        let per_sack = BerpSpec {
            beta: BerpBeta::Fixed(0.5),
            increase: BerpIncrease::PerSack,
            ..BerpSpec::default()
        };
        // Symmetric (10 MTU, 100 ms each): α = ½, w_T = 20 MTU, so one MTU acked adds
        // ½·MTU·MTU/(20 MTU) = MTU/40; the cap MTU·MTU/(10 MTU) = MTU/10 does not bind.
        let mut w = berp(2, per_sack);
        for p in &mut w.paths {
            p.srtt = 0.1;
        }
        w.on_ack(0, MTU, true);
        assert!((w.paths[0].cwnd - (10.0 + 1.0 / 40.0) * MTU).abs() < 1e-9);
        assert_eq!(w.paths[0].pba, 0.0, "no partial_bytes_acked counting");
        w.on_ack(0, MTU, false);
        assert!(
            (w.paths[0].cwnd - (10.0 + 1.0 / 40.0) * MTU).abs() < 1e-9,
            "not cwnd-limited"
        );
        // A 10-ms and a 1-s path with β = 0.9: α = 2·w_T·β·w_0/rtt_0²/(Σ w/rtt)²
        // = 2·20·0.9·10/10⁻⁴ / 1010² ≈ 3.53, so α·MTU·MTU/w_T ≈ 0.18 MTU exceeds the
        // cap MTU·MTU/w_0 = MTU/10, which is what the path gets.
        let mut w = berp(
            2,
            BerpSpec {
                beta: BerpBeta::Fixed(0.9),
                ..per_sack
            },
        );
        w.paths[0].srtt = 0.01;
        w.paths[1].srtt = 1.0;
        w.on_ack(0, MTU, true);
        assert!((w.alpha() - 2.0 * 20.0 * 0.9 * 10.0 / 1e-4 / 1010.0f64.powi(2)).abs() < 1e-9);
        assert!((w.paths[0].cwnd - 10.1 * MTU).abs() < 1e-9);
    }

    #[test]
    fn same_instant_sacks_do_not_make_an_infinite_sample() {
        let mut w = berp(1, BerpSpec::default());
        let t0 = SimTime::ZERO + Dur::from_millis(10);
        w.on_bandwidth_sample(0, t0, 1000.0);
        w.on_bandwidth_sample(0, t0, 1000.0);
        assert_eq!(w.paths[0].bandwidth_estimate(), None);
        w.on_bandwidth_sample(0, t0 + Dur::from_millis(100), 1000.0);
        assert!((w.paths[0].bandwidth_estimate().unwrap() - 20_000.0).abs() < 1e-6);
    }
}
