"""One module (or package) per notebook: what that notebook needs and no other.

A lesson package's modules each declare their public names once, in ``__all__``; the package's
``__init__`` gathers them with ``surface`` so the notebook sees one namespace (``lesson.X``)::

    from .. import surface
    from . import model, figures
    __all__ = surface(globals(), model, figures)
"""
from ..ui import fonts  # noqa: F401  (the CJK font, behind matplotlib's default: Chinese figures draw anywhere)


def surface(namespace, *modules):
    """Copy each module's ``__all__`` names into ``namespace`` (a lesson package's ``globals()``) and
    return them as one list, the package's ``__all__``. A name declared by two modules is an error."""
    names, source = [], {}
    for module in modules:
        declared = getattr(module, "__all__", None)
        if declared is None:
            raise ValueError(f"modules: {module.__name__} has no __all__ (a list of its public names)")
        for name in declared:
            if name in source:
                raise ValueError(f"modules: {name!r} is declared by both {source[name]} and {module.__name__}")
            source[name] = module.__name__
            namespace[name] = getattr(module, name)
            names.append(name)
    return names
