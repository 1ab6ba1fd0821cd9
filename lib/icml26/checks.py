"""Input validation at the boundary of public functions: one place, one style of message.

Each helper checks one argument and raises ``ValueError`` (or ``TypeError`` for a value of the wrong
type) whose message names the argument and says what was expected, e.g.::

    steps must be a positive integer; got 0
    x must hold only finite numbers; got 3 NaN and 0 infinite entries (shape (4, 5))

Validate once where a value enters (a public function, a config), then trust it inside hot loops.
Every helper returns the value it checked, so ``n = checks.positive_int("n", n)`` reads naturally.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import torch


def _named(name) -> str:
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be the non-empty name of the argument being checked; got {name!r}")
    return name


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def integer(name: str, value) -> int:
    """An integer of any sign (not a bool, not a float): indices, offsets."""
    _named(name)
    if not _is_int(value):
        raise ValueError(f"{name} must be an integer; got {value!r}")
    return int(value)


def instance(name: str, value, cls: type | tuple[type, ...]):
    """An instance of ``cls`` (a class or a tuple of classes); ``TypeError`` naming the argument otherwise."""
    _named(name)
    if not isinstance(value, cls):
        want = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise TypeError(f"{name} must be a {want}; got {type(value).__name__}")
    return value


def generator(name: str, value, optional: bool = True) -> torch.Generator | None:
    """A ``torch.Generator`` (or ``None`` where ``optional``): the random stream a sampler draws from."""
    _named(name)
    if value is None and optional:
        return None
    if not isinstance(value, torch.Generator):
        want = "a torch.Generator or None" if optional else "a torch.Generator"
        raise TypeError(f"{name} must be {want}; got {type(value).__name__}")
    return value


def positive_int(name: str, value) -> int:
    """An integer >= 1 (sizes, counts, steps)."""
    _named(name)
    if not _is_int(value) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def int_at_least(name: str, value, low: int = 1) -> int:
    """An integer >= ``low`` (a size with a floor: ``n_nodes >= 16``, ``H >= 2``)."""
    _named(name)
    if not _is_int(value) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def int_between(name: str, value, low: int, high: int, what: str = "") -> int:
    """An integer in ``[low, high]``, both ends included (an index into a sequence of length n is
    ``int_between(name, i, 0, n - 1)``); ``what`` names the bound in the message (``"pool size"``)."""
    _named(name)
    if not _is_int(value) or not low <= value <= high:
        bound = f"{what} {high}" if what else f"{high}"
        raise ValueError(f"{name} must be an integer in [{low}, {bound}]; got {value!r}")
    return int(value)


def nonnegative_int(name: str, value) -> int:
    """An integer >= 0 (offsets, optional counts, seeds)."""
    _named(name)
    if not _is_int(value) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {value!r}")
    return int(value)


def seed(name: str, value) -> int:
    """A seed: a non-negative integer (not a bool, not a float)."""
    return nonnegative_int(name, value)


def finite_number(name: str, value) -> float:
    """A real number that is neither NaN nor infinite."""
    _named(name)
    if not _is_real(value) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    return float(value)


def positive_number(name: str, value) -> float:
    """A finite real number > 0 (rates, scales, tolerances)."""
    _named(name)
    if not _is_real(value) or not math.isfinite(float(value)) or value <= 0:
        raise ValueError(f"{name} must be a finite positive number; got {value!r}")
    return float(value)


def nonnegative_number(name: str, value) -> float:
    """A finite real number >= 0 (weights, noise levels)."""
    _named(name)
    if not _is_real(value) or not math.isfinite(float(value)) or value < 0:
        raise ValueError(f"{name} must be a finite non-negative number; got {value!r}")
    return float(value)


def in_range(name: str, value, low: float, high: float, low_open: bool = False, high_open: bool = False) -> float:
    """A finite number within ``[low, high]`` (an end is excluded when ``*_open``)."""
    _named(name)
    low, high = finite_number("low", low), finite_number("high", high)
    if high < low:
        raise ValueError(f"high must be >= low; got low={low:g}, high={high:g}")
    value = finite_number(name, value)
    below = value <= low if low_open else value < low
    above = value >= high if high_open else value > high
    if below or above:
        lo, hi = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}{low:g}, {high:g}{hi}; got {value!r}")
    return value


def probability(name: str, value) -> float:
    """A number in [0, 1]."""
    return in_range(name, value, 0.0, 1.0)


def one_of(name: str, value, choices: Iterable) -> object:
    """One of ``choices`` (compared with ``==``)."""
    _named(name)
    choices = list(choices)
    if not choices:
        raise ValueError("choices must name at least one allowed value")
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def device(name: str, value) -> torch.device:
    """A ``torch.device`` or a device string that names an available device."""
    _named(name)
    from icml26.runtime import choose_device

    if isinstance(value, torch.device):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a torch.device or a device string such as 'cpu'; got {value!r}")
    try:
        return choose_device(value)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _all_finite(value: torch.Tensor) -> bool:
    """Whether every entry is finite, from one min/max pass (NaN propagates to both, ±inf to one): no boolean copy
    of the tensor, 23x faster than ``isfinite(value).all()`` on a 15M-entry float32 tensor on 2 CPU cores."""
    if value.numel() == 0:
        return True
    if value.is_complex():
        value = torch.view_as_real(value)
    lo, hi = torch.aminmax(value.detach())
    return bool(torch.isfinite(lo) & torch.isfinite(hi))


def tensor(name: str, value, ndim: int | Sequence[int] | None = None, shape: Sequence[int | None] | None = None,
           finite: bool = True, nonempty: bool = True, dtype_kind: str | None = None) -> torch.Tensor:
    """A torch tensor with the given number of dimensions or shape (``None`` entries are free),
    finite entries, at least one element, and optionally a dtype kind (``"float"``, ``"int"``, ``"bool"``)."""
    _named(name)
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor; got {type(value).__name__}")
    if dtype_kind is not None and dtype_kind not in DTYPE_KINDS:
        raise ValueError(f"dtype_kind must be one of {', '.join(DTYPE_KINDS)}; got {dtype_kind!r}")
    _check_array(name, value, tuple(value.shape), ndim, shape, nonempty)
    if dtype_kind is not None:
        kind = "float" if value.is_floating_point() else "bool" if value.dtype == torch.bool else \
            "complex" if value.is_complex() else "int"
        if kind != dtype_kind:
            raise ValueError(f"{name} must hold {dtype_kind} values; got dtype {value.dtype}")
    if finite and (value.is_floating_point() or value.is_complex()) and not _all_finite(value):
        bad = ~torch.isfinite(value)
        if bool(bad.any()):
            n_nan = int(torch.isnan(value).sum())
            raise ValueError(f"{name} must hold only finite numbers; got {n_nan} NaN and "
                             f"{int(bad.sum()) - n_nan} infinite entries (shape {_shape_text(value.shape)})")
    return value


def array(name: str, value, ndim: int | Sequence[int] | None = None, shape: Sequence[int | None] | None = None,
          finite: bool = True, nonempty: bool = True) -> np.ndarray:
    """A NumPy array (anything ``np.asarray`` accepts) checked like :func:`tensor`; returns the array."""
    _named(name)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be array-like; got {type(value).__name__} ({exc})") from None
    if arr.dtype == object:
        raise TypeError(f"{name} must be a numeric array; got objects of type {type(value).__name__}")
    _check_array(name, arr, arr.shape, ndim, shape, nonempty)
    if finite and np.issubdtype(arr.dtype, np.inexact):
        bad = ~np.isfinite(arr)
        if bad.any():
            n_nan = int(np.isnan(arr).sum())
            raise ValueError(f"{name} must hold only finite numbers; got {n_nan} NaN and "
                             f"{int(bad.sum()) - n_nan} infinite entries (shape {_shape_text(arr.shape)})")
    return arr


DTYPE_KINDS = ("float", "int", "bool", "complex")


def _check_array(name, value, shape, ndim, want, nonempty) -> None:
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if not all(_is_int(a) and a >= 0 for a in allowed):
            raise ValueError(f"ndim must be a non-negative integer or a sequence of them; got {ndim!r}")
        if len(shape) not in allowed:
            text = " or ".join(map(str, allowed))
            raise ValueError(f"{name} must have {text} dimension(s); got shape {_shape_text(shape)}")
    if want is not None:
        if len(shape) != len(want) or any(w is not None and w != s for w, s in zip(want, shape)):
            expected = _shape_text(["*" if w is None else w for w in want])
            raise ValueError(f"{name} must have shape {expected}; got {_shape_text(shape)}")
    if nonempty and int(np.prod(shape)) == 0:
        raise ValueError(f"{name} must not be empty; got shape {_shape_text(shape)}")


def probability_vector(name: str, value, dim: int = -1, atol: float = 1e-6) -> torch.Tensor:
    """A tensor of non-negative entries summing to one along ``dim`` (within ``atol``)."""
    _named(name)
    value = tensor(name, torch.as_tensor(value) if not isinstance(value, torch.Tensor) else value)
    if not value.is_floating_point():
        value = value.double()
    if bool((value < 0).any()):
        raise ValueError(f"{name} must be non-negative (a probability vector); got a minimum of {value.min().item():g}")
    total = value.sum(dim)
    if not bool(torch.allclose(total, torch.ones_like(total), atol=atol, rtol=0)):
        worst = (total - 1).abs().max().item()
        raise ValueError(f"{name} must sum to 1 along dim {dim}; off by up to {worst:.3g}")
    return value


def same_length(names: Sequence[str], values: Sequence[Sequence]) -> int:
    """Several sequences of one length; returns it."""
    lengths = [len(v) for v in values]
    if len(set(lengths)) > 1:
        pairs = ", ".join(f"{n} has {n_}" for n, n_ in zip(names, lengths))
        raise ValueError(f"{' and '.join(names)} must have the same length; {pairs}")
    return lengths[0] if lengths else 0


def config(name: str, value, required: Iterable[str] = (), allowed: Iterable[str] | None = None) -> Mapping:
    """A mapping with every ``required`` key and (when ``allowed`` is given) no unknown key."""
    _named(name)
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping of settings; got {type(value).__name__}")
    missing = [k for k in required if k not in value]
    if missing:
        raise ValueError(f"{name} lacks the key(s) {', '.join(map(repr, missing))}")
    if allowed is not None:
        unknown = sorted(set(value) - set(allowed) - set(required))
        if unknown:
            raise ValueError(f"{name} has unknown key(s) {', '.join(map(repr, unknown))}; "
                             f"allowed: {', '.join(sorted(set(allowed) | set(required)))}")
    return value


def config_like(name: str, value, examples: Iterable[Mapping], maps: Iterable[str] = (),
                optional: Iterable[str] = ()) -> Mapping:
    """A config shaped like the paper's own ``CONFIGS``: every key that all ``examples`` (the scales' configs)
    share is required, a key that none has is unknown, and a sub-mapping is checked the same way against the
    examples' sub-mappings of that key (a scale that switches a part off says so with ``None``, so a part left
    out is an error before any work, never a stage silently skipped). ``maps`` names keys whose values are free
    maps (method -> settings, keys a user chooses): those are not checked key by key; ``optional`` names top-level
    keys that may be left out (a section the config itself does not select)."""
    _named(name)
    examples = [e for e in examples if isinstance(e, Mapping)]
    if not examples:
        raise ValueError("examples must hold at least one example config (a mapping)")
    shared = set.intersection(*(set(e) for e in examples)) - set(optional)
    every = set.union(*(set(e) for e in examples))
    config(name, value, required=sorted(shared), allowed=sorted(every))
    maps = set(maps)
    for key, sub in value.items():
        subs = [e[key] for e in examples if isinstance(e.get(key), Mapping)]  # a scale may switch a part off: None
        if subs and isinstance(sub, Mapping) and key not in maps:
            config_like(f"{name}[{key!r}]", sub, subs)
    return value


def path(name: str, value, must_exist: bool = False, kind: str | None = None):
    """A ``str`` or ``os.PathLike`` path, optionally one that exists (``kind``: ``"file"`` or ``"dir"``)."""
    import os
    from pathlib import Path

    _named(name)
    if kind not in (None, "file", "dir"):
        raise ValueError(f"kind must be None, 'file' or 'dir'; got {kind!r}")
    if isinstance(value, bool) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike); got {type(value).__name__}")
    value = Path(value)
    if must_exist or kind is not None:
        if not value.exists():
            raise ValueError(f"{name} must be an existing {kind or 'path'}; {value} does not exist")
        if kind == "file" and not value.is_file():
            raise ValueError(f"{name} must be a file; {value} is not")
        if kind == "dir" and not value.is_dir():
            raise ValueError(f"{name} must be a folder; {value} is not")
    return value


def mapping_items(name: str, value, keys: Iterable[str] = ()) -> list:
    """A list (or other sequence, not a string) of mappings, each with ``keys``; returns it as a list."""
    _named(name)
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of mappings; got {type(value).__name__}")
    if isinstance(keys, (str, bytes)) or not isinstance(keys, Iterable):
        raise TypeError(f"keys must be a sequence of key names (not a single string); got {keys!r}")
    items = list(value)
    keys = tuple(keys)
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or any(k not in item for k in keys):
            raise ValueError(f"{name}[{i}] must be a mapping with the keys {', '.join(keys)}; got {item!r:.80}")
    return items


class IterationCapReached(RuntimeWarning):
    """A loop that waits for a tolerance stopped at its iteration cap without reaching it."""


def reachable_tolerance(name: str, tol: float, dtype: torch.dtype, factor: float = 10.0) -> float:
    """A tolerance the dtype can resolve: at least ``factor`` times its machine epsilon.

    A float32 solve asked for 1e-12 would spin until its iteration cap; this says so at once.
    """
    _named(name)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype; got {dtype!r}")
    factor = positive_number("factor", factor)
    tol = positive_number(name, tol)
    eps = torch.finfo(dtype).eps
    if tol < factor * eps:
        raise ValueError(f"{name}={tol:g} cannot be reached in {dtype} (machine epsilon {eps:.2g}); "
                         f"use a tolerance >= {factor * eps:.2g} or float64 inputs")
    return tol
