"""Analytic test scenes where view choice matters, the candidate-pose shell and the leak-guarded view store (note §7).

Scenes are built with the shared :func:`icml26.render.make_scene` and rendered exactly by the shared ray caster.
Each scene sits in the region ``|x|, |y| <= EXTENT`` on a textured ground plane and is designed so that a spread
of views is not automatically enough (note §10): an occluder hiding an object, an open box with an object inside,
one richly textured and one plain object, and a thin plate visible from a narrow range of angles.

:class:`ViewStore` is the only way the selection code reaches images and depth maps. It renders a view on demand
and records every access; in ``strict`` mode reading a view that is not yet selected raises
:class:`InformationLeak` (note §10: candidate images must never be used before selection).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26.render import camera_centers, intrinsics, look_at, make_scene, render
from icml26.render.cameras import _as_batch

SCENES = ("occluder", "open_box", "texture_split", "thin_plate")
EXTENT = 1.2
"""Half-width (metres) of the region of interest around the origin; evaluation samples lie inside it."""
SCENE_CENTRE = (0.0, 0.0, 0.35)


def make_nbv_scene(name: str, seed: int = 0, device=None):
    """One of :data:`SCENES`, with object positions, sizes and materials jittered by ``seed``."""
    if name not in SCENES:
        raise ValueError(f"name must be one of {SCENES}, got {name!r}")
    gen = torch.Generator().manual_seed(1000 + int(seed))
    j = lambda s=0.1: float(s * (2 * torch.rand((), generator=gen) - 1))  # noqa: E731
    yaw0 = j(math.pi)
    # a finite textured ground disk (an infinite plane would fill every view to the horizon with texture that no
    # bounded reconstruction can explain)
    prims = [("cylinder", 0, (0, 0, -0.02), (1.6, 1.6, 0.02), 0.0, "checker", 0.4)]
    if name == "occluder":
        prims += [("box", 1, (0.35 + j(), j(), 0.45), (0.06, 0.55, 0.45), yaw0, "stripes", 0.15),
                  ("sphere", 2, (-0.05 + j(), j(), 0.3), (0.3, 0.3, 0.3), 0.0, "checker", 0.12),
                  ("box", 3, (-0.6 + j(), 0.5 + j(), 0.2), (0.2, 0.2, 0.2), j(1.0), "stripes", 0.1)]
    elif name == "open_box":
        c, h, t = (j(), j(), 0.3), 0.3, 0.03
        prims += [("box", 1, (c[0] + 0.5, c[1], h), (t, 0.5, h), 0.0, "stripes", 0.12),
                  ("box", 1, (c[0] - 0.5, c[1], h), (t, 0.5, h), 0.0, "stripes", 0.12),
                  ("box", 1, (c[0], c[1] + 0.5, h), (0.5, t, h), 0.0, "stripes", 0.12),
                  ("box", 1, (c[0], c[1] - 0.5, 0.6 * h), (0.5, t, 0.6 * h), 0.0, "stripes", 0.12),
                  ("sphere", 2, (c[0] + j(0.15), c[1] + j(0.15), 0.2), (0.2, 0.2, 0.2), 0.0, "checker", 0.08)]
    elif name == "texture_split":
        prims += [("box", 1, (0.4 + j(), 0.1 + j(), 0.4), (0.3, 0.3, 0.4), yaw0, "checker", 0.09),
                  ("cylinder", 2, (-0.45 + j(), -0.2 + j(), 0.35), (0.25, 0.25, 0.35), 0.0, "solid", 0.5),
                  ("sphere", 3, (-0.2 + j(), 0.55 + j(), 0.15), (0.15, 0.15, 0.15), 0.0, "stripes", 0.07)]
    else:  # thin_plate
        prims += [("box", 1, (0.2 + j(), j(), 0.45), (0.02, 0.45, 0.45), yaw0, "checker", 0.1),
                  ("cylinder", 2, (-0.5 + j(), 0.3 + j(), 0.3), (0.15, 0.15, 0.3), 0.0, "stripes", 0.1),
                  ("box", 3, (-0.3 + j(), -0.5 + j(), 0.15), (0.3, 0.12, 0.15), j(1.0), "checker", 0.12)]
    kind, oid, centre, size, yaw, pattern, scale = zip(*prims)
    return make_scene(list(kind), list(oid), center=list(centre), size=list(size), yaw=list(yaw),
                      pattern=list(pattern), pattern_scale=list(scale), generator=gen, device=device)


@dataclass(frozen=True)
class Cameras:
    """A batch of pinhole cameras sharing ``K``: world-to-camera ``rot`` ``(B, 3, 3)``, ``trans`` ``(B, 3)``."""

    K: torch.Tensor
    rot: torch.Tensor
    trans: torch.Tensor
    width: int
    height: int

    def __post_init__(self):
        rot = _as_batch(self.rot, "rot", (3, 3))
        _as_batch(self.trans, "trans", (3,))
        err = (rot @ rot.transpose(-1, -2) - torch.eye(3, dtype=rot.dtype, device=rot.device)).abs().amax()
        if float(err) > 1e-4 or bool((torch.linalg.det(rot) <= 0).any()):
            raise ValueError(f"rot must hold orthonormal rotations with det +1 (max |R R^T - I| = {float(err):.3g})")

    def __len__(self) -> int:
        return int(self.rot.shape[0])

    def __getitem__(self, idx) -> Cameras:
        idx = torch.as_tensor(idx, dtype=torch.long, device=self.rot.device).reshape(-1)
        return Cameras(self.K, self.rot[idx], self.trans[idx], self.width, self.height)

    @property
    def centers(self) -> torch.Tensor:
        return camera_centers(self.rot, self.trans)

    def scaled(self, factor: float) -> Cameras:
        """The same poses at ``factor`` times the resolution (for low-resolution score maps)."""
        w, h = max(1, round(self.width * factor)), max(1, round(self.height * factor))
        K = self.K.clone()
        K[0, 0] *= w / self.width
        K[1, 1] *= h / self.height
        K[0, 2], K[1, 2] = w / 2.0, h / 2.0
        return Cameras(K, self.rot, self.trans, w, h)


def shell_poses(n: int, gen: torch.Generator, size: int, fov_deg: float = 60.0, elevation=(10.0, 70.0),
                radius=(2.5, 4.0), jitter: float = 0.1, device=None) -> Cameras:
    """``n`` cameras on a viewing shell (note §7): azimuth uniform, elevation and radius uniform in their
    ranges, each looking at the scene centre plus a small Gaussian jitter."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    if not 0 <= elevation[0] < elevation[1] < 90:
        raise ValueError(f"elevation must be (low, high) degrees with 0 <= low < high < 90, got {elevation}")
    u = torch.rand(n, 3, generator=gen, dtype=torch.float64)
    az = 2 * math.pi * (torch.arange(n, dtype=torch.float64) + u[:, 0]) / n
    az = az[torch.randperm(n, generator=gen)]
    el = torch.deg2rad(elevation[0] + (elevation[1] - elevation[0]) * u[:, 1])
    rad = radius[0] + (radius[1] - radius[0]) * u[:, 2]
    target = torch.tensor(SCENE_CENTRE, dtype=torch.float64) + jitter * torch.randn(n, 3, generator=gen,
                                                                                    dtype=torch.float64)
    eye = target + rad[:, None] * torch.stack([el.cos() * az.cos(), el.cos() * az.sin(), el.sin()], -1)
    rot, trans = look_at(eye, target)
    K = intrinsics(size, size, fov_deg, dtype=torch.float32, device=device)
    return Cameras(K, rot.to(device=device, dtype=torch.float32), trans.to(device=device, dtype=torch.float32),
                   size, size)


class InformationLeak(RuntimeError):
    """A selector read the image or depth of a view that had not been selected yet."""


class ViewStore:
    """Candidate views of a scene; images and depth exist for a view only once it is selected.

    ``select(i)`` acquires view ``i``; ``image(i)`` / ``depth(i)`` render (and cache) it and append
    ``(kind, i, was_selected)`` to ``access_log``. With ``strict=True`` an access to an unselected view raises
    :class:`InformationLeak`; ``leaks()`` lists such accesses either way (the note's §10 assertion hook).
    """

    def __init__(self, scene, cams: Cameras, supersample: int = 2, strict: bool = True):
        if scene.num_primitives == 0:
            raise ValueError("scene must hold at least one primitive (got an empty scene)")
        self.scene, self.cams, self.supersample, self.strict = scene, cams, supersample, strict
        self.selected: list[int] = []
        self.access_log: list[tuple[str, int, bool]] = []
        self._cache: dict[int, dict] = {}

    def __len__(self) -> int:
        return len(self.cams)

    def select(self, idx: int) -> None:
        idx = int(idx)
        if not 0 <= idx < len(self.cams):
            raise ValueError(f"idx must lie in [0, {len(self.cams)}), got {idx}")
        if idx not in self.selected:
            self.selected.append(idx)

    def _get(self, kind: str, idx: int) -> torch.Tensor:
        idx = int(idx)
        ok = idx in self.selected
        self.access_log.append((kind, idx, ok))
        if not ok and self.strict:
            raise InformationLeak(f"the {kind} of view {idx} was read before the view was selected")
        if idx not in self._cache:
            c = self.cams[idx]
            self._cache[idx] = render(self.scene, c.K, c.rot, c.trans, c.width, c.height, supersample=self.supersample)
        return self._cache[idx][kind][0]

    def image(self, idx: int) -> torch.Tensor:
        """``(H, W, 3)`` image of a selected view."""
        return self._get("rgb", idx)

    def depth(self, idx: int) -> torch.Tensor:
        """``(H, W)`` z-depth of a selected view (what a pointmap network would predict for it)."""
        return self._get("depth", idx)

    def leaks(self) -> list[tuple[str, int]]:
        return [(k, i) for k, i, ok in self.access_log if not ok]


def render_views(scene, cams: Cameras, supersample: int = 2) -> dict:
    """Ground-truth renders for evaluation only (held-out views, coverage samples); never used by selectors."""
    return render(scene, cams.K, cams.rot, cams.trans, cams.width, cams.height, supersample=supersample)
