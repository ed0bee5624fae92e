"""Notebook 05, the cat, the milk and "it" (seed 004's example, recomputed): three placements of the
√d_k scaling, the seed's tables, where each word moves, the Play panel and the two code exercises.

data       seed 004's sentences and word vectors
compute    attention with each scaling, the seed's tables, similarities, the two-head variant
figures    where each word moves, the index thumbnail
live       the Play panel: its controls (menus, T, word sliders) and figure
exercises  the two "write it yourself" checks
"""
from .compute import (
                      SEED_D_K,
                      SEED_OUTPUTS,
                      SEED_SCORES,
                      SEED_SIMILARITIES,
                      attend,
                      compare_to_seed,
                      feature_heads,
                      similarities,
                      similarity_mistakes,
)
from .data import SENTENCES, WORD_VECTORS, cat_milk_it
from .exercises import check_attend, check_feature_heads
from .figures import moves_plot, thumbnail
from .live import play

__all__ = ["SEED_D_K", "SEED_OUTPUTS", "SEED_SCORES", "SEED_SIMILARITIES", "SENTENCES", "WORD_VECTORS", "attend",
           "cat_milk_it", "check_attend", "check_feature_heads", "compare_to_seed", "feature_heads", "moves_plot",
           "play", "similarities", "similarity_mistakes", "thumbnail"]
