"""A pytest plugin: the CPU seconds each test spends (its process's user + system time, and that of child
processes reaped during the test: a kernel nbval or nbconvert started, a subprocess), written as JSON lines to
$CPU_PER_TEST_OUT/<worker>.jsonl, one per test phase. CPU time moves less with the machine's load than wall
time, so files can be compared while other work runs, with one torch thread (OMP_NUM_THREADS=1, as make test
runs): torch's second OpenMP thread spins while it waits, and spins longer on a busy machine.

    PYTHONPATH=bench CPU_PER_TEST_OUT=build/cpu-per-test .venv/bin/python -m pytest -p cpu_per_test ...
    .venv/bin/python bench/cpu_per_test.py build/cpu-per-test [--top 30]     # totals per file, then per test
"""
import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest


def _cpu():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


_out = None


def pytest_configure(config):
    global _out
    folder = Path(os.environ.get("CPU_PER_TEST_OUT", "build/cpu-per-test"))
    folder.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _out = open(folder / f"{worker}.jsonl", "a")


def pytest_unconfigure(config):
    if _out is not None:
        _out.close()


def _timed(item, phase):
    own, kids, wall = *_cpu(), time.time()
    yield
    own2, kids2 = _cpu()
    _out.write(json.dumps({"test": item.nodeid, "phase": phase, "cpu": round(own2 - own, 3),
                           "children": round(kids2 - kids, 3), "wall": round(time.time() - wall, 3)}) + "\n")
    _out.flush()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _timed(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _timed(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from _timed(item, "teardown")


def report(folder, top=30):
    per_file, per_test = defaultdict(float), defaultdict(float)
    for path in Path(folder).glob("*.jsonl"):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            cpu = row["cpu"] + row["children"]
            per_file[row["test"].split("::")[0]] += cpu
            per_test[row["test"]] += cpu
    total = sum(per_file.values())
    print(f"{'CPU s':>8}  file (total {total:.0f} CPU s)")
    for name, cpu in sorted(per_file.items(), key=lambda kv: -kv[1]):
        print(f"{cpu:8.1f}  {name}")
    print(f"\n{'CPU s':>8}  the {top} dearest tests")
    for name, cpu in sorted(per_test.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{cpu:8.1f}  {name}")


if __name__ == "__main__":
    args = sys.argv[1:]
    top = int(args[args.index("--top") + 1]) if "--top" in args else 30
    report(args[0] if args and not args[0].startswith("--") else "build/cpu-per-test", top)
