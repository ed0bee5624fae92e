"""Build the CJK font that ships with attnlab: a subset of Noto Sans CJK SC (SIL OFL 1.1).

    python tools/build_font.py [--source /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc]

Matplotlib's default font (DejaVu Sans) has no Chinese glyphs, and Binder's image and Colab have no CJK
font, so a Chinese label would draw as empty boxes. attnlab ships this subset and registers it behind
the default font (attnlab/ui/fonts.py): matplotlib falls back to it per glyph, so English text is drawn by
DejaVu Sans exactly as before.

What it covers: every Han character and CJK punctuation mark in the catalog (attnlab/locale/*/*.po),
the Chinese notebooks (notebooks/zh/*.ipynb, prose and outputs) and docs/glossary.md, plus the 3,755
characters of GB 2312 level 1 (the common characters of written Chinese), so a new string rarely
needs a rebuild; tests/ui/test_i18n.py fails when a character the catalog or a notebook uses is missing.
A bold face (Noto Sans CJK SC Bold) covers the characters in use, for bold figure titles.
Layout features, hinting and glyph names are dropped (matplotlib lays Chinese out glyph by glyph);
the name table is kept whole except the family names, which say it is a subset (the licence,
copyright and vendor fields stay). Source: Debian's fonts-noto-cjk (the SC face is number 2 of the
collection). The licence, OFL.txt, is copied beside the font.
"""
import argparse
import re
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "attnlab" / "locale" / "fonts"
FONT = OUT_DIR / "attnlab-cjk-sc.otf"
BOLD = OUT_DIR / "attnlab-cjk-sc-bold.otf"
FAMILY = "attnlab CJK SC"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
BOLD_SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")
SC_INDEX = 2
LICENCE_SOURCE = Path("/usr/share/doc/fonts-noto-cjk/copyright")
WIDE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\u2018\u2019\u201c\u201d\u2026\u00b7]")


def gb2312_level1():
    """The 3,755 characters of GB 2312 level 1 (rows 16-55), decoded from the codec."""
    chars = []
    for row in range(0xB0, 0xD8):
        for cell in range(0xA1, 0xFF):
            try:
                chars.append(bytes([row, cell]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return chars


def used_characters():
    """Every wide character in the catalog, the Chinese notebooks and the glossary."""
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "attnlab" / "locale").glob("*/LC_MESSAGES/*.po"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "notebooks" / "zh").glob("*.ipynb"))]
    texts.append((ROOT / "docs" / "glossary.md").read_text(encoding="utf-8"))
    # .ipynb is JSON: characters may be escaped as \uXXXX
    decoded = [re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), t) for t in texts]
    return set(WIDE.findall("".join(decoded)))


def licence_text():
    """The SIL Open Font License 1.1 as Debian's copyright file gives it, with the font's copyright line."""
    text = LICENCE_SOURCE.read_text(encoding="utf-8")
    start = text.index(" SIL OPEN FONT LICENSE Version 1.1")
    end = text.find("\nLicense:", start)
    body = "\n".join(line[1:] if line.startswith(" ") else line for line in text[start:end].splitlines())
    body = body.replace("\n.\n", "\n\n")
    return ("attnlab CJK SC is a subset of Noto Sans CJK SC (Regular), made by tools/build_font.py.\n"
            "Copyright 2014-2021 Adobe (http://www.adobe.com/), with Reserved Font Name 'Source'.\n"
            "Noto is a trademark of Google Inc.\n\n" + body.strip() + "\n")


def build(source=SOURCE, index=SC_INDEX, bold_source=BOLD_SOURCE):
    """The regular face (GB 2312 level 1 and every used character) and the bold one (the used characters:
    bold is for figure titles, whose words all come from the catalog)."""
    count = _subset(source, index, sorted(set(gb2312_level1()) | used_characters()), FONT, "Regular")
    _subset(bold_source, index, sorted(used_characters()), BOLD, "Bold")
    (OUT_DIR / "OFL.txt").write_text(licence_text(), encoding="utf-8")
    return count, FONT.stat().st_size + BOLD.stat().st_size


def _subset(source, index, chars, out, style):
    font = TTFont(str(source), fontNumber=index, lazy=False)
    options = subset.Options()
    options.layout_features = []          # no GSUB/GPOS: matplotlib places Chinese glyphs one by one
    options.hinting = False
    options.glyph_names = False
    options.name_IDs = ["*"]              # keep the licence (13, 14), copyright (0), trademark (7) fields
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.drop_tables += ["vhea", "vmtx", "VORG", "DSIG"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 4, 16):
            record.string = FAMILY
        elif record.nameID == 6:
            record.string = FAMILY.replace(" ", "") + "-" + style
        elif record.nameID == 3:
            record.string = "attnlab subset of " + record.toUnicode()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    font.save(str(out))
    return len(chars)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=SOURCE)
    parser.add_argument("--bold-source", type=Path, default=BOLD_SOURCE)
    parser.add_argument("--index", type=int, default=SC_INDEX)
    args = parser.parse_args(argv)
    count, size = build(args.source, args.index, args.bold_source)
    print(f"{FONT.relative_to(ROOT)} and its bold face: {count} characters, {size / 1e6:.2f} MB together")
    return 0


if __name__ == "__main__":
    sys.exit(main())
