"""The kernel manager of the shared browser-test Voila server (conftest.py): the project's
ClassroomKernelManager whose preheated pool is filled once at start and never refilled.

Each notebook's first page takes its preheated kernel; later pages of it find the pool empty and
take Voila's path without a pool (a fresh kernel runs the notebook as the page streams, as on
Binder). Voila's own setting cannot say this: a large `fill_delay` puts a refill task that waits
that long into the pool at once, and the next page of that notebook waits on it.
"""
from attnlab.classroom import ClassroomKernelManager


class NoRefillKernelManager(ClassroomKernelManager):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # Voila's pool manager subclasses this class; its __init__ fills every pool (delay=0) after
        # this one returns, and a page taking a kernel asks for a refill (delay=None).
        fill = getattr(self, "fill_if_needed", None)
        if fill is not None:
            def fill_if_needed(delay=None, notebook_name=None, **more):
                if delay == 0:
                    fill(delay=delay, notebook_name=notebook_name, **more)
            self.fill_if_needed = fill_if_needed
