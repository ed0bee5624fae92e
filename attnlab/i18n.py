"""The learner's language: one gettext catalog for every string a learner reads.

Drawing and lessons write ``from attnlab.i18n import gettext as _`` and wrap each learner-facing
string, with named fields for values: ``_("{n} keys").format(n=n)``, never concatenation. A string
defined at import time (a module-level label table) is marked with ``N_`` and looked up with ``_``
where it is shown, so it follows the language chosen later.

The catalog is ``attnlab/locale/zh/LC_MESSAGES/attnlab.po`` (compiled beside it as ``.mo``),
extracted from the package and the English notebooks by ``tools/catalog.py``. English is the
source language: its strings are the msgids themselves. The core's exception messages are an API
and stay English; they never go through this module.

Choosing the language: ``set_language("zh")``, the context manager ``language("zh")`` (tests, tools,
a panel's refresh), or the environment variable ``ATTNLAB_LANG`` read at import (servers). English by
default. A figure or panel built after a switch is all in the new language; one built before keeps its
own (panels remember the language they were built in and refresh inside ``language(...)``).

The language is a ``contextvars.ContextVar``: ``language(...)`` sets it for its block and resets it
with the token it got, so nested blocks, an exception inside one, and blocks running at the same
time in other threads or asyncio tasks (two panels in two languages refreshed from one kernel, two
server pages) never leak a language into each other. ``set_language`` chooses for the current
context and also for every thread or task that has chosen nothing itself (a kernel's cells and its
widget callbacks share one context; a fresh thread starts with none).

This module uses the standard library only, so the core may import it (``set_language`` is part
of ``import attnlab``); the shipped CJK font is registered by ``attnlab.ui.plotting``.
"""
import contextlib
import contextvars
import gettext as _gettext
import os
import threading
from pathlib import Path

__all__ = ["LANGUAGES", "ENVIRONMENT_VARIABLE", "gettext", "ngettext", "pgettext", "N_", "set_language", "get_language",
           "language", "catalog_path", "PAGE_MESSAGES", "page_messages", "explain", "listed"]

LANGUAGES = ("en", "zh")
ENVIRONMENT_VARIABLE = "ATTNLAB_LANG"
DOMAIN = "attnlab"
LOCALE_DIR = Path(__file__).parent / "locale"

_lock = threading.Lock()
_loaded = {"en": _gettext.NullTranslations()}


def catalog_path(lang, suffix=".mo"):
    """Where the compiled (``.mo``) or source (``.po``) catalog of ``lang`` lives."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / (DOMAIN + suffix)


def _language_code(lang, name):
    if not isinstance(lang, str):
        raise TypeError(f"{name}: expected a language code, one of {', '.join(map(repr, LANGUAGES))}, "
                        f"got {type(lang).__name__}")
    if lang not in LANGUAGES:
        raise ValueError(f"{name}: expected one of {', '.join(map(repr, LANGUAGES))}, got {lang!r}")
    return lang


def _translations(lang):
    with _lock:
        if lang not in _loaded:
            with open(catalog_path(lang), "rb") as f:
                _loaded[lang] = _gettext.GNUTranslations(f)
        return _loaded[lang]


# The language of this context, when it chose one (set_language, language(...)); else _chosen.
_language = contextvars.ContextVar("attnlab_language")
_chosen = _language_code(os.environ.get(ENVIRONMENT_VARIABLE) or "en", ENVIRONMENT_VARIABLE)


def get_language():
    """The language strings are looked up in now: "en" or "zh"."""
    return _language.get(_chosen)


def set_language(lang):
    """Choose the language of every figure, widget and message built from now on: "en" or "zh".

    Returns the language that was in force before. Figures and panels built earlier keep theirs.
    The choice holds in this context and in every thread or task that has not chosen its own.
    """
    global _chosen
    _language_code(lang, "language")
    _translations(lang)                   # load now, so a missing catalog fails here, not mid-figure
    previous = get_language()
    _chosen = lang
    _language.set(lang)
    return previous


@contextlib.contextmanager
def language(lang):
    """``with language("zh"): ...`` builds in that language and restores the previous one after,
    for this context only (other threads and tasks keep theirs), even when the block raises."""
    _language_code(lang, "language")
    _translations(lang)
    token = _language.set(lang)
    try:
        yield lang
    finally:
        _language.reset(token)


def gettext(message):
    """``message`` (an English msgid) in the current language; English where the catalog has none."""
    return _translations(get_language()).gettext(message)


def ngettext(singular, plural, n):
    """The singular or plural form for ``n``, in the current language (Chinese has one form)."""
    return _translations(get_language()).ngettext(singular, plural, n)


def pgettext(context, message):
    """``message`` as ``context`` uses it, in the current language: for one English msgid that two
    places translate apart (the catalog keeps an entry per context)."""
    return _translations(get_language()).pgettext(context, message)


def listed(items):
    """The strings ``items`` written as a list in the current language: "a, b, c" in English, "a、b、c"
    in Chinese (the enumeration comma, never an ASCII comma between Chinese words)."""
    return pgettext("enumeration", ", ").join(items)


def explain(problem):
    """A lesson's verdict on a learner's input, ``(message marked N_, {fields})`` or None, in the
    learner's language (for a panel's text), or None. ``checks.refuse`` raises the same verdict in English."""
    if problem is None:
        return None
    message, fields = problem
    return gettext(message).format(**fields)


def N_(message):
    """Marks ``message`` for the catalog without looking it up: translate it with ``_`` where shown."""
    return message


# What a dashboard page says when its kernel or its connection is gone (the attnlab Voila template,
# change 6). The page has no Python: tools/catalog.py writes these, in every language, to
# share/jupyter/voila/templates/attnlab/attnlab_messages.json, which the template inlines.
PAGE_MESSAGES = {
    "lost": N_("This lesson's kernel stopped (the server may have run out of memory or restarted). "
               "The figures no longer follow the controls."),
    "retrying": N_("Connection to the server lost. Trying to reconnect…"),
    "reload": N_("Reload the lesson"),
    "waiting": N_("The server does not answer yet. The lesson reloads as soon as it does."),
    "panel_lost": N_("Controls disabled: this figure no longer follows them. Reload the lesson at the top of the page."),
    "panel_retrying": N_("Reconnecting: this figure may not follow the controls until the connection is back."),
    "scroll_hint": N_("← scroll →"),      # under a figure wider than a phone's screen (the template's change 7)
    "figure": N_("A figure of this notebook"),   # a figure's alt where no text comes before it (change 8; the site)
    # What a screen reader hears (change 8): a slider's editable readout, and a live figure's move once it settled
    "readout": N_("{control}: type a value"),
    "setting": N_("{control} = {value}"),
    "separator": N_(", "),                        # between two settings moved at once
    "moved": N_("{settings}: {change}"),          # the settings moved, then a line of the text that changed
    "on": N_("on"),                               # a checkbox's value
    "off": N_("off"),
}


def page_messages(lang):
    """``PAGE_MESSAGES`` in ``lang`` ("en" or "zh"), as the page shows them: {key: text}."""
    translations = _translations(_language_code(lang, "lang"))
    return {key: translations.gettext(message) for key, message in PAGE_MESSAGES.items()}

