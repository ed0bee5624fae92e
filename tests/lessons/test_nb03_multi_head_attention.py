"""Tests for notebook 03's lesson (attnlab.lessons.nb03_multi_head_attention): hand-built heads, figures, Play, exercises.

References: closed-form softmax weights (logit `strength` on the target, 0 elsewhere) and torch's
own nn.MultiheadAttention with the same weights copied in."""
import math
import re

import matplotlib
import pytest
import torch

matplotlib.use("Agg")

import attnlab as al
from attnlab.lessons.nb03_multi_head_attention import figures as head_plots, heads as th, live
from attnlab.ui import plotting


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
    patch = head_plots.mark_padding(ax, 3)
    assert patch.get_visible() and patch.get_width() == 3 and patch.get_x() == 2.5
    assert head_plots.mark_padding(ax, 6, patch=patch) is patch and not patch.get_visible()
    assert ax.patches.count(patch) == 1 and len(ax.patches) == 1          # moved, not added again
    assert not hasattr(ax, "_attnlab_padding")                             # no hatch stored on the Axes
    head_plots.mark_padding(ax, 9, patch=patch)                            # longer than the keys: no hatch
    assert not patch.get_visible()


def test_mark_padding_errors():
    import matplotlib.pyplot as plt

    ax = plotting.heatmap(torch.rand(3, 3), colorbar=False)
    other = plotting.heatmap(torch.rand(3, 3), colorbar=False)
    with pytest.raises(ValueError, match="patch: expected the hatch returned by mark_padding for this ax"):
        head_plots.mark_padding(ax, 1, patch=head_plots.mark_padding(other, 1))
    with pytest.raises(ValueError, match="valid_len: expected an int >= 0, got -1"):
        head_plots.mark_padding(ax, -1)
    with pytest.raises(TypeError, match="valid_len: expected an int, got float"):
        head_plots.mark_padding(ax, 1.5)
    with pytest.raises(ValueError, match="ax: expected an Axes with a heatmap"):
        head_plots.mark_padding(plt.figure().subplots(), 1)
    plt.close("all")


def test_toy_multihead_leaves_the_global_rng_alone():
    """Issue 15: building the toy heads (on every slider move, before) advanced torch's global RNG."""
    state = torch.random.get_rng_state()
    for H in range(1, 5):
        th.toy_multihead(H)
    assert torch.equal(state, torch.random.get_rng_state())
    a, b = th.toy_multihead(3), th.toy_multihead(3)                        # and it is deterministic
    for p, q in zip(a.parameters(), b.parameters()):
        assert torch.equal(p, q)


def test_play_moves_leave_the_global_rng_alone_and_update_in_place():
    from attnlab.lessons import nb03_multi_head_attention as lesson

    panel = lesson.play(heads=4, temperature=1.0, causal=False, valid_len_0=6, valid_len_1=3)
    controls = panel.controls
    view = panel.update.__self__
    assert panel.error.value == "" and "average of 4 head(s)" in panel.text.value
    patches = [list(ax.patches) for ax in view.axes.flat]
    state = torch.random.get_rng_state()
    for name, value in (("heads", 2), ("valid_len_1", 1), ("temperature", 3.0), ("causal", True), ("heads", 4)):
        controls[name].value = value
        assert panel.error.value == ""
    assert torch.equal(state, torch.random.get_rng_state())
    assert [list(ax.patches) for ax in view.axes.flat] == patches       # hatches moved, none added
    hatch = view.padding[1][0]
    assert hatch.get_visible() and hatch.get_x() == 0.5                  # sentence 1: keys 1.. are padding
    W = view.weights(4, 6, 1, 1.0, False)
    torch.testing.assert_close(W[1, :, :, 0], torch.ones(4, 6, dtype=W.dtype))   # one valid key: weight 1


@pytest.mark.parametrize("language", ["en", "zh"])
def test_play_text_keeps_the_whole_word_in_every_language(language):
    """The text under the figure cuts "sat: " off each summary; zh writes "sat：" (one character shorter)."""
    with al.language(language):
        view = live.HeadsPlay()
        text = view.describe(view.weights(4, 6, 3), (6, 3))
    lines = text.splitlines()[2:]
    words = [re.search(r"(?<![A-Za-z])([a-z]+) 0\.92, the 0\.02$", line) for line in lines[:4]]
    assert [m and m.group(1) for m in words] == ["cat", "sat", "cat", "on"]
    assert re.search(r"(?<![A-Za-z])cat 0\.47, on 0\.24, sat 0\.24$", lines[4])


def test_play_bad_input():
    from attnlab.lessons import nb03_multi_head_attention as lesson

    with pytest.raises(ValueError, match=r"heads: expected an int <= 4 \(one per toy head\), got 5"):
        lesson.play(heads=5)
    with pytest.raises(ValueError, match=r"valid_len_1: expected an int >= 1, got 0"):
        lesson.play(valid_len_1=0)
    with pytest.raises(ValueError, match=r"valid_len_0: expected an int <= 6 \(the words of sentence 0\), got 7"):
        lesson.play(valid_len_0=7)
    with pytest.raises(ValueError, match=r"temperature: expected a number <= 4 \(the T slider's range\), got 5"):
        lesson.play(temperature=5.0)
    with pytest.raises(TypeError, match=r"causal: expected True or False, got int 1"):
        lesson.play(causal=1)
    with pytest.raises(TypeError, match="too many positional arguments"):
        lesson.play({"heads": None})
    with pytest.raises(ValueError, match="sentences: expected 2 sentences"):
        live.HeadsPlay(["the cat sat"])


def test_play_declares_the_controls_and_the_package_exports_what_the_notebook_uses():
    from attnlab.lessons import nb03_multi_head_attention as lesson

    panel = lesson.play(heads=2, temperature=0.5, causal=True, valid_len_0=5, valid_len_1=2)
    assert list(panel.controls) == ["heads", "temperature", "causal", "valid_len_0", "valid_len_1"]
    assert [c.value for c in panel.controls.values()] == [2, 0.5, True, 5, 2]
    assert (panel.controls["temperature"].min, panel.controls["temperature"].max) == (0.25, 4.0)
    assert lesson.__all__ == ["HEAD_SIZE", "check_multihead", "check_split_heads", "embed", "head_blocks_plot",
                              "head_readout", "head_size_mistakes", "head_titles", "mark_padding", "play",
                              "readout_table", "thumbnail", "toy_multihead"]


def test_multihead_reference_matches_attnlab_and_torch():
    from attnlab.lessons.nb03_multi_head_attention import exercises as ex

    for X, W_q, W_k, W_v, W_o, H in ex.multihead_cases():
        D_in, D = W_q.shape
        mha = al.MultiHeadAttention(D_in, D_in, D_in, D, H).double()
        with torch.no_grad():
            for layer, W in ((mha.W_q, W_q), (mha.W_k, W_k), (mha.W_v, W_v), (mha.W_o, W_o)):
                layer.weight.copy_(W.T)                                  # nn.Linear: (out, in)
        torch.testing.assert_close(ex.multihead(X, W_q, W_k, W_v, W_o, H), mha(X, X, X))
        if D_in == D:
            ref = torch.nn.MultiheadAttention(D, H, bias=False, batch_first=True, dtype=torch.float64)
            with torch.no_grad():
                ref.in_proj_weight.copy_(torch.cat([W_q.T, W_k.T, W_v.T]))
                ref.out_proj.weight.copy_(W_o.T)
            torch.testing.assert_close(ex.multihead(X, W_q, W_k, W_v, W_o, H), ref(X, X, X, need_weights=False)[0])


@pytest.mark.parametrize("which,fn,ok,recognised", [
    ("split", lambda X, H: X.reshape(X.shape[0], X.shape[1], H, -1).transpose(1, 2), True, None),
    ("split", lambda X, H: X.reshape(X.shape[0], H, X.shape[1], -1), False, "reshaped straight to"),
    ("split", lambda X, H: X.reshape(X.shape[0], X.shape[1], H, -1), False, "stopped at (B, n, H, D/H)"),
    ("split", lambda X, H: al.split_heads(X, H).reshape(-1, X.shape[1], X.shape[2] // H), False, "folded the heads"),
    ("mha", lambda X, Wq, Wk, Wv, Wo, H: al.merge_heads(al.scaled_dot_product_attention(
        *(al.split_heads(X @ W, H) for W in (Wq, Wk, Wv)))[0]) @ Wo, True, None),
    ("mha", lambda X, Wq, Wk, Wv, Wo, H: al.merge_heads(al.scaled_dot_product_attention(
        *(al.split_heads(X @ W, H) for W in (Wq, Wk, Wv)))[0]), False, "no W_o"),
    ("mha", lambda X, Wq, Wk, Wv, Wo, H: al.merge_heads(al.scaled_dot_product_attention(
        *(al.split_heads(X @ W, H) for W in (Wq, Wk, Wv)), scale=Wq.shape[1] ** -0.5)[0]) @ Wo, False, "scaled by √D"),
    ("mha", lambda X, Wq, Wk, Wv, Wo, H: al.scaled_dot_product_attention(
        *(al.split_heads(X @ W, H) for W in (Wq, Wk, Wv)))[0].reshape(X.shape[0], X.shape[1], -1) @ Wo,
     False, "seed 004's merge"),
])
def test_exercise_checks_pass_the_answer_and_name_mistakes(capsys, which, fn, ok, recognised):
    from attnlab.lessons import nb03_multi_head_attention as lesson

    check = lesson.check_split_heads if which == "split" else lesson.check_multihead
    assert check(fn) is ok
    out = capsys.readouterr().out
    assert ("Recognised" in out) == (recognised is not None)
    if recognised:
        assert recognised in out
