"""The 19 papers of the companion: number, slug, title, arXiv id, and whether each is built yet.

A paper counts as built when its library package has ``claims.py`` and its notebook folder
``notebooks/NN_<slug>/`` holds at least one notebook; otherwise it is listed as planned.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
RESULTS = ROOT / "results"
"""The recorded multi-seed evidence: ``results/<scale>.jsonl``."""
PACKAGES = Path(__file__).resolve().parent / "papers"


@dataclass(frozen=True)
class Paper:
    number: int
    slug: str
    title: str
    arxiv: str | None

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
    for p in PAPERS:
        if p.slug == slug:
            return p
    raise ValueError(f"unknown paper {slug!r}; valid slugs: {', '.join(SLUGS)}")


def parse_papers(spec: str | None) -> list[Paper]:
    """Parse a comma-separated list of slugs (empty or ``None`` means all papers)."""
    if spec is None or not spec.strip():
        return list(PAPERS)
    return [get(s.strip()) for s in spec.split(",") if s.strip()]
