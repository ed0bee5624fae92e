"""Notebook 01's data: d2l's kernel regression toy set, n sorted keys x in [0, 5) with noisy values
y = 2 sin x + x^0.8 + noise, and 50 queries with the true f. Every random draw takes a seed."""
from typing import NamedTuple

import torch

from ...core import checks

__all__ = ["KernelRegressionData", "kernel_regression_data", "kernel_regression_data_unchecked",
           "kernel_regression_target"]


def kernel_regression_target(x):
    """The function behind the toy set: f(x) = 2 sin(x) + x^0.8 (x a float tensor, >= 0 for a real f)."""
    checks.tensor(x, "x")
    return _target(x)


def _target(x):
    return 2 * torch.sin(x) + x ** 0.8


class KernelRegressionData(NamedTuple):
    x_train: torch.Tensor   # (n,) sorted keys in [0, 5)
    y_train: torch.Tensor   # (n,) noisy values f(x) + N(0, noise^2)
    x_test: torch.Tensor    # (50,) queries 0, 0.1, ..., 4.9
    y_truth: torch.Tensor   # (50,) f at the queries, without noise


def kernel_regression_data(n_train=50, *, noise=0.5, seed=0, dtype=torch.float64):
    """d2l's toy set: n sorted x in [0, 5), y = 2 sin x + x^0.8 + eps, eps ~ N(0, noise^2)."""
    n_train = checks.count(n_train, "n_train", low=1)
    noise = checks.real(noise, "noise", low=0.0)
    dtype = checks.float_dtype(dtype, "dtype")
    checks.fits((n_train,), 8, "n_train", "a training set")
    return kernel_regression_data_unchecked(n_train, noise=noise, seed=checks.count(seed, "seed"), dtype=dtype)


def kernel_regression_data_unchecked(n_train, *, noise=0.5, seed=0, dtype=torch.float64):
    """``kernel_regression_data`` without its checks (a live panel, on an n its slider bounds)."""
    g = torch.Generator().manual_seed(seed)
    x_train, _ = torch.sort(torch.rand(n_train, generator=g, dtype=dtype) * 5)
    y_train = _target(x_train) + noise * torch.randn(n_train, generator=g, dtype=dtype)
    x_test = torch.arange(0, 5, 0.1, dtype=dtype)
    return KernelRegressionData(x_train, y_train, x_test, _target(x_test))
