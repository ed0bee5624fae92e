"""Which heads align which output characters with which input characters, head ablations, and the
three families' masks (encoder-only, decoder-only, encoder-decoder)."""
from contextlib import contextmanager

import numpy as np
import torch

from ... import _checks
from ...i18n import N_, gettext as _
from ...masking import causal_mask
from ...trainer import one_thread
from . import data
from .model import DateTransformer, greedy
from .training import accuracy, test_split

__all__ = [
    "FAMILIES", "FIELDS", "OUTPUT_FIELD", "families_figure", "head_ablations", "head_alignment",
    "source_fields", "without_head"
]

FIELDS = (N_("year"), N_("month"), N_("day"))
# ISO output position -> field (the '-' and EOS steps belong to none)
OUTPUT_FIELD = {0: "year", 1: "year", 2: "year", 3: "year", 5: "month", 6: "month", 8: "day", 9: "day"}
_MODEL = _checks.Instance(DateTransformer, "a DateTransformer (e.g. pretrained())")


@_checks.arguments(source=_checks.Text())
def source_fields(source):
    """The field ('year', 'month', 'day' or None) of each character of a source (lowercased, stripped)."""
    problem = data.source_problem(source)
    if problem:
        raise ValueError(f"source: {problem}")
    source = source.strip().lower()
    fmt = data.format_of(source)
    out = [None] * len(source)
    if fmt in ("dd.mm.yyyy", "mm/dd/yyyy"):
        order = ("day", "month", "year") if fmt == "dd.mm.yyyy" else ("month", "day", "year")
        parts = source.replace("/", ".").split(".")
    elif fmt == "month d, yyyy":
        order, parts = ("month", "day", "year"), source.replace(",", "").split(" ")
    else:
        parts = source.split(" ")
        order = ("year", "month", "day") if fmt == "yyyy mon d" else ("day", "month", "year")
    i = 0
    for field, part in zip(order, parts):
        i = source.index(part, i)
        out[i:i + len(part)] = [field] * len(part)
        i += len(part)
    return out


@_checks.arguments(model=_MODEL, n=_checks.Int(1, data.TEST_SIZE, why="the held-out split's size"))
def head_alignment(model, n=400):
    """(layers, heads, 3): for output characters of the year, month and day, how often each head's
    strongest cross-attention weight falls on an input character of the same field (first n test dates)."""
    pairs, src, valid = test_split()
    pairs, src, valid = pairs[:n], src[:n], valid[:n]
    model.eval()
    with torch.no_grad(), one_thread():
        _tokens, _logits, cross = greedy(model, src, valid)                  # (B, L, H, steps, S)
    peaks = cross.argmax(-1)                                                   # (B, L, H, steps)
    L, H = cross.shape[1], cross.shape[2]
    hits = np.zeros((L, H, 3))
    counts = np.zeros(3)
    for b, (source, _t) in enumerate(pairs):
        fields = source_fields(source)
        for t, field in OUTPUT_FIELD.items():
            k = ("year", "month", "day").index(field)
            counts[k] += 1
            hits[:, :, k] += (np.array(fields, dtype=object)[peaks[b, :, :, t].numpy()] == field)
    return hits / counts


@_checks.arguments(model=_MODEL, layer=_checks.Int(0), head=_checks.Int(0))
def without_head(model, layer, head):
    """Inside the ``with`` block, head ``head`` (0-based) of decoder layer ``layer`` (0-based) adds nothing
    to its cross-attention's output (its columns of W_o are zeroed, then restored)."""
    if layer >= len(model.decoder):
        raise ValueError(f"layer: expected a decoder layer in [0, {len(model.decoder) - 1}], got {layer}")
    if head >= model.config["num_heads"]:
        raise ValueError(f"head: expected a head in [0, {model.config['num_heads'] - 1}], got {head}")
    return _without_head(model, layer, head)


@contextmanager
def _without_head(model, layer, head):
    att = model.decoder[layer].cross_attention
    d = att.W_o.weight.shape[1] // att.num_heads
    saved = att.W_o.weight.detach().clone()
    with torch.no_grad():
        att.W_o.weight[:, head * d:(head + 1) * d] = 0
    try:
        yield model
    finally:
        with torch.no_grad():
            att.W_o.weight.copy_(saved)


@_checks.arguments(model=_MODEL, n=_checks.Int(1, data.TEST_SIZE, why="the held-out split's size"))
def head_ablations(model, n=500):
    """{(layer, head): held-out exact match with that cross-attention head removed} (first n test dates),
    plus {"none": ...} for the intact model."""
    pairs = test_split()[0][:n]
    out = {"none": accuracy(model, pairs)["all"]}
    for layer in range(len(model.decoder)):
        for head in range(model.config["num_heads"]):
            with without_head(model, layer, head):
                out[(layer, head)] = accuracy(model, pairs)["all"]
    return out


FAMILIES = (N_("encoder-only (BERT)"), N_("decoder-only (GPT)"), N_("encoder-decoder (T5)"))


@_checks.arguments(n=_checks.Int(1, 32, why="a readable picture"))
def families_figure(n=6, *, axes=None):
    """The three families' masks side by side (n source or text tokens): encoder-only self-attention
    sees every token; decoder-only is causal; encoder-decoder has a full encoder, a causal decoder and
    cross-attention from every target position to every source token. Returns the axes."""
    import matplotlib.pyplot as plt

    from ...plotting import heatmap
    if axes is None:
        _fig, axes = plt.subplots(1, 4, figsize=(13, 3.4), layout="constrained")
    full = torch.ones(n, n)
    causal = causal_mask(n, n).float()
    panels = [(full, _(FAMILIES[0]) + "\n" + _("self-attention"), "x"),
              (causal, _(FAMILIES[1]) + "\n" + _("causal self-attention"), "x"),
              (causal, _(FAMILIES[2]) + "\n" + _("decoder self-attention"), "y"),
              (torch.ones(n, n), _(FAMILIES[2]) + "\n" + _("cross-attention"), "xy")]
    for ax, (mask, title, kind) in zip(axes, panels):
        xl = [f"x{i + 1}" for i in range(n)] if kind in ("x", "xy") else [f"y{i + 1}" for i in range(n)]
        yl = [f"x{i + 1}" for i in range(n)] if kind == "x" else [f"y{i + 1}" for i in range(n)]
        heatmap(mask, x_labels=xl, y_labels=yl, ax=ax, colorbar=False, annotate=False, title=title,
                xlabel=_("keys (yellow: may attend)"), ylabel=_("queries"))
    return axes
