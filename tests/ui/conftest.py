"""Browser tests: Debian's Chromium driven by Playwright's Python package (never a downloaded browser)."""

import os
import shutil

import pytest

from icml26 import registry, serve

BROWSER_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage"]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        message = "Chromium is not installed: install Debian's package 'chromium' (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    playwright = pytest.importorskip("playwright.sync_api", reason="install the 'ui' extra (playwright)")
    with playwright.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=BROWSER_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    p = context.new_page()
    p.set_default_timeout(180_000)
    yield p
    context.close()


@pytest.fixture(scope="session")
def voila():
    server = serve.start("voila", registry.NOTEBOOKS, timeout=90)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    # JupyterLab may write to what it opens: serve a copy, never the committed notebooks.
    root = tmp_path_factory.mktemp("lab") / "notebooks"
    shutil.copytree(registry.NOTEBOOKS, root)
    server = serve.start("lab", root, timeout=120)
    yield server
    server.stop()
