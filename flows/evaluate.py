"""`shelfwise eval`: index a BEIR set through the catalog path and score each recall mode."""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import yaml

from config.settings import get_settings, local_config_path
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


@dataclass(frozen=True)
class Variant:
    """One way to run the recall path: which paths, which fusion, with or without translation."""

    name: str
    options: RecallOptions
    fusion: dict | None = None  # overrides of settings.fusion
    translate: bool = False
    sentence: dict | None = None  # overrides of settings.rerank.sentence


_PLAIN = dict(use_threshold=False, bm25_randomness=0.0, use_rerank=False)
MODES = {
    "bm25": Variant("bm25", RecallOptions(paths=("bm25",), **_PLAIN)),
    "vector": Variant("vector", RecallOptions(paths=("vector",), **_PLAIN)),
    "hybrid": Variant("hybrid", RecallOptions(**_PLAIN)),
    "full": Variant("full", RecallOptions(), translate=True),
}
# Every default switched off in turn, beside the modes.
ABLATION = [
    MODES["bm25"], MODES["vector"],
    Variant("vector -sentence", RecallOptions(paths=("vector",), **_PLAIN), {"sentence_weight": 0.0}),
    Variant("rrf (equal)", RecallOptions(**_PLAIN), {"method": "rrf", "weights": {"vector": 1.0, "bm25": 1.0}}),
    MODES["hybrid"],
    Variant("hybrid -sentence", RecallOptions(**_PLAIN), {"sentence_weight": 0.0}),
    Variant("hybrid -short-query rule", RecallOptions(**_PLAIN), {"short_query_tokens": 0}),
    Variant("hybrid dbsf", RecallOptions(**_PLAIN), {"method": "dbsf"}),
    Variant("hybrid dbsf 1/0.5", RecallOptions(**_PLAIN), {"method": "dbsf", "weights": {"vector": 0.5, "bm25": 1.0}}),
    Variant("hybrid equal weights", RecallOptions(**_PLAIN), {"weights": {"vector": 1.0, "bm25": 1.0}}),
    Variant("e5", RecallOptions(paths=("e5",), **_PLAIN)),
    Variant("hybrid -e5", RecallOptions(paths=("vector", "bm25"), **_PLAIN)),
    MODES["full"],
    Variant("full -threshold", RecallOptions(use_threshold=False), translate=True),
    Variant("full -randomness", RecallOptions(bm25_randomness=0.0), translate=True),
]
# Seed 001's two stages, each on and off: query expansion and sentence-level rerank.
STAGES = [
    Variant(f"{mode} exp={'on' if expansion else 'off'} sent={'on' if sentence else 'off'}",
            RecallOptions(paths=paths, **_PLAIN, expansion=expansion, sentence_rerank=sentence))
    for mode, paths in (("vector", ("vector",)), ("hybrid", RecallOptions().paths))
    for expansion in (False, True) for sentence in (False, True)
] + [Variant(f"hybrid sent=on w={weight}", RecallOptions(**_PLAIN, sentence_rerank=True), sentence={"weight": weight})
     for weight in (0.1, 0.5, 1.0)]


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


def evaluate(dataset: Path, variants: list[Variant], workspace: Path, limit: int | None = None) -> list[ModeScore]:
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
    if ctx.e5_embedder is None:  # the index has no e5 path: nothing to compare
        variants = [v for v in variants if "e5" not in v.name]
    scores = []
    for variant in variants:
        mode = variant.name
        run_settings = settings
        if variant.fusion:
            run_settings = replace(run_settings, fusion=replace(settings.fusion, **variant.fusion))
        if variant.sentence:
            sentence = replace(settings.rerank.sentence, **variant.sentence)
            run_settings = replace(run_settings, rerank=replace(settings.rerank, sentence=sentence))
        run_ctx = replace(ctx, settings=run_settings)
        start = time.perf_counter()
        progress = Progress(f"eval {beir.name} {mode}", len(queries), every_seconds=15)
        ndcg = recall = 0.0
        for query_id, text in queries:
            theme = Theme("eval", query_id, text[:80], description=text)
            if variant.translate:
                query = ctx.translator.translate(theme)
            else:
                query = ThemeQuery((), (text,), text, 1.0, "eval", detect_language(text))
            constraints = hard_constraints(query.filter_conditions, query.numeric_conditions, ctx.available_only)
            ranking = rank_books(theme, query, constraints, run_ctx, variant.options)
            ranked_ids = [c.book_id for c in ranking.candidates]
            ndcg += ndcg_at(ranked_ids, beir.qrels[query_id], 10)
            recall += recall_at(ranked_ids, beir.qrels[query_id], 100)
            progress.advance()
        n = max(len(queries), 1)
        scores.append(ModeScore(mode, round(ndcg / n, 4), round(recall / n, 4), len(queries),
                                round(time.perf_counter() - start, 1)))
        logger.info("eval %s %s: nDCG@10 %.4f, Recall@100 %.4f", beir.name, mode, ndcg / n, recall / n)
    return scores


@dataclass(frozen=True)
class TuneReport:
    before: ModeScore
    after: ModeScore
    fusion: dict  # the chosen fusion settings, as written to config/local.yaml


TUNE_GRID = [
    {"method": method, "weights": {"bm25": 1.0, "vector": weight}, "sentence_weight": sentence}
    for method in ("dbsf", "minmax") for weight in (0.25, 0.5, 0.75, 1.0, 1.5) for sentence in (0.0, 0.5)
] + [{"method": "rrf", "weights": {"bm25": 1.0, "vector": weight}} for weight in (0.3, 0.5, 1.0)]


def tune(dataset: Path, workspace: Path, limit: int | None = None) -> TuneReport:
    """Fit the fusion settings on labelled themes (BEIR layout) by a small grid, best nDCG@10 wins."""
    variants = [MODES["hybrid"]] + [Variant(f"grid {i}", MODES["hybrid"].options, grid)
                                    for i, grid in enumerate(TUNE_GRID)]
    scores = evaluate(dataset, variants, workspace, limit)
    before = scores[0]
    best_index = max(range(1, len(scores)), key=lambda i: (scores[i].ndcg_at_10, scores[i].recall_at_100, -i))
    best = TUNE_GRID[best_index - 1] if scores[best_index].ndcg_at_10 > before.ndcg_at_10 else None
    chosen = best or {k: v for k, v in asdict(get_settings().fusion).items()}
    return TuneReport(before, scores[best_index] if best else before, chosen)


def write_local_fusion(fusion: dict) -> Path:
    """Record tuned fusion settings in config/local.yaml, keeping what else it holds (atomic write)."""
    path = local_config_path()
    current = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    current = current or {}
    current["fusion"] = {**current.get("fusion", {}), **fusion}
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text("# Written by `shelfwise tune`; overrides config/settings.yaml on this installation.\n"
                   + yaml.safe_dump(current, allow_unicode=True, sort_keys=False), encoding="utf-8")
    os.replace(tmp, path)
    return path
