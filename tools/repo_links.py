"""The repository's address, read from ONE place: pyproject.toml's [project.urls] Repository
(and [tool.attnlab] default-branch). The README badges, the notebooks' Colab links and install
cell (tools/notebook_links.py) and the static site (tools/build_site.py) all build their links here.

A fork changes those two lines in pyproject.toml and runs `python tools/notebook_links.py`
(rewrites the notebooks' link cells and the README badges); `make site` picks it up by itself.
"""
import re
import tomllib
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
GITHUB = re.compile(r"^https://github\.com/([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+?)(?:\.git)?/?$")


class Repo:
    def __init__(self, url, branch="main"):
        m = GITHUB.match(url)
        if not m:
            raise ValueError(f"pyproject.toml [project.urls] Repository: expected "
                             f"'https://github.com/<owner>/<name>', got {url!r}")
        if not re.fullmatch(r"[A-Za-z0-9._/-]+", branch):
            raise ValueError(f"pyproject.toml [tool.attnlab] default-branch: expected a branch name, got {branch!r}")
        self.url, self.owner, self.name, self.branch = url.rstrip("/"), m.group(1), m.group(2), branch

    @property
    def slug(self):
        return f"{self.owner}/{self.name}"

    def binder_lab(self, notebook="00_index.ipynb"):
        return (f"https://mybinder.org/v2/gh/{self.slug}/HEAD?urlpath="
                + quote(f"lab/tree/notebooks/{notebook}", safe=""))

    def binder_voila(self, notebook="00_index.ipynb"):
        return (f"https://mybinder.org/v2/gh/{self.slug}/HEAD?urlpath="
                + quote(f"voila/render/notebooks/{notebook}", safe=""))

    def colab(self, notebook="00_index.ipynb"):
        return f"https://colab.research.google.com/github/{self.slug}/blob/{self.branch}/notebooks/{notebook}"

    def ci(self):
        """The CI workflow's page (.github/workflows/ci.yml); its badge is that address + /badge.svg."""
        return f"{self.url}/actions/workflows/ci.yml"

    def source(self, notebook):
        return f"{self.url}/blob/{self.branch}/notebooks/{notebook}"

    def pip_spec(self, version=None):
        """What `pip install` takes: ``attnlab==version`` for a released version (from PyPI, by name),
        else the package from the repository's default branch."""
        if version is not None:
            return f"attnlab=={version}"
        return f"attnlab @ git+{self.url}@{self.branch}"


VERSION = re.compile(r'^__version__ = "([^"]+)"$', re.M)
HEADING = re.compile(r"^## \[([^\]]+)\] - (.+?)\s*$", re.M)


def version(init=ROOT / "attnlab" / "__init__.py"):
    """attnlab.__version__, read from the one place it is written (without importing the package)."""
    m = VERSION.search(Path(init).read_text(encoding="utf-8"))
    if not m:
        raise ValueError(f"{init}: expected a line __version__ = \"X.Y.Z\"")
    return m.group(1)


def released(v, changelog=ROOT / "CHANGELOG.md"):
    """True when CHANGELOG.md's section for version ``v`` carries a date (## [v] - YYYY-MM-DD), False
    when it says unreleased; a version without a section is refused."""
    dates = {m.group(1): m.group(2) for m in HEADING.finditer(Path(changelog).read_text(encoding="utf-8"))}
    if v not in dates:
        raise ValueError(f"{changelog}: expected a section '## [{v}] - YYYY-MM-DD' or '## [{v}] - unreleased', "
                         f"got sections for {sorted(dates)}")
    if dates[v] == "unreleased":
        return False
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", dates[v]):
        raise ValueError(f"{changelog}: [{v}]: expected a date YYYY-MM-DD or 'unreleased', got {dates[v]!r}")
    return True


def repo(pyproject=ROOT / "pyproject.toml"):
    data = tomllib.loads(Path(pyproject).read_text())
    urls = data.get("project", {}).get("urls", {})
    if "Repository" not in urls:
        raise ValueError(f"{pyproject}: expected [project.urls] Repository = 'https://github.com/<owner>/<name>'")
    branch = data.get("tool", {}).get("attnlab", {}).get("default-branch", "main")
    return Repo(urls["Repository"], branch)
