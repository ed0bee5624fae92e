"""The pages a learner gets from the classroom server instead of a dashboard (attnlab_classroom): "this
lesson is full" (HTTP 503), "this lesson needs the class link" (403), in the learner's language."""
import html

from attnlab.i18n import gettext as _, language

__all__ = ["page_language", "full_page", "forbidden_page"]


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

