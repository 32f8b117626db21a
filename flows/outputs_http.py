"""The workbooks over HTTP: `shelfwise server` serves outputs/ beside its Prefect UI, so that the summary a run
publishes links a workbook the curator's browser can open (a server-side path opens nothing).

Only `<name>.xlsx` files directly in outputs/ are served; with an auth string (server beyond loopback) the
browser is asked for the same user and password as the UI.
"""

from __future__ import annotations

import base64
import hmac
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _handler(folder: Path, auth_string: str | None) -> type[BaseHTTPRequestHandler]:
    expected = "Basic " + base64.b64encode(auth_string.encode()).decode() if auth_string else None

    class Workbooks(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's hook name
            if expected and not hmac.compare_digest(self.headers.get("Authorization", ""), expected):
                self.send_response(HTTPStatus.UNAUTHORIZED)
                self.send_header("WWW-Authenticate", 'Basic realm="shelfwise"')
                self.end_headers()
                return
            name = unquote(self.path.split("?", 1)[0].lstrip("/"))
            path = folder / name
            if "/" in name or not name.endswith(".xlsx") or name.startswith(".") or not path.is_file():
                self.send_error(HTTPStatus.NOT_FOUND)
                return
            data = path.read_bytes()
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", XLSX_TYPE)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Content-Disposition", f"attachment; filename*=UTF-8''{quote(name)}")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args) -> None:  # noqa: A002 - quiet: the server's log is Prefect's
            pass

    return Workbooks


@contextmanager
def serve_outputs(folder: Path, host: str, port: int, auth_string: str | None) -> Iterator[str]:
    """outputs/ served on host:port in a thread until the block ends; yields its URL."""
    server = ThreadingHTTPServer((host, port), _handler(folder, auth_string))
    thread = threading.Thread(target=server.serve_forever, name="outputs-http", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.shutdown()
        server.server_close()


def workbook_link(workbook: Path, outputs_url: str | None) -> str:
    """What the summary links: the workbook on the outputs server when one runs, else a file:// URL (it opens
    where the browser runs on the same machine)."""
    if outputs_url:
        return f"{outputs_url}/{quote(workbook.name)}"
    return workbook.resolve().as_uri()
