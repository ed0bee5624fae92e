"""attnlab.score_stats against closed forms and torch's own functions."""
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.nn import functional as F

import attnlab as al
from attnlab.lessons import nb02_scoring_functions as ss
from attnlab.lessons.nb02_scoring_functions import live, stats


def paired_dots(d, n, seed=0):
    """n independent q·k with N(0, 1) entries (q_i with k_i, not all pairs)."""
    g = torch.Generator().manual_seed(seed)
    q, k = ss.random_queries_keys(n, n, d, generator=g)
    return (q * k).sum(-1)


def variance_tolerance(var, fourth_moment, n, sigmas=5):
    """sigmas standard errors of a sample variance: sqrt((E x^4 - var^2) / n)."""
    return sigmas * math.sqrt((fourth_moment - var ** 2) / n)


@pytest.mark.parametrize("d", [1, 16, 64, 256])
def test_variance_of_dot_product_is_d(d):
    # q·k = sum of d products q_i k_i, each with variance 1 and fourth moment 9: E (q·k)^4 = 3d^2 + 6d.
    n = 20000
    x = paired_dots(d, n)
    assert abs(x.mean().item()) < 5 * math.sqrt(d / n)
    assert abs(x.var().item() - d) < variance_tolerance(d, 3 * d * d + 6 * d, n)


@pytest.mark.parametrize("d", [4, 64, 512])
@pytest.mark.parametrize("divisor, closed_form", [
    (lambda d: 1.0, lambda d: d),
    (lambda d: math.sqrt(d), lambda d: 1.0),
    (lambda d: d, lambda d: 1.0 / d),
    (lambda d: d ** (1 / 3), lambda d: d ** (1 / 3)),
])
def test_variance_after_each_scaling(d, divisor, closed_form):
    n = 20000
    x = paired_dots(d, n, seed=1) / divisor(d)
    c = divisor(d)
    assert abs(x.var().item() - closed_form(d)) < variance_tolerance(d, 3 * d * d + 6 * d, n) / c ** 2


def test_random_queries_keys_shapes_and_determinism():
    q1, k1 = ss.random_queries_keys(3, 5, 7, generator=torch.Generator().manual_seed(3))
    q2, k2 = ss.random_queries_keys(3, 5, 7, generator=torch.Generator().manual_seed(3))
    assert q1.shape == (3, 7) and k1.shape == (5, 7)
    assert torch.equal(q1, q2) and torch.equal(k1, k2)
    with pytest.raises(ValueError, match="d_k"):
        ss.random_queries_keys(3, 5, 0)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_scores_match_references(dtype):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 3, 8, generator=g, dtype=dtype)
    k = torch.randn(2, 5, 8, generator=g, dtype=dtype)
    dot = torch.einsum("bqd,bkd->bqk", q, k)
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else dict(atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(ss.scores(q, k, "dot"), dot, **tol)
    torch.testing.assert_close(ss.scores(q, k, "scaled_dot"), dot / math.sqrt(8), **tol)
    torch.testing.assert_close(ss.scores(q, k, "over_d"), dot / 8, **tol)
    torch.testing.assert_close(ss.scores(q, k, "over_cbrt_d"), dot / 2, **tol)
    torch.testing.assert_close(ss.scores(q, k, "constant", tau=4.0), dot / 4, **tol)
    torch.testing.assert_close(ss.scores(q, k, "long_sequence"), dot / math.sqrt(8 * 5), **tol)
    cos = F.cosine_similarity(q[:, :, None, :], k[:, None, :, :], dim=-1)
    torch.testing.assert_close(ss.scores(q, k, "cosine"), cos, **tol)
    gauss = -torch.cdist(q, k) ** 2 / (2 * 1.5 ** 2)
    torch.testing.assert_close(ss.scores(q, k, "gaussian", sigma=1.5), gauss, atol=1e-4, rtol=1e-4)
    normalised = ss.scores(q, k, "normalised")
    torch.testing.assert_close(torch.linalg.matrix_norm(normalised), torch.ones(2, dtype=dtype), **tol)
    rows = ss.scores(q, k, "row_normalised")
    torch.testing.assert_close(torch.linalg.vector_norm(rows, dim=-1), torch.ones(2, 3, dtype=dtype), **tol)


def test_gaussian_without_the_big_difference_tensor_matches_attnlab():
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(4, 600, generator=g, dtype=torch.float64), torch.randn(9, 600, generator=g, dtype=torch.float64)
    import attnlab as al
    torch.testing.assert_close(ss.scores(q, k, "gaussian", sigma=2.0), al.gaussian_scores(q, k, sigma=2.0))


def test_additive_scores_and_seeded_init_leave_global_rng_alone():
    state = torch.get_rng_state()
    m1 = ss.seeded_additive(4, 3, 6, seed=5)
    m2 = ss.seeded_additive(4, 3, 6, seed=5)
    assert torch.equal(torch.get_rng_state(), state)
    for a, b in zip(m1.parameters(), m2.parameters()):
        assert torch.equal(a, b)
    assert m1.W_q.weight.abs().max() <= 1 / math.sqrt(4)
    assert m1.w_v.weight.abs().max() <= 1 / math.sqrt(6)
    q, k = torch.randn(2, 4, dtype=torch.float64), torch.randn(5, 3, dtype=torch.float64)
    want = torch.tanh((q @ m1.W_q.weight.T)[:, None, :] + (k @ m1.W_k.weight.T)[None]) @ m1.w_v.weight[0]
    torch.testing.assert_close(ss.scores(q, k, "additive", additive=m1), want)


def test_bad_method_and_missing_module():
    q = torch.zeros(2, 3, dtype=torch.float64)
    with pytest.raises(ValueError, match="method: expected one of"):
        ss.scores(q, q, "softmax")
    with pytest.raises(TypeError, match="additive: expected an AdditiveScores"):
        ss.scores(q, q, "additive")
    with pytest.raises(ValueError, match="tau"):
        ss.scores(q, q, "constant", tau=0.0)


@pytest.mark.parametrize("n", [1, 2, 7, 64])
def test_entropy_of_uniform_is_log_n_and_one_hot_is_zero(n):
    uniform = torch.full((3, n), 1.0 / n, dtype=torch.float64)
    torch.testing.assert_close(stats.row_entropy(uniform), torch.full((3,), math.log(n), dtype=torch.float64))
    one_hot = torch.eye(n, dtype=torch.float64)
    torch.testing.assert_close(stats.row_entropy(one_hot), torch.zeros(n, dtype=torch.float64))


def test_entropy_matches_torch_categorical():
    w = torch.softmax(torch.randn(4, 6, 9, generator=torch.Generator().manual_seed(2), dtype=torch.float64), -1)
    want = torch.distributions.Categorical(probs=w).entropy()
    torch.testing.assert_close(stats.row_entropy(w), want)


def test_softmax_jacobian_norm_matches_autograd():
    logits = torch.randn(3, 5, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    w = torch.softmax(logits, -1)
    for i in range(3):
        J = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, -1), logits[i])   # (5, 5)
        assert stats.softmax_jacobian_norm(w[i]).item() == pytest.approx(torch.linalg.matrix_norm(J).item(), rel=1e-10)
    assert stats.softmax_jacobian_norm(torch.eye(4, dtype=torch.float64)).abs().max().item() < 1e-12
    n = 8
    uniform = torch.full((n,), 1.0 / n, dtype=torch.float64)
    assert stats.softmax_jacobian_norm(uniform).item() == pytest.approx(math.sqrt(n - 1) / n)


def test_score_statistics_saturation():
    scaled = [ss.score_statistics(d, "scaled_dot")["normalised_entropy"] for d in (4, 64, 1024)]
    assert max(scaled) - min(scaled) < 0.05                  # scaled: same spread whatever d_k
    dot = [ss.score_statistics(d, "dot")["normalised_entropy"] for d in (4, 64, 1024)]
    assert dot[0] > dot[1] > dot[2] and dot[2] < 0.05        # unscaled: towards one-hot
    cold = ss.score_statistics(64, "scaled_dot", temperature=1e-3)
    hot = ss.score_statistics(64, "scaled_dot", temperature=1e3)
    assert cold["max_weight"] > 0.99 and cold["normalised_entropy"] < 0.01
    assert hot["normalised_entropy"] > 0.9999
    st = ss.score_statistics(64, "dot", num_keys=2000, num_queries=64)
    assert abs(st["row_variance"] - 64) < 8                 # within-row spread of q·k is |q|^2 ≈ d_k


def test_centre_rows_leaves_softmax_unchanged():
    s = torch.randn(3, 4, dtype=torch.float64)
    torch.testing.assert_close(torch.softmax(ss.centre_rows(s), -1), torch.softmax(s, -1))
    torch.testing.assert_close(ss.centre_rows(s).sum(-1), torch.zeros(3, dtype=torch.float64))


def test_histogram_density_matches_numpy():
    x = torch.randn(5000, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 2
    edges = torch.linspace(-3, 3, 25, dtype=torch.float64)
    counts, _ = np.histogram(x.numpy(), bins=edges.numpy())
    want = counts / (x.numel() * np.diff(edges.numpy()))
    np.testing.assert_allclose(ss.histogram_density(x, edges).numpy(), want)
    inside = ((x >= -3) & (x < 3)).double().mean().item()
    area = (ss.histogram_density(x, edges) * (edges[1:] - edges[:-1])).sum().item()
    assert area == pytest.approx(inside)
    with pytest.raises(ValueError, match="edges: expected a 1-D increasing"):
        ss.histogram_density(x, torch.tensor([1.0, 0.0], dtype=torch.float64))


# ---- which key each query picks; the Play panel ----

def test_gaussian_weights_are_dot_scores_minus_half_the_key_length():
    # closed form: -‖q-k‖²/2 = q·k - ‖k‖²/2 - ‖q‖²/2, and the last term is the same in a row
    q, k = ss.random_queries_keys(40, 8, 16, generator=torch.Generator().manual_seed(1))
    w_gauss = al.masked_softmax(ss.scores(q, k, "gaussian"))
    w_ref = torch.softmax(q @ k.T - (k ** 2).sum(-1) / 2, dim=-1)
    torch.testing.assert_close(w_gauss, w_ref, atol=1e-12, rtol=1e-12)


def test_key_choice_counts_the_argmax_of_each_row():
    q, k = ss.random_queries_keys(300, 6, 32, generator=torch.Generator().manual_seed(2))
    for method in ("dot", "gaussian", "cosine"):
        counts = ss.key_choice(q, k, method)
        s = ss.scores(q, k, method)
        ref = [sum(1 for row in s.tolist() if max(range(6), key=row.__getitem__) == j) for j in range(6)]
        assert counts.tolist() == ref and counts.sum().item() == 300
    # the Gaussian prefers short keys: the shortest key is picked far more often than 1/n
    q, k = ss.random_queries_keys(512, 32, 256, generator=torch.Generator().manual_seed(0))
    counts = ss.key_choice(q, k[:8], "gaussian")
    shortest = int(k[:8].norm(dim=-1).argmin())
    assert counts.argmax().item() == shortest and counts[shortest].item() == 221     # 43% of 512
    assert ss.key_choice(q, k[:8], "dot")[shortest].item() == 64                      # 12.5%
    with pytest.raises(ValueError, match=r"queries, keys: expected 2-D \(Tq, d\) and \(Tk, d\), got shapes \(1, 2, 3\)"):
        ss.key_choice(torch.zeros(1, 2, 3), torch.zeros(2, 3))
    with pytest.raises(ValueError, match="method: expected one of"):
        ss.key_choice(q, k, "nope")


def test_key_choice_plot_draws_one_bar_per_key_and_method():
    import matplotlib.pyplot as plt
    k = torch.tensor([[3.0, 4.0], [1.0, 0.0], [0.0, 2.0]], dtype=torch.float64)     # lengths 5, 1, 2
    picks = {"dot": torch.tensor([5, 3, 2]), "gaussian": torch.tensor([1, 8, 1])}
    ax = ss.key_choice_plot(k, picks)
    assert [p.get_height() for p in ax.patches] == [5, 3, 2, 1, 8, 1]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["k1\n5.0", "k2*\n1.0", "k3\n2.0"]
    plt.close(ax.figure)
    with pytest.raises(ValueError, match=r"picks: expected counts of shape \(3,\) for 3 keys, got \(2,\) for 'dot'"):
        ss.key_choice_plot(k, {"dot": torch.tensor([1, 2])})
    with pytest.raises(ValueError, match="picks: expected at least one"):
        ss.key_choice_plot(k, {})


def test_scoring_play_writes_no_numbers_in_its_cells():
    """At n = 14 the cells' numbers ran together (the fuzz's screenshot); the text under the figure
    carries q1's weights, so the live heatmap writes none at any n."""
    play = live.ScoringPlay(d_k=64)
    for n in (2, 4, 14, 32):
        text = play.update(method="scaled_dot", d_k=64, temperature=1.0, n=n)
        assert [t for t in play.ax_w.texts if t.get_text()] == []
        assert "q1" in text


def test_scoring_play_reports_what_it_draws():
    play = live.ScoringPlay(d_k=256)
    text = play.update(method="gaussian", d_k=256, temperature=1.0, n=8)
    assert "k7:221" in text and "is picked by 43% of the queries" in text
    (q, k), _ = play.sample(256)
    w = al.masked_softmax(ss.scores(q[:5], k[:8], "gaussian"))
    np.testing.assert_allclose(np.asarray(play.ax_w.get_images()[0].get_array()), w.numpy(), rtol=1e-12, atol=1e-15)
    text = play.update(method="scaled_dot", d_k=64, temperature=1.0, n=4)
    assert play.marker.get_xdata()[0] == 6.0
    assert play.blue_curve.get_ydata()[6] == pytest.approx(play.entropy_curve("scaled_dot", 4, 1.0)[6])


def test_scoring_play_legend_sits_under_the_figure_and_moves_redraw_no_text():
    """One figure legend under the three plots names both plots' lines and the marker; it covers no
    axes, is not cut off, and a move of T, d_k or the function redraws no legend or text."""
    from matplotlib.legend import Legend
    from matplotlib.text import Text
    panel = ss.play(method="scaled_dot", d_k=64)
    play, fig = panel.update.__self__, panel.figure
    assert not any(ax.get_legend() for ax in fig.axes) and fig.legends == [play.legend]
    assert [t.get_text() for t in play.legend.get_texts()] == [
        "chosen function", "q·k, no scaling (left)", "q·k / √d_k (right)", "current d_k (right)"]
    box = play.legend.get_window_extent(fig.canvas.get_renderer())
    assert 0 <= box.x0 and box.x1 <= fig.bbox.x1 and 0 <= box.y0 and box.y1 <= fig.bbox.y1
    assert not any(box.overlaps(ax.bbox) for ax in fig.axes)
    for name, value in (("temperature", 0.1), ("d_k", 128), ("method", "gaussian"), ("temperature", 10.0)):  # 128: same x axis
        panel.controls[name].value = value
        assert panel.blitter.why == "", (name, panel.blitter.why)
        assert not [a for a in panel.blitter.plan if isinstance(a, (Text, Legend))], name


def _inside(stairs):
    """The fraction of the scores a density histogram drawn by ``stairs`` shows (its area)."""
    heights, edges = stairs.get_data().values, stairs.get_data().edges
    return float((heights * np.diff(edges)).sum())


def test_the_play_histogram_shows_plain_qk_at_every_d_k_and_counts_what_falls_outside():
    """The grey histogram (plain q·k, T = 1) spilled off the fixed ±40 axis from d_k = 1024 on (34% of
    it outside at 2048, n = 8). The axis now steps (±40 up to d_k = 128, ±160 from 256): at every d_k and
    n the grey histogram keeps at least 99.5% of the scores on the axis, its bins cover the axis, and the
    text under the figure gives what falls outside, for the grey and the blue histogram."""
    play = live.ScoringPlay(d_k=64)
    for d_k in live.D_KS:
        for n in (2, 8, 32):
            text = play.update(method="dot", d_k=d_k, temperature=1.0, n=n)
            lim = live.histogram_limit(d_k)
            assert play.ax_hist.get_xlim() == (-lim, lim)
            for stairs in (play.grey_hist, play.blue_hist):
                assert stairs.get_data().edges[0] == -lim and stairs.get_data().edges[-1] == lim
            assert _inside(play.grey_hist) >= 0.995, (d_k, n)
            (q, k), _ = play.sample(d_k)
            plain = ss.centre_rows(ss.scores(q, k[:n], "dot"))
            outside = 100 * ((plain < -lim) | (plain >= lim)).double().mean().item()   # counted here, not by the lesson
            assert f"outside the x axis (±{lim}): q·k {outside:.1f}%" in text
    assert [live.histogram_limit(d) for d in live.D_KS] == [40] * 8 + [160] * 4
    # the blue histogram too: at T = 0.01 the scaled scores spread by about 100
    text = play.update(method="scaled_dot", d_k=64, temperature=0.01, n=8)
    (q, k), _ = play.sample(64)
    blue = ss.centre_rows(ss.scores(q, k[:8], "scaled_dot")) / 0.01
    outside = 100 * ((blue < -40) | (blue >= 40)).double().mean().item()
    assert outside > 50 and f"chosen function {outside:.1f}%" in text
    assert _inside(play.blue_hist) == pytest.approx(1 - outside / 100, abs=1e-12)


def test_a_d_k_move_blits_unless_the_histogram_axis_steps():
    """Only a move across d_k = 128 | 256 rescales the histogram's axes (a full draw); the next move
    draws in full once more to save a background (no idle loop here to plan it), then moves blit. From
    the default d_k = 256 up, the axis stays: the grey histogram widens on one axis."""
    from attnlab.ui.panels.renderer import Full
    panel = ss.play(method="scaled_dot", d_k=256)
    for d_k, reason in ((512, None), (2048, None), (1024, None), (256, None), (128, Full.STRUCTURE_CHANGED),
                        (4, Full.NO_BACKGROUND), (64, None), (128, None), (256, Full.STRUCTURE_CHANGED),
                        (2048, Full.NO_BACKGROUND), (512, None)):
        panel.controls["d_k"].value = d_k
        assert panel.blitter.reason is reason, d_k


def test_the_play_text_names_the_shortest_key_at_every_n_and_the_prose_says_which_n():
    """"k7, the shortest key" holds at d_k = 256 only for 7 <= n <= 11: the text under the figure names
    the shortest of the n keys, and the notebook names k7 only beside "n = 8"."""
    play = live.ScoringPlay(d_k=256)
    (q, k), _ = play.sample(256)
    for n in range(2, 33):
        want = 2 if n <= 6 else 7 if n <= 11 else 12                  # as the notebook's Play text says
        assert int(k[:n].norm(dim=-1).argmin()) + 1 == want
        if n in (2, 6, 7, 8, 11, 12, 32):     # the text, drawn with its figure: at each end of each stretch
            assert f"the shortest key, k{want} (" in play.update(method="gaussian", d_k=256, temperature=1.0, n=n)
    nb = json.loads((Path(__file__).parents[2] / "notebooks" / "02_scoring_functions.ipynb").read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for part in re.split(r"\n\s*\n|\n\* ", "".join(cell["source"])):     # paragraphs and bullets
            if re.search(r"k\d+\**, the shortest", part):
                assert "n = 8" in part, part


@pytest.mark.parametrize("fn,expected", [
    (lambda q, k: q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), "Right: q·k / √d_k."),
    (lambda q, k: q @ k.transpose(-2, -1), r"you divided by nothing \(plain q·k\); divide q·k by √d_k = 4"),
    (lambda q, k: q @ k.transpose(-2, -1) / q.shape[-1], "0.25 × the right ones: you divided by d_k"),
    (lambda q, k: q @ k.transpose(-2, -1) / q.shape[-1] ** (1 / 3), "you divided by ∛d_k"),
    (lambda q, k: q @ k.transpose(-2, -1) / 3, "the right shape, the wrong divisor"),
    (lambda q, k: k @ q.transpose(-2, -1), r"is \(Tk, Tq\)"),
    (lambda q, k: (q @ k.transpose(-2, -1)) ** 2, "Not a rescaled q·k"),
    (lambda q, k: q.sum(), r"Shape \(\), expected"),
])
def test_scaling_hint_names_the_mistake(fn, expected):
    q, k = ss.random_queries_keys(3, 5, 16, generator=torch.Generator().manual_seed(0))
    import re
    assert re.search(expected, ss.scaling_hint(fn, q, k))


def test_scaling_hint_reports_errors_and_unwritten_functions():
    q, k = ss.random_queries_keys(3, 5, 16, generator=torch.Generator().manual_seed(0))
    def unwritten(q, k):
        raise NotImplementedError
    assert ss.scaling_hint(unwritten, q, k) == "Not written yet."
    assert ss.scaling_hint(lambda q, k: q @ k, q, k).startswith("It raised RuntimeError")


def test_vectors_and_weights_draws_one_map_per_function_on_one_colour_bar():
    import matplotlib.pyplot as plt
    keys = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    queries = torch.tensor([[1.0, 1.0]], dtype=torch.float64)
    w = {"dot": torch.tensor([[0.5, 0.5]], dtype=torch.float64), "cosine": torch.tensor([[0.2, 0.8]], dtype=torch.float64)}
    fig = ss.vectors_and_weights(queries, keys, w, ["k1", "k2"], ["q1"])
    maps = [ax for ax in fig.axes if ax.get_images()]
    assert [ax.get_title() for ax in maps] == ["dot", "cosine"]
    assert sum(ax.get_visible() for ax in fig.axes) == 1 + 2 + 1          # vectors, two maps, the colour bar
    assert maps[1].get_images()[0].get_array().tolist() == [[0.2, 0.8]]
    assert {t.get_text() for t in fig.axes[0].texts} - {""} == {"k1", "k2", "q1"}     # arrows are empty annotations
    plt.close(fig)
    with pytest.raises(ValueError, match="queries, keys: expected 2-D vectors to draw, got sizes 3 and 2"):
        ss.vectors_and_weights(torch.zeros(1, 3), keys, w, ["k1", "k2"], ["q1"])
    with pytest.raises(ValueError, match="weights: expected 1 to 5 weight matrices, got 0"):
        ss.vectors_and_weights(queries, keys, {}, ["k1", "k2"], ["q1"])


def test_play_checks_its_starting_values_once_and_the_package_exports_what_the_notebook_uses():
    with pytest.raises(ValueError, match=r"d_k: expected one of \[1, 2, 4, .*2048\], got 3"):
        ss.play(d_k=3)
    with pytest.raises(ValueError, match=r"method: expected one of \['dot', .*'additive'\], got 'max'"):
        ss.play(method="max")
    with pytest.raises(ValueError, match=r"n: expected an int <= 32 \(the n slider's range\), got 40"):
        ss.play(n=40)
    with pytest.raises(TypeError, match="too many positional arguments"):
        ss.play("dot")
    from attnlab.ui.panels import Panel
    panel = ss.play(d_k=16, num_queries=64)
    assert type(panel) is Panel and type(panel.update.__self__) is live.ScoringPlay
    assert ss.__all__ == ["METHODS", "centre_rows", "histogram_density", "key_choice", "key_choice_plot", "play",
                          "random_queries_keys", "scaling_hint", "score_statistics", "scores", "seeded_additive",
                          "thumbnail", "variance_mistakes", "vectors_and_weights"]
