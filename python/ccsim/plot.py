"""The standard figures of a result: congestion window, delivery rate and queue length over
time. ``Result.plot()`` draws them in one figure (for notebooks); ``plot_result`` saves one
PNG each (for the command line). One drawing function per panel serves both.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ccsim.results import Result

__all__ = ["plot_result", "figure", "PANELS"]

#: Above this many lines a legend is more clutter than help.
MAX_LEGEND = 16
NO_SAMPLES = "no samples (is [trace] interval set?)"

#: Panel name → (series attribute, key column, value column, scale, y label, title).
PANELS: dict[str, tuple[str, str, str, float, str, str]] = {
    "cwnd": ("flow_series", "flow", "cwnd_bytes", 1e3, "cwnd (KB)", "Congestion window per flow"),
    "rate": ("flow_series", "flow", "rate_bps", 1e6, "rate (Mb/s)", "Delivery rate per flow (goodput between samples)"),
    "queue": ("link_series", "link", "queue_packets", 1.0, "queue (packets)", "Queue length per traced link"),
}


def _per_key_plot(ax: Axes, frame: Any, key: str, value: str, scale: float, only: Sequence[str] | None,
                  skip_zero: bool = False) -> tuple[list, int]:
    """One line per category of ``frame[key]`` (those in ``only`` if given; with
    ``skip_zero``, not those that are zero at every sample); returns the lines drawn and
    the number left out as all zero."""
    lines, zeros = [], 0
    for name, part in frame.groupby(key, observed=True, sort=False):
        if only is not None and str(name) not in only:
            continue
        if skip_zero and not part[value].to_numpy().any():
            zeros += 1
            continue
        (line,) = ax.plot(part["time_s"].to_numpy(), part[value].to_numpy() / scale, linewidth=0.8,
                          drawstyle="steps-post")
        line.set_label(str(name))
        lines.append(line)
    return lines, zeros


def _finish(ax: Axes, lines: list, empty_text: str) -> None:
    if not lines:
        ax.text(0.5, 0.5, empty_text, ha="center", va="center", transform=ax.transAxes)
    elif len(lines) <= MAX_LEGEND:
        # Labels are names as written: given explicitly (matplotlib would hide one that
        # starts with "_") and drawn without mathtext (which would read "$...$" as TeX).
        leg = ax.legend(lines, [ln.get_label() for ln in lines], fontsize="small",
                        ncol=2 if len(lines) > 8 else 1, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                        borderaxespad=0.0)
        for text in leg.get_texts():
            text.set_parse_math(False)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)


def draw_panel(ax: Axes, result: Result, panel: str, *, flows: Sequence[str] | None = None,
               links: Sequence[str] | None = None, title: bool = True) -> int:
    """Draw one standard panel (``"cwnd"``, ``"rate"`` or ``"queue"``) on ``ax``; returns the
    number of lines."""
    if panel not in PANELS:
        raise ValueError(f"unknown panel {panel!r}; allowed: {', '.join(PANELS)}")
    attr, key, value, scale, ylabel, heading = PANELS[panel]
    only = flows if key == "flow" else links
    # Most links of a large network never queue: their flat lines would hide the others.
    lines, zeros = _per_key_plot(ax, getattr(result, attr), key, value, scale,
                                 None if only is None else [str(x) for x in only], skip_zero=panel == "queue")
    ax.set(xlabel="time (s)", ylabel=ylabel)
    if title:
        ax.set_title(heading + (f" ({zeros} always empty, not drawn)" if zeros else ""), fontsize="medium")
    _finish(ax, lines, NO_SAMPLES)
    return len(lines)


def figure(result: Result, panels: Sequence[str] = ("cwnd", "rate", "queue"), *,
           flows: Sequence[str] | None = None, links: Sequence[str] | None = None) -> Figure:
    """A figure with the given panels stacked over a shared time axis (a plain matplotlib
    ``Figure``: no pyplot state, so a notebook shows it once, and ``fig.savefig`` works)."""
    from matplotlib.figure import Figure

    panels = list(panels)
    if not panels:
        raise ValueError("no panels asked for")
    fig = Figure(figsize=(9, 2.8 * len(panels)), layout="constrained")
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, panel in zip(axes, panels):
        draw_panel(ax, result, panel, flows=flows, links=links)
    for ax in axes[:-1]:
        ax.set_xlabel("")
    return fig


def plot_result(result: Result, out_dir: str | Path) -> list[Path]:
    """Save ``cwnd.png`` (congestion window per flow, KB), ``rate.png`` (delivery rate per
    flow, Mb/s) and ``queue.png`` (queue length per traced link, packets) into ``out_dir``;
    return their paths. Works without a display."""
    from matplotlib.figure import Figure

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for panel in PANELS:
        fig = Figure(figsize=(9, 4.5), layout="constrained")
        draw_panel(fig.subplots(), result, panel)
        written.append(out / f"{panel}.png")
        fig.savefig(written[-1], dpi=120)
    return written
