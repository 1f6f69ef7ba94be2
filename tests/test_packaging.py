"""ccsim installed as users install it: a wheel in a fresh virtual environment, used from a
directory outside the checkout.

The editable install the suite otherwise uses reads files from the checkout, so it hides any
file the wheel forgets. Here the wheel is built with ``maturin build --release`` (the release
build of ``pip install -e .`` is reused, so this takes seconds), installed into a new venv
without its dependencies (the venv sees this interpreter's site-packages for numpy, pandas
and the rest, so no network is needed; ccsim itself comes from the wheel, which the test
checks), and every command runs from a temporary directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("maturin") is None, reason="maturin is not installed")


def _run(cmd: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding ccsim from a freshly built wheel; returns its bin directory."""
    tmp = tmp_path_factory.mktemp("wheel")
    built = _run(["maturin", "build", "--release", "--out", str(tmp / "dist")], cwd=ROOT)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp / "dist").glob("ccsim-*.whl")
    venv = tmp / "venv"
    made = _run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], cwd=tmp)
    assert made.returncode == 0, made.stderr
    pip = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], cwd=tmp)
    assert pip.returncode == 0, pip.stderr
    return venv / "bin"


def test_the_wheel_is_what_runs(installed: Path, tmp_path: Path) -> None:
    # The venv's own copy, not the checkout's editable install.
    r = _run([str(installed / "python"), "-c", "import ccsim, sys; print(ccsim.__file__)"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    where = Path(r.stdout.strip()).resolve()
    assert installed.parent.resolve() in where.parents, f"ccsim imported from {where}, not from the venv"
    assert ROOT not in where.parents


def test_version_and_shipped_examples(installed: Path, tmp_path: Path) -> None:
    r = _run([str(installed / "ccsim"), "--version"], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("ccsim "), r.stdout + r.stderr
    r = _run([str(installed / "ccsim"), "examples"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in ("dumbbell", "fast_multipath_rip", "cmt_berp", "arc_planetary", "dumbbell_sweep"):
        assert name in r.stdout
    r = _run([str(installed / "ccsim"), "run", "--example", "dumbbell", "--out", "out", "--quiet"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "summary.json").is_file()
    r = _run([str(installed / "ccsim"), "run", "--example", "no-such-thing"], cwd=tmp_path)
    assert r.returncode == 2 and "shipped:" in r.stderr and "dumbbell" in r.stderr


def test_reproduce_quick_from_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    # Every registered experiment, quick mode, from a directory that is not the checkout.
    r = _run([str(installed / "ccsim"), "reproduce", "--quick", "--quiet", "--out", "rep"], cwd=tmp_path, timeout=1800)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert (tmp_path / "rep" / "report" / "index.html").is_file()


def test_shipped_topology_and_flow_size_files(installed: Path, tmp_path: Path) -> None:
    # The GraphML example and the flow-size CDFs are package data, read with importlib.resources.
    code = ("import ccsim; net = ccsim.read_graphml(ccsim.netx.graphml_example('abilene')); "
            "print(len(net.links), round(ccsim.traffic.flow_sizes('websearch').mean), "
            "round(ccsim.traffic.flow_sizes('datamining').mean))")
    r = _run([str(installed / "python"), "-c", code], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    links, ws, dm = map(int, r.stdout.split())
    assert links == 14 and 1.6e6 < ws < 1.7e6 and 7.4e6 < dm < 7.5e6


def test_the_json_schema_is_shipped(installed: Path, tmp_path: Path) -> None:
    code = ("from ccsim import _core, paths; p = paths.schema_file(); "
            "print(p.is_file() and p.read_text() == _core.schema())")
    r = _run([str(installed / "python"), "-c", code], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == "True", r.stdout + r.stderr
