"""Notebook 05's data (attnlab/lessons/nb05_cat_milk_it/data.py): seed 004's sentences and word vectors, and
bad input refused with the argument named."""
import re

import pytest
import torch

from attnlab.lessons.nb05_cat_milk_it import data

ROWS = [
    ("cat_milk_it/sentence", lambda: data.cat_milk_it("x"), ValueError,
     "sentence: expected one of ['hungry', 'sweet'], got 'x'"),
    ("cat_milk_it/vectors type", lambda: data.cat_milk_it(vectors=[1, 2]), TypeError,
     "vectors: expected a dict {word: (f1, f2)}, got list"),
    ("cat_milk_it/vectors word", lambda: data.cat_milk_it(vectors={"dog": (1, 2)}), ValueError,
     "vectors: expected words among ['cat', 'hungry', 'it', 'milk', 'sweet'], got 'dog'"),
    ("cat_milk_it/vectors pair", lambda: data.cat_milk_it(vectors={"cat": (1.0,)}), ValueError,
     "vectors: expected two numbers (f1, f2) for 'cat', got (1.0,)"),
    ("cat_milk_it/vectors nan", lambda: data.cat_milk_it(vectors={"cat": (float("nan"), 1.0)}), ValueError,
     "vectors['cat']: expected a finite number, got nan"),
    ("cat_milk_it/dtype", lambda: data.cat_milk_it(dtype=torch.int64), TypeError, "dtype: expected a floating dtype"),
    ("cat_milk_it/salty", lambda: data.cat_milk_it("salty"), ValueError,
     "sentence: expected one of ['hungry', 'sweet'], got 'salty'"),
]


@pytest.mark.parametrize("call,exc,message", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_bad_input_is_a_clear_error(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()


def test_cat_milk_it_matches_seed_004_tables():
    words, X = data.cat_milk_it("sweet")
    assert words == ("cat", "milk", "it", "sweet")
    assert X.tolist() == [[2.0, 2.0], [1.0, 3.0], [2.0, 2.0], [0.0, 4.0]]
    words, X = data.cat_milk_it("hungry")
    assert words[-1] == "hungry" and X[-1].tolist() == [4.0, 0.0]
    assert torch.equal(X[0], X[2])                                     # `it` and `cat` share a vector
    _, X = data.cat_milk_it("sweet", {"it": (0.5, 3.5)})
    assert X[2].tolist() == [0.5, 3.5]
    assert data.WORD_VECTORS["it"] == (2.0, 2.0)                       # overrides do not leak
