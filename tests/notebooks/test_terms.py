"""The Chinese edition uses one word per term: docs/glossary.md names it, and the words not to use
("not: a, b"); this test scans everything a learner reads in Chinese for a rejected word: the zh
notebooks' prose, their code comments, their stored outputs (printed text, HTML, accessible texts) and
the catalog's msgstrs. It also checks the glossary's d2l-zh section numbers against d2l-zh 2.0's table
of contents, that the Chinese notebooks cite d2l-zh's numbering (not the English d2l.ai's), and that no
source line breaks between two Chinese characters (Markdown renders that break as a space)."""
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import catalog
import translations

GLOSSARY = ROOT / "docs" / "glossary.md"
ZH_NOTEBOOKS = sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))
PO = ROOT / "attnlab" / "locale" / "zh" / "LC_MESSAGES" / "attnlab.po"
CJK = r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]"

# d2l-zh 2.0 (https://zh.d2l.ai): the sections the glossary and the notebooks cite, with their titles.
D2L_ZH = {
    "4.6": "暂退法（Dropout）", "8.2": "文本预处理", "8.3": "语言模型和数据集", "8.5": "循环神经网络的从零开始实现",
    "9.1": "门控循环单元（GRU）", "9.6": "编码器-解码器架构", "9.7": "序列到序列学习（seq2seq）", "9.8": "束搜索",
    "10.1": "注意力提示", "10.1.3": "注意力的可视化", "10.2": "注意力汇聚：Nadaraya-Watson 核回归",
    "10.2.3": "非参数注意力汇聚", "10.2.4": "带参数注意力汇聚", "10.3": "注意力评分函数",
    "10.3.1": "掩蔽softmax操作", "10.3.2": "加性注意力", "10.3.3": "缩放点积注意力", "10.4": "Bahdanau 注意力",
    "10.5": "多头注意力", "10.6": "自注意力和位置编码", "10.6.2": "比较卷积神经网络、循环神经网络和自注意力",
    "10.6.3": "位置编码", "10.7": "Transformer", "10.7.2": "基于位置的前馈网络", "10.7.3": "残差连接和层规范化",
    "11.7": "AdaGrad算法",
}
SECTION = re.compile(r"\b\d+\.\d+(?:\.\d+)?\b")


def glossary_rows(text=None):
    """(english, chinese, note) for each row of the glossary's three-column table."""
    text = GLOSSARY.read_text(encoding="utf-8") if text is None else text
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and not set(cells[0]) <= set("-") and cells[0] != "English":
            rows.append(tuple(cells))
    return rows


def rejected_words(text=None):
    """{rejected word: the word to use} from the notes' 'not: a, b'."""
    return {word.strip(): chinese for _english, chinese, note in glossary_rows(text) if "not:" in note
            for word in note.split("not:")[1].split(",") if word.strip()}


def _prose(markdown):
    """Markdown without fenced code, inline code and link targets (names, not words a learner reads)."""
    return re.sub(r"```.*?```|`[^`]*`|\]\([^)]*\)", " ", markdown, flags=re.S)


def _output_text(output):
    if output.get("output_type") == "stream":
        return output.get("text", "")
    data = output.get("data", {})
    text = " ".join(data.get(k, "") for k in ("text/plain", "text/markdown", "text/html") if isinstance(data.get(k), str))
    return re.sub(r"data:[\w/+]+;base64,[A-Za-z0-9+/=]+", " ", text)


def chinese_texts(notebooks=ZH_NOTEBOOKS, po=PO):
    """(where, text) for everything a learner reads in Chinese."""
    for message in catalog._read(po, locale="zh"):
        texts = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        for text in texts:
            if message.id and text:
                yield f"{po.name}: msgid {str(message.id)[:40]!r}", text
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                yield f"{path.name} markdown {cell.id}", _prose(cell.source)
            elif cell.cell_type == "code":
                yield f"{path.name} comments {cell.id}", " ".join(translations.comments(cell.source))
                for output in cell.get("outputs", []):
                    yield f"{path.name} output {cell.id}", _output_text(output)


def rejected_uses(texts, words):
    return [(where, word, words[word]) for where, text in texts for word in words if word in text]


def test_the_glossary_rejects_the_words_that_drifted():
    words = rejected_words()
    for word, used in [("热力图", "热图"), ("屏蔽", "掩蔽, 被掩蔽"), ("遮住", "掩蔽, 被掩蔽"), ("上一个词", "前一个词 / 前一个词元"),
                       ("看点", "观察"), ("观察要点", "观察"), ("层归一化", "层规范化"), ("one-cycle 调度", "单周期调度")]:
        assert words[word] == used


def test_no_rejected_word_in_what_a_chinese_learner_reads():
    found = rejected_uses(chinese_texts(), rejected_words())
    assert not found, "\n".join(f"{where}: {word!r} (the glossary uses {used!r})" for where, word, used in found)


def test_the_scan_finds_a_rejected_word_in_an_output_a_comment_and_the_catalog(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("这里用 `屏蔽` 作代码名，不算。"),
                nbformat.v4.new_code_cell("x = 1  # 上一个词的向量\ns = '# 热力图'", outputs=[
                    nbformat.v4.new_output("stream", text="看点：权重\n")])]
    path = tmp_path / "01_x.ipynb"
    nbformat.write(nb, path)
    (tmp_path / "attnlab.po").write_text('msgid ""\nmsgstr ""\n\nmsgid "heatmap"\nmsgstr "热力图"\n', encoding="utf-8")
    found = {(where.split()[-2] if "ipynb" in where else "po", word)
             for where, word, _used in rejected_uses(chinese_texts([path], tmp_path / "attnlab.po"), rejected_words())}
    assert found == {("comments", "上一个词"), ("output", "看点"), ("po", "热力图")}


def test_glossary_rows_are_parsed_with_their_rejected_words():
    text = "| English | 中文 | notes |\n|---|---|---|\n| heatmap | 热图 | d2l-zh 10.1.3 · not: 热力图, 热度图 |\n"
    assert glossary_rows(text) == [("heatmap", "热图", "d2l-zh 10.1.3 · not: 热力图, 热度图")]
    assert rejected_words(text) == {"热力图": "热图", "热度图": "热图"}


def cited_sections(note):
    before = note.split("not:")[0]
    return SECTION.findall(before) if "d2l-zh" in before else []


def section_problems(rows):
    """A cited section d2l-zh 2.0 does not have, or a term cited at a section whose title is another term's
    while a section with the term in its title exists (加性注意力 at 10.3.1, 掩蔽softmax操作)."""
    problems = []
    for english, chinese, note in rows:
        numbers = cited_sections(note)
        for number in numbers:
            if number not in D2L_ZH:
                problems.append(f"{english}: d2l-zh {number} is not in the table of d2l-zh 2.0 sections")
        terms = [t.strip() for t in re.split(r"[/,]", chinese.split("（")[0]) if t.strip()]
        for term in terms:
            key = term.replace(" ", "")
            titled = [n for n, title in D2L_ZH.items() if key in title.replace(" ", "")]
            if numbers and titled and not any(key in D2L_ZH.get(n, "").replace(" ", "") for n in numbers):
                problems.append(f"{english} ({term}): cited at {numbers}, but d2l-zh names it in {titled}")
    return problems


def test_the_glossary_cites_d2l_zh_2_sections_by_their_numbers():
    assert not section_problems(glossary_rows())


@pytest.mark.parametrize("row, bad", [
    (("additive attention", "加性注意力", "d2l-zh 10.3.1"), True),
    (("additive attention", "加性注意力", "d2l-zh 10.3.2"), False),
    (("scaled dot product (attention)", "缩放点积（注意力）", "d2l-zh 10.3.2"), True),
    (("layer normalization", "层规范化", "d2l-zh 10.7.2 · not: 层归一化"), True),
    (("Transformer", "Transformer", "d2l-zh 11.7"), True),
    (("one-hot", "独热", "d2l-zh 8.5 · not: 单热"), False),
])
def test_a_wrong_section_number_is_found(row, bad):
    assert bool(section_problems([row])) is bad


def markdown_cells():
    for path in ZH_NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                yield path.name, cell


def test_chinese_notebooks_cite_d2l_zh_numbering():
    """"d2l-zh 10.7 节", never the English book's "d2l 11.7" (d2l-zh's 11.7 is AdaGrad)."""
    found = []
    for name, cell in markdown_cells():
        text = _prose(cell.source)
        found += [(name, cell.id, m.group(0)) for m in re.finditer(r"d2l(?!-zh)\s*§?\s*\d+\.\d+", text)]
        found += [(name, cell.id, m.group(0)) for m in re.finditer(r"d2l-zh\s*§?\s*(\d+\.\d+(?:\.\d+)?)", text)
                  if m.group(1) not in D2L_ZH]
    assert not found


def cjk_line_breaks(source):
    """Places where a source line breaks between two Chinese characters (emphasis markers between them
    count: Markdown drops them and keeps the space)."""
    text = re.sub(r"```.*?```", " ", source, flags=re.S)
    return [m.group(0) for m in re.finditer(f"{CJK}[*_`]*\n[*_`]*{CJK}", text)]


@pytest.mark.parametrize("source, breaks", [("注意力\n权重", 1), ("注意力权重", 0), ("**观察**：\n看", 1),
                                            ("一句。\n- 列表", 0), ("中文\nEnglish", 0), ("```\n# 注\n释\n```", 0)])
def test_cjk_line_breaks_are_found(source, breaks):
    assert len(cjk_line_breaks(source)) == breaks


def test_no_line_break_between_chinese_characters():
    found = [(name, cell.id, b) for name, cell in markdown_cells() for b in cjk_line_breaks(cell.source)]
    assert not found, found[:10]
