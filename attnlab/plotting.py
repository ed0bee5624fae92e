"""Plot helpers: each takes data and an optional ``ax`` and returns the Axes it drew on.

Weights are drawn with viridis on a fixed 0–1 scale, so heads and settings compare by colour.
``update_heatmap`` changes a drawn heatmap in place, for the live panels.
"""
import matplotlib.pyplot as plt
import numpy as np
import torch

WEIGHT_CMAP = "viridis"


def to_numpy(x):
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().double().numpy()
    return np.asarray(x, dtype=float)


def _annotate_default(w):
    return w.shape[0] * w.shape[1] <= 100


def _text_color(value, vmin, vmax):
    return "black" if (value - vmin) / ((vmax - vmin) or 1.0) > 0.6 else "white"


def heatmap(weights, *, x_labels=None, y_labels=None, ax=None, title=None, xlabel="keys",
            ylabel="queries", vmin=0.0, vmax=1.0, cmap=WEIGHT_CMAP, annotate=None, fmt="{:.2f}",
            colorbar=True):
    """Draw a (Tq, Tk) matrix of weights with token labels; returns the Axes.

    annotate (default: when there are at most 100 cells) writes each value in its cell.
    """
    w = to_numpy(weights)
    if w.ndim != 2:
        raise ValueError(f"weights: expected a 2-D (Tq, Tk) matrix, got shape {w.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(1.2 + 0.55 * w.shape[1], 1.0 + 0.45 * w.shape[0]))
    im = ax.imshow(w, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax._attnlab = {"x_labels": x_labels, "y_labels": y_labels, "annotate": annotate, "fmt": fmt,
                   "vmin": vmin, "vmax": vmax}
    _set_ticks_and_text(ax, w)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return ax


def update_heatmap(ax, weights, *, x_labels=None, y_labels=None, title=None):
    """Put new values (and, if given, labels) into a heatmap drawn by ``heatmap``; returns the Axes."""
    w = to_numpy(weights)
    im = ax.images[0]
    state = ax._attnlab
    if x_labels is not None:
        state["x_labels"] = x_labels
    if y_labels is not None:
        state["y_labels"] = y_labels
    if im.get_array().shape != w.shape:
        im.set_extent((-0.5, w.shape[1] - 0.5, w.shape[0] - 0.5, -0.5))
    im.set_data(w)
    if title is not None:
        ax.set_title(title)
    _set_ticks_and_text(ax, w)
    return ax


def _tuple(labels):
    return None if labels is None else tuple(map(str, labels))


def _set_ticks_and_text(ax, w):
    state = ax._attnlab
    rows, cols = w.shape
    ticks = (rows, cols, _tuple(state["x_labels"]), _tuple(state["y_labels"]))
    if state.get("ticks") != ticks:     # unchanged ticks stay untouched, so a live panel need not redraw them
        state["ticks"] = ticks
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.set_xticklabels(state["x_labels"] if state["x_labels"] is not None else range(cols),
                           rotation=45 if state["x_labels"] is not None else 0,
                           ha="right" if state["x_labels"] is not None else "center")
        ax.set_yticklabels(state["y_labels"] if state["y_labels"] is not None else range(rows))
    annotate = state["annotate"] if state["annotate"] is not None else _annotate_default(w)
    texts = [t for t in ax.texts if getattr(t, "_attnlab_cell", False)]
    if not annotate or len(texts) != rows * cols:
        for t in texts:
            t.remove()
        texts = []
        if annotate:
            for i in range(rows):
                for j in range(cols):
                    t = ax.text(j, i, "", ha="center", va="center", fontsize=8)
                    t._attnlab_cell = True
                    texts.append(t)
    for t, value in zip(texts, w.ravel()):
        t.set_text(state["fmt"].format(value))
        t.set_color(_text_color(value, state["vmin"], state["vmax"]))


def heads_grid(weights, *, x_labels=None, y_labels=None, axes=None, titles=None, annotate=False):
    """One heatmap per head from (H, Tq, Tk) weights, on a shared 0–1 colour bar; returns the axes."""
    w = to_numpy(weights)
    if w.ndim != 3:
        raise ValueError(f"weights: expected (H, Tq, Tk), got shape {w.shape}")
    H = w.shape[0]
    if axes is None:
        cols = min(H, 4)
        rows = -(-H // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.8 * rows), squeeze=False,
                                 layout="constrained")
    axes = np.asarray(axes).ravel()
    for h, ax in enumerate(axes):
        if h >= H:
            ax.set_visible(False)
            continue
        ax.set_visible(True)
        heatmap(w[h], x_labels=x_labels, y_labels=y_labels, ax=ax, colorbar=False, annotate=annotate,
                title=titles[h] if titles else f"head {h + 1}")
    axes[0].figure.colorbar(axes[0].images[0], ax=list(axes[:H]), shrink=0.8, label="weight")
    return axes


def weights_summary(weights, x_labels=None, y_labels=None, *, top=2):
    """Text for readers who can't see colour: each query row's largest weights, one line per row."""
    w = to_numpy(weights)
    xs = list(x_labels) if x_labels is not None else [str(j) for j in range(w.shape[1])]
    ys = list(y_labels) if y_labels is not None else [str(i) for i in range(w.shape[0])]
    lines = []
    for i, row in enumerate(w):
        if row.sum() == 0:
            lines.append(f"{ys[i]}: no visible key (all weights 0)")
            continue
        best = np.argsort(-row, kind="stable")[:top]
        lines.append(f"{ys[i]}: " + ", ".join(f"{xs[j]} {row[j]:.2f}" for j in best))
    return "\n".join(lines)


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


def encoding_columns_plot(P, columns=(6, 7, 8, 9), *, ax=None):
    """Columns of a positional encoding P (T, d) against position, as in seed 000; returns the Axes."""
    P = to_numpy(P)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    for c in columns:
        ax.plot(np.arange(P.shape[0]), P[:, c], label=f"col {c}")
    ax.set_xlabel("position i")
    ax.set_ylabel("P[i, col]")
    ax.legend(loc="upper right", fontsize=8)
    return ax


SIGNED_CMAP = "RdBu_r"   # diverging, white at 0: for signed values such as P (not for weights)


def encoding_heatmap(P, *, ax=None, vmax=1.0, cmap=SIGNED_CMAP, colorbar=True, title=None):
    """A signed (T, d) matrix such as the positional encoding P: rows = positions, columns =
    dimensions, diverging colours fixed to [-vmax, vmax] with 0 in white; returns the Axes.

    For live panels, change it in place with ``update_encoding_heatmap``.
    """
    M = to_numpy(P)
    if M.ndim != 2:
        raise ValueError(f"P: expected a 2-D (T, d) matrix, got shape {M.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    im = ax.imshow(M, cmap=cmap, vmin=-vmax, vmax=vmax, aspect="auto", interpolation="nearest")
    ax.set_xlabel("dimension (column of P)")
    ax.set_ylabel("position i (row of P)")
    if title:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="value")
    return ax


def update_encoding_heatmap(ax, P):
    """Put a new (T, d) matrix into an ``encoding_heatmap`` in place (its shape may change)."""
    M = to_numpy(P)
    im = ax.images[0]
    im.set_data(M)
    im.set_extent((-0.5, M.shape[1] - 0.5, M.shape[0] - 0.5, -0.5))
    ax.set_xlim(-0.5, M.shape[1] - 0.5)
    ax.set_ylim(M.shape[0] - 0.5, -0.5)
    return ax


def binary_counter_plot(num_bits=3, *, ax=None):
    """Bits of the counter 0 .. 2^num_bits - 1 as step curves against the number, lowest bit on top
    (seed 000's analogy: higher bits flip more slowly); returns the Axes."""
    n = np.arange(2 ** num_bits)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    for b in range(num_bits):
        bits = (n >> b) & 1
        offset = 1.5 * (num_bits - 1 - b)
        ax.step(np.append(n, n[-1] + 1), np.append(bits, bits[-1]) + offset, where="post",
                color=f"C{b}", linewidth=2, label=f"bit {b} (flips every {2 ** b})")
        for k, v in zip(n, bits):
            ax.text(k + 0.5, offset + v + 0.12, str(v), ha="center", fontsize=8, color=f"C{b}")
    ax.set_xticks(n + 0.5)
    ax.set_xticklabels([f"{k}\n{k:0{num_bits}b}" for k in n])
    ax.set_yticks([])
    ax.set_xlim(0, n[-1] + 1)
    ax.set_ylim(-0.3, 1.5 * num_bits)
    ax.set_xlabel("number (and its binary form)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    return ax
