"""Figures for notebook 03 (multi-head attention): the split of an (n, D) matrix into heads, and
hatching over padded keys. ``head_blocks_plot`` takes data and an optional ``ax`` and returns the
Axes; ``mark_padding`` returns its hatch, which the caller keeps to move it later."""
import matplotlib.pyplot as plt
import torch
from matplotlib.patches import Rectangle

from ...core import checks
from ...core.attention import scaled_dot_product_attention
from ...i18n import gettext as _
from ...ui.plotting import to_numpy

__all__ = ["HEAD_COLORS", "head_blocks_plot", "mark_padding", "mark_padding_unchecked", "thumbnail"]

HEAD_COLORS = ("#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd", "#fddaec")


def _cells(ax, M, x0, y0, colors, title):
    """Draw matrix M (rows, cols) with its numbers, top-left corner at (x0, y0); cell colour per column."""
    rows, cols = M.shape
    for i in range(rows):
        for j in range(cols):
            ax.add_patch(Rectangle((x0 + j, y0 + i), 1, 1, facecolor=colors[j], edgecolor="0.4", lw=0.8))
            ax.text(x0 + j + 0.5, y0 + i + 0.5, f"{M[i, j]:g}", ha="center", va="center", fontsize=8)
    ax.text(x0 + cols / 2, y0 - 0.35, title, ha="center", va="bottom", fontsize=9)


_AX = checks.Axes()


@checks.arguments(X=checks.Array(2), num_heads=checks.Int(1, len(HEAD_COLORS), why="one colour per head"),
                   ax=checks.Optional(_AX))
def head_blocks_plot(X, num_heads, *, ax=None):
    """Left: one sequence X (n, D), columns tinted by the head they go to. Right: split_heads(X),
    H blocks (n, D/H) with the same numbers. Returns the Axes."""
    X = to_numpy(X)
    T, D = X.shape
    H = int(num_heads)
    if D % H:
        raise checks.error("X", f"last dim divisible by num_heads={H}", D)
    d = D // H
    if ax is None:
        _fig, ax = plt.subplots(figsize=(0.45 * (2 * D + H + 4), 0.5 * (T + 2)))
    col_colors = [HEAD_COLORS[j // d % len(HEAD_COLORS)] for j in range(D)]
    _cells(ax, X, 0, 0, col_colors, f"X[b]: (n, D) = ({T}, {D})")
    ax.annotate("", xy=(D + 2.3, T / 2), xytext=(D + 0.4, T / 2),
                arrowprops=dict(arrowstyle="->", lw=1.5))
    ax.text(D + 1.35, T / 2 - 0.3, _("split"), ha="center", va="bottom", fontsize=8)
    x = D + 2.8
    for h in range(H):
        _cells(ax, X[:, h * d:(h + 1) * d], x, 0, [HEAD_COLORS[h % len(HEAD_COLORS)]] * d,
               _("head {h}: ({n}, {d})").format(h=h + 1, n=T, d=d))
        x += d + 1
    ax.set_xlim(-0.3, x - 0.7)
    ax.set_ylim(T + 0.3, -1.2)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


@checks.arguments(ax=_AX)
def mark_padding(ax, valid_len, *, patch=None):
    """Hatch the key columns valid_len .. Tk-1 (the padding keys) of a heatmap drawn by
    ``plotting.heatmap`` on ``ax``. Returns the hatch (a Rectangle); pass it back as ``patch`` with a
    new length to move it in place instead of adding another."""
    valid_len = checks.count(valid_len, "valid_len")
    if not ax.images:
        raise checks.error("ax", "an Axes with a heatmap drawn by plotting.heatmap", "one without an image")
    if patch is None:
        patch = ax.add_patch(Rectangle((0, 0), 0, 0, fill=False, hatch="//", edgecolor="0.8", lw=0, zorder=3))
    elif patch.axes is not ax:
        raise checks.error("patch", "the hatch returned by mark_padding for this ax", "another Axes' patch")
    return mark_padding_unchecked(ax, valid_len, patch)


def mark_padding_unchecked(ax, valid_len, patch):
    """``mark_padding`` moving a hatch it returned, without its checks (the Play panel, on its own axes and
    the lengths its sliders bound)."""
    rows, num_keys = ax.images[0].get_array().shape
    width = max(num_keys - valid_len, 0)
    patch.set_bounds(min(valid_len, num_keys) - 0.5, -0.5, width, rows)
    patch.set_visible(width > 0)
    return patch


@checks.arguments(ax=_AX)
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(2, 3, 5, 8, generator=g)
    _out, w = scaled_dot_product_attention(q, k, k, temperature=0.3)
    im = ax.imshow(torch.cat(list(w), dim=1).numpy(), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for h in (1, 2):
        ax.axvline(5 * h - 0.5, color="white", linewidth=2)
    ax.set_xticks([2, 7, 12], [_("head {h}").format(h=h) for h in (1, 2, 3)], fontsize=6)
    ax.set_yticks([])
    ax.set_xlabel(_("keys, per head"), fontsize=6)
    ax.set_ylabel(_("queries"), fontsize=6)
    cbar = ax.figure.colorbar(im, ax=ax, fraction=0.05, pad=0.03)
    cbar.ax.tick_params(labelsize=5)
    cbar.set_label(_("weight"), fontsize=6)

