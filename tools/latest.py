"""The early warning (`make test-latest`, and the weekly workflow): run the unit, panel-exactness and
notebook tests in an environment holding the NEWEST releases of the runtime dependencies instead of
the pins, and say which package moved.

    python tools/latest.py [--summary FILE] [--group unit|panels|notebooks ...]

First a table of every runtime pin (requirements.txt) against the version installed here, the moved
ones marked; then the three groups of tests, each its own pytest run; then a closing summary that
names the packages that moved and, for each failing test, the installed packages its traceback
passes through (a strong hint at which move broke it). --summary also writes that summary as
Markdown (the weekly workflow passes $GITHUB_STEP_SUMMARY). Exits 1 when a group fails, 0 otherwise.
Run by `make test-latest` in .venv-latest; torch stays at its pin (2.13.0) there.
"""
import argparse
import importlib.metadata as md
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;#]+)")
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/sanitize.cfg"]
# name -> pytest arguments (run from the repository root). "unit" is every kernel-side test of the
# package and its lessons (no browser, no fresh-venv install, no site build; not the pins' and the
# workflows' own checks, which no release changes); "panels" the pixel
# exactness of every panel; "notebooks" nbval over every stored notebook (English and Chinese).
GROUPS = {
    "unit": ["tests", "--ignore=tests/browser", "--ignore=tests/ui/test_panels.py",
             "--ignore=tests/notebooks/test_panel_blit_notebooks.py", "--ignore=tests/ui/test_widget_bundles.py",
             "--ignore=tests/project/test_requirements_sync.py", "--ignore=tests/project/test_workflows.py",
             "--ignore=tests/project/test_provenance.py",
             "-m", "not fuzz and not install and not site"],
    "panels": ["tests/ui/test_panels.py", "tests/notebooks/test_panel_blit_notebooks.py", "tests/ui/test_widget_bundles.py"],
    "notebooks": NBVAL + ["notebooks"],
}


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path=ROOT / "requirements.txt"):
    """[(name, pinned version)] in file order."""
    out = []
    for line in Path(path).read_text().splitlines():
        m = PIN.match(line.split("#", 1)[0])
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def installed(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None


def moved_table(pinned):
    """Rows (name, pinned, installed, moved?) and the list of moved names."""
    rows, moved = [], []
    for name, want in pinned:
        have = installed(name)
        # a local build tag (+cpu) is the same release
        same = have is not None and have.split("+")[0] == want.split("+")[0]
        rows.append((name, want, have or "(missing)", not same))
        if not same:
            moved.append(name)
    return rows, moved


def format_table(rows):
    width = max(len(r[0]) for r in rows)
    lines = [f"{'package':<{width}}  {'pinned':<12} {'installed':<12} moved"]
    for name, want, have, moved in rows:
        lines.append(f"{name:<{width}}  {want:<12} {have:<12} {'MOVED' if moved else ''}".rstrip())
    return "\n".join(lines)


def _module_owners():
    """{top-level module name: distribution name} for everything installed."""
    owners = {}
    for module, dists in md.packages_distributions().items():
        owners.setdefault(module, dists[0])
    return owners


SITE = re.compile(r"site-packages/([A-Za-z0-9_]+)")


def implicated(text, owners):
    """The installed distributions a traceback passes through, in order of first appearance."""
    found = []
    for module in SITE.findall(text or ""):
        dist = owners.get(module)
        if dist and dist not in found and norm(dist) not in {"pytest", "pluggy", "nbval", "-pytest"}:
            found.append(dist)
    return found


def failures(junit_xml):
    """[(test id, traceback text)] of the failed and errored tests in a junit XML file."""
    out = []
    if not Path(junit_xml).exists():
        return out
    for case in ET.parse(junit_xml).iter("testcase"):
        for kind in ("failure", "error"):
            bad = case.find(kind)
            if bad is not None:
                test_id = f"{case.get('classname', '')}::{case.get('name', '')}".strip(":")
                out.append((test_id, (bad.get("message") or "") + "\n" + (bad.text or "")))
    return out


def run_group(name, args):
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
               f"--junitxml={xml}"] + args
        print(f"\n=== {name}: {' '.join(cmd[1:])}", flush=True)
        rc = subprocess.call(cmd, cwd=ROOT)
        return rc, failures(xml)


# what the summary calls the versions it ran with: the newest releases (make test-latest) or the lowest the
# metadata allows (make test-lowest, `--lowest`)
WORDS = {"newest": {"title": "Newest dependencies (make test-latest)", "releases": "the newest releases"},
         "lowest": {"title": "Lowest direct dependencies (make test-lowest)", "releases": "the lowest versions"}}


def summary(rows, moved, results, versions="newest"):
    words = WORDS[versions]
    owners = _module_owners()
    by_name = {r[0]: r for r in rows}
    moved_text = ", ".join(f"{n} {by_name[n][1]} -> {by_name[n][2]}" for n in moved) or "nothing"
    lines = [f"## {words['title']}", "",
             f"Python {sys.version.split()[0]}. Moved since the pins: **{moved_text}**.", "",
             "| package | pinned | installed | |", "|---|---|---|---|"]
    lines += [f"| {n} | {w} | {h} | {'moved' if m else ''} |" for n, w, h, m in rows]
    lines.append("")
    for group, (rc, failed) in results.items():
        if rc < 0:  # ended by a signal (killed, a CI job's timeout): says nothing about the releases
            verdict = f"did not finish (ended by signal {-rc})"
        else:
            verdict = "passed" if rc == 0 else (f"{len(failed)} failed" if failed else f"exit {rc}")
        lines.append(f"- **{group}**: {verdict}")
        for test_id, text in failed[:30]:
            through = implicated(text, owners)
            hint = [d for d in through if norm(d) in {norm(m) for m in moved}] or through
            lines.append(f"  - `{test_id}`" + (f" (traceback through: {', '.join(hint[:4])})" if hint else ""))
        if len(failed) > 30:
            lines.append(f"  - ... and {len(failed) - 30} more")
    broke = [g for g, (rc, _) in results.items() if rc > 0]
    unfinished = [g for g, (rc, _) in results.items() if rc < 0]
    lines.append("")
    if broke:
        lines.append(f"BROKEN with {words['releases']}: " + ", ".join(broke) + f". Moved: {moved_text}.")
    elif unfinished:
        lines.append("Nothing failed, but not every group finished. Moved: " + moved_text + ".")
    else:
        lines.append(f"All groups pass with {words['releases']}. Moved: {moved_text}.")
    if unfinished:
        lines.append("Did not finish (no verdict): " + ", ".join(unfinished) + ".")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--summary", help="also write the closing summary (Markdown) to this file (appended)")
    ap.add_argument("--group", action="append", choices=sorted(GROUPS), help="run only these groups")
    ap.add_argument("--lowest", action="store_true",
                    help="the venv holds the lowest versions the metadata allows (make test-lowest): say so")
    args = ap.parse_args(argv)
    rows, moved = moved_table(pins())
    print("Runtime dependencies: pinned (requirements.txt) vs installed here")
    print(format_table(rows))
    print("Moved: " + (", ".join(moved) or "nothing"), flush=True)
    results = {g: run_group(g, GROUPS[g]) for g in (args.group or GROUPS)}
    text = summary(rows, moved, results, "lowest" if args.lowest else "newest")
    print("\n" + text)
    if args.summary:
        with open(args.summary, "a") as f:
            f.write(text + "\n")
    return 0 if all(rc == 0 for rc, _ in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
