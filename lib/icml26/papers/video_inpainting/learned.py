"""A learned denoiser for the toy video world: a small v-prediction U-Net trained by our own code.

The paper's samplers run a LEARNED score; the experiment's main stage runs the exact Gaussian-prior (Wiener) score.
This module gives the learned counterpart, so that TSI is also tested where the score is learned:

* :class:`DenoiserUNet`, a ~31k-parameter U-Net on one channel (circular padding: the toy lives on a torus),
  conditioned on the noise level (log-SNR, Fourier features, FiLM in every block), predicting v = sqrt(a) eps -
  sqrt(1 - a) x0 (Salimans & Ho 2022); the toy's channels are independent fields, so it runs per channel;
* :class:`LearnedDenoiser`, the SAME interface as :class:`icml26.diffusion.WienerDenoiser` (``x0(z, t)``,
  ``predict_eps(z, t)``, callable as ``eps_fn(z, t)`` for :func:`icml26.diffusion.ddim_sample`), batched over every
  leading dimension, on the network's device;
* :func:`train`: Adam on fresh frames of the toy's texture generator (the frames of ``toyvideo.make_videos`` are
  translated draws of this field, ``grf_spectrum`` / ``sample_grf`` with the toy's ``alpha`` and ``k0``) at
  noise levels drawn from the continuous cosine schedule; seed 900 (not an evaluation or development seed);
* :func:`load`: the shipped weights (``weights/denoiser.safetensors``, one model per scale's frame size), their
  sha256 checked; :mod:`.make_weights` re-creates the file;
* :func:`x0_error`: the learned and the exact x0 mean squared errors at a sampler's timesteps.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch
from torch import nn

from icml26 import checks, progress, shipped
from icml26.diffusion import eps_from_x0, grf_spectrum, sample_grf, wiener_x0

WEIGHTS = Path(__file__).with_name("weights") / "denoiser.safetensors"
RECIPE = dict(width=8, emb=32, steps=2400, batch=32, lr=3e-3, alpha=3.0, k0=1.0, seed=900)
"""One training recipe for every model (steps of Adam with a cosine-decayed learning rate, frames per batch)."""
SIZES = {"quick": 24, "standard": 32}
"""One model per frame size: the field's spectrum is defined on the frame's frequency grid, so the 24 px frames of
quick and the 32 px frames of standard are different fields (full's 64 px frames have no shipped model)."""
SMALL = dict(width=4, emb=16, steps=12, batch=8)
"""What ``make_weights --small`` changes in the recipe (seconds of CPU)."""
SHA256 = "f755be4c0372b65d09cd861781ea674aee81c3363789cad43f8b71e8dc7c461a"
"""The shipped file's sha256 (printed by ``python -m icml26.papers.video_inpainting.make_weights``)."""
LOGSNR_RANGE = (-15.0, 15.0)
"""log-SNR values are clamped to this range before the embedding (the cosine schedule's ends reach +-20)."""


def _check_recipe(recipe) -> dict:
    keys = set(RECIPE)
    checks.config("recipe", recipe, required=keys, allowed=keys)
    for k in ("width", "emb", "steps", "batch"):
        checks.positive_int(f"recipe[{k!r}]", recipe[k])
    checks.positive_number("recipe['lr']", recipe["lr"])
    checks.nonnegative_number("recipe['alpha']", recipe["alpha"])
    checks.positive_number("recipe['k0']", recipe["k0"])
    checks.seed("recipe['seed']", recipe["seed"])
    if recipe["emb"] % 2:
        raise ValueError(f"recipe['emb'] must be even (sine and cosine features); got {recipe['emb']}")
    return recipe


def _conv(cin, cout, stride=1):
    return nn.Conv2d(cin, cout, 3, stride=stride, padding=1, padding_mode="circular")


class _Block(nn.Module):
    """GroupNorm-SiLU-conv, FiLM by the noise embedding, GroupNorm-SiLU-conv, residual (1x1 when widths differ)."""

    def __init__(self, cin, cout, emb):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(min(4, cin), cin), _conv(cin, cout)
        self.film = nn.Linear(emb, 2 * cout)
        self.n2, self.c2 = nn.GroupNorm(min(4, cout), cout), _conv(cout, cout)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, e):
        h = self.c1(nn.functional.silu(self.n1(x)))
        scale, shift = self.film(e)[:, :, None, None].chunk(2, dim=1)
        h = h * (1 + scale) + shift
        h = self.c2(nn.functional.silu(self.n2(h)))
        return h + self.skip(x)


class DenoiserUNet(nn.Module):
    """v-prediction U-Net on (N, 1, H, W) frames (H, W divisible by 4), two down/up levels, widths w and 2w, a
    global-mean path at the bottleneck (the field's lowest frequencies carry most of its variance)."""

    def __init__(self, width: int = 8, emb: int = 32):
        super().__init__()
        checks.positive_int("width", width)
        checks.positive_int("emb", emb)
        if emb % 2:
            raise ValueError(f"emb must be even (sine and cosine features); got {emb}")
        self.width, self.emb = width, emb
        w = width
        self.register_buffer("freqs", torch.exp(torch.linspace(0.0, math.log(64.0), emb // 2)) / 16.0)
        self.mlp = nn.Sequential(nn.Linear(emb, emb), nn.SiLU(), nn.Linear(emb, emb))
        self.inp = _conv(1, w)
        self.b0 = _Block(w, w, emb)
        self.down1 = _conv(w, 2 * w, stride=2)
        self.b1 = _Block(2 * w, 2 * w, emb)
        self.down2 = _conv(2 * w, 2 * w, stride=2)
        self.mid = _Block(2 * w, 2 * w, emb)
        self.glob = nn.Linear(2 * w, 2 * w)
        self.u1 = _Block(4 * w, 2 * w, emb)
        self.u0 = _Block(3 * w, w, emb)
        self.out = nn.Sequential(nn.GroupNorm(min(4, w), w), nn.SiLU(), _conv(w, 1))

    def forward(self, z: torch.Tensor, logsnr: torch.Tensor) -> torch.Tensor:
        """v prediction for ``z`` (N, 1, H, W) at noise levels ``logsnr`` (N,) = log(a / (1 - a))."""
        ang = logsnr.clamp(*LOGSNR_RANGE)[:, None] * self.freqs[None]
        e = self.mlp(torch.cat((ang.sin(), ang.cos()), 1))
        h0 = self.b0(self.inp(z), e)
        h1 = self.b1(self.down1(h0), e)
        h2 = self.mid(self.down2(h1), e)
        h2 = h2 + self.glob(h2.mean(dim=(2, 3)))[:, :, None, None]
        up = nn.functional.interpolate(h2, scale_factor=2, mode="nearest")
        u1 = self.u1(torch.cat((up, h1), 1), e)
        up = nn.functional.interpolate(u1, scale_factor=2, mode="nearest")
        return self.out(self.u0(torch.cat((up, h0), 1), e))


def _x0_from_v(z, v, a):
    """x0 = sqrt(a) z - sqrt(1 - a) v (``a`` broadcastable to ``z``)."""
    return a.sqrt() * z - (1 - a).sqrt() * v


def _continuous_alpha_bar(u: torch.Tensor, s: float = 8e-3) -> torch.Tensor:
    """The cosine schedule's a(u) = f(u) / f(0), f(u) = cos^2(((u + s)/(1 + s)) pi / 2) (icml26.diffusion's form)."""
    f = torch.cos(((u + s) / (1 + s)) * math.pi / 2) ** 2
    return f / math.cos(s / (1 + s) * math.pi / 2) ** 2


def train(size: int, recipe: dict = RECIPE, device="cpu", desc: str = "denoiser") -> DenoiserUNet:
    """Train a :class:`DenoiserUNet` on ``size`` x ``size`` frames of the toy's field (``recipe``, its seed)."""
    recipe = _check_recipe(recipe)
    checks.int_at_least("size", size, 8)
    if size % 4:
        raise ValueError(f"size must be divisible by 4 (two down-sampling levels); got {size}")
    device = checks.device("device", device)
    torch.manual_seed(recipe["seed"])
    g = torch.Generator().manual_seed(recipe["seed"])
    S = grf_spectrum(size, size, recipe["alpha"], recipe["k0"])
    net = DenoiserUNet(recipe["width"], recipe["emb"]).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=recipe["lr"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=recipe["steps"])
    net.train()
    for _ in progress.steps(range(recipe["steps"]), desc=f"train {desc} ({size} px)"):
        x = sample_grf((recipe["batch"], 1), S, generator=g).float()
        u = torch.rand(recipe["batch"], generator=g) * 0.996 + 0.002
        a = _continuous_alpha_bar(u.double()).float().clamp(1e-6, 1 - 1e-6).view(-1, 1, 1, 1)
        eps = torch.randn(x.shape, generator=g)
        x, a, eps = x.to(device), a.to(device), eps.to(device)
        z = a.sqrt() * x + (1 - a).sqrt() * eps
        v = a.sqrt() * eps - (1 - a).sqrt() * x
        logsnr = (a / (1 - a)).log().flatten()
        loss = ((net(z, logsnr) - v) ** 2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
    net.size = size
    return net.eval()


class LearnedDenoiser:
    """Noise predictor eps(z_t, t) of a trained :class:`DenoiserUNet` under schedule ``alpha_bar``: the interface of
    :class:`icml26.diffusion.WienerDenoiser`. ``z`` (..., H, W) is batched over every leading dimension (each
    channel is its own frame) in chunks of ``chunk`` frames, on the network's device."""

    def __init__(self, net: DenoiserUNet, alpha_bar: torch.Tensor, chunk: int = 4096):
        checks.instance("net", net, DenoiserUNet)
        checks.tensor("alpha_bar", alpha_bar, ndim=1)
        if bool(((alpha_bar <= 0) | (alpha_bar > 1)).any()):
            raise ValueError("alpha_bar must lie in (0, 1]")
        self.net, self.alpha_bar = net.eval(), alpha_bar
        self.chunk = checks.positive_int("chunk", chunk)
        self.device = next(net.parameters()).device

    def _a(self, t) -> float:
        n = int(self.alpha_bar.shape[0])
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < n:
            raise ValueError(f"t must be an integer timestep in [0, {n}); got {t!r}")
        a = float(self.alpha_bar[t])
        if a >= 1.0:
            raise ValueError("alpha_bar[t] must be < 1 to define the noise level")
        return a

    @torch.no_grad()
    def x0(self, z: torch.Tensor, t: int) -> torch.Tensor:
        """The network's E[x0 | z_t] (the sampler's hot loop: only ``z``'s type and shape are checked)."""
        if not isinstance(z, torch.Tensor) or z.dim() < 2 or z.shape[-1] % 4 or z.shape[-2] % 4:
            raise ValueError(f"z must be a tensor (..., H, W) with H, W divisible by 4; got {getattr(z, 'shape', z)!r}")
        a = self._a(t)
        flat = z.reshape(-1, 1, *z.shape[-2:]).to(self.device, torch.float32)
        ls = torch.full((flat.shape[0],), math.log(a / (1 - a)), device=self.device)
        at = torch.tensor(a, device=self.device)
        out = torch.cat([_x0_from_v(c, self.net(c, ls[: len(c)]), at) for c in flat.split(self.chunk)])
        return out.reshape(z.shape).to(z.device, z.dtype)

    def predict_eps(self, z: torch.Tensor, t: int) -> torch.Tensor:
        return eps_from_x0(z, self.x0(z, t), self._a(t))

    __call__ = predict_eps


# ---------------------------------------------------------------- the shipped weights

def save(models: dict, path, recipe: dict = RECIPE) -> str:
    """Write ``{name: net}`` (each net with its frame ``size`` attribute) to ``path`` as one safetensors file,
    atomically, the recipe and each net's size and widths as ONE JSON metadata entry (byte-deterministic); returns
    its sha256."""
    if not isinstance(models, dict) or not models or not all(isinstance(m, DenoiserUNet) for m in models.values()):
        raise ValueError("models must be a non-empty dict of DenoiserUNet")
    for k, m in models.items():
        if not isinstance(k, str) or "." in k:
            raise ValueError(f"models' names must be strings without dots; got {k!r}")
        checks.positive_int(f"models[{k!r}].size", getattr(m, "size", None))
    recipe = _check_recipe(recipe)
    tensors = {f"{k}.{p}": v for k, m in models.items() for p, v in m.state_dict().items()}
    arch = {k: {"size": int(m.size), "width": int(m.width), "emb": int(m.emb)} for k, m in models.items()}
    return shipped.write(checks.path("path", path), tensors,
                         {"spec": json.dumps({"recipe": recipe, "models": arch}, sort_keys=True)})


def read(path, expected_sha256: str | None = None, device="cpu") -> tuple[dict, dict]:
    """The models stored at ``path`` by :func:`save` and their spec; with ``expected_sha256`` the file's sha256 must
    match (a corrupt or silently re-trained file is refused)."""
    path = Path(checks.path("path", path, must_exist=True, kind="file"))
    device = checks.device("device", device)
    state, meta = shipped.read(path, expected_sha256, recorded_in="learned.SHA256")
    try:
        spec = json.loads(meta["spec"])
        _ = spec["models"], spec["recipe"]
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise ValueError(f"path {path.name} is not a file written by learned.save ({err!r})") from None
    models = {}
    for name, arch in spec["models"].items():
        net = DenoiserUNet(arch["width"], arch["emb"])
        net.load_state_dict({k[len(name) + 1:]: v for k, v in state.items() if k.startswith(name + ".")})
        net.size = int(arch["size"])
        models[name] = net.to(device).eval()
    return models, spec


def load(scale: str, device="cpu") -> DenoiserUNet:
    """The shipped model for ``scale``'s frame size (``"quick"`` or ``"standard"``), checksum verified."""
    checks.one_of("scale", scale, tuple(SIZES))
    device = checks.device("device", device)
    if not SHA256:
        raise ValueError("no shipped weights yet: run python -m icml26.papers.video_inpainting.make_weights")
    return shipped.cached(_read_models, WEIGHTS, SHA256, str(device))[scale]  # kept under the file's hash


def _read_models(path, expected_sha256: str, device: str) -> dict:
    return read(path, expected_sha256, device)[0]


def x0_error(denoiser, frames: torch.Tensor, spectrum: torch.Tensor, alpha_bar: torch.Tensor, timesteps,
             generator: torch.Generator | None = None) -> dict:
    """x0 mean squared error of ``denoiser`` and of the exact Wiener filter on ``frames`` (..., H, W) noised at each
    of ``timesteps`` (one shared noise draw per step); returns both means over the steps and their ratio."""
    checks.tensor("frames", frames)
    if frames.dim() < 2:
        raise ValueError(f"frames must have at least two dimensions (..., H, W); got shape {tuple(frames.shape)}")
    checks.tensor("spectrum", spectrum, shape=tuple(frames.shape[-2:]))
    if bool((spectrum < 0).any()):
        raise ValueError("spectrum must be non-negative")
    checks.tensor("alpha_bar", alpha_bar, ndim=1)
    if bool(((alpha_bar <= 0) | (alpha_bar > 1)).any()):
        raise ValueError("alpha_bar must lie in (0, 1]")
    if not hasattr(denoiser, "x0"):
        raise ValueError("denoiser must have an x0(z, t) method (LearnedDenoiser or WienerDenoiser)")
    if isinstance(timesteps, (str, bytes)) or not isinstance(timesteps, (list, tuple)) or not timesteps:
        raise ValueError(f"timesteps must be a non-empty list of integer timesteps; got {timesteps!r}")
    checks.generator("generator", generator)
    learned, exact = [], []
    for t in timesteps:
        a = float(alpha_bar[checks.int_between("timesteps", t, 0, len(alpha_bar) - 1)])
        if a >= 1:
            continue
        eps = torch.randn(frames.shape, generator=generator).to(frames.device, frames.dtype)
        z = a ** 0.5 * frames + (1 - a) ** 0.5 * eps
        learned.append(float(((denoiser.x0(z, t) - frames) ** 2).mean()))
        exact.append(float(((wiener_x0(z, a, spectrum) - frames) ** 2).mean()))
    if not learned:
        raise ValueError("timesteps must include at least one step with alpha_bar < 1")
    lm, em = sum(learned) / len(learned), sum(exact) / len(exact)
    return {"learned": lm, "exact": em, "ratio": lm / em}
