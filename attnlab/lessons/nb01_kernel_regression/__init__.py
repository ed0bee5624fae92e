"""Notebook 01, kernel regression (核回归): Nadaraya-Watson as attention, a learnable bandwidth, and the
figures and Play panels of the notebook (the model in ``model``, the drawing in ``figures``)."""
from .. import surface
from . import model, figures

__all__ = surface(globals(), model, figures)
