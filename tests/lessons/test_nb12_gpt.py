"""Notebook 12's lesson: the corpus, the GPT (RoPE, grouped-query attention, KV cache), generation and
its filters, bits per character, the cache's bytes, the shipped models, bad inputs."""
import math
import unicodedata

import pytest
import torch
from hypothesis import given, settings, strategies as st
from torch.nn import functional as F

from attnlab.core.positional import rope
from attnlab.lessons import nb12_gpt as lesson
from attnlab.lessons.nb12_gpt import corpus, induction, measure
from attnlab.lessons.nb12_gpt.model import GPT, GroupedQueryAttention, new_caches, with_kv_heads

V = len(corpus.vocab())


@pytest.fixture(scope="module")
def shipped():
    return lesson.pretrained()


def small(kv_heads=None, dtype=torch.float32, seed=1, heads=4, layers=2):
    return GPT(V, d_model=32, heads=heads, kv_heads=kv_heads, layers=layers, context=48, seed=seed).to(dtype).eval()


def is_cjk(c):
    return "CJK" in unicodedata.name(c, "")


# ------------------------------------------------------------------------------------------ corpus

def test_vocab_is_every_corpus_character_sorted_by_code_point():
    chars = lesson.vocab()
    assert list(chars) == sorted(set(corpus.text("all")))
    assert len(set(chars)) == len(chars)
    assert sum(is_cjk(c) for c in chars) > 500                     # the Chinese prose's characters, none dropped
    assert corpus.decode(corpus.encode("注意力 attention")) == "注意力 attention"


def test_heldout_is_a_fixed_tenth_chosen_by_hash():
    train, held = corpus.paragraphs("train"), corpus.paragraphs("heldout")
    assert not set(train) & set(held)
    assert len(train) + len(held) == len(corpus.paragraphs("all"))
    assert 0.07 < len(held) / (len(train) + len(held)) < 0.13
    assert all(corpus.is_heldout(p) for p in held) and not any(corpus.is_heldout(p) for p in train)
    zh = [p for p in held if any(is_cjk(c) for c in p)]
    assert zh and len(zh) < len(held)                               # both languages held out


def test_cleaning_keeps_words_and_drops_markup():
    md = ("# 1. Title\n\nSee [the index](00_index.ipynb) and `al.rope`: **bold** and *it*.\n\n"
          "```python\nx = 1\n```\n\n$$a^2$$\n\n| a | b |\n|---|---|\n| one cell | two cells |\n<!-- note -->")
    assert corpus.clean(md) == ["See the index and al.rope: bold and it.", "a | b\none cell | two cells"]
    assert corpus.clean("the scale $\\sqrt{d_k}$ and $\\sigma$ matter here") == ["the scale √d_k and σ matter here"]


def test_the_shipped_corpus_is_the_notebooks_prose():
    text = corpus.text("all")
    assert "```" not in text and "](" not in text and "<!--" not in text
    assert "注意力" in text and "attention" in text


def test_extract_refuses_a_folder_without_notebooks(tmp_path):
    with pytest.raises(ValueError, match=r"notebooks: expected a folder with NN_\*\.ipynb"):
        corpus.extract(tmp_path)
    with pytest.raises(ValueError, match="split: expected 'train', 'heldout' or 'all', got 'test'"):
        corpus.paragraphs("test")


# ------------------------------------------------------------------------------------------ RoPE (core)

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_rope_is_a_complex_rotation(dtype):
    """Reference: each pair (a, b) as the complex a + ib times e^{-i t ω_j}."""
    x = torch.randn(2, 3, 5, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    omega = 10000.0 ** (-torch.arange(0, 8, 2, dtype=torch.float64) / 8)
    turn = torch.exp(-1j * torch.arange(5, dtype=torch.float64)[:, None] * omega)        # (T, d/2)
    z = torch.view_as_complex(x.reshape(2, 3, 5, 4, 2).contiguous()) * turn
    expected = torch.view_as_real(z).reshape(2, 3, 5, 8)
    got = rope(x.to(dtype))
    assert got.dtype == dtype
    torch.testing.assert_close(got.double(), expected, rtol=1e-5 if dtype == torch.float32 else 1e-12,
                               atol=1e-5 if dtype == torch.float32 else 1e-12)


def test_core_rope_is_notebook_06s_rope():
    from attnlab.lessons.nb06_positional_encoding import encoding
    x = torch.randn(3, 6, 10, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    torch.testing.assert_close(rope(x, [0, 2, 5, 7, 11, 13]), encoding.rope(x, [0, 2, 5, 7, 11, 13]), rtol=0, atol=1e-15)


def test_rope_scores_depend_on_the_offset_only():
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(1, 16, dtype=torch.float64, generator=g), torch.randn(1, 16, dtype=torch.float64, generator=g)
    s = [(rope(q, [i]) @ rope(k, [i + 3]).T).item() for i in (0, 5, 40)]
    assert s[0] == pytest.approx(s[1], abs=1e-12) and s[0] == pytest.approx(s[2], abs=1e-12)


def test_rope_refuses_bad_input():
    with pytest.raises(ValueError, match="x: expected an even last dim"):
        rope(torch.zeros(3, 5))
    with pytest.raises(ValueError, match=r"positions: expected shape \(3,\), one per row of x, got \(2,\)"):
        rope(torch.zeros(3, 4), [0, 1])
    with pytest.raises(TypeError, match="x: expected a torch.Tensor"):
        rope([[1.0, 2.0]])


# ------------------------------------------------------------------------------------------ attention

def reference_gqa(att, X, dtype):
    """torch's scaled_dot_product_attention with enable_gqa=True, causal, on att's copied weights."""
    B, T, D = X.shape
    H, K, d = att.heads, att.kv_heads, att.head_size
    Wq, Wk, Wv, Wo = (w.weight.detach().to(dtype) for w in (att.W_q, att.W_k, att.W_v, att.W_o))
    q = rope((X @ Wq.T).reshape(B, T, H, d).transpose(1, 2))                                 # (B, H, T, d)
    k = rope((X @ Wk.T).reshape(B, T, K, d).transpose(1, 2))                                 # (B, K, T, d)
    v = (X @ Wv.T).reshape(B, T, K, d).transpose(1, 2)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)           # (B, H, T, d)
    return out.transpose(1, 2).reshape(B, T, H * d) @ Wo.T


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("heads, kv_heads, B, T", [(4, 4, 2, 7), (4, 2, 2, 7), (4, 1, 3, 5), (1, 1, 1, 1),
                                                   (4, 2, 1, 1), (2, 1, 1, 9)])
def test_gqa_equals_torch_enable_gqa(dtype, heads, kv_heads, B, T):
    torch.manual_seed(0)
    att = GroupedQueryAttention(8 * heads, heads, kv_heads).to(dtype)
    X = torch.randn(B, T, 8 * heads, dtype=dtype, generator=torch.Generator().manual_seed(2))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-12, atol=1e-12)
    with torch.no_grad():
        torch.testing.assert_close(att(X), reference_gqa(att, X, dtype), **tol)
        caches = new_caches(small())[:1]                                       # the same, one position at a time
        steps = torch.cat([att(X[:, t:t + 1], caches[0]) for t in range(T)], dim=1)
    torch.testing.assert_close(steps, reference_gqa(att, X, dtype), **tol)


def test_the_weights_are_causal_and_shared_by_a_group():
    m = small(kv_heads=2)
    tokens = torch.tensor([corpus.encode("attention is all")])
    with torch.no_grad():
        m(tokens, need_weights=True)
    W = m.attention()[0][0]                                                                  # (H, T, T)
    assert torch.all(W.triu(1) == 0)
    torch.testing.assert_close(W.sum(-1), torch.ones(4, W.shape[-1]))


# ------------------------------------------------------------------------------------------ generation

def greedy(model, prompt, steps):
    """Reference: argmax of the logits of the whole sequence, step by step."""
    ids = corpus.encode(prompt)
    with torch.no_grad():
        for _ in range(steps):
            ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
    return corpus.decode(ids)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kv_heads", [1, 2, None])
def test_cache_and_no_cache_give_the_same_text_and_logits(dtype, kv_heads):
    m = small(kv_heads, dtype)
    for options in ({}, dict(temperature=0.7, top_k=20), dict(top_p=0.9, temperature=1.5)):
        a = lesson.generate(m, "The key ", 25, seed=5, cache=True, **options)
        b = lesson.generate(m, "The key ", 25, seed=5, cache=False, **options)
        assert a.text == b.text and len(a.text) == 8 + 25
        assert a.logits.dtype == dtype
        torch.testing.assert_close(a.logits, b.logits, rtol=1e-4 if dtype == torch.float32 else 1e-10,
                                   atol=1e-5 if dtype == torch.float32 else 1e-12)


def test_the_same_seed_gives_the_same_text_and_another_seed_another():
    m = small()
    texts = {lesson.generate(m, "a", 30, seed=s).text for s in (0, 0, 1)}
    assert len(texts) == 2


@pytest.mark.parametrize("options", [dict(temperature=1e-6), dict(top_k=1), dict(top_p=1e-9),
                                     dict(temperature=3.0, top_k=1)])
def test_tiny_temperature_top_k_1_and_tiny_top_p_are_greedy(shipped, options):
    for prompt in ("The query ", "注意力"):
        g = lesson.generate(shipped, prompt, 20, seed=3, **options)
        assert g.text == greedy(shipped, prompt, 20)
        assert torch.all(g.probs.max(-1).values == 1.0)


def reference_filter(logits, T, k, p):
    """softmax(z / T), keep the k largest, then the smallest prefix reaching mass p; ties by lower id."""
    probs = torch.softmax(logits.double() / T, -1).tolist()
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    kept = order[:k] if k else order
    mass = sum(probs[i] for i in kept)
    if p is not None:
        chosen, total = [], 0.0
        for i in kept:
            if total >= p:
                break
            chosen.append(i)
            total += probs[i] / mass
        kept = chosen
    out = torch.zeros(len(probs), dtype=torch.float64)
    for i in kept:
        out[i] = probs[i]
    return out / out.sum()


@pytest.mark.parametrize("T, k, p", [(1.0, None, None), (0.5, 10, None), (1.3, None, 0.8), (2.0, 50, 0.6),
                                     (0.9, 3, 0.99)])
def test_probs_are_the_filtered_softmax_of_the_logits(shipped, T, k, p):
    g = lesson.generate(shipped, "Each head ", 12, temperature=T, top_k=k, top_p=p, seed=11)
    for i in range(12):
        torch.testing.assert_close(g.probs[i], reference_filter(g.logits[i], T, k, p), rtol=1e-9, atol=1e-12)
        assert g.probs[i][corpus.encode(g.text[10 + i])[0]] > 0                # drawn from what was kept


def test_top_p_ties_keep_the_lower_token_ids():
    z = torch.zeros(6)
    assert lesson.filtered(z, top_p=0.4).tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0, 0, 0])
    assert lesson.filtered(z, top_k=2).tolist() == pytest.approx([0.5, 0.5, 0, 0, 0, 0])
    assert lesson.filtered(torch.tensor([0.0, 1.0]), top_p=1.0).tolist() == pytest.approx(
        torch.softmax(torch.tensor([0.0, 1.0], dtype=torch.float64), 0).tolist())


logit_rows = st.lists(st.floats(-30, 30, allow_nan=False), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(logit_rows, st.floats(1e-3, 1e3), st.integers(1, 40), st.integers(1, 40),
       st.floats(1e-6, 1.0), st.floats(1e-6, 1.0))
def test_filters_give_distributions_whose_support_shrinks_with_k_and_p(row, T, k1, k2, p1, p2):
    z = torch.tensor(row, dtype=torch.float64)
    small_k, big_k = sorted((k1, k2))
    small_p, big_p = sorted((p1, p2))
    probs = {}
    for k in (small_k, big_k, None):
        for p in (small_p, big_p, None):
            q = lesson.filtered(z, temperature=T, top_k=k, top_p=p)
            assert torch.all(q >= 0) and not torch.isnan(q).any()
            assert q.sum().item() == pytest.approx(1.0, abs=1e-12)
            probs[k, p] = q > 0
    for p in (small_p, big_p, None):
        assert torch.all(probs[small_k, p] <= probs[big_k, p]) and torch.all(probs[big_k, p] <= probs[None, p])
    for k in (small_k, big_k, None):
        assert torch.all(probs[k, small_p] <= probs[k, big_p]) and torch.all(probs[k, big_p] <= probs[k, None])
    assert (lesson.filtered(z, temperature=T, top_k=1) > 0).sum() == 1


# ------------------------------------------------------------------------------------------ cache bytes

@pytest.mark.parametrize("kv_heads", [1, 2, 4])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cache_bytes_is_what_the_cache_holds(kv_heads, dtype):
    m = small(kv_heads, dtype, layers=3)
    for length in (1, 7, 30):
        expected = 3 * 2 * kv_heads * 8 * length * (4 if dtype == torch.float32 else 8)
        assert lesson.cache_bytes(m, length) == expected == measure.held_bytes(m, length)
    assert lesson.cache_bytes(m, 0) == 0


def test_the_shipped_models_cache_shrinks_with_kv_heads():
    sizes = [lesson.cache_bytes(lesson.pretrained(kv_heads=kv), 256) for kv in (None, 2, 1)]
    assert sizes[0] == 2 * sizes[1] == 4 * sizes[2]
    assert sizes[2] == measure.held_bytes(lesson.pretrained(kv_heads=1), 256)


# ------------------------------------------------------------------------------------------ conversion

def test_pooling_every_head_into_itself_changes_nothing_and_pooling_averages():
    m = small()
    same = with_kv_heads(m, 4)
    tokens = torch.tensor([corpus.encode("the cache")])
    with torch.no_grad():
        torch.testing.assert_close(same(tokens), m(tokens))
    one = with_kv_heads(m, 1)
    W = m.blocks[0].attention.W_k.weight                                                 # (H d, D)
    torch.testing.assert_close(one.blocks[0].attention.W_k.weight, W.reshape(4, 8, -1).mean(0))
    with pytest.raises(ValueError, match="kv_heads: expected a divisor of heads=4, got 3"):
        with_kv_heads(m, 3)
    with pytest.raises(ValueError, match="model: expected a multi-head model"):
        with_kv_heads(one, 1)


# ------------------------------------------------------------------------------------------ shipped

def test_shipped_models_beat_the_bigram_on_heldout_text(shipped):
    bigram, unigram = lesson.bigram_bits(), lesson.unigram_bits()
    assert bigram < unigram
    assert lesson.bits_per_char(shipped) < bigram
    for kv in (2, 1):
        assert lesson.bits_per_char(lesson.pretrained(kv_heads=kv)) < bigram


def test_bits_per_char_is_the_mean_cross_entropy_over_every_character_but_the_first():
    m = small()
    ids = torch.tensor(corpus.encode(corpus.text("heldout")))
    C = 48
    whole = (len(ids) - 1) // C                          # windows of C + 1 characters overlapping by one
    windows = ids[:whole * C + 1].unfold(0, C + 1, C)   # (whole, C + 1)
    rest = ids[whole * C:]                              # the last, shorter window (at least 2 characters)
    with torch.no_grad():
        total = F.cross_entropy(m(windows[:, :-1]).double().reshape(-1, V), windows[:, 1:].reshape(-1),
                                reduction="sum").item()
        if len(rest) > 1:
            total += F.cross_entropy(m(rest[None, :-1])[0].double(), rest[1:], reduction="sum").item()
    assert lesson.bits_per_char(m) == pytest.approx(total / (len(ids) - 1) / math.log(2), rel=1e-9)


def test_a_chinese_prompt_continues_in_chinese_and_an_english_one_in_english(shipped):
    """Greedy continuations of the first 12 characters of held-out paragraphs. The Chinese prose names code
    and models in Latin letters (held-out Chinese paragraphs: 54-100% of their letters are CJK, 81% on
    average), so a Chinese continuation must hold CJK characters (>= 4 of 30) and, over the five, more CJK
    letters than Latin ones; an English continuation holds no CJK character and >= 90% ASCII letters."""
    held = corpus.paragraphs("heldout")
    zh = [p for p in held if sum(is_cjk(c) for c in p[:12]) >= 8][:5]
    en = [p for p in held if p[:12].isascii() and sum(c.isalpha() for c in p[:12]) >= 8][:5]
    assert len(zh) == len(en) == 5
    cjk = letters = 0
    for p in zh:
        new = lesson.generate(shipped, p[:12], 30, top_k=1).text[12:]
        assert sum(is_cjk(c) for c in new) >= 4, (p[:12], new)
        cjk += sum(is_cjk(c) for c in new)
        letters += sum(c.isalpha() for c in new)
    assert cjk > letters / 2
    for p in en:
        new = lesson.generate(shipped, p[:12], 30, top_k=1).text[12:]
        alpha = [c for c in new if c.isalpha()]
        assert not any(is_cjk(c) for c in new) and sum(c.isascii() for c in alpha) >= 0.9 * len(alpha) > 0, (p[:12], new)


def test_pretrained_is_in_eval_mode_with_the_documented_heads():
    for kv, expected in ((None, 4), (4, 4), (2, 2), (1, 1)):
        m = lesson.pretrained(kv_heads=kv)
        assert not m.training and m.config["kv_heads"] == expected and m.config["heads"] == 4


# ------------------------------------------------------------------------------------------ induction

def test_induction_scores_read_the_right_weights():
    """The scores are the weights a second-copy letter puts on the letter after its first occurrence
    (induction) and on the letter before it (previous token), recomputed here from the patterns."""
    m = small()
    items = induction.probes(3, seed=1)
    prev, ind = induction.induction_scores(m, items)
    assert prev.shape == ind.shape == (2, 4)
    tokens = torch.tensor([corpus.encode(p.text) for p in items])
    with torch.no_grad():
        m(tokens, need_weights=True)
    W = m.attention()
    for layer in range(2):
        for head in range(4):
            want_ind, want_prev = [], []
            for i, p in enumerate(items):
                for j in range(p.length - 1):
                    t = p.second + j
                    want_ind.append(W[layer][i, head, t, p.first + j + 1].item())
                    want_prev.append(W[layer][i, head, t, t - 1].item())
            assert ind[layer, head].item() == pytest.approx(sum(want_ind) / len(want_ind), rel=1e-6)
            assert prev[layer, head].item() == pytest.approx(sum(want_prev) / len(want_prev), rel=1e-6)


def test_ablate_removes_one_heads_output_only():
    m = small()
    cut = lesson.ablate(m, 1, 2)
    assert m.blocks[1].attention.keep.tolist() == [1, 1, 1, 1]            # the original is untouched
    assert cut.blocks[1].attention.keep.tolist() == [1, 1, 0, 1]
    tokens = torch.tensor([corpus.encode("copy this")])
    with torch.no_grad():
        X = m.blocks[0](m.embed(tokens))
        att = m.blocks[1].attention
        full = att(m.blocks[1].norm1(X))
        q_out = cut.blocks[1].attention(cut.blocks[1].norm1(X))
        att.W_o.weight[:, 16:24] = 0                  # the same by hand: head 2's columns of W_o
        torch.testing.assert_close(q_out, att(m.blocks[1].norm1(X)))
        assert not torch.allclose(q_out, full)


def test_the_shipped_run_measured_copying_with_and_without_heads():
    r = lesson.measured()["induction"]
    assert len(r["induction"]) == 4 and len(r["induction"][0]) == 4
    for key in ("ablated strongest", "ablated weakest"):
        assert 0 <= r[key]["copying"]["accuracy"] <= 1


def test_copied_reads_the_second_copy_teacher_forced(shipped):
    p = induction.probes(1, seed=0)[0]
    word = p.text[p.first:p.first + p.length]
    got = induction.copied(shipped, p)
    assert len(got) == p.length and got[0] == word[0]
    tokens = torch.tensor([corpus.encode(p.text)])
    with torch.no_grad():
        best = shipped(tokens)[0].argmax(-1)
    assert got[1:] == corpus.decode(best[p.second:p.second + p.length - 1].tolist())
    with pytest.raises(TypeError, match="probe: expected a Probe"):
        induction.copied(shipped, p.text)
    with pytest.raises(TypeError, match="model: expected a GPT"):
        induction.copied(None, p)


def test_training_windows_with_made_up_words_repeated():
    """copy_share=1: every window gets its made-up words twice; the first copies' letters are no targets;
    the same seed gives the same windows; copy_share=0 gives the plain windows."""
    from attnlab.lessons.nb12_gpt import training
    x, y = next(training.batches(8, 64, torch.Generator().manual_seed(3), 1.0, 2))
    x2, y2 = next(training.batches(8, 64, torch.Generator().manual_seed(3), 1.0, 2))
    assert torch.equal(x, x2) and torch.equal(y, y2)
    assert x.shape == y.shape == (8, 64)
    assert (y == -100).any(1).all()                                # each window ignores some targets
    assert torch.equal(y[:, :-1][y[:, :-1] != -100], x[:, 1:][y[:, :-1] != -100])   # the others are the next characters
    x, y = next(training.batches(8, 256, torch.Generator().manual_seed(4), 1.0, 2))
    found = recurring = 0
    for b in range(8):                                             # a run of ignored letters: a first copy
        first = [t + 1 for t in range(255) if y[b, t] == -100]
        runs = [[first[0]]]
        for t in first[1:]:
            runs[-1].append(t) if t == runs[-1][-1] + 1 else runs.append([t])
        for r in runs:
            word = corpus.decode(x[b, r[0]:r[-1] + 1].tolist())
            found += 1
            recurring += word in corpus.decode(x[b, r[-1] + 1:].tolist())
    assert found >= 8 and recurring >= found / 2                  # second copies cut off at the window's end
    plain, _ = next(training.batches(8, 64, torch.Generator().manual_seed(3)))
    ids = training._train_ids()
    starts = torch.randint(0, len(ids) - 65, (8,), generator=torch.Generator().manual_seed(3))
    assert torch.equal(plain, torch.stack([ids[s:s + 64] for s in starts.tolist()]))
    with pytest.raises(ValueError, match="copy_share: expected a number <= 1, got 1.5"):
        next(training.run(1, copy_share=1.5, d_model=16, layers=1, heads=2))
    with pytest.raises(ValueError, match="words: expected an int >= 1, got 0"):
        next(training.run(1, words=0, d_model=16, layers=1, heads=2))


def test_probes_hold_a_made_up_word_twice():
    for p in induction.probes(5, seed=2):
        w = p.text[p.first:p.first + p.length]
        assert p.text[p.second:] == w and w.isalpha() and w not in corpus.text("all").split()


# ------------------------------------------------------------------------------------------ bad inputs

@pytest.mark.parametrize("args, kwargs, error, match", [
    (("The ✈",), {}, ValueError, r"prompt: expected characters of the vocabulary \(vocab\(\)\), got 1 outside it: '✈'"),
    (("",), {}, ValueError, "prompt: expected at least one character"),
    ((3,), {}, TypeError, "prompt: expected a str, got int"),
    (("The",), dict(temperature=0), ValueError, "temperature: expected a number > 0, got 0.0"),
    (("The",), dict(temperature=-1.0), ValueError, "temperature: expected a number > 0"),
    (("The",), dict(temperature="hot"), TypeError, "temperature: expected a real number, got str"),
    (("The",), dict(top_k=0), ValueError, "top_k: expected an int >= 1, got 0"),
    (("The",), dict(top_k=2.5), TypeError, "top_k: expected an int, got float"),
    (("The",), dict(top_p=0.0), ValueError, "top_p: expected a number > 0, got 0.0"),
    (("The",), dict(top_p=1.5), ValueError, "top_p: expected a number <= 1, got 1.5"),
    (("The",), dict(seed=-1), ValueError, "seed: expected an int >= 0, got -1"),
    (("The",), dict(cache="yes"), TypeError, "cache: expected True or False"),
])
def test_generate_names_the_bad_argument(args, kwargs, error, match):
    m = small()
    with pytest.raises(error, match=match):
        lesson.generate(m, *args, 3, **kwargs) if not isinstance(args[0], int) else lesson.generate(m, args[0], 3)


def test_generate_refuses_steps_past_the_context():
    m = small()                                                        # context 48
    with pytest.raises(ValueError, match=r"steps: expected an int >= 0, got -1"):
        lesson.generate(m, "ab", -1)
    with pytest.raises(ValueError, match=r"steps: expected at most context - len\(prompt\) = 46, got 47"):
        lesson.generate(m, "ab", 47)
    with pytest.raises(ValueError, match="prompt: expected at most context=48 characters, got 49"):
        lesson.generate(m, "a" * 49, 0)
    with pytest.raises(TypeError, match="model: expected a GPT"):
        lesson.generate("model", "ab", 1)
    assert lesson.generate(m, "ab", 0).text == "ab"


def test_the_other_functions_name_the_bad_argument():
    m = small()
    with pytest.raises(ValueError, match=r"split: expected one of \['heldout', 'train'\], got 'test'"):
        lesson.bits_per_char(m, split="test")
    with pytest.raises(ValueError, match="length: expected an int >= 0, got -1"):
        lesson.cache_bytes(m, -1)
    with pytest.raises(TypeError, match="model: expected a GPT"):
        lesson.cache_bytes(None, 3)
    with pytest.raises(ValueError, match=r"kv_heads: expected one of \[4, 2, 1\], got 3"):
        lesson.pretrained(kv_heads=3)
    with pytest.raises(ValueError, match="layer: expected an int <= 1, got 2"):
        lesson.ablate(m, 2, 0)
    with pytest.raises(ValueError, match="head: expected an int <= 3, got 4"):
        lesson.ablate(m, 0, 4)
    with pytest.raises(ValueError, match="logits: expected at least one candidate"):
        lesson.filtered(torch.zeros(0))
    with pytest.raises(ValueError, match="kv_heads: expected a divisor of heads=4, got 3"):
        GPT(V, kv_heads=3)
    with pytest.raises(ValueError, match="d_model: expected a multiple of heads=4 with an even head size"):
        GPT(V, d_model=12)


# ------------------------------------------------------------------------------------------ timing, real models

def test_step_seconds_gives_one_positive_time_per_length():
    m = small()
    for cache in (True, False):
        times = lesson.step_seconds(m, (1, 10, 47), cache=cache, repeats=2)
        assert len(times) == 3 and all(t > 0 for t in times)
    with pytest.raises(ValueError, match="lengths: expected each length < context=48, got 48"):
        lesson.step_seconds(m, (48,))


def test_real_models_table_is_consistent():
    from attnlab.lessons.nb12_gpt.real_models import cache_bytes_per_token
    names = [r.name for r in lesson.REAL_MODELS]
    assert {"GPT-2 (124M)", "Falcon 7B", "Llama 2 70B", "Llama 3 8B", "Mistral 7B", "Qwen2 7B"} <= set(names)
    for r in lesson.REAL_MODELS:
        assert r.query_heads % r.kv_heads == 0 and r.source.startswith("https://huggingface.co/")
    falcon = lesson.REAL_MODELS[names.index("Falcon 7B")]
    assert falcon.kv_heads == 1 and falcon.query_heads * falcon.head_size == 4544
    assert cache_bytes_per_token(lesson.REAL_MODELS[names.index("Llama 2 70B")]) == 80 * 2 * 8 * 128 * 2
