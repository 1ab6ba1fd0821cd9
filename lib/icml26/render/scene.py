"""Analytic scenes: planes, yaw-rotated boxes, spheres and vertical cylinders with procedural materials.

A :class:`Scene` is a struct of tensors with one row per primitive, so a ray caster can test every ray against
every primitive with tensor ops. Each primitive carries an integer object id (several primitives may share
one, e.g. a table top and its legs) and a material evaluated in the primitive's *local* frame, so an object
keeps its texture when it is moved or turned.

Geometry per kind (``center`` ``(P, 3)``, ``size`` ``(P, 3)``, ``yaw`` ``(P,)`` about ``+z``):

* ``PLANE``: the infinite plane through ``center`` with unit normal ``normal``;
* ``BOX``: half-extents ``size`` in the local frame;
* ``SPHERE``: radius ``size[0]``;
* ``CYLINDER``: a vertical cylinder of radius ``size[0]`` and half-height ``size[2]``.

Materials: base colour ``color_a``, second colour ``color_b``, ``pattern`` (``SOLID``, ``CHECKER``, ``STRIPES``)
with period ``pattern_scale`` (metres), and a low-frequency "value noise" made of three random plane waves,
``1 + noise_amp * mean_k sin(freq_k . x + phase_k)``, that multiplies the albedo.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import torch

from icml26 import checks

PLANE, BOX, SPHERE, CYLINDER = 0, 1, 2, 3
SOLID, CHECKER, STRIPES = 0, 1, 2
KINDS = {"plane": PLANE, "box": BOX, "sphere": SPHERE, "cylinder": CYLINDER}
PATTERNS = {"solid": SOLID, "checker": CHECKER, "stripes": STRIPES}


@dataclass(frozen=True)
class Scene:
    """Primitives of a scene as aligned tensors (see the module docstring for the meaning of each field)."""

    kind: torch.Tensor           # (P,) long
    object_id: torch.Tensor      # (P,) long, >= 0
    center: torch.Tensor         # (P, 3)
    size: torch.Tensor           # (P, 3)
    yaw: torch.Tensor            # (P,)
    normal: torch.Tensor         # (P, 3), used by planes only
    color_a: torch.Tensor        # (P, 3) in [0, 1]
    color_b: torch.Tensor        # (P, 3) in [0, 1]
    pattern: torch.Tensor        # (P,) long
    pattern_scale: torch.Tensor  # (P,)
    noise_freq: torch.Tensor     # (P, 3, 3): three wave vectors per primitive
    noise_phase: torch.Tensor    # (P, 3)
    noise_amp: torch.Tensor      # (P,)

    def __post_init__(self):
        p = self.kind.shape[0] if isinstance(self.kind, torch.Tensor) and self.kind.dim() == 1 else None
        if p is None:
            raise ValueError("kind must be a 1-D tensor of primitive kinds")
        shapes = {"object_id": (p,), "center": (p, 3), "size": (p, 3), "yaw": (p,), "normal": (p, 3),
                  "color_a": (p, 3), "color_b": (p, 3), "pattern": (p,), "pattern_scale": (p,),
                  "noise_freq": (p, 3, 3), "noise_phase": (p, 3), "noise_amp": (p,)}
        for name, shape in shapes.items():
            value = getattr(self, name)
            if not isinstance(value, torch.Tensor) or tuple(value.shape) != shape:
                raise ValueError(f"{name} must be a tensor of shape {shape}, got {getattr(value, 'shape', value)}")
            if value.is_floating_point() and not bool(torch.isfinite(value).all()):
                raise ValueError(f"{name} must hold only finite numbers")
        if p and not bool(((self.kind >= PLANE) & (self.kind <= CYLINDER)).all()):
            raise ValueError("kind must hold PLANE, BOX, SPHERE or CYLINDER codes (0..3)")
        if p and bool((self.object_id < 0).any()):
            raise ValueError("object_id must be >= 0")
        solid = self.kind != PLANE
        if p and bool((self.size[solid][:, 0] <= 0).any()):
            raise ValueError("size must be positive for boxes, spheres and cylinders")
        if p and bool((self.pattern_scale <= 0).any()):
            raise ValueError("pattern_scale must be positive")

    @property
    def num_primitives(self) -> int:
        return int(self.kind.shape[0])

    def to(self, device=None, dtype=None) -> Scene:
        """The same scene on ``device``; float fields cast to ``dtype`` when given."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.to(device=device, dtype=dtype if value.is_floating_point() and dtype else None)
        return Scene(**out)

    def select(self, keep: torch.Tensor) -> Scene:
        """The scene restricted to the primitives where the bool mask (or index tensor) ``keep`` selects."""
        return Scene(**{f.name: getattr(self, f.name)[keep] for f in fields(self)})

    def cat(self, other: Scene) -> Scene:
        """This scene's primitives followed by ``other``'s."""
        return Scene(**{f.name: torch.cat([getattr(self, f.name), getattr(other, f.name).to(getattr(self, f.name))])
                        for f in fields(self)})

    def replace(self, rows: torch.Tensor, **updates: torch.Tensor) -> Scene:
        """A copy with fields updated at primitive indices ``rows`` (e.g. ``center=new_centres`` to move objects)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in updates:
                value = value.clone()
                value[rows] = updates[f.name].to(value)
            out[f.name] = value
        return Scene(**out)


def make_scene(kind, object_id, center, size, *, yaw=None, normal=None, color_a=None, color_b=None,
               pattern=None, pattern_scale=None, noise_amp=None, generator: torch.Generator | None = None,
               device=None, dtype=torch.float32) -> Scene:
    """Build a :class:`Scene`; ``kind`` and ``pattern`` accept names (``"box"``, ``"checker"``) or codes.

    Unspecified materials are drawn at random from ``generator`` (colours, pattern, period 0.2 to 0.8 m,
    wave vectors of length 1 to 4 per metre, noise amplitude 0.15); ``yaw`` defaults to 0 and ``normal`` to ``+z``.
    """
    def codes(values, table, name):
        bad = [v for v in values if isinstance(v, str) and v not in table]
        if bad:
            raise ValueError(f"{name} must be one of {sorted(table)}, got {bad}")
        out = [table[v] if isinstance(v, str) else int(v) for v in values]
        return torch.tensor(out, dtype=torch.long, device=device)

    if device is not None:
        device = checks.device("device", device)
    if isinstance(kind, (str, bytes)) or not hasattr(kind, "__iter__"):
        raise TypeError(f"kind must be a sequence of kind names or codes; got {kind!r}")
    kind_t = codes(list(kind), KINDS, "kind")
    p = kind_t.shape[0]
    gen = generator if generator is not None else torch.Generator().manual_seed(0)

    def f(x, shape, default, name):
        if x is None:
            if default is None:
                raise ValueError(f"{name} is required, shape {shape}")
            return default
        t = torch.as_tensor(x, dtype=dtype).to(device)
        if tuple(t.shape) != shape:
            raise ValueError(f"{name} must have shape {shape}, got {tuple(t.shape)}")
        return t

    def rand(*shape):
        return torch.rand(*shape, generator=gen).to(device=device, dtype=dtype)

    pattern_t = (codes(list(pattern), PATTERNS, "pattern") if pattern is not None
                 else torch.randint(0, 3, (p,), generator=gen).to(device))
    directions = torch.randn(p, 3, 3, generator=gen)
    directions = directions / directions.norm(dim=-1, keepdim=True)
    lengths = 1.0 + 3.0 * torch.rand(p, 3, 1, generator=gen)
    up = torch.tensor([0.0, 0.0, 1.0], device=device, dtype=dtype).expand(p, 3).clone()
    return Scene(
        kind=kind_t,
        object_id=torch.as_tensor(object_id, dtype=torch.long).to(device),
        center=f(center, (p, 3), None, "center"),
        size=f(size, (p, 3), None, "size"),
        yaw=f(yaw, (p,), torch.zeros(p, device=device, dtype=dtype), "yaw"),
        normal=torch.nn.functional.normalize(f(normal, (p, 3), up, "normal"), dim=-1),
        color_a=f(color_a, (p, 3), 0.15 + 0.8 * rand(p, 3), "color_a"),
        color_b=f(color_b, (p, 3), 0.15 + 0.8 * rand(p, 3), "color_b"),
        pattern=pattern_t,
        pattern_scale=f(pattern_scale, (p,), 0.2 + 0.6 * rand(p), "pattern_scale"),
        noise_freq=(directions * lengths).to(device=device, dtype=dtype),
        noise_phase=(6.283185307179586 * rand(p, 3)),
        noise_amp=f(noise_amp, (p,), torch.full((p,), 0.15, device=device, dtype=dtype), "noise_amp"),
    )
