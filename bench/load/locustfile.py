"""Simulated learners for `make lesson` and `make hub`, speaking the dashboards' protocol (not a browser):
Locust (https://locust.io) runs them. bench/load/run.py starts a server and Locust with these options;
`make load` runs that. By hand, against a server already running:

    .venv/bin/locust -f bench/load/locustfile.py --host http://127.0.0.1:8866 --mode lesson \
        --notebook 01_kernel_regression.ipynb        # Locust's web UI on http://127.0.0.1:8089

One learner: arrives (lesson: the class link, then the lesson's page; hub: the login form, their own
server's index dashboard, then the lesson's page), opens the page's websockets as its JavaScript does
(bench/load/voila_protocol.py), waits for the live figure, moves a slider of the panel every 2-5 s
(--move-wait) for --work-seconds, timing each move until the reply carrying the new figure, then leaves
as a tab closes and checks that the server shut the page's kernel down. What Locust reports, by name:

    page <notebook>           the HTTP answer (503 "full" or 403: a failure saying so)
    first figure              arrival (the first request) -> the lesson panel's figure received
    slider move               comm_msg sent -> the Image update with the new PNG received
    kernel gone               tab closed -> GET api/kernels/<id> answers 404
    hub login -> server       (hub) login posted -> own server's index page answered
    index figure              (hub) the index dashboard's figure, on the way to the lesson
"""
import itertools
import random
import time
import uuid
from urllib.parse import urlsplit

import gevent
import gevent.queue
import voila_protocol as vp
import websocket
from locust import HttpUser, constant, events, task
from locust.exception import StopUser

_learners = itertools.count(1)


@events.init_command_line_parser.add_listener
def _options(parser):
    parser.add_argument("--mode", choices=["lesson", "hub"], default="lesson", help="make lesson's server or make hub's")
    parser.add_argument("--notebook", default="01_kernel_regression.ipynb", help="the lesson, under notebooks/")
    parser.add_argument("--class-token", default="", help="lesson: the class token (make lesson IP=0.0.0.0 prints it)")
    parser.add_argument("--hub-password", default="", help="hub: the class password")
    parser.add_argument("--learner-tag", default="", help="hub: appended to every learner's name")
    parser.add_argument("--work-seconds", type=float, default=60.0, help="how long each learner moves sliders")
    parser.add_argument("--move-wait", default="2,5", help="seconds between a learner's moves: low,high")
    parser.add_argument("--figure-timeout", type=float, default=300.0, help="seconds a learner waits for a figure")
    parser.add_argument("--assets", default="yes", choices=["yes", "no"], help="fetch each page's scripts and styles")
    parser.add_argument("--events-out", default="", help="a CSV of every timed event (exact percentiles: run.py)")


@events.test_start.add_listener
def _quit_when_every_learner_has_left(environment, **kw):
    """Each learner runs once; a headless run ends when all have arrived and left (not at --run-time)."""
    import gevent

    def watch():
        while True:
            gevent.sleep(1)
            runner = environment.runner
            if runner.state == "stopped" or runner.state == "stopping":
                return
            if runner.spawning_greenlet is not None and not runner.spawning_greenlet.dead:
                continue
            if runner.user_count == 0:
                runner.quit()
                return
    if environment.parsed_options.headless:
        gevent.spawn(watch)


@events.test_start.add_listener
def _events_file(environment, **kw):
    path = environment.parsed_options.events_out
    if not path:
        return
    out = open(path, "w", buffering=1)
    out.write("t,type,name,ms,error\n")

    def record(request_type, name, response_time, exception=None, **kw):
        error = "" if exception is None else str(exception).replace(",", ";").replace("\n", " ")[:200]
        out.write(f"{time.time():.3f},{request_type},{name},{response_time:.1f},{error}\n")
    environment.events.request.add_listener(record)


def _fire(env, kind, name, started, error=None, length=0):
    env.events.request.fire(request_type=kind, name=name, response_time=(time.perf_counter() - started) * 1000,
                            response_length=length, exception=error, context={})


class PageFailed(Exception):
    pass


class Page:
    """One dashboard page's connections: its channels websocket and what its widgets hold."""

    def __init__(self, learner, base, html):
        self.learner, self.base = learner, base
        self.config = vp.page_config(html)
        if not self.config or not self.config.get("kernelId"):
            raise PageFailed("the page names no kernel")
        self.kernel = self.config["kernelId"]
        self.session = uuid.uuid4().hex
        self.widgets = vp.Widgets()
        self.ws = None
        self.execution = None

    def _url(self, path):
        return self.base.replace("http", "ws", 1) + path

    def _cookies(self):
        """The cookies a browser sends to this page's paths, the most specific path first (the hub sets an
        _xsrf for /hub/ and another for /user/<name>/)."""
        path = urlsplit(self.base).path
        found = [c for c in self.learner.client.cookies if path.startswith(c.path or "/")]
        return sorted(found, key=lambda c: -len(c.path or "/"))

    def _cookie(self):
        seen, parts = set(), []
        for c in self._cookies():
            if c.name not in seen:
                seen.add(c.name)
                parts.append(f"{c.name}={c.value}")
        return "; ".join(parts)

    def connect(self):
        """What the widget manager does: the kernel's model, the channels, kernel info, the widget states;
        and, with progressive rendering, the request to run the notebook."""
        r = self.learner.client.get(f"{self.base}api/kernels/{self.kernel}", name="api/kernels/<id>")
        if r.status_code != 200:
            raise PageFailed(f"api/kernels/<id>: HTTP {r.status_code}")
        self.ws = websocket.create_connection(
            self._url(f"api/kernels/{self.kernel}/channels?session_id={self.session}"),
            subprotocols=[vp.PROTOCOL], cookie=self._cookie(), timeout=60)
        # one reader per page, as a browser has: every message read whole, whenever it comes (a read cut by a
        # timeout in the middle of a frame would leave the socket's stream out of step)
        self.ws.settimeout(None)
        self.inbox = gevent.queue.Queue()
        self.reader = gevent.spawn(self._read_forever)
        info, frame = vp.request("kernel_info_request", {}, self.session)
        self.ws.send_binary(frame)
        self.read(lambda m, f: m["msg_type"] == "kernel_info_reply" and m["parent_header"].get("msg_id") == info, 120)
        control = uuid.uuid4().hex
        self.send("comm_open", {"comm_id": control, "target_name": vp.CONTROL_TARGET, "data": {}},
                  metadata={"version": "1.0.0"})          # the control protocol's version, as ipywidgets 8 sends it
        self.send("comm_msg", {"comm_id": control, "data": {"method": "request_states"}})
        self.read(lambda m, f: m["msg_type"] == "comm_msg" and m["content"].get("comm_id") == control, 120)
        self.send("comm_close", {"comm_id": control, "data": {}})
        if self.config.get("progressiveRendering") in (True, "true"):
            self.execution = websocket.create_connection(self._url(f"voila/execution/{self.kernel}"),
                                                         cookie=self._cookie(), timeout=60)
            self.execution.send('{"action": "execute", "payload": {"kernel_id": "%s"}}' % self.kernel)

    def send(self, msg_type, content, metadata=None):
        msg_id, frame = vp.request(msg_type, content, self.session, metadata=metadata)
        self.ws.send_binary(frame)
        return msg_id

    def _read_forever(self):
        while True:
            try:
                data = self.ws.recv()
            except Exception as exc:  # closed: the page is gone, or the server closed it
                self.inbox.put(ConnectionError(f"the kernel's websocket closed: {exc or type(exc).__name__}"))
                return
            if isinstance(data, bytes) and data:
                self.inbox.put(vp.unframe(data)[1])

    def read(self, until, timeout):
        """Read the kernel's messages until ``until(message, figure)`` is true; ``figure`` is the Image model a
        message brought a new picture for. Raises TimeoutError, or ConnectionError when the socket closed."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                msg = self.inbox.get(timeout=max(left, 0.001))
            except gevent.queue.Empty:
                raise TimeoutError(f"no answer within {timeout:.0f} s") from None
            if isinstance(msg, Exception):
                self.inbox.put(msg)
                raise msg
            figure = self.widgets.take(msg)
            if until(msg, figure):
                return msg

    def drain(self):
        """The messages that came while the learner looked at the figure."""
        while not self.inbox.empty():
            msg = self.inbox.peek()
            if isinstance(msg, Exception):
                return
            self.widgets.take(self.inbox.get())

    def first_figure(self, timeout):
        if self.widgets.figures:
            return
        self.read(lambda m, f: f is not None, timeout)

    def leave(self):
        """A tab closing: the shutdown beacon with the _xsrf cookie's value, then the sockets close."""
        xsrf = next((c.value for c in self._cookies() if c.name == "_xsrf"), "")
        self.learner.client.post(f"{self.base}voila/api/shutdown/{self.kernel}", data={"_xsrf": xsrf},
                                 name="voila/api/shutdown/<id>")
        for ws in (self.ws, self.execution):
            if ws is not None:
                try:
                    ws.close(timeout=2)
                except Exception:  # already closed by the server
                    pass
        if getattr(self, "reader", None) is not None:
            self.reader.kill(block=False)


class Learner(HttpUser):
    """One learner (module docstring). Each runs once: arrives, works, leaves, stops."""

    wait_time = constant(0)          # a move's own wait (--move-wait) is inside it, timed apart from the move

    def __init__(self, environment):
        super().__init__(environment)
        self.opts = environment.parsed_options
        low, high = (float(x) for x in self.opts.move_wait.split(","))
        self.wait = (low, high)
        self.page = None

    def _get_page(self, url, name):
        """A dashboard page, as the browser gets it: the HTML, then (a cold cache) its scripts and styles."""
        with self.client.get(url, name=name, catch_response=True, timeout=600) as r:
            if r.status_code != 200:
                what = "full (503)" if r.status_code == 503 else f"HTTP {r.status_code}"
                r.failure(what)
                raise PageFailed(what)
        return self._assets(r.text)

    def _assets(self, html):
        if self.opts.assets == "yes":
            for asset in vp.page_assets(html):
                self.client.get(self.host + asset, name="static asset")
        return html

    def _arrive_lesson(self):
        token = f"?token={self.opts.class_token}" if self.opts.class_token else ""
        self.client.get(f"{self.host}/{token}", name="class link")
        base = self.host + "/"
        return base, self._get_page(f"{base}voila/render/{self.opts.notebook}", f"page {self.opts.notebook}")

    def _arrive_hub(self):
        name = f"l{self.opts.learner_tag}{next(_learners)}"
        started = time.perf_counter()
        self.client.get(f"{self.host}/hub/login", name="hub/login")
        xsrf = self.client.cookies.get("_xsrf", "")
        with self.client.post(f"{self.host}/hub/login?next=", name="hub/login POST", timeout=600, catch_response=True,
                              data={"username": name, "password": f"{name}-own-pass", "otp": self.opts.hub_password,
                                    "_xsrf": xsrf}) as r:
            if r.status_code == 429:
                r.success()
        deadline = time.monotonic() + 600
        while f"/user/{name}/" not in r.url:           # the spawn-pending page polls until the server is up
            if time.monotonic() > deadline or r.status_code >= 500 or "/hub/login" in r.url:
                _fire(self.environment, "HUB", "hub login -> server", started, PageFailed(f"HTTP {r.status_code} {r.url}"))
                raise PageFailed("no server")
            if r.status_code == 429:     # in the hub's queue (templates/error.html): the page retries by itself
                _fire(self.environment, "HUB", "hub queue (429; retried)", started)
                time.sleep(60 if "Active user limit" in r.text else 15)
            else:
                time.sleep(1)            # the spawn-pending page waits for the server's progress events
            with self.client.get(f"{self.host}/hub/spawn/{name}", name="hub/spawn (pending)", timeout=600,
                                 catch_response=True) as r:
                if r.status_code == 429:
                    r.success()
        _fire(self.environment, "HUB", "hub login -> server", started)
        base = f"{self.host}/user/{name}/"
        if r.url.endswith(f"voila/render/notebooks/{self.opts.notebook}"):     # make hub NOTEBOOK=...: the lesson
            return base, self._assets(r.text)
        index = Page(self, base, self._assets(r.text))      # the index dashboard a learner lands on, then the lesson
        started = time.perf_counter()
        index.connect()
        index.first_figure(self.opts.figure_timeout)
        _fire(self.environment, "HUB", "index figure", started)
        index.leave()
        return base, self._get_page(f"{base}voila/render/notebooks/{self.opts.notebook}", f"page {self.opts.notebook}")

    def on_start(self):
        arrived = time.perf_counter()
        try:
            base, html = self._arrive_hub() if self.opts.mode == "hub" else self._arrive_lesson()
            self.page = Page(self, base, html)
            self.page.connect()
            self.page.first_figure(self.opts.figure_timeout)
        except (PageFailed, TimeoutError, ConnectionError, OSError, websocket.WebSocketException) as exc:
            _fire(self.environment, "LEARNER", "first figure", arrived, exc)
            raise StopUser() from None
        _fire(self.environment, "LEARNER", "first figure", arrived)
        self.working_until = time.monotonic() + self.opts.work_seconds
        self.sliders = self.page.widgets.sliders()
        self.direction = 1

    @task
    def move_a_slider(self):
        if not self.sliders:
            _fire(self.environment, "WS", "slider move", time.perf_counter(), PageFailed("no slider beside a figure"))
            self.leave()
        time.sleep(random.uniform(*self.wait))
        if time.monotonic() > self.working_until:
            self.leave()
        self.page.drain()
        model, model_name, state = random.choice(self.sliders)
        state = self.page.widgets.states[model]["state"]
        attribute, value = vp.next_value(model_name, state, self.direction)
        if random.random() < 0.3:
            self.direction = -self.direction
        started = time.perf_counter()
        try:
            sent = self.page.send("comm_msg", {"comm_id": model, "data": {"method": "update",
                                                                         "state": {attribute: value}, "buffer_paths": []}})
            state[attribute] = value
            got = self.page.read(lambda m, f: m["parent_header"].get("msg_id") == sent and (
                f is not None or (m["msg_type"] == "status" and m["content"].get("execution_state") == "idle")), 60)
        except (TimeoutError, ConnectionError, OSError, websocket.WebSocketException) as exc:
            _fire(self.environment, "WS", "slider move", started, exc)
            return
        if got["msg_type"] == "status":
            # the kernel handled the move and drew nothing (a trainer's setting: its figure waits for its
            # button): not a figure's time; this learner moves the sliders that draw
            self.sliders = [s for s in self.sliders if s[0] != model]
            _fire(self.environment, "WS", "slider without a figure", started)
            return
        _fire(self.environment, "WS", "slider move", started)

    def leave(self):
        page, self.page = self.page, None
        if page is not None:
            started = time.perf_counter()
            page.leave()
            deadline = time.monotonic() + 90
            while True:
                with self.client.get(f"{page.base}api/kernels/{page.kernel}", name="api/kernels/<id> (after leaving)",
                                     catch_response=True) as r:
                    r.success()                          # 404 is the answer hoped for
                if r.status_code == 404:
                    _fire(self.environment, "LEAVE", "kernel gone", started)
                    break
                if time.monotonic() > deadline:
                    _fire(self.environment, "LEAVE", "kernel gone", started, PageFailed("the kernel is still there 90 s later"))
                    break
                time.sleep(1)
        raise StopUser()

    def on_stop(self):
        if self.page is not None:
            try:
                self.leave()
            except StopUser:
                pass
