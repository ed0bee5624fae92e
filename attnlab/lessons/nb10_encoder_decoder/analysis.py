"""Which heads align which output characters with which input characters, head ablations, the three
families' names, and the race against notebook 08's Bahdanau GRU on 08's format (measured by
bench/bench_nb10_vs_nb08.py, read from results.json; ``figures`` draws both)."""
from contextlib import contextmanager

import numpy as np
import torch

from ...core import checks
from ...i18n import N_, gettext as _
from ...ui.trainer import one_thread
from . import data
from .model import DateTransformer, greedy, measured
from .training import accuracy, test_split

__all__ = [
    "COMPARED", "FAMILIES", "FIELDS", "OUTPUT_FIELD", "comparison_lines", "head_ablations", "head_alignment",
    "source_fields", "without_head"
]

FIELDS = (N_("year"), N_("month"), N_("day"))
# ISO output position -> field (the '-' and EOS steps belong to none)
OUTPUT_FIELD = {0: "year", 1: "year", 2: "year", 3: "year", 5: "month", 6: "month", 8: "day", 9: "day"}
_MODEL = checks.Instance(DateTransformer, "a DateTransformer (e.g. pretrained())")


@checks.arguments(source=checks.Text())
def source_fields(source):
    """The field ('year', 'month', 'day' or None) of each character of a source (lowercased, stripped)."""
    fmt = data.format_of(source)                              # refuses a date in none of the formats, naming source
    source = source.strip().lower()
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


@checks.arguments(model=_MODEL, n=checks.Int(1, data.TEST_SIZE, why="the held-out split's size"))
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


@checks.arguments(model=_MODEL, layer=checks.Int(0), head=checks.Int(0))
def without_head(model, layer, head):
    """Inside the ``with`` block, head ``head`` (0-based) of decoder layer ``layer`` (0-based) adds nothing
    to its cross-attention's output (its columns of W_o are zeroed, then restored)."""
    if layer >= len(model.decoder):
        raise checks.error("layer", f"a decoder layer in [0, {len(model.decoder) - 1}]", layer)
    if head >= model.config["num_heads"]:
        raise checks.error("head", f"a head in [0, {model.config['num_heads'] - 1}]", head)
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


@checks.arguments(model=_MODEL, n=checks.Int(1, data.TEST_SIZE, why="the held-out split's size"))
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


# results.json's names for the two models of bench/bench_nb10_vs_nb08.py, shown with _(name)
COMPARED = (N_("Bahdanau GRU (08)"), N_("Transformer (10)"))


def comparison_lines():
    """The numbers beside figures.comparison_figure, one line each in the learner's language: per model its
    parameters, the first step (and CPU seconds) at >= 0.99 and the end of its run; what share of the
    held-out dates 08's GRU trained on; the machine's load while measuring (results.json's "bahdanau")."""
    race = measured()["bahdanau"]
    lines = []
    for name in COMPARED:
        curve, first = race["curves"][name], race["curves"][name]["first at >= 0.99"]
        lines.append(_("{name}: {params} parameters; first >= 0.99 at step {step} after {cpu} s CPU; {steps} steps: "
                       "exact match {acc:.3f}, {total} s CPU ({wall} s wall)").format(
            name=_(name), params=curve["parameters"], step=first["step"], cpu=first["cpu seconds"],
            steps=curve["steps"][-1], acc=curve["exact match"][-1], total=curve["cpu seconds"][-1],
            wall=curve["wall seconds"][-1]))
    gru = race["curves"][COMPARED[0]]
    lines.append(_("08 has no held-out split: {seen:.0%} of these dates were among the GRU's training dates; "
                   "on the others its exact match is {acc:.3f}").format(seen=gru["held-out dates seen in training"],
                                                                       acc=gru["exact match on the unseen ones"]))
    machine = race["machine"]
    lines.append(_("load average while measuring: {before} before, {after} after ({cores} cores)").format(
        before=machine["load average before (1, 5, 15 min)"][0], after=machine["load average after"][0],
        cores=machine["cores"]))
    return lines
