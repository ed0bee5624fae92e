"""Versions and provenance: CHANGELOG.md (newest first, a section for the package's version),
CITATION.cff valid (cffconvert --validate, when `make cffconvert` has installed it) and in step with
the version and the repository address of pyproject.toml."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

import attnlab

ROOT = Path(__file__).resolve().parents[2]
CFFCONVERT = ROOT / "build" / "cffconvert" / "bin" / "cffconvert"


def cffconvert(path):
    exe = CFFCONVERT if CFFCONVERT.exists() else shutil.which("cffconvert")
    if not exe:
        if os.environ.get("CI"):
            pytest.fail("cffconvert is not installed: make cffconvert")
        pytest.skip("cffconvert is not installed: make cffconvert")
    return subprocess.run([str(exe), "--validate", "-i", str(path)], capture_output=True, text=True, timeout=120)


def test_citation_is_valid():
    done = cffconvert(ROOT / "CITATION.cff")
    assert done.returncode == 0 and "valid" in done.stdout, done.stdout + done.stderr[-2000:]


def test_cffconvert_refuses_a_broken_citation(tmp_path):
    broken = tmp_path / "CITATION.cff"
    broken.write_text((ROOT / "CITATION.cff").read_text().replace("license: MIT", "license: MIT AND OFL-1.1")
                      .replace("cff-version: 1.2.0", "cff-version: 1.2.0\nauthor: nobody"))
    done = cffconvert(broken)
    assert done.returncode != 0 and "ValidationError" in done.stdout + done.stderr


def test_citation_follows_the_version_and_the_repository():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert str(cff["version"]) == attnlab.__version__
    url = re.search(r'^Repository = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert cff["repository-code"] == url


def test_changelog_is_newest_first_and_has_this_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    sections = re.findall(r"^## \[([^\]]+)\] - (\S+)", text, re.M)
    assert sections and sections[0][0] == attnlab.__version__, sections
    versions = [tuple(int(x) for x in v.split(".")) for v, _ in sections]
    assert versions == sorted(versions, reverse=True)
    assert all(d == "unreleased" or re.fullmatch(r"\d{4}-\d{2}-\d{2}", d) for _, d in sections)
    assert [d for _, d in sections[1:] if d == "unreleased"] == [], "only the newest can be unreleased"
    assert "### For learners" in text and "### For teachers" in text
