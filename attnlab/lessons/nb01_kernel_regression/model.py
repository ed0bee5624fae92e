"""Notebook 01, kernel regression: Nadaraya-Watson with a learnable bandwidth (d2l §10.2 style).

The model scores a query x against a key x_i with -((x - x_i) w)^2 / 2 and returns the
softmax-weighted sum of the values y_i. The learnable w is an inverse width: with sigma = 1 / |w|
the score is the Gaussian one, -(x - x_i)^2 / (2 sigma^2).

Training uses d2l's leave-one-out keys: training point i is predicted from the OTHER n - 1 points.
If it could attend to itself, the loss would be smallest for w -> infinity (every point copies
its own noisy y), so gradient descent would keep growing w and overfit.
"""
from typing import Callable, List, NamedTuple, Optional

import torch
from torch import nn

from ...core import checks

__all__ = [
    "NWKernelRegression", "leave_one_out", "training_loss", "training_loss_curve", "TrainingResult",
    "train_steps", "train_bandwidth", "predict", "SIGMAS",
    "loss_curve", "sgd_steps"
]


# the training points, the queries: 1-D tensors of positions (n,)
_POSITIONS = checks.Tensor(min_dim=1, dims=1, what="tensor of positions (n,)")
_REDUCTION = checks.Choice(("sum", "mean"), expected="'sum' (as d2l) or 'mean' (per training point)")


class NWKernelRegression(nn.Module):
    """d2l's NWKernelRegression: y_hat(x) = sum_i softmax_i(-((x - x_i) w)^2 / 2) y_i, w learnable.

    Args:
        w: starting value of w (a float); default: uniform in [0, 1) drawn with ``generator``, as d2l.
        generator: torch.Generator for that draw (explicit randomness; nothing is seeded globally).
        dtype: dtype of w (float64 by default, like data.py).
    forward(queries (Tq,), keys (Tq, Tk) or (Tk,), values like keys) -> (Tq,);
    the weights of the last call are kept in ``.attention_weights`` (Tq, Tk).
    """

    def __init__(self, w=None, *, generator=None, dtype=torch.float64):
        super().__init__()
        if w is None:
            start = torch.rand(1, generator=generator, dtype=dtype)
        else:
            start = torch.tensor([checks.real(w, "w")], dtype=dtype)
        self.w = nn.Parameter(start)                                  # (1,)
        self.attention_weights = None

    @property
    def sigma(self):
        """The Gaussian width this w stands for: sigma = 1 / |w| (a float)."""
        return 1.0 / abs(self.w.item()) if self.w.item() != 0 else float("inf")

    def forward(self, queries, keys, values):
        _POSITIONS(queries, "queries")
        checks.tensor(keys, "keys", min_dim=1)
        checks.tensor(values, "values", min_dim=1)
        if keys.dim() == 1:
            keys = keys.expand(queries.shape[0], -1)                  # (Tq, Tk)
        if values.dim() == 1:
            values = values.expand(queries.shape[0], -1)              # (Tq, Tk)
        if keys.dim() != 2 or keys.shape[0] != queries.shape[0]:
            raise checks.error("keys", f"(Tk,) or ({queries.shape[0]}, Tk) for {queries.shape[0]} queries",
                               tuple(keys.shape))
        if values.shape != keys.shape:
            raise checks.error("values", f"shape {tuple(keys.shape)} like keys", tuple(values.shape))
        checks.same_kind(queries, "queries", keys, "keys")
        checks.same_kind(queries, "queries", values, "values")
        scores = -((queries[:, None] - keys) * self.w) ** 2 / 2       # (Tq, Tk)
        self.attention_weights = torch.softmax(scores, dim=-1)        # (Tq, Tk)
        return (self.attention_weights * values).sum(-1)              # (Tq,)


@checks.arguments(x_train=_POSITIONS, y_train=_POSITIONS)
def leave_one_out(x_train, y_train):
    """d2l's training keys and values: row i holds every training point except point i.

    Args: x_train (n,), y_train (n,), n >= 2.
    Returns: (keys (n, n - 1), values (n, n - 1)).
    """
    checks.same_kind(x_train, "x_train", y_train, "y_train")
    checks.same_shape(x_train, "x_train", y_train, "y_train")
    n = x_train.shape[0]
    if n < 2:
        raise checks.error("x_train", "at least 2 points to leave one out", n)
    keep = ~torch.eye(n, dtype=torch.bool, device=x_train.device)   # (n, n), False on the diagonal
    keys = x_train.expand(n, n)[keep].reshape(n, n - 1)              # (n, n - 1)
    values = y_train.expand(n, n)[keep].reshape(n, n - 1)            # (n, n - 1)
    return keys, values


def _reduce(squared_errors, reduction):
    return squared_errors.sum(-1) if reduction == "sum" else squared_errors.mean(-1)


@checks.arguments(x_train=_POSITIONS, y_train=_POSITIONS, sigma=checks.Real(positive=True), reduction=_REDUCTION)
def training_loss(x_train, y_train, sigma, *, leave_one_out=True, reduction="sum"):
    """Squared error of Nadaraya-Watson on its own training points at a fixed sigma (no training).

    This is the loss curve that training w walks down. Without leave-one-out it only falls as
    sigma -> 0; with it, it has a minimum at a finite sigma. ``reduction``: "sum" over the n points
    (as d2l; it grows with n) or "mean" (per point, comparable across n). Returns a float.
    """
    checks.same_kind(x_train, "x_train", y_train, "y_train")
    checks.same_shape(x_train, "x_train", y_train, "y_train")
    model = NWKernelRegression(1.0 / float(sigma), dtype=x_train.dtype)
    with torch.no_grad():
        y_hat = _fit_train(model, x_train, y_train, leave_one_out)
    return _reduce((y_hat - y_train) ** 2, reduction).item()


@checks.arguments(x_train=_POSITIONS, y_train=_POSITIONS, reduction=_REDUCTION, sigmas=checks.Array(1))
def training_loss_curve(x_train, y_train, sigmas, *, leave_one_out=True, reduction="sum"):
    """``training_loss`` at many widths at once (one batched softmax): sigmas (S,) -> list of S floats."""
    checks.same_kind(x_train, "x_train", y_train, "y_train")
    checks.same_shape(x_train, "x_train", y_train, "y_train")
    sigmas = [checks.real(s, "sigmas", positive=True) for s in sigmas]
    n = x_train.shape[0]
    if leave_one_out and n < 2:
        raise checks.error("x_train", "at least 2 points to leave one out", n)
    return loss_curve(x_train, y_train, sigmas, leave_one_out, reduction)


def loss_curve(x_train, y_train, sigmas, leave_one_out, reduction):
    """``training_loss_curve`` without its checks (sigmas a list of floats > 0): the Play panel's path."""
    n = x_train.shape[0]
    s2 = torch.tensor(sigmas, dtype=x_train.dtype, device=x_train.device) ** 2          # (S,)
    scores = -(x_train[:, None] - x_train[None, :]) ** 2 / 2                            # (n, n)
    scores = scores / s2[:, None, None]                                                 # (S, n, n)
    if leave_one_out:
        eye = torch.eye(n, dtype=torch.bool, device=x_train.device)
        scores = scores.masked_fill(eye, float("-inf"))                                 # no self-attention
    y_hat = torch.softmax(scores, dim=-1) @ y_train                                     # (S, n)
    return _reduce((y_hat - y_train) ** 2, reduction).tolist()


def _fit_train(model, x_train, y_train, loo):
    if loo:
        keys, values = leave_one_out(x_train, y_train)                # (n, n - 1) each
    else:
        keys, values = x_train, y_train                               # (n,) shared by every query
    return model(x_train, keys, values)                               # (n,)


SIGMAS = torch.logspace(-1.6, 0.6, 60, dtype=torch.float64).tolist()    # 0.025 ... 4: the landscape's σ grid


class TrainingResult(NamedTuple):
    model: NWKernelRegression
    losses: List[float]        # squared error (summed or mean), one per epoch (before that epoch's step)
    ws: List[float]            # w after each epoch's step


_EPOCHS = checks.Int(1, 10_000, why="a few hundred steps converge; more only waits")


@checks.arguments(x_train=_POSITIONS, y_train=_POSITIONS, epochs=_EPOCHS, lr=checks.Real(positive=True),
                  seed=checks.Int(0), generator=checks.Optional(checks.Generator()), reduction=_REDUCTION)
def train_steps(x_train, y_train, *, epochs=20, lr=0.1, leave_one_out=True, seed=0, generator=None, w=None,
                reduction="sum"):
    """``train_bandwidth`` one step at a time: a generator yielding (epoch, loss, model) after each step.

    Its return value (``StopIteration.value``) is the TrainingResult. Same arguments as train_bandwidth.
    """
    checks.same_kind(x_train, "x_train", y_train, "y_train")
    checks.same_shape(x_train, "x_train", y_train, "y_train")
    lr = float(lr)
    if generator is None:
        generator = torch.Generator().manual_seed(seed)
    model = NWKernelRegression(w, generator=generator, dtype=x_train.dtype)
    return sgd_steps(model, x_train, y_train, epochs, lr, leave_one_out, reduction)


def sgd_steps(model, x_train, y_train, epochs, lr, leave_one_out, reduction):
    """``train_steps`` without its checks, on a model made by the caller: the Play panel's path."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses, ws = [], []
    for epoch in range(1, epochs + 1):
        optimizer.zero_grad()
        loss = _reduce((_fit_train(model, x_train, y_train, leave_one_out) - y_train) ** 2, reduction)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        ws.append(model.w.item())
        yield epoch, losses[-1], model
    return TrainingResult(model, losses, ws)


@checks.arguments(epochs=_EPOCHS, seed=checks.Int(0), generator=checks.Optional(checks.Generator()),
                   callback=checks.Optional(checks.Function()))
def train_bandwidth(x_train, y_train, *, epochs=20, lr=0.1, leave_one_out=True, seed=0, generator=None,
                    w=None, callback: Optional[Callable] = None, reduction="sum"):
    """Train w by plain gradient descent (SGD on the full set) on the squared error, as d2l.

    Args:
        x_train, y_train: (n,) training points.
        epochs: full-batch steps. lr: step size (d2l uses 0.5 for 5 epochs; 0.1 walks more smoothly).
        leave_one_out: predict each training point from the others (True, as d2l) or from all (False).
        reduction: "sum" of the squared errors (as d2l) or their "mean"; the mean's gradient is the
            sum's divided by n, so lr = n * lr_sum takes the same steps.
        seed / generator: the starting w is drawn from ``generator`` (default: a new one seeded with
            ``seed``), so runs are deterministic. w: a fixed starting value instead of the draw.
        callback: called after every epoch as callback(epoch (1-based), loss, model).
    Returns:
        TrainingResult(model, losses, ws).
    """
    steps = train_steps(x_train, y_train, epochs=epochs, lr=lr, leave_one_out=leave_one_out, seed=seed,
                        generator=generator, w=w, reduction=reduction)
    while True:
        try:
            epoch, loss, model = next(steps)
        except StopIteration as stop:
            return stop.value
        if callback is not None:
            callback(epoch, loss, model)


@checks.arguments(model=checks.Instance(NWKernelRegression, "an NWKernelRegression"), x_train=_POSITIONS,
                  y_train=_POSITIONS, x_queries=_POSITIONS)
def predict(model, x_train, y_train, x_queries):
    """The model's prediction at x_queries (Tq,) from all training points; returns (y_hat (Tq,), weights (Tq, n))."""
    checks.same_kind(x_train, "x_train", y_train, "y_train")
    checks.same_shape(x_train, "x_train", y_train, "y_train")
    with torch.no_grad():
        y_hat = model(x_queries, x_train, y_train)
    return y_hat, model.attention_weights
