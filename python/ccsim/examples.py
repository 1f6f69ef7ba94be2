"""The scenario files and sweep plans shipped inside the package.

They live in ``ccsim/scenarios/`` (the checkout's top-level ``scenarios/`` points there), so
an installed wheel carries them and nothing reads the repository tree at run time::

    ccsim examples                      # list them
    ccsim run --example dumbbell        # run one
    ccsim.load(ccsim.examples.path("dumbbell"))
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable

__all__ = ["names", "path", "plan_names", "plan_path", "read_text"]

_DIR = "scenarios"
_PLANS = "plans"


def _root() -> Traversable:
    return resources.files("ccsim") / _DIR


def names() -> list[str]:
    """The shipped scenarios' names (file names without ``.toml``), sorted."""
    return sorted(p.name[: -len(".toml")] for p in _root().iterdir() if p.name.endswith(".toml"))


def plan_names() -> list[str]:
    """The shipped sweep plans' names, sorted."""
    return sorted(p.name[: -len(".toml")] for p in (_root() / _PLANS).iterdir() if p.name.endswith(".toml"))


def _find(sub: Traversable, name: str, known: list[str], what: str) -> Traversable:
    stem = name[: -len(".toml")] if name.endswith(".toml") else name
    if stem not in known:
        raise KeyError(f"no shipped {what} {name!r}; shipped: {', '.join(known)}")
    return sub / f"{stem}.toml"


def path(name: str) -> str:
    """The file system path of the shipped scenario ``name`` (``"dumbbell"`` or
    ``"dumbbell.toml"``); ``KeyError`` listing the shipped ones otherwise.

    The package is installed as files (wheels are unpacked), so the path is a real file."""
    return str(_find(_root(), name, names(), "scenario"))


def plan_path(name: str) -> str:
    """The file system path of the shipped sweep plan ``name``."""
    return str(_find(_root() / _PLANS, name, plan_names(), "sweep plan"))


def read_text(name: str) -> str:
    """The text of the shipped scenario ``name``."""
    return _find(_root(), name, names(), "scenario").read_text(encoding="utf-8")
