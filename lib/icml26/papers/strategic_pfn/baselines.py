"""Baselines (docs/papers/strategic_pfn.md §4), as score functions compatible with :mod:`.method`.

* the **base PFN** with the clean context (``method.pfn_rule``), the main foundation-model baseline;
* classical tabular models trained on clean data (scikit-learn): logistic regression,
  histogram gradient boosting, an MLP (:func:`fit_classical`);
* **strategic LR** (Hardt et al. 2016 threshold shift): LR whose boundary is moved by the budget
  ``r`` along the cheapest manipulation direction, so that gaming up to ``r`` can no longer cross
  it (:func:`strategic_lr`);
* the **oracle PFN** (context = fresh rows drawn from the test's strategic distribution) and SPN with a
  misspecified budget are built in :mod:`.experiment` from the same pieces.

Each classical model is fitted per task (``R`` fits); predictions are batched through a score function
``(R, m, d) -> (R, m)`` whose sign is the decision.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks

from .method import _check_cost, _check_labels, _check_rows, _move_direction

CLASSICAL = ("lr", "hgb", "mlp")


def _make(name: str, seed: int):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    if name == "lr":
        return LogisticRegression(C=1.0, max_iter=500)
    if name == "hgb":
        return HistGradientBoostingClassifier(max_iter=100, learning_rate=0.1, max_leaf_nodes=15,
                                              min_samples_leaf=10, random_state=seed)
    if name == "mlp":
        return MLPClassifier(hidden_layer_sizes=(64, 64), alpha=1e-3, max_iter=500, early_stopping=False,
                             random_state=seed)
    raise ValueError(f"name must be one of {CLASSICAL}; got {name!r}")


class ClassicalRule:
    """``R`` scikit-learn classifiers (one per task) exposed as a batched log-odds score function."""

    def __init__(self, name: str, x_ctx: torch.Tensor, y_ctx: torch.Tensor, seed: int = 0):
        x_ctx = _check_rows("x_ctx", x_ctx)
        _check_labels("y_ctx", y_ctx, x_ctx.shape[:2])
        if name not in CLASSICAL:
            raise ValueError(f"name must be one of {CLASSICAL}; got {name!r}")
        checks.seed("seed", seed)
        self.name = name
        X, y = x_ctx.detach().cpu().numpy(), y_ctx.detach().cpu().numpy()
        self.models = []
        for i in range(X.shape[0]):
            if len(np.unique(y[i])) < 2:
                raise ValueError(f"y_ctx of task {i} holds a single class; a classifier needs both")
            self.models.append(_make(name, seed + i).fit(X[i], y[i]))

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        xs = x.detach().cpu().numpy()
        out = []
        for m, xi in zip(self.models, xs):
            if self.name == "lr":
                out.append(m.decision_function(xi))
            else:
                p = np.clip(m.predict_proba(xi)[:, 1], 1e-6, 1 - 1e-6)
                out.append(np.log(p) - np.log1p(-p))
        return torch.as_tensor(np.stack(out), dtype=x.dtype, device=x.device)

    def linear(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``(w (R, d), b (R,))`` of a logistic-regression rule."""
        if self.name != "lr":
            raise ValueError("linear() is defined for the 'lr' rule only")
        w = torch.tensor(np.stack([m.coef_[0] for m in self.models]), dtype=torch.float32)
        b = torch.tensor([float(m.intercept_[0]) for m in self.models], dtype=torch.float32)
        return w, b


def fit_classical(names, x_ctx: torch.Tensor, y_ctx: torch.Tensor, seed: int = 0) -> dict[str, ClassicalRule]:
    """Fit each named classical baseline (``"lr"``, ``"hgb"``, ``"mlp"``) on the clean context."""
    if isinstance(names, str):
        raise TypeError(f"names must be a list of names drawn from {CLASSICAL}, not a string; got {names!r}")
    names = list(names)
    if not names or any(n not in CLASSICAL for n in names):
        raise ValueError(f"names must be a non-empty list drawn from {CLASSICAL}; got {names}")
    x_ctx = _check_rows("x_ctx", x_ctx)
    _check_labels("y_ctx", y_ctx, x_ctx.shape[:2])
    checks.seed("seed", seed)
    return {n: ClassicalRule(n, x_ctx, y_ctx, seed) for n in names}


def strategic_lr(lr_rule: ClassicalRule, cost: torch.Tensor, budget: float):
    """Hardt-style strategic linear rule: shift LR's boundary up by ``budget`` cost-norm units.

    Returns a score function ``s'(x) = w.x + b - budget * sqrt(w^T C^-1 w)``: an agent with budget
    ``<= budget`` can reach ``s' >= 0`` only if it already had ``s >= 0``.
    """
    checks.nonnegative_number("budget", budget)
    if not isinstance(lr_rule, ClassicalRule) or lr_rule.name != "lr":
        raise TypeError(f"lr_rule must be a ClassicalRule named 'lr'; got {lr_rule!r:.80}")
    if not isinstance(cost, torch.Tensor):
        raise TypeError(f"cost must be a tensor of shape (d,) or (R, d); got {type(cost).__name__}")
    w, b = lr_rule.linear()
    cost = _check_cost(cost.cpu(), w.shape[-1])
    _, gain = _move_direction(w, cost)
    b_shift = b - budget * gain

    def score(x: torch.Tensor) -> torch.Tensor:
        return (torch.einsum("rnd,rd->rn", x, w.to(x)) + b_shift.to(x)[:, None])

    score.w, score.b = w, b_shift
    return score
