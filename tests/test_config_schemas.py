"""Issue 82: every experiment checks its config against the paper's own ``CONFIGS`` before any work: a key every
scale has is required (at any depth), an unknown key is refused, each naming the key."""

import importlib
import time

import pytest

from icml26 import registry

SLUGS = [p.slug for p in registry.PAPERS]


def _experiment(slug):
    return importlib.import_module(f"icml26.papers.{slug}.experiment")


DEFAULTED = ("air_reasoning", "attention_sink")
"""Papers whose ``run`` lays the config over stated defaults (``experiment._BASE``): a key left out takes its
default, the rest is checked the same way."""


def _required(slug) -> set:
    exp = _experiment(slug)
    shared = set.intersection(*(set(c) for c in exp.CONFIGS.values()))
    return shared - set(exp._BASE) if slug in DEFAULTED else shared


@pytest.mark.parametrize("slug", SLUGS)
def test_every_scale_config_passes_its_own_schema(slug):
    from icml26 import checks
    exp = _experiment(slug)
    for scale, cfg in exp.CONFIGS.items():
        checks.config_like(f"CONFIGS[{scale!r}]", cfg, exp.CONFIGS.values())


@pytest.mark.parametrize("slug", SLUGS)
def test_a_missing_or_unknown_key_is_refused_before_any_work(slug):
    exp = _experiment(slug)
    quick = exp.CONFIGS["quick"]
    for key in sorted(_required(slug)):
        t0 = time.perf_counter()
        with pytest.raises(ValueError, match=f"lacks the .*{key!r}"):
            exp.run({k: v for k, v in quick.items() if k != key}, device="cpu", seed=0)
        assert time.perf_counter() - t0 < 2.0, f"{slug}: the missing {key!r} was found only after work"
    with pytest.raises(ValueError, match="unknown key.*'not_a_setting'"):
        exp.run({**quick, "not_a_setting": 1}, device="cpu", seed=0)


@pytest.mark.parametrize("slug", DEFAULTED)
def test_a_defaulted_key_left_out_takes_its_stated_default(slug):
    exp = _experiment(slug)
    assert set(exp.CONFIGS["quick"]) - _required(slug) <= set(exp._BASE)
    with pytest.raises(ValueError, match="unknown key.*'not_a_setting'"):
        exp.run({**{k: exp.CONFIGS["quick"][k] for k in _required(slug)}, "not_a_setting": 1}, device="cpu", seed=0)


@pytest.mark.parametrize("slug, key", [("dag_tsfx", "seasonal"), ("strategic_pfn", "real"),
                                       ("flow_equivariant", "eval_every"), ("ca_pg", "digits"),
                                       ("tabular_uncertainty", "pfn")])
def test_the_reported_keys_are_named_when_missing(slug, key):
    """The keys of the issue's fault list (attention_sink's ``ablation`` now has a stated default, ``_BASE``)."""
    exp = _experiment(slug)

    def drop(cfg):
        if key in cfg:
            return {k: v for k, v in cfg.items() if k != key}, True
        for k, v in cfg.items():
            if isinstance(v, dict):
                new, hit = drop(v)
                if hit:
                    return {**cfg, k: new}, True
        return cfg, False

    cfg, hit = drop(exp.CONFIGS["quick"])
    assert hit, f"{key!r} is not in {slug}'s quick config"
    with pytest.raises(ValueError, match=f"lacks the key.*{key!r}"):
        exp.run(cfg, device="cpu", seed=0)
