"""The experiment: base PFN vs Strategic PFN vs classical baselines under manipulation.

See docs/papers/strategic_pfn.md §2-§5.

``run(config, device, seed)``:

1. pretrains a tiny PFN at run time on the linear + MLP-SCM classification prior (docs §3.6);
2. draws ``reps`` independent ``strategic_gauss`` tasks (each with its own
   rotation, context, test and spare rows), standardised with clean-context statistics;
3. for each budget ``r`` (protocol **P1**: test agents respond to the deployed base PFN ``h_0``)
   measures accuracy / false-positive rate of: base PFN, SPN-replace, SPN-augment, the oracle PFN,
   SPN with budget ``r/2`` and ``2r``, LR / HistGBDT / MLP (responses to ``h_0`` and to themselves),
   and the strategic (threshold-shifted) LR (responses to itself);
4. protocol **P2** (test agents respond to the rule being evaluated): one-shot and iterated SPN;
5. optionally a context-size sweep (S4), the breast-cancer table (S5, real data) and the synthetic
   non-linear ``credit_like`` table (S5_credit);
6. with ``misspecified``, SPN built with a wrong budget (r/2, 2r) and a wrong cost (:func:`wrong_cost`).

Every strategy-aware comparison is made within one protocol: under P1 the strategic LR is scored on
the same responses to ``h_0`` as SPN (``strategic_lr_p1``); under P2 each rule faces responses to itself
(``*_p2`` in ``p1``, and ``p2``'s SPN rows, on the same test rows).

All PFN work is batched over the ``reps`` tasks on ``device``.
"""

from __future__ import annotations

import time

import torch

from icml26 import checks, progress
from icml26.data import priors
from icml26.nn.pfn import TinyPFN, train_pfn

from . import baselines, data, method

PFN_QUICK = dict(d_max=8, d_model=64, n_layers=2, n_heads=4, d_ff=128, steps=200, batch_size=16,
                 n_ctx=(16, 160), n_qry=32, lr=2e-3, prior_weights=(0.8, 0.2), time_limit=None)

CONFIGS = {
    "quick": dict(
        pfn=PFN_QUICK,
        data=dict(d=6, n_mutable=3, n_ctx=128, n_test=2000, reps=4, separation=1.1, anisotropy=4.0),
        budgets=[0.0, 1.0, 1.5], response="line", cross_fit=4, agents=dict(pi=1.0, random_budget=False),
        classical=["lr"], misspecified=False, p2_budgets=[], rounds=3, equal_knowledge=["lr", "hgb"],
        ctx_sweep=None, real=None,
    ),
    "standard": dict(
        pfn=dict(PFN_QUICK, d_model=64, d_ff=128, n_layers=2, steps=600, n_ctx=(32, 544), lr=2e-3),
        data=dict(d=6, n_mutable=3, n_ctx=256, n_test=4000, reps=5, separation=1.1, anisotropy=4.0),
        budgets=[0.0, 0.5, 1.0, 1.5, 2.0], response="line", cross_fit=4, agents=dict(pi=1.0, random_budget=False),
        classical=["lr", "hgb", "mlp"], misspecified=True, p2_budgets=[1.0, 1.5], rounds=3,
        equal_knowledge=["lr", "hgb"],
        ctx_sweep=dict(n_ctx=[64, 128, 256, 512], budget=1.0),
        real=dict(name="breast_cancer", reps=5, n_ctx=256, budget=1.0, classical=["lr", "hgb"]),
        credit=dict(reps=5, n_ctx=256, n_test=2000, budget=1.0, classical=["lr", "hgb"]),
    ),
    "full": dict(
        pfn=dict(d_max=8, d_model=256, n_layers=6, n_heads=8, d_ff=512, steps=10000, batch_size=128,
                 n_ctx=(32, 544), n_qry=64, lr=3e-4, prior_weights=(0.5, 0.5), time_limit=None),
        data=dict(d=6, n_mutable=3, n_ctx=256, n_test=4000, reps=5, separation=1.1, anisotropy=4.0),
        budgets=[0.0, 0.5, 1.0, 1.5, 2.0], response="line", cross_fit=4, agents=dict(pi=1.0, random_budget=False),
        classical=["lr", "hgb", "mlp"], misspecified=True, p2_budgets=[1.0, 1.5], rounds=3,
        equal_knowledge=["lr", "hgb"],
        ctx_sweep=dict(n_ctx=[64, 128, 256, 512], budget=1.0),
        real=dict(name="breast_cancer", reps=5, n_ctx=256, budget=1.0, classical=["lr", "hgb"]),
        credit=dict(reps=5, n_ctx=256, n_test=2000, budget=1.0, classical=["lr", "hgb"]),
        stochastic=dict(pis=[0.25, 0.5, 1.0], budget=1.5),
    ),
}


FULL_ESTIMATE = """Sizing of ``CONFIGS["full"]`` for one H200 (an estimate: no GPU was available to measure it).

Pretraining: one step is 128 tasks x ~350 tokens on average (n_ctx ~ U[32, 544] + 64 queries) = ~45k tokens; a
pre-LN layer of width 256 (d_ff 512) costs ~16 d^2 = 1.05 MFLOP per token forward plus ~0.3 MFLOP of attention,
so 6 layers x 3 (forward + backward) = ~24 MFLOP per token, ~1.1 TFLOP per step. At an effective 50 TFLOP/s (bf16,
small matrices) that is ~22 ms per step, so 10k steps take ~220 s and the cosine schedule runs to its end
(``time_limit=None``: issue 34 found the earlier 20k steps cut at 240 s, mid-schedule). Evaluation: the standard
run spends most of its CPU time in PFN forwards of the responses; the full model is ~400x the FLOPs of the
standard one, ~1-2 min on the GPU. Total: ~5-6 min, under the 10 minute bound.
"""

PFN_KEYS = ("d_max", "d_model", "n_layers", "n_heads", "d_ff", "steps", "batch_size", "n_ctx", "n_qry", "lr",
            "prior_weights")
DATA_KEYS = ("d", "n_mutable", "n_ctx", "n_test", "reps", "separation", "anisotropy")
RUN_KEYS = ("pfn", "data", "budgets", "response", "agents", "classical", "misspecified")


def _check_budgets(name: str, budgets) -> list:
    if isinstance(budgets, (str, bytes)) or not hasattr(budgets, "__iter__"):
        raise TypeError(f"{name} must be a list of budgets; got {type(budgets).__name__}")
    for i, r in enumerate(budgets):
        checks.nonnegative_number(f"{name}[{i}]", r)
    return budgets


def _check_eval_config(config) -> None:
    checks.config("config", config, required=("budgets", "response", "agents", "classical", "misspecified"))
    checks.one_of("config['response']", config["response"], method.RESPONSES)
    checks.config("config['agents']", config["agents"], required=("pi", "random_budget"))
    _check_budgets("config['budgets']", config["budgets"])


def _check_eval_inputs(model, task, seed) -> None:
    if not isinstance(model, TinyPFN) or model.task != "cls":
        raise TypeError(f"model must be a classification TinyPFN; got {type(model).__name__}")
    if not isinstance(task, data.StrategicTask):
        raise TypeError(f"task must be a StrategicTask; got {type(task).__name__}")
    checks.seed("seed", seed)


def wrong_cost(cost: torch.Tensor) -> torch.Tensor:
    """A misspecified cost model: the finite (mutable) costs in reverse order, immutable ones kept."""
    if not isinstance(cost, torch.Tensor) or cost.ndim != 1 or not cost.numel():
        raise ValueError(f"cost must be a non-empty tensor of shape (d,); got {getattr(cost, 'shape', cost)!r}")
    out = cost.clone()
    mut = torch.isfinite(cost)
    out[mut] = cost[mut].flip(0)
    return out


def nonstrategic_context(x_ctx: torch.Tensor, x_strategic: torch.Tensor, cost: torch.Tensor,
                         generator: torch.Generator) -> torch.Tensor:
    """The context of the negative control: each row moved by the length of its strategic move
    (``x_strategic - x_ctx``) in a uniformly random direction of the mutable (finite-cost) features.

    The rows are shifted as much as SPN shifts them, but not towards the deployed rule's boundary: a context from a
    non-strategic prior of the same size of perturbation."""
    checks.tensor("x_ctx", x_ctx, ndim=3, dtype_kind="float")
    checks.tensor("x_strategic", x_strategic, shape=tuple(x_ctx.shape), dtype_kind="float")
    if not isinstance(cost, torch.Tensor) or cost.shape != x_ctx.shape[-1:]:
        raise ValueError(f"cost must be a tensor of shape ({x_ctx.shape[-1]},); got {getattr(cost, 'shape', cost)!r}")
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator; got {type(generator).__name__}")
    length = (x_strategic - x_ctx).norm(dim=-1, keepdim=True)
    mutable = torch.isfinite(cost).to(x_ctx.dtype)
    direction = torch.randn(x_ctx.shape, generator=generator, device=x_ctx.device, dtype=x_ctx.dtype) * mutable
    direction = direction / direction.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    return x_ctx + length * direction


def _key(r: float) -> str:
    return f"{float(r):g}"


def pretrain_pfn(cfg: dict, device, seed: int) -> tuple[TinyPFN, dict]:
    """Train the tiny PFN of ``cfg`` (a ``CONFIGS[...]["pfn"]`` dict) on the linear + MLP-SCM prior."""
    checks.config("cfg", cfg, required=PFN_KEYS)
    checks.device("device", device)
    checks.seed("seed", seed)
    arch = {k: cfg[k] for k in ("d_max", "d_model", "n_layers", "n_heads", "d_ff")}
    torch.manual_seed(seed)
    model = TinyPFN(task="cls", **arch).to(device)
    sampler = priors.mixture(["linear_logistic", "mlp_scm"], cfg["prior_weights"])
    hist = train_pfn(model, sampler, cfg["steps"], batch_size=cfg["batch_size"], n_ctx=tuple(cfg["n_ctx"]),
                     n_qry=cfg["n_qry"], lr=cfg["lr"], seed=seed, device=device, time_limit=cfg.get("time_limit"))
    k = max(1, min(20, hist["steps"] // 5))
    info = {"steps": hist["steps"], "seconds": hist["seconds"],
            "loss_first": sum(hist["loss"][:k]) / k, "loss_last": sum(hist["loss"][-k:]) / k}
    return model, info


def accuracy(scores: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Per-task accuracy of the rule ``scores >= 0``; ``(R,)``."""
    _check_scores(scores, y)
    return ((scores >= 0).long() == y).float().mean(-1)


def false_positive_rate(scores: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Per-task ``P(accept | y = 0)``; ``(R,)``."""
    _check_scores(scores, y)
    neg = (y == 0).float()
    return ((scores >= 0).float() * neg).sum(-1) / neg.sum(-1).clamp_min(1)


def _check_scores(scores, y) -> None:
    checks.tensor("scores", scores, ndim=2, finite=False)  # an infinite score is a sure decision
    if scores.is_floating_point() and bool(torch.isnan(scores).any()):
        raise ValueError("scores must not hold NaN")
    if not isinstance(y, torch.Tensor) or y.shape != scores.shape:
        raise ValueError(f"y must be a label tensor of the scores' shape {tuple(scores.shape)}; got "
                         f"{getattr(y, 'shape', type(y).__name__)}")
    checks.tensor("y", y)
    if not bool(((y == 0) | (y == 1)).all()):
        raise ValueError(f"y must hold labels 0 and 1; got values {torch.unique(y)[:5].tolist()}")


def _record(store: dict, name: str, r, scores, y):
    acc, fpr = accuracy(scores, y), false_positive_rate(scores, y)
    store.setdefault(name, {})[_key(r)] = {"acc": acc.mean().item(), "fpr": fpr.mean().item(),
                                           "acc_per_rep": acc.tolist()}


def evaluate_budgets(model: TinyPFN, task: data.StrategicTask, config: dict, seed: int,
                     budgets=None, classical=None, misspecified=None, equal_knowledge=None) -> dict:
    """Protocol P1 over ``budgets``: every method's accuracy / FPR on the manipulated test set.

    ``equal_knowledge`` (default: ``config["equal_knowledge"]`` when ``classical`` is not given, else none) names the
    classical learners also fit on SPN's own simulated context (``{name}_spnctx_p1`` / ``_p2``)."""
    _check_eval_inputs(model, task, seed)
    _check_eval_config(config)
    if budgets is not None:
        _check_budgets("budgets", budgets)
    if classical is not None and (isinstance(classical, str) or any(n not in baselines.CLASSICAL for n in classical)):
        raise ValueError(f"classical must be a list drawn from {baselines.CLASSICAL}; got {classical!r}")
    dev = task.x_ctx.device
    g = torch.Generator(device=dev).manual_seed(seed + 7)
    g_ctrl = torch.Generator(device=dev).manual_seed(seed + 13)  # the control's own stream: g's draws stay as they were
    budgets = config["budgets"] if budgets is None else budgets
    names = config["classical"] if classical is None else classical
    misspec = config["misspecified"] if misspecified is None else misspecified
    if equal_knowledge is None:
        equal_knowledge = (config.get("equal_knowledge") or []) if classical is None else []
    if isinstance(equal_knowledge, str) or any(n not in baselines.CLASSICAL for n in equal_knowledge):
        raise ValueError(f"equal_knowledge must be a list drawn from {baselines.CLASSICAL}; got {equal_knowledge!r}")
    eq_names = list(equal_knowledge)
    resp = config["response"]
    ag = config["agents"]
    out: dict = {}
    x_ctx, y_ctx, x_te, y_te, cost = task.x_ctx, task.y_ctx, task.x_test, task.y_test, task.cost
    with torch.no_grad():
        h0 = method.pfn_rule(model, x_ctx, y_ctx)
        cf = config.get("cross_fit", 0)
        src = method.context_rule_factory(model, x_ctx, y_ctx, x_ctx.shape[1]) if cf else h0
        base_clean = h0(x_te)
        rules = baselines.fit_classical(names, x_ctx, y_ctx, seed) if names else {}
        clean_scores = {n: rule(x_te) for n, rule in rules.items()}
        for r in budgets:
            agents = method.Agents(float(r), ag["pi"], ag["random_budget"])
            _record(out, "base_clean", r, base_clean, y_te)
            x_m = method.best_response(h0, x_te, cost, agents.draw(x_te.shape[:2], g, dev), method=resp)
            _record(out, "base", r, h0(x_m), y_te)
            for variant in method.VARIANTS:
                xs, ys = method.strategic_context(src, x_ctx, y_ctx, cost, agents, g, method=resp, variant=variant,
                                                  cross_fit=cf)
                name = "spn" if variant == "replace" else "spn_augment"
                _record(out, name, r, method.pfn_rule(model, xs, ys)(x_m), y_te)
                if variant == "replace":
                    # the negative control: SPN fed a non-strategic context, every row moved as far as its
                    # strategic move but in a random direction of the mutable features (a shift that does not
                    # respond to the deployed rule)
                    x_ns = nonstrategic_context(x_ctx, xs, cost, g_ctrl)
                    _record(out, "spn_nonstrategic", r, method.pfn_rule(model, x_ns, ys)(x_m), y_te)
                    # equal knowledge (issue 69): classical learners fit on SPN's own simulated context, scored under
                    # P1 (the responses to h_0 SPN faces) and P2 (responses to themselves)
                    for n, rule in (baselines.fit_classical(eq_names, xs, ys, seed) if eq_names else {}).items():
                        _record(out, f"{n}_spnctx_p1", r, rule(x_m), y_te)
                        x_self = method.best_response(rule, x_te, cost, agents.draw(x_te.shape[:2], g_ctrl, dev),
                                                      method=resp, surrogate_X=x_ctx)
                        _record(out, f"{n}_spnctx_p2", r, rule(x_self), y_te)
            if cf:  # the literal construction: context rows respond to the rule that contains them
                xs, ys = method.strategic_context(h0, x_ctx, y_ctx, cost, agents, g, method=resp)
                _record(out, "spn_in_sample", r, method.pfn_rule(model, xs, ys)(x_m), y_te)
            if task.x_extra.shape[1]:
                xo = method.best_response(h0, task.x_extra, cost, agents.draw(task.x_extra.shape[:2], g, dev),
                                          method=resp, surrogate_X=x_ctx)
                _record(out, "oracle", r, method.pfn_rule(model, xo, task.y_extra)(x_m), y_te)
            if misspec:
                for tag, f in (("spn_half_r", 0.5), ("spn_double_r", 2.0)):
                    a2 = method.Agents(float(r) * f, ag["pi"], ag["random_budget"])
                    xs, ys = method.strategic_context(src, x_ctx, y_ctx, cost, a2, g, method=resp, cross_fit=cf)
                    _record(out, tag, r, method.pfn_rule(model, xs, ys)(x_m), y_te)
                # wrong cost: SPN simulates the context with the mutable features' costs in reverse order
                xs, ys = method.strategic_context(src, x_ctx, y_ctx, wrong_cost(cost), agents, g, method=resp,
                                                  cross_fit=cf)
                _record(out, "spn_wrong_cost", r, method.pfn_rule(model, xs, ys)(x_m), y_te)
            for n, rule in rules.items():
                _record(out, f"{n}_clean", r, clean_scores[n], y_te)
                _record(out, f"{n}_p1", r, rule(x_m), y_te)
                x_self = method.best_response(rule, x_te, cost, agents.draw(x_te.shape[:2], g, dev),
                                              method=resp, surrogate_X=x_ctx)
                _record(out, f"{n}_p2", r, rule(x_self), y_te)
            if "lr" in rules:
                slr = baselines.strategic_lr(rules["lr"], cost, float(r))
                _record(out, "strategic_lr_p1", r, slr(x_m), y_te)  # P1: the agents' responses to h_0
                x_self = method.linear_best_response(x_te, slr.w.to(dev), slr.b.to(dev), cost,
                                                     agents.draw(x_te.shape[:2], g, dev))
                _record(out, "strategic_lr_p2", r, slr(x_self), y_te)
    return out


def evaluate_p2(model: TinyPFN, task: data.StrategicTask, config: dict, seed: int) -> dict:
    """Protocol P2: test agents respond to the evaluated rule itself (one-shot and iterated SPN)."""
    _check_eval_inputs(model, task, seed)
    checks.config("config", config, required=("p2_budgets", "rounds", "response", "agents"))
    checks.one_of("config['response']", config["response"], method.RESPONSES)
    _check_budgets("config['p2_budgets']", config["p2_budgets"])
    checks.positive_int("config['rounds']", config["rounds"])
    dev = task.x_ctx.device
    g = torch.Generator(device=dev).manual_seed(seed + 11)
    ag, resp, out = config["agents"], config["response"], {}
    for r in config["p2_budgets"]:
        agents = method.Agents(float(r), ag["pi"], ag["random_budget"])
        with torch.no_grad():
            for tag, rounds in (("spn_p2_oneshot", 1), ("spn_p2_iterated", config["rounds"])):
                spn = method.StrategicPFN(model, task.cost, agents, rounds=rounds, method=resp,
                                          cross_fit=config.get("cross_fit", 0)).fit(
                    task.x_ctx, task.y_ctx, g)
                x_m = method.best_response(spn.rule, task.x_test, task.cost,
                                           agents.draw(task.x_test.shape[:2], g, dev), method=resp,
                                           surrogate_X=task.x_ctx)
                _record(out, tag, r, spn.rule(x_m), task.y_test)
            h0 = spn.base_rule
            x_m = method.best_response(h0, task.x_test, task.cost, agents.draw(task.x_test.shape[:2], g, dev),
                                       method=resp)
            _record(out, "base_p2", r, h0(x_m), task.y_test)
    return out


def _gauss_task(dcfg: dict, n_ctx: int, seed: int, device) -> data.StrategicTask:
    return data.strategic_gauss(dcfg["reps"], n_ctx, dcfg["n_test"], d=dcfg["d"], n_mutable=dcfg["n_mutable"],
                                n_extra=n_ctx, separation=dcfg["separation"], anisotropy=dcfg["anisotropy"],
                                seed=seed, device=device)


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run the experiment at ``config`` (one of :data:`CONFIGS`); returns plain numbers (see module doc)."""
    checks.config_like("config", config, CONFIGS.values())
    if not isinstance(config, dict) or not {"pfn", "data", "budgets"} <= set(config):
        raise ValueError("config must be a dict like CONFIGS['quick'] (keys pfn, data, budgets, ...)")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    checks.config("config", config, required=RUN_KEYS)
    checks.config("config['pfn']", config["pfn"], required=PFN_KEYS)
    checks.config("config['data']", config["data"], required=DATA_KEYS)
    for key in ("reps", "n_test", "d"):
        checks.positive_int(f"config['data']['{key}']", config["data"][key])
    checks.positive_int("config['pfn']['steps']", config["pfn"]["steps"])
    _check_eval_config(config)
    if config.get("p2_budgets"):
        _check_budgets("config['p2_budgets']", config["p2_budgets"])
        checks.positive_int("config['rounds']", config.get("rounds"))
    checks.device("device", device)
    device = torch.device(device)
    t0 = time.perf_counter()
    bar = progress.StageBar(["pretrain PFN", "evaluate budgets"] + (["P2 rounds"] if config.get("p2_budgets") else [])
                            + (["context sweep"] if config.get("ctx_sweep") else [])
                            + (["real data"] if config.get("real") else [])
                            + (["credit table"] if config.get("credit") else [])
                            + (["stochastic agents"] if config.get("stochastic") else []), desc="strategic_pfn")
    bar.next("pretrain PFN")
    model, info = pretrain_pfn(config["pfn"], device, seed)
    bar.next("evaluate budgets")
    dcfg = config["data"]
    task = _gauss_task(dcfg, dcfg["n_ctx"], 1000 + seed, device)
    results = {"pfn": info, "budgets": [float(r) for r in config["budgets"]], "reps": dcfg["reps"],
               "p1": evaluate_budgets(model, task, config, seed)}
    if config.get("p2_budgets"):
        bar.next("P2 rounds")
        results["p2"] = evaluate_p2(model, task, config, seed)
    sweep = config.get("ctx_sweep")
    if sweep:
        bar.next("context sweep")
        rows = {"n_ctx": list(sweep["n_ctx"]), "base_gap": [], "spn_gap": [], "base_acc": [], "spn_acc": [],
                "clean_acc": []}
        for i, n in enumerate(sweep["n_ctx"]):
            t = _gauss_task(dcfg, n, 2000 + 10 * seed + i, device)
            res = evaluate_budgets(model, t, config, seed, budgets=[sweep["budget"]], classical=[],
                                   misspecified=False)
            k = _key(sweep["budget"])
            clean, base, spn = (res[m][k]["acc"] for m in ("base_clean", "base", "spn"))
            for name, v in (("base_gap", clean - base), ("spn_gap", clean - spn), ("base_acc", base),
                            ("spn_acc", spn), ("clean_acc", clean)):
                rows[name].append(v)
        results["ctx_sweep"] = rows
    real = config.get("real")
    if real:
        bar.next("real data")
        t = data.breast_cancer_task(real["reps"], n_ctx=real["n_ctx"], seed=3000 + seed, device=device)
        results["real"] = {"name": real["name"], "budget": real["budget"],
                           **evaluate_budgets(model, t, config, seed, budgets=[real["budget"]],
                                              classical=real["classical"],
                                              misspecified=False)}
    credit = config.get("credit")
    if credit:
        bar.next("credit table")
        t = data.credit_like(credit["reps"], credit["n_ctx"], credit["n_test"], seed=4000 + seed, device=device)
        results["credit"] = {"name": "credit_like", "budget": credit["budget"],
                             **evaluate_budgets(model, t, config, seed, budgets=[credit["budget"]],
                                                classical=credit["classical"],
                                                misspecified=False,
                                                equal_knowledge=config.get("equal_knowledge") or [])}
    stoch = config.get("stochastic")
    if stoch:
        bar.next("stochastic agents")
        results["stochastic"] = {}
        for pi in stoch["pis"]:
            cfg = dict(config, agents=dict(pi=pi, random_budget=True))
            res = evaluate_budgets(model, task, cfg, seed, budgets=[stoch["budget"]], classical=[],
                                   misspecified=False)
            results["stochastic"][_key(pi)] = {m: res[m][_key(stoch["budget"])]["acc"] for m in res}
    results["seconds"] = time.perf_counter() - t0
    bar.close()
    return results
