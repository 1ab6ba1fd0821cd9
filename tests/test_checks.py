"""The validators: each accepts what it should, and names the argument and the expectation otherwise."""

import math

import numpy as np
import pytest
import torch

from icml26 import checks


@pytest.mark.parametrize("fn,good,bad", [
    (checks.positive_int, [1, np.int64(3)], [0, -1, 1.5, True, "2", None]),
    (checks.nonnegative_int, [0, 5], [-1, 0.5, False]),
    (checks.seed, [0, 123], [-1, 1.0, True]),
    (checks.finite_number, [0, -2.5, np.float32(1)], [math.nan, math.inf, "1", None, True]),
    (checks.positive_number, [1e-9, 3], [0, -1, math.nan, math.inf]),
    (checks.nonnegative_number, [0.0, 2], [-1e-9, math.nan]),
    (checks.probability, [0, 0.5, 1], [-0.1, 1.1, math.nan]),
    (checks.integer, [-3, 0, np.int32(7)], [1.0, True, "1", None]),
])
def test_scalar_validators(fn, good, bad):
    for v in good:
        fn("arg", v)
    for v in bad:
        with pytest.raises(ValueError, match=r"^arg must"):
            fn("arg", v)


def test_instance_names_the_argument_and_the_classes():
    assert checks.instance("cfg", {}, dict) == {}
    assert checks.instance("x", 3, (int, float)) == 3
    with pytest.raises(TypeError, match=r"cfg must be a dict; got list"):
        checks.instance("cfg", [], dict)
    with pytest.raises(TypeError, match=r"x must be a int or float; got str"):
        checks.instance("x", "3", (int, float))


def test_int_between_includes_both_ends_and_names_the_bound():
    assert checks.int_between("k", 1, 1, 5) == 1 and checks.int_between("k", np.int64(5), 1, 5) == 5
    for bad in (0, 6, 2.0, True, None, "3"):
        with pytest.raises(ValueError, match=r"k must be an integer in \[1, 5\]"):
            checks.int_between("k", bad, 1, 5)
    with pytest.raises(ValueError, match=r"in \[1, pool size 4\]; got 9"):
        checks.int_between("k", 9, 1, 4, what="pool size")


def test_int_at_least_names_the_floor():
    assert checks.int_at_least("n", 16, 16) == 16
    assert checks.int_at_least("n", np.int64(3)) == 3
    with pytest.raises(ValueError, match=r"n must be an integer >= 16; got 15"):
        checks.int_at_least("n", 15, 16)
    for bad in (True, 2.0, "3"):
        with pytest.raises(ValueError, match=r"n must be an integer >= 1"):
            checks.int_at_least("n", bad)


def test_generator_takes_a_torch_generator_or_none_where_optional():
    g = torch.Generator().manual_seed(0)
    assert checks.generator("g", g) is g
    assert checks.generator("g", None) is None
    with pytest.raises(TypeError, match=r"g must be a torch.Generator or None; got int"):
        checks.generator("g", 0)
    with pytest.raises(TypeError, match=r"g must be a torch.Generator; got NoneType"):
        checks.generator("g", None, optional=False)
    with pytest.raises(TypeError, match=r"g must be a torch.Generator or None; got Generator"):
        checks.generator("g", np.random.default_rng(0))


def test_in_range_with_open_ends_and_bounds_checked():
    assert checks.in_range("p", 0.5, 0, 1, low_open=True) == 0.5
    with pytest.raises(ValueError, match=r"p must lie in \(0, 1\]"):
        checks.in_range("p", 0.0, 0, 1, low_open=True)
    with pytest.raises(ValueError, match="high must be >= low"):
        checks.in_range("p", 0.5, 1, 0)


def test_tensor_and_array_shapes_finiteness_and_emptiness():
    x = torch.ones(3, 4)
    assert checks.tensor("x", x, ndim=2, shape=(None, 4)) is x
    for bad, match in [(torch.ones(3), "2 dimension"), (torch.ones(3, 5), r"shape \(\*, 4\)"),
                       (torch.ones(0, 4), "not be empty"), (torch.tensor([[1.0, math.nan, 0, 0]] * 3), "3 NaN")]:
        with pytest.raises(ValueError, match=match):
            checks.tensor("x", bad, ndim=2, shape=(None, 4))
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        checks.tensor("x", [1.0])
    with pytest.raises(ValueError, match="hold int"):
        checks.tensor("x", x, dtype_kind="int")
    assert checks.array("a", [1.0, 2.0], ndim=1).shape == (2,)
    with pytest.raises(ValueError, match="1 infinite"):
        checks.array("a", [1.0, math.inf])
    with pytest.raises(TypeError, match="numeric"):
        checks.array("a", [object()])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_tensor_finiteness_scan_finds_every_kind_of_bad_entry(dtype, bad):
    """The fast min/max scan must see a lone NaN, +inf or -inf anywhere, in every float kind (and complex parts)."""
    checks.tensor("x", torch.zeros(2, 3, dtype=dtype))
    checks.tensor("x", torch.zeros(0, dtype=dtype), nonempty=False)
    for where in [(0, 0), (1, 2)]:
        x = torch.zeros(2, 3, dtype=dtype)
        x[where] = bad if not dtype.is_complex else complex(0.0, bad)
        kind = "1 NaN" if math.isnan(bad) else "1 infinite"
        with pytest.raises(ValueError, match=kind):
            checks.tensor("x", x)


def test_probability_vector_and_choices_and_lengths():
    checks.probability_vector("p", torch.tensor([0.25, 0.75]))
    with pytest.raises(ValueError, match="sum to 1"):
        checks.probability_vector("p", torch.tensor([0.5, 0.6]))
    with pytest.raises(ValueError, match="non-negative"):
        checks.probability_vector("p", torch.tensor([-0.5, 1.5]))
    assert checks.one_of("mode", "a", ["a", "b"]) == "a"
    with pytest.raises(ValueError, match="mode must be one of 'a', 'b'"):
        checks.one_of("mode", "c", ["a", "b"])
    assert checks.same_length(["x", "y"], [[1, 2], [3, 4]]) == 2
    with pytest.raises(ValueError, match="x has 2, y has 1"):
        checks.same_length(["x", "y"], [[1, 2], [3]])


def test_config_device_path_and_tolerance(tmp_path):
    checks.config("cfg", {"a": 1}, required=["a"], allowed=["a", "b"])
    with pytest.raises(ValueError, match="lacks the key"):
        checks.config("cfg", {}, required=["a"])
    with pytest.raises(ValueError, match="unknown key"):
        checks.config("cfg", {"a": 1, "z": 2}, required=["a"], allowed=["b"])
    assert checks.device("device", "cpu").type == "cpu"
    with pytest.raises(ValueError, match="device"):
        checks.device("device", "gpu")
    with pytest.raises(ValueError, match="must be an existing file"):
        checks.path("p", tmp_path / "none", kind="file")
    with pytest.raises(ValueError, match="cannot be reached in torch.float32"):
        checks.reachable_tolerance("tol", 1e-12, torch.float32)
    assert checks.reachable_tolerance("tol", 1e-12, torch.float64) == 1e-12
    with pytest.raises(ValueError, match=r"rows\[1\] must be a mapping"):
        checks.mapping_items("rows", [{"a": 1}, 3], ["a"])


def test_config_like_requires_the_keys_every_scale_shares_and_knows_the_rest():
    quick = {"steps": 1, "pfn": {"width": 4, "depth": 1}}
    full = {"steps": 9, "pfn": {"width": 8, "depth": 2, "heads": 2}, "extra": 1}
    assert checks.config_like("config", {"steps": 2, "pfn": {"width": 2, "depth": 1}}, [quick, full])
    assert checks.config_like("config", {**full}, [quick, full])  # a key only some scales have is allowed
    with pytest.raises(ValueError, match="config lacks the key.*'steps'"):
        checks.config_like("config", {"pfn": quick["pfn"]}, [quick, full])
    with pytest.raises(ValueError, match=r"config\['pfn'\] lacks the key.*'depth'"):
        checks.config_like("config", {"steps": 1, "pfn": {"width": 2}}, [quick, full])
    with pytest.raises(ValueError, match="config has unknown key.*'stepz'"):
        checks.config_like("config", {**quick, "stepz": 3}, [quick, full])
    with pytest.raises(ValueError, match="examples must hold at least one"):
        checks.config_like("config", quick, [])
