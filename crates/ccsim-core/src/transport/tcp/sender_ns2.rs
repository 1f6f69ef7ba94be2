//! ns-2 agents' sending and window rules that the `ns2` stack profile turns on, each off by
//! default (docs/tcp.md §11.1): NewReno's burst limit in fast recovery, FACK's window restart
//! at recovery entry, and ns-2's integer halving of the window. A child module of `sender`,
//! so it works on the sender's state directly.

use super::{Phase, TcpSender};
use crate::cc::CongestionControl;
use crate::transport::tcp::config::{Halving, RecoverySpec};
use crate::units::Bytes;

impl TcpSender {
    /// New segments an ACK may release now: `recovery_burst` during NewReno's fast recovery
    /// (ns-2 `send_much(0, 0, 2)` while dupacks_ ≥ numdupacks_, tcp-newreno.cc:300–303;
    /// a partial ACK leaves dupacks_ as it is, so it is limited too), else no limit.
    #[inline]
    pub(super) fn burst_allowance(&self) -> u64 {
        match (self.cfg.recovery_burst, self.phase) {
            (Some(n), Phase::Recovery { .. }) if self.cfg.recovery == RecoverySpec::NewReno => {
                n as u64
            }
            _ => u64::MAX,
        }
    }

    /// FACK entering recovery with `fack_restart`: cwnd = `wnd_restart_` = 1
    /// (`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`, tcp-fack.cc:197; tcp.cc:1317–1318).
    pub(super) fn fack_restart_on_entry(&mut self) {
        if self.cfg.fack_restart && self.cfg.recovery == RecoverySpec::Fack {
            self.fack_cwnd = Some(1.0);
        }
    }

    /// FACK with `fack_restart`: every ACK in recovery opens the window as `opencwnd()` does
    /// (tcp-fack.cc:233; tcp.cc:1122–1146): +1 below ssthresh, else +1/cwnd.
    #[cold]
    #[inline(never)]
    pub(super) fn fack_open_cwnd(&mut self) {
        let ssthresh = self.cc.ssthresh().0 as f64 / self.mss() as f64;
        if let Some(w) = self.fack_cwnd.as_mut() {
            *w += if *w < ssthresh { 1.0 } else { 1.0 / *w };
        }
    }

    /// The window in segments, under FACK's restarted window while it applies.
    #[inline]
    pub(super) fn fack_limit(&self, w: u64) -> u64 {
        match self.fack_cwnd {
            Some(f) => w.min((f as u64).max(1)),
            None => w,
        }
    }

    /// The amount the loss response halves, with ns-2's halving (`halving = "ns2"`):
    /// `halfwin = min(cwnd_, window_)/2` and `ssthresh_ = int(halfwin)` (tcp.cc:1254, 1296),
    /// i.e. the amount capped at `max_window` and rounded down to an even number of
    /// segments, so that half of it is whole.
    pub(super) fn halved_amount(&self, amount: Bytes) -> Bytes {
        match self.cfg.halving {
            Halving::Exact => amount,
            Halving::Ns2 => {
                let mss = self.mss();
                let cap = self.max_window_segs().saturating_mul(mss);
                Bytes(amount.0.min(cap) / (2 * mss) * 2 * mss)
            }
        }
    }
}
