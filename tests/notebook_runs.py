"""Counts every execution of a notebook during the tests, per notebook file, across processes.

Each process that executes a notebook appends one line per execution to a file of its own,
``build/notebook-runs/<label>-<pid>.jsonl`` (``ATTNLAB_NOTEBOOK_RUNS`` names another folder), at the
place where the execution starts:

    nbval      root conftest.py: nbval's kernel for one notebook file (IPyNbFile.setup)
    in-process tests/_notebook_panels.py: a notebook's cells run in this process
    voila      a Voila page render or a preheated kernel running the notebook, counted inside the
               Voila / Jupyter server process (patch_voila(), loaded by the config files in
               tests/browser/notebook_runs_config/, which voila_env() puts on JUPYTER_CONFIG_PATH)
    hub-page   a page a test opens on a JupyterHub learner's server (those servers run as other Unix
               users, so the test process counts the page it opens)

``make test`` empties the folder first and prints the table last:

    python -m tests.notebook_runs report [--max N]     # --max: exit 1 when a notebook ran more often

A notebook is named by its path in the repository (notebooks/zh/02_...ipynb); a copy served from a
temporary folder is named by the repository notebook with the same bytes; anything else (the tests'
own tiny notebooks) by "other: <name>".
"""
import argparse
import hashlib
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("nbval", "in-process", "voila", "hub-page")


def folder():
    return Path(os.environ.get("ATTNLAB_NOTEBOOK_RUNS") or ROOT / "build" / "notebook-runs")


_PROCESS = []     # patch_voila() names its process "server"


def _label():
    if _PROCESS:
        return _PROCESS[0]
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        return worker
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40] or "python"


_BY_HASH = {}


def notebook_name(path):
    """The notebook's name in the table: its path in the repository, or the repository notebook with
    the same bytes (a copy in a temporary folder), or 'other: <file name>'."""
    path = Path(path).resolve()
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        pass
    if not _BY_HASH:
        for nb in (ROOT / "notebooks").rglob("*.ipynb"):
            if ".ipynb_checkpoints" not in nb.parts:
                _BY_HASH[hashlib.sha256(nb.read_bytes()).hexdigest()] = nb.relative_to(ROOT).as_posix()
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = None
    return _BY_HASH.get(digest) or f"other: {path.name}"


def record(path, kind, name=None):
    """Count one execution of the notebook at ``path`` (or named ``name``) by ``kind``."""
    if kind not in KINDS:
        raise ValueError(f"record: kind must be one of {KINDS}, got {kind!r}")
    out = folder()
    out.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"notebook": name or notebook_name(path), "kind": kind}) + "\n"
    with open(out / f"{_label()}-{os.getpid()}.jsonl", "a", encoding="utf-8") as f:
        f.write(line)                       # one short append per execution: whole lines, even with threads


def counts(where=None):
    """{notebook: {kind: executions}} from every process's file under ``where``."""
    table = defaultdict(lambda: defaultdict(int))
    for file in sorted(Path(where or folder()).glob("*.jsonl")):
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                table[row["notebook"]][row["kind"]] += 1
    return {nb: dict(kinds) for nb, kinds in table.items()}


def table(found, most=None):
    """The count as text, one row per notebook (repository notebooks first), a total last; rows over
    ``most`` marked."""
    names = sorted(found, key=lambda n: (n.startswith("other: "), n))
    width = max([len(n) for n in names] + [len("notebook")])
    lines = [f"{'notebook':<{width}} " + " ".join(f"{k:>10}" for k in KINDS) + f" {'total':>6}"]
    for name in names:
        total = sum(found[name].values())
        over = most is not None and not name.startswith("other: ") and total > most
        lines.append(f"{name:<{width}} " + " ".join(f"{found[name].get(k, 0):>10}" for k in KINDS)
                     + f" {total:>6}" + ("  > %d" % most if over else ""))
    ours = [n for n in names if not n.startswith("other: ")]
    lines.append(f"notebook executions: {sum(sum(found[n].values()) for n in ours)} of {len(ours)} notebooks"
                 f" (most {max([sum(found[n].values()) for n in ours], default=0)} for one), "
                 f"{sum(sum(found[n].values()) for n in names if n not in ours)} of the tests' own notebooks")
    return "\n".join(lines)


def over(found, most):
    return sorted(n for n in found if not n.startswith("other: ") and sum(found[n].values()) > most)


def patch_voila():
    """In a Voila or Jupyter server process: count each notebook execution where Voila starts it (a page
    render or a pool's preheat: NotebookRenderer's cell generator; progressive rendering: the execution
    websocket's 'execute')."""
    from voila.notebook_renderer import NotebookRenderer
    if getattr(NotebookRenderer, "_attnlab_counted", False):
        return
    NotebookRenderer._attnlab_counted = True
    _PROCESS.append("server")
    paths = {}
    initialize, cells, execute = (NotebookRenderer.initialize, NotebookRenderer._jinja_cell_generator,
                                  NotebookRenderer._jinja_notebook_execute)

    def where(self):                     # notebook_path is relative to the contents manager's root_dir
        root = getattr(getattr(self, "contents_manager", None), "root_dir", None) or "."
        return Path(root) / self.notebook_path

    async def counted_initialize(self, **kwargs):
        await initialize(self, **kwargs)
        paths[id(self.notebook)] = where(self)

    async def counted_cells(self, nb, kernel_id):
        record(where(self), "voila")
        async for cell in cells(self, nb, kernel_id):
            yield cell

    async def counted_execute(self, nb, kernel_id):
        if not self.voila_configuration.progressive_rendering:     # otherwise it only clears outputs
            record(where(self), "voila")
        return await execute(self, nb, kernel_id)

    NotebookRenderer.initialize = counted_initialize
    NotebookRenderer._jinja_cell_generator = counted_cells
    NotebookRenderer._jinja_notebook_execute = counted_execute
    try:
        from voila.tornado.execution_request_handler import ExecutionRequestHandler
    except ImportError:
        return
    on_message = ExecutionRequestHandler.on_message

    async def counted_on_message(self, message_str):
        try:
            message = json.loads(message_str)
        except (TypeError, ValueError):
            message = {}
        if isinstance(message, dict) and message.get("action") == "execute":
            data = self._execution_data.get(getattr(self, "_kernel_id", None))
            if data is not None:
                path = paths.get(id(data["nb"]))
                record(path, "voila", name=None if path else "other: (unknown, progressive)")
        return await on_message(self, message_str)

    ExecutionRequestHandler.on_message = counted_on_message


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.notebook_runs", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="print the count table")
    rep.add_argument("--max", type=int, default=None, help="exit 1 when a repository notebook ran more often")
    sub.add_parser("clear", help="remove the counts")
    args = parser.parse_args(argv)
    if args.command == "clear":
        for file in folder().glob("*.jsonl"):
            file.unlink()
        return 0
    found = counts()
    print(f"Notebook executions in these tests ({folder()}):")
    print(table(found, args.max))
    if args.max is not None and over(found, args.max):
        print(f"more than {args.max} executions: {', '.join(over(found, args.max))}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
