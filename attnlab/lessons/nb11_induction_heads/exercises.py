"""The two "write it yourself" exercises of notebook 11: references, cases, and the mistakes learners make,
written out as functions that ``selfcheck.check_function`` recognises in a wrong answer.

1. The induction score of each head on one repeat (``check_induction_score``).
2. The previous-token head's query and key weights on one-hot positions, by hand
   (``check_previous_token_head``: the pattern they give is compared).
"""
import torch

from ...core import checks
from ...i18n import N_
from ...ui.selfcheck import check_function, mistake
from .circuits import scores_of

__all__ = ["INDUCTION_MISTAKES", "PREVIOUS_TOKEN_MISTAKES", "check_induction_score", "check_previous_token_head",
           "previous_token_pattern"]


def _reference_induction(pattern, L):
    return scores_of([pattern[None]], torch.tensor([L])).induction[0]


def _picked(pattern, L, offset, reduce="mean"):
    t = torch.arange(L + 1, 2 * L + 1)
    w = pattern[:, t, t + offset]                                     # (H, L)
    return w.mean(-1) if reduce == "mean" else w.sum(-1)


INDUCTION_MISTAKES = [
    mistake(lambda p, L: _picked(p, L, -L), N_(
        "you measured the weight on the earlier occurrence of the same token (t − L): that is a duplicate-token "
        "head. The induction head looks one place further, at the token that came next: t − L + 1.")),
    mistake(lambda p, L: _picked(p, L, -1), N_(
        "you measured the weight on t − 1: that is the previous-token score. The induction score reads "
        "t − L + 1, one place after the current token's first occurrence.")),
    mistake(lambda p, L: _picked(p, L, -L + 1, "sum"), N_(
        "you summed over the L queries of the second copy: divide by L to get the mean weight.")),
]


def _cases():
    g = torch.Generator().manual_seed(11)
    cases = []
    for L, heads in ((3, 2), (6, 4), (10, 3)):
        T = 2 * L + 4
        logits = torch.randn(heads, T, T, generator=g, dtype=torch.float64) * 2
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        cases.append((logits.masked_fill(~causal, float("-inf")).softmax(-1), L))
    return cases


def check_induction_score(fn):
    """Check the learner's ``fn(pattern, L)``: ``pattern`` (heads, n, n), one sequence BOS, x, x, ... with
    len(x) = L; returns (heads,) the mean weight that queries t = L+1 .. 2L put on t - L + 1. Prints a report."""
    checks.function(fn, "fn")
    return check_function(fn, _reference_induction, _cases(), name="my_induction_score", hints=INDUCTION_MISTAKES)


def previous_token_pattern(W_Q, W_K):
    """The causal attention pattern (T, T) of a head whose query at t is W_Q[:, t] and key at s is W_K[:, s]
    (inputs are one-hot positions; scores q·k, no scaling)."""
    scores = W_Q.T @ W_K
    T = scores.shape[0]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return scores.masked_fill(~causal, float("-inf")).softmax(-1)


def _reference_weights(T, sharpness):
    W_Q = sharpness * torch.eye(T, dtype=torch.float64)
    W_K = torch.eye(T, dtype=torch.float64).roll(1, dims=0)      # column s holds e_(s+1): "I come before s+1"
    W_K[0, T - 1] = 0.0
    return W_Q, W_K


def _as_pattern(fn):
    """The learner's (W_Q, W_K) turned into the pattern they give; anything else passed on for the report."""
    def pattern(T, sharpness):
        out = fn(T, sharpness)
        if isinstance(out, (tuple, list)) and len(out) == 2 and all(isinstance(w, torch.Tensor) for w in out):
            return previous_token_pattern(out[0].double(), out[1].double())
        return out
    return pattern


def _wrong(W_K_of, sharp=True):
    def pattern(T, sharpness):
        return previous_token_pattern((sharpness if sharp else 1.0) * torch.eye(T, dtype=torch.float64), W_K_of(T))
    return pattern


def _shift(T, by):
    W = torch.zeros(T, T, dtype=torch.float64)
    for s in range(T):
        if 0 <= s + by < T:
            W[s + by, s] = 1.0
    return W


PREVIOUS_TOKEN_MISTAKES = [
    mistake(_wrong(lambda T: _shift(T, -1)), N_(
        "your key at s announces s − 1, so the query at t looks for the key at t + 1, which the causal mask "
        "hides: every row is spread evenly. The key at s must say \"s + 1 comes after me\": W_K[s + 1, s] = 1.")),
    mistake(_wrong(lambda T: _shift(T, 0)), N_(
        "your keys are the positions themselves (W_K = I), so each query finds its own position: the diagonal. "
        "Shift the keys by one: W_K[s + 1, s] = 1.")),
    mistake(_wrong(lambda T: _shift(T, 1), sharp=False), N_(
        "the right key wins, but only by a score of 1, so the softmax spreads the weight: multiply the queries "
        "by sharpness (W_Q = sharpness · I).")),
]


def check_previous_token_head(fn):
    """Check the learner's ``fn(n, sharpness)`` -> (W_Q, W_K), each (n, n) on n one-hot positions: the pattern
    they give (``previous_token_pattern``) must put (almost) all of row t on t - 1. Prints a report."""
    checks.function(fn, "fn")
    cases = [(6, 20.0), (12, 20.0), (5, 8.0)]
    return check_function(_as_pattern(fn), lambda T, s: previous_token_pattern(*_reference_weights(T, s)), cases,
                          name="my_previous_token_head", hints=PREVIOUS_TOKEN_MISTAKES)
