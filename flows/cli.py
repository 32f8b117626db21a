"""The `shelfwise` command line."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from config.settings import Settings, SettingsError, configure_runtime_environment, load_settings
from storage.models import LANGUAGE_PREFERENCES
from tasks.catalog.formats import SOURCE_FORMATS


def _cmd_catalog_import(args: argparse.Namespace, settings: Settings) -> int:
    from config.vocabulary import get_vocabulary
    from storage.catalog_db import open_catalog
    from tasks.catalog.ingest import (
        CatalogFileError,
        ColumnMapping,
        load_mapping,
        validate_file,
    )

    try:
        mapping = load_mapping(Path(args.mapping)) if args.mapping else ColumnMapping()
        rows = validate_file(Path(args.file), mapping, get_vocabulary(), args.format)
    except CatalogFileError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    with open_catalog(settings.duckdb_path) as db:
        counts = db.import_books(rows.books, rows.rejected, str(Path(args.file)), rows.warnings)
    overwritten = f" ({counts.overwritten} of them first imported from another file)" if counts.overwritten else ""
    print(f"{args.file}: inserted {counts.inserted}, updated {counts.updated}{overwritten}, "
          f"unchanged {counts.unchanged}, rejected {counts.rejected}, warnings {counts.warnings}")
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


def _cmd_index_build(args: argparse.Namespace, settings: Settings) -> int:
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


def _cmd_status(args: argparse.Namespace, settings: Settings) -> int:
    from storage.catalog_db import open_catalog

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


def _import_themes(path: Path, batch_id: str | None, settings: Settings) -> str:
    """Read a theme file into the themes table; returns the batch id."""
    from storage.catalog_db import open_catalog
    from storage.shelf_db import ShelfDB
    from tasks.understanding.themes import read_themes

    theme_file = read_themes(path, batch_id)
    with open_catalog(settings.duckdb_path) as db:
        counts = ShelfDB(db.conn).import_themes(theme_file.themes)
        db.record_rejected(theme_file.rejected)
    print(f"{path}: batch {theme_file.batch_id}: inserted {counts['inserted']}, updated {counts['updated']}, "
          f"unchanged {counts['unchanged']}, rejected {len(theme_file.rejected)}")
    for row in theme_file.rejected:
        print(f"  rejected row {row.row_number}: {row.field}: {row.reason}")
    return theme_file.batch_id


def _cmd_themes_import(args: argparse.Namespace, settings: Settings) -> int:
    _import_themes(Path(args.file), args.batch, settings)
    return 0


def _cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    from flows.generate_shelves import generate_shelves

    batch_id = _import_themes(Path(args.file), args.batch, settings)
    result = generate_shelves(batch_id, sentence_rerank=args.sentence_rerank, query_expansion=args.expansion,
                              language_preference=args.language_preference)
    for theme_id, count in result.shelves.items():
        print(f"  {theme_id}: {result.statuses[theme_id]}, {count} books")
    print(f"workbook: {result.workbook}")
    return 0


def _cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from prefect import serve

    from flows.deployments import deployments

    serve(*deployments(settings.schedule))
    return 0


def _cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
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
    scores = evaluate(dataset, modes, _eval_settings(settings, args.workspace, dataset), args.limit)
    if args.json:
        print(json.dumps({"dataset": dataset.name, "scores": [asdict(s) for s in scores]}, indent=2))
        return 0
    print(f"{dataset.name}: {scores[0].queries} queries")
    print(f"{'mode':<26} {'nDCG@10':>8} {'R@100':>8} {'seconds':>8}")
    for s in scores:
        print(f"{s.mode:<26} {s.ndcg_at_10:>8.4f} {s.recall_at_100:>8.4f} {s.seconds:>8.1f}")
    return 0


def _eval_briefs(args: argparse.Namespace, settings: Settings) -> int:
    """`eval --briefs FILE --catalog CATALOG [--tag-blind]`: the shelf benchmark, a line per brief, then means."""
    from flows.evaluate import evaluate_briefs
    from tasks.catalog.ingest import CatalogFileError, ColumnMapping, load_mapping
    from tasks.evaluation.briefs import BenchmarkFileError, summary

    if not args.catalog:
        print("error: --briefs needs --catalog CATALOG (the catalog the briefs are written for)", file=sys.stderr)
        return 2
    catalog, benchmark = Path(args.catalog).resolve(), Path(args.briefs).resolve()
    prefix = "briefs-blind-" if args.tag_blind else "briefs-"
    run_settings = _eval_settings(settings, args.workspace, catalog, prefix)
    # The benchmark measures reading briefs: its batches run minutes apart, where a library's run weeks apart,
    # so books of similar earlier batches are not held back (references to them still resolve).
    run_settings = run_settings.model_copy(update={
        "outputs_dir": run_settings.workspace / "outputs",
        "history": run_settings.history.model_copy(update={"days": 0})})
    try:
        mapping = load_mapping(Path(args.mapping)) if args.mapping else ColumnMapping()
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
    print(f"{'brief':<40} {'books':>5} {'pass':>5} {'conds':>5} {'dups':>4} {'status':<13} {'expected':<13} resolved")
    for s in scores:
        failed = ", ".join(f"{k} {v}" for k, v in s.failures.items())
        print(f"{s.id:<40} {s.books:>5} {share(s.pass_share):>5} {share(s.condition_share):>5} {s.duplicates:>4} "
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
        scores = evaluate_enrichment(catalog, _eval_settings(settings, args.workspace, catalog, "tags-"), mapping,
                                     args.format)
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


def _cmd_try(args: argparse.Namespace, settings: Settings) -> int:
    import yaml

    from config.vocabulary import get_vocabulary
    from flows.shelving import build_context, shelve_theme
    from storage.catalog_db import open_catalog
    from storage.models import StageSwitches, Theme
    from tasks.export.wording import why_text

    switches = StageSwitches(sentence_rerank=args.sentence_rerank, query_expansion=args.expansion,
                             language_preference=args.language_preference)
    with open_catalog(settings.duckdb_path) as db:
        ctx = build_context(db, settings, get_vocabulary(), not args.include_unavailable, switches)
    theme = Theme("try", "try", args.brief[:80], description=args.brief)
    shelf = shelve_theme(theme, [], ctx)  # no history is read or written
    query = shelf.query
    report = {
        "theme_query": {
            "filter_conditions": [c.to_dict() for c in query.filter_conditions],
            "numeric_conditions": [n.describe() for n in query.numeric_conditions],
            "search_keywords": list(query.search_keywords), "synthetic_query": query.synthetic_query,
            "confidence": query.confidence, "translator": query.translator,
        },
        "gating": {"status": shelf.verdict.status, "reasons": list(shelf.verdict.reasons),
                   "question": shelf.verdict.question, "options": list(shelf.verdict.options)},
        "notes": list(shelf.notes),
        "shelf": [{"rank": e.rank, "book_id": e.book.book_id, "title": e.book.title,
                   "authors": list(e.book.authors), "year": e.book.pub_year, "sources": e.candidate.sources,
                   "query_variant": e.candidate.query_variant, "rerank_score": e.candidate.rerank_score,
                   "why": why_text(e.reasons, query.language), "evidence": e.candidate.evidence}
                  for e in shelf.entries[: args.show]],
    }
    print(yaml.safe_dump(report, allow_unicode=True, sort_keys=False, width=120))
    return 0


def _cmd_tune(args: argparse.Namespace, settings: Settings) -> int:
    from config.settings import write_local_overlay
    from flows.evaluate import tune

    dataset = Path(args.labels).resolve()
    report = tune(dataset, _eval_settings(settings, args.workspace, dataset), args.limit)
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shelfwise", description="Theme shelves from a library catalog.")
    commands = parser.add_subparsers(dest="command", required=True)

    catalog = commands.add_parser("catalog", help="catalog data").add_subparsers(dest="action", required=True)
    imp = catalog.add_parser("import", help="import CSV / Parquet / JSON Lines / XLSX / MARC into the catalog")
    imp.add_argument("file")
    imp.add_argument("--format", choices=SOURCE_FORMATS,
                     help="the file's format (default: told by its extension; cnmarc for Chinese UNIMARC records)")
    imp.add_argument("--mapping", help="YAML column mapping (see config/mappings/)")
    imp.add_argument("--show-rejected", type=int, default=10,
                     help="rejected rows and warnings to print (default 10 each)")
    imp.set_defaults(handler=_cmd_catalog_import)

    index = commands.add_parser("index", help="search indexes").add_subparsers(dest="action", required=True)
    build = index.add_parser("build", help="build the BM25 and LanceDB indexes (incremental)")
    build.add_argument("--full", action="store_true", help="ignore caches and rebuild everything")
    build.set_defaults(handler=_cmd_index_build)

    themes = commands.add_parser("themes", help="theme briefs").add_subparsers(dest="action", required=True)
    timp = themes.add_parser("import", help="import a batch of themes from YAML, CSV or XLSX")
    timp.add_argument("file")
    timp.add_argument("--batch", help="batch id (else the file's batch_id)")
    timp.set_defaults(handler=_cmd_themes_import)

    run = commands.add_parser("run", help="import a theme file and shelve its batch now")
    run.add_argument("file")
    run.add_argument("--batch", help="batch id (else the file's batch_id)")
    _add_stage_switches(run)
    run.set_defaults(handler=_cmd_run)

    trial = commands.add_parser("try", help="translate, gate and shelve one brief now; prints YAML, writes nothing")
    trial.add_argument("brief")
    trial.add_argument("--show", type=int, default=30, help="books to print (default 30)")
    trial.add_argument("--include-unavailable", action="store_true", help="keep books with no copies available")
    _add_stage_switches(trial)
    trial.set_defaults(handler=_cmd_try)

    serve = commands.add_parser("serve", help="serve the nightly, generate-shelves and build-indexes deployments")
    serve.set_defaults(handler=_cmd_serve)

    ev = commands.add_parser("eval", help="score recall modes on a BEIR-layout data set, or enrichment on a tagged "
                                          "catalog (--tags)")
    ev.add_argument("dataset", nargs="?", help="folder with corpus.jsonl, queries.jsonl, qrels/test.tsv")
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

    tn = commands.add_parser("tune", help="fit the fusion weights on labelled themes (BEIR layout)")
    tn.add_argument("labels", help="folder with corpus.jsonl, queries.jsonl, qrels/test.tsv")
    tn.add_argument("--limit", type=int, help="only the first N labelled themes")
    tn.add_argument("--workspace", help="where the set is indexed (default: <workspace>/eval/<set>)")
    tn.add_argument("--dry-run", action="store_true", help="report, but do not write config/local.yaml")
    tn.set_defaults(handler=_cmd_tune)

    status = commands.add_parser("status", help="catalog counts, rejected rows, index version")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_cmd_status)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
    except SettingsError as err:
        print(f"error: {err}".replace("\n", "\nerror: "), file=sys.stderr)
        return 2
    configure_runtime_environment(settings)
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return args.handler(args, settings)


if __name__ == "__main__":
    sys.exit(main())
