"""Bad input to the lessons' public helpers (issue 15): every public callable a lesson re-exports that
takes arguments gets a ValueError/TypeError naming the argument, the expected and the given, before
anything is allocated or drawn; its good call still works and leaves its tensor inputs untouched.

The good calls and the bad variants (one argument replaced) are in tests/_lesson_calls.py, shared with
bench/probe_bad_inputs.py, which counts every variant; the table below pins the full message of at
least one variant per callable (``re.escape``, so the whole text must match).
"""
import inspect
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from _lesson_calls import GOOD, Lazy, call, nb01, nb04, resolve, variants
from attnlab.core import checks as _checks
from attnlab.lessons import (
    nb06_positional_encoding as nb06,
    nb07_masks_and_efficient_attention as nb07,
    nb08_bahdanau_attention as nb08,
    nb10_encoder_decoder as nb10,
)
from attnlab.lessons.nb06_positional_encoding import figures as nb06_figures
from attnlab.lessons.nb07_masks_and_efficient_attention import (
    exercises as nb07_exercises,
    figures as nb07_figures,
    tiles as nb07_tiles,
)
from attnlab.lessons.nb08_bahdanau_attention import exercises as nb08_exercises, seq2seq as nb08_seq2seq
from attnlab.lessons.nb09_transformer_block import training as nb09_training
from attnlab.lessons.nb10_encoder_decoder import model as nb10_model, training as nb10_training

X = torch.linspace(0, 5, 5)
BY_NAME = {(lesson, name): (fn, args, kwargs) for lesson, name, fn, args, kwargs in GOOD}


def ax():
    return Figure().subplots()


def bad_call(lesson, name, arg, label):
    """The good call of lesson.name with ``arg`` replaced by its variant ``label``."""
    fn, args, kwargs = BY_NAME[(lesson, name)]
    params = list(inspect.signature(fn).parameters)
    args, kwargs = list(args), dict(kwargs)
    if arg in kwargs:
        bad = {lab: v for lab, v, _ in variants(kwargs[arg])}[label]
        kwargs[arg] = bad
    else:
        i = params.index(arg)
        bad = {lab: v for lab, v, _ in variants(args[i])}[label]
        args[i] = bad
    return lambda: call(fn, args, kwargs)


# (lesson, callable, argument, variant of tests/_lesson_calls.variants, error, full message)
TABLE = [
    ('nb00', 'gallery', 'names', '3', TypeError, 'names: expected a list or tuple, got int'),
    ('nb00', 'gallery', 'columns', "'abc'", TypeError, "columns: expected an int, got str"),
    ('nb00', 'gallery_html', 'names', '3', TypeError, 'names: expected a list or tuple, got int'),
    ('nb00', 'gallery_html', 'columns', "'abc'", TypeError, "columns: expected an int, got str"),
    ('nb00', 'thumbnail_path', 'name', '3', TypeError, 'name: expected a str, got int'),
    ('nb00', 'title', 'name', '3', TypeError, 'name: expected a str, got int'),
    ('nb00', 'play', 'scores', '3', TypeError, 'scores: expected a list or tuple, got int'),
    ('nb00', 'play', 'temperature', "'abc'", TypeError, 'temperature: expected a real number, got str'),
    ('nb00', 'play', 'temperature', 'nan', ValueError, 'temperature: expected a finite number, got nan'),
    ('nb01', 'play', 'sigma', "'abc'", TypeError, 'sigma: expected a real number, got str'),
    ('nb01', 'play', 'n_train', "'abc'", TypeError, 'n_train: expected an int, got str'),
    ('nb01', 'play', 'query', "'abc'", TypeError, 'query: expected a real number, got str'),
    ('nb01', 'play_trainer', 'explorer', "'abc'", TypeError, 'explorer: expected the Explorer of part 1, got str'),
    ('nb01', 'play_trainer', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb01', 'NWKernelRegression', 'w', "'abc'", TypeError, 'w: expected a real number, got str'),
    ('nb01', 'NWKernelRegression', 'dtype', '3', TypeError, "tensor(): argument 'dtype' must be torch.dtype, not int"),
    ('nb01', 'fit_lines', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb01', 'fit_lines', 'x_test', "'abc'", TypeError, 'x_test: expected a tensor or an array of numbers, got str'),
    ('nb01', 'fit_lines', 'y_truth', "'abc'", TypeError, 'y_truth: expected a tensor or an array of numbers, got str'),
    ('nb01', 'fit_lines', 'y_hat', "'abc'", TypeError, 'y_hat: expected a tensor or an array of numbers, got str'),
    ('nb01', 'kernel_regression_plot', 'x_test', "'abc'", TypeError, 'x_test: expected a tensor or an array of numbers, got str'),
    ('nb01', 'kernel_regression_plot', 'y_truth', "'abc'", TypeError, 'y_truth: expected a tensor or an array of numbers, got str'),
    ('nb01', 'kernel_regression_plot', 'y_hat', "'abc'", TypeError, 'y_hat: expected a tensor or an array of numbers, got str'),
    ('nb01', 'kernel_regression_plot', 'x_train', "'abc'", TypeError, 'x_train: expected a tensor or an array of numbers, got str'),
    ('nb01', 'leave_one_out', 'x_train', "'abc'", TypeError, 'x_train: expected a torch.Tensor, got str'),
    ('nb01', 'leave_one_out', 'y_train', "'abc'", TypeError, 'y_train: expected a torch.Tensor, got str'),
    ('nb01', 'pooling_weights', 'x_queries', "'abc'", TypeError, 'x_queries: expected a torch.Tensor, got str'),
    ('nb01', 'pooling_weights', 'x_train', "'abc'", TypeError, 'x_train: expected a torch.Tensor, got str'),
    ('nb01', 'pooling_weights', 'y_train', "'abc'", TypeError, 'y_train: expected a torch.Tensor, got str'),
    ('nb01', 'pooling_weights', 'sigma', "'abc'", TypeError, 'sigma: expected a real number, got str'),
    ('nb01', 'predict', 'model', "'abc'", TypeError, 'model: expected an NWKernelRegression, got str'),
    ('nb01', 'predict', 'x_train', "'abc'", TypeError, 'x_train: expected a torch.Tensor, got str'),
    ('nb01', 'predict', 'y_train', "'abc'", TypeError, 'y_train: expected a torch.Tensor, got str'),
    ('nb01', 'predict', 'x_queries', "'abc'", TypeError, 'x_queries: expected a torch.Tensor, got str'),
    ('nb01', 'train_bandwidth', 'x_train', "'abc'", TypeError, 'x_train: expected a torch.Tensor, got str'),
    ('nb01', 'train_bandwidth', 'y_train', "'abc'", TypeError, 'y_train: expected a torch.Tensor, got str'),
    ('nb01', 'train_bandwidth', 'epochs', "'abc'", TypeError, 'epochs: expected an int, got str'),
    ('nb01', 'train_bandwidth', 'lr', "'abc'", TypeError, 'lr: expected a real number, got str'),
    ('nb01', 'train_steps', 'x_train', "'abc'", TypeError, 'x_train: expected a torch.Tensor, got str'),
    ('nb01', 'train_steps', 'y_train', "'abc'", TypeError, 'y_train: expected a torch.Tensor, got str'),
    ('nb01', 'train_steps', 'epochs', "'abc'", TypeError, 'epochs: expected an int, got str'),
    ('nb01', 'train_steps', 'lr', "'abc'", TypeError, 'lr: expected a real number, got str'),
    ('nb01', 'training_loss', 'x_train', "'abc'", TypeError, 'x_train: expected a torch.Tensor, got str'),
    ('nb01', 'training_loss', 'y_train', "'abc'", TypeError, 'y_train: expected a torch.Tensor, got str'),
    ('nb01', 'training_loss', 'sigma', "'abc'", TypeError, 'sigma: expected a real number, got str'),
    ('nb01', 'training_loss_curve', 'x_train', "'abc'", TypeError, 'x_train: expected a torch.Tensor, got str'),
    ('nb01', 'training_loss_curve', 'y_train', "'abc'", TypeError, 'y_train: expected a torch.Tensor, got str'),
    ('nb01', 'training_loss_curve', 'sigmas', "'abc'", TypeError, 'sigmas: expected a tensor or an array of numbers, got str'),
    ('nb01', 'weight_maps', 'x_test', "'abc'", TypeError, 'x_test: expected a tensor or an array of numbers, got str'),
    ('nb01', 'weight_maps', 'x_train', "'abc'", TypeError, 'x_train: expected a tensor or an array of numbers, got str'),
    ('nb01', 'weight_maps', 'maps', '3', TypeError, 'maps: expected a list or tuple, got int'),
    ('nb01', 'weight_maps', 'row', "'abc'", TypeError, 'row: expected an int, got str'),
    ('nb01', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb02', 'play', 'd_k', "'abc'", TypeError, "d_k: expected one of [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048], got 'abc'"),
    ('nb02', 'play', 'temperature', "'abc'", TypeError, 'temperature: expected a real number, got str'),
    ('nb02', 'play', 'method', "'nope'", ValueError, "method: expected one of ['dot', 'scaled_dot', 'over_d', "
                                                     "'over_cbrt_d', 'constant', 'long_sequence', 'normalised', "
                                                     "'cosine', 'gaussian', 'additive'], got 'nope'"),
    ('nb02', 'play', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb02', 'play', 'num_queries', "'abc'", TypeError, 'num_queries: expected an int, got str'),
    ('nb02', 'centre_rows', 'scores_', "'abc'", TypeError, 'scores_: expected a torch.Tensor, got str'),
    ('nb02', 'histogram_density', 'values', "'abc'", TypeError, 'values: expected a torch.Tensor, got str'),
    ('nb02', 'histogram_density', 'edges', "'abc'", TypeError, 'edges: expected a torch.Tensor, got str'),
    ('nb02', 'key_choice', 'queries', "'abc'", TypeError, 'queries: expected a torch.Tensor, got str'),
    ('nb02', 'key_choice', 'keys', "'abc'", TypeError, 'keys: expected a torch.Tensor, got str'),
    ('nb02', 'key_choice_plot', 'keys', "'abc'", TypeError, 'keys: expected a torch.Tensor, got str'),
    ('nb02', 'key_choice_plot', 'picks', '3', TypeError, 'picks: expected a dict, got int'),
    ('nb02', 'key_choice_plot', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb02', 'random_queries_keys', 'num_queries', "'abc'", TypeError, 'num_queries: expected an int, got str'),
    ('nb02', 'random_queries_keys', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb02', 'random_queries_keys', 'd_k', "'abc'", TypeError, 'd_k: expected an int, got str'),
    ('nb02', 'random_queries_keys', 'generator', '3', TypeError, 'generator: expected a torch.Generator, got int'),
    ('nb02', 'row_entropy', 'weights', "'abc'", TypeError, 'weights: expected a torch.Tensor, got str'),
    ('nb02', 'scaling_hint', 'queries', "'abc'", TypeError, 'queries: expected a torch.Tensor, got str'),
    ('nb02', 'scaling_hint', 'keys', "'abc'", TypeError, 'keys: expected a torch.Tensor, got str'),
    ('nb02', 'score_statistics', 'd_k', "'abc'", TypeError, 'd_k: expected an int, got str'),
    ('nb02', 'score_statistics', 'num_queries', "'abc'", TypeError, 'num_queries: expected an int, got str'),
    ('nb02', 'score_statistics', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb02', 'score_statistics', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb02', 'scores', 'queries', "'abc'", TypeError, 'queries: expected a torch.Tensor, got str'),
    ('nb02', 'scores', 'keys', "'abc'", TypeError, 'keys: expected a torch.Tensor, got str'),
    ('nb02', 'seeded_additive', 'query_size', "'abc'", TypeError, 'query_size: expected an int, got str'),
    ('nb02', 'seeded_additive', 'key_size', "'abc'", TypeError, 'key_size: expected an int, got str'),
    ('nb02', 'seeded_additive', 'num_hiddens', "'abc'", TypeError, 'num_hiddens: expected an int, got str'),
    ('nb02', 'seeded_additive', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb02', 'softmax_jacobian_norm', 'weights', "'abc'", TypeError, 'weights: expected a torch.Tensor, got str'),
    ('nb02', 'vectors_and_weights', 'queries', "'abc'", TypeError, 'queries: expected a torch.Tensor, got str'),
    ('nb02', 'vectors_and_weights', 'keys', "'abc'", TypeError, 'keys: expected a torch.Tensor, got str'),
    ('nb02', 'vectors_and_weights', 'weights', '3', TypeError, 'weights: expected a dict, got int'),
    ('nb02', 'vectors_and_weights', 'key_names', '3', TypeError, 'key_names: expected a list or tuple, got int'),
    ('nb02', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb03', 'embed', 'sentences', '3', TypeError, 'sentences: expected a list or tuple, got int'),
    ('nb03', 'embed', 'length', "'abc'", TypeError, 'length: expected an int, got str'),
    ('nb03', 'head_blocks_plot', 'X', "'abc'", TypeError, 'X: expected a tensor or an array of numbers, got str'),
    ('nb03', 'head_blocks_plot', 'num_heads', "'abc'", TypeError, 'num_heads: expected an int, got str'),
    ('nb03', 'head_blocks_plot', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb03', 'head_projections', 'kind', '3', TypeError, "kind: expected one of ('previous', 'self', 'word', 'next'), got 3"),
    ('nb03', 'head_projections', 'target', '3', TypeError, "target: expected a word from ('<pad>', 'the', 'cat', 'sat', 'on', 'mat'), got 3"),
    ('nb03', 'head_projections', 'strength', "'abc'", TypeError, 'strength: expected a real number, got str'),
    ('nb03', 'head_readout', 'output', "'abc'", TypeError, 'output: expected a torch.Tensor, got str'),
    ('nb03', 'head_readout', 'num_heads', "'abc'", TypeError, 'num_heads: expected an int, got str'),
    ('nb03', 'head_titles', 'num_heads', "'abc'", TypeError, 'num_heads: expected an int, got str'),
    ('nb03', 'head_titles', 'target', '3', TypeError, "target: expected one of ['<pad>', 'the', 'cat', 'sat', 'on', 'mat'], got 3"),
    ('nb03', 'mark_padding', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb03', 'mark_padding', 'valid_len', "'abc'", TypeError, 'valid_len: expected an int, got str'),
    ('nb03', 'multihead', 'X', "'abc'", TypeError, 'X: expected a torch.Tensor, got str'),
    ('nb03', 'multihead', 'W_q', "'abc'", TypeError, 'W_q: expected a torch.Tensor, got str'),
    ('nb03', 'multihead', 'W_k', "'abc'", TypeError, 'W_k: expected a torch.Tensor, got str'),
    ('nb03', 'multihead', 'W_v', "'abc'", TypeError, 'W_v: expected a torch.Tensor, got str'),
    ('nb03', 'play', 'heads', "'abc'", TypeError, 'heads: expected an int, got str'),
    ('nb03', 'play', 'temperature', "'abc'", TypeError, 'temperature: expected a real number, got str'),
    ('nb03', 'play', 'causal', "'yes'", TypeError, "causal: expected True or False, got str 'yes'"),
    ('nb03', 'play', 'valid_len_0', "'abc'", TypeError, 'valid_len_0: expected an int, got str'),
    ('nb03', 'play', 'valid_len_1', "-1", ValueError, 'valid_len_1: expected an int >= 1, got -1'),
    ('nb03', 'readout_table', 'readout', "'abc'", TypeError, 'readout: expected a torch.Tensor, got str'),
    ('nb03', 'readout_table', 'tokens', '3', TypeError, 'tokens: expected a list or tuple, got int'),
    ('nb03', 'readout_table', 'titles', '3', TypeError, 'titles: expected a list or tuple, got int'),
    ('nb03', 'toy_multihead', 'num_heads', "'abc'", TypeError, 'num_heads: expected an int, got str'),
    ('nb03', 'toy_multihead', 'target', '3', TypeError, "target: expected a word from ('<pad>', 'the', 'cat', 'sat', 'on', 'mat'), got 3"),
    ('nb03', 'toy_multihead', 'strength', "'abc'", TypeError, 'strength: expected a real number, got str'),
    ('nb03', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb04', 'cost_plot', 'd', "'abc'", TypeError, 'd: expected an int, got str'),
    ('nb04', 'cost_plot', 'k', "'abc'", TypeError, 'k: expected an int, got str'),
    ('nb04', 'cost_plot', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb04', 'crossover', 'd', "'abc'", TypeError, 'd: expected an int, got str'),
    ('nb04', 'crossover', 'k', "'abc'", TypeError, 'k: expected an int, got str'),
    ('nb04', 'crossover', 'versus', '3', TypeError, "versus: expected 'RNN' or 'CNN', got 3"),
    ('nb04', 'describe_step', 'steps', '3', TypeError, 'steps: expected a dict, got int'),
    ('nb04', 'describe_step', 'words', '3', TypeError, 'words: expected a list or tuple, got int'),
    ('nb04', 'describe_step', 'step', "'abc'", TypeError, 'step: expected an int, got str'),
    ('nb04', 'describe_step', 'query', "'abc'", TypeError, 'query: expected an int, got str'),
    ('nb04', 'draw_step_table', 'table', '3', TypeError, 'table: expected a list or tuple, got int'),
    ('nb04', 'draw_step_table', 'words', '3', TypeError, 'words: expected a list or tuple, got int'),
    ('nb04', 'draw_step_table', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb04', 'layer_cost', 'kind', '3', TypeError, "kind: expected one of ['self-attention', 'RNN', 'CNN'], got 3"),
    ('nb04', 'layer_cost', 'n', "'abc'", TypeError, 'n: expected a tensor or an array of numbers, got str'),
    ('nb04', 'layer_cost', 'd', "'abc'", TypeError, 'd: expected an int, got str'),
    ('nb04', 'layer_cost', 'k', "'abc'", TypeError, 'k: expected an int, got str'),
    ('nb04', 'path_length', 'kind', '3', TypeError, "kind: expected one of ['self-attention', 'RNN', 'CNN'], got 3"),
    ('nb04', 'path_length', 'n', "'abc'", TypeError, 'n: expected a tensor or an array of numbers, got str'),
    ('nb04', 'path_length', 'k', "'abc'", TypeError, 'k: expected an int, got str'),
    ('nb04', 'path_plot', 'k', "'abc'", TypeError, 'k: expected an int, got str'),
    ('nb04', 'path_plot', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb04', 'self_attention_steps', 'X', "'abc'", TypeError, 'X: expected a torch.Tensor, got str'),
    ('nb04', 'self_attention_steps', 'W_Q', "'abc'", TypeError, 'W_Q: expected a torch.Tensor, got str'),
    ('nb04', 'self_attention_steps', 'W_K', "'abc'", TypeError, 'W_K: expected a torch.Tensor, got str'),
    ('nb04', 'self_attention_steps', 'W_V', "'abc'", TypeError, 'W_V: expected a torch.Tensor, got str'),
    ('nb04', 'sentence_attention', 'd_k', "'abc'", TypeError, 'd_k: expected an int, got str'),
    ('nb04', 'sentence_attention', 'causal', "'yes'", TypeError, "causal: expected True or False, got str 'yes'"),
    ('nb04', 'sentence_attention', 'padding', "'abc'", TypeError, 'padding: expected an int, got str'),
    ('nb04', 'sentence_attention', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb04', 'short', 'vector', "'abc'", TypeError, 'vector: expected a torch.Tensor, got str'),
    ('nb04', 'short', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb04', 'short', 'fmt', '3', TypeError, 'fmt: expected a str, got int'),
    ('nb04', 'step_table', 'steps', '3', TypeError, 'steps: expected a dict, got int'),
    ('nb04', 'step_table', 'words', '3', TypeError, 'words: expected a list or tuple, got int'),
    ('nb04', 'step_table', 'query', "'abc'", TypeError, 'query: expected an int, got str'),
    ('nb04', 'step_table', 'step', "'abc'", TypeError, 'step: expected an int, got str'),
    ('nb04', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb05', 'attend', 'X', "'abc'", TypeError, 'X: expected a torch.Tensor, got str'),
    ('nb05', 'attend', 'scaling', '3', TypeError, "scaling: expected one of ('none', 'after', 'inside'), got 3"),
    ('nb05', 'attend', 'd', "'abc'", TypeError, 'd: expected a real number, got str'),
    ('nb05', 'attend', 'temperature', "'abc'", TypeError, 'temperature: expected a real number, got str'),
    ('nb05', 'compare_to_seed', 'words', '3', TypeError, 'words: expected a list or tuple, got int'),
    ('nb05', 'compare_to_seed', 'output', "'abc'", TypeError, 'output: expected a torch.Tensor, got str'),
    ('nb05', 'compare_to_seed', 'seed', '3', TypeError, 'seed: expected a list or tuple, got int'),
    ('nb05', 'compare_to_seed', 'decimals', "'abc'", TypeError, 'decimals: expected an int, got str'),
    ('nb05', 'feature_heads', 'X', "'abc'", TypeError, 'X: expected a torch.Tensor, got str'),
    ('nb05', 'feature_heads', 'temperature', "'abc'", TypeError, 'temperature: expected a real number, got str'),
    ('nb05', 'formula', 'scaling', '3', TypeError, "scaling: expected one of ['none', 'after', 'inside'], got 3"),
    ('nb05', 'formula', 'd', "'abc'", TypeError, 'd: expected a real number, got str'),
    ('nb05', 'moves_plot', 'words', '3', TypeError, 'words: expected a list or tuple, got int'),
    ('nb05', 'moves_plot', 'before', "'abc'", TypeError, 'before: expected a torch.Tensor, got str'),
    ('nb05', 'moves_plot', 'after', "'abc'", TypeError, 'after: expected a torch.Tensor, got str'),
    ('nb05', 'moves_plot', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb05', 'similarities', 'output', "'abc'", TypeError, 'output: expected a torch.Tensor, got str'),
    ('nb05', 'similarities', 'words', '3', TypeError, 'words: expected a list or tuple, got int'),
    ('nb05', 'similarities', 'of', '3', TypeError, 'of: expected a str, got int'),
    ('nb05', 'similarities', 'to', '3', TypeError, 'to: expected a list or tuple, got int'),
    ('nb05', 'word_sliders', 'low', "'abc'", TypeError, 'low: expected a real number, got str'),
    ('nb05', 'word_sliders', 'high', "'abc'", TypeError, 'high: expected a real number, got str'),
    ('nb05', 'play', 'sentence', "'nope'", ValueError, "sentence: expected one of ['sweet', 'hungry'], got 'nope'"),
    ('nb05', 'play', 'scaling', '3', TypeError, "scaling: expected one of ['none', 'after', 'inside'], got 3"),
    ('nb05', 'play', 'd', '2.5', TypeError, 'd: expected one of [4, 2], got 2.5'),
    ('nb05', 'play', 'T', 'nan', ValueError, 'T: expected a finite number, got nan'),
    ('nb05', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb06', 'frequencies', 'num_hiddens', "'abc'", TypeError, 'num_hiddens: expected an int, got str'),
    ('nb06', 'frequencies', 'base', "'abc'", TypeError, 'base: expected a real number, got str'),
    ('nb06', 'wavelengths', 'num_hiddens', "'abc'", TypeError, 'num_hiddens: expected an int, got str'),
    ('nb06', 'wavelengths', 'base', "'abc'", TypeError, 'base: expected a real number, got str'),
    ('nb06', 'rotation_matrix', 'delta', "'abc'", TypeError, 'delta: expected a real number, got str'),
    ('nb06', 'rotation_matrix', 'num_hiddens', "'abc'", TypeError, 'num_hiddens: expected an int, got str'),
    ('nb06', 'rotation_matrix', 'base', "'abc'", TypeError, 'base: expected a real number, got str'),
    ('nb06', 'offset_similarity', 'deltas', "'abc'", TypeError, 'deltas: expected a tensor or an array of numbers, got str'),
    ('nb06', 'offset_similarity', 'num_hiddens', "'abc'", TypeError, 'num_hiddens: expected an int, got str'),
    ('nb06', 'offset_similarity', 'base', "'abc'", TypeError, 'base: expected a real number, got str'),
    ('nb06', 'similarity_by_offset', 'P', "'abc'", TypeError, 'P: expected a torch.Tensor, got str'),
    ('nb06', 'similarity_by_offset', 'max_offset', "'abc'", TypeError, 'max_offset: expected an int, got str'),
    ('nb06', 'rope', 'x', "'abc'", TypeError, 'x: expected a torch.Tensor, got str'),
    ('nb06', 'rope', 'positions', "'abc'", TypeError, 'positions: expected a tensor or an array of numbers, got str'),
    ('nb06', 'rope', 'base', "'abc'", TypeError, 'base: expected a real number, got str'),
    ('nb06', 'encoding_heatmap', 'P', "'abc'", TypeError, 'P: expected a tensor or an array of numbers, got str'),
    ('nb06', 'encoding_heatmap', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb06', 'encoding_heatmap', 'vmax', "'abc'", TypeError, 'vmax: expected a real number, got str'),
    ('nb06', 'encoding_image', 'P', "'abc'", TypeError, 'P: expected a tensor or an array of numbers, got str'),
    ('nb06', 'encoding_image', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb06', 'encoding_image', 'vmax', "'abc'", TypeError, 'vmax: expected a real number, got str'),
    ('nb06', 'encoding_columns_plot', 'P', "'abc'", TypeError, 'P: expected a tensor or an array of numbers, got str'),
    ('nb06', 'encoding_columns_plot', 'columns', '3', TypeError, 'columns: expected whole column numbers, got 3'),
    ('nb06', 'encoding_columns_plot', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb06', 'binary_counter_plot', 'num_bits', "'abc'", TypeError, 'num_bits: expected an int, got str'),
    ('nb06', 'binary_counter_plot', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb06', 'counter_vs_columns_figure', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb06', 'counter_vs_columns_figure', 'd', "'abc'", TypeError, 'd: expected an int, got str'),
    ('nb06', 'counter_vs_columns_figure', 'pairs', '3', TypeError, 'pairs: expected a list or tuple, got int'),
    ('nb06', 'counter_vs_columns_figure', 'base', "'abc'", TypeError, 'base: expected a real number, got str'),
    ('nb06', 'similarity_figure', 'P', "'abc'", TypeError, 'P: expected a torch.Tensor, got str'),
    ('nb06', 'similarity_figure', 'base', "'abc'", TypeError, 'base: expected a real number, got str'),
    ('nb06', 'rotation_circle_figure', 'P', "'abc'", TypeError, 'P: expected a torch.Tensor, got str'),
    ('nb06', 'rotation_circle_figure', 'pair', "'abc'", TypeError, 'pair: expected an int, got str'),
    ('nb06', 'rotation_circle_figure', 'starts', '3', TypeError, 'starts: expected a list or tuple, got int'),
    ('nb06', 'rotation_circle_figure', 'delta', "'abc'", TypeError, 'delta: expected an int, got str'),
    ('nb06', 'play', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb06', 'play', 'position', "'abc'", TypeError, 'position: expected an int, got str'),
    ('nb06', 'play', 'pair', "'abc'", TypeError, 'pair: expected an int, got str'),
    ('nb06', 'play', 'width', "'abc'", TypeError, 'width: expected an int, got str'),
    ('nb06', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb07', 'structured_qkv', 'length', "'abc'", TypeError, 'length: expected an int, got str'),
    ('nb07', 'structured_qkv', 'd', "'abc'", TypeError, 'd: expected an int, got str'),
    ('nb07', 'structured_qkv', 'dv', "'abc'", TypeError, 'dv: expected an int, got str'),
    ('nb07', 'structured_qkv', 'locality', "'abc'", TypeError, 'locality: expected a real number, got str'),
    ('nb07', 'relative_error', 'approx', "'abc'", TypeError, 'approx: expected a torch.Tensor, got str'),
    ('nb07', 'relative_error', 'exact', "'abc'", TypeError, 'exact: expected a torch.Tensor, got str'),
    ('nb07', 'approximation_errors', 'q', "'abc'", TypeError, 'q: expected a torch.Tensor, got str'),
    ('nb07', 'approximation_errors', 'k', "'abc'", TypeError, 'k: expected a torch.Tensor, got str'),
    ('nb07', 'approximation_errors', 'v', "'abc'", TypeError, 'v: expected a torch.Tensor, got str'),
    ('nb07', 'approximation_errors', 'windows', '3', TypeError, 'windows: expected a list or tuple, got int'),
    ('nb07', 'flops', 'method', '3', TypeError, "method: expected one of ('dense', 'local', 'block', 'linear', 'tiled'), got 3"),
    ('nb07', 'flops', 'length', "'abc'", TypeError, 'length: expected an int, got str'),
    ('nb07', 'flops', 'd', "'abc'", TypeError, 'd: expected an int, got str'),
    ('nb07', 'flops', 'window', "'abc'", TypeError, 'window: expected an int, got str'),
    ('nb07', 'memory_bytes', 'method', '3', TypeError, "method: expected one of ('dense', 'local', 'block', 'linear', 'tiled'), got 3"),
    ('nb07', 'memory_bytes', 'length', "'abc'", TypeError, 'length: expected an int, got str'),
    ('nb07', 'memory_bytes', 'd', "'abc'", TypeError, 'd: expected an int, got str'),
    ('nb07', 'memory_bytes', 'window', "'abc'", TypeError, 'window: expected an int, got str'),
    ('nb07', 'causal_mask_bottom_right', 'num_queries', "'abc'", TypeError, 'num_queries: expected an int, got str'),
    ('nb07', 'causal_mask_bottom_right', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb07', 'block_mask', 'num_queries', "'abc'", TypeError, 'num_queries: expected an int, got str'),
    ('nb07', 'block_mask', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb07', 'block_mask', 'block_size', "'abc'", TypeError, 'block_size: expected an int, got str'),
    ('nb07', 'make_mask', 'kind', '3', TypeError, "kind: expected one of ('causal top-left', 'causal bottom-right', 'padding', 'local', 'block'), got 3"),
    ('nb07', 'make_mask', 'num_queries', "'abc'", TypeError, 'num_queries: expected an int, got str'),
    ('nb07', 'make_mask', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb07', 'make_mask', 'window', "'abc'", TypeError, 'window: expected an int, got str'),
    ('nb07', 'masked_row_conventions', 'scores', "'abc'", TypeError, 'scores: expected a torch.Tensor, got str'),
    ('nb07', 'masked_row_conventions', 'mask', "'abc'", TypeError, 'mask: expected a bool torch.Tensor, got str'),
    ('nb07', 'global_mask', 'num_queries', "'abc'", TypeError, 'num_queries: expected an int, got str'),
    ('nb07', 'global_mask', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb07', 'global_mask', 'global_tokens', '3', TypeError, 'global_tokens: expected a list or tuple, got int'),
    ('nb07', 'random_mask', 'num_queries', "'abc'", TypeError, 'num_queries: expected an int, got str'),
    ('nb07', 'random_mask', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb07', 'random_mask', 'num_random', "'abc'", TypeError, 'num_random: expected an int, got str'),
    ('nb07', 'random_mask', 'generator', '3', TypeError, 'generator: expected a torch.Generator, got int'),
    ('nb07', 'log_sparse_mask', 'length', "'abc'", TypeError, 'length: expected an int, got str'),
    ('nb07', 'lsh_buckets', 'x', "'abc'", TypeError, 'x: expected a torch.Tensor, got str'),
    ('nb07', 'lsh_buckets', 'num_buckets', "'abc'", TypeError, 'num_buckets: expected an int, got str'),
    ('nb07', 'lsh_buckets', 'generator', '3', TypeError, 'generator: expected a torch.Generator, got int'),
    ('nb07', 'lsh_mask', 'x', "'abc'", TypeError, 'x: expected a torch.Tensor, got str'),
    ('nb07', 'lsh_mask', 'num_buckets', "'abc'", TypeError, 'num_buckets: expected an int, got str'),
    ('nb07', 'lsh_mask', 'generator', '3', TypeError, 'generator: expected a torch.Generator, got int'),
    ('nb07', 'sparse_patterns', 'length', "'abc'", TypeError, 'length: expected an int, got str'),
    ('nb07', 'sparse_patterns', 'window', "'abc'", TypeError, 'window: expected an int, got str'),
    ('nb07', 'sparse_patterns', 'num_random', "'abc'", TypeError, 'num_random: expected an int, got str'),
    ('nb07', 'sparse_patterns', 'num_buckets', "'abc'", TypeError, 'num_buckets: expected an int, got str'),
    ('nb07', 'SeedDotProductAttention', 'input_dim', "'abc'", TypeError, 'input_dim: expected an int, got str'),
    ('nb07', 'SeedDotProductAttention', 'hidden_dim', "'abc'", TypeError, 'hidden_dim: expected an int, got str'),
    ('nb07', 'SeedDotProductAttention', 'fixed', "'yes'", TypeError, "fixed: expected True or False, got str 'yes'"),
    ('nb07', 'score_spread', 'hidden_dim', "'abc'", TypeError, 'hidden_dim: expected an int, got str'),
    ('nb07', 'score_spread', 'samples', "'abc'", TypeError, 'samples: expected an int, got str'),
    ('nb07', 'score_spread', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb07', 'tiled_attention_steps', 'queries', "'abc'", TypeError, 'queries: expected a torch.Tensor, got str'),
    ('nb07', 'tiled_attention_steps', 'keys', "'abc'", TypeError, 'keys: expected a torch.Tensor, got str'),
    ('nb07', 'tiled_attention_steps', 'values', "'abc'", TypeError, 'values: expected a torch.Tensor, got str'),
    ('nb07', 'tiled_attention_steps', 'block_size', "'abc'", TypeError, 'block_size: expected an int, got str'),
    ('nb07', 'implied_weights', 'states', '3', TypeError, 'states: expected a list or tuple, got int'),
    ('nb07', 'implied_weights', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb07', 'toy_problem', 'length', "'abc'", TypeError, 'length: expected an int, got str'),
    ('nb07', 'toy_problem', 'd', "'abc'", TypeError, 'd: expected an int, got str'),
    ('nb07', 'toy_problem', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb07', 'toy_problem', 'scale', "'abc'", TypeError, 'scale: expected a real number, got str'),
    ('nb07', 'mask_heatmap', 'mask', "'abc'", TypeError, 'mask: expected a bool torch.Tensor, got str'),
    ('nb07', 'mask_heatmap', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb07', 'mask_gallery', 'masks', '3', TypeError, 'masks: expected a dict, got int'),
    ('nb07', 'mask_gallery', 'ncols', "'abc'", TypeError, 'ncols: expected an int, got str'),
    ('nb07', 'error_plot', 'errors', '3', TypeError, 'errors: expected a dict, got int'),
    ('nb07', 'error_plot', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb07', 'weights_so_far_figure', 'states', '3', TypeError, 'states: expected a list or tuple, got int'),
    ('nb07', 'weights_so_far_figure', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb07', 'weights_so_far_figure', 'tiles', "'abc'", TypeError, 'tiles: expected an int, got str'),
    ('nb07', 'weights_so_far_figure', 'queries', "'abc'", TypeError, 'queries: expected an int, got str'),
    ('nb07', 'memory_plot', 'lengths', '3', TypeError, 'lengths: expected a list or tuple, got int'),
    ('nb07', 'memory_plot', 'd', "'abc'", TypeError, 'd: expected an int, got str'),
    ('nb07', 'memory_plot', 'block_size', "'abc'", TypeError, 'block_size: expected an int, got str'),
    ('nb07', 'play', 'kind', '3', TypeError, "kind: expected one of ['causal top-left', 'causal bottom-right', 'padding', 'local', 'block'], got 3"),
    ('nb07', 'play', 'num_queries', "'abc'", TypeError, 'num_queries: expected an int, got str'),
    ('nb07', 'play', 'num_keys', "'abc'", TypeError, 'num_keys: expected an int, got str'),
    ('nb07', 'play', 'w', "'abc'", TypeError, 'w: expected an int, got str'),
    ('nb07', 'play_tiles', 'queries', "'abc'", TypeError, 'queries: expected a torch.Tensor, got str'),
    ('nb07', 'play_tiles', 'keys', "'abc'", TypeError, 'keys: expected a torch.Tensor, got str'),
    ('nb07', 'play_tiles', 'values', "'abc'", TypeError, 'values: expected a torch.Tensor, got str'),
    ('nb07', 'play_tiles', 'tile', "'abc'", TypeError, 'tile: expected an int, got str'),
    ('nb07', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb08', 'random_dates', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb08', 'random_dates', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb08', 'random_dates', 'first_year', "'abc'", TypeError, 'first_year: expected an int, got str'),
    ('nb08', 'random_dates', 'last_year', "'abc'", TypeError, 'last_year: expected an int, got str'),
    ('nb08', 'check_source', 'text', '3', TypeError, 'text: expected a str, got int'),
    ('nb08', 'encode_sources', 'texts', '3', TypeError, 'texts: expected a list or tuple, got int'),
    ('nb08', 'encode_targets', 'texts', '3', TypeError, 'texts: expected a list or tuple, got int'),
    ('nb08', 'decode_targets', 'ids', "'abc'", TypeError, 'ids: expected a torch.Tensor, got str'),
    ('nb08', 'SeedGRUAttention', 'input_dim', "'abc'", TypeError, 'input_dim: expected an int, got str'),
    ('nb08', 'SeedGRUAttention', 'hidden_dim', "'abc'", TypeError, 'hidden_dim: expected an int, got str'),
    ('nb08', 'SeedGRUAttention', 'output_dim', "'abc'", TypeError, 'output_dim: expected an int, got str'),
    ('nb08', 'SeedGRUAttention', 'fixed', "'yes'", TypeError, "fixed: expected True or False, got str 'yes'"),
    ('nb08', 'pool', 'outputs', "'abc'", TypeError, 'outputs: expected a torch.Tensor, got str'),
    ('nb08', 'pool', 'weights', "'abc'", TypeError, 'weights: expected a torch.Tensor, got str'),
    ('nb08', 'pool', 'fixed', "'yes'", TypeError, "fixed: expected True or False, got str 'yes'"),
    ('nb08', 'DateTranslator', 'attention', '3', TypeError, "attention: expected 'additive' or 'dot', got 3"),
    ('nb08', 'DateTranslator', 'embed', "'abc'", TypeError, 'embed: expected an int, got str'),
    ('nb08', 'DateTranslator', 'hidden', "'abc'", TypeError, 'hidden: expected an int, got str'),
    ('nb08', 'DateTranslator', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb08', 'translate', 'model', "'abc'", TypeError, 'model: expected a DateTranslator, got str'),
    ('nb08', 'translate', 'texts', '3', TypeError, 'texts: expected a list or tuple, got int'),
    ('nb08', 'trace', 'model', "'abc'", TypeError, 'model: expected a DateTranslator, got str'),
    ('nb08', 'trace', 'text', '3', TypeError, 'text: expected a str, got int'),
    ('nb08', 'train', 'model', "'abc'", TypeError, 'model: expected a DateTranslator, got str'),
    ('nb08', 'train', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb08', 'train', 'batch_size', "'abc'", TypeError, 'batch_size: expected an int, got str'),
    ('nb08', 'train', 'lr', "'abc'", TypeError, 'lr: expected a real number, got str'),
    ('nb08', 'train_steps', 'model', "'abc'", TypeError, 'model: expected a DateTranslator, got str'),
    ('nb08', 'train_steps', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb08', 'train_steps', 'batch_size', "'abc'", TypeError, 'batch_size: expected an int, got str'),
    ('nb08', 'train_steps', 'lr', "'abc'", TypeError, 'lr: expected a real number, got str'),
    ('nb08', 'accuracy', 'model', "'abc'", TypeError, 'model: expected a DateTranslator, got str'),
    ('nb08', 'accuracy', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb08', 'accuracy', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb08', 'pretrained', 'attention', '3', TypeError, "attention: expected 'additive' or 'dot', got 3"),
    ('nb08', 'source_labels', 'source', '3', TypeError, 'source: expected a str, got int'),
    ('nb08', 'output_labels', 'output', '3', TypeError, 'output: expected a str, got int'),
    ('nb08', 'alignment_heatmap', 'weights', "'abc'", TypeError, 'weights: expected a torch.Tensor, got str'),
    ('nb08', 'alignment_heatmap', 'source', '3', TypeError, 'source: expected a str, got int'),
    ('nb08', 'alignment_heatmap', 'output', '3', TypeError, 'output: expected a str, got int'),
    ('nb08', 'alignment_heatmap', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb08', 'alignment', 'model', "'abc'", TypeError, 'model: expected a DateTranslator, got str'),
    ('nb08', 'alignment', 'source', '3', TypeError, 'source: expected a str, got int'),
    ('nb08', 'argmax_line', 'weights', "'abc'", TypeError, 'weights: expected a torch.Tensor, got str'),
    ('nb08', 'argmax_line', 'source', '3', TypeError, 'source: expected a str, got int'),
    ('nb08', 'argmax_line', 'output', '3', TypeError, 'output: expected a str, got int'),
    ('nb08', 'play', 'models', "'abc'", TypeError, 'models: expected a dict, got str'),
    ('nb08', 'play', 'text', '3', TypeError, 'text: expected a str, got int'),
    ('nb08', 'play_trainer', 'explorer', "'abc'", TypeError, 'explorer: expected the AlignmentExplorer, got str'),
    ('nb08', 'play_trainer', 'steps', "'abc'", TypeError, "steps: expected an int, got str"),
    ('nb08', 'play_trainer', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb08', 'play_trainer', 'redraws', "'abc'", TypeError, "redraws: expected an int, got str"),
    ('nb08', 'additive_scores', 's', "'abc'", TypeError, 's: expected a torch.Tensor, got str'),
    ('nb08', 'additive_scores', 'H', "'abc'", TypeError, 'H: expected a torch.Tensor, got str'),
    ('nb08', 'additive_scores', 'W_q', "'abc'", TypeError, 'W_q: expected a torch.Tensor, got str'),
    ('nb08', 'additive_scores', 'W_k', "'abc'", TypeError, 'W_k: expected a torch.Tensor, got str'),
    ('nb08', 'context', 'outputs', "'abc'", TypeError, 'outputs: expected a torch.Tensor, got str'),
    ('nb08', 'context', 'weights', "'abc'", TypeError, 'weights: expected a torch.Tensor, got str'),
    ('nb08', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb09', 'encode', 'sentences', '3', TypeError, 'sentences: expected a list or tuple, got int'),
    ('nb09', 'encoded', 'split', '3', TypeError, "split: expected 'train' or 'test', got 3"),
    ('nb09', 'examples', 'split', '3', TypeError, "split: expected 'train' or 'test', got 3"),
    ('nb09', 'generate', 'n', "'abc'", TypeError, "n: expected an int, got str"),
    ('nb09', 'generate', 'split', '3', TypeError, "split: expected 'train' or 'test', got 3"),
    ('nb09', 'generate', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb09', 'referent', 'animal', '3', TypeError, "animal: expected one of ['cat', 'dog', 'horse', 'cow', 'goat', 'sheep', 'pig', 'duck', 'mouse', 'rabbit', 'fox', 'owl', 'bear', 'wolf'], got 3"),
    ('nb09', 'sentence', 'template', '3', TypeError, "template: expected one of ['active', 'passive', 'because_first', 'distractor', 'and_then', 'never'], got 3"),
    ('nb09', 'sentence', 'animal', '3', TypeError, "animal: expected one of ['cat', 'dog', 'horse', 'cow', 'goat', 'sheep', 'pig', 'duck', 'mouse', 'rabbit', 'fox', 'owl', 'bear', 'wolf'], got 3"),
    ('nb09', 'sentence', 'verb', '3', TypeError, "verb: expected one of ['drink', 'eat', 'smell', 'lick', 'drop', 'chase', 'carry', 'push', 'bite', 'like', 'want', 'find'], got 3"),
    ('nb09', 'words_of', 'sentence', '3', TypeError, 'sentence: expected a str, got int'),
    ('nb09', 'ItResolver', 'num_hiddens', "'abc'", TypeError, 'num_hiddens: expected an int, got str'),
    ('nb09', 'ItResolver', 'num_heads', "'abc'", TypeError, 'num_heads: expected an int, got str'),
    ('nb09', 'ItResolver', 'num_layers', "'abc'", TypeError, 'num_layers: expected an int, got str'),
    ('nb09', 'ItResolver', 'ffn_hiddens', "'abc'", TypeError, 'ffn_hiddens: expected an int, got str'),
    ('nb09', 'TransformerBlock', 'num_hiddens', "'abc'", TypeError, 'num_hiddens: expected an int, got str'),
    ('nb09', 'TransformerBlock', 'num_heads', "'abc'", TypeError, 'num_heads: expected an int, got str'),
    ('nb09', 'TransformerBlock', 'ffn_hiddens', "'abc'", TypeError, 'ffn_hiddens: expected an int, got str'),
    ('nb09', 'TransformerBlock', 'dropout', "'abc'", TypeError, 'dropout: expected a real number, got str'),
    ('nb09', 'resolve', 'model', "'abc'", TypeError, 'model: expected an ItResolver (e.g. pretrained()), got str'),
    ('nb09', 'resolve', 'sentence', '3', TypeError, 'sentence: expected a str, got int'),
    ('nb09', 'torch_layer', 'block', "'abc'", TypeError, 'block: expected a TransformerBlock, got str'),
    ('nb09', 'accuracy', 'model', "'abc'", TypeError, 'model: expected an ItResolver (e.g. pretrained()), got str'),
    ('nb09', 'accuracy', 'split', '3', TypeError, "split: expected 'train' or 'test', got 3"),
    ('nb09', 'head_accuracy', 'model', "'abc'", TypeError, 'model: expected an ItResolver (e.g. pretrained()), got str'),
    ('nb09', 'head_accuracy', 'split', '3', TypeError, "split: expected 'train' or 'test', got 3"),
    ('nb09', 'peak_kinds', 'model', "'abc'", TypeError, 'model: expected an ItResolver (e.g. pretrained()), got str'),
    ('nb09', 'peak_kinds', 'split', '3', TypeError, "split: expected 'train' or 'test', got 3"),
    ('nb09', 'peak_kinds', 'layer', "'abc'", TypeError, 'layer: expected an int, got str'),
    ('nb09', 'batches', 'split', '3', TypeError, "split: expected 'train' or 'test', got 3"),
    ('nb09', 'batches', 'batch_size', "'abc'", TypeError, 'batch_size: expected an int, got str'),
    ('nb09', 'batches', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb09', 'run', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb09', 'run', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb09', 'run', 'eval_every', "'abc'", TypeError, 'eval_every: expected an int, got str'),
    ('nb09', 'train', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb09', 'ablation_bars', 'measured', "'abc'", TypeError, 'measured: expected a dict, got str'),
    ('nb09', 'ablation_bars', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb09', 'attention_rows', 'resolution', "'abc'", TypeError, 'resolution: expected a Resolution (from resolve), got str'),
    ('nb09', 'block_diagram', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb09', 'block_diagram', 'num_layers', "'abc'", TypeError, 'num_layers: expected an int, got str'),
    ('nb09', 'head_accuracy_map', 'accuracy', "'abc'", TypeError, 'accuracy: expected a tensor or an array of numbers, got str'),
    ('nb09', 'head_accuracy_map', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb09', 'it_attention', 'resolution', "'abc'", TypeError, 'resolution: expected a Resolution (from resolve), got str'),
    ('nb09', 'it_attention', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb09', 'pointer_rows', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb09', 'pointer_rows', 'resolutions', '3', TypeError, 'resolutions: expected a list or tuple, got int'),
    ('nb09', 'row_labels', 'num_layers', "'abc'", TypeError, 'num_layers: expected an int, got str'),
    ('nb09', 'row_labels', 'num_heads', "'abc'", TypeError, 'num_heads: expected an int, got str'),
    ('nb09', 'describe', 'resolution', "'abc'", TypeError, 'resolution: expected a Resolution (from resolve), got str'),
    ('nb09', 'known_words', 'width', "'abc'", TypeError, 'width: expected an int, got str'),
    ('nb09', 'Explorer', 'models', "'abc'", TypeError, 'models: expected a dict, got str'),
    ('nb09', 'Explorer', 'text', '3', TypeError, 'text: expected a str, got int'),
    ('nb09', 'play_trainer', 'steps', "'abc'", TypeError, "steps: expected an int, got str"),
    ('nb09', 'play_trainer', 'sentence', '3', TypeError, 'sentence: expected a str, got int'),
    ('nb09', 'play', 'text', '3', TypeError, 'text: expected a str, got int'),
    ('nb09', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb10', 'random_dates', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb10', 'random_dates', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb10', 'training_dates', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb10', 'training_dates', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb10', 'training_dates', 'formats', '3', TypeError, 'formats: expected a list or tuple, got int'),
    ('nb10', 'held_out', 'target', '3', TypeError, 'target: expected a str, got int'),
    ('nb10', 'held_out', 'target', "'nope'", ValueError, "target: expected an ISO date such as '1994-03-07', got 'nope'"),
    ('nb10', 'is_date', 'iso', '3', TypeError, 'iso: expected a str, got int'),
    ('nb10', 'format_of', 'source', '3', TypeError, 'source: expected a str, got int'),
    ('nb10', 'format_of', 'source', "'nope'", ValueError, "source: expected a date written like one of '7 mar 1994', 'march 7, 1994', '07.03.1994', '1994 mar 7', '03/07/1994', got 'nope'"),
    ('nb10', 'check_source', 'text', '3', TypeError, 'text: expected a str, got int'),
    ('nb10', 'check_source', 'text', "'nope'", ValueError, "text: expected a date written like one of '7 mar 1994', 'march 7, 1994', '07.03.1994', '1994 mar 7', '03/07/1994', got 'nope'"),
    ('nb10', 'source_problem', 'text', '3', TypeError, 'text: expected a str, got int'),
    ('nb10', 'encode_sources', 'texts', '3', TypeError, 'texts: expected a list or tuple, got int'),
    ('nb10', 'encode_targets', 'texts', '3', TypeError, 'texts: expected a list or tuple, got int'),
    ('nb10', 'decode_targets', 'ids', "'abc'", TypeError, 'ids: expected a torch.Tensor, got str'),
    ('nb10', 'decode_targets', 'ids', 'extra dim', ValueError, 'ids: expected a 2-D tensor, got shape (1, 1, 1, 3)'),
    ('nb10', 'DateTransformer', 'num_hiddens', "'abc'", TypeError, 'num_hiddens: expected an int, got str'),
    ('nb10', 'DateTransformer', 'num_heads', "'abc'", TypeError, 'num_heads: expected an int, got str'),
    ('nb10', 'DateTransformer', 'num_layers', "'abc'", TypeError, 'num_layers: expected an int, got str'),
    ('nb10', 'DateTransformer', 'ffn_hiddens', "'abc'", TypeError, 'ffn_hiddens: expected an int, got str'),
    ('nb10', 'DateTransformer', 'norm_first', "'yes'", TypeError, "norm_first: expected True or False, got str 'yes'"),
    ('nb10', 'DateTransformer', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb10', 'greedy', 'model', "'abc'", TypeError, 'model: expected a DateTransformer (e.g. pretrained()), got str'),
    ('nb10', 'greedy', 'src', "'abc'", TypeError, 'src: expected a torch.Tensor, got str'),
    ('nb10', 'greedy', 'src', 'dtype torch.float64', TypeError, 'src: expected an integer tensor, got dtype torch.float64'),
    ('nb10', 'greedy', 'valid_lens', "'abc'", TypeError, 'valid_lens: expected a torch.Tensor, got str'),
    ('nb10', 'greedy', 'cache', "'yes'", TypeError, "cache: expected True or False, got str 'yes'"),
    ('nb10', 'greedy', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb10', 'translate', 'model', "'abc'", TypeError, 'model: expected a DateTransformer (e.g. pretrained()), got str'),
    ('nb10', 'translate', 'texts', '3', TypeError, 'texts: expected a list or tuple, got int'),
    ('nb10', 'decode', 'model', "'abc'", TypeError, 'model: expected a DateTransformer (e.g. pretrained()), got str'),
    ('nb10', 'decode', 'text', '3', TypeError, 'text: expected a str, got int'),
    ('nb10', 'decode', 'text', "'nope'", ValueError, "text: expected a date written like one of '7 mar 1994', 'march 7, 1994', '07.03.1994', '1994 mar 7', '03/07/1994', got 'nope'"),
    ('nb10', 'decode', 'cache', "'yes'", TypeError, "cache: expected True or False, got str 'yes'"),
    ('nb10', 'parameters', 'model', "'abc'", TypeError, 'model: expected a torch module (e.g. pretrained()), got str'),
    ('nb10', 'accuracy', 'model', "'abc'", TypeError, 'model: expected a DateTransformer (e.g. pretrained()), got str'),
    ('nb10', 'accuracy', 'pairs', '3', TypeError, 'pairs: expected a list or tuple, got int'),
    ('nb10', 'run', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb10', 'run', 'teacher_forcing', "'yes'", TypeError, "teacher_forcing: expected True or False, got str 'yes'"),
    ('nb10', 'run', 'seed', "'abc'", TypeError, 'seed: expected an int, got str'),
    ('nb10', 'run', 'eval_every', "'abc'", TypeError, 'eval_every: expected an int, got str'),
    ('nb10', 'run', 'formats', '3', TypeError, 'formats: expected a list or tuple, got int'),
    ('nb10', 'train', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb10', 'compare_teacher_forcing', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb10', 'compare_teacher_forcing', 'every', "'abc'", TypeError, 'every: expected an int, got str'),
    ('nb10', 'source_fields', 'source', '3', TypeError, 'source: expected a str, got int'),
    ('nb10', 'source_fields', 'source', "'nope'", ValueError, "source: expected a date written like one of '7 mar 1994', 'march 7, 1994', '07.03.1994', '1994 mar 7', '03/07/1994', got 'nope'"),
    ('nb10', 'head_alignment', 'model', "'abc'", TypeError, 'model: expected a DateTransformer (e.g. pretrained()), got str'),
    ('nb10', 'head_alignment', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb10', 'head_ablations', 'model', "'abc'", TypeError, 'model: expected a DateTransformer (e.g. pretrained()), got str'),
    ('nb10', 'head_ablations', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb10', 'without_head', 'model', "'abc'", TypeError, 'model: expected a DateTransformer (e.g. pretrained()), got str'),
    ('nb10', 'without_head', 'layer', "'abc'", TypeError, 'layer: expected an int, got str'),
    ('nb10', 'without_head', 'layer', '10**9', ValueError, 'layer: expected a decoder layer in [0, 1], got 1000000000'),
    ('nb10', 'without_head', 'head', "'abc'", TypeError, 'head: expected an int, got str'),
    ('nb10', 'families_figure', 'n', "'abc'", TypeError, 'n: expected an int, got str'),
    ('nb10', 'comparison_figure', 'axes', "'abc'", TypeError, 'axes: expected a list or tuple or ndarray, got str'),
    ('nb10', 'play', 'model', "'abc'", TypeError, 'model: expected a DateTransformer (e.g. pretrained()), got str'),
    ('nb10', 'play', 'text', '3', TypeError, 'text: expected a str, got int'),
    ('nb10', 'play_trainer', 'steps', "'abc'", TypeError, 'steps: expected an int, got str'),
    ('nb10', 'thumbnail', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),

    ('nb07', 'tile_update', 'm', "'abc'", TypeError, 'm: expected a torch.Tensor, got str'),
    ('nb07', 'tile_update', 'l', "'abc'", TypeError, 'l: expected a torch.Tensor, got str'),
    ('nb07', 'tile_update', 'acc', "'abc'", TypeError, 'acc: expected a torch.Tensor, got str'),
    ('nb07', 'tile_update', 'scores', "'abc'", TypeError, 'scores: expected a torch.Tensor, got str'),
    ('nb07', 'tile_update', 'v', "'abc'", TypeError, 'v: expected a torch.Tensor, got str'),
    ('nb07', 'mask_key', 'figure', "'abc'", TypeError, 'figure: expected a matplotlib Figure, got str'),
    ('nb04', 'play', 'step', "'abc'", TypeError, 'step: expected an int, got str'),
    ('nb04', 'play', 'd_k', "'abc'", TypeError, "d_k: expected one of [4, 16, 64, 256, 1024], got 'abc'"),
    ('nb04', 'play', 'causal', "'yes'", TypeError, "causal: expected True or False, got str 'yes'"),
    ('nb04', 'play', 'padding', "-1", ValueError, 'padding: expected an int >= 0, got -1'),
    ('nb06', 'update_encoding_heatmap', 'P', "'abc'", TypeError, 'P: expected a tensor or an array of numbers, got str'),
    ('nb08', 'update_alignment', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb08', 'update_alignment', 'weights', "'abc'", TypeError, 'weights: expected a torch.Tensor, got str'),
    ('nb08', 'update_alignment', 'source', '3', TypeError, 'source: expected a str, got int'),
    ('nb08', 'update_alignment', 'output', '3', TypeError, 'output: expected a str, got int'),
    ('nb06', 'update_encoding_heatmap', 'ax', "'abc'", TypeError, 'ax: expected a matplotlib Axes, got str'),
    ('nb07', 'tile_update', 'm', 'extra dim', ValueError, 'm: expected a 2-D tensor, got shape (1, 1, 2, 1)'),
]


@pytest.mark.parametrize("lesson,name,arg,label,error,message", TABLE,
                         ids=[f"{r[0]}.{r[1]}-{r[2]}={r[3]}" for r in TABLE])
def test_bad_argument_is_named(lesson, name, arg, label, error, message):
    with pytest.raises(error, match=re.escape(message)):
        bad_call(lesson, name, arg, label)()
    plt.close("all")


def test_the_table_covers_every_callable_that_takes_arguments():
    covered = {(r[0], r[1]) for r in TABLE}
    takes_arguments = {(lesson, name) for lesson, name, fn, args, kwargs in GOOD
                       if (args or kwargs) and not name.startswith("check_")}   # check_*(fn) report, never raise
    assert takes_arguments - covered == set()


# Hand-written rows: the messages a learner meets first, with the values that matter.
@pytest.mark.parametrize("call_,error,message", [
    (lambda: nb01.kernel_regression_plot(X, X[:4], X, ax=ax()), ValueError,
     "y_truth: expected 5 values, one per x_test, got 4"),
    (lambda: nb01.kernel_regression_plot(X, X, X, X, ax=ax()), ValueError,
     "y_train: expected x_train and y_train together (both or neither), got x_train alone"),
    (lambda: nb01.kernel_regression_plot(X, X, X, X, X[:2], ax=ax()), ValueError,
     "y_train: expected 5 values, one per x_train, got 2"),
    (lambda: nb01.kernel_regression_plot(X, X, X, ax="a"), TypeError, "ax: expected a matplotlib Axes, got str"),
    (lambda: nb01.kernel_regression_plot(X[None], X, X, ax=ax()), ValueError,
     "x_test: expected a 1-D array, got shape (1, 5)"),
    (lambda: nb01.train_bandwidth(X, X, epochs=10 ** 6), ValueError,
     "epochs: expected an int <= 10000 (a few hundred steps converge; more only waits), got 1000000"),
    (lambda: nb06.encoding_columns_plot(np.zeros((3, 4)), ax=ax()), ValueError,
     "columns: expected numbers in [0, 3] (P has 4 columns), got [6, 7, 8, 9]"),
    (lambda: nb06.encoding_columns_plot(np.zeros(4), ax=ax()), ValueError,
     "P: expected a 2-D (n, D) matrix, got shape (4,)"),
    (lambda: nb06.encoding_columns_plot(np.zeros((3, 4)), columns="01", ax=ax()), TypeError,
     "columns: expected whole column numbers, got '01'"),
    (lambda: nb06.encoding_heatmap(np.zeros((3, 4)), vmax=0, ax=ax()), ValueError, "vmax"),
    (lambda: nb06_figures.update_encoding_heatmap(nb06.encoding_heatmap(np.zeros((3, 4)), ax=ax()), np.zeros(3)),
     ValueError, "P: expected a 2-D (n, D) matrix, got shape (3,)"),
    (lambda: nb06_figures.binary_counter_plot(0, ax=ax()), ValueError, "num_bits"),
    (lambda: nb06_figures.binary_counter_plot("a", ax=ax()), TypeError, "num_bits"),
    (lambda: nb06_figures.binary_counter_plot(2.5, ax=ax()), TypeError, "num_bits"),
    (lambda: nb06_figures.binary_counter_plot(16, ax=ax()), ValueError,
     "num_bits: expected at most 8 (the plot writes 2^num_bits numbers), got 16"),
    (lambda: nb06.rotation_matrix(1, 2 ** 20), ValueError,
     "num_hiddens: expected a matrix M_δ of at most 1 GiB, got 1048576 x 1048576 entries x 8 B = 8.19e+03 GiB"),
    (lambda: nb04.describe_step(nb04.self_attention_steps(*[torch.eye(3, dtype=torch.float64)] * 4), ["a", "b", "c"], 2,
                                query=7), ValueError, "query: expected an index in [0, 3), got 7"),
    (lambda: nb04.crossover(64, versus="GRU"), ValueError, "versus: expected 'RNN' or 'CNN', got 'GRU'"),
    (lambda: nb04.layer_cost("RNN", 0, 8), ValueError, "n: expected sequence lengths >= 1, got 0.0"),
    (lambda: nb07.block_mask(10 ** 6, 4, 2), ValueError,
     "num_queries: expected an int <= 32768 (a side of a bool mask of at most 1 GiB), got 1000000"),
    (lambda: nb07_tiles.implied_weights(list(nb07.tiled_attention_steps(*nb07.toy_problem())), 4), ValueError,
     "num_keys: expected at least 8, the keys the states have visited, got 4"),
    (lambda: nb07_figures.mask_heatmap(torch.ones(3, 4), ax()), TypeError,
     "mask: expected dtype torch.bool (True = may attend), got torch.float32"),
    (lambda: nb08_exercises.context(torch.zeros(5, 2, 6), torch.zeros(2, 4, 1)), ValueError,
     "weights: expected shape (2, 5, 1) for outputs (n, B, 2h) = (5, 2, 6), got (2, 4, 1)"),
    (lambda: nb07_exercises.tile_update(torch.zeros(2, 1), torch.zeros(2, 1), torch.zeros(2, 3), torch.zeros(2, 4), torch.zeros(4, 2)),
     ValueError, "acc: expected shape (2, 2) for scores (2, 4) and v with 2 columns, got (2, 3)"),
    (lambda: nb08.random_dates(3, first_year=2000, last_year=1999), ValueError,
     "last_year: expected a year >= first_year = 2000, got 1999"),
    (lambda: nb08_seq2seq.train_steps(nb08_seq2seq.DateTranslator(), 10_000, batch_size=4096), ValueError,
     "steps, batch_size: expected at most 1000000 dates in all (steps × batch_size), got 10000 × 4096 = 40960000"),
])
def test_bad_input_is_named(call_, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call_()
    plt.close("all")


def test_a_generator_checks_when_called_not_at_the_first_step():
    with pytest.raises(ValueError, match=re.escape("epochs: expected an int >= 1, got 0")):
        nb01.train_steps(X, X, epochs=0)                 # no next(): the boundary is the call


def test_the_specs_name_argument_expected_and_given():
    cases = [(_checks.Int(1, 9, why="nine at most"), 10, "n: expected an int <= 9 (nine at most), got 10"),
             (_checks.Real(positive=True), 0, "n: expected a number > 0, got 0.0"),
             (_checks.Real(high=5), 6, "n: expected a number <= 5, got 6"),
             (_checks.Tensor(2), torch.zeros(3), "n: expected a 2-D tensor, got shape (3,)"),
             (_checks.Tensor(1, integer=True), torch.zeros(3), "n: expected an integer tensor, got dtype torch.float32"),
             (_checks.Choice(("a", "b")), "c", "n: expected one of ['a', 'b'], got 'c'"),
             (_checks.Choice((1, 2)), True, "n: expected one of [1, 2], got True"),
             (_checks.Text(3), "abcd", "n: expected at most 3 characters, got 4"),
             (_checks.Flag(), 1, "n: expected True or False, got int 1"),
             (_checks.Items(_checks.Int(0)), [1, -1], "n[1]: expected an int >= 0, got -1"),
             (_checks.Items(), "ab", "n: expected a list or tuple, got str"),
             (_checks.Dict(), {}, "n: expected at least 1 entries, got 0"),
             (_checks.Array(1), [[1.0]], "n: expected a 1-D array, got shape (1, 1)"),
             (_checks.Array(), [[1.0], [1.0, 2.0]], "n: expected a tensor or an array of numbers, got list that is not one"),
             (_checks.Function(), 3, "n: expected a function, got int")]
    for spec, value, message in cases:
        with pytest.raises((ValueError, TypeError), match=re.escape(message)):
            spec(value, "n")
    for spec, value in [(_checks.Int(1, 9), 9), (_checks.Optional(_checks.Int()), None), (_checks.Array(1), np.ones(2)),
                        (_checks.Choice((1, 2)), 2), (_checks.Tensor(1, floating=False), torch.arange(3))]:
        spec(value, "n")                                 # accepted: no exception


def test_the_decorator_refuses_unknown_argument_names():
    with pytest.raises(AssertionError, match="has no arguments"):
        _checks.arguments(y=_checks.Int())(lambda x: x)


def _tensors(args, kwargs):
    return [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]


@pytest.mark.parametrize("lesson,name,fn,args,kwargs", GOOD, ids=[f"{g[0]}.{g[1]}" for g in GOOD])
def test_good_call_works_and_leaves_its_tensors_untouched(lesson, name, fn, args, kwargs):
    tensors = _tensors(args, kwargs)
    before = [(t, t.clone(), t._version) for t in tensors]
    call(fn, args, kwargs)
    plt.close("all")
    for t, copy, version in before:
        assert t._version == version, f"{lesson}.{name} wrote an input in place"
        assert torch.equal(t, copy), f"{lesson}.{name} changed an input's values"


def test_the_untouched_check_can_fail():
    x = torch.ones(3)
    version = x._version
    x.mul_(2)                                            # what a helper must not do
    assert x._version != version


def test_good_input_still_draws():
    a = nb06_figures.binary_counter_plot(8, ax=ax())
    assert len(a.lines) == 8
    a = nb01.kernel_regression_plot(X, X, X, X, X, ax=ax())
    assert len(a.lines) == 3
    assert Lazy and resolve                              # the shared helpers are importable


def test_generators_check_everything_when_called():
    with pytest.raises(ValueError, match=re.escape("lr: expected a number > 0, got -1.0")):
        nb01.train_steps(X, X, lr=-1)                    # body checks too: no next() needed
    with pytest.raises(ValueError, match=re.escape("y_train: expected shape (5,) to match x_train, got (4,)")):
        nb01.train_steps(X, X[:4])
    steps = nb01.train_steps(X, torch.sin(X), epochs=2)
    assert [epoch for epoch, _, _ in steps] == [1, 2]


def test_nb09_run_checks_its_options_when_called():
    """run's ItResolver config and training options are refused at the call, before any step (no next())."""
    with pytest.raises(ValueError, match=re.escape("lr: expected a number > 0, got -1.0")):
        nb09_training.run(2, lr=-1)
    with pytest.raises(ValueError, match=re.escape("word_dropout: expected a number < 1.0, got 1.0")):
        nb09_training.run(2, word_dropout=1.0)
    with pytest.raises(ValueError, match=re.escape("batch_size: expected an int <= 4096, got 100000")):
        nb09_training.run(2, batch_size=100_000)
    with pytest.raises(TypeError, match=re.escape("weight_decay: expected a real number, got str")):
        nb09_training.run(2, weight_decay="0")
    with pytest.raises(TypeError, match="unexpected keyword argument 'heads'"):
        nb09_training.run(2, heads=4)                             # ItResolver's own signature, now at the call
    with pytest.raises(ValueError, match="num_heads"):
        nb09_training.run(2, num_heads=0)
    steps = list(nb09_training.run(2, seed=0))
    assert len(steps) == 2 and {"loss", "accuracy", "test accuracy", "model"} <= set(steps[-1])


def test_nb10_run_checks_its_options_when_called():
    """run's DateTransformer config and training options are refused at the call, before any step."""
    with pytest.raises(ValueError, match=re.escape("lr: expected a number > 0, got -1.0")):
        nb10_training.run(2, lr=-1)
    with pytest.raises(ValueError, match=re.escape("batch_size: expected an int <= 4096, got 100000")):
        nb10_training.run(2, batch_size=100_000)
    with pytest.raises(TypeError, match="unexpected keyword argument 'heads'"):
        nb10_training.run(2, heads=4)
    with pytest.raises(TypeError, match=re.escape("compare_steps: expected an int, got str")):
        nb10_training.retrain_and_measure(10, compare_steps="x")  # refused before anything is trained or written


@pytest.mark.parametrize("text,message", [
    ("nope", "text: expected a date written like one of '7 mar 1994', 'march 7, 1994', '07.03.1994', "
             "'1994 mar 7', '03/07/1994', got 'nope'"),
    ("__import__('os')", "text: expected digits, spaces, ',', '.', '/' and letters of month names, got \"'()_\""),
    ("7 mar 1800", "text: expected a year from 1950 to 2049 (the years it was trained on), got 1800"),
    ("", "text: expected a date such as '7 mar 1994', got an empty string"),
])
def test_nb10_a_date_it_cannot_read_is_named(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        nb10.decode(nb10_model.DateTransformer(num_hiddens=16, num_heads=2, num_layers=1, ffn_hiddens=32), text)


# ---- the one rule (docs/api.md): TypeError when the type is wrong, ValueError when the value is
_TYPE_VARIANTS = {"'abc'", "'yes'", "3", "2.5"}         # and "dtype ..." (see tests/_lesson_calls.variants)
# Variants allowed another exception than the rule's, each with why: (lesson, name, arg, label) -> allowed.
_RULE_EXCEPTIONS = {
    # an integer tensor of widths is the right type (widths may be whole numbers); its values (0) are not
    ("nb01", "training_loss_curve", "sigmas", "dtype torch.int64"): (ValueError,),
}


def rule(label):
    """The exception the rule asks for, for a bad variant of tests/_lesson_calls.variants."""
    return TypeError if label in _TYPE_VARIANTS or label.startswith("dtype") else ValueError


def rule_violations(entries, skip=frozenset()):
    """Every bad variant of ``entries`` (rows like GOOD's) whose exception is not the rule's, and how
    many variants ran."""
    wrong, n = [], 0
    for lesson, name, fn, args, kwargs in entries:
        if name.startswith("check_"):                   # check_*(fn) report a learner's mistake, never raise
            continue
        params = list(inspect.signature(fn).parameters)
        slots = [(params[i], i, a) for i, a in enumerate(args)] + [(k, k, v) for k, v in kwargs.items()]
        for arg, key, value in slots:
            if name == "scaling_hint" and arg == "fn":   # the learner's function: reported in a sentence
                continue
            for label, bad, kind in variants(value):
                if kind != "raise" or (lesson, name, arg, label) in skip:
                    continue
                a, k = list(args), dict(kwargs)
                if isinstance(key, int):
                    a[key] = bad
                else:
                    k[key] = bad
                try:
                    call(fn, a, k)
                    got = None
                except Exception as exc:  # any other exception breaks the rule too
                    got = exc
                plt.close("all")
                n += 1
                allowed = _RULE_EXCEPTIONS.get((lesson, name, arg, label), (rule(label),))
                if type(got) not in allowed:
                    wrong.append(f"{lesson}.{name} {arg}={label}: expected {rule(label).__name__}, "
                                 f"got {type(got).__name__}: {got}")
    return wrong, n


@pytest.mark.parametrize("lesson", sorted({g[0] for g in GOOD}))
def test_every_bad_variant_gets_the_exception_type_of_the_rule(lesson):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from probe_lessons import SKIP  # variants that are valid inputs
    wrong, n = rule_violations([g for g in GOOD if g[0] == lesson], SKIP)
    assert n > 0 and wrong == []


def test_the_rule_test_can_fail():
    def columns_by_hand(columns=2):                     # the old dialect: ValueError for a str
        if not isinstance(columns, int) or columns < 1:
            raise ValueError(f"columns: expected a whole number >= 1, got {columns!r}")

    wrong, n = rule_violations([("fake", "columns_by_hand", columns_by_hand, (), {"columns": 2})])
    assert n == 3 and wrong == [        # 'abc', 2.5 (wrong types) and -1 (a wrong value); 10**9 is accepted
        "fake.columns_by_hand columns='abc': expected TypeError, got ValueError: columns: expected a whole "
        "number >= 1, got 'abc'",
        "fake.columns_by_hand columns=2.5: expected TypeError, got ValueError: columns: expected a whole "
        "number >= 1, got 2.5"]
    assert rule_violations([("fake", "f", _checks.arguments(columns=_checks.Int(1))(columns_by_hand), (),
                             {"columns": 2})])[0] == []
