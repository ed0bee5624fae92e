"""Statistics of attention scores on random vectors: why dot products are divided by sqrt(d_k).

Queries and keys are drawn with independent N(0, 1) entries from a ``torch.Generator``, scored by
one of the scoring functions (评分函数) of ``attnlab.core.scoring`` or by one of seed 004's other
rescalings, and the softmax's response is measured: the variance of the scores, the entropy (熵)
of each row of weights, and the size of the softmax's gradient.

Shape letters: ``Tq`` queries, ``Tk`` (= n) keys, ``d`` the query/key size d_k.
"""
import math

import torch

from ...core import checks
from ...core.masking import masked_softmax
from ...core.scoring import (
    AdditiveScores,
    additive_scores,
    cosine_scores,
    cosine_scores_unchecked,
    dot_scores,
    gaussian_scores,
    gaussian_scores_unchecked,
)
from ...i18n import N_, gettext as _

__all__ = [
    "METHODS", "random_queries_keys", "seeded_additive", "scores", "row_entropy", "softmax_jacobian_norm",
    "centre_rows", "score_statistics", "histogram_density", "key_choice", "scaling_hint", "variance_mistakes",
    "scores_unchecked", "row_entropy_unchecked", "centre_rows_unchecked", "histogram_density_unchecked",
    "key_choice_unchecked",
]

#: The methods ``scores`` knows, with a label for plots and menus (English; show it as ``_(METHODS[m])``).
METHODS = {
    "dot": N_("q·k (no scaling)"),
    "scaled_dot": "q·k / √d_k",
    "over_d": "q·k / d_k",
    "over_cbrt_d": "q·k / ∛d_k",
    "constant": N_("q·k / τ (constant τ = 8)"),
    "long_sequence": "q·k / √(d_k·n)",
    "normalised": N_("QKᵀ / ‖QKᵀ‖ (whole matrix)"),
    "row_normalised": N_("each row / its norm"),
    "cosine": N_("cosine (pre-normalised q, k)"),
    "gaussian": N_("Gaussian −‖q−k‖²/2σ²"),
    "additive": N_("additive w_vᵀ tanh(W_q q + W_k k)"),
}


@checks.arguments(generator=checks.Optional(checks.Generator()))
def random_queries_keys(num_queries, num_keys, d_k, *, generator=None, dtype=torch.float64):
    """Queries (Tq, d) and keys (Tk, d) with independent N(0, 1) entries, drawn from ``generator``."""
    num_queries = checks.count(num_queries, "num_queries", low=1)
    num_keys = checks.count(num_keys, "num_keys", low=1)
    d_k = checks.count(d_k, "d_k", low=1)
    checks.fits((num_queries + num_keys, d_k), 8, "num_queries, num_keys, d_k", "queries and keys")
    q = torch.randn(num_queries, d_k, generator=generator, dtype=dtype)     # (Tq, d)
    k = torch.randn(num_keys, d_k, generator=generator, dtype=dtype)        # (Tk, d)
    return q, k


@checks.arguments(query_size=checks.Int(1), key_size=checks.Int(1), num_hiddens=checks.Int(1),
                   seed=checks.Int(0))
def seeded_additive(query_size, key_size, num_hiddens, *, seed=0, dtype=torch.float64):
    """An ``AdditiveScores`` whose weights come from a seeded generator, not the global one.

    Each weight is uniform on (-1/sqrt(fan_in), 1/sqrt(fan_in)), the distribution of nn.Linear's
    default initialisation, so the module is untrained but typical. The global RNG is left as it was.
    """
    checks.fits((query_size + key_size + 1, num_hiddens), 8, "query_size, key_size, num_hiddens", "weights")
    with torch.random.fork_rng(devices=[]):      # nn.Linear's own init draws from the global RNG
        module = AdditiveScores(query_size, key_size, num_hiddens).to(dtype)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for layer in (module.W_q, module.W_k, module.w_v):
            bound = 1.0 / math.sqrt(layer.in_features)
            layer.weight.copy_((torch.rand(layer.weight.shape, generator=g, dtype=dtype) * 2 - 1) * bound)
    return module


def scores(queries, keys, method="scaled_dot", *, tau=8.0, sigma=1.0, additive=None):
    """Scores (..., Tq, Tk) of queries (..., Tq, d) against keys (..., Tk, d) by ``method``.

    method: a key of METHODS. ``tau`` is the constant temperature of "constant", ``sigma`` the
    Gaussian's width, ``additive`` the AdditiveScores module that "additive" needs. "long_sequence"
    divides by sqrt(d_k * n) with n = Tk (seed 004 writes sqrt(T)); "normalised" divides the whole
    (Tq, Tk) matrix by its Frobenius norm, as seed 004 writes; "row_normalised" each row by its norm.
    """
    checks.choice(method, "method", METHODS)
    if method == "cosine":
        return cosine_scores(queries, keys)
    if method == "gaussian":
        return gaussian_scores(queries, keys, sigma=sigma)
    if method == "additive":
        checks.instance(additive, "additive", AdditiveScores, "an AdditiveScores module for method 'additive'")
        return additive(queries, keys)
    s = dot_scores(queries, keys)                                  # (..., Tq, Tk)
    d, n = queries.shape[-1], keys.shape[-2]
    if method == "normalised":
        return s / s.norm(dim=(-2, -1), keepdim=True).clamp_min(1e-12)
    if method == "row_normalised":
        return s / s.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    tau = checks.real(tau, "tau", positive=True)
    return _divided(s, method, d, n, tau)


def _divided(s, method, d, n, tau):
    divisor = {"dot": 1.0, "scaled_dot": math.sqrt(d), "over_d": float(d), "over_cbrt_d": d ** (1 / 3),
               "constant": tau, "long_sequence": math.sqrt(d * n)}[method]
    return s / divisor


def scores_unchecked(queries, keys, method="scaled_dot", *, tau=8.0, sigma=1.0, additive=None):
    """``scores`` without its checks, for (Tq, d), (Tk, d) float tensors of one kind and a method of METHODS
    (the Play panel, on the samples it drew and the method its menu offers)."""
    if method == "cosine":
        return cosine_scores_unchecked(queries, keys)
    if method == "gaussian":
        return gaussian_scores_unchecked(queries, keys, sigma)
    if method == "additive":
        return additive_scores(queries, keys, additive.W_q, additive.W_k, additive.w_v)
    s = queries @ keys.transpose(-2, -1)                           # (..., Tq, Tk)
    d, n = queries.shape[-1], keys.shape[-2]
    if method == "normalised":
        return s / s.norm(dim=(-2, -1), keepdim=True).clamp_min(1e-12)
    if method == "row_normalised":
        return s / s.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    return _divided(s, method, d, n, tau)


def row_entropy(weights):
    """Entropy -sum_j w_j log w_j (nats) of each row: (..., Tq, Tk) -> (..., Tq); 0 log 0 = 0.

    log(Tk) for uniform weights, 0 for one-hot weights.
    """
    checks.tensor(weights, "weights", min_dim=1)
    return row_entropy_unchecked(weights)


def row_entropy_unchecked(weights):
    """``row_entropy`` without its check (weights the Play panel computed)."""
    return -torch.special.xlogy(weights, weights).sum(-1)


def softmax_jacobian_norm(weights):
    """Frobenius norm of the softmax's Jacobian d w / d logits = diag(w) - w wᵀ, per row.

    (..., Tq, Tk) -> (..., Tq). Closed form: sqrt(sum w² - 2 sum w³ + (sum w²)²). It tends to 0
    for one-hot rows: a saturated softmax passes almost no gradient back to the scores.
    """
    checks.tensor(weights, "weights", min_dim=1)
    s2 = (weights ** 2).sum(-1)
    s3 = (weights ** 3).sum(-1)
    return (s2 - 2 * s3 + s2 ** 2).clamp_min(0).sqrt()


@checks.arguments(scores_=checks.Tensor(min_dim=1))
def centre_rows(scores_):
    """Each score minus its row's mean: what the softmax sees (it ignores a shift of a whole row)."""
    return centre_rows_unchecked(scores_)


def centre_rows_unchecked(scores_):
    """``centre_rows`` without its check (scores the Play panel computed)."""
    return scores_ - scores_.mean(-1, keepdim=True)


@checks.arguments(d_k=checks.Int(1), num_queries=checks.Int(1), num_keys=checks.Int(1), seed=checks.Int(0))
def score_statistics(d_k, method="scaled_dot", *, num_queries=256, num_keys=64, temperature=1.0,
                     seed=0, tau=8.0, sigma=1.0, additive=None):
    """Score and weight statistics for random N(0, 1) queries and keys of size d_k.

    Returns a dict of floats: "variance" (of all scores), "row_variance" (of scores minus their
    row mean, averaged over rows), "entropy" (mean row entropy of softmax(scores / temperature),
    nats), "normalised_entropy" (entropy / log n: 1 = uniform, 0 = one-hot), "max_weight" (mean of
    each row's largest weight) and "gradient" (mean softmax_jacobian_norm).
    """
    checks.fits((num_queries, num_keys + d_k), 8, "num_queries, num_keys, d_k", "scores and queries")
    g = torch.Generator().manual_seed(seed)
    q, k = random_queries_keys(num_queries, num_keys, d_k, generator=g)
    if method == "additive" and additive is None:
        additive = seeded_additive(d_k, d_k, 16, seed=seed)
    s = scores(q, k, method, tau=tau, sigma=sigma, additive=additive).detach()   # (Tq, Tk)
    w = masked_softmax(s, temperature=temperature)                               # (Tq, Tk)
    h = row_entropy(w)                                                           # (Tq,)
    return {
        "variance": s.var().item(),
        "row_variance": centre_rows(s).pow(2).sum(-1).div(max(num_keys - 1, 1)).mean().item(),
        "entropy": h.mean().item(),
        "normalised_entropy": (h.mean() / math.log(num_keys)).item() if num_keys > 1 else 0.0,
        "max_weight": w.max(-1).values.mean().item(),
        "gradient": softmax_jacobian_norm(w).mean().item(),
    }


@checks.arguments(values=checks.Tensor(floating=False))
def histogram_density(values, edges):
    """Density heights of ``values`` on the bins between ``edges`` (1-D, increasing).

    Unlike a normalised histogram, values outside the edges still count in the total, so the
    area under the heights is the fraction of values that fall inside. Returns (len(edges) - 1,).
    """
    checks.tensor(edges, "edges", min_dim=1)
    if edges.dim() != 1 or edges.numel() < 2 or not bool((edges[1:] > edges[:-1]).all()):
        raise checks.error("edges", "a 1-D increasing tensor of at least 2 values", edges)
    return histogram_density_unchecked(values, edges)


def histogram_density_unchecked(values, edges):
    """``histogram_density`` without its checks (the Play panel's scores and its own edges)."""
    v = values.detach().reshape(-1).to(edges.dtype)
    inside = (v >= edges[0]) & (v < edges[-1])
    idx = torch.bucketize(v[inside], edges, right=True) - 1                     # bin of each value
    counts = torch.bincount(idx, minlength=edges.numel() - 1).to(edges.dtype)
    return counts / (max(v.numel(), 1) * (edges[1:] - edges[:-1]))


def key_choice(queries, keys, method="scaled_dot", **kwargs):
    """How many queries give their largest score to each key: (Tq, d), (Tk, d) -> counts (Tk,) (int64).

    The key with the largest score is the key with the largest weight, at any temperature. ``kwargs``
    go to ``scores`` (tau, sigma, additive).
    """
    checks.tensor(queries, "queries", min_dim=2)
    checks.tensor(keys, "keys", min_dim=2)
    if queries.dim() != 2 or keys.dim() != 2:
        raise checks.error("queries, keys", "2-D (Tq, d) and (Tk, d)",
                           f"shapes {tuple(queries.shape)} and {tuple(keys.shape)}")
    return _choice(scores(queries, keys, method, **kwargs).detach(), keys)


def key_choice_unchecked(queries, keys, method="scaled_dot", **kwargs):
    """``key_choice`` without its checks (the Play panel's samples and menu's method)."""
    return _choice(scores_unchecked(queries, keys, method, **kwargs).detach(), keys)


def _choice(s, keys):
    return torch.bincount(s.argmax(-1), minlength=keys.shape[0])               # s: (Tq, Tk)


@checks.arguments(queries=checks.Tensor(min_dim=2), keys=checks.Tensor(min_dim=2))
def scaling_hint(fn, queries, keys):
    """Recognise the common mistakes in a learner's scaled dot product ``fn(queries, keys)``.

    Compares with q·k / √d_k on (..., Tq, d), (..., Tk, d) and returns a sentence: right, or which
    divisor was used instead (none, d_k, ∛d_k, ‖·‖ ...), or that it is not a rescaled dot product.
    """
    d = queries.shape[-1]
    want = dot_scores(queries, keys) / math.sqrt(d)
    try:
        got = torch.as_tensor(fn(queries, keys)).to(want.dtype)
    except NotImplementedError:
        return _("Not written yet.")
    except Exception as exc:  # reported to the learner
        return _("It raised {error}: {message}").format(error=type(exc).__name__, message=exc)
    if got.shape != want.shape:
        if got.shape == want.transpose(-2, -1).shape:
            return _("Shape {shape} is (Tk, Tq): use queries @ keys.transpose(-2, -1), not keys @ queries…").format(
                shape=tuple(got.shape))
        return _("Shape {shape}, expected (..., Tq, Tk) = {want}.").format(shape=tuple(got.shape),
                                                                          want=tuple(want.shape))
    if torch.allclose(got, want, rtol=1e-6, atol=1e-9):
        return _("Right: q·k / √d_k.")
    ratio = (got * want).sum() / (want * want).sum()            # least-squares factor got ≈ ratio · want
    if torch.allclose(got, ratio * want, rtol=1e-6, atol=1e-9):
        known = {_("divided by nothing (plain q·k)"): math.sqrt(d), _("divided by d_k"): 1 / math.sqrt(d),
                 _("divided by ∛d_k"): math.sqrt(d) / d ** (1 / 3), _("divided by d_k²"): d ** -1.5}
        for what, factor in known.items():
            if abs(ratio.item() - factor) < 1e-6 * factor:
                return _("Your scores are {ratio:.3g} × the right ones: you {what}; divide q·k by √d_k = {root:.3g}."
                         ).format(ratio=ratio.item(), what=what, root=math.sqrt(d))
        return _("Your scores are {ratio:.3g} × the right ones: the right shape, the wrong divisor.").format(
            ratio=ratio.item())
    return _("Not a rescaled q·k: check the product (queries @ keys.transpose(-2, -1)) before dividing.")


def variance_mistakes(d_k=64):
    """The wrong answers a learner gives for Var(q·k) (q, k with d_k independent N(0, 1) entries),
    each computed from its mistake, paired with why it is wrong: ``selfcheck.numeric(mistakes=...)``.

    The right answer is d_k · Var(qᵢkᵢ) = d_k · 1.
    """
    d_k = checks.count(d_k, "d_k", low=2)
    one_term = 1.0 * 1.0                          # Var(qᵢkᵢ) = E[qᵢ²] E[kᵢ²] for independent, mean-0 qᵢ, kᵢ
    return [
        (math.sqrt(d_k * one_term), _("that is the standard deviation, √{d_k}. The variance is its square.").format(
            d_k=d_k)),
        (one_term, _("that is the variance of one term qᵢkᵢ (or of q·k/√d_k, after scaling). q·k adds {d_k} "
                     "independent terms, and the variances of independent terms add.").format(d_k=d_k)),
        (0.0, _("that is the mean of q·k, not its variance: the products cancel on average, not in spread.")),
        (d_k ** 2 * one_term, _("that is {d_k}², the variance of {d_k} · q₁k₁, one term repeated {d_k} times. "
                                "The {d_k} terms are independent, so their variances add.").format(d_k=d_k)),
    ]
