"""`make dashboard` on a learner's laptop (issue 41), the real command: the Chinese edition asked for with
ATTNLAB_LANG=zh. Before any page is opened the server holds two kernels, the Chinese index's preheated one
and a spare with its imports done (not one per notebook: 22 of them held 8.8 GiB); the address it prints
opens the Chinese index from the preheated kernel, and a page of the other language takes the spare.
Memory and timings are measured by bench/bench_footprint.py, not here.

What is served is a folder laid out as notebooks/ (DASHBOARD_DIR) of tiny notebooks: the index's is
the real index's Play cell (its panel says in Chinese what the stored Chinese index says), the page of
the other language holds lesson 02's Play panel. This tests the command and its server, not the
lessons: every lesson notebook's page is test_dashboards.py's (tests/notebook_runs.py counts)."""
import json
import os
import re
import signal
import subprocess
import time

from dashboard_helpers import (
    LESSON_PANEL,
    ROOT,
    free_port,
    kernel_processes,
    voila_env,
    wait_for_panels,
    write_tiny_notebooks,
)

RENDER_TIMEOUT = 120_000
INDEX = ROOT / "notebooks" / "zh" / "00_index.ipynb"


def play_cell(path):
    """The Play cell of a stored notebook (its code) and its stored text/plain (the panel's text form)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and "lesson.play(" in source:
            text = "".join("".join(o.get("data", {}).get("text/plain", "")) for o in cell["outputs"])
            return source, text
    raise AssertionError(f"no Play cell in {path}")


class MakeDashboard:
    """`make dashboard` as a learner types it, in a process group of its own."""

    def __init__(self, log_path, *assignments, folder=None):
        self.port = free_port()
        self.log_path = log_path
        self._log = open(log_path, "w")
        # -o setup: the venv is make test's own, already set up; the recipe is the learner's
        self.proc = subprocess.Popen(["make", "-s", "--no-print-directory", "-o", "setup", "dashboard",
                                      f"PORT={self.port}", *([f"DASHBOARD_DIR={folder}"] if folder else []),
                                      *assignments], cwd=ROOT, env=voila_env(),
                                     stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)

    def log(self):
        return self.log_path.read_text(errors="replace")

    def kernels(self):
        return kernel_processes(self.proc.pid)

    def wait_for(self, pattern, timeout=240):
        deadline = time.time() + timeout
        while not re.search(pattern, self.log()):
            assert self.proc.poll() is None, f"make dashboard stopped:\n{self.log()[-3000:]}"
            assert time.time() < deadline, f"not in the log within {timeout} s: {pattern}\n{self.log()[-3000:]}"
            time.sleep(0.5)
        return re.search(pattern, self.log())

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._log.close()


def test_make_dashboard_in_chinese_holds_two_kernels_and_opens_the_chinese_index(new_page, tmp_path):
    play, stored = play_cell(INDEX)
    folder = tmp_path / "notebooks"
    write_tiny_notebooks(folder, "from attnlab.lessons import nb00_index as lesson\n" + play, "00_index.ipynb")
    write_tiny_notebooks(folder, LESSON_PANEL, "lesson.ipynb")
    server = MakeDashboard(tmp_path / "dashboard.log", "ATTNLAB_LANG=zh", folder=folder)
    try:
        address = server.wait_for(r"open (http://127\.0\.0\.1:\d+/voila/render/\S+)").group(1)
        assert address.endswith("/voila/render/zh/00_index.ipynb")
        server.wait_for(r"Kernel pool of zh/00_index\.ipynb is filled with 1 kernel")
        server.wait_for(r"attnlab classroom: spare kernel \S+ started")
        time.sleep(2)                                     # nothing else starts
        assert len(server.kernels()) == 2, server.log()[-3000:]
        assert "Kernel pool of 00_index.ipynb" not in server.log()   # the English index is not preheated

        # The address printed opens the Chinese index, from its preheated kernel.
        page, watch = new_page()
        page.goto(address, wait_until="commit", timeout=RENDER_TIMEOUT)
        wait_for_panels(page, 1, RENDER_TIMEOUT, watch, server)
        weights = stored.splitlines()[-1].split("（")[0].strip()        # 权重：0.090, 0.245, 0.665
        assert "权重" in weights
        page.get_by_text(weights).first.wait_for(timeout=RENDER_TIMEOUT)   # the panel speaks Chinese
        assert "Using pre-heated kernel" in server.log()

        # A page of the other language takes the spare, whose imports are done.
        page2, watch2 = new_page()
        page2.goto(f"http://127.0.0.1:{server.port}/voila/render/lesson.ipynb", wait_until="commit", timeout=RENDER_TIMEOUT)
        wait_for_panels(page2, 1, RENDER_TIMEOUT, watch2, server)
        assert "attnlab classroom: a page took spare kernel" in server.log()
        assert not watch.errors and not watch2.errors, (watch.errors, watch2.errors)
        assert not watch.outside and not watch2.outside
    finally:
        server.stop()
