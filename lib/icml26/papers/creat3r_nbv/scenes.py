"""Analytic test scenes where the choice of view matters, the candidate-pose shell and the leak-guarded view store.

Scenes are built with the shared :func:`icml26.render.make_scene` and rendered exactly by the shared ray caster.
Each sits in the region ``|x|, |y| <= EXTENT`` on a textured ground disk, and every one hides part of itself from
most viewpoints (docs/papers/creat3r_nbv.md, "Test scenes"), so that a spread of views is not automatically enough:

* ``occluder``: a tall wall with a sphere and a box behind it (self-occlusion);
* ``courtyard``: a walled square room with one doorway and two objects inside (a concave room: the inside is seen
  only from high up or through the door);
* ``alcove``: a U-shaped niche, open on one side, with an object in its pocket (a concave object);
* ``colonnade``: a ring of pillars around a central object (many mutual occlusions).

The whole layout is turned by a random yaw and every position jittered by ``seed``, so the good side of a scene is
never the same. Materials are checkers and stripes with a strong low-frequency value noise (textured enough for
patch matching, not perfectly periodic).

:class:`ViewStore` is the only way the selection code reaches images and depth maps. It renders a view on demand
and records every access; in ``strict`` mode reading a view that is not yet selected raises
:class:`InformationLeak` (candidate images must never be used before selection; a reviewer's point, paper §3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.render import camera_centers, intrinsics, look_at, make_scene, render

SCENES = ("occluder", "courtyard", "alcove", "colonnade")
EXTENT = 1.2
"""Half-width (metres) of the region of interest around the origin; evaluation samples lie inside it."""
HEIGHT = 1.2
"""Top (metres) of the scene's bounding box ``[-EXTENT, EXTENT]^2 x [0, HEIGHT]``, known to every selector."""
SCENE_CENTRE = (0.0, 0.0, 0.35)


def _layout(name: str, j) -> list[tuple]:
    """Primitives ``(kind, object id, centre, half-size, yaw, pattern, cell size)`` of one scene before turning."""
    if name == "occluder":
        return [("box", 1, (0.35 + j(), j(), 0.5), (0.05, 0.6 + j(), 0.5), j(0.3), "stripes", 0.16),
                ("sphere", 2, (-0.2 + j(), j(), 0.3), (0.3, 0.3, 0.3), 0.0, "checker", 0.14),
                ("box", 3, (-0.55 + j(), 0.55 + j(), 0.2), (0.2, 0.2, 0.2), j(1.0), "stripes", 0.12)]
    if name == "courtyard":
        c, h, t, s = (j(), j()), 0.35 + j(0.05), 0.04, 0.6
        door = 0.18 + j(0.04)
        seg = (s - door) / 2
        return [("box", 1, (c[0] + s, c[1], h), (t, s, h), 0.0, "stripes", 0.15),
                ("box", 1, (c[0] - s, c[1], h), (t, s, h), 0.0, "checker", 0.15),
                ("box", 1, (c[0], c[1] + s, h), (s, t, h), 0.0, "stripes", 0.15),
                ("box", 1, (c[0] - door - seg, c[1] - s, h), (seg, t, h), 0.0, "checker", 0.15),
                ("box", 1, (c[0] + door + seg, c[1] - s, h), (seg, t, h), 0.0, "checker", 0.15),
                ("sphere", 2, (c[0] + 0.2 + j(), c[1] + 0.15 + j(), 0.2), (0.2, 0.2, 0.2), 0.0, "checker", 0.12),
                ("cylinder", 3, (c[0] - 0.25 + j(), c[1] - 0.2 + j(), 0.25), (0.14, 0.14, 0.25), 0.0, "stripes",
                 0.12)]
    if name == "alcove":
        c, h, t = (0.1 + j(), j()), 0.45, 0.04
        return [("box", 1, (c[0] - 0.4, c[1], h), (t, 0.45, h), 0.0, "stripes", 0.15),
                ("box", 1, (c[0], c[1] + 0.45, h), (0.4, t, h), 0.0, "checker", 0.15),
                ("box", 1, (c[0], c[1] - 0.45, h), (0.4, t, h), 0.0, "checker", 0.15),
                ("sphere", 2, (c[0] - 0.1 + j(), c[1] + j(), 0.22), (0.22, 0.22, 0.22), 0.0, "checker", 0.12),
                ("box", 3, (c[0] - 0.85 + j(), c[1] + 0.5 + j(), 0.2), (0.2, 0.15, 0.2), j(1.0), "stripes", 0.12)]
    # colonnade: six pillars on a ring around a box
    prims = [("box", 1, (j(), j(), 0.25), (0.2, 0.2, 0.25), j(1.0), "checker", 0.12)]
    for k in range(6):
        a = 2 * math.pi * k / 6 + j(0.2)
        prims.append(("cylinder", 2 + k, (0.62 * math.cos(a), 0.62 * math.sin(a), 0.45), (0.1, 0.1, 0.45), 0.0,
                      "stripes", 0.13))
    return prims


def make_nbv_scene(name: str, seed: int = 0, device=None):
    """One of :data:`SCENES`, turned by a random yaw, with positions and sizes jittered by ``seed``."""
    checks.one_of("name", name, SCENES)
    seed = checks.seed("seed", seed)
    gen = torch.Generator().manual_seed(1000 + seed)
    j = lambda s=0.08: float(s * (2 * torch.rand((), generator=gen) - 1))  # noqa: E731
    turn = j(math.pi)
    c, s = math.cos(turn), math.sin(turn)
    # a finite textured ground disk (an infinite plane would fill every view to the horizon with texture that no
    # bounded reconstruction can explain)
    prims = [("cylinder", 0, (0, 0, -0.02), (1.6, 1.6, 0.02), 0.0, "checker", 0.2)]
    prims += [(k, o, (c * x - s * y, s * x + c * y, z), size, yaw + turn, pat, cell)
              for k, o, (x, y, z), size, yaw, pat, cell in _layout(name, j)]
    kind, oid, centre, size, yaw, pattern, cell = zip(*prims)
    noise = [0.35] * len(prims)
    return make_scene(list(kind), list(oid), center=list(centre), size=list(size), yaw=list(yaw),
                      pattern=list(pattern), pattern_scale=list(cell), noise_amp=noise, generator=gen,
                      device=checks.device("device", device) if device is not None else None)


@dataclass(frozen=True)
class Cameras:
    """A batch of pinhole cameras sharing ``K``: world-to-camera ``rot`` ``(B, 3, 3)``, ``trans`` ``(B, 3)``."""

    K: torch.Tensor
    rot: torch.Tensor
    trans: torch.Tensor
    width: int
    height: int

    def __post_init__(self):
        checks.positive_int("width", self.width)
        checks.positive_int("height", self.height)
        checks.tensor("K", self.K, shape=(3, 3))
        rot = checks.tensor("rot", self.rot, shape=(None, 3, 3))
        checks.tensor("trans", self.trans, shape=(rot.shape[0], 3))
        err = (rot @ rot.transpose(-1, -2) - torch.eye(3, dtype=rot.dtype, device=rot.device)).abs().amax()
        if float(err) > 1e-4 or bool((torch.linalg.det(rot) <= 0).any()):
            raise ValueError(f"rot must hold orthonormal rotations with det +1 (max |R R^T - I| = {float(err):.3g})")

    def __len__(self) -> int:
        return int(self.rot.shape[0])

    def __getitem__(self, idx) -> Cameras:
        if isinstance(idx, slice):
            idx = list(range(len(self)))[idx]
        idx = torch.as_tensor(idx, dtype=torch.long, device=self.rot.device).reshape(-1)
        return Cameras(self.K, self.rot[idx], self.trans[idx], self.width, self.height)

    @property
    def centers(self) -> torch.Tensor:
        return camera_centers(self.rot, self.trans)

    @property
    def axes(self) -> torch.Tensor:
        """Unit optical axes (viewing directions) in world coordinates ``(B, 3)``."""
        return self.rot[:, 2]

    def scaled(self, factor: float) -> Cameras:
        """The same poses at ``factor`` times the resolution (for low-resolution score maps)."""
        factor = checks.positive_number("factor", factor)
        w, h = max(1, round(self.width * factor)), max(1, round(self.height * factor))
        K = self.K.clone()
        K[0, 0] *= w / self.width
        K[1, 1] *= h / self.height
        K[0, 2], K[1, 2] = w / 2.0, h / 2.0
        return Cameras(K, self.rot, self.trans, w, h)


def shell_poses(n: int, gen: torch.Generator, size: int, fov_deg: float = 40.0, elevation=(12.0, 65.0),
                radius=(2.3, 3.3), jitter: float = 0.45, device=None) -> Cameras:
    """``n`` cameras on a viewing shell: azimuth stratified over the circle, elevation and radius uniform in their
    ranges, each looking at the scene centre moved by a uniform offset of up to ``jitter`` metres in ``x`` and
    ``y`` (a third of it in ``z``), so that with a narrow ``fov_deg`` each view sees a part of the scene."""
    n, size = checks.positive_int("n", n), checks.positive_int("size", size)
    if not isinstance(gen, torch.Generator):
        raise TypeError(f"gen must be a torch.Generator; got {type(gen).__name__}")
    checks.in_range("fov_deg", fov_deg, 0.0, 180.0, low_open=True, high_open=True)
    jitter = checks.nonnegative_number("jitter", jitter)
    if len(elevation) != 2 or not 0 <= elevation[0] < elevation[1] < 90:
        raise ValueError(f"elevation must be (low, high) degrees with 0 <= low < high < 90, got {elevation}")
    if len(radius) != 2 or not 0 < radius[0] <= radius[1]:
        raise ValueError(f"radius must be (low, high) with 0 < low <= high, got {radius}")
    device = checks.device("device", device) if device is not None else None
    u = torch.rand(n, 3, generator=gen, dtype=torch.float64)
    az = 2 * math.pi * (torch.arange(n, dtype=torch.float64) + u[:, 0]) / n
    az = az[torch.randperm(n, generator=gen)]
    el = torch.deg2rad(elevation[0] + (elevation[1] - elevation[0]) * u[:, 1])
    rad = radius[0] + (radius[1] - radius[0]) * u[:, 2]
    off = (2 * torch.rand(n, 3, generator=gen, dtype=torch.float64) - 1) * torch.tensor([1.0, 1.0, 1 / 3]) * jitter
    target = torch.tensor(SCENE_CENTRE, dtype=torch.float64) + off
    eye = torch.tensor(SCENE_CENTRE, dtype=torch.float64) + rad[:, None] * torch.stack(
        [el.cos() * az.cos(), el.cos() * az.sin(), el.sin()], -1)
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
    :class:`InformationLeak`; ``leaks()`` lists such accesses either way. ``fork()`` gives a store with the same
    renders cache and no selection (several selectors on one scene render each view once).
    """

    def __init__(self, scene, cams: Cameras, supersample: int = 2, strict: bool = True):
        if not isinstance(cams, Cameras):
            raise TypeError(f"cams must be a Cameras batch; got {type(cams).__name__}")
        if scene.num_primitives == 0:
            raise ValueError("scene must hold at least one primitive (got an empty scene)")
        self.supersample = checks.positive_int("supersample", supersample)
        self.scene, self.cams, self.strict = scene, cams, bool(strict)
        self.selected: list[int] = []
        self.access_log: list[tuple[str, int, bool]] = []
        self._cache: dict[int, dict] = {}

    def __len__(self) -> int:
        return len(self.cams)

    def fork(self, strict: bool | None = None) -> ViewStore:
        """A fresh store (nothing selected, empty log) sharing this store's render cache."""
        out = ViewStore(self.scene, self.cams, self.supersample, self.strict if strict is None else strict)
        out._cache = self._cache
        return out

    def select(self, idx: int) -> None:
        idx = checks.nonnegative_int("idx", idx)
        if idx >= len(self.cams):
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
            out = render(self.scene, c.K, c.rot, c.trans, c.width, c.height, supersample=self.supersample)
            self._cache[idx] = {"rgb": out["rgb"][0], "depth": out["depth"][0]}
        return self._cache[idx][kind]

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
    if not isinstance(cams, Cameras):
        raise TypeError(f"cams must be a Cameras batch; got {type(cams).__name__}")
    return render(scene, cams.K, cams.rot, cams.trans, cams.width, cams.height,
                  supersample=checks.positive_int("supersample", supersample))
