"""The trained models the attention-sink explorer shows: Bigram-Backcopy TinyGPTs whose sinks are real.

No model the byte-level experiment trains in the quick budget grows a sink (docs/papers/attention_sink.md §5);
1-layer models on the Bigram-Backcopy stream do, after 2,000-4,000 Adam steps (minutes of CPU). So each of the
three variants (vanilla, sink, head-wise gated), with and without the paper's balancing loss (``lam`` 0 and 0.1),
is trained once by :mod:`.make_weights` with :data:`.backcopy.RECIPE` (development seed 102) and shipped as
safetensors in ``weights/`` with its sha256 in :data:`SHA256` and its emergence curve in the file's metadata;
:func:`load` refuses a file whose checksum differs. These models feed the explorer and the notebooks' emergence
figure only: the C2 Bigram-Backcopy claims train a fresh model per evaluation seed (standard and full).
"""

from __future__ import annotations

from pathlib import Path

from icml26 import checks
from icml26.nn.tiny_gpt import TinyGPT, read_model

WEIGHTS = Path(__file__).with_name("weights")
VARIANTS = ("vanilla", "sink", "gated_head")
LAMS = (0.0, 0.1)
SHA256: dict[tuple[str, float], str] = {
    ("vanilla", 0.0): "ddfbab05811ee43435973556fcd521ee3e29c18f00bb0ab6f7997ce0a5c6d26e",
    ("vanilla", 0.1): "af1d83f837de9986bb2a58409498e03c670c3851c967a2a111c65be8d930b95c",
    ("sink", 0.0): "c91cc24aba337c8441603c6d39c85a12fd9e98937346f46a2d38cc2d1a1efedf",
    ("sink", 0.1): "c7be870cc1756a7fda6a598321c5f84e86d7280952ed7da53c33f554754f1b20",
    ("gated_head", 0.0): "c3dbe838c33d6334aca380fda54b860730767d0fa57653a5219f0815334862a4",
    ("gated_head", 0.1): "c17b43ad4f53a941207ab28535f68fe8cef212ade6cd2b1c7974184f4df881fb",
}
"""sha256 of each shipped file, as printed by ``python -m icml26.papers.attention_sink.make_weights``."""


def filename(variant: str, lam: float) -> str:
    """The shipped file's name for ``variant`` trained with balancing weight ``lam``."""
    checks.one_of("variant", variant, VARIANTS)
    checks.one_of("lam", lam, LAMS)
    return f"backcopy_{variant}_lam{lam:g}.safetensors"


def load(variant: str = "vanilla", lam: float = 0.0, device="cpu") -> tuple[TinyGPT, dict]:
    """The shipped model of ``variant`` and ``lam`` (checksum verified) and its metadata: ``recipe`` (how it was
    trained) and ``points`` (its emergence curve, :func:`.backcopy.train_backcopy`)."""
    name = filename(variant, lam)
    if (variant, lam) not in SHA256:
        raise ValueError(f"no shipped weights for variant={variant!r}, lam={lam!r}: run "
                         "python -m icml26.papers.attention_sink.make_weights")
    return read_model(WEIGHTS / name, SHA256[(variant, lam)], device=device)
