"""Notebook 12's lesson: the corpus, the GPT (RoPE, grouped-query attention, KV cache), generation and
its filters, bits per character, the cache's bytes, the shipped models, bad inputs."""
import math
import unicodedata

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn import functional as F

from attnlab.core.positional import rope
from attnlab.lessons import nb12_gpt as lesson
from attnlab.lessons.nb12_gpt import corpus, generation, induction, measure
from attnlab.lessons.nb12_gpt.model import GPT, GroupedQueryAttention, new_caches, with_kv_heads

V = len(corpus.vocab())


@pytest.fixture(scope="module")
def shipped():
    return lesson.pretrained()


def small(kv_heads=None, dtype=torch.float32, seed=1, heads=4, layers=2):
    return GPT(V, d_model=32, heads=heads, kv_heads=kv_heads, layers=layers, context=48, seed=seed).to(dtype).eval()


def is_cjk(c):
    return "CJK" in unicodedata.name(c, "")


# ------------------------------------------------------------------------------------------ corpus

def test_vocab_is_every_corpus_character_sorted_by_code_point():
    chars = lesson.vocab()
    assert list(chars) == sorted(set(corpus.text("all")))
    assert len(set(chars)) == len(chars)
    assert sum(is_cjk(c) for c in chars) > 500                     # the Chinese prose's characters, none dropped
    assert corpus.decode(corpus.encode("注意力 attention")) == "注意力 attention"


def test_heldout_is_a_fixed_tenth_chosen_by_hash():
    train, held = corpus.paragraphs("train"), corpus.paragraphs("heldout")
    assert not set(train) & set(held)
    assert len(train) + len(held) == len(corpus.paragraphs("all"))
    assert 0.07 < len(held) / (len(train) + len(held)) < 0.13
    assert all(corpus.is_heldout(p) for p in held) and not any(corpus.is_heldout(p) for p in train)
    zh = [p for p in held if any(is_cjk(c) for c in p)]
    assert zh and len(zh) < len(held)                               # both languages held out


def test_cleaning_keeps_words_and_drops_markup():
    md = ("# 1. Title\n\nSee [the index](00_index.ipynb) and `al.rope`: **bold** and *it*.\n\n"
          "```python\nx = 1\n```\n\n$$a^2$$\n\n| a | b |\n|---|---|\n| one cell | two cells |\n<!-- note -->")
    assert corpus.clean(md) == ["See the index and al.rope: bold and it.", "a | b\none cell | two cells"]
    assert corpus.clean("the scale $\\sqrt{d_k}$ and $\\sigma$ matter here") == ["the scale √d_k and σ matter here"]


def test_the_shipped_corpus_is_the_notebooks_prose():
    text = corpus.text("all")
    assert "```" not in text and "](" not in text and "<!--" not in text
    assert "注意力" in text and "attention" in text


def test_extract_refuses_a_folder_without_notebooks(tmp_path):
    with pytest.raises(ValueError, match=r"notebooks: expected a folder with NN_\*\.ipynb"):
        corpus.extract(tmp_path)
    with pytest.raises(ValueError, match="split: expected 'train', 'heldout' or 'all', got 'test'"):
        corpus.paragraphs("test")
