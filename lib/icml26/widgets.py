"""Interactive explorers that degrade gracefully: static figure first, sliders where a frontend is.

``explore(plot_fn, controls, **defaults)``

* in a headless run, draws ``plot_fn(**defaults)`` once as a static figure, so executed notebooks,
  HTML exports and CI logs always show a result; in a live frontend it shows only the live figure;
* builds core ipywidgets controls with an ``Output`` that redraws the figure under a one-line text
  caption (``a=1, b=2``) on every change; a browser test can wait on that caption;
* in a headless run (``ICML26_HEADLESS=1``, set by the runner and the tests, or outside IPython)
  it moves each control from code and raises if the figure did not change, which tests the
  callback wiring without a browser.

Only core ipywidgets and matplotlib/plotly figures are used (no custom widget managers), because
those render in JupyterLab, Voila, Binder and Colab alike.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from icml26.viz import signature


def is_headless() -> bool:
    """True under the runner/tests (``ICML26_HEADLESS=1``) or when no IPython kernel is running."""
    if os.environ.get("ICML26_HEADLESS") == "1":
        return True
    try:
        from IPython import get_ipython
    except ImportError:
        return True
    shell = get_ipython()
    return shell is None or not hasattr(shell, "kernel")


def _make_control(name: str, spec, default):
    """Turn a control spec into an ipywidget: (lo, hi, step) -> slider, list -> dropdown, bool -> checkbox."""
    import ipywidgets as w

    style = {"description_width": "initial"}
    if isinstance(spec, w.ValueWidget):
        if default is not None:
            spec.value = default
        return spec
    if isinstance(spec, bool):
        return w.Checkbox(value=spec if default is None else bool(default), description=name)
    if isinstance(spec, tuple) and len(spec) == 3 and all(isinstance(v, (int, float)) for v in spec):
        lo, hi, step = spec
        if not lo < hi or step <= 0:
            raise ValueError(f"controls[{name!r}] must be (low, high, step) with low < high and step > 0; got {spec}")
        value = default if default is not None else lo + ((hi - lo) / 2 // step) * step
        if not lo <= value <= hi:
            raise ValueError(f"default for {name!r} must lie in [{lo}, {hi}]; got {value}")
        ints = all(isinstance(v, int) for v in spec)
        cls = w.IntSlider if ints else w.FloatSlider
        return cls(value=value, min=lo, max=hi, step=step, description=name, continuous_update=False,
                   style=style, layout=w.Layout(width="420px"))
    if isinstance(spec, Sequence) and not isinstance(spec, str) and len(spec) > 0:
        options = list(spec)
        value = options[0] if default is None else default
        if value not in options:
            raise ValueError(f"default for {name!r} must be one of {options}; got {value!r}")
        return w.Dropdown(options=options, value=value, description=name, style=style)
    raise ValueError(f"controls[{name!r}] must be (low, high, step), a non-empty list of options, a bool "
                     f"or an ipywidget; got {spec!r}")


def _other_value(widget):
    """A value of ``widget`` different from its current one (for the headless check)."""
    if hasattr(widget, "options"):
        values = [o[1] if isinstance(o, tuple) else o for o in widget.options]
        return next((v for v in values if v != widget.value), widget.value)
    if isinstance(widget.value, bool):
        return not widget.value
    if hasattr(widget, "max"):
        return widget.max if widget.value != widget.max else widget.min
    raise ValueError(f"cannot choose another value for widget {widget.description!r}")


class Explorer:
    """An interactive figure: ``controls`` drive ``plot_fn``; ``set`` moves them from code."""

    def __repr__(self) -> str:
        name = getattr(self.plot_fn, "__name__", "plot")
        return f"Explorer({name}: {self.caption or ', '.join(self.controls)})"

    def __init__(self, plot_fn: Callable, controls: Mapping, defaults: Mapping):
        import ipywidgets as w

        if not callable(plot_fn):
            raise ValueError("plot_fn must be callable and return a matplotlib or plotly figure")
        if not controls:
            raise ValueError("controls must name at least one control")
        unknown = set(defaults) - set(controls)
        if unknown:
            raise ValueError(f"defaults name unknown controls {sorted(unknown)}; controls are {list(controls)}")
        self.plot_fn = plot_fn
        self.controls = {k: _make_control(k, spec, defaults.get(k)) for k, spec in controls.items()}
        self.output = w.Output()
        self.caption = ""
        self.figure = None
        self.signature = None
        for c in self.controls.values():
            c.observe(lambda _change: self.redraw(), names="value")
        self.widget = w.VBox([*self.controls.values(), self.output])

    @property
    def params(self) -> dict:
        return {k: c.value for k, c in self.controls.items()}

    def render(self):
        """Call ``plot_fn`` on the current values; remember the figure, its caption and signature."""
        import matplotlib.pyplot as plt

        params = self.params
        fig = self.plot_fn(**params)
        if fig is None:
            raise ValueError("plot_fn must return a figure; it returned None")
        self.caption = ", ".join(f"{k}={_short(v)}" for k, v in params.items())
        self.signature = signature(fig)
        if self.figure is not None and hasattr(self.figure, "savefig"):
            plt.close(self.figure)
        self.figure = fig
        return fig

    def redraw(self) -> None:
        """Re-render into the ``Output``: a text caption, then the figure, set in one widget-state update.

        The outputs are assigned directly rather than captured with ``with output:``, which avoids the
        message routing that made executions hang under nbclient (papermill, Voila) and never shows a
        half-updated state.
        """
        fig = self.render()
        self.output.outputs = (
            {"output_type": "stream", "name": "stdout", "text": self.caption + "\n"},
            {"output_type": "display_data", "data": mime_bundle(fig), "metadata": {}},
        )
        _close(fig)

    def set(self, **values) -> None:
        """Move controls from code (each change redraws, as a person's would)."""
        for k, v in values.items():
            if k not in self.controls:
                raise ValueError(f"unknown control {k!r}; controls are {list(self.controls)}")
            self.controls[k].value = v

    def check_wiring(self, names: Sequence[str] | None = None) -> list[str]:
        """Move each named control to another value and back; raise if the figure did not change."""
        checked = []
        for name in names if names is not None else list(self.controls):
            widget = self.controls[name]
            before, old = self.signature, widget.value
            new = _other_value(widget)
            if new == old:
                continue
            self.set(**{name: new})
            if self.signature == before:
                raise RuntimeError(f"moving control {name!r} from {old!r} to {new!r} did not change the figure")
            self.set(**{name: old})
            checked.append(name)
        return checked


def mime_bundle(fig) -> dict:
    """A figure as a Jupyter MIME bundle: PNG for matplotlib, the plotly bundle for plotly figures."""
    if not (hasattr(fig, "savefig") or hasattr(fig, "to_json")):
        raise TypeError(f"fig must be a matplotlib or plotly figure; got {type(fig).__name__}")
    if hasattr(fig, "_repr_mimebundle_") and hasattr(fig, "to_json"):  # plotly
        return fig._repr_mimebundle_()
    import base64
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return {"image/png": base64.b64encode(buf.getvalue()).decode("ascii"), "text/plain": repr(fig)}


def _short(v) -> str:
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def _close(fig) -> None:
    if hasattr(fig, "savefig"):
        import matplotlib.pyplot as plt

        plt.close(fig)


def explore(plot_fn: Callable, controls: Mapping, *, check: Sequence[str] | None = None,
            show: bool = True, **defaults) -> Explorer:
    """Show the live explorer (in a frontend) or ``plot_fn(**defaults)`` as a static figure (headless,
    where the wiring is then tested by moving every control from code).

    ``controls`` maps each keyword of ``plot_fn`` to ``(low, high, step)``, a list of options, a
    bool or a ready ipywidget. ``check`` limits which controls the headless check moves
    (default: all of them). The explorer is returned; end the cell with ``;`` (or assign it) so that
    its text form is not printed.
    """
    explorer = Explorer(plot_fn, controls, defaults)
    if is_headless():
        fig = explorer.render()
        if show:
            from IPython.display import display

            display(fig)
        _close(fig)
        explorer.check_wiring(check)
    elif show:
        from IPython.display import display

        display(explorer.widget)
        explorer.redraw()
    return explorer
