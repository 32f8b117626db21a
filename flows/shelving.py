"""Wiring of one theme's steps: translate, understand, recall on each path, fuse, rerank, de-duplicate, shelve.

Shared by the shelf flow, `shelfwise try` and `shelfwise eval`, so that evaluation measures the product's
path. Every decision lives in a step (tasks/); this module only passes each step's output to the next.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, partial

from config.settings import Settings
from config.vocabulary import Vocabulary, load_aliases
from storage.index_store import BOOKS_E5_TABLE, BOOKS_TABLE, IndexSnapshot, NoIndexError, open_current
from storage.models import BookRecord, HistoryShelf, StageSwitches, Theme
from tasks.catalog.embedders import create_embedder
from tasks.catalog.embedders.base import Embedder
from tasks.catalog.works import overlapping_works
from tasks.models import ThemeQuery
from tasks.progress import limit_blas_threads, logger, long_lived_objects, timed
from tasks.ranking.dedupe import find_exclusions
from tasks.ranking.fusion import (
    adults_first,
    fuse,
    path_first,
    preferred_first,
    promote_wished,
    screen_unsure_exclusions,
)
from tasks.ranking.gating import ShelfLimits, VocabularyVectors, gate
from tasks.ranking.language import choose_language, choose_preference, prefer_language
from tasks.ranking.reasons import explain_shelf, shelf_facts
from tasks.ranking.rerank import Reranker, create_reranker, document_text, rerank
from tasks.ranking.rerank.sentence import sentence_rerank
from tasks.ranking.shelf import ThemeShelf, check_shelf, count_unavailable, editions_by_work, select_shelf
from tasks.recall.book_graph import NO_GRAPH, BookGraph
from tasks.recall.filters import (
    NUMERIC_FIELDS,
    Expr,
    FilterColumns,
    as_wishes,
    evaluate,
    hard_constraints,
    surely_held,
)
from tasks.recall.intent_paths import intent_paths
from tasks.recall.paths import (
    PathRecall,
    bm25_query_tokens,
    bm25_recall,
    most_together,
    run_jobs,
    theme_seed,
    vector_recall,
)
from tasks.recall.scores import score_every_path
from tasks.recall.vector_search import VectorSearch, create_vector_search
from tasks.understanding.entities import EntityIndex, understand_reading
from tasks.understanding.intent import (
    POLICIES,
    THEME_SHELF,
    Intent,
    Understanding,
    excluded_books,
    keeping_named_kind,
    raise_confidence,
    settle_intent,
    uncapped_authors,
    without_named_words,
)
from tasks.understanding.reading import read_brief
from tasks.understanding.references import apply_reference, described_shelf, shared_words, without_reference_words
from tasks.understanding.translate import create_translator
from tasks.understanding.translate.base import Translator


@dataclass(frozen=True)
class ShelvingContext:
    """What every theme of a run shares: the index, the catalog, the models, the settings and the switches."""

    snapshot: IndexSnapshot
    books: Mapping[str, BookRecord]
    vocabulary: Vocabulary
    embedder: Embedder
    translator: Translator
    reranker: Reranker | None
    vocabulary_vectors: VocabularyVectors
    settings: Settings
    available_only: bool = True  # books with no copies on the shelf are left out
    e5_embedder: Embedder | None = None  # set when the index has the e5 path
    entities: EntityIndex | None = None  # the catalog's authors and titles
    # books linked by authors and tags, built when first asked for: only the named-entity intents walk it
    graph: Callable[[], BookGraph] = lambda: NO_GRAPH
    switches: StageSwitches = StageSwitches()
    editions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # work id -> its editions' book ids
    overlapping: Mapping[str, frozenset[str]] = field(default_factory=dict)  # a set's works and its volumes'
    held: frozenset[tuple[str, str]] | None = None  # (facet, value) pairs some book holds surely; None: all
    numbered: frozenset[str] | None = None  # the number fields some book has a value of; None: all
    searches: Mapping[str, VectorSearch] = field(default_factory=dict)  # dense table -> its vector search


@dataclass
class Ranking:
    candidates: list
    notes: list[str] = field(default_factory=list)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    likely_excluded: int = 0  # candidates left out: a guess says they likely hold a value the brief excludes


def rank_books(theme: Theme, query: ThemeQuery, constraints: Expr, ctx: ShelvingContext,
               understanding: Understanding = THEME_SHELF) -> Ranking:
    """Recall on every path at once under the hard constraints, fusion with provenance, optional reranks."""
    settings, switches, policy = ctx.settings, ctx.switches, POLICIES[understanding.intent]
    ranking = Ranking([])
    timings = ranking.stage_seconds
    with timed(timings, "recall"):
        recalled = run_jobs(_recall_jobs(theme, query, constraints, ctx, understanding), timings,
                            settings.recall.parallel_paths)
    paths = {name: hits for r in recalled.values() for name, hits in r.paths.items()}
    dense = {name: r.dense for name, r in recalled.items() if r.dense is not None}
    ranking.notes += [r.note for r in recalled.values() if r.note]
    with timed(timings, "fusion"):
        tokens = bm25_query_tokens(query, ctx.snapshot, settings.recall.max_keyword_share)
        scoring = (score_every_path(paths, tokens, dense, ctx.snapshot, settings.fusion.sentence_weight)
                   if settings.fusion.method != "rrf" else None)
        cover = ctx.snapshot.bm25.best_cover(tokens) if "bm25" in paths and tokens else 1.0
        candidates = fuse(paths, scoring, settings.fusion, len(tokens), cover, named=bool(policy.paths))
        if policy.ordered_by:
            candidates = path_first(candidates, policy.ordered_by)
    sentence = settings.rerank.sentence
    if switches.sentence_rerank if switches.sentence_rerank is not None else sentence.enabled:
        if not policy.sentence_rerank:
            ranking.notes.append(f"sentence rerank: not for intent {understanding.intent}")
        else:
            with timed(timings, "sentence_rerank"):
                query_vector = (dense["vector"].query_vector if "vector" in dense
                                else ctx.embedder.embed_queries([query.synthetic_query])[0])
                outcome = sentence_rerank(candidates, query_vector, ctx.snapshot.sentences_of, sentence.top_n,
                                          sentence.budget_seconds, sentence.weight)
            candidates = outcome.candidates
            ranking.notes.append(outcome.note)
    if switches.rerank and ctx.reranker is not None:
        with timed(timings, "rerank"):
            reranked = rerank(candidates, query.synthetic_query, lambda b: document_text(ctx.books[b]),
                              ctx.reranker, settings.rerank.top_n)
        candidates = reranked.candidates
        ranking.notes.append(f"rerank: {reranked.note}")
    wished = preferred_first(promote_wished(candidates, query, ctx.books), query, ctx.books)
    screened = screen_unsure_exclusions(wished, query, ctx.books)
    candidates, ranking.likely_excluded = screened.candidates, screened.left_out
    if screened.left_out:
        ranking.notes.append(f"left out {screened.left_out} books a guess says likely hold a value the brief excludes")
    children = ctx.vocabulary.kind("audience", "children")
    if children:
        candidates = adults_first(candidates, query, ctx.books, children, ctx.snapshot.filter_confidence,
                                  understanding.book_ids)
    ranking.candidates = candidates
    return ranking


def _recall_jobs(theme: Theme, query: ThemeQuery, constraints: Expr, ctx: ShelvingContext,
                 understanding: Understanding) -> dict[str, Callable[[], PathRecall]]:
    """The independent recall jobs this theme runs, by name."""
    settings, switches = ctx.settings, ctx.switches
    jobs: dict[str, Callable[[], PathRecall]] = {}
    if POLICIES[understanding.intent].paths:
        def intent_job() -> PathRecall:
            found = intent_paths(understanding, query, constraints, ctx.snapshot, ctx.searches[BOOKS_TABLE],
                                 ctx.books, ctx.graph(), settings.recall.vector_top_k)
            return PathRecall(found, ", ".join(f"{name}: {len(hits)}" for name, hits in found.items()))
        jobs["intent"] = intent_job
    expand = switches.query_expansion if switches.query_expansion is not None else settings.expansion.enabled
    dense_paths = {"vector": (ctx.embedder, BOOKS_TABLE), "e5": (ctx.e5_embedder, BOOKS_E5_TABLE)}
    for path, (embedder, table) in dense_paths.items():
        if path in switches.paths and embedder is not None:
            def dense_job(path: str = path, embedder: Embedder = embedder, table: str = table) -> PathRecall:
                found = vector_recall(query, constraints, ctx.searches[table], embedder, settings.recall,
                                      ctx.snapshot.filter_confidence, path, expand)
                return PathRecall({path: found.hits}, found.describe(path), found)
            jobs[path] = dense_job
    if "bm25" in switches.paths:
        def bm25_job() -> PathRecall:
            hits = bm25_recall(query, constraints, ctx.snapshot, ctx.books, settings.recall,
                               theme_seed(theme.batch_id, theme.theme_id), switches.bm25_randomness)
            return PathRecall({"bm25": hits}, f"bm25: {len(hits)}")
        jobs["bm25"] = bm25_job
    return jobs


def shelf_likeness(brief: str, embedder: Embedder) -> Callable[[list[HistoryShelf]], list[float]]:
    """How close each earlier shelf's brief is to what this brief says of the shelf it refers to: by meaning,
    plus the share of its words the earlier brief uses."""
    described = described_shelf(brief)

    def likeness(shelves: list[HistoryShelf]) -> list[float]:
        if not described:  # "the previous shelf" names none: the latest is meant
            return []
        briefs = [without_reference_words(s.brief) or s.brief for s in shelves]
        vectors = embedder.embed_queries([described, *briefs])
        return [float(similarity) + shared_words(described, brief)
                for similarity, brief in zip(vectors[1:] @ vectors[0], briefs)]
    return likeness


def shelve_theme(theme: Theme, history: list[HistoryShelf], ctx: ShelvingContext) -> ThemeShelf:
    """One theme from brief to shelf, gated, every shelved book checked against the constraints."""
    settings = ctx.settings
    timings: dict[str, float] = {}
    notes: list[str] = []
    with timed(timings, "translate"):
        reading = read_brief(theme.brief, ctx.vocabulary, ctx.entities)
        reference = apply_reference(ctx.translator.translate(theme, reading), theme, history,
                                    shelf_likeness(theme.brief, ctx.embedder))
        query = reference.query
        notes += [*reading.notes, *([reference.note] if reference.note else [])]
        understanding = understand_reading(reading, ctx.entities) if ctx.entities else THEME_SHELF
        catalog_words = bm25_query_tokens(query, ctx.snapshot, settings.recall.max_keyword_share)
        understanding = settle_intent(understanding, query, len(catalog_words),
                                      lambda: most_together(catalog_words, ctx.snapshot))
        query = without_named_words(raise_confidence(query, understanding), understanding)
        query = keeping_named_kind(query, understanding, ctx.books, ctx.snapshot.filter_confidence)
        query, unchecked = as_wishes(query, ctx.held, ctx.numbered)
        if POLICIES[understanding.intent].announced:
            notes.append(understanding.describe())
    constraints = hard_constraints(query.filter_conditions, query.numeric_conditions, ctx.available_only,
                                   ctx.snapshot.filter_confidence)
    ranking = rank_books(theme, query, constraints, ctx, understanding)
    timings.update(ranking.stage_seconds)
    with timed(timings, "history"):
        exclusions = find_exclusions(theme.brief, query.filter_conditions, history, ctx.embedder, settings.history)
    with timed(timings, "shelf"):
        language = choose_language(query, choose_preference(
            theme.language_preference, ctx.switches.language_preference, settings.shelf.language_preference))
        ordered = prefer_language(ranking.candidates, ctx.books, language)
        selection = select_shelf(ordered, ctx.books, exclusions.book_ids | excluded_books(understanding),
                                 query, settings.shelf.size, settings.shelf.max_per_author,
                                 uncapped_authors(understanding, ctx.books), ctx.editions,
                                 lambda book: evaluate(constraints, book), ctx.overlapping)
        checked = check_shelf(selection.entries, constraints)
        for bad in checked.dropped:
            # Recall applies the same tree, so this means a bug in a path: log it, never shelve it.
            logger.error("BUG: %s (%s) violates the constraints of theme %s; dropped",
                         bad.book.book_id, bad.book.title, theme.theme_id)
        # a theme shelf's books come from no intent path, so no reason of theirs walks the graph
        graph = ctx.graph() if POLICIES[understanding.intent].paths else NO_GRAPH
        explained = explain_shelf(checked.entries, query, understanding, ctx.books, graph,
                                  ctx.snapshot.filter_confidence)
    with timed(timings, "gating"):
        short = len(checked.entries) < settings.gating.min_books
        unavailable = (count_unavailable(ctx.books.values(), query, ctx.snapshot.filter_confidence)
                       if short and ctx.available_only else 0)
        limits = ShelfLimits(selection.held_back, selection.over_author_cap, unavailable, ranking.likely_excluded)
        closest = ctx.vocabulary_vectors.closest(ctx.embedder.embed_queries([theme.brief])[0],
                                                 floor=settings.gating.option_similarity)
        verdict = gate(query, len(checked.entries), limits, closest, settings.gating,
                       recognised=understanding.intent is not Intent.UNKNOWN, unchecked=unchecked,
                       theme_shelf=understanding.intent is Intent.THEME_SHELF)
    notes += ranking.notes
    if exclusions.because_of:
        notes.append("history: skipped books of " + ", ".join(exclusions.because_of))
    referenced = f"{reference.target.batch_id}/{reference.target.theme_id}" if reference.target else None
    skipped = sum(1 for c in ranking.candidates if c.book_id in exclusions.book_ids)
    facts = shelf_facts(query, skipped, exclusions.shelves, sorted(excluded_books(understanding)), ctx.books,
                        ctx.available_only, language)
    return ThemeShelf(theme, query, explained, verdict.status, notes, timings, verdict, understanding,
                      referenced, facts)


def build_context(settings: Settings, vocabulary: Vocabulary, available_only: bool = True,
                  switches: StageSwitches = StageSwitches()) -> ShelvingContext:
    """Open the current index version and load what a run needs from it alone.

    The version holds the books it was built from and the vocabulary's vectors: no DuckDB is opened
    (so this works while a build holds the catalog) and nothing is embedded but a value edited since.
    """
    snapshot = open_current(settings.indexes_dir)
    limit_blas_threads(settings.recall.blas_threads)
    # a query is a few short texts: the embedder's own threads are set for the build's batches
    embedder = create_embedder(settings.embedder.model_copy(update={"threads": settings.recall.blas_threads}))
    if snapshot.version.embedder != embedder.model_id:
        raise NoIndexError(f"index {snapshot.version_id} was built with embedder {snapshot.version.embedder}, the "
                           f"settings name {embedder.model_id}: run `shelfwise index build`")
    with long_lived_objects():  # the books and everything built on them last the whole run
        books = {b.book_id: b for b in snapshot.load_books()}
        facet_rows = snapshot.facet_rows()
        columns = FilterColumns.build(list(books.values()), facet_rows)  # in the version's book order
        tables = [BOOKS_TABLE]
        e5_embedder = None
        if snapshot.has_e5:
            from tasks.catalog.embedders.e5 import E5Embedder

            e5_embedder = E5Embedder(threads=settings.embedder.threads)
            tables.append(BOOKS_E5_TABLE)
        return ShelvingContext(
            snapshot=snapshot,
            books=books,
            vocabulary=vocabulary,
            embedder=embedder,
            translator=create_translator(settings.translation, vocabulary),
            reranker=create_reranker(settings.rerank),
            vocabulary_vectors=VocabularyVectors.build(vocabulary, embedder, snapshot.vocabulary_vectors()),
            settings=settings,
            available_only=available_only,
            e5_embedder=e5_embedder,
            entities=EntityIndex.build(books.values(), load_aliases()),
            graph=cache(partial(BookGraph.build, list(books.values()))),
            switches=switches,
            editions=editions_by_work(books),
            overlapping=overlapping_works(books.values()),
            held=surely_held(books.values(), snapshot.filter_confidence, facet_rows),
            numbered=frozenset(f for f in NUMERIC_FIELDS if any(getattr(b, f) is not None for b in books.values())),
            searches={t: create_vector_search(snapshot, t, columns, settings.index.brute_force_max_rows)
                      for t in tables},
        )
