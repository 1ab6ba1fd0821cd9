"""One plotting style for the whole companion (matplotlib first; plotly where 3-D helps).

Import-light: plotly is imported only inside :func:`plotly_layout`, so headless experiment runs need
matplotlib alone.
"""

from __future__ import annotations

import hashlib
import html
import io

import matplotlib

matplotlib.use(matplotlib.get_backend())  # keep whatever backend the environment chose (Agg in CI)
import matplotlib.pyplot as plt  # noqa: E402

PALETTE = ("#1f5fa8", "#d1495b", "#2a9d8f", "#e9a03b", "#6c4f9c", "#7a7a7a", "#3d8c40", "#c06c84")
"""Colours in a fixed order: the paper's method first, then the baselines."""

STYLE = {
    "figure.dpi": 100,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "legend.frameon": False,
    "font.size": 10,
}


def use_style() -> None:
    """Apply the companion's matplotlib style globally."""
    plt.rcParams.update(STYLE)


def figure(ncols: int = 1, nrows: int = 1, width: float = 4.0, height: float = 3.2, **kwargs):
    """A new figure with ``nrows x ncols`` axes of ``width x height`` inches each, in our style."""
    from icml26 import checks

    checks.positive_int("ncols", ncols)
    checks.positive_int("nrows", nrows)
    checks.positive_number("width", width)
    checks.positive_number("height", height)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows),
                                 squeeze=False, layout="constrained", **kwargs)
    return fig, (axes[0, 0] if nrows == ncols == 1 else axes)


def signature(fig) -> str:
    """A digest of what a figure shows (a small PNG rendering for matplotlib, the JSON for plotly).

    Two figures with the same signature look the same; the headless widget check uses it to prove
    that moving a control changed the picture.
    """
    _check_figure(fig)
    if hasattr(fig, "to_json"):  # plotly
        return hashlib.sha1(fig.to_json().encode()).hexdigest()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=40)
    return hashlib.sha1(buf.getvalue()).hexdigest()


def _check_figure(fig) -> None:
    if not (hasattr(fig, "savefig") or hasattr(fig, "to_json")):
        raise TypeError(f"fig must be a matplotlib or plotly figure; got {type(fig).__name__}")


def plotly_layout(fig, title: str | None = None):
    """Apply the companion's look to a plotly figure (white template, our colours)."""
    if not hasattr(fig, "update_layout"):
        raise TypeError(f"fig must be a plotly figure; got {type(fig).__name__}")
    fig.update_layout(template="plotly_white", colorway=list(PALETTE), title=title,
                      margin=dict(l=40, r=20, t=40 if title else 20, b=40))
    return fig


def html_table(header: list[str], rows: list[list]) -> str:
    """A small HTML table for ``IPython.display.HTML`` (floats to 4 significant digits, text escaped).

    The notebooks show summaries this way rather than as raw dicts or lists."""
    if not isinstance(header, (list, tuple)) or not header:
        raise ValueError(f"header must be a non-empty list of column names; got {header!r}")
    if not isinstance(rows, (list, tuple)) or any(not isinstance(r, (list, tuple)) or len(r) != len(header)
                                                  for r in rows):
        raise ValueError(f"rows must be a list of rows of {len(header)} cells each, like header {list(header)}")

    def cell(v):
        return f"{v:.4g}" if isinstance(v, float) else html.escape(str(v))

    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
