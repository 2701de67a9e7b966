"""The security headers every answer of the panel and the fleet dashboard carries: a
Content-Security-Policy that lets a page run only the panel's own files (no inline
script, no other site's, no frames around it), nosniff, no Referer (a join link
carries its seat's token) and no powerful browser features. An answer that sets its
own policy (the API docs' page, which has one inline script) keeps it. This module
only adds headers; it never changes a status or a body.
"""

from __future__ import annotations

import base64
import hashlib
import re

#: what the pages load: their own scripts, styles and pictures (the camera picture is a
#: blob: URL, a QR code may be a data: one) and their own WebSocket ('self' covers ws:
#: and wss: on the panel's own address)
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
CSP = b"content-security-policy"
HEADERS = [
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


def policy_for(html: str) -> str:
    """The policy of a page that needs its own inline scripts (and nothing else's):
    each allowed by its hash, so no other inline script runs."""
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()}'"
        for script in _INLINE_SCRIPT.findall(html)
    )
    return POLICY.replace("script-src 'self'", f"script-src 'self' {hashes}")


class SecurityHeaders:
    """ASGI middleware adding ``HEADERS`` and the policy to every HTTP answer."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if not any(name.lower() == CSP for name, _ in headers):
                    headers.append((CSP, POLICY.encode()))
                message = {**message, "headers": headers + HEADERS}
            await send(message)

        await self.app(scope, receive, send_with_headers)
