"""The kernel bench's scenarios as data (issue #26): the seven built in, and any number more
from a TOML file (`kernel_bench.py --scenario-file FILE`), so that a case the tables do not
show runs with one command, in the kernel and in ccsim alike.

One bottleneck, the same in both directions: `rate` and `delay` (one way), a DropTail queue
of `queue` packets counting the one in service, seeded Bernoulli `loss` on the data
direction only; each flow a bulk transfer from its own sender, with an `extra_delay` each way
on its access link (one flow with none unless `extra_delay` lists them). A file:

    [[scenario]]
    name = "r20-d30"                 # letters, digits, '-', '_'; not a built-in name
    description = "1 flow, 20 Mb/s, 60 ms RTT, 1 BDP"
    rate = "20Mbps"                  # 1–100 Mb/s: the emulator is a user-space bridge
    delay = "30ms"                   # one way, 1–500 ms
    queue = 100                      # packets, 1–10000
    loss = 0.0                       # [0, 0.2]
    extra_delay = ["0ms", "20ms"]    # one per flow, 1–4 flows, each 0–500 ms; default ["0ms"]
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

RATE_RANGE_BPS = (1_000_000, 100_000_000)
DELAY_RANGE_MS = (1.0, 500.0)
EXTRA_RANGE_MS = (0.0, 500.0)
QUEUE_RANGE = (1, 10_000)
LOSS_MAX = 0.2
MAX_FLOWS = 4
NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
KEYS = ("name", "description", "rate", "delay", "queue", "loss", "extra_delay")


@dataclass(frozen=True)
class BenchScenario:
    name: str
    description: str
    limit: int  # DropTail packets, counting the one in service
    loss: float  # Bernoulli, data direction
    extra_ms: tuple[float, ...]  # per flow, one way, on its access link
    rate_bps: int = 10_000_000
    one_way_ms: float = 20.0

    @property
    def flows(self) -> int:
        return len(self.extra_ms)

    def to_json(self) -> dict:
        d = asdict(self)
        d["extra_ms"] = list(self.extra_ms)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "BenchScenario":
        return cls(**{**d, "extra_ms": tuple(d["extra_ms"])})


BUILTIN: dict[str, BenchScenario] = {s.name: s for s in (
    BenchScenario("q8", "1 flow, DropTail 8 p (¼ BDP)", 8, 0.0, (0.0,)),
    BenchScenario("q33", "1 flow, DropTail 33 p (1 BDP)", 33, 0.0, (0.0,)),
    BenchScenario("q133", "1 flow, DropTail 133 p (4 BDP)", 133, 0.0, (0.0,)),
    BenchScenario("loss1e-3", "1 flow, 33 p, Bernoulli loss 10⁻³", 33, 1e-3, (0.0,)),
    BenchScenario("loss1e-2", "1 flow, 33 p, Bernoulli loss 10⁻²", 33, 1e-2, (0.0,)),
    BenchScenario("two", "2 flows, 40 ms RTT each, 33 p", 33, 0.0, (0.0, 0.0)),
    BenchScenario("rtt40-80", "2 flows, 40 and 80 ms RTT, 33 p", 33, 0.0, (0.0, 20.0)),
)}


class ScenarioFileError(ValueError):
    pass


def _quantity(text: object, what: str, where: str, example: str) -> float:
    """A rate (bit/s) or a duration (ms) written as in scenario files (`ccsim._units`, the
    scenario format's grammar)."""
    from ccsim._units import duration_s, rate_bps

    try:
        if not isinstance(text, str):
            raise ValueError
        return rate_bps(text) if what == "rate" else duration_s(text) * 1e3
    except ValueError:
        raise ScenarioFileError(f"{where}: {text!r} is not a quantity like {example!r} "
                                "(units as in scenario files, docs/scenario.md)") from None


def _in(x: float, lo: float, hi: float, where: str, shown: str, scale: float = 1.0, unit: str = "") -> None:
    if not (lo <= x <= hi):
        raise ScenarioFileError(f"{where}: {shown} is outside [{lo / scale:g}, {hi / scale:g}]{unit}")


def parse_scenario(t: dict, where: str) -> BenchScenario:
    """One `[[scenario]]` table; `where` names it in errors (file and index)."""
    if not isinstance(t, dict):
        raise ScenarioFileError(f"{where}: a scenario is a table")
    unknown = sorted(set(t) - set(KEYS))
    if unknown:
        raise ScenarioFileError(f"{where}: unknown key(s) {unknown}; allowed {list(KEYS)}")
    for k in ("name", "rate", "delay", "queue"):
        if k not in t:
            raise ScenarioFileError(f"{where}: `{k}` is required")
    name = t["name"]
    if not isinstance(name, str) or not NAME.match(name):
        raise ScenarioFileError(f"{where}.name: {name!r}: 1–40 letters, digits, '-' or '_'")
    where = f"{where} ({name})"
    if name in BUILTIN:
        raise ScenarioFileError(f"{where}.name: a built-in scenario's name ({', '.join(BUILTIN)})")
    rate = _quantity(t["rate"], "rate", f"{where}.rate", "20Mbps")
    _in(rate, *RATE_RANGE_BPS, f"{where}.rate", f"{rate / 1e6:g} Mb/s", 1e6, " Mb/s")
    delay = _quantity(t["delay"], "duration", f"{where}.delay", "30ms")
    _in(delay, *DELAY_RANGE_MS, f"{where}.delay", f"{delay:g} ms", unit=" ms")
    queue = t["queue"]
    if not isinstance(queue, int) or isinstance(queue, bool):
        raise ScenarioFileError(f"{where}.queue: {queue!r} is not a whole number of packets")
    _in(queue, *QUEUE_RANGE, f"{where}.queue", str(queue))
    loss = t.get("loss", 0.0)
    if not isinstance(loss, (int, float)) or isinstance(loss, bool):
        raise ScenarioFileError(f"{where}.loss: {loss!r} is not a probability")
    _in(float(loss), 0.0, LOSS_MAX, f"{where}.loss", f"{loss!r}")
    extras = t.get("extra_delay", ["0ms"])
    if not isinstance(extras, list) or not (1 <= len(extras) <= MAX_FLOWS):
        raise ScenarioFileError(f"{where}.extra_delay: a list of 1–{MAX_FLOWS} delays, one per flow")
    ex = []
    for i, x in enumerate(extras):
        v = _quantity(x, "duration", f"{where}.extra_delay[{i}]", "20ms")
        _in(v, *EXTRA_RANGE_MS, f"{where}.extra_delay[{i}]", f"{v:g} ms", unit=" ms")
        ex.append(v)
    desc = t.get("description", "")
    if not isinstance(desc, str):
        raise ScenarioFileError(f"{where}.description: a string")
    return BenchScenario(name, desc, queue, float(loss), tuple(ex), round(rate), delay)


def load_file(path: Path) -> dict[str, BenchScenario]:
    """The scenarios of a TOML file, by name; ScenarioFileError naming the file, the
    scenario and the field where one is wrong."""
    try:
        doc = tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise ScenarioFileError(f"{path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioFileError(f"{path}: not TOML: {e}") from None
    extra = sorted(set(doc) - {"scenario"})
    if extra or not isinstance(doc.get("scenario"), list) or not doc["scenario"]:
        raise ScenarioFileError(f"{path}: expected one or more [[scenario]] tables"
                                + (f", found {extra}" if extra else ""))
    out: dict[str, BenchScenario] = {}
    for i, t in enumerate(doc["scenario"]):
        s = parse_scenario(t, f"{path}: scenario[{i}]")
        if s.name in out:
            raise ScenarioFileError(f"{path}: scenario[{i}].name: {s.name!r} appears twice")
        out[s.name] = s
    return out
