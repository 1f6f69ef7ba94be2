"""Exceptions raised by ccsim.

Defined once in the native module (``ccsim._core``) and re-exported here::

    Exception
     └─ SimError            anything the simulator refuses or fails at
         └─ ScenarioError   a scenario with problems: ``.problems`` is a list of
                            ``(path, message)`` tuples, ``.source`` names the document
"""

from __future__ import annotations

from collections.abc import Iterable

from ccsim._core import ScenarioError, SimError

__all__ = ["ScenarioError", "SimError", "scenario_error"]


def scenario_error(source: str, problems: Iterable[tuple[str, str]]) -> ScenarioError:
    """A ``ScenarioError`` raised on the Python side (file reading, TOML syntax, overrides),
    shaped and worded like the ones the core raises."""
    problems = [(str(path), str(message)) for path, message in problems]
    n = len(problems)
    lines = [f"{n} problem{'' if n == 1 else 's'} in scenario {source}:"]
    lines += [f"  {p}: {m}" if p else f"  {m}" for p, m in problems]
    err = ScenarioError("\n".join(lines))
    err.problems = problems
    err.source = source
    return err
