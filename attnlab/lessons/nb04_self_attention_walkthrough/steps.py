"""Self-attention (自注意力) step by step, as in seed 000's "Thinking Machines" example, and the cost
of CNN, RNN and self-attention layers (Vaswani et al. 2017, Table 1).

Shape legend: n tokens, D model width, d_k query/key size, dv value size.

    steps = self_attention_steps(X, W_Q, W_K, W_V)    # the six steps, vector by vector
    layer_cost("RNN", n=100, d=512)                   # n d^2 multiply-adds (constants dropped)
"""
import math
import numbers
import re

import numpy as np
import torch

from ...core import checks
from ...core.masking import causal_unchecked, compute_dtype, masked_softmax, stable_softmax
from ...i18n import N_, gettext as _
from ...ui import text

__all__ = [
    "self_attention_steps", "short", "step_table", "plain_label", "step_table_text", "describe_step",
    "self_attention_steps_unchecked", "sentence_attention_unchecked", "step_table_unchecked",
    "step_table_text_unchecked", "describe_step_unchecked",
    "SENTENCE", "sentence_attention", "LAYER_TYPES", "COMPLEXITY", "layer_cost", "path_length", "crossover",
    "complexity_table"
]


def self_attention_steps(X, W_Q, W_K, W_V, mask=None):
    """The six steps of self-attention for every query word, one vector at a time (seed 000).

    Args:
        X: (n, D) one embedding per word. W_Q, W_K: (D, d_k). W_V: (D, dv).
        mask: optional bool (n, n), True = query i may attend to key j.
    Returns:
        dict with "q", "k" (n, d_k), "v" (n, dv)          step 1: x_i·W
             "scores" (n, n)   scores[i, j] = q_i·k_j        step 2
             "scaled" (n, n)   scores / sqrt(d_k)            step 3
             "weights" (n, n)  softmax of each row           step 4 (masked keys get 0)
             "weighted" (n, n, dv)  weights[i, j] * v_j      step 5
             "output" (n, dv)  sum over j of weighted[i, j]  step 6
             "X" (the input), "d_k" (int), "sqrt_d_k" (float), "mask" (as given).
    """
    checks.tensor(X, "X", min_dim=2)
    if X.dim() != 2:
        raise checks.error("X", "shape (n, D)", tuple(X.shape))
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        checks.tensor(W, name, min_dim=2)
        checks.same_kind(X, "X", W, name)
        if W.dim() != 2 or W.shape[0] != X.shape[1]:
            raise checks.error(name, f"shape ({X.shape[1]}, size) to match X (n, D)", tuple(W.shape))
    if W_K.shape[1] != W_Q.shape[1]:
        raise checks.error("W_K", f"{W_Q.shape[1]} columns to match W_Q (q·k needs equal sizes)", W_K.shape[1])
    if mask is not None:
        checks.bool_mask(mask, "mask", (X.shape[0], X.shape[0]))
    return self_attention_steps_unchecked(X, W_Q, W_K, W_V, mask)


def self_attention_steps_unchecked(X, W_Q, W_K, W_V, mask=None):
    """``self_attention_steps`` without its checks (the Play panel, on the example it generated)."""
    n, d_k = X.shape[0], W_Q.shape[1]
    q = torch.stack([x @ W_Q for x in X])                                       # (n, d_k)
    k = torch.stack([x @ W_K for x in X])                                       # (n, d_k)
    v = torch.stack([x @ W_V for x in X])                                       # (n, dv)
    scores = torch.tensor([[torch.dot(q[i], k[j]).item() for j in range(n)] for i in range(n)],
                          dtype=X.dtype)                                         # (n, n)
    scaled = scores / math.sqrt(d_k)                                             # (n, n)
    weights = stable_softmax(scaled.to(compute_dtype(scaled.dtype)), 1.0, mask).to(scaled.dtype)  # masked_softmax
    weighted = weights[:, :, None] * v[None, :, :]                               # (n, n, dv)
    output = weighted.sum(dim=1)                                                 # (n, dv)
    return {"X": X, "q": q, "k": k, "v": v, "scores": scores, "scaled": scaled, "weights": weights,
            "weighted": weighted, "output": output, "d_k": d_k, "sqrt_d_k": math.sqrt(d_k), "mask": mask}


_STEPS = checks.Dict()
_WORDS = checks.Items(checks.Text(), min_len=1)


@checks.arguments(vector=checks.Tensor(1, floating=False), n=checks.Int(1), fmt=checks.Text())
def short(vector, n=4, fmt="{:.2f}"):
    """The first ``n`` entries of a vector and "…" if there are more: "[-0.96, -1.39, -0.20, 0.62, …]"."""
    return _short(vector, n, fmt)


def _short(vector, n=4, fmt="{:.2f}"):
    values = [fmt.format(float(x)) for x in vector[:n]]
    return "[" + ", ".join(values) + (", …]" if len(vector) > n else "]")


@checks.arguments(steps=_STEPS, words=_WORDS, query=checks.Int(0), step=checks.Int(0, 6, why="the six steps"))
def step_table(steps, words, query=0, step=6):
    """The steps for one query word as a table: rows of (step number, label, [cell per word]).

    Rows for steps after ``step`` show "?". Mirrors the seed's figure: columns are the words,
    row 1 their q, k, v; rows 2–5 what query ``query`` does with each word; row 6 the output.
    """
    n = len(words)
    if not 0 <= query < n:
        raise checks.error("query", f"an index in [0, {n})", query)
    return step_table_unchecked(steps, words, query, step)


def step_table_unchecked(steps, words, query=0, step=6):
    """``step_table`` without its checks (the Play panel, on steps it computed and a step its slider bounds)."""
    n = len(words)
    i, s = query, steps
    sub = f"$_{{{i + 1}}}$"                           # the query's number as a subscript: q$_{1}$ is q₁
    rows = [
        (0, _("x (embedding)"), [_short(x) for x in s["X"]]),
        (1, "q = x $W^Q$", [_short(s["q"][j]) for j in range(n)]),
        (1, "k = x $W^K$", [_short(s["k"][j]) for j in range(n)]),
        (1, "v = x $W^V$", [_short(s["v"][j]) for j in range(n)]),
        (2, _("score {q}·k$_j$").format(q="q" + sub), [f"{s['scores'][i, j]:.2f}" for j in range(n)]),
        (3, f"÷ $\\sqrt{{d_k}}$ = {s['sqrt_d_k']:g}", [f"{s['scaled'][i, j]:.3f}" if _visible(s, i, j)
                                                     else _("−∞ (masked)") for j in range(n)]),
        (4, _("weight $a_j$ (softmax)"), [f"{s['weights'][i, j]:.3f}" for j in range(n)]),
        (5, "$a_j$ v$_j$", [_short(s["weighted"][i, j]) for j in range(n)]),
        (6, _("sum {z}").format(z="z" + sub), [_short(s["output"][i])] + [""] * (n - 1)),
    ]
    return [(k, label, [c if k <= step else "?" for c in cells]) for k, label, cells in rows]


_SUBSCRIPT_OF = dict(zip("0123456789aeijkmnosvx", "₀₁₂₃₄₅₆₇₈₉ₐₑᵢⱼₖₘₙₒₛᵥₓ"))


def _subscript(text):
    """``text`` in Unicode subscripts ("1" -> "₁", "j" -> "ⱼ", as the notebook's prose writes them), or
    "_" + text where a character has none."""
    if all(c in _SUBSCRIPT_OF for c in text):
        return "".join(_SUBSCRIPT_OF[c] for c in text)
    return "_" + text


def plain_label(label):
    """A ``step_table`` label without mathtext, in the symbols of the notebook's prose:
    "÷ $\\sqrt{d_k}$ = 8" -> "÷ √d_k = 8", "q = x $W^Q$" -> "q = x W^Q", "score q$_{1}$·k$_j$" -> "score q₁·kⱼ",
    "$a_j$ v$_j$" -> "aⱼ vⱼ"."""
    label = label.replace("$\\sqrt{d_k}$", "√d_k")                     # d_k as the prose writes it

    def plain_math(m):
        return re.sub(r"_\{(\w+)\}|_(\w)", lambda sub: _subscript(sub.group(1) or sub.group(2)), m.group(1))
    return re.sub(r"\$([^$]*)\$", plain_math, label)


@checks.arguments(table=checks.Items(min_len=1), words=_WORDS, title=checks.Optional(checks.Text()))
def step_table_text(table, words, *, current=None, title=None):
    """``step_table`` rows as a plain-text table (the words across, the steps down), for the text
    under a live figure: the current step's rows (default: the last step without "?") marked ▶,
    an optional ``title`` line on top. Returns a str of aligned lines."""
    if any(len(row) != len(words) for _, _, row in table):
        raise checks.error("table", f"rows of {len(words)} cells, one per word",
                           sorted({len(row) for _, _, row in table}))
    return step_table_text_unchecked(table, words, current=current, title=title)


def step_table_text_unchecked(table, words, *, current=None, title=None):
    """``step_table_text`` without its checks (the Play panel, on the table ``step_table_unchecked`` made)."""
    shown = [n for n, _, row in table if all(c != "?" for c in row)]
    current = max(shown) if current is None and shown else current
    labels = [(f"{n}  " if n else "   ") + plain_label(label) for n, label, _ in table]
    # Columns padded by wide and narrow characters (text.pad), so they line up in Chinese in a browser too.
    lw = text.room(labels)
    widths = [text.room([words[j], *(row[j] for _n, _cells, row in table)]) for j in range(len(words))]
    lines = [] if title is None else [title]
    lines.append(("  " + text.pad("", lw) + "  " + "  ".join(text.pad(w, cw) for w, cw in zip(words, widths))).rstrip())
    for label, (n, _cells, row) in zip(labels, table):
        mark = "▶ " if n == current and n and all(c != "?" for c in row) else "  "
        lines.append((mark + text.pad(label, lw) + "  " + "  ".join(text.pad(c, cw) for c, cw in zip(row, widths))).rstrip())
    return "\n".join(lines)


def _visible(steps, i, j):
    return steps.get("mask") is None or bool(steps["mask"][i, j])


@checks.arguments(steps=_STEPS, words=_WORDS, step=checks.Int(1, 6, why="the six steps"), query=checks.Int(0))
def describe_step(steps, words, step, query=0):
    """One or two lines of numbers saying what step ``step`` (1..6) did for query ``query``, in the
    prose's symbols: q₁·k₂, the weights aⱼ, aⱼ vⱼ, z₁."""
    if query >= len(words):
        raise checks.error("query", f"an index in [0, {len(words)})", query)
    return describe_step_unchecked(steps, words, step, query)


def describe_step_unchecked(steps, words, step, query=0):
    """``describe_step`` without its checks (the Play panel, on steps it computed and a step its slider bounds)."""
    s, i, n = steps, query, len(words)
    w, qi = words[i], "q" + _subscript(str(i + 1))
    sub = [_subscript(str(j + 1)) for j in range(n)]
    if step <= 1:
        return _("Step 1: each word's x times W^Q, W^K, W^V gives q, k, v of {d_k} numbers "
                 "(first 4 shown). {q} = {vector}").format(d_k=s['d_k'], q=qi, vector=_short(s['q'][i]))
    if step == 2:
        return _("Step 2: scores of {word}: {scores}").format(word=w, scores=", ".join(
            f"{qi}·k{sub[j]} ({words[j]}) = {s['scores'][i, j]:.2f}" for j in range(n)))
    if step == 3:
        return _("Step 3: ÷ √{d_k} = {sqrt_d_k:g}: {scaled}").format(d_k=s['d_k'], sqrt_d_k=s['sqrt_d_k'], scaled=", ".join(
            f"{s['scores'][i, j]:.2f} / {s['sqrt_d_k']:g} = {s['scaled'][i, j]:.3f}" if _visible(s, i, j)
            else _("{word} is masked (−∞)").format(word=words[j]) for j in range(n)))
    if step == 4:
        raw = masked_softmax(s["scores"][i], None if s.get("mask") is None else s["mask"][i])
        return _("Step 4: softmax, the weights aⱼ: {weights} (they sum to 1). Without ÷ √d_k they would be "
                 "{unscaled}").format(
            weights=", ".join(f"a{sub[j]} ({words[j]}) = {s['weights'][i, j]:.3f}" for j in range(n)),
            unscaled=", ".join(f"{x:.3f}" for x in raw.tolist()))
    if step == 5:
        return _("Step 5: {products}").format(products="; ".join(
            f"a{sub[j]} v{sub[j]} = {s['weights'][i, j]:.3f} × v{sub[j]} = {_short(s['weighted'][i, j], 3)}"
            for j in range(n)))
    z = "z" + _subscript(str(i + 1))
    return _("Step 6: {sum}").format(sum=f"{z} = " + " + ".join(f"a{sub[j]} v{sub[j]}" for j in range(n)) + " = " +
                                     " + ".join(f"{s['weights'][i, j]:.3f}·v{sub[j]}" for j in range(n)) +
                                     f" = {_short(s['output'][i])}")


SENTENCE = ("The", "cat", "sat", "on", "the", "mat")


@checks.arguments(causal=checks.Flag(), mask_pad_queries=checks.Flag())
def sentence_attention(d_k=64, *, causal=False, padding=0, mask_pad_queries=False, seed=0):
    """Self-attention weights on "The cat sat on the mat" with its last ``padding`` words made <pad>.

    Pad keys are always masked (a padding mask from the valid length 6 - padding); with
    ``mask_pad_queries`` the pad queries' rows are masked too, so they get all-zero weights.
    Returns (words tuple of 6, weights (6, 6)).
    """
    padding = checks.count(padding, "padding")
    if padding > len(SENTENCE):
        raise checks.error("padding", f"at most {len(SENTENCE)}", padding)
    return sentence_attention_unchecked(d_k, causal=causal, padding=padding, mask_pad_queries=mask_pad_queries,
                                        seed=seed)


def sentence_attention_unchecked(d_k=64, *, causal=False, padding=0, mask_pad_queries=False, seed=0):
    """``sentence_attention`` with causal, padding and mask_pad_queries unchecked (the Play panel's controls
    bound them); d_k and seed are checked once, by ``toy_sentence``."""
    from ...core.attention import attend_unchecked
    from .data import toy_sentence

    n = len(SENTENCE)
    words = SENTENCE[:n - padding] + ("<pad>",) * padding
    d = toy_sentence(words, d_k=d_k, seed=seed)
    valid = torch.arange(n) < n - padding                                        # (n,) True = real word
    mask = valid[None, :] & (valid[:, None] if mask_pad_queries else True)       # (n, n) or (1, n)
    q, k, v = d["X"] @ d["W_Q"], d["X"] @ d["W_K"], d["X"] @ d["W_V"]            # (n, d_k) each
    if causal:
        mask = mask & causal_unchecked(n, n)                                     # (n, n)
    _, weights = attend_unchecked(q, k, v, mask, 1.0 / math.sqrt(q.shape[-1]))   # (n, n)
    return words, weights


# ---- the cost of a layer: Vaswani et al. 2017, Table 1 (constants dropped) ----

LAYER_TYPES = ("self-attention", "RNN", "CNN")
COMPLEXITY = {   # layer -> (complexity per layer, sequential operations, maximum path length)
    # in the notebook's letters: D the vector size (model width), κ the kernel width (the paper's d and k)
    "self-attention": ("O(n²·D)", "O(1)", "O(1)"),
    "RNN": ("O(n·D²)", "O(n)", "O(n)"),
    "CNN": ("O(κ·n·D²)", "O(1)", N_("O(n/κ) contiguous; O(log_κ n) dilated")),
}
_LAYER_NAMES = {"self-attention": N_("self-attention")}        # shown with _(); RNN and CNN stay as they are


def _kind(kind):
    return checks.choice(kind, "kind", LAYER_TYPES)


def _lengths(n):
    """n: a number or an array of sequence lengths (>= 1) -> float or float array."""
    if not isinstance(n, numbers.Real) or isinstance(n, bool):
        checks.Array((0, 1))(n, "n")
    n = np.asarray(n, dtype=float) if not np.isscalar(n) else checks.real(n, "n")
    if not np.all(np.isfinite(n)) or np.any(n < 1):
        raise checks.error("n", "sequence lengths >= 1", n if np.ndim(n) == 0 else 'min ' + str(np.min(n)))
    return n


@checks.arguments(d=checks.Int(1, 10 ** 6), k=checks.Int(1, 1000))
def layer_cost(kind, n, d, k=3):
    """Multiply-adds of one layer mapping n vectors of size d to n vectors, constants dropped.

    self-attention n²·d (Q K^T and weights·V; the projections add n·d², not counted, as in the
    paper), RNN n·d² (one d×d matrix times a vector per step), CNN k·n·d² (kernel of width k).
    ``n`` may be a number or a numpy array; returns the same kind.
    """
    kind = _kind(kind)
    n = _lengths(n)
    return {"self-attention": n * n * d, "RNN": n * d * d, "CNN": k * n * d * d}[kind]


@checks.arguments(k=checks.Int(2, 1000), dilated=checks.Flag())
def path_length(kind, n, k=3, *, dilated=False):
    """Maximum path length between two positions, constants dropped: RNN n, self-attention 1,
    CNN n/k stacked layers (contiguous kernels) or log_k n (dilated convolutions), at least 1."""
    kind = _kind(kind)
    n = _lengths(n)
    if kind == "RNN":
        return n
    if kind == "self-attention":
        return n * 0 + 1.0
    return np.maximum(np.log(n) / np.log(k) if dilated else n / k, 1.0)


@checks.arguments(d=checks.Int(1, 10 ** 6), k=checks.Int(1, 1000))
def crossover(d, k=3, versus="RNN"):
    """The sequence length n above which self-attention (n²d) costs more than ``versus``:
    n = d against an RNN (n d²), n = k·d against a CNN (k n d²)."""
    checks.choice(versus, "versus", ("RNN", "CNN"), expected="'RNN' or 'CNN'")
    return {"RNN": d, "CNN": k * d}[versus]


def complexity_table():
    """Table 1 of the paper as text (plus the contiguous-kernel CNN path length from its §4)."""
    head = (_("layer"), _("complexity per layer"), _("sequential operations"), _("maximum path length"))
    rows = [head] + [(_(_LAYER_NAMES.get(kind, kind)),) + tuple(_(c) for c in COMPLEXITY[kind])   # O(1) has no entry
                     for kind in LAYER_TYPES]
    widths = [text.room([r[c] for r in rows]) for c in range(4)]
    return "\n".join("  ".join(text.pad(cell, w) for cell, w in zip(r, widths)).rstrip() for r in rows)
