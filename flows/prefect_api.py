"""The Prefect server a command talks to, and the server processes Shelfwise starts.

A flow command uses, in this order: PREFECT_API_URL (exported, or in the Prefect profile of the
workspace's Prefect home); the workspace's own server when
`shelfwise server` is running (it leaves its address in `<workspace>/prefect/server.json`); else a
temporary server without UI for the length of the command. Every server process Shelfwise starts
is told by the kernel to stop when the command that started it dies, even by kill -9, so none is
left behind.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from config.settings import Settings

SERVER_FILE = "server.json"
STARTUP_SECONDS = 120.0


class ServerError(RuntimeError):
    """A Prefect server that would not start, or is not there."""


AUTH_VARIABLE = "PREFECT_API_AUTH_STRING"  # what Prefect's clients send; the server reads its own variable
AUTH_FILE = "auth_string"  # in the Prefect home when server.auth_file is empty


@dataclass(frozen=True)
class RunningServer:
    url: str  # http://127.0.0.1:4200
    pid: int
    outputs_url: str | None = None  # where it serves outputs/ (flows/outputs_http.py)

    @property
    def api_url(self) -> str:
        return f"{self.url}/api"


# Run as `python -c _LAUNCHER PARENT_PID PROGRAM ARGS...`: ask the kernel for SIGTERM when the parent dies
# (Linux; elsewhere nothing), then become PROGRAM. Done in a fresh interpreter, not in a preexec_fn, because
# forking a process that has LanceDB's runtime threads is not safe.
_LAUNCHER = """import ctypes, os, signal, sys
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
except (OSError, AttributeError):
    pass
if os.getppid() != int(sys.argv[1]):
    sys.exit(1)
os.execv(sys.argv[2], sys.argv[2:])
"""


def start_child(args: list[str], env: dict[str, str], log: Path | None = None) -> subprocess.Popen:
    """A child process (args[0] must be a path) that the kernel stops when this process dies."""
    output = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - the child owns it from here
    try:
        # A session of its own: Ctrl-C at the terminal reaches this process alone, which then still has the
        # server to report its interrupted flow run to, and stops it itself.
        return subprocess.Popen([sys.executable, "-c", _LAUNCHER, str(os.getpid()), *args], env=env,
                                stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        if log:
            output.close()


def stop_child(process: subprocess.Popen, grace_seconds: float = 10.0) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace_seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def healthy(api_url: str, timeout: float = 2.0) -> bool:
    import httpx  # here: commands that run no flow never ask, and httpx is a tenth of a second to import

    try:
        return httpx.get(f"{api_url}/health", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def _wait_healthy(process: subprocess.Popen, api_url: str, log: Path | None) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-800:].strip().splitlines()[-1:] if log and log.exists() else []
            raise ServerError(f"the Prefect server exited with code {process.returncode}"
                              + (f": {tail[0]}" if tail else ""))
        if healthy(api_url, timeout=1.0):
            return
        time.sleep(0.25)
    stop_child(process)
    raise ServerError(f"the Prefect server at {api_url} did not answer within {STARTUP_SECONDS:g} s")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def workspace_server(settings: Settings) -> RunningServer | None:
    """The server `shelfwise server` runs for this workspace, if it is up."""
    path = settings.prefect_home / SERVER_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        server = RunningServer(str(raw["url"]), int(raw["pid"]), raw.get("outputs_url"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return server if healthy(server.api_url) else None


def server_lost(err: BaseException, api_url: str) -> bool:
    """Whether `err` came from the Prefect server at api_url going away: a transport error, and it answers no more."""
    import httpx

    seen: list[BaseException] = []
    while err is not None and err not in seen:
        if isinstance(err, httpx.TransportError):
            return not healthy(api_url)
        seen.append(err)
        err = err.__cause__ or err.__context__
    return False


@contextmanager
def flow_api(settings: Settings) -> Iterator[str]:
    """The Prefect API the flows of this command report to (see the module's docstring). Its client retries a
    failed call prefect.client_retries times (2 + 4 s apart by default), not Prefect's 5 over a minute: a server
    that went away mid-run is known in seconds, and the command says what it saved (flows/cli.py)."""
    from prefect.settings import PREFECT_CLIENT_MAX_RETRIES, temporary_settings

    with temporary_settings({PREFECT_CLIENT_MAX_RETRIES: settings.prefect.client_retries}):
        with _flow_api(settings) as api:
            yield api


@contextmanager
def _flow_api(settings: Settings) -> Iterator[str]:
    from prefect.settings import PREFECT_API_URL, PREFECT_UI_URL, temporary_settings

    configured = PREFECT_API_URL.value()  # exported, or set in the Prefect profile
    if configured:
        if not healthy(configured, timeout=5.0):  # else minutes of retries and tracebacks, then no workbook
            raise ServerError(f"PREFECT_API_URL {configured} does not answer: start the Prefect server there, "
                              "or unset PREFECT_API_URL to run with a temporary one")
        yield configured
        return
    running = workspace_server(settings)
    if running:
        with temporary_settings({PREFECT_API_URL: running.api_url}):
            yield running.api_url
        return
    port = free_port()
    api_url = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}
    process = start_child([sys.executable, "-m", "uvicorn", "--factory", "prefect.server.api.server:create_app",
                           "--host", "127.0.0.1", "--port", str(port), "--log-level", "error", "--lifespan", "on"],
                          env)
    try:
        _wait_healthy(process, api_url, None)
        # No UI, and gone with the command: no "View at" link to it (the command prints what it made instead)
        with temporary_settings({PREFECT_API_URL: api_url, PREFECT_UI_URL: ""}):
            try:
                yield api_url
            finally:
                _send_pending_logs()
    finally:
        stop_child(process)


def _send_pending_logs() -> None:
    """Flush the run logs and events Prefect still holds, while the server is there to take them."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all(timeout=5)
    EventsWorker.drain_all(timeout=5)


def auth_file(settings: Settings) -> Path:
    return Path(settings.server.auth_file) if settings.server.auth_file else settings.prefect_home / AUTH_FILE


def auth_string(settings: Settings) -> str | None:
    """The UI's "user:password": PREFECT_API_AUTH_STRING, else the secrets file (never config/settings.yaml)."""
    if os.environ.get(AUTH_VARIABLE):
        return os.environ[AUTH_VARIABLE]
    try:
        return auth_file(settings).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def use_auth_string(settings: Settings) -> None:
    """Every Prefect client of this process and of the flow runs it starts sends the auth string, if there is one."""
    secret = auth_string(settings)
    if secret:
        os.environ[AUTH_VARIABLE] = secret


def is_loopback(host: str) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@contextmanager
def persistent_server(settings: Settings) -> Iterator[RunningServer]:
    """The workspace's Prefect server with its UI, on settings.server's host and port, and outputs/ served beside
    it, until the block ends. Beyond loopback it needs an auth string: ServerError without one."""
    from flows.outputs_http import serve_outputs

    host, port = settings.server.host, settings.server.port
    secret = auth_string(settings)
    if not is_loopback(host) and not secret:
        raise ServerError(f"server.host {host} is reachable from other machines: set the UI's user:password in "
                          f"{AUTH_VARIABLE} or in {auth_file(settings)} (server.auth_file) first")
    url = f"http://{host}:{port}"
    if healthy(f"{url}/api"):
        raise ServerError(f"something already answers at {url}: another `shelfwise server`? "
                          "(set server.port or SHELFWISE__SERVER__PORT to use another port)")
    log = settings.prefect_home / "server.log"
    # The UI asks the server for its API's address: without these it would tell the browser port 4200.
    # Concurrency leases on disk (under the workspace's PREFECT_HOME), not in the server's memory: a server killed
    # while a run held a deployment's one slot would otherwise come back with the slot taken and no lease to expire,
    # and every later run of that deployment would wait for it.
    env = {**os.environ, "PREFECT_UI_ENABLED": "true", "PREFECT_SERVER_API_HOST": host,
           "PREFECT_SERVER_API_PORT": str(port), "PREFECT_UI_API_URL": f"{url}/api",
           "PREFECT_SERVER_CONCURRENCY_LEASE_STORAGE": "prefect.server.concurrency.lease_storage.filesystem"}
    if secret:
        env["PREFECT_SERVER_API_AUTH_STRING"] = secret
    server = _KeptUp(lambda: start_child([sys.executable, "-m", "prefect", "server", "start", "--host", host,
                                          "--port", str(port)], env, log), f"{url}/api", log)
    record = settings.prefect_home / SERVER_FILE
    try:
        server.start()
        with ExitStack() as outputs:
            try:
                outputs_url = outputs.enter_context(serve_outputs(settings.outputs_dir, host,
                                                                  settings.server.outputs_port, secret))
            except OSError as err:  # the port is taken
                raise ServerError(f"cannot serve {settings.outputs_dir} on {host}:{settings.server.outputs_port} "
                                  f"(server.outputs_port): {err.strerror or err}") from None
            tmp = record.with_name(f".{record.name}.tmp")
            # the pid of this process, which keeps the server up: the server's own changes when it is restarted
            tmp.write_text(json.dumps({"url": url, "pid": os.getpid(), "outputs_url": outputs_url}), encoding="utf-8")
            os.replace(tmp, record)
            yield RunningServer(url, os.getpid(), outputs_url)
    finally:
        record.unlink(missing_ok=True)
        server.stop()


class _KeptUp:
    """A server process started again, on the same port and database, whenever it dies until stop(): its run
    history, deployments and schedules are in its database, so they are all there again when it is back."""

    CHECK_SECONDS = 1.0
    RETRY_SECONDS = 5.0

    def __init__(self, start: Callable[[], subprocess.Popen], api_url: str, log: Path):
        self._start, self._api_url, self._log = start, api_url, log
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start it and wait until it answers (ServerError if it does not), then watch it."""
        self.process = self._start()
        _wait_healthy(self.process, self._api_url, self._log)
        threading.Thread(target=self._watch, name="prefect-server-watch", daemon=True).start()

    def _watch(self) -> None:
        while not self._stopping.wait(self.CHECK_SECONDS):
            if self.process.poll() is None:
                continue
            print(f"the Prefect server stopped (exit code {self.process.returncode}); starting it again",
                  file=sys.stderr, flush=True)
            while not self._stopping.is_set():
                with self._lock:
                    if self._stopping.is_set():
                        return
                    self.process = self._start()
                try:
                    _wait_healthy(self.process, self._api_url, self._log)
                    print(f"the Prefect server answers again at {self._api_url}", file=sys.stderr, flush=True)
                    break
                except ServerError as err:
                    print(f"{err}; trying again in {self.RETRY_SECONDS:g} s", file=sys.stderr, flush=True)
                    self._stopping.wait(self.RETRY_SECONDS)

    def stop(self) -> None:
        with self._lock:
            self._stopping.set()
        if self.process is not None:
            stop_child(self.process)


@dataclass(frozen=True)
class RunSeen:
    name: str
    state: str  # the state's name: Completed, NeedsReview, Failed, ...
    started: str  # ISO time, or "" for a run not started


def server_and_runs(settings: Settings, limit: int = 5) -> tuple[str | None, bool, list[RunSeen]]:
    """The API this workspace's commands would use (None: none configured or running), whether it answers, and
    its last runs, newest first."""
    from prefect.settings import PREFECT_API_URL

    running = workspace_server(settings)
    api = PREFECT_API_URL.value() or (running.api_url if running else None)
    if api is None or not healthy(api):
        return api, False, []
    from prefect import get_client
    from prefect.client.schemas.sorting import FlowRunSort
    from prefect.settings import temporary_settings

    with temporary_settings({PREFECT_API_URL: api}), get_client(sync_client=True) as client:
        runs = client.read_flow_runs(limit=limit, sort=FlowRunSort.EXPECTED_START_TIME_DESC)
    return api, True, [RunSeen(r.name, r.state.name if r.state else "", (r.start_time or r.expected_start_time
                                                                       ).isoformat(timespec="seconds")
                               if (r.start_time or r.expected_start_time) else "") for r in runs]


def next_run(cron: str, timezone: str) -> str:
    """The next time the cron schedule fires, in its timezone (as the nightly deployment's schedule reads it)."""
    import asyncio

    from prefect.server.schemas.schedules import CronSchedule

    [when] = asyncio.run(CronSchedule(cron=cron, timezone=timezone).get_dates(n=1))
    return when.isoformat(timespec="minutes")
