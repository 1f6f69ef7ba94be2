//! OLIA, Opportunistic Linked Increases (Khalili, Gast, Popovic, Upadhyay & Le Boudec,
//! CoNEXT 2012; draft-khalili-mptcp-congestion-control-05). Per ACK on path r, in packets:
//!
//!   w_r += (w_r/τ_r²) / (Σ_p w_p/τ_p)²  +  α_r / w_r.
//!
//! The first term is Kelly–Voice's coupled increase (the connection as one TCP on its best
//! path); α_r moves window from the paths with the largest window (set M) to the best
//! paths (set B: largest ℓ_r/τ_r², ℓ_r the inter-loss distance in bytes) that are not
//! already largest:
//!
//! - B∖M ≠ ∅, r ∈ B∖M: α_r = 1/(|R|·|B∖M|);
//! - B∖M ≠ ∅, r ∈ M:   α_r = −1/(|R|·|M|);
//! - otherwise 0.
//!
//! Best paths are ranked by ℓ/τ² as in the Linux reference implementation (ALGORITHMS.md
//! §2.2, default [D]: equivalent to the paper's √ℓ/τ). Losses halve w_r.

use super::SubflowView;

/// OLIA's α_r for subflow `me` (Σ_r α_r = 0 over the active subflows).
pub fn alpha(view: &[SubflowView], me: usize) -> f64 {
    let active: Vec<usize> = (0..view.len()).filter(|&i| view[i].active).collect();
    if !view[me].active || active.len() < 2 {
        return 0.0;
    }
    let quality = |i: usize| view[i].ell / (view[i].srtt * view[i].srtt);
    let max_w = active
        .iter()
        .map(|&i| view[i].cwnd)
        .fold(f64::MIN, f64::max);
    let best_q = active.iter().map(|&i| quality(i)).fold(f64::MIN, f64::max);
    let in_m = |i: usize| view[i].cwnd == max_w;
    let in_b = |i: usize| quality(i) == best_q;
    let m = active.iter().filter(|&&i| in_m(i)).count() as f64;
    let b_not_m = active.iter().filter(|&&i| in_b(i) && !in_m(i)).count() as f64;
    let n = active.len() as f64;
    if b_not_m == 0.0 {
        0.0
    } else if in_b(me) && !in_m(me) {
        1.0 / (n * b_not_m)
    } else if in_m(me) {
        -1.0 / (n * m)
    } else {
        0.0
    }
}

/// Window increase of subflow `me` in packets per packet acknowledged.
pub fn increase(view: &[SubflowView], me: usize, mss: f64) -> f64 {
    let v = view[me];
    let w = v.cwnd / mss;
    let sum: f64 = view
        .iter()
        .filter(|x| x.active)
        .map(|x| x.cwnd / mss / x.srtt)
        .sum();
    if sum <= 0.0 {
        return 1.0 / w;
    }
    (w / (v.srtt * v.srtt)) / (sum * sum) + alpha(view, me) / w
}

#[cfg(test)]
mod tests {
    use super::super::test_util::sf;
    use super::*;

    fn with_ell(mut v: SubflowView, ell: f64) -> SubflowView {
        v.ell = ell;
        v
    }

    #[test]
    fn single_subflow_is_reno() {
        let view = vec![sf(12.0, 0.08)];
        assert!((increase(&view, 0, 1000.0) - 1.0 / 12.0).abs() < 1e-12);
    }

    #[test]
    fn alphas_sum_to_zero_and_move_window_to_the_best_path() {
        // Path 0 has the largest window, path 1 the longest distance between losses (the
        // best path, less congested): window moves from 0 to 1.
        let view = vec![
            with_ell(sf(30.0, 0.1), 1e5),
            with_ell(sf(10.0, 0.1), 1e6),
            with_ell(sf(10.0, 0.1), 1e4),
        ];
        let a: Vec<f64> = (0..3).map(|i| alpha(&view, i)).collect();
        assert!((a.iter().sum::<f64>()).abs() < 1e-12);
        assert!((a[0] + 1.0 / 3.0).abs() < 1e-12, "{a:?}");
        assert!((a[1] - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(a[2], 0.0);
    }

    #[test]
    fn no_transfer_when_the_best_path_has_the_largest_window() {
        let view = vec![with_ell(sf(30.0, 0.1), 1e6), with_ell(sf(10.0, 0.1), 1e4)];
        assert_eq!(alpha(&view, 0), 0.0);
        assert_eq!(alpha(&view, 1), 0.0);
    }

    #[test]
    fn symmetric_paths_grow_like_one_tcp() {
        // Two identical paths, equal windows (no transfer): each gains (w/τ²)/(2w/τ)² =
        // 1/(4w) per packet, i.e. ¼ packet per RTT, as LIA with α = ½.
        let view = vec![sf(20.0, 0.1), sf(20.0, 0.1)];
        assert!((increase(&view, 0, 1000.0) - 1.0 / 80.0).abs() < 1e-12);
    }
}
