"""Seed 004's cat/milk/it example: three ways to place the scaling, the seed's printed tables, the
similarities it compares, and a drawing of where each word moves.

Self-attention with Q = K = V = X (no learned projections), X (T, d) the words' feature vectors:

    "none"    softmax(X Xᵀ / T) X
    "after"   softmax(X Xᵀ / T) X / √d          what seed 004's tables actually hold (d = 4)
    "inside"  softmax(X Xᵀ / (√d T)) X          the scaled dot-product attention it writes down

(T here is the temperature.) Dividing after the softmax leaves the weights as they are without any
scaling and only shrinks every output by √d.
"""
import math
from typing import NamedTuple

import torch

from .. import _checks, data
from ..attention import scaled_dot_product_attention

SCALINGS = ("none", "after", "inside")

# Seed 004's printed numbers, copied from the note (rows: the sentence's words in order).
SEED_SCORES = {
    "sweet": [[8, 8, 8, 8], [8, 10, 8, 12], [8, 8, 8, 8], [8, 12, 8, 16]],
    "hungry": [[8, 8, 8, 8], [8, 10, 8, 4], [8, 8, 8, 8], [8, 4, 8, 16]],
}
SEED_OUTPUTS = {
    "sweet": [[0.625, 1.375], [0.089, 1.911], [0.625, 1.375], [0.010, 1.990]],
    "hungry": [[1.125, 0.875], [0.609, 1.391], [1.125, 0.875], [1.999, 0.001]],
}
SEED_SIMILARITIES = {"sweet": {"milk": 2.68, "cat": 2.28}, "hungry": {"milk": 1.90, "cat": 2.03}}


class Attended(NamedTuple):
    scores: torch.Tensor    # (T, T) raw dot products X Xᵀ
    weights: torch.Tensor   # (T, T) attention weights, rows sum to 1
    output: torch.Tensor    # (T, d) new vectors


def attend(X, scaling="inside", *, d=None, temperature=1.0):
    """Self-attention of X (T, d) with itself (Q = K = V = X) under one of ``SCALINGS``.

    Args:
        X: (T, d) word vectors.
        scaling: "none", "after" (divide the output by √d, as seed 004's tables do) or "inside"
            (divide the scores by √d before the softmax: softmax(QKᵀ/√d)V).
        d: the d in √d; defaults to X's last dimension. Seed 004 used d = 4 for 2-D vectors.
        temperature: > 0, divides the logits (1 = plain attention).
    Returns:
        Attended(scores (T, T), weights (T, T), output (T, d)).
    """
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"X: expected a torch.Tensor (T, d), got {type(X).__name__}")
    if X.dim() != 2:
        raise ValueError(f"X: expected a 2-D (T, d) tensor, got shape {tuple(X.shape)}")
    if scaling not in SCALINGS:
        raise ValueError(f"scaling: expected one of {SCALINGS}, got {scaling!r}")
    d = X.shape[-1] if d is None else _checks.real(d, "d", positive=True)
    scores = X @ X.T                                                            # (T, T)
    scale = 1.0 / math.sqrt(d) if scaling == "inside" else 1.0
    output, weights = scaled_dot_product_attention(X, X, X, scale=scale, temperature=temperature)
    if scaling == "after":
        output = output / math.sqrt(d)                                          # (T, d), weights unchanged
    return Attended(scores, weights, output)


def similarities(output, words, of="it", to=("milk", "cat")):
    """How close ``of``'s vector is to each word in ``to``, three ways.

    Args:
        output: (T, d) vectors, one row per word.
        words: the T words, in row order.
    Returns:
        {"dot": {word: a·b}, "cosine": {word: a·b / (|a||b|)}, "distance": {word: |a - b|}}.
    """
    words = list(words)
    for w in (of, *to):
        if w not in words:
            raise ValueError(f"words: expected {w!r} among them, got {words}")
    a = output[words.index(of)]
    result = {"dot": {}, "cosine": {}, "distance": {}}
    for w in to:
        b = output[words.index(w)]
        result["dot"][w] = float(a @ b)
        norms = float(a.norm() * b.norm())
        result["cosine"][w] = float(a @ b) / norms if norms > 0 else float("nan")
        result["distance"][w] = float((a - b).norm())
    return result


def compare_to_seed(words, output, seed, *, decimals=3):
    """Rows "word  ours  seed  ✓/✗" comparing ``output`` (T, d) rounded to ``decimals`` with the
    seed's printed rows. Returns (text, number of entries that match, number of entries)."""
    lines, hits, total = [], 0, 0
    for word, ours, theirs in zip(words, output.tolist(), seed):
        marks = []
        for a, b in zip(ours, theirs):
            ok = round(a, decimals) == round(b, decimals)
            hits, total = hits + ok, total + 1
            marks.append("✓" if ok else "✗")
        ours_s = ", ".join(f"{a:.{decimals}f}" for a in ours)
        theirs_s = ", ".join(f"{b:.{decimals}f}" for b in theirs)
        lines.append(f"{word:>7}  ours ({ours_s})   seed ({theirs_s})   {' '.join(marks)}")
    return "\n".join(lines), hits, total


# ---- drawing ------------------------------------------------------------------------------------

WORD_COLORS = {"cat": "C0", "milk": "C1", "it": "C2", "sweet": "C3", "hungry": "C4"}
_SIZES = {"cat": 13, "milk": 11, "it": 7, "sweet": 11, "hungry": 11}   # it inside cat when they meet


def moves_plot(words, before, after, *, ax, others=None, limits=(-1.0, 5.0)):
    """Each word as a hollow marker at its input vector and a filled one at its output, with an
    arrow between. ``others`` = {word: (x, y)} are drawn grey and hollow (not in the sentence).
    Returns the Axes; ``update_moves`` changes it in place."""
    from matplotlib.patches import FancyArrowPatch

    ax.set_xlim(*limits)
    ax.set_ylim(*limits)
    ax.set_aspect("equal")
    ax.set_xlabel("feature 1: state, high = hungry")
    ax.set_ylabel("feature 2: taste, high = sweet")
    ax.grid(True, color="0.9")
    state = {"arrows": [], "before": [], "after": [], "labels": [], "others": [], "other_labels": []}
    for _ in range(len(words)):
        arrow = FancyArrowPatch((0, 0), (0, 0), arrowstyle="-|>", mutation_scale=12, lw=1.2,
                                color="0.35", shrinkA=4, shrinkB=4)
        ax.add_patch(arrow)
        state["arrows"].append(arrow)
        state["before"].append(ax.plot([], [], "o", mfc="none", mew=2)[0])
        state["after"].append(ax.plot([], [], "o", mec="white", mew=0.8)[0])
    for _ in range(2 * len(words)):
        state["labels"].append(ax.annotate("", (0, 0), xytext=(0, 0), textcoords="offset points", fontsize=9))
    for _ in range(len(others or {})):
        state["others"].append(ax.plot([], [], "s", mfc="none", mec="0.6", ms=8, mew=1.5)[0])
        state["other_labels"].append(ax.annotate("", (0, 0), xytext=(0, -9), textcoords="offset points",
                                                 fontsize=9, color="0.5", va="top"))
    ax._cat_milk_it = state
    return update_moves(ax, words, before, after, others=others)


def _group(words, points):
    """Words at (nearly) the same point share one label: [([words], (x, y)), ...]."""
    groups = []
    for w, p in zip(words, points):
        for g in groups:
            if abs(g[1][0] - p[0]) < 0.05 and abs(g[1][1] - p[1]) < 0.05:
                g[0].append(w)
                break
        else:
            groups.append(([w], p))
    return groups


def _place(label, point, direction, text, weight):
    """Put ``label`` next to ``point``, offset along the unit vector ``direction``."""
    dx, dy = direction
    label.xy = point
    label.set_position((9 * dx, 9 * dy))
    label.set_ha("left" if dx >= 0 else "right")
    label.set_va("bottom" if dy >= 0 else "top")
    label.set_text(text)
    label.set_fontweight(weight)


def update_moves(ax, words, before, after, *, others=None):
    """Move the markers, arrows and labels drawn by ``moves_plot``; returns the Axes."""
    state = ax._cat_milk_it
    before, after = before.tolist(), after.tolist()
    moves = {}
    for i, w in enumerate(words):
        color, size = WORD_COLORS.get(w, "k"), _SIZES.get(w, 10)
        state["before"][i].set_data([before[i][0]], [before[i][1]])
        state["before"][i].set(mec=color, ms=size, zorder=3)
        state["after"][i].set_data([after[i][0]], [after[i][1]])
        state["after"][i].set(mfc=color, ms=size, zorder=4 + (w == "it"))
        state["arrows"][i].set_positions(before[i], after[i])
        state["arrows"][i].set_color(color)
        ux, uy = after[i][0] - before[i][0], after[i][1] - before[i][1]
        n = math.hypot(ux, uy)          # labels sit beside the arrow: after on its right, before on its left
        moves[w] = (uy / n, -ux / n) if n > 0.05 else None
    for t in state["labels"]:
        t.set_text("")
    labels = iter(state["labels"])
    for names, p in _group(words, before):
        u = moves[names[0]]
        _place(next(labels), p, (-u[0], -u[1]) if u else (-0.7, -0.7), " = ".join(names), "normal")
    for names, p in _group(words, after):
        u = moves[names[0]]
        _place(next(labels), p, u if u else (0.7, -0.7), " = ".join(n + "′" for n in names), "bold")
    mid = sum(ax.get_xlim()) / 2
    for (w, p), m, t in zip((others or {}).items(), state["others"], state["other_labels"]):
        m.set_data([p[0]], [p[1]])
        t.xy = p
        t.set_ha("right" if p[0] > mid else "left")
        t.set_text(f"{w} (not in this sentence)")
    return ax


def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    words, X = data.cat_milk_it("sweet")
    out, _ = scaled_dot_product_attention(X, X, X, scale=1 / math.sqrt(2))
    names = {"cat": "cat = it", "it": ""}
    for (x0, y0), (x1, y1), w in zip(X.tolist(), out.tolist(), words):
        ax.annotate("", (x1, y1), (x0, y0), arrowprops={"arrowstyle": "->", "color": "0.4"})
        ax.plot([x0], [y0], "o", mfc="none", color="C0")
        ax.plot([x1], [y1], "o", color="C1", markersize=4)
        ax.text(x0 + 0.12, y0 + 0.12, names.get(w, w), fontsize=7)
    ax.set_xlim(-0.5, 4.5)
    ax.set_ylim(-0.5, 4.8)
