"""Notebook 04's data (attnlab/lessons/nb04_self_attention_walkthrough/data.py): "Thinking Machines", the toy
sentence and the translation pair, seeded locally, and their bad input refused with the argument named."""
import re

import pytest
import torch

from attnlab.lessons.nb04_self_attention_walkthrough import data

BIG = 10**6
GIB = "of at most 1 GiB, got "
ROWS = [
    ("thinking_machines/d_model", lambda: data.thinking_machines(d_model=0), ValueError, "d_model: expected an int >= 1, got 0"),
    ("thinking_machines/dtype", lambda: data.thinking_machines(dtype="float32"), TypeError,
     "dtype: expected a torch.dtype (torch.float16, torch.bfloat16, torch.float32 or torch.float64), got str 'float32'"),
    ("thinking_machines/size", lambda: data.thinking_machines(d_model=BIG, d_k=BIG), ValueError,
     "d_model, d_k: expected 3 projections (d_model x d_k) " + GIB + "3 x 1000000 x 1000000"),
    ("toy_sentence/words str", lambda: data.toy_sentence("abc"), TypeError, "words: expected a list or tuple, got str"),
    ("toy_sentence/words ints", lambda: data.toy_sentence([1, 2]), TypeError, "words[0]: expected a str, got int"),
    ("toy_sentence/words empty", lambda: data.toy_sentence(()), ValueError, "words: expected at least 1 entries, got 0"),
    ("toy_sentence/dtype", lambda: data.toy_sentence(dtype=torch.int64), TypeError, "dtype: expected a floating dtype"),
    ("translation_pair/noise", lambda: data.translation_pair(noise=-1), ValueError, "noise: expected a number >= 0.0, got -1.0"),
    ("translation_pair/d_k", lambda: data.translation_pair(d_k=-1), ValueError, "d_k: expected an int >= 1, got -1"),
    ("thinking_machines/d_k", lambda: data.thinking_machines(d_k=0), ValueError, "d_k: expected an int >= 1, got 0"),
]


@pytest.mark.parametrize("call,exc,message", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_bad_input_is_a_clear_error(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()


def test_thinking_machines_shapes_and_unit_variance_projections():
    tm = data.thinking_machines()
    assert tm["words"] == ("Thinking", "Machines")
    assert tm["X"].shape == (2, 512) and tm["W_Q"].shape == tm["W_K"].shape == tm["W_V"].shape == (512, 64)
    q = data.thinking_machines(d_model=256, d_k=2000, seed=1)
    entries = q["X"] @ q["W_Q"]
    assert 0.8 < entries.var().item() < 1.2
    assert torch.equal(data.thinking_machines()["X"], tm["X"])
