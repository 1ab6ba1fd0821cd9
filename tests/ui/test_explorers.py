"""The three explorers in a real browser: move a slider, read back that the figure changed.

Each explorer prints a text caption (the current control values) above its figure inside the widget's
Output; the test waits on that caption and on the figure's image data, never on a sleep.
"""

import re

import pytest

from icml26 import registry

pytestmark = pytest.mark.ui
PAGES = {"start_here": registry.START_HERE.name, **registry.EXPLORERS}
EXPLORERS = [slug for slug, rel in PAGES.items() if (registry.NOTEBOOKS / rel).exists()]
OUTPUT = ".widget-output"
SHOTS = registry.ROOT / "build" / "ui"


def figure_state(page):
    """The caption text and the image data currently shown in the explorer's Output."""
    return page.evaluate(
        """(sel) => { const o = document.querySelector(sel); if (!o) return null;
                     const img = o.querySelector('img');
                     return {text: o.innerText, img: img ? img.src.slice(-2000) : null}; }""", OUTPUT)


def move_first_slider_and_check(page, shot):
    """Press the first slider's handle one step right; wait until the caption shows the slider's new
    value and the figure's image data changed; then take a screenshot."""
    page.wait_for_selector(f"{OUTPUT} img")
    before = figure_state(page)
    slider = page.locator(".widget-slider").first
    handle = slider.locator(".noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_function(
        """([sel, text]) => {
             const o = document.querySelector(sel), s = document.querySelector('.widget-slider');
             if (!o || !s || !o.querySelector('img') || o.innerText === text) return false;
             const name = s.querySelector('.widget-label').innerText.trim();
             const value = parseFloat(s.querySelector('.widget-readout').innerText);
             const pair = o.innerText.split('\\n')[0].split(', ').find(p => p.startsWith(name + '='));
             if (!pair) return false;
             const shown = parseFloat(pair.slice(name.length + 1));
             return Math.abs(shown - value) <= 0.011 * Math.max(1, Math.abs(value)); }""",
        arg=[OUTPUT, before["text"]])
    page.wait_for_function(
        """([sel, src]) => { const i = document.querySelector(sel + ' img');
                             return i && i.src.slice(-2000) !== src; }""",
        arg=[OUTPUT, before["img"]])
    after = figure_state(page)
    assert after["text"] != before["text"] and after["img"] != before["img"]
    slider.scroll_into_view_if_needed()
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot), full_page=False)
    return before, after


@pytest.mark.parametrize("slug", EXPLORERS)
def test_explorer_in_voila(slug, page, voila):
    page.goto(f"{voila.url}/voila/render/{PAGES[slug]}", wait_until="commit")
    before, after = move_first_slider_and_check(page, SHOTS / f"{slug}_voila.png")
    assert before["text"].split("\n")[0] != after["text"].split("\n")[0]


@pytest.mark.parametrize("slug", EXPLORERS)
def test_explorer_in_jupyterlab(slug, page, lab):
    # ?reset: a fresh workspace, so the tab of the previous explorer is not restored and run instead
    page.goto(lab.link(f"/lab/tree/{PAGES[slug]}?reset"), wait_until="domcontentloaded")
    page.wait_for_selector(".jp-Notebook .jp-Cell")
    # the kernel must be connected and idle before Run All, or the run can be lost
    page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle")).first.wait_for(timeout=180_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    try:
        move_first_slider_and_check(page, SHOTS / f"{slug}_lab.png")
    finally:
        lab.shutdown_kernels()  # one explorer's kernel must not slow the next one down


def test_jupyterlab_refuses_a_request_without_its_token(lab):
    import urllib.error
    import urllib.request

    req = urllib.request.Request(f"{lab.url}/api/kernels", method="POST", data=b"{}")
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(req, timeout=10)
    assert exc.value.code in (401, 403)
    assert lab.token and len(lab.token) >= 32


def test_a_stopped_server_leaves_no_temporary_folders():
    from icml26 import serve

    server = serve.start("voila", registry.START_HERE, timeout=90)
    folders = server.temporary
    assert folders and all(f.exists() for f in folders)
    server.stop()
    assert not any(f.exists() for f in folders)
