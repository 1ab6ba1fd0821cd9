"""Benchmark (paper 16, Creat3r): one selection round of Creat3r vs the 3DGS-coupled Fisher-diagonal baseline on
the same state, and the shared splatting rasteriser's frames per second (tiled vs dense) at 64x64 and 256x256."""

import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.creat3r_nbv import baselines, experiment, method, scenes
from icml26.render import intrinsics, look_at
from icml26.render.gaussians import rasterize


def _random_gaussians(n, device, seed=0):
    gen = torch.Generator().manual_seed(seed)
    means = (torch.rand(n, 3, generator=gen) * 2 - 1) * torch.tensor([1.0, 1.0, 0.5])
    log_s = torch.full((n, 3), -3.2) + 0.3 * torch.randn(n, 3, generator=gen)
    quats = torch.randn(n, 4, generator=gen)
    logit = torch.randn(n, generator=gen)
    colors = torch.rand(n, 3, generator=gen)
    return [x.to(device).requires_grad_(True) for x in (means, log_s, quats, logit, colors)]


def bench_rasteriser(device, sizes, n, repeats):
    g = _random_gaussians(n, device)
    R, t = look_at(torch.tensor([2.5, 0.8, 1.2]), torch.zeros(3))
    R, t = R.to(device), t.to(device)
    for size in sizes:
        K = intrinsics(size, size, 60.0, device=device)

        def step(tile, K=K, size=size):
            out = rasterize(*g, K, R, t, size, size, tile=tile)
            out["rgb"].sum().backward()

        tiled = time_call(lambda: step(8), repeats=repeats, device=device)
        print(f"rasteriser {size}x{size}, {n} Gaussians, forward+backward: tiled {1 / tiled:.1f} frames/s")
        if size * size * n <= 64 * 64 * 4000:
            dense = time_call(lambda: step(None), repeats=repeats, device=device)
            print(ratio_line(f"rasteriser {size}x{size} ({n} Gaussians)", dense, tiled, peer="dense", ours="tiled"))


def bench_selection(device, quick):
    cfg = dict(experiment.CONFIGS["quick"])
    cfg.update(candidates=12 if quick else 32, size=32 if quick else 48, fit_iters=10 if quick else 60,
               max_gaussians=150 if quick else 300)
    gen = torch.Generator().manual_seed(0)
    cams = scenes.shell_poses(cfg["candidates"], gen, cfg["size"], device=device)
    scene = scenes.make_nbv_scene("occluder", 0, device=device)
    views = experiment.seed_views(cams) + [3, 7]
    times = {}
    for name, sel in (("creat3r", method.Creat3rSelector()),
                      ("fisher", baselines.FisherDiagSelector(fit_iters=cfg["fit_iters"],
                                                              max_gaussians=cfg["max_gaussians"]))):
        store = scenes.ViewStore(scene, cams)
        for v in views:
            store.select(v)
        times[name] = time_call(lambda s=sel, st=store: s.select(st, torch.Generator(device=device).manual_seed(0)),
                                repeats=1 if quick else 2, device=device)
    print(ratio_line(f"one selection round ({cfg['candidates']} candidates, Fisher fit {cfg['fit_iters']} iters)",
                     times["fisher"], times["creat3r"], peer="fisher-diag", ours="creat3r"))


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    torch.manual_seed(0)
    if args.quick:
        bench_rasteriser(device, [32], 300, 2)
    else:
        bench_rasteriser(device, [64, 256], 3000, 3)
    bench_selection(device, args.quick)


if __name__ == "__main__":
    main()
