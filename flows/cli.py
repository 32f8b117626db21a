"""The `shelfwise` command line."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from config.settings import configure_runtime_environment, get_settings


def _cmd_catalog_import(args: argparse.Namespace) -> int:
    from config.vocabulary import get_vocabulary
    from storage.catalog_db import open_catalog
    from tasks.catalog_import import CatalogFileError, ColumnMapping, load_mapping, validate_file

    settings = get_settings()
    try:
        mapping = load_mapping(Path(args.mapping)) if args.mapping else ColumnMapping()
        rows = validate_file(Path(args.file), mapping, get_vocabulary())
    except CatalogFileError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    with open_catalog(settings.duckdb_path) as db:
        counts = db.import_books(rows.books, rows.rejected, str(Path(args.file)))
    print(f"{args.file}: inserted {counts.inserted}, updated {counts.updated}, "
          f"unchanged {counts.unchanged}, rejected {counts.rejected}")
    for row in rows.rejected[: args.show_rejected]:
        print(f"  rejected row {row.row_number}: {row.field}: {row.reason}")
    if len(rows.rejected) > args.show_rejected:
        print(f"  ... {len(rows.rejected) - args.show_rejected} more in the rejected_rows table")
    return 0


def _cmd_index_build(args: argparse.Namespace) -> int:
    from flows.build_indexes import build_indexes

    report = build_indexes(full=args.full)
    if report.up_to_date:
        print(f"index {report.version_id} is up to date ({report.book_count} books)")
    else:
        print(f"index {report.version_id}: {report.book_count} books, {report.sentence_count} sentences; "
              f"embedded {report.books_embedded} books and {report.sentences_embedded} sentences, "
              f"tagged {report.books_enriched}, tokenized {report.books_tokenized}")
    print("stages (s): " + ", ".join(f"{k} {v:.2f}" for k, v in report.stage_seconds.items()))
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    from storage.catalog_db import open_catalog

    settings = get_settings()
    with open_catalog(settings.duckdb_path) as db:
        status = {
            "catalog": db.catalog_counts(),
            "changed_since_last_build": db.books_changed_since_build(),
            "index": None,
        }
        current = db.current_index_version()
        if current:
            status["index"] = {
                "version": current.version_id, "built_at": current.created_at.isoformat(timespec="seconds"),
                "books": current.book_count, "sentences": current.sentence_count,
                "embedder": current.embedder, "snapshot_hash": current.snapshot_hash[:16],
                "stage_seconds": current.stage_seconds,
            }
    if args.json:
        print(json.dumps(status, ensure_ascii=False, indent=2))
        return 0
    print(f"workspace: {settings.workspace}")
    print("catalog: " + ", ".join(f"{k} {v}" for k, v in status["catalog"].items()))
    if status["index"]:
        idx = status["index"]
        print(f"index: {idx['version']} built {idx['built_at']} UTC, {idx['books']} books, "
              f"{idx['sentences']} sentences, embedder {idx['embedder']}")
    else:
        print("index: none built yet (run `shelfwise index build`)")
    changed = status["changed_since_last_build"]
    print(f"since the last build: {changed['added']} added, {changed['changed']} changed, "
          f"{changed['removed']} removed")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shelfwise", description="Theme shelves from a library catalog.")
    commands = parser.add_subparsers(dest="command", required=True)

    catalog = commands.add_parser("catalog", help="catalog data").add_subparsers(dest="action", required=True)
    imp = catalog.add_parser("import", help="import CSV / Parquet / JSON Lines / XLSX into the catalog")
    imp.add_argument("file")
    imp.add_argument("--mapping", help="YAML column mapping (see config/mappings/)")
    imp.add_argument("--show-rejected", type=int, default=10, help="rejected rows to print (default 10)")
    imp.set_defaults(handler=_cmd_catalog_import)

    index = commands.add_parser("index", help="search indexes").add_subparsers(dest="action", required=True)
    build = index.add_parser("build", help="build the BM25 and LanceDB indexes (incremental)")
    build.add_argument("--full", action="store_true", help="ignore caches and rebuild everything")
    build.set_defaults(handler=_cmd_index_build)

    status = commands.add_parser("status", help="catalog counts, rejected rows, index version")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_cmd_status)
    return parser


def _log_to_terminal() -> None:
    """Progress lines of the steps on stderr; inside a flow run Prefect's handler takes over."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    log = logging.getLogger("shelfwise")
    log.setLevel(logging.INFO)
    if not log.handlers:
        log.addHandler(handler)
    log.propagate = False
    logging.getLogger("bm25s").setLevel(logging.WARNING)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_runtime_environment(get_settings())
    _log_to_terminal()
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
