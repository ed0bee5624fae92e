"""Toy data for the notebooks: the kernel regression set, seed 004's cat/milk/it vectors and the
"Thinking Machines" example. Every random draw takes a seed; nothing is seeded globally."""
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import torch

from . import checks


def kernel_regression_target(x):
    """The function behind the toy set: f(x) = 2 sin(x) + x^0.8 (x a float tensor, >= 0 for a real f)."""
    checks.tensor(x, "x")
    return _target(x)


def _target(x):
    return 2 * torch.sin(x) + x ** 0.8


class KernelRegressionData(NamedTuple):
    x_train: torch.Tensor   # (n,) sorted keys in [0, 5)
    y_train: torch.Tensor   # (n,) noisy values f(x) + N(0, noise^2)
    x_test: torch.Tensor    # (50,) queries 0, 0.1, ..., 4.9
    y_truth: torch.Tensor   # (50,) f at the queries, without noise


def kernel_regression_data(n_train=50, *, noise=0.5, seed=0, dtype=torch.float64):
    """d2l's toy set: n sorted x in [0, 5), y = 2 sin x + x^0.8 + eps, eps ~ N(0, noise^2)."""
    n_train = checks.count(n_train, "n_train", low=1)
    noise = checks.real(noise, "noise", low=0.0)
    dtype = checks.float_dtype(dtype, "dtype")
    checks.fits((n_train,), 8, "n_train", "a training set")
    return kernel_regression_data_unchecked(n_train, noise=noise, seed=checks.count(seed, "seed"), dtype=dtype)


def kernel_regression_data_unchecked(n_train, *, noise=0.5, seed=0, dtype=torch.float64):
    """``kernel_regression_data`` without its checks (a live panel, on an n its slider bounds)."""
    g = torch.Generator().manual_seed(seed)
    x_train, _ = torch.sort(torch.rand(n_train, generator=g, dtype=dtype) * 5)
    y_train = _target(x_train) + noise * torch.randn(n_train, generator=g, dtype=dtype)
    x_test = torch.arange(0, 5, 0.1, dtype=dtype)
    return KernelRegressionData(x_train, y_train, x_test, _target(x_test))


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
        raise ValueError(f"sentence: expected one of {sorted(SENTENCES)}, got {sentence!r}")
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
            raise ValueError(f"vectors: expected words among {sorted(WORD_VECTORS)}, got {word!r}")
        if isinstance(vec, (str, bytes)) or not isinstance(vec, (Sequence, torch.Tensor)) or len(vec) != 2:
            raise ValueError(f"vectors: expected two numbers (f1, f2) for {word!r}, got {vec!r}")
        checked[word] = tuple(checks.real(v, f"vectors[{word!r}]") for v in vec)
    return checked


def _generated(d_model, d_k, dtype, count):
    d_model = checks.count(d_model, "d_model", low=1)
    d_k = checks.count(d_k, "d_k", low=1)
    dtype = checks.float_dtype(dtype, "dtype")
    checks.fits((count, d_model, d_k), torch.finfo(dtype).bits // 8, "d_model, d_k",
                 f"{count} projections (d_model x d_k)")
    return d_model, d_k, dtype


def thinking_machines(d_model=512, d_k=64, *, seed=0, dtype=torch.float64):
    """Seed 000's two-word example: embeddings X (2, d_model) and projections W_Q, W_K, W_V (d_model, d_k).

    Entries of X are N(0, 1) and of each W are N(0, 1/d_model), so q and k have unit-variance
    entries and q·k has variance d_k: the situation the ÷ sqrt(d_k) is for.
    """
    d_model, d_k, dtype = _generated(d_model, d_k, dtype, 3)
    return thinking_machines_unchecked(d_model, d_k, seed=checks.count(seed, "seed"), dtype=dtype)


def thinking_machines_unchecked(d_model=512, d_k=64, *, seed=0, dtype=torch.float64):
    """``thinking_machines`` without its checks (a live panel, on a d_k its slider bounds)."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(2, d_model, generator=g, dtype=dtype)
    W = [torch.randn(d_model, d_k, generator=g, dtype=dtype) / d_model ** 0.5 for _ in range(3)]
    return {"words": ("Thinking", "Machines"), "X": X, "W_Q": W[0], "W_K": W[1], "W_V": W[2]}


def toy_sentence(words=("The", "cat", "sat", "on", "the", "mat"), d_model=512, d_k=64, *, seed=0,
                 dtype=torch.float64):
    """Random embeddings X (T, d_model) for ``words`` and projections W_Q, W_K, W_V (d_model, d_k).

    Drawn like ``thinking_machines``. One vector per word ignoring case, so "The" and "the" share
    a row of X (there are no positions here). "<pad>" is a word like any other; mask it.
    """
    checks.items(words, "words", item=checks.Text(), min_len=1)
    d_model, d_k, dtype = _generated(d_model, d_k, dtype, 3 + len(words))
    g = torch.Generator().manual_seed(checks.count(seed, "seed"))
    W = [torch.randn(d_model, d_k, generator=g, dtype=dtype) / d_model ** 0.5 for _ in range(3)]
    vocab = {}
    for w in words:
        if w.lower() not in vocab:
            vocab[w.lower()] = torch.randn(d_model, generator=g, dtype=dtype)
    X = torch.stack([vocab[w.lower()] for w in words])                          # (T, d_model)
    return {"words": tuple(words), "X": X, "W_Q": W[0], "W_K": W[1], "W_V": W[2]}


def translation_pair(d_model=64, d_k=16, *, noise=0.5, seed=0, dtype=torch.float64):
    """A toy encoder/decoder pair for cross-attention: "the black cat sleeps" -> "le chat noir dort".

    Each French word's embedding is its English translation's plus N(0, noise^2) noise, and the
    queries and keys share one projection (W_Q is W_K): a stand-in for the alignment a trained
    translation model learns. Returns {"source", "target", "X_source" (4, d_model),
    "X_target" (4, d_model), "W_Q", "W_K", "W_V" (d_model, d_k)}.
    """
    d_model, d_k, dtype = _generated(d_model, d_k, dtype, 2)
    noise = checks.real(noise, "noise", low=0.0)
    g = torch.Generator().manual_seed(checks.count(seed, "seed"))
    source, target = ("the", "black", "cat", "sleeps"), ("le", "chat", "noir", "dort")
    X_source = torch.randn(4, d_model, generator=g, dtype=dtype)
    X_target = X_source[[0, 2, 1, 3]] + noise * torch.randn(4, d_model, generator=g, dtype=dtype)
    W_QK, W_V = (torch.randn(d_model, d_k, generator=g, dtype=dtype) / d_model ** 0.5 for _ in range(2))
    return {"source": source, "target": target, "X_source": X_source, "X_target": X_target,
            "W_Q": W_QK, "W_K": W_QK, "W_V": W_V}


# Dates in human formats -> ISO "yyyy-mm-dd" (notebooks 08 and 10): a toy translation task whose
# alignment is visible. Generated here, nothing downloaded.
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
               "october", "november", "december")
DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
# name -> how 1994-03-07 looks (the day is written with or without a leading zero where shown as "d").
DATE_FORMATS = {
    "d mon yyyy": "7 mar 1994",          # notebook 08's format
    "month d, yyyy": "march 7, 1994",
    "dd.mm.yyyy": "07.03.1994",
    "yyyy mon d": "1994 mar 7",
    "mm/dd/yyyy": "03/07/1994",
}


def format_date(year, month, day, fmt, *, zero_pad=False):
    """One date (month 1..12) written in the format ``fmt`` (a key of DATE_FORMATS); ``zero_pad``
    writes a one-digit day as "07" in the formats whose day may go either way."""
    if fmt not in DATE_FORMATS:
        raise ValueError(f"fmt: expected one of {list(DATE_FORMATS)}, got {fmt!r}")
    d = f"{day:02d}" if zero_pad else str(day)
    mon, name = MONTHS[month - 1], MONTH_NAMES[month - 1]
    return {"d mon yyyy": f"{d} {mon} {year}", "month d, yyyy": f"{name} {day}, {year}",
            "dd.mm.yyyy": f"{day:02d}.{month:02d}.{year}", "yyyy mon d": f"{year} {mon} {d}",
            "mm/dd/yyyy": f"{month:02d}/{day:02d}/{year}"}[fmt]


_YEAR = checks.Int(1, 9999, why="four-digit years")


@checks.arguments(n=checks.Int(1, 1_000_000, why="a million dates is plenty"), seed=checks.Int(0),
                   first_year=_YEAR, last_year=_YEAR, formats=checks.Items(checks.Choice(DATE_FORMATS), min_len=1))
def random_dates(n, *, seed=0, first_year=1950, last_year=2049, formats=("d mon yyyy",)):
    """n (source, target) string pairs: a date in one of ``formats`` (drawn uniformly) and its ISO
    "yyyy-mm-dd". Days are drawn with and without a leading zero. With the default single format the
    pairs are notebook 08's (the format is drawn after everything else, so it changes none of them)."""
    if last_year < first_year:
        raise ValueError(f"last_year: expected a year >= first_year = {first_year}, got {last_year}")
    g = torch.Generator().manual_seed(seed)
    years = torch.randint(first_year, last_year + 1, (n,), generator=g).tolist()
    months = torch.randint(0, 12, (n,), generator=g).tolist()
    fraction = torch.rand(n, generator=g).tolist()
    zero_pad = (torch.rand(n, generator=g) < 0.5).tolist()
    which = torch.randint(0, len(formats), (n,), generator=g).tolist() if len(formats) > 1 else [0] * n
    pairs = []
    for y, m, f, z, k in zip(years, months, fraction, zero_pad, which):
        d = 1 + int(f * DAYS_IN_MONTH[m])
        pairs.append((format_date(y, m + 1, d, formats[k], zero_pad=z), f"{y}-{m + 1:02d}-{d:02d}"))
    return pairs


# Characters <-> ids for the date models (notebooks 08 and 10): each lesson has its own vocabularies
# (a tuple whose item 0 is its padding token) and checks the learner's text before it gets here.
def encode_chars(texts, vocab, length=None):
    """Strings -> (ids (B, length) padded with vocab[0], valid_lens (B,)); ``length`` None: the longest
    (at least 1). Every character must be in ``vocab`` (the lesson checked the texts)."""
    index = {c: i for i, c in enumerate(vocab)}
    if length is None:
        length = max((len(t) for t in texts), default=1)
    ids = torch.zeros(len(texts), length, dtype=torch.long)
    for b, t in enumerate(texts):
        ids[b, : len(t)] = torch.tensor([index[c] for c in t], dtype=torch.long)
    return ids, torch.tensor([len(t) for t in texts], dtype=torch.long)


def encode_with_markers(texts, vocab, bos, eos):
    """Equal-length target strings -> (decoder inputs ``bos`` + text, labels text + ``eos``), each
    (B, length + 1): teacher forcing feeds the decoder the true previous character."""
    index = {c: i for i, c in enumerate(vocab)}
    body = torch.tensor([[index[c] for c in t] for t in texts], dtype=torch.long).reshape(len(texts), -1)
    return (torch.cat([torch.full((len(texts), 1), index[bos]), body], 1),
            torch.cat([body, torch.full((len(texts), 1), index[eos])], 1))


def decode_chars(ids, vocab, eos):
    """Ids (B, T) -> strings, each stopping at ``eos``; a special token other than ``eos`` (a
    multi-character name such as "<pad>") shows as "?"."""
    out = []
    for row in ids.tolist():
        chars = []
        for i in row:
            if vocab[i] == eos:
                break
            chars.append(vocab[i] if len(vocab[i]) == 1 else "?")
        out.append("".join(chars))
    return out
