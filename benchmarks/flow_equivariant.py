"""Benchmark FloWM's hot path: the velocity-channel + self-motion transport of the latent map.

Compares, in one run: the batched one-gather toroidal shift (every sample and velocity channel moved at once)
against a naive loop of ``torch.roll`` per sample and channel, and one full FloWM recurrent step against one
ConvGRU world-model step (its recurrent peer). Prints the ratios; no timing assertions.
"""

from __future__ import annotations

import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.flow_equivariant.baselines import ConvGRUWM
from icml26.papers.flow_equivariant.method import FloWM


def loop_transport(model: FloWM, h: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    """Naive reference: one torch.roll per sample and velocity channel."""
    out = torch.empty_like(h)
    for b in range(h.shape[0]):
        for i, v in enumerate(model.velocities):
            s = v - action[b] if model.self_motion else v
            out[b, i] = torch.roll(h[b, i], (int(s[0]), int(s[1])), (-2, -1))
    return out


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    world, window, channels, batch = (16, 8, 8, 8) if args.quick else (50, 32, 64, 32)
    repeats = 3 if args.quick else 10
    torch.manual_seed(0)
    model = FloWM(world, window, channels, radius=1).to(device)
    gru = ConvGRUWM(window, channels).to(device)
    h = torch.rand(batch, model.n_velocities, channels, world, world, device=device)
    action = torch.randint(-3, 4, (batch, 2), device=device)
    frame = torch.rand(batch, window, window, device=device)
    assert torch.equal(model.transport(h, action), loop_transport(model, h, action))
    with torch.no_grad():
        t_batched = time_call(lambda: model.transport(h, action), repeats, device)
        t_loop = time_call(lambda: loop_transport(model, h, action), repeats, device)
        t_flowm = time_call(lambda: model.step(h, frame, action), repeats, device)
        hg = gru.init_state(frame[:, None])
        t_gru = time_call(lambda: gru.step(hg, frame, action), repeats, device)
    print(f"sizes: batch {batch}, |V| {model.n_velocities}, C {channels}, world {world}, window {window}, "
          f"device {device.type}")
    print(ratio_line("transport", t_loop, t_batched, peer="per-channel roll loop", ours="batched gather"))
    print(f"FloWM step: {t_flowm * 1e3:.3f} ms; ConvGRU step: {t_gru * 1e3:.3f} ms")
    print(f"FloWM step / ConvGRU step cost: {t_flowm / t_gru:.1f}x (activations scale with |V| C W^2, note §10)")


if __name__ == "__main__":
    main()
