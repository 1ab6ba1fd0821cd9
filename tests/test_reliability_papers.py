"""Issue 82: the papers' silent outputs of the fault list are ValueErrors naming the argument (or intended, tested)."""

import pytest
import torch

from icml26.papers.air_reasoning.method import weighted_sft_loss
from icml26.papers.apo_alignment.method import apo_loss
from icml26.papers.apo_alignment.training import _check_steps
from icml26.papers.creat3r_nbv.method import Creat3rConfig
from icml26.papers.flow_equivariant.method import _channel_pairs, velocity_index
from icml26.papers.icl_finetuning.softmax_ext import SoftmaxICL, pretrain_softmax
from icml26.papers.ssn_games.games import duality_gap
from icml26.papers.strategic_pfn.experiment import false_positive_rate

D = torch.float64


def test_duality_gap_needs_mixed_strategies():
    A = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=D)
    half = torch.tensor([0.5, 0.5], dtype=D)
    assert float(duality_gap(A, half, half)) == pytest.approx(0.0)  # the equilibrium of matching pennies
    assert float(duality_gap(A, torch.tensor([1.0, 0.0], dtype=D), half)) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="x must be mixed strategies"):
        duality_gap(A, torch.tensor([2.0, 0.0], dtype=D), half)
    with pytest.raises(ValueError, match="y must be mixed strategies"):
        duality_gap(A, half, torch.tensor([1.5, -0.5], dtype=D))


def test_weighted_sft_loss_refuses_negative_weights():
    loss = torch.ones(2, 3)
    assert float(weighted_sft_loss(loss, torch.tensor([[1.0, 0.0, 2.0], [0.0, 0.0, 1.0]]))) == pytest.approx(4 / 3)
    with pytest.raises(ValueError, match="tok_w must be >= 0"):
        weighted_sft_loss(loss, -torch.ones(2, 3))


def test_false_positive_rate_needs_zero_one_labels():
    scores = torch.tensor([[1.0, -1.0, 1.0]])
    assert false_positive_rate(scores, torch.tensor([[0, 0, 1]])).tolist() == [0.5]
    with pytest.raises(ValueError, match="y must hold labels 0 and 1"):
        false_positive_rate(scores, torch.tensor([[1, 2, 1]]))


def test_creat3r_gate_is_a_fraction():
    assert Creat3rConfig(gamma=1.0).gamma == 1.0
    with pytest.raises(ValueError, match="gamma must lie in"):
        Creat3rConfig(gamma=2.0)


def test_velocity_index_refuses_a_velocity_off_the_grid_but_channel_pairs_still_search():
    vels = torch.tensor([[0, 0], [0, 1], [1, 0]])
    assert velocity_index(vels, (0, 1)) == 1
    with pytest.raises(ValueError, match="v must be one of the model's velocities"):
        velocity_index(vels, (5, 5))

    class Model:
        velocities = vels
    # (0,1) - (0,1) = (0,0) is on the grid; (1,0) - (0,1) is not: that pair is skipped, not an error
    assert _channel_pairs(Model(), torch.tensor([0, 1])) == [(1, 0)]


def test_apo_loss_needs_a_negative_in_every_case():
    r_pos, r_neg = torch.zeros(2), torch.zeros(2, 3)
    mask = torch.tensor([[True, False, False], [False, False, False]])
    with pytest.raises(ValueError, match=r"neg_mask must mark at least one real negative per case.*\[1\]"):
        apo_loss(r_pos, r_neg, mask)
    mask[1, 2] = True
    assert apo_loss(r_pos, r_neg, mask).tolist() == pytest.approx([torch.log(torch.tensor(2.0)).item()] * 2)


@pytest.mark.parametrize("steps", [0, -1, True, 1.5])
def test_trainers_refuse_zero_steps(steps):
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        _check_steps(steps, 1e-3, 2)
    with pytest.raises(ValueError, match="steps must be an integer >= 1"):
        pretrain_softmax(SoftmaxICL(2), steps, 4, 3, 1e-3)


def test_a_pairwise_expansion_may_mask_a_padded_pair():
    """pairwise DPO over one negative column at a time drops a padded negative by its mask: that case is 0, not an
    error (only the PL losses refuse a case with no negative at all)."""
    from icml26.papers.apo_alignment.baselines import pairwise_dpo_loss

    out = pairwise_dpo_loss(torch.zeros(2), torch.zeros(2, 1), torch.tensor([[True], [False]]))
    assert out.shape == (2,) and float(out[1]) == 0.0
