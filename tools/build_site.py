"""Build the static site (build/site/) from the STORED notebooks, executing nothing.

    python tools/build_site.py [--out build/site] [--katex DIR]      (or: make site)

A page per notebook (nbconvert's HTML exporter, template tools/site_template/attnlab-site: the
"lab" template with no require.js, widget manager, MathJax or Mermaid from a CDN) and an index.
Outputs: an output's image/png is used wherever present (figures; panels once they carry one);
otherwise a widget view is drawn from the widget state stored in the notebook's metadata:
a panel as its last image and its text, a self-check as its question, its options and the
solution folded in a <details>. Every page links to run it live (Colab, Binder Lab, Binder
Voila), from the one repository address in pyproject.toml (tools/repo_links.py).

Math: typeset in the browser by KaTeX copied from its npm package (DIR = the package's dist/
folder; `make site` fetches it with `npm pack`). Without --katex, LaTeX stays as text (a warning
says so). Pages load nothing from outside the site: the test checks every src/href.
"""
import argparse
import base64
import html
import json
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from repo_links import ROOT, repo

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
PRIORITY = ["image/png", "image/svg+xml", "image/jpeg", "text/html", "text/markdown", "text/latex", "text/plain"]
SKIP_CELLS = {"attnlab-links", "attnlab-colab"}     # the page header carries the links instead
NOTEBOOK_LINK = re.compile(r"\]\((\d\d_[A-Za-z0-9_]+)\.ipynb(#[^)\s]*)?\)")   # [text](NN_x.ipynb#part)

SITE_CSS = """
.attnlab-site-nav { max-width: 1100px; margin: 0 auto; padding: 10px 20px; font: 14px/1.5 sans-serif;
  border-bottom: 1px solid #ddd; }
.attnlab-site-nav a { color: #1565c0; }
.attnlab-run { margin-left: 2em; }
.attnlab-static-note { color: #555; margin: 4px 0 0; font-size: 13px; }
main { max-width: 1100px; margin: 0 auto; }
.attnlab-static-panel, .attnlab-static-check { border-left: 3px solid #1565c0; padding: 6px 12px; margin: 6px 0;
  background: #f7f9fc; }
.attnlab-static-check { border-left-color: #2e7d32; }
.attnlab-static-check ul { margin: 4px 0; }
.attnlab-static-check details { margin-top: 6px; }
.attnlab-static-check summary { cursor: pointer; color: #2e7d32; font-weight: bold; }
.attnlab-static-controls { color: #444; font-size: 13px; margin: 4px 0; }
.attnlab-static-panel img { max-width: 100%; height: auto; }
.attnlab-hbox { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
body.attnlab-index main { padding: 20px; font: 16px/1.5 sans-serif; }
body.attnlab-index li { margin: 6px 0; }
/* Phones (issue 26): a figure at its own size (one picture pixel per CSS pixel, so no text smaller
   than drawn) in a box that scrolls sideways, with a hint when it is wider than the box (marked
   attnlab-wide by the page's script); a panel's text stays in view; formulas and tables scroll. */
@media (max-width: 600px) {
  .attnlab-site-nav { padding: 8px 12px; }
  .attnlab-run { display: block; margin-left: 0; }
  .attnlab-static-panel, .jp-RenderedImage { overflow-x: auto; }
  .attnlab-static-panel { display: flex; flex-direction: column; }
  .attnlab-static-panel > img, .jp-RenderedImage > img { max-width: none; align-self: flex-start; }
  .attnlab-static-panel > :not(img) { position: sticky; left: 0; order: 2; }
  .attnlab-static-panel > pre { overflow-x: auto; white-space: pre; word-break: normal; }
  .attnlab-wide::after { content: @SCROLL_EN@; order: 1; display: block; position: sticky; left: 0; text-align: center;
    font: 12px sans-serif; color: #616161; }
  :lang(zh) .attnlab-wide::after { content: @SCROLL_ZH@; }
  .katex-display, .jp-RenderedHTMLCommon table { display: block; overflow-x: auto; overflow-y: hidden; max-width: 100%; }
}
"""


FIGURE_NAME = re.compile(r"<span class='attnlab-figure-name' hidden>(.*?)</span>", re.S)   # panels.Panel's


class Widgets:
    """Static HTML for a widget view, from the widget state stored in a notebook's metadata."""

    def __init__(self, nb):
        self.state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})

    def model(self, ref):
        return self.state.get(ref.replace("IPY_MODEL_", "")) if isinstance(ref, str) else None

    def render(self, model_id):
        m = self.model(model_id)
        return None if m is None else self._html(m)

    def _image(self, m, alt):
        """The picture of an Image model; its alt: ``alt`` (its panel's figure name or text)."""
        alt = html.escape(alt, quote=True)
        fmt = html.escape(m["state"].get("format", "png"))
        for buf in m.get("buffers", []):
            if buf.get("path") == ["value"] and buf.get("encoding", "base64") == "base64":
                return f"<img alt=\"{alt}\" src='data:image/{fmt};base64,{buf['data']}'>"
        value = m["state"].get("value")
        if isinstance(value, str) and value:   # a value saved as base64 text
            base64.b64decode(value, validate=True)
            return f"<img alt=\"{alt}\" src='data:image/{fmt};base64,{value}'>"
        return ""

    def _text(self, m):
        """The text a box shows (its HTML and Label children, tags dropped): a panel's summary."""
        if m["model_name"] in ("HTMLModel", "HTMLMathModel", "LabelModel"):
            return html.unescape(re.sub(r"<style.*?</style>|<[^>]+>", " ", m["state"].get("value", "") or "", flags=re.S))
        return " ".join(filter(None, (self._text(c).strip() for c in self._children(m))))

    def _children(self, m):
        return [c for c in (self.model(r) for r in m["state"].get("children", [])) if c is not None]

    def _selfcheck(self, m):
        kids = self._children(m)
        if len(kids) < 5:
            return self._box(m, "div")
        question, control, solution = kids[0], kids[1], kids[-1]
        parts = [f"<div>{question['state'].get('value', '')}</div>"]
        labels = control["state"].get("_options_labels")
        if labels:
            parts.append("<ul>" + "".join(f"<li>{html.escape(str(o))}</li>" for o in labels) + "</ul>")
        elif "value" in control["state"]:
            desc = html.escape((control["state"].get("description", "") or "your answer").rstrip(": "))
            parts.append(f"<div class='attnlab-static-controls'>{desc}: ____</div>")
        parts.append(f"<details><summary>Solution</summary>{solution['state'].get('value', '')}</details>")
        return "<div class='attnlab-static-check'>" + "".join(parts) + "</div>"

    def _control(self, m):
        s = m["state"]
        desc = html.escape(s.get("description", "") or "")
        name = m["model_name"]
        if "Slider" in name or name in ("CheckboxModel", "BoundedFloatTextModel", "FloatTextModel",
                                         "IntTextModel", "BoundedIntTextModel"):
            value = s.get("value")
            if isinstance(value, list):
                value = " – ".join(str(v) for v in value)
            return f"<span class='attnlab-static-control'>{desc or 'value'} = {html.escape(str(value))}</span>"
        if "_options_labels" in s and s.get("index") is not None:
            idx = s["index"]
            labels = s["_options_labels"]
            chosen = ", ".join(labels[i] for i in idx) if isinstance(idx, list) else labels[idx]
            return f"<span class='attnlab-static-control'>{desc or 'choice'}: {html.escape(str(chosen))}</span>"
        return ""

    def _box(self, m, kind, alt=""):
        inner = "".join(self._html(c, alt) for c in self._children(m))
        cls = "attnlab-hbox" if kind == "row" else ""
        return f"<div class='{cls}'>{inner}</div>" if inner else ""

    def _html(self, m, alt=""):
        name, s = m["model_name"], m["state"]
        classes = s.get("_dom_classes", []) or []
        if "attnlab-selfcheck" in classes:
            return self._selfcheck(m)
        if "attnlab-panel" in classes:   # the name a Panel carries for its figure, else the text under it
            texts = [c["state"].get("value", "") or "" for c in self._children(m) if c["model_name"] == "HTMLModel"
                     and "attnlab-disconnected-note" not in (c["state"].get("_dom_classes") or [])]
            names = [n for t in texts for n in FIGURE_NAME.findall(t)]
            alt = html.unescape(names[0]) if names else " ".join(self._text({"model_name": "HTMLModel",
                                                                               "state": {"value": t}}) for t in texts)
        if name in ("VBoxModel", "BoxModel", "GridBoxModel", "AccordionModel", "TabModel", "StackModel"):
            inner = self._box(m, "column", alt)
        elif name == "HBoxModel":
            inner = self._box(m, "row", alt)
        elif name in ("HTMLModel", "HTMLMathModel"):
            inner = s.get("value", "")
        elif name == "LabelModel":
            inner = html.escape(s.get("value", ""))
        elif name == "ImageModel":
            inner = self._image(m, " ".join(alt.split()))
        elif name == "OutputModel":
            inner = "".join(output_html(o, self) for o in s.get("outputs", []))
        else:
            inner = self._control(m)
        if "attnlab-panel" in classes:
            return f"<div class='attnlab-static-panel'>{inner}</div>"
        return inner


def output_html(out, widgets):
    """HTML for an output held inside an Output widget (rare)."""
    data = out.get("data", {})
    if "image/png" in data:
        alt = html.escape(out.get("metadata", {}).get("image/png", {}).get("alt", ""), quote=True)
        return f"<img alt=\"{alt}\" src='data:image/png;base64,{data['image/png']}'>"
    if WIDGET_VIEW in data:
        return widgets.render(data[WIDGET_VIEW]["model_id"]) or ""
    if "text/html" in data:
        return data["text/html"] if isinstance(data["text/html"], str) else "".join(data["text/html"])
    text = out.get("text") or data.get("text/plain", "")
    return f"<pre>{html.escape(text if isinstance(text, str) else ''.join(text))}</pre>"


MARKUP = [(re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),          # links and images: their text
          (re.compile(r"<[^>]+>"), " "),                            # HTML tags
          (re.compile(r"\\(?:mathrm|text|mathbf|operatorname)\{([^}]*)\}"), r"\1"),
          (re.compile(r"\*\*|__|(?<!\w)_(?=\w)|(?<=\w)_(?!\w)|[*`$#>]|\\(?=[A-Za-z])"), ""),   # emphasis, code, math
          (re.compile(r"\s+"), " ")]


def caption(markdown, limit=300):
    """A stored figure's text alternative from the markdown above it: its last paragraph, markup
    dropped, cut after a sentence near ``limit`` characters."""
    paragraphs = [p for p in re.split(r"\n\s*\n", markdown) if p.strip() and not p.lstrip().startswith(("```", "<", "|"))]
    text = paragraphs[-1] if paragraphs else ""
    for pattern, repl in MARKUP:
        text = pattern.sub(repl, text)
    text = text.strip()
    if len(text) > limit:
        cut = max(text.rfind(stop, 0, limit) for stop in (". ", "。", "; ", "；"))
        text = text[:cut + 1] if cut > 40 else text[:limit].rstrip() + "…"
    return text


def static_outputs(nb, words=None):
    """Reduce every output bundle to the one representation the site shows; widget views become
    static HTML from the stored widget state; image/png wins wherever present. Every picture gets a
    text alternative: a panel's its own text, a stored figure the last paragraph above it (``words``:
    the page language's WORDS, for a figure with no text above)."""
    from attnlab.i18n import page_messages
    words = words or WORDS["en"]
    figure = page_messages("zh" if words is WORDS["zh"] else "en")["figure"]   # no text above: the catalog's words
    widgets = Widgets(nb)
    nb.cells = [c for c in nb.cells if c.get("id") not in SKIP_CELLS]
    nearby = ""                                    # the last paragraph of the markdown above a figure
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            nearby = caption(cell.source)
        if cell.cell_type == "markdown":           # links between notebooks go to their pages
            cell.source = NOTEBOOK_LINK.sub(lambda m: f"]({m.group(1)}.html{m.group(2) or ''})", cell.source)
        for out in cell.get("outputs", []):
            data = out.get("data")
            if not data:
                continue
            if "image/png" in data and WIDGET_VIEW in data:     # a live panel: its picture, framed, and its summary
                png = data["image/png"] if isinstance(data["image/png"], str) else "".join(data["image/png"])
                text = data.get("text/plain", "")
                text = text if isinstance(text, str) else "".join(text)
                summary = text.split("\n", 1)[1] if "\n" in text else ""
                alt = html.escape(" ".join(summary.split()) or text, quote=True)   # what the figure shows
                out["data"] = {"text/html": f"<div class='attnlab-static-panel'><img alt=\"{alt}\" "
                                            f"src='data:image/png;base64,{png}'>"
                                            + (f"<pre>{html.escape(summary)}</pre>" if summary else "") + "</div>"}
                continue
            if "image/png" in data:                # a stored figure: its alt says what the text above it says
                meta = out.setdefault("metadata", {}).setdefault("image/png", {})
                meta.setdefault("alt", nearby or figure)
            if "image/png" not in data and WIDGET_VIEW in data:
                rendered = widgets.render(data[WIDGET_VIEW].get("model_id", ""))
                if rendered:
                    data["text/html"] = rendered
                    if "attnlab-static-check" in rendered:     # its code holds the answer: hide it
                        cell.metadata.setdefault("transient", {})["remove_source"] = True
            for mime in PRIORITY:
                if mime in data:
                    out["data"] = {mime: data[mime]}
                    break
            else:
                out["data"] = {}
    nb.metadata.pop("widgets", None)       # no widget manager on a static page
    return nb


def title_of(nb, fallback):
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


LANGUAGES = ("en", "zh")
# The words of the site's own frame, per language (the notebooks bring their own).
WORDS = {
    "en": {"all": "← all notebooks", "run": "Run it live:", "colab": "Open in Colab", "lab": "Binder (JupyterLab)",
           "voila": "Binder (dashboard)", "source": "source", "other": "中文", "other_lang": "zh",
           "note": "A static copy: figures and panels are pictures of the stored run; sliders and self-checks work "
                   "in the live versions above.",
           "title": "attnlab: attention you can move",
           "intro": "Notebooks on attention, from kernel regression to multi-head self-attention, masks and a small "
                    "translator. These pages are a static copy of the stored notebooks (figures and panels as pictures, "
                    "self-checks with their solutions folded). To move the sliders, run them live:",
           "dashboards": "Binder (dashboards)"},
    "zh": {"all": "← 全部笔记本", "run": "在线运行：", "colab": "在 Colab 中打开", "lab": "Binder（JupyterLab）",
           "voila": "Binder（仪表盘）", "source": "源代码", "other": "English", "other_lang": "en",
           "note": "这是静态副本：图和面板都是保存时运行结果的图片；滑块和自测题请在上面的在线版本中使用。",
           "title": "attnlab：可以动手拖动的注意力机制",
           "intro": "一组讲注意力机制的笔记本：从核回归到多头自注意力、掩码，再到一个小小的翻译模型。"
                    "这些页面是已保存笔记本的静态副本（图和面板是图片，自测题的答案折叠起来）。想拖动滑块，请在线运行：",
           "dashboards": "Binder（仪表盘）"},
}


def _notebook_path(lang, name):
    """The notebook's path under notebooks/, as the Colab and Binder links want it."""
    return name if lang == "en" else f"{lang}/{name}"


def build_language(out, lang, r, katex, notebooks=None):
    """The pages of one language: out/NN.html for English, out/zh/NN.html for Chinese, each with an index."""
    words, root = WORDS[lang], "" if lang == "en" else "../"
    folder = out if lang == "en" else out / lang
    folder.mkdir(parents=True, exist_ok=True)
    source_dir = ROOT / "notebooks" if lang == "en" else ROOT / "notebooks" / lang
    exporter = HTMLExporter(template_name="attnlab-site", extra_template_basedirs=[str(ROOT / "tools" / "site_template")],
                            exclude_input_prompt=True, exclude_output_prompt=True, language_code=lang)
    entries = []
    for path in sorted(notebooks or source_dir.glob("*.ipynb")):
        nb = static_outputs(nbformat.read(path, as_version=4), words)
        title = title_of(nb, path.stem)
        where = _notebook_path(lang, path.name)
        other = f"zh/{path.stem}.html" if lang == "en" else f"../{path.stem}.html"
        resources = {"metadata": {"name": title}, "language_code": lang,
                     "attnlab": {"katex": bool(katex), "colab": r.colab(where), "binder_lab": r.binder_lab(where),
                                 "binder_voila": r.binder_voila(where), "source": r.source(where), "root": root,
                                 "words": words, "other": other}}
        body, _ = exporter.from_notebook_node(nb, resources=resources)
        (folder / f"{path.stem}.html").write_text(body, encoding="utf-8")
        entries.append((path, title))
    items = "\n".join(
        f"<li><a href='{p.stem}.html'>{html.escape(t)}</a> — <a href='{r.colab(_notebook_path(lang, p.name))}'>Colab</a> · "
        f"<a href='{r.binder_lab(_notebook_path(lang, p.name))}'>{words['lab']}</a> · "
        f"<a href='{r.binder_voila(_notebook_path(lang, p.name))}'>{words['voila']}</a></li>"
        for p, t in entries)
    other_index = "zh/index.html" if lang == "en" else "../index.html"
    index_path = "00_index.ipynb" if lang == "en" else f"{lang}/00_index.ipynb"
    (folder / "index.html").write_text(f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{words['title']}</title><link rel="stylesheet" href="{root}_static/site.css"></head>
<body class="attnlab-index"><main>
<p class="attnlab-lang"><a href="{other_index}" hreflang="{words['other_lang']}">{words['other']}</a></p>
<h1>{words['title']}</h1>
<p>{words['intro']}
<a href="{r.binder_voila(index_path)}">{words['dashboards']}</a> · <a href="{r.binder_lab(index_path)}">{words['lab']}</a> ·
<a href="{r.colab(index_path)}">Colab</a> · <a href="{r.url}">{words['source']}</a>.</p>
<ol start="0">
{items}
</ol></main></body></html>
""", encoding="utf-8")
    return len(entries)


A11Y_CSS = ROOT / "share" / "jupyter" / "voila" / "templates" / "attnlab" / "a11y.css"   # the dashboards' too


def site_css():
    """SITE_CSS with the phone layout's scroll hint in both languages, from the catalog, and the
    accessibility rules the dashboards use (contrast, underlined links, focus ring, reduced motion)."""
    from attnlab.i18n import page_messages
    hint = {lang: json.dumps(page_messages(lang)["scroll_hint"], ensure_ascii=False) for lang in ("en", "zh")}
    css = SITE_CSS.replace("@SCROLL_EN@", hint["en"]).replace("@SCROLL_ZH@", hint["zh"])
    return css + "\n" + A11Y_CSS.read_text(encoding="utf-8")


def build(out, katex=None, notebooks=None):
    t0 = time.time()
    r = repo()
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    (out / "_static").mkdir(parents=True)
    (out / "_static" / "site.css").write_text(site_css(), encoding="utf-8")
    if katex:
        katex = Path(katex)
        dest = out / "_static" / "katex"
        (dest / "contrib").mkdir(parents=True)
        for name in ("katex.min.css", "katex.min.js"):
            shutil.copy(katex / name, dest / name)
        shutil.copy(katex / "contrib" / "auto-render.min.js", dest / "contrib")
        shutil.copytree(katex / "fonts", dest / "fonts", ignore=shutil.ignore_patterns("*.ttf", "*.woff"))
    else:
        print("warning: no --katex given: LaTeX stays as text on the pages", file=sys.stderr)
    pages = 0
    for lang in LANGUAGES:
        pages += build_language(out, lang, r, katex, notebooks if lang == "en" else None)
    print(f"built {pages} pages and index.html in {out} (and zh/) in {time.time() - t0:.1f} s")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "build" / "site"))
    ap.add_argument("--katex", default=None, help="KaTeX's dist/ folder (from `npm pack katex`)")
    a = ap.parse_args(argv)
    build(a.out, a.katex)


if __name__ == "__main__":
    main()
