"""Notebook 13's lesson: band masks and the receptive field, the rolling cache, windowed generation (against
torch's scaled_dot_product_attention with the band mask), the Bigram-Backcopy task and the sink model, latent
attention (absorbed against up-projected, against SDPA), the conversion of notebook 12's model, cache bytes,
the shipped results, bad inputs."""
import collections
import math

import pytest
import torch
from hypothesis import given, settings, strategies as st
from torch.nn import functional as F

import attnlab as al
from attnlab.core.gpt import corpus, shipped as course
from attnlab.core.gpt.model import GPT
from attnlab.core.positional import rope
from attnlab.lessons import nb13_long_context as lesson
from attnlab.lessons.nb13_long_context import mla, real_models, sinks, window

V = len(corpus.vocab())


def small(kv_heads=None, dtype=torch.float32, seed=1, heads=4, layers=2, context=40):
    return GPT(V, d_model=32, heads=heads, kv_heads=kv_heads, layers=layers, context=context, seed=seed).to(dtype).eval()


def tokens_of(n, seed=0, vocab=V):
    return torch.randint(0, vocab, (n,), generator=torch.Generator().manual_seed(seed))


@pytest.fixture(scope="module")
def gpt12():
    return lesson.gpt()


@pytest.fixture(scope="module")
def sink12():
    return lesson.sink_model()


# ------------------------------------------------------------------------------------------ band masks

@pytest.mark.parametrize("T, w", [(1, 1), (5, 1), (9, 3), (12, 12), (7, 20)])
def test_band_mask_is_notebook_07s_local_mask_made_causal(T, w):
    expected = al.local_mask(T, T, w - 1) & al.causal_mask(T, T)
    assert torch.equal(window.band_mask(T, w), expected)


def test_band_mask_with_sinks_keeps_the_first_positions_and_w_keys_at_most():
    m = window.band_mask(20, 6, sinks=2)
    for t in range(20):
        seen = m[t].nonzero().flatten().tolist()
        expected = sorted({j for j in range(min(2, t + 1))} | set(range(max(0, t - 3), t + 1)))
        assert seen == expected and len(seen) <= 6


@pytest.mark.parametrize("w, L, T", [(2, 1, 6), (3, 3, 20), (4, 2, 16), (1, 3, 5), (8, 4, 40)])
def test_receptive_field_has_the_closed_form(w, L, T):
    rf = lesson.receptive_field(w, L, T)
    assert rf.shape == (L, T, T) and rf.dtype == torch.bool
    t, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    for layer in range(L):
        assert torch.equal(rf[layer], (j <= t) & (t - j <= (layer + 1) * (w - 1)))


def test_receptive_field_is_what_stacked_band_attention_mixes():
    """Reference: L layers of torch's SDPA with the band mask on identity values; position j's trace in row t."""
    w, L, T = 3, 4, 18
    mask = al.local_mask(T, T, w - 1) & al.causal_mask(T, T)
    mixed = torch.eye(T, dtype=torch.float64)
    q = torch.zeros(1, T, 4, dtype=torch.float64)                          # equal scores: uniform over the band
    for layer in range(L):
        mixed = F.scaled_dot_product_attention(q, q, mixed[None], attn_mask=mask)[0]
        assert torch.equal(mixed > 0, lesson.receptive_field(w, L, T)[layer])


# ------------------------------------------------------------------------------------------ rolling cache

@settings(max_examples=40, deadline=None)
@given(w=st.integers(1, 9), k=st.integers(0, 8), n=st.integers(0, 30))
def test_rolling_cache_holds_the_sinks_and_the_newest_in_order(w, k, n):
    k = min(k, w - 1)
    c = lesson.RollingCache(w, 2, 3, 4, sinks=k)
    recent = collections.deque(maxlen=w - k)                               # reference: a list, not a ring
    first = []
    for p in range(n):
        kv = torch.full((3, 4), float(p))
        for layer in range(2):
            c.append(layer, kv + layer, -kv)
        (first if p < k else recent).append(p)
    expected = first + list(recent)
    assert c.positions(1) == expected and len(c) == n
    assert c.keys(1).shape == (3, len(expected), 4)
    assert c.keys(1)[0, :, 0].tolist() == [p + 1.0 for p in expected]
    assert c.values(0)[2, :, 3].tolist() == [-float(p) for p in expected]
    assert c.nbytes == 2 * 2 * 3 * 4 * w * 4


def test_rolling_cache_does_not_keep_a_reference_to_what_was_appended():
    c = lesson.RollingCache(3, 1, 1, 2)
    k = torch.ones(1, 2)
    c.append(0, k, k)
    k += 5
    assert c.keys(0)[0, 0].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("args, kwargs, error, match", [
    ((0, 1, 1, 2), {}, ValueError, "window: expected an int >= 1, got 0"),
    ((4, 1, 1, 2), {"sinks": 4}, ValueError, r"sinks: expected an int <= 3 \(a window keeps its newest position"),
    ((4, 1, 1, 2), {"sinks": -1}, ValueError, "sinks: expected an int >= 0"),
    ((4.0, 1, 1, 2), {}, TypeError, "window: expected an int, got float"),
    ((4, 0, 1, 2), {}, ValueError, "layers: expected an int >= 1"),
])
def test_rolling_cache_names_the_bad_argument(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        lesson.RollingCache(*args, **kwargs)


def test_rolling_cache_append_names_the_bad_argument():
    c = lesson.RollingCache(4, 2, 2, 3)
    with pytest.raises(ValueError, match=r"k: expected shape \(kv_heads, head_dim\) = \(2, 3\), got \(3, 2\)"):
        c.append(0, torch.zeros(3, 2), torch.zeros(2, 3))
    with pytest.raises(ValueError, match=r"v: expected a 2-D tensor, got shape \(2, 3, 1\)"):
        c.append(0, torch.zeros(2, 3), torch.zeros(2, 3, 1))
    with pytest.raises(ValueError, match=r"layer: expected an int <= 1 \(the cache's layers, from 0\), got 2"):
        c.append(2, torch.zeros(2, 3), torch.zeros(2, 3))
    with pytest.raises(ValueError, match=r"layer: expected an int <= 1"):
        c.keys(5)


# ------------------------------------------------------------------------------------------ windowed runs

def reference_windowed(model, tokens, w, k, dtype):
    """The course GPT's forward written again with torch's SDPA (enable_gqa) and the band mask |t - j| < w - k,
    j <= t, or j < k."""
    T = tokens.shape[-1]
    t, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    mask = (j <= t) & ((t - j < w - k) | (j < k))
    X = model.embed.weight.to(dtype)[tokens]                                                # (B, T, D)
    for block in model.blocks:
        a = block.attention
        H, K, d = a.heads, a.kv_heads, a.head_size
        Xn = F.layer_norm(X, (X.shape[-1],), block.norm1.weight.to(dtype), block.norm1.bias.to(dtype))
        q = rope((Xn @ a.W_q.weight.to(dtype).T).unflatten(-1, (H, d)).transpose(1, 2))
        kk = rope((Xn @ a.W_k.weight.to(dtype).T).unflatten(-1, (K, d)).transpose(1, 2))
        v = (Xn @ a.W_v.weight.to(dtype).T).unflatten(-1, (K, d)).transpose(1, 2)
        out = F.scaled_dot_product_attention(q, kk, v, attn_mask=mask, enable_gqa=True)
        X = X + out.transpose(1, 2).flatten(-2) @ a.W_o.weight.to(dtype).T
        X = X + block.ffn.to(dtype)(block.norm2.to(dtype)(X))
    return model.norm.to(dtype)(X) @ model.embed.weight.to(dtype).T


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kv_heads, T, w, k", [(None, 17, 5, 0), (2, 17, 5, 2), (1, 12, 4, 1), (None, 1, 1, 0),
                                               (2, 9, 9, 0), (None, 30, 40, 3)])
def test_windowed_logits_equal_torch_sdpa_with_the_band_mask(dtype, kv_heads, T, w, k):
    m = small(kv_heads, dtype)
    x = torch.stack([tokens_of(T, 1), tokens_of(T, 2)])
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-10)
    got = lesson.windowed_logits(m, x, window=w, sinks=k)
    assert got.dtype == dtype
    torch.testing.assert_close(got, reference_windowed(m, x, w, k, dtype), **tol)


def test_a_window_as_long_as_the_text_is_the_model_itself(gpt12):
    x = torch.tensor([corpus.encode(corpus.text("heldout")[:120])])
    with torch.no_grad():
        torch.testing.assert_close(lesson.windowed_logits(gpt12, x, window=256), gpt12(x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kv_heads, w, k", [(None, 6, 0), (2, 6, 3), (1, 1, 0), (None, 40, 0), (2, 2, 1)])
def test_the_rolling_cache_gives_the_band_masks_logits(dtype, kv_heads, w, k):
    m = small(kv_heads, dtype)
    x = tokens_of(29, 3)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(lesson.rolling_logits(m, x, window=w, sinks=k).to(dtype),
                               lesson.windowed_logits(m, x[None], window=w, sinks=k)[0], **tol)


def windowed_greedy(model, prompt, steps, w, k):
    """Reference: argmax of the band-masked logits of the whole sequence, step by step."""
    ids = corpus.encode(prompt)
    for _ in range(steps):
        ids.append(int(reference_windowed(model, torch.tensor([ids]), w, k, torch.float64)[0, -1].argmax()))
    return corpus.decode(ids)


@pytest.mark.parametrize("w, k", [(8, 0), (8, 2), (3, 1)])
def test_generate_windowed_is_greedy_full_attention_under_the_band_mask(w, k):
    m = small(2, torch.float64, context=16)
    g = lesson.generate_windowed(m, "The query ", 30, window=w, sinks=k)
    assert g.text == windowed_greedy(m, "The query ", 30, w, k)
    assert len(g.text) == 10 + 30 > m.config["context"]                    # past the model's context
    assert g.logits.shape == (30, V) and (g.window, g.sinks) == (w, k)
    assert g.cache_bytes == lesson.cache_bytes_per_token(m) * w        # float64 numbers here: 8 bytes each


def test_generate_windowed_samples_with_a_seed(gpt12):
    a = lesson.generate_windowed(gpt12, "注意力", 20, window=32, seed=4, temperature=1.0)
    b = lesson.generate_windowed(gpt12, "注意力", 20, window=32, seed=4, temperature=1.0)
    c = lesson.generate_windowed(gpt12, "注意力", 20, window=32, seed=5, temperature=1.0)
    assert a.text == b.text and a.text != c.text


def test_the_rolling_cache_bytes_are_flat_in_length(gpt12):
    short = lesson.generate_windowed(gpt12, "The ", 10, window=64)
    long = lesson.generate_windowed(gpt12, "The ", 300, window=64)
    assert short.cache_bytes == long.cache_bytes == lesson.cache_bytes_per_token(gpt12) * 64 == 4 * 2 * 4 * 32 * 64 * 4


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(window=0), ValueError, "window: expected an int >= 1, got 0"),
    (dict(window=257), ValueError, r"window: expected an int <= 256 \(the model's context\), got 257"),
    (dict(window=16, sinks=16), ValueError, r"sinks: expected an int <= 15"),
    (dict(window=16, temperature=0.0), ValueError, "temperature: expected a number > 0"),
    (dict(window=16, prompt="abc\u2603"), ValueError, r"prompt: expected characters of the vocabulary, got 1 outside it"),
    (dict(window=16, prompt=""), ValueError, "prompt: expected at least one character"),
    (dict(window=16, steps=-1), ValueError, "steps: expected an int >= 0"),
    (dict(window=16, steps=10**6), ValueError, r"steps: expected an int <= 4096"),
    (dict(window="16"), TypeError, "window: expected an int, got str"),
])
def test_generate_windowed_names_the_bad_argument(gpt12, kwargs, error, match):
    args = dict(prompt="The ", steps=3)
    args.update(kwargs)
    with pytest.raises(error, match=match):
        lesson.generate_windowed(gpt12, args.pop("prompt"), args.pop("steps"), **args)
    with pytest.raises(TypeError, match="model: expected a course GPT"):
        lesson.generate_windowed("gpt", "The ", 3, window=16)


def test_windowed_logits_names_the_bad_argument(gpt12):
    with pytest.raises(ValueError, match=r"tokens: expected ids in \[0, 1150\]"):
        lesson.windowed_logits(gpt12, torch.tensor([[0, 5000]]), window=4)
    with pytest.raises(ValueError, match="tokens: expected a 2-D tensor"):
        lesson.windowed_logits(gpt12, torch.tensor([0, 1]), window=4)
    with pytest.raises(TypeError, match="tokens: expected an integer tensor, got dtype torch.float32"):
        lesson.windowed_logits(gpt12, torch.zeros(1, 3), window=4)


# ------------------------------------------------------------------------------------------ sinks

def test_the_triggers_are_the_most_frequent_symbols_of_the_chain():
    """Reference: the stationary distribution as the eigenvector of P^T for eigenvalue 1 (torch.linalg.eig)."""
    P = sinks.transitions()
    assert torch.allclose(P.sum(1), torch.ones(sinks.SYMBOLS, dtype=torch.float64))
    assert torch.all((P > 0).sum(1) == sinks.SUCCESSORS)
    values, vectors = torch.linalg.eig(P.T)
    pi = vectors[:, torch.argmin((values - 1).abs())].real
    pi = pi / pi.sum()
    assert sinks.triggers().tolist() == (torch.argsort(pi, descending=True)[:sinks.TRIGGERS] + 1).tolist()


def test_sink_batch_follows_the_bigram_backcopy_rules():
    b = lesson.sink_batch(200, seed=3)
    x, trig = b.tokens, b.trigger
    assert x.shape == (200, sinks.CONTEXT + 1) and torch.all(x[:, 0] == 0) and torch.all(x[:, 1:] > 0)
    assert torch.equal(trig, torch.isin(x, sinks.triggers()))
    P = sinks.transitions()
    for t in range(2, x.shape[1]):
        copy = trig[:, t - 1]
        assert torch.equal(x[copy, t], x[copy, t - 2])                                   # backcopy
        assert torch.all(P[x[~copy, t - 1] - 1, x[~copy, t] - 1] > 0)                   # the bigram table's support
    assert not torch.any(trig[:, 1:] & trig[:, :-1])                                     # no two triggers side by side
    assert torch.equal(lesson.sink_batch(200, seed=3).tokens, x)
    assert not torch.equal(lesson.sink_batch(200, seed=4).tokens, x)


def test_sink_scores_are_the_weights_on_position_0_at_ordinary_positions(sink12):
    """Reference: the course GPT's own forward with need_weights, averaged by loops."""
    b = lesson.sink_batch(40, seed=7)
    with torch.no_grad():
        sink12(b.tokens[:, :-1], need_weights=True)
    w = sink12.attention()[0]
    expected = torch.zeros(1, 2, dtype=torch.float64)
    for h in range(2):
        picked = [w[i, h, t, 0].item() for i in range(40) for t in range(1, sinks.CONTEXT) if not b.trigger[i, t]]
        expected[0, h] = sum(picked) / len(picked)
    torch.testing.assert_close(lesson.sink_scores(sink12, b), expected, rtol=1e-5, atol=1e-6)


def test_the_shipped_sink_model_parks_its_heads_on_the_first_token(sink12):
    scores = lesson.sink_scores(sink12, lesson.sink_batch(256, seed=11))
    assert scores.shape == (1, 2) and torch.all(scores >= 0.5)


def test_notebook_12s_model_has_no_sink(gpt12):
    scores = lesson.sink_scores(gpt12, lesson.prose_batch(8, seed=2))
    assert scores.shape == (4, 4) and torch.all(scores < 0.05)


def test_evicting_the_sink_hurts_and_keeping_one_restores(sink12):
    losses = sinks.window_losses(sink12, lesson.sink_batch(256, seed=12), window=16, kept=(1, 4))
    past = slice(16, None)
    full, evicted = losses.full[past].mean(), losses.evicted[past].mean()
    assert evicted > full + 0.01
    for k in (1, 4):
        assert abs(losses.kept[k][past].mean() - full) < 0.003
    torch.testing.assert_close(losses.evicted[:16], losses.full[:16])                     # nothing evicted yet


def test_sink_training_is_seeded_and_returns_a_model():
    a = lesson.train_sink_model(steps=3, seed=5)
    b = lesson.train_sink_model(steps=3, seed=5)
    assert isinstance(a, GPT) and not a.training
    for p, q in zip(a.parameters(), b.parameters()):
        assert torch.equal(p, q)
    rows = list(sinks.run(2, seed=0))
    assert [r["step"] for r in rows] == [1, 2] and 0.0 <= rows[-1]["first-token weight"] <= 1.0


def test_the_sink_functions_name_the_bad_argument(sink12, gpt12):
    with pytest.raises(ValueError, match="n: expected an int >= 1, got 0"):
        lesson.sink_batch(0)
    with pytest.raises(TypeError, match="seed: expected an int, got float"):
        lesson.sink_batch(3, seed=1.5)
    with pytest.raises(TypeError, match="b: expected a SinkBatch"):
        lesson.sink_scores(sink12, torch.zeros(2, 3, dtype=torch.long))
    with pytest.raises(ValueError, match=r"b: expected token ids below the model's vocabulary size 129"):
        lesson.sink_scores(sink12, lesson.prose_batch(2, length=20))
    with pytest.raises(ValueError, match=r"b: expected at most context \+ 1 = 65 tokens"):
        lesson.sink_scores(sink12, lesson.prose_batch(2))
    with pytest.raises(ValueError, match="kept: expected sink counts below window=4, got 4"):
        sinks.window_losses(sink12, lesson.sink_batch(2), window=4, kept=(4,))
    with pytest.raises(ValueError, match="steps: expected an int >= 1, got 0"):
        lesson.train_sink_model(steps=0)


# ------------------------------------------------------------------------------------------ latent attention

def small_latent(latent=6, dtype=torch.float64, seed=0):
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        m = mla.LatentGPT(V, d_model=32, heads=2, layers=2, context=24, latent=latent, d_rope=8).to(dtype).eval()
        for p in m.parameters():
            p.data.normal_(0, 0.3) if p.dim() > 1 else None
    return m


def reference_latent_attention(a, X):
    """MLA written from its formulas with torch's SDPA: per head q = [RoPE(x W_QR,h), x W_Q,h], k = [RoPE(x W_KR),
    c W_UK,h], v = c W_UV,h, c = x W_DKV; causal; RoPE of the rotated parts at base 10000^(d_R / d)."""
    B, T, D = X.shape
    H, dR, d = a.heads, a.d_rope, a.head_size
    base = 10000.0 ** (dR / d)
    c = X @ a.W_dkv.weight.T                                                             # (B, T, d_c)
    q = (X @ a.W_q.weight.T).unflatten(-1, (H, d)).transpose(1, 2)                       # (B, H, T, d)
    q = torch.cat([rope(q[..., :dR], base=base), q[..., dR:]], -1)
    k_rope = rope(X @ a.W_kr.weight.T, base=base)[:, None].expand(B, H, T, dR)
    k = torch.cat([k_rope, (c @ a.W_uk.weight.T).unflatten(-1, (H, d - dR)).transpose(1, 2)], -1)
    v = (c @ a.W_uv.weight.T).unflatten(-1, (H, d)).transpose(1, 2)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return out.transpose(1, 2).flatten(-2) @ a.W_o.weight.T


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("B, T", [(2, 9), (1, 1), (3, 4)])
def test_latent_attention_equals_its_formulas_in_torch_sdpa(dtype, B, T):
    a = small_latent(dtype=dtype).blocks[0].attention
    X = torch.randn(B, T, 32, dtype=dtype, generator=torch.Generator().manual_seed(1))
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-11, atol=1e-11)
    with torch.no_grad():
        expected = reference_latent_attention(a, X)
        torch.testing.assert_close(a(X), expected, **tol)
        torch.testing.assert_close(a(X, absorbed=True), expected, **tol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("latent", [1, 6, 40])
def test_absorbed_equals_up_projected_with_the_latent_cache(dtype, latent):
    m = small_latent(latent, dtype)
    x = tokens_of(11, 4)[None]
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-10)
    with torch.no_grad():
        whole = m(x)
        for absorbed in (False, True):
            caches = m.new_caches()
            steps = torch.cat([m(x[:, :3], caches, absorbed=absorbed)] +
                              [m(x[:, t:t + 1], caches, absorbed=absorbed) for t in range(3, 11)], dim=1)
            torch.testing.assert_close(steps, whole, **tol)
            assert caches[0].latents.shape == (1, 11, latent) and caches[0].rotated.shape == (1, 11, 8)


def test_the_conversion_keeps_the_fast_rope_pairs_and_is_exact_at_full_rank(gpt12):
    m = mla.convert(gpt12, 128)
    X = torch.randn(1, 7, 128, generator=torch.Generator().manual_seed(3))
    for mine, theirs in zip(m.blocks, gpt12.blocks):
        a, b = mine.attention, theirs.attention
        q_rope, _ = a.queries(X, torch.arange(7, dtype=torch.float64))
        q_full = rope(b.W_q(X).unflatten(-1, (4, 32)).transpose(1, 2))                  # notebook 12's queries
        torch.testing.assert_close(q_rope, q_full[..., :16], rtol=1e-5, atol=1e-5)
        W_k = b.W_k.weight.reshape(4, 32, 128)
        torch.testing.assert_close(a.W_uk.weight @ a.W_dkv.weight, W_k[:, 16:].reshape(64, 128), rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(a.W_uv.weight @ a.W_dkv.weight, b.W_v.weight, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(a.W_kr.weight, W_k[:, :16].mean(0))


def test_a_smaller_latent_is_the_best_rank_d_c_approximation(gpt12):
    """Eckart-Young: the SVD's error is the root sum of the dropped singular values squared."""
    for d_c in (8, 32):
        a, b = mla.convert(gpt12, d_c).blocks[0].attention, gpt12.blocks[0].attention
        stacked = torch.cat([b.W_k.weight.reshape(4, 32, 128)[:, 16:].reshape(64, 128), b.W_v.weight]).double()
        s = torch.linalg.svdvals(stacked)
        with torch.no_grad():
            approx = torch.cat([a.W_uk.weight, a.W_uv.weight]).double() @ a.W_dkv.weight.double()
        assert torch.linalg.norm(stacked - approx).item() == pytest.approx(s[d_c:].square().sum().sqrt().item(), rel=1e-4)


@pytest.mark.parametrize("kv", [4, 2, 1])
def test_cache_bytes_per_token_is_what_a_gpts_cache_holds(kv):
    m = course.load(kv)
    assert mla.held_bytes(m, 9) == 9 * lesson.cache_bytes_per_token(m) == 9 * 4 * 2 * kv * 32 * 4


def test_cache_bytes_per_token_is_what_a_latent_cache_holds():
    m = small_latent(6, torch.float32)
    assert mla.held_bytes(m, 5) == 5 * lesson.cache_bytes_per_token(m) == 5 * 2 * (6 + 8) * 4


def test_the_shipped_latent_models_load_and_measure_as_stored():
    stored = lesson.measured()["latent"]["latent models"]
    assert sorted(map(int, stored)) == list(lesson.LATENT_SIZES)
    for d_c in lesson.LATENT_SIZES:
        m = lesson.latent(d_c)
        assert isinstance(m, mla.LatentGPT) and m.config["latent"] == d_c and not m.training
        assert lesson.cache_bytes_per_token(m) == 4 * (d_c + 16) * 4 == stored[str(d_c)]["cache bytes per token"]
    from attnlab.core.gpt.measure import bits_per_char_unchecked
    assert bits_per_char_unchecked(lesson.latent(32), "heldout") == pytest.approx(
        stored["32"]["heldout bits"], abs=2e-3)                                           # float16 on disk


def test_the_latent_functions_name_the_bad_argument(gpt12):
    with pytest.raises(ValueError, match=r"d_c: expected one of \[16, 32, 64, 128\], got 12"):
        lesson.latent(12)
    with pytest.raises(TypeError, match="model: expected a course GPT or a LatentGPT"):
        lesson.cache_bytes_per_token("gpt")
    with pytest.raises(ValueError, match="gpt: expected a multi-head model"):
        mla.convert(course.load(2), 16)
    with pytest.raises(ValueError, match="latent: expected an int <= 128"):
        mla.convert(gpt12, 129)


# ------------------------------------------------------------------------------------------ real models

def test_real_models_bytes_per_token_from_their_configs():
    by_name = {m.name: lesson.bytes_per_token(m) for m in lesson.REAL_MODELS}
    assert by_name["Llama 3 8B"] == 32 * 2 * 8 * 128 * 2 == 131072
    assert by_name["Llama 3 70B"] == 80 * 2 * 8 * 128 * 2
    assert by_name["Mistral 7B"] == by_name["Llama 3 8B"]
    assert by_name["DeepSeek-V2"] == 60 * 576 * 2 == 69120
    assert by_name["DeepSeek-V3"] == 61 * 576 * 2
    for m in real_models.REAL_MODELS:
        assert m.source.startswith("https://huggingface.co/") and str(m.layers) in m.source
    # DeepSeek-V2's paper: MLA's cache per token equals GQA's with 2.25 groups (d_c + d_R = 4.5 head sizes)
    assert (512 + 64) / (2 * 128) == 2.25


def test_the_window_module_keeps_its_promise_of_a_fixed_slot_formula():
    for n in range(40):
        assert window.ring_slot(n, 7, 2) == (n if n < 2 else 2 + (n - 2) % 5)
    assert math.isclose(mla.LatentAttention(128, 4, 8).rope_base, 100.0)


# ------------------------------------------------------------------------------------------ Play panels

def test_the_receptive_field_panel_says_how_far_the_last_position_hears():
    p = lesson.play(window=4, layers=3)
    assert "position 39 hears from position 30 on after 3 layers" in p.summary
    p.controls["window"].value = 12
    p.controls["layers"].value = 4
    assert "position 39 hears from position 0 on after 4 layers" in p.summary


def test_the_sinks_panel_measures_what_window_losses_measures(sink12):
    p = lesson.play_sinks(window=16, sinks=0)
    b = lesson.sink_batch(512, seed=lesson.measured()["sinks"]["streaming"]["seed"])
    rows = sinks.window_losses(sink12, b, window=16, kept=(1,))
    past = slice(16, None)
    evicted = rows.evicted[past].mean().item()
    assert f"first token evicted {evicted:.3f}" in p.summary
    p.controls["sinks_kept"].value = 1
    assert f"keeping the first 1: {rows.kept[1][past].mean().item():.3f}" in p.summary


def test_the_sinks_panel_runs_the_losses_once_per_window_and_kept_and_says_the_same(monkeypatch):
    """A (window, kept) seen before only draws: the text equals a fresh panel's, which runs the model."""
    from attnlab.lessons.nb13_long_context import live
    calls = []
    real = sinks.position_losses
    monkeypatch.setattr(live.sinks, "position_losses", lambda *a: calls.append(a[2:]) or real(*a))
    view = live.SinksView()
    moves = [(16, 0), (16, 1), (17, 1), (16, 1), (16, 0), (5, 4)]
    texts = [view.update(*move) for move in moves]
    assert calls == [(64, 0), (16, 0), (16, 1), (17, 0), (17, 1), (5, 0), (5, 4)]
    for move, text in zip(moves, texts):
        assert live.SinksView().update(*move) == text


def test_the_latent_panel_rings_each_shipped_size():
    p = lesson.play_latent(latent=32)
    stored = lesson.measured()["latent"]["latent models"]
    for d_c in lesson.LATENT_SIZES:
        p.controls["latent"].value = d_c
        assert f"d_c = {d_c}: {stored[str(d_c)]['cache bytes per token']:,} bytes per position" in p.summary


def test_the_trainer_trains_a_sink_model_behind_its_button():
    t = lesson.play_trainer(steps=100)
    model = t.train()
    assert isinstance(model, GPT) and len(t.history["first-token weight"]) == 100
    assert "Done: 100 steps" in t.status.value


@pytest.mark.parametrize("call, match", [
    (lambda: lesson.play(window=0), r"window: expected an int >= 1"),
    (lambda: lesson.play(layers=7), r"layers: expected an int <= 6 \(the slider's range\)"),
    (lambda: lesson.play_sinks(window=2), r"window: expected an int >= 4"),
    (lambda: lesson.play_sinks(sinks=5), r"sinks: expected an int <= 4"),
    (lambda: lesson.play_latent(latent=12), r"latent: expected one of \[16, 32, 64, 128\], got 12"),
    (lambda: lesson.play_trainer(steps=50), r"steps: expected an int >= 100"),
])
def test_the_play_functions_name_the_bad_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------------------------------ issue 53's checks

@pytest.mark.parametrize("args, error, match", [
    ((0, 2, 8), ValueError, "window: expected an int >= 1, got 0"),
    ((3, 0, 8), ValueError, "layers: expected an int >= 1, got 0"),
    ((3, 2, 0), ValueError, "length: expected an int >= 1, got 0"),
    ((3, 2, 4096), ValueError, "length: expected an int <= 2048"),
    ((3.0, 2, 8), TypeError, "window: expected an int, got float"),
])
def test_receptive_field_names_the_bad_argument(args, error, match):
    with pytest.raises(error, match=match):
        lesson.receptive_field(*args)


def test_a_ring_buffer_for_notebook_12s_model_holds_cache_bytes_per_token_times_window(gpt12):
    """Issue 53: the ring buffer's bytes = cache_bytes_per_token x window, before, during and after filling."""
    cfg = gpt12.config
    kv = cfg.get("kv_heads") or cfg["heads"]
    c = lesson.RollingCache(64, cfg["layers"], kv, cfg["d_model"] // cfg["heads"], sinks=4)
    expected = lesson.cache_bytes_per_token(gpt12) * 64
    assert c.nbytes == expected
    for n in range(200):
        for layer in range(cfg["layers"]):
            c.append(layer, torch.randn(kv, cfg["d_model"] // cfg["heads"]), torch.randn(kv, cfg["d_model"] // cfg["heads"]))
        if n in (0, 63, 199):
            assert c.nbytes == expected
    assert c.keys(0).shape == (kv, 64, cfg["d_model"] // cfg["heads"])


def test_train_sink_model_names_the_bad_seed():
    with pytest.raises(TypeError, match="seed: expected an int, got str"):
        lesson.train_sink_model(10, seed="0")
    with pytest.raises(ValueError, match="seed: expected an int >= 0, got -1"):
        lesson.train_sink_model(10, seed=-1)


def test_the_stored_measurements_say_what_the_notebook_says():
    """The shipped results.json (the training commands' record): sinks >= 0.5, eviction hurts and 1 sink restores,
    the latent models against MHA, GQA, MQA and the control, the training commands within 15 CPU-minutes."""
    r = lesson.measured()
    s = r["sinks"]
    assert all(w >= 0.5 for row in s["scores"]["first-token weight"] for w in row)
    past = s["streaming"]["past the window"]
    assert past["evicted"] > past["full"] + 0.02
    for k in (1, 2, 4):
        assert abs(past[f"kept {k}"] - past["full"]) < 1e-3
    assert past["best"] < past["full"]
    assert max(max(row) for row in s["course gpt"]["first-token weight"]) < 0.05
    lat = r["latent"]
    kv = lat["course models"]
    assert kv["kv4"]["cache bytes per token"] == 2 * kv["kv2"]["cache bytes per token"] == 4 * kv["kv1"]["cache bytes per token"]
    m64, m32 = lat["latent models"]["64"], lat["latent models"]["32"]
    assert m64["cache bytes per token"] < kv["kv2"]["cache bytes per token"] and m64["heldout bits"] < kv["kv2"]["heldout bits"]
    assert m32["cache bytes per token"] < kv["kv1"]["cache bytes per token"] and m32["heldout bits"] < kv["kv1"]["heldout bits"]
    assert lat["control"]["heldout bits"] < min(m["heldout bits"] for m in lat["latent models"].values())
    assert s["total cpu seconds"] <= 15 * 60 and lat["total cpu seconds"] <= 15 * 60
