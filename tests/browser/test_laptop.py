"""`make dashboard` on a learner's laptop (issue 41), the real command: the Chinese edition asked for with
ATTNLAB_LANG=zh. Before any page is opened the server holds two kernels, the Chinese index's preheated one
and a spare with its imports done (not one per notebook: 22 of them held 8.8 GiB); the address it prints
opens the Chinese index from the preheated kernel, and a page of the other language takes the spare.
Memory and timings are measured by bench/bench_footprint.py, not here."""
import os
import re
import signal
import subprocess
import time

from dashboard_helpers import (
    NOTEBOOK_DIR,
    ROOT,
    expected_panels,
    free_port,
    kernel_processes,
    voila_env,
    wait_for_panels,
)

RENDER_TIMEOUT = 120_000


class MakeDashboard:
    """`make dashboard` as a learner types it, in a process group of its own."""

    def __init__(self, log_path, *assignments):
        self.port = free_port()
        self.log_path = log_path
        self._log = open(log_path, "w")
        # -o setup: the venv is make test's own, already set up; the recipe is the learner's
        self.proc = subprocess.Popen(["make", "-s", "--no-print-directory", "-o", "setup", "dashboard",
                                      f"PORT={self.port}", *assignments], cwd=ROOT, env=voila_env(),
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
    server = MakeDashboard(tmp_path / "dashboard.log", "ATTNLAB_LANG=zh")
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
        index = NOTEBOOK_DIR / "zh" / "00_index.ipynb"
        wait_for_panels(page, expected_panels(index), RENDER_TIMEOUT, watch, server)
        page.get_by_role("heading", name=re.compile("attnlab：亲手拨动注意力")).first.wait_for(timeout=RENDER_TIMEOUT)
        assert "Using pre-heated kernel" in server.log()

        # A page of the other language takes the spare, whose imports are done.
        lesson = NOTEBOOK_DIR / "02_scoring_functions.ipynb"
        page2, watch2 = new_page()
        page2.goto(f"http://127.0.0.1:{server.port}/voila/render/{lesson.name}", wait_until="commit",
                   timeout=RENDER_TIMEOUT)
        wait_for_panels(page2, expected_panels(lesson), RENDER_TIMEOUT, watch2, server)
        assert "attnlab classroom: a page took spare kernel" in server.log()
        assert not watch.errors and not watch2.errors, (watch.errors, watch2.errors)
        assert not watch.outside and not watch2.outside
    finally:
        server.stop()
