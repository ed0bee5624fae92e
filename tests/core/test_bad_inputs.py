"""Bad-input table (issue 15): one row per public callable of the core, plotting and selfcheck and
failure kind. Each bad argument gets a ValueError/TypeError naming the argument, what was expected
and what was given; the message is matched literally (re.escape) so a changed message fails here."""
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

import attnlab as al
from attnlab.ui import plotting, selfcheck


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def t(*rows, dtype=torch.float32):
    return torch.tensor(rows, dtype=dtype)


Q, K, V = torch.ones(2, 3, 4), torch.ones(2, 5, 4), torch.ones(2, 5, 6)
Q0, K0, V0 = torch.ones(1, 3, 0), torch.ones(1, 5, 0), torch.ones(1, 5, 2)
W = torch.full((3, 4), 0.25)
sdpa = al.scaled_dot_product_attention
MHA = al.MultiHeadAttention
BIG = 10**6
GIB = "of at most 1 GiB, got "

ROWS = [
    # ---- default_device (ATTNLAB_DEVICE is set by the test below)
    # ---- the learner's language (ATTNLAB_LANG: tests/ui/test_i18n.py)
    ("set_language/value", lambda: al.set_language("fr"), ValueError, "language: expected one of 'en', 'zh', got 'fr'"),
    ("set_language/type", lambda: al.set_language(1), TypeError, "language: expected a language code, one of 'en', 'zh', got int"),
    ("language/value", lambda: al.language("de").__enter__(), ValueError, "language: expected one of 'en', 'zh', got 'de'"),
    ("get_language/argument", lambda: al.get_language("zh"), TypeError, "takes 0 positional arguments"),
    # ---- masks
    ("causal_mask/count", lambda: al.causal_mask(-1, 3), ValueError, "num_queries: expected an int >= 0, got -1"),
    ("causal_mask/type", lambda: al.causal_mask(2.5, 3), TypeError, "num_queries: expected an int, got float"),
    ("causal_mask/num_keys", lambda: al.causal_mask(3, "3"), TypeError, "num_keys: expected an int, got str"),
    ("causal_mask/device str", lambda: al.causal_mask(3, 3, device="banana"), ValueError,
     "device: expected a torch device such as 'cpu' or 'cuda:0', got 'banana'"),
    ("causal_mask/device type", lambda: al.causal_mask(3, 3, device=3.5), TypeError,
     "device: expected a torch.device or a str such as 'cpu' or 'cuda:0', got float"),
    ("causal_mask/size", lambda: al.causal_mask(BIG, BIG), ValueError,
     "num_queries, num_keys: expected a bool mask " + GIB + "1000000 x 1000000 entries x 1 B = 931 GiB"),
    ("local_mask/window", lambda: al.local_mask(3, 3, -1), ValueError, "window: expected an int >= 0, got -1"),
    ("local_mask/window type", lambda: al.local_mask(3, 3, 1.5), TypeError, "window: expected an int, got float"),
    ("local_mask/device", lambda: al.local_mask(3, 3, 1, device="gpu"), ValueError,
     "device: expected a torch device such as 'cpu' or 'cuda:0', got 'gpu'"),
    ("local_mask/size", lambda: al.local_mask(BIG, BIG, 1), ValueError, "num_queries, num_keys: expected a bool mask " + GIB),
    ("sequence_mask/list", lambda: al.sequence_mask([1, 2], 3), TypeError,
     "valid_lens: expected a torch.Tensor, got list"),
    ("sequence_mask/float", lambda: al.sequence_mask(t(1.0), 3), TypeError,
     "valid_lens: expected an integer tensor, got dtype torch.float32"),
    ("sequence_mask/rank", lambda: al.sequence_mask(torch.ones(1, 1, 1, dtype=torch.long), 3), ValueError,
     "valid_lens: expected shape (B,) or (B, Tq), got (1, 1, 1)"),
    ("sequence_mask/negative", lambda: al.sequence_mask(torch.tensor([-1]), 3), ValueError,
     "valid_lens: expected lengths >= 0, got -1"),
    ("sequence_mask/num_keys", lambda: al.sequence_mask(torch.tensor([1]), -1), ValueError,
     "num_keys: expected an int >= 0, got -1"),
    ("sequence_mask/size", lambda: al.sequence_mask(torch.tensor([1, 2]), 10**12), ValueError,
     "num_keys: expected a bool mask (valid_lens.shape + (num_keys,)) " + GIB + "2 x 1000000000000"),
    # ---- masked_softmax
    ("masked_softmax/list", lambda: al.masked_softmax([[1.0]]), TypeError, "scores: expected a torch.Tensor, got list"),
    ("masked_softmax/int", lambda: al.masked_softmax(torch.ones(2, dtype=torch.long)), TypeError,
     "scores: expected a floating-point tensor, got dtype torch.int64"),
    ("masked_softmax/bool", lambda: al.masked_softmax(torch.ones(2, dtype=torch.bool)), TypeError,
     "scores: expected a floating-point tensor, got dtype torch.bool"),
    ("masked_softmax/float8", lambda: al.masked_softmax(torch.ones(2).to(torch.float8_e4m3fn)), TypeError,
     "scores: expected dtype torch.float16, torch.bfloat16, torch.float32 or torch.float64, got torch.float8_e4m3fn"),
    ("masked_softmax/0-d", lambda: al.masked_softmax(torch.tensor(1.0)), ValueError,
     "scores: expected at least 1 dims, got shape ()"),
    ("masked_softmax/temperature 0", lambda: al.masked_softmax(W, temperature=0), ValueError,
     "temperature: expected a number > 0, got 0.0"),
    ("masked_softmax/temperature nan", lambda: al.masked_softmax(W, temperature=float("nan")), ValueError,
     "temperature: expected a finite number, got nan"),
    ("masked_softmax/temperature str", lambda: al.masked_softmax(W, temperature="1"), TypeError,
     "temperature: expected a real number, got str"),
    ("masked_softmax/temperature bool", lambda: al.masked_softmax(W, temperature=True), TypeError,
     "temperature: expected a real number, got bool"),
    ("masked_softmax/mask dtype", lambda: al.masked_softmax(W, torch.ones(3, 4)), TypeError,
     "mask: expected dtype torch.bool (True = may attend), got torch.float32"),
    ("masked_softmax/mask shape", lambda: al.masked_softmax(W, torch.ones(2, 4, dtype=torch.bool)), ValueError,
     "mask: expected a shape that broadcasts to (3, 4), got (2, 4)"),
    ("masked_softmax/mask list", lambda: al.masked_softmax(W, [[True]]), TypeError,
     "mask: expected a bool torch.Tensor, got list"),
    # ---- scores
    ("dot_scores/list", lambda: al.dot_scores([[1.0]], K), TypeError, "queries: expected a torch.Tensor, got list"),
    ("dot_scores/d", lambda: al.dot_scores(Q, torch.ones(2, 5, 3)), ValueError, "keys: expected last dim 4 to match queries, got 3"),
    ("dot_scores/d=0", lambda: al.dot_scores(Q0, K0), ValueError,
     "queries: expected at least one feature (last dim d >= 1), got shape (1, 3, 0)"),
    ("dot_scores/size", lambda: al.dot_scores(torch.ones(BIG, 1), torch.ones(BIG, 1)), ValueError,
     "queries, keys: expected scores (..., Tq, Tk) " + GIB + "1000000 x 1000000 x 1 entries x 4 B"),
    ("scaled_dot_scores/dtype", lambda: al.scaled_dot_scores(Q, K.double()), TypeError,
     "keys: expected dtype torch.float32 to match queries, got torch.float64"),
    ("scaled_dot_scores/d=0", lambda: al.scaled_dot_scores(Q0, K0), ValueError, "queries: expected at least one feature"),
    ("cosine_scores/batch", lambda: al.cosine_scores(Q, torch.ones(3, 5, 4)), ValueError,
     "batch dims: expected broadcastable leading dims, got queries (2,), keys (3,)"),
    ("cosine_scores/eps", lambda: al.cosine_scores(Q, K, eps=0), ValueError, "eps: expected a number > 0, got 0.0"),
    ("gaussian_scores/sigma", lambda: al.gaussian_scores(Q, K, sigma=0), ValueError, "sigma: expected a number > 0, got 0.0"),
    ("gaussian_scores/sigma str", lambda: al.gaussian_scores(Q, K, sigma="1"), TypeError, "sigma: expected a real number, got str"),
    ("gaussian_scores/ranks", lambda: al.gaussian_scores(t(1.0), K), ValueError,
     "keys: expected 1-D like queries (1,) or both >= 2-D, got (2, 5, 4)"),
    ("AdditiveScores/size", lambda: al.AdditiveScores(0, 4, 3), ValueError, "query_size: expected an int >= 1, got 0"),
    ("AdditiveScores/type", lambda: al.AdditiveScores(4, 4, "3"), TypeError, "num_hiddens: expected an int, got str"),
    ("AdditiveScores.forward/d", lambda: al.AdditiveScores(4, 4, 3)(torch.ones(2, 3, 5), K), ValueError,
     "queries: expected last dim query_size=4, got 5"),
    ("AdditiveScores.forward/dtype", lambda: al.AdditiveScores(4, 4, 3)(Q.double(), K.double()), TypeError,
     "queries: expected dtype torch.float32 to match the module's parameters"),
    ("AdditiveScores.forward/size", lambda: al.AdditiveScores(1, 1, 64)(torch.ones(1000, 1), torch.ones(10000, 1)),
     ValueError, "queries, keys: expected the hidden layer (..., Tq, Tk, num_hiddens) " + GIB),
    # ---- attention
    ("nadaraya_watson/list", lambda: al.nadaraya_watson([1.0], t(1.0), t(1.0)), TypeError,
     "x_queries: expected a torch.Tensor, got list"),
    ("nadaraya_watson/sigma", lambda: al.nadaraya_watson(t(1.0), t(1.0), t(1.0), sigma=-1), ValueError,
     "sigma: expected a number > 0, got -1.0"),
    ("nadaraya_watson/rank", lambda: al.nadaraya_watson(Q, t(1.0), t(1.0)), ValueError,
     "x_queries, x_keys: expected (T,) or (T, d), got (2, 3, 4) and (1,)"),
    ("nadaraya_watson/rows", lambda: al.nadaraya_watson(t(1.0), t(1.0, 2.0), t(1.0)), ValueError,
     "y_values: expected 2 rows to match x_keys, got 1"),
    ("nadaraya_watson/int", lambda: al.nadaraya_watson(t(1.0), torch.tensor([1, 2]), t(1.0, 2.0)), TypeError,
     "x_keys: expected a floating-point tensor, got dtype torch.int64"),
    ("nadaraya_watson/d=0", lambda: al.nadaraya_watson(torch.ones(2, 0), torch.ones(3, 0), torch.ones(3)), ValueError,
     "x_queries: expected at least one feature (d >= 1), got shape (2, 0)"),
    ("nadaraya_watson/size", lambda: al.nadaraya_watson(torch.ones(BIG), torch.ones(BIG), torch.ones(BIG)), ValueError,
     "x_queries, x_keys: expected weights (Tq, Tk) " + GIB),
    ("sdpa/values", lambda: sdpa(Q, K, [[1.0]]), TypeError, "values: expected a torch.Tensor, got list"),
    ("sdpa/values rows", lambda: sdpa(Q, K, torch.ones(2, 4, 6)), ValueError,
     "values: expected 5 rows to match keys (dim -2), got 4"),
    ("sdpa/d=0", lambda: sdpa(Q0, K0, V0), ValueError, "queries: expected at least one feature (last dim d >= 1)"),
    ("sdpa/d=0 fused", lambda: sdpa(Q0, K0, V0, need_weights=False), ValueError, "queries: expected at least one feature"),
    ("sdpa/temperature", lambda: sdpa(Q, K, V, temperature=-1), ValueError, "temperature: expected a number > 0, got -1.0"),
    ("sdpa/scale nan", lambda: sdpa(Q, K, V, scale=float("nan")), ValueError, "scale: expected a finite number, got nan"),
    ("sdpa/scale str", lambda: sdpa(Q, K, V, scale="1"), TypeError, "scale: expected a real number, got str"),
    ("sdpa/dropout", lambda: sdpa(Q, K, V, dropout=1.0), ValueError, "dropout: expected a number < 1.0, got 1.0"),
    ("sdpa/generator", lambda: sdpa(Q, K, V, dropout=0.1, generator="g"), TypeError,
     "generator: expected a torch.Generator or None, got str"),
    ("sdpa/mask", lambda: sdpa(Q, K, V, torch.ones(3, 5)), TypeError, "mask: expected dtype torch.bool"),
    ("sdpa/valid_lens", lambda: sdpa(Q, K, V, valid_lens=torch.tensor([1, 2, 3])), ValueError,
     "valid_lens: expected first dim 2 (the batch), got (3,)"),
    ("sdpa/valid_lens list", lambda: sdpa(Q, K, V, valid_lens=[1, 2]), TypeError,
     "valid_lens: expected a torch.Tensor, got list"),
    ("sdpa/causal", lambda: sdpa(Q, K, V, causal="yes"), TypeError, "causal: expected True or False, got str 'yes'"),
    ("sdpa/need_weights", lambda: sdpa(Q, K, V, need_weights="no"), TypeError, "need_weights: expected True or False, got str 'no'"),
    ("sdpa/size", lambda: sdpa(torch.ones(BIG, 1), torch.ones(BIG, 1), torch.ones(BIG, 1)), ValueError,
     "queries, keys: expected attention weights (..., Tq, Tk) (pass need_weights=False, or use tiled_attention) " + GIB),
    ("DotProductAttention/dropout", lambda: al.DotProductAttention(2), ValueError, "dropout: expected a number < 1.0, got 2.0"),
    ("DotProductAttention.forward/list", lambda: al.DotProductAttention()([1.0], K, V), TypeError,
     "queries: expected a torch.Tensor, got list"),
    ("AdditiveAttention/size", lambda: al.AdditiveAttention(0, 4, 3), ValueError, "key_size: expected an int >= 1, got 0"),
    ("AdditiveAttention.forward/rows", lambda: al.AdditiveAttention(4, 4, 3)(Q, K, torch.ones(2, 4, 6)), ValueError,
     "values: expected 5 rows to match keys (dim -2), got 4"),
    ("AdditiveAttention.forward/valid_lens", lambda: al.AdditiveAttention(4, 4, 3)(Q, K, V, t(1.0, 2.0)), TypeError,
     "valid_lens: expected an integer tensor, got dtype torch.float32"),
    ("MultiHeadAttention/heads", lambda: MHA(4, 4, 4, 8, 0), ValueError, "num_heads: expected an int >= 1, got 0"),
    ("MultiHeadAttention/divisible", lambda: MHA(4, 4, 4, 5, 2), ValueError,
     "num_hiddens: expected a multiple of num_heads=2, got 5"),
    ("MultiHeadAttention/bias", lambda: MHA(4, 4, 4, 8, 2, bias="yes"), TypeError, "bias: expected True or False, got str 'yes'"),
    ("MultiHeadAttention/dropout", lambda: MHA(4, 4, 4, 8, 2, dropout=-1), ValueError,
     "dropout: expected a number >= 0.0, got -1.0"),
    ("MultiHeadAttention.forward/list", lambda: MHA(4, 4, 6, 8, 2)([1.0], K, V), TypeError,
     "queries: expected a torch.Tensor, got list"),
    ("MultiHeadAttention.forward/rank", lambda: MHA(4, 4, 6, 8, 2)(Q[0], K[0], V[0]), ValueError,
     "queries: expected at least 3 dims, got shape (3, 4)"),
    ("MultiHeadAttention.forward/temperature", lambda: MHA(4, 4, 6, 8, 2)(Q, K, V, temperature=0), ValueError,
     "temperature: expected a number > 0, got 0.0"),
    ("MultiHeadAttention.forward/mask", lambda: MHA(4, 4, 6, 8, 2)(Q, K, V, mask=torch.ones(3, 5)), TypeError,
     "mask: expected dtype torch.bool"),
    ("split_heads/heads", lambda: al.split_heads(Q, 0), ValueError, "num_heads: expected an int >= 1, got 0"),
    ("split_heads/divisible", lambda: al.split_heads(Q, 3), ValueError,
     "X: expected last dim divisible by num_heads=3, got 4"),
    ("split_heads/list", lambda: al.split_heads([[1.0]], 1), TypeError, "X: expected a torch.Tensor, got list"),
    ("merge_heads/rank", lambda: al.merge_heads(Q[0]), ValueError, "X: expected at least 3 dims, got shape (3, 4)"),
    # ---- positions
    ("sinusoidal_encoding/steps", lambda: al.sinusoidal_encoding(-1, 4), ValueError, "num_steps: expected an int >= 0, got -1"),
    ("sinusoidal_encoding/hiddens", lambda: al.sinusoidal_encoding(4, 0), ValueError,
     "num_hiddens: expected an int >= 1, got 0"),
    ("sinusoidal_encoding/base", lambda: al.sinusoidal_encoding(4, 4, base=0), ValueError, "base: expected a number > 0, got 0.0"),
    ("sinusoidal_encoding/dtype bool", lambda: al.sinusoidal_encoding(4, 4, dtype=torch.bool), TypeError,
     "dtype: expected a floating dtype (torch.float16, torch.bfloat16, torch.float32 or torch.float64), got torch.bool"),
    ("sinusoidal_encoding/dtype int", lambda: al.sinusoidal_encoding(4, 4, dtype=torch.int64), TypeError,
     "dtype: expected a floating dtype (torch.float16, torch.bfloat16, torch.float32 or torch.float64), got torch.int64"),
    ("sinusoidal_encoding/dtype str", lambda: al.sinusoidal_encoding(4, 4, dtype="float32"), TypeError,
     "dtype: expected a torch.dtype (torch.float16, torch.bfloat16, torch.float32 or torch.float64), got str 'float32'"),
    ("sinusoidal_encoding/device", lambda: al.sinusoidal_encoding(4, 4, device="banana"), ValueError,
     "device: expected a torch device such as 'cpu' or 'cuda:0', got 'banana'"),
    ("sinusoidal_encoding/size", lambda: al.sinusoidal_encoding(10**9, 512), ValueError,
     "num_steps, num_hiddens: expected an encoding P (computed in float64) " + GIB + "1000000000 x 512 entries x 8 B = 3.81e+03 GiB"),
    ("PositionalEncoding/size", lambda: al.PositionalEncoding(512, max_len=10**9), ValueError,
     "max_len, num_hiddens: expected a table P (max_len x num_hiddens, float64) " + GIB),
    ("PositionalEncoding/hiddens", lambda: al.PositionalEncoding(0), ValueError, "num_hiddens: expected an int >= 1, got 0"),
    ("PositionalEncoding/dropout", lambda: al.PositionalEncoding(4, dropout=1.5), ValueError,
     "dropout: expected a number < 1.0, got 1.5"),
    ("PositionalEncoding.forward/long", lambda: al.PositionalEncoding(4, max_len=2)(Q), ValueError,
     "X: expected at most max_len=2 positions, got 3"),
    ("PositionalEncoding.forward/int", lambda: al.PositionalEncoding(4)(torch.ones(1, 2, 4, dtype=torch.long)), TypeError,
     "X: expected a floating-point tensor, got dtype torch.int64"),
    # ---- efficient
    ("tiled_attention/block", lambda: al.tiled_attention(Q, K, V, block_size=0), ValueError,
     "block_size: expected an int >= 1, got 0"),
    ("tiled_attention/block type", lambda: al.tiled_attention(Q, K, V, block_size="8"), TypeError,
     "block_size: expected an int, got str"),
    ("tiled_attention/d=0", lambda: al.tiled_attention(Q0, K0, V0), ValueError, "queries: expected at least one feature"),
    ("tiled_attention/mask", lambda: al.tiled_attention(Q, K, V, torch.ones(3, 5)), TypeError, "mask: expected dtype torch.bool"),
    ("tiled_attention/causal", lambda: al.tiled_attention(Q, K, V, causal=1), TypeError, "causal: expected True or False, got int 1"),
    ("tiled_attention/tiles", lambda: al.tiled_attention(torch.ones(20000, 2), torch.ones(20000, 2), torch.ones(20000, 2),
                                                         block_size=1), ValueError,
     "block_size: expected at most 1000000 tiles, got block_size=1 with Tq=20000, Tk=20000 makes 400000000 tiles, "
     "one Python step each; block_size >= 201 makes at most 10000"),
    ("linear_attention/name", lambda: al.linear_attention(Q, K, V, feature_map="relu"), ValueError,
     "feature_map: expected 'elu' or a callable, got 'relu'"),
    ("linear_attention/type", lambda: al.linear_attention(Q, K, V, feature_map=3), ValueError,
     "feature_map: expected 'elu' or a callable, got 3"),
    ("linear_attention/output", lambda: al.linear_attention(Q, K, V, feature_map=lambda x: x.sum(-1)), ValueError,
     "feature_map: expected a tensor shaped like queries (2, 3) + (d',) with one d' for queries and keys, got (2, 3) for queries"),
    ("linear_attention/d=0", lambda: al.linear_attention(Q0, K0, V0), ValueError, "queries: expected at least one feature"),
    # ---- plotting
    ("text_color/colour", lambda: plotting.text_color("not a colour"), ValueError,
     "color: expected a matplotlib colour such as '#E69F00' or 'C1', got 'not a colour'"),
    ("to_numpy/str", lambda: plotting.to_numpy("abc"), TypeError, "x: expected a tensor or an array of numbers, got str 'abc'"),
    ("live_title/ax", lambda: plotting.live_title("ax", "t"), TypeError, "ax: expected a matplotlib Axes, got str"),
    ("live_title/text", lambda: plotting.live_title(Figure().subplots(), 3), TypeError, "text: expected a str, got int"),
    ("heatmap/str", lambda: plotting.heatmap("abc"), TypeError, "weights: expected a tensor or an array of numbers, got str"),
    ("heatmap/rank", lambda: plotting.heatmap(torch.ones(3)), ValueError, "weights: expected a 2-D (Tq, Tk) matrix, got shape (3,)"),
    ("heatmap/ragged", lambda: plotting.heatmap([[1.0], [1.0, 2.0]]), TypeError,
     "weights: expected a tensor or a rectangular array of numbers, got list that is neither"),
    ("heatmap/x_labels", lambda: plotting.heatmap(W, x_labels=["a"]), ValueError,
     "x_labels: expected 4 labels (one per column (key)), got 1"),
    ("heatmap/y_labels", lambda: plotting.heatmap(W, y_labels=list("abcdef")), ValueError,
     "y_labels: expected 3 labels (one per row (query)), got 6"),
    ("heatmap/labels str", lambda: plotting.heatmap(W, x_labels="abcd"), TypeError,
     "x_labels: expected a sequence of 4 labels (one per column (key)), got str"),
    ("heatmap/vmin", lambda: plotting.heatmap(W, vmin=1.0, vmax=0.0), ValueError, "vmin: expected a number below vmax=0, got 1"),
    ("heatmap/vmax", lambda: plotting.heatmap(W, vmax=float("nan")), ValueError, "vmax: expected a finite number, got nan"),
    ("heatmap/vmax str", lambda: plotting.heatmap(W, vmax="1"), TypeError, "vmax: expected a real number, got str"),
    ("heatmap/fmt", lambda: plotting.heatmap(W, fmt="{:d}"), ValueError,
     "fmt: expected a format string for one float such as '{:.2f}', got '{:d}'"),
    ("heatmap/fmt type", lambda: plotting.heatmap(W, fmt=3), TypeError, "fmt: expected a format string such as '{:.2f}', got int"),
    ("heatmap/cmap", lambda: plotting.heatmap(W, cmap="nope"), ValueError,
     "cmap: expected a matplotlib colormap name such as 'viridis', got 'nope'"),
    ("heatmap/ax", lambda: plotting.heatmap(W, ax="a"), TypeError, "ax: expected a matplotlib Axes or None, got str"),
    ("heatmap/annotate", lambda: plotting.heatmap(W, annotate="yes"), TypeError,
     "annotate: expected True, False or None, got str 'yes'"),
    ("heatmap/colorbar", lambda: plotting.heatmap(W, colorbar=None), TypeError, "colorbar: expected True or False, got None"),
    ("update_heatmap/ax", lambda: plotting.update_heatmap(plt.subplots()[1], W), ValueError,
     "ax: expected an Axes drawn by attnlab.ui.plotting.heatmap, got <Axes: >"),
    ("update_heatmap/rank", lambda: plotting.update_heatmap(plotting.heatmap(W), torch.ones(2, 2, 2)), ValueError,
     "weights: expected a 2-D (Tq, Tk) matrix, got shape (2, 2, 2)"),
    ("update_heatmap/labels", lambda: plotting.update_heatmap(plotting.heatmap(W, x_labels=list("abcd")), torch.ones(2, 2)),
     ValueError, "x_labels: expected 2 labels (one per column (key)), got 4"),
    ("heatmap_state/ax", lambda: plotting.heatmap_state("a"), ValueError,
     "ax: expected an Axes drawn by attnlab.ui.plotting.heatmap, got 'a'"),
    ("heads_grid/rank", lambda: plotting.heads_grid(W), ValueError, "weights: expected (H, Tq, Tk), got shape (3, 4)"),
    ("heads_grid/empty", lambda: plotting.heads_grid(torch.ones(0, 2, 2)), ValueError,
     "weights: expected at least one head, got shape (0, 2, 2)"),
    ("heads_grid/titles", lambda: plotting.heads_grid(torch.ones(3, 2, 2), titles=["a"]), ValueError,
     "titles: expected 3 labels (one per head), got 1"),
    ("heads_grid/axes", lambda: plotting.heads_grid(torch.ones(3, 2, 2), axes=plt.subplots(1, 2)[1]), ValueError,
     "axes: expected at least 3 Axes (one per head), got 2"),
    ("heads_grid/axes type", lambda: plotting.heads_grid(torch.ones(1, 2, 2), axes=["a"]), TypeError,
     "axes[0]: expected a matplotlib Axes, got str"),
    ("weights_summary/rank", lambda: plotting.weights_summary(torch.ones(3)), ValueError,
     "weights: expected a 2-D (Tq, Tk) matrix, got shape (3,)"),
    ("weights_summary/labels", lambda: plotting.weights_summary(W, x_labels=["a"]), ValueError,
     "x_labels: expected 4 labels (one per column (key)), got 1"),
    ("weights_summary/top", lambda: plotting.weights_summary(W, top=0), ValueError, "top: expected an int >= 1, got 0"),
    ("weights_summary/top type", lambda: plotting.weights_summary(W, top="2"), TypeError, "top: expected an int, got str"),
    # ---- selfcheck (the author's arguments; the learner's answers are reported, see test_selfcheck.py)
    ("numeric/answer str", lambda: selfcheck.numeric("?", "abc"), TypeError, "answer: expected a real number, got str"),
    ("numeric/answer nan", lambda: selfcheck.numeric("?", float("nan")), ValueError, "answer: expected a finite number, got nan"),
    ("numeric/answer bool", lambda: selfcheck.numeric("?", True), TypeError, "answer: expected a real number, got bool"),
    ("numeric/tolerance", lambda: selfcheck.numeric("?", 1, tolerance=-1), ValueError, "tolerance: expected a number >= 0, got -1.0"),
    ("numeric/tolerance str", lambda: selfcheck.numeric("?", 1, tolerance="a"), TypeError,
     "tolerance: expected a real number, got str"),
    ("numeric/tolerance inf", lambda: selfcheck.numeric("?", 1, tolerance=float("inf")), ValueError,
     "tolerance: expected a finite number, got inf"),
    ("numeric/hint", lambda: selfcheck.numeric("?", 1, hint=3), TypeError, "hint: expected a str, got int"),
    ("numeric/question", lambda: selfcheck.numeric(3, 1), TypeError, "question: expected a str (HTML allowed), got int"),
    ("multiple_choice/options", lambda: selfcheck.multiple_choice("?", "ab", "a"), TypeError,
     "options: expected a non-empty dict {option: feedback}, got str 'ab'"),
    ("multiple_choice/empty", lambda: selfcheck.multiple_choice("?", {}, "a"), ValueError,
     "options: expected a non-empty dict {option: feedback}, got {}"),
    ("multiple_choice/feedback", lambda: selfcheck.multiple_choice("?", {"a": 1}, "a"), TypeError,
     "options: expected str options mapped to str feedback, got [('str', 'int')]"),
    ("multiple_choice/solution", lambda: selfcheck.multiple_choice("?", {"a": ""}, "a", solution=3), TypeError,
     "solution: expected a str (HTML allowed), got int"),
    ("check_function/cases", lambda: selfcheck.check_function(abs, abs, 3), TypeError,
     "cases: expected a list or tuple, got int"),
    ("check_function/case", lambda: selfcheck.check_function(abs, abs, [1.0]), TypeError,
     "cases: expected each case to be a tuple of arguments, got float for case 1 (write (1.0,) for one argument)"),
    ("check_function/reference", lambda: selfcheck.check_function(abs, 3, [(1.0,)]), TypeError,
     "reference: expected a function, got int"),
    ("check_function/reference output", lambda: selfcheck.check_function(abs, lambda x: "a", [(1.0,)]), TypeError,
     "reference: expected a tensor (or numbers) for every case, got str for case 1"),
    ("check_function/atol", lambda: selfcheck.check_function(abs, abs, [(1.0,)], atol=-1), ValueError,
     "atol: expected a number >= 0, got -1.0"),
    ("check_function/rtol", lambda: selfcheck.check_function(abs, abs, [(1.0,)], rtol=float("nan")), ValueError,
     "rtol: expected a finite number, got nan"),
    ("check_function/hints", lambda: selfcheck.check_function(abs, abs, [(1.0,)], hints="x"), TypeError,
     "hints: expected a list or tuple, got str"),
    ("check_function/hint", lambda: selfcheck.check_function(abs, abs, [(1.0,)], hints=[3]), TypeError,
     "hints: expected a Hint or a (function, message) pair, got 3"),
    ("mistake/message", lambda: selfcheck.mistake(abs, 3), TypeError, "message: expected a str, got int"),
    ("symptom/predicate", lambda: selfcheck.symptom(3, "m"), TypeError,
     "predicate: expected a function (output, *case) -> bool, got int"),
    ("mistake/wrong", lambda: selfcheck.mistake(3, "m"), TypeError,
     "wrong: expected a function with the reference's arguments, got int"),
]


@pytest.mark.parametrize("call,exc,message", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_bad_input_is_a_clear_error(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()


def test_every_public_callable_has_a_row():
    covered = {r[0].split("/")[0].split(".")[0] for r in ROWS} | {"default_device"}
    public = {n if n != "scaled_dot_product_attention" else "sdpa" for n in al.__all__}
    public |= {n for n in dir(plotting) if callable(getattr(plotting, n)) and not n.startswith("_")
               and not n.endswith("_unchecked")                                # checked by their caller, once
               and getattr(getattr(plotting, n), "__module__", "") == "attnlab.ui.plotting"
               and not isinstance(getattr(plotting, n), type)}           # not the HeatmapState record
    public |= {"numeric", "multiple_choice", "check_function", "mistake", "symptom"}
    assert public - covered == set()


@pytest.mark.parametrize("value,message", [
    ("meta", "ATTNLAB_DEVICE: expected a device that holds values such as 'cpu' or 'cuda', got 'meta'"),
    ("gpu", "ATTNLAB_DEVICE: expected a torch device such as 'cpu' or 'cuda:0', got 'gpu'"),
    ("cuda:x", "ATTNLAB_DEVICE: expected a torch device such as 'cpu' or 'cuda:0', got 'cuda:x'"),
])
def test_default_device_refuses_a_bad_override(monkeypatch, value, message):
    monkeypatch.setenv("ATTNLAB_DEVICE", value)
    with pytest.raises(ValueError, match=re.escape(message)):
        al.default_device()


def test_sizes_are_refused_before_any_allocation(monkeypatch):
    """The size checks run before torch allocates: a spy on the allocating factories sees no call."""
    calls = []
    for name in ("ones", "empty", "zeros", "arange", "rand", "randn"):
        real = getattr(torch, name)
        monkeypatch.setattr(torch, name, lambda *a, _real=real, **k: calls.append(a) or _real(*a, **k))
    for call in (lambda: al.causal_mask(BIG, BIG), lambda: al.sinusoidal_encoding(10**9, 512),
                 lambda: al.PositionalEncoding(512, max_len=10**9)):
        with pytest.raises(ValueError, match="of at most 1 GiB"):
            call()
    assert calls == []


def test_tiled_attention_warns_with_the_numbers_past_ten_thousand_tiles():
    x = torch.zeros(1, 101, 1)
    with pytest.warns(UserWarning, match=re.escape(
            "tiled_attention is slow here: block_size=1 with Tq=101, Tk=101 makes 10201 tiles, one Python step "
            "each; block_size >= 2 makes at most 2601")):
        al.tiled_attention(x, x, x, block_size=1)


def test_numpy_labels_and_axes_arrays_are_accepted():
    ax = plotting.heatmap(W, x_labels=np.array(list("abcd")), y_labels=("x", "y", "z"))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x", "y", "z"]
