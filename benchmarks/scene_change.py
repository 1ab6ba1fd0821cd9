"""scene_change (VSCD) benchmark: model frames/s at 64x64 and 128x128, renderer rays/s, and the candidate stage
batched over (query frame x candidate) versus the per-(t, candidate) Python loop of the reference code.

    python benchmarks/scene_change.py [--device cpu|cuda] [--quick]
"""

from __future__ import annotations

import torch

from icml26.bench import parse_args, time_call
from icml26.papers.scene_change import experiment, method, rooms
from icml26.render import intrinsics, look_at, render


def candidate_stage_batched(model, q_map, r_sel):
    """The library path: every (t, candidate) pair in one batch."""
    b, tq, n_c, d, h, w = r_sel.shape
    fq = q_map[:, :, None].expand_as(r_sel).reshape(-1, d, h, w)
    warped, P, _ = method.soft_correspondence(fq, r_sel.reshape(-1, d, h, w), model.cfg["k"], model.temperature)
    return model.head(fq, warped), method.patch_confidence(P)


def candidate_stage_loop(model, q_map, r_sel):
    """The reference code's shape: one correspondence + change head call per (t, candidate)."""
    feats, confs = [], []
    for t in range(r_sel.shape[1]):
        for j in range(r_sel.shape[2]):
            warped, P, _ = method.soft_correspondence(q_map[:, t], r_sel[:, t, j], model.cfg["k"], model.temperature)
            feats.append(model.head(q_map[:, t], warped))
            confs.append(method.patch_confidence(P))
    return feats, confs


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    torch.manual_seed(0)
    frames = 4 if args.quick else 8
    repeats = 1 if args.quick else 3
    sizes = (32, 64) if args.quick else (64, 128)
    model = experiment.make_model("vscd", experiment.MODEL, device).eval()
    with torch.no_grad():
        for size in sizes:
            q = torch.rand(1, frames, 3, size, size, device=device)
            r = torch.rand(1, frames, 3, size, size, device=device)
            sec = time_call(lambda q=q, r=r: model(q, r), repeats, device)
            print(f"VSCDNet-mini forward {size}x{size}, T={frames}, |S|={model.cfg['s_max']}: "
                  f"{frames / sec:.1f} query frames/s")
        h = w = sizes[-1] // 4
        d = model.encoder.dim
        q_map = torch.nn.functional.normalize(torch.randn(1, frames, d, h, w, device=device), dim=2)
        r_sel = torch.nn.functional.normalize(torch.randn(1, frames, model.cfg["s_max"], d, h, w, device=device), dim=2)
        t_b = time_call(lambda: candidate_stage_batched(model, q_map, r_sel), repeats, device)
        t_l = time_call(lambda: candidate_stage_loop(model, q_map, r_sel), repeats, device)
        print(f"candidate stage (correspondence + change head, {frames}x{model.cfg['s_max']} pairs): batched "
              f"{t_b * 1e3:.1f} ms, per-candidate loop {t_l * 1e3:.1f} ms; batched vs loop: {t_l / t_b:.1f}x")
    g = torch.Generator().manual_seed(0)
    scene = rooms.make_room(g, 12).to(device)
    eye, target = rooms.camera_path(g, frames)
    R, t = look_at(eye.to(device), target.to(device))
    size = sizes[-1]
    K = intrinsics(size, size, 80.0, device=device)
    sec = time_call(lambda: render(scene, K, R, t, size, size), repeats, device)
    print(f"renderer: {frames * size * size / sec / 1e6:.2f} M rays/s ({scene.num_primitives} primitives, "
          f"{frames} frames of {size}x{size})")


if __name__ == "__main__":
    main()
