"""A dashboard server a class cannot knock over: kernels belong to pages, a ceiling, a class token.

Voila's settings name the two classes here by dotted name, so every way the project serves
dashboards uses them: ``voila notebooks/`` from the repository root and ``make dashboard`` /
``make lesson`` read ``voila.json``; Binder and JupyterHub's single-user servers read the
``ServerApp.kernel_manager_class`` that ``binder/postBuild`` and ``deploy/jupyterhub/`` write
(there JupyterHub's own login is the token).

``ClassroomKernelManager`` (``VoilaConfiguration.multi_kernel_manager_class`` or
``ServerApp.kernel_manager_class``): a jupyter_server ``AsyncMappingKernelManager`` that

1. **shuts down a page's kernel nobody uses**: a kernel handed to a page (started for it, or taken
   from Voila's preheated pool) whose page has not opened its kernel websocket within
   ``claim_timeout`` seconds of the kernel's last activity (a plain GET, a link preview, a tab
   closed before its scripts ran), or whose last websocket closed ``release_grace`` seconds ago
   (a closed tab whose shutdown beacon never came). Kernels waiting in the pool are never
   touched, nor kernels that are not a Voila page's (JupyterLab's, under Binder);
2. **has a ceiling**: it refuses a page a kernel when the server already holds ``max_kernels``
   (``ATTNLAB_MAX_KERNELS``, ``make lesson MAX_KERNELS=...``; 0: from the memory available at
   start, a cgroup's or JupyterHub's MEM_LIMIT included, divided by ``kernel_mb``, a measured
   kernel's size), when less than ``kernel_mb`` of memory is free now (beyond ``reserve_mb``),
   or when one client already holds ``max_per_client`` page kernels: one browser, where the class link
   gave it an identity (a cookie; a class behind one NAT address is then many clients), else one
   address (loopback clients excepted unless ``limit_loopback``: behind a proxy every learner is
   127.0.0.1). The page then
   says so in the learner's language (HTTP 503, "This lesson is full..."), before anything else
   is sent;
3. **starts a page kernel's imports while the page loads** (``warm_imports``; issue 24 item 6):
   where there is no preheated pool (Binder, JupyterHub, ``preheat_kernel=False``) a page's
   kernel is started when the page is asked for, but its first cell runs only once the page has
   loaded and asked for it, and then spends seconds importing torch and matplotlib. A kernel the
   manager starts for a page gets ``--IPKernelApp.exec_lines`` (``warm_up_line``): a thread of
   the kernel imports those modules at once, and the first cell waits for it (an IPython
   ``pre_run_cell`` hook), so no cell ever imports alongside it. The line is this module's own
   constant text built from ``warm_imports`` (module names, checked); nothing from the request
   or the page goes into it. Kernels of the pool, and kernels that are not a page's, are left as
   they are.
4. **keeps a page kernel started ahead** (``spare_kernels``; issue 24 item 6), where there is no
   pool: the warm imports above only overlap the page's own loading, so the first live figure still
   waits for a kernel's start and torch's import (~3 s of a 5 s cold page here). A spare kernel is
   started with its warm imports when the server starts; a page takes it instead of starting one
   (its directory and the page's request environment are set in it first, as data: ``adopt_line``)
   and the next spare starts ``spare_delay`` seconds later, so it does not compete with the page's
   first cells. A spare waits outside the page rules (no claim time, never culled), counts toward
   the ceiling and costs one kernel's memory while it waits; JupyterLab's kernel list shows it.

``ClassroomIdentityProvider`` (``Voila.identity_provider_class``, standalone Voila): a server that
listens beyond the loopback interface (``--Voila.ip=0.0.0.0``, ``make lesson IP=0.0.0.0``) needs a
class token: ``ATTNLAB_CLASS_TOKEN`` or one generated at start, printed with the address to give
learners (``http://<this machine>:8866/?token=...``). The first page opened with it sets a cookie
for the rest; without it every request is answered 403 with a page saying what to ask the
teacher. Served on 127.0.0.1 (``make dashboard``) it stays open.

Jupyter and Voila are imported here, not by ``import attnlab``: only servers load this module.
"""
import asyncio
import base64
import hmac
import html
import ipaddress
import json
import os
import re
import secrets
import socket
import sys
import time

from jupyter_core.utils import ensure_async
from jupyter_server.auth.identity import PasswordIdentityProvider, User
from jupyter_server.base.call_context import CallContext
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web
from tornado.ioloop import IOLoop, PeriodicCallback
from traitlets import Bool, Enum, Float, Integer, List, TraitError, Unicode, default, validate

from attnlab.i18n import gettext as _, language

__all__ = ["ClassroomKernelManager", "ClassroomIdentityProvider", "page_language", "memory_available_mb",
           "is_loopback", "warm_up_line", "adopt_line", "learner_client", "ReadOnlyContentsManager"]

MAX_KERNELS_ENV = "ATTNLAB_MAX_KERNELS"
MAX_PER_CLIENT_ENV = "ATTNLAB_MAX_PER_CLIENT"
TOKEN_ENV = "ATTNLAB_CLASS_TOKEN"
# What Voila puts in the environment of a kernel it starts for a page ("False") or for its pool
# ("True"); kernels without it (JupyterLab's, under Binder) are not a dashboard's.
PREHEAT_ENV = "VOILA_PREHEAT"


# What a dashboard's page sends its kernel (Voila's own list for standalone Voila, voila/app.py).
DASHBOARD_MESSAGES = ("comm_open", "comm_close", "comm_msg", "comm_info_request", "kernel_info_request",
                      "shutdown_request")

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


def is_loopback(host):
    """True for 127.0.0.0/8, ::1 and 'localhost'."""
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def page_language(handler):
    """The learner's language for a server page: "zh" for a Chinese notebook (a /zh/ path) or a
    browser asking for Chinese first, else "en"."""
    request = getattr(handler, "request", None)
    if request is None:
        return "en"
    if "/zh/" in request.path:
        return "zh"
    accept = request.headers.get("Accept-Language", "")
    first = accept.split(",")[0].strip().lower()
    return "zh" if first.startswith("zh") else "en"


def _page(lang, status, title, lines, link=None):
    with language(lang):
        body = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
        if link:
            body += f'<p><a href="{html.escape(link[0])}">{html.escape(link[1])}</a></p>'
        return ("<!DOCTYPE html>\n"
                f'<html lang="{lang}"><head><meta charset="utf-8">'
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>{html.escape(title)}</title>"
                "<style>body{font-family:system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em;"
                "line-height:1.5;color:#222}h1{font-size:1.4em}</style></head>"
                f'<body class="attnlab-server-page" data-status="{status}"><h1>{html.escape(title)}</h1>{body}</body></html>\n')


def full_page(lang, reason, limit):
    """The page a learner gets when the server will not start another kernel (HTTP 503)."""
    with language(lang):
        if reason == "client":
            title = _("Too many lesson pages open on this computer")
            lines = [_("This computer already has {n} lesson pages open on this server.").format(n=limit),
                     _("Close a lesson tab you no longer need, wait a few seconds, then reload this page.")]
        else:
            title = _("This lesson is full")
            lines = [_("The server is running as many lesson pages as its memory can hold."),
                     _("Wait a minute and reload this page, or tell your teacher.")]
        return _page(lang, 503, title, lines, link=("", _("Reload")))


def forbidden_page(lang):
    """The page a request without the class token gets (HTTP 403)."""
    with language(lang):
        return _page(lang, 403, _("This lesson needs the class link"), [
            _("Open the address your teacher gave you: it ends with ?token= and a code."),
            _("If you typed the address yourself, ask your teacher for the whole link.")])


def _cgroup_mb():
    """(limit, used) of this process's cgroup v2 memory in MB, or None without a limit."""
    try:
        limit = open("/sys/fs/cgroup/memory.max").read().strip()
        if limit == "max":
            return None
        used = int(open("/sys/fs/cgroup/memory.current").read().strip())
        return int(limit) / 2**20, used / 2**20
    except (OSError, ValueError):
        return None


def _server_mb():
    """Memory (RSS, MB) of this server and every process it started (its kernels)."""
    import psutil
    me = psutil.Process()
    total = me.memory_info().rss
    for child in me.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


def memory_available_mb(reserve_mb=0.0):
    """Memory kernels may still use, in MB: the machine's available memory less ``reserve_mb`` (the
    system's share), or what is left under this container's cgroup limit (less 256 MB for the
    server) or under the MEM_LIMIT (bytes) JupyterHub gives this learner's server, if less."""
    import psutil
    available = psutil.virtual_memory().available / 2**20 - reserve_mb
    cgroup = _cgroup_mb()
    if cgroup is not None:
        available = min(available, cgroup[0] - cgroup[1] - min(reserve_mb, 256))
    hub_limit = os.environ.get("MEM_LIMIT")
    if hub_limit and hub_limit.isdigit() and int(hub_limit) > 0:
        available = min(available, int(hub_limit) / 2**20 - _server_mb())
    return available


def _started(task):
    """The kernel id a spare's start task gave, or None while it runs or if it failed."""
    return task.result() if task.done() and not task.cancelled() and task.exception() is None else None


def _handler():
    """The request handler being served in this call (jupyter_server's CallContext), or None."""
    try:
        return CallContext.get(CallContext.JUPYTER_HANDLER)
    except Exception:  # no request in progress
        return None


class ClassroomKernelManager(AsyncMappingKernelManager):
    """Kernels belong to pages; no more kernels than the machine holds (module docstring)."""

    claim_timeout = Float(120.0, config=True, help="""Seconds a kernel handed to a page may stay
        without the page's websocket (counted from its last activity, so a notebook still running
        for its page is not cut short) before it is shut down. Two minutes: a page's scripts (3.6 MB)
        must load before its websocket opens, and 30 learners loading them at once share the room's
        network (7 Mbit/s for 120 s); the 30-learner rehearsal on two cores lost every page with 30 s.
        What a flood of plain GETs can hold meanwhile is bounded by the ceiling and max_per_client.""")
    release_grace = Float(60.0, config=True, help="""Seconds after a page's last kernel websocket
        closed (a tab closed without Voila's shutdown beacon) before its kernel is shut down; a page
        that reconnects within them keeps it. A minute: the page's client retries with a growing
        random backoff (1, 3, 7, 15 s ...), so a network blip of a few seconds can keep the socket
        away for over 15 s (tests/browser/test_kernel_lost.py's dropped connection did, on a busy machine).""")
    check_interval = Float(2.0, config=True, help="Seconds between two looks at the page kernels.")
    max_kernels = Integer(0, config=True, help=f"""At most this many kernels, pool included
        (environment {MAX_KERNELS_ENV}); 0: memory available at start (less reserve_mb) / kernel_mb.""")
    kernel_mb = Float(400.0, config=True, help="""Memory of one lesson kernel in MB: the classroom
        rehearsal (docs/benchmarks.md) measured a median of 263 MB PSS (ten notebooks' imports and figures), 400 leaves
        room for the largest notebooks.""")
    reserve_mb = Float(1024.0, config=True, help="MB of memory never given to kernels (the server, the system).")
    max_per_client = Integer(6, config=True, help=f"""At most this many page kernels per client
        address (environment {MAX_PER_CLIENT_ENV}); 0: no limit.""")
    limit_loopback = Bool(False, config=True, help="""Apply max_per_client to loopback clients too.
        Off by default: behind a proxy (JupyterHub, Binder) every learner comes from the loopback
        address, and a rehearsal runs its browsers here.""")

    refill_pool = Bool(True, config=True, help="""Refill Voila's preheated pool after a page took a
        kernel from it (Voila's way, after its fill_delay). False: each pool is filled once, at start; once
        it is empty a page gets a fresh kernel (Voila's path without a pool, ~6 s on a quiet machine).
        `make lesson` sets False. Voila's fill_delay cannot say this: a refill waiting out its delay is in
        the pool at once, and the next page of that notebook waits on it (4 hours with 14400).""")

    warm_imports = List(Unicode(), ["torch", "matplotlib.pyplot", "ipywidgets"], config=True,
        help="""Modules a page's kernel imports in a thread as soon as it starts, while the page
        loads (the first cell waits for them); [] turns it off. The notebooks' heavy imports: torch
        (~60 % of a cold first figure's wait here), matplotlib.pyplot, ipywidgets.""")

    dashboards_only = Bool(False, config=True, help="""Kernels take only the messages a dashboard's page sends
        (DASHBOARD_MESSAGES: widget messages, kernel info, shutdown), never an execute_request: the hub's
        dashboards mode. (Set here because a list on the command line reached allowed_message_types as one
        string, which blocked every message.)""")

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

    @default("max_kernels")
    def _max_kernels_default(self):
        return int(os.environ.get(MAX_KERNELS_ENV) or 0)

    @default("max_per_client")
    def _max_per_client_default(self):
        return int(os.environ.get(MAX_PER_CLIENT_ENV) or 6)

    def __init__(self, **kwargs):
        self._page_kernels = {}     # kernel_id -> {"client", "handed", "connected", "closed_at"}
        self._reserved = {}         # client -> page kernels being started or handed right now
        self._reaper = None
        self._memory_at_start = None
        self._spares = []           # tasks, each giving a spare kernel's id once it has started; not yet taken
        self._spare_ids = set()     # spares started and not yet a page's (adoption included): never culled
        self._filler = None         # the task starting spares (one at a time), or None
        self._adopting = 0          # spares being made a page's right now (already counted as kernels)
        self._closing = False
        super().__init__(**kwargs)
        if self.dashboards_only:
            self.allowed_message_types = list(DASHBOARD_MESSAGES)
        self._memory_at_start = memory_available_mb(self.reserve_mb)
        self.ceiling = self.max_kernels or max(1, int(self._memory_at_start // self.kernel_mb))
        self.log.info("attnlab classroom: at most %d kernels (%s), %s page kernels per client; a page's "
                      "kernel is shut down %.0f s unclaimed or %.0f s after its page left",
                      self.ceiling, "max_kernels" if self.max_kernels else
                      f"{self._memory_at_start:.0f} MB for kernels, {self.kernel_mb:.0f} MB a kernel",
                      self.max_per_client or "any", self.claim_timeout, self.release_grace)
        # Voila builds its pool manager as a subclass of this class (voila_kernel_manager_factory);
        # its get_rendered_notebook hands a pooled kernel to a page: admit the page first.
        handout = getattr(self, "get_rendered_notebook", None)
        if handout is not None:
            async def get_rendered_notebook(*args, **kw):
                client = self._admit()
                try:
                    result = await handout(*args, **kw)
                    self._claimed_by(result[2], client)
                    return result
                finally:
                    self._release(client)
            self.get_rendered_notebook = get_rendered_notebook
        # The same pool manager fills every pool (delay 0) after this __init__ returns, and asks for a
        # refill (delay None: its fill_delay) each time a page takes a kernel.
        fill = getattr(self, "fill_if_needed", None)
        if fill is not None and not self.refill_pool:
            def fill_if_needed(delay=None, notebook_name=None, **kw):
                if delay == 0:
                    fill(delay=delay, notebook_name=notebook_name, **kw)
            self.fill_if_needed = fill_if_needed
        if self.spare_kernels > 0:
            IOLoop.current().add_callback(self._want_spares, 0.0)

    # -- admission ---------------------------------------------------------------------------
    def _admit(self, spare=False, per_client=True):
        """Let the current page have a kernel, or answer it with the "full" page (503). With
        ``spare`` the page takes a kernel the server already holds: only the per-client limit applies.
        The client is the browser where the class link gave it an identity (``learner_client``), else
        its address."""
        handler = _handler()
        address = getattr(getattr(handler, "request", None), "remote_ip", None)
        client = learner_client(handler)
        reason, limit = None, self.ceiling
        # a page adopting a spare is in _reserved and its kernel is already listed: count it once
        held = len(self.list_kernel_ids()) + sum(self._reserved.values()) - self._adopting
        per_client = per_client and self.max_per_client and address is not None and (
            self.limit_loopback or not is_loopback(address))
        if per_client and (sum(1 for k in self._page_kernels.values() if k["client"] == client)
                           + self._reserved.get(client, 0)) >= self.max_per_client:
            reason, limit = "client", self.max_per_client
        elif not spare and held >= self.ceiling:
            reason = "full"
        elif not spare and memory_available_mb(self.reserve_mb) < self.kernel_mb:
            reason = "memory"
        if reason is not None:
            self.log.warning("attnlab classroom: page refused (%s) for %s: %d kernels held, ceiling %d",
                             reason, client, held, self.ceiling)
            if handler is None:
                raise web.HTTPError(503, "This lesson is full")
            handler.set_status(503)
            handler.set_header("Content-Type", "text/html; charset=UTF-8")
            handler.set_header("Retry-After", "30")
            raise web.Finish(full_page(page_language(handler), reason, limit))
        self._reserved[client] = self._reserved.get(client, 0) + 1
        return client

    def _release(self, client):
        n = self._reserved.get(client, 0) - 1
        if n > 0:
            self._reserved[client] = n
        else:
            self._reserved.pop(client, None)

    def _claimed_by(self, kernel_id, client):
        self._page_kernels[kernel_id] = {"client": client, "handed": time.time(), "connected": False,
                                         "closed_at": None}
        self._start_reaper()

    # -- kernel lifetime ---------------------------------------------------------------------
    async def start_kernel(self, *args, **kwargs):
        preheat = (kwargs.get("env") or {}).get(PREHEAT_ENV)
        if preheat == "True":       # the pool's own (refilled as configured)
            return await super().start_kernel(*args, **kwargs)
        if preheat != "False":      # not a dashboard's (JupyterLab's, a POST to /api/kernels): the ceiling only
            client = self._admit(per_client=False)
            try:
                return await super().start_kernel(*args, **kwargs)
            finally:
                self._release(client)
        task = None if args else self._pick_spare(kwargs.get("kernel_name") or self.default_kernel_name)
        if task is not None:
            client = self._admit(spare=True)        # a 503 here leaves the spare where it was
            self._spares.remove(task)
            self._adopting += 1
            try:
                kernel_id = await self._adopt_spare(task, kwargs)
                if kernel_id is not None:
                    self._claimed_by(kernel_id, client)
                    return kernel_id
            finally:
                self._adopting -= 1
                self._release(client)
                self._want_spares(self.spare_delay)
        client = self._admit()
        if self.warm_imports:
            kwargs["extra_arguments"] = [*(kwargs.get("extra_arguments") or []),
                                         f"--IPKernelApp.exec_lines={warm_up_line(self.warm_imports)}"]
        try:
            kernel_id = await super().start_kernel(*args, **kwargs)
            self._claimed_by(kernel_id, client)
            return kernel_id
        finally:
            self._release(client)

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

    def notify_connect(self, kernel_id):
        super().notify_connect(kernel_id)
        page = self._page_kernels.get(kernel_id)
        if page is not None:
            page["connected"], page["closed_at"] = True, None

    def notify_disconnect(self, kernel_id):
        super().notify_disconnect(kernel_id)
        page = self._page_kernels.get(kernel_id)
        if page is not None and self._kernel_connections.get(kernel_id, 0) <= 0:
            page["closed_at"] = time.time()

    async def shutdown_kernel(self, kernel_id, *args, **kwargs):
        self._page_kernels.pop(kernel_id, None)
        if kernel_id in self._spare_ids:
            self._spare_ids.discard(kernel_id)
            self._spares = [t for t in self._spares if _started(t) != kernel_id]
        try:
            return await ensure_async(super().shutdown_kernel(kernel_id, *args, **kwargs))
        finally:
            self._want_spares(self.spare_delay)    # a spare gone, or room under the ceiling again

    def _start_reaper(self):
        if self._reaper is None:
            self._reaper = PeriodicCallback(self._reap, self.check_interval * 1000)
            self._reaper.start()

    def unclaimed(self, now=None):
        """The page kernels to shut down now, as (kernel_id, why)."""
        now = time.time() if now is None else now
        found = []
        for kernel_id, page in list(self._page_kernels.items()):
            if kernel_id not in self:
                self._page_kernels.pop(kernel_id, None)
                continue
            if self._kernel_connections.get(kernel_id, 0) > 0:
                continue
            if page["connected"]:
                closed = page["closed_at"] if page["closed_at"] is not None else now
                page["closed_at"] = closed
                if now - closed >= self.release_grace:
                    found.append((kernel_id, f"its page left {now - closed:.0f} s ago"))
                continue
            kernel = self.get_kernel(kernel_id)
            if getattr(kernel, "execution_state", None) == "busy":
                continue
            activity = getattr(kernel, "last_activity", None)
            since = max(page["handed"], activity.timestamp() if activity is not None else 0)
            if now - since >= self.claim_timeout:
                found.append((kernel_id, f"no page connected within {self.claim_timeout:.0f} s"))
        return found

    async def _reap(self):
        for kernel_id, why in self.unclaimed():
            self.log.info("attnlab classroom: shutting down kernel %s: %s", kernel_id, why)
            try:
                await self.shutdown_kernel(kernel_id)
            except Exception as exc:  # already gone; keep reaping the others
                self.log.warning("attnlab classroom: could not shut down %s: %s", kernel_id, exc)
                self._page_kernels.pop(kernel_id, None)


LEARNER_COOKIE = "attnlab-learner"


def _same(given, expected):
    """A constant-time comparison of two texts, whatever characters ``given`` holds (hmac.compare_digest
    refuses non-ASCII str: a token typed with one would have been a 500)."""
    return hmac.compare_digest(str(given).encode("utf-8", "surrogatepass"), expected.encode())


def learner_client(handler):
    """Whom a page's kernels count against for ``max_per_client``: ``"<address> <browser id>"`` when the
    request came with the identity ClassroomIdentityProvider gave this browser with the class link (a
    class behind one NAT address is then 30 browsers, not one client), else the address alone (plain
    GETs without cookies, a server without a class token), and so is the request that got its identity
    (the class link printed at start opens the notebook list, which starts no kernel). None without a request."""
    address = getattr(getattr(handler, "request", None), "remote_ip", None)
    browser = getattr(handler, "attnlab_learner", None)
    if getattr(handler, "attnlab_learner_new", False):
        return address          # an identity made on this very request (a script that drops cookies gets one each time)
    return f"{address} {browser}" if address is not None and browser else address


class ReadOnlyContentsManager(AsyncLargeFileManager):
    """Files a learner can open but not change (the hub's dashboards mode, deploy/jupyterhub/): every
    save, rename, delete, new file, copy and checkpoint answers 403, so no notebook a learner writes can
    be rendered by Voila and no module a learner writes can be imported by a kernel."""

    def _refuse(self, *args, **kwargs):
        raise web.HTTPError(403, "Read-only: this class serves the dashboards only")

    save = delete_file = rename_file = create_checkpoint = restore_checkpoint = delete_checkpoint = _refuse

    async def new(self, *args, **kwargs):
        self._refuse()

    async def new_untitled(self, *args, **kwargs):
        self._refuse()

    async def copy(self, *args, **kwargs):
        self._refuse()


def _lan_address():
    """This machine's address on its network (no packet is sent), or its host name."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
    except OSError:
        return socket.gethostname()


class ClassroomIdentityProvider(PasswordIdentityProvider):
    """A class token for a server that listens beyond localhost (module docstring)."""

    class_token = Unicode("", config=True, help=f"""The class token (environment {TOKEN_ENV}); empty:
        generated at start when one is required.""")
    require_token = Enum(["auto", "yes", "no"], "auto", config=True, help="""auto: required when the
        server listens on an address other than the loopback one (Voila.ip).""")
    cookie = "attnlab-class"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._browser_key = secrets.token_bytes(32)      # signs browsers' identities (this server's run only)
        app = self.parent
        ip = getattr(app, "ip", "127.0.0.1") or "0.0.0.0"
        self.required = self.require_token == "yes" or (self.require_token == "auto" and not is_loopback(ip))
        if self.required:
            self.class_token = self.class_token or os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(9)
            host = _lan_address() if ip in ("0.0.0.0", "::", "") else ip
            base = getattr(app, "base_url", "/") or "/"
            url = f"http://{host}:{getattr(app, 'port', 8866)}{base}?token={self.class_token}"
            banner = (f"\n    Give learners this address (the class token is required from other computers):\n"
                      f"        {url}\n")
            print(banner, file=sys.stderr, flush=True)
            self.log.info("attnlab classroom: class token required; learners open %s", url)

    def _digest(self):
        return hmac.new(self.class_token.encode(), b"attnlab-class", "sha256").hexdigest()

    def _sign(self, browser):
        return hmac.new(self._browser_key, browser.encode(), "sha256").hexdigest()[:32]

    def _identify(self, handler):
        """Give the browser that came with the class link (or its cookie) an identity of its own, kept in a
        signed cookie (a new one if it has none, or one this server did not sign), for ClassroomKernelManager's
        per-client limit (learner_client). A browser can drop its cookie and come back as another learner;
        the kernel ceiling bounds what that can take."""
        value = handler.get_cookie(LEARNER_COOKIE) or ""
        browser, _, signature = value.partition(".")
        handler.attnlab_learner_new = not (browser and signature and _same(signature, self._sign(browser)))
        if handler.attnlab_learner_new:
            browser = secrets.token_urlsafe(12)
            handler.set_cookie(LEARNER_COOKIE, f"{browser}.{self._sign(browser)}",
                               path=getattr(handler, "base_url", "/") or "/", httponly=True, samesite="Lax")
        handler.attnlab_learner = browser

    def get_user(self, handler):
        if not self.required:
            return super().get_user(handler)
        given = handler.get_argument("token", None) if handler.request.method in ("GET", "HEAD") else None
        auth = handler.request.headers.get("Authorization", "")
        if given is None and auth.lower().startswith("token "):
            given = auth[6:].strip()
        if given is not None and _same(given, self.class_token):
            handler.set_cookie(self.cookie, self._digest(), path=getattr(handler, "base_url", "/") or "/",
                               httponly=True, samesite="Lax")
            self._identify(handler)
            return User("learner")
        cookie = handler.get_cookie(self.cookie)
        if cookie is not None and _same(cookie, self._digest()):
            self._identify(handler)
            return User("learner")
        handler.set_status(403)
        handler.set_header("Content-Type", "text/html; charset=UTF-8")
        raise web.Finish(forbidden_page(page_language(handler)))
