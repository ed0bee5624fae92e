"""Tests for attnlab.kernel_regression against references it did not write: attnlab's
nadaraya_watson and masked_softmax (tests engineer), a hand-written closed form, finite differences."""
import math

import pytest
import torch

import attnlab as al
from attnlab.lessons import nb01_kernel_regression as kr
from attnlab.lessons.nb01_kernel_regression import figures, live, model as nw
from attnlab.lessons.nb01_kernel_regression.data import kernel_regression_data


@pytest.fixture
def data():
    return kernel_regression_data(30, seed=1)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_forward_matches_nadaraya_watson(data, dtype):
    x, y, xq = data.x_train.to(dtype), data.y_train.to(dtype), data.x_test.to(dtype)
    model = kr.NWKernelRegression(2.5, dtype=dtype)
    y_hat, weights = nw.predict(model, x, y, xq)
    ref_y, ref_w = al.nadaraya_watson(xq, x, y, sigma=1 / 2.5)
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else dict(atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(weights, ref_w, **tol)
    torch.testing.assert_close(y_hat, ref_y, **tol)
    assert model.sigma == pytest.approx(0.4)


def test_forward_closed_form_tiny():
    # two keys at 0 and 1, query at 0, w = 1: weights are e^0 / (e^0 + e^-1/2), e^-1/2 / (...)
    model = kr.NWKernelRegression(1.0)
    out = model(torch.tensor([0.0], dtype=torch.float64), torch.tensor([0.0, 1.0], dtype=torch.float64),
                torch.tensor([1.0, 3.0], dtype=torch.float64))
    a, b = 1.0, math.exp(-0.5)
    assert out.item() == pytest.approx((a * 1 + b * 3) / (a + b), rel=1e-12)
    assert model.attention_weights.shape == (1, 2)


def test_leave_one_out_equals_masked_softmax(data):
    x, y = data.x_train, data.y_train
    n = len(x)
    keys, values = kr.leave_one_out(x, y)
    assert keys.shape == values.shape == (n, n - 1)
    for i in (0, 7, n - 1):  # row i is everything but point i, in order
        torch.testing.assert_close(keys[i], torch.cat([x[:i], x[i + 1:]]))
    model = kr.NWKernelRegression(3.0)
    y_loo = model(x, keys, values)
    scores = al.gaussian_scores(x, x, sigma=1 / 3.0)                      # (n, n)
    w_ref = al.masked_softmax(scores, ~torch.eye(n, dtype=torch.bool))     # diagonal masked out
    torch.testing.assert_close(y_loo, w_ref @ y, atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(x, data.x_train)


def test_training_loss_shapes_the_story(data):
    x, y = data.x_train, data.y_train
    sigmas = [0.05, 0.1, 0.2, 0.4, 0.8, 1.6]
    loo = [nw.training_loss(x, y, s) for s in sigmas]
    full = [nw.training_loss(x, y, s, leave_one_out=False) for s in sigmas]
    assert all(a < b for a, b in zip(full, full[1:]))        # with itself: smaller sigma is always better
    best = min(range(len(sigmas)), key=loo.__getitem__)
    assert 0 < best < len(sigmas) - 1                        # leave-one-out: a minimum inside
    # independent value: mean of the other points' y at sigma -> inf is the leave-one-out average
    n = len(x)
    loo_mean = (y.sum() - y) / (n - 1)
    assert nw.training_loss(x, y, 1e6) == pytest.approx(((loo_mean - y) ** 2).sum().item(), rel=1e-6)


def test_gradient_matches_finite_difference(data):
    x, y = data.x_train, data.y_train
    keys, values = kr.leave_one_out(x, y)
    model = kr.NWKernelRegression(2.0)
    loss = ((model(x, keys, values) - y) ** 2).sum()
    loss.backward()
    h = 1e-6
    plus = nw.training_loss(x, y, 1 / (2.0 + h))
    minus = nw.training_loss(x, y, 1 / (2.0 - h))
    assert model.w.grad.item() == pytest.approx((plus - minus) / (2 * h), rel=1e-5)


def test_train_is_deterministic_and_calls_back(data):
    x, y = data.x_train, data.y_train
    seen = []
    a = nw.train_bandwidth(x, y, epochs=7, seed=3, callback=lambda e, l, m: seen.append((e, l, m.w.item())))
    b = nw.train_bandwidth(x, y, epochs=7, generator=torch.Generator().manual_seed(3))
    assert a.losses == b.losses and a.ws == b.ws
    assert [e for e, _, _ in seen] == list(range(1, 8))
    assert [l for _, l, _ in seen] == a.losses and [w for _, _, w in seen] == a.ws
    assert a.ws[0] != nw.train_bandwidth(x, y, epochs=1, seed=4).ws[0]


def test_leave_one_out_training_finds_the_grid_minimum():
    d = kernel_regression_data(50, seed=0)
    result = nw.train_bandwidth(d.x_train, d.y_train, epochs=40, lr=0.1)
    grid = torch.linspace(0.1, 1.0, 181).tolist()
    best = min(grid, key=lambda s: nw.training_loss(d.x_train, d.y_train, s))
    assert result.model.sigma == pytest.approx(best, abs=0.01)
    assert result.losses[-1] <= result.losses[0]


def test_training_without_leave_one_out_keeps_growing_w():
    d = kernel_regression_data(50, seed=0)
    result = nw.train_bandwidth(d.x_train, d.y_train, epochs=30, lr=0.1, leave_one_out=False)
    assert all(b > a for a, b in zip(result.ws, result.ws[1:]))
    assert all(b < a for a, b in zip(result.losses[1:], result.losses[2:]))


def test_errors(data):
    x, y = data.x_train, data.y_train
    with pytest.raises(ValueError, match="x_train: expected at least 2 points"):
        kr.leave_one_out(x[:1], y[:1])
    with pytest.raises(ValueError, match="y_train: expected shape"):
        kr.leave_one_out(x, y[:-1])
    with pytest.raises(TypeError, match="y_train: expected dtype"):
        nw.train_bandwidth(x, y.float())
    with pytest.raises(ValueError, match="x_train: expected a 1-D tensor"):
        nw.train_bandwidth(x[:, None], y[:, None])
    with pytest.raises(ValueError, match="epochs: expected an int >= 1"):
        nw.train_bandwidth(x, y, epochs=0)
    with pytest.raises(ValueError, match="lr: expected a number > 0"):
        nw.train_bandwidth(x, y, lr=-1.0)
    with pytest.raises(ValueError, match="sigma: expected a number > 0"):
        nw.training_loss(x, y, 0.0)
    with pytest.raises(TypeError, match="queries: expected a torch.Tensor"):
        kr.NWKernelRegression(1.0)([0.0], x, y)
    with pytest.raises(ValueError, match="keys: expected"):
        kr.NWKernelRegression(1.0)(x[:3], x[None, :].expand(2, -1), y[None, :].expand(2, -1))
    with pytest.raises(ValueError, match="values: expected shape"):
        kr.NWKernelRegression(1.0)(x, x, y[:-1])


@pytest.mark.parametrize("loo", [True, False])
def test_training_loss_curve_matches_pointwise(data, loo):
    x, y = data.x_train, data.y_train
    sigmas = [0.03, 0.2, 1.0, 7.0]
    curve = kr.training_loss_curve(x, y, sigmas, leave_one_out=loo)
    assert curve == pytest.approx([nw.training_loss(x, y, s, leave_one_out=loo) for s in sigmas], rel=1e-10)
    with pytest.raises(ValueError, match="sigmas: expected a number > 0"):
        kr.training_loss_curve(x, y, [0.1, -1.0])


# ---- the mean reduction, the step generator, the figures and Play panels of notebook 01 ----

def test_mean_reduction_is_the_sum_over_n_and_lr_times_n_takes_the_same_steps(data):
    x, y = data.x_train, data.y_train
    n = len(x)
    for loo in (True, False):
        # reference: the squared errors computed here from al.nadaraya_watson with the diagonal masked
        scores = al.gaussian_scores(x, x, sigma=0.4)
        mask = ~torch.eye(n, dtype=torch.bool) if loo else None
        y_hat = al.masked_softmax(scores, mask) @ y
        ref = ((y_hat - y) ** 2).mean().item()
        assert nw.training_loss(x, y, 0.4, leave_one_out=loo, reduction="mean") == pytest.approx(ref, rel=1e-12)
        assert kr.training_loss_curve(x, y, [0.4], leave_one_out=loo, reduction="mean")[0] == pytest.approx(ref, rel=1e-12)
    a = nw.train_bandwidth(x, y, epochs=6, lr=0.05)
    b = nw.train_bandwidth(x, y, epochs=6, lr=0.05 * n, reduction="mean")
    assert b.ws == pytest.approx(a.ws, rel=1e-9)
    assert b.losses == pytest.approx([l / n for l in a.losses], rel=1e-9)
    with pytest.raises(ValueError, match=r"reduction: expected 'sum' \(as d2l\) or 'mean'.*got 'max'"):
        nw.training_loss(x, y, 0.4, reduction="max")
    with pytest.raises(TypeError, match="reduction: expected .* got None"):           # None is no str: the rule's TypeError
        next(nw.train_steps(x, y, reduction=None))


def test_train_steps_yields_each_step_and_returns_the_result(data):
    x, y = data.x_train, data.y_train
    gen = nw.train_steps(x, y, epochs=4, lr=0.1, seed=2)
    seen = []
    while True:
        try:
            seen.append(next(gen))
        except StopIteration as stop:
            result = stop.value
            break
    ref = nw.train_bandwidth(x, y, epochs=4, lr=0.1, seed=2)
    assert [e for e, _, _ in seen] == [1, 2, 3, 4]
    assert [l for _, l, _ in seen] == ref.losses == result.losses
    assert result.ws == ref.ws


def test_pooling_weights_average_max_and_attention(data):
    x, y = data.x_train, data.y_train
    xq = torch.tensor([0.5, 2.0, 4.5], dtype=torch.float64)
    w = kr.pooling_weights(xq, x, y, sigma=0.3)
    assert list(w) == list(figures.POOLINGS)
    n = len(x)
    torch.testing.assert_close(w["average pooling"], torch.full((3, n), 1 / n, dtype=torch.float64))
    top = int(y.argmax())
    assert (w["max pooling"].argmax(-1) == top).all() and (w["max pooling"].sum(-1) == 1).all()
    assert w["max pooling"].count_nonzero() == 3                         # one-hot, the same key for every query
    torch.testing.assert_close(w["attention pooling"], al.nadaraya_watson(xq, x, y, sigma=0.3)[1])
    assert len(set(w["attention pooling"].argmax(-1).tolist())) == 3     # each query picks its own key
    with pytest.raises(ValueError, match=r"x_queries: expected a 1-D tensor of positions \(Tq,\), got shape \(3, 1\)"):
        kr.pooling_weights(xq[:, None], x, y)
    with pytest.raises(TypeError, match="x_queries: expected a torch.Tensor"):
        kr.pooling_weights([0.5], x, y)


def test_fit_lines_names_its_artists(data):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    lines = figures.fit_lines(ax, data.x_test, data.y_truth, data.y_truth * 2, data.x_train, data.y_train, label="p")
    assert lines.fit.get_label() == "p" and lines.truth.get_linestyle() == "--"
    assert list(lines.fit.get_ydata()) == pytest.approx((data.y_truth * 2).tolist())
    assert list(lines.points.get_xdata()) == pytest.approx(data.x_train.tolist())
    assert figures.fit_lines(ax, data.x_test, data.y_truth, data.y_truth).points is None
    plt.close(fig)


def test_explorer_draws_the_chosen_row():
    e = live.Explorer()
    text = e.update(sigma=0.5, n_train=20, query=2.0)
    t = kernel_regression_data(20, seed=0)
    y_hat, w = al.nadaraya_watson(t.x_test, t.x_train, t.y_train, sigma=0.5)
    heights = [seg[1][1] for seg in e.bars.get_segments()]
    assert heights == pytest.approx(w[20].tolist(), rel=1e-12)           # x_test[20] = 2.0
    assert list(e.fit.fit.get_ydata()) == pytest.approx(y_hat.tolist())
    assert e.row_box.get_y() == 19.5 and e.row_box.get_width() == 20
    assert f"prediction {y_hat[20].item():.3f}" in text and "T = σ² = 0.25" in text


@pytest.mark.parametrize("largest, top", [(1.0, 1.15), (0.9, 1.15), (0.6, 0.7), (0.61, 1.0), (0.26, 0.3),
                                          (0.27, 0.5), (0.04, 0.05), (0.001, 0.05), (0.0, 0.05)])
def test_the_weight_bars_axis_top_is_the_first_step_15_percent_above_the_largest_weight(largest, top):
    assert live.row_limit(largest) == top and top in live.ROW_LIMITS


def test_the_weight_bars_keep_their_axis_over_a_small_move_and_fit_the_largest_bar():
    e = live.Explorer()
    e.update(sigma=0.3, n_train=50, query=4.0)
    limits = e.ax_row.get_ylim()
    e.update(sigma=0.31, n_train=50, query=4.0)
    assert e.ax_row.get_ylim() == limits == (0, 0.2)
    for sigma in (0.02, 0.1, 1.0, 30.0):
        e.update(sigma=sigma, n_train=50, query=4.0)
        tallest = max(seg[1][1] for seg in e.bars.get_segments())
        assert 1.15 * tallest <= e.ax_row.get_ylim()[1]


def test_training_view_trains_copies_and_refuses_a_wrong_explorer():
    e = kr.play()
    v = live.TrainingView(e, redraws=1)
    v.steps.value = 5
    model = v.train()
    d = kernel_regression_data(50, seed=0)
    ref = nw.train_bandwidth(d.x_train, d.y_train, epochs=5, lr=0.05, seed=0)   # the sum at lr 0.05 = the mean at 2.5
    assert model.w.item() == pytest.approx(ref.ws[-1], rel=1e-9)
    assert len(v.path) == 5 and v.path[0][0] == pytest.approx(1 / v.w0)
    assert [p[1] for p in v.path] == pytest.approx([l / 50 for l in ref.losses], rel=1e-9)
    assert v.landscape(50, True) == pytest.approx(
        [l / 50 for l in kr.training_loss_curve(d.x_train, d.y_train, kr.SIGMAS)], rel=1e-9)
    assert not v.copy_button.disabled
    v.copy_to_explorer()
    assert e.controls["sigma"].value == pytest.approx(model.sigma, rel=0.05)   # the slider rounds to its step
    assert "Done: 5 steps" in v.status.value and "σ = 1/|w|" in v.status.value
    with pytest.raises(TypeError, match="explorer: expected the Explorer of part 1, got int"):
        kr.play_trainer(explorer=3)
    with pytest.raises(ValueError, match=r"explorer: expected the Explorer of part 1 \(a panel with the controls sigma "
                                         r"and n_train\), got a panel with \['leave_one_out'\]"):
        kr.play_trainer(explorer=v)


def test_play_is_the_explorer_and_play_trainer_the_trainer_fed_by_it():
    from attnlab.ui.panels import Panel
    from attnlab.ui.trainer import Trainer
    e = kr.play(sigma=0.5, n_train=20, query=2.0)
    assert type(e) is Panel and type(e.update.__self__) is live.Explorer
    assert e.controls["sigma"].value == pytest.approx(0.5) and e.controls["n_train"].value == 20
    v = kr.play_trainer(explorer=e, steps=5)
    assert type(v) is live.TrainingView and isinstance(v, Trainer) and v.explorer is e and v.steps.value == 5
    assert v.n_train == 20
    with pytest.raises(TypeError, match="too many positional arguments"):
        kr.play("explorer", sigma=0.5)
    with pytest.raises(TypeError, match="explorer: expected the Explorer of part 1, got str"):
        kr.play_trainer(explorer="explorer")
    with pytest.raises(ValueError, match=r"steps: expected an int <= 100 \(the steps slider's range\), got 200"):
        kr.play_trainer(explorer=e, steps=200)
    with pytest.raises(ValueError, match=r"sigma: expected a number <= 31.6228 \(the σ slider's range\), got 100"):
        kr.play(sigma=100.0)
    with pytest.raises(ValueError, match=r"n_train: expected an int >= 5, got 2"):
        kr.play(n_train=2)
    with pytest.raises(ValueError, match=r"query: expected a number <= 4.9 \(the query slider's range\), got 5"):
        kr.play(query=5.0)


def test_the_package_exports_what_the_notebook_uses():
    assert kr.__all__ == ["NWKernelRegression", "SIGMAS", "kernel_regression_data", "kernel_regression_plot", "leave_one_out", "play",
                          "play_trainer", "pooling_weights", "thumbnail", "training_loss_curve", "weight_maps"]


def test_weight_maps_share_one_colour_bar_and_box_the_row(data):
    import matplotlib.pyplot as plt
    w1 = al.nadaraya_watson(data.x_test, data.x_train, data.y_train, sigma=1.0)[1]
    w2 = al.nadaraya_watson(data.x_test, data.x_train, data.y_train, sigma=0.3)[1]
    fig = kr.weight_maps(data.x_test, data.x_train, [(w1, 1), (w2, 0.3)], row=20)
    maps = [ax for ax in fig.axes if ax.get_images()]
    assert len(maps) == 2 and len(fig.axes) == 3                       # two maps, one colour bar
    assert maps[1].get_title() == "Nadaraya-Watson weights, σ = 0.3"
    assert maps[0].get_images()[0].get_clim() == (0.0, 1.0)
    assert [p.get_y() for ax in maps for p in ax.patches] == [19.5, 19.5]
    plt.close(fig)
    with pytest.raises(ValueError, match="maps: expected at least one"):
        kr.weight_maps(data.x_test, data.x_train, [])
