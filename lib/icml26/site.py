"""Executed notebooks as pages a browser opens offline, and a browsable site of them with the scoreboard.

* :func:`notebook_html` exports one executed notebook to HTML whose maths is typeset by a local copy of
  MathJax (the ``jupyter-server-mathjax`` package ships it) and which loads nothing from a network: a
  widget's saved state is dropped (headless runs draw each explorer's figure as a static image, so the
  page shows the figure at its default settings).
* :func:`build` turns the executed notebooks of a ``make reproduce`` run (``build/notebooks``) and its
  scoreboard into a Sphinx site with myst-nb (``build/site/index.html``): a page per paper with its
  notebooks in reading order, search, and the scoreboard pages beside them. ``make site`` runs both.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from icml26 import atomic, registry

MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full,Safe"
REMOTE_SCRIPT = re.compile(r"<script[^>]*\ssrc=[\"']https?://[^\"']*[\"'][^>]*>\s*</script>", re.I)
"""A script the exporter's template loads from a CDN (require.js): dropped, nothing in the page needs it
(plotly figures carry plotly.js inline: headless runs use plotly's ``notebook`` renderer)."""


def mathjax_source() -> Path:
    """The folder of the MathJax copy that ``jupyter-server-mathjax`` installs (``MathJax.js`` inside)."""
    try:
        import jupyter_server_mathjax
    except ImportError:
        raise ValueError("offline maths needs the package jupyter-server-mathjax (in the notebooks extra): "
                         "pip install jupyter-server-mathjax") from None
    return Path(jupyter_server_mathjax.__file__).parent / "static"


def install_mathjax(static_root: str | os.PathLike) -> Path:
    """Copy MathJax into ``static_root/mathjax`` once; return the folder."""
    from icml26 import checks

    dest = checks.path("static_root", static_root) / "mathjax"
    if (dest / "MathJax.js").exists():
        return dest
    # each process copies into its own temporary folder: two notebooks exported at once (run_notebooks with
    # jobs > 1) must not delete each other's partial copy; the first complete copy to be renamed wins
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".mathjax."))
    os.chmod(tmp, 0o755)  # mkdtemp's 0700 would follow the folder into a published site
    try:
        shutil.copytree(mathjax_source(), tmp, dirs_exist_ok=True)
        if dest.exists() and not (dest / "MathJax.js").exists():
            shutil.rmtree(dest, ignore_errors=True)  # a copy left incomplete by a crash
        try:
            os.replace(tmp, dest)
        except OSError:
            if not (dest / "MathJax.js").exists():  # not another process's finished copy: a real failure
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def offline_notebook(nb: dict) -> dict:
    """``nb`` without widget state or widget views (each view keeps its text or image fallback)."""
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise TypeError(f"nb must be a notebook (a dict with a list of cells); got {type(nb).__name__}")
    nb = json.loads(json.dumps(nb))
    nb.get("metadata", {}).pop("widgets", None)
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            data = out.get("data")
            if isinstance(data, dict) and len(data) > 1:
                data.pop("application/vnd.jupyter.widget-view+json", None)
    return nb


def notebook_html(ipynb: str | os.PathLike, out: str | os.PathLike, static_root: str | os.PathLike) -> Path:
    """Export ``ipynb`` to ``out`` (atomically) with maths from ``static_root/mathjax`` and no network loads."""
    from icml26 import checks

    ipynb = checks.path("ipynb", ipynb, kind="file")  # before the slow imports: a bad path fails at once
    out = checks.path("out", out)
    import nbformat
    from nbconvert import HTMLExporter

    mathjax = install_mathjax(static_root) / "MathJax.js"
    rel = Path(os.path.relpath(mathjax, out.parent)).as_posix()
    exporter = HTMLExporter(template_name="lab", mathjax_url=f"{rel}?config={MATHJAX_CONFIG}")
    nb = nbformat.reads(json.dumps(offline_notebook(json.loads(Path(ipynb).read_text(encoding="utf-8")))),
                        as_version=4)
    body, _ = exporter.from_notebook_node(nb)
    return atomic.write_text(out, REMOTE_SCRIPT.sub("", body))


CONF = """# Written by icml26.site: a Sphinx site of executed notebooks (myst-nb renders them; nothing is executed).
project = "icml26 companion"
author = "the icml26 companion"
extensions = ["myst_nb"]
nb_execution_mode = "off"
nb_ipywidgets_js = {{}}
myst_enable_extensions = ["dollarmath", "amsmath"]
html_theme = "sphinx_book_theme"
html_title = "icml26 companion"
html_static_path = ["_static"]
html_extra_path = ["scoreboard"]
mathjax_path = "mathjax/MathJax.js?config={config}"
html_theme_options = {{"repository_url": {repo!r}, "use_repository_button": False, "show_toc_level": 2}}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]
"""


def _paper_page(paper: registry.Paper, notebooks: list[str]) -> str:
    toc = "\n".join(notebooks)
    link = f"[arXiv {paper.arxiv}]({paper.url})" if paper.url else "no arXiv id"
    return (f"# {paper.number:02d} · {paper.title}\n\n{link} · "
            f"[claims and evidence](papers/{paper.slug}.html) on the scoreboard\n\n"
            f"```{{toctree}}\n:maxdepth: 1\n\n{toc}\n```\n")


def write_sources(build_dir: str | os.PathLike, src: str | os.PathLike) -> list[str]:
    """The Sphinx sources in ``src`` from ``build_dir``'s executed notebooks and scoreboard; return the papers."""
    from icml26 import checks

    build_dir, src = checks.path("build_dir", build_dir), checks.path("src", src)
    executed = build_dir / "notebooks"
    if not executed.is_dir() or not any(executed.glob("**/*.ipynb")):
        raise ValueError(f"build_dir {build_dir} holds no executed notebooks; run `make reproduce` first")
    shutil.rmtree(src, ignore_errors=True)
    (src / "_static").mkdir(parents=True)
    install_mathjax(src / "_static")
    shutil.copytree(build_dir, src / "scoreboard",
                    ignore=shutil.ignore_patterns("site", "site-src", "*.ipynb", "*.jsonl", "*.json", "*.log"))
    (src / "conf.py").write_text(CONF.format(config=MATHJAX_CONFIG, repo=registry.repository_url()),
                                 encoding="utf-8")
    pages = []
    start = executed / registry.START_HERE.name
    if start.exists():
        shutil.copy2(start, src / start.name)
        pages.append(start.stem)
    for paper in registry.PAPERS:
        folder = executed / paper.folder
        names = sorted(p.name for p in folder.glob("*.ipynb")) if folder.is_dir() else []
        if not names:
            continue
        (src / paper.folder).mkdir()
        for name in names:
            shutil.copy2(folder / name, src / paper.folder / name)
        (src / f"{paper.folder}.md").write_text(_paper_page(paper, [f"{paper.folder}/{Path(n).stem}" for n in names]),
                                                encoding="utf-8")
        pages.append(paper.folder)
    toc = "\n".join(pages)
    (src / "index.md").write_text(
        "# icml26 companion\n\nThe executed notebooks of the last `make reproduce` run, paper by paper, and the "
        "[scoreboard](index-scoreboard.html): each paper's claims with our value on every recorded seed "
        "against the threshold, the verdict and, for a miss, why.\n\n"
        f"```{{toctree}}\n:maxdepth: 1\n:caption: Papers\n\n{toc}\n```\n", encoding="utf-8")
    board = src / "scoreboard" / "index.html"
    if board.exists():
        os.replace(board, src / "scoreboard" / "index-scoreboard.html")
    return pages


def build(build_dir: str | os.PathLike = "build", out: str | os.PathLike | None = None) -> Path:
    """Build the site from ``build_dir`` (a ``make reproduce`` output) into ``out``; return its index.html."""
    build_dir = Path(build_dir)
    out = Path(out) if out is not None else build_dir / "site"
    src = build_dir / "site-src"
    write_sources(build_dir, src)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", "1", str(src), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"sphinx-build failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return out / "index.html"
