"""Notebook 05's data: seed 004's two sentences and its word vectors, two features per word."""
from collections.abc import Mapping, Sequence

import torch

from ...core import checks

__all__ = ["SENTENCES", "WORD_VECTORS", "cat_milk_it", "cat_milk_it_unchecked"]

# Seed 004: two features per word, (hungry-ness, sweet-ness). `it` and `cat` share a vector.
WORD_VECTORS = {"cat": (2.0, 2.0), "milk": (1.0, 3.0), "it": (2.0, 2.0), "sweet": (0.0, 4.0), "hungry": (4.0, 0.0)}
SENTENCES = {
    "sweet": ("The cat drank the milk because it was sweet.", ("cat", "milk", "it", "sweet")),
    "hungry": ("The cat drank the milk because it was hungry.", ("cat", "milk", "it", "hungry")),
}


def cat_milk_it(sentence="sweet", vectors=None, *, dtype=torch.float64):
    """The words of one of seed 004's sentences and their vectors X (4, 2), as in its tables.

    Args:
        sentence: "sweet" or "hungry" (the last word of the sentence).
        vectors: optional {word: (f1, f2)} overriding WORD_VECTORS (for the editable play section).
    Returns:
        (words tuple of 4, X (4, 2)).
    """
    if not isinstance(sentence, str) or sentence not in SENTENCES:
        raise checks.error("sentence", f"one of {sorted(SENTENCES)}", repr(sentence))
    dtype = checks.float_dtype(dtype, "dtype")
    return cat_milk_it_unchecked(sentence, _word_vectors(vectors), dtype=dtype)


def cat_milk_it_unchecked(sentence, vectors, *, dtype=torch.float64):
    """``cat_milk_it`` without its checks (a live panel, on the sentence and vectors its controls bound)."""
    table = {**WORD_VECTORS, **vectors}
    words = SENTENCES[sentence][1]
    return words, torch.tensor([table[w] for w in words], dtype=dtype)


def _word_vectors(vectors):
    """Check {word: (f1, f2)}: known words, two finite numbers each."""
    if vectors is None:
        return {}
    checks.instance(vectors, "vectors", Mapping, "a dict {word: (f1, f2)}")
    checked = {}
    for word, vec in vectors.items():
        if word not in WORD_VECTORS:
            raise checks.error("vectors", f"words among {sorted(WORD_VECTORS)}", repr(word))
        if isinstance(vec, (str, bytes)) or not isinstance(vec, (Sequence, torch.Tensor)) or len(vec) != 2:
            raise checks.error("vectors", f"two numbers (f1, f2) for {word!r}", repr(vec))
        checked[word] = tuple(checks.real(v, f"vectors[{word!r}]") for v in vec)
    return checked
