"""Kernel memory, for sizing Binder (mybinder.org gives 1-2 GB per user) and classrooms.

    .venv/bin/python bench/bench_memory.py

1. One kernel runs every notebook (found: notebooks/*.ipynb) one after another, as a learner in
   JupyterLab who keeps one kernel: its RSS and PSS at the end.
2. One kernel per notebook, as Voila runs them: each kernel's RSS and PSS, and the sum of RSS
   (an upper bound for a learner with every dashboard open at once).
"""
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from dashboard_helpers import NOTEBOOKS

MEASURE = ("import psutil\nm = psutil.Process().memory_full_info()\n"
           "print('ATTNLAB_MEM', m.rss / 2**20, m.pss / 2**20)")


def execute(nb, folder):
    """Run a notebook in a fresh kernel; its memory (RSS, PSS in MB) as the last cell saw it."""
    nb.cells.append(nbformat.v4.new_code_cell(MEASURE))
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    for out in nb.cells[-1].outputs:
        if "ATTNLAB_MEM" in out.get("text", ""):
            _, rss, pss = out["text"].split()
            return float(rss), float(pss)
    raise RuntimeError("no memory line")


def main():
    folder = NOTEBOOKS[0].parent
    # 1. one kernel, every notebook's cells in turn
    combined = nbformat.v4.new_notebook()
    for p in NOTEBOOKS:
        combined.cells += [c for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code"]
    rss, pss = execute(combined, folder)
    print(f"one kernel after all {len(NOTEBOOKS)} notebooks: RSS {rss:.0f} MB, PSS {pss:.0f} MB", flush=True)
    # 2. a kernel per notebook
    each = []
    for p in NOTEBOOKS:
        rss, pss = execute(nbformat.read(p, as_version=4), folder)
        each.append((p.name, rss, pss))
        print(f"  {p.name:40s} RSS {rss:5.0f} MB  PSS {pss:5.0f} MB", flush=True)
    print(f"a kernel per notebook: RSS median {sorted(x[1] for x in each)[len(each) // 2]:.0f} MB, "
          f"max {max(x[1] for x in each):.0f} MB; all {len(each)} open at once: at most "
          f"{sum(x[1] for x in each):.0f} MB (sum of RSS; shared libraries make it less)")


if __name__ == "__main__":
    main()
