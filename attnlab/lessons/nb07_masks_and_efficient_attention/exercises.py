"""The two "write it yourself" exercises of notebook 07: references, test cases, and the common
mistakes written out as functions (``BOTTOM_RIGHT_MISTAKES``, ``MASKED_SOFTMAX_MISTAKES``), which
``selfcheck.check_function`` recognises in the learner's output (NaN matching NaN)."""
import torch

from ...core.masking import causal_mask, masked_softmax
from ...i18n import N_
from ...ui.selfcheck import check_function, mistake
from .masks import causal_mask_bottom_right

__all__ = ["BOTTOM_RIGHT_MISTAKES", "check_bottom_right", "MASKED_SOFTMAX_MISTAKES", "check_masked_softmax"]

BOTTOM_RIGHT_MISTAKES = [
    mistake(causal_mask, N_("this is the top-left mask (al.causal_mask): query i sees keys 0…i. Bottom-right shifts "
                            "every row right by Tk − Tq, so the last query sees every key.")),
    mistake(lambda q, k: torch.arange(k)[None, :] < torch.arange(q)[:, None] + (k - q),
            N_("off by one: each query must also see its own key, j <= i + (Tk − Tq), not j < ...")),
    mistake(lambda q, k: causal_mask_bottom_right(k, q).T,
            N_("rows and columns are swapped: the mask has one row per query, shape (Tq, Tk).")),
]



def check_bottom_right(fn):
    """Check the learner's ``fn(num_queries, num_keys)`` against ``causal_mask_bottom_right``."""
    cases = [(2, 5), (3, 3), (1, 4), (4, 6), (5, 3)]
    return check_function(fn, causal_mask_bottom_right, cases, hints=BOTTOM_RIGHT_MISTAKES)


MASKED_SOFTMAX_MISTAKES = [
    mistake(lambda s, m: torch.softmax(s.masked_fill(~m, float("-inf")), dim=-1),
            N_("the fully masked row is NaN: filling with −inf gives exp(−inf)/Σ exp(−inf) = 0/0. Set that row to 0.")),
    mistake(lambda s, m: torch.softmax(s.masked_fill(~m, -1e6), dim=-1),
            N_("the fully masked row is uniform: with a finite fill (−1e6) all its scores are equal. It should be 0.")),
    mistake(lambda s, m: torch.softmax(s, dim=-1), N_("the mask is ignored: masked keys must get weight 0.")),
    mistake(lambda s, m: torch.softmax(s.masked_fill(m, float("-inf")), dim=-1).nan_to_num(0.0),
            N_("the mask is inverted: True means *may attend*, so fill where the mask is False (~mask).")),
]


def check_masked_softmax(fn):
    """Check the learner's ``fn(scores, mask)`` (True = may attend) against ``al.masked_softmax``:
    softmax over the visible keys, an all-masked row all zeros."""
    scores = torch.tensor([[0.3, -1.2, 0.8], [0.3, -1.2, 0.8], [2.0, 1.0, 0.5]])
    mask = torch.tensor([[True, True, False], [False, False, False], [True, True, True]])
    g = torch.Generator().manual_seed(0)
    big = torch.randn(2, 4, 6, generator=g)
    big_mask = torch.rand(2, 4, 6, generator=g) > 0.4
    cases = [(scores, mask), (big, big_mask), (100 * big, big_mask), (scores[:1], mask[:1])]
    return check_function(fn, lambda s, m: masked_softmax(s, m), cases, hints=MASKED_SOFTMAX_MISTAKES)
