"""Notebook 00, the index: what each notebook is called and shows, and where its stored picture lies.

Each lesson draws its own picture (``attnlab.lessons.nbNN_<stem>.thumbnail(ax)``), once per language:
``python tools/make_thumbnails.py`` stores the English pictures in thumbnails/ and the Chinese ones in
thumbnails/zh/, so the index opens without running every lesson and each edition shows pictures in its
own language. ``tests/lessons/test_nb00_index.py`` redraws each one and checks that the stored file is still
exactly what the lesson draws (never a stale screenshot), and that a Chinese picture has no English text.
"""
from pathlib import Path

from ...core import checks
from ...i18n import LANGUAGES, N_, get_language

__all__ = ["CAPTIONS", "DPI", "SIZE_INCHES", "THUMBNAILS", "TITLES", "thumbnail_path", "title"]

THUMBNAILS = Path(__file__).parent / "thumbnails"     # English; the other languages in thumbnails/<lang>/
SIZE_INCHES, DPI = (2.6, 1.8), 100          # every stored picture: 260 x 180 pixels

# One line under each title: what the small picture shows (translated where shown).
CAPTIONS = {
    "01_kernel_regression": N_("fits with σ too small, right, too large"),
    "02_scoring_functions": N_("q·k spreads out as d_k grows"),
    "03_multi_head_attention": N_("3 heads, each its own 5×5 weights"),
    "04_self_attention_walkthrough": N_("causal weights: no looking ahead"),
    "05_cat_milk_it": N_("each word (○) → its output (●)"),
    "06_positional_encoding": N_("a sin/cos code for each position"),
    "07_masks_and_efficient_attention": N_("masks: dark = may attend"),
    "08_bahdanau_attention": N_("dates: output × input alignment"),
    "09_transformer_block": N_("where “it” points: the referent"),
    "10_encoder_decoder": N_("each output character finds its input"),
    "11_induction_heads": N_("an induction head: one place after the earlier match"),
    "12_gpt": N_("the next character: before (grey) and after the filters"),
    "13_long_context": N_("a sink: the bright first column; white: a sliding window"),
    "14_length_generalisation": N_("accuracy past the training length, per encoding"),
}


# The titles title() makes, for the catalog: shown translated in the gallery.
TITLES = (N_("01 kernel regression"), N_("02 scoring functions"), N_("03 multi head attention"),
          N_("04 self attention walkthrough"), N_("05 cat milk it"), N_("06 positional encoding"),
          N_("07 masks and efficient attention"), N_("08 bahdanau attention"), N_("09 transformer block"),
          N_("10 encoder decoder"), N_("11 induction heads"), N_("12 gpt"),
          N_("13 long context"), N_("14 length generalisation"))


@checks.arguments(name=checks.Text(), lang=checks.Optional(checks.Text()))
def thumbnail_path(name, lang=None):
    """The stored picture of notebook ``name`` (e.g. "01_kernel_regression") drawn in ``lang`` ("en" or
    "zh"; default: the language in force, so the Chinese index shows the Chinese pictures)."""
    if name not in CAPTIONS:
        raise checks.error("name", f"one of {sorted(CAPTIONS)}", repr(name))
    lang = get_language() if lang is None else lang
    if lang not in LANGUAGES:
        raise checks.error("lang", f"one of {', '.join(map(repr, LANGUAGES))}", repr(lang))
    return (THUMBNAILS if lang == "en" else THUMBNAILS / lang) / f"{name}.png"


@checks.arguments(name=checks.Text())
def title(name):
    """'01_kernel_regression' -> '01 kernel regression'."""
    return name.replace("_", " ")

