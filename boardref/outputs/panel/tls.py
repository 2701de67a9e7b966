"""The panel over HTTPS: ``[panel] certificate`` and ``key`` (PEM files), checked when
the config is loaded so that a missing or unreadable file, or a key that is not the
certificate's, is said in words before the service starts, and handed to uvicorn.
This module reads the two files and nothing else; it never makes a certificate.
"""

from __future__ import annotations

import ssl
from pathlib import Path


def check_tls(certificate: Path | None, key: Path | None) -> None:
    """Refuse, in words (ValueError), a certificate and key the panel cannot serve."""
    if certificate is None and key is None:
        return
    if certificate is None or key is None:
        raise ValueError("[panel] certificate and key go together: set both or neither")
    for name, path in (("certificate", certificate), ("key", key)):
        try:
            path.read_bytes()
        except OSError as exc:
            raise ValueError(f"[panel] {name} {path} cannot be read: {exc.strerror}") from None
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(certificate, key)
    except ssl.SSLError as exc:
        if "KEY_VALUES_MISMATCH" in str(exc):
            raise ValueError(
                f"[panel] key {key} is not the key of the certificate {certificate}"
            ) from None
        raise ValueError(
            f"[panel] certificate {certificate} and key {key} are not a PEM certificate "
            f"and its PEM key ({exc.reason or 'unreadable'})"
        ) from None


def served_over_tls(panel) -> dict[str, str]:
    """uvicorn's TLS settings for the panel's config (none: plain HTTP)."""
    if panel.certificate is None:
        return {}
    return {"ssl_certfile": str(panel.certificate), "ssl_keyfile": str(panel.key)}
