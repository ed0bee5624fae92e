"""Text measured by display width (attnlab/ui/text.py), against references it did not write:
Unicode's East Asian Width table (unicodedata), textwrap and str.ljust on narrow text."""
import textwrap
import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from attnlab.ui import text

CJK = "注意力机制让模型在每一步都看向输入中最相关的位置"            # 24 ideographs, no punctuation


@pytest.mark.parametrize("s, columns", [
    ("", 0), ("abc", 3), ("权重", 4), ("权重 a", 6), ("ＡＢ", 4),        # fullwidth Latin: 2 each
    ("ｱｲ", 2),                                                          # halfwidth katakana: 1 each
    ("한국", 4), ("：，。", 6), ("é√α", 3), ("かな", 4),
])
def test_display_width_counts_wide_and_fullwidth_characters_twice(s, columns):
    assert text.display_width(s) == columns
    assert columns == sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in s)


NARROW = [
    "The quick brown fox jumps over the lazy dog " * 4,
    "a date such as 1994-03-07 or 7 mar 1994, not 31-02-1994 or the-very-long-hyphenated-compound-word",
    "supercalifragilisticexpialidocious-and-then-some-more-characters-than-a-line",
    "  leading and trailing spaces  \n and a newline\tand a tab  ",
    "short",
]


@pytest.mark.parametrize("s", NARROW)
@pytest.mark.parametrize("width", [1, 7, 20, 60])
def test_fill_of_narrow_text_is_textwraps(s, width):
    assert text.fill(s, width) == textwrap.fill(s, width)
    if width > 4:
        assert (text.fill(s, width, initial_indent="  ", subsequent_indent="    ")
                == textwrap.fill(s, width, initial_indent="  ", subsequent_indent="    "))


@pytest.mark.parametrize("columns", [2, 10, 16, 34, 68])
def test_fill_of_chinese_breaks_between_characters_as_textwrap_does_at_half_the_width(columns):
    """textwrap takes a run of ideographs for one long word and cuts it every ``width`` characters:
    the same lines as ours at twice the width in columns."""
    assert text.fill(CJK, columns) == textwrap.fill(CJK, columns // 2)


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from(list("ab1- 权重分数注意，。：（）")), max_size=80), st.integers(4, 40))
def test_fill_keeps_every_line_within_the_width_and_every_character_in_order(s, width):
    out = text.fill(s, width)
    lines = out.split("\n") if out else []
    assert all(text.display_width(line) <= width for line in lines), lines
    assert "".join(out.split()) == "".join(s.split())                  # nothing lost, nothing moved
    if any(map(text.is_wide, s)):                                      # (textwrap keeps a leading space)
        assert all(line == line.strip() for line in lines), lines


def test_fill_never_starts_a_line_with_closing_punctuation_when_it_fits_the_line_before():
    s = "权重分数注意，权重分数注意。权重（分数）注意：分数"
    for width in range(4, 30):
        lines = text.fill(s, width).split("\n")
        assert not any(line[0] in "，。）：" for line in lines[1:]), (width, lines)


def test_fill_of_mixed_text_breaks_between_ideographs_and_at_spaces():
    s = "输入的日期无法识别：请输入像 7 mar 1994 这样的日期，月份用英文缩写。"
    assert text.fill(s, 34).split("\n") == ["输入的日期无法识别：请输入像 7 mar", "1994 这样的日期，月份用英文缩写。"]
    assert text.fill("动物：cat, dog, horse", 14, initial_indent="  ", subsequent_indent="    ") == \
        "  动物：cat,\n    dog, horse"


@pytest.mark.parametrize("s, width", [("abc", 5), ("abc", 2), ("", 3), ("x y", 3)])
def test_ljust_of_narrow_text_is_str_ljust(s, width):
    assert text.ljust(s, width) == s.ljust(width)
    assert text.ljust(s, width, "-") == s.ljust(width, "-")


@pytest.mark.parametrize("s, width, want", [("分数", 6, "分数  "), ("权重 a", 7, "权重 a "), ("权重", 3, "权重")])
def test_ljust_pads_to_display_columns(s, width, want):
    assert text.ljust(s, width) == want
    assert text.display_width(text.ljust(s, width)) == max(width, text.display_width(s))


@pytest.mark.parametrize("call, error, match", [
    (lambda: text.display_width(3), TypeError, r"text: expected a str, got int"),
    (lambda: text.fill(None, 10), TypeError, r"text: expected a str, got None"),
    (lambda: text.fill("abc", 0), ValueError, r"width: expected an int >= 1, got 0"),
    (lambda: text.fill("abc", 2.5), TypeError, r"width: expected an int, got float"),
    (lambda: text.fill("abc", 5, initial_indent=1), TypeError, r"initial_indent: expected a str, got int"),
    (lambda: text.fill("abc", 5, subsequent_indent=None), TypeError, r"subsequent_indent: expected a str, got None"),
    (lambda: text.fill("abc", 4, subsequent_indent="    "), ValueError,
     r"width: expected more columns than the indents take \(4\), got 4"),
    (lambda: text.fill("abc", 3, initial_indent="缩进"), ValueError,
     r"width: expected more columns than the indents take \(4\), got 3"),
    (lambda: text.ljust("abc", -1), ValueError, r"width: expected an int >= 0, got -1"),
    (lambda: text.ljust(b"abc", 4), TypeError, r"text: expected a str, got bytes"),
    (lambda: text.ljust("abc", 5, "\u3000"), ValueError, r"fillchar: expected one narrow character, got '\\u3000'"),
    (lambda: text.ljust("abc", 5, "--"), ValueError, r"fillchar: expected one narrow character, got '--'"),
])
def test_bad_arguments_are_refused_naming_them(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_pad_and_room_count_wide_and_narrow_characters_apart():
    assert text.room(["权重 a", "x", "分数"]) == (2, 2)
    assert text.pad("x", (2, 2)) == "x\u3000\u3000 " and text.pad("分数", (2, 2)) == "分数  "
    assert text.pad("abc", (0, 5)) == "abc".ljust(5)                    # English: str.ljust


# -- combining marks, right-aligned cells, whole tables (issue 39: printed tables in Chinese) ------------------
@pytest.mark.parametrize("s, columns", [("e\u0301", 1), ("cafe\u0301 权重", 9), ("a\u0308\u0304b", 2), ("权\u0301", 2)])
def test_a_combining_mark_takes_no_column(s, columns):
    assert text.display_width(s) == columns
    assert text.display_width(text.ljust(s, 12)) == 12


@pytest.mark.parametrize("cells", [
    ["abc", "de", "fghij"],                                       # Latin
    ["权重", "注意力分数", "头"],                                   # CJK
    ["高斯（σ = 1）", "dot", "加性（未训练）", "q·k / √d_k"],          # mixed
    ["cafe\u0301", "cafe", "权重 e\u0301"],                          # combining
])
@pytest.mark.parametrize("align", ["<", ">"])
def test_pad_gives_every_cell_of_a_column_the_same_wide_and_narrow_counts(cells, align):
    r = text.room(cells)
    padded = [text.pad(c, r, align) for c in cells]
    assert len({text._counts(p) for p in padded}) == 1                 # so any font lines them up
    assert len({text.display_width(p) for p in padded}) == 1           # and a terminal by display width
    assert all((p.startswith(c) if align == "<" else p.endswith(c)) for p, c in zip(padded, cells))
    if not any(map(text.is_wide, "".join(cells))) and "\u0301" not in "".join(cells):
        width = max(map(len, cells))
        assert padded == [c.ljust(width) if align == "<" else c.rjust(width) for c in cells]


def test_table_lines_up_chinese_english_and_mixed_columns():
    rows = [["分数", "d_k=4：方差", "H/log n"], ["q·k / √d_k", "0.9358", "0.893"],
            ["余弦（预先规范化 q、k）", "0.2520", "0.972"], ["cafe\u0301", "12.5", "1.000"]]
    lines = text.table(rows, align="<>>").split("\n")
    edges = {tuple(text.display_width(line[:i]) for i in _edges(line, rows[k], "<>>")) for k, line in enumerate(lines)}
    assert len(edges) == 1, lines                      # every cell starts (left) or ends (right) in the same column
    assert all(line == line.rstrip() for line in lines)
    english = [["scores", "var", "H/log n"], ["q·k / √d_k", "0.9358", "0.893"], ["cosine", "0.2520", "0.972"]]
    assert text.table(english, align="<>>").split("\n") == [
        f"{a:<10}  {b:>6}  {c:>7}" for a, b, c in english]


def _edges(line, cells, align):
    """Index in ``line`` where each left-aligned cell starts and each right-aligned one ends."""
    edges, at = [], 0
    for cell, a in zip(cells, align):
        at = line.index(cell, at)
        edges.append(at if a == "<" else at + len(cell))
        at += len(cell)
    return edges


def test_table_pads_short_rows_and_refuses_bad_arguments():
    assert text.table([["a", "b"], ["ccc"]]) == "a    b\nccc"
    assert text.table([]) == ""
    with pytest.raises(ValueError, match=r"align: expected '<' or '>', once or once per column \(2\), got '<><'"):
        text.table([["a", "b"]], align="<><")
    with pytest.raises(ValueError, match=r"align: expected '<' or '>', once or once per column \(1\), got '\^'"):
        text.table([["a"]], align="^")
    with pytest.raises(TypeError, match=r"rows\[1\]\[0\]: expected a str, got int"):
        text.table([["a"], [3]])
    with pytest.raises(TypeError, match=r"gap: expected a str, got int"):
        text.table([["a"]], gap=2)
    with pytest.raises(ValueError, match=r"align: expected '<' or '>', got '\^'"):
        text.pad("a", (0, 3), "^")
