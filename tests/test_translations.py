"""tools/translations.py keeps notebooks/zh/ in step with notebooks/: it passes on the repository and
fails, naming the cell, after each kind of drift (an English cell edited, added or removed, a code cell
changed, a Chinese cell left in English)."""
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import translations

EN = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_every_english_notebook_has_a_chinese_twin_in_step():
    assert translations.main(["--check"]) == 0


@pytest.mark.parametrize("path", EN, ids=lambda p: p.stem)
def test_chinese_twin_has_the_same_code_and_chooses_the_language_first(path):
    en, zh = nbformat.read(path, as_version=4), nbformat.read(translations.twin(path), as_version=4)
    en_code = [c for c in en.cells if c.cell_type == "code" and c.get("id") not in translations.GENERATED]
    zh_code = [c for c in zh.cells if c.cell_type == "code" and c.get("id") not in translations.GENERATED]
    assert [c.id for c in en_code] == [c.id for c in zh_code]
    changed = [(e.id, z.source) for e, z in zip(en_code, zh_code) if e.source != z.source]
    assert len(changed) == 1 and changed[0][1].startswith(translations.LANGUAGE_LINE + "\n"), changed
    assert zh.metadata.get("language") == "zh"


@pytest.fixture
def pair(tmp_path, monkeypatch):
    """A copy of one English notebook and its twin, in the layout the tool expects."""
    en_dir, zh_dir = tmp_path / "notebooks", tmp_path / "notebooks" / "zh"
    zh_dir.mkdir(parents=True)
    src = EN[2]
    shutil.copy(src, en_dir / src.name)
    shutil.copy(translations.twin(src), zh_dir / src.name)
    edit(zh_dir / src.name, lambda nb: [setattr(c, "source", "译文：" + c.source) for c in nb.cells
                                        if c.cell_type == "markdown" and c.get("id") not in translations.GENERATED])
    monkeypatch.setattr(translations, "EN_DIR", en_dir)
    monkeypatch.setattr(translations, "ZH_DIR", zh_dir)
    monkeypatch.setattr(translations, "ROOT", tmp_path)
    return en_dir / src.name, zh_dir / src.name


def kinds(en_path):
    return sorted({kind for kind, _id, _text in translations.compare(en_path)})


def edit(path, change):
    nb = nbformat.read(path, as_version=4)
    change(nb)
    nbformat.write(nb, path)
    return nb


def first(nb, kind):
    return next(c for c in nb.cells if c.cell_type == kind and c.get("id") not in translations.GENERATED)


def test_the_copy_starts_clean(pair):
    assert kinds(pair[0]) == []


def test_editing_an_english_cell_makes_its_translation_stale(pair, capsys):
    nb = edit(pair[0], lambda nb: setattr(first(nb, "markdown"), "source", first(nb, "markdown").source + " More."))
    assert kinds(pair[0]) == ["stale"]
    assert translations.main(["--check"]) == 1
    assert f"stale {first(nb, 'markdown').id}" in capsys.readouterr().out
    translations.stamp(pair[0], set())                     # the translator updated it: record the new version
    assert kinds(pair[0]) == []


def test_a_new_english_cell_is_missing_and_sync_adds_it_untranslated(pair):
    edit(pair[0], lambda nb: nb.cells.insert(5, nbformat.v4.new_markdown_cell("A new paragraph for learners.")))
    assert kinds(pair[0]) == ["missing", "order"] or kinds(pair[0]) == ["missing"]
    translations.sync(pair[0])
    assert kinds(pair[0]) == ["untranslated"]


def test_a_removed_english_cell_leaves_an_orphan(pair):
    edit(pair[0], lambda nb: nb.cells.remove(first(nb, "markdown")))
    assert kinds(pair[0]) == ["orphan"]


def test_a_changed_code_cell_differs_until_synced(pair):
    last = lambda nb: [c for c in nb.cells if c.cell_type == "code"][-1]
    edit(pair[0], lambda nb: setattr(last(nb), "source", last(nb).source + "\nprint(1)"))
    assert kinds(pair[0]) == ["code"]
    translations.sync(pair[0])
    assert kinds(pair[0]) == []


def test_a_chinese_cell_left_in_english_is_untranslated(pair):
    en = nbformat.read(pair[0], as_version=4)
    edit(pair[1], lambda nb: setattr(first(nb, "markdown"), "source", first(en, "markdown").source))
    assert kinds(pair[0]) == ["untranslated"]


def test_status_counts_translated_stale_and_missing(pair, capsys):
    edit(pair[0], lambda nb: setattr(first(nb, "markdown"), "source", first(nb, "markdown").source + " More."))
    assert translations.main(["--status"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(pair[0].stem))
    prose, translated, stale, missing = map(int, row.split()[1:])
    assert (stale, missing) == (1, 0) and translated == prose


@pytest.mark.parametrize("source, left", [
    ("**下一步：**从这里开始。", True), ("**下一步**：从这里开始。", False), ("$a**b$ 与 `x**2`，正常。", False),
    ("看 **T → 0** 时的权重。", False), ("填空：the ___ drank the milk。", False), ("__下一步：__从这里。", True)])
def test_unrendered_bold_markers_are_found(source, left):
    assert bool(translations.unrendered_emphasis(source)) is left


def test_a_bold_marker_that_would_show_as_text_is_a_problem(pair):
    edit(pair[1], lambda nb: setattr(first(nb, "markdown"), "source", "**下一步：**从这里开始。"))
    assert kinds(pair[0]) == ["markdown"]
