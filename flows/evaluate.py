"""`shelfwise eval` and `shelfwise tune`: index a BEIR set through the catalog path and score each mode."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from config.settings import Settings
from config.vocabulary import get_vocabulary
from flows.build_indexes import build_index_version
from flows.shelving import build_context, rank_books
from storage.catalog_db import open_catalog
from storage.models import Theme
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.catalog.text_analysis import detect_language
from tasks.evaluation.beir import corpus_as_catalog, load_beir
from tasks.evaluation.metrics import ModeScore, ndcg_at, recall_at
from tasks.evaluation.variants import TuneReport, Variant, choose_fusion, tune_variants
from tasks.models import ThemeQuery
from tasks.progress import Progress, logger
from tasks.recall.filters import hard_constraints


def evaluate(dataset: Path, variants: list[Variant], settings: Settings, limit: int | None = None) -> list[ModeScore]:
    """Index the data set in settings.workspace (its caches make reruns cheap) and score every variant."""
    beir = load_beir(dataset)
    vocabulary = get_vocabulary()
    settings.workspace.mkdir(parents=True, exist_ok=True)
    catalog = corpus_as_catalog(beir, settings.workspace / f"{beir.name}.jsonl")
    rows = validate_file(catalog, ColumnMapping(), vocabulary)
    with open_catalog(settings.duckdb_path) as db:
        db.import_books(rows.books, rows.rejected, str(catalog))
    build_index_version(settings)
    with open_catalog(settings.duckdb_path) as db:
        ctx = build_context(db, settings, vocabulary)
    queries = list(beir.queries.items())[:limit]
    if ctx.e5_embedder is None:  # the index has no e5 path: nothing to compare
        variants = [v for v in variants if "e5" not in v.name]
    scores = []
    for variant in variants:
        run_ctx = replace(ctx, settings=variant.settings(settings), switches=variant.switches)
        start = time.perf_counter()
        progress = Progress(f"eval {beir.name} {variant.name}", len(queries), every_seconds=15)
        ndcg = recall = 0.0
        for query_id, text in queries:
            theme = Theme("eval", query_id, text[:80], description=text)
            if variant.translate:
                query = ctx.translator.translate(theme)
            else:
                query = ThemeQuery((), (text,), text, 1.0, "eval", detect_language(text))
            constraints = hard_constraints(query.filter_conditions, query.numeric_conditions, ctx.available_only,
                                           ctx.snapshot.filter_confidence)
            ranked_ids = [c.book_id for c in rank_books(theme, query, constraints, run_ctx).candidates]
            ndcg += ndcg_at(ranked_ids, beir.qrels[query_id], 10)
            recall += recall_at(ranked_ids, beir.qrels[query_id], 100)
            progress.advance()
        n = max(len(queries), 1)
        scores.append(ModeScore(variant.name, round(ndcg / n, 4), round(recall / n, 4), len(queries),
                                round(time.perf_counter() - start, 1)))
        logger.info("eval %s %s: nDCG@10 %.4f, Recall@100 %.4f", beir.name, variant.name, ndcg / n, recall / n)
    return scores


def tune(dataset: Path, settings: Settings, limit: int | None = None) -> TuneReport:
    """Fit the fusion settings on labelled themes (BEIR layout) by a small grid; best nDCG@10 wins."""
    scores = evaluate(dataset, tune_variants(), settings, limit)
    return choose_fusion(scores, settings.fusion.model_dump())
