"""Probe: feed bad and extreme-but-valid inputs to every public callable of the core, plotting,
selfcheck and the lessons (nb00-nb09, bench/probe_lessons.py), and count what happens, like the
table of issue 15.

    PYTHONPATH=$PWD .venv/bin/python bench/probe_bad_inputs.py [--cases] [--lessons-only]

Each case says what a good library does with it:
  raise    a bad argument: ValueError/TypeError whose message names the argument;
  finite   an extreme but valid input: a finite, correct result (or a clear error naming it);
  report   a learner's mistake fed to a self-check: no exception, a plain-words report, False;
  bounded  a size that is too big: a clear error naming the argument (and the limit), a warning
           with the numbers and a capped result, or a result made within the time/memory budget.
Outcomes (rows of the table):
  clear    ValueError/TypeError naming the argument (or, for finite/report/bounded, the good result)
  other    another exception, or an argument not named
  torch    a RuntimeError from deep in torch
  silent   silent NaN/inf, wrong result, or a bad input accepted
  hang     more than TIMEOUT seconds, MemoryError, an allocator error or an oversized figure
The process runs under a 4 GB address-space limit and a per-case alarm, so nothing can eat the machine.
Works on any commit of attnlab (a missing name counts as "other").
"""
import contextlib
import io
import os
import resource
import signal
import sys
import warnings
from collections import Counter

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch

import attnlab as al
from attnlab.lessons.nb01_kernel_regression import data as _nb01_data
from attnlab.lessons.nb04_self_attention_walkthrough import data as _nb04_data
from attnlab.lessons.nb05_cat_milk_it import data as _nb05_data
from attnlab.ui import plotting, selfcheck

try:   # helpers that moved from plotting into their lessons (issue 10): probed where they live
    from attnlab.lessons import nb01_kernel_regression as _nb01, nb06_positional_encoding as _nb06
except ImportError:
    _nb01 = _nb06 = plotting


class _Moved:
    def __getattr__(self, name):
        return getattr(plotting, name, None) or getattr(_nb01, name, None) or getattr(_nb06, name)


moved = _Moved()

# Warm up torch's lazy imports (sympy for shape checks) before any alarm can interrupt them.
try:
    torch.broadcast_shapes((2,), (3,))
except RuntimeError:
    pass
import sympy  # noqa: F401  (imported now, before any alarm can interrupt it)

TIMEOUT = 5.0                    # seconds per case
MAX_PIXELS = 4000                # a figure side beyond this counts as a huge allocation
torch.set_num_threads(1)
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout


signal.signal(signal.SIGALRM, _alarm)

CASES = []     # (group, label, kind, arg, thunk, check)


def case(group, label, kind, arg, thunk, check=None):
    CASES.append((group, label, kind, arg, thunk, check))


def t(*rows, dtype=torch.float32):
    return torch.tensor(rows, dtype=dtype)


def rnd(*shape, dtype=torch.float32, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(dtype)


def finite(x):
    if isinstance(x, tuple):
        return all(finite(y) for y in x if y is not None)
    return isinstance(x, torch.Tensor) and bool(torch.isfinite(x.double()).all())


def close(want, atol=1e-3):
    def check(got):
        got = got[0] if isinstance(got, tuple) else got
        return finite(got) and torch.allclose(got.double(), torch.as_tensor(want, dtype=torch.float64), atol=atol)
    return check


def with_env(name, value, fn):
    def thunk():
        old = os.environ.get(name)
        os.environ[name] = value
        try:
            return fn()
        finally:
            if old is None:
                del os.environ[name]
            else:
                os.environ[name] = old
    return thunk


Q, K, V = rnd(2, 3, 4), rnd(2, 5, 4, seed=1), rnd(2, 5, 6, seed=2)
Q0, K0, V0 = torch.zeros(1, 3, 0), torch.zeros(1, 5, 0), rnd(1, 5, 2)

# ---------------------------------------------------------------- core
C = "core"
case(C, "ATTNLAB_DEVICE=meta", "raise", "ATTNLAB_DEVICE", with_env("ATTNLAB_DEVICE", "meta", al.default_device))
case(C, "ATTNLAB_DEVICE=gpu", "raise", "ATTNLAB_DEVICE", with_env("ATTNLAB_DEVICE", "gpu", al.default_device))
case(C, "ATTNLAB_DEVICE=cuda:x", "raise", "ATTNLAB_DEVICE", with_env("ATTNLAB_DEVICE", "cuda:x", al.default_device))
for fn, extra in ((al.causal_mask, ()), (al.local_mask, (1,))):
    n = fn.__name__
    case(C, f"{n} num_queries=-1", "raise", "num_queries", lambda fn=fn, e=extra: fn(-1, 3, *e))
    case(C, f"{n} num_queries=2.5", "raise", "num_queries", lambda fn=fn, e=extra: fn(2.5, 3, *e))
    case(C, f"{n} num_keys='3'", "raise", "num_keys", lambda fn=fn, e=extra: fn(3, "3", *e))
    case(C, f"{n} device='banana'", "raise", "device", lambda fn=fn, e=extra: fn(3, 3, *e, device="banana"))
    case(C, f"{n} device=3.5", "raise", "device", lambda fn=fn, e=extra: fn(3, 3, *e, device=3.5))
    case(C, f"{n}(10**6, 10**6)", "bounded", "num_queries", lambda fn=fn, e=extra: fn(10**6, 10**6, *e))
case(C, "local_mask window=-1", "raise", "window", lambda: al.local_mask(3, 3, -1))
case(C, "local_mask window=1.5", "raise", "window", lambda: al.local_mask(3, 3, 1.5))
case(C, "sequence_mask list", "raise", "valid_lens", lambda: al.sequence_mask([1, 2], 3))
case(C, "sequence_mask float lens", "raise", "valid_lens", lambda: al.sequence_mask(t(1.0, 2.0), 3))
case(C, "sequence_mask 3-D lens", "raise", "valid_lens", lambda: al.sequence_mask(torch.ones(1, 1, 1, dtype=torch.long), 3))
case(C, "sequence_mask negative", "raise", "valid_lens", lambda: al.sequence_mask(torch.tensor([-1]), 3))
case(C, "sequence_mask num_keys=-1", "raise", "num_keys", lambda: al.sequence_mask(torch.tensor([1]), -1))
case(C, "sequence_mask num_keys=10**12", "bounded", "num_keys", lambda: al.sequence_mask(torch.tensor([1, 2]), 10**12))

S = rnd(3, 4)
case(C, "masked_softmax list", "raise", "scores", lambda: al.masked_softmax([[1.0, 2.0]]))
case(C, "masked_softmax int scores", "raise", "scores", lambda: al.masked_softmax(torch.ones(2, 3, dtype=torch.long)))
case(C, "masked_softmax bool scores", "raise", "scores", lambda: al.masked_softmax(torch.ones(2, 3, dtype=torch.bool)))
case(C, "masked_softmax 0-d", "raise", "scores", lambda: al.masked_softmax(torch.tensor(1.0)))
for bad in (0, -1.0, float("nan"), float("inf"), "1", True, None):
    case(C, f"masked_softmax temperature={bad!r}", "raise", "temperature",
         lambda bad=bad: al.masked_softmax(S, temperature=bad))
case(C, "masked_softmax float mask", "raise", "mask", lambda: al.masked_softmax(S, torch.ones(3, 4)))
case(C, "masked_softmax mask shape", "raise", "mask", lambda: al.masked_softmax(S, torch.ones(2, 4, dtype=torch.bool)))
case(C, "masked_softmax mask list", "raise", "mask", lambda: al.masked_softmax(S, [[True] * 4] * 3))
case(C, "masked_softmax T=1e-39 float32", "finite", "temperature",
     lambda: al.masked_softmax(t([1.0, 2.0]), temperature=1e-39), close([[0.0, 1.0]]))
case(C, "masked_softmax T=1e-3 float16 +-1e4", "finite", "scores",
     lambda: al.masked_softmax(t([1e4, -1e4, 9984.0], dtype=torch.float16), temperature=1e-3), close([[1.0, 0.0, 0.0]]))
case(C, "masked_softmax T=1e-3 bfloat16", "finite", "scores",
     lambda: al.masked_softmax(t([100.0, 99.0], dtype=torch.bfloat16), temperature=1e-3), close([[1.0, 0.0]]))
case(C, "masked_softmax float16 keeps dtype", "finite", "scores",
     lambda: al.masked_softmax(t([1.0, 2.0], dtype=torch.float16), temperature=1e-3),
     lambda w: w.dtype == torch.float16 and close([[0.0, 1.0]])(w))

for fn in (al.dot_scores, al.scaled_dot_scores, al.cosine_scores, al.gaussian_scores):
    n = fn.__name__
    case(C, f"{n} queries list", "raise", "queries", lambda fn=fn: fn([[1.0]], K))
    case(C, f"{n} int queries", "raise", "queries", lambda fn=fn: fn(torch.ones(2, 3, 4, dtype=torch.long), K))
    case(C, f"{n} d mismatch", "raise", "keys", lambda fn=fn: fn(Q, rnd(2, 5, 3)))
    case(C, f"{n} dtype mismatch", "raise", "keys", lambda fn=fn: fn(Q, K.double()))
    case(C, f"{n} batch mismatch", "raise", "batch", lambda fn=fn: fn(Q, rnd(3, 5, 4)))
    case(C, f"{n} d=0", "raise", "queries", lambda fn=fn: fn(Q0, K0))
case(C, "cosine_scores eps=0", "raise", "eps", lambda: al.cosine_scores(Q, K, eps=0))
case(C, "gaussian_scores sigma=0", "raise", "sigma", lambda: al.gaussian_scores(Q, K, sigma=0))
case(C, "gaussian_scores sigma='1'", "raise", "sigma", lambda: al.gaussian_scores(Q, K, sigma="1"))
case(C, "gaussian_scores sigma=1e-30 no NaN", "finite", "sigma",
     lambda: al.gaussian_scores(t(0.0, 1.0), t(0.0, 1.0), sigma=1e-30), lambda s: not torch.isnan(s).any())
case(C, "gaussian_scores 1-D vs 2-D", "raise", "keys", lambda: al.gaussian_scores(t(1.0), K))
case(C, "AdditiveScores query_size=0", "raise", "query_size", lambda: al.AdditiveScores(0, 4, 3))
case(C, "AdditiveScores num_hiddens='3'", "raise", "num_hiddens", lambda: al.AdditiveScores(4, 4, "3"))
case(C, "AdditiveScores forward wrong d", "raise", "queries", lambda: al.AdditiveScores(4, 4, 3)(rnd(2, 3, 5), K))
case(C, "AdditiveScores forward float64", "raise", "queries", lambda: al.AdditiveScores(4, 4, 3)(Q.double(), K.double()))

case(C, "nadaraya_watson list", "raise", "x_queries", lambda: al.nadaraya_watson([1.0], t(1.0), t(1.0)))
case(C, "nadaraya_watson sigma=0", "raise", "sigma", lambda: al.nadaraya_watson(t(1.0), t(1.0), t(1.0), sigma=0))
case(C, "nadaraya_watson 3-D", "raise", "x_queries", lambda: al.nadaraya_watson(Q, t(1.0), t(1.0)))
case(C, "nadaraya_watson rows", "raise", "y_values", lambda: al.nadaraya_watson(t(1.0), t(1.0, 2.0), t(1.0)))
case(C, "nadaraya_watson int keys", "raise", "x_keys", lambda: al.nadaraya_watson(t(1.0), torch.tensor([1, 2]), t(1.0, 2.0)))
case(C, "nadaraya_watson sigma=1e-30", "finite", "sigma",
     lambda: al.nadaraya_watson(t(0.4), t(0.0, 1.0), t(5.0, 7.0), sigma=1e-30), close([5.0]))
case(C, "nadaraya_watson float16 keys 300, 310", "finite", "x_keys",
     lambda: al.nadaraya_watson(t(0.0, dtype=torch.float16), t(300.0, 310.0, dtype=torch.float16),
                                t(1.0, 2.0, dtype=torch.float16)), close([1.0]))
case(C, "nadaraya_watson bfloat16 sigma=0.1", "finite", "x_keys",
     lambda: al.nadaraya_watson(t(0.0, dtype=torch.bfloat16), t(30.0, 31.0, dtype=torch.bfloat16),
                                t(1.0, 2.0, dtype=torch.bfloat16), sigma=0.1), close([1.0]))

sdpa = al.scaled_dot_product_attention
case(C, "sdpa queries list", "raise", "queries", lambda: sdpa([[1.0]], K, V))
case(C, "sdpa values list", "raise", "values", lambda: sdpa(Q, K, [[1.0]]))
case(C, "sdpa values rows", "raise", "values", lambda: sdpa(Q, K, rnd(2, 4, 6)))
case(C, "sdpa d=0", "raise", "queries", lambda: sdpa(Q0, K0, V0))
case(C, "sdpa d=0 fused", "raise", "queries", lambda: sdpa(Q0, K0, V0, need_weights=False))
for bad in (0, -1.0, float("nan"), "1"):
    case(C, f"sdpa temperature={bad!r}", "raise", "temperature", lambda bad=bad: sdpa(Q, K, V, temperature=bad))
for bad in (float("nan"), "1", float("inf")):
    case(C, f"sdpa scale={bad!r}", "raise", "scale", lambda bad=bad: sdpa(Q, K, V, scale=bad))
for bad in (1.0, -0.1, "0"):
    case(C, f"sdpa dropout={bad!r}", "raise", "dropout", lambda bad=bad: sdpa(Q, K, V, dropout=bad))
case(C, "sdpa generator='g'", "raise", "generator", lambda: sdpa(Q, K, V, dropout=0.1, generator="g"))
case(C, "sdpa float mask", "raise", "mask", lambda: sdpa(Q, K, V, torch.ones(3, 5)))
case(C, "sdpa mask shape", "raise", "mask", lambda: sdpa(Q, K, V, torch.ones(3, 4, dtype=torch.bool)))
case(C, "sdpa valid_lens float", "raise", "valid_lens", lambda: sdpa(Q, K, V, valid_lens=t(1.0, 2.0)))
case(C, "sdpa valid_lens batch", "raise", "valid_lens", lambda: sdpa(Q, K, V, valid_lens=torch.tensor([1, 2, 3])))
case(C, "sdpa valid_lens list", "raise", "valid_lens", lambda: sdpa(Q, K, V, valid_lens=[1, 2]))
case(C, "sdpa causal='yes'", "raise", "causal", lambda: sdpa(Q, K, V, causal="yes"))
case(C, "sdpa need_weights='no'", "raise", "need_weights", lambda: sdpa(Q, K, V, need_weights="no"))
case(C, "sdpa dtype mismatch", "raise", "keys", lambda: sdpa(Q, K.double(), V))
case(C, "sdpa scale=1e300", "finite", "scale",
     lambda: sdpa(t([[1.0]]), t([[1.0], [2.0]]), t([[1.0], [3.0]]), scale=1e300), close([[3.0]]))
case(C, "sdpa temperature=1e-39 float32", "finite", "temperature",
     lambda: sdpa(t([[1.0]]), t([[1.0], [2.0]]), t([[1.0], [3.0]]), temperature=1e-39), close([[3.0]]))
case(C, "sdpa temperature=1e-39 fused", "finite", "temperature",
     lambda: sdpa(t([[1.0]]), t([[1.0], [2.0]]), t([[1.0], [3.0]]), temperature=1e-39, need_weights=False),
     close([[3.0]]))
for dt in (torch.float16, torch.bfloat16):
    for nw in (True, False):
        case(C, f"sdpa {str(dt)[6:]} q=k=10 T=1e-3 need_weights={nw}", "finite", "queries",
             lambda dt=dt, nw=nw: sdpa(torch.full((1, 2, 4), 10.0, dtype=dt), torch.full((1, 3, 4), 10.0, dtype=dt),
                                       rnd(1, 3, 2, dtype=dt), temperature=1e-3, need_weights=nw),
             lambda out, dt=dt: out[0].dtype == dt and finite(out))
case(C, "sdpa Tk=0", "finite", "keys", lambda: sdpa(rnd(1, 2, 3), rnd(1, 0, 3), rnd(1, 0, 2)), close(torch.zeros(1, 2, 2)))
case(C, "sdpa Tk=0 fused", "finite", "keys",
     lambda: sdpa(rnd(1, 2, 3), rnd(1, 0, 3), rnd(1, 0, 2), need_weights=False), close(torch.zeros(1, 2, 2)))
case(C, "DotProductAttention dropout=2", "raise", "dropout", lambda: al.DotProductAttention(2))
case(C, "DotProductAttention forward list", "raise", "queries", lambda: al.DotProductAttention()([1.0], K, V))
case(C, "AdditiveAttention key_size=0", "raise", "key_size", lambda: al.AdditiveAttention(0, 4, 3))
case(C, "AdditiveAttention values rows", "raise", "values", lambda: al.AdditiveAttention(4, 4, 3)(Q, K, rnd(2, 4, 6)))
case(C, "AdditiveAttention valid_lens float", "raise", "valid_lens",
     lambda: al.AdditiveAttention(4, 4, 3)(Q, K, V, t(1.0, 2.0)))
MHA = al.MultiHeadAttention
case(C, "MultiHeadAttention num_heads=0", "raise", "num_heads", lambda: MHA(4, 4, 4, 8, 0))
case(C, "MultiHeadAttention 5 % 2", "raise", "num_hiddens", lambda: MHA(4, 4, 4, 5, 2))
case(C, "MultiHeadAttention bias='yes'", "raise", "bias", lambda: MHA(4, 4, 4, 8, 2, bias="yes"))
case(C, "MultiHeadAttention dropout=-1", "raise", "dropout", lambda: MHA(4, 4, 4, 8, 2, dropout=-1))
case(C, "MultiHeadAttention forward list", "raise", "queries", lambda: MHA(4, 4, 6, 8, 2)([1.0], K, V))
case(C, "MultiHeadAttention forward 2-D", "raise", "queries", lambda: MHA(4, 4, 6, 8, 2)(Q[0], K[0], V[0]))
case(C, "MultiHeadAttention temperature=0", "raise", "temperature", lambda: MHA(4, 4, 6, 8, 2)(Q, K, V, temperature=0))
case(C, "MultiHeadAttention float mask", "raise", "mask", lambda: MHA(4, 4, 6, 8, 2)(Q, K, V, mask=torch.ones(3, 5)))


def _mha_half(dt):
    torch.manual_seed(0)
    m = MHA(4, 4, 4, 8, 2).to(dt)
    with torch.no_grad():
        for lin in (m.W_q, m.W_k, m.W_v, m.W_o):
            lin.weight.copy_(torch.eye(8, 4 if lin is not m.W_o else 8, dtype=dt))
    x = torch.full((1, 3, 4), 10.0, dtype=dt)
    out = m(x, x, x, temperature=1e-3)
    return out, m.attention_weights


for dt in (torch.float16, torch.bfloat16):
    case(C, f"MultiHeadAttention {str(dt)[6:]} x=10 T=1e-3", "finite", "queries", lambda dt=dt: _mha_half(dt), finite)
case(C, "split_heads num_heads=0", "raise", "num_heads", lambda: al.split_heads(Q, 0))
case(C, "split_heads 4 % 3", "raise", "X", lambda: al.split_heads(Q, 3))
case(C, "split_heads list", "raise", "X", lambda: al.split_heads([[1.0]], 1))
case(C, "merge_heads 2-D", "raise", "X", lambda: al.merge_heads(Q[0]))
case(C, "sinusoidal_encoding num_steps=-1", "raise", "num_steps", lambda: al.sinusoidal_encoding(-1, 4))
case(C, "sinusoidal_encoding num_hiddens=0", "raise", "num_hiddens", lambda: al.sinusoidal_encoding(4, 0))
case(C, "sinusoidal_encoding base=0", "raise", "base", lambda: al.sinusoidal_encoding(4, 4, base=0))
case(C, "sinusoidal_encoding dtype=bool", "raise", "dtype", lambda: al.sinusoidal_encoding(4, 4, dtype=torch.bool))
case(C, "sinusoidal_encoding dtype=int64", "raise", "dtype", lambda: al.sinusoidal_encoding(4, 4, dtype=torch.int64))
case(C, "sinusoidal_encoding dtype='float32'", "raise", "dtype", lambda: al.sinusoidal_encoding(4, 4, dtype="float32"))
case(C, "sinusoidal_encoding device='banana'", "raise", "device", lambda: al.sinusoidal_encoding(4, 4, device="banana"))
case(C, "sinusoidal_encoding(10**9, 512)", "bounded", "num_steps", lambda: al.sinusoidal_encoding(10**9, 512))
case(C, "PositionalEncoding max_len=10**9", "bounded", "max_len", lambda: al.PositionalEncoding(512, max_len=10**9))
case(C, "PositionalEncoding num_hiddens=0", "raise", "num_hiddens", lambda: al.PositionalEncoding(0))
case(C, "PositionalEncoding dropout=1.5", "raise", "dropout", lambda: al.PositionalEncoding(4, dropout=1.5))
case(C, "PositionalEncoding too long", "raise", "X", lambda: al.PositionalEncoding(4, max_len=2)(Q))
case(C, "PositionalEncoding int X", "raise", "X", lambda: al.PositionalEncoding(4)(torch.ones(1, 2, 4, dtype=torch.long)))
case(C, "PositionalEncoding list X", "raise", "X", lambda: al.PositionalEncoding(4)([[1.0] * 4]))

case(C, "tiled_attention block_size=0", "raise", "block_size", lambda: al.tiled_attention(Q, K, V, block_size=0))
case(C, "tiled_attention block_size='8'", "raise", "block_size", lambda: al.tiled_attention(Q, K, V, block_size="8"))
case(C, "tiled_attention d=0", "raise", "queries", lambda: al.tiled_attention(Q0, K0, V0))
case(C, "tiled_attention float mask", "raise", "mask", lambda: al.tiled_attention(Q, K, V, torch.ones(3, 5)))
case(C, "tiled_attention causal=1", "raise", "causal", lambda: al.tiled_attention(Q, K, V, causal=1))
case(C, "tiled_attention block_size=1 T=20000", "bounded", "block_size",
     lambda: al.tiled_attention(rnd(20000, 2), rnd(20000, 2), rnd(20000, 2), block_size=1))
case(C, "tiled_attention float16 q=k=300", "finite", "queries",
     lambda: al.tiled_attention(torch.full((2, 1), 300.0, dtype=torch.float16), torch.full((3, 1), 300.0, dtype=torch.float16),
                                t([1.0], [2.0], [3.0], dtype=torch.float16)), close([[2.0], [2.0]], atol=1e-2))
case(C, "linear_attention feature_map='relu'", "raise", "feature_map", lambda: al.linear_attention(Q, K, V, feature_map="relu"))
case(C, "linear_attention feature_map=3", "raise", "feature_map", lambda: al.linear_attention(Q, K, V, feature_map=3))
case(C, "linear_attention d=0", "raise", "queries", lambda: al.linear_attention(Q0, K0, V0))
case(C, "linear_attention q=-20 float32", "finite", "queries",
     lambda: al.linear_attention(t([-20.0]), t([-20.0], [-20.0]), t([1.0], [3.0])), close([[2.0]], atol=1e-5))


def _elu_grad():
    q = t([-20.0]).requires_grad_()
    out = al.linear_attention(q, t([-20.0], [5.0]), t([1.0], [3.0]))
    out.sum().backward()
    return q.grad


case(C, "linear_attention q=-20 gradient", "finite", "queries", _elu_grad, lambda g: finite(g) and g.abs().max() < 1)

case(C, "kernel_regression_data n_train=0", "raise", "n_train", lambda: _nb01_data.kernel_regression_data(0))
case(C, "kernel_regression_data noise=-1", "raise", "noise", lambda: _nb01_data.kernel_regression_data(noise=-1))
case(C, "kernel_regression_data seed=-1", "raise", "seed", lambda: _nb01_data.kernel_regression_data(seed=-1))
case(C, "kernel_regression_data seed=1.5", "raise", "seed", lambda: _nb01_data.kernel_regression_data(seed=1.5))
case(C, "kernel_regression_data dtype=bool", "raise", "dtype", lambda: _nb01_data.kernel_regression_data(dtype=torch.bool))
case(C, "kernel_regression_data dtype=int64", "raise", "dtype", lambda: _nb01_data.kernel_regression_data(dtype=torch.int64))
case(C, "kernel_regression_data dtype='float64'", "raise", "dtype", lambda: _nb01_data.kernel_regression_data(dtype="float64"))
case(C, "kernel_regression_data n_train=10**10", "bounded", "n_train", lambda: _nb01_data.kernel_regression_data(10**10))
case(C, "kernel_regression_target 'a'", "raise", "x", lambda: _nb01_data.kernel_regression_target("a"))
case(C, "kernel_regression_target list", "raise", "x", lambda: _nb01_data.kernel_regression_target([1.0]))
case(C, "cat_milk_it sentence='x'", "raise", "sentence", lambda: _nb05_data.cat_milk_it("x"))
case(C, "cat_milk_it vectors list", "raise", "vectors", lambda: _nb05_data.cat_milk_it(vectors=[1, 2]))
case(C, "cat_milk_it vectors cat=(1,)", "raise", "vectors", lambda: _nb05_data.cat_milk_it(vectors={"cat": (1.0,)}))
case(C, "cat_milk_it vectors cat='ab'", "raise", "vectors", lambda: _nb05_data.cat_milk_it(vectors={"cat": "ab"}))
case(C, "cat_milk_it vectors cat=(nan, 1)", "raise", "vectors", lambda: _nb05_data.cat_milk_it(vectors={"cat": (float("nan"), 1.0)}))
case(C, "cat_milk_it dtype=bool", "raise", "dtype", lambda: _nb05_data.cat_milk_it(dtype=torch.bool))
for fn in (_nb04_data.thinking_machines, _nb04_data.toy_sentence, _nb04_data.translation_pair):
    n = fn.__name__
    case(C, f"{n} d_model=0", "raise", "d_model", lambda fn=fn: fn(d_model=0))
    case(C, f"{n} d_k=-1", "raise", "d_k", lambda fn=fn: fn(d_k=-1))
    case(C, f"{n} dtype=int64", "raise", "dtype", lambda fn=fn: fn(dtype=torch.int64))
    case(C, f"{n} dtype='float32'", "raise", "dtype", lambda fn=fn: fn(dtype="float32"))
    case(C, f"{n} d_model=d_k=10**6", "bounded", "d_model", lambda fn=fn: fn(d_model=10**6, d_k=10**6))
case(C, "toy_sentence words='abc'", "raise", "words", lambda: _nb04_data.toy_sentence("abc"))
case(C, "toy_sentence words=[1, 2]", "raise", "words", lambda: _nb04_data.toy_sentence([1, 2]))
case(C, "toy_sentence words=()", "raise", "words", lambda: _nb04_data.toy_sentence(()))
case(C, "translation_pair noise=-1", "raise", "noise", lambda: _nb04_data.translation_pair(noise=-1))

# ---------------------------------------------------------------- plotting
P = "plotting"
L = "moved to lessons"
W = torch.rand(3, 4, generator=torch.Generator().manual_seed(0))


def fig_ok(ax):
    axes = np.asarray(ax).ravel()
    w, h = axes[0].figure.get_size_inches() * axes[0].figure.dpi
    return w <= MAX_PIXELS and h <= MAX_PIXELS


case(P, "to_numpy 'abc'", "raise", "x", lambda: plotting.to_numpy("abc"))
case(P, "heatmap 'abc'", "raise", "weights", lambda: plotting.heatmap("abc"))
case(P, "heatmap 1-D", "raise", "weights", lambda: plotting.heatmap(torch.ones(3)))
case(P, "heatmap ragged list", "raise", "weights", lambda: plotting.heatmap([[1.0], [1.0, 2.0]]))
case(P, "heatmap x_labels too short", "raise", "x_labels", lambda: plotting.heatmap(W, x_labels=["a"]))
case(P, "heatmap y_labels too long", "raise", "y_labels", lambda: plotting.heatmap(W, y_labels=list("abcdef")))
case(P, "heatmap vmin > vmax", "raise", "vmin", lambda: plotting.heatmap(W, vmin=1.0, vmax=0.0))
case(P, "heatmap vmax=nan", "raise", "vmax", lambda: plotting.heatmap(W, vmax=float("nan")))
case(P, "heatmap fmt='{:d}'", "raise", "fmt", lambda: plotting.heatmap(W, fmt="{:d}"))
case(P, "heatmap fmt=3", "raise", "fmt", lambda: plotting.heatmap(W, fmt=3))
case(P, "heatmap cmap='nope'", "raise", "cmap", lambda: plotting.heatmap(W, cmap="nope"))
case(P, "heatmap ax='a'", "raise", "ax", lambda: plotting.heatmap(W, ax="a"))
case(P, "heatmap annotate='yes'", "raise", "annotate", lambda: plotting.heatmap(W, annotate="yes"))
case(P, "heatmap 300x300 without ax", "bounded", "weights", lambda: plotting.heatmap(torch.rand(300, 300)), fig_ok)
case(P, "heatmap 2000x2000 annotate=True", "bounded", "annotate",
     lambda: plotting.heatmap(torch.rand(2000, 2000), annotate=True), fig_ok)
case(P, "update_heatmap foreign ax", "raise", "ax", lambda: plotting.update_heatmap(plt.subplots()[1], W))
case(P, "update_heatmap 3-D", "raise", "weights", lambda: plotting.update_heatmap(plotting.heatmap(W), torch.ones(2, 2, 2)))
case(P, "update_heatmap 'abc'", "raise", "weights", lambda: plotting.update_heatmap(plotting.heatmap(W), "abc"))
case(P, "heads_grid 2-D", "raise", "weights", lambda: plotting.heads_grid(W))
case(P, "heads_grid titles short", "raise", "titles", lambda: plotting.heads_grid(torch.rand(3, 2, 2), titles=["a"]))
case(P, "heads_grid too few axes", "raise", "axes", lambda: plotting.heads_grid(torch.rand(3, 2, 2), axes=plt.subplots(1, 2)[1]))
case(P, "heads_grid 64 heads without axes", "bounded", "weights", lambda: plotting.heads_grid(torch.rand(64, 2, 2)), fig_ok)
case(P, "weights_summary 1-D", "raise", "weights", lambda: plotting.weights_summary(torch.ones(3)))
case(P, "weights_summary labels short", "raise", "x_labels", lambda: plotting.weights_summary(W, x_labels=["a"]))
case(P, "weights_summary top=0", "raise", "top", lambda: plotting.weights_summary(W, top=0))
case(P, "weights_summary top='2'", "raise", "top", lambda: plotting.weights_summary(W, top="2"))
case(L, "kernel_regression_plot lengths", "raise", "y_hat",
     lambda: moved.kernel_regression_plot(torch.ones(5), torch.ones(5), torch.ones(4)))
case(L, "kernel_regression_plot y_train missing", "raise", "y_train",
     lambda: moved.kernel_regression_plot(torch.ones(5), torch.ones(5), torch.ones(5), torch.ones(3)))
case(L, "encoding_columns_plot column 99", "raise", "columns", lambda: moved.encoding_columns_plot(torch.ones(5, 4)))
case(L, "encoding_columns_plot 1-D", "raise", "P", lambda: moved.encoding_columns_plot(torch.ones(5), columns=(0,)))
case(L, "encoding_heatmap vmax=0", "raise", "vmax", lambda: moved.encoding_heatmap(torch.ones(5, 4), vmax=0))
case(L, "encoding_heatmap 3-D", "raise", "P", lambda: moved.encoding_heatmap(torch.ones(5, 4, 2)))
case(L, "update_encoding_heatmap 1-D", "raise", "P",
     lambda: moved.update_encoding_heatmap(moved.encoding_heatmap(torch.ones(5, 4)), torch.ones(3)))
case(L, "binary_counter_plot 0", "raise", "num_bits", lambda: moved.binary_counter_plot(0))
case(L, "binary_counter_plot 'a'", "raise", "num_bits", lambda: moved.binary_counter_plot("a"))
case(L, "binary_counter_plot 2.5", "raise", "num_bits", lambda: moved.binary_counter_plot(2.5))
case(L, "binary_counter_plot 16", "bounded", "num_bits", lambda: moved.binary_counter_plot(16), fig_ok)

# ---------------------------------------------------------------- selfcheck
SC = "selfcheck"
SCASES = [(t(1.0, 2.0, 3.0),), (torch.zeros(2, 4),)]


def ref(x):
    return torch.softmax(x, -1)


def reported(*words):
    def run(fn, cases=None, reference=ref):
        def thunk():
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                r = selfcheck.check_function(fn, reference, cases or SCASES)
            return r, out.getvalue()
        return thunk

    def check(result):
        r, text = result
        return r is False and all(w.lower() in text.lower() for w in words)
    return run, check


def _no_return(x):
    torch.softmax(x, -1)


for label, fn, words in (("returns None", _no_return, ["None", "return"]),
                         ("returns str", lambda x: "abc", ["str"]),
                         ("returns dict", lambda x: {"a": 1}, ["dict"]),
                         ("returns ragged list", lambda x: [[1.0], [1.0, 2.0]], ["list"]),
                         ("returns NaN", lambda x: x * float("nan"), ["NaN"]),
                         ("wrong shape", lambda x: x.sum(), ["shape"])):
    run, check = reported(*words)
    case(SC, f"check_function {label}", "report", "fn", run(fn), check)


def _mutating_case():
    cases = [(t(1.0, 2.0),)]
    before = cases[0][0].clone()
    with contextlib.redirect_stdout(io.StringIO()):
        selfcheck.check_function(lambda b: torch.softmax(b.mul_(2), -1), ref, cases)
    return torch.equal(cases[0][0], before)


case(SC, "check_function in-place b.mul_", "report", "fn", _mutating_case, lambda same: same is True)


def _nan_cases():
    with contextlib.redirect_stdout(io.StringIO()):
        return selfcheck.check_function(lambda x: x * 1.0, lambda x: x * 1.0, [(t(float("nan"), 1.0),)])


case(SC, "check_function identical NaN", "report", "fn", _nan_cases, lambda r: r is True)
run3, check3 = reported("int")
case(SC, "check_function fn=3", "report", "fn", run3(3), check3)
case(SC, "check_function cases=3", "raise", "cases", lambda: selfcheck.check_function(ref, ref, 3))
case(SC, "check_function atol=-1", "raise", "atol", lambda: selfcheck.check_function(ref, ref, SCASES, atol=-1))
case(SC, "numeric answer='abc'", "raise", "answer", lambda: selfcheck.numeric("?", "abc"))
case(SC, "numeric answer=nan", "raise", "answer", lambda: selfcheck.numeric("?", float("nan")))
case(SC, "numeric answer=True", "raise", "answer", lambda: selfcheck.numeric("?", True))
case(SC, "numeric tolerance=-1", "raise", "tolerance", lambda: selfcheck.numeric("?", 1, tolerance=-1))
case(SC, "numeric tolerance='a'", "raise", "tolerance", lambda: selfcheck.numeric("?", 1, tolerance="a"))
case(SC, "numeric tolerance=inf", "raise", "tolerance", lambda: selfcheck.numeric("?", 1, tolerance=float("inf")))


def _numeric_check(value):
    def thunk():
        q = selfcheck.numeric("?", 1.0)
        return q.check(value), q.feedback.value
    return thunk


for bad in ("abc", float("inf"), [1]):
    case(SC, f"Numeric.check({bad!r})", "report", "value", _numeric_check(bad),
         lambda r: r[0] is False and "number" in r[1])
case(SC, "multiple_choice options='ab'", "raise", "options", lambda: selfcheck.multiple_choice("?", "ab", "a"))
case(SC, "multiple_choice options=[]", "raise", "options", lambda: selfcheck.multiple_choice("?", {}, "a"))
case(SC, "multiple_choice question=3", "raise", "question", lambda: selfcheck.multiple_choice(3, {"a": ""}, "a"))
case(SC, "multiple_choice answer missing", "raise", "answer", lambda: selfcheck.multiple_choice("?", {"a": ""}, "b"))


def _mc_check_bad():
    mc = selfcheck.multiple_choice("?", {"a": "x", "b": "y"}, "a")
    return mc.check("c"), mc.feedback.value


case(SC, "MultipleChoice.check('c')", "report", "choice", _mc_check_bad, lambda r: r[0] is False and "c" in r[1])


# ---------------------------------------------------------------- lessons (nb00-nb09)
# Every public callable a lesson re-exports that takes arguments: one good call each (bench/probe_lessons.py),
# and the bad variants made from it one argument at a time.
import probe_lessons

probe_lessons.add_cases(lambda group, *rest: case("lessons", *rest))


# ---------------------------------------------------------------- run
def classify(kind, arg, thunk, check):
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
        try:
            try:
                result = thunk()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except Timeout:
            return "hang", "timeout"
        except MemoryError as e:
            return "hang", f"MemoryError {e}"[:100]
        except (ValueError, TypeError) as e:
            msg = str(e)
            if "allocat" in msg:
                return "hang", msg[:100]
            return ("clear" if arg in msg else "other"), f"{type(e).__name__}: {msg}"[:160]
        except RuntimeError as e:
            msg = str(e)
            if "allocat" in msg or "out of memory" in msg:
                return "hang", msg[:100]
            if arg in msg.split(":")[0]:
                return "clear", msg[:160]
            return "torch", f"{type(e).__name__}: {msg}"[:160]
        except Exception as e:  # counted
            return "other", f"{type(e).__name__}: {e}"[:160]
        finally:
            plt.close("all")
    if kind == "raise":
        return "silent", "accepted"
    try:
        good = check(result) if check else finite(result)
    except Exception as e:
        good, why = False, f"check failed: {type(e).__name__}: {e}"
    else:
        why = "ok" if good else "wrong or non-finite result"
    if good:
        return "clear", why
    return ("hang" if kind == "bounded" else "silent"), why


ROWS = [("clear", "clear ValueError/TypeError naming the argument (or a correct result)"),
        ("other", "other exception, or argument not named"),
        ("torch", "RuntimeError deep in torch"),
        ("silent", "silent NaN/inf, wrong result, bad input accepted"),
        ("hang", "hang or huge allocation attempted")]
GROUPS = ("core", "plotting", "selfcheck", "moved to lessons", "lessons")


def main():
    counts = {g: Counter() for g in GROUPS}
    per_lesson = {}
    lines = []
    only = "--lessons-only" in sys.argv
    for group, label, kind, arg, thunk, check in CASES:
        if only and group != "lessons":
            continue
        outcome, why = classify(kind, arg, thunk, check)
        counts[group][outcome] += 1
        if group == "lessons":
            per_lesson.setdefault(label.split(".")[0], Counter())[outcome] += 1
        lines.append(f"{outcome:7s} {group:9s} {kind:8s} {label}  ->  " + " ".join(why.split()))
    if "--cases" in sys.argv:
        print("\n".join(lines))
        print()
    callables = len({label.split()[0].split("(")[0] for _, label, *_ in CASES})
    print(f"{len(CASES)} cases, {callables} callables; attnlab from {os.path.dirname(al.__file__)}")
    print("| outcome | all | " + " | ".join(GROUPS) + " |")
    print("|---|---|" + "---|" * len(GROUPS))
    for key, title in ROWS:
        per = [counts[g][key] for g in GROUPS]
        print(f"| {title} | {sum(per)} | " + " | ".join(map(str, per)) + " |")
    lessons = sorted(per_lesson)
    lesson_callables = len({label.split()[0] for g, label, *_ in CASES if g == "lessons"})
    print(f"\nlessons: {sum(sum(c.values()) for c in per_lesson.values())} cases, {lesson_callables} callables")
    print("| outcome | " + " | ".join(lessons) + " |")
    print("|---|" + "---|" * len(lessons))
    for key, title in ROWS:
        print(f"| {title} | " + " | ".join(str(per_lesson[n][key]) for n in lessons) + " |")


if __name__ == "__main__":
    main()
