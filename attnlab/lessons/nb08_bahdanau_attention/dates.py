"""A toy translation task where alignment is visible: dates "7 mar 1994" -> "1994-03-07".

Generated here, nothing downloaded. The output's year attends to the input's year, its month to
the month's letters, its day to the day: a crossing alignment that a fixed-size context vector
would have to memorise, and attention simply looks up.
"""

from ...core import checks, data
from ...i18n import N_, explain

__all__ = [
    "MONTHS", "SOURCE_CHARS", "SOURCE_VOCAB", "TARGET_VOCAB", "MAX_SOURCE_LEN", "TARGET_LEN", "random_dates",
    "check_source", "source_problem", "encode_sources", "encode_targets", "decode_targets", "encode_sources_unchecked",
    "decode_targets_unchecked",
]

MONTHS = data.MONTHS
PAD, BOS, EOS = "<pad>", "<bos>", "<eos>"
SOURCE_CHARS = sorted(set("0123456789 " + "".join(MONTHS)))
SOURCE_VOCAB = (PAD,) + tuple(SOURCE_CHARS)
TARGET_VOCAB = (PAD, BOS, EOS) + tuple("0123456789-")
MAX_SOURCE_LEN = 11          # "dd mon yyyy"
TARGET_LEN = 10              # "yyyy-mm-dd"


_YEAR = checks.Int(1, 9999, why="four-digit years")


@checks.arguments(n=checks.Int(1, 1_000_000, why="a million dates is plenty"), seed=checks.Int(0),
                   first_year=_YEAR, last_year=_YEAR)
def random_dates(n, *, seed=0, first_year=1950, last_year=2049):
    """n (source, target) string pairs; days drawn with and without a leading zero.
    (``attnlab.core.data.random_dates`` in its default format, "7 mar 1994", shared with notebook 10.)"""
    return data.random_dates(n, seed=seed, first_year=first_year, last_year=last_year)


def _problem(text):
    """What is wrong with a str the learner typed, as (message marked N_, its fields), or None."""
    text = text.strip().lower()
    if not text:
        return N_("expected a date such as '7 mar 1994', got an empty string"), {}
    if len(text) > MAX_SOURCE_LEN:
        return N_("expected at most {max} characters (like '17 mar 1994'), got {n}"), {"max": MAX_SOURCE_LEN,
                                                                                          "n": len(text)}
    bad = sorted(set(text) - set(SOURCE_CHARS))
    if bad:
        return (N_("expected digits, spaces and letters of the months ({months}), got {chars}"),
                {"months": " ".join(MONTHS), "chars": repr("".join(bad))})
    return None


def check_source(text):
    """Validate a learner's input: a str of at most MAX_SOURCE_LEN characters from SOURCE_CHARS."""
    checks.string(text, "text")
    checks.refuse(_problem(text), "text")                          # the API's message: English
    return text.strip().lower()


def source_problem(text):
    """Why ``check_source`` refuses the str ``text``, in the learner's language (for a panel), or None
    when it accepts it. The typed text is quoted as typed, never translated."""
    return explain(_problem(text))


@checks.arguments(texts=checks.Items())
def encode_sources(texts):
    """Strings -> (ids (B, MAX_SOURCE_LEN) padded with PAD, valid_lens (B,))."""
    return encode_sources_unchecked([check_source(t) for t in texts])


def encode_sources_unchecked(sources):
    """``encode_sources`` for strings ``check_source`` returned (the explorer's typed date, checked once)."""
    return data.encode_chars(sources, SOURCE_VOCAB, MAX_SOURCE_LEN)


@checks.arguments(texts=checks.Items(checks.Text()))
def encode_targets(texts):
    """Target strings -> (decoder inputs BOS + text, decoder labels text + EOS), each (B, TARGET_LEN + 1)."""
    return data.encode_with_markers(texts, TARGET_VOCAB, BOS, EOS)


@checks.arguments(ids=checks.Tensor(2, integer=True))
def decode_targets(ids):
    """Target ids (B, T) -> strings, stopping at EOS."""
    return decode_targets_unchecked(ids)


def decode_targets_unchecked(ids):
    """``decode_targets`` for ids a model decoded (the explorer, on every move)."""
    return data.decode_chars(ids, TARGET_VOCAB, EOS)
