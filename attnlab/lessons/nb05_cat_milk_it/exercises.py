"""Notebook 05's two code exercises: a check that runs the learner's function against the lesson's
reference (``selfcheck.check_function``) and then names a common mistake when it recognises one."""
import math

import torch

from ...data import cat_milk_it
from ...selfcheck import check_function
from .compute import SEED_D_K, attend, feature_heads


def _cases_attend():
    g = torch.Generator().manual_seed(5)
    return [(cat_milk_it("sweet")[1], SEED_D_K), (cat_milk_it("hungry")[1], SEED_D_K),
            (torch.randn(5, 3, generator=g, dtype=torch.float64), 3)]


def _matches(got, want):
    try:
        got = torch.as_tensor(got, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return False
    return got.shape == want.shape and torch.allclose(got, want.double(), atol=1e-6, rtol=1e-5)


def _diagnose(fn, args, mistakes):
    """Call fn(*args) once more and return the message of the first known mistake its result equals."""
    try:
        got = fn(*(a.clone() if isinstance(a, torch.Tensor) else a for a in args))
    except Exception:  # already reported by check_function
        return None
    for message, wrong in mistakes:
        if _matches(got, wrong):
            return message
    return None


def check_attend(fn):
    """Exercise 1: fn(X, d) should return softmax(X Xᵀ / √d) X, self-attention with Q = K = V = X."""
    cases = _cases_attend()
    ok = check_function(fn, lambda X, d: attend(X, "inside", d=d).output, cases, name="my_attend")
    if not ok:
        X, d = cases[0]
        S = X @ X.T
        message = _diagnose(fn, cases[0], [
            ("Recognised: you divided after the softmax, as the seed's tables do. The √d belongs inside, "
             "on the scores.", attend(X, "after", d=d).output),
            ("Recognised: no scaling at all. Divide the scores by √d before the softmax.", attend(X, "none").output),
            ("Recognised: you divided by d, not by √d.", torch.softmax(S / d, -1) @ X),
            ("Recognised: you used √2 (the two visible features); the seed's vectors have dim = 4, so d_k = 4 "
             "and the check passes d = 4: use the d you are given.", attend(X, "inside", d=2).output),
            ("Recognised: the softmax ran down the columns (dim=0). Each query's row must sum to 1: use dim=-1.",
             torch.softmax(S / math.sqrt(d), 0) @ X),
        ])
        if message:
            print(message)
    return ok


def check_feature_heads(fn):
    """Exercise 2: fn(X) should make each of X's two features its own head (d_k = 1) and put the two
    heads' outputs side by side: ``feature_heads(X)[0]``."""
    g = torch.Generator().manual_seed(6)
    cases = [(cat_milk_it("sweet")[1],), (cat_milk_it("hungry")[1],),
             (torch.randn(6, 2, generator=g, dtype=torch.float64),)]
    ok = check_function(fn, lambda X: feature_heads(X)[0], cases, name="my_feature_heads")
    if not ok:
        X = cases[0][0]
        message = _diagnose(fn, cases[0], [
            ("Recognised: that is ONE head over both features (softmax(XXᵀ/√2)X), what the seed computes. "
             "Give each feature its own scores.", attend(X, "inside", d=2).output),
            ("Recognised: that is one head over both features with √4, the seed's single head.",
             attend(X, "inside", d=4).output),
            ("Recognised: both heads use the same weights (those of all features). Each head scores with "
             "its own feature: x[:, h:h+1] @ x[:, h:h+1].T.", attend(X, "none").output),
        ])
        if message:
            print(message)
    return ok
