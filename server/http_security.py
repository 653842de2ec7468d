"""Streamable HTTP hardening: DNS-rebinding settings and a static bearer token check."""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any
from collections.abc import Awaitable, Callable

from mcp.server.transport_security import TransportSecuritySettings

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Callable[..., Awaitable[Any]], Callable[..., Awaitable[Any]]], Awaitable[None]]


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_forms(host: str) -> list[str]:
    h = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return [h, f"{h}:*"]


def transport_security(host: str, allowed_hosts: list[str] | None = None) -> TransportSecuritySettings:
    """Host/Origin allow-lists: the loopback names for a loopback bind, else the bound host and
    any ``allowed_hosts``. A wildcard bind (0.0.0.0) without ``allowed_hosts`` cannot know its own
    names, so the Host/Origin check is off there (the bearer token still guards it)."""
    names: list[str] = []
    if is_loopback(host):
        names += list(LOOPBACK_NAMES)
    elif host not in WILDCARD_HOSTS:
        names.append(host)
    names += list(allowed_hosts or [])
    if not names:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts: list[str] = []
    origins: list[str] = []
    for name in dict.fromkeys(names):
        for form in _host_forms(name):
            hosts.append(form)
            origins += [f"http://{form}", f"https://{form}"]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


class BearerTokenMiddleware:
    """Require ``Authorization: Bearer <token>`` on every HTTP request (401 otherwise)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("token must not be empty")
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # lifespan, websocket handshake refused by the app itself
            await self.app(scope, receive, send)
            return
        given = b""
        for key, value in scope.get("headers") or ():
            if key.lower() == b"authorization":
                given = value.strip()
                break
        if given and hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        message = "missing bearer token" if not given else "invalid bearer token"
        body = json.dumps({"error": "invalid_token", "error_description":
                           f"{message}: send 'Authorization: Bearer <token>' (the token given to ctxnotes serve)"}
                          ).encode()
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"),
                                (b"www-authenticate", b'Bearer realm="ctxnotes", error="invalid_token"'),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
