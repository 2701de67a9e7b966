"""The kiosk follows the panel: the service writes the table page's address into the
runtime directory systemd gives it, and the kiosk's unit opens what is written there,
an address at which the panel counts the kiosk as this machine's own browser."""

import os
import re
import socket
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from boardref.outputs.panel.access import is_local
from boardref.outputs.panel.server import panel_socket
from boardref.runtime.config import PanelConfig
from boardref.runtime.kiosk import KIOSK_FILE, KIOSK_VARIABLE, kiosk_url
from tests.harness import answers, free_port, until
from tests.systemd.test_units import SYSTEMD


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0", "::", "::1", "localhost"])
def test_the_kiosk_reaches_a_panel_on_any_local_address_as_the_table(host):
    with panel_socket(host, 0) as listening:
        listening.listen()
        url = urlsplit(kiosk_url(listening.getsockname()))
        assert (url.path, url.query) == ("/table", "motion=reduce")
        with socket.create_connection((url.hostname, url.port), timeout=5):
            accepted, peer = listening.accept()
            accepted.close()
    assert is_local(peer[0]), f"{host}: the kiosk at {url.hostname} arrives from {peer[0]}"


@pytest.mark.process
def test_serve_writes_the_kiosk_address_where_systemd_said(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "boardref", "serve", "--sim", "--port", str(port)],
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path), "RUNTIME_DIRECTORY": str(run)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        written = until(lambda: (run / KIOSK_FILE).is_file(), "the kiosk's address", 60)
        assert written
        address = f"http://127.0.0.1:{port}/table?motion=reduce"
        assert (run / KIOSK_FILE).read_text() == f"KIOSK_URL={address}\n"
        until(lambda: answers(address), "the table page", 60)
        assert os.listdir(run) == [KIOSK_FILE]
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_kiosk_unit_opens_what_the_service_writes():
    service = (SYSTEMD / "boardref.service").read_text()
    kiosk = (SYSTEMD / "boardref-kiosk.service").read_text()
    runtime = re.search(r"^RuntimeDirectory=(\S+)$", service, re.MULTILINE).group(1)
    assert f"\nEnvironmentFile=-/run/{runtime}/{KIOSK_FILE}\n" in kiosk
    assert re.search(rf"^ExecStart=[^\n]*(\\\n[^\n]*)*\$\{{{KIOSK_VARIABLE}\}}$", kiosk, re.M)
    # until the service has written it (or when it cannot start), the default port's page
    default = kiosk_url(("127.0.0.1", PanelConfig().port))
    assert f"\nEnvironment={KIOSK_VARIABLE}={default}\n" in kiosk
