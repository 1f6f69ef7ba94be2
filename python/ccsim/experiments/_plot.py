"""Plotting helpers shared by the experiment modules (matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plt() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend (imported on first use)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


def save(fig: Any, out_dir: Path, name: str) -> Path:
    """Lay out ``fig``, write it as ``out_dir/name`` (110 dpi), close it, return the path."""
    fig.tight_layout()
    path = Path(out_dir) / name
    fig.savefig(path, dpi=110)
    plt().close(fig)
    return path
