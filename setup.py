"""Build hook: a wheel carries copies of notebooks/ and results/ inside the package (icml26/_bundle).

Everything else is declared in pyproject.toml. An editable install (``make``) uses the checkout's own
folders instead, so nothing is copied there.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED = ("notebooks", "results")
SKIP = (".ipynb_checkpoints", "__pycache__")


class BuildWithBundle(build_py):
    """Copy the notebooks and the recorded results into the built package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        dest = Path(self.build_lib) / "icml26" / "_bundle"
        for folder in BUNDLED:
            for src in sorted((ROOT / folder).rglob("*")):
                if src.is_file() and not any(p in SKIP for p in src.parts) and not src.name.endswith(".lock"):
                    out = dest / folder / src.relative_to(ROOT / folder)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, out)


setup(cmdclass={"build_py": BuildWithBundle})
