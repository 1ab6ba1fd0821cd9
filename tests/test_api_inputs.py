"""Every public function of lib/icml26 rejects bad input with a clear error naming the argument.

The probe tables live in ``tests/inputs/<name>.py``: each defines ``PROBES`` (a valid call per public
function, from which :mod:`tests.inputs.harness` derives the bad ones) and ``EXEMPT`` (a public function
that takes no input worth probing, with the reason). A public function in neither fails
:func:`test_every_public_function_is_probed_or_exempt`, so new functions stay honest.
"""

import importlib
import importlib.util
import inspect
import math
import os
import pkgutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import icml26

INPUTS = Path(__file__).with_name("inputs")
NOT_IN_SCOPE = ("icml26.cli", "icml26.__main__", "icml26.gpu_check")
"""The command line is tested through its own arguments (tests/test_cli.py), and the GPU check command through
its options (tests/test_gpu_check.py)."""


sys.path.insert(0, str(INPUTS))  # the tables import the harness as `from harness import Probe`
FIXTURES = Path(__file__).with_name("fixtures")  # the toy paper the sweep probes run, here and in workers
sys.path.insert(0, str(FIXTURES))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(FIXTURES), os.environ.get("PYTHONPATH")]))


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"icml26_inputs_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLES = {p.stem: _load(p) for p in sorted(INPUTS.glob("*.py")) if p.stem not in ("__init__", "harness")}
PROBES = [p for t in TABLES.values() for p in getattr(t, "PROBES", [])]
TABLE_OF = {id(p): stem for stem, t in TABLES.items() for p in getattr(t, "PROBES", [])}
EXEMPT = {k: v for t in TABLES.values() for k, v in getattr(t, "EXEMPT", {}).items()}
HARNESS = importlib.import_module("harness")
CASES = [(p, arg, bad, label) for p in PROBES for arg, bad, label in HARNESS.variants(p)]


def public_callables() -> list[str]:
    """``module.name`` of every public function and class defined in lib/icml26 (papers' claims excluded)."""
    names = []
    for info in pkgutil.walk_packages(icml26.__path__, "icml26."):
        if info.name.startswith(NOT_IN_SCOPE) or (info.name.startswith("icml26.papers.")
                                                   and info.name.endswith(".claims")):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != info.name:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                names.append(f"{info.name}.{name}")
    return sorted(names)


PENDING: tuple[str, ...] = ()
"""Packages whose probe tables are not written yet (empty: every package of lib/icml26 has its table). A package
named here is left out of the coverage test, and :func:`test_pending_packages_are_really_pending` makes it leave
this list as soon as every one of its public functions is probed or exempt."""


def _pending(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in PENDING)


def _uncovered() -> list[str]:
    probed = {p.qualname for p in PROBES}
    return [n for n in public_callables() if n not in probed and n not in EXEMPT]


def test_every_public_function_is_probed_or_exempt():
    missing = [n for n in _uncovered() if not _pending(n)]
    assert not missing, (f"{len(missing)} public functions have no bad-input probe and no exemption "
                         "(add them to tests/inputs/<paper>.py):\n" + "\n".join(missing))


def test_pending_packages_are_really_pending():
    uncovered = _uncovered()
    done = [p for p in PENDING if not any(n == p or n.startswith(p + ".") for n in uncovered)]
    assert not done, f"every public function of {done} is probed or exempt: remove them from PENDING"


def test_exemptions_give_reasons_and_name_real_functions():
    known = set(public_callables())
    assert all(isinstance(v, str) and len(v) > 10 for v in EXEMPT.values())
    assert not sorted(set(EXEMPT) - known), f"exempt but not public: {sorted(set(EXEMPT) - known)}"


@pytest.mark.parametrize("probe", [p for p in PROBES if p.run_valid], ids=lambda p: f"{TABLE_OF[id(p)]}:{p.qualname}")
def test_the_valid_call_of_each_probe_works(probe):
    HARNESS.call_with_limit(probe.fn, probe.valid(), limit=60.0)


@pytest.mark.parametrize("probe,arg,bad,label", CASES,
                         ids=[f"{TABLE_OF[id(p)]}:{p.qualname}-{a}-{lab}" for p, a, _, lab in CASES])
def test_bad_input_gets_a_clear_error(probe, arg, bad, label):
    HARNESS.expect_clear_error(probe, arg, bad, label)


# ----------------------------------------------------------------------------------- property-based sweep
# Issue 82: where the fixed cases above put a NaN in the first entry and an infinity in the last, and try 0 and -1
# for a count, hypothesis draws the position of the non-finite entry anywhere in the tensor and the count from the
# whole range below 1. Every such call must still get a clear error naming the argument, before any work.

def _float_array(value) -> bool:
    if isinstance(value, torch.Tensor):
        return value.is_floating_point() and value.layout == torch.strided and value.numel() >= 2
    return isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating) and value.size >= 2


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _args(kind) -> list:
    """(probe, argument) for every argument of ``kind`` that the fixed cases probe (the probe's skips respected)."""
    return [(p, arg) for p in PROBES for arg, value in p.valid().items() if arg not in p.skip and kind(value)]


TENSOR_ARGS, COUNT_ARGS = _args(_float_array), _args(_count)
SWEEP = settings(max_examples=3, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))


def _case_id(case) -> str:
    return f"{TABLE_OF[id(case[0])]}:{case[0].qualname}-{case[1]}"


@pytest.mark.parametrize("case", TENSOR_ARGS, ids=[_case_id(c) for c in TENSOR_ARGS])
@SWEEP
@given(position=st.integers(min_value=0, max_value=2**31), bad=st.sampled_from([math.nan, math.inf]))
def test_a_non_finite_entry_anywhere_is_refused(case, position, bad):
    probe, arg = case
    value = probe.valid()[arg]
    if isinstance(value, torch.Tensor):
        value = value.detach().contiguous().clone()
        flat = value.view(-1)
    else:
        value = value.copy()
        flat = value.reshape(-1)
    at = position % flat.shape[0]
    flat[at] = bad
    HARNESS.expect_clear_error(probe, arg, value, f"{bad} at flat index {at}")


@pytest.mark.parametrize("case", COUNT_ARGS, ids=[_case_id(c) for c in COUNT_ARGS])
@SWEEP
@given(bad=st.integers(max_value=0))
def test_a_count_below_one_is_refused(case, bad):
    probe, arg = case
    HARNESS.expect_clear_error(probe, arg, bad, str(bad))
