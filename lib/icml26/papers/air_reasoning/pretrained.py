"""The pre-trained models AIR starts from, trained by one recipe and shipped with the package.

AIR scores data with an *off-the-shelf* model and distils into a *pre-trained* student. Here both are tiny
:class:`~icml26.nn.tiny_gpt.TinyGPT` models trained from scratch by :func:`train` on the task's generic data:
copy probes, then clean traces (neither ever sees step types, pool kinds, or chains longer than the pools'). Both
go through two phase transitions, retrieval heads on the probes and then solving the traces' chains by retrieval,
which take thousands of steps (about four minutes of one core each), more than the quick scale's seconds allow;
so one model of each recipe is trained once and shipped as safetensors (``weights/<name>.safetensors``, a few
hundred kB each) with its sha256 in :data:`SHA256`; :func:`load` refuses a file whose checksum differs. ``quick``
and ``standard`` use them; ``full`` trains larger models per seed with the same :func:`train`.

The student solves in-range chains before any SFT (as an instruct model can reason before distillation); SFT on a
selected subset of a pool keeps, extends (to longer chains) or damages that skill, which is what the selectors are
compared on.

The script :mod:`.make_weights` re-creates the shipped files; paste the checksums it prints into :data:`SHA256`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import torch

from icml26 import checks
from icml26.nn.tiny_gpt import TinyGPT, read_model, save_model

from . import tasks, training

WEIGHTS = Path(__file__).with_name("weights")
RECIPES = {
    # phases: (steps, share of clean traces in the batch, learning rate); probes are the rest of each batch
    "base": dict(d_model=64, n_heads=4, n_layers=2, context=96, n_vars=12, n_pairs=4, n_queries=4, hops=(1, 4),
                 n_distract=(0, 4), batch=64, phases=((1500, 0.0, 3e-3), (3000, 0.5, 1.5e-3)), seed=2026),
    # the student: copy probes, then clean traces in eight 250-step cosine cycles with warm restarts (the phase
    # transition to solving the task came within 2000 trace steps this way; one 3000-step cycle at half traces did
    # not reach it for this width and seed: 12 / 8 / 6 of 60 problems of 1-2 / 3-4 / 5-6 hops solved)
    "student": dict(d_model=48, n_heads=4, n_layers=2, context=96, n_vars=12, n_pairs=4, n_queries=4, hops=(1, 4),
                    n_distract=(0, 4), batch=64, phases=((1500, 0.0, 3e-3),) + ((250, 1.0, 2e-3),) * 8, seed=2027),
}
SMALL = {"d_model": 16, "n_heads": 2, "batch": 16, "phases": ((6, 0.0, 3e-3), (4, 0.5, 1e-3))}
"""What ``--small`` changes in every recipe (seconds of CPU)."""
SHA256 = {
    "base": "78e0ba6456271c69c32a16cb961e86abff45e26ff448ba5460abc740333f6d86",
    "student": "16027bb5f12f90eb41b9a5dabf3c67058570fbfb8dc8b664df7bae9fbd9cd218",
}


def check_recipe(recipe) -> dict:
    """A recipe (see :data:`RECIPES`) with every key present and sane."""
    keys = set(RECIPES["base"])
    checks.config("recipe", recipe, required=keys, allowed=keys)
    for key in ("d_model", "n_heads", "n_layers", "context", "n_vars", "n_pairs", "n_queries", "batch"):
        checks.positive_int(f"recipe[{key!r}]", recipe[key])
    checks.nonnegative_int("recipe['seed']", recipe["seed"])
    phases = recipe["phases"]
    if not isinstance(phases, (tuple, list)) or not phases or not all(
            isinstance(p, (tuple, list)) and len(p) == 3 for p in phases):
        raise ValueError(f"recipe['phases'] must be a non-empty list of (steps, trace_frac, lr); got {phases!r}")
    for steps, frac, lr in phases:
        checks.positive_int("recipe['phases'] steps", steps)
        checks.probability("recipe['phases'] trace_frac", frac)
        checks.positive_number("recipe['phases'] lr", lr)
    return recipe


def train(recipe: dict, seed: int | None = None, device="cpu", desc: str = "pre-training") -> TinyGPT:
    """Train a model by ``recipe`` (its own seed unless ``seed`` is given); returns it in eval mode."""
    recipe = check_recipe(recipe)
    seed = recipe["seed"] if seed is None else checks.seed("seed", seed)
    device = checks.device("device", device)
    vocab = tasks.Vocab(recipe["n_vars"])
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = training.make_model(vocab, recipe["d_model"], recipe["n_heads"], recipe["n_layers"], recipe["context"],
                                device)
    for i, (steps, frac, lr) in enumerate(recipe["phases"]):
        training.pretrain(model, vocab, steps=steps, batch=recipe["batch"], lr=lr, trace_frac=frac,
                          hops=tuple(recipe["hops"]), n_distract=tuple(recipe["n_distract"]), n_pairs=recipe["n_pairs"],
                          n_queries=recipe["n_queries"], generator=gen, device=device,
                          desc=f"{desc} {i + 1}/{len(recipe['phases'])}")
    return model.eval()


def sha256(path) -> str:
    """Hex sha256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save(model: TinyGPT, path, recipe: dict) -> str:
    """Write ``model`` (its config and ``recipe`` as metadata) to ``path`` atomically; returns the sha256."""
    checks.instance("model", model, TinyGPT)
    return save_model(model, path, {"recipe": check_recipe(recipe)})


def read(path, expected_sha256: str | None = None, device="cpu") -> tuple[TinyGPT, dict]:
    """The model stored at ``path`` and its recipe; with ``expected_sha256`` the file's checksum must match."""
    model, meta = read_model(path, expected_sha256, build=training.build, device=device)
    if "recipe" not in meta:
        raise ValueError(f"{Path(path).name} is not a model written by pretrained.save (no recipe metadata)")
    return model, meta["recipe"]


def load(name: str, device="cpu") -> TinyGPT:
    """The shipped model ``name`` (``"base"`` or ``"student"``), checksum verified."""
    checks.one_of("name", name, tuple(RECIPES))
    if not SHA256[name]:
        raise ValueError(f"no shipped weights for {name!r} yet: run python -m icml26.papers.air_reasoning.make_weights")
    model, _ = read(WEIGHTS / f"{name}.safetensors", SHA256[name], device)
    return model


def small(recipe: dict) -> dict:
    """``recipe`` shrunk by :data:`SMALL`."""
    return {**check_recipe(recipe), **SMALL}
