"""The deployments: nightly on its schedule, generate-shelves and build-indexes on demand from the UI.

`shelfwise server` serves them from its own process (one run at a time); `shelfwise deploy` registers
them with a process work pool instead, so that their schedule lives in the Prefect server and a worker
(`shelfwise server --worker`) runs them whenever it is up.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from prefect.client.schemas.objects import ConcurrencyLimitConfig, ConcurrencyLimitStrategy
from prefect.deployments.runner import EntrypointType
from prefect.schedules import Cron

from config.settings import Settings
from flows.build_indexes import build_indexes
from flows.generate_shelves import generate_shelves, nightly
from flows.review import import_review_flow
from flows.runs import MANUAL, NIGHTLY, ensure_concurrency_limit

TAG = "shelfwise"
# A second run of a deployment waits for the first rather than fail on the workspace.
ONE_AT_A_TIME = ConcurrencyLimitConfig(limit=1, collision_strategy=ConcurrencyLimitStrategy.ENQUEUE)


def deployments(settings: Settings, entrypoint_type: EntrypointType = EntrypointType.FILE_PATH) -> list:
    """nightly (cron and timezone from config); generate-shelves, build-indexes and import-review by hand."""
    schedule = settings.schedule
    common = {"concurrency_limit": ONE_AT_A_TIME, "entrypoint_type": entrypoint_type}
    return [
        nightly.to_deployment(name="nightly", schedules=[Cron(schedule.cron, timezone=schedule.timezone)],
                              tags=[TAG, NIGHTLY], **common),
        generate_shelves.to_deployment(name="generate-shelves", tags=[TAG, MANUAL], **common),
        build_indexes.to_deployment(name="build-indexes", tags=[TAG, MANUAL], **common),
        import_review_flow.to_deployment(name="import-review", tags=[TAG, MANUAL], **common),
    ]


def serve_deployments(settings: Settings, banner: Callable[[], None] | None = None) -> None:
    """Serve the deployments from this process, one flow run at a time, until interrupted; `banner` is called
    once they are registered (Prefect's own banner tells `prefect deployment run`, which without
    PREFECT_API_URL talks to no server).

    Schedules stay active when it stops: a nightly run due meanwhile waits as Late and runs when it is back.
    """
    from prefect.exceptions import TerminationSignal
    from prefect.runner import Runner

    ensure_concurrency_limit(settings)
    runner = Runner(limit=1, pause_on_shutdown=False)
    for deployment in deployments(settings):
        runner.add_deployment(deployment)
    if banner is not None:
        banner()
    try:
        asyncio.run(runner.start())
    except (KeyboardInterrupt, TerminationSignal):
        pass


def trigger_hint(settings: Settings, api_url: str) -> str:
    """The served deployments, and a command that runs one as printed, from any shell on this machine."""
    names = [f"{d.flow_name}/{d.name}" for d in deployments(settings)]
    prefect = Path(sys.executable).with_name("prefect")
    auth = " PREFECT_API_AUTH_STRING=USER:PASSWORD" if os.environ.get("PREFECT_API_AUTH_STRING") else ""
    return (f"Your deployments are being served: {', '.join(names)}\n"
            f"To run one from a shell: PREFECT_API_URL={api_url} PREFECT_HOME={settings.prefect_home}{auth} "
            f"{prefect} deployment run 'build-indexes/build-indexes'")  # the one that needs no parameter


def keep_serving(serve_once: Callable[[], None], stopping: threading.Event, pause_seconds: float = 5.0) -> None:
    """Serve until asked to stop: a serve loop that ends or fails on its own (the API gone a while) starts again."""
    while not stopping.is_set():
        try:
            serve_once()
        except Exception as err:  # noqa: BLE001 - whatever stopped it, the schedule must go on
            print(f"the serve loop stopped: {type(err).__name__}: {err}; starting it again in {pause_seconds:g} s",
                  file=sys.stderr, flush=True)
        else:
            if stopping.is_set():
                return
            print(f"the serve loop stopped; starting it again in {pause_seconds:g} s", file=sys.stderr, flush=True)
        stopping.wait(pause_seconds)


def register_with_work_pool(settings: Settings) -> list[str]:
    """Create the process work pool (one run at a time) if missing and register the deployments with it."""
    from prefect import deploy, get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists

    pool = settings.server.work_pool
    with get_client(sync_client=True) as client:
        try:
            client.create_work_pool(WorkPoolCreate(name=pool, type="process", concurrency_limit=1,
                                                   description="Shelfwise: one writer at a time"))
        except ObjectAlreadyExists:
            pass
    ensure_concurrency_limit(settings)
    ids = deploy(*deployments(settings, EntrypointType.MODULE_PATH), work_pool_name=pool, build=False, push=False,
                 print_next_steps_message=False, ignore_warnings=True)
    return [str(i) for i in ids]


def run_worker(settings: Settings) -> None:
    """Run a process worker for the work pool, one flow run at a time, until interrupted."""
    from prefect.workers.process import ProcessWorker

    try:
        asyncio.run(ProcessWorker(work_pool_name=settings.server.work_pool, limit=1).start())
    except KeyboardInterrupt:
        pass
