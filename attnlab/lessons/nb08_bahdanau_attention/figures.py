"""Alignment heatmaps of the date translator (notebook 08) and the index thumbnail.

An alignment (对齐) heatmap has one row per output character (decoder step i, the last one writes
<eos>) and one column per input character (encoder state h_j); cell (i, j) is the weight alpha_ij.
The live panels that draw them are in ``live``.
"""

from ...core import checks
from ...i18n import N_, gettext as _
from ...ui import plotting
from . import dates, seq2seq

__all__ = [
    "SPACE", "ROWS", "source_labels", "output_labels", "alignment_heatmap", "update_alignment", "alignment",
    "argmax_line", "thumbnail", "update_alignment_unchecked", "alignment_unchecked", "argmax_line_unchecked"
]

SPACE = "␣"                                   # a visible space for tick labels
ROWS = dates.TARGET_LEN + 1                    # 10 output characters + <eos>
XLABEL, YLABEL = N_("input character j (encoder state h_j)"), N_("output character i (decoder step)")   # shown with _()


_AX = checks.Axes()
_WEIGHTS = checks.Tensor(2)


def _same_length(weights, source):
    if weights.shape[-1] != len(source):
        raise checks.error("source", f"{weights.shape[-1]} characters, one per column of weights",
                           f"{len(source)} ({source!r})")


@checks.arguments(source=checks.Text())
def source_labels(source):
    """Tick labels for the input characters, spaces shown as ␣."""
    return _source_labels(source)


def _source_labels(source):
    return [SPACE if c == " " else c for c in source]


@checks.arguments(output=checks.Text())
def output_labels(output):
    """Tick labels for the ROWS decoder steps: the output characters, <eos>, then · for steps after it."""
    return _output_labels(output)


def _output_labels(output):
    return (list(output) + ["<eos>"] + ["·"] * ROWS)[:ROWS]


@checks.arguments(weights=_WEIGHTS, source=checks.Text(), output=checks.Text(), ax=checks.Optional(_AX))
def alignment_heatmap(weights, source, output, *, ax=None, title=None, colorbar=True, annotate=False):
    """Draw weights (ROWS, len(source)) as output characters × input characters, fixed 0–1 scale."""
    _same_length(weights, source)
    ax = plotting.heatmap(weights, x_labels=source_labels(source), y_labels=output_labels(output), ax=ax,
                          title=title, xlabel=_(XLABEL), ylabel=_(YLABEL), colorbar=colorbar, annotate=annotate)
    return _upright(ax)


def _upright(ax):
    """Single characters read best unrotated."""
    for label in ax.get_xticklabels():
        label.set(rotation=0, ha="center")
    return ax


@checks.arguments(ax=_AX, weights=_WEIGHTS, source=checks.Text(), output=checks.Text())
def update_alignment(ax, weights, source, output, *, title=None):
    """Put a new alignment into a heatmap drawn by ``alignment_heatmap`` (the input length may change)."""
    _same_length(weights, source)
    return update_alignment_unchecked(ax, weights, source, output, title=title)


def update_alignment_unchecked(ax, weights, source, output, *, title=None):
    """``update_alignment`` for checked arguments (the live panels call this)."""
    return _upright(plotting.update_heatmap(ax, weights, x_labels=_source_labels(source),
                                            y_labels=_output_labels(output), title=title))


@checks.arguments(model=checks.Instance(seq2seq.DateTranslator, "a DateTranslator"), source=checks.Text())
def alignment(model, source):
    """(output str, weights (ROWS, len(source))) for one checked source string."""
    return alignment_unchecked(model, dates.check_source(source))


def alignment_unchecked(model, source):
    """``alignment`` for a DateTranslator and a source string ``dates.check_source`` accepted."""
    ids, weights, _queries, _states = seq2seq.greedy_unchecked(model, *dates.encode_sources_unchecked([source]))
    return dates.decode_targets_unchecked(ids)[0], weights[0, :, :len(source)]


@checks.arguments(weights=_WEIGHTS, source=checks.Text(), output=checks.Text())
def argmax_line(weights, source, output):
    """One line of text: for each output character, the input character with the largest weight."""
    if tuple(weights.shape) != (ROWS, len(source)):
        raise checks.error("weights", f"shape ({ROWS}, {len(source)}): decoder steps × characters of source",
                           tuple(weights.shape))
    return argmax_line_unchecked(weights, source, output)


def argmax_line_unchecked(weights, source, output):
    """``argmax_line`` for checked arguments (the explorer calls this)."""
    ys, xs = _output_labels(output), _source_labels(source)
    best = weights.argmax(-1).tolist()
    return " · ".join(f"{ys[i]}←{xs[j]} {weights[i, j]:.2f}" for i, j in enumerate(best))


@checks.arguments(ax=_AX)
def thumbnail(ax):
    """The index's small picture of this notebook, drawn into ``ax``."""
    text = "17 mar 1994"
    out, w = seq2seq.translate(seq2seq.pretrained("additive"), [text])
    im = ax.imshow(w[0, :10].numpy(), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(text)), [c if c != " " else "␣" for c in text], fontsize=6)
    ax.set_yticks(range(10), list(out[0]), fontsize=6)
    ax.set_xlabel(_("input characters"), fontsize=6)
    ax.set_ylabel(_("output"), fontsize=6)
    cbar = ax.figure.colorbar(im, ax=ax, fraction=0.05, pad=0.03)
    cbar.ax.tick_params(labelsize=5)
    cbar.set_label(_("weight"), fontsize=6)
