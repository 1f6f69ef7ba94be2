"""Scenario documents: load from TOML, build with ``dumbbell``, override with ``set``.

A :class:`Scenario` is the plain document (nested dicts and lists, as in the TOML file) plus
the name of where it came from. It is checked only by the core (``validate`` or ``run``), which
reports every problem at once in a :class:`~ccsim.ScenarioError`.
"""

from __future__ import annotations

import copy as _copy
import json
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ccsim import _core
from ccsim.exceptions import scenario_error

__all__ = ["Scenario", "load", "dumbbell"]

# tomllib's messages end with "(at line L, column C)" (Python 3.11-3.13 have no attributes).
_TOML_POS = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_INDEX = re.compile(r"\[(-?\d+)\]")


def _json_default(value: Any) -> Any:
    """Values json cannot write: numpy scalars and arrays, paths, TOML dates."""
    if hasattr(value, "tolist"):  # numpy scalar or array
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "isoformat"):  # TOML dates and times; the core will say what it wants
        return value.isoformat()
    raise TypeError(f"cannot put a {type(value).__name__} in a scenario: {value!r}")


def _split_path(path: str) -> list[str]:
    """``"link[1].rate"`` and ``"link.1.rate"`` → ``["link", "1", "rate"]``."""
    parts = _INDEX.sub(r".\1", path).split(".")
    if not path or any(p == "" for p in parts):
        raise ValueError(f"bad path {path!r}: use dotted keys such as 'simulation.duration' or 'link.0.rate'")
    return parts


class Scenario:
    """A scenario document and the name of its source.

    ``doc`` is the document as nested dicts and lists (the TOML file's structure);
    ``source`` is the file name, or a description such as ``"<python>"``.
    """

    def __init__(self, doc: Mapping[str, Any], source: str = "<python>") -> None:
        if not isinstance(doc, Mapping):
            raise TypeError(f"a scenario document is a mapping, not {type(doc).__name__}")
        self.doc: dict[str, Any] = dict(doc)
        self.source = source

    def __repr__(self) -> str:
        n_links = len(self.doc.get("link", []) or [])
        n_flows = len(self.doc.get("flow", []) or [])
        return f"Scenario({self.source!r}, {n_links} link entries, {n_flows} flow entries)"

    def to_json(self) -> str:
        """The document as JSON text (what the core reads)."""
        return json.dumps(self.doc, default=_json_default)

    def to_networkx(self) -> Any:
        """The network as a ``networkx.DiGraph``: one edge per directed link in the core's
        order, with the link entry's ``rate``, ``delay``, ``queue``, ``loss`` and ``name`` as
        written, ``rate_bps`` and ``delay_s`` as numbers, ``entry`` (its ``[[link]]`` index) and
        ``index`` (the directed link's); nodes carry ``host`` (true for flow endpoints) and the
        graph ``flows`` (the ``[[flow]]`` entries). ``ccsim.from_networkx`` reads it back."""
        from ccsim.netx import links_to_digraph

        flows = list(self.doc.get("flow", []) or [])
        hosts = {str(f[k]) for f in flows for k in ("from", "to") if isinstance(f, Mapping) and k in f}
        g = links_to_digraph(list(self.doc.get("link", []) or []), hosts, name=self.source)
        g.graph["flows"] = _copy.deepcopy(flows)
        return g

    def _repr_html_(self) -> str:
        from ccsim._html import scenario_html

        return scenario_html(self)

    def validate(self) -> None:
        """Check the whole document with the core; raise ``ScenarioError`` listing every problem."""
        _core.validate(self.to_json(), self.source)

    def copy(self) -> Scenario:
        """An independent deep copy."""
        return Scenario(_copy.deepcopy(self.doc), self.source)

    def get(self, path: str) -> Any:
        """The value at a dotted path such as ``"simulation.duration"`` or ``"link.0.rate"``."""
        node: Any = self.doc
        for i, key in enumerate(parts := _split_path(path)):
            node = self._step(node, key, path, parts[: i + 1], create=False)
        return node

    def set(self, path: str, value: Any) -> Scenario:
        """Set the value at a dotted path and return ``self`` (so calls chain).

        Keys name table entries (``"simulation.duration"``), integers index arrays of tables
        (``"link.0.rate"``, also written ``"link[0].rate"``; negative counts from the end).
        Missing tables along the way are created; a missing array element is an error.
        Raises ``ScenarioError`` when the path does not fit the document.
        """
        parts = _split_path(path)
        node: Any = self.doc
        for i, key in enumerate(parts[:-1]):
            # a missing table is created, a missing array is not (its length is unknown)
            creatable = not parts[i + 1].lstrip("-").isdigit()
            node = self._step(node, key, path, parts[: i + 1], create=creatable)
        last = parts[-1]
        if isinstance(node, list):
            node[self._index(node, last, path)] = value
        elif isinstance(node, dict):
            node[last] = value
        else:
            raise scenario_error(self.source, [(path, f"{'.'.join(parts[:-1])} is a {type(node).__name__}, not a table or array")])
        return self

    def _index(self, node: list, key: str, path: str) -> int:
        try:
            i = int(key)
        except ValueError:
            raise scenario_error(self.source, [(path, f"{key!r} is not an index into an array of {len(node)}")]) from None
        if not -len(node) <= i < len(node):
            raise scenario_error(self.source, [(path, f"index {i} is out of range for an array of {len(node)}")])
        return i

    def _step(self, node: Any, key: str, path: str, so_far: list[str], *, create: bool) -> Any:
        if isinstance(node, list):
            return node[self._index(node, key, path)]
        if isinstance(node, dict):
            if key not in node:
                if not create:
                    raise scenario_error(self.source, [(path, f"no key {'.'.join(so_far)!r}")])
                node[key] = {}
            return node[key]
        raise scenario_error(self.source, [(path, f"{'.'.join(so_far[:-1])} is a {type(node).__name__}, not a table or array")])


def load(path: str | os.PathLike[str]) -> Scenario:
    """Read a scenario file (TOML; ``.json`` files are read as JSON).

    Only the file's syntax is checked here; call ``validate()`` or ``run()`` for the rest.
    Raises ``ScenarioError`` when the file cannot be read or parsed; a syntax error names the
    line and column.
    """
    p = Path(path)
    source = str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise scenario_error(source, [("", "file not found")]) from None
    except IsADirectoryError:
        raise scenario_error(source, [("", "is a directory, not a scenario file")]) from None
    except UnicodeDecodeError as e:
        raise scenario_error(source, [("", f"not UTF-8 text ({e.reason} at byte {e.start})")]) from None
    except OSError as e:
        raise scenario_error(source, [("", f"cannot read: {e.strerror or e}")]) from None
    if p.suffix.lower() == ".json":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise scenario_error(source, [("", f"JSON syntax error at line {e.lineno}, column {e.colno}: {e.msg}")]) from None
        if not isinstance(doc, dict):
            raise scenario_error(source, [("", "a scenario document is a JSON object")])
        return Scenario(doc, source)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = _TOML_POS.search(msg)
        if m:
            where = f"line {m.group(1)}, column {m.group(2)}"
            msg = f"TOML syntax error at {where}: {msg[: m.start()]}"
        else:
            msg = f"TOML syntax error: {msg}"
        raise scenario_error(source, [("", msg)]) from None
    return Scenario(doc, source)


def dumbbell(**params: Any) -> Scenario:
    """A dumbbell scenario: senders — router — bottleneck — router — receivers, one greedy
    TCP flow per sender.

    Parameters (all optional): ``n_flows``, ``bottleneck_rate`` ("100Mbps"),
    ``bottleneck_delay`` ("10ms"), ``access_rate`` ("1Gbps"), ``access_delay`` ("5ms"),
    ``queue_packets`` (333), ``duration`` ("100s"), ``seed`` (1), ``cc`` ("reno"),
    ``recovery`` ("sack"), ``mss`` (1460), ``start_spread`` ("0s"), ``trace_interval``
    ("100ms"), ``link_model`` ("fast"). Raises ``ValueError`` for unknown or bad parameters.
    """
    doc = json.loads(_core.dumbbell_doc(json.dumps(params, default=_json_default)))
    args = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return Scenario(doc, f"dumbbell({args})")
