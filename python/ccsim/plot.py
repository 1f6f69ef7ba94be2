"""Quick-look plots of a result: congestion windows and queue lengths over time."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ccsim.results import Result

__all__ = ["plot_result"]

#: Above this many lines a legend is more clutter than help.
MAX_LEGEND = 16


def _per_key_plot(ax, frame, key: str, value: str, scale: float) -> list:
    """One line per category of ``frame[key]``; returns the lines drawn."""
    lines = []
    for name, part in frame.groupby(key, observed=True, sort=False):
        (line,) = ax.plot(part["time_s"].to_numpy(), part[value].to_numpy() / scale, linewidth=0.8, drawstyle="steps-post")
        line.set_label(str(name))
        lines.append(line)
    return lines


def _finish(ax, lines: list, empty_text: str) -> None:
    if not lines:
        ax.text(0.5, 0.5, empty_text, ha="center", va="center", transform=ax.transAxes)
    elif len(lines) <= MAX_LEGEND:
        # Labels are names as written: given explicitly (matplotlib would hide one that
        # starts with "_") and drawn without mathtext (which would read "$...$" as TeX).
        leg = ax.legend(lines, [ln.get_label() for ln in lines], fontsize="small", ncol=2 if len(lines) > 8 else 1, loc="upper right")
        for text in leg.get_texts():
            text.set_parse_math(False)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)


def plot_result(result: Result, out_dir: str | Path) -> list[Path]:
    """Save ``cwnd.png`` (congestion window per flow, KB) and ``queue.png`` (queue length per
    traced link, packets) into ``out_dir``; return their paths. Works without a display."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    no_samples = "no samples (is [trace] interval set?)"

    fig, ax = plt.subplots(figsize=(9, 4.5))
    lines = _per_key_plot(ax, result.flow_series, "flow", "cwnd_bytes", 1000.0)
    ax.set(xlabel="time (s)", ylabel="cwnd (KB)", title="Congestion window per flow")
    _finish(ax, lines, no_samples)
    fig.tight_layout()
    written.append(out / "cwnd.png")
    fig.savefig(written[-1], dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(9, 4.5))
    lines = _per_key_plot(ax, result.link_series, "link", "queue_packets", 1.0)
    ax.set(xlabel="time (s)", ylabel="queue (packets)", title="Queue length per traced link")
    _finish(ax, lines, no_samples)
    fig.tight_layout()
    written.append(out / "queue.png")
    fig.savefig(written[-1], dpi=120)
    plt.close(fig)
    return written
