"""Benchmark: the TSI control layer's batched per-step warps vs a per-frame Python loop of the same warps."""

import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.video_inpainting import experiment
from icml26.render.warp import warp


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    cfg = dict(experiment.CONFIGS["quick"], n_videos=2 if args.quick else 8, noise_seeds=1)
    d = experiment.setup(cfg, device, 0)
    c = experiment.controller(d, "tsi", norm="variance", tau=0.2)
    x0 = torch.randn_like(d["video"])
    B, Fn = x0.shape[:2]

    def loop():
        return [warp(x0[b:b + 1, int(c.src[f, k])], c.flows_src[b:b + 1, f, k], padding="periodic")
                for b in range(B) for f in range(Fn) for k in range(4)]

    batched = time_call(lambda: c._warp_sources(x0), repeats=5, device=device)
    looped = time_call(loop, repeats=5, device=device)
    print(ratio_line(f"TSI source warps (B={B}, F={Fn}, 4 sources)", looped, batched, peer="loop", ours="batched"))


if __name__ == "__main__":
    main()
