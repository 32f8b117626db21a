"""Ranking: recall's hits fused with provenance, reranked, ordered by what the brief wishes and excludes, then
shelved (at most N per author, one place per work, the preferred language first), explained and gated."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from config.settings import Settings
from config.vocabulary import Vocabulary
from storage.index_store import IndexSnapshot
from tasks.language.embedders.base import Embedder
from tasks.model.books import BookRecord
from tasks.model.constraints import Expr, evaluate
from tasks.model.intent import POLICIES, Intent, excluded_books, uncapped_authors
from tasks.model.query import Candidate
from tasks.model.shelf import ShelfEntry, ThemeShelf
from tasks.model.stages import Hits, Understood
from tasks.model.subjects import SubjectEvidence
from tasks.model.themes import StageSwitches
from tasks.progress import logger, timed
from tasks.ranking.dedupe import find_exclusions
from tasks.ranking.fusion import (
    adults_first,
    fuse,
    path_first,
    preferred_first,
    promote_wished,
    screen_unsure_exclusions,
)
from tasks.ranking.gating import (
    NEAREST_TOPICS,
    Fit,
    ShelfLimits,
    VocabularyVectors,
    brief_topic,
    evidenced,
    gate,
    likely_fitting,
    nearest_held,
    unread,
)
from tasks.ranking.language import choose_language, choose_preference, prefer_language
from tasks.ranking.reasons import explain_shelf, shelf_facts
from tasks.ranking.relevance import (
    Admission,
    Evidence,
    RelevanceModel,
    admitted,
    book_topics,
    conditions_define,
    content_words,
    expected_fit_share,
    likely_works,
    topic_vector,
)
from tasks.ranking.rerank import Reranker, document_text, rerank
from tasks.ranking.rerank.sentence import sentence_rerank
from tasks.ranking.shelf import check_shelf, count_unavailable, select_shelf
from tasks.recall.book_graph import NO_GRAPH, BookGraph
from tasks.recall.keywords import bm25_query_tokens
from tasks.recall.paths.subject import evidence_for, subject_score
from tasks.recall.scores import score_every_path
from tasks.understanding.subjects import NO_SUBJECTS, SubjectVocabulary


TOPIC_WORDS = 3  # of the brief's content words, naming its topic in a short shelf's question


@dataclass(frozen=True)
class RankingContext:
    snapshot: IndexSnapshot
    books: Mapping[str, BookRecord]
    vocabulary: Vocabulary
    embedder: Embedder
    vocabulary_vectors: VocabularyVectors
    settings: Settings
    reranker: Reranker | None = None
    switches: StageSwitches = StageSwitches()
    available_only: bool = True  # books with no copies on the shelf are left out
    editions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # work id -> its editions' book ids
    overlapping: Mapping[str, frozenset[str]] = field(default_factory=dict)  # a set's works and its volumes'
    graph: Callable[[], BookGraph] = lambda: NO_GRAPH
    relevance: RelevanceModel | None = None  # None: every candidate counts as fitting (nothing calibrated)
    allowed: Callable[[Expr], int] | None = None  # how many books of the catalog meet a constraint tree
    subjects: SubjectVocabulary = NO_SUBJECTS  # the catalog's subjects: the nearest a short shelf's question offers
    letters: Callable[[], frozenset[str]] = frozenset  # the letter shapes of its words (gating.letter_shapes)

    @property
    def sentence_rerank(self) -> bool:
        """The sentence rerank: the run's switch, else the setting."""
        chosen = self.switches.sentence_rerank
        return self.settings.rerank.sentence.enabled if chosen is None else chosen


@dataclass
class Ranking:
    candidates: list[Candidate]
    notes: list[str] = field(default_factory=list)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    likely_excluded: int = 0  # candidates left out: a guess says they likely hold a value the brief excludes
    # book id -> the matched subjects it carries, for every recalled book (tasks/recall/paths/subject.py): what the
    # relevance score reads of a book's record
    subject_evidence: dict[str, tuple[SubjectEvidence, ...]] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)  # each candidate's, in the candidates' order
    weighed: list[float] = field(default_factory=list)  # each candidate's probability by the weights alone, in order
    allowed: int | None = None  # books of the catalog meeting the hard conditions (None: not counted)
    content: tuple[str, ...] | None = None  # the brief's content words (None: not read): what the why cites


def rank(hits: Hits, understood: Understood, ctx: RankingContext) -> ThemeShelf:
    """The theme's shelf, gated, every shelved book checked against the constraints."""
    return shelve_ranking(order(hits, understood, ctx), hits, understood, ctx)


def shelve_ranking(ranking: Ranking, hits: Hits, understood: Understood, ctx: RankingContext) -> ThemeShelf:
    """The shelf from an order already made: what `rank` does after `order` (benchmarks/shelf_decision.py shelves
    one order at several floors and "done" rules)."""
    theme, query, constraints, understanding = (understood.theme, understood.query, understood.constraints,
                                                understood.understanding)
    settings, review = ctx.settings, understood.review
    timings: dict[str, float] = {}
    with timed(timings, "history"):
        exclusions = find_exclusions(theme.brief, query.filter_conditions, understood.history, ctx.embedder,
                                     settings.history)
    with timed(timings, "shelf"):
        language = choose_language(query, choose_preference(
            theme.language_preference, ctx.switches.language_preference, settings.shelf.language_preference))
        # never padded to its size: only the books likely enough to fit, by what their evidence is, the more likely first
        admissible = admissible_of(ranking, ctx, review.floor(settings.ranking.relevance_floor))
        named, unknown = brief_topic(theme.brief, query.language, TOPIC_WORDS), understanding.intent is Intent.UNKNOWN
        unreadable = unread(named, ctx.letters()) if unknown else ()
        named = tuple(w for w in named if w not in unreadable)
        unheld_series = not POLICIES[understanding.intent].stands_in and not understanding.book_ids
        if unheld_series:
            # a series the catalog holds none of: no other book stands in for it, and the review names the series
            admissible, named = [], (understanding.series,)
        if unknown and not review.lowered:
            # nothing the catalog holds: only books their records tie to the brief, never its vector's neighbours
            admissible = evidenced(admissible, ranking.candidates, ranking.evidence, ranking.weighed)
        ordered = prefer_language(admissible, ctx.books, language,
                                  by_relevance=not POLICIES[understanding.intent].ordered_by)
        # a curator's kept books are placed by review.place, the dropped and replaced never shelved again
        pinned = frozenset(b for b in review.pinned if b in ctx.books)
        selection = select_shelf(ordered, ctx.books, review.held_back(exclusions.book_ids)
                                 | excluded_books(understanding) | review.removed | pinned,
                                 query, max(settings.shelf.size - len(pinned), 0),
                                 review.per_author(settings.shelf.max_per_author),
                                 uncapped_authors(understanding, ctx.books), ctx.editions,
                                 lambda book: evaluate(constraints, book), ctx.overlapping)
        checked = check_shelf(selection.entries, constraints)
        for bad in checked.dropped:
            # Recall applies the same tree, so this means a bug in a path: log it, never shelve it.
            logger.error("BUG: %s (%s) violates the constraints of theme %s; dropped",
                         bad.book.book_id, bad.book.title, theme.theme_id)
        # a theme shelf's books come from no intent path, so no reason of theirs walks the graph
        graph = ctx.graph() if POLICIES[understanding.intent].paths else NO_GRAPH
        placed = review.place(checked.entries, {c.book_id: c for c in ranking.candidates}, ctx.books,
                              settings.shelf.size)
        explained = explain_shelf(placed, query, understanding, ctx.books, graph, ctx.snapshot.filter_confidence,
                                  ranking.content)
    with timed(timings, "gating"):
        short = len(placed) < settings.gating.min_books
        # a topic the catalog holds no word of is named as the brief says it ("beekeeping"), not by the theme's name
        fit = (fit_of(ranking, admissible, placed, ctx, theme.theme_name, named, unreadable,
                      unknown or unheld_series)
               if ctx.relevance else None)
        unavailable = (likely_fitting(count_unavailable(ctx.books.values(), query, ctx.snapshot.filter_confidence),
                                      fit) if short and ctx.available_only else 0)
        limits = ShelfLimits(selection.held_back, selection.over_author_cap, unavailable, ranking.likely_excluded)
        closest = ctx.vocabulary_vectors.closest(ctx.embedder.embed_queries([theme.brief])[0],
                                                 floor=settings.gating.option_similarity)
        verdict = gate(query, len(placed), limits, closest, settings.gating,
                       recognised=understanding.intent is not Intent.UNKNOWN, unchecked=understood.unchecked,
                       theme_shelf=understanding.intent is Intent.THEME_SHELF, fit=fit)
    notes = [*understood.notes, *hits.notes, *ranking.notes]
    if exclusions.because_of:
        notes.append("history: skipped books of " + ", ".join(exclusions.because_of))
    skipped = sum(1 for c in ranking.candidates if c.book_id in exclusions.book_ids)
    facts = shelf_facts(query, skipped, exclusions.shelves, sorted(excluded_books(understanding)), ctx.books,
                        ctx.available_only, language)
    if not review.empty:
        notes.append(review.describe())
    stage_seconds = {**understood.stage_seconds, **hits.stage_seconds, **ranking.stage_seconds, **timings}
    return ThemeShelf(theme, query, explained, review.status(verdict.status), notes, stage_seconds, verdict,
                      understanding, understood.referenced, facts, tuple(c.book_id for c in ranking.candidates),
                      review.changes(explained))


def admissible_of(ranking: Ranking, ctx: RankingContext, floor: float) -> list[Candidate]:
    """The candidates the shelf may take: at or above the floor their evidence asks (relevance.Admission), the
    shelf's own `floor` the least (the setting's, or lower where the curator asked for it)."""
    admission = ctx.relevance.admission if ctx.relevance and ctx.settings.ranking.admission else Admission()
    return admitted(ranking.candidates, ranking.evidence, ranking.weighed, floor, admission)


def fit_of(ranking: Ranking, admissible: Sequence[Candidate], entries: Sequence[ShelfEntry], ctx: RankingContext,
           name: str, named: tuple[str, ...] = (), unreadable: tuple[str, ...] = (), unheld: bool = False) -> Fit:
    """How well the catalog fills the brief: its books the shelf may take (`admissible`), the shelf's expected
    fitting share, the nearest topics it holds. `unheld`: nothing of the brief is the catalog's, its topic is what its
    own words say (`named`), not the catalog's words it holds ("学" of 编程入门：学Python, whose nearest topics had been
    现象学 and 人类学)."""
    floor, gating = ctx.settings.ranking.relevance_floor, ctx.settings.gating
    likely = likely_works(admissible, ctx.books, floor)
    share = expected_fit_share([e.candidate.relevance for e in entries])
    topic = (named if unheld and named else ()) or tuple((ranking.content or ())[:TOPIC_WORDS]) or named or (name,)
    topics: tuple[tuple[str, str, int], ...] = ()
    if len(entries) < gating.min_books or share < gating.done_fit_share:
        # only a shelf the gate may question offers nearby topics (gating.gate asks of no filled, fitting shelf):
        # the topic's embedding and the subjects' scan are spared on every other theme
        filed = {t for c in admissible if (c.relevance or 0.0) >= floor for t in book_topics(ctx.books[c.book_id])}
        # twice the topics a question offers: it offers those in the brief's language first (gating.few_fit)
        topics = nearest_held(ctx.embedder.embed_queries([" ".join(named if unheld and named else topic)])[0],
                              ctx.subjects, likely, len(ctx.books), k=2 * NEAREST_TOPICS, filed=filed)
    return Fit(likely, share, ranking.allowed, topic, topics, named, unreadable)


def order(hits: Hits, understood: Understood, ctx: RankingContext) -> Ranking:
    """Every recalled book in the order the shelf takes them: fusion with provenance, the optional reranks, then
    what the brief wishes first and what it likely excludes last."""
    query, understanding = understood.query, understood.understanding
    settings, policy = ctx.settings, POLICIES[understanding.intent]
    ranking = Ranking([])
    timings = ranking.stage_seconds
    with timed(timings, "fusion"):
        tokens = bm25_query_tokens(query, ctx.snapshot, settings.recall.max_keyword_share)
        if query.subjects:
            ranking.subject_evidence = {b: found for b in dict.fromkeys(h.book_id for found in hits.paths.values()
                                                                        for h in found)
                                        if (found := evidence_for(ctx.books[b], query.subjects))}
        scoring = (score_every_path(hits.paths, tokens, hits.query_vectors, ctx.snapshot,
                                    settings.fusion.sentence_weight,
                                    lambda b: subject_score(ranking.subject_evidence.get(b, ())))
                   if settings.fusion.method != "rrf" else None)
        cover = ctx.snapshot.bm25.best_cover(tokens) if "bm25" in hits.paths and tokens else 1.0
        candidates = fuse(hits.paths, scoring, settings.fusion, len(tokens), cover, named=bool(policy.paths))
        if policy.ordered_by:
            candidates = path_first(candidates, policy.ordered_by)
    sentence = settings.rerank.sentence
    if ctx.sentence_rerank:
        if not policy.sentence_rerank:
            ranking.notes.append(f"sentence rerank: not for intent {understanding.intent}")
        else:
            with timed(timings, "sentence_rerank"):
                query_vector = (hits.query_vectors["vector"] if "vector" in hits.query_vectors
                                else ctx.embedder.embed_queries([query.synthetic_query])[0])
                outcome = sentence_rerank(candidates, query_vector, ctx.snapshot.sentences_of, sentence.top_n,
                                          sentence.budget_seconds, sentence.weight)
            candidates = outcome.candidates
            ranking.notes.append(outcome.note)
    if ctx.switches.rerank and ctx.reranker is not None:
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
    if ctx.relevance is not None:
        with timed(timings, "relevance"):
            query_vector = topic_vector(hits.query_vectors["vector"] if "vector" in hits.query_vectors
                                        else ctx.embedder.embed_queries([query.synthetic_query])[0],
                                        understanding.book_ids if policy.paths else (), ctx.snapshot)
            ranking.allowed = ctx.allowed(understood.constraints) if ctx.allowed else None
            stem = ctx.snapshot.bm25.settings.english_stemming
            ranking.content = tuple(content_words(query.search_keywords, tokens, query.language, stem))
            ranking.evidence = ctx.relevance.evidence(
                candidates, query, ctx.books, ctx.snapshot, tokens, query_vector, ranking.allowed,
                ranking.subject_evidence, theme_shelf=not policy.paths,
                defined=conditions_define(query, ranking.content, not policy.paths, ctx.vocabulary, stem),
                content=ranking.content, vocabulary=ctx.vocabulary,
                like=[ctx.books[b] for b in understanding.book_ids if b in ctx.books]
                if understanding.intent is Intent.SIMILAR_TO_BOOK else (),
                title=understood.theme.theme_name if understood.theme.brief != understood.theme.theme_name else "")
            ranking.weighed = [float(w) for w in ctx.relevance.calibration.probability(ranking.evidence,
                                                                                       ctx.relevance.kind)]
            candidates = ctx.relevance.score(candidates, ranking.evidence, ranking.weighed)
    ranking.candidates = candidates
    return ranking
