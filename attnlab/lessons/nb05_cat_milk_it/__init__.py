"""Notebook 05, the cat, the milk and "it" (seed 004's example, recomputed): three placements of the
√d_k scaling, the seed's tables, where each word moves, the Play panel and the two code exercises."""
from .. import surface
from . import compute, exercises, figures, play

__all__ = surface(globals(), compute, exercises, figures, play)
