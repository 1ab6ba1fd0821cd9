"""Train the shipped denoisers of :mod:`.learned` (one per frame size, :data:`.learned.SIZES`) and write them as one
safetensors file.

    python -m icml26.papers.video_inpainting.make_weights --out lib/icml26/papers/video_inpainting/weights

takes a few minutes of one CPU core and prints the file's sha256 (paste it into ``learned.SHA256``).
``--small`` trains the shrunk recipe (``learned.SMALL``, seconds): the test suite runs it twice to show that the
script still works and reproduces its own output.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from icml26.runtime import set_threads

from .learned import RECIPE, SIZES, SMALL, save, train


def main(argv=None) -> str:
    """Train a model per size (``--small``: the shrunk recipe) and write ``--out``/denoiser.safetensors; returns
    the file's sha256."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for denoiser.safetensors")
    parser.add_argument("--small", action="store_true", help="train the small version (seconds)")
    args = parser.parse_args(argv)
    set_threads()  # ICML26_THREADS / OMP_NUM_THREADS, else the cores
    recipe = {**RECIPE, **SMALL} if args.small else dict(RECIPE)
    models = {name: train(size, recipe, desc=name) for name, size in SIZES.items()}
    digest = save(models, Path(args.out) / "denoiser.safetensors", recipe)
    print(f"denoiser.safetensors: sha256 {digest}")
    return digest


if __name__ == "__main__":
    main()
