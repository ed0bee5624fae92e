"""Tests for attnlab.kernel_regression against references it did not write: attnlab's
nadaraya_watson and masked_softmax (tests engineer), a hand-written closed form, finite differences."""
import math

import pytest
import torch

import attnlab as al
from attnlab.lessons import nb01_kernel_regression as kr
from attnlab.data import kernel_regression_data


@pytest.fixture
def data():
    return kernel_regression_data(30, seed=1)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_forward_matches_nadaraya_watson(data, dtype):
    x, y, xq = data.x_train.to(dtype), data.y_train.to(dtype), data.x_test.to(dtype)
    model = kr.NWKernelRegression(2.5, dtype=dtype)
    y_hat, weights = kr.predict(model, x, y, xq)
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
    loo = [kr.training_loss(x, y, s) for s in sigmas]
    full = [kr.training_loss(x, y, s, leave_one_out=False) for s in sigmas]
    assert all(a < b for a, b in zip(full, full[1:]))        # with itself: smaller sigma is always better
    best = min(range(len(sigmas)), key=loo.__getitem__)
    assert 0 < best < len(sigmas) - 1                        # leave-one-out: a minimum inside
    # independent value: mean of the other points' y at sigma -> inf is the leave-one-out average
    n = len(x)
    loo_mean = (y.sum() - y) / (n - 1)
    assert kr.training_loss(x, y, 1e6) == pytest.approx(((loo_mean - y) ** 2).sum().item(), rel=1e-6)


def test_gradient_matches_finite_difference(data):
    x, y = data.x_train, data.y_train
    keys, values = kr.leave_one_out(x, y)
    model = kr.NWKernelRegression(2.0)
    loss = ((model(x, keys, values) - y) ** 2).sum()
    loss.backward()
    h = 1e-6
    plus = kr.training_loss(x, y, 1 / (2.0 + h))
    minus = kr.training_loss(x, y, 1 / (2.0 - h))
    assert model.w.grad.item() == pytest.approx((plus - minus) / (2 * h), rel=1e-5)


def test_train_is_deterministic_and_calls_back(data):
    x, y = data.x_train, data.y_train
    seen = []
    a = kr.train_bandwidth(x, y, epochs=7, seed=3, callback=lambda e, l, m: seen.append((e, l, m.w.item())))
    b = kr.train_bandwidth(x, y, epochs=7, generator=torch.Generator().manual_seed(3))
    assert a.losses == b.losses and a.ws == b.ws
    assert [e for e, _, _ in seen] == list(range(1, 8))
    assert [l for _, l, _ in seen] == a.losses and [w for _, _, w in seen] == a.ws
    assert a.ws[0] != kr.train_bandwidth(x, y, epochs=1, seed=4).ws[0]


def test_leave_one_out_training_finds_the_grid_minimum():
    d = kernel_regression_data(50, seed=0)
    result = kr.train_bandwidth(d.x_train, d.y_train, epochs=40, lr=0.1)
    grid = torch.linspace(0.1, 1.0, 181).tolist()
    best = min(grid, key=lambda s: kr.training_loss(d.x_train, d.y_train, s))
    assert result.model.sigma == pytest.approx(best, abs=0.01)
    assert result.losses[-1] <= result.losses[0]


def test_training_without_leave_one_out_keeps_growing_w():
    d = kernel_regression_data(50, seed=0)
    result = kr.train_bandwidth(d.x_train, d.y_train, epochs=30, lr=0.1, leave_one_out=False)
    assert all(b > a for a, b in zip(result.ws, result.ws[1:]))
    assert all(b < a for a, b in zip(result.losses[1:], result.losses[2:]))


def test_errors(data):
    x, y = data.x_train, data.y_train
    with pytest.raises(ValueError, match="x_train: expected at least 2 points"):
        kr.leave_one_out(x[:1], y[:1])
    with pytest.raises(ValueError, match="y_train: expected shape"):
        kr.leave_one_out(x, y[:-1])
    with pytest.raises(TypeError, match="y_train: expected dtype"):
        kr.train_bandwidth(x, y.float())
    with pytest.raises(ValueError, match="x_train: expected a 1-D tensor"):
        kr.train_bandwidth(x[:, None], y[:, None])
    with pytest.raises(ValueError, match="epochs: expected an int >= 1"):
        kr.train_bandwidth(x, y, epochs=0)
    with pytest.raises(ValueError, match="lr: expected a number > 0"):
        kr.train_bandwidth(x, y, lr=-1.0)
    with pytest.raises(ValueError, match="sigma: expected a number > 0"):
        kr.training_loss(x, y, 0.0)
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
    assert curve == pytest.approx([kr.training_loss(x, y, s, leave_one_out=loo) for s in sigmas], rel=1e-10)
    with pytest.raises(ValueError, match="sigmas: expected a number > 0"):
        kr.training_loss_curve(x, y, [0.1, -1.0])
