"""tools/translations.py keeps notebooks/zh/ in step with notebooks/: it passes on the repository and
fails, naming the cell, after each kind of drift (an English cell edited, added or removed, a code cell
changed, a Chinese cell left in English, an English comment left in a Chinese code cell)."""
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
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
    changed = [(e.id, z.source) for e, z in zip(en_code, zh_code)
               if translations.code_tokens(e.source) != translations.code_tokens(z.source)]
    assert len(changed) == 1 and changed[0][1].startswith(translations.LANGUAGE_LINE + "\n"), changed
    assert not [(z.id, translations.english_comments(z.source)) for z in zh_code
                if translations.english_comments(z.source)]
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
    assert kinds(pair[0]) in ([], ["comment"])             # the copied English comments wait for a translator


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


def code_cell(nb, index=1):
    """The index-th code cell (0 is the one with the language line)."""
    return [c for c in nb.cells if c.cell_type == "code" and c.get("id") not in translations.GENERATED][index]


def test_a_changed_line_of_code_in_the_chinese_cell_is_a_problem(pair):
    edit(pair[1], lambda nb: setattr(code_cell(nb), "source", code_cell(nb).source + "\nx = 1"))
    assert kinds(pair[0]) == ["code"]


def test_a_chinese_cell_may_differ_in_its_comments_only(pair):
    def comment(nb):
        cell = code_cell(nb)
        lines = cell.source.split("\n")
        lines[0] += "          # 这是一条中文注释，提到 d_k 和 softmax(x) 也可以"
        cell.source = "# 整个单元格的说明\n" + "\n".join(lines) + "\n\n# 末尾的注释"
    edit(pair[1], comment)
    assert kinds(pair[0]) == []


def test_an_english_comment_in_a_chinese_cell_is_a_problem(pair, capsys):
    nb = edit(pair[1], lambda nb: setattr(code_cell(nb), "source", code_cell(nb).source + "\n# the weights, per query"))
    assert kinds(pair[0]) == ["comment"]
    assert translations.main(["--check"]) == 1
    assert f"comment {code_cell(nb).id}: English comment in a Chinese cell: '# the weights, per query'" \
        in capsys.readouterr().out


def test_a_hash_inside_a_string_is_code_not_a_comment(pair):
    edit(pair[0], lambda nb: setattr(code_cell(nb), "source", code_cell(nb).source + "\nlabel = '# not a comment'"))
    edit(pair[1], lambda nb: setattr(code_cell(nb), "source", code_cell(nb).source + "\nlabel = '# 不是注释'"))
    assert kinds(pair[0]) == ["code"]
    edit(pair[1], lambda nb: setattr(code_cell(nb), "source",
                                     code_cell(nb).source.replace("'# 不是注释'", "'# not a comment'")))
    assert kinds(pair[0]) == []


def test_sync_keeps_the_translated_comments_of_a_cell_whose_code_is_unchanged(pair):
    nb = edit(pair[1], lambda nb: setattr(code_cell(nb), "source", code_cell(nb).source + "  # 译好的注释"))
    translations.sync(pair[0])
    assert code_cell(nbformat.read(pair[1], as_version=4)).source == code_cell(nb).source


@pytest.mark.parametrize("source, english", [
    ("x = 1  # the weights, per query", True),
    ("x = 1  # 每个查询的权重", False),
    ("x = 1  # (B, H, n, d_k)", False),
    ("x = 1  # 对 d_k 取 softmax(q·k)，shape 不变", False),
    ("x = 1  # softmax", False),
    ("x = 1  # (B, n, H, len(VOCAB))", False),
    ("x = 1  # q, k (8, 4), v (8, 1), float64", False),
    ("x = 1  # masked keys: exp(-inf) = 0", True),
    ("s = '# not a comment, just a string'", False),
    ("s = 1  # TODO later", True),
])
def test_english_comments_are_comments_with_latin_words_and_no_chinese(source, english):
    assert bool(translations.english_comments(source)) is english
