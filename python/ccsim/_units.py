"""Quantities with units on the Python side: the builders write them, the traffic helpers
read link rates. The grammar is the scenario format's (docs/scenario.md, "Units"); the core
remains the one that validates a document, so these helpers only convert.
"""

from __future__ import annotations

import math
import re

__all__ = ["rate_bps", "duration_s", "size_bytes", "rate_text", "duration_text", "rate_param", "delay_param"]

_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([A-Za-zµ]+)$")
_RATE = {"bps": 1.0, "kbps": 1e3, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12}
_DURATION = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
_SIZE = {"B": 1, "KB": 10**3, "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
         "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def _parse(text: str, units: dict[str, float], what: str, example: str) -> float:
    m = _QUANTITY.match(text.strip()) if isinstance(text, str) else None
    if not m or m.group(2) not in units:
        raise ValueError(f"{text!r} is not a {what} with a unit, e.g. {example!r} (units: {', '.join(units)})")
    return float(m.group(1)) * units[m.group(2)]


def rate_bps(value: str | float) -> float:
    """A rate in bit/s from ``"100Mbps"`` (a number is taken as bit/s)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return _parse(value, _RATE, "rate", "100Mbps")


def duration_s(value: str | float) -> float:
    """A duration in seconds from ``"10ms"`` (a number is taken as seconds)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return _parse(value, _DURATION, "duration", "10ms")


def size_bytes(value: str | int) -> float:
    """A size in bytes from ``"1500B"`` or ``"64KiB"`` (an integer is taken as bytes)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return _parse(value, _SIZE, "size", "1500B")


def rate_text(bps: float) -> str:
    """A rate in bit/s as the scenario format writes it (whole bit/s)."""
    if not (bps > 0 and math.isfinite(bps)):
        raise ValueError(f"a rate must be a positive number of bit/s, not {bps!r}")
    return f"{max(1, round(bps))}bps"


def duration_text(seconds: float) -> str:
    """A duration in seconds as the scenario format writes it (whole nanoseconds)."""
    if not (seconds >= 0 and math.isfinite(seconds)):
        raise ValueError(f"a duration must be a non-negative number of seconds, not {seconds!r}")
    return f"{round(seconds * 1e9)}ns"


def rate_param(value: object, name: str) -> str:
    """A builder's rate parameter as scenario text: a string passes as is (the core checks
    it), a number is bit/s; anything else is a ``TypeError`` naming the parameter."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return rate_text(float(value))
    raise TypeError(f"{name}: expected a rate such as '10Gbps' or a number of bit/s, not {value!r}")


def delay_param(value: object, name: str) -> str:
    """A builder's delay parameter as scenario text (a number is seconds)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return duration_text(float(value))
    raise TypeError(f"{name}: expected a duration such as '10ms' or a number of seconds, not {value!r}")
