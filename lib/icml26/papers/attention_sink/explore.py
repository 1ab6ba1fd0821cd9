"""Plotting functions for the attention-sink notebooks and explorers (pure: parameters in, Figure out).

* :func:`plot_sink_explorer` - THE attention-sink explorer: one toy head, its attention map with the sink
  column, the gate ``G_t`` of the three variants and the MoE identity ``O_t = G_t E_t``
  (docs/papers/attention_sink.md §3.2).
* :func:`plot_trained_explorer` - the same explorer on the shipped Bigram-Backcopy models whose sinks are real
  (:mod:`.trained`): a head's attention map on a held-out window, every head's gate per token, the heads' load
  with and without the balancing loss; :func:`plot_emergence` - their sink share and value drain over training.
* :func:`plot_training`, :func:`plot_importance`, :func:`plot_ablation`, :func:`plot_pinning`,
  :func:`plot_run` - figures of a finished :func:`~icml26.papers.attention_sink.experiment.run`.
"""

from __future__ import annotations

import functools

import numpy as np
import torch

from icml26 import checks
from icml26.nn.attention import attention
from icml26.viz import PALETTE, figure

from . import trained
from .backcopy import held_out
from .method import head_importance, layer_cv, moe_decomposition, stack_gates

TOY_VARIANTS = ("vanilla", "sink", "gated_head")


def toy_head(sink_logit: float = 1.0, first_token_bias: float = 2.0, v0_scale: float = 0.2, gate_bias: float = 0.0,
             seq_len: int = 20, d: int = 16, seed: int = 0) -> dict:
    """A random single head (float64) run through the three variants; returns the pieces the explorer draws.

    ``first_token_bias`` is added to every query's score on key 0 (how strongly vanilla attention sinks),
    ``v0_scale`` scales the first token's value (0 = perfect value drain), ``sink_logit`` is the learned sink
    of sink attention and ``gate_bias`` shifts the gated variant's sigmoid gate.
    """
    if isinstance(seq_len, bool) or not isinstance(seq_len, int) or not 2 <= seq_len <= 256:
        raise ValueError(f"seq_len must be an integer in [2, 256]; got {seq_len!r}")
    checks.nonnegative_number("v0_scale", v0_scale)
    for name, value in (("sink_logit", sink_logit), ("first_token_bias", first_token_bias),
                        ("gate_bias", gate_bias)):
        checks.finite_number(name, value)
    checks.positive_int("d", d)
    checks.seed("seed", seed)
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(1, 1, seq_len, d, generator=g, dtype=torch.float64) for _ in range(3))
    w_gate = torch.randn(d, generator=g, dtype=torch.float64) / d**0.5
    v[:, :, 0] *= v0_scale
    prior = torch.zeros(1, 1, seq_len, seq_len, dtype=torch.float64)
    prior[..., 0] = first_token_bias
    van = attention(q, k, v, variant="vanilla", logit_prior=prior, need_weights=True)
    snk = attention(q, k, v, variant="sink", sink_logit=torch.tensor([sink_logit], dtype=torch.float64),
                    need_weights=True)
    gl = (q[..., :] @ w_gate) + gate_bias
    gat = attention(q, k, v, variant="gated_head", gate_logit=gl, need_weights=True)
    gate, expert = moe_decomposition(van.weights, v)
    return {"vanilla": van, "sink": snk, "gated_head": gat, "moe_gate": gate[0, 0], "expert": expert[0, 0],
            "v": v[0, 0]}


def plot_sink_explorer(variant: str = "vanilla", sink_logit: float = 1.0, first_token_bias: float = 2.0,
                       v0_scale: float = 0.2, gate_bias: float = 0.0, seq_len: int = 20, seed: int = 0):
    """Three panels: the chosen variant's attention map (sink column outlined), the gate ``G_t`` of all three
    variants, and ``||O_t||`` of the vanilla head against ``G_t ||E_t||`` (equal when ``v0_scale = 0``)."""
    if variant not in TOY_VARIANTS:
        raise ValueError(f"variant must be one of {TOY_VARIANTS}; got {variant!r}")
    toy = toy_head(sink_logit, first_token_bias, v0_scale, gate_bias, seq_len, seed=seed)
    fig, axes = figure(ncols=3, width=3.6, height=3.3)
    ax = axes[0, 0]
    res = toy[variant]
    w = res.weights[0, 0].numpy()
    if variant == "sink":
        p_sink = 1 - w.sum(-1, keepdims=True)
        w = np.concatenate([p_sink, w], axis=1)
        label = "keys (col 0 = learned sink)"
    else:
        label = "keys (col 0 = first token)"
    ax.imshow(w, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.add_patch(__import__("matplotlib").patches.Rectangle((-0.5, -0.5), 1, w.shape[0], fill=False,
                                                            edgecolor=PALETTE[1], lw=2))
    ax.set(title=f"{variant}: attention weights", xlabel=label, ylabel="query t")
    ax.grid(False)
    ax = axes[0, 1]
    t = np.arange(1, seq_len)
    for i, name in enumerate(TOY_VARIANTS):
        gate = toy[name].gate[0, 0, 1:].numpy()
        ax.plot(t, gate, color=PALETTE[i], lw=3 if name == variant else 1.2, label=f"{name} (mean {gate.mean():.2f})")
    ax.set(ylim=(-0.02, 1.02), xlabel="position t", ylabel="gate G_t", title="the sink is a gate")
    ax.legend(fontsize=8, loc="lower right")
    ax = axes[0, 2]
    out = toy["vanilla"].out[0, 0].norm(dim=-1).numpy()[1:]
    moe = (toy["moe_gate"][1:, None] * toy["expert"][1:]).norm(dim=-1).numpy()
    ax.plot(t, out, color=PALETTE[0], label="||O_t|| (vanilla head)")
    ax.plot(t, moe, "--", color=PALETTE[2], label="||G_t E_t|| (MoE view)")
    err = np.abs(toy["vanilla"].out[0, 0, 1:].numpy() - (toy["moe_gate"][1:, None] * toy["expert"][1:]).numpy()).max()
    ax.set(xlabel="position t", title=f"value drain: max gap {err:.2g}")
    ax.legend(fontsize=8)
    return fig


@functools.cache
def _trained(variant: str, lam: float):
    model, meta = trained.load(variant, lam)
    data = held_out(meta["recipe"]["seed"], model.cfg.context)
    with torch.no_grad():
        _, res = model(data["val"], return_attn=True, need_weights=True)
    return model, meta, data, res


def plot_trained_explorer(variant: str = "vanilla", lam: float = 0.0, head: int = 0, window: int = 0):
    """Three panels on a shipped Bigram-Backcopy model (:mod:`.trained`, one layer): ``head``'s attention map on
    held-out ``window`` (key 0 = BOS outlined; for sink attention a first column holds the learned sink's mass;
    the rows of copy queries, at a trigger, whose next token copies the token before it, are marked), every head's gate
    ``G_t`` along that window (trigger queries shaded), and each head's load ``Imp`` (mean gate over the held-out
    windows, §3.3) of the model trained without and with the balancing loss."""
    checks.one_of("variant", variant, trained.VARIANTS)
    checks.one_of("lam", lam, trained.LAMS)
    _, meta, data, res = _trained(variant, lam)
    n_heads, n_win = res[0].gate.shape[1], data["val"].shape[0]
    if isinstance(head, bool) or not isinstance(head, int) or not 0 <= head < n_heads:
        raise ValueError(f"head must be an integer in [0, {n_heads}); got {head!r}")
    if isinstance(window, bool) or not isinstance(window, int) or not 0 <= window < n_win:
        raise ValueError(f"window must be an integer in [0, {n_win}); got {window!r}")
    tokens = data["val"][window]
    trig = torch.isin(tokens, data["triggers"]).numpy()
    w = res[0].weights[window, head].numpy()
    sink_col = variant == "sink"
    if sink_col:
        w = np.concatenate([1 - w.sum(-1, keepdims=True), w], axis=1)
    fig, axes = figure(ncols=3, width=3.8, height=3.4)
    ax = axes[0, 0]
    ax.imshow(w, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    col = 1 if sink_col else 0
    import matplotlib.patches as patches

    ax.add_patch(patches.Rectangle((col - 0.5, -0.5), 1, w.shape[0], fill=False, edgecolor=PALETTE[1], lw=2))
    rows = np.flatnonzero(trig)  # a trigger's query predicts the copy: it must look back one token
    ax.scatter(np.full(len(rows), w.shape[1] - 1), rows, marker="<", color=PALETTE[3], s=18, label="copy query")
    ax.set(title=f"{variant}, lam={lam:g}: head {head}", xlabel="keys (" + ("col 0 = sink, " if sink_col else "")
           + "BOS outlined)", ylabel="query t")
    ax.grid(False)
    ax.legend(fontsize=7, loc="lower left")
    ax = axes[0, 1]
    t = np.arange(1, len(tokens))
    for r in rows:
        ax.axvspan(r - 0.5, r + 0.5, color=PALETTE[3], alpha=0.15, lw=0)
    for h in range(n_heads):
        ax.plot(t, res[0].gate[window, h, 1:].numpy(), color=PALETTE[h], lw=2.5 if h == head else 1.2,
                label=f"head {h}")
    ax.set(ylim=(-0.02, 1.02), xlabel="position t (shaded: copy queries)", ylabel="gate G_t",
           title="the gate opens where there is a token to copy")
    ax.legend(fontsize=7, loc="lower right")
    ax = axes[0, 2]
    for i, lm in enumerate(trained.LAMS):
        imp = head_importance(stack_gates(_trained(variant, lm)[3]))
        cv = float(layer_cv(imp).mean())
        ax.bar(np.arange(n_heads) + (i - 0.5) * 0.4, imp[0].numpy(), 0.4, color=PALETTE[i + 4],
               label=f"lam={lm:g} (CV {cv:.2f})")
    ax.set(ylim=(0, 1), xticks=range(n_heads), xlabel="head", ylabel="Imp (mean gate)", title="heads' load")
    ax.legend(fontsize=7)
    return fig


def plot_emergence(variant: str = "vanilla", lam: float = 0.0):
    """The training curve stored with a shipped model: each head's first-token share from non-trigger queries
    (solid) and from copy-trigger queries (dashed), the sink head's BOS value norm over the median value norm, and
    the validation loss, against Adam steps."""
    checks.one_of("variant", variant, trained.VARIANTS)
    checks.one_of("lam", lam, trained.LAMS)
    _, meta, _, _ = _trained(variant, lam)
    pts = meta["points"]
    steps = [p["step"] for p in pts]
    non, trig = np.array([p["a0_non_trigger"][0] for p in pts]), np.array([p["a0_trigger"][0] for p in pts])
    fig, axes = figure(ncols=3, width=3.6, height=3.0)
    for h in range(non.shape[1]):
        axes[0, 0].plot(steps, non[:, h], color=PALETTE[h], label=f"head {h}, no token to copy")
        axes[0, 0].plot(steps, trig[:, h], "--", color=PALETTE[h], label=f"head {h}, copy query")
    axes[0, 0].axhline(0.3, color="grey", lw=0.8, ls=":")
    axes[0, 0].set(ylim=(0, 1), xlabel="Adam step", ylabel="attention on BOS", title="a sink forms")
    axes[0, 0].legend(fontsize=7)
    axes[0, 1].plot(steps, [p["sink_head_v0_ratio"] for p in pts], color=PALETTE[2])
    axes[0, 1].axhline(0.5, color="grey", lw=0.8, ls=":")
    axes[0, 1].set(xlabel="Adam step", ylabel="||v_BOS|| / median ||v||", title="value drain (sink head)")
    axes[0, 2].plot(steps, [p["val_loss"] for p in pts], color=PALETTE[0])
    axes[0, 2].set(xlabel="Adam step", ylabel="validation loss (nats)", yscale="log",
                   title=f"{variant}, lam={lam:g}, seed {meta['recipe']['seed']}")
    return fig


def _need(results, *keys) -> None:
    checks.config("results", results, required=keys)


def _get(results, variant, lam):
    _need(results, "runs")
    checks.finite_number("lam", lam)
    runs = results["runs"]
    if variant not in runs:
        raise ValueError(f"variant must be one of {list(runs)}; got {variant!r}")
    key = f"lam={lam:g}"
    if key not in runs[variant]:
        raise ValueError(f"lam must be one of {[k[4:] for k in runs[variant]]}; got {lam!r}")
    return runs[variant][key][0]


def plot_training(results: dict):
    """LM loss and head-imbalance CV over training, per variant, with and without the aux loss."""
    _need(results, "runs")
    fig, axes = figure(ncols=2, width=4.2)
    for i, (variant, by_lam) in enumerate(results["runs"].items()):
        for key, evs in by_lam.items():
            h = evs[0]["history"]
            ls = "-" if key == "lam=0" else "--"
            axes[0, 0].plot(h["step"], h["loss"], ls, color=PALETTE[i], label=f"{variant} {key}")
            axes[0, 1].plot(h["step"], h["cv"], ls, color=PALETTE[i], label=f"{variant} {key}")
    axes[0, 0].set(xlabel="step", ylabel="train LM loss (nats/byte)", title="language modelling")
    axes[0, 1].set(xlabel="step", ylabel="mean layer CV of Imp", title="head imbalance")
    axes[0, 1].legend(fontsize=7)
    return fig


def plot_importance(results: dict, lam: float | None = None):
    """Head-importance heat-maps (layers x heads) for each variant at ``lam`` (default: 0 and the aux lambda)."""
    _need(results, "runs", *(("lam_aux",) if lam is None else ()))
    lams = [0.0, results["lam_aux"]] if lam is None else [lam]
    variants = list(results["runs"])
    fig, axes = figure(ncols=len(variants), nrows=len(lams), width=2.8, height=2.0)
    axes = np.atleast_2d(axes)
    for r, lm in enumerate(lams):
        for c, v in enumerate(variants):
            ev = _get(results, v, lm)
            ax = axes[r, c]
            ax.imshow(np.array(ev["imp"]), cmap="magma", vmin=0, vmax=1, aspect="auto")
            ax.set(title=f"{v}, lam={lm:g}\nCV {ev['mean_cv']:.2f}, mean {ev['mean_imp']:.2f}", xlabel="head",
                   ylabel="layer")
            ax.grid(False)
    return fig


def plot_ablation(results: dict):
    """Per-head ablation delta-loss against head importance (lam = 0 models)."""
    _need(results, "runs")
    variants = [v for v in results["runs"] if "ablation_delta" in _get(results, v, 0.0)]
    fig, axes = figure(ncols=max(1, len(variants)), width=3.4)
    for i, v in enumerate(variants):
        ev = _get(results, v, 0.0)
        ax = axes[0, i] if len(variants) > 1 else axes
        ax.scatter(np.ravel(ev["imp"]), np.ravel(ev["ablation_delta"]), color=PALETTE[i])
        ax.set(xlabel="Imp (mean gate)", ylabel="delta val loss when ablated",
               title=f"{v}: rho={ev['spearman_imp_ablation']:.2f}")
    return fig


def plot_pinning(results: dict):
    """C6: per-head importance before and after LoRA fine-tuning with the aux loss, per number of shared heads."""
    _need(results, "c6")
    c6 = results["c6"]
    fig, axes = figure(ncols=len(c6), width=3.2)
    for i, (name, ft) in enumerate(c6.items()):
        ax = axes[0, i]
        before, after = np.ravel(ft["imp_before"]), np.ravel(ft["imp_after"])
        ax.bar(np.arange(len(before)) - 0.2, before, 0.4, color=PALETTE[5], label="before")
        ax.bar(np.arange(len(after)) + 0.2, after, 0.4, color=PALETTE[i], label="after")
        ax.set(title=f"{name}: CV {ft['cv_before']:.3f} -> {ft['cv_after']:.3f}", xlabel="layer x head", ylabel="Imp")
        ax.legend(fontsize=7)
    return fig


def plot_run(results: dict, variant: str = "vanilla", lam: float = 0.0):
    """One trained model: its importance heat-map and its per-layer first-token attention share."""
    ev = _get(results, variant, lam)
    fig, axes = figure(ncols=2, width=3.6)
    axes[0, 0].imshow(np.array(ev["imp"]), cmap="magma", vmin=0, vmax=1, aspect="auto")
    axes[0, 0].set(title=f"{variant}, lam={lam:g}: Imp (CV {ev['mean_cv']:.2f})", xlabel="head", ylabel="layer")
    axes[0, 0].grid(False)
    a0 = np.array(ev["a0_per_layer"])
    for layer, row in enumerate(a0):
        axes[0, 1].bar(np.arange(len(row)) + 0.8 * layer / len(a0), row, 0.8 / len(a0), label=f"layer {layer + 1}")
    axes[0, 1].set(ylim=(0, 1), xlabel="head", ylabel="mean A_{t,0}", title=f"first-token share {ev['a0_mean']:.2f}")
    axes[0, 1].legend(fontsize=7)
    return fig
