"""`shelfwise server` as the operator meets it: beyond loopback only with an auth string, every request without
it refused; the workbooks served beside the UI; the banner's command working as printed."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess

import httpx
import pytest

from flows.prefect_api import free_port
from tests.conftest import Command

@pytest.fixture
def ports(prefect_server, workspace, tmp_path, monkeypatch):
    """Free ports for the UI and the workbooks, on all interfaces. prefect_server: its session leaves a migrated
    Prefect database where this test's `shelfwise server` starts its own (a hundred migrations otherwise, when this
    test is the first of its xdist worker to start one)."""
    api, outputs = free_port(), free_port()
    monkeypatch.setenv("SHELFWISE__SERVER__HOST", "0.0.0.0")
    monkeypatch.setenv("SHELFWISE__SERVER__PORT", str(api))
    monkeypatch.setenv("SHELFWISE__SERVER__OUTPUTS_PORT", str(outputs))
    monkeypatch.setenv("SHELFWISE__OUTPUTS_DIR", str(tmp_path / "outputs"))
    monkeypatch.delenv("PREFECT_API_AUTH_STRING", raising=False)
    return api, outputs


@pytest.mark.slow  # starts a Prefect server with its UI
def test_beyond_loopback_the_server_needs_an_auth_string_and_refuses_requests_without_it(ports, tmp_path,
                                                                                       monkeypatch):
    api, outputs = ports
    refused = Command("server", own_server=True)
    assert refused.finish(timeout=120) == 2
    assert refused.lines[-1].startswith("error: server.host 0.0.0.0 is reachable from other machines: set the UI's "
                                        "user:password in PREFECT_API_AUTH_STRING or in ")
    assert len([line for line in refused.lines if line.strip()]) == 1

    secret = "curator:s3cret-shelves"
    (tmp_path / "var" / "prefect").mkdir(parents=True, exist_ok=True)
    (tmp_path / "var" / "prefect" / "auth_string").write_text(secret + "\n", encoding="utf-8")  # the secrets file
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "b-1.xlsx").write_bytes(b"PK workbook")
    command = Command("server", own_server=True)
    try:
        hint = command.wait_for(r"^To run one from a shell: ", timeout=300)
        base = f"http://127.0.0.1:{api}/api"
        assert httpx.post(f"{base}/flows/filter", json={}, timeout=30).status_code == 401
        assert httpx.post(f"{base}/flows/filter", json={}, auth=tuple(secret.split(":")), timeout=30).status_code == 200
        served = f"http://127.0.0.1:{outputs}/b-1.xlsx"
        assert httpx.get(served, timeout=30).status_code == 401
        got = httpx.get(served, auth=tuple(secret.split(":")), timeout=30)
        assert got.status_code == 200 and got.content == b"PK workbook"
        assert httpx.get(f"http://127.0.0.1:{outputs}/../var/prefect/auth_string", auth=tuple(secret.split(":")),
                         timeout=30).status_code == 404

        # the banner's command, run as printed (the password filled in) from a shell with a bare home
        home = tmp_path / "home"
        home.mkdir()
        printed = hint.removeprefix("To run one from a shell: ").replace("USER:PASSWORD", secret)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "SHELFWISE"))} | {"HOME": str(home)}
        done = subprocess.run(["sh", "-c", printed], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert re.search(r"Created flow run", done.stdout) and not (home / ".prefect").exists()
    finally:
        command.process.send_signal(signal.SIGINT)
        command.finish(timeout=60)
    assert shlex.split(printed)[0].startswith("PREFECT_API_URL=")
