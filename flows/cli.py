"""The `shelfwise` command line.

Commands that write the workspace hold its lock (storage/workspace_lock.py) and wait, saying for whom,
when another writer has it; `status` and `try` only read and never wait for it. A user's mistake is
one line on stderr and exit code 2; a run whose themes failed exits 1.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from config.settings import Settings, SettingsError, configure_runtime_environment, load_settings, setting_source
from flows.prefect_api import ServerError
from storage.catalog_db import CatalogBusy, CatalogMissing, CatalogUnreadable
from storage.index_root import IndexStoreError
from storage.paths import NotWritable, UnsafePath, full_disk
from storage.workspace_lock import Holder, WorkspaceBusy
from tasks.intake.formats import SOURCE_FORMATS, CatalogFileError
from tasks.errors import InputError
from tasks.model.themes import LANGUAGE_PREFERENCES

# A user's mistake or a busy workspace: one line and exit 2, never a traceback.
USER_ERRORS = (InputError, CatalogFileError, SettingsError, WorkspaceBusy, CatalogBusy, CatalogMissing, NotWritable,
               UnsafePath, ServerError, CatalogUnreadable, IndexStoreError)


@contextmanager
def _writing(settings: Settings, what: str) -> Iterator[None]:
    """Hold the workspace's write lock, saying on stderr whom we wait for."""
    from storage.leftovers import remove_leftovers
    from storage.paths import check_writable
    from storage.workspace_lock import workspace_lock

    check_writable(settings.workspace, "workspace")
    wait = settings.locking.wait_seconds

    def waiting(holder: Holder | None) -> None:
        who = holder.describe() if holder else "another writer"
        print(f"waiting for {who} to finish… (up to {wait:g} s, locking.wait_seconds)", file=sys.stderr, flush=True)

    with workspace_lock(settings.workspace, what, wait, waiting):
        left = remove_leftovers(settings)
        if left:
            print(f"removed what an interrupted command left: {', '.join(left)}", file=sys.stderr, flush=True)
        try:
            yield
        finally:  # a build that failed or was interrupted: its half-written folder goes now (it may fill a disk)
            remove_leftovers(settings)


def _command_line(args: argparse.Namespace) -> str:
    return "`shelfwise " + " ".join(args.argv) + "`"


def _cmd_catalog_import(args: argparse.Namespace, settings: Settings) -> int:
    from config.vocabulary import get_vocabulary
    from storage.catalog_db import open_catalog
    from tasks.catalog.ingest import ColumnMapping, load_mapping, validate_file

    mapping = load_mapping(Path(args.mapping)) if args.mapping else ColumnMapping()
    rows = validate_file(Path(args.file), mapping, get_vocabulary(), args.format, args.encoding)
    if not rows.books and not rows.rejected and not rows.withdrawn:
        raise InputError(f"{args.file}: no rows to import")
    unknown_ids = [r.row_number for r in rows.rejected if not (r.raw or {}).get(mapping.source_column("book_id") or "")]
    if args.replace and unknown_ids:
        raise InputError(f"{args.file}: --replace withdraws the books a full export leaves out, but record(s) "
                         f"{', '.join(map(str, unknown_ids[:5]))} could not be read to an id; fix them or import "
                         "without --replace")
    with _writing(settings, _command_line(args)), open_catalog(settings.duckdb_path) as db:
        withdraw = list(rows.withdrawn)
        if args.replace:
            present = {b.book_id for b in rows.books} | {mapping.id_prefix + str(r.raw[mapping.source_column(
                "book_id")]).strip() for r in rows.rejected}
            withdraw += sorted(db.book_ids() - present)
        counts = db.import_books(rows.books, rows.rejected, str(Path(args.file)), rows.warnings, withdraw)
    overwritten = f" ({counts.overwritten} of them first imported from another file)" if counts.overwritten else ""
    print(f"{args.file}: read {rows.read}: inserted {counts.inserted}, updated {counts.updated}{overwritten}, "
          f"unchanged {counts.unchanged}, rejected {counts.rejected}, withdrawn {len(rows.withdrawn)}, "
          f"warnings {counts.warnings}")
    if rows.encoding and rows.encoding != "UTF-8":
        print(f"  encoding: read as {rows.encoding}")
    if counts.withdrawn:
        print(f"  withdrawn from the catalog: {counts.withdrawn} books (off every later shelf; the next index build "
              "drops them)")
    for note in rows.notes:
        print(f"  note: {note}")
    for row in rows.rejected[: args.show_rejected]:
        print(f"  rejected row {row.row_number}: {row.field}: {row.reason}")
    if len(rows.rejected) > args.show_rejected:
        print(f"  ... {len(rows.rejected) - args.show_rejected} more in the rejected_rows table")
    for warning in rows.warnings[: args.show_rejected]:
        print(f"  warning row {warning.row_number}: {warning.field}: {warning.message}")
    if len(rows.warnings) > args.show_rejected:
        print(f"  ... {len(rows.warnings) - args.show_rejected} more in the import_warnings table")
    return 0


def _cmd_catalog_remove(args: argparse.Namespace, settings: Settings) -> int:
    from storage.catalog_db import open_catalog

    with _writing(settings, _command_line(args)), open_catalog(settings.duckdb_path) as db:
        unknown = sorted(set(args.book_ids) - db.book_ids() - db.withdrawn_ids())
        if unknown:
            raise InputError(f"catalog remove: no book {unknown[0]!r} in the catalog"
                             + (f" (and {len(unknown) - 1} more unknown ids)" if len(unknown) > 1 else "")
                             + "; nothing was removed")
        removed = db.withdraw(args.book_ids, _command_line(args))
    print(f"withdrew {removed} books ({len(args.book_ids) - removed} were already withdrawn); they leave every later "
          "shelf, and the next index build drops them")
    return 0


def _cmd_index_build(args: argparse.Namespace, settings: Settings) -> int:
    from flows.build_indexes import build_indexes, check_catalog_has_books
    from flows.compute import check_scheduler, with_compute
    from storage.catalog_db import open_catalog

    with _writing(settings, _command_line(args)):
        with open_catalog(settings.duckdb_path) as db:  # before Prefect: one line, not a failed flow's log
            check_catalog_has_books(db, settings)
        check_scheduler(with_compute(settings, args.compute or "default"))
        with _flow_runs(settings, lambda api: _built_without_server(settings, api)):
            state = build_indexes(full=args.full, compute=args.compute or "default", return_state=True)
    if not state.is_completed():
        _raise_full_disk(state.result(raise_on_failure=False), settings)
        print(f"error: the index build failed: {state.message}", file=sys.stderr)
        return 1
    report = state.result()
    if report.up_to_date:
        print(f"index {report.version_id} is up to date ({report.book_count} books)")
    else:
        print(f"index {report.version_id}: {report.book_count} books, {report.sentence_count} sentences; "
              f"embedded {report.books_embedded} books and {report.sentences_embedded} sentences, "
              f"tagged {report.books_enriched}, tokenized {report.books_tokenized}")
    print("stages (s): " + ", ".join(f"{k} {v:.2f}" for k, v in report.stage_seconds.items()))
    return 0


def _cmd_status(args: argparse.Namespace, settings: Settings) -> int:
    import duckdb

    from storage.catalog_db import open_catalog
    from storage.index_store import missing_files
    from storage.shelf_db import ShelfDB
    from storage.theme_inbox import waiting_themes
    from storage.workspace_lock import current_holder

    from flows.prefect_api import next_run, server_and_runs

    holder = current_holder(settings.workspace)
    api, up, runs = server_and_runs(settings)
    status: dict = {"workspace": str(settings.workspace), "writer": holder.describe() if holder else None,
                    "server": {"api": api, "answers": up}, "recent_runs": [vars(r) for r in runs],
                    "next_nightly": f"{next_run(settings.schedule.cron, settings.schedule.timezone)} "
                                    f"({settings.schedule.cron}, {settings.schedule.timezone})",
                    "catalog": None, "unreadable": None, "changed_since_last_build": None, "index": None,
                    "pending": [], "waiting_for_answer": [],
                    "waiting_in_inbox": [w.batch_id for w in waiting_themes(settings.workspace)]}
    try:
        with open_catalog(settings.duckdb_path, read_only=True,
                          retry_seconds=settings.locking.busy_retry_seconds) as db:
            status["catalog"] = db.catalog_counts()
            status["changed_since_last_build"] = db.books_changed_since_build()
            current = db.current_index_version()
            if current:
                status["index"] = {
                    "version": current.version_id, "built_at": current.created_at.isoformat(timespec="seconds"),
                    "books": current.book_count, "sentences": current.sentence_count,
                    "embedder": current.embedder, "snapshot_hash": current.snapshot_hash[:16],
                    "stage_seconds": current.stage_seconds, "path": current.path,
                    "missing_files": missing_files(current.path),
                }
            if db.has_table("themes"):
                shelf_db = ShelfDB(db.conn, read_only=True)
                status["pending"] = [{"batch": b.batch_id, "themes": b.pending, "failed": b.failed}
                                     for b in shelf_db.pending()]
                status["waiting_for_answer"] = [{"batch": b, "theme": t, "name": n}
                                                for b, t, n in shelf_db.waiting_for_answer()]
    except CatalogMissing:
        pass
    except (CatalogBusy, CatalogUnreadable) as err:
        status["unreadable"] = str(err)
    except duckdb.CatalogException:  # read-only, an older catalog cannot be brought up to date here
        status["unreadable"] = (f"catalog {settings.duckdb_path} was written by an older Shelfwise; "
                          "the next command that writes brings it up to date")
    if args.json:
        print(json.dumps(status, ensure_ascii=False, indent=2))
        return 0
    _print_status(status)
    return 0


def _print_status(status: dict) -> None:
    print(f"workspace: {status['workspace']}")
    print(f"writer: {status['writer'] or 'none'}")
    server = status["server"]
    if server["api"] is None:
        print("prefect server: none running (start one with `shelfwise server`)")
    else:
        print(f"prefect server: {server['api']}, " + ("answers" if server["answers"] else "does not answer"))
    for run in status["recent_runs"]:
        print(f"run: {run['name']}: {run['state']}" + (f", {run['started']}" if run["started"] else ""))
    print(f"next nightly run: {status['next_nightly']}")
    if status["unreadable"]:
        print(f"catalog: not readable now: {status['unreadable']}")
        return
    if status["catalog"] is None:
        print("catalog: none yet (run `shelfwise catalog import FILE`)")
        return
    print("catalog: " + ", ".join(f"{k} {v}" for k, v in status["catalog"].items()))
    if status["index"]:
        idx = status["index"]
        print(f"index: {idx['version']} built {idx['built_at']} UTC, {idx['books']} books, "
              f"{idx['sentences']} sentences, embedder {idx['embedder']}")
        if idx["missing_files"]:
            print(f"index: files missing from {idx['path']}: {', '.join(idx['missing_files'])}; "
                  "run `shelfwise index build --full`")
    else:
        print("index: none built yet (run `shelfwise index build`)")
    changed = status["changed_since_last_build"]
    print(f"since the last build: {changed['added']} added, {changed['changed']} changed, "
          f"{changed['removed']} removed")
    for batch in status["pending"]:
        failed = "".join(f"; {t} failed last time: {e}" for t, e in batch["failed"].items())
        print(f"pending: batch {batch['batch']}, {batch['themes']} themes{failed}")
    for theme in status["waiting_for_answer"]:
        print(f"waiting for an answer: batch {theme['batch']}, theme {theme['theme']} ({theme['name']}): "
              "its question is on the workbook's `needs review` sheet")
    for batch_id in status["waiting_in_inbox"]:
        print(f"waiting to be imported: batch {batch_id} (the next run imports it)")


def _read_themes(args: argparse.Namespace):
    """The theme file, read and checked (nothing is written yet)."""
    from tasks.intake.themes import read_themes

    theme_file = read_themes(Path(args.file), args.batch)
    if theme_file.made_batch_id:
        print(f"{args.file}: names no batch, so it is batch {theme_file.batch_id} (choose one with --batch)")
    for row in theme_file.rejected:
        print(f"  rejected row {row.row_number}: {row.field}: {row.reason}")
    return theme_file


@contextmanager
def _importing(args: argparse.Namespace, settings: Settings, theme_file,  # noqa: ANN001
               shelving: bool = False) -> Iterator[int]:
    """Keep the themes in the inbox, wait for the workspace and import them; yields, still holding the
    workspace, how many themes the batch has. Shelving needs an index: InputError without one."""
    from storage.catalog_db import open_catalog
    from storage.shelf_db import ShelfDB
    from storage.theme_inbox import import_waiting_themes, keep_themes

    keep_themes(settings.workspace, theme_file.batch_id, theme_file.themes, theme_file.rejected)
    try:
        with _writing(settings, _command_line(args)):
            with open_catalog(settings.duckdb_path) as db:
                for imported in import_waiting_themes(db, settings.workspace):
                    counts = imported.counts
                    mine = imported.batch_id == theme_file.batch_id
                    print(f"{args.file if mine else 'waiting themes'}: batch {imported.batch_id}: inserted "
                          f"{counts['inserted']}, updated {counts['updated']}, unchanged {counts['unchanged']}"
                          + (f", rejected {len(theme_file.rejected)}" if mine else ""))
                themes = len(ShelfDB(db.conn).themes(theme_file.batch_id))
                if shelving:
                    _require_index(db)
            yield themes
    except WorkspaceBusy as err:
        raise WorkspaceBusy(f"{err}; the themes of batch {theme_file.batch_id} are kept, and the next run "
                            "imports them") from None


def _require_index(db) -> None:  # noqa: ANN001 - an open CatalogDB
    if db.current_index_version() is None:
        raise InputError("no index has been built yet: run `shelfwise index build`")


def _cmd_themes_import(args: argparse.Namespace, settings: Settings) -> int:
    theme_file = _read_themes(args)
    with _importing(args, settings, theme_file):
        pass
    if not theme_file.themes:  # the rejected rows are kept all the same
        print(f"error: {args.file}: no theme to import ({len(theme_file.rejected)} rejected)", file=sys.stderr)
        return 2
    return 0


def _cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    from storage.paths import workbook_path

    if args.file is None and not args.batch:
        raise InputError("run: name a theme file, or --batch ID to shelve a batch again")
    theme_file = _read_themes(args) if args.file else None  # before the heavy imports: a bad file is refused at once

    from flows.compute import check_scheduler, with_compute
    from flows.generate_shelves import ShelvingFailed, check_outputs, generate_shelves, switch_value

    batch_id = theme_file.batch_id if theme_file else args.batch
    workbook_path(settings.outputs_dir, batch_id)
    check_outputs(settings)
    check_scheduler(with_compute(settings, args.compute or "default"))
    with _importing(args, settings, theme_file, shelving=True) if theme_file else _known_batch(args, settings) as themes:
        if not themes:
            print(f"error: {args.file or batch_id}: batch {batch_id} has no theme to shelve"
                  + (f" ({len(theme_file.rejected)} rejected)" if theme_file else ""), file=sys.stderr)
            return 2
        started = time.time()
        with _flow_runs(settings, lambda api: _saved_without_server(settings, batch_id, api, started)):
            state = generate_shelves(batch_id, sentence_rerank=switch_value(args.sentence_rerank),
                                     query_expansion=switch_value(args.expansion),
                                     language_preference=args.language_preference or "default",
                                     apply_review=args.apply_review, compute=args.compute or "default",
                                     return_state=True)
    outcome = state.result(raise_on_failure=False)
    result = outcome.result if isinstance(outcome, ShelvingFailed) else outcome
    if isinstance(outcome, USER_ERRORS):
        raise outcome
    if isinstance(outcome, BaseException) and result is outcome:
        _raise_full_disk(outcome, settings)
        print(f"error: the run failed: {type(outcome).__name__}: {outcome}", file=sys.stderr)
        return 1
    for theme_id, count in result.shelves.items():
        print(f"  {theme_id}: {result.statuses[theme_id]}, {count} books")
    print(f"workbook: {result.workbook}")
    if not state.is_completed():
        print(f"error: {state.message}", file=sys.stderr)
        return 1
    return 0


class _LeaveNow(Exception):  # noqa: N818 - not an error: the command is done
    """The command has said what it did and the Prefect server is gone: its clients would spend minutes more on
    the events and logs they still hold for it. main() ends the process at once with this exit code."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


@contextmanager
def _flow_runs(settings: Settings, saved: Callable[[str], int]) -> Iterator[None]:
    """The Prefect API for the block's flow runs (flows/prefect_api.py); should that server go away under them,
    saved(api) says what the workspace holds, and the command ends with the exit code it returns."""
    from flows.prefect_api import flow_api, server_lost

    with flow_api(settings) as api:
        try:
            yield
        except Exception as err:
            if not server_lost(err, api):
                raise
            raise _LeaveNow(saved(api)) from None


def _lost_line(api: str, what: str) -> None:
    print(f"warning: the Prefect server at {api} stopped answering during the run: {what}", file=sys.stderr,
          flush=True)


def _saved_without_server(settings: Settings, batch_id: str, api: str, started: float) -> int:
    """What a run whose Prefect server went away saved, read from the workspace: the exit code."""
    from storage.catalog_db import open_catalog
    from storage.paths import workbook_path
    from storage.shelf_db import ShelfDB

    with open_catalog(settings.duckdb_path, read_only=True) as db:
        statuses = ShelfDB(db.conn, read_only=True).theme_statuses(batch_id)
    workbook = workbook_path(settings.outputs_dir, batch_id)
    if not (workbook.exists() and workbook.stat().st_mtime >= started):  # the batch's one transaction wrote it
        _lost_line(api, f"batch {batch_id} was not shelved; its themes stay pending: run it again")
        return 1
    for theme_id, status in statuses.items():
        print(f"  {theme_id}: {'failed, stays pending' if status == 'pending' else status}")
    print(f"workbook: {workbook}")
    _lost_line(api, "the shelves are written and recorded, but the run's record in Prefect may be incomplete")
    return 1 if "pending" in statuses.values() else 0


def _built_without_server(settings: Settings, api: str) -> int:
    """What an index build whose Prefect server went away left current: the exit code."""
    from storage.catalog_db import open_catalog

    with open_catalog(settings.duckdb_path, read_only=True) as db:
        current = db.current_index_version()
        changed = db.books_changed_since_build()
    if current is None or any(changed.values()):
        _lost_line(api, "the build did not finish; the previous index stays current: run it again")
        return 1
    print(f"index {current.version_id}: {current.book_count} books, {current.sentence_count} sentences")
    _lost_line(api, "the index is built and current, but the run's record in Prefect may be incomplete")
    return 0


@contextmanager
def _known_batch(args: argparse.Namespace, settings: Settings) -> Iterator[int]:
    """A batch shelved again by id: how many themes it has (read only; the flow run writes)."""
    from storage.catalog_db import open_catalog
    from storage.shelf_db import ShelfDB

    with open_catalog(settings.duckdb_path, read_only=True) as db:
        themes = len(ShelfDB(db.conn, read_only=True).themes(args.batch))
        _require_index(db)
    yield themes


def _cmd_review_import(args: argparse.Namespace, settings: Settings) -> int:
    from flows.review import describe, import_review

    path = Path(args.workbook)
    print(describe(import_review(settings, path), path.name))
    return 0


def _cmd_server(args: argparse.Namespace, settings: Settings) -> int:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.deployments import keep_serving, run_worker, serve_deployments, trigger_hint
    from flows.prefect_api import persistent_server

    stopping = threading.Event()

    def stop(signum, frame):  # noqa: ANN001 - a signal handler's signature
        stopping.set()
        raise KeyboardInterrupt  # so that `kill` stops the server as Ctrl-C does, tidily

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    with persistent_server(settings) as server:
        os.environ["PREFECT_API_URL"] = server.api_url  # for the flow runs it starts
        print(f"Prefect UI: {server.url} (Ctrl-C stops the server and the "
              f"{'worker' if args.worker else 'deployments'}); workbooks: {server.outputs_url}", flush=True)
        with temporary_settings({PREFECT_API_URL: server.api_url}):
            if args.worker:  # a worker that stops on its own is started again, as the serve loop is
                keep_serving(lambda: run_worker(settings), stopping)
            else:
                keep_serving(lambda: serve_deployments(
                    settings, lambda: print(trigger_hint(settings, server.api_url), flush=True)), stopping)
    return 0


def _existing_api(settings: Settings) -> str:
    """The API of a server that is already up: PREFECT_API_URL or the workspace's `shelfwise server`."""
    from prefect.settings import PREFECT_API_URL

    from flows.prefect_api import workspace_server

    configured = PREFECT_API_URL.value()
    if configured:
        return configured
    running = workspace_server(settings)
    if running is None:
        raise ServerError("no Prefect server: start one with `shelfwise server` (it has the UI), "
                          "or export PREFECT_API_URL=http://HOST:PORT/api")
    os.environ["PREFECT_API_URL"] = running.api_url
    return running.api_url


def _cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.deployments import serve_deployments, trigger_hint

    api = _existing_api(settings)
    with temporary_settings({PREFECT_API_URL: api}):
        serve_deployments(settings, lambda: print(trigger_hint(settings, api), flush=True))
    return 0


def _cmd_deploy(args: argparse.Namespace, settings: Settings) -> int:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.deployments import register_with_work_pool

    api = _existing_api(settings)
    with temporary_settings({PREFECT_API_URL: api}):
        ids = register_with_work_pool(settings)
    print(f"registered {len(ids)} deployments with work pool {settings.server.work_pool} on {api}; "
          "start a worker with `shelfwise server --worker` (or `prefect worker start --pool "
          f"{settings.server.work_pool}` beside a running server)")
    return 0


def _cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    if args.labels:
        return _eval_labels(settings)
    if args.tags:
        return _eval_tags(args, settings)
    if args.briefs:
        return _eval_briefs(args, settings)
    if not args.dataset:
        print("error: eval needs a DATASET_DIR (BEIR layout), --tags CATALOG or --briefs FILE", file=sys.stderr)
        return 2
    from dataclasses import asdict

    from flows.evaluate import evaluate
    from tasks.evaluation.variants import ABLATION, MODES, STAGES

    dataset = Path(args.dataset).resolve()
    modes = (ABLATION if args.ablation else STAGES if args.stages else [MODES[args.mode]] if args.mode
             else list(MODES.values()))
    eval_settings = _eval_settings(settings, args.workspace, dataset)
    with _writing(eval_settings, _command_line(args)):
        scores = evaluate(dataset, modes, eval_settings, args.limit)
    if args.json:
        print(json.dumps({"dataset": dataset.name, "scores": [asdict(s) for s in scores]}, indent=2))
        return 0
    print(f"{dataset.name}: {scores[0].queries} queries")
    print(f"{'mode':<26} {'nDCG@10':>8} {'R@100':>8} {'seconds':>8}")
    for s in scores:
        print(f"{s.mode:<26} {s.ndcg_at_10:>8.4f} {s.recall_at_100:>8.4f} {s.seconds:>8.1f}")
    return 0


def _stored_labels(settings: Settings) -> list:
    """Every label in force in the workspace, read only."""
    from storage.catalog_db import open_catalog
    from storage.labels import LabelsDB

    with open_catalog(settings.duckdb_path, read_only=True) as db:
        return LabelsDB(db.conn, read_only=True).latest()


def _eval_labels(settings: Settings) -> int:
    """`eval --labels`: of the books curators judged, the share kept and dropped, by path and by reason kind."""
    from tasks.evaluation.labels import label_shares

    shares = label_shares(_stored_labels(settings))
    if not shares.overall.judged:
        raise InputError("no verdicts stored yet: answer a workbook and `shelfwise review import` it")

    def line(name: str, share) -> str:  # noqa: ANN001 - a Share
        return (f"  {name:<24} {share.judged:>5}  kept {share.of(share.kept):.3f}  dropped "
                f"{share.of(share.dropped):.3f}  replaced {share.of(share.replaced):.3f}")
    print(f"catalog {settings.duckdb_path}: {shares.overall.judged} verdicts on {shares.themes} themes")
    print(line("all", shares.overall))
    print("by path:")
    for path, share in shares.by_path.items():
        print(line(path, share))
    print("by reason kind:")
    for kind, share in shares.by_reason.items():
        print(line(kind, share))
    return 0


def _eval_briefs(args: argparse.Namespace, settings: Settings) -> int:
    """`eval --briefs FILE --catalog CATALOG [--tag-blind]`: the shelf benchmark, a line per brief, then means."""
    from flows.evaluate import benchmark_settings, evaluate_briefs
    from flows.prefect_api import flow_api
    from tasks.catalog.ingest import CatalogFileError, ColumnMapping, load_mapping
    from tasks.evaluation.briefs import BenchmarkFileError, summary

    if not args.catalog:
        print("error: --briefs needs --catalog CATALOG (the catalog the briefs are written for)", file=sys.stderr)
        return 2
    catalog, benchmark = Path(args.catalog).resolve(), Path(args.briefs).resolve()
    prefix = "briefs-blind-" if args.tag_blind else "briefs-"
    run_settings = _eval_settings(settings, args.workspace, catalog, prefix)
    run_settings = benchmark_settings(run_settings, run_settings.workspace)
    try:
        mapping = load_mapping(Path(args.mapping)) if args.mapping else ColumnMapping()
        with _writing(run_settings, _command_line(args)), flow_api(run_settings):
            scores = evaluate_briefs(benchmark, catalog, run_settings, args.tag_blind, mapping, args.format)
    except (CatalogFileError, BenchmarkFileError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.json:
        from dataclasses import asdict

        print(json.dumps({"benchmark": benchmark.name, "catalog": catalog.name, "tag_blind": args.tag_blind,
                          "briefs": [asdict(s) for s in scores], "summary": summary(scores)}, ensure_ascii=False,
                         indent=2))
        return 0

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    print(f"{benchmark.name} over {catalog.name}{' (tags hidden)' if args.tag_blind else ''}")
    print(f"{'brief':<40} {'books':>5} {'pass':>5} {'conds':>5} {'wish':>5} {'dups':>4} {'status':<13} "
          f"{'expected':<13} resolved")
    for s in scores:
        failed = ", ".join(f"{k} {v}" for k, v in s.failures.items())
        print(f"{s.id:<40} {s.books:>5} {share(s.pass_share):>5} {share(s.condition_share):>5} "
              f"{share(s.wish_share):>5} {s.duplicates:>4} "
              f"{s.status:<13} {s.expected_status or '-':<13} {'-' if s.resolved is None else s.resolved}"
              + (f"  [{failed}]" if failed else ""))
    for key, value in summary(scores).items():
        print(f"{key}: {value}")
    return 0


def _eval_tags(args: argparse.Namespace, settings: Settings) -> int:
    """`eval --tags CATALOG`: the catalog's tags hidden, derived again, scored per value."""
    from flows.evaluate import evaluate_enrichment
    from tasks.catalog.ingest import CatalogFileError, ColumnMapping, load_mapping
    from tasks.evaluation.tags import pooled

    catalog = Path(args.tags).resolve()
    try:
        mapping = load_mapping(Path(args.mapping)) if args.mapping else ColumnMapping()
        eval_settings = _eval_settings(settings, args.workspace, catalog, "tags-")
        with _writing(eval_settings, _command_line(args)):
            scores = evaluate_enrichment(catalog, eval_settings, mapping, args.format)
    except CatalogFileError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    confidence = settings.enrichment.filter_confidence
    shown = [s for s in scores if args.all_dimensions or s.dimension in ("genre", "form", "audience")]
    dimensions = list(dict.fromkeys(s.dimension for s in scores))
    if args.json:
        rows = [{"dimension": s.dimension, "value": s.value, "derived": s.derived, "correct": s.correct,
                 "truly": s.truly, "precision": s.precision, "recall": s.recall} for s in scores]
        print(json.dumps({"catalog": catalog.name, "confidence": confidence, "scores": rows}, ensure_ascii=False,
                         indent=2))
        return 0

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    print(f"{catalog.name}: tags hidden and derived again; values held at confidence >= {confidence}")
    print(f"{'dimension':<20} {'value':<14} {'derived':>8} {'correct':>8} {'truly':>6} {'precision':>10} {'recall':>7}")
    for s in shown + [pooled(scores, d) for d in dimensions]:
        print(f"{s.dimension:<20} {s.value:<14} {s.derived:>8} {s.correct:>8} {s.truly:>6} {share(s.precision):>10} "
              f"{share(s.recall):>7}")
    return 0


def _readable(condition, language: str) -> dict:  # noqa: ANN001 - a FilterCondition
    """A condition as `try` prints it: a class range by the literature or period it stands for, not its hundreds
    of codes."""
    from config.class_ranges import class_ranges

    shown = condition.to_dict()
    if condition.field == "classification":
        shown["values"] = class_ranges().labels(condition.values, language)
    return shown


TRY_BATCH = "(try)"  # no batch id can be this: `try --as-run` sees every batch's history as a new batch would


def _run_history(settings: Settings) -> list:
    """The shelves a new batch run now would see (recent ones excluded, earlier ones to refer to), read-only."""
    from datetime import datetime, timezone

    from storage.catalog_db import open_catalog
    from storage.shelf_db import ShelfDB

    with open_catalog(settings.duckdb_path, read_only=True, retry_seconds=settings.locking.busy_retry_seconds) as db:
        if not db.has_table("shelf_history"):
            return []
        now = datetime.now(timezone.utc).replace(tzinfo=None)  # batches' first runs are kept in UTC
        return ShelfDB(db.conn, read_only=True).earlier_batches_history(
            TRY_BATCH, now, settings.history.days, settings.history.reference_days)


def _withdrawn_now(settings: Settings) -> frozenset[str]:
    """Books withdrawn since the index was built, when the catalog can be read at once: `try` never waits, so
    while a writer holds it they stay until the next build."""
    from storage.catalog_db import open_catalog

    try:
        with open_catalog(settings.duckdb_path, read_only=True, retry_seconds=0) as db:
            return db.withdrawn_ids()
    except (CatalogBusy, CatalogMissing):
        return frozenset()


def _cmd_try(args: argparse.Namespace, settings: Settings) -> int:
    import yaml

    from config.vocabulary import get_vocabulary
    from storage.index_store import NoIndexError
    from tasks.export.console import shelf_text
    from tasks.export.wording import option_texts, question_text, why_text
    from tasks.intake.themes import has_words
    from tasks.model.themes import StageSwitches, Theme
    from tasks.shelving import build_context, shelve

    if not has_words(args.brief):
        raise InputError(f"try: the brief {args.brief!r} has no words (no letter or digit)")
    switches = StageSwitches(sentence_rerank=args.sentence_rerank, query_expansion=args.expansion,
                             language_preference=args.language_preference)
    try:  # the index version alone: no DuckDB, so a running build or import does not block it
        ctx = build_context(settings, get_vocabulary(), not args.include_unavailable, switches,
                            _withdrawn_now(settings))
    except NoIndexError as err:
        raise InputError(str(err)) from None
    theme = Theme(TRY_BATCH, "try", args.brief)  # read once, as a batch and the shelf benchmark read a brief
    shelf = shelve(theme, _run_history(settings) if args.as_run else [], ctx)  # no history is written
    if not args.yaml:
        print(shelf_text(shelf, args.show))
        return 0
    query, asked = shelf.query, shelf.verdict.question
    report = {
        "theme_query": {
            "filter_conditions": [_readable(c, query.language) for c in query.filter_conditions],
            "numeric_conditions": [n.describe() for n in query.numeric_conditions]
            + [n.describe("SHOULD") for n in query.preferred_numbers],
            "search_keywords": list(query.search_keywords), "synthetic_query": query.synthetic_query,
            "confidence": query.confidence, "translator": query.translator,
        },
        "gating": {"status": shelf.verdict.status, "reasons": list(shelf.verdict.reasons),
                   "question": question_text(asked, query.language) if asked else None,
                   "options": list(option_texts(asked, query.language)) if asked else []},
        "notes": list(shelf.notes),
        "shelf": [{"rank": e.rank, "book_id": e.book.book_id, "title": e.book.title,
                   "authors": list(e.book.authors), "year": e.book.pub_year, "material": e.book.material,
                   "sources": e.candidate.sources,
                   "query_variant": e.candidate.query_variant, "rerank_score": e.candidate.rerank_score,
                   "why": why_text(e.reasons, query.language), "evidence": e.candidate.evidence}
                  for e in shelf.entries[: args.show]],
    }
    print(yaml.safe_dump(report, allow_unicode=True, sort_keys=False, width=120))
    return 0


def _tune_labels(args: argparse.Namespace, settings: Settings) -> int:
    """`tune --labels`: fusion weights, short-query weights, this catalog's relevance calibration and floor from the
    stored verdicts (tasks/evaluation/labels.py); each written only when better on held-out themes."""
    from config.settings import write_local_overlay
    from config.vocabulary import get_vocabulary
    from storage.catalog_db import open_catalog
    from storage.index_store import NoIndexError
    from storage.shelf_db import ShelfDB
    from tasks.evaluation.labels import judged, tune_from_labels
    from tasks.ranking.calibration import save_workspace_calibration
    from tasks.ranking.relevance import load_calibration
    from tasks.shelving import build_context

    labels = _stored_labels(settings)
    if not judged(labels):
        raise InputError("no verdicts stored yet: answer a workbook and `shelfwise review import` it")
    try:
        ctx = build_context(settings, get_vocabulary(), withdrawn=_withdrawn_now(settings))
    except NoIndexError as err:
        raise InputError(str(err)) from None
    with open_catalog(settings.duckdb_path, read_only=True) as db:  # labels are only ever of batches run here
        themes = {f"{t.batch_id}/{t.theme_id}": t for batch in sorted({lb.batch_id for lb in labels})
                  for t in ShelfDB(db.conn, read_only=True).themes(batch)}
    report = tune_from_labels(labels, themes, ctx, load_calibration())
    print("\n".join(report.lines()))
    overlay, calibration = report.overlay(), report.calibration
    if not overlay and not calibration.better:
        print("not better on held-out themes: nothing written")
        return 0
    if args.dry_run:
        return 0
    if overlay:
        print(f"{', '.join(k for section in overlay.values() for k in section)} written to "
              f"{write_local_overlay(overlay)}")
    if calibration.better:
        source = (f"{calibration.judged} curators' verdicts on {calibration.themes} themes, the judged calibration "
                  f"({load_calibration().source}) as prior, pull {calibration.strength}")
        print(f"relevance calibration written to "
              f"{save_workspace_calibration(settings.workspace, calibration.calibration, source)}")
    return 0


def _cmd_tune(args: argparse.Namespace, settings: Settings) -> int:
    from config.settings import write_local_overlay
    from flows.evaluate import tune

    if args.from_labels:
        return _tune_labels(args, settings)
    if not args.labels:
        raise InputError("tune needs a DATASET_DIR (BEIR layout) or --labels")

    dataset = Path(args.labels).resolve()
    eval_settings = _eval_settings(settings, args.workspace, dataset)
    with _writing(eval_settings, _command_line(args)):
        report = tune(dataset, eval_settings, args.limit)
    print(f"{dataset.name}: {report.before.queries} labelled themes")
    print(f"before: nDCG@10 {report.before.ndcg_at_10:.4f}, Recall@100 {report.before.recall_at_100:.4f}")
    print(f"after:  nDCG@10 {report.after.ndcg_at_10:.4f}, Recall@100 {report.after.recall_at_100:.4f}")
    print("fusion: " + json.dumps(report.fusion, ensure_ascii=False))
    if args.dry_run:
        return 0
    print(f"written to {write_local_overlay({'fusion': report.fusion})}")
    return 0


def _eval_settings(settings: Settings, workspace: str | None, dataset: Path, prefix: str = "") -> Settings:
    """The settings with the workspace a labelled set is indexed in (default: <workspace>/eval/<set>)."""
    folder = Path(workspace) if workspace else settings.workspace / "eval" / f"{prefix}{dataset.stem}"
    return settings.model_copy(update={"workspace": folder.resolve()})


def _add_stage_switches(command: argparse.ArgumentParser) -> None:
    command.add_argument("--sentence-rerank", action=argparse.BooleanOptionalAction, default=None,
                         help="rerank by best summary sentence (default: rerank.sentence.enabled in config)")
    command.add_argument("--expansion", action=argparse.BooleanOptionalAction, default=None,
                         help="expand the query with translations and synonyms (default: expansion.enabled)")
    command.add_argument("--language-preference", choices=LANGUAGE_PREFERENCES,
                         help="books in the brief's language first, only, or any (default: "
                              "shelf.language_preference; a theme's own column wins)")


def _add_compute(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument("--compute", choices=("local", "dask"),
                         help=f"{what} in this process, or on Dask (compute.dask_address, else a LocalCluster of "
                              "compute.dask_workers processes); default: compute.backend")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shelfwise", description="Theme shelves from a library catalog.")
    commands = parser.add_subparsers(dest="command", required=True)

    catalog = commands.add_parser("catalog", help="catalog data").add_subparsers(dest="action", required=True)
    imp = catalog.add_parser("import", help="import CSV / Parquet / JSON Lines / XLSX / MARC into the catalog")
    imp.add_argument("file")
    imp.add_argument("--format", choices=SOURCE_FORMATS,
                     help="the file's format (default: told by its extension; cnmarc for Chinese UNIMARC records)")
    imp.add_argument("--mapping", help="YAML column mapping (see config/mappings/)")
    imp.add_argument("--encoding", help="the text encoding of a CSV, TSV or MARC file (default: detected and "
                                        "reported; e.g. gbk, gb18030, utf-16, latin-1, marc-8)")
    imp.add_argument("--replace", action="store_true",
                     help="the file is a full export: books of the catalog it does not hold are withdrawn")
    imp.add_argument("--show-rejected", type=int, default=10,
                     help="rejected rows and warnings to print (default 10 each)")
    imp.set_defaults(handler=_cmd_catalog_import)
    rm = catalog.add_parser("remove", help="withdraw books: off every later shelf and the next index build")
    rm.add_argument("book_ids", nargs="+", metavar="ID")
    rm.set_defaults(handler=_cmd_catalog_remove)

    index = commands.add_parser("index", help="search indexes").add_subparsers(dest="action", required=True)
    build = index.add_parser("build", help="build the BM25 and LanceDB indexes (incremental)")
    build.add_argument("--full", action="store_true", help="ignore caches and rebuild everything")
    _add_compute(build, "embed and tokenize")
    build.set_defaults(handler=_cmd_index_build)

    themes = commands.add_parser("themes", help="theme briefs").add_subparsers(dest="action", required=True)
    timp = themes.add_parser("import", help="import a batch of themes from YAML, CSV or XLSX")
    timp.add_argument("file")
    timp.add_argument("--batch", help="batch id (else the file's batch_id)")
    timp.set_defaults(handler=_cmd_themes_import)

    run = commands.add_parser("run", help="import a theme file and shelve its batch now, or shelve --batch again")
    run.add_argument("file", nargs="?")
    run.add_argument("--batch", help="batch id (else the file's batch_id)")
    run.add_argument("--apply-review", action="store_true",
                     help="reshelve with the curators' answers imported for the batch (`shelfwise review import`)")
    _add_stage_switches(run)
    _add_compute(run, "shelve the batch's themes")
    run.set_defaults(handler=_cmd_run)

    review = commands.add_parser("review", help="a curator's answered workbook").add_subparsers(dest="action",
                                                                                                required=True)
    rimp = review.add_parser("import", help="store the verdicts, notes and answers of an answered workbook")
    rimp.add_argument("workbook")
    rimp.set_defaults(handler=_cmd_review_import)

    trial = commands.add_parser("try", help="translate, gate and shelve one brief now; prints a table, writes nothing")
    trial.add_argument("brief")
    trial.add_argument("--show", type=int, default=30, help="books to print (default 30)")
    trial.add_argument("--yaml", action="store_true", help="print the full record as YAML: the query, the gate, "
                                                          "the notes and each book's paths and scores")
    trial.add_argument("--include-unavailable", action="store_true", help="keep books with no copies available")
    trial.add_argument("--as-run", action="store_true", help="see the earlier batches' shelves as a run now would: "
                                                             "their recent books left out, their shelves to refer to")
    _add_stage_switches(trial)
    trial.set_defaults(handler=_cmd_try)

    server = commands.add_parser("server", help="start the Prefect server with its UI and serve the deployments")
    server.add_argument("--worker", action="store_true",
                        help="run a worker for the work pool `shelfwise deploy` registered instead of serving")
    server.set_defaults(handler=_cmd_server)

    serve = commands.add_parser("serve", help="serve the deployments against a running Prefect server")
    serve.set_defaults(handler=_cmd_serve)

    deploy = commands.add_parser("deploy", help="register the deployments with a process work pool")
    deploy.set_defaults(handler=_cmd_deploy)

    ev = commands.add_parser("eval", help="score recall modes on a BEIR-layout data set, or enrichment on a tagged "
                                          "catalog (--tags)")
    ev.add_argument("dataset", nargs="?", help="folder with corpus.jsonl, queries.jsonl, qrels/test.tsv")
    ev.add_argument("--labels", action="store_true",
                    help="the curators' verdicts: share kept and dropped, by recall path and by reason kind")
    ev.add_argument("--tags", metavar="CATALOG",
                    help="a tagged catalog file: hide its tags, derive them again, print precision and recall")
    ev.add_argument("--briefs", metavar="FILE",
                    help="a shelf benchmark (benchmarks/briefs/demo.yaml): shelve its briefs over --catalog and check "
                         "every shelved book")
    ev.add_argument("--catalog", help="with --briefs: the catalog file the briefs are written for")
    ev.add_argument("--tag-blind", action="store_true", help="with --briefs: import the catalog without its tags")
    ev.add_argument("--mapping", help="with --tags or --briefs: the catalog file's column mapping")
    ev.add_argument("--format", choices=SOURCE_FORMATS, help="with --tags or --briefs: the catalog file's format")
    ev.add_argument("--all-dimensions", action="store_true",
                    help="with --tags: every value of every dimension (default: genre, form, audience)")
    ev.add_argument("--mode", choices=("bm25", "vector", "hybrid", "full"), help="one mode (default: all)")
    ev.add_argument("--ablation", action="store_true", help="every mode and every default switched off in turn")
    ev.add_argument("--stages", action="store_true",
                    help="query expansion and sentence rerank, each on and off (vector and hybrid)")
    ev.add_argument("--json", action="store_true")
    ev.add_argument("--limit", type=int, help="only the first N judged queries")
    ev.add_argument("--workspace", help="where the set is indexed (default: <workspace>/eval/<set>)")
    ev.set_defaults(handler=_cmd_eval)

    tn = commands.add_parser("tune", help="fit the fusion weights on labelled themes (BEIR layout, or --labels)")
    tn.add_argument("labels", nargs="?", help="folder with corpus.jsonl, queries.jsonl, qrels/test.tsv")
    tn.add_argument("--labels", dest="from_labels", action="store_true",
                    help="learn from the curators' verdicts stored by `shelfwise review import`")
    tn.add_argument("--limit", type=int, help="only the first N labelled themes")
    tn.add_argument("--workspace", help="where the set is indexed (default: <workspace>/eval/<set>)")
    tn.add_argument("--dry-run", action="store_true", help="report, but do not write config/local.yaml")
    tn.set_defaults(handler=_cmd_tune)

    status = commands.add_parser("status", help="catalog counts, rejected rows, index version")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_cmd_status)
    return parser


READ_ONLY = {_cmd_status, _cmd_try}


def _written_folders(settings: Settings) -> list[Path]:
    return [settings.workspace, settings.indexes_dir, settings.outputs_dir]


def _raise_full_disk(outcome: object, settings: Settings) -> None:
    """A failed flow run's error raised here when it was a full disk: main() says it in one line."""
    if isinstance(outcome, Exception) and full_disk(outcome, _written_folders(settings)) is not None:
        raise outcome


def _release(err: BaseException) -> None:
    """Let go of the frames a handled full-disk error holds (open DuckDB connections among them), so that nothing
    of DuckDB is left for the interpreter's shutdown to report as leaked."""
    import gc
    import traceback

    while err is not None:
        if err.__traceback__ is not None:
            traceback.clear_frames(err.__traceback__)
        err = err.__cause__ or err.__context__
    gc.collect()


def _full_disk_line(where: str) -> str:
    return (f"error: the disk is full: could not write {where}; nothing was changed (what was being written is rolled "
            "back: the catalog, the current index and the batches are as they were); free some space and run it again")
# From Ctrl-C or SIGTERM to the process's end, whatever it was doing: it unwinds (transactions rolled back,
# half-written files removed, the flow run marked Crashed) for this long, then exits where it is; nothing
# uncommitted is kept either way, and the next writer removes what is left (storage/leftovers.py).
INTERRUPT_GRACE_SECONDS = 4.0
_interrupt = threading.Lock()


def _exit_interrupted(signum: int) -> None:
    """Say what an interrupt kept and leave at once: 128 + the signal's number, as a shell reports it. os._exit,
    not an exception: an unwinding that hangs (a Prefect server gone too) or interpreter shutdown's chatter
    cannot add to it."""
    if _interrupt.acquire(blocking=False):
        print(f"error: interrupted by {signal.Signals(signum).name}: what it had not committed is rolled back "
              "(the catalog, the current index and the batches are as they were); run it again", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + signum)


_signalled: list[int] = []  # the signals received, first first


def _on_interrupt(signum: int, frame) -> None:  # noqa: ANN001 - a signal handler's signature
    if _signalled:  # a second Ctrl-C: leave now
        _exit_interrupted(signum)
    _signalled.append(signum)
    threading.Thread(target=lambda: (time.sleep(INTERRUPT_GRACE_SECONDS), _exit_interrupted(signum)),
                     daemon=True).start()
    raise KeyboardInterrupt


@contextmanager
def _interruptible() -> Iterator[None]:
    """Ctrl-C and SIGTERM unwind the command, then end it within INTERRUPT_GRACE_SECONDS (handlers restored
    after: a test calls main() in its own process)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _on_interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    except KeyboardInterrupt:
        _exit_interrupted(_signalled[0] if _signalled else signal.SIGINT)
    except Exception:  # what a library made of the interrupt (DuckDB: InterruptException) is the interrupt too
        if _signalled:
            _exit_interrupted(_signalled[0])
        raise
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    args.argv = argv
    try:
        settings = load_settings()
    except SettingsError as err:
        print(f"error: {err}".replace("\n", "\nerror: "), file=sys.stderr)
        return 2
    try:
        configure_runtime_environment(settings)
    except OSError as err:
        if args.handler not in READ_ONLY:  # reading needs no Prefect home
            print(f"error: {setting_source('workspace')} {settings.workspace} is not writable "
                  f"({(err.strerror or type(err).__name__).lower()})", file=sys.stderr)
            return 2
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    from flows.prefect_api import use_auth_string

    use_auth_string(settings)  # a server beyond loopback asks every client for it
    try:
        with _interruptible():
            return args.handler(args, settings)
    except USER_ERRORS as err:
        print(f"error: {err}".replace("\n", "\nerror: "), file=sys.stderr)
        return 2
    except _LeaveNow as done:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(done.code)
    except Exception as err:
        where = full_disk(err, _written_folders(settings))
        if where is None:
            raise
        print(_full_disk_line(where), file=sys.stderr)
        _release(err)
        return 2


if __name__ == "__main__":
    sys.exit(main())
