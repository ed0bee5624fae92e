"""Seed 004's cat/milk/it tables: which formula made them, and the three scalings against
references written out by hand (plain torch.softmax), not through attnlab's kernels."""
import math

import pytest
import torch

from attnlab.lessons import nb05_cat_milk_it as cmi
from attnlab.data import cat_milk_it

# The seed's numbers, typed in again from the note (not imported from the module under test).
SEED = {
    "sweet": {"scores": [[8, 8, 8, 8], [8, 10, 8, 12], [8, 8, 8, 8], [8, 12, 8, 16]],
              "out": [[0.625, 1.375], [0.089, 1.911], [0.625, 1.375], [0.010, 1.990]],
              "sim": (2.68, 2.28)},
    "hungry": {"scores": [[8, 8, 8, 8], [8, 10, 8, 4], [8, 8, 8, 8], [8, 4, 8, 16]],
               "out": [[1.125, 0.875], [0.609, 1.391], [1.125, 0.875], [1.999, 0.001]],
               "sim": (1.90, 2.03)},
}


def rounded(t, decimals=3):
    return [[round(v, decimals) for v in row] for row in t.tolist()]


@pytest.mark.parametrize("sentence", ["sweet", "hungry"])
def test_scores_match_the_seed(sentence):
    _, X = cat_milk_it(sentence)
    assert cmi.attend(X).scores.tolist() == SEED[sentence]["scores"]


@pytest.mark.parametrize("sentence", ["sweet", "hungry"])
def test_seed_tables_come_from_scaling_after_the_softmax_with_d4(sentence):
    _, X = cat_milk_it(sentence)
    assert rounded(cmi.attend(X, "after", d=4).output) == SEED[sentence]["out"]


@pytest.mark.parametrize("sentence", ["sweet", "hungry"])
@pytest.mark.parametrize("scaling,d", [("inside", 4), ("inside", 2), ("none", None), ("after", 2)])
def test_other_formulas_do_not_give_the_seed_tables(sentence, scaling, d):
    _, X = cat_milk_it(sentence)
    assert rounded(cmi.attend(X, scaling, d=d).output) != SEED[sentence]["out"]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("temperature", [0.3, 1.0, 4.0])
def test_three_scalings_against_hand_written_formulas(dtype, temperature):
    X = torch.tensor([[2.0, 2.0], [1.0, 3.0], [-1.0, 0.5], [0.0, 4.0], [3.0, 1.0]], dtype=dtype)
    S = X @ X.T
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else dict(atol=1e-12, rtol=1e-12)
    for d in (2, 4):
        want = {"none": torch.softmax(S / temperature, -1) @ X,
                "after": torch.softmax(S / temperature, -1) @ X / math.sqrt(d),
                "inside": torch.softmax(S / (math.sqrt(d) * temperature), -1) @ X}
        for scaling, expected in want.items():
            got = cmi.attend(X, scaling, d=d, temperature=temperature)
            torch.testing.assert_close(got.output, expected, **tol)
            torch.testing.assert_close(got.weights.sum(-1), torch.ones(5, dtype=dtype), **tol)


def test_d_defaults_to_the_vector_size():
    _, X = cat_milk_it("sweet")
    torch.testing.assert_close(cmi.attend(X, "inside").output, cmi.attend(X, "inside", d=2).output)


def test_after_softmax_leaves_the_weights_unscaled():
    _, X = cat_milk_it("hungry")
    torch.testing.assert_close(cmi.attend(X, "after", d=4).weights, cmi.attend(X, "none").weights)


@pytest.mark.parametrize("sentence", ["sweet", "hungry"])
def test_seed_similarities_recomputed(sentence):
    words, X = cat_milk_it(sentence)
    sims = cmi.similarities(cmi.attend(X, "after", d=4).output, words)["dot"]
    assert (round(sims["milk"], 2), round(sims["cat"], 2)) == SEED[sentence]["sim"]


def test_the_seed_typo_0_0625_does_not_give_2_68():
    assert round(0.625 * 0.089 + 1.375 * 1.911, 2) == 2.68
    assert round(0.0625 * 0.089 + 1.375 * 1.911, 2) != 2.68
    assert round(0.625 * 0.625 + 1.375 * 1.375, 2) == 2.28
    assert round(0.0625 * 0.0625 + 1.375 * 1.375, 2) != 2.28


@pytest.mark.parametrize("sentence,closer", [("sweet", "milk"), ("hungry", "cat")])
@pytest.mark.parametrize("d", [2, 4])
def test_correct_scaling_keeps_the_dot_product_conclusion(sentence, closer, d):
    words, X = cat_milk_it(sentence)
    dot = cmi.similarities(cmi.attend(X, "inside", d=d).output, words)["dot"]
    assert max(dot, key=dot.get) == closer


@pytest.mark.parametrize("sentence", ["sweet", "hungry"])
@pytest.mark.parametrize("scaling", cmi.SCALINGS)
@pytest.mark.parametrize("temperature", [0.1, 1.0, 10.0])
def test_it_equals_cat_and_attends_uniformly(sentence, scaling, temperature):
    words, X = cat_milk_it(sentence)
    got = cmi.attend(X, scaling, d=4, temperature=temperature)
    torch.testing.assert_close(got.output[words.index("it")], got.output[words.index("cat")])
    torch.testing.assert_close(got.weights[words.index("it")], torch.full((4,), 0.25, dtype=X.dtype))
    sims = cmi.similarities(got.output, words)
    assert sims["distance"]["cat"] == 0.0
    assert sims["cosine"]["cat"] == pytest.approx(1.0)


def test_similarities_closed_form():
    out = torch.tensor([[3.0, 4.0], [0.0, 1.0], [3.0, 4.0]])
    sims = cmi.similarities(out, ["cat", "milk", "it"])
    assert sims["dot"] == {"milk": 4.0, "cat": 25.0}
    assert sims["cosine"]["milk"] == pytest.approx(0.8)
    assert sims["distance"]["milk"] == pytest.approx(math.sqrt(9 + 9))


def test_compare_to_seed_counts_matches():
    words, X = cat_milk_it("sweet")
    text, hits, total = cmi.compare_to_seed(words, cmi.attend(X, "after", d=4).output, SEED["sweet"]["out"])
    assert (hits, total) == (8, 8) and "✗" not in text
    _, hits, _ = cmi.compare_to_seed(words, cmi.attend(X, "inside", d=4).output, SEED["sweet"]["out"])
    assert hits == 0


def test_bad_input():
    _, X = cat_milk_it("sweet")
    with pytest.raises(ValueError, match="scaling: expected one of"):
        cmi.attend(X, "before")
    with pytest.raises(ValueError, match="X: expected a 2-D"):
        cmi.attend(X[0])
    with pytest.raises(TypeError, match="X: expected a torch.Tensor"):
        cmi.attend([[1.0, 2.0]])
    with pytest.raises(ValueError, match="d: expected a number > 0"):
        cmi.attend(X, "inside", d=0)
    with pytest.raises(ValueError, match="temperature"):
        cmi.attend(X, temperature=0.0)
    with pytest.raises(ValueError, match="words: expected 'it'"):
        cmi.similarities(X, ["cat", "milk", "they", "sweet"])


def test_moves_plot_updates_in_place():
    from matplotlib.figure import Figure

    words, X = cat_milk_it("sweet")
    ax = Figure().subplots()
    out = cmi.attend(X).output
    cmi.moves_plot(words, X, out, ax=ax, others={"hungry": (4.0, 0.0)})
    n_lines, n_patches = len(ax.lines), len(ax.patches)
    assert {t.get_text() for t in ax.texts} >= {"cat = it", "cat′ = it′", "milk", "hungry (not in this sentence)"}
    words2, X2 = cat_milk_it("hungry", {"it": (3.0, 1.0)})
    cmi.update_moves(ax, words2, X2, cmi.attend(X2).output, others={"sweet": (0.0, 4.0)})
    assert (len(ax.lines), len(ax.patches)) == (n_lines, n_patches)
    assert "it" in {t.get_text() for t in ax.texts}
