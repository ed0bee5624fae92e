"""The two "write it yourself" exercises of notebook 08: references, test cases, and the common
mistakes written out as functions (``SCORE_MISTAKES``, ``CONTEXT_MISTAKES``), which
``selfcheck.check_function`` recognises in the learner's output."""
import torch

from ...core import checks
from ...i18n import N_
from ...ui.selfcheck import check_function, mistake

__all__ = [
    "additive_scores", "context", "SCORE_MISTAKES", "check_additive_scores", "CONTEXT_MISTAKES", "check_context"
]


@checks.arguments(s=checks.Tensor(1), H=checks.Tensor(2), W_q=checks.Tensor(2), W_k=checks.Tensor(2), w_v=checks.Tensor(1))
def additive_scores(s, H, W_q, W_k, w_v):
    """e_j = w_v · tanh(W_q s + W_k h_j) for every row h_j of H.

    s (dq,) the query, H (n, dk) the keys, W_q (a, dq), W_k (a, dk), w_v (a,) -> e (n,).
    """
    for name, x in (("H", H), ("W_q", W_q), ("W_k", W_k), ("w_v", w_v)):
        checks.same_kind(s, "s", x, name)
    a = w_v.shape[0]
    for name, x, want in (("W_q", W_q, (a, s.shape[0])), ("W_k", W_k, (a, H.shape[1]))):
        if tuple(x.shape) != want:
            raise checks.error(name, f"shape {want} (w_v has {a} entries, s {s.shape[0]}, H rows of {H.shape[1]})",
                               tuple(x.shape))
    return torch.tanh(W_q @ s + H @ W_k.T) @ w_v                                    # (n, a) @ (a,) -> (n,)


@checks.arguments(outputs=checks.Tensor(3), weights=checks.Tensor(3))
def context(outputs, weights):
    """c = Σ_j α_j h_j for each sequence: outputs (n, B, 2h) as nn.GRU returns them, weights (B, n, 1)
    -> (B, 2h). The corrected line of seed 001."""
    checks.same_kind(outputs, "outputs", weights, "weights")
    n, B, _two_h = outputs.shape
    if tuple(weights.shape) != (B, n, 1):
        raise checks.error("weights", f"shape ({B}, {n}, 1) for outputs (n, B, 2h) = {tuple(outputs.shape)}",
                           tuple(weights.shape))
    return torch.bmm(outputs.permute(1, 2, 0), weights).squeeze(2)                # (B, 2h, n) @ (B, n, 1)



def _score_cases():
    g = torch.Generator().manual_seed(0)
    cases = []
    for n, dq, dk, a in ((11, 64, 64, 32), (4, 3, 5, 2), (1, 2, 2, 1)):
        cases.append((torch.randn(dq, generator=g), torch.randn(n, dk, generator=g), torch.randn(a, dq, generator=g),
                      torch.randn(a, dk, generator=g), torch.randn(a, generator=g)))
    return cases


SCORE_MISTAKES = [
    mistake(lambda s, H, W_q, W_k, w_v: torch.softmax(additive_scores(s, H, W_q, W_k, w_v), -1),
            N_("you returned the weights α (a softmax, they sum to 1). The score e_j is the number before the softmax.")),
    mistake(lambda s, H, W_q, W_k, w_v: (W_q @ s + H @ W_k.T) @ w_v,
            N_("the tanh is missing: without it the score is linear, w_v·W_q s + w_v·W_k h_j, and the query's part is "
               "the same for every j, so the softmax would ignore the query entirely.")),
    mistake(lambda s, H, W_q, W_k, w_v: H @ W_k.T @ w_v,
            N_("the query is missing (seed 001's slip): e_j must depend on s through W_q s.")),
]


def check_additive_scores(fn):
    """Check the learner's ``fn(s, H, W_q, W_k, w_v)`` against ``additive_scores``."""
    return check_function(fn, additive_scores, _score_cases(), hints=SCORE_MISTAKES)


def _context_cases():
    g = torch.Generator().manual_seed(1)
    cases = []
    for n, B, two_h in ((11, 2, 32), (6, 3, 6), (1, 1, 4)):                    # the second has 2h = n
        w = torch.softmax(torch.randn(B, n, 1, generator=g), dim=1)
        cases.append((torch.randn(n, B, two_h, generator=g), w))
    return cases


CONTEXT_MISTAKES = [                          # seed 001's line runs only where 2h = n (the second case)
    mistake(lambda o, w: torch.bmm(o.transpose(0, 1), w).squeeze(2),
            N_("this is seed 001's line: with 2h = n it runs, but it sums over the features, not over time. "
               "Put time last on the left: outputs.permute(1, 2, 0) is (B, 2h, n).")),
    mistake(lambda o, w: o.mean(0), N_("you averaged over time: that is plain average pooling. Weight each h_j by α_j.")),
    mistake(lambda o, w: (o * w.transpose(0, 1)).sum(-1).T,
            N_("you summed over the features: the sum runs over time j, c = Σ_j α_j h_j, one vector of size 2h per "
               "sequence.")),
]


def check_context(fn):
    """Check the learner's ``fn(outputs (n, B, 2h), weights (B, n, 1))`` against ``context`` (B, 2h)."""
    return check_function(fn, context, _context_cases(), hints=CONTEXT_MISTAKES)
