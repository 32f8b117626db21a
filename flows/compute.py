"""A run's compute backend (`compute` in settings): in this process, or a Dask cluster whose workers run each piece
of work as a Prefect task run through prefect-dask's DaskTaskRunner, visible in the run's task list.

Dask is imported only when the settings ask for it: a local run starts no Dask process.
"""

from __future__ import annotations

import logging
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

from prefect import task
from prefect.cache_policies import NONE
from prefect.context import TaskRunContext

from config.settings import EmbedderSettings, Settings, setting_source
from flows.runs import form_field
from tasks.compute import Fanout, Item, Result
from tasks.errors import InputError

ComputeChoice = Literal["default", "local", "dask"]
COMPUTE_FIELD = form_field("Compute", "Where the work runs: local (this process) or dask (a cluster: "
                                      "compute.dask_address, else a LocalCluster of compute.dask_workers processes). "
                                      "default: compute.backend in config/settings.yaml.")
# A failed piece is run again this often; a worker that dies is another matter: Dask gives its pieces to the others.
RETRIES = 2
# Pieces in flight per worker: enough to keep each busy while the results are taken in order, few enough that
# finished results waiting to be taken stay small (a chunk of 2,048 vectors is 4 MB).
IN_FLIGHT_PER_WORKER = 4


def with_compute(settings: Settings, choice: ComputeChoice) -> Settings:
    """The settings with a run's choice of backend (the CLI's --compute, the run form's field); default keeps them."""
    if choice == "default":
        return settings
    return settings.model_copy(update={"compute": settings.compute.model_copy(update={"backend": choice})})


def check_scheduler(settings: Settings, timeout: float = 5.0) -> None:
    """InputError, before any work, when the dask backend names a scheduler that does not answer (Dask itself would
    retry for 30 s and fail the run with a traceback)."""
    address = settings.compute.dask_address
    if settings.compute.backend != "dask" or not address:
        return
    host, _, port = address.split("://", 1)[1].rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except (OSError, ValueError) as err:
        raise InputError(f"{setting_source('compute.dask_address')}: no Dask scheduler answers at {address} "
                         f"({err}): start one (`dask scheduler`), or run with --compute local") from None


@contextmanager
def fanout(settings: Settings) -> Iterator[Fanout | None]:
    """None for the local backend; else a DaskFanout on `compute.dask_address`, or on a LocalCluster of
    `compute.dask_workers` processes started here and stopped on leaving."""
    compute = settings.compute
    if compute.backend == "local":
        yield None
        return
    from prefect_dask import DaskTaskRunner

    logging.getLogger("distributed").setLevel(logging.WARNING)  # its every connection and worker start, at INFO
    if compute.dask_address:
        runner, embedder = DaskTaskRunner(address=compute.dask_address), settings.embedder
    else:  # one process per core: a worker's model runs on one thread
        runner = DaskTaskRunner(cluster_kwargs={"n_workers": compute.dask_workers, "threads_per_worker": 1,
                                                "processes": True, "dashboard_address": None})
        embedder = settings.embedder.model_copy(update={"threads": 1})
    with runner:
        workers = len(runner.client.scheduler_info(n_workers=-1)["workers"]) or compute.dask_workers
        yield DaskFanout(runner, compute.chunk_texts, embedder, workers * IN_FLIGHT_PER_WORKER)


class DaskFanout:
    """Each item a Prefect task run (retried RETRIES times) on the runner's Dask cluster; results in order."""

    def __init__(self, runner: Any, chunk: int, embedder: EmbedderSettings, in_flight: int):
        self.chunk, self.embedder = chunk, embedder
        self._runner, self._in_flight = runner, in_flight

    def map(self, name: str, fn: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]:
        step = task(open_parcel, name=name, cache_policy=NONE, retries=RETRIES)
        waiting = iter(enumerate(items, start=1))
        pending: deque = deque()

        def submit_next() -> None:
            for number, item in waiting:
                # Submitted as the flow run's own task runs: from inside a step's task run, Prefect would send
                # that run's context to the worker, its parameters too (a DuckDB connection cannot travel).
                outside_step = TaskRunContext.__var__.set(None)
                try:
                    pending.append(self._runner.submit(step.with_options(task_run_name=f"{name}-{number}"),
                                                       {"parcel": Parcel(fn, item)}))
                finally:
                    TaskRunContext.__var__.reset(outside_step)
                return

        for _ in range(self._in_flight):
            submit_next()
        while pending:
            result = pending.popleft().result()  # a piece that failed every retry fails the run here
            submit_next()
            yield result


class Parcel:
    """One piece of work as it travels to a worker. A plain object on purpose: Prefect walks a task's parameters
    through every list, tuple and dataclass, field by field, looking for futures, here and again on the worker, and
    copies what it walks; a chunk of 2,048 books has about a million fields (tokenising 1M books on two workers ran
    at 550 books a second that way, against 5,600 in one process). An object it does not know it passes on whole."""

    __slots__ = ("fn", "item")

    def __init__(self, fn: Callable[[Item], Result], item: Item):
        self.fn, self.item = fn, item


def open_parcel(parcel: Parcel) -> Any:
    """On a worker: the parcel's work done."""
    return parcel.fn(parcel.item)
