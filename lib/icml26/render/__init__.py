"""Small renderers and image resampling in torch, shared by the vision papers (``scene_change``, ``creat3r_nbv``,
``video_inpainting``).

* :mod:`~icml26.render.cameras`: pinhole intrinsics, look-at poses, pixel rays, projection, back-projection
  and z-buffer visibility tests (conventions in that module's docstring);
* :mod:`~icml26.render.scene`: analytic scenes of planes, boxes, spheres and cylinders with procedural,
  object-attached materials;
* :mod:`~icml26.render.raycast`: a batched ray caster returning colour, depth, object ids and normals;
* :mod:`~icml26.render.gaussians`: a differentiable 3D Gaussian splatting rasteriser (EWA projection, depth-sorted
  alpha compositing, tiled), first used by ``creat3r_nbv``;
* :mod:`~icml26.render.image_metrics`: PSNR and SSIM;
* :mod:`~icml26.render.warp`: backward warping of images by a flow field (``grid_sample``), flow
  composition and forward-backward validity (first used by ``video_inpainting``).
"""

from icml26.render.cameras import backproject, camera_centers, intrinsics, look_at, pixel_rays, project, visible_in
from icml26.render.gaussians import rasterize
from icml26.render.image_metrics import psnr, ssim
from icml26.render.raycast import cast, render
from icml26.render.scene import BOX, CHECKER, CYLINDER, PLANE, SOLID, SPHERE, STRIPES, Scene, make_scene

__all__ = [
    "BOX", "CHECKER", "CYLINDER", "PLANE", "SOLID", "SPHERE", "STRIPES", "Scene", "backproject", "camera_centers",
    "cast", "intrinsics", "look_at", "make_scene", "pixel_rays", "project", "psnr", "rasterize", "render", "ssim",
    "visible_in",
]
