//! BALIA, Balanced Linked Adaptation (Peng, Walid, Hwang & Low, ToN 2016;
//! draft-walid-mptcp-congestion-control). With x_k = w_k/τ_k and α_r = max_k x_k / x_r:
//!
//!   per ACK on r:  w_r += x_r / (τ_r·(Σ_k x_k)²) · (1 + α_r)/2 · (4 + α_r)/5   (packets)
//!   per loss on r: w_r −= (w_r/2) · min(α_r, 1.5)
//!
//! With one subflow it is Reno. α_r is real-valued here, as in the paper; Linux's
//! `mptcp_balia.c` divides integers, so its decrease is either ½ or ¾ of the window
//! (ALGORITHMS.md §2.3) — not emulated.

use super::super::CongestionKind;
use super::SubflowView;
use crate::units::Bytes;

fn rate(v: &SubflowView, mss: f64) -> f64 {
    v.cwnd / mss / v.srtt
}

/// α_r = max_k x_k / x_r (≥ 1), over the active subflows; 1 if `me` has no rate yet.
pub fn alpha(view: &[SubflowView], me: usize, mss: f64) -> f64 {
    let v = view[me];
    if !v.active || v.srtt <= 0.0 || v.cwnd <= 0.0 {
        return 1.0;
    }
    let x_max = view
        .iter()
        .filter(|x| x.active)
        .map(|x| rate(x, mss))
        .fold(0.0, f64::max);
    (x_max / rate(&v, mss)).max(1.0)
}

/// Window increase of subflow `me` in packets per packet acknowledged.
pub fn increase(view: &[SubflowView], me: usize, mss: f64) -> f64 {
    let v = view[me];
    let sum: f64 = view.iter().filter(|x| x.active).map(|x| rate(x, mss)).sum();
    if sum <= 0.0 {
        return mss / v.cwnd;
    }
    let a = alpha(view, me, mss);
    rate(&v, mss) / (v.srtt * sum * sum) * (1.0 + a) / 2.0 * (4.0 + a) / 5.0
}

/// (ssthresh, cwnd) after a loss: the window loses (w/2)·min(α, 1.5), floored at two
/// segments, w being the flight size as in RFC 5681; a timeout leaves one segment.
pub fn on_loss(
    view: &[SubflowView],
    me: usize,
    kind: CongestionKind,
    flight: Bytes,
    mss: f64,
) -> (f64, f64) {
    let w = flight.0 as f64;
    let a = alpha(view, me, mss).min(1.5);
    let ssthresh = (w - w / 2.0 * a).max(2.0 * mss);
    let cwnd = match kind {
        CongestionKind::FastRetransmit => ssthresh,
        CongestionKind::Timeout => mss,
    };
    (ssthresh, cwnd)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::sf;
    use super::*;

    #[test]
    fn single_subflow_is_reno() {
        let view = vec![sf(25.0, 0.1)];
        assert!((increase(&view, 0, 1000.0) - 1.0 / 25.0).abs() < 1e-12);
        let (ss, cw) = on_loss(
            &view,
            0,
            CongestionKind::FastRetransmit,
            Bytes(25_000),
            1000.0,
        );
        assert_eq!((ss, cw), (12_500.0, 12_500.0));
    }

    #[test]
    fn slow_subflow_backs_off_harder_capped_at_three_quarters() {
        // x_0 = 100 pkt/s, x_1 = 400 pkt/s: α_0 = 4 → min(4, 1.5) = 1.5 ⇒ w loses ¾.
        let view = vec![sf(10.0, 0.1), sf(40.0, 0.1)];
        assert!((alpha(&view, 0, 1000.0) - 4.0).abs() < 1e-12);
        let (ss, _) = on_loss(
            &view,
            0,
            CongestionKind::FastRetransmit,
            Bytes(10_000),
            1000.0,
        );
        assert_eq!(ss, 2_500.0);
        // The fast subflow has α = 1: plain halving.
        let (ss, _) = on_loss(
            &view,
            1,
            CongestionKind::FastRetransmit,
            Bytes(40_000),
            1000.0,
        );
        assert_eq!(ss, 20_000.0);
    }

    #[test]
    fn increase_matches_the_formula() {
        let view = vec![sf(10.0, 0.1), sf(40.0, 0.2)];
        let (x0, x1) = (100.0, 200.0);
        let a0 = 2.0;
        let expect = x0 / (0.1 * (x0 + x1) * (x0 + x1)) * (1.0 + a0) / 2.0 * (4.0 + a0) / 5.0;
        assert!((increase(&view, 0, 1000.0) - expect).abs() < 1e-12);
    }
}
