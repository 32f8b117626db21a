"""Why each book is on its shelf, and what the whole shelf left out, as typed facts without words.

A row's reasons: the named author, series or book an intent path linked it to, the brief's conditions it
meets, and the brief's words its title, subjects or summary contain. A shelf's facts are said once, in the
sheet's header: books left out for recent shelves, the named book itself, books with no copy available,
and the language preference. tasks/export/wording.py says both in the brief's language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from tasks.language.text_analysis import cjk_share, detect_language
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition
from tasks.model.constraints import evaluate, hard_constraints, numeric_expr
from tasks.model.intent import Intent, Understanding
from tasks.model.query import ThemeQuery
from tasks.model.reasons import (
    ByNamedAuthor,
    CloseToBrief,
    CloseToNamedBook,
    FiledUnder,
    InNamedSeries,
    LanguageChoice,
    MayBeExcluded,
    Meets,
    MeetsPreferred,
    Mentions,
    NamedBooksLeftOut,
    NewArrival,
    Reason,
    SharesWithNamedBook,
    ShelfFact,
    SkippedForHistory,
    UnavailableLeftOut,
    WorkTitles,
)
from tasks.model.shelf import ShelfEntry
from tasks.model.themes import HistoryShelf
from tasks.ranking.fusion import calibrated_guess, excluded_values
from tasks.recall.book_graph import BookGraph

MAX_WORDS = 3  # the brief's words named per row: more reads as a list, not a reason
MAX_HEADINGS = 2  # subject headings cited per row
MIN_WORD = {True: 3, False: 2}  # a word shorter than this (Latin letters / Chinese characters) says nothing alone
CHECK_CHANCE = 0.3  # a guess this likely that a shelved book has an excluded value is worth the curator's look


def mentioned(words: Sequence[str], text: str) -> tuple[str, ...]:
    """The words found in the text: Latin words at a word start ("night" in "nights"), Chinese anywhere."""
    lowered = text.lower()
    found = []
    for word in words:
        w = word.lower()
        if re.search(r"(?<![a-z0-9])" + re.escape(w), lowered) if w.isascii() else w in lowered:
            found.append(word)
    return tuple(found)


def word_reasons(book: BookRecord, keywords: Sequence[str], language: str) -> list[Mentions | FiledUnder]:
    """Each of the brief's words once, at the first place it shows: the title, then the subject headings (cited
    whole: a curator recognises "Beekeeping -- Handbooks", not "bee"), then the summary."""
    left = [w for w in dict.fromkeys(keywords) if len(w) >= MIN_WORD[w.isascii()]]
    reasons: list[Mentions | FiledUnder] = []
    found = mentioned(left, f"{book.title} {book.subtitle or ''}")[:MAX_WORDS]
    if found:
        reasons.append(Mentions("title", found))
        left = [w for w in left if w not in found]
    headings = [h for h in book.subjects if mentioned(left, h) and written_in(h, language)][:MAX_HEADINGS]
    if headings:
        reasons.append(FiledUnder(tuple(headings)))
        left = [w for w in left if not any(mentioned([w], h) for h in headings)]
    found = mentioned(left, book.summary or "")[:MAX_WORDS]
    if found:
        reasons.append(Mentions("summary", found))
    return reasons


def holds(book: BookRecord, field: str, value: str, facet_confidence: float) -> bool:
    """The book has the value as surely as a MUST would require."""
    return evaluate(hard_constraints((FilterCondition(field, (value,), "MUST"),), facet_confidence=facet_confidence),
                    book)


def condition_reasons(book: BookRecord, query: ThemeQuery, facet_confidence: float) -> list[Meets]:
    """The values the book surely has of each condition a row should name.

    A MUST of one value holds for every book of the shelf, so the header says it once; a SHOULD, or a MUST
    of several values, differs from book to book.
    """
    reasons = []
    for cond in query.filter_conditions:
        if cond.operator == "MUST_NOT" or (cond.operator == "MUST" and len(cond.values) == 1):
            continue
        matched = tuple(v for v in cond.values if holds(book, cond.field, v, facet_confidence))
        if matched:
            reasons.append(Meets(cond.field, matched))
    return reasons


def strongest_link(book_id: str, seeds: Sequence[str], graph: BookGraph,
                   books: Mapping[str, BookRecord]) -> SharesWithNamedBook | None:
    """The weightiest feature the book shares with a seed in the co-occurrence graph: what linked it."""
    own = set(graph.features.get(book_id, ()))
    shared = [(graph.weights.get(f, 0.0), -i, f, seed) for i, seed in enumerate(seeds) if seed in books
              for f in graph.features.get(seed, ()) if f in own]
    shared = [s for s in shared if s[0] > 0]
    if not shared:
        return None
    _, _, feature, seed = max(shared, key=lambda s: (s[0], s[1], s[2]))
    # The graph names features "author:<name>" and "tag:<dimension>=<value>" (tasks/recall/book_graph.py).
    kind, _, value = feature.partition(":")
    field, _, tag_value = value.partition("=") if kind == "tag" else ("", "", value)
    return SharesWithNamedBook(books[seed].title, kind, tag_value, field)


def path_reasons(book: BookRecord, found_id: str, sources: Sequence[str], understanding: Understanding,
                 books: Mapping[str, BookRecord], graph: BookGraph) -> list[Reason]:
    """What the intent paths that found the book link it to."""
    reasons: list[Reason] = []
    if "entity" in sources:
        if understanding.intent is Intent.SERIES and found_id in understanding.book_ids:
            reasons.append(InNamedSeries(understanding.series, understanding.book_ids.index(found_id) + 1))
        reasons += [ByNamedAuthor(a) for a in understanding.authors if a in book.authors][:1]
    link = strongest_link(found_id, understanding.book_ids, graph, books) if "related" in sources else None
    if "similar" in sources and link is None:  # what it shares with the named book says more than "close to"
        named = [books[b].title for b in understanding.book_ids if b in books] or list(understanding.titles)
        reasons += [CloseToNamedBook(t) for t in named[:1]]
    reasons += [link] if link else []
    if "recent" in sources:
        reasons.append(NewArrival(book.pub_year))
    return reasons


def reasons_for(entry: ShelfEntry, query: ThemeQuery, understanding: Understanding, books: Mapping[str, BookRecord],
                graph: BookGraph, facet_confidence: float, content: Sequence[str] | None = None) -> tuple[Reason, ...]:
    """Why this book: its links to what the brief names, the conditions it meets, the brief's content words it has
    (`content`: the brief's keywords that carry its topic, never a filler or a count word; None: every keyword).
    Where none of these says why, the sentence of its summary closest to the brief does, else its headings."""
    book, cand = entry.book, entry.candidate
    reasons: list[Reason] = path_reasons(book, cand.book_id, cand.sources, understanding, books, graph)
    linked = {(r.field, r.value) for r in reasons if isinstance(r, SharesWithNamedBook)}
    for meets in condition_reasons(book, query, facet_confidence):  # a value the link already names is not said twice
        values = tuple(v for v in meets.values if (meets.field, v) not in linked)
        reasons += [Meets(meets.field, values)] if values else []
    reasons += [MeetsPreferred(n) for n in query.preferred_numbers if evaluate(numeric_expr(n), book)]
    named = set(understanding.authors) | set(understanding.titles)
    words = query.search_keywords if content is None else content
    reasons += word_reasons(book, [k for k in words if k not in named and said_in(k, query.language)],
                            query.language)
    if not reasons:  # the sheet speaks one language: a sentence or a heading in the other is not quoted
        own = [h for h in book.subjects if written_in(h, query.language)][:MAX_HEADINGS]
        genres = tuple(sorted(book.values_at("genre", facet_confidence)))
        reasons = ([CloseToBrief(cand.evidence)] if cand.evidence and written_in(cand.evidence, query.language)
                   else [FiledUnder(tuple(own))] if own else [Meets("genre", genres)] if genres else [])
    return (*reasons, *doubts(book, query))


def written_in(text: str, language: str) -> bool:
    """Whether a catalog text (a heading, a summary sentence) is in the sheet's language."""
    return detect_language(text) == language


def said_in(word: str, language: str) -> bool:
    """Whether a word can be cited on a sheet in this language: an English sheet cites no Chinese word (a word of
    the brief mapped into the other language finds books, but the sheet speaks one language)."""
    return language != "en" or cjk_share(word) == 0


def doubts(book: BookRecord, query: ThemeQuery) -> list[MayBeExcluded]:
    """The likeliest excluded value a calibrated guess gives the book, where it is at least CHECK_CHANCE."""
    chance, field, value = max(((calibrated_guess(book, f, v), f, v) for f, v in excluded_values(query)),
                               default=(0.0, "", ""))
    return [MayBeExcluded(field, value, chance)] if chance >= CHECK_CHANCE else []


def explain_shelf(entries: Sequence[ShelfEntry], query: ThemeQuery, understanding: Understanding,
                  books: Mapping[str, BookRecord], graph: BookGraph, facet_confidence: float,
                  content: Sequence[str] | None = None) -> list[ShelfEntry]:
    """The shelf's entries, each with its reasons; a facet counts held at the index's filter confidence."""
    return [replace(e, reasons=reasons_for(e, query, understanding, books, graph, facet_confidence, content))
            for e in entries]


def shelf_facts(query: ThemeQuery, skipped: int, similar_shelves: Sequence[HistoryShelf], left_out: Sequence[str],
                books: Mapping[str, BookRecord], available_only: bool,
                language: LanguageChoice) -> tuple[ShelfFact, ...]:
    """What the header says once: books left out for recent shelves, the named books, unavailable books,
    how the brief's language was preferred, and the titles of the works its conditions name."""
    facts: list[ShelfFact] = []
    works = {v for c in query.filter_conditions if c.field == "work" for v in c.values}
    if works:
        titles = {}
        for book in books.values():
            work = book.work_id or book.book_id
            if work in works:
                titles.setdefault(work, book.title)
        facts.append(WorkTitles(tuple(sorted(titles.items()))))
    if skipped:
        names = tuple(dict.fromkeys(h.brief.split("\n")[0] for h in similar_shelves))
        facts.append(SkippedForHistory(skipped, names))
    titles = tuple(books[b].title for b in left_out if b in books)
    if titles:
        facts.append(NamedBooksLeftOut(titles))
    if available_only:
        facts.append(UnavailableLeftOut())
    facts.append(language)
    return tuple(facts)
