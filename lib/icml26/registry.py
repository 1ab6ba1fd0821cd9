"""The 19 papers of the companion: number, slug, title, arXiv id, and whether each is built yet.

A paper counts as built when its library package has ``claims.py`` and its notebook folder
``notebooks/NN_<slug>/`` holds at least one notebook; otherwise it is listed as planned.

In a checkout the notebooks and the recorded results are the repository's folders. An installed
wheel carries copies of both inside the package (``icml26/_bundle``, put there when the wheel is
built), so ``pip install`` + ``python -m icml26 notebooks DIR`` works without the repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parents[1]
BUNDLE = PACKAGE / "_bundle"
"""Where a built wheel keeps its copies of ``notebooks/`` and ``results/``."""


def _in_checkout() -> bool:
    return (CHECKOUT / "notebooks").is_dir() and (CHECKOUT / "pyproject.toml").is_file()


ROOT = CHECKOUT if _in_checkout() else BUNDLE
"""The repository (in a checkout) or the package's bundle (in an installed wheel)."""
NOTEBOOKS = ROOT / "notebooks"
RESULTS = ROOT / "results"
"""The recorded multi-seed evidence: ``results/<scale>.jsonl``."""
PACKAGES = PACKAGE / "papers"
DEFAULT_REPOSITORY = "https://github.com/icml26-companion/icml26"


def repository_url() -> str:
    """The project's repository (pyproject's ``[project.urls] Repository``; ``ICML26_REPOSITORY`` overrides).

    Badges, the Colab install line and the docs derive every link from this one URL.
    """
    import os
    import re

    explicit = os.environ.get("ICML26_REPOSITORY")
    if explicit:
        return explicit if explicit.startswith("https://") else f"https://github.com/{explicit}"
    pyproject = CHECKOUT / "pyproject.toml"
    if _in_checkout():
        m = re.search(r'^Repository\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"), re.M)
        if m:
            return m.group(1).rstrip("/")
    try:
        from importlib.metadata import metadata

        for entry in metadata("icml26").get_all("Project-URL") or []:
            label, _, url = entry.partition(",")
            if label.strip().lower() == "repository":
                return url.strip().rstrip("/")
    except Exception:  # not installed as a distribution: fall back to the default
        pass
    return DEFAULT_REPOSITORY


def repository() -> str:
    """``owner/name`` of the GitHub repository."""
    url = repository_url()
    return url.split("github.com/", 1)[-1].strip("/") if "github.com/" in url else url


def release_ref() -> str:
    """The git tag of this release (``v`` + the package version): badges and installs are pinned to it."""
    from icml26 import __version__

    return f"v{__version__}"


def release_problems(tags: list[str] | None = None) -> list[str]:
    """What stops a release: the repository URL still the project's placeholder, or the release tag not made.

    Every badge, the Colab install cell and the pip line derive from :func:`repository_url` and
    :func:`release_ref`, so these two are the only things to set (``[project.urls] Repository`` in
    pyproject.toml, and ``git tag v<version>``). ``tags`` defaults to this checkout's git tags.
    """
    import subprocess

    if tags is None:
        try:
            out = subprocess.run(["git", "-C", str(CHECKOUT), "tag", "--list"], capture_output=True, text=True,
                                 timeout=30)
            tags = out.stdout.split() if out.returncode == 0 else []
        except (OSError, subprocess.TimeoutExpired):
            tags = []
    if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
        raise ValueError(f"tags must be a list of tag names; got {tags!r}")
    problems = []
    if repository_url() == DEFAULT_REPOSITORY:
        problems.append(f"the repository URL is still the placeholder {DEFAULT_REPOSITORY} (no such repository is "
                        "published): set [project.urls] Repository in pyproject.toml to the real one")
    if release_ref() not in tags:
        problems.append(f"the release tag {release_ref()} does not exist in this checkout: badges, the Colab cell and "
                        f"pip installs point at it (git tag {release_ref()} on the released commit)")
    return problems


@dataclass(frozen=True)
class Paper:
    number: int
    slug: str
    title: str
    arxiv: str | None

    def __post_init__(self):
        import re

        if isinstance(self.number, bool) or not isinstance(self.number, int) or not 1 <= self.number <= 99:
            raise ValueError(f"number must be an integer in 1..99; got {self.number!r}")
        if not isinstance(self.slug, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", self.slug):
            raise ValueError(f"slug must be lower-case letters, digits and underscores; got {self.slug!r}")
        if not isinstance(self.title, str) or not self.title.strip():
            raise ValueError(f"title must be non-empty text; got {self.title!r}")
        if self.arxiv is not None and not (isinstance(self.arxiv, str) and re.fullmatch(r"\d{4}\.\d{4,5}", self.arxiv)):
            raise ValueError(f"arxiv must be an arXiv id like 2512.12910 or None; got {self.arxiv!r}")

    @property
    def folder(self) -> str:
        """The notebook folder's name, ``NN_<slug>``."""
        return f"{self.number:02d}_{self.slug}"

    @property
    def module(self) -> str:
        return f"icml26.papers.{self.slug}"

    @property
    def url(self) -> str | None:
        return f"https://arxiv.org/abs/{self.arxiv}" if self.arxiv else None

    def notebooks(self, root: Path = NOTEBOOKS) -> list[Path]:
        """This paper's notebooks, in reading order (sorted by their numeric prefix)."""
        folder = root / self.folder
        return sorted(folder.glob("*.ipynb")) if folder.is_dir() else []

    def has_claims(self) -> bool:
        """Whether the library package ``icml26/papers/<slug>/`` has its ``claims.py`` (checked on disk)."""
        return (PACKAGES / self.slug / "claims.py").is_file()

    @property
    def status(self) -> str:
        """``built`` when both the claims module and notebooks exist, else ``planned``."""
        return "built" if self.notebooks() and self.has_claims() else "planned"


PAPERS: tuple[Paper, ...] = (
    Paper(1, "data_mixing", "Explaining Data Mixing Scaling Laws", "2606.08167"),
    Paper(2, "dag_tsfx", "DAG: dual correlation network for forecasting with exogenous variables", "2509.14933"),
    Paper(3, "ca_pg", "Credit-assigned policy gradient for early-stage retrieval", "2605.26385"),
    Paper(4, "attention_sink", "Attention sink forges native MoE in attention layers", "2602.01203"),
    Paper(5, "ssn_games", "A direct second-order method for two-player zero-sum games", "2512.12910"),
    Paper(6, "tabular_uncertainty", "Data uncertainty explains modern tabular deep learning", "2509.04430"),
    Paper(7, "otp_fm", "Multimarginal flow matching with OT potentials (OTP-FM)", "2606.05327"),
    Paper(8, "strategic_pfn", "Strategic prior-data fitted networks (SPN)", "2605.19662"),
    Paper(9, "icl_finetuning", "Fine-tuning without forgetting in-context learning", "2602.23197"),
    Paper(10, "fspec_gnn", "Full-spectrum graph neural networks (FSpecGNN)", "2605.05759"),
    Paper(11, "video_inpainting", "Trajectory-stabilised inference for diffusion video inpainting", None),
    Paper(12, "hybrid_node", "Learning hybrid systems with continuous latent embeddings", "2606.10596"),
    Paper(13, "scene_change", "Video-based scene change detection (VSCD)", "2605.20821"),
    Paper(14, "air_reasoning", "Attention influence for reasoning data selection (AIR)", "2512.13279"),
    Paper(15, "tool_guard", "Tool-Guard: isolated planning against tool description poisoning", "2606.20922"),
    Paper(16, "creat3r_nbv", "Creat3r: next-best-view selection for 3D Gaussian splatting", None),
    Paper(17, "atst_mdp", "Action-triggered sporadically traceable MDPs (ATST-MDP)", "2510.02149"),
    Paper(18, "flow_equivariant", "Flow-equivariant world modeling (FloWM)", "2601.01075"),
    Paper(19, "apo_alignment", "Autonomous preference optimization across drifting sources (APO)", "2510.04142"),
)
SLUGS: tuple[str, ...] = tuple(p.slug for p in PAPERS)
EXPLORERS: dict[str, str] = {
    "data_mixing": "01_data_mixing/1_idea.ipynb",
    "attention_sink": "04_attention_sink/1_idea.ipynb",
    "otp_fm": "07_otp_fm/1_idea.ipynb",
}
"""The three explorers the project is known for, relative to ``notebooks/`` (``make explore PAPER=slug``)."""
START_HERE = NOTEBOOKS / "00_start_here.ipynb"


def get(slug: str) -> Paper:
    """The paper with this slug; ``ValueError`` listing the valid slugs otherwise."""
    if not isinstance(slug, str):
        raise TypeError(f"slug must be a paper's slug (text); got {type(slug).__name__}")
    for p in PAPERS:
        if p.slug == slug:
            return p
    raise ValueError(f"unknown paper slug {slug!r}; valid slugs: {', '.join(SLUGS)}")


def parse_papers(spec: str | None) -> list[Paper]:
    """Parse a comma-separated list of slugs (empty or ``None`` means all papers)."""
    if spec is not None and not isinstance(spec, str):
        raise TypeError(f"spec must be comma-separated slugs; got {type(spec).__name__}")
    if spec is None or not spec.strip():
        return list(PAPERS)
    try:
        return [get(s.strip()) for s in spec.split(",") if s.strip()]
    except ValueError as exc:
        raise ValueError(f"spec: {exc}") from None
