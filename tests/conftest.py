"""Shared fixtures. Tests mirror the code: one folder per stage (catalog, intake, language, model,
understanding, recall, ranking, export, evaluation, storage, config, flows) and faults; cost is a marker
(`slow`: real Prefect runs, the demo index, an install), so `make test-fast` runs `-m "not slow"`.
Every test builds what it needs (the demo index and the demo batch are built once per run and shared read-only,
as is a migrated Prefect database; a test that writes gets its own copy), so the suite passes in any order."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

# Properties are about values, not speed: on a loaded 2-core machine a per-example deadline only adds flakes.
hypothesis_settings.register_profile("shelfwise", deadline=None)
hypothesis_settings.load_profile("shelfwise")


def pytest_configure(config):
    """The xdist workers share one string hashing (a random PYTHONHASHSEED per run, unless one is set): what one
    worker built once for all (the demo batch) is compared digit for digit with what another computes."""
    if not os.environ.get("PYTEST_XDIST_WORKER") and "PYTHONHASHSEED" not in os.environ:
        os.environ["PYTHONHASHSEED"] = str(int.from_bytes(os.urandom(4), "big"))


def pytest_report_header(config):
    return f"PYTHONHASHSEED={os.environ.get('PYTHONHASHSEED')} (the xdist workers')"


# Prefect must be configured before it is first imported.
_PREFECT_HOME = Path(tempfile.mkdtemp(prefix="shelfwise-prefect-"))
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ["PREFECT_HOME"] = str(_PREFECT_HOME)
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
os.environ.setdefault("PREFECT_LOGGING_EXTRA_LOGGERS", "shelfwise")
os.environ.setdefault("PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW", "ignore")
os.environ.setdefault("LANCEDB_LOG", "error")
# The model on one thread in builds, as runs already have it (recall.blas_threads): three xdist workers share 2 cores,
# where a second BLAS thread only spends CPU waiting for one (the Dask test's build: 7 s more of it). The vectors are
# the same to float tolerance; a test of the thread count itself sets its own.
os.environ.setdefault("SHELFWISE__EMBEDDER__THREADS", "1")
# A developer's tuned config/local.yaml must not change what the tests see.
os.environ["SHELFWISE_LOCAL_CONFIG"] = str(_PREFECT_HOME / "no-local.yaml")

from config.settings import PROJECT_ROOT, load_settings  # noqa: E402
from config.vocabulary import get_vocabulary  # noqa: E402

SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
DEMO_CATALOG = PROJECT_ROOT / "config" / "demo" / "catalog.jsonl"
DEMO_THEMES = PROJECT_ROOT / "config" / "demo" / "themes.yaml"


def shared_data(name: str) -> Path:
    """A file in ../shared/data; the test is skipped where that folder is not beside the project."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


def real_catalog(name: str, file: str) -> Path:
    """A staged real catalog file (benchmarks/catalogs/*/SOURCE.md): SHELFWISE_REAL_CATALOGS/<name>/, else
    ../shared/data/catalogs/<name>/; the test is skipped where it is not on this machine."""
    roots = [Path(os.environ["SHELFWISE_REAL_CATALOGS"])] if os.environ.get("SHELFWISE_REAL_CATALOGS") else []
    for root in [*roots, SHARED_DATA / "catalogs"]:
        if (root / name / file).exists():
            return root / name / file
    pytest.skip(f"real catalog {name}/{file} is not staged here")


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A fresh workspace folder, made the process-wide settings' workspace for this test."""
    monkeypatch.setenv("SHELFWISE__WORKSPACE", str(tmp_path / "var"))
    return load_settings()


@pytest.fixture(scope="session")
def vocabulary():
    return get_vocabulary()


@pytest.fixture(scope="session")
def demo_rows() -> list[dict]:
    with open(DEMO_CATALOG, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="session")
def embedder():
    from tasks.language.embedders import create_embedder

    return create_embedder(load_settings().embedder)


# A Prefect server's database, migrated. A new one is a hundred migrations: 3 s of CPU and 3-9 s of a server's
# start on this machine. Every Prefect server of a run starts from a copy of its first one's: the sessions' servers,
# and the workspace servers that commands started by tests run in this process's PREFECT_HOME.
PREFECT_DB = "prefect-server.db"
# The sessions' servers without the services that consume the runs' events (the event store, the task-run recorder,
# automations' triggers and the event log): no test reads an event, a task run or an automation from them, and on
# them went about 40% of a server's CPU (22.7 -> 12.7 s over test_generate_shelves and test_honest_runs).
# Flow runs, their states, logs and artifacts go through the API as before. `shelfwise server` and the temporary
# servers of commands keep every service: this is only the harness's server (its process alone gets the variables).
HARNESS_SERVICES_OFF = {f"PREFECT_SERVER_SERVICES_{name}_ENABLED": "false"
                        for name in ("EVENT_PERSISTER", "TASK_RUN_RECORDER", "TRIGGERS", "EVENT_LOGGER")}


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory):
    """One temporary Prefect server for every flow test of the session (one per xdist worker: a server shared by
    the workers would mix their runs in `shelfwise status`, which lists a server's last five), on a copy of the
    run's migrated database; the first session of the run migrates it and leaves the copy."""
    import fcntl
    import shutil
    import sqlite3
    from unittest import mock

    from prefect.server.api.server import SubprocessASGIServer
    from prefect.testing.utilities import prefect_test_harness

    starts = SubprocessASGIServer._run_uvicorn_command

    def _without_event_services(server):
        """The harness's server process started with HARNESS_SERVICES_OFF in its environment; this process's
        settings, which the harness copies on its way in, never hold them."""
        with mock.patch.dict(os.environ, HARNESS_SERVICES_OFF):
            return starts(server)

    root = run_folder(tmp_path_factory)
    template = root / PREFECT_DB
    folder = Path(tempfile.mkdtemp(prefix="shelfwise-prefect-db-"))
    with ExitStack() as stack:
        with open(root / f"{PREFECT_DB}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            migrated = template.exists()
            if migrated:
                shutil.copyfile(template, folder / "prefect-test.db")
            with mock.patch("prefect.testing.utilities.mkdtemp", lambda: str(folder)), \
                    mock.patch.object(SubprocessASGIServer, "_run_uvicorn_command", _without_event_services):
                # where its database goes, and its process's environment
                stack.enter_context(prefect_test_harness(server_startup_timeout=120))
            if not migrated:  # before any test: a consistent copy of the live database (SQLite's online backup)
                with sqlite3.connect(folder / "prefect-test.db") as source, \
                        sqlite3.connect(root / f".{PREFECT_DB}.tmp") as copy:
                    source.backup(copy)
                os.replace(root / f".{PREFECT_DB}.tmp", template)
        if not (_PREFECT_HOME / "prefect.db").exists():  # no workspace server has run here yet
            shutil.copyfile(template, _PREFECT_HOME / "prefect.db")
        yield


def run_folder(tmp_path_factory) -> Path:
    """The run's temporary folder, which holds each xdist worker's."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


def built_once(tmp_path_factory, name: str, build) -> Path:
    """The folder `name`, made by build(folder) in the first process of the run to ask for it, under a lock; the
    other xdist workers wait for it and read it. For what every worker would build alike (the demo index: 9 s of
    CPU): a worker's tests get a copy of it, never the folder itself."""
    import fcntl
    import shutil

    root = run_folder(tmp_path_factory)
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".built").exists():  # a build that failed left no mark: the next asker tries again
            shutil.rmtree(folder, ignore_errors=True)
            build(folder)
            (folder / ".built").touch()
    return folder


def workspace_in(folder: Path) -> dict[str, str]:
    return {"SHELFWISE__WORKSPACE": str(folder / "var"), "SHELFWISE__OUTPUTS_DIR": str(folder / "outputs")}


@pytest.fixture(scope="session")
def demo_workspace(tmp_path_factory):
    """The demo catalog imported and indexed once per run, as `make demo` does but for the build flow's Prefect
    run (its function called as the flow calls it: a session that only reads the demo starts no Prefect server;
    the flow's own runs are tests/flows/test_build_indexes.py's); this session's copy of it."""
    from flows.build_indexes import build_index_version
    from flows.cli import main as shelfwise
    from flows.runs import workspace_writer

    def build(folder: Path) -> None:
        with workspace_env(workspace_in(folder)):
            assert shelfwise(["catalog", "import", str(DEMO_CATALOG)]) == 0
            settings = load_settings()
            with workspace_writer(settings, "the demo's index build"):
                assert build_index_version(settings).book_count > 0

    built = built_once(tmp_path_factory, "demo", build)
    with workspace_env(workspace_in(built)):
        env = copy_workspace(load_settings(), tmp_path_factory.mktemp("demo"))
    with workspace_env(env):
        yield load_settings()


def copy_workspace(settings, root: Path) -> dict[str, str]:
    """A copy of a workspace and its outputs under root (index paths are relative, so a copy works): its env."""
    import shutil

    shutil.copytree(settings.workspace, root / "var", ignore=shutil.ignore_patterns("prefect", "write.lock"))
    if settings.outputs_dir.exists():
        shutil.copytree(settings.outputs_dir, root / "outputs")
    return {"SHELFWISE__WORKSPACE": str(root / "var"), "SHELFWISE__OUTPUTS_DIR": str(root / "outputs")}


@pytest.fixture
def demo_copy(prefect_server, demo_workspace, tmp_path, monkeypatch):
    """A copy of the indexed demo workspace, made this test's: nothing it writes reaches another test; its flows
    and commands report to the session's Prefect server."""
    for key, value in copy_workspace(demo_workspace, tmp_path).items():
        monkeypatch.setenv(key, value)
    return load_settings()


@contextmanager
def workspace_env(env: dict[str, str]):
    """The process's settings point at another workspace (copy_workspace's env) until the block ends: for a
    session or module fixture, which outlives a test's monkeypatch; the session's other tests keep theirs."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="session")
def demo_run(demo_workspace, tmp_path_factory, request):
    """The demo batch shelved once per run, as the index is built (built_once), in a copy of the indexed demo
    workspace; this session's copy of it: for tests that read it. A rerun is compared with it digit for digit (a
    path score's last digit follows the process's string hashing: the xdist workers share one PYTHONHASHSEED, see
    pytest_configure). Its Prefect run is on the builder's server only."""
    from flows.cli import main as shelfwise

    def build(folder: Path) -> None:
        request.getfixturevalue("prefect_server")  # the builder's: the others read its result
        with workspace_env(copy_workspace(demo_workspace, folder)):
            assert shelfwise(["run", str(DEMO_THEMES)]) == 0

    built = built_once(tmp_path_factory, "demo-run", build)
    with workspace_env(workspace_in(built)):
        env = copy_workspace(load_settings(), tmp_path_factory.mktemp("demo-run"))
    with workspace_env(env):
        return load_settings()


@pytest.fixture
def demo_run_copy(prefect_server, demo_run, tmp_path, monkeypatch):
    """A copy of the workspace the demo batch was shelved in, made this test's: for tests that shelve more."""
    for key, value in copy_workspace(demo_run, tmp_path).items():
        monkeypatch.setenv(key, value)
    return load_settings()


@pytest.fixture
def server(demo_copy, monkeypatch):
    """`shelfwise server` for a copy of the demo workspace, on free ports, until the test ends; yields (command,
    UI address)."""
    from flows.prefect_api import free_port

    port = free_port()
    monkeypatch.setenv("SHELFWISE__SERVER__PORT", str(port))
    monkeypatch.setenv("SHELFWISE__SERVER__OUTPUTS_PORT", str(free_port()))
    # its serve loop asks for runs to start every 2 s, not Prefect's 10: a run the test triggers waits 1 s for it,
    # not 5 (four of them in test_prefect_faults)
    monkeypatch.setenv("PREFECT_RUNNER_POLL_FREQUENCY", "2")
    command = Command("server", own_server=True)
    command.wait_for(r"Your deployments are being served", timeout=300)
    yield command, f"http://127.0.0.1:{port}"
    if command.process.poll() is None:
        command.process.send_signal(signal.SIGINT)
        command.finish(timeout=60)


class Command:
    """`shelfwise ARGS` in its own process; its output is collected line by line as it comes."""

    def __init__(self, *args: str, own_server: bool = False, session: bool = False):
        env = dict(os.environ)
        if own_server:
            env.pop("PREFECT_API_URL", None)
        else:
            from prefect.settings import PREFECT_API_URL

            env["PREFECT_API_URL"] = PREFECT_API_URL.value()  # the session's server: no 15 s start each
        self.process = subprocess.Popen([sys.executable, "-m", "flows.cli", *args], cwd=PROJECT_ROOT, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=session)  # session: a group to Ctrl-C as a terminal does
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 300) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = next((line for line in self.lines if re.search(pattern, line)), None)
            if found:
                return found
            assert self.process.poll() is None, "\n".join(self.lines[-20:])
            time.sleep(0.1)
        raise AssertionError(f"no {pattern!r} within {timeout} s:\n" + "\n".join(self.lines[-20:]))

    def finish(self, timeout: float = 600) -> int:
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout=10)
        return code

    def children(self) -> list[int]:
        """Process ids of this command's children (its Prefect server, if it started one)."""
        found = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            found += [int(pid) for pid in (task / "children").read_text().split()]
        return found

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.finish()


def gone(pid: int, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
        except FileNotFoundError:
            return True
        if state == "Z":  # a zombie waiting for its new parent to reap it runs nothing
            return True
        time.sleep(0.2)
    return False
