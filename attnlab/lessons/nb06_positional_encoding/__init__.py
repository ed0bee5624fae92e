"""Notebook 06, positional encoding (位置编码): the sinusoidal P, its figures, relative position as a
rotation, the rotary encoding (RoPE) that applies that rotation to queries and keys, and the
notebook's exercises.

encoding   computation: frequencies, wavelengths, the rotation M_δ, similarity by offset, RoPE
figures    figures of P and the Play explorer (named handles, no state on matplotlib objects)
exercises  references and checks for the two "write it yourself" cells
"""
from .. import surface
from . import encoding, figures, exercises

__all__ = surface(globals(), encoding, figures, exercises)
