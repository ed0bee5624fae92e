"""One package per notebook: what that notebook needs and no other, always in the same rooms
(docs/adding_a_notebook.md):

    <domain modules>.py   its toy models, data, training
    figures.py            static figures and the index thumbnail
    live.py               play(*, <starting values>) -> the Play panel; play_<name>(...) for a second one
    exercises.py          the "write it yourself" checks
    __init__.py           __all__ = what the notebook uses (and names outside checks call), imported explicitly

Tests import a lesson's internals from its modules (``from attnlab.lessons.nb03_x import heads``).
"""
from ..ui import fonts  # noqa: F401  (the CJK font, behind matplotlib's default: Chinese figures draw anywhere)
