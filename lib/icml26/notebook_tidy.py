"""Keep committed notebooks in shape: outputs cleared, Binder/Colab badges, a Colab-only install line.

``python -m icml26 tidy`` applies this to every notebook under ``notebooks/``; the hygiene tests check
the result, so a notebook that was saved with outputs or without its badges fails ``make test`` (with
the command that fixes it). ``make lab`` saves notebooks through :func:`strip_on_save`.
"""

from __future__ import annotations

import json
from pathlib import Path

from icml26 import atomic, registry

BADGE_MARK = "<!-- badges -->"
"""Ends the badge line (a line that *starts* with an HTML comment is raw HTML in Markdown and would not render)."""
COLAB_MARK = "# Colab only: install the companion"
COLAB_HAS = frozenset({"torch", "numpy", "scipy", "matplotlib", "tqdm", "scikit-learn", "networkx", "safetensors",
                       "tokenizers", "plotly", "ipywidgets"})
"""Runtime dependencies that Colab's image already has (never reinstalled: torch and numpy stay Colab's)."""


def _requirement_names() -> list[str]:
    """The runtime dependencies of pyproject.toml (or of the installed distribution), as requirement strings."""
    import re

    pyproject = registry.CHECKOUT / "pyproject.toml"
    if pyproject.is_file():
        block = pyproject.read_text(encoding="utf-8").split("dependencies = [", 1)[1].split("]", 1)[0]
        return re.findall(r'"([^"]+)"', block)
    from importlib.metadata import requires

    return [r for r in requires("icml26") or [] if "extra ==" not in r]


def colab_missing() -> list[str]:
    """The runtime dependencies Colab lacks, with their lower bounds (installed by the Colab cell)."""
    import re

    return [r for r in _requirement_names() if re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower() not in COLAB_HAS]


def badges(path: Path) -> str:
    """The Markdown line of Colab and Binder badges for the notebook at ``path``, pinned to this release."""
    from icml26 import checks

    path = checks.path("path", path).resolve()
    rel = path.relative_to(registry.ROOT).as_posix() if path.is_relative_to(registry.ROOT) else path.name
    repo, ref = registry.repository(), registry.release_ref()
    colab = f"https://colab.research.google.com/github/{repo}/blob/{ref}/{rel}"
    binder = f"https://mybinder.org/v2/gh/{repo}/{ref}?labpath={rel}"
    return (f"[![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab}) "
            f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder}) {BADGE_MARK}")


def colab_install() -> str:
    """Lines that install the companion (pinned to this release) and what Colab lacks, on Colab only."""
    packages = ", ".join(repr(r) for r in colab_missing())
    url = f"icml26 @ git+{registry.repository_url()}@{registry.release_ref()}"
    return (f"{COLAB_MARK} and what Colab lacks (torch, numpy and the rest are Colab's own)\n"
            "import importlib.util, subprocess, sys  # noqa: E401\n"
            "if 'google.colab' in sys.modules and importlib.util.find_spec('icml26') is None:\n"
            f"    subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', '--no-deps', {packages},\n"
            f"                    {url!r}], check=True)\n")


def strip_on_save(model: dict, **kwargs) -> None:
    """A Jupyter ``pre_save_hook``: notebooks are saved without outputs (``make lab`` sets it), so a session
    in JupyterLab never leaves outputs in the committed notebooks; what is on screen stays."""
    if not isinstance(model, dict):
        raise TypeError(f"model must be a Jupyter contents model (a dict); got {type(model).__name__}")
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    nb = model["content"]
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
        cell.get("metadata", {}).pop("execution", None)
    nb.get("metadata", {}).pop("widgets", None)


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def tidied(path: Path) -> str:
    """The notebook's text with outputs cleared, badges atop the first Markdown cell and the Colab line
    atop the setup cell (the cell after ``parameters``)."""
    from icml26 import checks

    path = checks.path("path", path, kind="file")
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = nb.get("cells", [])
    for cell in cells:
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
    markdown = [c for c in cells if c.get("cell_type") == "markdown"]
    if not markdown:
        raise ValueError(f"path {path} must have a Markdown cell to carry its title and badges")
    first = _source(markdown[0]).splitlines()
    first = [line for line in first if BADGE_MARK not in line and "colab-badge.svg" not in line
             and "mybinder.org/badge" not in line]
    markdown[0]["source"] = "\n".join([badges(path), *first])
    code = [c for c in cells if c.get("cell_type") == "code"]
    if len(code) >= 2 and "icml26.runtime.setup(" in _source(code[1]):
        body = _source(code[1])
        if COLAB_MARK in body:
            body = body.split("\n\n", 1)[1] if "\n\n" in body else body
        code[1]["source"] = colab_install() + "\n" + body
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def tidy(path: Path) -> bool:
    """Rewrite ``path`` (atomically) as :func:`tidied` gives it; return whether it changed."""
    text = tidied(path)  # validates path
    changed = text != Path(path).read_text(encoding="utf-8")
    if changed:
        atomic.write_text(path, text)
    return changed


def tidy_all(root: Path = registry.NOTEBOOKS) -> list[Path]:
    """Tidy every notebook below ``root``; return the ones that changed."""
    from icml26 import checks

    root = checks.path("root", root)
    return [p for p in sorted(Path(root).glob("**/*.ipynb")) if ".ipynb_checkpoints" not in p.parts and tidy(p)]
