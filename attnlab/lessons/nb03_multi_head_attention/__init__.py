"""Notebook 03, multi-head attention (多头注意力): hand-built toy heads, the figures of the split into
heads, the Play panel and the two code exercises."""
from .. import surface
from . import exercises, figures, heads, play

__all__ = surface(globals(), exercises, figures, heads, play)
