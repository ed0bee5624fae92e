"""Notebook 04, the self-attention (自注意力) walkthrough: the six steps, masks, and the cost of CNN / RNN /
self-attention layers against sequence length n, with their figures, the Play panel and two exercises."""
from .. import surface
from . import exercises, figures, steps, play

__all__ = surface(globals(), exercises, figures, steps, play)
