"""The receiver-ACK tracer's parsing and classification (benches/linux/ack_paths.py) on
hand-made tracefs text: fast, no root. The recording itself (root, tracefs) is not part of
the suite."""

import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches" / "linux"))
import ack_paths as A  # noqa: E402

IP = ["trace_event_raw_event_net_dev_start_xmit", "__traceiter_net_dev_start_xmit", "dev_hard_start_xmit",
      "__dev_queue_xmit", "ip_finish_output2", "ip_output", "__ip_queue_xmit", "__tcp_transmit_skb"]


def xmit(task: str, t: str, dev: str, length: int, frames: list[str]) -> str:
    head = (f" {task}   [001] b.s2. {t}: net_dev_start_xmit: dev={dev} queue_mapping=0 skbaddr=0000 "
            f"protocol=0x0800 ip_summed=0 len={length} data_len=0\n {task}   [001] b.s2. {t}: <stack trace>\n")
    return head + "".join(f" => {f}\n" for f in IP + frames)


def test_a_stack_trace_is_attached_to_the_transmit_before_it():
    text = ("# tracer: nop\n" + xmit("ccsim-kernel-em-16220", "58830.549301", "r0", 66,
                                     ["tcp_v4_do_rcv", "tcp_v4_rcv", "ip_protocol_deliver_rcu"])
            + " python3-17   [000] ..... 58830.549400: tcp_rcv_space_adjust: family=AF_INET sport=5201 dport=5001\n")
    evs = A.parse(text)
    assert [e["ev"] for e in evs] == ["net_dev_start_xmit", "tcp_rcv_space_adjust"]
    x = evs[0]
    assert (x["dev"], x["len"], x["task"], x["pid"]) == ("r0", "66", "ccsim-kernel-em", 16220)
    assert x["t"] == 58830.549301 * 1e6
    assert x["stack"][-1] == "ip_protocol_deliver_rcu"
    assert "stack" not in evs[1]


def test_paths_follow_the_frames_above_the_ip_output():
    assert A.path_of(IP + ["tcp_v4_do_rcv", "tcp_v4_rcv"]) == "segment"
    assert A.path_of(IP + ["tcp_v4_do_rcv", "__release_sock", "release_sock"]) == "backlog"
    assert A.path_of(IP + ["tcp_release_cb", "release_sock", "tcp_recvmsg"]) == "release_cb"
    assert A.path_of(IP + ["tcp_recvmsg_locked", "tcp_recvmsg", "inet_recvmsg"]) == "read"
    assert A.path_of(IP + ["tcp_delack_timer_handler", "tcp_delack_timer", "call_timer_fn"]) == "delack"
    assert A.path_of(IP + ["tcp_compressed_ack_kick", "__hrtimer_run_queues"]) == "sack_comp"
    assert A.path_of(["dev_hard_start_xmit", "ip_output", "tcp_v4_send_synack", "tcp_conn_request"]) == "synack"
    assert A.path_of(IP + ["tcp_fin", "tcp_data_queue"]).startswith("other:tcp_fin")


def test_the_sender_path_tells_an_ack_from_a_write():
    assert A.sender_path_of(IP + ["tcp_write_xmit", "tcp_ack", "tcp_rcv_established", "tcp_v4_rcv"]) == "ack"
    assert A.sender_path_of(IP + ["tcp_write_xmit", "tcp_v4_do_rcv", "__release_sock", "tcp_sendmsg"]) == \
        "ack_backlog"
    assert A.sender_path_of(IP + ["tcp_write_xmit", "tcp_sendmsg_locked", "tcp_sendmsg"]) == "write"
    assert A.sender_path_of(IP + ["tcp_write_xmit", "tcp_tsq_handler", "tcp_tasklet_func"]) == "tsq"


def test_sack_blocks_from_the_frame_length():
    # 14 B Ethernet + 20 IPv4 + 20 TCP + 12 timestamps; SACK: 2 NOPs + 2 + 8 per block
    assert [A.sack_blocks(n) for n in (66, 78, 86, 94)] == [0, 1, 2, 3]


def test_size_classes():
    assert A.size_class({"segs": 0.0, "sack": 1}) == "dup+sack"
    assert A.size_class({"segs": 1.0, "sack": 0}) == "1"
    assert A.size_class({"segs": 7.0, "sack": 0}) == "5+"


def pcap(frames: list[tuple[int, int, int, int, int, int]]) -> bytes:
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for sp, dp, seq, ack, flags, payload in frames:
        tcp = struct.pack(">HHIIBBHHH", sp, dp, seq, ack, 5 << 4, flags, 65535, 0, 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 20 + payload, 0, 0, 64, 6, 0, bytes(4), bytes(4))
        f = bytes(12) + b"\x08\x00" + ip + tcp
        out += struct.pack("<IIII", 0, 0, len(f), len(f)) + f
    return out


def test_the_capture_reader_gives_ports_sequence_flags_and_payload():
    raw = pcap([(5001, 5201, 1000, 1, A.PSH | 0x10, 1448), (5201, 5001, 1, 2448, 0x10, 0)])
    assert A.read_pcap(raw) == [(5001, 5201, 1000, 1, A.PSH | 0x10, 1448), (5201, 5001, 1, 2448, 0x10, 0)]


def test_waiting_is_summed_by_the_ack_that_released_each_packet():
    # two packets 0.2 ms apart after a 2-segment ACK: the second waits 1.0 ms of a 1.2 ms service
    sends = [1_000.0, 1_200.0, 50_000.0]
    acks = [(990.0, "2"), (49_950.0, "1")]
    w = A.waiting_by_ack(sends, acks, 0.0, 0.0, 0.1)
    assert w["by_ack_size"]["2"] == {"packets": 2, "waiting": round(1.0 / 100, 3)}
    assert w["by_ack_size"]["1"] == {"packets": 1, "waiting": 0.0}


def test_lindley_waiting_from_arrival_times():
    # arrivals at 0, 0.2 and 5 ms: the second waits 1.0 ms; over a 10 ms window 0.1 packets
    assert A.lindley_waiting([0.0, 200.0, 5_000.0], 0.0, 0.0, 0.01) == 1_000.0 / 10_000.0


def test_pair_backlog_counts_the_first_packet_of_each_two_segment_ack():
    # a duplicate ACK at 1 ms; 99 ms later a 2-segment ACK releases two packets 0.4 ms after
    # a packet still in service (sent at 99.9 ms): the pair's first packet waits 0.8 ms
    # (each ACK with snd_una after it, as slowstart_trace's streams give them)
    acks = [{"t": 0.0, "una": 10.0}, {"t": 1_000.0, "una": 10.0}, {"t": 100_000.0, "una": 12.0},
            {"t": 200_000.0, "una": 14.0}]
    sends = [99_900.0, 100_300.0, 100_300.0]
    got = A.pair_backlog(sends, acks, 0.0, 0.0, 1.0)
    assert got == {"90-180 ms": {"pairs": 1, "first_waits": 1.0, "mean_us": 800}}


def test_pair_backlog_by_cwnd_bins_by_the_window_at_the_ack():
    acks = [{"t": 0.0, "una": 10.0, "cwnd": 14}, {"t": 100_000.0, "una": 12.0, "cwnd": 14},
            {"t": 200_000.0, "una": 14.0, "cwnd": 14}]
    sends = [99_900.0, 100_300.0, 100_300.0]
    got = A.pair_backlog_by_cwnd(sends, acks, lambda x: x["cwnd"], 0.0, 0.0, 1.0)
    assert got == {"cwnd 12-16": {"pairs": 1, "first_waits": 1.0, "mean_us": 800}}
