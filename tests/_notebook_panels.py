"""Run a notebook's code in this process and hand back its live panels, for benches and tests.

    from _notebook_panels import notebook_panels   # tests/ on sys.path
    for panel in notebook_panels("notebooks/03_multi_head_attention.ipynb"): ...

The cells run in an IPython shell (magics work) with the notebook's folder as working directory;
every ``attnlab.panels.Panel`` built on the way is collected.
"""
import contextlib
import io
import os
from pathlib import Path

import matplotlib
import nbformat
from IPython.core.interactiveshell import InteractiveShell

from attnlab import panels
import notebook_runs


def notebook_panels(path):
    path = Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    notebook_runs.record(path, "in-process")        # counted (make test prints the table)
    made = []
    original = panels.Panel.__init__

    def collecting(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    matplotlib.use("agg")
    shell = InteractiveShell.instance()
    cwd = os.getcwd()
    panels.Panel.__init__ = collecting
    try:
        os.chdir(path.parent)
        with contextlib.redirect_stdout(io.StringIO()):
            for cell in nb.cells:
                if cell.cell_type == "code":   # no GUI here: figures go nowhere, panels still render
                    source = "\n".join(line for line in cell.source.splitlines()
                                       if not line.lstrip().startswith("%matplotlib"))
                    result = shell.run_cell(source, silent=True)
                    if not result.success:
                        raise RuntimeError(f"{path.name}: a cell failed: {result.error_in_exec!r}")
    finally:
        panels.Panel.__init__ = original
        os.chdir(cwd)
    return made
