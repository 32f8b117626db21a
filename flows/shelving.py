"""Wiring of one theme's steps: translate, recall on each path, fuse, rerank, de-duplicate, shelve.

Shared by the shelf flow and by `shelfwise eval`, so that evaluation measures the product's path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from config.settings import Settings
from config.vocabulary import Vocabulary
from storage.catalog_db import CatalogDB
from storage.index_store import BOOKS_E5_TABLE, BOOKS_TABLE, IndexSnapshot, open_index
from storage.models import BatchSwitches, BookRecord, HistoryShelf, Theme
from tasks.book_graph import BookGraph
from tasks.dedupe import find_exclusions
from tasks.dense_scores import dense_scores
from tasks.embedders import create_embedder
from tasks.embedders.base import Embedder
from tasks.entities import EntityIndex, Understanding, load_aliases, understand
from tasks.filters import Expr, evaluate, hard_constraints
from tasks.fusion import rrf_fuse, score_fuse
from tasks.gating import VocabularyVectors, gate
from tasks.intent_recall import intent_paths
from tasks.models import Candidate, PathHit, ThemeQuery
from tasks.progress import logger, timed
from tasks.recall import VectorRecall, bm25_query_tokens, bm25_recall, theme_seed, vector_recall
from tasks.references import detect_reference, merge_reference, resolve
from tasks.rerank import Reranker, create_reranker, rerank
from tasks.rerank.sentence import sentence_rerank
from tasks.shelf import ThemeShelf, select_shelf
from tasks.translate import create_translator
from tasks.translate.base import Translator

THEME_SHELF = Understanding("theme_shelf")
INTENT_SCORED_PATHS = ("similar", "related", "recent")
ENTITY_CONFIDENCE = 0.8
NEW_ARRIVALS_CONFIDENCE = 0.6
PATHS = ("vector", "bm25", "e5")  # e5 runs only where the index was built with index.e5_path


@dataclass(frozen=True)
class RecallOptions:
    """Which parts of the path run; the product runs all of them, `shelfwise eval` switches them."""

    paths: tuple[str, ...] = PATHS
    use_threshold: bool = True
    bm25_randomness: float | None = None  # None: as configured
    use_rerank: bool = True
    expansion: bool | None = None  # None: as configured (settings.expansion.enabled)
    sentence_rerank: bool | None = None  # None: as configured (settings.rerank.sentence.enabled)


@dataclass(frozen=True)
class ShelvingContext:
    """What every theme of a run shares: the index, the catalog, the models and the settings."""

    snapshot: IndexSnapshot
    books: Mapping[str, BookRecord]
    embedder: Embedder
    translator: Translator
    reranker: Reranker | None
    vocabulary_vectors: VocabularyVectors
    settings: Settings
    available_only: bool = True  # books with no copies on the shelf are left out
    e5_embedder: Embedder | None = None  # set when the index has the e5 path
    entities: EntityIndex | None = None  # the catalog's authors and titles
    graph: BookGraph = field(default_factory=lambda: BookGraph({}, {}, {}))  # books linked by authors and tags


@dataclass
class Ranking:
    candidates: list[Candidate]
    notes: list[str] = field(default_factory=list)
    stage_seconds: dict[str, float] = field(default_factory=dict)


def document_text(book: BookRecord) -> str:
    """What a reranker reads of a book."""
    return f"{book.title_line}\n{book.summary or ''}"[:1000]


def rank_books(theme: Theme, query: ThemeQuery, constraints: Expr, ctx: ShelvingContext,
               options: RecallOptions = RecallOptions(), understanding: Understanding = THEME_SHELF) -> Ranking:
    """Recall on every path at once under the hard constraints, fusion with provenance, optional reranks."""
    settings = ctx.settings
    ranking = Ranking([])
    timings = ranking.stage_seconds
    with timed(timings, "recall"):
        jobs = _recall_jobs(theme, query, constraints, ctx, options, understanding)
        recalled = _recall_concurrently(jobs, timings, settings.recall.parallel_paths)
    paths = {name: hits for r in recalled.values() for name, hits in r.paths.items()}
    found = {name: r.dense for name, r in recalled.items() if r.dense is not None}
    ranking.notes += [r.note for r in recalled.values() if r.note]
    with timed(timings, "fusion"):
        fusion = settings.fusion
        candidates = rrf_fuse(paths, fusion.rrf_k, fusion.weights if fusion.method == "rrf" else None)
        if fusion.method != "rrf" and candidates:
            candidates = _score_fusion(candidates, paths, query, found, ctx)
        if understanding.intent == "new_arrivals":
            # New arrivals are shelved newest first; the topic paths only add books after them.
            recent = sorted((c for c in candidates if "recent" in c.ranks), key=lambda c: c.ranks["recent"])
            candidates = recent + [c for c in candidates if "recent" not in c.ranks]
    sentence = settings.rerank.sentence
    sentence_on = options.sentence_rerank if options.sentence_rerank is not None else sentence.enabled
    if sentence_on and understanding.intent != "theme_shelf":
        # The order of a spotlight, a "like this book" or new arrivals comes from the named author, book
        # or date; the brief's wording ("像《边城》那样的书") says nothing a summary sentence could match.
        ranking.notes.append(f"sentence rerank: not for intent {understanding.intent}")
    elif sentence_on:
        with timed(timings, "sentence_rerank"):
            query_vector = (found["vector"].query_vector if "vector" in found
                            else ctx.embedder.embed_queries([query.synthetic_query])[0])
            outcome = sentence_rerank(candidates, query_vector, ctx.snapshot.sentences_of, sentence.top_n,
                                      sentence.budget_seconds, sentence.weight)
        candidates = outcome.candidates
        ranking.notes.append(outcome.note)
    if options.use_rerank and ctx.reranker is not None:
        with timed(timings, "rerank"):
            reranked = rerank(candidates, query.synthetic_query, lambda b: document_text(ctx.books[b]),
                              ctx.reranker, settings.rerank.top_n)
        candidates = reranked.candidates
        ranking.notes.append(f"rerank: {reranked.note}")
    ranking.candidates = candidates
    return ranking


@dataclass(frozen=True)
class PathRecall:
    """What one recall job found: one or more named paths, and for a dense path its query vector."""

    paths: dict[str, list[PathHit]]
    note: str = ""
    dense: VectorRecall | None = None


def _recall_jobs(theme: Theme, query: ThemeQuery, constraints: Expr, ctx: ShelvingContext, options: RecallOptions,
                 understanding: Understanding) -> dict[str, Callable[[], PathRecall]]:
    """The independent recall jobs this theme runs, by name."""
    settings = ctx.settings
    jobs: dict[str, Callable[[], PathRecall]] = {}
    if understanding.intent != "theme_shelf":
        def intent_job() -> PathRecall:
            found = intent_paths(understanding, query, constraints, ctx.snapshot, ctx.books, ctx.graph,
                                 settings.recall.vector_top_k)
            return PathRecall(found, ", ".join(f"{name}: {len(hits)}" for name, hits in found.items()))
        jobs["intent"] = intent_job
    expand = options.expansion if options.expansion is not None else settings.expansion.enabled
    dense_paths = {"vector": (ctx.embedder, BOOKS_TABLE), "e5": (ctx.e5_embedder, BOOKS_E5_TABLE)}
    for path, (embedder, table) in dense_paths.items():
        if path in options.paths and embedder is not None:
            def dense_job(path: str = path, embedder: Embedder = embedder, table: str = table) -> PathRecall:
                found = vector_recall(query, constraints, ctx.snapshot, embedder, settings.recall,
                                      options.use_threshold, path, table, expand)
                return PathRecall({path: found.hits}, found.describe(path), found)
            jobs[path] = dense_job
    if "bm25" in options.paths:
        def bm25_job() -> PathRecall:
            hits = bm25_recall(query, constraints, ctx.snapshot, ctx.books, settings.recall,
                               theme_seed(theme.batch_id, theme.theme_id), options.bm25_randomness)
            return PathRecall({"bm25": hits}, f"bm25: {len(hits)}")
        jobs["bm25"] = bm25_job
    return jobs


def _recall_concurrently(jobs: dict[str, Callable[[], PathRecall]], timings: dict[str, float],
                         parallel: bool = True) -> dict[str, PathRecall]:
    """Run the jobs on threads (LanceDB, bm25s and NumPy release the GIL); results in the jobs' order.

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


def _score_fusion(candidates: list[Candidate], paths: dict[str, list[PathHit]], query: ThemeQuery,
                  found: dict[str, VectorRecall], ctx: ShelvingContext) -> list[Candidate]:
    """Score every candidate on every path that ran, then fuse the normalised scores."""
    fusion = ctx.settings.fusion
    ids = [c.book_id for c in candidates]
    all_scores: dict[str, dict[str, float]] = {}
    references: dict[str, list[float]] = {}
    tokens = bm25_query_tokens(query, ctx.snapshot)
    weights = fusion.short_query_weights if len(tokens) <= fusion.short_query_tokens else fusion.weights
    if "bm25" in paths:
        all_scores["bm25"] = ctx.snapshot.bm25.scores_for(tokens, ids)
        references["bm25"] = [h.score for h in paths["bm25"]]
    if "vector" in found:
        dense = dense_scores(found["vector"].query_vector, ids, ctx.snapshot, fusion.sentence_weight)
        all_scores["vector"] = {b: d.score for b, d in dense.items()}
        references["vector"] = [dense[h.book_id].score for h in paths["vector"] if h.book_id in dense]
        for cand in candidates:
            if cand.book_id in dense:
                cand.evidence = dense[cand.book_id].evidence
    if "entity" in paths:
        own = {h.book_id for h in paths["entity"]}
        all_scores["entity"] = {b: 1.0 if b in own else 0.0 for b in ids}
        references["entity"] = [0.0, 1.0]
    for path in INTENT_SCORED_PATHS:
        if path in paths:  # books a graph or recency path did not reach get nothing from it
            all_scores[path] = {h.book_id: h.score for h in paths[path]}
            references[path] = list(all_scores[path].values())
    if "e5" in found:
        vectors = ctx.snapshot.book_vectors(ids, BOOKS_E5_TABLE)
        all_scores["e5"] = {b: float(v @ found["e5"].query_vector) for b, v in vectors.items()}
        references["e5"] = [all_scores["e5"][h.book_id] for h in paths["e5"] if h.book_id in vectors]
    return score_fuse(candidates, all_scores, references, weights, fusion.method)


def shelve_theme(theme: Theme, history: list[HistoryShelf], ctx: ShelvingContext) -> ThemeShelf:
    """One theme from brief to shelf, gated, every shelved book checked against the constraints."""
    settings = ctx.settings
    timings: dict[str, float] = {}
    notes: list[str] = []
    with timed(timings, "translate"):
        query = ctx.translator.translate(theme)
        reference = detect_reference(theme.brief)
        if reference is not None:
            target = resolve(reference, theme, history)
            if target is None:
                notes.append(f"reference ({'/'.join(reference.cues)}): no earlier shelf to resolve it to")
            else:
                query = merge_reference(query, reference, target)
                shifts = "".join(f", {s}" for s in reference.shifts)
                notes.append(f"reference ({'/'.join(reference.cues)}) -> {target.batch_id}/{target.theme_id} "
                             f"({reference.stance}{shifts})")
        understanding = understand(theme.brief, ctx.entities) if ctx.entities else THEME_SHELF
        if (understanding.intent == "theme_shelf" and not query.filter_conditions and not query.numeric_conditions
                and query.confidence < settings.gating.min_confidence):
            understanding = replace(understanding, intent="unknown")  # nothing recognisable: gating will ask
        if understanding.book_ids:
            # A catalog author or title named in the brief is the surest signal there is (less so misspelt).
            query = replace(query, confidence=max(query.confidence, ENTITY_CONFIDENCE * understanding.confidence))
        elif understanding.intent == "new_arrivals":
            # "新书上架" says little for the vocabulary, but exactly what to shelve: the newest books.
            query = replace(query, confidence=max(query.confidence, NEW_ARRIVALS_CONFIDENCE))
        if understanding.intent != "theme_shelf":
            notes.append(understanding.describe())
    constraints = hard_constraints(query.filter_conditions, query.numeric_conditions, ctx.available_only)
    ranking = rank_books(theme, query, constraints, ctx, understanding=understanding)
    timings.update(ranking.stage_seconds)
    with timed(timings, "history"):
        conditions = [c.to_dict() for c in query.filter_conditions]
        exclusions = find_exclusions(theme.brief, conditions, history, ctx.embedder, settings.history)
    with timed(timings, "shelf"):
        # "more like this book" never shelves the book itself; a spotlit author is not capped
        excluded = exclusions.book_ids | (frozenset(understanding.book_ids)
                                          if understanding.intent == "similar_to_book" else frozenset())
        exempt = set(understanding.authors)  # a spotlit author, or a series' authors, is not capped
        if understanding.intent == "series":
            exempt |= {a for b in understanding.book_ids if b in ctx.books for a in ctx.books[b].authors}
        entries = select_shelf(ranking.candidates, ctx.books, excluded, query, settings.shelf.size,
                               settings.shelf.max_per_author, exempt_authors=frozenset(exempt))
        checked = [e for e in entries if evaluate(constraints, e.book)]
        for bad in (e for e in entries if e not in checked):
            # Recall applies the same tree, so this means a bug in a path: log it, never shelve it.
            logger.error("BUG: %s (%s) violates the constraints of theme %s; dropped",
                         bad.book.book_id, bad.book.title, theme.theme_id)
        entries = [replace(e, rank=i) for i, e in enumerate(checked, start=1)]
    with timed(timings, "gating"):
        brief_vector = ctx.embedder.embed_queries([theme.brief])[0]
        skipped = sum(1 for c in ranking.candidates if c.book_id in exclusions.book_ids)
        verdict = gate(query, ranking.candidates, len(entries), ctx.vocabulary_vectors.closest(brief_vector),
                       settings.gating, head_matters=understanding.intent == "theme_shelf", history_skipped=skipped)
    notes += ranking.notes
    if exclusions.because_of:
        notes.append("history: skipped books of " + ", ".join(exclusions.because_of))
    return ThemeShelf(theme, query, entries, verdict.status, notes, timings, verdict)


def with_switches(ctx: ShelvingContext, switches: BatchSwitches) -> ShelvingContext:
    """The context with a batch's own choice of the optional stages (None keeps the configured one)."""
    settings = ctx.settings
    if switches.sentence_rerank is not None:
        sentence = replace(settings.rerank.sentence, enabled=switches.sentence_rerank)
        settings = replace(settings, rerank=replace(settings.rerank, sentence=sentence))
    if switches.query_expansion is not None:
        settings = replace(settings, expansion=replace(settings.expansion, enabled=switches.query_expansion))
    return replace(ctx, settings=settings)


def build_context(db: CatalogDB, settings: Settings, vocabulary: Vocabulary,
                  available_only: bool = True) -> ShelvingContext:
    """Open the current index and load the catalog and models a run needs."""
    version = db.current_index_version()
    if version is None:
        raise RuntimeError("no index has been built yet: run `shelfwise index build`")
    embedder = create_embedder(settings.embedder)
    snapshot = open_index(version.version_id, Path(version.path))
    books = {b.book_id: b for b in db.load_books()}
    e5_embedder = None
    if snapshot.books_e5 is not None:
        from tasks.embedders.e5 import E5Embedder

        e5_embedder = E5Embedder(threads=settings.embedder.threads)
    return ShelvingContext(
        snapshot=snapshot,
        books=books,
        embedder=embedder,
        translator=create_translator(settings.translation, vocabulary),
        reranker=create_reranker(settings.rerank),
        vocabulary_vectors=VocabularyVectors.build(vocabulary, embedder),
        settings=settings,
        available_only=available_only,
        e5_embedder=e5_embedder,
        entities=EntityIndex.build(books.values(), load_aliases()),
        graph=BookGraph.build(books.values()),
    )
