"""Tests for attnlab.toy_heads (hand-built heads) and attnlab.head_plots.

References: closed-form softmax weights (logit `strength` on the target, 0 elsewhere) and torch's
own nn.MultiheadAttention with the same weights copied in."""
import math

import matplotlib
import pytest
import torch

matplotlib.use("Agg")

import attnlab as al  # noqa: E402
from attnlab import plotting
from attnlab.lessons.nb03_multi_head_attention import figures as head_plots, heads as th  # noqa: E402


def closed_form(target_index, n_valid, strength):
    """Weights over n_valid keys when one key has logit `strength` and the rest 0."""
    w = torch.full((n_valid,), 1.0 / (math.exp(strength) + n_valid - 1), dtype=torch.float64)
    w[target_index] = math.exp(strength) / (math.exp(strength) + n_valid - 1)
    return w


@pytest.mark.parametrize("strength", [0.5, 4.0, 9.0])
def test_heads_match_closed_form(strength):
    X, valid_lens, tokens = th.embed()
    mha = th.toy_multihead(4, strength=strength)
    mha(X, X, X, valid_lens)
    W = mha.attention_weights[0]                                  # (H, T, T), sentence 0 has no padding
    T = X.shape[1]
    cat = tokens[0].index("cat")
    for i in range(T):
        if i > 0:
            torch.testing.assert_close(W[0, i], closed_form(i - 1, T, strength))
        else:
            torch.testing.assert_close(W[0, i], torch.full((T,), 1 / T, dtype=torch.float64))
        torch.testing.assert_close(W[1, i], closed_form(i, T, strength))
        torch.testing.assert_close(W[2, i], closed_form(cat, T, strength))
        if i < T - 1:
            torch.testing.assert_close(W[3, i], closed_form(i + 1, T, strength))


def test_padding_keys_get_zero_weight_and_temperature_divides_logits():
    X, valid_lens, _ = th.embed()
    mha = th.toy_multihead(4, strength=4.0)
    mha(X, X, X, valid_lens, temperature=2.0)
    W = mha.attention_weights[1]                                  # sentence 1: valid_len 3 of 6
    assert valid_lens.tolist() == [6, 3]
    assert torch.all(W[..., 3:] == 0)
    torch.testing.assert_close(W[1, 1, :3], closed_form(1, 3, 2.0))   # strength / temperature


def test_matches_torch_multihead_attention():
    """torch's MHA needs query width = D, so pad the 15 query features with zeros (and W_q with zero columns)."""
    X, valid_lens, _ = th.embed()
    pad = ~al.sequence_mask(valid_lens, X.shape[1])[:, 0]          # torch: True = ignore this key
    for H in range(2, 5):                                           # D = 8H >= 15 input features
        mha = th.toy_multihead(H)
        ours = mha(X, X, X, valid_lens)
        D = H * th.HEAD_SIZE
        extra = D - th.INPUT_SIZE
        ref = torch.nn.MultiheadAttention(D, H, bias=False, batch_first=True, kdim=th.INPUT_SIZE,
                                          vdim=th.INPUT_SIZE, dtype=torch.float64)
        with torch.no_grad():
            ref.q_proj_weight.copy_(torch.nn.functional.pad(mha.W_q.weight, (0, extra)))
            ref.k_proj_weight.copy_(mha.W_k.weight)
            ref.v_proj_weight.copy_(mha.W_v.weight)
            ref.out_proj.weight.copy_(mha.W_o.weight)
        out, w = ref(torch.nn.functional.pad(X, (0, extra)), X, X, key_padding_mask=pad,
                     average_attn_weights=False)
        torch.testing.assert_close(ours, out)
        torch.testing.assert_close(mha.attention_weights, w)


def test_readout_names_the_word_each_head_read():
    X, valid_lens, tokens = th.embed()
    mha = th.toy_multihead(4, strength=8.0)
    r = th.head_readout(mha(X, X, X, valid_lens), 4)              # (B, T, H, V)
    assert r.shape == (2, 6, 4, len(th.VOCAB))
    sat = tokens[0].index("sat")
    read = [th.VOCAB[int(r[0, sat, h].argmax())] for h in range(4)]
    assert read == ["cat", "sat", "cat", "on"]
    table = th.readout_table(r[0], tokens[0], th.head_titles(4))
    assert table.splitlines()[3].startswith("sat")


def test_split_equals_seed_000_fold():
    X = torch.arange(2 * 4 * 6.0).reshape(2, 4, 6)
    d2l = X.reshape(2, 4, 3, 2).permute(0, 2, 1, 3).reshape(-1, 4, 2)   # seed 000's transpose_qkv
    torch.testing.assert_close(al.split_heads(X, 3).reshape(-1, 4, 2), d2l)


def test_errors():
    with pytest.raises(ValueError, match="sentences: expected words from"):
        th.embed(["the dog sat"])
    with pytest.raises(ValueError, match="length: expected between"):
        th.embed(["the cat sat"], length=9)
    with pytest.raises(ValueError, match="num_heads: expected at most 4"):
        th.toy_multihead(5)
    with pytest.raises(ValueError, match="num_heads: expected an int >= 1"):
        th.toy_multihead(0)
    with pytest.raises(ValueError, match="kind: expected one of"):
        th.head_projections("sideways")
    with pytest.raises(ValueError, match="target: expected a word from"):
        th.head_projections("word", target="dog")
    with pytest.raises(ValueError, match="output: expected last dim 16"):
        th.head_readout(torch.zeros(1, 2, 8), 2)
    with pytest.raises(ValueError, match="X: expected last dim divisible by num_heads=4"):
        head_plots.head_blocks_plot(torch.zeros(2, 6), 4)


def test_mark_padding_moves_in_place():
    ax = plotting.heatmap(torch.rand(6, 6), colorbar=False)
    head_plots.mark_padding(ax, 3)
    patch = ax._attnlab_padding
    assert patch.get_visible() and patch.get_width() == 3
    head_plots.mark_padding(ax, 6)
    assert ax._attnlab_padding is patch and not patch.get_visible()
