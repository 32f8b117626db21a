"""Screenshots of the Prefect UI for the README, and the run evidence behind them (not part of `make test`).

    .venv/bin/python scripts/ui_screenshots.py [--out docs/images]

Needs an indexed workspace (`make demo`). Starts `shelfwise server` on a free port, triggers two
generate-shelves runs of different batches within a second exactly as the run form does (one POST each
to the deployment's create_flow_run), waits for both, prints their states and the history rows they
wrote, then photographs the UI's pages with headless Chromium over the DevTools protocol.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from config.settings import load_settings  # noqa: E402
from storage.catalog_db import open_catalog  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
STAMP = time.strftime("%m%d-%H%M")  # fresh batches on every run of the script
BATCHES = {f"ui-{STAMP}-rainy": [{"theme_id": "rain", "theme_name": "Quiet novels for a rainy night"},
                        {"theme_id": "vague", "theme_name": "Some good books"}],  # this one needs review
           f"ui-{STAMP}-luxun": [{"theme_id": "luxun", "theme_name": "鲁迅作品专题"}]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int) -> subprocess.Popen:
    env = {**os.environ, "SHELFWISE__SERVER__PORT": str(port)}
    env.pop("PREFECT_API_URL", None)
    server = subprocess.Popen([sys.executable, "-m", "flows.cli", "server"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in server.stdout:
        print("  server:", line.rstrip())
        if "Your deployments are being served" in line:
            return server
    raise SystemExit(f"`shelfwise server` exited with code {server.wait()}")


def trigger_two_runs(api: str) -> list[dict]:
    """Two runs of generate-shelves, posted as the run form posts them, within a second; waited for."""
    with httpx.Client(base_url=api, timeout=30, transport=httpx.HTTPTransport(retries=3)) as client:
        for attempt in range(5):  # a server just started has once reset the first connection
            try:
                deployment = client.get("/deployments/name/generate-shelves/generate-shelves").json()
                break
            except httpx.TransportError:
                time.sleep(2)
        runs = [client.post(f"/deployments/{deployment['id']}/create_flow_run", json={"parameters": {
            "batch_id": batch, "themes": themes}}).json() for batch, themes in BATCHES.items()]
        while True:
            runs = [client.get(f"/flow_runs/{r['id']}").json() for r in runs]
            if all(r["state"]["type"] in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED") for r in runs):
                return runs
            time.sleep(3)


def history_rows() -> list[tuple]:
    with open_catalog(load_settings().duckdb_path, read_only=True) as db:
        return db.conn.execute(
            "SELECT batch_id, theme_id, count(*), min(shelved_at) FROM shelf_history WHERE batch_id IN (?, ?) "
            "GROUP BY 1, 2 ORDER BY 1", list(BATCHES)).fetchall()


class Browser:
    """Headless Chromium driven over the DevTools protocol: navigate, wait, capture the window."""

    def __init__(self, width: int = 1440, height: int = 1000):
        port = free_port()
        self.profile = tempfile.TemporaryDirectory()
        self.process = subprocess.Popen([CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
                                         f"--remote-debugging-port={port}", f"--user-data-dir={self.profile.name}",
                                         f"--window-size={width},{height}", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                targets = httpx.get(f"http://127.0.0.1:{port}/json", timeout=2).json()
                page = next(t for t in targets if t["type"] == "page")
                break
            except (httpx.HTTPError, StopIteration):
                time.sleep(0.2)
        self.socket = connect(page["webSocketDebuggerUrl"], max_size=None)
        self.next_id = 0
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                return message.get("result", {})

    def shoot(self, url: str, path: Path, settle: float = 6.0) -> None:
        self.call("Page.navigate", url=url)
        time.sleep(settle)  # the UI is a single-page app: it renders after its API calls return
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))
        print(f"  {path}")

    def close(self) -> None:
        self.socket.close()
        self.process.terminate()
        self.process.wait(timeout=10)
        self.profile.cleanup()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    ui, api = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}/api"
    print(f"starting `shelfwise server` on {ui}")
    server = start_server(port)
    try:
        print("two runs of generate-shelves, as the run form triggers them:")
        runs = trigger_two_runs(api)
        for run in runs:
            print(f"  {run['name']}: {run['state']['name']} ({run['state']['message']}); created {run['created']}, "
                  f"started {run['start_time']}, ended {run['end_time']}; tags {run['tags']}")
        print("history rows (batch, theme, books, first shelved at):")
        for row in history_rows():
            print(f"  {row}")
        deployment = httpx.get(f"{api}/deployments/name/generate-shelves/generate-shelves").json()
        summary_key = f"shelves-{next(iter(BATCHES))}-summary"
        [artifact] = httpx.post(f"{api}/artifacts/filter", json={"artifacts": {"key": {"any_": [summary_key]}}}).json()
        browser = Browser()
        try:
            browser.shoot(f"{ui}/deployments/deployment/{deployment['id']}/run", out / "ui-run-form.png")
            browser.shoot(f"{ui}/runs", out / "ui-runs.png")
            browser.shoot(f"{ui}/artifacts/artifact/{artifact['id']}", out / "ui-summary-artifact.png")
            browser.shoot(f"{ui}/concurrency-limits", out / "ui-concurrency-limit.png")
        finally:
            browser.close()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
