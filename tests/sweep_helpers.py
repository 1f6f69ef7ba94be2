"""Small scenarios and plans for the sweep, store and reproduce tests."""

from __future__ import annotations

from pathlib import Path

# Two greedy flows over a named 10 Mb/s bottleneck, 2 simulated seconds.
TWO_FLOWS_TOML = """\
[simulation]
duration = "2s"
seed = 1

[trace]
interval = "100ms"
flows = "all"
links = ["bottleneck"]

[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "50p" }

[[link]]
between = ["s1", "r1"]
rate = "1Gbps"
delay = "5ms"

[[link]]
between = ["s2", "r1"]
rate = "1Gbps"
delay = "5ms"

[[link]]
between = ["r2", "d1"]
rate = "1Gbps"
delay = "5ms"

[[link]]
between = ["r2", "d2"]
rate = "1Gbps"
delay = "5ms"

[[flow]]
name = "a"
from = "s1"
to = "d1"
app = { kind = "bulk", start = ["0s", "0.2s"] }

[[flow]]
name = "b"
from = "s2"
to = "d2"
recovery = "sack"
app = { kind = "bulk", start = ["0s", "0.2s"] }
"""

# 3 loss values x 2 queue limits x 2 seeds = 12 points.
PLAN_12 = """\
name = "twelve"
base = "two_flows.toml"
seeds = 2

[grid]
"link.bottleneck.loss" = [0.0, 0.001, 0.01]
"link.bottleneck.queue.limit" = ["20p", "50p"]
"""


def write_base(d: Path, duration: str = "2s") -> Path:
    p = d / "two_flows.toml"
    p.write_text(TWO_FLOWS_TOML.replace('duration = "2s"', f'duration = "{duration}"'))
    return p


def write_plan(d: Path, text: str = PLAN_12, name: str = "plan.toml", duration: str = "2s") -> Path:
    write_base(d, duration)
    p = d / name
    p.write_text(text)
    return p
