"""Train the shipped Bigram-Backcopy models of :mod:`.trained` and write them as safetensors.

    python -m icml26.papers.attention_sink.make_weights --out lib/icml26/papers/attention_sink/weights

trains six models (three variants x ``lam`` in {0, 0.1}) by :data:`.backcopy.RECIPE`, about 3-4 minutes each on one
CPU core, and prints each file's sha256 (paste them into ``trained.SHA256``). ``--small`` trains the shrunk recipe
(:data:`SMALL`, seconds): the test suite runs it to show that the script works and reproduces its own output.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from icml26.nn.tiny_gpt import save_model
from icml26.runtime import set_threads

from .backcopy import RECIPE, train_backcopy
from .trained import LAMS, VARIANTS, filename

SMALL = {"steps": 12, "every": 6, "d_model": 16, "batch": 4}
"""What ``--small`` changes in the recipe."""


def main(argv=None) -> dict:
    """Train every shipped model (``--small``: the shrunk recipe; ``--variant``: only those) into ``--out``;
    returns their sha256 by ``(variant, lam)``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for the .safetensors files")
    parser.add_argument("--small", action="store_true", help="train the small versions (seconds)")
    parser.add_argument("--variant", choices=VARIANTS, action="append",
                        help="train only this variant (repeatable; default: all three)")
    args = parser.parse_args(argv)
    set_threads()  # ICML26_THREADS / OMP_NUM_THREADS, else the cores
    recipe = {**RECIPE, **SMALL} if args.small else dict(RECIPE)
    digests = {}
    for variant in args.variant or VARIANTS:
        for lam in LAMS:
            model, points = train_backcopy(variant, lam, **recipe)
            digests[(variant, lam)] = save_model(model, Path(args.out) / filename(variant, lam),
                                                 {"recipe": {"variant": variant, "lam": lam, **recipe},
                                                  "points": points})
            print(f"({variant!r}, {lam!r}): {digests[(variant, lam)]!r},  # final point {points[-1]}", flush=True)
    return digests


if __name__ == "__main__":
    main()
