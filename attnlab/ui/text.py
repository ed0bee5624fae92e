"""Text laid out in columns: its width measured as a monospaced font draws it, in both languages.

A wide character (Unicode's East Asian Wide or Fullwidth: CJK ideographs, kana, hangul, fullwidth
punctuation such as "，" and "：") takes two columns of a monospaced font, a combining mark (the accent
of "é" written as e + U+0301) none, any other character one column.

display_width  the columns a text takes
ljust          a text padded with spaces to a width in columns
fill           ``textwrap.fill`` by columns: Chinese text breaks between characters
room, pad      table columns that line up in any font, not only a terminal's (see ``pad``)
table          rows of cells laid out with ``room`` and ``pad``: the printed tables of the lessons

Used by the lessons for the texts under their figures and the notes drawn in them.
"""
import re
import textwrap
import unicodedata

from ..core import checks

__all__ = ["is_wide", "display_width", "ljust", "fill", "room", "pad", "table"]

# Never at the start of a line: closing punctuation stays with the character before it.
_NO_BREAK_BEFORE = set("，。、；：！？）】》」』”’・…,.;:!?)]}")
# The pieces a line may break between: a run of whitespace, one wide character, a run of the others.
_PIECE = re.compile(r"\s+|[^\s]")


def is_wide(char):
    """True for a character a monospaced font draws two columns wide (East Asian Wide, Fullwidth)."""
    return unicodedata.east_asian_width(char) in "WF"


def display_width(text):
    """The columns ``text`` takes in a monospaced font: 2 per wide character, 0 per combining mark,
    1 per other one."""
    return _width(checks.string(text, "text"))


def _columns(char):
    return 2 if is_wide(char) else 0 if unicodedata.combining(char) else 1


def _width(text):
    return sum(map(_columns, text))


def ljust(text, width, fillchar=" "):
    """``text`` padded on the right with ``fillchar`` (one narrow character) to ``width`` columns
    (``str.ljust`` by columns; a text already as wide or wider is returned as it is)."""
    checks.string(text, "text")
    checks.count(width, "width")
    if not isinstance(fillchar, str) or len(fillchar) != 1 or is_wide(fillchar):
        raise checks.error("fillchar", "one narrow character", repr(fillchar))
    return text + fillchar * max(width - _width(text), 0)


def fill(text, width, *, initial_indent="", subsequent_indent=""):
    """``text`` wrapped into lines of at most ``width`` columns, joined with newlines.

    A text of narrow characters only is wrapped exactly as ``textwrap.fill`` wraps it. A text with
    wide characters may also break between two wide characters (Chinese has no spaces between
    words), not before closing punctuation; whitespace becomes single spaces and none is kept at a
    line's ends; a word (or a character and its punctuation) longer than a line is cut, as textwrap
    cuts a long word."""
    checks.string(text, "text")
    checks.count(width, "width", low=1)
    checks.string(initial_indent, "initial_indent")
    checks.string(subsequent_indent, "subsequent_indent")
    indents = max(_width(initial_indent), _width(subsequent_indent))
    if width <= indents:                     # no room for text (textwrap would loop for ever on some)
        raise checks.error("width", f"more columns than the indents take ({indents})", width)
    if not any(map(is_wide, text)):
        return textwrap.fill(text, width, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    lines, line, used, indent = [], [], 0, initial_indent
    for piece in _pieces(text):
        room_left = width - _width(indent) - used
        size = _width(piece)
        if piece.isspace():
            if line:                                   # never at a line's start
                line.append(" ")
                used += 1
            continue
        if size > room_left and line:                  # does not fit: a new line
            lines.append(indent + "".join(line).rstrip())
            line, used, indent = [], 0, subsequent_indent
            room_left = width - _width(indent)
        while size > room_left:                        # a piece longer than a whole line
            head, piece = _cut(piece, max(room_left, 1))
            lines.append(indent + head)
            indent = subsequent_indent
            room_left = width - _width(indent)
            size = _width(piece)
        line.append(piece)
        used += size
    if line:
        lines.append(indent + "".join(line).rstrip())
    return "\n".join(lines)


def _pieces(text):
    """``text`` cut where a line may break: whitespace runs (as one space), each wide character
    (with any closing punctuation after it), each run of narrow characters."""
    pieces = []
    for match in _PIECE.finditer(text.expandtabs()):
        char = match.group()
        glued = pieces and not pieces[-1].isspace() and not char.isspace()
        if glued and (char in _NO_BREAK_BEFORE or not (is_wide(char) or is_wide(pieces[-1][-1]))):
            pieces[-1] += char                          # a narrow run, or punctuation after its character
        else:
            pieces.append(" " if char.isspace() else char)
    return pieces


def _cut(word, columns):
    """(the longest head of ``word`` within ``columns`` columns, at least one character; the rest)."""
    used = 0
    for i, c in enumerate(word):
        used += _width(c)
        if used > columns:
            return word[:max(i, 1)], word[max(i, 1):]
    return word, ""


# -- text tables that line up in both languages -------------------------------------------------
def _counts(text):
    """(wide, narrow): how many wide and how many other characters ``text`` holds (combining marks,
    drawn over the character before them, are neither)."""
    wide = sum(map(is_wide, text))
    return wide, _width(text) - 2 * wide


def room(texts):
    """(most wide characters, most narrow characters) over ``texts``: the room a column needs."""
    counts = [_counts(t) for t in texts]
    return max(w for w, _n in counts), max(n for _w, n in counts)


def pad(text, room, align="<"):
    """``text`` padded to ``room`` = (wide, narrow): wide characters with the ideographic space,
    narrow ones with spaces (for English text: ``str.ljust``, or ``str.rjust`` with ``align=">"``).
    Every cell of a column then holds as many wide and as many narrow characters, so the columns
    line up in any font: a browser draws a CJK character from a fallback font about 1.7, not 2,
    monospaced columns wide (padding by display width, as ``ljust`` does, lines up only in a
    terminal)."""
    if align not in ("<", ">"):
        raise checks.error("align", "'<' or '>'", repr(align))
    wide, narrow = _counts(text)
    filling = "\u3000" * max(room[0] - wide, 0) + " " * max(room[1] - narrow, 0)
    return filling[::-1] + text if align == ">" else text + filling


def table(rows, align="<", gap="  "):
    """The lines of a text table, joined with newlines: ``rows`` a sequence of rows, each a sequence
    of cells (str), laid out so that every column lines up in both languages and in any font
    (``room`` and ``pad``); ``align`` one character for every column or one per column, "<" (left)
    or ">" (right: numbers); ``gap`` between columns. Rows may be shorter than the longest; no line
    ends in spaces. English text gets what ``str.ljust``/``str.rjust`` to each column's widest cell give.

    >>> print(table([["", "权重"], ["cat", "0.25"]], align="<>"))
             权重
    cat  \u3000\u30000.25
    """
    rows = [list(row) for row in rows]
    checks.string(gap, "gap")
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            checks.string(cell, f"rows[{r}][{c}]")
    n = max(map(len, rows), default=0)
    aligns = align * n if isinstance(align, str) and len(align) == 1 else align
    if not isinstance(aligns, str) or len(aligns) != n or set(aligns) - set("<>"):
        raise checks.error("align", f"'<' or '>', once or once per column ({n})", repr(align))
    rooms = [room([row[c] for row in rows if c < len(row)]) for c in range(n)]
    return "\n".join(gap.join(pad(cell, rooms[c], aligns[c]) for c, cell in enumerate(row)).rstrip() for row in rows)
