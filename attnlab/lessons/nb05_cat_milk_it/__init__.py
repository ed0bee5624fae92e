"""Notebook 05, the cat, the milk and "it" (seed 004's example, recomputed): three placements of the
√d_k scaling, the seed's tables, where each word moves, the Play panel and the two code exercises."""
from . import compute, exercises, figures  # noqa: F401
from .compute import (
    SCALINGS, SEED_D_K, SEED_SCORES, SEED_OUTPUTS, SEED_SIMILARITIES, Attended, attend, similarities,
    compare_to_seed, feature_heads, similarity_mistakes)
from .figures import WORD_COLORS, Moves, moves_plot, thumbnail
from .play import CONTROLS, SCALING_OPTIONS, CatMilkPlay, formula, play, word_sliders
from .exercises import ATTEND_MISTAKES, FEATURE_HEADS_MISTAKES, check_attend, check_feature_heads
