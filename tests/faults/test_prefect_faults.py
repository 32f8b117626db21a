"""The Prefect server going away: killed under a run, the run still delivers and says its record may be
incomplete; killed under `shelfwise server`, it comes back with its schedules and serves again; and a command
that ran on a temporary server links to nothing that is gone. Real servers and real processes."""

from __future__ import annotations

import os
import signal
import time

import pytest
from prefect import get_client
from prefect.settings import PREFECT_API_URL, temporary_settings

from tests.conftest import DEMO_THEMES, Command
from tests.faults.test_kill_and_concurrency import history

pytestmark = pytest.mark.slow


def test_the_server_starts_its_prefect_server_again_and_a_run_whose_server_is_killed_still_delivers(server, demo_copy,
                                                                                                  record):
    """One `shelfwise server` for both (a start costs half a minute): its Prefect server killed, it comes back with
    its schedules and serves on; then the server itself killed under a run, which prints its workbook and says
    that its record may be incomplete."""
    command, url = server
    api = f"{url}/api"
    [prefect_server] = command.children()
    os.kill(prefect_server, signal.SIGKILL)
    command.wait_for(r"^the Prefect server stopped \(exit code -9\); starting it again$", timeout=60)
    command.wait_for(rf"^the Prefect server answers again at {api}$", timeout=300)
    record("the Prefect server of `shelfwise server` killed", "the Prefect server stopped (exit code -9); starting it "
           f"again / the Prefect server answers again at {api}", "history, deployments and schedules",
           "server-prefect-killed")
    with temporary_settings({PREFECT_API_URL: api}), get_client(sync_client=True) as client:
        nightly = client.read_deployment_by_name("nightly/nightly")
        assert [s.active for s in nightly.schedules] == [True]
        build = client.read_deployment_by_name("build-indexes/build-indexes")
        run = client.create_flow_run_from_deployment(build.id)  # the serve loop picks it up again
        deadline = time.monotonic() + 300
        while not run.state.is_final() and time.monotonic() < deadline:
            time.sleep(1)
            run = client.read_flow_run(run.id)
    assert run.state.is_completed(), run.state
    assert command.process.poll() is None

    run = Command("run", str(DEMO_THEMES), own_server=True)  # reports to the workspace's server
    run.wait_for(r"theme \S+: (done|needs_review)")  # shelving: the server goes now, its Prefect server with it
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


def test_a_command_on_a_temporary_server_links_to_no_page_of_it(demo_copy):
    build = Command("index", "build", own_server=True)
    assert build.finish() == 0, "\n".join(build.lines[-20:])
    assert any(line.startswith("index ") and "is up to date" in line for line in build.lines)
    assert not [line for line in build.lines if "View at" in line or "http://" in line]
