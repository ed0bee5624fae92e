"""The gettext catalog of every string a learner reads (attnlab/i18n.py), kept with Babel.

    python tools/catalog.py update     extract msgids (package + English notebooks' code cells) into
                                       attnlab/locale/attnlab.pot, merge them into each language's .po
                                       (new entries untranslated, none fuzzy-matched, gone ones dropped),
                                       compile the .mo files
                                       and the dashboard page's messages (PAGE_MESSAGES)
    python tools/catalog.py compile    .po -> .mo only, and the page's messages
    python tools/catalog.py todo       list the msgids still untranslated (or fuzzy)
    python tools/catalog.py check      exit 1 if the .pot is out of date with the code, a .po has an
                                       untranslated or fuzzy entry or a msgstr whose {fields} differ from
                                       its msgid, or a .mo differs from what its .po compiles to, or the
                                       Voila template's attnlab_messages.json differs from the catalog

The Voila template's page has no Python: the messages it shows when a lesson's kernel or its
connection is gone (``attnlab.i18n.PAGE_MESSAGES``) are written, in every language, to
share/jupyter/voila/templates/attnlab/attnlab_messages.json, which the template inlines.

Strings are marked in code with ``_("…")`` (``from attnlab.i18n import gettext as _``), ``N_("…")``
and ``ngettext("…", "…", n)``; in the notebooks' code cells the same way. Translators edit the .po.
"""
import argparse
import datetime
import importlib.util
import io
import json
import string
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_python
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "attnlab"
NOTEBOOKS = ROOT / "notebooks"
LOCALE = PACKAGE / "locale"
TEMPLATE = LOCALE / "attnlab.pot"
PAGE_MESSAGES_JSON = ROOT / "share" / "jupyter" / "voila" / "templates" / "attnlab" / "attnlab_messages.json"
LANGUAGES = ("zh",)
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "gettext": None, "pgettext": ((1, "c"), 2)}
HEADER = "attnlab: every string a learner reads (attnlab/i18n.py; tools/catalog.py keeps this file)"


def _notebook_messages(path):
    """(msgid, location) for every marked string in a notebook's code cells."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        # IPython lines (%magic, !shell) are not Python: blank them, keeping line numbers
        source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))
        found = extract_python(io.BytesIO(source.encode("utf-8")), KEYWORDS.keys(), [], {"encoding": "utf-8"})
        for _lineno, funcname, messages, _comments in found:
            spec = KEYWORDS.get(funcname)
            if isinstance(messages, tuple):
                messages = messages if spec else messages[0]
            if isinstance(messages, tuple) and any(m is None for m in messages):
                continue
            if messages:
                yield messages, f"notebooks/{path.name}#{cell.get('id', '')}"


def extract():
    """A Catalog of every marked string, in a stable order (file, then first appearance)."""
    catalog = _stable(Catalog(project="attnlab", header_comment="# " + HEADER, fuzzy=False))
    method_map = [("**.py", "python")]
    for package in (PACKAGE, ROOT / "attnlab_classroom"):      # the learner's package, the classroom server
        for filename, _lineno, message, comments, context in extract_from_dir(
                str(package), method_map, keywords=KEYWORDS, comment_tags=("translators:",), strip_comment_tags=True):
            catalog.add(message, locations=[(f"{package.name}/{filename}", None)], auto_comments=comments,
                        context=context)
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for message, where in _notebook_messages(path):
            catalog.add(message, locations=[(where, None)])
    return catalog


def _po_text(catalog):
    out = io.BytesIO()
    write_po(out, catalog, width=100, omit_header=False, sort_output=False, sort_by_file=False, include_lineno=False,
             ignore_obsolete=True)
    text = out.getvalue().decode("utf-8")
    # Babel stamps creation/revision dates: keep the file stable from run to run
    return "\n".join(line for line in text.split("\n") if not line.startswith(('"POT-Creation-Date', '"PO-Revision-Date')))


FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def _stable(catalog):
    """Babel stamps 'now' into the header (and so the .mo) when a date is missing: use a fixed one."""
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    return catalog


def _read(path, locale=None):
    with open(path, "rb") as f:
        return _stable(read_po(f, locale=locale))


def _mo_bytes(catalog):
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def _shown(path):
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def po_path(lang):
    return LOCALE / lang / "LC_MESSAGES" / "attnlab.po"


def update():
    template = extract()
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_text(_po_text(template), encoding="utf-8")
    for lang in LANGUAGES:
        path = po_path(lang)
        if path.exists():
            catalog = _read(path, locale=lang)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = _stable(Catalog(locale=lang, project="attnlab", header_comment="# " + HEADER, fuzzy=False))
        catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
        catalog.obsolete.clear()
        path.write_text(_po_text(catalog), encoding="utf-8")
    compile_all()


def compile_all():
    for lang in LANGUAGES:
        catalog = _read(po_path(lang), locale=lang)
        po_path(lang).with_suffix(".mo").write_bytes(_mo_bytes(catalog))
    PAGE_MESSAGES_JSON.write_text(page_messages_json(), encoding="utf-8")


def _page_messages():
    """attnlab.i18n.PAGE_MESSAGES, read without importing the package (and torch)."""
    spec = importlib.util.spec_from_file_location("_attnlab_i18n", PACKAGE / "i18n.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PAGE_MESSAGES


def page_messages_json():
    """The text of attnlab_messages.json: {"en": {key: msgid}, "zh": {key: msgstr or msgid}, ...}."""
    messages = _page_messages()
    out = {"en": dict(messages)}
    for lang in LANGUAGES:
        catalog = _read(po_path(lang), locale=lang)
        out[lang] = {}
        for key, msgid in messages.items():
            entry = catalog.get(msgid)
            out[lang][key] = entry.string if entry is not None and entry.string and not entry.fuzzy else msgid
    text = json.dumps(out, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    # the template inlines this file with {% include %}: Jinja must find no tag in it
    if any(tag in text for tag in ("{{", "{%", "{#")):
        raise ValueError(f"a page message holds a Jinja tag opener ({{{{, {{% or {{#): {text}")
    return text


def fields(text):
    """The set of named/positional {fields} of a format string ('{n} keys' -> {'n'})."""
    try:
        return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return {"<malformed>"}


def _strings(message):
    return message if isinstance(message, (tuple, list)) else (message,)


def problems():
    """Every reason the catalog is not ready, as readable lines (empty when all is well)."""
    out = []
    extracted = extract()
    if not TEMPLATE.exists() or TEMPLATE.read_text(encoding="utf-8") != _po_text(extracted):
        out.append(f"{_shown(TEMPLATE)} is out of date with the code: run python tools/catalog.py update")
    wanted = {(m.id, m.context) for m in extracted if m.id}
    for lang in LANGUAGES:
        path = po_path(lang)
        catalog = _read(path, locale=lang)
        have = {(m.id, m.context) for m in catalog if m.id}
        for missing, context in sorted(wanted - have, key=str):
            out.append(f"{lang}: not in the .po yet: {missing!r}" + (f" (context {context!r})" if context else ""))
        for m in catalog:
            if not m.id:
                continue
            ids, strs = _strings(m.id), _strings(m.string)
            if m.fuzzy:
                out.append(f"{lang}: fuzzy: {ids[0]!r}")
            if not all(strs):
                out.append(f"{lang}: untranslated: {ids[0]!r}")
                continue
            for s in strs:
                if fields(s) != fields(ids[0]):
                    out.append(f"{lang}: fields {sorted(fields(s))} differ from the msgid's {sorted(fields(ids[0]))}: {ids[0]!r}")
        mo = path.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != _mo_bytes(catalog):
            out.append(f"{lang}: {_shown(mo)} differs from what its .po compiles to: run python tools/catalog.py compile")
    if not PAGE_MESSAGES_JSON.exists() or PAGE_MESSAGES_JSON.read_text(encoding="utf-8") != page_messages_json():
        out.append(f"{_shown(PAGE_MESSAGES_JSON)} differs from the catalog: run python tools/catalog.py compile")
    return out


def todo():
    for lang in LANGUAGES:
        for m in _read(po_path(lang), locale=lang):
            if m.id and (m.fuzzy or not all(_strings(m.string))):
                print(f"{lang}\t{_strings(m.id)[0]!r}\t{', '.join(loc for loc, _ in m.locations)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["update", "compile", "todo", "check"])
    args = parser.parse_args(argv)
    if args.command == "update":
        update()
    elif args.command == "compile":
        compile_all()
    elif args.command == "todo":
        todo()
    else:
        found = problems()
        print("\n".join(found) if found else "catalog: up to date, every entry translated")
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
