"""Benchmark FloWM's hot path: one recurrent step of the velocity-lifted map, forward and backward (training).

Ours moves every sample and velocity channel by its own shift and pads the torus for Conv_h in ONE gather, then
runs an unpadded conv. Compared, in one run, with (1) the official code's recipe, the peer a user of the paper
would run: a ``torch.roll`` per velocity channel, a loop over the batch rolling each sample by its action, then a
circularly padded conv; and (2) a naive loop of one ``torch.roll`` per sample and channel. All three give the
same numbers (checked). Prints the ratios; no timing assertions.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.flow_equivariant.method import FloWM


def official_recipe_step(model: FloWM, h: torch.Tensor, frame: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    """The official cell's order of work: roll each velocity channel, roll each sample by -a, circular conv."""
    moved = torch.stack([torch.roll(h[:, i], (int(v[0]), int(v[1])), (-2, -1))
                         for i, v in enumerate(model.velocities)], 1)
    moved = torch.stack([torch.roll(moved[b], (-int(action[b, 0]), -int(action[b, 1])), (-2, -1))
                         for b in range(h.shape[0])])
    return _conv_and_write(model, moved, frame)


def naive_loop_step(model: FloWM, h: torch.Tensor, frame: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    """One ``torch.roll`` per sample and velocity channel, then the circular conv."""
    rows = []
    for b in range(h.shape[0]):
        rows.append(torch.stack([torch.roll(h[b, i], tuple(int(s) for s in (v - action[b])), (-2, -1))
                                 for i, v in enumerate(model.velocities)]))
    return _conv_and_write(model, torch.stack(rows), frame)


def _conv_and_write(model: FloWM, moved: torch.Tensor, frame: torch.Tensor) -> torch.Tensor:
    b, v, c, w, _ = moved.shape
    rec = F.conv2d(F.pad(moved.reshape(b * v, c, w, w), (1, 1, 1, 1), mode="circular"), model.rec.weight)
    return torch.relu(model.write_in(frame)[:, None] + rec.reshape(moved.shape))


def _train_step(step, model, h, frame, action):
    def run():
        out = step(model, h, frame, action)
        out.square().mean().backward()
        h.grad = None
        model.zero_grad(set_to_none=True)
    return run


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    if args.quick:
        world, window, channels, batch = 16, 8, 8, 8
    elif device.type == "cuda":
        world, window, channels, batch = 50, 32, 64, 32     # the paper's MNIST World model
    else:
        world, window, channels, batch = 32, 16, 16, 16
    repeats = 3 if args.quick else 10
    torch.manual_seed(0)
    model = FloWM(world, window, channels, radius=1).to(device)
    h = torch.rand(batch, model.n_velocities, channels, world, world, device=device, requires_grad=True)
    action = torch.randint(-3, 4, (batch, 2), device=device)
    frame = torch.rand(batch, window, window, device=device)
    with torch.no_grad():
        ours = model.step(h, frame, action)
        assert torch.allclose(ours, official_recipe_step(model, h, frame, action), atol=1e-5)
        assert torch.allclose(ours, naive_loop_step(model, h, frame, action), atol=1e-5)
    t_ours = time_call(_train_step(lambda m, *a: m.step(*a), model, h, frame, action), repeats, device)
    t_official = time_call(_train_step(official_recipe_step, model, h, frame, action), repeats, device)
    t_loop = time_call(_train_step(naive_loop_step, model, h, frame, action), repeats, device)
    print(f"one FloWM step, forward + backward: batch {batch}, |V| {model.n_velocities}, C {channels}, "
          f"world {world}, window {window}, device {device.type}")
    print(ratio_line("step", t_official, t_ours, peer="official recipe (roll per channel, loop over samples)",
                     ours="one gather + unpadded conv"))
    print(ratio_line("step", t_loop, t_ours, peer="naive roll per sample and channel", ours="one gather"))


if __name__ == "__main__":
    main()
