"""The frozen frame encoder: a small CNN pretrained by our own code on renders of our rooms (a stand-in for SAM).

The paper freezes a pretrained SAM ViT-B image encoder (§3.1, tokens before the neck). SAM cannot be downloaded
here, so VSCDNet-mini and every baseline share one small CNN (stride 4: 16 x 16 tokens of ``dim`` channels at
64 x 64), pretrained once by :mod:`~icml26.papers.scene_change.pretrain` (a dense cross-view correspondence proxy
task on renders of rooms that no experiment uses) and shipped as ``encoder.safetensors``; :func:`load_encoder`
checks the file's sha256 before loading it and returns the encoder frozen.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch
import torch.nn as nn

from icml26 import checks

ENCODER_FILE = Path(__file__).with_name("encoder.safetensors")
ENCODER_SHA256 = "8b3e0e7ce20bcdac1130a541c606bc40d810aa7bd9159f2dd68d12ea33fcbdff"
"""sha256 of the shipped checkpoint; :func:`load_encoder` refuses a file that does not match."""


class FrameEncoder(nn.Module):
    """Pluggable backbone: ``frames (B, T, 3, H, W) -> tokens (B, T, N, D), (h, w)`` (§3.1 interface).

    A small CNN of stride 4: two stride-2 stages, a dilated 3x3 convolution (receptive field about 35 pixels)
    and a 1x1 projection to ``dim`` channels; inputs ImageNet-normalised as for SAM. A user can swap in frozen
    SAM ViT-B at 1024^2 (tokens before the neck, 64 x 64 x 768) behind the same interface.
    """

    def __init__(self, dim: int = 64, width: int = 32):
        super().__init__()
        checks.positive_int("dim", dim)
        checks.positive_int("width", width)
        if width % 4:
            raise ValueError(f"width must be a multiple of 4 (GroupNorm groups); got {width!r}")
        self.dim, self.width = dim, width
        w2 = 2 * width
        self.net = nn.Sequential(
            nn.Conv2d(3, width, 3, 2, 1), nn.GroupNorm(4, width), nn.ReLU(),
            nn.Conv2d(width, width, 3, 1, 1), nn.GroupNorm(4, width), nn.ReLU(),
            nn.Conv2d(width, w2, 3, 2, 1), nn.GroupNorm(4, w2), nn.ReLU(),
            nn.Conv2d(w2, w2, 3, 1, 1), nn.GroupNorm(4, w2), nn.ReLU(),
            nn.Conv2d(w2, w2, 3, 1, 2, dilation=2), nn.GroupNorm(4, w2), nn.ReLU(),
            nn.Conv2d(w2, dim, 1))
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, frames: torch.Tensor):
        b, t = frames.shape[:2]
        x = self.net((frames.flatten(0, 1) - self.mean) / self.std)
        h, w = x.shape[-2:]
        return x.flatten(2).transpose(1, 2).reshape(b, t, h * w, self.dim), (h, w)


# ----------------------------------------------------------------------------------------------- the checkpoint

def _check_file(path) -> Path:
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or Path; got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path {str(path)!r} is not a file (run `python -m icml26.papers.scene_change.pretrain`)")
    return path


def sha256_of(path: str | Path) -> str:
    """Hex sha256 of a file's bytes."""
    return hashlib.sha256(_check_file(path).read_bytes()).hexdigest()


def save_encoder(encoder: FrameEncoder, path: str | Path, log: dict) -> str:
    """Write ``encoder``'s weights (safetensors, written to a temporary name then renamed) with its size and
    pretraining log in the metadata; returns the file's sha256."""
    from safetensors.torch import save_file

    if not isinstance(encoder, FrameEncoder):
        raise TypeError(f"encoder must be a FrameEncoder; got {type(encoder).__name__}")
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or Path; got {type(path).__name__}")
    try:
        text = json.dumps(log, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"log must be a JSON-serialisable mapping of finite values; got {exc}") from None
    if not isinstance(log, dict):
        raise TypeError(f"log must be a dict; got {type(log).__name__}")
    path = Path(path)
    meta = {"dim": str(encoder.dim), "width": str(encoder.width), "log": text}
    tmp = path.with_suffix(path.suffix + ".tmp")
    save_file({k: v.detach().cpu().contiguous() for k, v in encoder.state_dict().items()}, str(tmp), metadata=meta)
    tmp.replace(path)
    return sha256_of(path)


def load_encoder(path: str | Path = ENCODER_FILE, sha256: str | None = ENCODER_SHA256, device="cpu") -> FrameEncoder:
    """The pretrained encoder, frozen (``requires_grad = False``, eval mode), after checking the file's sha256
    (``sha256=None`` skips the check, for a checkpoint just written by :func:`pretrain`)."""
    from safetensors import safe_open
    from safetensors.torch import load_file

    device = checks.device("device", device)
    path = _check_file(path)
    if sha256 is not None:
        got = sha256_of(path)
        if got != sha256:
            raise ValueError(f"path {str(path)!r} has sha256 {got}, expected {sha256}: the checkpoint is not the "
                             "shipped one (re-run the pretraining script or restore the file)")
    with safe_open(str(path), framework="pt") as f:
        meta = f.metadata()
    enc = FrameEncoder(int(meta["dim"]), int(meta["width"]))
    enc.load_state_dict(load_file(str(path)))
    enc.requires_grad_(False)
    return enc.to(device).eval()


def checkpoint_log(path: str | Path = ENCODER_FILE) -> dict:
    """The pretraining log stored in a checkpoint's metadata (configuration, accuracies, seconds)."""
    from safetensors import safe_open

    with safe_open(str(_check_file(path)), framework="pt") as f:
        return json.loads(f.metadata()["log"])
