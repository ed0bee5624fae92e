"""The course's prose as a character corpus (notebooks 12 and 13): ``corpus.txt``, the prose of notebooks 00-11
in both languages, written by ``python -m attnlab.lessons.nb12_gpt corpus`` (notebook 12's corpus.extract).

Paragraphs are separated by a blank line. Held-out split: a paragraph is held out when the first byte of the
SHA-256 of its UTF-8 text, taken mod 10, is 0 -- a fixed tenth of the paragraphs (about), whatever their order.
Tokens are characters: ``vocab()`` is every character of corpus.txt (every CJK character the prose uses, none
dropped for rarity), sorted by Unicode code point; a character's token id is its index.
"""
import functools
import hashlib
from pathlib import Path

from .. import checks

__all__ = ["CORPUS", "SEPARATOR", "decode", "encode", "is_heldout", "paragraphs", "text", "vocab"]

CORPUS = Path(__file__).parent / "corpus.txt"
SEPARATOR = "\n\n"


def is_heldout(paragraph):
    """True for the held-out tenth: SHA-256 of the paragraph's UTF-8 bytes, first byte mod 10 == 0."""
    return hashlib.sha256(paragraph.encode("utf-8")).digest()[0] % 10 == 0


@functools.cache
def _paragraphs():
    return tuple(CORPUS.read_text(encoding="utf-8").rstrip("\n").split(SEPARATOR))


def paragraphs(split="train"):
    """The shipped paragraphs of ``split``: "train", "heldout" or "all", in corpus order."""
    if split not in ("train", "heldout", "all"):
        raise checks.error("split", "'train', 'heldout' or 'all'", repr(split))
    paras = _paragraphs()
    if split == "all":
        return list(paras)
    return [p for p in paras if is_heldout(p) == (split == "heldout")]


@functools.cache
def text(split="train"):
    """The split's paragraphs joined by a blank line: the character stream trained on or measured."""
    return SEPARATOR.join(paragraphs(split))


@functools.cache
def _vocab():
    chars = sorted(set(SEPARATOR.join(_paragraphs())))
    return "".join(chars), {c: i for i, c in enumerate(chars)}


def vocab():
    """The characters, in token order: every character of the shipped corpus, sorted by code point."""
    return _vocab()[0]


def encode(s):
    """str -> list of token ids (unchecked: every character must be in vocab())."""
    index = _vocab()[1]
    return [index[c] for c in s]


def decode(ids):
    """Token ids -> str."""
    chars = _vocab()[0]
    return "".join(chars[int(i)] for i in ids)
