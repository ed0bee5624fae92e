"""The lessons' public callables, one good call each, and the bad variants made from a good call by
replacing one argument (shared by tests/lessons/test_lesson_bad_inputs.py and bench/probe_lessons.py).

    GOOD = [(lesson, name, fn, args, kwargs)]      a call that works (its inputs are not modified)
    call(fn, args, kwargs)                          runs it (Lazy values built first; a generator's first step)
    variants(value)                                 [(label, bad value, kind)] for one good value

A replacement is made by the kind of the good value: a tensor gets a str, an integer dtype (or a
float one for id tensors), a shape with an extra dim; an int gets a str, 2.5, -1 and 10**9; a float
gets a str, NaN and inf; a str gets 3 and "nope"; a bool gets "yes"; anything else gets a str.
Each is a bad argument ("raise"), except 10**9 ("bounded": refused with the limit, or done in time).
"""
import math

import matplotlib

matplotlib.use("Agg")
import torch
from matplotlib.figure import Figure

from attnlab.lessons import (
    nb00_index as nb00,
    nb01_kernel_regression as nb01,
    nb02_scoring_functions as nb02,
    nb03_multi_head_attention as nb03,
    nb04_self_attention_walkthrough as nb04,
    nb05_cat_milk_it as nb05,
    nb06_positional_encoding as nb06,
    nb07_masks_and_efficient_attention as nb07,
    nb08_bahdanau_attention as nb08,
    nb09_transformer_block as nb09,
    nb10_encoder_decoder as nb10,
)
from attnlab.ui import plotting


def every_name(lesson):
    """A lesson package's modules' public names in one namespace: its package exports only what its
    notebook uses, and these calls reach every public helper of every module."""
    import importlib
    import pkgutil
    from types import SimpleNamespace
    names = {}
    for info in pkgutil.iter_modules(lesson.__path__):
        module = importlib.import_module(f"{lesson.__name__}.{info.name}")
        names |= {n: getattr(module, n) for n in module.__all__}
    return SimpleNamespace(**names)


nb00, nb01, nb02, nb03, nb04, nb05 = map(every_name, (nb00, nb01, nb02, nb03, nb04, nb05))
from attnlab.lessons.nb06_positional_encoding import figures as nb06_figures
from attnlab.lessons.nb07_masks_and_efficient_attention import (
    costs as nb07_costs,
    exercises as nb07_exercises,
    figures as nb07_figures,
    masks as nb07_masks,
    tiles as nb07_tiles,
)
from attnlab.lessons.nb08_bahdanau_attention import (
    dates as nb08_dates,
    exercises as nb08_exercises,
    figures as nb08_figures,
    gru_pooling as nb08_gru_pooling,
    seq2seq as nb08_seq2seq,
)
from attnlab.lessons.nb09_transformer_block import (
    data as nb09_data,
    figures as nb09_figures,
    live as nb09_live,
    model as nb09_model,
    training as nb09_training,
)
from attnlab.lessons.nb10_encoder_decoder import (
    analysis as nb10_analysis,
    data as nb10_data,
    model as nb10_model,
    training as nb10_training,
)


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


def _r(*shape, seed=0):
    return torch.randn(*shape, generator=_g(seed), dtype=torch.float64)


def ax():
    return Figure().subplots()


class Lazy:
    """A value built when the case runs (figures, models)."""

    def __init__(self, make):
        self.make = make


def _ids(x):
    return isinstance(x, torch.Tensor) and not x.is_floating_point()


X1 = torch.linspace(0, 5, 8, dtype=torch.float64)
Y1 = torch.sin(X1)
W8 = torch.softmax(_r(8, 8), -1)
Q2, K2 = _r(3, 2), _r(4, 2, seed=1)
STEPS04 = nb04.self_attention_steps(_r(6, 4), _r(4, 3, seed=1), _r(4, 3, seed=2), _r(4, 3, seed=3))
WORDS6 = ["the", "cat", "sat", "on", "the", "mat"]
X05 = torch.tensor([[1.0, 2.0], [3.0, 0.5], [2.0, 2.0]], dtype=torch.float64)
P06 = torch.sin(_r(20, 8))
QKV07 = nb07.toy_problem()
STATES07 = list(nb07.tiled_attention_steps(*QKV07))
_NB08 = Lazy(lambda: nb08.pretrained())
_NB09 = Lazy(lambda: nb09.pretrained())
_RES09 = Lazy(lambda: nb09.resolve(nb09.pretrained(), nb09_live.EXAMPLE))
_NB10 = Lazy(lambda: nb10.pretrained())
_NB10_SMALL = Lazy(lambda: nb10_model.DateTransformer(num_hiddens=16, num_heads=2, num_layers=1, ffn_hiddens=32).eval())
_SRC10 = nb10_data.encode_sources(["7 mar 1994", "03/07/1994"])
_W08 = torch.softmax(_r(nb08_figures.ROWS, 11), -1)

GOOD = [
    ("nb00", "gallery", nb00.gallery, (["01_kernel_regression"],), {"columns": 3}),
    ("nb00", "gallery_html", nb00.gallery_html, (["01_kernel_regression"],), {"columns": 4}),
    ("nb00", "thumbnail_path", nb00.thumbnail_path, ("01_kernel_regression",), {}),
    ("nb00", "title", nb00.title, ("01_kernel_regression",), {}),
    ("nb00", "play", nb00.play, (), {"scores": (1.0, 2.0, 3.0), "temperature": 1.0}),

    ("nb01", "play", nb01.play, (), {"sigma": 0.3, "n_train": 50, "query": 4.0}),
    ("nb01", "play_trainer", nb01.play_trainer, (), {"explorer": Lazy(lambda: nb01.play()), "steps": 30}),
    ("nb01", "NWKernelRegression", nb01.NWKernelRegression, (1.0,), {"dtype": torch.float64}),
    ("nb01", "fit_lines", nb01.fit_lines, (Lazy(ax), X1, Y1, Y1, X1, Y1), {"label": "prediction"}),
    ("nb01", "kernel_regression_plot", nb01.kernel_regression_plot, (X1, Y1, Y1, X1, Y1), {"ax": Lazy(ax)}),
    ("nb01", "leave_one_out", nb01.leave_one_out, (X1, Y1), {}),
    ("nb01", "pooling_weights", nb01.pooling_weights, (X1[:3], X1, Y1), {"sigma": 0.3}),
    ("nb01", "predict", nb01.predict, (Lazy(lambda: nb01.NWKernelRegression(1.0)), X1, Y1, X1[:3]), {}),
    ("nb01", "train_bandwidth", nb01.train_bandwidth, (X1, Y1), {"epochs": 2, "lr": 0.1, "seed": 0}),
    ("nb01", "train_steps", nb01.train_steps, (X1, Y1), {"epochs": 2, "lr": 0.1, "seed": 0}),
    ("nb01", "training_loss", nb01.training_loss, (X1, Y1, 0.3), {}),
    ("nb01", "training_loss_curve", nb01.training_loss_curve, (X1, Y1, torch.tensor([0.1, 0.3], dtype=torch.float64)), {}),
    ("nb01", "weight_maps", nb01.weight_maps, (X1, X1, [(W8, 0.3)]), {"row": 2, "every": 2}),
    ("nb01", "thumbnail", nb01.thumbnail, (Lazy(ax),), {}),

    ("nb02", "play", nb02.play, (),
     {"method": "dot", "d_k": 16, "temperature": 1.0, "n": 8, "num_queries": 64, "seed": 0}),
    ("nb02", "centre_rows", nb02.centre_rows, (_r(3, 4),), {}),
    ("nb02", "histogram_density", nb02.histogram_density, (_r(50), torch.linspace(-3, 3, 7, dtype=torch.float64)), {}),
    ("nb02", "key_choice", nb02.key_choice, (Q2, K2), {"method": "scaled_dot"}),
    ("nb02", "key_choice_plot", nb02.key_choice_plot, (K2, {"dot": torch.tensor([1, 0, 2, 0])}), {"ax": Lazy(ax)}),
    ("nb02", "random_queries_keys", nb02.random_queries_keys, (3, 4, 2), {"generator": _g()}),
    ("nb02", "row_entropy", nb02.row_entropy, (W8,), {}),
    ("nb02", "scaling_hint", nb02.scaling_hint, (lambda q, k: q @ k.T / math.sqrt(q.shape[-1]), Q2, K2), {}),
    ("nb02", "score_statistics", nb02.score_statistics, (8, "scaled_dot"), {"num_queries": 16, "num_keys": 8, "seed": 0}),
    ("nb02", "scores", nb02.scores, (Q2, K2, "scaled_dot"), {}),
    ("nb02", "seeded_additive", nb02.seeded_additive, (2, 2, 3), {"seed": 0}),
    ("nb02", "softmax_jacobian_norm", nb02.softmax_jacobian_norm, (W8,), {}),
    ("nb02", "vectors_and_weights", nb02.vectors_and_weights,
     (Q2, K2, {"dot": torch.softmax(Q2 @ K2.T, -1)}, ["k1", "k2", "k3", "k4"], ["q1", "q2", "q3"]), {}),
    ("nb02", "thumbnail", nb02.thumbnail, (Lazy(ax),), {}),

    ("nb03", "embed", nb03.embed, (("the cat sat on the mat", "the cat sat"),), {"length": 6}),
    ("nb03", "head_blocks_plot", nb03.head_blocks_plot, (_r(4, 8), 2), {"ax": Lazy(ax)}),
    ("nb03", "head_projections", nb03.head_projections, ("previous",), {"target": "cat", "strength": 4.0}),
    ("nb03", "head_readout", nb03.head_readout, (Lazy(lambda: nb03.toy_multihead(4)(*(nb03.embed()[0],) * 3)), 4), {}),
    ("nb03", "head_titles", nb03.head_titles, (3,), {"target": "cat"}),
    ("nb03", "mark_padding", nb03.mark_padding, (Lazy(lambda: plotting.heatmap(W8, ax=ax())), 3), {}),
    ("nb03", "multihead", nb03.multihead, (_r(2, 3, 4), _r(4, 4), _r(4, 4, seed=1), _r(4, 4, seed=2), _r(4, 4, seed=3), 2), {}),
    ("nb03", "play", nb03.play, (), {"heads": 4, "temperature": 1.0, "causal": False, "valid_len_0": 6, "valid_len_1": 3}),
    ("nb03", "readout_table", nb03.readout_table, (torch.rand(3, 2, len(nb03.VOCAB), generator=_g()), ["the", "cat", "sat"], ["a", "b"]), {}),
    ("nb03", "toy_multihead", nb03.toy_multihead, (4,), {"target": "cat", "strength": 4.0}),
    ("nb03", "check_split_heads", nb03.check_split_heads, (lambda X, h: X,), {}),
    ("nb03", "thumbnail", nb03.thumbnail, (Lazy(ax),), {}),

    ("nb04", "cost_plot", nb04.cost_plot, (512, 3, None), {"ax": Lazy(ax)}),
    ("nb04", "crossover", nb04.crossover, (512, 3, "RNN"), {}),
    ("nb04", "describe_step", nb04.describe_step, (STEPS04, WORDS6, 3, 1), {}),
    ("nb04", "draw_step_table", nb04.draw_step_table, (nb04.step_table(STEPS04, WORDS6), WORDS6), {"ax": Lazy(ax)}),
    ("nb04", "layer_cost", nb04.layer_cost, ("RNN", 10, 4, 3), {}),
    ("nb04", "path_length", nb04.path_length, ("CNN", 10, 3), {}),
    ("nb04", "path_plot", nb04.path_plot, (3, None), {"ax": Lazy(ax)}),
    ("nb04", "self_attention_steps", nb04.self_attention_steps, (_r(6, 4), _r(4, 3), _r(4, 3), _r(4, 3)), {}),
    ("nb04", "sentence_attention", nb04.sentence_attention, (64,), {"causal": False, "padding": 1, "seed": 0}),
    ("nb04", "short", nb04.short, (_r(6), 4, "{:.2f}"), {}),
    ("nb04", "step_table", nb04.step_table, (STEPS04, WORDS6, 0, 6), {}),
    ("nb04", "check_attention", nb04.check_attention, (lambda q, k, v: v,), {}),
    ("nb04", "thumbnail", nb04.thumbnail, (Lazy(ax),), {}),

    ("nb05", "attend", nb05.attend, (X05, "inside"), {"d": 4, "temperature": 1.0}),
    ("nb05", "compare_to_seed", nb05.compare_to_seed, (["a", "b", "c"], X05, X05.tolist()), {"decimals": 3}),
    ("nb05", "feature_heads", nb05.feature_heads, (X05,), {"temperature": 1.0}),
    ("nb05", "formula", nb05.formula, ("inside", 4), {}),
    ("nb05", "moves_plot", nb05.moves_plot, (["cat", "milk", "it"], X05, X05 + 1), {"ax": Lazy(ax)}),
    ("nb05", "similarities", nb05.similarities, (X05, ["cat", "milk", "it"]), {"of": "it", "to": ("milk", "cat")}),
    ("nb05", "word_sliders", nb05.word_sliders, (), {"low": -1.0, "high": 5.0}),
    ("nb05", "play", nb05.play, (), {"sentence": "sweet", "scaling": "inside", "d": 4, "T": 1.0}),
    ("nb05", "check_attend", nb05.check_attend, (lambda X, d: X,), {}),
    ("nb05", "thumbnail", nb05.thumbnail, (Lazy(ax),), {}),

    ("nb06", "frequencies", nb06.frequencies, (8, 10000.0), {}),
    ("nb06", "wavelengths", nb06.wavelengths, (8, 10000.0), {}),
    ("nb06", "rotation_matrix", nb06.rotation_matrix, (3, 8, 10000.0), {}),
    ("nb06", "offset_similarity", nb06.offset_similarity, (torch.arange(4.0, dtype=torch.float64), 8, 10000.0), {}),
    ("nb06", "similarity_by_offset", nb06.similarity_by_offset, (P06, 5), {}),
    ("nb06", "rope", nb06.rope, (_r(5, 8), torch.arange(5), 10000.0), {}),
    ("nb06", "encoding_heatmap", nb06.encoding_heatmap, (P06,), {"ax": Lazy(ax), "vmax": 1.0}),
    ("nb06", "encoding_image", nb06_figures.encoding_image, (P06, Lazy(ax)), {"vmax": 1.0}),
    ("nb06", "encoding_columns_plot", nb06.encoding_columns_plot, (P06, (1, 2)), {"ax": Lazy(ax)}),
    ("nb06", "binary_counter_plot", nb06_figures.binary_counter_plot, (3,), {"ax": Lazy(ax)}),
    ("nb06", "counter_vs_columns_figure", nb06.counter_vs_columns_figure, (60, 32, (0, 2, 4)), {"base": 10000.0}),
    ("nb06", "similarity_figure", nb06.similarity_figure, (P06,), {"base": 10000.0}),
    ("nb06", "rotation_circle_figure", nb06.rotation_circle_figure, (P06, 1, (0, 5), 3), {}),
    ("nb06", "play", nb06.play, (), {"n": 60, "position": 10, "pair": 3, "width": 32, "base": 10000.0}),
    ("nb06", "check_sinusoidal", nb06.check_sinusoidal, (lambda n, d: torch.zeros(n, d),), {}),
    ("nb06", "thumbnail", nb06.thumbnail, (Lazy(ax),), {}),

    ("nb07", "structured_qkv", nb07.structured_qkv, (16, 4, 2), {"locality": 2.0, "noise": 0.5, "seed": 0}),
    ("nb07", "relative_error", nb07_costs.relative_error, (_r(3, 2), _r(3, 2, seed=1)), {}),
    ("nb07", "approximation_errors", nb07.approximation_errors, nb07.structured_qkv(16, 4, 2),
     {"windows": (0, 1), "blocks": (1, 2)}),
    ("nb07", "flops", nb07.flops, ("dense", 128, 64), {"window": 64, "block_size": 64}),
    ("nb07", "memory_bytes", nb07.memory_bytes, ("dense", 128, 64), {"window": 64, "block_size": 128}),
    ("nb07", "causal_mask_bottom_right", nb07.causal_mask_bottom_right, (3, 5), {}),
    ("nb07", "block_mask", nb07.block_mask, (4, 4, 2), {}),
    ("nb07", "make_mask", nb07_masks.make_mask, ("local", 4, 6), {"window": 2, "block_size": 4}),
    ("nb07", "masked_row_conventions", nb07.masked_row_conventions, (_r(3, 4), torch.rand(3, 4, generator=_g()) > 0.5), {}),
    ("nb07", "global_mask", nb07_masks.global_mask, (4, 4, (0,)), {}),
    ("nb07", "random_mask", nb07_masks.random_mask, (4, 6, 2), {"generator": _g()}),
    ("nb07", "log_sparse_mask", nb07_masks.log_sparse_mask, (8,), {}),
    ("nb07", "lsh_buckets", nb07_masks.lsh_buckets, (_r(6, 4), 4), {"generator": _g()}),
    ("nb07", "lsh_mask", nb07_masks.lsh_mask, (_r(6, 4), 4), {"generator": _g()}),
    ("nb07", "sparse_patterns", nb07.sparse_patterns, (16,), {"window": 1, "num_random": 2, "num_buckets": 4, "seed": 0}),
    ("nb07", "SeedDotProductAttention", nb07.SeedDotProductAttention, (4, 4), {"fixed": True}),
    ("nb07", "score_spread", nb07.score_spread, (16,), {"samples": 200, "seed": 0}),
    ("nb07", "tiled_attention_steps", nb07.tiled_attention_steps, QKV07, {"block_size": 2, "causal": False}),
    ("nb07", "implied_weights", nb07_tiles.implied_weights, (STATES07, 8), {}),
    ("nb07", "toy_problem", nb07.toy_problem, (8, 4), {"seed": 4, "scale": 1.5}),
    ("nb07", "mask_heatmap", nb07_figures.mask_heatmap, (torch.ones(3, 4, dtype=torch.bool), Lazy(ax)), {}),
    ("nb07", "mask_gallery", nb07.mask_gallery, ({"a": torch.ones(3, 4, dtype=torch.bool)},), {"ncols": 3}),
    ("nb07", "error_plot", nb07.error_plot,
     ({"toy": nb07.approximation_errors(*nb07.structured_qkv(16, 4, 2), windows=(0, 1), blocks=(1, 2))},),
     {"num_keys": 16}),
    ("nb07", "weights_so_far_figure", nb07.weights_so_far_figure, (STATES07, 8), {"tiles": 4, "queries": 2}),
    ("nb07", "memory_plot", nb07.memory_plot, ([128, 1024], 64), {"block_size": 128}),
    ("nb07", "play", nb07.play, (), {"kind": "local", "num_queries": 12, "num_keys": 12, "w": 2, "max_len": 12}),
    ("nb07", "play_tiles", nb07.play_tiles, (), dict(zip(("queries", "keys", "values"), QKV07), tile=2, block=2)),
    ("nb07", "tile_update", nb07_exercises.tile_update, (torch.full((2, 1), float("-inf"), dtype=torch.float64),
     torch.zeros(2, 1, dtype=torch.float64), torch.zeros(2, 3, dtype=torch.float64), _r(2, 4), _r(4, 3, seed=1)), {}),
    ("nb07", "mask_key", nb07.mask_key, (Lazy(Figure),), {}),
    ("nb04", "play", nb04.play, (), {"step": 4, "d_k": 64, "causal": False, "padding": 2}),
    ("nb06", "update_encoding_heatmap", nb06_figures.update_encoding_heatmap,
     (Lazy(lambda: nb06.encoding_heatmap(P06, ax=ax())), P06[:5]), {}),
    ("nb08", "update_alignment", nb08_figures.update_alignment,
     (Lazy(lambda: nb08.alignment_heatmap(_W08, "17 mar 1994", "1994-03-17", ax=ax())), _W08, "17 mar 1994", "1994-03-17"), {}),
    ("nb07", "check_bottom_right", nb07.check_bottom_right, (lambda q, k: torch.ones(q, k, dtype=torch.bool),), {}),
    ("nb07", "thumbnail", nb07.thumbnail, (Lazy(ax),), {}),

    ("nb08", "random_dates", nb08.random_dates, (3,), {"seed": 0, "first_year": 1950, "last_year": 2049}),
    ("nb08", "check_source", nb08_dates.check_source, ("17 mar 1994",), {}),
    ("nb08", "encode_sources", nb08_dates.encode_sources, (["17 mar 1994"],), {}),
    ("nb08", "encode_targets", nb08_dates.encode_targets, (["1994-03-17"],), {}),
    ("nb08", "decode_targets", nb08_dates.decode_targets, (nb08_dates.encode_targets(["1994-03-17"])[1],), {}),
    ("nb08", "SeedGRUAttention", nb08.SeedGRUAttention, (3, 4, 2), {"fixed": True}),
    ("nb08", "pool", nb08_gru_pooling.pool, (_r(5, 2, 6), torch.softmax(_r(2, 5, 1), 1)), {"fixed": True}),
    ("nb08", "DateTranslator", nb08_seq2seq.DateTranslator, ("additive",), {"embed": 16, "hidden": 32, "seed": 0}),
    ("nb08", "translate", nb08.translate, (_NB08, ["17 mar 1994"]), {}),
    ("nb08", "trace", nb08.trace, (_NB08, "17 mar 1994"), {}),
    ("nb08", "train", nb08_seq2seq.train, (Lazy(lambda: nb08_seq2seq.DateTranslator()), 2), {"batch_size": 4, "lr": 0.01, "seed": 0}),
    ("nb08", "train_steps", nb08_seq2seq.train_steps, (Lazy(lambda: nb08_seq2seq.DateTranslator()), 2), {"batch_size": 4, "lr": 0.01, "seed": 0}),
    ("nb08", "accuracy", nb08.accuracy, (_NB08, 5), {"seed": 1}),
    ("nb08", "pretrained", nb08.pretrained, ("additive",), {}),
    ("nb08", "source_labels", nb08_figures.source_labels, ("17 mar 1994",), {}),
    ("nb08", "output_labels", nb08_figures.output_labels, ("1994-03-17",), {}),
    ("nb08", "alignment_heatmap", nb08.alignment_heatmap, (_W08, "17 mar 1994", "1994-03-17"), {"ax": Lazy(ax)}),
    ("nb08", "alignment", nb08_figures.alignment, (_NB08, "17 mar 1994"), {}),
    ("nb08", "argmax_line", nb08.argmax_line, (_W08, "17 mar 1994", "1994-03-17"), {}),
    ("nb08", "play_trainer", nb08.play_trainer, (),
     {"explorer": Lazy(lambda: nb08.play(models={"a": nb08.pretrained()})), "steps": 80, "seed": 5, "redraws": 16}),
    ("nb08", "play", nb08.play, (), {"models": Lazy(lambda: {"a": nb08.pretrained()}), "text": "17 mar 1994"}),
    ("nb08", "additive_scores", nb08_exercises.additive_scores, (_r(4), _r(5, 6), _r(3, 4), _r(3, 6), _r(3)), {}),
    ("nb08", "context", nb08_exercises.context, (_r(5, 2, 6), torch.softmax(_r(2, 5, 1), 1)), {}),
    ("nb08", "check_context", nb08.check_context, (lambda o, w: o[0],), {}),
    ("nb08", "thumbnail", nb08.thumbnail, (Lazy(ax),), {}),

    ("nb09", "encode", nb09_data.encode, (["the cat drank the milk because it was hungry"],), {}),
    ("nb09", "encoded", nb09_training.encoded, ("test",), {}),
    ("nb09", "examples", nb09.examples, ("test",), {}),
    ("nb09", "generate", nb09_data.generate, (3,), {"split": "train", "seed": 0}),
    ("nb09", "referent", nb09_data.referent, ("hungry", "cat", "milk"), {}),
    ("nb09", "sentence", nb09_data.sentence, (nb09_data.TEMPLATES[0], "cat", "milk", "drink", "hungry"), {}),
    ("nb09", "words_of", nb09_data.words_of, ("The cat drank the milk because it was hungry.",), {}),
    ("nb09", "ItResolver", nb09_model.ItResolver, (), {"num_hiddens": 32, "num_heads": 4, "num_layers": 2, "ffn_hiddens": 64, "seed": 0}),
    ("nb09", "TransformerBlock", nb09.TransformerBlock, (32, 4, 64), {"dropout": 0.0}),
    ("nb09", "resolve", nb09.resolve, (_NB09, "the cat drank the milk because it was hungry"), {}),
    ("nb09", "torch_layer", nb09.torch_layer, (Lazy(lambda: nb09.TransformerBlock(8, 2, 16)),), {}),
    ("nb09", "accuracy", nb09.accuracy, (_NB09, "test"), {}),
    ("nb09", "head_accuracy", nb09.head_accuracy, (_NB09, "test"), {}),
    ("nb09", "peak_kinds", nb09.peak_kinds, (_NB09, "test", 0), {}),
    ("nb09", "batches", nb09_training.batches, ("train", 4, 0), {}),
    ("nb09", "run", nb09_training.run, (2,), {"seed": 0, "eval_every": 10}),
    ("nb09", "train", nb09_training.train, (2,), {}),
    ("nb09", "ablation_bars", nb09.ablation_bars, (Lazy(lambda: nb09.measured()), Lazy(ax)), {}),
    ("nb09", "attention_rows", nb09_figures.attention_rows, (_RES09,), {}),
    ("nb09", "block_diagram", nb09.block_diagram, (Lazy(ax),), {"num_layers": 2}),
    ("nb09", "head_accuracy_map", nb09.head_accuracy_map, (torch.rand(2, 4, generator=_g()), Lazy(ax)), {}),
    ("nb09", "it_attention", nb09.it_attention, (_RES09, Lazy(ax)), {}),
    ("nb09", "pointer_rows", nb09_figures.pointer_rows, (Lazy(ax), [_RES09]), {}),
    ("nb09", "row_labels", nb09_figures.row_labels, (2, 4), {}),
    ("nb09", "describe", nb09.describe, (_RES09,), {}),
    ("nb09", "known_words", nb09_live.known_words, (110,), {}),
    ("nb09", "Explorer", nb09_live.Explorer, (Lazy(lambda: {"a": nb09.pretrained()}),), {"text": nb09_live.EXAMPLE}),
    ("nb09", "play_trainer", nb09.play_trainer, (), {"explorer": None, "steps": 300, "sentence": nb09_live.EXAMPLE}),
    ("nb09", "play", nb09.play, (), {"text": nb09_live.EXAMPLE}),
    ("nb09", "thumbnail", nb09.thumbnail, (Lazy(ax),), {}),
    ("nb10", "random_dates", nb10.random_dates, (3,), {"seed": 0}),
    ("nb10", "training_dates", nb10_data.training_dates, (3, 0), {"formats": ("d mon yyyy",)}),
    ("nb10", "held_out", nb10_data.held_out, ("1994-03-07",), {}),
    ("nb10", "is_date", nb10_data.is_date, ("1994-03-07",), {}),
    ("nb10", "format_of", nb10.format_of, ("7 mar 1994",), {}),
    ("nb10", "check_source", nb10_data.check_source, ("7 mar 1994",), {}),
    ("nb10", "source_problem", nb10_data.source_problem, ("7 mar 1994",), {}),
    ("nb10", "encode_sources", nb10_data.encode_sources, (["7 mar 1994"],), {}),
    ("nb10", "encode_targets", nb10_data.encode_targets, (["1994-03-07"],), {}),
    ("nb10", "decode_targets", nb10_data.decode_targets, (torch.tensor([[4, 5, 2]]),), {}),
    ("nb10", "DateTransformer", nb10_model.DateTransformer, (), {"num_hiddens": 16, "num_heads": 2, "num_layers": 1, "ffn_hiddens": 32, "norm_first": True, "seed": 0}),
    ("nb10", "greedy", nb10_model.greedy, (_NB10_SMALL, _SRC10[0], _SRC10[1]), {"cache": True, "steps": 3}),
    ("nb10", "translate", nb10.translate, (_NB10, ["7 mar 1994"]), {}),
    ("nb10", "decode", nb10.decode, (_NB10, "7 mar 1994"), {"cache": True}),
    ("nb10", "parameters", nb10.parameters, (_NB10,), {}),
    ("nb10", "accuracy", nb10.accuracy, (_NB10, [("7 mar 1994", "1994-03-07")]), {}),
    ("nb10", "run", nb10_training.run, (2,), {"teacher_forcing": True, "seed": 0, "eval_every": 10, "formats": ("d mon yyyy",)}),
    ("nb10", "train", nb10_training.train, (1,), {}),
    ("nb10", "compare_teacher_forcing", nb10_training.compare_teacher_forcing, (1,), {"every": 1}),
    ("nb10", "source_fields", nb10_analysis.source_fields, ("7 mar 1994",), {}),
    ("nb10", "head_alignment", nb10.head_alignment, (_NB10,), {"n": 10}),
    ("nb10", "head_ablations", nb10.head_ablations, (_NB10,), {"n": 10}),
    ("nb10", "without_head", nb10_analysis.without_head, (_NB10, 0, 0), {}),
    ("nb10", "families_figure", nb10.families_figure, (), {"n": 4}),
    ("nb10", "comparison_figure", nb10.comparison_figure, (), {"axes": Lazy(lambda: Figure().subplots(1, 2))}),
    ("nb10", "comparison_lines", nb10.comparison_lines, (), {}),
    ("nb10", "play", nb10.play, (), {"model": _NB10, "text": "7 mar 1994"}),
    ("nb10", "play_trainer", nb10.play_trainer, (), {"steps": 1600}),
    ("nb10", "thumbnail", nb10.thumbnail, (Lazy(ax),), {}),
]


def resolve(v):
    if isinstance(v, Lazy):
        return v.make()
    if isinstance(v, list) and any(isinstance(x, Lazy) for x in v):
        return [resolve(x) for x in v]
    return v


def call(fn, args, kwargs):
    out = fn(*[resolve(a) for a in args], **{k: resolve(v) for k, v in kwargs.items()})
    if hasattr(out, "__next__"):                  # a generator: its first step runs the body
        first = next(out)
        return out if first is None else first
    return out


def variants(value):
    """(label, bad value, kind) replacements for a good value."""
    if isinstance(value, Lazy):
        return [("'abc'", "abc", "raise")]
    if isinstance(value, torch.Tensor):
        other = value.double() if _ids(value) else (value * 3).long()
        out = [("'abc'", "abc", "raise"), (f"dtype {other.dtype}", other, "raise")]
        out.append(("extra dim", value[None, None] if value.dim() else value.reshape(1, 1), "raise"))
        return out
    if isinstance(value, bool):
        return [("'yes'", "yes", "raise")]
    if isinstance(value, int):
        return [("'abc'", "abc", "raise"), ("2.5", 2.5, "raise"), ("-1", -1, "raise"), ("10**9", 10**9, "bounded")]
    if isinstance(value, float):
        return [("'abc'", "abc", "raise"), ("nan", float("nan"), "raise"), ("inf", float("inf"), "raise")]
    if isinstance(value, str):
        return [("3", 3, "raise"), ("'nope'", "nope", "raise")]
    if value is None:
        return []
    return [("3", 3, "raise")]
