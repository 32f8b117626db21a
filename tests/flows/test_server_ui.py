"""`shelfwise server`: a persistent Prefect server with its UI on 127.0.0.1, serving the deployments; runs
triggered as the UI's run form triggers them; `shelfwise deploy` registering them with a work pool."""

from __future__ import annotations

import os
import signal
import time

import httpx
import pytest
from prefect import get_client
from prefect.settings import PREFECT_API_URL, temporary_settings

from flows.cli import main as shelfwise
from flows.runs import concurrency_limit_name
from storage.catalog_db import open_catalog
from tests.conftest import Command, gone

pytestmark = pytest.mark.slow


def test_the_ui_runs_two_batches_triggered_together_one_after_the_other(server, demo_copy, monkeypatch):
    command, url = server
    page = httpx.get(url + "/", timeout=30)
    assert page.status_code == 200 and "<title>Prefect" in page.text  # the UI, not the API's 404
    assert httpx.get(url + "/ui-settings", timeout=30).json()["api_url"] == url + "/api"  # where the UI looks
    with temporary_settings({PREFECT_API_URL: url + "/api"}), get_client(sync_client=True) as client:
        deployment = client.read_deployment_by_name("generate-shelves/generate-shelves")
        runs = [client.create_flow_run_from_deployment(deployment.id, parameters={
                    "batch_id": batch, "themes": [{"theme_id": "t1", "theme_name": name}]})
                for batch, name in (("ui-one", "Quiet novels for a rainy night"), ("ui-two", "鲁迅作品专题"))]
        deadline = time.monotonic() + 600
        while not all(r.state.is_final() for r in runs) and time.monotonic() < deadline:
            time.sleep(2)
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

    # `shelfwise deploy` finds the workspace's server and registers the deployments with a process work pool
    with temporary_settings({PREFECT_API_URL: None}):
        monkeypatch.delenv("PREFECT_API_URL", raising=False)
        assert shelfwise(["deploy"]) == 0
    with temporary_settings({PREFECT_API_URL: url + "/api"}), get_client(sync_client=True) as client:
        nightly = client.read_deployment_by_name("nightly/nightly")
        pool = client.read_work_pool("shelfwise")
    assert nightly.work_pool_name == "shelfwise" and pool.type == "process" and pool.concurrency_limit == 1
    assert [s.active for s in nightly.schedules] == [True]

    children = command.children()
    os.kill(command.process.pid, signal.SIGKILL)  # killed: its Prefect server goes too
    command.finish()
    # A flow run's process may still be ending as the command dies (flushing its logs to the server); under
    # `ci-fresh`'s load one child was still there after 20 s, once, and alone the server is gone in about 1 s.
    assert children and all(gone(pid, timeout=90) for pid in children)
