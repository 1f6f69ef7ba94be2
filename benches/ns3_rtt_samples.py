"""Which ACKs give an RTT sample, and what the samples are, in ccsim and in ns-3 (issue #19).

    python benches/ns3_rtt_samples.py [--loss 0.05] [--seconds 60] [--seeds N | --seed-list L]
        [--ccsim rto.samples=new_ack] [--ccsim-only]

The single-flow random-loss scenario of benches/ns3_compare.py, both simulators set as
there. For each side, summed over the seeds, the ACKs the sender received by kind (`dup`:
no advance of SND.UNA; `new`: SND.UNA advances; `syn`: the SYN-ACK), the RTT samples its
estimator took from each kind, those samples by value (`path`: below 150 ms, the 100 ms
base RTT plus queueing; `delack`: 150–350 ms, an ACK held by the 200 ms delayed-ACK timer;
`long`: 350 ms and above), their mean, and srtt averaged per sample and over time.

- ns-3: the sender socket's `Rx` trace (every segment, before `TcpSocketBase::EstimateRtt`
  runs in `DoForwardUp`) records the ACK's kind and its timestamp echo; its `RTT` trace
  (the smoothed RTT, which changes only when `EstimateRtt` takes a sample) says that the
  ACK just recorded gave a sample. The sample is the echo's age, `Now − TSecr` in ns-3's
  1 ms timestamp ticks, as `TcpSocketBase::CalculateRttSample` computes it.
- ccsim: packet captures of the sender's access link (`[trace] pcap`: data leaving s, ACKs
  leaving r) give each ACK's acknowledgement number and echo (TSecr = the echoed segment's
  send time); the sample is the ACK's arrival at s (capture time + 1 ms + its transmission
  at 1 Gb/s) minus the echo; an ACK echoing a retransmitted segment gives none (Karn's
  rule, unless `rto.karn = false`), and with `rto.samples = "new_ack"` neither does one that
  does not advance SND.UNA. Feeding
  these samples to RFC 6298's estimator reproduces the srtt series ccsim reports (the
  script prints both time means as a check of the reconstruction).
"""

import argparse
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import ns3_compare as nc  # noqa: E402

KINDS = ("syn", "dup", "new")
BUCKETS = ("path", "delack", "long")


def bucket(rtt_s: float) -> int:
    return 0 if rtt_s < 0.150 else 1 if rtt_s < 0.350 else 2


class Tally:
    """Counts of one simulator, summed over seeds."""

    def __init__(self):
        self.acks = [0, 0, 0]
        self.used = [0, 0, 0]
        self.by_value = [[0, 0, 0] for _ in KINDS]
        self.sum_rtt = [0.0, 0.0, 0.0]
        self.srtt_per_sample = []  # per-seed means
        self.srtt_time = []  # per-seed time means (10 ms samples)
        self.srtt_time_check = []  # ccsim: the time mean of the reconstructed srtt
        self.seconds = 0.0
        self.ambiguous = 0  # ccsim: ACKs whose echo matched a retransmission and a new segment
        self.rto_expiries = 0  # every expiry of the retransmission timer
        self.loss_entries = None  # ns-3: entries into CA_LOSS (a repeated expiry not counted)
        # Timer expiries by the state they end (ns-3: its CongState; ccsim, from the capture:
        # the first retransmission after an expiry, i.e. one after a silence of 0.4 s or more
        # (the longest gap without a timeout is an RTT plus the 200 ms delayed-ACK wait) or
        # a second retransmission outside a loss phase, was of a segment sent once ("open":
        # too few duplicate ACKs), fast-retransmitted ("recovery"), or retransmitted in the
        # loss phase of an earlier expiry ("loss": a repeated expiry). A loss phase lasts until
        # new data above the highest segment sent before the expiry leaves.)
        self.expired_in = {"open": 0, "recovery": 0, "loss": 0}

    def sample(self, kind: int, rtt: float):
        self.used[kind] += 1
        self.by_value[kind][bucket(rtt)] += 1
        self.sum_rtt[kind] += rtt

    def report(self, name: str):
        per_s = lambda n: n / self.seconds  # noqa: E731
        print(f"{name}: {self.seconds:g} s simulated")
        for k, kind in enumerate(KINDS):
            if kind == "syn":
                continue
            mean = self.sum_rtt[k] / self.used[k] * 1e3 if self.used[k] else float("nan")
            vals = ", ".join(f"{b} {per_s(n):.3f}/s" for b, n in zip(BUCKETS, self.by_value[k]))
            print(f"  {kind:>3} ACKs {per_s(self.acks[k]):7.3f}/s, samples {per_s(self.used[k]):7.3f}/s"
                  f" (mean {mean:6.1f} ms; {vals})")
        m = lambda xs: sum(xs) / len(xs) * 1e3 if xs else float("nan")  # noqa: E731
        line = f"  srtt: per-sample mean {m(self.srtt_per_sample):.1f} ms, time mean {m(self.srtt_time):.1f} ms"
        if self.srtt_time_check:
            line += f" (reconstructed from the capture: {m(self.srtt_time_check):.1f} ms)"
        line += f"; timer expiries {self.rto_expiries / self.seconds * 60:.2f} per minute"
        if self.loss_entries is not None:
            line += f" (entries into CA_LOSS {self.loss_entries / self.seconds * 60:.2f})"
        line += " (ending " + ", ".join(f"{k} {n / self.seconds * 60:.2f}" for k, n in self.expired_in.items()) + ")"
        if self.ambiguous:
            line += f"; {self.ambiguous} ACKs with an ambiguous echo (no sample counted)"
        print(line)


# ---------------------------------------------------------------------------------------
# ns-3

NS3_HOOKS = r"""
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
namespace rtt3 {
using namespace ns3;
uint64_t acks[3], used[3], byValue[3][3];
double sumRtt[3], srttSum; uint64_t srttN;
uint64_t rtoExpiries, lossEntries, expiredIn[5];
int state = 0;
bool have = false, pending = false; uint32_t last = 0; int pendKind = 0; double pendRtt = 0;
void Reset() {
    for (int i = 0; i < 3; i++) { acks[i] = used[i] = 0; sumRtt[i] = 0;
        for (int j = 0; j < 3; j++) byValue[i][j] = 0; }
    srttSum = 0; srttN = 0; have = pending = false; last = 0;
    rtoExpiries = lossEntries = 0; state = 0;
    for (int i = 0; i < 5; i++) expiredIn[i] = 0;
}
// ReTxTimeout doubles m_rto ("RTO"); a sample or a new ACK sets it from srtt and rttvar,
// which at these RTTs is the 1 s floor: a doubling is an expiry (a repeated one included).
void Rto(std::string, Time o, Time n) {
    if (!o.IsZero() && n == o + o) { rtoExpiries++; expiredIn[state]++; }
}
void Cong(std::string, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n) {
    if (n == TcpSocketState::CA_LOSS && o != TcpSocketState::CA_LOSS) lossEntries++;
    state = (int)n;  // CA_OPEN 0, CA_DISORDER 1, CA_CWR 2, CA_RECOVERY 3, CA_LOSS 4
}
void Rx(std::string, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    if (!(h.GetFlags() & TcpHeader::ACK)) return;
    uint32_t ack = h.GetAckNumber().GetValue();
    int kind = (h.GetFlags() & TcpHeader::SYN) ? 0 : (have && ack <= last) ? 1 : 2;
    if (kind == 2) { last = ack; have = true; }
    acks[kind]++;
    pendKind = kind; pendRtt = -1; pending = true;
    if (h.HasOption(TcpOption::TS)) {
        auto ts = DynamicCast<const TcpOptionTS>(h.GetOption(TcpOption::TS));
        pendRtt = TcpOptionTS::ElapsedTimeFromTsValue(ts->GetEcho()).GetSeconds();
    }
}
void Srtt(std::string, Time, Time n) {
    srttSum += n.GetSeconds(); srttN++;
    if (!pending) return;
    pending = false;
    used[pendKind]++; sumRtt[pendKind] += pendRtt;
    byValue[pendKind][pendRtt < 0.150 ? 0 : pendRtt < 0.350 ? 1 : 2]++;
}
void Hook(uint32_t node) {
    std::string base = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/*/";
    Config::Connect(base + "Rx", MakeCallback(&Rx));
    Config::Connect(base + "RTT", MakeCallback(&Srtt));
    Config::Connect(base + "RTO", MakeCallback(&Rto));
    Config::Connect(base + "CongState", MakeCallback(&Cong));
}
void HookAt(uint32_t node, double at) { Simulator::Schedule(Seconds(at), &Hook, node); }
}
"""


def ns3_tally(p, secs, seeds) -> Tally:
    ns = nc.ns3()
    if not hasattr(ns.cppyy.gbl, "rtt3"):
        ns.cppyy.cppdef(NS3_HOOKS)
    g = ns.cppyy.gbl.rtt3
    t = Tally()
    for seed in seeds:
        g.Reset()
        out, _, _ = nc.ns3_run(*nc.loss_scenario(p)(seed), secs, seed,
                               hook=lambda node, start: g.HookAt(node, start + 0.0001))
        for k in range(3):
            t.acks[k] += g.acks[k]
            t.used[k] += g.used[k]
            t.sum_rtt[k] += g.sumRtt[k]
            for b in range(3):
                t.by_value[k][b] += g.byValue[k][b]
        t.srtt_per_sample.append(g.srttSum / max(1, g.srttN))
        t.srtt_time.append(out[0]["srtt"])
        t.rto_expiries += g.rtoExpiries
        t.loss_entries = (t.loss_entries or 0) + g.lossEntries
        for k, i in (("open", 0), ("open", 1), ("recovery", 3), ("loss", 4)):
            t.expired_in[k] += g.expiredIn[i]
        t.seconds += secs
    return t


# ---------------------------------------------------------------------------------------
# ccsim


def pcap_frames(data: bytes):
    """(time_ns, tcp header bytes) of each frame of a ccsim capture (ns pcap, Ethernet, IPv4)."""
    magic = struct.unpack("<I", data[:4])[0]
    assert magic == 0xA1B23C4D, "a nanosecond pcap"
    off = 24
    while off < len(data):
        sec, nsec, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        frame = data[off + 16: off + 16 + incl]
        off += 16 + incl
        if frame[12:14] != b"\x08\x00" or frame[23] != 6:
            continue
        ihl = (frame[14] & 0x0F) * 4
        yield sec * 10**9 + nsec, frame[14 + ihl:]


def tcp_fields(tcp: bytes):
    """seq, ack, TSval, TSecr of a ccsim TCP header (the timestamp option comes first)."""
    seq, ack = struct.unpack(">II", tcp[4:12])
    tsval, tsecr = struct.unpack(">II", tcp[24:32])
    return seq, ack, tsval, tsecr


def ccsim_tally(p, secs, seeds, match) -> Tally:
    import ccsim

    new_ack_only = match.get("rto", {}).get("samples") == "new_ack"
    karn = match.get("rto", {}).get("karn", True)
    t = Tally()
    for seed in seeds:
        doc = nc.ccsim_doc(*nc.loss_scenario(p)(seed), secs, seed, match)
        doc["trace"]["pcap"] = ["s->r", "r->s"]
        r = ccsim.run(ccsim.Scenario(doc), progress=False)
        # TSval (µs) → whether the segments sent then were retransmissions (None: both
        # kinds left in the same microsecond, so the echo is ambiguous; counted apart).
        sent_at: dict[int, bool | None] = {}
        how_sent: dict[int, str] = {}  # seq → "new", "fast" or "timer" (its last transmission)
        prev_ns, in_loss, recover = None, False, 0
        for t_ns, tcp in pcap_frames(r.pcap("s->r")):
            seq, _, tsval, _ = tcp_fields(tcp)
            if tsval:
                retx = seq in how_sent
                sent_at[tsval] = retx if sent_at.get(tsval, retx) == retx else None
                after_silence = prev_ns is not None and t_ns - prev_ns >= 400_000_000
                # A timer expiry: a retransmission after a silence, or (no other detection
                # of a lost retransmission being modelled) a second one outside a loss phase.
                expiry = retx and (after_silence or (how_sent[seq] != "new" and not in_loss))
                if expiry:
                    last = how_sent[seq]
                    t.expired_in["open" if last == "new" else "recovery" if last == "fast" else "loss"] += 1
                    in_loss, recover = True, max(how_sent)  # until new data above it leaves
                elif not retx and in_loss and seq > recover:
                    in_loss = False
                how_sent[seq] = "timer" if retx and in_loss else "fast" if retx else "new"
                prev_ns = t_ns
        last = None
        srtt = None
        samples = []  # (time s, srtt after the sample)
        for t_ns, tcp in pcap_frames(r.pcap("r->s")):
            _, ack, _, tsecr = tcp_fields(tcp)
            size = 2 + 20 + len(tcp)  # PPP, IPv4, TCP with its options (bytes)
            arrive = t_ns + 1_000_000 + size * 8  # + 1 ms + transmission at 1 Gb/s (ns)
            retx = sent_at.get(tsecr, "none")
            if retx is None and karn:
                t.ambiguous += 1
            if last is None and retx == "none":
                kind = 0  # the SYN-ACK (echoes the SYN, not a data segment)
                usable = True
            else:
                kind = 2 if last is None or ack > last else 1
                last = ack if kind == 2 else last
                echo_ok = retx is False or (not karn and retx != "none")
                usable = echo_ok and not (new_ack_only and kind == 1)
            t.acks[kind] += 1
            if usable:
                rtt = (arrive - tsecr * 1000) / 1e9
                t.sample(kind, rtt)
                srtt = rtt if srtt is None else 0.875 * srtt + 0.125 * rtt
                samples.append((arrive / 1e9, srtt))
        t.rto_expiries += int(r.flows.timeouts.iloc[0])  # every expiry (a SYN's included)
        fs = r.flow_series
        srtt_series = fs[fs.flow == "f0"][["time_s", "srtt_s"]].dropna()
        t.srtt_time.append(float(srtt_series.srtt_s.mean()))
        t.srtt_per_sample.append(sum(s for _, s in samples) / max(1, len(samples)))
        # The reconstructed srtt at the series' times: the latest sample's srtt.
        import bisect

        times = [x for x, _ in samples]
        vals = [samples[bisect.bisect_right(times, x) - 1][1] for x in srtt_series.time_s
                if bisect.bisect_right(times, x) > 0]
        t.srtt_time_check.append(sum(vals) / max(1, len(vals)))
        t.seconds += secs
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loss", type=float, default=0.05)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--seed-list")
    ap.add_argument("--ccsim", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--ccsim-only", action="store_true")
    a = ap.parse_args()
    seeds = nc.parse_seeds(a.seed_list) if a.seed_list else list(range(1, a.seeds + 1))
    match = nc.with_overrides(a.ccsim)
    print(f"loss {a.loss * 100:g} %, {a.seconds:g} s, seeds {seeds[0]}–{seeds[-1]} ({len(seeds)});"
          f" ccsim overrides: {a.ccsim or 'none'}")
    ccsim_tally(a.loss, a.seconds, seeds, match).report("ccsim")
    if not a.ccsim_only:
        ns3_tally(a.loss, a.seconds, seeds).report("ns-3")


if __name__ == "__main__":
    main()
