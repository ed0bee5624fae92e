"""Notebook 02, scoring functions (评分函数) and why dot products are divided by √d_k.

stats      score statistics on random vectors, the scaling variants, the exercise's mistakes
figures    which key the queries pick, queries and keys with their weights, the index thumbnail
live       the Play panel
"""
from .figures import key_choice_plot, thumbnail, vectors_and_weights
from .live import play
from .stats import (
                    METHODS,
                    centre_rows,
                    histogram_density,
                    key_choice,
                    random_queries_keys,
                    scaling_hint,
                    score_statistics,
                    scores,
                    seeded_additive,
                    variance_mistakes,
)

__all__ = ["METHODS", "centre_rows", "histogram_density", "key_choice", "key_choice_plot", "play",
           "random_queries_keys", "scaling_hint", "score_statistics", "scores", "seeded_additive", "thumbnail",
           "variance_mistakes", "vectors_and_weights"]
