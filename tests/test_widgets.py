import matplotlib.pyplot as plt
import numpy as np
import pytest

from icml26 import viz, widgets


def plot_line(slope=1.0, kind="line", flip=False):
    x = np.linspace(0, 1, 20)
    fig, ax = viz.figure()
    y = slope * x * (-1 if flip else 1)
    (ax.plot if kind == "line" else ax.scatter)(x, y)
    ax.set_title(f"slope {slope:.2f}")
    return fig


def test_explore_draws_static_figure_and_checks_every_control_headless(monkeypatch):
    monkeypatch.setenv("ICML26_HEADLESS", "1")
    ex = widgets.explore(plot_line, {"slope": (0.0, 2.0, 0.5), "kind": ["line", "scatter"], "flip": False},
                         slope=1.0, show=False)
    assert ex.params == {"slope": 1.0, "kind": "line", "flip": False}  # restored after the check
    assert ex.caption == "slope=1, kind=line, flip=False"


def test_moving_a_slider_redraws_and_changes_the_caption():
    ex = widgets.explore(plot_line, {"slope": (0.0, 2.0, 0.5)}, slope=1.0, show=False)
    before = ex.signature
    ex.set(slope=2.0)
    assert ex.signature != before
    assert ex.caption == "slope=2"


def test_dead_control_is_detected():
    def ignores_b(a=1.0, b=1.0):
        fig, ax = viz.figure()
        ax.plot([0, 1], [0, a])
        return fig

    with pytest.raises(RuntimeError, match="'b'.*did not change the figure"):
        widgets.explore(ignores_b, {"a": (0.0, 2.0, 0.5), "b": (0.0, 2.0, 0.5)}, show=False)


@pytest.mark.parametrize("controls,defaults,match", [
    ({}, {}, "at least one"),
    ({"slope": (2.0, 1.0, 0.5)}, {}, "low < high"),
    ({"slope": (0.0, 1.0, 0.5)}, {"slope": 5.0}, r"lie in"),
    ({"kind": ["line"]}, {"kind": "bar"}, "one of"),
    ({"slope": "fast"}, {}, "must be"),
    ({"slope": (0.0, 1.0, 0.5)}, {"other": 1}, "unknown controls"),
])
def test_bad_controls(controls, defaults, match):
    with pytest.raises(ValueError, match=match):
        widgets.explore(plot_line, controls, show=False, **defaults)


def test_set_unknown_control():
    ex = widgets.explore(plot_line, {"slope": (0.0, 2.0, 0.5)}, show=False)
    with pytest.raises(ValueError, match="unknown control"):
        ex.set(nope=1)


def test_figures_are_closed_so_memory_does_not_grow():
    before = len(plt.get_fignums())
    ex = widgets.explore(plot_line, {"slope": (0.0, 2.0, 0.5)}, show=False)
    for v in (0.0, 0.5, 1.5):
        ex.set(slope=v)
    assert len(plt.get_fignums()) <= before + 1


def test_signature_tells_figures_apart_and_matches_equal_ones():
    a, b, c = plot_line(1.0), plot_line(1.0), plot_line(2.0)
    assert viz.signature(a) == viz.signature(b) != viz.signature(c)
    plt.close("all")


def test_figure_validates_grid():
    with pytest.raises(ValueError, match="ncols"):
        viz.figure(ncols=0)


def test_redraw_sets_caption_and_png_in_the_output():
    import base64

    ex = widgets.explore(plot_line, {"slope": (0.0, 2.0, 0.5)}, slope=1.0, show=False)
    ex.set(slope=1.5)
    stream, image = ex.output.outputs
    assert stream["text"] == "slope=1.5\n"
    assert base64.b64decode(image["data"]["image/png"]).startswith(b"\x89PNG")


def test_html_table_formats_floats_and_escapes_text():
    out = viz.html_table(["name", "value"], [["<b>", 0.123456], ("x", 3)])
    assert out.startswith("<table><thead><tr><th>name</th><th>value</th></tr></thead>")
    assert "<td>&lt;b&gt;</td><td>0.1235</td>" in out and "<td>x</td><td>3</td>" in out
    with pytest.raises(ValueError, match="rows must be a list of rows of 2 cells"):
        viz.html_table(["name", "value"], [["only one"]])
    with pytest.raises(ValueError, match="header must be a non-empty list"):
        viz.html_table([], [])
