"""A one-line progress indicator for long runs: simulated time, wall time, ETA."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["format_duration", "format_progress", "ProgressLine"]

#: With ``progress=None`` (automatic), nothing is shown before the run has taken this long.
AUTO_DELAY_S = 2.0


def format_duration(s: float) -> str:
    """Wall time for humans: ``"0.4s"``, ``"12.3s"``, ``"2m05s"``, ``"1h02m"``."""
    if s != s or s < 0:  # NaN or negative
        return "?"
    if s < 60:
        return f"{s:.1f}s"
    s = int(round(s))
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def format_progress(sim_s: float, end_s: float, wall_s: float) -> str:
    """``"sim 12.5/100s (12%)  wall 4.1s  ETA 28.7s"``; ETA extrapolates the wall time per
    simulated second so far."""
    frac = min(max(sim_s / end_s, 0.0), 1.0) if end_s > 0 else 1.0
    eta = wall_s * (1 - frac) / frac if frac > 0 else float("nan")
    return f"sim {sim_s:g}/{end_s:g}s ({frac:.0%})  wall {format_duration(wall_s)}  ETA {format_duration(eta)}"


class ProgressLine:
    """Decides whether to show progress and draws it on ``stream``.

    ``mode`` is ``run()``'s ``progress`` argument: ``None`` shows the line only once the run
    has taken ``AUTO_DELAY_S`` and only when ``stream`` is a terminal; ``True`` always shows it
    (on a terminal the line is redrawn in place, elsewhere a line is written at each 10%);
    ``False`` never; a callable is called as ``f(sim_s, end_s, wall_s)`` after every chunk.
    """

    def __init__(
        self,
        mode: bool | None | Callable[[float, float, float], object],
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.callback = mode if callable(mode) else None
        self.mode = None if callable(mode) else mode
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.start = clock()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.drawn = False  # something is on the line that close() must finish
        self.last_decile = 0  # off a terminal: a line at 10%, 20%, …, 100%

    def should_show(self, wall_s: float) -> bool:
        if self.mode is True:
            return True
        if self.mode is None:
            return self.tty and wall_s >= AUTO_DELAY_S
        return False

    def update(self, sim_s: float, end_s: float) -> None:
        wall_s = self.clock() - self.start
        if self.callback is not None:
            self.callback(sim_s, end_s, wall_s)
            return
        if not self.should_show(wall_s):
            return
        line = format_progress(sim_s, end_s, wall_s)
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K")
            self.stream.flush()
            self.drawn = True
        else:
            decile = int(10 * sim_s / end_s) if end_s > 0 else 10
            if decile > self.last_decile:
                self.last_decile = decile
                self.stream.write(line + "\n")
                self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
