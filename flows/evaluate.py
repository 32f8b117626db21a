"""`shelfwise eval` and `shelfwise tune`: index a BEIR set through the catalog path and score each mode."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from prefect import flow

from config.settings import Settings
from config.vocabulary import Vocabulary, get_vocabulary
from flows.build_indexes import build_index_version
from flows.generate_shelves import shelve_batch
from storage.catalog_db import open_catalog
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.evaluation.beir import corpus_as_catalog, load_beir
from tasks.evaluation.briefs import BriefScore, ShelfOutcome, load_benchmark, score_brief
from tasks.evaluation.metrics import ModeScore, ndcg_at, recall_at
from tasks.evaluation.queries import retrieval_query
from tasks.evaluation.tags import TagScore, score_tags
from tasks.evaluation.variants import TuneReport, Variant, choose_fusion, tune_variants
from tasks.intake.themes import themes_from_form
from tasks.language.text_analysis import detect_language
from tasks.model.constraints import hard_constraints
from tasks.model.intent import Intent
from tasks.model.query import ThemeQuery
from tasks.model.shelf import ThemeShelf
from tasks.model.stages import Understood
from tasks.model.themes import Theme
from tasks.progress import Progress, logger
from tasks.ranking.rank import rank
from tasks.recall.recall import recall
from tasks.shelving import build_context
from tasks.understanding.understand import UnderstandingTools


@flow(name="index-catalog", validate_parameters=False)
def index_catalog(settings: Settings, catalog: Path, mapping: ColumnMapping = ColumnMapping(),
                  fmt: str | None = None) -> None:
    """Import a catalog file into settings.workspace and bring its index up to date (caches make reruns cheap).

    A flow of its own (never deployed): the build's task runs belong to it, not to a process-wide fallback.
    """
    settings.workspace.mkdir(parents=True, exist_ok=True)
    rows = validate_file(catalog, mapping, get_vocabulary(), fmt)
    with open_catalog(settings.duckdb_path) as db:
        db.import_books(rows.books, rows.rejected, str(catalog), rows.warnings)
    build_index_version(settings)


def without_tags(vocabulary: Vocabulary, mapping: ColumnMapping = ColumnMapping()) -> ColumnMapping:
    """The mapping with every vocabulary-tag column ignored: the catalog as a library without our tags has it."""
    hidden = ("tags", *(f"tags.{d}" for d in vocabulary.dimension_names))
    return replace(mapping, ignore=tuple(dict.fromkeys((*mapping.ignore, *hidden))))


def evaluate_enrichment(catalog: Path, settings: Settings, mapping: ColumnMapping = ColumnMapping(),
                        fmt: str | None = None) -> list[TagScore]:
    """Import a tagged catalog with its tags hidden, derive them again, and score them against the hidden ones."""
    vocabulary = get_vocabulary()
    index_catalog(settings, catalog, without_tags(vocabulary, mapping), fmt)
    truth = {b.book_id: b for b in validate_file(catalog, mapping, vocabulary, fmt).books}
    with open_catalog(settings.duckdb_path) as db:
        derived = db.load_books()
    return score_tags(truth, derived, vocabulary, settings.enrichment.filter_confidence)


def benchmark_settings(settings: Settings, workspace: Path) -> Settings:
    """The settings a shelf benchmark runs with, in its own workspace. Its batches run minutes apart, where a
    library's run weeks apart, so books of similar earlier batches are not held back (references still resolve)."""
    return settings.model_copy(update={
        "workspace": workspace, "outputs_dir": workspace / "outputs",
        "history": settings.history.model_copy(update={"days": 0})})


def index_for_briefs(settings: Settings, catalog: Path, tag_blind: bool = False,
                     mapping: ColumnMapping = ColumnMapping(), fmt: str | None = None) -> dict[str, str]:
    """Import the catalog (its tags hidden when tag_blind) and index it; each book id's work id."""
    index_catalog(settings, catalog, without_tags(get_vocabulary(), mapping) if tag_blind else mapping, fmt)
    with open_catalog(settings.duckdb_path) as db:
        return {b.book_id: b.work_id or b.book_id for b in db.load_books()}


@flow(name="shelve-judged-briefs", validate_parameters=False)
def shelve_judged(batch_id: str, forms: list[dict[str, str]], catalog: Path, settings: Settings,
                  tag_blind: bool = False) -> tuple[list[ThemeShelf], dict[str, str]]:
    """Shelve judged briefs (theme forms) as one batch over a catalog; the shelves and each book's work id."""
    works = index_for_briefs(settings, catalog, tag_blind)
    result = shelve_batch(settings, batch_id, themes_from_form(batch_id, forms, source=batch_id))
    return result.theme_shelves, works


@flow(name="evaluate-briefs", validate_parameters=False)
def evaluate_briefs(benchmark: Path, catalog: Path, settings: Settings, tag_blind: bool = False,
                    mapping: ColumnMapping = ColumnMapping(), fmt: str | None = None) -> list[BriefScore]:
    """Shelve every batch of a benchmark file over a catalog (its tags hidden when tag_blind) and score each brief."""
    vocabulary = get_vocabulary()
    works = index_for_briefs(settings, catalog, tag_blind, mapping, fmt)
    truth = {b.book_id: replace(b, work_id=works.get(b.book_id, b.book_id))
             for b in validate_file(catalog, mapping, vocabulary, fmt).books}
    scores, theme_of = [], {}
    for batch in load_benchmark(benchmark, tag_blind):
        briefs = themes_from_form(batch.batch_id, [{"theme_id": b.id, "theme_name": b.brief} for b in batch.briefs],
                                  source=str(benchmark))
        result = shelve_batch(settings, batch.batch_id, briefs)
        theme_of.update({b.id: f"{batch.batch_id}/{b.id}" for b in batch.briefs})
        for brief, shelf in zip(batch.briefs, result.theme_shelves):
            understanding = shelf.understanding
            # a series resolves to its volumes: the titles a curator would list
            volumes = tuple(truth[b].title for b in understanding.book_ids
                            if understanding.intent is Intent.SERIES and b in truth)
            outcome = ShelfOutcome(shelf.status, understanding.intent, understanding.authors,
                                   understanding.titles + volumes, shelf.referenced,
                                   tuple(e.book.book_id for e in shelf.entries), shelf.query.filter_conditions,
                                   shelf.verdict.question.kind if shelf.verdict.question else None)
            scores.append(score_brief(brief, outcome, truth, vocabulary, theme_of))
    return scores


def evaluate(dataset: Path, variants: list[Variant], settings: Settings, limit: int | None = None) -> list[ModeScore]:
    """Index the data set in settings.workspace (its caches make reruns cheap) and score every variant."""
    beir = load_beir(dataset)
    vocabulary = get_vocabulary()
    settings.workspace.mkdir(parents=True, exist_ok=True)
    index_catalog(settings, corpus_as_catalog(beir, settings.workspace / f"{beir.name}.jsonl"))
    ctx = build_context(settings, vocabulary)
    asked = list(beir.queries.items())[:limit]
    queries = [(query_id, text) for query_id, text in asked if text.strip()]  # cmrc2018 has empty questions
    if len(queries) < len(asked):
        logger.warning("eval %s: %d queries without words left out", beir.name, len(asked) - len(queries))
    if ctx.recall.e5_embedder is None:  # the index has no e5 path: nothing to compare
        variants = [v for v in variants if "e5" not in v.name]
    scores = []
    for variant in variants:
        run_ctx = ctx.choosing(variant.settings(settings), variant.switches)
        start = time.perf_counter()
        progress = Progress(f"eval {beir.name} {variant.name}", len(queries), every_seconds=15)
        ndcg = recall_score = 0.0
        for query_id, text in queries:
            theme = Theme("eval", query_id, text)  # the query once: as a name and a description it was read twice
            # full: the product's stages on a claim's own query (tasks/evaluation/queries.py); the brief grammar
            # reads briefs, not claims
            understood = as_is(theme, run_ctx.tools, retrieval_query(text) if variant.translate else None)
            ranked_ids = list(rank(recall(understood, run_ctx.recall), understood, run_ctx.ranking).ranked)
            ndcg += ndcg_at(ranked_ids, beir.qrels[query_id], 10)
            recall_score += recall_at(ranked_ids, beir.qrels[query_id], 100)
            progress.advance()
        n = max(len(queries), 1)
        scores.append(ModeScore(variant.name, round(ndcg / n, 4), round(recall_score / n, 4), len(queries),
                                round(time.perf_counter() - start, 1)))
        logger.info("eval %s %s: nDCG@10 %.4f, Recall@100 %.4f", beir.name, variant.name, ndcg / n, recall_score / n)
    return scores


def as_is(theme: Theme, tools: UnderstandingTools, query: ThemeQuery | None = None) -> Understood:
    """A labelled query searched as it is written, or as `query` (a claim's own words): no brief reading, no
    intent."""
    text = theme.brief
    query = query or ThemeQuery((), (text,), text, 1.0, "eval", detect_language(text))
    return Understood(theme, query, hard_constraints((), (), tools.available_only, tools.filter_confidence))


def tune(dataset: Path, settings: Settings, limit: int | None = None) -> TuneReport:
    """Fit the fusion settings on labelled themes (BEIR layout) by a small grid; best nDCG@10 wins."""
    scores = evaluate(dataset, tune_variants(), settings, limit)
    return choose_fusion(scores, settings.fusion.model_dump())
