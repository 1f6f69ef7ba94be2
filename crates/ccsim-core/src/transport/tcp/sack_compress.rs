//! Linux's SACK compression (`sack_compress`, the linux profile): a receiver holding
//! out-of-order data sends the first three duplicate ACKs after each advance of rcv_nxt at
//! once (so the sender's fast retransmit is not delayed), then holds further SACKs on a
//! timer of 5 % of its RTT, at most `tcp_comp_sack_delay_ns` (1 ms), and sends one ACK when
//! it fires; any ACK sent meanwhile takes the held ones with it, and 44 held ones
//! (`tcp_comp_sack_nr`) are sent at once. Cited at Linux 6.12.117: `__tcp_ack_snd_check`
//! (net/ipv4/tcp_input.c:5810–5875), `tcp_sack_new_ofo_skb` (:4836–4862: a segment that
//! starts a block beside two others, or extends the third or later, sends the held SACKs
//! first), `tcp_compressed_ack_kick` (net/ipv4/tcp_timer.c:845–866), `tcp_event_ack_sent`
//! (net/ipv4/tcp_output.c:182–193), defaults in `tcp_sk_init` (net/ipv4/tcp_ipv4.c:3647–3649).
//!
//! The timer is an hrtimer started with `tcp_comp_sack_slack_ns` (100 µs) of slack: the
//! clock event is programmed for the late end, so on an otherwise idle CPU it fires at
//! delay + slack. The kernel bench shows it: with 10⁻² loss on a 40 ms path, 12 900 of
//! 34 000 ACKs left the receiver 1.10–1.20 ms after the data segment before them, none
//! without loss (docs/validation.md §6, "BBR").

use super::config::TcpSpec;
use crate::units::{Dur, SimTime};

/// Duplicate ACKs sent at once after each advance of rcv_nxt (`TCP_FASTRETRANS_THRESH`,
/// include/net/tcp.h).
const FASTRETRANS_THRESH: u32 = 3;

/// The compression state of one receiver.
#[derive(Clone, Debug)]
pub struct SackCompress {
    /// `tcp_comp_sack_delay_ns`: the most a SACK is held.
    delay: Dur,
    /// `tcp_comp_sack_slack_ns`: the timer's slack (it fires at its late end).
    slack: Dur,
    /// `tcp_comp_sack_nr`: held SACKs that force an ACK.
    max_held: u32,
    /// `tp->compressed_ack`: SACKs held since the last ACK sent.
    held: u32,
    /// `tp->compressed_ack_rcv_nxt` and `tp->dup_ack_counter`.
    rcv_nxt_seen: u64,
    dup_acks: u32,
    /// When the held SACKs go, if any are held.
    deadline: Option<SimTime>,
    /// When the connection's SYN-ACK left, then the handshake's RTT (the srtt a Linux
    /// receiver holds from `tcp_synack_rtt_meas`).
    synack_sent: Option<SimTime>,
    handshake_rtt: Option<Dur>,
}

impl SackCompress {
    /// The flow's compression: on with `sack_compress` for a SACK recovery (Linux
    /// compresses only on a connection that negotiated SACK, `tcp_is_sack`).
    pub fn of(t: &TcpSpec) -> Option<SackCompress> {
        (t.sack_compress && t.recovery.uses_sack()).then(|| {
            SackCompress::new(
                t.sack_compress_delay,
                t.sack_compress_slack,
                t.sack_compress_nr,
            )
        })
    }

    /// Compression with the three sysctls' values.
    pub fn new(delay: Dur, slack: Dur, max_held: u32) -> SackCompress {
        SackCompress {
            delay,
            slack,
            max_held,
            held: 0,
            rcv_nxt_seen: u64::MAX,
            dup_acks: 0,
            deadline: None,
            synack_sent: None,
            handshake_rtt: None,
        }
    }

    /// A new connection: nothing held, no RTT yet.
    pub fn restart(&mut self) {
        *self = SackCompress::new(self.delay, self.slack, self.max_held);
    }

    /// The receiver answered a SYN at `now`.
    pub fn on_synack(&mut self, now: SimTime) {
        self.synack_sent = Some(now);
    }

    /// A data segment arrived: the first after the SYN-ACK completes the handshake.
    pub fn on_data(&mut self, now: SimTime) {
        if let Some(t) = self.synack_sent.take() {
            self.handshake_rtt = Some(now.since(t));
        }
    }

    /// The handshake's RTT, once measured.
    pub fn handshake_rtt(&self) -> Option<Dur> {
        self.handshake_rtt
    }

    /// An out-of-order segment arrived and no other rule sends an ACK at once: whether to
    /// send it now (else it is held). `rtt` is the receiver's RTT estimate (the smaller of
    /// `rcv_rtt_est` and the handshake's srtt; zero without a sample); None: unknown, the
    /// delay is not capped by it.
    pub fn on_out_of_order(&mut self, now: SimTime, rcv_nxt: u64, rtt: Option<Dur>) -> bool {
        if self.held >= self.max_held {
            return true;
        }
        if self.rcv_nxt_seen != rcv_nxt {
            self.rcv_nxt_seen = rcv_nxt;
            self.dup_acks = 0;
        }
        if self.dup_acks < FASTRETRANS_THRESH {
            self.dup_acks += 1;
            return true;
        }
        self.held += 1;
        if self.deadline.is_none() {
            let delay = rtt.map_or(self.delay, |r| self.delay.min(Dur(r.0 / 20)));
            self.deadline = Some(now + delay + self.slack);
        }
        false
    }

    /// Whether SACKs are held (`tcp_sack_compress_send_ack` sends only then).
    pub fn holding(&self) -> bool {
        self.held > 0
    }

    /// When the held SACKs go (`SimTime::NEVER` if none are held).
    pub fn deadline(&self) -> SimTime {
        self.deadline.unwrap_or(SimTime::NEVER)
    }

    /// An ACK was sent: it carries whatever was held.
    pub fn on_ack_sent(&mut self) {
        self.held = 0;
        self.deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(us: u64) -> SimTime {
        SimTime::ZERO + Dur::from_micros(us)
    }

    fn linux() -> SackCompress {
        SackCompress::new(Dur::from_millis(1), Dur::from_micros(100), 44)
    }

    #[test]
    fn three_duplicates_go_at_once_then_sacks_wait_for_the_timer() {
        let mut c = linux();
        let rtt = Some(Dur::from_millis(40));
        for k in 0..3 {
            assert!(
                c.on_out_of_order(at(k * 1200), 7, rtt),
                "dupack {k} at once"
            );
        }
        assert!(!c.on_out_of_order(at(3600), 7, rtt));
        // min(1 ms, 40 ms / 20) + 100 µs of slack
        assert_eq!(c.deadline(), at(3600 + 1100));
        // a second one held does not move the timer
        assert!(!c.on_out_of_order(at(4000), 7, rtt));
        assert_eq!(c.deadline(), at(4700));
        c.on_ack_sent();
        assert_eq!(c.deadline(), SimTime::NEVER);
        assert!(!c.holding());
    }

    #[test]
    fn an_advance_of_rcv_nxt_restarts_the_duplicate_count() {
        let mut c = linux();
        let rtt = Some(Dur::from_millis(40));
        for k in 0..4 {
            c.on_out_of_order(at(k), 7, rtt);
        }
        assert!(c.holding());
        c.on_ack_sent();
        // the hole at 7 is filled, another remains at 20: three at once again
        for k in 0..3 {
            assert!(c.on_out_of_order(at(10 + k), 20, rtt));
        }
        assert!(!c.on_out_of_order(at(20), 20, rtt));
    }

    #[test]
    fn the_delay_is_five_percent_of_a_short_rtt_and_the_held_count_is_capped() {
        let mut c = SackCompress::new(Dur::from_millis(1), Dur::ZERO, 2);
        let rtt = Some(Dur::from_millis(4)); // 5 %: 200 µs
        for k in 0..3 {
            c.on_out_of_order(at(k), 1, rtt);
        }
        assert!(!c.on_out_of_order(at(10), 1, rtt));
        assert_eq!(c.deadline(), at(210));
        assert!(!c.on_out_of_order(at(11), 1, rtt));
        // two held: the next goes at once (tcp_comp_sack_nr)
        assert!(c.on_out_of_order(at(12), 1, rtt));
        // before an RTT sample the delay is 0 (only the slack is left); with no estimate
        // at all, the whole delay
        let mut c = linux();
        for k in 0..4 {
            c.on_out_of_order(at(k), 1, Some(Dur::ZERO));
        }
        assert_eq!(c.deadline(), at(3 + 100));
        let mut c = linux();
        for k in 0..4 {
            c.on_out_of_order(at(k), 1, None);
        }
        assert_eq!(c.deadline(), at(3 + 1100));
    }
}
