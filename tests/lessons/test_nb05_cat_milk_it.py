"""Seed 004's cat/milk/it tables: which formula made them, and the three scalings against
references written out by hand (plain torch.softmax), not through attnlab's kernels."""
import math

import pytest
import torch

from attnlab.lessons import nb05_cat_milk_it as cmi
from attnlab.lessons.nb05_cat_milk_it import compute, figures, live
from attnlab.lessons.nb05_cat_milk_it.data import cat_milk_it

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
@pytest.mark.parametrize("scaling", compute.SCALINGS)
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
    out = cmi.attend(X, "inside", d=cmi.SEED_D_K).output
    moves = cmi.moves_plot(words, X, out, ax=ax, others={"hungry": (4.0, 0.0)})
    assert isinstance(moves, figures.Moves) and moves.ax is ax
    assert not [k for k in vars(ax) if "cat_milk" in k]                 # no state stored on the Axes
    n_lines, n_patches = len(ax.lines), len(ax.patches)
    texts = {t.get_text() for t in ax.texts}
    assert texts >= {"cat = it", "cat′ = it′", "milk", "hungry (not in this sentence)"}
    words2, X2 = cat_milk_it("hungry", {"it": (3.0, 1.0)})
    assert moves.update(words2, X2, cmi.attend(X2).output, others={"sweet": (0.0, 4.0)}) is moves
    assert (len(ax.lines), len(ax.patches)) == (n_lines, n_patches)
    assert "it" in {t.get_text() for t in ax.texts}


def test_coinciding_words_share_one_filled_disc_not_a_ring():
    """Seed sentence: cat′ = it′. After attention both are filled halves of one disc of equal size
    (no ring around the other); apart, each is a full disc."""
    from matplotlib.figure import Figure

    words, X = cat_milk_it("sweet")
    moves = cmi.moves_plot(words, X, cmi.attend(X, "after", d=4).output, ax=Figure().subplots())
    cat, it = moves.after[words.index("cat")], moves.after[words.index("it")]
    assert {cat.get_fillstyle(), it.get_fillstyle()} == {"left", "right"}
    assert cat.get_markersize() == it.get_markersize()
    assert moves.after[words.index("milk")].get_fillstyle() == "full"
    assert all(m.get_markerfacecolor() == "none" for m in moves.before)   # before: hollow
    words2, X2 = cat_milk_it("sweet", {"it": (2.0, 3.0)})
    moves.update(words2, X2, cmi.attend(X2, "after", d=4).output)
    assert cat.get_fillstyle() == it.get_fillstyle() == "full"


@pytest.mark.parametrize("scaling,d", [("after", 4), ("inside", 4), ("inside", 2), ("none", None)])
def test_every_label_sits_next_to_its_marker(scaling, d):
    """The label "cat′ = it′" is anchored at cat′'s point and its text stays within 40 px of it (it
    used to drift off with scaling 'after', d = 4)."""
    from matplotlib.text import Text

    from attnlab.ui import panels

    fig, ax = panels.new_figure(figsize=(5, 5))
    words, X = cat_milk_it("sweet")
    out = cmi.attend(X, scaling, d=d).output
    moves = cmi.moves_plot(words, X, out, ax=ax)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    label = next(t for t in moves.after_labels if t.get_text() == "cat′ = it′")
    assert tuple(label.xy) == tuple(out[words.index("cat")].tolist())
    px, py = ax.transData.transform(label.xy)
    box = label.get_window_extent(renderer)
    gap = max(box.x0 - px, px - box.x1, box.y0 - py, py - box.y1, 0)
    assert gap < 40
    # the labels' texts (an Annotation's own extent adds its leader line, which may cross another label's)
    boxes = [Text.get_window_extent(t, renderer) for t in moves.before_labels + moves.after_labels if t.get_visible()]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_moves_update_refuses_other_sizes():
    from matplotlib.figure import Figure

    words, X = cat_milk_it("sweet")
    moves = cmi.moves_plot(words, X, X, ax=Figure().subplots())
    with pytest.raises(ValueError, match="words: expected 4 words as when drawn, got 3"):
        moves.update(words[:3], X[:3], X[:3])
    with pytest.raises(ValueError, match="others: expected 0 words as when drawn, got 1"):
        moves.update(words, X, X, others={"hungry": (4.0, 0.0)})


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_feature_heads_are_two_one_feature_heads(dtype):
    X = torch.tensor([[2.0, 2.0], [1.0, 3.0], [2.0, 2.0], [0.0, 4.0], [-1.0, 0.5]], dtype=dtype)
    out, weights = cmi.feature_heads(X)
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else {}
    for h in range(2):
        x = X[:, h:h + 1]
        w = torch.softmax(x @ x.T, -1)                                    # d_k = 1: no scaling
        torch.testing.assert_close(weights[h], w, **tol)
        torch.testing.assert_close(out[:, h:h + 1], w @ x, **tol)
    _, Xs = cat_milk_it("sweet")
    _, w2 = cmi.feature_heads(Xs)
    assert not torch.allclose(w2[0, 2], torch.full((4,), 0.25, dtype=Xs.dtype))   # 'it' is not uniform per head
    torch.testing.assert_close(cmi.attend(Xs, "inside", d=4).weights[2], torch.full((4,), 0.25, dtype=Xs.dtype))
    with pytest.raises(ValueError, match=r"X: expected shape \(T, 2\), got \(4, 3\)"):
        cmi.feature_heads(torch.zeros(4, 3))
    with pytest.raises(TypeError, match="X: expected a torch.Tensor"):
        cmi.feature_heads([[1.0, 2.0]])


def _seed_formula(X, d):
    return torch.softmax(X @ X.T / math.sqrt(d), -1) @ X


@pytest.mark.parametrize("fn,ok,recognised", [
    (lambda X, d: _seed_formula(X, d), True, None),
    (lambda X, d: torch.softmax(X @ X.T, -1) @ X / math.sqrt(d), False, "divided after the softmax"),
    (lambda X, d: torch.softmax(X @ X.T, -1) @ X, False, "no scaling at all"),
    (lambda X, d: torch.softmax(X @ X.T / d, -1) @ X, False, "divided by d, not by √d"),
    (lambda X, d: _seed_formula(X, 2), False, "you used √2"),
    (lambda X, d: torch.softmax(X @ X.T / math.sqrt(d), 0) @ X, False, "softmax ran down the columns"),
    (lambda X, d: X, False, None),
])
def test_check_attend_passes_the_right_function_and_names_mistakes(capsys, fn, ok, recognised):
    assert cmi.check_attend(fn) is ok
    text = capsys.readouterr().out
    assert ("Recognised" in text) == (recognised is not None)
    if recognised:
        assert recognised in text


def test_check_feature_heads(capsys):
    def right(X):
        return torch.cat([torch.softmax(X[:, h:h + 1] @ X[:, h:h + 1].T, -1) @ X[:, h:h + 1] for h in range(2)], 1)

    assert cmi.check_feature_heads(right)
    assert not cmi.check_feature_heads(lambda X: torch.softmax(X @ X.T / math.sqrt(2), -1) @ X)
    assert "ONE head over both features" in capsys.readouterr().out

    def unwritten(X):
        raise NotImplementedError

    assert not cmi.check_feature_heads(unwritten)
    assert "not written yet" in capsys.readouterr().out


def test_play_panel_moves_in_place_and_leaves_the_rng_alone():
    panel = cmi.play(sentence="sweet", scaling="inside", d=4, T=1.0)
    controls = panel.controls
    assert panel.error.value == "" and "sim(it′, milk′) = 10.168" in panel.text.value
    view = panel.update.__self__
    artists = list(view.moves.ax.get_children())
    state = torch.random.get_rng_state()
    controls["scaling"].value = "after"
    controls["it_y"].value = 3.0
    assert torch.equal(state, torch.random.get_rng_state())
    assert panel.error.value == "" and list(view.moves.ax.get_children()) == artists
    assert "softmax(QKᵀ/T)·V/√4" in view.title.get_text()
    assert "it′ is closer to" in panel.text.value


def test_a_play_move_redraws_the_formula_line_not_the_sentence_or_the_key():
    """The sentence is the axes title (it changes with the menu, which draws in full); the formula
    and T are a live line under it; the dashed line's key is a figure legend outside the axes."""
    from matplotlib.legend import Legend

    panel = cmi.play(sentence="sweet", scaling="inside", d=4, T=1.0)
    controls = panel.controls
    view = panel.update.__self__
    assert view.moves.ax.get_title() == "The cat drank the milk because it was sweet."
    assert view.title.get_text() == "softmax(QKᵀ/(√4·T))·V, T = 1.00"
    assert view.moves.ax.get_legend() is None and len(panel.figure.legends) == 1
    controls["T"].value = 0.5
    controls["T"].value = 0.6
    assert panel.blitter.why == "" and view.title.get_text().endswith("T = 0.60")
    drawn = panel.blitter.plan
    assert view.title in drawn and view.moves.ax.title not in drawn
    assert not any(isinstance(a, Legend) for a in drawn)
    controls["sentence"].value = "hungry"
    assert view.moves.ax.get_title() == "The cat drank the milk because it was hungry."


def test_play_and_sliders_bad_input():
    with pytest.raises(TypeError, match="too many positional arguments"):
        cmi.play({"sentence": None})
    with pytest.raises(ValueError, match=r"sentence: expected one of \['sweet', 'hungry'\], got 'tired'"):
        cmi.play(sentence="tired")
    with pytest.raises(ValueError, match=r"scaling: expected one of \['none', 'after', 'inside'\], got 'before'"):
        cmi.play(scaling="before")
    with pytest.raises(ValueError, match=r"d: expected one of \[4, 2\], got 8"):
        cmi.play(d=8)
    with pytest.raises(ValueError, match=r"T: expected a number <= 10 \(the T slider's range\), got 20"):
        cmi.play(T=20.0)
    with pytest.raises(ValueError, match="vectors: expected entries in"):
        cmi.play(vectors={"cat": (9.0, 0.0)})
    with pytest.raises(ValueError, match="vectors: expected entries in"):
        live.word_sliders({"cat": (9.0, 0.0)})
    assert live.formula("inside", 4) == "softmax(QKᵀ/(√4·T))·V"


def test_play_declares_the_notebooks_controls_and_the_package_exports_what_the_notebook_uses():
    panel = cmi.play(sentence="hungry", scaling="after", d=2, T=0.5)
    assert list(panel.controls)[:4] == ["sentence", "scaling", "d", "T"]
    assert [panel.controls[n].value for n in ("sentence", "scaling", "d")] == ["hungry", "after", 2]
    assert panel.controls["T"].value == pytest.approx(0.5)
    assert set(list(panel.controls)[4:]) == {f"{w}_{a}" for w in live.WORD_VECTORS for a in "xy"}
    assert cmi.__all__ == ["SEED_D_K", "SEED_OUTPUTS", "SEED_SCORES", "SEED_SIMILARITIES", "SENTENCES", "WORD_VECTORS",
                           "attend", "cat_milk_it", "check_attend", "check_feature_heads", "compare_to_seed", "feature_heads", "moves_plot", "play",
                           "similarities", "similarity_mistakes", "thumbnail"]


def test_the_scaling_menu_shows_the_title_lines_formulas_with_t():
    """Each option of the scaling menu writes the formula of the title line above the plot (with T),
    d_k standing for the number; the notebook's menu is that one."""
    assert sorted(live.SCALING_OPTIONS.values()) == sorted(compute.SCALINGS)
    for label, scaling in live.SCALING_OPTIONS.items():
        for d in (4, 2):
            assert label.split(": ", 1)[1].replace("d_k", str(d)) == live.formula(scaling, d)
        assert "T" in label.split(": ", 1)[1]
    menu = cmi.play().controls["scaling"]                     # the Play's menu is that one
    assert list(zip(menu._options_labels, menu._options_values)) == list(live.SCALING_OPTIONS.items())


@pytest.mark.parametrize("it", [(2.0, 2.0), (0.5, 2.0), (1.0, 3.1), (3.0, 1.0)])
def test_each_leader_line_stops_just_outside_its_label(it):
    """A leader runs from the label's centre towards the marker, shortened to leave the text box
    plus 2 pixels and 1 point (what clipping it to the padded box did, without the cost)."""
    from matplotlib.text import Text

    from attnlab.ui import panels

    fig, ax = panels.new_figure(figsize=(5, 5))
    words, X = cat_milk_it("sweet", {"it": it})
    moves = cmi.moves_plot(words, X, cmi.attend(X, "after", d=4).output, ax=ax)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    px = fig.dpi / 72
    labels = [t for t in moves.before_labels + moves.after_labels if t.get_visible()]
    assert len(labels) >= 4
    for t in labels:
        box = Text.get_window_extent(t, renderer)
        start = t.arrow_patch.get_transform().transform(t.arrow_patch.get_path().vertices)[0]
        gap = max(box.x0 - start[0], start[0] - box.x1, box.y0 - start[1], start[1] - box.y1)
        assert 2 - 0.01 <= gap <= 2 + px + 0.5, (t.get_text(), gap)


def test_word_sliders_are_named_in_the_learners_language():
    """A screen reader says a word slider's label (issue 55): in Chinese "cat 状态" … "hungry 味道", the features
    the prose calls x = 状态 (state) and y = 味道 (taste); it was "cat x" in both languages."""
    from attnlab.i18n import language
    with language("zh"):
        zh = {name: s.description for name, s in live.word_sliders().items()}
    with language("en"):
        en = {name: s.description for name, s in live.word_sliders().items()}
    assert zh["cat_x"] == "cat 状态" and zh["hungry_y"] == "hungry 味道"
    assert all(("状态" if name.endswith("_x") else "味道") in label for name, label in zh.items())
    assert en["cat_x"] == "cat x" and en["hungry_y"] == "hungry y"
