"""Notebook 02, scoring functions (评分函数) and why dot products are divided by √d_k: score statistics on
random vectors (``stats``) and the notebook's figures and Play panel (``figures``)."""
from .. import surface
from . import stats, figures

__all__ = surface(globals(), stats, figures)
