"""The pinned versions agree everywhere they are written down.

To check another file, add it to PINNED_ELSEWHERE (or write a test calling ``pins``).
"""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PIN = re.compile(r"^\s*(?:-\s+)?([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*==\s*([^\s;#]+)")


def pins(path):
    """{normalised package name: 'name==version' as written} for every `name==version` line in a
    requirements file or in the pip section of an environment.yml; comments and options skipped."""
    found = {}
    for line in (ROOT / path).read_text().splitlines():
        line = line.split("#", 1)[0]
        m = PIN.match(line)
        if m:
            name = re.sub(r"[-_.]+", "-", m.group(1)).lower()
            assert name not in found, f"{path}: {name} pinned twice"
            found[name] = f"{m.group(1)}{m.group(2) or ''}=={m.group(3)}"
    return found


RUNTIME = "requirements.txt"
TEST = "requirements-test.txt"
PINNED_ELSEWHERE = ["environment.yml"]     # files that must repeat every runtime pin identically


def test_parser_reads_both_formats():
    assert PIN.match("torch==2.13.0").group(3) == "2.13.0"
    assert PIN.match("      - torch==2.13.0").group(1) == "torch"
    assert PIN.match("  - python=3.11") is None and PIN.match("--extra-index-url x") is None


def test_runtime_pins_torch_exactly():
    runtime = pins(RUNTIME)
    assert runtime["torch"] == "torch==2.13.0"
    assert len(runtime) >= 5


@pytest.mark.parametrize("other", PINNED_ELSEWHERE)
def test_every_runtime_pin_is_repeated_identically(other):
    runtime, theirs = pins(RUNTIME), pins(other)
    missing = sorted(set(runtime) - set(theirs))
    assert not missing, f"{other}: missing pins for {missing}"
    differ = {n: (runtime[n], theirs[n]) for n in runtime if runtime[n] != theirs[n]}
    assert not differ, f"{other}: pins differ from {RUNTIME}: {differ}"
    assert theirs["torch"] == "torch==2.13.0"


def test_environment_yml_also_holds_every_test_pin():
    """A conda user can run the tests: environment.yml repeats requirements-test.txt too, and
    pins nothing that neither requirements file names."""
    tests, env, runtime = pins(TEST), pins("environment.yml"), pins(RUNTIME)
    assert len(tests) >= 4
    differ = {n: (tests[n], env.get(n)) for n in tests if env.get(n) != tests[n]}
    assert not differ, f"environment.yml: test pins missing or different from {TEST}: {differ}"
    extra = sorted(set(env) - set(tests) - set(runtime))
    assert not extra, f"environment.yml pins packages no requirements file names: {extra}"
    assert not set(tests) & set(runtime), "a package pinned in both requirements files"


def test_environment_yml_uses_conda_forge_and_torch_from_pip():
    text = (ROOT / "environment.yml").read_text()
    assert "conda-forge" in text and "defaults" not in text
    pip_section = text.split("- pip:", 1)[1]
    assert "torch==2.13.0" in pip_section


def test_binder_requirements_repeat_every_runtime_pin_with_cpu_torch():
    """binder/requirements.txt (what repo2docker installs) = requirements.txt, except that torch is
    the same version's CPU build (+cpu) from PyTorch's CPU wheel index."""
    runtime, binder = pins(RUNTIME), pins("binder/requirements.txt")
    assert sorted(binder) == sorted(runtime), f"binder/requirements.txt: {sorted(set(binder) ^ set(runtime))}"
    differ = {n: (runtime[n], binder[n]) for n in runtime if n != "torch" and runtime[n] != binder[n]}
    assert not differ, f"binder/requirements.txt: pins differ from {RUNTIME}: {differ}"
    assert binder["torch"] == runtime["torch"] + "+cpu"
    options = [line.split() for line in (ROOT / "binder/requirements.txt").read_text().splitlines()
               if line.startswith("--")]
    assert ["--extra-index-url", "https://download.pytorch.org/whl/cpu"] in options
