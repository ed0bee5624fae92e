"""The learner's language (attnlab/i18n.py), its catalog (tools/catalog.py), its font (attnlab/fonts.py)
and the glossary (docs/glossary.md): each check can fail, and the tests show it does."""
import ast
import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from fontTools.ttLib import TTFont

import attnlab
from attnlab import i18n
from attnlab.ui import fonts

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import catalog

PO = i18n.catalog_path("zh", ".po")
HAN = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


def zh_entries():
    return [m for m in catalog._read(PO, locale="zh") if m.id]


def a_translated_msgid():
    entry = next(m for m in zh_entries() if isinstance(m.id, str) and m.string)
    return entry.id, entry.string


# ---- choosing the language ------------------------------------------------------------------------

def test_english_by_default_and_the_switch_is_global_and_returns_the_previous():
    msgid, msgstr = a_translated_msgid()
    assert attnlab.get_language() == "en"
    assert i18n.gettext(msgid) == msgid
    assert attnlab.set_language("zh") == "en"
    assert i18n.gettext(msgid) == msgstr
    assert attnlab.set_language("en") == "zh"
    assert i18n.gettext(msgid) == msgid


def test_language_context_manager_restores_even_after_an_error():
    msgid, msgstr = a_translated_msgid()
    with pytest.raises(RuntimeError):
        with attnlab.language("zh"):
            assert i18n.gettext(msgid) == msgstr
            raise RuntimeError("boom")
    assert attnlab.get_language() == "en"


def test_unknown_text_falls_back_to_english_and_n_marks_without_translating():
    with attnlab.language("zh"):
        assert i18n.gettext("not a msgid of the catalog") == "not a msgid of the catalog"
        msgid, _ = a_translated_msgid()
        assert i18n.N_(msgid) == msgid
        assert i18n.ngettext("one key", "{n} keys", 3) == "{n} keys"


@pytest.mark.parametrize("bad, error, match", [
    ("fr", ValueError, r"language: expected one of 'en', 'zh', got 'fr'"),
    ("ZH", ValueError, r"language: expected one of 'en', 'zh', got 'ZH'"),
    (3, TypeError, r"language: expected a language code, one of 'en', 'zh', got int"),
    (None, TypeError, r"language: expected a language code, one of 'en', 'zh', got NoneType"),
])
def test_bad_language_is_refused_and_nothing_changes(bad, error, match):
    with pytest.raises(error, match=match):
        attnlab.set_language(bad)
    assert attnlab.get_language() == "en"


def test_nested_language_blocks_restore_in_order_even_when_the_inner_one_raises():
    with attnlab.language("zh"):
        with pytest.raises(RuntimeError):
            with attnlab.language("en"):
                assert attnlab.get_language() == "en"
                raise RuntimeError("boom")
        assert attnlab.get_language() == "zh"
        with attnlab.language("zh"), attnlab.language("en"):
            assert attnlab.get_language() == "en"
        assert attnlab.get_language() == "zh"
    assert attnlab.get_language() == "en"


@pytest.mark.parametrize("bad, error", [("fr", ValueError), (None, TypeError)])
def test_a_language_block_with_a_bad_language_is_refused_before_anything_changes(bad, error):
    with pytest.raises(error, match="language: expected"):
        with attnlab.language(bad):
            pass
    assert attnlab.get_language() == "en"


def test_threads_in_language_blocks_at_the_same_time_each_see_their_own():
    """Both threads are inside their block at once (the barrier), look up, then wait for each other
    again before leaving: with one language for the whole process, one of them would see the other's."""
    import threading
    msgid, msgstr = a_translated_msgid()
    barrier, seen = threading.Barrier(2, timeout=10), {}

    def work(lang):
        with attnlab.language(lang):
            barrier.wait()
            seen[lang] = [attnlab.get_language(), i18n.gettext(msgid)]
            barrier.wait()
            seen[lang].append(attnlab.get_language())

    threads = [threading.Thread(target=work, args=(lang,)) for lang in ("en", "zh")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"en": ["en", msgid, "en"], "zh": ["zh", msgstr, "zh"]}
    assert attnlab.get_language() == "en"                    # nothing leaked into this thread


def test_a_thread_that_chose_nothing_follows_set_language_and_its_own_choice_stays_its_own():
    import threading
    seen = []

    def look():
        seen.append(attnlab.get_language())

    def choose():
        attnlab.set_language("en")
        with attnlab.language("zh"):
            seen.append(attnlab.get_language())
        seen.append(attnlab.get_language())

    attnlab.set_language("zh")
    for target in (look, choose):
        t = threading.Thread(target=target)
        t.start()
        t.join()
    assert seen == ["zh", "zh", "en"]


def test_asyncio_tasks_interleaved_in_language_blocks_each_see_their_own():
    import asyncio
    msgid, msgstr = a_translated_msgid()

    async def work(lang):
        with attnlab.language(lang):
            seen = []
            for _ in range(3):
                await asyncio.sleep(0)                       # let the other task run inside its block
                seen.append((attnlab.get_language(), i18n.gettext(msgid)))
            return seen

    async def both():
        return await asyncio.gather(work("zh"), work("en"), work("zh"))

    zh, en, zh2 = asyncio.run(both())
    assert zh == zh2 == [("zh", msgstr)] * 3 and en == [("en", msgid)] * 3
    assert attnlab.get_language() == "en"


@pytest.mark.parametrize("value, expected", [("zh", "zh"), ("en", "en"), ("", "en")])
def test_environment_variable_chooses_the_language_at_import(value, expected):
    code = "import attnlab; print(attnlab.get_language())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**_env(), "ATTNLAB_LANG": value}).stdout.strip()
    assert out == expected


def test_environment_variable_with_an_unknown_language_is_refused_naming_it():
    run = subprocess.run([sys.executable, "-c", "import attnlab"], capture_output=True, text=True,
                         env={**_env(), "ATTNLAB_LANG": "klingon"})
    assert run.returncode != 0
    assert "ATTNLAB_LANG: expected one of 'en', 'zh', got 'klingon'" in run.stderr


def _env():
    import os
    return {k: v for k, v in os.environ.items() if k != "ATTNLAB_LANG"} | {"PYTHONPATH": str(ROOT)}


# ---- the catalog ----------------------------------------------------------------------------------

def test_catalog_is_complete_compiled_and_up_to_date():
    assert catalog.problems() == []


def test_catalog_is_not_empty():
    assert len(zh_entries()) > 100


@pytest.mark.parametrize("text, expected", [
    ("{n} keys", {"n"}), ("step {step}: loss {loss:.3f}", {"step", "loss"}), ("no fields", set()),
    ("{{literal}} braces", set()), ("{a!r} {b[0]}", {"a", "b[0]"}), ("{broken", {"<malformed>"}),
])
def test_fields_of_a_format_string(text, expected):
    assert catalog.fields(text) == expected


@pytest.fixture
def scratch_catalog(tmp_path, monkeypatch):
    """A copy of the locale folder the checker reads, to break on purpose."""
    locale = tmp_path / "locale"
    shutil.copytree(catalog.LOCALE, locale)
    monkeypatch.setattr(catalog, "LOCALE", locale)
    monkeypatch.setattr(catalog, "TEMPLATE", locale / "attnlab.pot")
    shutil.copy(catalog.PAGE_MESSAGES_JSON, tmp_path / "attnlab_messages.json")
    monkeypatch.setattr(catalog, "PAGE_MESSAGES_JSON", tmp_path / "attnlab_messages.json")
    return locale / "zh" / "LC_MESSAGES" / "attnlab.po"


def _rewrite(po, change):
    cat = catalog._read(po, locale="zh")
    change(next(m for m in cat if m.id and isinstance(m.id, str)))
    po.write_text(catalog._po_text(cat), encoding="utf-8")
    return cat


@pytest.mark.parametrize("breakage, expected", [
    (lambda m: setattr(m, "string", ""), "untranslated"),
    (lambda m: m.flags.add("fuzzy"), "fuzzy"),
    (lambda m: setattr(m, "string", m.string + "{extra}"), "'extra'"),      # among the entry's fields, wherever it sorts
])
def test_checker_finds_a_broken_entry(scratch_catalog, breakage, expected):
    _rewrite(scratch_catalog, breakage)
    catalog.compile_all()                  # the .mo follows, so only the entry itself is wrong
    found = catalog.problems()
    assert any(expected in line for line in found), found


def test_checker_finds_a_stale_mo(scratch_catalog):
    _rewrite(scratch_catalog, lambda m: setattr(m, "string", m.string + "。"))
    assert any(".mo differs" in line for line in catalog.problems())


def test_checker_finds_a_stale_template(scratch_catalog):
    (scratch_catalog.parents[2] / "attnlab.pot").write_text("", encoding="utf-8")
    assert any("out of date with the code" in line for line in catalog.problems())


# ---- the dashboard page's messages (the Voila template, change 6) -----------------------------------

def test_page_messages_in_the_template_are_the_catalogs():
    written = json.loads(catalog.PAGE_MESSAGES_JSON.read_text(encoding="utf-8"))
    assert set(written) == set(i18n.LANGUAGES)
    for lang in i18n.LANGUAGES:
        assert written[lang] == i18n.page_messages(lang)
    assert written["en"] == i18n.PAGE_MESSAGES
    assert written["zh"]["reload"] == "重新加载本课"           # docs/glossary.md, words on the controls
    assert "内核" in written["zh"]["lost"]                    # Jupyter's kernel: 内核, never 核 alone


def test_page_messages_refuse_an_unknown_language():
    with pytest.raises(ValueError, match="expected one of 'en', 'zh', got 'fr'"):
        i18n.page_messages("fr")


def test_checker_finds_stale_page_messages(scratch_catalog):
    cat = catalog._read(scratch_catalog, locale="zh")
    cat[i18n.PAGE_MESSAGES["reload"]].string = "重新加载"
    scratch_catalog.write_text(catalog._po_text(cat), encoding="utf-8")
    scratch_catalog.with_suffix(".mo").write_bytes(catalog._mo_bytes(cat))
    assert [line for line in catalog.problems() if "attnlab_messages.json" in line]
    catalog.compile_all()
    assert not [line for line in catalog.problems() if "attnlab_messages.json" in line]
    assert json.loads(catalog.PAGE_MESSAGES_JSON.read_text(encoding="utf-8"))["zh"]["reload"] == "重新加载"


# ---- strings that bypass the catalog ---------------------------------------------------------------

PACKAGE = ROOT / "attnlab"
SKIPPED = {"__init__.py", "i18n.py", "ui/fonts.py"}     # with core/: the English API and no shown text
# matplotlib and widget calls whose string arguments a learner reads
SHOWN_CALLS = {"set_title", "set_xlabel", "set_ylabel", "suptitle", "supxlabel", "supylabel", "set_label", "text",
               "annotate", "set_text", "figtext", "HTML", "Label", "Button", "ToggleButton", "Checkbox"}
SHOWN_KEYWORDS = {"title", "xlabel", "ylabel", "label", "description", "tooltip", "placeholder"}
# words that are symbols or names, the same in every language
SYMBOLS = {"softmax", "argmax", "argmin", "exp", "log", "tanh", "sin", "cos", "max", "min", "sqrt", "ReLU", "GRU",
           "RNN", "CNN", "FFN", "LSH", "RoPE", "Tq", "Tk", "valid_lens", "d_k", "dv", "PNG", "SVG", "nan", "inf",
           "BERT", "GPT", "T5", "BigBird", "Longformer", "Voila", "torch", "attnlab", "ALiBi", "Bahdanau",
           "LayerNorm", "Transformer", "pad", "bos", "eos", "unk", "sos"}
WORD = re.compile(r"[A-Za-z][a-z]{2,}")


def _prose(text):
    """A literal a learner reads as words (not a symbol, a format-only string, a colour or a style)."""
    words = [w for w in WORD.findall(re.sub(r"\{[^}]*\}|<[^>]*>|&\w+;|\$[^$]*\$", " ", text)) if w not in SYMBOLS]
    return len(words) >= 1 and not re.fullmatch(r"[#\w.\-]+", text.strip()) or len(words) >= 2


def _is_marked(node):
    return isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in {
        "_", "N_", "gettext", "ngettext"}


def _shown_literals(tree):
    """(line, text) of string literals passed straight to a call that shows them."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", None))
        values = list(node.args) if name in SHOWN_CALLS else []
        values += [k.value for k in node.keywords if k.arg in SHOWN_KEYWORDS]
        for value in values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and _prose(value.value):
                yield value.lineno, value.value
            elif isinstance(value, ast.JoinedStr):
                text = "".join(v.value for v in value.values if isinstance(v, ast.Constant))
                if _prose(text):
                    yield value.lineno, text


def drawing_and_lesson_modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "core" or rel.as_posix() in SKIPPED:
            continue
        yield path
    yield from sorted((ROOT / "attnlab_classroom").rglob("*.py"))      # the classroom's pages


def bypassing(paths):
    return [f"{p.name if not p.is_relative_to(ROOT) else p.relative_to(ROOT)}:{line}: {text!r}" for p in paths
            for line, text in _shown_literals(ast.parse(p.read_text(encoding="utf-8")))]


def test_no_learner_facing_literal_bypasses_the_catalog():
    assert bypassing(list(drawing_and_lesson_modules())) == []


def test_the_bypass_scan_finds_titles_labels_and_descriptions(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("ax.set_title('attention weights')\n"
                   "ax.set(xlabel=f'keys at step {i}')\n"
                   "w = widgets.IntSlider(description='number of heads')\n"
                   "ax.text(0, 0, _('fine, it is marked'))\n"
                   "ax.set_xlabel('d_k')\n", encoding="utf-8")
    found = bypassing([bad])
    assert [f.split(":")[1] for f in found] == ["1", "2", "3"], found


# ---- the font ---------------------------------------------------------------------------------------

def font_characters():
    return {chr(c) for c in TTFont(str(fonts.FONT_FILE))["cmap"].getBestCmap()}


def used_characters():
    texts = [PO.read_text(encoding="utf-8")]
    for path in sorted((ROOT / "notebooks" / "zh").glob("*.ipynb")):
        texts.append(json.dumps(json.loads(path.read_text(encoding="utf-8")), ensure_ascii=False))
    return set(HAN.findall("".join(texts)))


def font_characters_of(path):
    return {chr(c) for c in TTFont(str(path))["cmap"].getBestCmap()}


@pytest.mark.parametrize("face", ["regular", "bold"])
def test_font_covers_every_chinese_character_of_the_catalog_and_the_notebooks(face):
    missing = used_characters() - font_characters_of(fonts.FONT_FILE if face == "regular" else fonts.BOLD_FILE)
    assert not missing, f"run python tools/build_font.py: {''.join(sorted(missing))}"


def test_bold_chinese_is_drawn_from_the_bold_face_without_a_warning(caplog):
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_title("注意力权重", fontweight="bold")
    with caplog.at_level("WARNING", logger="matplotlib.font_manager"):
        fig.canvas.draw()
    plt.close(fig)
    assert not [r for r in caplog.records if "Failed to find font weight" in r.getMessage()]


def test_font_is_small_and_licensed():
    assert fonts.FONT_FILE.stat().st_size + fonts.BOLD_FILE.stat().st_size < 2_000_000
    licence = (fonts.FONT_FILE.parent / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence and "Noto" in licence
    names = {r.nameID: r.toUnicode() for r in TTFont(str(fonts.FONT_FILE))["name"].names if r.langID == 0x409}
    assert "SIL Open Font License" in names[13] and names[1] == fonts.FAMILY


def test_font_is_registered_behind_the_default_font():
    families = matplotlib.rcParams["font.family"]
    assert families[-1] == fonts.FAMILY and families.index(fonts.FAMILY) > 0
    fonts.register()
    assert matplotlib.rcParams["font.family"].count(fonts.FAMILY) == 1


def _draw(title):
    fig, ax = plt.subplots(figsize=(3, 2), dpi=80)
    ax.plot([0, 1], [0, 1], label="softmax(q·k / √d_k), σ = 1")
    ax.set(title=title, xlabel="keys", ylabel="weight")
    ax.legend()
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba()).copy()
    plt.close(fig)
    return pixels


def test_english_text_is_drawn_pixel_for_pixel_as_without_the_font():
    with_font = _draw("attention weights (T = 0.5)")
    families = matplotlib.rcParams["font.family"]
    try:
        matplotlib.rcParams["font.family"] = [f for f in families if f != fonts.FAMILY]
        without = _draw("attention weights (T = 0.5)")
    finally:
        matplotlib.rcParams["font.family"] = families
    assert np.array_equal(with_font, without)


def test_chinese_text_draws_without_a_missing_glyph_and_a_missing_one_is_caught():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _draw("注意力权重（查询、键、值）：温度 T")
        with pytest.raises(UserWarning, match="missing from font"):
            _draw("\U0002a6a5")                    # a CJK Extension B character, in no font here


# ---- the glossary -----------------------------------------------------------------------------------

def rejected_terms():
    """(rejected, term used) from docs/glossary.md's 'not: a, b' notes."""
    out = []
    for line in (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and "not:" in cells[2]:
            for word in cells[2].split("not:")[1].split(","):
                out.append((word.strip(), cells[1]))
    return out


def test_glossary_lists_rejected_alternatives():
    rejected = dict(rejected_terms())
    assert rejected["注意力池化"] == "注意力汇聚" and rejected["层归一化"] == "层规范化"


def chinese_texts():
    yield "attnlab.po", " ".join(m.string for m in zh_entries() if isinstance(m.string, str))
    for path in sorted((ROOT / "notebooks" / "zh").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        yield path.name, " ".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


@pytest.mark.parametrize("rejected, used", rejected_terms())
def test_no_rejected_term_in_the_chinese_catalog_or_notebooks(rejected, used):
    found = [name for name, text in chinese_texts() if rejected in text]
    assert not found, f"{rejected!r} (the glossary uses {used!r}) appears in {found}"


def test_a_lessons_verdict_is_raised_in_english_and_explained_in_the_learners_language():
    from attnlab import i18n
    from attnlab.core import checks as _checks
    problem = (i18n.N_("expected a date such as '7 mar 1994', got an empty string"), {})
    _checks.refuse(None, "text")                                   # no verdict: passes
    with pytest.raises(ValueError, match=re.escape("text: expected a date such as '7 mar 1994', got an empty string")):
        with i18n.language("zh"):
            _checks.refuse(problem, "text")                        # the API's message stays English
    assert i18n.explain(None) is None
    with i18n.language("zh"):
        zh = i18n.explain(problem)
    assert zh != problem[0] and any("\u4e00" <= c <= "\u9fff" for c in zh)     # the catalog's Chinese
    assert i18n.explain((i18n.N_("{n} keys"), {"n": 3})) == "3 keys"                   # fields filled in


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_notebook_03s_head_titles_are_built_from_their_parts_and_read_as_before(lang):
    """The Play panel's heatmap titles come from a two-line template and the readout table's headings
    from the head names, no longer from a regex over the translated "head {h}: {title}"; the learner
    reads the same text (the old regex is the reference)."""
    import importlib

    import torch

    heads = importlib.import_module("attnlab.lessons.nb03_multi_head_attention.heads")
    play = importlib.import_module("attnlab.lessons.nb03_multi_head_attention.live")   # the module, not play()
    with i18n.language(lang):
        view = play.HeadsPlay()
        view.update(heads=4, valid_len_0=6, valid_len_1=3, temperature=1.0, causal=False)
        titles = [view.axes[0, h].get_title() for h in range(4)]
        full = heads.head_titles(4)
        names = heads.head_names(4)
        table = heads.readout_table(torch.zeros(1, 4, len(heads.VOCAB)), ["the"], full)
    assert titles == [re.sub(": |：", "\n", t, count=1) for t in full]
    assert names == [re.split(": |：", t)[-1] for t in full]
    assert [cell.strip(" \u3000") for cell in table.splitlines()[0].split(" | ")[1:]] == names
    assert lang == "en" or titles[0] != "head 1\nprevious word"
