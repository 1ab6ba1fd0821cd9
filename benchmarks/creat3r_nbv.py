"""Benchmark (paper 16, Creat3r). First the peer a user would pick: one selection round of Creat3r against the
optimisation-coupled FisherRF-style selector on the same state (the paper's speed claim), SSIM against
scikit-image's, and the shared rasteriser's tiled path (hand-written backward) against its dense autograd
reference. Second the naive loop: Creat3r's confidence maps for all candidates in one batched splat against one
candidate at a time."""

import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.creat3r_nbv import baselines, experiment, gs_fit, method, scenes
from icml26.render import intrinsics, look_at
from icml26.render.gaussians import rasterize
from icml26.render.image_metrics import ssim


def _state(device, quick):
    size, n = (32, 16) if quick else (48, 48)
    cams = scenes.shell_poses(n, torch.Generator().manual_seed(0), size, device=device)
    store = scenes.ViewStore(scenes.make_nbv_scene("courtyard", 0, device=device), cams)
    for v in experiment.seed_views(cams) + [3, 7]:
        store.select(v)
    return store


def bench_selection(device, quick):
    store = _state(device, quick)
    fit = gs_fit.FitConfig(**(dict(experiment.CONFIGS["standard"]["fit"], iters=60, densify_until=30) if quick
                              else experiment.CONFIGS["standard"]["fit"]))
    gen = lambda: torch.Generator(device=device).manual_seed(0)  # noqa: E731
    c3 = method.Creat3rSelector()
    fisher = baselines.FisherDiagSelector(fit)
    t_c3 = time_call(lambda: c3.select(store, gen()), repeats=1 if quick else 3, device=device)
    t_f = time_call(lambda: fisher.select(store, gen()), repeats=1, device=device)
    print(ratio_line(f"one selection round ({len(store)} candidates, Fisher fit {fit.iters} steps)", t_f, t_c3,
                     peer="fisher-diag", ours="creat3r"))
    return store, c3


def bench_ssim(device, quick):
    try:
        from skimage.metrics import structural_similarity
    except ImportError:
        print("ssim: scikit-image not installed, skipped")
        return
    n, size = (4, 32) if quick else (16, 64)
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(n, 3, size, size, generator=gen)
    y = (x + 0.1 * torch.randn(x.shape, generator=gen)).clamp(0, 1)
    xs, ys = x.permute(0, 2, 3, 1).numpy(), y.permute(0, 2, 3, 1).numpy()

    def peer():
        for i in range(n):
            structural_similarity(xs[i], ys[i], gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
                                  data_range=1.0, channel_axis=2)

    xd, yd = x.to(device), y.to(device)
    print(ratio_line(f"SSIM of {n} images {size}x{size}", time_call(peer, repeats=3),
                     time_call(lambda: ssim(xd, yd), repeats=3, device=device), peer="scikit-image", ours="torch"))


def bench_rasteriser(device, quick):
    size, n = (32, 300) if quick else (48, 1500)
    gen = torch.Generator().manual_seed(0)
    g = [(torch.rand(n, 3, generator=gen) * 2 - 1) * torch.tensor([1.0, 1.0, 0.5]),
         torch.full((n, 3), -3.2) + 0.3 * torch.randn(n, 3, generator=gen), torch.randn(n, 4, generator=gen),
         torch.randn(n, generator=gen), torch.rand(n, 3, generator=gen)]
    g = [x.to(device).requires_grad_(True) for x in g]
    R, t = look_at(torch.tensor([[2.5, 0.8, 1.2], [-1.0, 2.4, 1.0]]), torch.zeros(3))
    R, t, K = R.to(device), t.to(device), intrinsics(size, size, 50.0, device=device)

    def step(tile):
        rasterize(*g, K, R, t, size, size, tile=tile)["rgb"].sum().backward()

    dense, tiled = time_call(lambda: step(None), repeats=2, device=device), time_call(lambda: step(8), repeats=3,
                                                                                       device=device)
    print(ratio_line(f"rasteriser forward+backward, 2 views {size}x{size}, {n} Gaussians", dense, tiled,
                     peer="dense autograd", ours="tiled"))


def bench_scoring_loop(device, store, c3):
    info = c3.analyse(store, torch.Generator(device=device).manual_seed(0))
    pts, w, r = info["cloud"]["points"], info["conf"]["w"], info["radii"]
    cams = store.cams.scaled(c3.cfg.map_scale)

    def loop():
        for i in range(len(cams)):
            method.confidence_maps(pts, w, r, cams[[i]])

    print(ratio_line(f"confidence maps of {len(cams)} candidates", time_call(loop, repeats=2, device=device),
                     time_call(lambda: method.confidence_maps(pts, w, r, cams), repeats=3, device=device),
                     peer="one candidate at a time", ours="batched"))


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    torch.manual_seed(0)
    store, c3 = bench_selection(device, args.quick)
    bench_ssim(device, args.quick)
    bench_rasteriser(device, args.quick)
    bench_scoring_loop(device, store, c3)


if __name__ == "__main__":
    main()
