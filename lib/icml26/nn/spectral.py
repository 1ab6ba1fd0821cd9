"""Polynomial spectral filters on the symmetric normalised Laplacian (shared block).

``L = I - D^{-1/2} A D^{-1/2}`` has its spectrum in ``[0, 2]``. A spectral filter ``g(L) x = U g(Λ) U^T x``
is approximated by a polynomial in ``L`` so that only products with ``L`` are needed (sparse on big graphs,
dense and batched on many small graphs). Three bases are provided:

* Chebyshev (ChebNet, Defferrard et al. 2016): ``sum_k c_k T_k(L - I) x`` (``λ_max = 2``).
* Bernstein (BernNet, He et al. 2021): ``sum_k θ_k C(K,k) / 2^K (2I - L)^{K-k} L^k x``.
* ChebNetII (He et al. 2022): Chebyshev interpolation of learnable values ``γ_j`` at the Chebyshev nodes
  ``x_j = cos((j + 1/2) π / (K+1))``, ``c_k = 2/(K+1) sum_j γ_j T_k(x_j)``, output ``c_0/2 x + sum_k c_k T_k x``.

``L`` may be a dense tensor ``(n, n)`` / ``(B, n, n)`` or a sparse ``(N, N)`` tensor (one big or block-diagonal
graph); ``x`` has shape ``(n, C)`` or ``(B, n, C)``. Coefficients are shared by all channels (shape ``(K+1,)``)
or per channel (shape ``(K+1, C)``). The ``*_response`` functions evaluate the same polynomials on eigenvalues,
which is how the filters are checked against dense eigendecomposition filtering (:func:`eig_filter`).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from icml26 import checks

__all__ = [
    "normalized_laplacian", "dense_normalized_laplacian", "laplacian_matmul", "chebyshev_basis",
    "chebyshev_filter", "chebyshev_response", "bernstein_filter", "bernstein_response", "chebii_nodes",
    "chebii_coefficients", "chebii_filter", "chebii_response", "eig_filter", "ChebConv", "BernProp", "ChebIIProp",
]


# ----------------------------------------------------------------------------------------------- checks
def _finite(name: str, value) -> torch.Tensor:
    """A non-empty tensor of finite numbers; a sparse one is checked through its stored values."""
    if isinstance(value, torch.Tensor) and (value.is_sparse or value.layout == torch.sparse_csr):
        stored = value.coalesce().values() if value.is_sparse else value.values()
        checks.tensor(name, stored, nonempty=False)
        return value
    return checks.tensor(name, value)


SPECTRUM_ATOL = 1e-6
"""How far outside ``[0, 2]`` an eigenvalue of a normalised Laplacian may lie (rounding of ``eigh``)."""


def _spectrum(name: str, value) -> torch.Tensor:
    """Eigenvalues of a normalised Laplacian: finite and in ``[0, 2]``, where the polynomial bases are defined."""
    lam = _finite(name, torch.as_tensor(value))
    if bool(((lam < -SPECTRUM_ATOL) | (lam > 2 + SPECTRUM_ATOL)).any()):
        raise ValueError(f"{name} must hold eigenvalues of a normalised Laplacian, in [0, 2]; got values in "
                         f"[{float(lam.min()):.4g}, {float(lam.max()):.4g}]")
    return lam


def _coeff_tensor(name: str, value, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Finite polynomial coefficients ``(K+1,)`` or ``(K+1, C)`` (a list is turned into a ``dtype`` tensor)."""
    if not isinstance(value, torch.Tensor):
        try:
            value = torch.as_tensor(value, dtype=dtype)
        except (TypeError, ValueError, RuntimeError):
            raise TypeError(f"{name} must be a tensor of coefficients (K+1,) or (K+1, C); got {value!r}") from None
    return checks.tensor(name, value, ndim=(1, 2))


# ----------------------------------------------------------------------------------------------- Laplacians
def _check_edge_index(edge_index, num_nodes: int) -> None:
    if not isinstance(edge_index, torch.Tensor) or edge_index.dim() != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"edge_index must be a (2, E) integer tensor; got {getattr(edge_index, 'shape', edge_index)}")
    if edge_index.dtype not in (torch.int64, torch.int32):
        raise ValueError(f"edge_index must hold integers; got dtype {edge_index.dtype}")
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, int) or num_nodes < 1:
        raise ValueError(f"num_nodes must be a positive integer; got {num_nodes!r}")
    if edge_index.numel() and (int(edge_index.min()) < 0 or int(edge_index.max()) >= num_nodes):
        raise ValueError(f"edge_index entries must lie in [0, num_nodes={num_nodes})")


def normalized_laplacian(edge_index: torch.Tensor, num_nodes: int, edge_weight: torch.Tensor | None = None,
                         dtype: torch.dtype = torch.float32, device=None) -> torch.Tensor:
    """Sparse ``L = I - D^{-1/2} A D^{-1/2}`` (COO, coalesced) of a graph given by ``edge_index``.

    The graph is taken as given (pass both directions for an undirected graph); self-loops in ``edge_index``
    are dropped. Isolated nodes get degree 0, a zero row in ``D^{-1/2} A D^{-1/2}`` and ``L_vv = 1`` (no NaN).
    """
    _check_edge_index(edge_index, num_nodes)
    device = edge_index.device if device is None else torch.device(device)
    edge_index = edge_index.to(device=device, dtype=torch.int64)
    keep = edge_index[0] != edge_index[1]
    row, col = edge_index[0][keep], edge_index[1][keep]
    if edge_weight is None:
        w = torch.ones(row.numel(), dtype=dtype, device=device)
    else:
        if edge_weight.shape != (edge_index.shape[1],):
            raise ValueError(f"edge_weight must have shape (E,) = ({edge_index.shape[1]},); "
                             f"got {tuple(edge_weight.shape)}")
        checks.tensor("edge_weight", edge_weight, nonempty=False)
        if bool((edge_weight < 0).any()):
            raise ValueError("edge_weight must be non-negative (a normalised Laplacian needs degrees >= 0)")
        w = edge_weight.to(device=device, dtype=dtype)[keep]
    deg = torch.zeros(num_nodes, dtype=dtype, device=device).index_add_(0, row, w)
    dinv = torch.where(deg > 0, deg.clamp_min(1e-30).rsqrt(), torch.zeros_like(deg))
    vals = -dinv[row] * w * dinv[col]
    diag = torch.arange(num_nodes, device=device)
    idx = torch.cat([torch.stack([row, col]), torch.stack([diag, diag])], dim=1)
    vals = torch.cat([vals, torch.ones(num_nodes, dtype=dtype, device=device)])
    return torch.sparse_coo_tensor(idx, vals, (num_nodes, num_nodes), check_invariants=False).coalesce()


def dense_normalized_laplacian(adj: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Dense (batched) ``L = I - D^{-1/2} A D^{-1/2}`` for ``adj`` of shape ``(n, n)`` or ``(B, n, n)``.

    ``mask`` (``(n,)`` / ``(B, n)`` bool) marks real nodes; padded nodes get all-zero rows and columns.
    Isolated real nodes get ``L_vv = 1``.
    """
    if not isinstance(adj, torch.Tensor) or adj.dim() not in (2, 3) or adj.shape[-1] != adj.shape[-2]:
        raise ValueError(f"adj must be a square (n, n) or (B, n, n) tensor; got {getattr(adj, 'shape', adj)}")
    checks.tensor("adj", adj)
    if not adj.is_floating_point():
        adj = adj.float()
    n = adj.shape[-1]
    if mask is None:
        mask = torch.ones(adj.shape[:-1], dtype=torch.bool, device=adj.device)
    elif mask.shape != adj.shape[:-1]:
        raise ValueError(f"mask must have shape {tuple(adj.shape[:-1])}; got {tuple(mask.shape)}")
    eye = torch.eye(n, dtype=adj.dtype, device=adj.device)
    a = adj * (1 - eye)
    deg = a.sum(-1)
    dinv = torch.where(deg > 0, deg.clamp_min(1e-30).rsqrt(), torch.zeros_like(deg))
    lap = eye - dinv.unsqueeze(-1) * a * dinv.unsqueeze(-2)
    m = mask.to(adj.dtype)
    return lap * m.unsqueeze(-1) * m.unsqueeze(-2)


def laplacian_matmul(lap: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """``lap @ x`` for a dense (batched) or sparse ``lap``; checks that the shapes fit."""
    return _matmul(_finite("lap", lap), _finite("x", x))


def _matmul(lap: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """:func:`laplacian_matmul` without the finiteness checks (the filters' inner products)."""
    if lap.is_sparse or lap.layout == torch.sparse_csr:
        if x.dim() != 2 or x.shape[0] != lap.shape[0]:
            raise ValueError(f"x must have shape ({lap.shape[0]}, C) for a sparse lap; got {tuple(x.shape)}")
        return torch.sparse.mm(lap, x)
    if lap.dim() not in (2, 3) or lap.shape[-1] != lap.shape[-2]:
        raise ValueError(f"lap must be (n, n) or (B, n, n); got {tuple(lap.shape)}")
    if x.dim() != lap.dim() or x.shape[-2] != lap.shape[-1] or (lap.dim() == 3 and x.shape[0] != lap.shape[0]):
        raise ValueError(f"x must have shape {tuple(lap.shape[:-1])} + (C,) to match lap; got {tuple(x.shape)}")
    return lap @ x


def _coeffs(coeffs: torch.Tensor, name: str, channels: int) -> torch.Tensor:
    """Coefficients as ``(K+1, 1)`` or ``(K+1, C)`` (a tensor: the public functions convert and check them)."""
    if coeffs.dim() == 1:
        coeffs = coeffs.unsqueeze(-1)
    if coeffs.dim() != 2 or coeffs.shape[0] < 1 or coeffs.shape[1] not in (1, channels):
        raise ValueError(f"{name} must have shape (K+1,) or (K+1, C={channels}); got {tuple(coeffs.shape)}")
    return coeffs


# ----------------------------------------------------------------------------------------------- Chebyshev
def chebyshev_basis(lap: torch.Tensor, x: torch.Tensor, K: int) -> list[torch.Tensor]:
    """``[T_0(L - I) x, ..., T_K(L - I) x]`` by the three-term recurrence (``λ_max = 2``)."""
    checks.nonnegative_int("K", K)
    return _cheb_basis(_finite("lap", lap), _finite("x", x), K)


def _cheb_basis(lap: torch.Tensor, x: torch.Tensor, K: int) -> list[torch.Tensor]:
    out = [x]
    if K >= 1:
        out.append(_matmul(lap, x) - x)
    for _ in range(2, K + 1):
        out.append(2 * (_matmul(lap, out[-1]) - out[-1]) - out[-2])
    return out


def chebyshev_filter(lap: torch.Tensor, x: torch.Tensor, coeffs) -> torch.Tensor:
    """``sum_k c_k T_k(L - I) x``; ``coeffs`` of shape ``(K+1,)`` or ``(K+1, C)``."""
    return _cheb_filter(_finite("lap", lap), _finite("x", x), _coeff_tensor("coeffs", coeffs))


def _cheb_filter(lap: torch.Tensor, x: torch.Tensor, coeffs) -> torch.Tensor:
    c = _coeffs(coeffs, "coeffs", x.shape[-1]).to(x)
    basis = _cheb_basis(lap, x, c.shape[0] - 1)
    return sum(ck * tk for ck, tk in zip(c, basis))


def _cheb_T(t: torch.Tensor, K: int) -> torch.Tensor:
    """``T_0(t), ..., T_K(t)`` stacked on a new first axis."""
    out = [torch.ones_like(t)]
    if K >= 1:
        out.append(t)
    for _ in range(2, K + 1):
        out.append(2 * t * out[-1] - out[-2])
    return torch.stack(out)


def chebyshev_response(lam: torch.Tensor, coeffs) -> torch.Tensor:
    """The scalar filter ``g(λ) = sum_k c_k T_k(λ - 1)``; shape ``lam.shape`` (+ ``(C,)`` for per-channel).
    ``lam`` must lie in ``[0, 2]`` (a normalised Laplacian's spectrum)."""
    lam = _spectrum("lam", lam)
    return _cheb_response(lam, _coeff_tensor("coeffs", coeffs, lam.dtype))


def _cheb_response(lam: torch.Tensor, coeffs) -> torch.Tensor:
    c = coeffs
    T = _cheb_T(lam.to(c.dtype) - 1, c.shape[0] - 1)  # (K+1, *lam)
    if c.dim() == 1:
        return torch.tensordot(c, T, dims=([0], [0]))
    return torch.einsum("k...,kc->...c", T, c)


# ----------------------------------------------------------------------------------------------- Bernstein
def bernstein_filter(lap: torch.Tensor, x: torch.Tensor, theta) -> torch.Tensor:
    """BernNet: ``sum_k θ_k C(K,k)/2^K (2I - L)^{K-k} L^k x`` (no ReLU here; the module applies it)."""
    return _bern_filter(_finite("lap", lap), _finite("x", x), _coeff_tensor("theta", theta))


def _bern_filter(lap: torch.Tensor, x: torch.Tensor, theta) -> torch.Tensor:
    th = _coeffs(theta, "theta", x.shape[-1]).to(x)
    K = th.shape[0] - 1
    # powers of (2I - L) applied to x, then L^k on top
    twos = [x]
    for _ in range(K):
        twos.append(2 * twos[-1] - _matmul(lap, twos[-1]))
    out = 0
    for k in range(K + 1):
        z = twos[K - k]
        for _ in range(k):
            z = _matmul(lap, z)
        out = out + th[k] * (math.comb(K, k) / 2**K) * z
    return out


def bernstein_response(lam: torch.Tensor, theta) -> torch.Tensor:
    """``g(λ) = sum_k θ_k C(K,k)/2^K (2-λ)^{K-k} λ^k``; ``lam`` in ``[0, 2]``."""
    lam = _spectrum("lam", lam)
    return _bern_response(lam, _coeff_tensor("theta", theta, lam.dtype))


def _bern_response(lam: torch.Tensor, theta) -> torch.Tensor:
    th = theta
    K = th.shape[0] - 1
    lam = lam.to(th.dtype)
    B = torch.stack([math.comb(K, k) / 2**K * (2 - lam) ** (K - k) * lam**k for k in range(K + 1)])
    if th.dim() == 1:
        return torch.tensordot(th, B, dims=([0], [0]))
    return torch.einsum("k...,kc->...c", B, th)


# ----------------------------------------------------------------------------------------------- ChebNetII
def chebii_nodes(K: int, dtype=torch.float64, device=None) -> torch.Tensor:
    """Chebyshev nodes ``x_j = cos((K - j + 1/2) π / (K+1))``, ``j = 0..K`` (increasing, in ``(-1, 1)``).

    ``K = 0`` is allowed on purpose: one node at 0, whose interpolant is the constant filter (order zero)."""
    checks.nonnegative_int("K", K)
    j = torch.arange(K + 1, dtype=dtype, device=device)
    return torch.cos((K - j + 0.5) * math.pi / (K + 1))


def chebii_coefficients(gamma: torch.Tensor) -> torch.Tensor:
    """Chebyshev coefficients ``c_k = 2/(K+1) sum_j γ_j T_k(x_j)`` of the interpolant through ``(x_j, γ_j)``.

    ``gamma`` has shape ``(K+1,)`` or ``(K+1, C)``; returns the same shape. ``c_0`` is returned *undivided*
    (the filter uses ``c_0 / 2``).
    """
    if not isinstance(gamma, torch.Tensor) or gamma.dim() not in (1, 2) or gamma.shape[0] < 1:
        raise ValueError(f"gamma must be a (K+1,) or (K+1, C) tensor; got {getattr(gamma, 'shape', gamma)}")
    checks.tensor("gamma", gamma)
    return _chebii_coefficients(gamma)


def _chebii_coefficients(gamma: torch.Tensor) -> torch.Tensor:
    K = gamma.shape[0] - 1
    xj = chebii_nodes(K, dtype=gamma.dtype, device=gamma.device)
    T = _cheb_T(xj, K)  # (k, j)
    return (2.0 / (K + 1)) * (T @ gamma)


def _halve_c0(c: torch.Tensor) -> torch.Tensor:
    scale = torch.ones(c.shape[0], dtype=c.dtype, device=c.device)
    scale[0] = 0.5
    return c * (scale if c.dim() == 1 else scale.unsqueeze(-1))


def chebii_filter(lap: torch.Tensor, x: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
    """ChebNetII propagation: the Chebyshev interpolant of ``γ`` (values at the Chebyshev nodes) applied to ``x``."""
    return _chebii_filter(_finite("lap", lap), _finite("x", x), chebii_coefficients(gamma))


def _chebii_filter(lap: torch.Tensor, x: torch.Tensor, coefficients: torch.Tensor) -> torch.Tensor:
    return _cheb_filter(lap, x, _halve_c0(coefficients))


def chebii_response(lam: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
    """The scalar ChebNetII filter on eigenvalues ``lam``; equals ``γ_j`` at ``λ = x_j + 1``."""
    return _cheb_response(_spectrum("lam", lam), _halve_c0(chebii_coefficients(gamma)))


# ----------------------------------------------------------------------------------------------- oracle
def eig_filter(lap: torch.Tensor, x: torch.Tensor, response) -> torch.Tensor:
    """Reference filtering ``U g(Λ) U^T x`` by dense eigendecomposition (small graphs only).

    ``response`` maps eigenvalues ``(..., n)`` to ``(..., n)`` (shared) or ``(..., n, C)`` (per channel).
    """
    lap = _finite("lap", lap)
    if lap.is_sparse:
        lap = lap.to_dense()
    if lap.dim() not in (2, 3) or lap.shape[-1] != lap.shape[-2]:
        raise ValueError(f"lap must be (n, n) or (B, n, n); got {tuple(lap.shape)}")
    checks.tensor("x", x, ndim=lap.dim())
    if x.shape[-2] != lap.shape[-1]:
        raise ValueError(f"x must have {lap.shape[-1]} rows (one per node of lap); got shape {tuple(x.shape)}")
    if not callable(response):
        raise TypeError(f"response must be a function of the eigenvalues; got {type(response).__name__}")
    lam, U = torch.linalg.eigh(lap)
    g = response(lam)
    z = U.transpose(-1, -2) @ x
    z = z * (g.unsqueeze(-1) if g.dim() == lam.dim() else g)
    return U @ z


# ----------------------------------------------------------------------------------------------- modules
class ChebConv(nn.Module):
    """ChebNet layer: ``sum_k T_k(L - I) x W_k (+ b)`` (one weight matrix per order, as PyG's ``ChebConv``).

    ``K`` is the highest order. ``K = 0`` is allowed on purpose (PyG's ``ChebConv(K=1)``): the zero-order layer
    ``x W_0 (+ b)``, which does not propagate, the no-graph reference of an order sweep."""

    def __init__(self, in_channels: int, out_channels: int, K: int, bias: bool = True):
        super().__init__()
        checks.positive_int("in_channels", in_channels)
        checks.positive_int("out_channels", out_channels)
        self.K = checks.nonnegative_int("K", K)
        self.lins = nn.ModuleList(nn.Linear(in_channels, out_channels, bias=False) for _ in range(K + 1))
        self.bias = nn.Parameter(torch.zeros(out_channels)) if bias else None

    def forward(self, x: torch.Tensor, lap: torch.Tensor) -> torch.Tensor:
        out = sum(lin(t) for lin, t in zip(self.lins, _cheb_basis(lap, x, self.K)))
        return out if self.bias is None else out + self.bias


class BernProp(nn.Module):
    """BernNet propagation with ``ReLU(θ_k)`` (non-negative filter), ``θ`` initialised to 1 (all-pass)."""

    def __init__(self, K: int, channels: int | None = None):
        super().__init__()
        self.K = checks.nonnegative_int("K", K)
        shape = (K + 1,) if channels is None else (K + 1, checks.positive_int("channels", channels))
        self.theta = nn.Parameter(torch.ones(shape))

    def coefficients(self) -> torch.Tensor:
        return torch.relu(self.theta)

    def response(self, lam: torch.Tensor) -> torch.Tensor:
        return _bern_response(torch.as_tensor(lam), self.coefficients().to(torch.as_tensor(lam).dtype))

    def forward(self, x: torch.Tensor, lap: torch.Tensor) -> torch.Tensor:
        return _bern_filter(lap, x, self.coefficients())


class ChebIIProp(nn.Module):
    """ChebNetII propagation with ``ReLU(γ_j)`` at the Chebyshev nodes, ``γ`` initialised to 1 (all-pass)."""

    def __init__(self, K: int, channels: int | None = None):
        super().__init__()
        self.K = checks.nonnegative_int("K", K)
        shape = (K + 1,) if channels is None else (K + 1, checks.positive_int("channels", channels))
        self.gamma = nn.Parameter(torch.ones(shape))

    def values(self) -> torch.Tensor:
        return torch.relu(self.gamma)

    def response(self, lam: torch.Tensor) -> torch.Tensor:
        return _cheb_response(torch.as_tensor(lam), _halve_c0(_chebii_coefficients(
            self.values().to(torch.as_tensor(lam).dtype))))

    def forward(self, x: torch.Tensor, lap: torch.Tensor) -> torch.Tensor:
        return _chebii_filter(lap, x, _chebii_coefficients(self.values()))
