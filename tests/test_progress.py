"""Progress bars: stage bars follow the code's order and close cleanly."""

import pytest

from icml26 import progress


def test_stage_bar_walks_the_stages_in_order(monkeypatch):
    monkeypatch.setenv("ICML26_PROGRESS", "0")
    with progress.StageBar(["load", "train", "evaluate"], desc="toy") as bar:
        bar.next("load")
        bar.next("train")
        with pytest.raises(ValueError, match="next stage, 'evaluate'; got 'load'"):
            bar.next("load")
        bar.next("evaluate")
        with pytest.raises(ValueError, match="no further stage"):
            bar.next("extra")
    assert bar._done == 3


def test_steps_and_stages_yield_everything(monkeypatch):
    monkeypatch.setenv("ICML26_PROGRESS", "0")
    assert list(progress.steps(range(4), desc="x")) == [0, 1, 2, 3]
    assert list(progress.stages(["a", "b"], desc="x")) == ["a", "b"]
