"""Printed tables in the Chinese notebooks' stored outputs line up by display width (issue 39).

A CJK character takes two columns of a monospaced font, so ``f"{name:<12}"`` (which counts
characters) misaligns a column as soon as a cell holds Chinese. The lessons and notebooks lay their
printed tables out with ``attnlab.ui.text`` (``table``, ``pad``/``room``); this reads what the zh
notebooks stored and checks that it lines up: every column of a table starts (left-aligned) or ends
(right-aligned) at the same display column in every row, and in lines that pad a label, the text after
the label starts at the same display column. The cells are found by a piece of their code (the code
cells are the English ones, so the same piece finds them in both languages).
"""
import json
import re
from pathlib import Path

import pytest

from attnlab.ui.text import display_width

ZH = Path(__file__).parents[2] / "notebooks" / "zh"

# (notebook, a piece of the cell's code): every table the cell prints lines up
TABLES = [
    ("02_scoring_functions", 'rows.append([q_name, *key_names])'),
    ("02_scoring_functions", '"Var(q·k / √d_k)"'),
    ("02_scoring_functions", '_("entropy/log n: dot")'),
    ("02_scoring_functions", '_("(closed form)")'),
    ("02_scoring_functions", '"row_normalised"'),
    ("02_scoring_functions", '_("largest score (÷√d_k): mean")'),
    ("03_multi_head_attention", '_("d_k (seed)")'),
    ("03_multi_head_attention", "lesson.readout_table("),
    ("07_masks_and_efficient_attention", '_("tile max")'),
    ("07_masks_and_efficient_attention", '_("n = {n}, d = {d}")'),
    ("11_induction_heads", "lesson.loss_table("),
    ("11_induction_heads", "lesson.training_table("),
    ("11_induction_heads", "lesson.previous_token_table("),
    ("11_induction_heads", 'lesson.length_table({_("1 layer")'),
    ("11_induction_heads", "lesson.shortcut_table("),
    ("11_induction_heads", "lesson.length_table(runs"),
]
# (notebook, a piece of the cell's code, what follows the padded label): it starts in one column
LABELS = [
    ("01_kernel_regression", '_("seed 003:")', "权重在"),
    ("02_scoring_functions", "room([_(n) for n in same_scores])", "q = [100, -100]"),
    ("02_scoring_functions", "queries picking k1 … k8: {counts}", "选中"),
    ("04_self_attention_walkthrough", '_("one shared W")', "Thinking→Machines"),
    ("05_cat_milk_it", "reproduces {hits:2d} of 16 seed numbers", "复现"),
    ("05_cat_milk_it", 'room([_("before"), _("after √4")])', "余弦(it, milk)"),
    ("07_masks_and_efficient_attention", '_("{name}: {verdict}")', "："),
    ("07_masks_and_efficient_attention", "row 1 (fully masked)", "："),
    ("07_masks_and_efficient_attention", "grad of W_V", "："),
    ("07_masks_and_efficient_attention", "linear (elu + 1)", "线性"),
    ("09_transformer_block", '_("{kind} ({n}): ")', "："),
    ("09_transformer_block", "training took {seconds} s (CPU)", "："),
    ("10_encoder_decoder", '_("all formats")', "：1.000"),
]

_GAP = re.compile(r" {2,}|[ \u3000]*\u3000[ \u3000]*")     # between cells: 2+ spaces or ideographic spaces


def _printed(notebook, piece):
    """The text the zh cell whose code holds ``piece`` printed (its stdout)."""
    nb = json.loads((ZH / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and piece in "".join(c["source"])]
    assert len(cells) == 1, f"{notebook}: {len(cells)} code cells hold {piece!r}"
    out = "".join("".join(o["text"]) for o in cells[0]["outputs"] if o.get("output_type") == "stream")
    assert out.strip(), f"{notebook}: the cell holding {piece!r} printed nothing"
    return out


def _cells(line):
    """(first display column, display column after the last) of each cell of ``line``."""
    spans, at = [], 0
    line = line.rstrip()
    for m in [*_GAP.finditer(line), None]:
        end = m.start() if m else len(line)
        if end > at:
            spans.append((display_width(line[:at]), display_width(line[:end])))
        if m:
            at = m.end()
    return spans


def _tables(text):
    """Runs of two or more consecutive lines with two or more cells."""
    run = []
    for line in [*text.split("\n"), ""]:
        if len(_cells(line)) >= 2:
            run.append(line)
            continue
        if len(run) >= 2:
            yield run
        run = []


def misaligned(lines):
    """The columns (after the first) that neither start nor end in one display column in every line."""
    rows = [_cells(line) for line in lines]
    n = min(map(len, rows))
    return [k for k in range(1, n) if len({r[k][0] for r in rows}) > 1 and len({r[k][1] for r in rows}) > 1]


def test_the_alignment_check_finds_a_column_padded_by_characters_not_columns():
    by_characters = [f"{name:<10}{x:>6.2f}" for name, x in (("点积", 0.1), ("缩放点积", 0.15), ("dot", 0.2))]
    assert misaligned(by_characters) == [1]
    from attnlab.ui.text import table
    assert misaligned(table([["点积", "0.10"], ["缩放点积", "0.15"], ["dot", "0.20"]], align="<>").split("\n")) == []


@pytest.mark.parametrize("notebook, piece", TABLES)
def test_every_printed_table_lines_up_in_chinese(notebook, piece):
    tables = list(_tables(_printed(notebook, piece)))
    assert tables, f"{notebook}: no table printed by the cell holding {piece!r}"
    for lines in tables:
        assert misaligned(lines) == [], "\n".join(lines)


@pytest.mark.parametrize("notebook, piece, after", LABELS)
def test_text_after_a_padded_label_starts_in_one_column_in_chinese(notebook, piece, after):
    lines = [line for line in _printed(notebook, piece).split("\n") if after in line]
    assert len(lines) >= 2, f"{notebook}: fewer than two lines with {after!r}"
    columns = {display_width(line[:line.index(after)]) for line in lines}
    assert len(columns) == 1, "\n".join(lines)
