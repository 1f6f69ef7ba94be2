"""Dotted paths into scenario documents: one implementation for ``Scenario.get``/``set`` and
sweep overrides.

A path is dotted keys (``"simulation.duration"``) with array entries named by index
(``"link.0.rate"``, also ``"link[0].rate"``; negative counts from the end) or by the
entry's ``name`` (``"link.bottleneck.rate"``, ``"flow[web].cc"``).

Setting a value is checked against the scenario format before anything runs: the path and
the value go through the core's own parser (``_core.problems``), so an unknown key or a bad
value is reported with exactly the message a file would get. The JSON Schema of the format
(:func:`schema`, exported by the core from the same declarations) tells which keys hold
kind-tagged tables, so ``set("flow.0.cc.beta", 0.8)`` on ``cc = "cubic"`` turns the
shorthand into ``{ kind = "cubic", beta = 0.8 }``, and a missing kind-tagged table is
created with its default kind.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from ccsim import _core
from ccsim.exceptions import scenario_error

__all__ = ["split", "resolve", "schema", "schema_file", "core_path", "new_problems"]

_BRACKET = re.compile(r"\[([^\]]*)\]")


def split(path: str) -> list[str]:
    """``"link[0].rate"``, ``"link.0.rate"``, ``"link[bottleneck].rate"`` → parts."""
    if not isinstance(path, str):
        raise ValueError(f"a path is a string, not {type(path).__name__}")
    parts = _BRACKET.sub(r".\1", path).split(".")
    if not path or any(p == "" for p in parts):
        raise ValueError(f"bad path {path!r}: use dotted keys such as 'simulation.duration' or 'link.0.rate'")
    return parts


def _is_index(key: str) -> bool:
    return key.lstrip("-").isdigit()


def resolve(doc: Mapping[str, Any], path: str, source: str = "<python>") -> list[str]:
    """The path's parts with array entries as indices: ``"link.bottleneck.loss"`` →
    ``["link", "0", "loss"]`` when ``doc["link"][0]["name"] == "bottleneck"``. Negative
    indices are made positive. Raises ``ScenarioError`` naming the known entries when a name
    is not found, for an index out of range, and for a path through a value that is not a
    table or array."""
    parts = split(path)
    out: list[str] = []
    node: Any = doc
    for i, key in enumerate(parts):
        if isinstance(node, list):
            if _is_index(key):
                idx = int(key)
                if not -len(node) <= idx < len(node):
                    raise scenario_error(source, [(path, f"index {idx} is out of range for an array of {len(node)} ({'.'.join(out)})")])
                idx %= len(node)
            else:
                names = [e.get("name") if isinstance(e, dict) else None for e in node]
                if key not in names:
                    known = [n for n in names if n is not None]
                    hint = f"known names: {', '.join(map(repr, known[:10]))}" if known else "no entry has a name"
                    raise scenario_error(source, [(path, f"no [[{'.'.join(out)}]] entry named {key!r}; {hint}")])
                idx = names.index(key)
            out.append(str(idx))
            node = node[idx]
        elif isinstance(node, dict):
            if key not in node and i + 1 < len(parts) and _is_index(parts[i + 1]):
                raise scenario_error(source, [(path, f"no key {'.'.join(parts[: i + 1])!r}")])
            out.append(key)
            node = node.get(key)  # a missing key is created by set (and checked by the core)
        elif node is None or isinstance(node, str):
            # below a table that set will create, or a kind given as a string ("cubic"),
            # which set turns into a table when the schema says it is one
            out.append(key)
            node = None
        else:
            raise scenario_error(source, [(path, f"{'.'.join(parts[:i])} is a {type(node).__name__}, not a table or array")])
    return out


def core_path(parts: list[str]) -> str:
    """The core's spelling of a resolved path: ``["link", "0", "rate"]`` → ``link[0].rate``."""
    out = ""
    for p in parts:
        if _is_index(p):
            out += f"[{p}]"
        else:
            out += f".{p}" if out else p
    return out


@functools.cache
def schema() -> dict[str, Any]:
    """The JSON Schema of scenario documents, as the core exports it (the file
    ``ccsim/schema/scenario.schema.json`` shipped with the package holds the same)."""
    return json.loads(_core.schema())


def schema_file() -> Path:
    """Where the installed package keeps ``scenario.schema.json`` (for editors: see
    docs/scenario.md, "Editor support")."""
    return Path(str(resources.files("ccsim").joinpath("schema", "scenario.schema.json")))


def _branch(node: Mapping[str, Any], doc: Any) -> Mapping[str, Any] | None:
    """The ``then`` of the first ``if``/``then`` branch of ``node`` that ``doc`` meets: the
    keys of the kind (or transport) ``doc`` has."""
    for b in node.get("allOf", []):
        cond = b.get("if", {}) if isinstance(b, Mapping) else {}
        required = cond.get("required", [])
        ok = True
        for k, c in cond.get("properties", {}).items():
            have = doc.get(k) if isinstance(doc, Mapping) else None
            if have is None:
                ok = ok and k not in required
            else:
                ok = ok and have == c.get("const")
        if ok and "then" in b:
            return b["then"]
    return None


def _child(node: Any, key: str, doc: Any) -> Any:
    """The schema of ``key`` inside the schema ``node``, for the document value ``doc`` it
    describes (its kind or transport chooses among the branches)."""
    if not isinstance(node, Mapping):
        return None
    if _is_index(key):
        for branch in [node, *node.get("anyOf", [])]:
            if isinstance(branch, Mapping) and "items" in branch:
                return branch["items"]
        return None
    for branch in [node, *node.get("anyOf", [])]:
        if not isinstance(branch, Mapping):
            continue
        chosen = _branch(branch, doc)
        for where in (chosen, branch):
            props = where.get("properties") if isinstance(where, Mapping) else None
            if isinstance(props, Mapping) and key in props:
                return props[key]
    return None


def _kinded(node: Any) -> bool:
    """Whether ``node`` is the schema of a kind-tagged table."""
    return isinstance(node, Mapping) and any(
        isinstance(b, Mapping) and b.get("required") == ["kind"] for b in node.get("anyOf", []))


def _kind_default(node: Any) -> str | None:
    """For a kind-tagged table's schema, its default kind (``"droptail"``); else None."""
    default = node.get("default") if isinstance(node, Mapping) else None
    return default if _kinded(node) and isinstance(default, str) else None


def set_at(doc: dict[str, Any], parts: list[str], value: Any, path: str, source: str) -> None:
    """Set ``value`` at the resolved ``parts`` of ``doc`` (modified in place). Missing tables
    are created (a kind-tagged one with its default kind); a kind given as a bare string
    becomes a table when a key below it is set; a missing array element is an error."""
    node: Any = doc
    sch: Any = schema()
    for i, key in enumerate(parts[:-1]):
        sch = _child(sch, key, node)
        nxt_is_index = _is_index(parts[i + 1])
        if isinstance(node, list):
            node = node[int(key)]
            continue
        if not isinstance(node, dict):
            raise scenario_error(source, [(path, f"{'.'.join(parts[:i])} is a {type(node).__name__}, not a table or array")])
        cur = node.get(key)
        if cur is None:
            if nxt_is_index:
                raise scenario_error(source, [(path, f"no key {'.'.join(parts[: i + 1])!r}")])
            kind = _kind_default(sch)
            node[key] = {"kind": kind} if kind else {}
        elif isinstance(cur, str) and _kinded(sch):
            node[key] = {"kind": cur}  # "cubic" → { kind = "cubic" } to set a key below it
        node = node[key]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise scenario_error(source, [(path, f"{'.'.join(parts[:-1])} is a {type(node).__name__}, not a table or array")])


def new_problems(before: list[tuple[str, str]], after: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The problems of ``after`` that ``before`` did not have (the ones a change made)."""
    seen = list(before)
    out = []
    for p in after:
        if p in seen:
            seen.remove(p)
        else:
            out.append(p)
    return out


def problems(doc: Mapping[str, Any], source: str) -> list[tuple[str, str]]:
    """Every problem the core finds in ``doc`` (without building it)."""
    from ccsim.scenario import Scenario  # the one JSON writer of documents

    return [tuple(p) for p in _core.problems(Scenario(doc, source).to_json(), source)]
