//! LIA, Linked Increases (RFC 6356 §3): in congestion avoidance, each ACK on subflow i
//! grows its window by min(α/w_total, 1/w_i) packets per packet acknowledged, with
//!
//!   α = w_total · max_i(w_i/τ_i²) / (Σ_i w_i/τ_i)²,
//!
//! so the connection takes about what one TCP would on its best path and no subflow grows
//! faster than a TCP on its own path. Sums run over the active subflows; τ is the smoothed
//! RTT. Losses halve the subflow's window (Reno).

use super::SubflowView;

/// RFC 6356 α over the active subflows (windows in any unit; α is dimensionless). 1 when
/// no subflow is active.
pub fn alpha(view: &[SubflowView]) -> f64 {
    let active = || view.iter().filter(|v| v.active && v.srtt > 0.0);
    let total: f64 = active().map(|v| v.cwnd).sum();
    let best = active()
        .map(|v| v.cwnd / (v.srtt * v.srtt))
        .fold(0.0, f64::max);
    let sum: f64 = active().map(|v| v.cwnd / v.srtt).sum();
    if sum > 0.0 {
        total * best / (sum * sum)
    } else {
        1.0
    }
}

/// Window increase of subflow `me` in packets per packet acknowledged (RFC 6356 §3).
pub fn increase(view: &[SubflowView], me: usize, mss: f64) -> f64 {
    let total: f64 = view
        .iter()
        .filter(|v| v.active)
        .map(|v| v.cwnd)
        .sum::<f64>()
        / mss;
    let w = view[me].cwnd / mss;
    if total <= 0.0 {
        return 1.0 / w;
    }
    (alpha(view) / total).min(1.0 / w)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::sf;
    use super::*;

    #[test]
    fn symmetric_paths_give_alpha_one_over_n() {
        // RFC 6356 §3 / ALGORITHMS.md §2.1: n identical paths ⇒ α = 1/n.
        for n in 1..=4 {
            let view = vec![sf(20.0, 0.1); n];
            assert!((alpha(&view) - 1.0 / n as f64).abs() < 1e-12, "n = {n}");
            // Each subflow gains α/w_total = 1/(n²·w) per packet: 1/n² packets per RTT.
            let per_rtt = increase(&view, 0, 1000.0) * 20.0;
            assert!((per_rtt - 1.0 / (n * n) as f64).abs() < 1e-12);
        }
    }

    #[test]
    fn single_subflow_is_reno() {
        let view = vec![sf(17.0, 0.05)];
        assert!((increase(&view, 0, 1000.0) - 1.0 / 17.0).abs() < 1e-12);
    }

    #[test]
    fn increase_is_capped_by_one_over_w() {
        // A big window on a long path next to a small one on a short path:
        // α/w_total = max(w/τ²)/(Σw/τ)² = 1000/200² = 0.025 exceeds 1/w = 0.01, and the
        // cap keeps the subflow no faster than a TCP on its own path.
        let view = vec![sf(100.0, 1.0), sf(10.0, 0.1)];
        assert!((increase(&view, 0, 1000.0) - 0.01).abs() < 1e-12);
        assert!((increase(&view, 1, 1000.0) - 0.025).abs() < 1e-12);
    }

    #[test]
    fn inactive_subflows_are_left_out() {
        let mut off = sf(50.0, 0.1);
        off.active = false;
        let view = vec![sf(10.0, 0.1), off];
        assert!((alpha(&view) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn in_equilibrium_the_connection_gets_what_tcp_gets_on_its_best_path() {
        // RFC 6356 §3: α is chosen so that, with each subflow in equilibrium (per RTT the
        // increase α·w_i/w_total balances the p_i·w_i losses of w_i/2 each, so w_i =
        // 2α/(p_i·w_total)), the connection's rate Σ w_i/τ_i equals that of a TCP on the
        // best path, max_i √(2/p_i)/τ_i. α is scale-free, so it is computed at w_i ∝ 1/p_i,
        // and w_i = c/p_i with c² = 2α/Σ_j 1/p_j solves the equilibrium.
        for (p, tau) in [
            ([0.01, 0.01], [0.1, 0.1]),
            ([0.01, 0.001], [0.1, 0.3]),
            ([0.0004, 0.02], [0.05, 0.04]),
        ] {
            let view: Vec<_> = (0..2).map(|i| sf(1.0 / p[i], tau[i])).collect();
            let a = alpha(&view);
            let inv_p: f64 = p.iter().map(|x| 1.0 / x).sum();
            let c = (2.0 * a / inv_p).sqrt();
            let rate: f64 = (0..2).map(|i| c / p[i] / tau[i]).sum();
            let best_tcp = (0..2)
                .map(|i| (2.0 / p[i]).sqrt() / tau[i])
                .fold(0.0, f64::max);
            assert!(
                (rate / best_tcp - 1.0).abs() < 1e-12,
                "{p:?} {tau:?}: {rate} vs {best_tcp}"
            );
        }
    }
}
