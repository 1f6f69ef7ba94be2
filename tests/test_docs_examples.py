"""The docs' runnable examples: every ```python block preceded by ``<!-- doctest -->`` in
docs/python.md runs, in order, in one namespace (later blocks use earlier names), in a
temporary directory."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "python.md"
_BLOCK = re.compile(r"<!-- doctest -->\s*\n```python\n(.*?)```", re.S)


def blocks() -> list[tuple[int, str]]:
    """(line number, code) of each marked block."""
    text = DOC.read_text(encoding="utf-8")
    return [(text[: m.start()].count("\n") + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_the_marked_blocks_are_found():
    found = blocks()
    assert len(found) >= 5, found
    # Every marker is followed by a python block (a typo would silently skip an example).
    assert len(found) == DOC.read_text(encoding="utf-8").count("<!-- doctest -->")


@pytest.mark.needs_core
def test_docs_python_examples_run(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for line, code in blocks():
        t0 = time.perf_counter()
        try:
            exec(compile(code, f"{DOC.name}:{line}", "exec"), namespace)
        except Exception as e:  # name the block
            raise AssertionError(f"docs/python.md block at line {line} failed: {e!r}") from e
        # "Runs in a few seconds": each example, on a loaded 2-core machine, well under 20 s.
        assert time.perf_counter() - t0 < 20, f"block at line {line} took {time.perf_counter() - t0:.1f} s"
