"""ASGI middleware attaching the browser session to each request and its cookie to the reply."""

from __future__ import annotations

from http.cookies import SimpleCookie

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from portal_web.common.sessions import BrowserSession, SessionStore


class BrowserSessionMiddleware:
    """Loads ``request.state.session`` and sets the cookie when the session id changed.

    Views that log in or out replace ``request.state.session``; the cookie follows it.
    Paths under ``skip_prefixes`` (the API, static files) get no session.
    """

    def __init__(self, app: ASGIApp, store: SessionStore,
                 skip_prefixes: tuple[str, ...] = ("/static/",)):
        self.app = app
        self.store = store
        self.skip_prefixes = skip_prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(self.skip_prefixes):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        session, expired = self.store.load(request)
        presented = request.cookies.get(self.store.cookie_name)
        scope.setdefault("state", {})
        scope["state"]["session"] = session
        scope["state"]["session_expired"] = expired

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                current: BrowserSession = scope["state"]["session"]
                if current.sid != presented:
                    cookie: SimpleCookie = SimpleCookie()
                    cookie[self.store.cookie_name] = current.sid
                    morsel = cookie[self.store.cookie_name]
                    morsel["path"] = "/"
                    morsel["httponly"] = True
                    morsel["samesite"] = "lax"
                    headers = MutableHeaders(scope=message)
                    headers.append("set-cookie", morsel.OutputString())
            await send(message)

        await self.app(scope, receive, send_with_cookie)
