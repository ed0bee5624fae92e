"""Where `make test`'s pytest time goes: the suite run in pieces, one pytest per group, each timed.

    .venv/bin/python bench/bench_tests.py [--groups check unit nbval-en nbval-zh browser] [--durations 10]
        [--out build/bench_tests]

Groups are FOUND, not listed, so new notebooks and test files land in one without editing this file:
  check      the files of `make check` (the Makefile's CHECK_TESTS, read from `make -pn check`)
  unit       every other tests/<folder>/test_*.py but the browser's (in-process: lessons, panels, i18n, packaging ...)
  nbval-en   nbval on notebooks/[0-9][0-9]_*.ipynb (each notebook executed once, outputs compared)
  nbval-zh   nbval on notebooks/zh/[0-9][0-9]_*.ipynb
  browser    one row per tests/browser/test_*.py (fuzz deselected, as in make test)
Each row: tests passed/failed/skipped, pytest's own seconds, wall seconds, and the 1-minute load
average before and after (the machine may be shared: compare runs under similar load only). Every
pytest's output, with its `--durations` slowest tests, is kept in --out. No coverage (make test
adds --cov; that costs on top). Set ATTNLAB_TEST_PORTS=LOW-HIGH on a shared machine.
"""
import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/sanitize.cfg"]
GROUPS = ["check", "unit", "nbval-en", "nbval-zh", "browser"]


def check_tests():
    out = subprocess.run(["make", "-s", "-pn", "check"], cwd=ROOT, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("CHECK_TESTS :="):
            return line.split(":=", 1)[1].split()
    raise SystemExit("no CHECK_TESTS in `make -pn check`")


def runs(groups):
    """(row name, pytest arguments) for each group asked for."""
    checks = check_tests()
    for group in groups:
        if group == "check":
            yield "check", ["--hypothesis-profile=check", *checks]
        elif group == "unit":
            rest = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "tests").glob("*/test_*.py"))
                    if p.parent.name != "browser" and str(p.relative_to(ROOT)) not in checks]
            yield "unit (not in check)", rest
        elif group in ("nbval-en", "nbval-zh"):
            folder = ROOT / "notebooks" / ("zh" if group.endswith("zh") else "")
            yield group, [*NBVAL, *[str(p.relative_to(ROOT)) for p in sorted(folder.glob("[0-9][0-9]_*.ipynb"))]]
        elif group == "browser":
            for f in sorted((ROOT / "tests" / "browser").glob("test_*.py")):
                yield f"browser/{f.name}", ["-m", "not fuzz", str(f.relative_to(ROOT))]
        else:
            raise SystemExit(f"--groups: expected some of {GROUPS}, got {group!r}")


def counts(text):
    last = [line for line in text.splitlines() if re.search(r"\b(passed|failed|skipped|deselected|error)", line)]
    summary = last[-1] if last else ""
    found = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|deselected|errors?)", summary)}
    seconds = re.search(r" in ([\d.]+)s", summary)
    return found, float(seconds.group(1)) if seconds else float("nan")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", nargs="+", default=GROUPS)
    ap.add_argument("--durations", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench_tests")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    print(f"{'group':40} {'passed':>7} {'failed':>7} {'skipped':>7} {'pytest s':>9} {'wall s':>8}  load before/after")
    total = 0.0
    for name, extra in runs(args.groups):
        load = os.getloadavg()[0]
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               f"--durations={args.durations}", *extra], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        wall = time.monotonic() - start
        total += wall
        log = args.out / (re.sub(r"[^\w.-]+", "_", name) + ".log")
        log.write_text(done.stdout + done.stderr)
        n, seconds = counts(done.stdout)
        print(f"{name:40} {n.get('passed', 0):7} {n.get('failed', 0) + n.get('error', 0) + n.get('errors', 0):7} "
              f"{n.get('skipped', 0):7} {seconds:9.1f} {wall:8.1f}  {load:.1f}/{os.getloadavg()[0]:.1f}", flush=True)
    print(f"{'all':40} {'':7} {'':7} {'':7} {'':9} {total:8.1f}   logs: {args.out}")


if __name__ == "__main__":
    main()
