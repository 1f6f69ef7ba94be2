"""docs/first-hour.md runs from the docs alone: every block marked ``<!-- run -->`` runs in
order in one temporary directory (```python blocks in one namespace, ```console lines
``$ ccsim …`` through the CLI's ``main``), after the files marked ``<!-- file: NAME -->``
before them are written there."""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "first-hour.md"
_BLOCK = re.compile(r"<!-- (run|file: (\S+)) -->\s*\n```(\w+)\n(.*?)```", re.S)


def blocks() -> list[tuple[int, str, str | None, str, str]]:
    """(line, "run" or "file", file name, language, text) of each marked block, in order."""
    text = DOC.read_text(encoding="utf-8")
    return [
        (text[: m.start()].count("\n") + 1, "file" if m.group(2) else "run", m.group(2), m.group(3), m.group(4))
        for m in _BLOCK.finditer(text)
    ]


def test_every_marker_is_followed_by_a_block():
    text = DOC.read_text(encoding="utf-8")
    found = blocks()
    assert len(found) == text.count("<!-- run -->") + text.count("<!-- file: ")
    assert {lang for _, kind, _, lang, _ in found if kind == "run"} == {"python", "console"}


def test_the_page_is_linked_from_the_readme():
    readme = (DOC.parent.parent / "README.md").read_text(encoding="utf-8")
    assert "docs/first-hour.md" in readme


@pytest.mark.needs_core
def test_the_first_hour_runs(tmp_path, monkeypatch, capsys):
    import matplotlib

    from ccsim.cli import main

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__first_hour__"}
    t_start = time.perf_counter()
    for line, kind, name, lang, body in blocks():
        where = f"{DOC.name}:{line}"
        if kind == "file":
            (tmp_path / name).write_text(body, encoding="utf-8")
        elif lang == "python":
            try:
                exec(compile(body, where, "exec"), namespace)
            except Exception as e:  # name the block
                raise AssertionError(f"{where}: {e!r}") from e
        else:
            for cmd in body.splitlines():
                if not cmd.startswith("$ "):
                    continue
                argv = shlex.split(cmd[2:])
                assert argv[0] == "ccsim", f"{where}: only ccsim commands run here: {cmd}"
                code = main(argv[1:])
                out = capsys.readouterr()
                assert code == 0, f"{where}: `{cmd[2:]}` exited {code}: {out.err}"
    # "Well under a minute" on an idle machine; the bound leaves room for a loaded one.
    assert time.perf_counter() - t_start < 120
