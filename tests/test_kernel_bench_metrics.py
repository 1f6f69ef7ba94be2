"""The kernel bench's metric definitions (benches/linux/metrics.py) on hand-made series, and
its ccsim scenario builder: fast, no root, no network. The bench itself (root, minutes) is
not part of the suite."""

import json
import math
import sys
from pathlib import Path

import numpy as np

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches" / "linux"))
import metrics as M  # noqa: E402


def series(**kw):
    t = np.arange(0.0, 10.0, 0.5)
    base = dict(t=t, cwnd=np.full_like(t, 10.0), ssthresh=np.full_like(t, np.nan), srtt=np.full_like(t, 0.05),
                acked=t * 1e6 / 8)  # exactly 1 Mb/s
    base.update(kw)
    return M.Series(**base)


def test_goodput_is_bytes_acked_over_the_window():
    s = series()
    assert M.window_goodput_bps(s, 2.0, 9.5) == pytest.approx(1e6)
    assert math.isnan(M.window_goodput_bps(s, 9.6, 9.7))


def test_slow_start_peak_is_the_largest_window_up_to_the_first_finite_ssthresh():
    cw = np.array([10, 20, 40, 80, 70, 40, 41, 42] + [50] * 12, dtype=float)
    ss = np.full(20, np.nan)
    ss[4:] = 40.0
    assert M.slow_start(series(cwnd=cw, ssthresh=ss)) == (80.0, 40.0)
    assert all(math.isnan(x) for x in M.slow_start(series()))


def test_sawtooth_period_is_the_median_gap_between_reductions_in_the_window():
    s = series(reductions=[0.5, 2.0, 4.0, 6.5, 8.0])
    assert M.sawtooth_period(s, 1.0, 10.0) == pytest.approx(2.0)  # gaps 2.0, 2.5, 1.5
    assert math.isnan(M.sawtooth_period(s, 5.0, 10.0))  # two events only


def test_events_within_one_rtt_count_once():
    assert M.merge_events([1.0, 1.02, 1.05, 1.07, 2.0]) == [1.0, 1.07, 2.0]


def test_a_window_reduction_is_a_descent_of_more_than_ten_percent_from_its_first_fall():
    import kernel_bench as K
    t = np.arange(14) * 0.02
    # PRR's stepped cut (42 → 41 → 32 → 23 → 21, the first step 2 %), growth, a 5 % dip that
    # is not a reduction, and a cut in one step
    cw = np.array([40, 41, 42, 41, 32, 23, 21, 21, 22, 21, 22, 23, 11, 12], dtype=float)
    assert K.window_descents(t, cw) == [pytest.approx(0.06), pytest.approx(0.24)]


def test_queue_time_average_clips_intervals_to_the_window():
    iv = np.array([[0.0, 2.0], [1.0, 3.0], [5.0, 6.0]])
    # over [1, 5]: [1,2] + [1,3] = 1 + 2 packet-seconds in 4 s
    assert M.queue_time_average(iv, 1.0, 5.0) == pytest.approx(0.75)


def test_scenario_metrics_sum_flows_and_give_the_first_flows_share():
    a = series()
    b = series(acked=a.acked * 3)
    m = M.scenario_metrics([a, b], 5.0, 1.0, 9.5)
    assert m["goodput_mbps"] == pytest.approx(4.0)
    assert m["share0"] == pytest.approx(0.25)
    assert m["srtt_ms"] == pytest.approx(50.0)


@pytest.mark.needs_core
def test_the_bench_builds_valid_ccsim_scenarios_for_every_case():
    import ccsim
    import kernel_bench as kb

    for name in kb.SCENARIOS:
        for cc in kb.CCSIM_CC:
            ccsim.Scenario(kb.ccsim_doc(name, cc, 5.0, 1, [0.0, 0.04], profile=None)).validate()
    doc = kb.ccsim_doc("rtt40-80", "reno", 5.0, 1, [0.0, 0.04], profile=None)
    assert doc["link"][0]["loss"] == 0.0 and "loss" not in doc["link"][1]  # data direction only
    # the kernel's sender writes once every connect() has returned: all data leaves together,
    # at the last flow's start; with a handshake (the linux profile) the 80 ms flow's starts
    # 40 ms earlier so that its data leaves with the 40 ms flow's
    assert [fl["app"]["start"] for fl in doc["flow"]] == ["40.0ms", "40.0ms"]
    linux = kb.ccsim_doc("rtt40-80", "reno", 5.0, 1, [0.0, 0.04], profile="linux")
    assert [fl["app"]["start"] for fl in linux["flow"]] == ["40.0ms", "0.0ms"]
    delays = {tuple(l.get("between", ())): l["delay"] for l in doc["link"]}
    assert delays[("s0", "r1")] == "0.0ms" and delays[("s1", "r1")] == "20.0ms"


def test_common_cuts_counts_flow_0s_reductions_near_one_of_flow_1s_inside_the_window():
    import common_cuts as C

    a = series(reductions=[1.0, 2.0, 3.0, 4.0, 9.5])
    b = series(reductions=[1.05, 2.07, 3.9])
    # within 60 ms: 1.0 (0.05 away); not 2.0 (0.07), 3.0 (0.9), 4.0 (0.1); 9.5 is outside
    assert C.common_cuts([a, b], 0.5, 9.0) == (1, 4)
    assert C.common_cuts([a, b], 0.5, 9.0, near=0.11) == (3, 4)
    assert C.common_cuts([a, series(reductions=[])], 0.0, 10.0) == (0, 5)


def test_drop_episodes_group_drops_and_measure_the_gap_between_the_flows_first_drops():
    import common_cuts as C

    drops = [(1.00, 0), (1.03, 1), (1.05, 0),  # one episode: both flows, first drops 30 ms apart
             (2.00, 1), (2.09, 1), (2.15, 0),  # one episode (gaps < 100 ms): 150 ms apart
             (3.00, 0),                         # flow 0 only
             (9.50, 1)]                         # outside the window
    ep = C.drop_episodes(drops, 0.5, 9.0)
    assert ep["episodes"] == 3 and ep["both"] == 2 and ep["gap_under_60ms"] == 1
    assert ep["gap_median_ms"] == pytest.approx(90.0)
    assert C.drop_episodes([], 0.0, 1.0)["gap_median_ms"] is None


def test_burst_sizes_count_each_flows_packets_less_than_200us_apart():
    import common_cuts as C

    us = 1000
    arr = [(0, 0), (10 * us, 0), (5 * us, 1),      # flow 0: a pair; flow 1 a single (interleaved)
           (1000 * us, 0),                          # flow 0: a single
           (2000 * us, 1), (2100 * us, 1), (2250 * us, 1)]  # flow 1: three, each < 200 µs apart
    assert C.burst_sizes(arr) == {1: 0.5, 2: 0.25, 3: 0.25}


def test_push_marks_share_gaps_and_ack_sizes():
    import push_marks as P

    mss = 1448
    psh, ack = 0x18, 0x10
    data = [(i, 5001, 5201, i * mss, 1, psh if i % 2 else ack, mss) for i in range(6)]  # PSH on 1, 3, 5
    data[4] = (4, 5001, 5201, 4 * mss, 1, psh, mss)                                     # and on 4
    acks = [(10 + i, 5201, 5001, 1, a, ack, 0) for i, a in enumerate([0, 2 * mss, 3 * mss, 3 * mss, 5 * mss])]
    m = P.marks(data + acks, 5001, mss)
    assert m["segments"] == 6 and m["psh_share"] == pytest.approx(4 / 6)
    assert m["gaps"] == {1: 2, 2: 1}        # 1→3: 2, 3→4: 1, 4→5: 1
    assert m["ack_sizes"] == {0: 1, 1: 1, 2: 2}


def test_host_jitter_splits_the_access_links_and_jitters_the_hosts_directions_only():
    import kernel_bench as K

    plain = K.ccsim_doc("two", "reno", 10.0, 1, [0.0, 0.0], "linux")
    assert all("jitter" not in ln for ln in plain["link"])
    doc = K.ccsim_doc("two", "reno", 10.0, 1, [0.0, 0.0], "linux", host_jitter_us=(70.0, 204.0))
    jit = {(ln["from"], ln["to"]): ln.get("jitter") for ln in doc["link"] if "from" in ln}
    assert jit[("s0", "r1")] == "70.0us" and jit[("d1", "r2")] == "204.0us"
    assert jit[("r1", "s0")] is None and jit[("r2", "d0")] is None and jit[("r1", "r2")] is None
    assert K._jitter_pair("70,204") == (70.0, 204.0)
    with pytest.raises(Exception):
        K._jitter_pair("70")


def test_ccsim_set_writes_flow_keys_over_the_profile_and_dotted_keys_into_tables():
    import kernel_bench as K

    assert K._flow_key("tso_defer=true") == ("tso_defer", True)
    assert K._flow_key("rto.min=300ms") == ("rto.min", "300ms")
    with pytest.raises(Exception):
        K._flow_key("tso_defer")
    doc = K.ccsim_doc("q33", "reno", 5.0, 1, [0.0], "linux", flow_set={"tso_defer": True, "rto.min": "300ms"})
    fl = doc["flow"][0]
    assert fl["tso_defer"] is True and fl["rto"] == {"min": "300ms"} and fl["stack"] == "linux"
    # a controller's parameter turns the flow's cc name into a table of that kind
    doc = K.ccsim_doc("q33", "bbr", 5.0, 1, [0.0], "linux", flow_set={"cc.edt": False, "pacing": "segment"})
    fl = doc["flow"][0]
    assert fl["cc"] == {"kind": "bbr", "edt": False} and fl["pacing"] == "segment"


def test_from_kernel_takes_each_case_from_the_first_file_that_has_it(tmp_path):
    import kernel_bench as K

    def run(scenario, cc, k):
        return {"scenario": scenario, "cc": cc, "run": k}

    def save(name, kernel, build):
        p = tmp_path / name
        p.write_text(json.dumps({"meta": {"kernel": build, "date": "d", "seconds": 60.0, "runs": 2},
                                 "kernel": kernel}))
        return p

    a = save("a.json", [run("q33", "bbr", 0), run("q33", "bbr", 1)], "new")
    b = save("b.json", [run("q33", "bbr", 0), run("q33", "reno", 0), run("q8", "reno", 0)], "old")
    kernel, meta = K.load_kernel_runs([a, b], ["q33"], ["bbr", "reno"])
    assert [(r["cc"], r["run"]) for r in kernel] == [("bbr", 0), ("bbr", 1), ("reno", 0)]
    assert meta["kernel"] == "new" and len(meta["sources"]) == 2 and "q33/reno" in meta["sources"][1]
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"meta": {"kernel": "x", "seconds": 10.0, "runs": 1}, "kernel": []}))
    with pytest.raises(SystemExit):
        K.load_kernel_runs([a, c], ["q33"], ["bbr"])
    # the runs per case actually taken: a's 2 for bbr, b's 1 for reno; b alone, 1
    assert meta["runs"] == "1–2"
    kernel, meta = K.load_kernel_runs([b, a], ["q33"], ["bbr", "reno"])
    assert meta["runs"] == 1 and [(r["cc"], r["run"]) for r in kernel] == [("bbr", 0), ("reno", 0)]


def test_held_back_counts_the_window_left_unused_after_each_ack_at_steady_state():
    import slowstart_trace as S

    mss = 1448
    ev = [(float(t), (10 + t) * mss, t * mss, 10, 7) for t in range(70)]  # window full
    ev[65] = (65.0, (9 + 65) * mss, 65 * mss, 10, 7)                        # one held back
    ev[68] = (68.0, (10 + 68) * mss, 68 * mss, 10, 5)                       # ssthresh changed
    h = S.held_back(ev, since_us=0.0, quiet=60)
    assert h == {0: 7, 1: 1}  # events 60–67: 68's ssthresh differs, 69 follows a change
    assert S.held_back(ev, since_us=66.0, quiet=60) == {0: 2}


def test_recoveries_per_minute_come_from_the_namespace_counters_nearest_the_window():
    import kernel_bench as K

    import endpoints as E

    fields = ["t_ns", *E.NETSTAT_KEPT]
    sack, reno = fields.index("TCPSackRecovery"), fields.index("TCPRenoRecovery")

    def row(t_s, n_sack, n_reno=0):
        r = [0] * len(fields)
        r[0], r[sack], r[reno] = int(1e9 + t_s * 1e9), n_sack, n_reno
        return r

    # one snapshot a second from t_start = 1 s; 2 recoveries a second after 10 s
    samples = [row(t, max(0, 2 * (t - 10)), 1 if t > 30 else 0) for t in range(0, 61)]
    snd = {"netstat": {"fields": fields, "samples": samples}}
    got = K.netstat_recoveries_per_min(snd, int(1e9), 10.0, 60.0)
    assert got == pytest.approx(60.0 * (100 + 1) / 50.0)
    assert math.isnan(K.netstat_recoveries_per_min({}, 0, 10.0, 60.0))


def test_saved_runs_get_rec_per_min_from_their_kept_sender_logs(tmp_path):
    import endpoints as E
    import kernel_bench as K

    fields = ["t_ns", *E.NETSTAT_KEPT]
    sack = fields.index("TCPSackRecovery")
    samples = [[int(t * 1e9)] + [0] * (len(fields) - 1) for t in range(0, 61)]
    for row in samples:
        row[sack] = row[0] // int(1e9)  # one recovery a second
    d = tmp_path / "runs" / "q33-reno-0"
    d.mkdir(parents=True)
    (d / "snd.json").write_text(json.dumps({"flows": [{"start_ns": 0}], "netstat": {"fields": fields,
                                                                                   "samples": samples}}))
    kernel = [{"scenario": "q33", "cc": "reno", "run": 0, "metrics": {}},
              {"scenario": "q33", "cc": "reno", "run": 1, "metrics": {}},
              {"scenario": "q8", "cc": "reno", "run": 0, "metrics": {"recoveries_per_min": 7.0}}]
    K.counters_from_runs(kernel, tmp_path, 60.0)
    assert kernel[0]["metrics"]["recoveries_per_min"] == pytest.approx(60.0)
    assert "recoveries_per_min" not in kernel[1]["metrics"]  # no log kept
    assert kernel[2]["metrics"]["recoveries_per_min"] == 7.0  # already had it


def test_lost_data_packets_numbers_data_frames_in_arrival_order(tmp_path):
    import kernel_bench as kb

    log = tmp_path / "emu.log"
    log.write_text(
        "# ccsim-kernel-emu log v1\n"
        "dir,arrival_ns,extra_ns,size,sport,dport,verdict,tx_end_ns,deliver_ns,sent_ns\n"
        "0,100,0,60,1,2,sent,1,2,3\n"      # the SYN: not a data frame
        "0,300,0,1500,1,2,lost,0,0,\n"     # logged out of order: the third data frame
        "0,200,0,1500,1,2,sent,1,2,3\n"
        "1,250,0,52,2,1,lost,0,0,\n"       # the ACK direction is not counted
        "0,250,0,1500,1,2,overflow,0,0,\n"
        "0,400,0,1500,1,2,lost,0,0,\n")
    assert kb.lost_data_packets(log) == [2, 3]


@pytest.mark.needs_core
def test_paired_loss_drops_the_kernel_runs_packets_in_ccsim():
    import ccsim
    import kernel_bench as kb

    doc = kb.ccsim_doc("loss1e-2", "reno", 5.0, 1, [0.0], "linux", lost=[30, 31, 200])
    assert doc["link"][0]["loss"] == {"kind": "scripted", "data_packets": [30, 31, 200]}
    r = ccsim.run(doc, progress=False)
    assert int(r.flows["drops_scripted_loss"].sum()) == 3
    assert int(r.flows["drops_random_loss"].sum()) == 0
    none = kb.ccsim_doc("loss1e-2", "reno", 5.0, 1, [0.0], "linux", lost=[])
    assert none["link"][0]["loss"] == "none"


def test_high_samples_are_counted_once_per_gain_cycle_window():
    import rate_samples as RS
    c = RS.CYCLE_S
    # samples over 9.80 in windows 0 (twice) and 2 of [5 s, 5 s + 4 cycles); one low in 1;
    # one high before the range and one after it
    s = [{"t": 100.0 + x, "rate": r} for x, r in [(4.0, 9.9), (5.0 + 0.1 * c, 9.85), (5.0 + 0.5 * c, 9.9),
                                                   (5.0 + 1.5 * c, 9.7), (5.0 + 2.2 * c, 9.81),
                                                   (5.0 + 4.1 * c, 9.9)]]
    assert RS.cycles_with_high_sample(s, 100.0, 5.0, 5.0 + 4 * c + 1e-9) == (2, 4)


def test_sacks_at_once_after_a_partial_fill_are_counted_up_to_the_first_held():
    import rate_samples as RS
    held, now = 0.0011, 0.00005

    def ack(t, una, sack):
        return (t, "r", 0, 0, una, [(5, 6)] if sack else [])

    # una 3 (a partial fill, blocks remain), two SACKs at once, a held one; then una 4 (a
    # fill), one at once, and the next fill (una 7, everything delivered) ends it uncounted
    acks = [ack(1, 3, True), ack(2, 3, True), ack(3, 3, True), ack(4, 3, True),
            ack(5, 4, True), ack(6, 4, True), ack(7, 7, False)]
    hold = [now, now, now, held, now, now, now]
    assert RS.after_partial_fill(acks, hold) == {2: 1}


def test_the_ccsim_values_show_their_range_when_seeds_differ():
    import kernel_bench as K

    def metrics(peak):
        return {m: (peak if m == "ss_peak" else 1.0) for m in K.METRICS}

    kernel = [{"scenario": "two", "cc": "bbr", "flags": [], "emulator": {"lag_ns": {"p99": 0, "max": 0}},
               "metrics": metrics(64.0)}]
    meta = {"kernel": "k", "runs": 1, "seconds": 60.0, "window": [10, 60], "ccsim_options": "x"}
    one = K.markdown(K.summarise(kernel, [{"scenario": "two", "cc": "bbr", "metrics": metrics(69.0)}]), meta)
    assert "(mean over seeds):" in one and "| 69 |" in one
    sim = [{"scenario": "two", "cc": "bbr", "metrics": metrics(p)} for p in (56.0, 70.0, 63.0)]
    table = K.markdown(K.summarise(kernel, sim), meta)
    assert "(mean over seeds, [min–max]):" in table and "| 63 [56–70] |" in table


def test_counters_sum_each_runs_increase_over_kept_runs(tmp_path):
    import counters as C

    def run(name, samples):
        d = tmp_path / "m" / "runs" / name
        d.mkdir(parents=True)
        fields = ["t_ns", "TCPSackRecovery", "TCPLossProbes"]
        (d / "snd.json").write_text(json.dumps({"netstat": {"fields": fields, "samples": samples}}))

    run("q8-bbr-0", [[0, 5, 0], [1, 9, 0], [2, 12, 1]])
    run("q8-bbr-1", [[0, 100, 2], [1, 103, 2]])
    (tmp_path / "m" / "runs" / "old").mkdir()
    (tmp_path / "m" / "runs" / "old" / "snd.json").write_text(json.dumps({"flows": []}))
    assert C.totals([tmp_path / "m"]) == (2, {"TCPSackRecovery": 10, "TCPLossProbes": 1})


def test_bbr_model_reads_the_kernels_samples_in_the_window_and_counts_btlbw_over_the_payload_rate(tmp_path):
    import bbr_model

    fields = ["t_ns", "unacked", "sacked", "lost", "retrans", "snd_cwnd", "bbr_bw", "pacing_rate", "bbr_min_rtt"]
    payload = bbr_model.payload_mbps("q8")
    assert payload == pytest.approx(10 * 1448 / 1500)
    payload_bytes_s = payload * 1e6 / 8
    rows = []
    # BtlBw as a share of the payload rate; times from the first sample: 0 s before the window
    # (10–60 s), 59.9 s the last inside it
    for t_s, bw in [(0.0, 0.9), (10.0, 1.01), (20.0, 1.01), (30.0, 1.0), (59.9, 5.0)]:
        t = int(t_s * 1e9)
        rows.append([t, 40, 2, 1, 1, 80, bw * payload_bytes_s, 0.99 * bw * payload_bytes_s, 42_000])
    rows.append([int(61e9), 0, 0, 0, 0, 4, 0.0, 0.0, 41_000])  # after the window
    run = tmp_path / "q8-bbr-0"
    run.mkdir()
    (run / "snd.json").write_text(json.dumps({"fields": fields, "flows": [{"samples": rows}]}))
    bw, pacing, flight, cwnd, rtprop, over = bbr_model.kernel(run, payload)
    assert bw == pytest.approx(1.01 * payload)  # median of 1.01, 1.01, 1.0, 5.0
    assert pacing == pytest.approx(0.99 * 1.01 * payload)
    assert (flight, cwnd, rtprop) == (38.0, 80.0, 42.0)
    assert over == 0.75  # exactly the rate is not over it
