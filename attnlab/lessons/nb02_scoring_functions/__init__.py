"""Notebook 02, scoring functions (评分函数) and why dot products are divided by √d_k: score statistics on
random vectors (``stats``) and the notebook's figures and Play panel (``figures``)."""
from . import stats, figures
from .stats import (
    METHODS, random_queries_keys, seeded_additive, scores, row_entropy, softmax_jacobian_norm, centre_rows,
    score_statistics, histogram_density, key_choice, scaling_hint, variance_mistakes)
from .figures import (LABEL_AT, vectors_and_weights, key_choice_plot, D_KS, PLAY_METHODS, PLAY_LIMITS, play_limit,
                      play_edges, ScoringPlay, thumbnail)
