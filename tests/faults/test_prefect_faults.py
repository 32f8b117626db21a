"""`shelfwise server` and the Prefect server going away: the UI's runs one writer at a time and `shelfwise deploy`
on the way; the Prefect server killed under `shelfwise server`, it comes back with its schedules and serves
again; the server killed under a run, the run still delivers and says its record may be incomplete (a command on
a temporary server, which links to nothing of it, is test_kill_and_concurrency's killed run). Real servers and real
processes."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest
from prefect import get_client
from prefect.settings import PREFECT_API_URL, temporary_settings

from flows.cli import main as shelfwise
from flows.runs import concurrency_limit_name
from storage.catalog_db import open_catalog
from tests.conftest import DEMO_THEMES, Command, gone
from tests.faults.test_kill_and_concurrency import history

pytestmark = pytest.mark.slow


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:  # ended since it was listed
        return b""


def test_the_server_runs_the_uis_batches_one_at_a_time_restarts_its_prefect_server_and_a_run_outlives_it(
        server, demo_copy, record, monkeypatch):
    """One `shelfwise server` for all of it (a start costs half a minute): its Prefect server killed, it comes back
    on its database with its schedules and serves on: the UI's run form triggers two batches at once, which run one
    after the other; `shelfwise deploy` registers the deployments with a work pool; then the server itself killed
    under a run, which prints its workbook and says that its record may be incomplete, and no process of the server
    is left."""
    command, url = server
    api = f"{url}/api"
    page = httpx.get(url + "/", timeout=30)
    assert page.status_code == 200 and "<title>Prefect" in page.text  # the UI, not the API's 404
    assert httpx.get(url + "/ui-settings", timeout=30).json()["api_url"] == api  # where the UI looks
    with temporary_settings({PREFECT_API_URL: api}), get_client(sync_client=True) as client:
        deployment = client.read_deployment_by_name("generate-shelves/generate-shelves")

    # its Prefect server killed first: the UI's two batches below are then what shows that the serve loop picks
    # up runs again and that the workspace's one slot is free after the restart (a run process each: 4 s of CPU)
    [prefect_server] = [pid for pid in command.children() if b"server\x00start" in cmdline(pid)]
    os.kill(prefect_server, signal.SIGKILL)
    command.wait_for(r"^the Prefect server stopped \(exit code -9\); starting it again$", timeout=60)
    command.wait_for(rf"^the Prefect server answers again at {api}$", timeout=300)
    record("the Prefect server of `shelfwise server` killed", "the Prefect server stopped (exit code -9); starting it "
           f"again / the Prefect server answers again at {api}", "history, deployments and schedules",
           "server-prefect-killed")
    with temporary_settings({PREFECT_API_URL: api}), get_client(sync_client=True) as client:
        assert client.read_deployment_by_name("generate-shelves/generate-shelves").id == deployment.id  # its database
        nightly = client.read_deployment_by_name("nightly/nightly")
        assert [s.active for s in nightly.schedules] == [True]
        runs = [client.create_flow_run_from_deployment(deployment.id, parameters={
                    "batch_id": batch, "themes": [{"theme_id": "t1", "theme_name": name}]})
                for batch, name in (("ui-one", "Quiet novels for a rainy night"), ("ui-two", "鲁迅作品专题"))]
        deadline = time.monotonic() + 600
        while not all(r.state.is_final() for r in runs) and time.monotonic() < deadline:
            time.sleep(1)
            runs = [client.read_flow_run(r.id) for r in runs]
        limit = client.read_global_concurrency_limit_by_name(concurrency_limit_name(demo_copy))
    # both ran to the end; a Lu Xun spotlight of fewer than 10 books ends NeedsReview, a kind of Completed
    assert [r.name for r in runs] == ["shelves-ui-one", "shelves-ui-two"] and all(r.state.is_completed() for r in runs)
    assert all({f"batch:{b}", "manual"} <= set(r.tags) for r, b in zip(runs, ("ui-one", "ui-two")))
    first, second = sorted(runs, key=lambda r: r.start_time)
    assert second.created < first.end_time  # both were asked for while the first had not finished
    assert first.end_time <= second.start_time  # one writer at a time
    assert limit.limit == 1 and limit.active
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        rows = db.conn.execute("SELECT batch_id, theme_id, count(*) FROM shelf_history WHERE batch_id LIKE 'ui-%' "
                               "GROUP BY 1, 2 ORDER BY 1").fetchall()
    assert [(batch, theme) for batch, theme, _ in rows] == [("ui-one", "t1"), ("ui-two", "t1")]
    assert all(books > 0 for _, _, books in rows)
    assert command.process.poll() is None

    # `shelfwise deploy` finds the workspace's server and registers the deployments with a process work pool
    with temporary_settings({PREFECT_API_URL: None}):
        monkeypatch.delenv("PREFECT_API_URL", raising=False)
        assert shelfwise(["deploy"]) == 0
    with temporary_settings({PREFECT_API_URL: api}), get_client(sync_client=True) as client:
        nightly = client.read_deployment_by_name("nightly/nightly")
        pool = client.read_work_pool("shelfwise")
    assert nightly.work_pool_name == "shelfwise" and pool.type == "process" and pool.concurrency_limit == 1
    assert [s.active for s in nightly.schedules] == [True]

    # what is proven is that the run outlives its server, not how long its client retries the server first (6 s
    # for each call that finds it gone, by default)
    monkeypatch.setenv("SHELFWISE__PREFECT__CLIENT_RETRIES", "0")
    run = Command("run", str(DEMO_THEMES), own_server=True)  # reports to the workspace's server
    run.wait_for(r"theme \S+: (done|needs_review)")  # shelving: the server goes now, its Prefect server with it
    children = command.children()
    os.kill(command.process.pid, signal.SIGKILL)
    command.finish()
    code = run.finish()
    workbook = demo_copy.outputs_dir / "demo-2026-11.xlsx"
    record("`shelfwise server` killed while `run` shelves", f"exit {code}: {run.lines[-1]}",
           "the shelves recorded and the workbook written", "server-killed-mid-run")
    assert code == 0, "\n".join(run.lines[-20:])
    assert run.lines[-2:] == [f"workbook: {workbook}",
                              f"warning: the Prefect server at {api} stopped answering during the run: the shelves "
                              "are written and recorded, but the run's record in Prefect may be incomplete"]
    assert workbook.is_file()
    assert history(demo_copy, "demo-2026-11")  # recorded
    # A flow run's process may still be ending as the command dies (flushing its logs to the server); under
    # `ci-fresh`'s load one child was still there after 20 s, once, and alone the server is gone in about 1 s.
    assert children and all(gone(pid, timeout=90) for pid in children)

