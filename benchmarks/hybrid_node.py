"""Benchmark CHyLL++'s hot path: one training step of a K-member ensemble (RK4 latent rollout, five-term loss,
backward), as the experiment trains the method, the Latent ODE baseline and the ablations together.

Compared in one run against the peer a user would reach for first, PyTorch's own model ensembling
(``torch.func.stack_module_state`` + ``vmap`` over ``functional_call`` of K ordinary ``nn.Sequential``
models; torchdiffeq does not run under ``vmap``, so that peer integrates with a plain RK4 loop of the same
field evaluations), and second against the naive loop (K separate models, one step each). Prints ratios; no timing
assertions.
"""

from __future__ import annotations

import copy

import torch
from torch import nn
from torchdiffeq import odeint

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.hybrid_node import jumps, method, simulators


def _plain(n, m, width):
    """One CHyLL++ of ordinary nn.Linear layers (encoder, field, decoder)."""
    def net(a, b):
        return nn.Sequential(nn.Linear(a, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, b))
    return nn.ModuleDict({"enc": net(n, m), "field": net(m, m), "dec": net(m, n)})


def _rk4(field, z, steps, h):
    """Plain RK4 (torchdiffeq's solver writes into a preallocated buffer, which ``vmap`` cannot batch)."""
    out = [z]
    for _ in range(steps):
        k1 = field(z)
        k2 = field(z + 0.5 * h * k1)
        k3 = field(z + 0.5 * h * k2)
        z = z + h / 6 * (k1 + 2 * k2 + 2 * k3 + field(z + h * k3))
        out.append(z)
    return torch.stack(out, 1)


def _loss(enc, field, dec, win, jm, dt, weights, floor, solver="torchdiffeq"):
    """The same five-term loss for one plain model given its three networks as callables."""
    L = win.shape[1] - 1
    if solver == "torchdiffeq":
        t = torch.arange(L + 1, dtype=win.dtype, device=win.device) * dt
        zhat = odeint(lambda _, z: field(z), enc(win[:, 0]), t, method="rk4", options={"step_size": dt}).movedim(0, 1)
    else:
        zhat = _rk4(field, enc(win[:, 0]), L, dt)
    zenc = enc(win)
    lg, lv = method._glue_velocity(zenc[None], jm[None], dt)
    lc = method._cov_floor(zenc[None], floor)
    terms = torch.stack([((dec(zhat) - win) ** 2).mean(), ((zhat - zenc) ** 2).mean(), lg[0], lv[0], lc[0]])
    return (weights * terms).sum()


def main(argv=None):
    args, dev = parse_args(__doc__.splitlines()[0], argv)
    batch, length, width, members, reps = (16, 8, 16, 3, 2) if args.quick else (64, 20, 64, 4, 5)
    d = simulators.simulate("sawtooth", batch, length + 1, device=dev)
    win = (d.x - d.x.mean((0, 1))) / d.x.std((0, 1))
    jm = jumps.detect_jumps(d.x, d.dt)
    table = method.weight_table([method.DEFAULT_WEIGHTS, method.LATENT_ODE, *[method.DEFAULT_WEIGHTS] * (members - 2)],
                                dev)
    floor = torch.full((members,), 0.01, device=dev)
    ens = method.CHyLLpp(2, 5, width, members=members).to(dev)

    def step_ensemble():
        ens.zero_grad()
        method.chyllpp_loss(ens, win, jm[None].expand(members, -1, -1), d.dt, table, floor).sum().backward()

    plain = [_plain(2, 5, width).to(dev) for _ in range(members)]

    def step_loop():
        for k, mdl in enumerate(plain):
            mdl.zero_grad()
            _loss(mdl["enc"], mdl["field"], mdl["dec"], win, jm, d.dt, table[k], floor[k:k + 1]).backward()

    stacked = torch.func.stack_module_state([copy.deepcopy(p) for p in plain])[0]
    stacked = {k: v.detach().requires_grad_() for k, v in stacked.items()}
    base = copy.deepcopy(plain[0]).to("meta")

    def one(p, w):
        def net(name):
            sub = {k.split(".", 1)[1]: v for k, v in p.items() if k.startswith(name + ".")}
            return lambda x: torch.func.functional_call(base[name], sub, (x,))
        return _loss(net("enc"), net("field"), net("dec"), win, jm, d.dt, w, floor[:1], solver="rk4")

    def step_vmap():
        for v in stacked.values():
            v.grad = None
        torch.func.vmap(one)(stacked, table).sum().backward()

    t_e = time_call(step_ensemble, reps, dev)
    t_v = time_call(step_vmap, reps, dev)
    t_l = time_call(step_loop, reps, dev)
    label = f"CHyLL++ training step, {members} members x {batch} windows x {length} steps"
    print(ratio_line(label, t_v, t_e, peer="torch.func.vmap ensemble", ours="batched ensemble"))
    print(ratio_line(label, t_l, t_e, peer="loop over models", ours="batched ensemble"))


if __name__ == "__main__":
    main()
