"""Packet captures: the Python API and CLI, and tshark's own analysis of a capture against
ccsim's counters (skipped, saying why, when tshark is not installed)."""

from __future__ import annotations

import shutil
import struct
import subprocess

import pytest

import ccsim
from ccsim.cli import main
from ccsim.results import pcap_file_stem

pytestmark = pytest.mark.needs_core

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None,
    reason="tshark is not installed (Debian package `tshark`; .ci/run installs it): "
           "the check of captures against Wireshark's analysis needs it",
)

# One TCP flow: s --access (2 Mb/s, the bottleneck, a large queue)-- r --(2 % loss)--> d.
# Every segment s sends crosses the access link, where it is captured, before any loss.
# The access link sends a 1500-byte packet every 6 ms, above the 3 ms within which tshark
# would call a segment below the highest one seen "out of order" instead of a retransmission
# (Wireshark's packet-tcp.c, without a handshake to measure the first RTT).
LOSSY = """
[simulation]
duration = "60s"
seed = 3

[trace]
interval = "0s"
pcap = ["access"]

[[link]]
name = "access"
between = ["s", "r"]
rate = "2Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = 1000 }

[[link]]
from = "r"
to = "d"
rate = "10Mbps"
delay = "20ms"
loss = 0.02

[[link]]
from = "d"
to = "r"
rate = "10Mbps"
delay = "20ms"

[[flow]]
name = "f"
from = "s"
to = "d"
recovery = "sack"
app = { kind = "bulk", size = "2MB" }
"""


def _records(data: bytes) -> list[tuple[int, int, int]]:
    """(time ns, captured length, original length) of each record of a pcap file."""
    magic, = struct.unpack_from("<I", data, 0)
    assert magic == 0xA1B23C4D, "nanosecond pcap"
    out, at = [], 24
    while at < len(data):
        s, ns, incl, orig = struct.unpack_from("<IIII", data, at)
        out.append((s * 10**9 + ns, incl, orig))
        at += 16 + incl
    return out


@pytest.fixture(scope="module")
def lossy(tmp_path_factory):
    path = tmp_path_factory.mktemp("pcap") / "lossy.toml"
    path.write_text(LOSSY)
    return ccsim.run(ccsim.load(path), progress=False)


def test_captures_through_the_python_api(lossy, tmp_path):
    assert lossy.pcap_names == ["access"]
    assert "packet captures: <b>access</b>" in lossy._repr_html_()
    recs = _records(lossy.pcap("access"))
    f = lossy.flows.iloc[0]
    assert f.completion_time_s > 0 and f.retransmissions > 10
    assert all(a[0] <= b[0] for a, b in zip(recs, recs[1:])), "time order"
    assert all(incl <= orig for _, incl, orig in recs)
    with pytest.raises(KeyError, match="captured: \\['access'\\]"):
        lossy.pcap("bottleneck")
    written = lossy.save(tmp_path / "out")
    assert tmp_path / "out" / "access.pcap" in written
    assert (tmp_path / "out" / "access.pcap").read_bytes() == lossy.pcap("access")
    assert pcap_file_stem("s0->r1") == "s0-r1" and pcap_file_stem("a b/c") == "a_b_c"


def test_cli_pcap_option(capsys, tmp_path, monkeypatch):
    path = tmp_path / "lossy.toml"
    path.write_text(LOSSY.replace('pcap = ["access"]', ""))
    out = tmp_path / "out"
    assert main(["run", str(path), "--pcap", "access", "--pcap", "r->d", "--out", str(out), "--quiet"]) == 0
    assert sorted(p.name for p in out.glob("*.pcap")) == ["access.pcap", "r-d.pcap"]
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(path), "--pcap", "access", "--quiet"]) == 0
    assert (tmp_path / "ccsim-out" / "access.pcap").stat().st_size > 24
    code = main(["run", str(path), "--pcap", "nowhere", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "trace.pcap[0]" in err and 'unknown link "nowhere"' in err and "Traceback" not in err


def _tshark(path, *args: str) -> list[str]:
    done = subprocess.run([TSHARK, "-n", "-r", str(path), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line.strip()]


@needs_tshark
def test_tshark_agrees_with_ccsims_counters(lossy, tmp_path):
    (path,) = lossy.write_pcaps(tmp_path)
    f = lossy.flows.iloc[0]
    n = len(_records(lossy.pcap("access")))
    # Every packet parses: Ethernet, IPv4, TCP, nothing malformed, no error-level expert info.
    protocols = _tshark(path, "-T", "fields", "-e", "frame.protocols")
    assert len(protocols) == n and set(protocols) == {"eth:ethertype:ip:tcp"}
    assert _tshark(path, "-Y", "_ws.malformed || _ws.expert.severity >= error") == []
    # The IPv4 header checksums verify.
    assert set(_tshark(path, "-o", "ip.check_checksum:TRUE", "-T", "fields", "-e", "ip.checksum.status")) == {"1"}
    # Data segments (leaving s, 10.0.0.1): as many as ccsim sent; nothing missing before them.
    data = _tshark(path, "-Y", "ip.src == 10.0.0.1 && tcp.len > 0")
    assert len(data) == f.data_packets_sent
    assert _tshark(path, "-Y", "tcp.analysis.lost_segment") == []
    # tshark's own retransmission analysis flags exactly ccsim's retransmissions.
    retx = _tshark(path, "-Y", "tcp.analysis.retransmission")
    assert len(retx) == f.retransmissions
    # Its SACK blocks and timestamps are read: ACKs carrying SACK blocks during recovery, and
    # the RTT tshark measures from the echoed timestamps' frames is the path's (≥ 50 ms).
    assert _tshark(path, "-Y", "tcp.options.sack_le") != []
    rtts = [float(x) for x in _tshark(path, "-T", "fields", "-e", "tcp.analysis.ack_rtt") if x]
    assert rtts and min(rtts) >= 0.050 - 1e-6
