"""Seed 004's cat/milk/it example: three ways to place the scaling, the seed's printed tables and
the similarities it compares.

Self-attention with Q = K = V = X (no learned projections), X (T, d) the words' feature vectors:

    "none"    softmax(X Xᵀ / T) X
    "after"   softmax(X Xᵀ / T) X / √d          what seed 004's tables actually hold (d = 4)
    "inside"  softmax(X Xᵀ / (√d T)) X          the scaled dot-product attention it writes down

(T here is the temperature.) Dividing after the softmax leaves the weights as they are without any
scaling and only shrinks every output by √d. The seed's vectors have dim = 4 (two entries shown, the
others 0) and d_k = D, so the correct divisor is √4: ``SEED_D_K``. d = 2 is only a variant (the two
visible features alone).
"""
import math
from typing import NamedTuple

import torch

from ...core import checks
from ...core.attention import scaled_dot_product_attention
from ...i18n import gettext as _
from .data import cat_milk_it

__all__ = [
    "SCALINGS", "SEED_D_K", "SEED_SCORES", "SEED_OUTPUTS", "SEED_SIMILARITIES", "Attended", "attend",
    "similarities", "compare_to_seed", "feature_heads", "similarity_mistakes"
]

SCALINGS = ("none", "after", "inside")
SEED_D_K = 4          # seed 004: "dim = 4", d_k = D: the correct d in softmax(QKᵀ/√d_k)V for its vectors

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


@checks.arguments(X=checks.Tensor(2))
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
    checks.choice(scaling, "scaling", SCALINGS, expected=f"one of {SCALINGS}")
    d = X.shape[-1] if d is None else checks.real(d, "d", positive=True)
    scores = X @ X.T                                                            # (T, T)
    scale = 1.0 / math.sqrt(d) if scaling == "inside" else 1.0
    output, weights = scaled_dot_product_attention(X, X, X, scale=scale, temperature=temperature)
    if scaling == "after":
        output = output / math.sqrt(d)                                          # (T, d), weights unchanged
    return Attended(scores, weights, output)


@checks.arguments(output=checks.Tensor(2), words=checks.Items(checks.Text()), of=checks.Text(),
                   to=checks.Items(checks.Text()))
def similarities(output, words, of="it", to=("milk", "cat")):
    """How close ``of``'s vector is to each word in ``to``, three ways.

    Args:
        output: (T, d) vectors, one row per word.
        words: the T words, in row order.
    Returns:
        {"dot": {word: a·b}, "cosine": {word: a·b / (|a||b|)}, "distance": {word: |a - b|}}.
    """
    words = list(words)
    if len(words) != output.shape[0]:
        raise checks.error("words", f"{output.shape[0]} words, one per row of output", len(words))
    for w in (of, *to):
        if w not in words:
            raise checks.error("words", f"{w!r} among them", words)
    a = output[words.index(of)]
    result = {"dot": {}, "cosine": {}, "distance": {}}
    for w in to:
        b = output[words.index(w)]
        result["dot"][w] = float(a @ b)
        norms = float(a.norm() * b.norm())
        result["cosine"][w] = float(a @ b) / norms if norms > 0 else float("nan")
        result["distance"][w] = float((a - b).norm())
    return result


@checks.arguments(words=checks.Items(checks.Text()), output=checks.Tensor(2),
                   seed=checks.Items(checks.Items(checks.Real())), decimals=checks.Int(0, 15, why="float64 digits"))
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
        lines.append(_("{word:>7}  ours ({ours})   seed ({seed})   {marks}").format(
            word=word, ours=ours_s, seed=theirs_s, marks=" ".join(marks)))
    return "\n".join(lines), hits, total


@checks.arguments(X=checks.Tensor(2))
def feature_heads(X, *, temperature=1.0):
    """Seed 004 calls its two features "head 1" and "head 2"; this makes them two real heads.

    Head h attends with feature h alone (Q = K = V = X[:, h:h+1], so d_k = 1 and the scale is √1),
    and the heads' outputs are put side by side (W_O = identity). Returns (output (T, 2), weights (2, T, T)).
    """
    if X.shape[-1] != 2:                                                        # a 2-D tensor (checked above)
        raise checks.error("X", "shape (T, 2)", tuple(X.shape))
    heads = X.T[:, :, None]                                                     # (2, T, 1): one feature each
    out, weights = scaled_dot_product_attention(heads, heads, heads, temperature=temperature)  # (2, T, 1)
    return out[:, :, 0].T, weights                                              # (T, 2), (2, T, T)


def similarity_mistakes(sentence="sweet"):
    """The wrong answers a learner gives for sim(it′, milk′) from seed 004's table for ``sentence``,
    each computed from its mistake and paired with why it is wrong: ``selfcheck.numeric(mistakes=...)``.
    The right answer is the dot product of the table's rows it′ and milk′."""
    checks.choice(sentence, "sentence", sorted(SEED_OUTPUTS))
    words, X = cat_milk_it(sentence)
    table = torch.tensor(SEED_OUTPUTS[sentence], dtype=torch.float64)                    # (T, 2) after attention
    it, milk = table[words.index("it")], table[words.index("milk")]
    typo = table.clone()
    typo[words.index("it"), 0] /= 10                                  # the seed's written line: 0.0625 for 0.625
    after, before = similarities(table, words), similarities(X, words)
    return [
        (similarities(typo, words)["dot"]["milk"],
             _("you copied the seed's written line, which has {typo:g}. "
               "The table says it′ = ({it_0:g}, {it_1:g}).").format(typo=typo[words.index('it'), 0].item(),
                                                                   it_0=it[0].item(), it_1=it[1].item())),
        (after["dot"]["cat"], _("that is it′ · cat′. Use milk′ = ({milk_0:g}, {milk_1:g}).").format(
            milk_0=milk[0].item(), milk_1=milk[1].item())),
        (before["dot"]["milk"], _("that is sim(it, milk) before attention. Use the vectors after attention, it′ and "
                                  "milk′.")),
        ((it[0] * milk[1] + it[1] * milk[0]).item(), _("you multiplied across, first entry by second entry. Multiply "
                                                       "first by first and second by second, then add.")),
        (after["cosine"]["milk"], _("that is the cosine similarity. The seed's sim is the plain dot product, not "
                                    "divided by the lengths.")),
    ]
