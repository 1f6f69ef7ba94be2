//! TCP stack profiles (issue #19): `stack = "rfc" | "linux" | "ns2"` on a TCP or MPTCP flow,
//! or `[simulation] stack` for every such flow. A profile is a named layer of default
//! overrides over the sender, receiver, RTO and controllers (`params::Layer`); any key the
//! document writes still wins, and `ccsim validate --explain` shows each value's origin.
//!
//! Every value is cited to its source in [`SOURCES`] (from docs/sources/, where the lines
//! were read); a unit test checks the two lists agree and docs/tcp.md §11 shows the table.

use crate::params::{Dflt, Layer, Lit, Param, Ty};

/// The profiles' names, the default first.
pub const NAMES: &[&str] = &["rfc", "linux", "ns2"];

/// The `stack` key of a TCP or MPTCP flow.
pub const PARAMS: &[Param] = &[Param::choice("stack", "rfc", NAMES)
    .doc("a named set of defaults over the sender, receiver, RTO and controller: rfc (the RFCs), linux (a current kernel), ns2 (ns-2.35's one-way agents); any key written beside it wins (docs/tcp.md §11)")
    .source("rfc: the RFCs' behaviour, ccsim's built-in defaults")];

/// `[simulation] stack`: the profile of every TCP and MPTCP flow that names none.
pub const SIMULATION_PARAM: Param = Param::new(
    "stack",
    Ty::Choice(NAMES),
    Dflt::None("each flow's own stack, else rfc"),
)
.doc(
    "the stack profile of every TCP and MPTCP flow that sets no stack of its own (docs/tcp.md §11)",
)
.source("none: rfc unless a flow says otherwise");

/// `stack = "rfc"`: the built-in defaults, unchanged.
pub const RFC: Layer = Layer {
    name: "rfc",
    about: "the RFCs' TCP: ccsim's built-in defaults",
    profile: true,
    values: &[],
};

/// `stack = "linux"`: a current Linux kernel (docs/sources/linux.md, 7.2 line numbers).
pub const LINUX: Layer = Layer {
    name: "linux",
    about: "a current Linux kernel (7.2; 6.12 the same): docs/sources/linux.md",
    profile: true,
    values: &[
        ("mss", Lit::Int(1448)),
        ("header", Lit::Int(52)),
        ("init_cwnd", Lit::Int(10)),
        ("delayed_ack", Lit::Str("40ms")),
        ("recovery", Lit::Str("prr")),
        ("ssthresh_from", Lit::Str("cwnd")),
        ("sack_option_bytes", Lit::Bool(true)),
        ("handshake", Lit::Bool(true)),
        ("rto.estimator", Lit::Str("linux")),
        ("rto.restart_on_head_retransmit", Lit::Bool(true)),
        ("rto.min", Lit::Str("200ms")),
        ("rto.max", Lit::Str("120s")),
        ("rto.initial", Lit::Str("1s")),
        ("cc.vegas.preset", Lit::Str("linux")),
        ("cc.vegas.ss_exit", Lit::Str("linux")),
        ("cc.reno.arithmetic", Lit::Str("linux")),
        ("cc.cubic.arithmetic", Lit::Str("linux")),
        ("cc.cubic.hystart", Lit::Bool(true)),
        ("cc.bbr.pacing_margin", Lit::Float(0.01)),
        ("cc.bbr.quantization", Lit::Str("linux")),
        ("cc.bbr.extra_acked_gain", Lit::Float(1.0)),
        ("cc.bbr.edt", Lit::Bool(true)),
        ("cc.bbr.min_rtt_strict", Lit::Bool(true)),
        ("cc.bbr.rtt_sample", Lit::Str("linux")),
        ("quick_acks", Lit::Int(16)),
        ("rcv_autotune", Lit::Bool(true)),
        ("push_flags", Lit::Str("linux")),
        ("pacing", Lit::Str("linux")),
        ("ack_pushed", Lit::Bool(true)),
        ("sack_compress", Lit::Bool(true)),
        ("lost_retransmit", Lit::Str("rack")),
        ("loss_marking", Lit::Str("rack")),
        ("prr", Lit::Str("linux")),
        ("limited_transmit", Lit::Bool(true)),
    ],
};

/// `stack = "ns2"`: ns-2.35's one-way `Agent/TCP` family (docs/sources/ns2.md).
pub const NS2: Layer = Layer {
    name: "ns2",
    about: "ns-2.35's one-way TCP agents and sinks: docs/sources/ns2.md",
    profile: true,
    values: &[
        ("mss", Lit::Int(1000)),
        ("header", Lit::Int(40)),
        ("max_window", Lit::Int(20)),
        ("init_cwnd", Lit::Int(2)),
        ("init_ssthresh", Lit::Str("max_window")),
        ("delayed_ack", Lit::Str("100ms")),
        ("handshake", Lit::Bool(true)),
        ("limited_transmit", Lit::Bool(true)),
        ("ssthresh_from", Lit::Str("cwnd")),
        ("halving", Lit::Str("ns2")),
        ("recovery_burst", Lit::Int(2)),
        ("fack_restart", Lit::Bool(true)),
        ("sack_block_bytes", Lit::Bool(true)),
        ("rto.estimator", Lit::Str("ns2")),
        ("rto.samples", Lit::Str("one_per_rtt")),
        ("rto.restart_at_fast_retransmit", Lit::Bool(true)),
        ("rto.min", Lit::Str("200ms")),
        ("rto.max", Lit::Str("60s")),
        ("rto.initial", Lit::Str("3s")),
        ("rto.granularity", Lit::Str("10ms")),
        ("cc.reno.counting", Lit::Str("per_ack")),
        ("cc.vegas.preset", Lit::Str("ns2")),
        ("cc.vegas.loss", Lit::Str("ns2")),
    ],
};

/// The profiles a flow's `stack` chooses.
pub const PRESETS: &[&Layer] = &[&RFC, &LINUX, &NS2];

/// (profile, path, source) for every value of [`LINUX`] and [`NS2`]: the file and line the
/// value was read at (docs/sources/ gives the witness and the surrounding rule).
pub const SOURCES: &[(&str, &str, &str)] = &[
    ("linux", "mss", "1500 − 20 (IPv4) − 20 (TCP) − 12 (timestamps, TCPOLEN_TSTAMP_ALIGNED include/net/tcp.h:242); tcp_sack and tcp_timestamps on, net/ipv4/tcp_ipv4.c:3471, 3473"),
    ("linux", "header", "20 + 20 + 12 B of timestamps on every segment (tcp_established_options, net/ipv4/tcp_output.c:1175)"),
    ("linux", "init_cwnd", "TCP_INIT_CWND 10, include/net/tcp.h:269 (tcp_init_sock, net/ipv4/tcp.c:448)"),
    ("linux", "delayed_ack", "TCP_DELACK_MIN = TCP_ATO_MIN = HZ/25, include/net/tcp.h:154–155 (the adaptive ato starts there; a bulk receiver acks every second segment at once)"),
    ("linux", "recovery", "SACK on (tcp_sack 1, net/ipv4/tcp_ipv4.c:3471) with PRR (tcp_init_cwnd_reduction, tcp_cwnd_reduction, net/ipv4/tcp_input.c:2971–3011); RACK's rules are lost_retransmit and loss_marking; its reordering timer and TLP are not modelled"),
    ("linux", "ssthresh_from", "tcp_reno_ssthresh: max(cwnd/2, 2), net/ipv4/tcp_cong.c:515–520 (CUBIC: cwnd·717/1024, tcp_cubic.c:338–353)"),
    ("linux", "sack_option_bytes", "TCPOLEN_SACK_BASE_ALIGNED 4 + TCPOLEN_SACK_PERBLOCK 8 per block, include/net/tcp.h:246–247 (tcp_output.c:1204–1221)"),
    ("linux", "handshake", "every connection opens with SYN / SYN-ACK (RFC 9293 §3.5): data starts one RTT after connect()"),
    ("linux", "rto.estimator", "tcp_rtt_estimator, net/ipv4/tcp_input.c:1070–1136; tcp_set_rto, :1175–1200 (RTO = srtt + rttvar, rttvar ≥ rto_min)"),
    ("linux", "rto.restart_on_head_retransmit", "tcp_xmit_retransmit_queue: rearm_timer when skb == rtx_head (and no RACK reordering timer pending), then tcp_reset_xmit_timer(ICSK_TIME_RETRANS, icsk_rto), net/ipv4/tcp_output.c"),
    ("linux", "cc.vegas.ss_exit", "cwnd = min(cwnd, target + 1), ssthresh = min(ssthresh, cwnd): net/ipv4/tcp_vegas.c:234–249"),
    ("linux", "rto.min", "TCP_RTO_MIN = HZ/5, include/net/tcp.h:162 (sysctl tcp_rto_min_us, net/ipv4/tcp_ipv4.c:3540)"),
    ("linux", "rto.max", "TCP_RTO_MAX 120 s, include/net/tcp.h:160–161"),
    ("linux", "rto.initial", "TCP_TIMEOUT_INIT 1 s, include/net/tcp.h:167 (net/ipv4/tcp.c:432)"),
    ("linux", "cc.vegas.preset", "α, β, γ = 2, 4, 1: net/ipv4/tcp_vegas.c:44–46"),
    ("linux", "cc.reno.arithmetic", "tcp_reno_cong_avoid, net/ipv4/tcp_cong.c:496–511: tcp_slow_start adds every delivered segment (:456–466), tcp_cong_avoid_ai +1 per cwnd acknowledged with snd_cwnd_cnt (:470–486); tcp_reno_ssthresh max(cwnd >> 1, 2) (:515–520)"),
    ("linux", "cc.cubic.arithmetic", "tcp_cubic.c: bictcp_update :211–319 (integer cnt, C = 410/1024, cnt ≤ 20 before a loss, friendliness with beta_scale 15), cubictcp_recalc_ssthresh :338–353 (strict fast-convergence test, ssthresh cwnd·717/1024), cubictcp_state :355–361 (reset at a timeout)"),
    ("linux", "pacing", "internal pacing when no fq qdisc: tcp_pacing_check, net/ipv4/tcp_output.c:2579–2596; tcp_update_skb_after_send :1251–1273 (a GSO packet of tcp_tso_segs :2040–2051 at a time, credit up to half its time, not before 10 data segments); BBR asks for pacing, tcp_bbr.c:1078"),
    ("linux", "cc.bbr.pacing_margin", "bbr_pacing_margin_percent = 1, net/ipv4/tcp_bbr.c:147, applied in bbr_rate_bytes_per_sec :244–253"),
    ("linux", "cc.bbr.quantization", "bbr_quantization_budget, net/ipv4/tcp_bbr.c:395–411 (3·bbr_tso_segs_goal :304–316, bbr_min_tso_segs :299–302, +2 in PROBE_BW phase 0)"),
    ("linux", "cc.bbr.extra_acked_gain", "bbr_extra_acked_gain = BBR_UNIT, net/ipv4/tcp_bbr.c:196; bbr_update_ack_aggregation :814–863, bbr_ack_aggregation_cwnd :457–470"),
    ("linux", "cc.bbr.edt", "bbr_packets_in_net_at_edt, net/ipv4/tcp_bbr.c:437–455, read by bbr_is_next_cycle_phase :570 and bbr_check_drain :903"),
    ("linux", "cc.bbr.min_rtt_strict", "rs->rtt_us < bbr->min_rtt_us, net/ipv4/tcp_bbr.c:950–952"),
    ("linux", "cc.bbr.rtt_sample", "rs->rtt_us = ca_rtt_us, the last (S)ACKed original segment's RTT, else, when snd.una advanced, the echoed timestamp's in whole milliseconds, from a retransmission too: tcp_ack_update_rtt, net/ipv4/tcp_input.c:3215–3239 (ca_rtt_us :3470–3488; tcp_rtt_tsopt_us :709–724)"),
    ("linux", "cc.cubic.hystart", "hystart 1 with ACK-train and delay detection, hystart_low_window 16, hystart_ack_delta_us 2000, HYSTART_MIN_SAMPLES 8, delay threshold clamp(delay_min/8, 4 ms, 16 ms): net/ipv4/tcp_cubic.c:44–58, hystart_update :383–447"),
    ("linux", "lost_retransmit", "RACK on (tcp_recovery = TCP_RACK_LOSS_DETECTION, net/ipv4/tcp_ipv4.c:3475): a retransmission is lost once a segment sent after it is delivered, reo_wnd 0 in recovery (tcp_rack_detect_loss, tcp_rack_reo_wnd, tcp_rack_mark_skb_lost, net/ipv4/tcp_recovery.c:5–93)"),
    ("linux", "prr", "tcp_cwnd_reduction (net/ipv4/tcp_input.c:2723–2747): RecoverFS is the window at entry (prior_cwnd, tcp_init_cwnd_reduction :2709–2721), and below ssthresh the segment more than delivered only when the ACK advanced snd.una and marked no new loss (:2740–2741)"),
    ("linux", "loss_marking", "RACK (tcp_rack_detect_loss, net/ipv4/tcp_recovery.c:51–93): a segment sent before a delivered one is lost once RACK.rtt + reo_wnd has passed, and reo_wnd is 0 in recovery or once sacked_out reaches tp->reordering (3) when no reordering was seen (tcp_rack_reo_wnd, :5–30), so then at once"),
    ("linux", "limited_transmit", "in Open and Disorder the window limits tcp_packets_in_flight = packets_out − sacked_out − lost_out + retrans_out (include/net/tcp.h; tcp_cwnd_test, net/ipv4/tcp_output.c), so each SACKed segment lets a new one leave before recovery starts (RFC 6675 §5 step 1)"),
    ("linux", "quick_acks", "TCP_MAX_QUICKACKS 16, include/net/tcp.h:97: tcp_incr_quickack grants min(rcv_wnd/(2·rcv_mss), 16) on the first data segment (tcp_input.c:311–321, 1029–1034), and the initial rcv_wnd is 65535 (tcp_select_initial_window, net/ipv4/tcp_output.c), so 16 with a 1448-B MSS"),
    ("linux", "rcv_autotune", "tcp_grow_window (rcv_ssthresh += 2 segments while below min(window_clamp, tcp_space), icsk_ack.quick |= 1), tcp_rcv_space_adjust and tcp_rcvbuf_grow (once per rcv_rtt_est: rcvwin = 2·copied + 4·copied·Δ/space), tcp_rmem = 4096 131072 33554432: net/ipv4/tcp_input.c; checked against the 6.18 kernel's tcp:tcp_rcvbuf_grow trace (docs/validation.md §6)"),
    ("linux", "push_flags", "__tcp_transmit_skb: PSH on every GSO packet of more than one segment (net/ipv4/tcp_output.c; tcp_gso_segment keeps it on the last segment, net/ipv4/tcp_offload.c); packets of tcp_tso_autosize segments (pacing rate >> 10, tcp_min_tso_segs 2); checked on the 6.18 kernel's capture: 42 % of data segments carry PSH, 2 segments apart for 82 % (docs/validation.md §6)"),
    ("linux", "ack_pushed", "tcp_measure_rcv_mss sets ICSK_ACK_PUSHED for a full-sized segment with PSH; __tcp_cleanup_rbuf acknowledges at the read that empties the receive queue when not in pingpong mode (net/ipv4/tcp_input.c, net/ipv4/tcp.c; 6.18 as run by the bench)"),
    ("linux", "sack_compress", "SACK compression since 4.18: the first TCP_FASTRETRANS_THRESH (3) duplicate ACKs after rcv_nxt moves go at once, then a SACK waits min(tcp_comp_sack_delay_ns 1 ms, rtt/20) on an hrtimer with tcp_comp_sack_slack_ns 100 µs, at most tcp_comp_sack_nr 44 held (__tcp_ack_snd_check, net/ipv4/tcp_input.c:5810–5875; tcp_sk_init, net/ipv4/tcp_ipv4.c:3647–3649, 6.12.117); the 6.18 kernel's held SACKs left 1.10–1.20 ms after the data (docs/validation.md §6)"),
    ("ns2", "mss", "Agent/TCP packetSize_ 1000 (payload), tcl/lib/ns-default.tcl:936"),
    ("ns2", "header", "tcpip_base_hdr_size_ 40, tcl/lib/ns-default.tcl:937 (added with useHeaders_ true, :991; tcp.cc:763); Agent/TCPSink packetSize_ 40 is the ACK, :1055"),
    ("ns2", "max_window", "window_ 20, tcl/lib/ns-default.tcl:919 (window() = min(cwnd_, window_), tcp.cc:900)"),
    ("ns2", "init_cwnd", "windowInit_ 2 with windowInitOption_ 1, tcl/lib/ns-default.tcl:920–921 (initial_window(), tcp.cc:1533)"),
    ("ns2", "init_ssthresh", "ssthresh_ = int(wnd_) in reset(), tcp/tcp.cc:462, wnd_ being window_ (docs/sources/ns2.md); slow start runs while cwnd_ < ssthresh_, tcp.cc:1122"),
    ("ns2", "delayed_ack", "Agent/TCPSink/DelAck interval_ 100 ms, tcl/lib/ns-default.tcl:1066 (plain Agent/TCPSink acks every packet, tcp-sink.cc:358–385: write delayed_ack = false for it)"),
    ("ns2", "rto.min", "minrto_ 0.2 s, tcl/lib/ns-default.tcl:956 (1 s in ns-2.1b9–2.27)"),
    ("ns2", "rto.max", "maxrto_ 60 s, tcl/lib/ns-default.tcl:954 (100 000 s before ns-2.32)"),
    ("ns2", "rto.initial", "rtxcur_init_ 3 s, tcl/lib/ns-default.tcl:961 (6 s before ns-2.30)"),
    ("ns2", "rto.granularity", "tcpTick_ 0.01 s, tcl/lib/ns-default.tcl:952 (0.1 s before ns-2.1b9)"),
    ("ns2", "cc.reno.counting", "cwnd_ += increase_num_/cwnd_ per new ACK, tcp.cc:1138–1146 (opencwnd, windowOption_ 1, ns-default.tcl:925)"),
    ("ns2", "cc.vegas.preset", "v_alpha_, v_beta_, v_gamma_ 1, 3, 1: tcl/lib/ns-default.tcl:1086–1088"),
    ("ns2", "handshake", "syn_ true, ns-default.tcl:922 (a 40-byte SYN, tcp.cc:700–705) with delay_growth_ true, :1043 (cwnd 1 until the SYN is acked, then windowInit_, tcp.cc:425–426, 1809–1811)"),
    ("ns2", "limited_transmit", "singledup_ 1, ns-default.tcl:987 (send_one() on dupacks 1 and 2, tcp.cc:1576–1586, 1819–1820)"),
    ("ns2", "ssthresh_from", "halfwin = min(cwnd_, window_)/2 from the window, not FlightSize (slowdown(), tcp.cc:1254)"),
    ("ns2", "halving", "ssthresh_ = int(halfwin), tcp.cc:1296, at least 2, :1329"),
    ("ns2", "recovery_burst", "send_much(0, 0, 2) while dupacks_ ≥ numdupacks_, tcp/tcp-newreno.cc:300–303 (NewReno only)"),
    ("ns2", "fack_restart", "slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) at entry, tcp/tcp-fack.cc:197; opencwnd() on every ACK in recovery, :233 (FACK only)"),
    ("ns2", "sack_block_bytes", "8 bytes per SACK block on the ACK, tcp/tcp-sink.cc:755 (maxSackBlocks_ 3, ns-default.tcl:1056)"),
    ("ns2", "rto.estimator", "rtt_update / rtt_timeout in integer tcpTick_ units, tcp.cc:571–606 and 529–560"),
    ("ns2", "rto.samples", "timestamps_ false, ns-default.tcl:946: one timed segment at a time, tcp.cc:778–787, 1390–1403"),
    ("ns2", "rto.restart_at_fast_retransmit", "reset_rtx_timer(1,0) at fast retransmit: tcp-newreno.cc:168, tcp-reno.cc:214, tcp-sack1.cc:338, tcp-fack.cc:202"),
    ("ns2", "cc.vegas.loss", "win −= win/4 at a fast retransmit (2 if win ≤ 3), tcp/tcp-vegas.cc:379–389; cwnd = v_slowstart_ 2 after a timeout, :441–443"),
];

/// The layer `[simulation] stack = name` puts under every flow: it chooses the flow's
/// `stack` (a flow's own `stack` key wins), so the profile's values follow.
pub fn simulation_layer(name: &str) -> Option<&'static Layer> {
    match name {
        "rfc" => Some(&SIM_RFC),
        "linux" => Some(&SIM_LINUX),
        "ns2" => Some(&SIM_NS2),
        _ => None,
    }
}

/// The origin shown for a flow's `stack` taken from `[simulation] stack`.
pub const SIMULATION_ORIGIN: &str = "[simulation] stack";

const SIM_RFC: Layer = Layer {
    name: SIMULATION_ORIGIN,
    about: "[simulation] stack = \"rfc\"",
    profile: true,
    values: &[("stack", Lit::Str("rfc"))],
};
const SIM_LINUX: Layer = Layer {
    name: SIMULATION_ORIGIN,
    about: "[simulation] stack = \"linux\"",
    profile: true,
    values: &[("stack", Lit::Str("linux"))],
};
const SIM_NS2: Layer = Layer {
    name: SIMULATION_ORIGIN,
    about: "[simulation] stack = \"ns2\"",
    profile: true,
    values: &[("stack", Lit::Str("ns2"))],
};

#[cfg(test)]
#[path = "stack_tests.rs"]
mod tests;
