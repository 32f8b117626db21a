"""Understanding: a theme's brief read, translated, its references and named entities resolved, its intent
settled, into a query and the hard constraints every later stage holds to."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from config.materials import get_materials
from config.vocabulary import Vocabulary
from tasks.language.embedders.base import Embedder
from tasks.model.books import BookRecord
from tasks.model.constraints import as_wishes, hard_constraints, reading_material
from tasks.model.intent import POLICIES, THEME_SHELF
from tasks.model.query import ThemeQuery
from tasks.model.review import NO_REVIEW, ThemeReview
from tasks.model.stages import Understood
from tasks.model.themes import HistoryShelf, Theme
from tasks.progress import timed
from tasks.understanding.entities import EntityIndex, understand_reading
from tasks.understanding.intent import (keeping_named_kind, named_words, raise_confidence, settle_intent,
                                        without_named_words)
from tasks.understanding.meanings import with_meanings
from tasks.understanding.numbers import on_scale
from tasks.understanding.reading import REQUIRED, load_cues, read_brief
from tasks.understanding.references import apply_reference, described_shelf, shared_words, without_reference_words
from tasks.understanding.subjects import NO_BOOKS, NO_SUBJECTS, SubjectBooks, SubjectVocabulary, subjects_of_brief
from tasks.understanding.translate.base import Translator


@dataclass(frozen=True)
class UnderstandingTools:
    """What understanding asks of the run: the vocabulary, the translator, the embedder, the catalog's names,
    and what the catalog holds."""

    vocabulary: Vocabulary
    translator: Translator
    embedder: Embedder
    catalog_words: Callable[[ThemeQuery], list[str]]  # the query's keywords some book holds (as the index reads them)
    together: Callable[[Sequence[str]], int]  # how many of these words the book that holds most of them holds
    filter_confidence: float  # a facet counts held at this confidence
    entities: EntityIndex | None = None  # the catalog's authors and titles
    held: frozenset[tuple[str, str]] | None = None  # (facet, value) pairs some book holds surely; None: all
    numbered: frozenset[str] | None = None  # the number fields some book has a value of; None: all
    rating_scale: float | None = None  # the catalog's highest rating (5 or 10); None: no book is rated
    available_only: bool = True  # books with no copies on the shelf are left out
    subjects: SubjectVocabulary = NO_SUBJECTS  # the catalog's own subjects, as the index version holds them
    min_books: int = 10  # gating.min_books: how many books must carry a head noun's subject for it to be required
    books: Mapping[str, BookRecord] = field(default_factory=dict)  # the catalog's: a read-alike keeps its book's kind
    subject_books: SubjectBooks = NO_BOOKS  # the same books as the subject evidence reads them (its carriers)


def understand(theme: Theme, history: Sequence[HistoryShelf], tools: UnderstandingTools,
               review: ThemeReview = NO_REVIEW) -> Understood:
    """The brief as a query with its hard constraints, its intent and the earlier shelf it refers to; a
    curator's answered question amends the query (a condition dropped, a value wished for)."""
    timings: dict[str, float] = {}
    with timed(timings, "translate"):
        reading = with_meanings(read_brief(theme.brief, tools.vocabulary, tools.entities), tools.embedder,
                                tools.vocabulary, load_cues())
        reference = apply_reference(tools.translator.translate(theme, reading), theme, history,
                                    shelf_likeness(theme.brief, tools.embedder))
        understanding = understand_reading(reading, tools.entities) if tools.entities else THEME_SHELF
        query = subjects_of_brief(reading, reference.query, tools.subjects, tools.embedder, load_cues(),
                                  tools.min_books, bool(tools.catalog_words(reference.query)), tools.subject_books,
                                  tools.filter_confidence, named_words(understanding))
        notes = [*reading.notes, *([reference.note] if reference.note else [])]
        catalog_words = tools.catalog_words(query)
        understanding = settle_intent(understanding, query, len(catalog_words),
                                      lambda: tools.together(catalog_words))
        query = replace(query, search_keywords=content_keywords(query, tools.catalog_words))
        query = without_named_words(raise_confidence(query, understanding), understanding)
        query = keeping_named_kind(review.amend(query), understanding, tools.books, tools.filter_confidence)
        query = replace(query, numeric_conditions=on_scale(query.numeric_conditions, tools.rating_scale),
                        preferred_numbers=on_scale(query.preferred_numbers, tools.rating_scale))
        query = reading_material(query, tools.held, get_materials().not_reading,
                                 frozenset(m.value for m in reading.of(REQUIRED) if m.field == "material"))
        query, unchecked = as_wishes(query, tools.held, tools.numbered)
        if POLICIES[understanding.intent].announced:
            notes.append(understanding.describe())
    constraints = hard_constraints(query.filter_conditions, query.numeric_conditions, tools.available_only,
                                   tools.filter_confidence)
    target = reference.target
    return Understood(theme, query, constraints, understanding, tuple(history), tuple(unchecked),
                      f"{target.batch_id}/{target.theme_id}" if target else None, tuple(notes), timings, review)


def content_keywords(query: ThemeQuery, catalog_words: Callable[[ThemeQuery], list[str]]) -> tuple[str, ...]:
    """The keywords that carry a topic by the catalog's own count: some book holds them and not most books do (what
    the BM25 index says of each). A word no book holds or every book does ("week", "推荐", "anything") says nothing
    of which book is meant, so it is no keyword and never a reason on the sheet."""
    return tuple(k for k in query.search_keywords if catalog_words(replace(query, search_keywords=(k,))))


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
