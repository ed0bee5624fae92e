"""Notebook 01's data (attnlab/lessons/nb01_kernel_regression/data.py): d2l's toy set, deterministic, seeded
locally, and its bad input refused with the argument named."""
import math
import re

import pytest
import torch

from attnlab.lessons.nb01_kernel_regression import data

GIB = "of at most 1 GiB, got "
ROWS = [
    ("kernel_regression_data/n", lambda: data.kernel_regression_data(0), ValueError, "n_train: expected an int >= 1, got 0"),
    ("kernel_regression_data/noise", lambda: data.kernel_regression_data(noise=-1), ValueError,
     "noise: expected a number >= 0.0, got -1.0"),
    ("kernel_regression_data/seed", lambda: data.kernel_regression_data(seed=1.5), TypeError, "seed: expected an int, got float"),
    ("kernel_regression_data/dtype", lambda: data.kernel_regression_data(dtype=torch.bool), TypeError,
     "dtype: expected a floating dtype (torch.float16, torch.bfloat16, torch.float32 or torch.float64), got torch.bool"),
    ("kernel_regression_data/size", lambda: data.kernel_regression_data(10**10), ValueError,
     "n_train: expected a training set " + GIB + "10000000000 entries x 8 B = 74.5 GiB"),
    ("kernel_regression_target/type", lambda: data.kernel_regression_target([1.0]), TypeError,
     "x: expected a torch.Tensor, got list"),
]


@pytest.mark.parametrize("call,exc,message", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_bad_input_is_a_clear_error(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()


def test_kernel_regression_data_is_d2ls_set():
    d = data.kernel_regression_data(50, seed=0)
    assert d.x_train.shape == d.y_train.shape == (50,)
    assert d.x_test.shape == d.y_truth.shape == (50,)
    assert torch.equal(d.x_train, torch.sort(d.x_train).values)
    assert (d.x_train >= 0).all() and (d.x_train < 5).all()
    torch.testing.assert_close(d.x_test, torch.arange(50, dtype=torch.float64) / 10)
    for x, y in zip(d.x_test.tolist(), d.y_truth.tolist()):
        assert y == pytest.approx(2 * math.sin(x) + x ** 0.8, abs=1e-12)
    noise = d.y_train - data.kernel_regression_target(d.x_train)
    assert 0.3 < noise.std().item() < 0.7                              # N(0, 0.5^2)


def test_kernel_regression_data_is_deterministic_and_does_not_touch_the_global_rng():
    state = torch.get_rng_state()
    a, b = data.kernel_regression_data(20, seed=3), data.kernel_regression_data(20, seed=3)
    assert torch.equal(torch.get_rng_state(), state)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert not torch.equal(a.x_train, data.kernel_regression_data(20, seed=4).x_train)
    clean = data.kernel_regression_data(10, noise=0.0, dtype=torch.float32)
    assert clean.x_train.dtype == torch.float32
    torch.testing.assert_close(clean.y_train, data.kernel_regression_target(clean.x_train))


def test_a_training_set_above_the_limit_is_refused_before_it_is_drawn(monkeypatch):
    calls = []
    monkeypatch.setattr(torch, "rand", lambda *a, **k: calls.append(a))
    with pytest.raises(ValueError, match="of at most 1 GiB"):
        data.kernel_regression_data(10**10)
    assert calls == []
