"""ClassroomIdentityProvider (``Voila.identity_provider_class``, standalone Voila): a server that listens
beyond the loopback interface (``--Voila.ip=0.0.0.0``, ``make lesson IP=0.0.0.0``) needs a class token:
``ATTNLAB_CLASS_TOKEN`` or one generated at start, printed with the address to give learners
(``http://<this machine>:8866/?token=...``). The first page opened with it sets a cookie for the rest;
without it every request is answered 403 with a page saying what to ask the teacher. Served on 127.0.0.1
(``make dashboard``) it stays open. The browser's identity it gives (a signed cookie) is whom
ClassroomKernelManager's per-client limit counts (``learner_client``)."""
import hmac
import ipaddress
import os
import secrets
import socket
import sys

from jupyter_server.auth.identity import PasswordIdentityProvider, User
from tornado import web
from traitlets import Enum, Unicode

from .pages import forbidden_page, page_language

__all__ = ["ClassroomIdentityProvider", "is_loopback", "learner_client", "TOKEN_ENV", "LEARNER_COOKIE"]

TOKEN_ENV = "ATTNLAB_CLASS_TOKEN"


def is_loopback(host):
    """True for 127.0.0.0/8, ::1 and 'localhost'."""
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


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
