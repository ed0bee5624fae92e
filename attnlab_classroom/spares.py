"""Page kernels started ahead (attnlab_classroom.kernels; issue 24 item 6), for a server without Voila's
pool (Binder, JupyterHub's servers).

- ``warm_imports``: a kernel the manager starts for a page gets ``--IPKernelApp.exec_lines``
  (``warm_up_line``): a thread of the kernel imports torch, matplotlib and ipywidgets at once, and the
  first cell waits for it (an IPython ``pre_run_cell`` hook), so no cell ever imports alongside it. The
  line is this module's own constant text built from module names (checked); nothing from the request
  or the page goes into it.
- ``spare_kernels``: the warm imports only overlap the page's own loading, so the first live figure still
  waits for a kernel's start and torch's import (~3 s of a 5 s cold page here). A spare kernel is started
  with its warm imports when the server starts; a page takes it instead of starting one (its directory and
  the page's request environment set in it first, as data: ``adopt_line``) and the next spare starts
  ``spare_delay`` seconds later, so it does not compete with the page's first cells. A spare waits outside
  the page rules (no claim time, never culled), counts toward the ceiling and costs one kernel's memory
  while it waits; JupyterLab's kernel list shows it.
"""
import asyncio
import base64
import json
import os
import re

from jupyter_core.utils import ensure_async
from traitlets import Float, Integer, List, TraitError, Unicode, validate
from traitlets.config import LoggingConfigurable

from .memory import memory_available_mb

__all__ = ["SpareKernels", "warm_up_line", "adopt_line", "PREHEAT_ENV"]

# What Voila puts in the environment of a kernel it starts for a page ("False") or for its pool
# ("True"); kernels without it (JupyterLab's, under Binder) are not a dashboard's.
PREHEAT_ENV = "VOILA_PREHEAT"
WARM_THREAD = "attnlab-warm-imports"
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def warm_up_line(modules):
    """The code a page kernel runs at its start (``IPKernelApp.exec_lines``): a daemon thread
    imports ``modules`` in order (a module that fails to import is skipped: the notebook's own
    import then says why), and an IPython ``pre_run_cell`` hook makes the first cell wait for the
    thread, then removes itself. It leaves no name in the learner's namespace.

    ``modules`` must be dotted module names (a ValueError names the one that is not)."""
    if isinstance(modules, str) or not all(isinstance(m, str) for m in modules):
        raise TypeError(f"warm_imports: expected a list of module names, got {modules!r}")
    for name in modules:
        if not _MODULE_NAME.fullmatch(name):
            raise ValueError(f"warm_imports: expected dotted module names such as 'matplotlib.pyplot', got {name!r}")
    return (
        "def _attnlab_warm_up(names=%r):\n"
        "    import importlib, threading\n"
        "    def load():\n"
        "        for name in names:\n"
        "            try:\n"
        "                importlib.import_module(name)\n"
        "            except Exception:\n"
        "                pass\n"
        "    thread = threading.Thread(target=load, name=%r, daemon=True)\n"
        "    thread.start()\n"
        "    shell = get_ipython()\n"
        "    def wait(info):\n"
        "        thread.join()\n"
        "        shell.events.unregister('pre_run_cell', wait)\n"
        "    shell.events.register('pre_run_cell', wait)\n"
        "_attnlab_warm_up()\n"
        "del _attnlab_warm_up\n") % (tuple(modules), WARM_THREAD)


def adopt_line(cwd, env):
    """The code that makes a spare kernel a page's: its working directory ``cwd`` and the variables
    of ``env`` (what Voila puts in a page kernel's environment: the request's path and query, the
    server's address) set as a fresh kernel started for that page would have them. Nothing of the
    request appears in the code: the directory and the variables travel as base64 of their JSON,
    decoded as data in the kernel (no ``repr``: Voila's variable names are str-subclass enums whose
    repr is not a literal, and IPython rewrites some text before Python reads it). It leaves no name
    in the learner's namespace."""
    if not isinstance(cwd, str):
        raise TypeError(f"cwd: expected a directory path (str), got {type(cwd).__name__}")
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise TypeError(f"env: expected a dict of str to str, got {env!r:.80}")
    data = json.dumps([str.__str__(cwd), {str.__str__(k): str.__str__(v) for k, v in env.items()}])
    payload = base64.b64encode(data.encode()).decode("ascii")
    return ("(lambda d: (__import__('os').chdir(d[0]), __import__('os').environ.update(d[1])))"
            "(__import__('json').loads(__import__('base64').b64decode('%s')))\n") % payload


def _started(task):
    """The kernel id a spare's start task gave, or None while it runs or if it failed."""
    return task.result() if task.done() and not task.cancelled() and task.exception() is None else None


class SpareKernels(LoggingConfigurable):
    """The spare-kernel part of ClassroomKernelManager (which inherits it, before jupyter_server's manager):
    its settings and what it does with spares. The ceiling, the page rules and the admission are the
    manager's (kernels.py)."""

    warm_imports = List(Unicode(), ["torch", "matplotlib.pyplot", "ipywidgets"], config=True,
        help="""Modules a page's kernel imports in a thread as soon as it starts, while the page
        loads (the first cell waits for them); [] turns it off. The notebooks' heavy imports: torch
        (~60 % of a cold first figure's wait here), matplotlib.pyplot, ipywidgets.""")


    spare_kernels = Integer(0, config=True, help="""Page kernels kept started ahead, their warm imports
        done, for a server without Voila's pool (Binder and JupyterHub's servers set 1): a page takes one
        instead of starting a kernel. Each costs one kernel's memory while it waits and counts toward the
        ceiling; it is never culled. 0: none (standalone Voila has its preheated pool instead).""")
    spare_delay = Float(10.0, config=True, help="""Seconds after a page took a spare before the next one
        starts: its start and imports (~3 CPU-s) would otherwise compete with the page's first cells.""")

    @validate("warm_imports")
    def _check_warm_imports(self, proposal):
        try:
            warm_up_line(proposal["value"])
        except (TypeError, ValueError) as exc:
            raise TraitError(str(exc)) from None
        return proposal["value"]

    # -- spare kernels (spare_kernels) --------------------------------------------------------
    @property
    def spare_ids(self):
        """The spare kernels started and waiting for a page."""
        waiting = {_started(t) for t in self._spares} - {None}
        return [k for k in self.list_kernel_ids() if k in waiting]

    def _want_spares(self, delay):
        """Start spares (one task at a time, ``delay`` seconds first) when fewer than spare_kernels wait."""
        if self._closing or self.spare_kernels <= 0 or len(self._spares) >= self.spare_kernels:
            return
        if self._filler is None or self._filler.done():
            self._filler = asyncio.ensure_future(self._fill_spares(delay))

    async def _fill_spares(self, delay):
        while len(self._spares) < self.spare_kernels:
            await asyncio.sleep(delay)
            delay = self.spare_delay
            if self._closing or len(self._spares) >= self.spare_kernels:
                return
            held = len(self.list_kernel_ids()) + sum(self._reserved.values()) - self._adopting
            if held >= self.ceiling or memory_available_mb(self.reserve_mb) < self.kernel_mb:
                # tried again when a kernel is shut down (shutdown_kernel)
                self.log.info("attnlab classroom: no spare kernel for now: %d kernels held, ceiling %d", held, self.ceiling)
                return
            task = asyncio.ensure_future(self._start_spare())
            self._spares.append(task)
            try:
                await asyncio.shield(task)      # shutdown_all waits for a starting spare, then shuts it down
            except Exception as exc:  # say so; a page then starts its own kernel
                self.log.warning("attnlab classroom: a spare kernel failed to start: %s", exc)
                if task in self._spares:
                    self._spares.remove(task)
                return

    async def _start_spare(self):
        extra = [f"--IPKernelApp.exec_lines={warm_up_line(self.warm_imports)}"] if self.warm_imports else []
        kernel_id = await super().start_kernel(kernel_name=self.default_kernel_name, extra_arguments=extra,
                                               env={**os.environ, PREHEAT_ENV: "False"})
        self._spare_ids.add(kernel_id)
        self.log.info("attnlab classroom: spare kernel %s started", kernel_id)
        return kernel_id

    def _pick_spare(self, kernel_name):
        """The oldest spare of ``kernel_name`` (started, or still starting), or None; it stays on the
        list until the page is admitted."""
        for task in list(self._spares):
            if task.done():
                kernel_id = _started(task)
                if kernel_id is None or kernel_id not in self:
                    self._spares.remove(task)                  # failed, or shut down meanwhile
                    continue
                if self.get_kernel(kernel_id).kernel_name != kernel_name:
                    continue
            elif kernel_name != self.default_kernel_name:
                continue
            return task
        return None

    async def _adopt_spare(self, task, start):
        """The spare of ``task`` made the page's (``start``: the page's start_kernel keyword
        arguments), or None when it cannot be: the page then starts its own kernel."""
        try:
            kernel_id = await task
        except Exception as exc:  # a spare that failed to start
            self.log.warning("attnlab classroom: a spare kernel failed to start: %s", exc)
            return None
        try:
            await self._adopt(kernel_id, start)
        except Exception as exc:  # dead or unresponsive: drop it
            self.log.warning("attnlab classroom: spare kernel %s not usable (%s): shut down", kernel_id, exc)
            self._spare_ids.discard(kernel_id)
            if kernel_id in self:
                try:
                    await ensure_async(self.shutdown_kernel(kernel_id, now=True))
                except Exception:  # gone already
                    pass
            return None
        self._spare_ids.discard(kernel_id)
        self.log.info("attnlab classroom: a page took spare kernel %s", kernel_id)
        return kernel_id

    async def _adopt(self, kernel_id, start):
        """Give a spare the page's directory and environment (adopt_line) and wait for its reply;
        a restart of the kernel keeps the page's environment (its directory: the server's)."""
        kernel = self.get_kernel(kernel_id)
        if not await ensure_async(kernel.is_alive()):
            raise RuntimeError("the kernel is not alive")
        path = start.get("path")
        cwd = self.cwd_for_path(path) if path is not None else os.getcwd()
        if not os.path.isdir(cwd):
            raise ValueError(f"not a directory: {cwd!r}")
        env = {k: v for k, v in (start.get("env") or {}).items()
               if isinstance(v, str) and os.environ.get(k) != v}
        client = kernel.client()
        client.start_channels(shell=True, iopub=False, stdin=False, hb=False)
        try:
            msg_id = client.execute(adopt_line(cwd, env), silent=True, store_history=False, allow_stdin=False)
            while True:
                reply = await client.get_shell_msg(timeout=60)
                if reply["parent_header"].get("msg_id") == msg_id:
                    break
        finally:
            client.stop_channels()
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{reply['content'].get('ename')}: {reply['content'].get('evalue')}")
        kernel.update_env(env=env)

    def _forget_spare(self, kernel_id):
        """A kernel being shut down is no spare any more (ClassroomKernelManager.shutdown_kernel)."""
        if kernel_id in self._spare_ids:
            self._spare_ids.discard(kernel_id)
            self._spares = [t for t in self._spares if _started(t) != kernel_id]

    async def cull_kernel_if_idle(self, kernel_id):
        """jupyter_server's culler, except for spares (they wait idle by design)."""
        if kernel_id in self._spare_ids:
            return None
        return await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_all(self, *args, **kwargs):
        """Stop making spares, let a starting one finish (it is shut down with the rest), then
        jupyter_server's shutdown of every kernel."""
        self._closing = True
        if self._filler is not None and not self._filler.done():
            self._filler.cancel()
        for task in list(self._spares):
            try:
                await task
            except BaseException:  # failed or cancelled: nothing to shut down
                pass
        self._spares = []
        return await ensure_async(super().shutdown_all(*args, **kwargs))
