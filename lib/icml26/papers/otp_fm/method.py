"""OTP-FM: multimarginal flow matching with optimal-transport potentials (paper §3).

The per-tuple action (paper §3)

    A[x] = int_0^1 1/2 |x'(t)|^2 + sum_k s_k lambda_k(t) g_k(x(t)) dt,  x(0) = x_0, x(1) = x_1,

has, with each force frozen at its centre time (grad g_k(x(t)) ~ grad g_k(X_k), X_k = x(t_k)),
the closed-form solution (Eq. 18 of the paper as cited by the code)

    x(t) = (1 - t) x_0 + t x_1 + sum_k s_k c_k(t) grad g_k(X_k),   c_k(t) = Lam2_k(t) - t Lam2_k(1),
    u(t) = x_1 - x_0         + sum_k s_k c'_k(t) grad g_k(X_k),   c'_k(t) = Lam_k(t) - Lam2_k(1),

where Lam_k and Lam2_k are the first and second integrals of the time kernel lambda_k (§3.3). The
X_k solve the self-consistency system of §3.5: a K x K linear solve for the W2 / W2-infinity force
grad g_k(X) = X - y_k (DirectSolver, Eq. 20), damped Picard iterations for the MMD force (Eq. 21).
The corrected conditional paths replace the straight CFM targets, so training stays simulation free.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from icml26 import checks
from icml26.transport._checks import finite_tensor
from icml26.transport._checks import marginals as check_marginals

KERNELS = ("delta", "gaussian", "box", "triangle")
POTENTIALS = ("w2inf", "w2", "mmd")
CURRICULA = ("sigmoid", "linear", "constant1", "constant0")


# --------------------------------------------------------------------------- time kernels (§3.3)
def _line_cdf_and_antiderivative(kind: str, t: torch.Tensor, c: torch.Tensor, w: torch.Tensor):
    """F(t) = int_{-inf}^t lambda and G(t) = int_{-inf}^t F for the kernel on the whole real line."""
    u = t - c
    if kind == "delta":
        return (u > 0).to(t.dtype), u.clamp_min(0)
    if kind == "gaussian":
        z = u / w
        cdf = 0.5 * (1 + torch.erf(z / math.sqrt(2)))
        pdf = torch.exp(-0.5 * z**2) / math.sqrt(2 * math.pi)
        return cdf, u * cdf + w * pdf
    if kind == "box":  # lambda = 1/(2h) on [c-h, c+h]
        v = torch.minimum((u + w).clamp_min(0), 2 * w)
        cdf = v / (2 * w)
        anti = torch.where(u + w <= 0, torch.zeros_like(u),
                           torch.where(u <= w, (u + w) ** 2 / (4 * w), w + (u - w)))
        return cdf, anti
    if kind == "triangle":  # lambda = (1 - |u|/h)_+ / h
        left = u <= 0
        uc = torch.maximum(torch.minimum(u, w), -w)
        cdf = torch.where(left, (uc + w) ** 2 / (2 * w**2), 1 - (w - uc) ** 2 / (2 * w**2))
        anti_in = torch.where(left, (uc + w) ** 3 / (6 * w**2), uc + (w - uc) ** 3 / (6 * w**2))
        anti = torch.where(u <= -w, torch.zeros_like(u), torch.where(u >= w, u, anti_in))
        return cdf, anti
    raise ValueError(f"kernel must be one of {KERNELS}; got {kind!r}")


def _kernel_args(kind: str, t, center, width):
    """Validated (t, center, width) tensors for the kernel functions (t finite and non-empty)."""
    t = torch.as_tensor(t)
    if not t.is_floating_point():
        t = t.double()
    if t.numel() == 0 or not torch.isfinite(t).all():
        raise ValueError("t must hold at least one finite time")
    c = torch.as_tensor(center, dtype=t.dtype, device=t.device)
    w = torch.as_tensor(width, dtype=t.dtype, device=t.device)
    if not ((c > 0) & (c < 1)).all():
        raise ValueError(f"center must lie strictly inside (0, 1); got {center}")
    if kind != "delta" and not ((w > 0) & torch.isfinite(w)).all():
        raise ValueError(f"width must be finite and positive for the {kind} kernel; got {width}")
    return t, c, w


def kernel_density(kind: str, t, center, width):
    """The time kernel lambda(t) itself (restricted to [0, 1]); used to check the integrals by quadrature."""
    if kind not in KERNELS[1:]:
        raise ValueError(f"kind must be one of {KERNELS[1:]} (the delta has no density); got {kind!r}")
    t, c, w = _kernel_args(kind, t, center, width)
    u = t - c
    if kind == "gaussian":
        lam = torch.exp(-0.5 * (u / w) ** 2) / (w * math.sqrt(2 * math.pi))
    elif kind == "box":
        lam = ((u >= -w) & (u <= w)).to(t.dtype) / (2 * w)
    else:
        lam = (1 - u.abs() / w).clamp_min(0) / w
    return torch.where((t >= 0) & (t <= 1), lam, torch.zeros_like(lam))


def kernel_integrals(kind: str, t, center, width):
    """(Lam(t), Lam2(t)): first and second integrals over [0, t] of the time kernel (paper §3).

    The kernel is restricted to [0, 1] (its mass outside is dropped, as the Gaussian of the reference
    code is, and unlike its box/triangle formulas, which assume the support fits; docs/papers/otp_fm.md, "Pitfalls"), so
    Lam(t) = F(t) - F(0) and Lam2(t) = G(t) - G(0) - t F(0) with F, G the whole-line integrals.
    ``t``, ``center`` and ``width`` broadcast; ``width`` is ignored for ``"delta"``.
    """
    if kind not in KERNELS:
        raise ValueError(f"kind must be one of {KERNELS}; got {kind!r}")
    t, c, w = _kernel_args(kind, t, center, width)
    f_t, g_t = _line_cdf_and_antiderivative(kind, t, c, w)
    zero = torch.zeros_like(t)
    f_0, g_0 = _line_cdf_and_antiderivative(kind, zero, c, w)
    return f_t - f_0, g_t - g_0 - t * f_0


def _centers(centers, name: str) -> list[float]:
    try:
        c = [float(x) for x in torch.as_tensor(centers, dtype=torch.float64).reshape(-1)]
    except (TypeError, ValueError, RuntimeError):
        raise TypeError(f"{name} must be a sequence of times; got {centers!r}") from None
    if not c or any(not 0 < x < 1 for x in c) or any(b <= a for a, b in zip(c, c[1:])):
        raise ValueError(f"{name} must be strictly increasing times inside (0, 1); got {c}")
    return c


def auto_widths(centers: Sequence[float]) -> list[float]:
    """``width="auto"``: half the mean gap from each centre to its neighbours (0 and 1 included)."""
    c = [0.0, *_centers(centers, "centers"), 1.0]
    return [0.5 * 0.5 * ((c[i] - c[i - 1]) + (c[i + 1] - c[i])) for i in range(1, len(c) - 1)]


def alpha_schedule(step: int, total: int, kind: str = "sigmoid") -> float:
    """Curriculum weight alpha(i) of the OTP correction (paper §3): sigmoid 1/(1+exp(-6(i/N-0.5))) by default."""
    if kind not in CURRICULA:
        raise ValueError(f"kind must be one of {CURRICULA}; got {kind!r}")
    total = checks.positive_int("total", total)
    step = checks.nonnegative_int("step", step)
    if step > total:
        raise ValueError(f"step must lie in [0, total={total}]; got {step}")
    if kind == "sigmoid":
        return 1.0 / (1.0 + math.exp(-6.0 * (step / total - 0.5)))
    if kind == "linear":
        return step / total
    return 1.0 if kind == "constant1" else 0.0


# --------------------------------------------------------------------------- conditional paths
def _bandwidths(value, name: str) -> torch.Tensor:
    bw = torch.as_tensor(value, dtype=torch.float64).reshape(-1)
    if bw.numel() == 0 or not ((bw > 0) & torch.isfinite(bw)).all():
        raise ValueError(f"{name} must be a non-empty list of finite positive numbers")
    return bw


class OTPPath:
    """Closed-form OTP-FM conditional paths for K potentials at times ``centers`` (paper §3).

    ``strengths`` (s_k), ``kernel`` (one of :data:`KERNELS`), ``widths`` (per potential, or
    ``"auto"``), ``potential`` ("w2inf"/"w2": force X - y_k, solved directly; "mmd": RBF-MMD force,
    damped Picard). ``w2`` differs from ``w2inf`` only in how tuples are coupled (OT chains).
    """

    def __init__(self, centers, strengths, kernel: str = "gaussian", widths="auto", potential: str = "w2inf",
                 mmd_bandwidths=(3.0,), picard_iters: int = 30, picard_damping: float | None = None):
        centers = _centers(centers, "centers")
        k = len(centers)
        s = torch.as_tensor(strengths, dtype=torch.float64).reshape(-1)
        if s.numel() == 1:
            s = s.expand(k)
        if s.numel() != k or not (s >= 0).all() or not torch.isfinite(s).all():
            raise ValueError(f"strengths must be non-negative, one per potential ({k}) or a single value")
        if kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}; got {kernel!r}")
        if potential not in POTENTIALS:
            raise ValueError(f"potential must be one of {POTENTIALS}; got {potential!r}")
        w = auto_widths(centers) if widths == "auto" else torch.as_tensor(widths, dtype=torch.float64).reshape(-1)
        w = torch.as_tensor(w, dtype=torch.float64)
        if w.numel() == 1:
            w = w.expand(k)
        if w.numel() != k or (kernel != "delta" and not ((w > 0) & torch.isfinite(w)).all()):
            raise ValueError(f"widths must be 'auto' or positive numbers, one per potential ({k}) or a single value")
        bw = _bandwidths(mmd_bandwidths, "mmd_bandwidths")
        picard_iters = checks.positive_int("picard_iters", picard_iters)
        if picard_damping is not None:
            checks.in_range("picard_damping", picard_damping, 0.0, 1.0, low_open=True)
        self.centers = torch.tensor(centers, dtype=torch.float64)
        self.strengths = s.clone()
        self.widths = w.clone()
        self.kernel, self.potential = kernel, potential
        self.mmd_bandwidths = bw
        self.picard_iters = int(picard_iters)
        self.picard_damping = picard_damping
        self.K = k
        _, self._lam2_1 = kernel_integrals(kernel, torch.ones((), dtype=torch.float64), self.centers, self.widths)
        c_at, _ = self.profiles(self.centers)
        self.A = c_at * self.strengths[None, :]  # A_jk = s_k c_k(t_j), (K, K)
        eye = torch.eye(k, dtype=torch.float64)
        # X = (I - A)^{-1} [I, -A] [X_base; Y], solved once (Eq. 20); None for the non-linear MMD force
        self._direct = None if potential == "mmd" else torch.linalg.solve(eye - self.A, torch.cat([eye, -self.A], 1))

    def profiles(self, t) -> tuple[torch.Tensor, torch.Tensor]:
        """c_k(t) and c'_k(t), each of shape t.shape + (K,), in float64."""
        t = torch.as_tensor(t, dtype=torch.float64)
        tt = t[..., None]
        lam, lam2 = kernel_integrals(self.kernel, tt, self.centers.to(t.device), self.widths.to(t.device))
        lam2_1 = self._lam2_1.to(t.device)
        return lam2 - tt * lam2_1, lam - lam2_1

    # ------------------------------------------------------------------ solvers (§3.5)
    def _check(self, x0, x1, ys):
        finite_tensor(x0, "x0", ndim=2)
        finite_tensor(x1, "x1", ndim=2)
        if x1.shape != x0.shape:
            raise ValueError(f"x1 must have the shape of x0 {tuple(x0.shape)}; got {tuple(x1.shape)}")
        finite_tensor(ys, "ys", ndim=3)
        if ys.shape != (x0.shape[0], self.K, x0.shape[1]):
            raise ValueError(f"ys must have shape (B, K={self.K}, d) = {(x0.shape[0], self.K, x0.shape[1])}; "
                             f"got {tuple(getattr(ys, 'shape', ()))}")

    def base_at_centers(self, x0, x1) -> torch.Tensor:
        tk = self.centers.to(x0.device, x0.dtype)[None, :, None]
        return (1 - tk) * x0[:, None] + tk * x1[:, None]

    def force(self, xk: torch.Tensor, ys: torch.Tensor) -> torch.Tensor:
        """grad g_k at X_k, shape (B, K, d) (paper §3 Table 1)."""
        if self.potential in ("w2inf", "w2"):
            return xk - ys
        return mmd_force(xk, ys, self.mmd_bandwidths.to(xk.device, xk.dtype))

    def solve_direct(self, x0, x1, ys) -> torch.Tensor:
        """X = (I - A)^{-1} (X_base - A Y) for the linear force X - y (Eq. 20). Shape (B, K, d)."""
        self._check(x0, x1, ys)
        if self.potential == "mmd":
            raise ValueError("solve_direct needs a linear potential ('w2inf' or 'w2'); use solve_picard for 'mmd'")
        m = self._direct.to(x0.device, x0.dtype)
        stacked = torch.cat([self.base_at_centers(x0, x1), ys], dim=1)
        return torch.einsum("jk,bkd->bjd", m, stacked)

    def solve_picard(self, x0, x1, ys, x_init=None, iters: int | None = None, damping: float | None = None):
        """Damped Picard iterations X <- (1 - beta) X + beta (X_base + A grad g(X)) (Eq. 21). Shape (B, K, d).

        The default damping beta = 1 / (1 + ||A||_2) keeps the linear case contractive.
        """
        self._check(x0, x1, ys)
        iters = self.picard_iters if iters is None else int(iters)
        if damping is None:
            damping = self.picard_damping
        if damping is None:
            damping = 1.0 / (1.0 + float(torch.linalg.matrix_norm(self.A, ord=2)))
        if not 0 < damping <= 1:
            raise ValueError(f"damping must lie in (0, 1]; got {damping}")
        a = self.A.to(x0.device, x0.dtype)
        xb = self.base_at_centers(x0, x1)
        x = xb.clone() if x_init is None else x_init.clone()
        for _ in range(iters):
            g = torch.einsum("jk,bkd->bjd", a, self.force(x, ys))
            x = (1 - damping) * x + damping * (xb + g)
        return x

    def solve(self, x0, x1, ys, x_init=None):
        return self.solve_direct(x0, x1, ys) if self.potential != "mmd" else self.solve_picard(x0, x1, ys, x_init)

    def path(self, x0, x1, ys, t, alpha: float = 1.0, xk: torch.Tensor | None = None):
        """Conditional position and velocity at times ``t`` (B,) (targets of §3.6, scaled by ``alpha``)."""
        self._check(x0, x1, ys)
        alpha = checks.finite_number("alpha", alpha)
        t = torch.as_tensor(t, dtype=x0.dtype, device=x0.device).reshape(-1)
        if not torch.isfinite(t).all():
            raise ValueError("t must be finite")
        if t.numel() == 1:
            t = t.expand(x0.shape[0])
        if t.shape != (x0.shape[0],):
            raise ValueError(f"t must be a scalar or hold one time per tuple ({x0.shape[0]})")
        if xk is None:
            xk = self.solve(x0, x1, ys)
        f = self.force(xk, ys)
        c, cdot = self.profiles(t)
        s = self.strengths.to(x0.device)
        wc, wv = (alpha * c * s).to(x0.dtype), (alpha * cdot * s).to(x0.dtype)
        xt = (1 - t)[:, None] * x0 + t[:, None] * x1 + torch.einsum("bk,bkd->bd", wc, f)
        ut = (x1 - x0) + torch.einsum("bk,bkd->bd", wv, f)
        return xt, ut


def mmd_force(x: torch.Tensor, y: torch.Tensor, bandwidths: torch.Tensor) -> torch.Tensor:
    """First-variation gradient of MMD^2(rho, mu) at the points ``x`` (paper §3), per potential.

    ``x`` (B, K, d) are samples of rho at each t_k, ``y`` (B, K, d) of mu_k; returns
    2 [mean_j grad_x k(x_i, x_j) - mean_j grad_x k(x_i, y_j)] with grad_x k = -k (x - y) / sigma^2,
    averaged over ``bandwidths``.
    """
    finite_tensor(x, "x", ndim=3)
    finite_tensor(y, "y", ndim=3)
    if y.shape[1:] != x.shape[1:]:
        raise ValueError(f"y must have K and d of x {tuple(x.shape[1:])}; got {tuple(y.shape[1:])}")
    if not isinstance(bandwidths, torch.Tensor):
        raise TypeError("bandwidths must be a tensor of positive numbers")
    finite_tensor(bandwidths, "bandwidths")
    _bandwidths(bandwidths, "bandwidths")

    def grad_term(a, b):
        diff = a[:, None] - b[None, :]  # (B, B', K, d)
        d2 = diff.pow(2).sum(-1, keepdim=True)
        out = 0
        for sig in bandwidths:
            out = out + (-torch.exp(-d2 / (2 * sig**2)) * diff / sig**2).mean(1)
        return out / len(bandwidths)

    return 2 * (grad_term(x, x) - grad_term(x, y))


# --------------------------------------------------------------------------- tuples (§3.9)
def sample_tuples(marginals, batch: int, generator: torch.Generator, chains: torch.Tensor | None = None):
    """A batch of tuples (B, K+2, d): one sample per training marginal.

    ``chains`` None: independent random indices (the W2-infinity / random coupling); otherwise rows of
    an OT-chain index table (:func:`icml26.transport.chain_indices`), the W2 variant.
    """
    marginals = check_marginals(marginals)
    batch = checks.positive_int("batch", batch)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator; got {type(generator).__name__}")
    if chains is not None and (not isinstance(chains, torch.Tensor) or chains.ndim != 2
                               or chains.shape[1] != len(marginals) or chains.shape[0] < 1
                               or chains.is_floating_point()):
        raise ValueError(f"chains must be an integer (n, {len(marginals)}) index table, one column per marginal")
    dev = marginals[0].device
    if chains is None:
        idx = [torch.randint(0, m.shape[0], (batch,), generator=generator, device=generator.device).to(dev)
               for m in marginals]
    else:
        rows = torch.randint(0, chains.shape[0], (batch,), generator=generator, device=generator.device).to(dev)
        idx = list(chains[rows].T)
    return torch.stack([m[i] for m, i in zip(marginals, idx)], dim=1)


def otp_target_sampler(marginals, times, path: OTPPath, batch: int, total_iters: int, generator: torch.Generator,
                       chains: torch.Tensor | None = None, curriculum: str = "sigmoid"):
    """A function i -> (x_t, t, u_t) drawing OTP-FM regression targets (paper §3, curriculum §4) for iteration i."""
    if not isinstance(path, OTPPath):
        raise TypeError(f"path must be an OTPPath; got {type(path).__name__}")
    marginals = check_marginals(marginals)
    batch = checks.positive_int("batch", batch)
    total_iters = checks.positive_int("total_iters", total_iters)
    checks.one_of("curriculum", curriculum, CURRICULA)
    times = torch.as_tensor(times, dtype=torch.float64).reshape(-1)
    if len(marginals) != path.K + 2 or times.numel() != path.K + 2:
        raise ValueError(f"marginals and times must hold K+2 = {path.K + 2} entries (source, K potentials, target)")
    if abs(float(times[0])) > 1e-12 or abs(float(times[-1]) - 1) > 1e-12:
        raise ValueError("times must start at 0 and end at 1 (model time)")
    if not torch.allclose(times[1:-1], path.centers):
        raise ValueError("the intermediate times must equal the potentials' centres")
    dev = marginals[0].device

    def draw(i: int):
        xs = sample_tuples(marginals, batch, generator, chains)
        t = torch.rand(batch, generator=generator, device=generator.device).to(dev, xs.dtype)
        alpha = alpha_schedule(i, total_iters, curriculum)
        x0, x1, ys = xs[:, 0], xs[:, -1], xs[:, 1:-1]
        if alpha < 1e-3:
            return (1 - t)[:, None] * x0 + t[:, None] * x1, t, x1 - x0
        xt, ut = path.path(x0, x1, ys, t, alpha=alpha)
        return xt, t, ut

    return draw
