"""Toy data that two or more notebooks share: dates in human formats and their ISO form (notebooks 08 and 10),
and characters to ids and back. A notebook's own data lives in its lesson (e.g. notebook 05's word vectors in
attnlab/lessons/nb05_cat_milk_it/data.py). Every random draw takes a seed; nothing is seeded globally."""
import torch

from . import checks

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
        raise checks.error("fmt", f"one of {list(DATE_FORMATS)}", repr(fmt))
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
        raise checks.error("last_year", f"a year >= first_year = {first_year}", last_year)
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
