"""Masks beyond al.causal_mask, and what a fully masked row gives (notebook 07).

Masks are bool with True = may attend, shape (Tq, Tk), like ``al.causal_mask``. Two alignments of
a causal mask when Tq != Tk:

* top-left (``al.causal_mask``, torch's ``is_causal``): query i sees keys 0..i;
* bottom-right (``causal_mask_bottom_right``): query i sees keys 0..i + (Tk - Tq), so the last
  query sees every key. That is what decoding with a KV cache needs: the Tq new queries are the
  last Tq positions of a sequence of length Tk.
"""
import torch

from ...core import checks
from ...core.masking import causal_mask, local_mask, masked_softmax, sequence_mask
from ...i18n import N_, gettext as _

__all__ = [
    "MASK_KINDS", "SPARSE_PATTERNS", "causal_mask_bottom_right", "block_mask", "make_mask",
    "masked_row_conventions", "global_mask", "random_mask", "log_sparse_mask", "lsh_buckets", "lsh_mask",
    "sparse_patterns", "visible_keys_mistakes", "make_mask_unchecked"
]

_SIDE = checks.Int(0, 1 << 15, why="a side of a bool mask of at most 1 GiB")

# The names are values (make_mask's kind, sparse_patterns' keys); marked N_ so a menu or a title can
# show them in the learner's language with _(name).
MASK_KINDS = (N_("causal top-left"), N_("causal bottom-right"), N_("padding"), N_("local"), N_("block"))
SPARSE_PATTERNS = (N_("local"), "Longformer", N_("random"), "BigBird", N_("log-sparse"), "Reformer (LSH)")
_ROW_CONVENTIONS = (N_("uniform"), N_("nan"), N_("zero"))    # masked_row_conventions' keys, for the catalog


@checks.arguments(num_queries=_SIDE, num_keys=_SIDE)
def causal_mask_bottom_right(num_queries, num_keys, *, device=None):
    """Bool (Tq, Tk): query i may attend to key j when j <= i + (Tk - Tq) (bottom-right aligned).

    Equal to ``al.causal_mask`` when Tq == Tk. When Tq > Tk the first Tq - Tk queries see no key.
    Same as torch's ``torch.nn.attention.bias.causal_lower_right``.
    """
    i = torch.arange(num_queries, device=device)[:, None]                     # (Tq, 1)
    j = torch.arange(num_keys, device=device)[None, :]                        # (1, Tk)
    return j <= i + (num_keys - num_queries)                                  # (Tq, Tk)


@checks.arguments(num_queries=_SIDE, num_keys=_SIDE)
def block_mask(num_queries, num_keys, block_size, *, device=None):
    """Bool (Tq, Tk): query i may attend to key j when both sit in the same block, i // b == j // b.

    Block (block-diagonal) sparse attention: each query sees the b keys of its own block only.
    """
    b = checks.count(block_size, "block_size", low=1)
    i = torch.arange(num_queries, device=device)[:, None] // b
    j = torch.arange(num_keys, device=device)[None, :] // b
    return i == j


@checks.arguments(num_queries=_SIDE, num_keys=_SIDE, window=checks.Int(0), block_size=checks.Int(1))
def make_mask(kind, num_queries, num_keys, *, window=2, valid_len=None, block_size=4):
    """One of MASK_KINDS as a bool (Tq, Tk) mask, for galleries and panels.

    window: for "local" (|i - j| <= window); valid_len: for "padding" (keys >= valid_len are pads,
    default Tk - 2); block_size: for "block".
    """
    checks.choice(kind, "kind", MASK_KINDS, expected=f"one of {MASK_KINDS}")
    return make_mask_unchecked(kind, num_queries, num_keys, window=window, valid_len=valid_len, block_size=block_size)


def make_mask_unchecked(kind, num_queries, num_keys, *, window, valid_len, block_size):
    """``make_mask`` for checked arguments (the Play's update calls this)."""
    if kind == "causal top-left":
        return causal_mask(num_queries, num_keys)
    if kind == "causal bottom-right":
        return causal_mask_bottom_right(num_queries, num_keys)
    if kind == "padding":
        n = max(num_keys - 2, 0) if valid_len is None else valid_len
        return sequence_mask(torch.tensor([n]), num_keys)[0].expand(num_queries, num_keys)
    if kind == "local":
        return local_mask(num_queries, num_keys, window)
    if kind == "block":
        return block_mask(num_queries, num_keys, block_size)
    raise AssertionError(kind)        # refused above


def masked_row_conventions(scores, mask):
    """Weights of softmax(scores) under a mask in the three conventions used in practice.

    Args:
        scores: float (..., Tk); mask: bool broadcastable to scores, True = may attend.
    Returns:
        dict with
        "uniform": masked scores filled with -1e6, then softmax (d2l): an all-masked row is uniform;
        "nan": masked scores filled with -inf, then softmax: an all-masked row is NaN;
        "zero": attnlab and torch >= 2.5 SDPA: an all-masked row is all zeros.
    """
    checks.tensor(scores, "scores", min_dim=1)
    checks.bool_mask(mask, "mask", scores.shape)
    return {
        "uniform": torch.softmax(scores.masked_fill(~mask, -1e6), dim=-1),
        "nan": torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1),
        # not torch.where(any_key, nan, 0): its backward multiplies 0 by NaN and gives NaN
        "zero": masked_softmax(scores, mask),
    }


@checks.arguments(num_queries=_SIDE, num_keys=_SIDE, global_tokens=checks.Items())
def global_mask(num_queries, num_keys, global_tokens, *, device=None):
    """Bool (Tq, Tk): True where the query or the key is one of ``global_tokens`` (positions that see
    every key and are seen by every query, like [CLS] in Longformer and BigBird)."""
    tokens = list(global_tokens)
    for t in tokens:
        checks.count(t, "global_tokens")
        if t >= max(num_queries, num_keys):
            raise checks.error("global_tokens", f"positions below {max(num_queries, num_keys)}", t)
    g = torch.tensor(tokens, dtype=torch.long, device=device)
    rows = torch.isin(torch.arange(num_queries, device=device), g)[:, None]                # (Tq, 1)
    cols = torch.isin(torch.arange(num_keys, device=device), g)[None, :]                   # (1, Tk)
    return rows | cols


@checks.arguments(num_queries=_SIDE, num_keys=_SIDE, generator=checks.Generator())
def random_mask(num_queries, num_keys, num_random, *, generator):
    """Bool (Tq, Tk): each query sees ``num_random`` keys drawn without replacement (BigBird's random
    part). The draw comes from ``generator`` (a torch.Generator), so it is reproducible."""
    r = checks.count(num_random, "num_random")
    if r > num_keys:
        raise checks.error("num_random", f"at most num_keys={num_keys}", r)
    picks = torch.rand(num_queries, num_keys, generator=generator).argsort(dim=-1)[:, :r]   # (Tq, r)
    mask = torch.zeros(num_queries, num_keys, dtype=torch.bool)
    mask[torch.arange(num_queries)[:, None], picks] = True
    return mask


@checks.arguments(length=_SIDE)
def log_sparse_mask(length):
    """Bool (n, n), a fixed pattern: query i sees itself and the keys i - 1, i - 2, i - 4, i - 8, ...
    (LogSparse, Li et al. 2019): about log2(n) keys per query, O(n log n) in all; causal."""
    n = checks.count(length, "length", low=1)
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    gap = i - j                                                                             # (n, n)
    power_of_two = (gap > 0) & ((gap & (gap - 1)) == 0)
    return (gap == 0) | power_of_two


@checks.arguments(num_buckets=checks.Int(2, 4096), generator=checks.Generator())
def lsh_buckets(x, num_buckets, *, generator):
    """Reformer's angular LSH: bucket of each row of x (n, d) = argmax of [x R, -x R] for a random
    R (d, num_buckets / 2). Vectors at a small angle tend to share a bucket. Returns long (n,)."""
    checks.tensor(x, "x", min_dim=2)
    if x.dim() != 2:
        raise checks.error("x", "a 2-D (n, d) tensor", f"shape {tuple(x.shape)}")
    b = num_buckets
    if b % 2:
        raise checks.error("num_buckets", "an even number", b)
    R = torch.randn(x.shape[-1], b // 2, generator=generator, dtype=x.dtype)                # (d, b/2)
    xr = x @ R                                                                              # (n, b/2)
    return torch.cat([xr, -xr], dim=-1).argmax(dim=-1)


@checks.arguments(num_buckets=checks.Int(2, 4096), generator=checks.Generator())
def lsh_mask(x, num_buckets, *, generator):
    """Bool (n, n): position i may attend to j when x_i and x_j hash to the same LSH bucket. The
    pattern depends on the content x (Reformer shares queries and keys), so it is not fixed."""
    buckets = lsh_buckets(x, num_buckets, generator=generator)
    return buckets[:, None] == buckets[None, :]


@checks.arguments(length=_SIDE, num_buckets=checks.Int(2, 4096), seed=checks.Int(0))
def sparse_patterns(length=16, *, window=1, global_tokens=(0,), num_random=2, num_buckets=4, x=None, seed=0):
    """The masks of seed 002's sparse-attention families, (n, n) each, by name (SPARSE_PATTERNS).

    local: |i - j| <= window; Longformer: local + global tokens; random: num_random keys per query;
    BigBird: local + global + random; log-sparse: a fixed pattern (``log_sparse_mask``);
    Reformer (LSH): same bucket of x (default: seeded random vectors, (n, 8)). Seeded by ``seed``.
    """
    n = checks.count(length, "length", low=1)
    g = torch.Generator().manual_seed(seed)
    local = local_mask(n, n, window)
    glob = global_mask(n, n, global_tokens)
    rand = random_mask(n, n, num_random, generator=g)
    if x is None:
        x = torch.randn(n, 8, generator=g, dtype=torch.float64)
    return {"local": local, "Longformer": local | glob, "random": rand, "BigBird": local | glob | rand,
            "log-sparse": log_sparse_mask(n), "Reformer (LSH)": lsh_mask(x, num_buckets, generator=g)}


def visible_keys_mistakes(query, num_queries, num_keys):
    """The wrong answers a learner gives for how many keys ``query`` sees under the top-left causal
    mask (``al.causal_mask``) with Tq queries and Tk > Tq keys, each computed from its mistake and
    paired with why it is wrong: ``selfcheck.numeric(mistakes=...)``."""
    num_queries = checks.count(num_queries, "num_queries", low=1)
    num_keys = checks.count(num_keys, "num_keys", low=num_queries + 1)
    query = checks.count(query, "query")
    if query >= num_queries:
        raise checks.error("query", f"a query index below num_queries = {num_queries}", query)
    i, j = torch.arange(num_queries)[:, None], torch.arange(num_keys)[None, :]
    top_left = causal_mask(num_queries, num_keys)
    return [
        (int((j < i)[query].sum()), _("you left out its own key (j < i), or counted the queries from 1. Top-left, "
                                      "query i sees keys 0…i, its own key included.")),
        (int(causal_mask_bottom_right(num_queries, num_keys)[query].sum()),
            _("that is the bottom-right alignment (the KV cache's). Top-left ignores that there are more keys than "
              "queries.")),
        (int((~top_left)[query].sum()), _("that counts the keys it may not see (the masked ones). Count the visible "
                                          "keys.")),
    ]
