"""The panel over HTTPS with a real self-signed certificate made by openssl: served and
fetched over TLS, join codes naming https, the session cookie marked Secure, and a
certificate or key the panel cannot use refused in words when the config loads."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path

import httpx
import pytest

from boardref.runtime.config import ConfigError, load_config
from tests.boardref.conftest import PIN, PIN_HASH, started
from tests.boardref.outputs.panel.test_hardening import RealServer

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is missing")


def self_signed(folder: Path, name: str = "panel") -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, as docs/service.md tells makers to make."""
    certificate, key = folder / f"{name}.crt", folder / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-days", "2", "-subj", "/CN=boardref", "-addext",
         "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(certificate)],
        check=True, capture_output=True,
    )  # fmt: skip
    return certificate, key


def trusting(certificate: Path) -> ssl.SSLContext:
    """A client that trusts ``certificate`` alone, as a phone told to trust it would."""
    return ssl.create_default_context(cafile=str(certificate))


def tls_config(tmp_path: Path, certificate, key):
    return load_config(
        **{
            "store.path": tmp_path / "log.db",
            "panel.referee_pin_hash": PIN_HASH,
            "panel.certificate": certificate,
            "panel.key": key,
        }
    )


@pytest.mark.process
def test_the_panel_is_served_over_https_with_secure_cookies_and_https_join_codes(tmp_path):
    certificate, key = self_signed(tmp_path)
    service = started(tls_config(tmp_path, certificate, key))
    try:
        with RealServer(service) as plain_base:
            base = plain_base.replace("http://", "https://")
            with httpx.Client(base_url=base, verify=trusting(certificate)) as phone:
                assert phone.get("/api/health").status_code == 200
                login = phone.post("/api/referee/login", json={"pin": PIN})
                assert login.status_code == 200
                assert "; secure" in login.headers["set-cookie"].lower()
                assert phone.get("/api/referee/session").json()["ok"] is True
                assert phone.get("/api/join").json()["url"].startswith("https://")
            with pytest.raises(httpx.ConnectError):  # another certificate is not trusted
                httpx.get(f"{base}/api/health", verify=trusting(self_signed(tmp_path, "other")[0]))
    finally:
        service.close()


@pytest.mark.process
def test_a_certificate_the_panel_cannot_use_is_refused_in_words(tmp_path):
    certificate, key = self_signed(tmp_path)
    other_certificate, _ = self_signed(tmp_path, "other")
    cases = {
        (certificate, None): "certificate and key go together",
        (tmp_path / "gone.crt", key): "gone.crt cannot be read: No such file or directory",
        # root reads any file: a folder stands for a file that cannot be read
        (tmp_path, key): "cannot be read: Is a directory",
        (other_certificate, key): "is not the key of the certificate",
        (key, key): "are not a PEM certificate",
    }
    for (given_certificate, given_key), said in cases.items():
        with pytest.raises(ConfigError, match=said):
            tls_config(tmp_path, given_certificate, given_key)
