"""Trained flows for the flow-trajectory explorer (notebook 1): trained once by this script, shipped as small
safetensors weights whose sha256 is checked on load.

    python -m icml26.papers.otp_fm.explorer_models      # retrains, writes assets/explorer.safetensors, prints sha256

The testbed is the rotating blob of the experiment (train on snapshots 0, 2, 4, 6, 8, the odd ones held out).
The models are OTP-FM (W2, OT chains) at three potential strengths, piecewise OT-CFM, MMFM and the
MIOFlow-style neural ODE, all with the same network; the neural ODE is trained with its simulation loss.
Training them takes about a minute of CPU, beyond the quick budget of a notebook, hence the shipped file.
A unit test re-runs :func:`train_models` at a smaller size and checks it reproduces the file's structure
bit for bit from the same seed.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from icml26 import checks, shipped
from icml26.papers.otp_fm import baselines, data, experiment
from icml26.papers.otp_fm.networks import VelocityMLP

WEIGHTS = Path(__file__).with_name("assets") / "explorer.safetensors"
SHA256 = "3a653cc749aa85bc244d7d7d0dc3ef8cde9ccc6766022681f663898e450be544"
SPEC = {"n": 600, "iters": 1500, "ode_iters": 150, "hidden": 64, "depth": 3, "batch": 256, "lr": 2e-3,
        "ode_lr": 2e-3, "strengths": [10.0, 100.0, 1000.0], "seed": 0}
"""What the shipped file was trained with (the notebook's quick-scale network, the standard-scale budget)."""
TRAIN, HELD = experiment.BLOB_TRAIN, experiment.BLOB_HELD


def snapshots(n: int = SPEC["n"], seed: int = SPEC["seed"]) -> list[torch.Tensor]:
    """The nine snapshots of the rotating blob that the explorer's models were trained on (the even ones)."""
    return data.rotating_blobs(n=checks.positive_int("n", n), T=9, n_blobs=1, seed=checks.seed("seed", seed))


def _model_keys(strengths) -> list[str]:
    """The names of the shipped models: ``otp_s<strength>`` for each strength, then the baselines."""
    return [f"otp_s{int(s)}" for s in strengths] + ["ot_cfm", "mmfm", "node"]


def train_models(spec: dict = SPEC, device="cpu") -> dict[str, VelocityMLP]:
    """Train every explorer model from ``spec`` (keys as :data:`SPEC`) on the blob's training snapshots."""
    spec = checks.config("spec", spec, required=tuple(SPEC))
    device = checks.device("device", device)
    snaps = [m.to(device) for m in snapshots(spec["n"], spec["seed"])]
    train = [snaps[s] for s in TRAIN]
    times = [s / 8 for s in TRAIN]
    cfg = {**experiment.CONFIGS["quick"], "hidden": spec["hidden"], "depth": spec["depth"], "batch": spec["batch"],
           "lr": spec["lr"], "iters": spec["iters"]}
    chains = experiment.chain_indices(train)
    models = {}
    for s in spec["strengths"]:
        models[f"otp_s{int(s)}"], _ = experiment.train_method("otp_w2", train, times, cfg, device, spec["seed"],
                                                              float(s), "auto", chains=chains)
    for name in ("ot_cfm", "mmfm"):
        models[name], _ = experiment.train_method(name, train, times, cfg, device, spec["seed"], 0.0, "auto",
                                                  chains=chains)
    torch.manual_seed(spec["seed"])
    node = experiment._net(cfg, 2, device)
    baselines.fit_neural_ode(node, train, times, spec["ode_iters"], lr=spec["ode_lr"], batch=spec["batch"], steps=10,
                             generator=torch.Generator().manual_seed(spec["seed"] + 7))
    models["node"] = node
    return models


def save_models(models: dict[str, VelocityMLP], path=WEIGHTS, spec: dict = SPEC) -> str:
    """Write the weights (``<model>.<parameter>``, the spec in the metadata) atomically to ``path``; returns their
    sha256."""
    if not isinstance(models, dict) or not models or not all(isinstance(m, torch.nn.Module) for m in models.values()):
        raise ValueError("models must be a non-empty dict of name -> torch.nn.Module")
    tensors = {f"{k}.{p}": v for k, m in models.items() for p, v in m.state_dict().items()}
    return shipped.write(path, tensors, {"spec": json.dumps(spec)})


def load_models(path=WEIGHTS, sha256: str | None = SHA256) -> dict[str, VelocityMLP]:
    """Load the explorer's models (on the CPU, in eval mode) after checking the file's sha256 (kept in memory under
    the file's hash: a file changed since is loaded and checked again)."""
    return shipped.cached(_load_models, path, sha256)


def _load_models(path, sha256: str | None) -> dict[str, VelocityMLP]:
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path: no explorer weights at {path}; run python -m icml26.papers.otp_fm.explorer_models")
    tensors, meta = shipped.read(path, sha256, recorded_in="explorer_models.SHA256 (sha256)")
    spec = json.loads(meta["spec"])
    models = {}
    for key in _model_keys(spec["strengths"]):
        net = VelocityMLP(2, hidden=spec["hidden"], depth=spec["depth"])
        net.load_state_dict({p[len(key) + 1:]: v for p, v in tensors.items() if p.startswith(key + ".")})
        models[key] = net.eval().requires_grad_(False)
    return models


def main(argv=None) -> None:
    """Retrain the shipped models and write them (the sha256 printed goes into :data:`SHA256`)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(WEIGHTS))
    args = parser.parse_args(argv)
    print(save_models(train_models(SPEC), args.out))


if __name__ == "__main__":
    main()
