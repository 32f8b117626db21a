"""`shelfwise eval`: index a BEIR set through the catalog path and score each recall mode."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from config.settings import get_settings
from config.vocabulary import get_vocabulary
from flows.build_indexes import build_indexes
from flows.shelving import RecallOptions, build_context, rank_books
from storage.catalog_db import open_catalog
from storage.models import Theme
from tasks.catalog_import import ColumnMapping, validate_file
from tasks.evaluate import corpus_as_catalog, load_beir, ndcg_at, recall_at
from tasks.filters import hard_constraints
from tasks.models import ThemeQuery
from tasks.progress import Progress, logger
from tasks.text_analysis import detect_language

MODES = ("bm25", "vector", "hybrid", "full")
MODE_OPTIONS = {
    "bm25": RecallOptions(paths=("bm25",), use_threshold=False, bm25_randomness=0.0, use_rerank=False),
    "vector": RecallOptions(paths=("vector",), use_threshold=False, bm25_randomness=0.0, use_rerank=False),
    "hybrid": RecallOptions(use_threshold=False, bm25_randomness=0.0, use_rerank=False),
    "full": RecallOptions(),
}


@dataclass(frozen=True)
class ModeScore:
    mode: str
    ndcg_at_10: float
    recall_at_100: float
    queries: int
    seconds: float


def _use_workspace(workspace: Path) -> None:
    os.environ["SHELFWISE__WORKSPACE"] = str(workspace)
    get_settings.cache_clear()


def evaluate(dataset: Path, modes: tuple[str, ...], workspace: Path, limit: int | None = None) -> list[ModeScore]:
    """Index the data set in `workspace` (its caches make reruns cheap) and score every mode."""
    beir = load_beir(dataset)
    _use_workspace(workspace)
    settings = get_settings()
    vocabulary = get_vocabulary()
    workspace.mkdir(parents=True, exist_ok=True)
    catalog = corpus_as_catalog(beir, workspace / f"{beir.name}.jsonl")
    rows = validate_file(catalog, ColumnMapping(), vocabulary)
    with open_catalog(settings.duckdb_path) as db:
        db.import_books(rows.books, rows.rejected, str(catalog))
    build_indexes()
    with open_catalog(settings.duckdb_path) as db:
        ctx = build_context(db, settings, vocabulary)
    queries = list(beir.queries.items())[:limit]
    scores = []
    for mode in modes:
        start = time.perf_counter()
        progress = Progress(f"eval {beir.name} {mode}", len(queries), every_seconds=15)
        ndcg = recall = 0.0
        for query_id, text in queries:
            theme = Theme("eval", query_id, text[:80], description=text)
            if mode == "full":
                query = ctx.translator.translate(theme)
            else:
                query = ThemeQuery((), (text,), text, 1.0, "eval", detect_language(text))
            constraints = hard_constraints(query.filter_conditions, available_only=ctx.available_only)
            ranking = rank_books(theme, query, constraints, ctx, MODE_OPTIONS[mode])
            ranked_ids = [c.book_id for c in ranking.candidates]
            ndcg += ndcg_at(ranked_ids, beir.qrels[query_id], 10)
            recall += recall_at(ranked_ids, beir.qrels[query_id], 100)
            progress.advance()
        n = max(len(queries), 1)
        scores.append(ModeScore(mode, round(ndcg / n, 4), round(recall / n, 4), len(queries),
                                round(time.perf_counter() - start, 1)))
        logger.info("eval %s %s: nDCG@10 %.4f, Recall@100 %.4f", beir.name, mode, ndcg / n, recall / n)
    return scores
