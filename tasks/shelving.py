"""What every theme of a run shares, opened once: the index version, its books, the models, the settings and the
switches, as each stage's context (understanding's tools, recall's and ranking's contexts)."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache, partial

from config.settings import HistorySettings, Settings
from config.vocabulary import Vocabulary, get_vocabulary, load_aliases
from storage.index_root import index_root
from storage.index_store import BOOKS_E5_TABLE, BOOKS_TABLE, NoIndexError, open_current
from storage.shelf_db import theme_history
from storage.subject_store import read_subjects
from tasks.catalog.works import overlapping_works
from tasks.language.embedders import create_embedder
from tasks.model.constraints import NUMERIC_FIELDS, surely_held
from tasks.language.embedders.base import Embedder
from tasks.model.review import NO_REVIEW, ThemeReview
from tasks.model.shelf import ThemeShelf, failed_shelf
from tasks.model.themes import HistoryShelf, StageSwitches, Theme
from tasks.progress import limit_blas_threads, logger, long_lived_objects
from tasks.ranking.calibration import workspace_calibration
from tasks.ranking.dedupe import find_exclusions
from tasks.ranking.gating import VocabularyVectors, letter_shapes
from tasks.ranking.rank import RankingContext, rank
from tasks.ranking.relevance import RelevanceModel
from tasks.ranking.rerank import create_reranker
from tasks.ranking.shelf import editions_by_work
from tasks.recall.book_graph import BookGraph
from tasks.recall.context import RecallContext
from tasks.recall.filters import FilterColumns, mask
from tasks.recall.keywords import bm25_query_tokens, most_together
from tasks.recall.recall import recall
from tasks.recall.vector_search import create_vector_search
from tasks.understanding.entities import EntityIndex
from tasks.understanding.numbers import rating_scale
from tasks.understanding.references import detect_reference
from tasks.understanding.subjects import SubjectBooks, SubjectVocabulary
from tasks.understanding.translate import create_translator
from tasks.understanding.understand import UnderstandingTools, understand


@dataclass(frozen=True)
class ShelvingContext:
    tools: UnderstandingTools
    recall: RecallContext
    ranking: RankingContext

    def choosing(self, settings: Settings, switches: StageSwitches) -> ShelvingContext:
        """The same index, books and models under other settings and switches (evaluation's variants)."""
        return replace(self, recall=replace(self.recall, settings=settings, switches=switches),
                       ranking=replace(self.ranking, settings=settings, switches=switches))


def build_context(settings: Settings, vocabulary: Vocabulary, available_only: bool = True,
                  switches: StageSwitches = StageSwitches(), withdrawn: frozenset[str] = frozenset()
                  ) -> ShelvingContext:
    """Open the current index version and load what a run needs from it alone; `withdrawn` are books taken out of
    the catalog since (a run reads them from DuckDB): no path recalls them.

    The version holds the books it was built from and the vocabulary's vectors: no DuckDB is opened
    (so this works while a build holds the catalog) and nothing is embedded but a value edited since.
    """
    snapshot = open_current(index_root(settings))
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
            from tasks.language.embedders.e5 import E5Embedder

            e5_embedder = E5Embedder(threads=settings.embedder.threads)
            tables.append(BOOKS_E5_TABLE)
        graph = cache(partial(BookGraph.build, list(books.values())))
        tools = UnderstandingTools(
            vocabulary=vocabulary,
            translator=create_translator(settings.translation, vocabulary),
            embedder=embedder,
            catalog_words=partial(bm25_query_tokens, snapshot=snapshot, max_share=settings.recall.max_keyword_share),
            together=partial(most_together, snapshot=snapshot),
            filter_confidence=snapshot.filter_confidence,
            entities=EntityIndex.build(books.values(), load_aliases()),
            held=surely_held(books.values(), snapshot.filter_confidence, facet_rows),
            numbered=frozenset(f for f in NUMERIC_FIELDS if any(getattr(b, f) is not None for b in books.values())),
            rating_scale=rating_scale(b.rating for b in books.values()),
            available_only=available_only,
            subjects=SubjectVocabulary(*read_subjects(snapshot.path)),
            min_books=settings.gating.min_books,
            books=books,
            subject_books=SubjectBooks(tuple(books.values()), columns.rows),
        )
        recall = RecallContext(
            snapshot=snapshot, books=books, embedder=embedder, settings=settings, switches=switches,
            e5_embedder=e5_embedder, graph=graph, withdrawn=withdrawn, subjects=tools.subjects,
            searches={t: create_vector_search(snapshot, t, columns, settings.index.brute_force_max_rows)
                      for t in tables},
        )
        ranking = RankingContext(
            snapshot=snapshot, books=books, vocabulary=vocabulary, embedder=embedder,
            vocabulary_vectors=VocabularyVectors.build(vocabulary, embedder, snapshot.vocabulary_vectors()),
            settings=settings, reranker=create_reranker(settings.rerank), switches=switches,
            available_only=available_only, graph=graph,
            editions=editions_by_work({k: b for k, b in books.items() if k not in withdrawn}),
            # this catalog's calibration where its curators' verdicts taught one (`tune --labels`), else the judged
            relevance=RelevanceModel.build(snapshot, list(books.values()), workspace_calibration(settings.workspace)),
            allowed=lambda expr: int(mask(expr, columns).sum()),
            overlapping=overlapping_works(books.values()),
            subjects=tools.subjects,
            letters=cache(partial(letter_shapes, tuple(books.values()))),
        )
        return ShelvingContext(tools, recall, ranking)


def shelve(theme: Theme, history: Sequence[HistoryShelf], ctx: ShelvingContext,
           review: ThemeReview = NO_REVIEW) -> ThemeShelf:
    """One theme from brief to shelf, outside a flow run (`shelfwise try`, evaluation, benchmarks, a worker)."""
    understood = understand(theme, history, ctx.tools, review)
    return rank(recall(understood, ctx.recall), understood, ctx.ranking)


@dataclass(frozen=True)
class RunSpec:
    """What a worker opens its own context of a run from (the context itself is the whole index: it never travels).
    The version is the one the run started on; the run's workspace lock keeps a build from replacing it."""

    settings: Settings
    version_id: str
    available_only: bool = True
    switches: StageSwitches = StageSwitches()
    withdrawn: frozenset[str] = frozenset()

    def key(self) -> str:
        return hashlib.sha256(pickle.dumps((self.settings.model_dump_json(), self.version_id, self.available_only,
                                            self.switches, sorted(self.withdrawn)))).hexdigest()


@dataclass(frozen=True)
class ThemeJob:
    """One theme for a worker: shelved against the other batches' shelves; its batch's earlier ones are settled
    after, in order (settle_batch)."""

    theme: Theme
    history: tuple[HistoryShelf, ...]
    review: ThemeReview
    run: RunSpec


# A worker process's context: opened by its first theme of a run, kept for the run's other themes.
_OPENED: dict[str, ShelvingContext] = {}


def worker_context(run: RunSpec) -> ShelvingContext:
    """This process's context of `run`, opened once (a context of an earlier run is let go)."""
    key = run.key()
    if key not in _OPENED:
        _OPENED.clear()
        ctx = build_context(run.settings, get_vocabulary(), run.available_only, run.switches, run.withdrawn)
        if ctx.recall.snapshot.version_id != run.version_id:
            raise NoIndexError(f"index {ctx.recall.snapshot.version_id} is current here, the run started on "
                               f"{run.version_id}: the workers do not see the run's workspace")
        _OPENED[key] = ctx
    return _OPENED[key]


def shelve_job(job: ThemeJob) -> ThemeShelf:
    """On a worker: one theme shelved; a theme that raises is a failed shelf, shelved again in the ordered pass."""
    try:
        return shelve(job.theme, job.history, worker_context(job.run), job.review)
    except Exception as err:  # noqa: BLE001 - one bad theme must not sink the batch
        logger.exception("theme %s failed on a worker", job.theme.theme_id)
        return failed_shelf(job.theme, err)


def settle_batch(themes: Sequence[Theme], shelves: Iterable[ThemeShelf], started: datetime | None,
                 history: HistorySettings, embedder: Embedder,
                 again: Callable[[Theme, Sequence[HistoryShelf]], ThemeShelf]) -> list[ThemeShelf]:
    """The batch's shelves as one ordered run gives them, from shelves made without the batch's own earlier themes:
    one stands where those change nothing for it (its brief refers to no earlier shelf, and no earlier shelf of the
    batch is like it, which alone would keep its books off); else, and for a failed one, `again` shelves the theme
    with its batch's earlier shelves (the history it is given: `theme_history`'s, this batch's settled so far)."""
    settled: list[ThemeShelf] = []
    delivered: list[HistoryShelf] = []
    for theme, shelf in zip(themes, shelves):
        earlier = theme_history(theme, (), delivered)
        if (shelf.status == "failed" or detect_reference(theme.brief) is not None
                or find_exclusions(theme.brief, shelf.query.filter_conditions, earlier, embedder, history).shelves):
            shelf = again(theme, delivered)
        settled.append(shelf)
        delivered.append(shelf.as_history(started))
    return settled
