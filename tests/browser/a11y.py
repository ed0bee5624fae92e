"""The accessibility audit of a page the browser tests already have open (issue 38): axe-core 4
(the npm package, installed by `make axe` into build/axe/, injected from disk: no CDN) run in the
page. Findings of impact serious or critical fail the test unless a11y_accepted.toml names them with
a reason; every finding (accepted, minor and moderate ones too) is written to build/a11y/<page>.json,
and `make a11y` (python tests/browser/a11y.py report) lists them all in build/a11y/report.md.

    audit(page, "site/01_kernel_regression")  -> the blocking findings, as lines (empty: it passes)
"""
import fnmatch
import json
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "build" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
ACCEPTED = Path(__file__).resolve().parent / "a11y_accepted.toml"
REPORTS = ROOT / "build" / "a11y"
BLOCKING = ("serious", "critical")

# WCAG 2.1 A and AA, and axe's best practices (what the issue measured); violations only (no list of passes).
RUN = """async (exclude) => {
  const r = await axe.run({exclude: exclude.map(s => [s])}, {resultTypes: ['violations'],
    runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 200),
                              summary: (n.failureSummary || '').slice(0, 400)}))}));
}"""


def accepted():
    """The accepted findings: [{rule, pages, target (a substring of the node's selector, optional), reason}]."""
    entries = tomllib.loads(ACCEPTED.read_text(encoding="utf-8")).get("accepted", [])
    for e in entries:
        missing = {"rule", "pages", "reason"} - set(e)
        if missing or not e["reason"].strip():
            raise ValueError(f"{ACCEPTED.name}: every entry needs rule, pages and a reason, got {e}")
    return entries


def _is_accepted(name, rule, node, entries):
    return any(e["rule"] == rule and fnmatch.fnmatch(name, e["pages"]) and e.get("target", "") in node["target"]
               for e in entries)


def audit(page, name, exclude=(), rules=()):
    """Run axe-core in ``page`` (as it is now), but not in the elements matching the CSS selectors
    ``exclude``; write build/a11y/<name>.json; return the serious and critical findings, and those of
    the axe rules ``rules`` whatever their impact, that a11y_accepted.toml does not accept, one line each."""
    if not AXE.exists():
        raise AssertionError(f"axe-core is not installed at {AXE.relative_to(ROOT)}: run `make axe` "
                             "(npm install axe-core into build/axe)")
    t0 = time.time()
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    violations = page.evaluate(RUN, list(exclude))
    seconds = time.time() - t0
    entries = accepted()
    blocking = []
    for v in violations:
        for node in v["nodes"]:
            node["accepted"] = _is_accepted(name, v["id"], node, entries)
            if (v["impact"] in BLOCKING or v["id"] in rules) and not node["accepted"]:
                blocking.append(f"{name}: {v['id']} ({v['impact']}: {v['help']}) at {node['target']}: "
                                f"{node['summary'][:200]}")
    out = REPORTS / f"{name.replace('/', '__')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"page": name, "seconds": round(seconds, 2), "violations": violations},
                              ensure_ascii=False, indent=1), encoding="utf-8")
    return blocking


def report(folder=REPORTS):
    """build/a11y/report.md from the pages audited last: per rule, its impact, how many nodes on which
    pages, and which are accepted. Returns the number of blocking findings."""
    rows, blocking, pages = {}, 0, 0
    for path in sorted(Path(folder).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        pages += 1
        for v in data["violations"]:
            row = rows.setdefault((v["impact"], v["id"]), {"help": v["help"], "pages": {}, "accepted": 0, "nodes": 0})
            row["pages"][data["page"]] = row["pages"].get(data["page"], 0) + len(v["nodes"])
            row["nodes"] += len(v["nodes"])
            row["accepted"] += sum(n["accepted"] for n in v["nodes"])
            if v["impact"] in BLOCKING:
                blocking += sum(not n["accepted"] for n in v["nodes"])
    order = {"critical": 0, "serious": 1, "moderate": 2, "minor": 3}
    lines = [f"# Accessibility audit (axe-core, {pages} pages)", "",
             f"Blocking (serious or critical, not accepted): {blocking}", "",
             "| impact | rule | nodes | accepted | pages |", "|---|---|---|---|---|"]
    for (impact, rule), row in sorted(rows.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1])):
        where = ", ".join(f"{p} ({n})" for p, n in sorted(row["pages"].items()))
        lines.append(f"| {impact} | {rule}: {row['help']} | {row['nodes']} | {row['accepted']} | {where} |")
    if not rows:
        lines.append("| — | no findings | 0 | 0 | — |")
    (Path(folder) / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return blocking


if __name__ == "__main__":
    if sys.argv[1:] != ["report"]:
        sys.exit("usage: python tests/browser/a11y.py report")
    sys.exit(1 if report() else 0)
