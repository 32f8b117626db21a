"""Recall: every recall path that runs for the brief, at once, under its hard constraints."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

from tasks.model.stages import Hits, Understood
from tasks.progress import timed
from tasks.recall.context import RecallContext
from tasks.recall.paths import registered
from tasks.recall.paths.base import PathRecall


def recall(understood: Understood, ctx: RecallContext) -> Hits:
    """The hits of every path that runs for the brief, by path name, with the dense paths' query vectors; no book
    withdrawn since the index was built."""
    timings: dict[str, float] = {}
    jobs = {path.name: (lambda path=path: path.find(understood, ctx))
            for path in registered() if path.runs(understood, ctx)}
    with timed(timings, "recall"):
        recalled = run_jobs(jobs, timings, ctx.settings.recall.parallel_paths)
    return Hits(paths={name: [h for h in hits if h.book_id not in ctx.withdrawn]
                       for r in recalled.values() for name, hits in r.paths.items()},
                query_vectors={name: r.query_vector for name, r in recalled.items() if r.query_vector is not None},
                notes=tuple(r.note for r in recalled.values() if r.note), stage_seconds=timings)


def run_jobs(jobs: Mapping[str, Callable[[], PathRecall]], timings: dict[str, float],
             parallel: bool = True) -> dict[str, PathRecall]:
    """Run the recall jobs on threads (LanceDB, bm25s and NumPy release the GIL); results in the jobs' order.

    Each job's own time is kept as "recall.<job>" (they overlap: only "recall" adds up with other stages).
    """
    def run(name: str) -> PathRecall:
        with timed(timings, f"recall.{name}"):
            return jobs[name]()

    if len(jobs) <= 1 or not parallel:
        return {name: run(name) for name in jobs}
    with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix="recall") as pool:
        futures = {name: pool.submit(run, name) for name in jobs}
        return {name: future.result() for name, future in futures.items()}
