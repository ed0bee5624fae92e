"""The class load generator (bench/load/: Locust's simulated learners speaking Voila's protocol) against a real
Voila server with the classroom kernel manager, as `make lesson` serves (a pool of page kernels that have run
the notebook, voila.json's settings): two learners each get the live figure, move sliders, and leave no kernel
behind. A smoke test: what it measures is bench/load/run.py's (docs/benchmarks.md); nothing here is timed.

The notebook is a tiny one with lesson 02's real Play panel (dashboard_helpers.LESSON_PANEL): this tests the
load generator and the server, not a lesson (tests/notebook_runs.py).
"""
import csv
import json
import subprocess
import sys

from dashboard_helpers import LESSON_PANEL, ROOT, VoilaServer, kernel_processes, settle, write_tiny_notebooks

LOAD = ROOT / "bench" / "load"


def test_two_simulated_learners_each_get_a_figure_move_sliders_and_leave_no_kernel(tmp_path):
    notebooks = write_tiny_notebooks(tmp_path / "notebooks", LESSON_PANEL, "lesson.ipynb")
    pools = json.dumps({"lesson.ipynb": {"pool_size": 2}, "default": {"pool_size": 0}})
    server = VoilaServer(notebooks, tmp_path / "voila.log", [f"--VoilaKernelManager.kernel_pools_config={pools}",
                                                            "--ClassroomKernelManager.refill_pool=False",
                                                            "--ClassroomKernelManager.spare_kernels=0"])
    try:
        settle(server, min_kernels=2, timeout=600)          # the pool has run the notebook
        events = tmp_path / "events.csv"
        run = subprocess.run([sys.executable, "-m", "locust", "-f", str(LOAD / "locustfile.py"), "--headless",
                              "--host", server.url, "-u", "2", "-r", "2", "-t", "900s", "--stop-timeout", "120",
                              "--mode", "lesson", "--notebook", "lesson.ipynb", "--work-seconds", "8",
                              "--move-wait", "0.5,1.5", "--events-out", str(events), "--only-summary"],
                             cwd=LOAD, capture_output=True, text=True, timeout=900)
        rows = list(csv.DictReader(open(events))) if events.exists() else []
        said = run.stdout[-3000:] + run.stderr[-3000:]
        figures = [r for r in rows if r["name"] == "first figure"]
        assert len(figures) == 2 and not any(r["error"] for r in figures), (figures, said)
        moves = [r for r in rows if r["name"] == "slider move"]
        assert moves and not any(r["error"] for r in moves), (moves, said)
        gone = [r for r in rows if r["name"] == "kernel gone"]
        assert len(gone) == 2 and not any(r["error"] for r in gone), (gone, said)
        assert kernel_processes(server.proc.pid) == [], "a learner's kernel outlived their page"
    finally:
        server.stop()
