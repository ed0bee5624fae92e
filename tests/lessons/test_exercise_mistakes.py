"""The code exercises of notebooks 03–08 and 11–14 on the shared ``selfcheck.check_function``: each mistake a
lesson lists is recognised when a learner makes it, written here the way a learner would (loops,
view, permute: not the lesson's own functions), with its own message in full, once, and no other
mistake's message. A right answer gets no message at all."""
import math

import pytest
import torch

from attnlab.lessons import (
    nb03_multi_head_attention as nb03,
    nb04_self_attention_walkthrough as nb04,
    nb05_cat_milk_it as nb05,
    nb06_positional_encoding as nb06,
    nb07_masks_and_efficient_attention as nb07,
    nb08_bahdanau_attention as nb08,
    nb11_induction_heads as nb11,
    nb12_gpt as nb12,
    nb13_long_context as nb13,
    nb14_length_generalisation as nb14,
)


# ---- learner-style implementations, right unless a switch says which mistake to make
def split(X, H, *, how="right"):
    B, n, D = X.shape
    if how == "straight":
        return X.view(B, H, n, D // H)
    per_token = X.view(B, n, H, D // H)
    if how == "stopped":
        return per_token
    heads = per_token.permute(0, 2, 1, 3)
    return heads.reshape(B * H, n, D // H) if how == "folded" else heads


def mha(X, W_q, W_k, W_v, W_o, H, *, how="right"):
    B, n, _ = X.shape
    D = W_q.shape[1]
    d = D // H
    outs = []
    for h in range(H):
        cols = slice(h * d, (h + 1) * d)
        q, k, v = X @ W_q[:, cols], X @ W_k[:, cols], X @ W_v[:, cols]
        divisor = math.sqrt(D) if how == "sqrt D" else math.sqrt(d)
        outs.append(torch.softmax(q @ k.transpose(1, 2) / divisor, dim=2) @ v)    # (B, n, d)
    if how == "seed merge":
        merged = torch.stack(outs, 1).reshape(B, n, D)                            # (B, H, n, d) read as (B, n, D)
    else:
        merged = torch.cat(outs, dim=2)
    return merged if how == "no W_o" else merged @ W_o


def attention(Q, K, V, *, how="right"):
    d = Q.shape[-1]
    S = torch.einsum("...qd,...kd->...qk", Q, K)
    if how == "after":
        return torch.softmax(S, dim=-1) @ V / d ** 0.5
    S = {"none": S, "over d": S / d}.get(how, S / d ** 0.5)
    return torch.softmax(S, dim=-2 if how == "dim -2" else -1) @ V


def masked(S, mask, *, how="right"):
    if how == "inverted":
        mask = ~mask
    if how == "ignored":
        return torch.softmax(S, -1)
    if how == "-1e6":
        return torch.softmax(S.masked_fill(~mask, -1e6), -1)
    top = S.masked_fill(~mask, float("-inf")).amax(-1, keepdim=True).clamp_min(-1e30)   # the visible keys' max
    e = torch.exp((S - top).masked_fill(~mask, float("-inf")))
    total = e.sum(-1, keepdim=True)
    if how == "nan":
        return e / total                                                          # 0/0 on an empty row
    return e / torch.where(total == 0, torch.ones_like(total), total)


def attend(X, d, *, how="right"):
    S = X @ X.T
    if how == "after":
        return torch.softmax(S, 1) @ X / math.sqrt(d)
    divisor = {"none": 1.0, "over d": d, "sqrt 2": math.sqrt(2)}.get(how, math.sqrt(d))
    return torch.softmax(S / divisor, 0 if how == "dim 0" else 1) @ X


def feature_heads(X, *, how="right"):
    if how == "one head":
        return torch.softmax(X @ X.T / math.sqrt(2), 1) @ X
    if how == "sqrt 4":
        return torch.softmax(X @ X.T / 2, 1) @ X
    if how == "shared weights":
        w = torch.softmax(X @ X.T, 1)                                             # both features' scores
        return torch.cat([w @ X[:, :1], w @ X[:, 1:]], 1)
    return torch.cat([torch.softmax(X[:, h:h + 1] @ X[:, h:h + 1].T, 1) @ X[:, h:h + 1] for h in range(2)], 1)


def sinusoidal(n, d, *, how="right"):
    i = torch.arange(n, dtype=torch.float64)[:, None]
    j = torch.arange(d // 2, dtype=torch.float64)[None, :]
    angle = i * 10000.0 ** (-(j if how == "j/d" else 2 * j) / d)
    sin, cos = (angle.cos(), angle.sin()) if how == "swapped" else (angle.sin(), angle.cos())
    if how == "halves":
        return torch.cat([sin, cos], 1)
    P = torch.zeros(n, d, dtype=torch.float64)
    P[:, 0::2], P[:, 1::2] = sin, cos
    return P


def rope(x, i, *, how="right"):
    d = x.shape[0]
    theta = i * 10000.0 ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)
    if how == "one speed":
        theta = torch.full_like(theta, float(i))
    if how == "other way":
        theta = -theta
    if how == "halves":
        a, b = x[:d // 2], x[d // 2:]
        return torch.cat([a * theta.cos() + b * theta.sin(), -a * theta.sin() + b * theta.cos()])
    out = x.clone()
    out[0::2] = x[0::2] * theta.cos() + x[1::2] * theta.sin()
    out[1::2] = -x[0::2] * theta.sin() + x[1::2] * theta.cos()
    return out


def bottom_right(Tq, Tk, *, how="right"):
    mask = torch.zeros(Tq, Tk, dtype=torch.bool)
    for i in range(Tq):
        for j in range(Tk):
            if how == "top-left":
                mask[i, j] = j <= i
            elif how == "strict":
                mask[i, j] = j < i + Tk - Tq
            else:
                mask[i, j] = j <= i + Tk - Tq
    if how == "swapped":
        return bottom_right(Tk, Tq).T
    return mask


def scores(s, H, W_q, W_k, w_v, *, how="right"):
    if how == "no query":
        return torch.stack([w_v @ (W_k @ h) for h in H])
    pre = torch.stack([W_q @ s + W_k @ h for h in H])                             # (n, a)
    e = (pre if how == "no tanh" else torch.tanh(pre)) @ w_v
    return torch.softmax(e, 0) if how == "weights" else e


def context(outputs, weights, *, how="right"):
    if how == "seed":
        return torch.bmm(outputs.transpose(0, 1), weights).squeeze(2)
    if how == "mean":
        return outputs.mean(0)
    if how == "features":
        return torch.einsum("nbf,bn->nb", outputs, weights[..., 0]).T
    return torch.einsum("nbf,bn->bf", outputs, weights[..., 0])


def induction_score(pattern, L, *, how="right"):
    heads = pattern.shape[0]
    total = torch.zeros(heads, dtype=pattern.dtype)
    back = {"right": L - 1, "duplicate": L, "previous": 1, "sum": L - 1}[how]
    for t in range(L + 1, 2 * L + 1):
        total += pattern[:, t, t - back]
    return total if how == "sum" else total / L


def previous_token_head(T, sharpness, *, how="right"):
    W_Q = torch.eye(T) * (1.0 if how == "soft" else sharpness)
    W_K = torch.zeros(T, T)
    for s in range(T):
        target = {"right": s + 1, "soft": s + 1, "backwards": s - 1, "identity": s}[how]
        if 0 <= target < T:
            W_K[target, s] = 1.0
    return W_Q, W_K


def alibi_bias(heads, length, *, how="right"):
    bias = torch.zeros(heads, length, length, dtype=torch.float64)
    for h in range(heads):
        first = 0 if how == "from zero" else 1
        slope = 2.0 ** -(h + 1) if how == "halving" else 2.0 ** (-8 * (h + first) / heads)
        for i in range(length):
            for j in range(length):
                query, key = (j, i) if how == "transposed" else (i, j)
                if key <= query or how == "both sides":
                    bias[h, i, j] = (1 if how == "positive" else -1) * slope * abs(query - key)
    return bias


def top_p(probs, p, *, how="right"):
    pairs = [(probs[i].item(), i) for i in range(len(probs))]
    if how != "unsorted":
        pairs.sort(key=lambda pair: -pair[0])
    out = torch.zeros_like(probs)
    mass = 0.0
    for q, i in pairs:
        if how == "crossing" and mass + q >= p:
            break
        if how != "crossing" and mass >= p:
            break
        out[i] = q
        mass += q
    return out if how == "unnormalised" else out / out.sum()


def cache_bytes(layers, heads, kv_heads, d_model, length, bytes_per_number, *, how="right"):
    head_size = d_model if how == "d_model" else d_model // heads
    stored = heads if how == "query heads" else kv_heads
    per_position = (1 if how == "keys only" else 2) * stored * head_size
    return layers * per_position * length * (1 if how == "numbers" else bytes_per_number)


def slot(n, window, sinks, *, how="right"):
    if how == "all slots":
        return n % window
    if n < sinks and how != "sinks roll":
        return n
    rolling = window if how == "modulus w" else window - sinks
    if how == "no offset":
        return n % rolling
    return sinks + (n - sinks) % rolling


def latent_bytes(layers, latent, d_rope, length, bytes_per_number, *, how="right"):
    per_layer = latent if how == "no rope" else latent + d_rope
    per_layer *= 2 if how == "factor 2" else 1
    total = per_layer * length * (1 if how == "no layers" else layers)
    return total if how == "numbers" else total * bytes_per_number


# ---- (check, the lesson's list of mistakes, learner, mistake -> a phrase of its message)
EXERCISES = {
    "nb03 split": (nb03.check_split_heads, nb03.exercises.SPLIT_MISTAKES, split,
                   {"straight": "reshaped straight to", "stopped": "stopped at (B, n, H, D/H)",
                    "folded": "folded the heads into the batch"}),
    "nb03 multihead": (nb03.check_multihead, nb03.exercises.MULTIHEAD_MISTAKES, mha,
                       {"no W_o": "no W_o", "sqrt D": "scaled by √D", "seed merge": "seed 004's merge"}),
    "nb04 attention": (nb04.check_attention, nb04.exercises.ATTENTION_MISTAKES, attention,
                       {"none": "no ÷ √d_k", "over d": "divided by d_k, not by √d_k",
                        "dim -2": "softmax ran over the queries", "after": "after the softmax"}),
    "nb04 masked": (nb04.check_masked_softmax, nb04.exercises.MASKED_MISTAKES, masked,
                    {"nan": "got NaN", "-1e6": "uniform weights", "inverted": "wrong way round",
                     "ignored": "not applied"}),
    "nb05 attend": (nb05.check_attend, nb05.exercises.ATTEND_MISTAKES, attend,
                    {"after": "divided after the softmax", "none": "no scaling at all", "over d": "divided by d, not",
                     "sqrt 2": "you used √2", "dim 0": "ran down the columns"}),
    "nb05 feature heads": (nb05.check_feature_heads, nb05.exercises.FEATURE_HEADS_MISTAKES, feature_heads,
                           {"one head": "ONE head over both", "sqrt 4": "with √4",
                            "shared weights": "both heads use the same weights"}),
    "nb06 sinusoidal": (nb06.check_sinusoidal, nb06.exercises.SINUSOIDAL_MISTAKES, sinusoidal,
                        {"swapped": "sine and cosine are swapped", "j/d": "the exponent is j/D",
                         "halves": "all sines come first"}),
    "nb06 rope": (nb06.check_rope, nb06.exercises.ROPE_MISTAKES, rope,
                  {"other way": "turned the other way", "one speed": "every pair turned by i radians",
                   "halves": "GPT-NeoX layout"}),
    "nb07 bottom-right": (nb07.check_bottom_right, nb07.exercises.BOTTOM_RIGHT_MISTAKES, bottom_right,
                          {"top-left": "this is the top-left mask", "strict": "off by one",
                           "swapped": "rows and columns are swapped"}),
    "nb07 masked": (nb07.check_masked_softmax, nb07.exercises.MASKED_SOFTMAX_MISTAKES, masked,
                    {"nan": "the fully masked row is NaN", "-1e6": "the fully masked row is uniform",
                     "ignored": "the mask is ignored", "inverted": "the mask is inverted"}),
    "nb08 scores": (nb08.check_additive_scores, nb08.exercises.SCORE_MISTAKES, scores,
                    {"weights": "you returned the weights", "no tanh": "the tanh is missing",
                     "no query": "the query is missing"}),
    "nb08 context": (nb08.check_context, nb08.exercises.CONTEXT_MISTAKES, context,
                     {"seed": "this is seed 001's line", "mean": "you averaged over time",
                      "features": "you summed over the features"}),
    "nb11 induction score": (nb11.check_induction_score, nb11.exercises.INDUCTION_MISTAKES, induction_score,
                             {"duplicate": "duplicate-token head", "previous": "that is the previous-token score",
                              "sum": "you summed over the L queries"}),
    "nb11 previous-token head": (nb11.check_previous_token_head, nb11.exercises.PREVIOUS_TOKEN_MISTAKES,
                                 previous_token_head,
                                 {"backwards": "your key at s announces s − 1", "identity": "W_K = I",
                                  "soft": "only by a score of 1"}),
    "nb12 top-p": (nb12.check_top_p, nb12.exercises.TOP_P_MISTAKES, top_p,
                   {"crossing": "the character that crosses p is dropped", "unnormalised": "do not sum to 1",
                    "unsorted": "in token order"}),
    "nb14 ALiBi bias": (nb14.check_alibi_bias, nb14.exercises.ALIBI_MISTAKES, alibi_bias,
                        {"from zero": "you counted the heads from h = 0", "positive": "your bias is positive",
                         "both sides": "you penalised the keys after the query too", "halving": "your slopes halve",
                         "transposed": "your penalty sits above the diagonal"}),
    "nb12 cache bytes": (nb12.check_cache_bytes, nb12.exercises.CACHE_BYTES_MISTAKES, cache_bytes,
                         {"keys only": "the keys only", "query heads": "you used the query heads",
                          "d_model": "not d_model", "numbers": "the count of numbers"}),
    "nb13 ring slot": (nb13.check_ring_slot, nb13.exercises.RING_SLOT_MISTAKES, slot,
                       {"all slots": "you rolled over all the slots", "modulus w": "not window: take",
                        "sinks roll": "stays in slot n", "no offset": "(add it)"}),
    "nb13 latent bytes": (nb13.check_latent_bytes, nb13.exercises.LATENT_BYTES_MISTAKES, latent_bytes,
                          {"factor 2": "there is no factor 2", "no rope": "the rotated key is cached too",
                           "no layers": "multiply by the layers", "numbers": "the count of numbers"}),
}


def _learner(fn, how):
    def my_function(*args):
        return fn(*args, how=how)
    return my_function


def test_every_listed_mistake_has_a_learner_here():
    for name, (_, mistakes, _, phrases) in EXERCISES.items():
        messages = [h.message for h in mistakes]
        for phrase in phrases.values():
            assert sum(phrase in m for m in messages) == 1, (name, phrase)
        assert len(phrases) == len(messages), name


@pytest.mark.parametrize("name", EXERCISES)
def test_the_right_answer_passes_without_a_message(name, capsys):
    check, _, fn, _ = EXERCISES[name]
    assert check(_learner(fn, "right")) is True
    out = capsys.readouterr().out
    assert "cases match" in out and "Recognised" not in out and "Hint" not in out


@pytest.mark.parametrize("name,how", [(name, how) for name, ex in EXERCISES.items() for how in ex[3]])
def test_each_mistake_is_recognised_with_its_own_message(name, how, capsys):
    check, mistakes, fn, phrases = EXERCISES[name]
    assert check(_learner(fn, how)) is False
    out = capsys.readouterr().out
    message = next(h.message for h in mistakes if phrases[how] in h.message)
    assert out.count("    Recognised mistake: " + message + "\n") == 1, out
    others = [h.message for h in mistakes if h.message != message]
    assert not any(m in out for m in others), out
    said = [line.strip() for line in out.splitlines() if "Recognised mistake:" in line]
    assert all(s in ("Recognised mistake: " + message, ) or s.startswith("Recognised mistake: as under case")
               for s in said), said


def test_an_unknown_mistake_gets_the_report_but_no_recognised_message(capsys):
    assert nb07.check_masked_softmax(lambda s, m: torch.softmax(s, -1) * m) is False
    out = capsys.readouterr().out
    assert "values differ" in out and "Recognised" not in out
