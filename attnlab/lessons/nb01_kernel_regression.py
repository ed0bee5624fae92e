"""Notebook 01, kernel regression: Nadaraya-Watson with a learnable bandwidth (d2l §10.2 style), and its figures.

The model scores a query x against a key x_i with -((x - x_i) w)^2 / 2 and returns the
softmax-weighted sum of the values y_i. The learnable w is an inverse width: with sigma = 1 / |w|
the score is the Gaussian one, -(x - x_i)^2 / (2 sigma^2).

Training uses d2l's leave-one-out keys: training point i is predicted from the OTHER n - 1 points.
If it could attend to itself, the loss would be smallest for w -> infinity (every point copies
its own noisy y), so gradient descent would keep growing w and overfit.
"""
from typing import Callable, List, NamedTuple, Optional

import matplotlib.pyplot as plt
import torch
from torch import nn

from .. import _checks, data
from ..attention import nadaraya_watson
from ..plotting import to_numpy


def _check_1d(x, name):
    _checks.tensor(x, name, min_dim=1)
    if x.dim() != 1:
        raise ValueError(f"{name}: expected a 1-D tensor of positions (n,), got shape {tuple(x.shape)}")
    return x


def _check_pair(x_train, y_train):
    _check_1d(x_train, "x_train")
    _check_1d(y_train, "y_train")
    _checks.same_kind(x_train, "x_train", y_train, "y_train")
    if x_train.shape != y_train.shape:
        raise ValueError(f"y_train: expected shape {tuple(x_train.shape)} to match x_train, "
                         f"got {tuple(y_train.shape)}")


class NWKernelRegression(nn.Module):
    """d2l's NWKernelRegression: y_hat(x) = sum_i softmax_i(-((x - x_i) w)^2 / 2) y_i, w learnable.

    Args:
        w: starting value of w (a float); default: uniform in [0, 1) drawn with ``generator``, as d2l.
        generator: torch.Generator for that draw (explicit randomness; nothing is seeded globally).
        dtype: dtype of w (float64 by default, like attnlab.data).
    forward(queries (Tq,), keys (Tq, Tk) or (Tk,), values like keys) -> (Tq,);
    the weights of the last call are kept in ``.attention_weights`` (Tq, Tk).
    """

    def __init__(self, w=None, *, generator=None, dtype=torch.float64):
        super().__init__()
        if w is None:
            start = torch.rand(1, generator=generator, dtype=dtype)
        else:
            start = torch.tensor([_checks.real(w, "w")], dtype=dtype)
        self.w = nn.Parameter(start)                                  # (1,)
        self.attention_weights = None

    @property
    def sigma(self):
        """The Gaussian width this w stands for: sigma = 1 / |w| (a float)."""
        return 1.0 / abs(self.w.item()) if self.w.item() != 0 else float("inf")

    def forward(self, queries, keys, values):
        _check_1d(queries, "queries")
        _checks.tensor(keys, "keys", min_dim=1)
        _checks.tensor(values, "values", min_dim=1)
        if keys.dim() == 1:
            keys = keys.expand(queries.shape[0], -1)                  # (Tq, Tk)
        if values.dim() == 1:
            values = values.expand(queries.shape[0], -1)              # (Tq, Tk)
        if keys.dim() != 2 or keys.shape[0] != queries.shape[0]:
            raise ValueError(f"keys: expected (Tk,) or ({queries.shape[0]}, Tk) for {queries.shape[0]} "
                             f"queries, got {tuple(keys.shape)}")
        if values.shape != keys.shape:
            raise ValueError(f"values: expected shape {tuple(keys.shape)} like keys, got {tuple(values.shape)}")
        _checks.same_kind(queries, "queries", keys, "keys")
        _checks.same_kind(queries, "queries", values, "values")
        scores = -((queries[:, None] - keys) * self.w) ** 2 / 2       # (Tq, Tk)
        self.attention_weights = torch.softmax(scores, dim=-1)        # (Tq, Tk)
        return (self.attention_weights * values).sum(-1)              # (Tq,)


def leave_one_out(x_train, y_train):
    """d2l's training keys and values: row i holds every training point except point i.

    Args: x_train (n,), y_train (n,), n >= 2.
    Returns: (keys (n, n - 1), values (n, n - 1)).
    """
    _check_pair(x_train, y_train)
    n = x_train.shape[0]
    if n < 2:
        raise ValueError(f"x_train: expected at least 2 points to leave one out, got {n}")
    keep = ~torch.eye(n, dtype=torch.bool, device=x_train.device)   # (n, n), False on the diagonal
    keys = x_train.expand(n, n)[keep].reshape(n, n - 1)              # (n, n - 1)
    values = y_train.expand(n, n)[keep].reshape(n, n - 1)            # (n, n - 1)
    return keys, values


def training_loss(x_train, y_train, sigma, *, leave_one_out=True):
    """Summed squared error of Nadaraya-Watson on its own training points at a fixed sigma (no training).

    This is the loss curve that training w walks down. Without leave-one-out it only falls as
    sigma -> 0; with it, it has a minimum at a finite sigma.
    Returns a float.
    """
    _check_pair(x_train, y_train)
    sigma = _checks.real(sigma, "sigma", positive=True)
    model = NWKernelRegression(1.0 / sigma, dtype=x_train.dtype)
    with torch.no_grad():
        y_hat = _fit_train(model, x_train, y_train, leave_one_out)
    return ((y_hat - y_train) ** 2).sum().item()


def training_loss_curve(x_train, y_train, sigmas, *, leave_one_out=True):
    """``training_loss`` at many widths at once (one batched softmax): sigmas (S,) -> list of S floats."""
    _check_pair(x_train, y_train)
    sigmas = [_checks.real(s, "sigmas", positive=True) for s in sigmas]
    n = x_train.shape[0]
    if leave_one_out and n < 2:
        raise ValueError(f"x_train: expected at least 2 points to leave one out, got {n}")
    s2 = torch.tensor(sigmas, dtype=x_train.dtype, device=x_train.device) ** 2          # (S,)
    scores = -(x_train[:, None] - x_train[None, :]) ** 2 / 2                            # (n, n)
    scores = scores / s2[:, None, None]                                                 # (S, n, n)
    if leave_one_out:
        eye = torch.eye(n, dtype=torch.bool, device=x_train.device)
        scores = scores.masked_fill(eye, float("-inf"))                                 # no self-attention
    y_hat = torch.softmax(scores, dim=-1) @ y_train                                     # (S, n)
    return ((y_hat - y_train) ** 2).sum(-1).tolist()


def _fit_train(model, x_train, y_train, loo):
    if loo:
        keys, values = leave_one_out(x_train, y_train)                # (n, n - 1) each
    else:
        keys, values = x_train, y_train                               # (n,) shared by every query
    return model(x_train, keys, values)                               # (n,)


class TrainingResult(NamedTuple):
    model: NWKernelRegression
    losses: List[float]        # summed squared error, one per epoch (before that epoch's step)
    ws: List[float]            # w after each epoch's step


def train_bandwidth(x_train, y_train, *, epochs=20, lr=0.1, leave_one_out=True, seed=0, generator=None,
                    w=None, callback: Optional[Callable] = None):
    """Train w by plain gradient descent (SGD on the full set) on the summed squared error, as d2l.

    Args:
        x_train, y_train: (n,) training points.
        epochs: full-batch steps. lr: step size (d2l uses 0.5 for 5 epochs; 0.1 walks more smoothly).
        leave_one_out: predict each training point from the others (True, as d2l) or from all (False).
        seed / generator: the starting w is drawn from ``generator`` (default: a new one seeded with
            ``seed``), so runs are deterministic. w: a fixed starting value instead of the draw.
        callback: called after every epoch as callback(epoch (1-based), loss, model).
    Returns:
        TrainingResult(model, losses, ws).
    """
    _check_pair(x_train, y_train)
    epochs = _checks.count(epochs, "epochs", low=1)
    lr = _checks.real(lr, "lr", positive=True)
    if generator is None:
        generator = torch.Generator().manual_seed(_checks.count(seed, "seed"))
    model = NWKernelRegression(w, generator=generator, dtype=x_train.dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses, ws = [], []
    for epoch in range(1, epochs + 1):
        optimizer.zero_grad()
        loss = ((_fit_train(model, x_train, y_train, leave_one_out) - y_train) ** 2).sum()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        ws.append(model.w.item())
        if callback is not None:
            callback(epoch, losses[-1], model)
    return TrainingResult(model, losses, ws)


def predict(model, x_train, y_train, x_queries):
    """The model's prediction at x_queries (Tq,) from all training points; returns (y_hat (Tq,), weights (Tq, n))."""
    _check_pair(x_train, y_train)
    _check_1d(x_queries, "x_queries")
    with torch.no_grad():
        y_hat = model(x_queries, x_train, y_train)
    return y_hat, model.attention_weights


# ---- figures ----

def kernel_regression_plot(x_test, y_truth, y_hat, x_train=None, y_train=None, *, ax=None, label="prediction"):
    """Truth, prediction and (optionally) the training points; returns the Axes."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(to_numpy(x_test), to_numpy(y_truth), label="truth", color="0.3", linestyle="--")
    ax.plot(to_numpy(x_test), to_numpy(y_hat), label=label, color="C1", linewidth=2)
    if x_train is not None:
        ax.plot(to_numpy(x_train), to_numpy(y_train), "o", color="C0", alpha=0.5, markersize=4, label="training data")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_xlim(0, 5)
    ax.legend(loc="upper right", fontsize=8)
    return ax


def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    d = data.kernel_regression_data()
    for sigma, colour in ((0.1, "C3"), (0.5, "C1"), (3.0, "C2")):
        y_hat, _ = nadaraya_watson(d.x_test, d.x_train, d.y_train, sigma=sigma)
        ax.plot(d.x_test, y_hat, color=colour, label=f"σ={sigma}")
    ax.plot(d.x_train, d.y_train, "o", color="C0", markersize=2, alpha=0.5)
    ax.legend(fontsize=6, loc="lower right")
