"""Benchmark: the cost of the TSI control layer.

1. Peer first: the base sampler a user would run without the layer (plain DDIM + RePaint, same NFE) against the
   same sampler with the TSI controller; the ratio is the layer's overhead ("lightweight": ours / peer close to 1).
2. Then the naive loop: the controller's batched per-step source warps against a per-(clip, frame, source) loop.
3. The learned denoiser (the learned stage's hot path): one batched ``LearnedDenoiser`` call on every frame of the
   clips against a loop of one call per frame.
"""

import torch

from icml26.bench import paired_times, parse_args, ratio_line
from icml26.diffusion import cosine_alpha_bar
from icml26.papers.video_inpainting import experiment, learned
from icml26.render.warp import warp


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    cfg = dict(experiment.CONFIGS["quick"], n_videos=2 if args.quick else 8, noise_seeds=1, learned=None)
    d = experiment.setup(cfg, device, 0)
    cp = cfg["controller"]
    plain_s, tsi_s = paired_times(lambda: experiment.sample(d, cfg["steps"]),
                                  lambda: experiment.sample(d, cfg["steps"], experiment.controller(d, "tsi", **cp)),
                                  repeats=2, device=device, rounds=3)
    B, Fn = d["video"].shape[:2]
    print(ratio_line(f"TSI sampling vs plain sampling ({B} clips x {Fn} frames, {cfg['steps']} steps, same NFE)",
                     plain_s, tsi_s, peer="plain sampler", ours="TSI sampler")
          + f" (the layer adds {(tsi_s - plain_s) / cfg['steps'] * 1e3:.1f} ms a step, {tsi_s / plain_s:.1f}x a "
            "sampler whose denoiser is one FFT per frame; no network evaluation is added)")
    c = experiment.controller(d, "tsi", **cp)
    x0 = torch.randn_like(d["video"])

    def loop():
        return [warp(x0[b:b + 1, int(c.src[f, k])], c.flows_src[b:b + 1, f, k], padding="periodic")
                for b in range(B) for f in range(Fn) for k in range(4)]

    looped, batched = paired_times(loop, lambda: c._warp_sources(x0), repeats=5, device=device)
    print(ratio_line(f"TSI source warps (B={B}, F={Fn}, 4 sources)", looped, batched, peer="loop", ours="batched"))
    den = learned.LearnedDenoiser(learned.load("quick", device), cosine_alpha_bar(cfg["T"]))
    z = torch.randn_like(d["video"])
    per_frame, batched_den = paired_times(lambda: [den(z[b, f], 100) for b in range(B) for f in range(Fn)],
                                          lambda: den(z, 100), repeats=3, device=device)
    print(ratio_line(f"learned denoiser, one step on {B} x {Fn} frames", per_frame, batched_den, peer="per-frame loop",
                     ours="batched"))


if __name__ == "__main__":
    main()
