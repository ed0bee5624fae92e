"""Notebook 05's two code exercises: the learner's function is run against the lesson's reference
by ``selfcheck.check_function``, which names a common mistake when it recognises one (the mistakes
are written out as functions: ``ATTEND_MISTAKES``, ``FEATURE_HEADS_MISTAKES``)."""
import math

import torch

from ...i18n import N_
from ...ui.selfcheck import check_function, mistake
from .compute import SEED_D_K, attend, feature_heads
from .data import cat_milk_it

__all__ = ["ATTEND_MISTAKES", "check_attend", "FEATURE_HEADS_MISTAKES", "check_feature_heads"]


def _cases_attend():
    g = torch.Generator().manual_seed(5)
    return [(cat_milk_it("sweet")[1], SEED_D_K), (cat_milk_it("hungry")[1], SEED_D_K),
            (torch.randn(5, 3, generator=g, dtype=torch.float64), 3)]


ATTEND_MISTAKES = [
    mistake(lambda X, d: attend(X, "after", d=d).output,
            N_("you divided after the softmax, as the seed's tables do. The √d belongs inside, on the scores.")),
    mistake(lambda X, d: attend(X, "none").output,
            N_("no scaling at all. Divide the scores by √d before the softmax.")),
    mistake(lambda X, d: torch.softmax(X @ X.T / d, -1) @ X, N_("you divided by d, not by √d.")),
    mistake(lambda X, d: attend(X, "inside", d=2).output,
            N_("you used √2 (the two visible features); the seed's vectors have dim = 4, so d_k = 4 "
               "and the check passes d = 4: use the d you are given.")),
    mistake(lambda X, d: torch.softmax(X @ X.T / math.sqrt(d), 0) @ X,
            N_("the softmax ran down the columns (dim=0). Each query's row must sum to 1: use dim=-1.")),
]



def check_attend(fn):
    """Exercise 1: fn(X, d) should return softmax(X Xᵀ / √d) X, self-attention with Q = K = V = X."""
    return check_function(fn, lambda X, d: attend(X, "inside", d=d).output, _cases_attend(), name="my_attend",
                          hints=ATTEND_MISTAKES)


FEATURE_HEADS_MISTAKES = [
    mistake(lambda X: attend(X, "inside", d=2).output,
            N_("that is ONE head over both features (softmax(XXᵀ/√2)X), what the seed computes. "
               "Give each feature its own scores.")),
    mistake(lambda X: attend(X, "inside", d=4).output,
            N_("that is one head over both features with √4, the seed's single head.")),
    mistake(lambda X: attend(X, "none").output,
            N_("both heads use the same weights (those of all features). Each head scores with "
               "its own feature: x[:, h:h+1] @ x[:, h:h+1].T.")),
]


def check_feature_heads(fn):
    """Exercise 2: fn(X) should make each of X's two features its own head (d_k = 1) and put the two
    heads' outputs side by side: ``feature_heads(X)[0]``."""
    g = torch.Generator().manual_seed(6)
    cases = [(cat_milk_it("sweet")[1],), (cat_milk_it("hungry")[1],),
             (torch.randn(6, 2, generator=g, dtype=torch.float64),)]
    return check_function(fn, lambda X: feature_heads(X)[0], cases, name="my_feature_heads",
                          hints=FEATURE_HEADS_MISTAKES)
