"""The three "write it yourself" exercises of notebook 07: references, test cases, and the common
mistakes written out as functions (``BOTTOM_RIGHT_MISTAKES``, ``MASKED_SOFTMAX_MISTAKES``, ``TILE_HINTS``),
which ``selfcheck.check_function`` recognises in the learner's output (NaN matching NaN).

Exercise 3 is one step of the online softmax (在线 softmax), the update flash attention does for every
tile: the learner writes ``my_tile_update(m, l, acc, scores, v)`` and returns the new ``(m, l, acc)``;
the check compares it with ``tile_update`` (the same update as ``tiles.tiled_attention_steps`` and
``al.tiled_attention``) on tiles of the section 6 toy problem and a few others, and recognises the
usual mistakes (no rescale, the rescale upside down, the tile's max instead of the running max, ...)."""
import torch

from ...core import checks
from ...core.masking import causal_mask, masked_softmax
from ...i18n import N_
from ...ui.selfcheck import check_function, mistake, symptom
from .masks import causal_mask_bottom_right
from .tiles import toy_problem

__all__ = ["BOTTOM_RIGHT_MISTAKES", "check_bottom_right", "MASKED_SOFTMAX_MISTAKES", "check_masked_softmax",
           "tile_update", "TILE_HINTS", "tile_cases", "check_tile_update"]

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


# ---- exercise 3: one online-softmax tile update

@checks.arguments(m=checks.Tensor(2), l=checks.Tensor(2), acc=checks.Tensor(2), scores=checks.Tensor(2),
                   v=checks.Tensor(2))
def tile_update(m, l, acc, scores, v):
    """One online-softmax step for a block of queries and one tile of keys.

    m (bq, 1) running max, l (bq, 1) running denominator, acc (bq, dv) running numerator (-inf, 0, 0
    before the first tile); scores (bq, bk) the tile's scaled scores (-inf where masked); v (bk, dv).
    Returns the new (m, l, acc). After the last tile, acc / l is softmax(all scores) · V.
    """
    bq, bk = scores.shape
    dv = v.shape[1]
    for name, x, want in (("m", m, (bq, 1)), ("l", l, (bq, 1)), ("acc", acc, (bq, dv)), ("v", v, (bk, dv))):
        checks.same_kind(scores, "scores", x, name)
        if tuple(x.shape) != want:
            raise checks.error(name, f"shape {want} for scores {(bq, bk)} and v with {dv} columns", tuple(x.shape))
    m_new = torch.maximum(m, scores.amax(dim=-1, keepdim=True))                # (bq, 1)
    m_safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)   # a row with nothing visible yet
    p = torch.exp(scores - m_safe)                                              # (bq, bk), masked -> 0
    rescale = torch.exp(m - m_safe)                                             # (bq, 1), <= 1; 0 on the first tile
    return m_new, l * rescale + p.sum(dim=-1, keepdim=True), acc * rescale + p @ v


def _joined(update):
    """``update``'s (m, l, acc) as one (bq, 2 + dv) tensor, so that check_function can compare it."""
    def run(m, l, acc, scores, v):
        out = update(m, l, acc, scores, v)
        if not isinstance(out, (tuple, list)) or len(out) != 3:
            raise TypeError(f"expected three tensors (m, l, acc), got {type(out).__name__}"
                            + (f" of length {len(out)}" if isinstance(out, (tuple, list)) else ""))
        m_new, l_new, acc_new = (torch.as_tensor(x, dtype=acc.dtype) for x in out)
        if m_new.shape != m.shape or l_new.shape != l.shape or acc_new.shape != acc.shape:
            raise ValueError(f"expected shapes m {tuple(m.shape)}, l {tuple(l.shape)}, acc {tuple(acc.shape)}, got "
                             f"{tuple(m_new.shape)}, {tuple(l_new.shape)}, {tuple(acc_new.shape)}")
        return torch.cat([m_new, l_new, acc_new], dim=-1)
    return run


def _no_acc_rescale(m, l, acc, s, v):
    m_new, l_new, _ = tile_update(m, l, acc, s, v)
    m_safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, l_new, acc + torch.exp(s - m_safe) @ v


def _no_l_rescale(m, l, acc, s, v):
    m_new, _, acc_new = tile_update(m, l, acc, s, v)
    m_safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, l + torch.exp(s - m_safe).sum(-1, keepdim=True), acc_new


def _inverted_rescale(m, l, acc, s, v):
    m_new = torch.maximum(m, s.amax(-1, keepdim=True))
    p = torch.exp(s - m_new)
    rescale = torch.exp(m_new - m).nan_to_num(0.0, posinf=0.0)                 # the first tile: nothing to rescale
    return m_new, l * rescale + p.sum(-1, keepdim=True), acc * rescale + p @ v


def _tile_max(m, l, acc, s, v):
    t = s.amax(-1, keepdim=True)                                               # forgets the earlier tiles' max
    p = torch.exp(s - t)
    rescale = torch.exp(m - t)
    return t, l * rescale + p.sum(-1, keepdim=True), acc * rescale + p @ v


def _normalised_acc(m, l, acc, s, v):
    m_new, l_new, acc_new = tile_update(m, l, acc, s, v)
    return m_new, l_new, acc_new / l_new


def _no_max(m, l, acc, s, v):
    p = torch.exp(s)
    return torch.maximum(m, s.amax(-1, keepdim=True)), l + p.sum(-1, keepdim=True), acc + p @ v


TILE_HINTS = [
    mistake(_joined(_no_acc_rescale),
            N_("acc is not rescaled: when the max rises, the old numerator was computed against the old m. "
               "Multiply acc by exp(m − m_new) before adding p @ v, as you do for l.")),
    mistake(_joined(_no_l_rescale),
            N_("l is not rescaled: the old denominator was computed against the old m. Multiply it by exp(m − m_new) "
               "before adding the tile's row sums.")),
    mistake(_joined(_inverted_rescale),
            N_("the rescale is upside down: it is exp(m − m_new), old minus new, which is ≤ 1 (the old terms shrink).")),
    mistake(_joined(_tile_max),
            N_("m is the tile's own max: the running max is max(m, the tile's max), so it never goes down.")),
    mistake(_joined(_normalised_acc),
            N_("acc is divided by l: keep the unnormalised sum Σ exp(s − m)·v and divide only once, after the last tile.")),
    mistake(_joined(_no_max),
            N_("exp(scores) without subtracting the max: it overflows for large scores, and l and acc must be sums of "
               "exp(s − m_new), rescaled when m changes.")),
    symptom(lambda out, m, l, acc, s, v: bool((out[:, :1] < m).any()),
            N_("your m went down: the running max can only rise or stay.")),
]


def tile_cases():
    """(m, l, acc, scores, v) cases: the toy problem's query block 0 on tiles 1, 2 and 4 (query 0's max
    rises on tile 2, from −1.998 to 0.828, and not on tile 4), a masked score, and a random block with
    3 queries and dv = 2."""
    q, k, v = toy_problem()
    s = (q[:2] / 2.0) @ k.T                                                     # (2, 8), d = 4: ÷ √4
    start = (torch.full((2, 1), float("-inf"), dtype=s.dtype), torch.zeros(2, 1, dtype=s.dtype),
             torch.zeros(2, 1, dtype=s.dtype))
    after1 = tile_update(*start, s[:, 0:2], v[0:2])
    after3 = tile_update(*tile_update(*after1, s[:, 2:4], v[2:4]), s[:, 4:6], v[4:6])
    masked = s[:, 2:4].clone()
    masked[1, 0] = float("-inf")                                                # query 1 may not see key 2
    g = torch.Generator().manual_seed(7)
    m3, acc3 = torch.randn(3, 1, generator=g, dtype=s.dtype), torch.randn(3, 2, generator=g, dtype=s.dtype)
    return [start + (s[:, 0:2], v[0:2]), after1 + (s[:, 2:4], v[2:4]), after3 + (s[:, 6:8], v[6:8]),
            after1 + (masked, v[2:4]),
            (m3, torch.rand(3, 1, generator=g, dtype=s.dtype) + 1, acc3,
             3 * torch.randn(3, 4, generator=g, dtype=s.dtype), torch.randn(4, 2, generator=g, dtype=s.dtype))]


def check_tile_update(fn):
    """Check the learner's ``fn(m, l, acc, scores, v) -> (m, l, acc)`` against ``tile_update``; prints a
    report per case and the recognised mistake, returns True when every case matches."""
    name = getattr(fn, "__name__", "my_tile_update")
    learner = _joined(fn) if callable(fn) else fn
    return check_function(learner, _joined(tile_update), tile_cases(), name=name, atol=1e-9, rtol=1e-9,
                          hints=TILE_HINTS)
