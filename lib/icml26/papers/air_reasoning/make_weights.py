"""Train the shipped models of :mod:`.pretrained` by their recipes and write them as safetensors.

    python -m icml26.papers.air_reasoning.make_weights --out lib/icml26/papers/air_reasoning/weights

takes about 7 minutes of one CPU core (base 244 s, student 193 s) and prints each file's sha256 (paste them
into ``pretrained.SHA256``).
``--small`` trains the shrunk recipes (``pretrained.SMALL``, seconds): the test suite runs it to show that the
script still works and reproduces its own output (to float round-off).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from icml26.runtime import set_threads

from .pretrained import RECIPES, save, small, train


def main(argv=None) -> dict:
    """Train every recipe (``--small``: the shrunk versions) and write them to ``--out``; returns the checksums."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for <name>.safetensors")
    parser.add_argument("--small", action="store_true", help="train the small versions (seconds)")
    args = parser.parse_args(argv)
    set_threads()  # ICML26_THREADS / OMP_NUM_THREADS, else the cores
    digests = {}
    for name, recipe in RECIPES.items():
        recipe = small(recipe) if args.small else recipe
        model = train(recipe, desc=name)
        digests[name] = save(model, Path(args.out) / f"{name}.safetensors", recipe)
        print(f"{name}: sha256 {digests[name]}")
    return digests


if __name__ == "__main__":
    main()
