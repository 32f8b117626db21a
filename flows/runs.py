"""What every flow run that writes shares: one writer per workspace, and a run name and tags a curator can read.

A flow run first takes a slot of the workspace's Prefect global concurrency limit (so the UI shows
who waits for whom), then the workspace lock that CLI commands take too (storage/workspace_lock.py).
A run inside a command or a flow run that already holds the lock (the nightly run's batches,
`shelfwise run`'s flow) goes straight on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import Field

from config.settings import Settings
from storage.leftovers import remove_leftovers
from storage.workspace_lock import Holder, WorkspaceBusy, holds_lock, workspace_lock
from tasks.progress import logger

LEASE_SECONDS = 60  # a killed run's slot frees itself after this (Prefect's minimum)
NIGHTLY, MANUAL = "nightly", "manual"
# A batch whose themes wait for the curator's answer: its run's state name and tag, apart from a clean run's.
NEEDS_REVIEW, NEEDS_REVIEW_TAG = "NeedsReview", "needs-review"


def concurrency_limit_name(settings: Settings) -> str:
    """The global concurrency limit every writing flow run of this workspace takes a slot of."""
    digest = hashlib.sha256(str(settings.workspace.resolve()).encode()).hexdigest()[:8]
    return f"shelfwise-workspace-{digest}"


def ensure_concurrency_limit(settings: Settings) -> str:
    """Create the workspace's global concurrency limit (one slot) on the current Prefect API if missing."""
    from prefect import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound

    name = concurrency_limit_name(settings)
    with get_client(sync_client=True) as client:
        try:
            client.read_global_concurrency_limit_by_name(name)
        except ObjectNotFound:
            try:
                client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name=name, limit=1, active=True))
            except ObjectAlreadyExists:
                pass
    return name


def _in_flow_run() -> bool:
    from prefect.context import FlowRunContext

    return FlowRunContext.get() is not None


@contextmanager
def workspace_writer(settings: Settings, what: str) -> Iterator[None]:
    """Be the workspace's one writer for the block: a concurrency slot (in a flow run), then the lock."""
    if holds_lock(settings.workspace):
        with workspace_lock(settings.workspace, what, settings.locking.wait_seconds):
            yield
        return

    def waiting(holder: Holder | None) -> None:
        logger.info("waiting for %s to finish…", holder.describe() if holder else "another writer")

    if not _in_flow_run():
        with workspace_lock(settings.workspace, what, settings.locking.wait_seconds, waiting):
            _remove_leftovers(settings)
            yield
        return
    from prefect.concurrency.sync import concurrency

    name = ensure_concurrency_limit(settings)
    try:
        with concurrency(name, timeout_seconds=settings.locking.wait_seconds, lease_duration=LEASE_SECONDS,
                         strict=True):
            with workspace_lock(settings.workspace, what, settings.locking.wait_seconds, waiting):
                _remove_leftovers(settings)
                yield
    except TimeoutError:
        raise WorkspaceBusy(f"workspace {settings.workspace} is busy: no slot of concurrency limit {name} "
                            f"within {settings.locking.wait_seconds:g} s") from None


def _remove_leftovers(settings: Settings) -> None:
    """The first writer after an interrupted one removes what it left (storage/leftovers.py)."""
    left = remove_leftovers(settings)
    if left:
        logger.warning("removed what an interrupted command left: %s", ", ".join(left))


def label_run(name: str | None, tags: list[str]) -> None:
    """Rename the current flow run (None: keep its name) and add tags (a batch id known only once the run has
    started)."""
    from prefect import get_client
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    if context is None or context.flow_run is None:
        return
    run = context.flow_run
    with get_client(sync_client=True) as client:  # the server's tags: an earlier call may have added some
        current = client.read_flow_run(run.id).tags
        client.update_flow_run(run.id, name=name or run.name, tags=sorted({*run.tags, *current, *tags}))


def trigger_tag() -> str:
    """nightly inside the nightly run (its batches inherit the tag), else manual."""
    from prefect.context import FlowRunContext, TagsContext

    context = FlowRunContext.get()
    tags = set(TagsContext.get().current_tags) | set(context.flow_run.tags if context and context.flow_run else ())
    return NIGHTLY if NIGHTLY in tags else MANUAL


def form_field(title: str, description: str, **constraints: Any) -> Any:
    """A flow parameter's title and description on the run form (`Annotated[type, form_field(...)]`).

    Prefect titles every parameter with its name and takes descriptions from the docstring only; values
    in json_schema_extra are written last, so these win. Constraints (pattern=...) are checked by the
    form and again when the run starts.
    """
    return Field(json_schema_extra={"title": title, "description": description}, **constraints)
