"""The wrong numbers that the numeric self-checks of notebooks 02–07 recognise (issue 14: say why a
wrong answer is wrong). Each lesson's claimed wrong value is recomputed here from the mistake its
message describes, by another route (a simulation, a mask, the encoding itself); and each notebook's
self-check cell, as written, shows each message for its value and the plain hint otherwise."""
import ast
import importlib
import json
import math
import pathlib

import pytest
import torch
from torch.nn.attention.bias import causal_lower_right

import attnlab as al
from attnlab.i18n import N_, gettext
from attnlab.lessons import (
    nb02_scoring_functions as nb02,
    nb03_multi_head_attention as nb03,
    nb04_self_attention_walkthrough as nb04,
    nb05_cat_milk_it as nb05,
    nb06_positional_encoding as nb06,
    nb07_masks_and_efficient_attention as nb07,
)
from attnlab.lessons.nb05_cat_milk_it.data import cat_milk_it
from attnlab.ui import selfcheck

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


def _value(pairs, phrase):
    """The wrong value whose message contains ``phrase`` (exactly one must)."""
    hits = [v for v, m in pairs if phrase in m]
    assert len(hits) == 1, (phrase, [m for _, m in pairs])
    return hits[0]


# ---- 02: Var(q·k) for d_k = 64, recomputed by simulation
def test_nb02_variance_mistakes_are_what_the_mistakes_give():
    pairs = nb02.variance_mistakes(64)
    assert len(pairs) == 4
    g = torch.Generator().manual_seed(0)
    q, k = (torch.randn(200_000, 64, generator=g, dtype=torch.float64) for _ in range(2))
    qk = (q * k).sum(-1)
    assert abs(qk.var().item() - 64) < 1.0                                      # the answer
    assert abs(_value(pairs, "standard deviation") - qk.std().item()) < 0.05
    assert abs(_value(pairs, "variance of one term") - (q[:, 0] * k[:, 0]).var().item()) < 0.02
    assert abs(_value(pairs, "the mean of q·k") - qk.mean().item()) < 0.1
    assert abs(_value(pairs, "one term repeated") / (64 * q[:, 0] * k[:, 0]).var().item() - 1) < 0.02


# ---- 03: d_k = d_model / h, recomputed from the shapes of split_heads
def test_nb03_head_size_mistakes_are_what_the_mistakes_give():
    pairs = nb03.head_size_mistakes(512, 8)
    X = torch.zeros(1, 3, 512)
    heads = al.split_heads(X, 8)                                                # (1, 8, 3, 64)
    assert heads.shape[-1] == 64                                                # the answer
    assert _value(pairs, "that is d_model") == X.shape[-1]                      # no split at all
    assert _value(pairs, "the number of heads") == heads.shape[1]
    full_width = al.merge_heads(X[:, None].expand(1, 8, 3, 512))               # 8 heads of width 512 side by side
    assert _value(pairs, "heads of the full width") == full_width.shape[-1]


# ---- 04: √128, and the softmax weight of scores 14 and 12
def test_nb04_divisor_mistakes_are_what_the_mistakes_give():
    pairs = nb04.divisor_mistakes(128, 64)
    assert _value(pairs, "you divided 128 by 8") == 128 / math.sqrt(64) == 16
    assert _value(pairs, "d_k itself") == 128
    assert _value(pairs, "you halved 128") == 64
    assert _value(pairs, "the divisor for d_k = 64") == 8
    for wrong, _ in pairs:                                      # only √128 brings Var(q·k / c) = d_k / c² to 1
        assert abs(128 / wrong ** 2 - 1) >= 0.5


def test_nb04_softmax_weight_mistakes_are_what_the_mistakes_give():
    pairs = nb04.softmax_weight_mistakes((14, 12), 8, ("Thinking", "Machines"))
    right = 1 / (1 + math.exp(-2))
    assert abs(right - 0.881) < 1e-3
    assert _value(pairs, "you divided 14 by 14 + 12") == pytest.approx(14 / 26)
    assert _value(pairs, "the weight of Machines") == pytest.approx(1 - right)
    assert _value(pairs, "unscaled scores 112 and 96") == pytest.approx(math.exp(112) / (math.exp(112) + math.exp(96)))
    assert _value(pairs, "a second time") == pytest.approx(1 / (1 + math.exp(-(14 - 12) / 8)))


# ---- 05: sim(it′, milk′) from the seed's table
def test_nb05_similarity_mistakes_are_what_the_mistakes_give():
    pairs = nb05.similarity_mistakes("sweet")
    it, milk, cat = (0.625, 1.375), (0.089, 1.911), (0.625, 1.375)              # the seed's table, typed
    assert _value(pairs, "seed's written line, which has 0.0625") == pytest.approx(0.0625 * 0.089 + 1.375 * 1.911)
    assert _value(pairs, "that is it′ · cat′") == pytest.approx(it[0] * cat[0] + it[1] * cat[1])
    assert _value(pairs, "before attention") == 1 * 2 + 3 * 2                   # the seed's sim(it, milk) = 8
    assert _value(pairs, "multiplied across") == pytest.approx(it[0] * milk[1] + it[1] * milk[0])
    cosine = (it[0] * milk[0] + it[1] * milk[1]) / (math.hypot(*it) * math.hypot(*milk))
    assert _value(pairs, "cosine similarity") == pytest.approx(cosine)
    _, X = cat_milk_it("sweet")
    assert torch.dot(X[2], X[1]).item() == 8                                     # it · milk before attention


# ---- 06: the wavelength of pair 8, recomputed from the encoding's own columns
def test_nb06_wavelength_mistakes_are_what_the_mistakes_give():
    pairs = nb06.wavelength_mistakes(8, 32)
    P = al.sinusoidal_encoding(2, 32, dtype=torch.float64)
    omega = math.atan2(P[1, 16].item(), P[1, 17].item())                      # row 1 is (sin ω, cos ω)
    assert abs(2 * math.pi / omega - 2 * math.pi * 100) < 1e-6                 # the answer, 628.3
    assert _value(pairs, "1/ω, positions per radian") == pytest.approx(1 / omega)
    assert _value(pairs, "the exponent j/D = 8/32") == pytest.approx(2 * math.pi / 10000 ** (-8 / 32))
    assert _value(pairs, "column 17 in the exponent") == pytest.approx(2 * math.pi / 10000 ** (-17 / 32))
    assert _value(pairs, "π for a full cycle") == pytest.approx(math.pi / omega)
    assert _value(pairs, "that is ω, the frequency") == pytest.approx(omega)


# ---- 07: keys seen by query 1 of 2 with 5 keys, top-left
def test_nb07_visible_keys_mistakes_are_what_the_mistakes_give():
    pairs = nb07.visible_keys_mistakes(1, 2, 5)
    assert al.causal_mask(2, 5)[1].sum() == 2                                   # the answer
    strict = torch.ones(2, 5).tril(-1).bool()                                   # j < i: its own key left out
    assert _value(pairs, "left out its own key") == int(strict[1].sum()) == int(al.causal_mask(2, 5)[0].sum())
    out = torch.nn.functional.scaled_dot_product_attention(                    # torch's own bottom-right mask:
        torch.zeros(1, 2, 1), torch.zeros(1, 5, 1), torch.eye(5)[None],        # equal scores, one-hot values,
        attn_mask=causal_lower_right(2, 5))                                    # so row i > 0 where i sees a key
    assert _value(pairs, "bottom-right alignment") == int((out[0, 1] > 0).sum())
    assert _value(pairs, "keys it may not see") == 5 - 2


@pytest.mark.parametrize("call,error,words", [
    (lambda: nb02.variance_mistakes(1), ValueError, "d_k: expected an int >= 2, got 1"),
    (lambda: nb03.head_size_mistakes(512, 1), ValueError, "num_heads: expected an int >= 2, got 1"),
    (lambda: nb04.divisor_mistakes(128.0), TypeError, "d_k: expected an int, got float"),
    (lambda: nb04.softmax_weight_mistakes((12, 14)), ValueError, r"scores: expected first > second > 0, got \(12, 14\)"),
    (lambda: nb04.softmax_weight_mistakes(14), TypeError, "scores: expected a pair of numbers"),
    (lambda: nb04.softmax_weight_mistakes(words="Thinking"), TypeError, "words: expected a pair of str"),
    (lambda: nb05.similarity_mistakes("sour"), ValueError, r"sentence: expected one of \['hungry', 'sweet'\], got 'sour'"),
    (lambda: nb06.wavelength_mistakes(16, 32), ValueError, "j: expected a pair index below D/2 = 16, got 16"),
    (lambda: nb06.wavelength_mistakes(8, 31), ValueError, "num_hiddens: expected an even number"),
    (lambda: nb07.visible_keys_mistakes(2, 2, 5), ValueError, "query: expected a query index below num_queries = 2"),
    (lambda: nb07.visible_keys_mistakes(1, 2, 2), ValueError, "num_keys: expected an int >= 3, got 2"),
])
def test_bad_arguments_are_named(call, error, words):
    with pytest.raises(error, match=words):
        call()


# ---- the notebooks' own self-check cells (every notebook's, including ones added later)
def _numeric_cells():
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text())["cells"]):
            if cell["cell_type"] == "code" and "selfcheck.numeric(" in "".join(cell["source"]):
                yield pytest.param(path.stem, "".join(cell["source"]), id=f"{path.stem}-cell{i}")


CELLS = list(_numeric_cells())


def test_every_numeric_self_check_is_found():
    found = [c.values[0][:2] for c in CELLS]
    for number, count in (("02", 1), ("03", 1), ("04", 2), ("05", 1), ("06", 1), ("07", 1)):
        assert found.count(number) >= count, found


def _build(stem, source):
    """The self-check the cell builds (its last expression), with the notebook's own names."""
    import numpy as np

    lesson = importlib.import_module(f"attnlab.lessons.nb{stem}")
    tree = ast.parse(source)
    namespace = {"selfcheck": selfcheck, "lesson": lesson, "math": math, "al": al, "torch": torch, "np": np,
                 "_": gettext, "N_": N_}                                      # the notebooks' catalog lookups
    exec(compile(ast.Module(tree.body[:-1], []), "<cell>", "exec"), namespace)
    return eval(compile(ast.Expression(tree.body[-1].value), "<cell>", "eval"), namespace)


@pytest.mark.parametrize("stem,source", CELLS)
def test_each_notebook_check_names_each_mistake_and_hints_otherwise(stem, source):
    check = _build(stem, source)
    assert "mistakes=lesson." in source and len(check.mistakes) >= 3
    for wrong, message in check.mistakes:
        check.control.value = wrong                                             # typed, then Check pressed
        check.check_button.click()
        assert f"{wrong:g}: {message}" in check.feedback.value, (wrong, check.feedback.value)
        assert check.hint not in check.feedback.value or not check.hint
    assert check.check(check.answer) is True
    far = check.answer + 1000 * max(check.tolerance, 1.0) + 12.345              # a number no mistake explains
    assert check.check(far) is False
    assert "too large" in check.feedback.value and check.hint in check.feedback.value
    assert not any(message in check.feedback.value for _, message in check.mistakes)
