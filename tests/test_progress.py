"""The progress indicator: formatting and when it is shown."""

from __future__ import annotations

import io

import pytest

from ccsim.progress import AUTO_DELAY_S, ProgressLine, format_duration, format_progress


@pytest.mark.parametrize(
    ("secs", "text"),
    [(0.0, "0.0s"), (0.44, "0.4s"), (12.34, "12.3s"), (59.94, "59.9s"), (125, "2m05s"), (3725, "1h02m"),
     (float("nan"), "?"), (-1, "?")],
)
def test_format_duration(secs, text):
    assert format_duration(secs) == text


def test_format_progress_with_eta():
    assert format_progress(25.0, 100.0, 10.0) == "sim 25/100s (25%)  wall 10.0s  ETA 30.0s"


def test_format_progress_at_start_and_end():
    assert format_progress(0.0, 100.0, 0.5).endswith("ETA ?")
    assert format_progress(100.0, 100.0, 80.0) == "sim 100/100s (100%)  wall 1m20s  ETA 0.0s"
    assert "(100%)" in format_progress(0.0, 0.0, 0.0)


class FakeStream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_auto_waits_for_the_delay_on_a_terminal():
    clock, stream = Clock(), FakeStream(tty=True)
    line = ProgressLine(None, stream, clock)
    clock.t = AUTO_DELAY_S - 0.1
    line.update(10, 100)
    assert stream.getvalue() == ""
    clock.t = AUTO_DELAY_S + 0.1
    line.update(20, 100)
    assert stream.getvalue().startswith("\rsim 20/100s (20%)")
    line.close()
    assert stream.getvalue().endswith("\n")


def test_auto_is_silent_when_not_a_terminal():
    clock, stream = Clock(), FakeStream(tty=False)
    line = ProgressLine(None, stream, clock)
    clock.t = 100.0
    line.update(50, 100)
    line.close()
    assert stream.getvalue() == ""


def test_false_is_silent():
    clock, stream = Clock(), FakeStream(tty=True)
    line = ProgressLine(False, stream, clock)
    clock.t = 100.0
    line.update(50, 100)
    line.close()
    assert stream.getvalue() == ""


def test_true_shows_at_once_and_writes_lines_per_decile_off_a_terminal():
    clock, stream = Clock(), FakeStream(tty=False)
    line = ProgressLine(True, stream, clock)
    for i in range(1, 101):
        clock.t = i * 0.01
        line.update(float(i), 100.0)
    line.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("sim 10/100s (10%)")
    assert lines[-1].startswith("sim 100/100s (100%)")


def test_callable_gets_sim_end_and_wall_time():
    calls = []
    clock = Clock()
    line = ProgressLine(lambda s, e, w: calls.append((s, e, w)), FakeStream(tty=True), clock)
    clock.t = 3.0
    line.update(5.0, 10.0)
    assert calls == [(5.0, 10.0, 3.0)]
