"""Keep committed notebooks in shape: outputs cleared, Binder/Colab badges, a Colab-only install line.

``python -m icml26 tidy`` applies this to every notebook under ``notebooks/``; the hygiene tests check
the result, so a notebook that was saved with outputs or without its badges fails ``make test``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from icml26 import atomic, registry

REPOSITORY = os.environ.get("ICML26_REPOSITORY", "icml26-companion/icml26")
"""The public ``owner/name`` the badges point at (set ``ICML26_REPOSITORY`` when publishing a fork)."""
BRANCH = "main"
BADGE_MARK = "<!-- badges -->"
COLAB_MARK = "# Colab only: install the companion"


def badges(path: Path) -> str:
    """The Markdown line of Binder and Colab badges for the notebook at ``path``."""
    path = Path(path).resolve()
    rel = path.relative_to(registry.ROOT).as_posix() if path.is_relative_to(registry.ROOT) else path.name
    colab = f"https://colab.research.google.com/github/{REPOSITORY}/blob/{BRANCH}/{rel}"
    binder = f"https://mybinder.org/v2/gh/{REPOSITORY}/{BRANCH}?labpath={rel}"
    return (f"{BADGE_MARK}[![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab}) "
            f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder})")


def colab_install() -> str:
    """Lines that install the companion on Colab only, never reinstalling torch or numpy."""
    return (f"{COLAB_MARK} (torch, numpy, scipy, matplotlib, sklearn, plotly and ipywidgets are there)\n"
            "import importlib.util, subprocess, sys  # noqa: E401\n"
            "if 'google.colab' in sys.modules and importlib.util.find_spec('icml26') is None:\n"
            "    subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', 'pot', 'torchdiffeq',\n"
            f"                    'icml26 @ git+https://github.com/{REPOSITORY}@{BRANCH}', '--no-deps'], check=True)\n")


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def tidied(path: Path) -> str:
    """The notebook's text with outputs cleared, badges atop the first Markdown cell and the Colab line
    atop the setup cell (the cell after ``parameters``)."""
    path = Path(path)
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = nb.get("cells", [])
    for cell in cells:
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
    markdown = [c for c in cells if c.get("cell_type") == "markdown"]
    if not markdown:
        raise ValueError(f"path {path} must have a Markdown cell to carry its title and badges")
    first = _source(markdown[0]).splitlines()
    first = [line for line in first if not line.startswith(BADGE_MARK)]
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
    text = tidied(path)
    changed = text != Path(path).read_text(encoding="utf-8")
    if changed:
        atomic.write_text(path, text)
    return changed


def tidy_all(root: Path = registry.NOTEBOOKS) -> list[Path]:
    """Tidy every notebook below ``root``; return the ones that changed."""
    return [p for p in sorted(Path(root).glob("**/*.ipynb")) if ".ipynb_checkpoints" not in p.parts and tidy(p)]
