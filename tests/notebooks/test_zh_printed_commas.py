"""No ASCII comma between Chinese words in what the Chinese notebooks print (issue 49).

A Chinese line separates its items with "，" or "、", never with ", " ("共用键值头 1, 查询头 3–4",
"损失, 准确率" read as English punctuation dropped into Chinese). This reads every zh notebook's stored
outputs, the printed text (stream) and the text/plain of what cells display (a panel's or a trainer's
description and the text under its figure, a figure's description), and finds every ASCII comma that
has Chinese on both sides: a Chinese character or Chinese punctuation, reached over at most a few
narrow characters (digits, letters, spaces, a decimal point, a dash), never over brackets or quotes,
and never inside ASCII brackets (code, tuples and lists printed as Python writes them, "[(4, 4), (4, 3)]",
"(序列 4 // 3, 头 4 % 3)" or "sim(it, mi", stay as they are) nor between two digits ("262,144 字节").
"""
import json
import re
from pathlib import Path

import pytest

ZH = Path(__file__).parents[2] / "notebooks" / "zh"
NOTEBOOKS = sorted(p.stem for p in ZH.glob("[0-9][0-9]_*.ipynb"))
# Chinese punctuation, ideographs, fullwidth forms; not the ideographic space (it pads printed tables' columns)
CHINESE = re.compile(r"[\u3001-\u303f\u4e00-\u9fff\uff00-\uffef]")
NARROW = re.compile(r"[A-Za-z0-9 .%+×/=·_–-]")                     # what may stand between the comma and Chinese
REACH = 12


def _chinese_within(chars):
    """True when the first character of ``chars`` that is not narrow (within REACH) is Chinese."""
    for c in chars[:REACH + 1]:
        if CHINESE.match(c):
            return True
        if not NARROW.match(c):
            return False
    return False


def ascii_commas_between_chinese(line):
    """The positions in ``line`` of the ASCII commas with Chinese on both sides (see the module docstring)."""
    found, depth = [], 0
    for i, c in enumerate(line):
        depth += (c in "([{") - (c in ")]}")
        if c != "," or depth > 0:
            continue
        if 0 < i < len(line) - 1 and line[i - 1].isdigit() and line[i + 1].isdigit():
            continue                                             # 4,096: a thousands separator
        if _chinese_within(line[i - 1::-1] if i else "") and _chinese_within(line[i + 1:]):
            found.append(i)
    return found


def printed_lines(notebook):
    """(cell index, line) of every line the zh notebook's stored outputs print or describe in text/plain."""
    nb = json.loads((ZH / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            text = out.get("text") if out.get("output_type") == "stream" else out.get("data", {}).get("text/plain")
            if text:
                for line in ("".join(text) if isinstance(text, list) else text).split("\n"):
                    yield i, line


@pytest.mark.parametrize("line", [
    "4 个查询头配 2 个键值头：查询头 1–2 共用键值头 1, 查询头 3–4 共用键值头 2",
    "交互面板“11-training”：训练按钮（steps, layers）、进度条、实时曲线：损失, 准确率",
    "留出文本上的每字符比特数：4 个键值头 2.916, 2 个键值头 2.949",
    "这一行最大的权重：键 x=3.98（y=1.31）0.137, 键 x=3.96（y=2.84）0.135",
    "交互面板“对齐探索器”：日期输入框，左、右两个模型菜单（加性（随包提供）, 点积（随包提供））",
])
def test_the_check_finds_an_ascii_comma_in_a_chinese_line(line):
    assert ascii_commas_between_chinese(line)


@pytest.mark.parametrize("line", [
    "键值头 4 个，64 个位置：公式 262,144 字节，实际占用 262,144 字节",
    "最强的归纳头（层，头，从 1 数起）：[(4, 4), (4, 3)]，分数 [0.0, 0.0]",
    "“the head's sim(it, mi",
    "GPT-2 (124M)：查询头 12 个，键值头 12 个，12 层，每个位置 36 KiB",
    "    https://huggingface.co/openai-community/gpt2/blob/main/config.json (n_head 12, n_embd 768, n_layer 12)",
    "The three are local, k₁. The query is the same numbers",
    "折叠后的第 4 项 = (序列 4 // 3, 头 4 % 3) = (1, 1)：True",
    "\u3000\u3000month d, yyyy：1.000",
    "词元：[0, 27, 49, 33, 3, 32, 56, 27, 49, 33, 3, 32, 56, 41, 60, 42] …",
])
def test_the_check_leaves_code_lists_numbers_and_english_alone(line):
    assert ascii_commas_between_chinese(line) == []


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_no_ascii_comma_between_chinese_words_in_what_a_zh_notebook_prints(notebook):
    bad = [f"cell {i}: {line.strip()}" for i, line in printed_lines(notebook) if ascii_commas_between_chinese(line)]
    assert not bad, f"{notebook}: an ASCII comma between Chinese words (write ，or 、):\n" + "\n".join(bad)
