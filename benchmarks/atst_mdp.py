"""Benchmark for paper 17 (ATST-MDPs): the planner's hot path against naive peers, in one run.

* induced features ``Psi(s, alpha)`` for all states and sequences: batched tensor recursion vs a
  Python loop over (s, alpha) pairs;
* exact sequence model ``R, Bseq`` (belief propagation + tail inverse): batched vs per-sequence loop;
* ridge statistics: Sherman-Morrison rank-one updates vs re-inverting ``Lambda`` after every segment;
* one optimistic value-iteration plan (all (s, alpha) at once) against the peer a NumPy/SciPy user would write
  (the same vectorised fixed-point iteration in NumPy float64), printed first.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.atst_mdp import method as M
from icml26.rl.linear import RidgeStats, optimistic_value_iteration, sherman_morrison_update


def psi_loop(phi, Mop, beta, gamma, seqs):
    """Reference: the §3.5 recursion one (s, alpha) pair at a time."""
    S, _, d = phi.shape
    nq, L = seqs.shape
    eye = torch.eye(d, dtype=phi.dtype, device=phi.device)
    out = torch.zeros(S, nq, 2 * d, dtype=phi.dtype, device=phi.device)
    for s in range(S):
        for q in range(nq):
            a_seq = [int(a) for a in seqs[q]]
            v, w = phi[s, a_seq[0]], 1.0
            pr, pb = torch.zeros(d, dtype=phi.dtype), torch.zeros(d, dtype=phi.dtype)
            for k in range(L - 1):
                a = a_seq[k]
                pr = pr + w * v
                pb = pb + gamma * w * float(beta[a]) * v
                w = w * gamma * (1 - float(beta[a]))
                v = v @ Mop[a_seq[k + 1]]
            a = a_seq[-1]
            vT = v @ torch.linalg.inv(eye - gamma * (1 - float(beta[a])) * Mop[a])
            out[s, q] = torch.cat([pr + w * vT, pb + gamma * w * float(beta[a]) * vT])
    return out


def seqmodel_loop(model, seqs):
    """Reference: ``sequence_model`` one sequence at a time."""
    R, B = [], []
    for q in range(seqs.shape[0]):
        r_q, b_q = M.sequence_model(model, seqs[q:q + 1])
        R.append(r_q)
        B.append(b_q)
    return torch.cat(R, 1), torch.cat(B, 1)


def ridge_direct(X, S):
    lam_mat = torch.eye(X.shape[1], dtype=X.dtype, device=X.device)
    for x in X:
        lam_mat = lam_mat + torch.outer(x, x)
        inv = torch.linalg.inv(lam_mat)
    return inv


def ridge_sm(X, S):
    inv = torch.eye(X.shape[1], dtype=X.dtype, device=X.device)
    for x in X:
        inv = sherman_morrison_update(inv, x)
    return inv


def plan_numpy(psi, Linv, c, B, bonus_scale, v_max, tol=1e-8, max_iter=500):
    """Peer: the optimistic plan of ``optimistic_value_iteration`` written directly in NumPy (float64)."""
    FL = psi @ Linv
    base = FL @ c + bonus_scale * np.sqrt(np.maximum((FL * psi).sum(-1), 0.0))
    G = FL @ B
    V = np.zeros(psi.shape[0])
    for _ in range(max_iter):
        V_new = np.minimum(base + G @ V, v_max).max(1)
        done = np.abs(V_new - V).max() < tol
        V = V_new
        if done:
            break
    return np.minimum(base + G @ V, v_max)


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    S, A, d, L, n_upd = (10, 3, 4, 3, 200) if args.quick else (50, 4, 8, 4, 2000)
    lr = M.random_low_rank(S, A, d, [0.05] * (A - 1) + [1.0], 0.8, seed=0, device=device)
    seqs = M.enumerate_sequences(A, L, device=device)
    Mop = M.transition_operators(lr.phi, lr.mu)
    print(f"ATST-MDP benchmark on {device}: |S|={S}, |A|={A}, d={d}, L={L} ({seqs.shape[0]} sequences)")

    # The batched calls are computed once untimed (their results feed the checks below; the call is the warm-up);
    # the slow loops run once, timed, and hand their result out through a list.
    batched_psi = lambda: M.psi_features(lr.phi, Mop, lr.beta, lr.gamma, seqs)
    psi = batched_psi()
    t_b = time_call(batched_psi, device=device, warmup=0)
    out = []
    t_l = time_call(lambda: out.append(psi_loop(lr.phi.cpu(), Mop.cpu(), lr.beta.cpu(), lr.gamma, seqs.cpu())),
                    repeats=1, device=device, warmup=0)
    assert torch.allclose(psi.cpu(), out.pop(), atol=1e-10)
    loops = [ratio_line("Psi features", t_l, t_b, peer="loop", ours="batched")]

    model = lr.tabular()
    R, _ = M.sequence_model(model, seqs)
    t_b = time_call(lambda: M.sequence_model(model, seqs), device=device, warmup=0)
    t_l = time_call(lambda: out.append(seqmodel_loop(model, seqs)), repeats=1, device=device, warmup=0)
    assert torch.allclose(R, out.pop()[0], atol=1e-10)
    loops.append(ratio_line("sequence model", t_l, t_b, peer="loop", ours="batched"))

    X = psi.reshape(-1, psi.shape[-1])[torch.randperm(S * seqs.shape[0])[:n_upd] % (S * seqs.shape[0])]
    t_sm = time_call(lambda: out.append(ridge_sm(X, S)), repeats=1, device=device, warmup=0)
    t_di = time_call(lambda: out.append(ridge_direct(X, S)), repeats=1, device=device, warmup=0)
    inv_di, inv_sm = out.pop(), out.pop()
    assert torch.allclose(inv_sm, inv_di, atol=1e-8)
    loops.append(ratio_line(f"ridge updates ({X.shape[0]} rank-one)", t_di, t_sm, peer="re-invert",
                            ours="Sherman-Morrison"))

    stats = RidgeStats(psi.shape[-1], S, device=device)
    for x in X:
        stats.update(x, 0.5, int(torch.randint(S, (1,))))
    plan = lambda: optimistic_value_iteration(psi, stats, 5.0, 5.0)
    Q, _, it = plan()
    t_vi = time_call(plan, device=device)
    np_args = [t.cpu().numpy() for t in (psi, stats.Lambda_inv, stats.c, stats.B)]
    Q_np = plan_numpy(*np_args, 5.0, 5.0)
    assert np.allclose(Q.cpu().numpy(), Q_np, atol=1e-6)
    t_np = time_call(lambda: plan_numpy(*np_args, 5.0, 5.0), device=device)
    print("peer first:")
    print(ratio_line(f"one optimistic plan over all (s, alpha), {it} iterations", t_np, t_vi, peer="NumPy",
                     ours="torch"))
    print("naive loops second:")
    for line in loops:
        print(line)


if __name__ == "__main__":
    main()
