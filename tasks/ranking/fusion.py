"""Fusion step: reciprocal rank fusion and score fusion with per-query normalisation.

RRF only sees ranks, so a BM25 list with one clear winner counts no more than a flat one; score
fusion keeps those margins. Each path's scores are normalised per query against that path's own
result list: DBSF maps mean ± 3σ to [0, 1] (as Qdrant does), min-max maps min..max. Every book in the
union is scored on every path (tasks/recall/scores.py), so a book found by one path still gets the
other path's opinion. Candidates are never changed in place: every step returns new ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from config.settings import FusionSettings
from config.vocabulary import Kind
from tasks.catalog.enrich import UNCALIBRATED_CAP
from tasks.model.books import BookRecord
from tasks.model.constraints import TERM_FIELDS, All, evaluate, numeric_expr
from tasks.model.query import Candidate, PathHit, ThemeQuery
from tasks.recall.scores import PathScoring

MIN_KEPT_SHARE = 0.05  # a book all but sure to be excluded still moves down at most twentyfold
LIKELY_EXCLUDED = 0.4  # a guess this sure of an excluded value: 38–41% of such books held it (7% without a guess)
# Of the tag-blind demo's books a reference guess gave a mood, setting or reading load, these held it: 0.2-0.3,
# 20-24%; 0.3-0.4, 30-37%; under 0.2, 4-13%.
DOUBTFUL = 0.2  # a guess this sure of an excluded value: the book comes after those guessed less


def rrf_fuse(paths: Mapping[str, Sequence[PathHit]], k: int = 60,
             weights: Mapping[str, float] | None = None) -> list[Candidate]:
    """score(book) = sum over paths of weight / (k + rank); best first, ties by book_id."""
    weights = weights or {}
    found: dict[str, dict] = {}
    for path, hits in paths.items():
        weight = weights.get(path, 1.0)
        for rank, hit in enumerate(hits, start=1):
            book = found.setdefault(hit.book_id, {"sources": [], "ranks": {}, "scores": {}, "rrf": 0.0,
                                                  "variant": None})
            if path in book["ranks"]:
                continue  # a path lists a book once; keep its best rank
            book["ranks"][path] = rank
            book["scores"][path] = hit.score
            if hit.source not in book["sources"]:
                book["sources"].append(hit.source)
            if hit.variant and book["variant"] is None:
                book["variant"] = hit.variant
            book["rrf"] += weight / (k + rank)
    candidates = [Candidate(book_id, b["sources"], b["ranks"], b["scores"], rrf_score=b["rrf"], fused_score=b["rrf"],
                            query_variant=b["variant"]) for book_id, b in found.items()]
    return sorted(candidates, key=lambda c: (-c.fused_score, c.book_id))


def normalizer(name: str, reference: Sequence[float]):
    """A function mapping a path's raw score into [0, 1], fitted on that path's result list."""
    ref = np.asarray(reference, dtype=np.float64)
    if ref.size == 0:
        return lambda s: 0.0
    if name == "dbsf":
        low, high = ref.mean() - 3 * ref.std(), ref.mean() + 3 * ref.std()
    elif name == "minmax":
        low, high = ref.min(), ref.max()
    else:
        raise ValueError(f"unknown normaliser {name!r}")
    span = high - low
    if span <= 0:
        return lambda s: 1.0 if s >= high else 0.0
    return lambda s: float(min(1.0, max(0.0, (s - low) / span)))


def score_fuse(candidates: Sequence[Candidate], all_scores: Mapping[str, Mapping[str, float]],
               references: Mapping[str, Sequence[float]], weights: Mapping[str, float],
               method: str, evidence: Mapping[str, str] | None = None) -> list[Candidate]:
    """fused = sum over paths of weight x normalised score; `all_scores` covers every candidate. A book's
    `evidence` sentence, where given, is set in the same copy (a dataclass copy is most of fusion's time)."""
    norms = {path: normalizer(method, references.get(path, ())) for path in all_scores}
    evidence = evidence or {}
    fused = [replace(cand, fused_score=sum(weights.get(path, 1.0) * norms[path](scores[cand.book_id])
                                           for path, scores in all_scores.items() if cand.book_id in scores),
                     evidence=evidence.get(cand.book_id, cand.evidence))
             for cand in candidates]
    return sorted(fused, key=lambda c: (-c.fused_score, -c.rrf_score, c.book_id))


def short_query(settings: FusionSettings, query_tokens: int, named: bool = False) -> bool:
    """Whether fusion weighs the query's paths by the short-query weights (see `fusion_weights`)."""
    return query_tokens <= settings.short_query_tokens and not named


def fusion_weights(settings: FusionSettings, query_tokens: int, bm25_cover: float = 1.0,
                   named: bool = False) -> Mapping[str, float]:
    """A query of few BM25 tokens gives BM25 little to rank with: its short-query weights count the dense path
    fully; not for a brief that names a book, an author or a series (`named`), whose few words are that name and
    whose own paths carry it: "像《三体》那样的书" had put 三国演义 first, near in words to "a book like". BM25 counts
    fully where its best book holds `bm25_full_cover` of what the keywords weigh, and less in proportion below:
    minmax gives its best book 1.0 however little of the brief that book matched."""
    weights = dict(settings.short_query_weights if short_query(settings, query_tokens, named) else settings.weights)
    if "bm25" in weights and bm25_cover < settings.bm25_full_cover:
        weights["bm25"] *= bm25_cover / settings.bm25_full_cover
    return weights


def fuse(paths: Mapping[str, Sequence[PathHit]], scoring: PathScoring | None, settings: FusionSettings,
         query_tokens: int, bm25_cover: float = 1.0, named: bool = False) -> list[Candidate]:
    """The fused list: RRF, or (with `scoring`) score fusion, each book with its evidence sentence."""
    candidates = rrf_fuse(paths, settings.rrf_k, settings.weights if settings.method == "rrf" else None)
    if settings.method == "rrf" or scoring is None or not candidates:
        return candidates
    return score_fuse(candidates, scoring.scores, scoring.references,
                      fusion_weights(settings, query_tokens, bm25_cover, named), settings.method, scoring.evidence)


def path_first(candidates: Sequence[Candidate], path: str) -> list[Candidate]:
    """The books one path found, in its order (newest first, a series' reading order); the others after them."""
    found = sorted((c for c in candidates if path in c.ranks), key=lambda c: c.ranks[path])
    return found + [c for c in candidates if path not in c.ranks]


def demote_doubtful(candidates: Sequence[Candidate], doubt: Callable[[str], float]) -> list[Candidate]:
    """A book that may hold a value the brief excludes, below the confidence a filter needs, moves down as far
    as that doubt says: position / (1 - doubt). The unsure MUST_NOT becomes a soft one, as an unsure MUST
    becomes a wish."""
    def place(item: tuple[int, Candidate]) -> tuple[float, float, int]:
        position, candidate = item
        unsure = doubt(candidate.book_id)
        return (position + 1) / max(1.0 - unsure, MIN_KEPT_SHARE), unsure, position  # a tie goes to the surer book
    return [c for _, c in sorted(enumerate(candidates), key=place)]


def doubtful_last(candidates: Sequence[Candidate], fits: Callable[[Candidate], bool]) -> list[Candidate]:
    """The candidates that fit, then the others marked Candidate.doubtful, each side in its own order."""
    marks = [fits(c) for c in candidates]
    return [c for c, m in zip(candidates, marks) if m] + [replace(c, doubtful=True)
                                                            for c, m in zip(candidates, marks) if not m]


@dataclass(frozen=True)
class Screened:
    """The candidates left after unsure exclusions, and how many a guess left out."""

    candidates: list[Candidate]
    left_out: int = 0  # a guess at LIKELY_EXCLUDED or surer that they hold a value the brief excludes


def screen_unsure_exclusions(candidates: Sequence[Candidate], query: ThemeQuery,
                             books: Mapping[str, BookRecord]) -> Screened:
    """A book a calibrated guess says holds a facet value the brief excludes with LIKELY_EXCLUDED or more is
    left out: such books broke the brief five times as often as books without a guess, and a shelf rarely
    lacks books to put in their place. One guessed DOUBTFUL or more comes after every book guessed less, marked
    doubtful: it fills the shelf only where those run out, in whatever language. Each moves down as far as the
    guess says (demote_doubtful): the unsure MUST_NOT becomes a soft one. An uncalibrated guess (never above
    UNCALIBRATED_CAP) ranked no better than chance on the tag-blind benchmark, so it moves nothing
    (calibrated_guess)."""
    excluded = excluded_values(query)
    if not excluded:
        return Screened(list(candidates))
    doubt = {c.book_id: max(calibrated_guess(books[c.book_id], field, value) for field, value in excluded)
             for c in candidates}
    kept = demote_doubtful([c for c in candidates if doubt[c.book_id] < LIKELY_EXCLUDED], doubt.__getitem__)
    # After, not left out: leaving out every book guessed from 0.3 sent two fine shelves to review for too few
    # books (README, "How good the shelves are"); a book that may break the brief costs more than one less close
    # to it, which a shelf rarely lacks.
    return Screened(doubtful_last(kept, lambda c: doubt[c.book_id] < DOUBTFUL),
                    len(candidates) - len(kept))


def promote_wished(candidates: Sequence[Candidate], query: ThemeQuery,
                   books: Mapping[str, BookRecord]) -> list[Candidate]:
    """The candidates with each book likely to hold a value the brief wishes for moved up, as far as that
    likelihood says: position / (1 + chance). A wish ("quiet", "温暖的") otherwise only added books to recall;
    on a catalog whose moods are guesses it moved none of them up."""
    wished = [(c.field, v) for c in query.conditions("SHOULD") if c.field not in TERM_FIELDS for v in c.values]
    if not wished:
        return list(candidates)

    def place(item: tuple[int, Candidate]) -> tuple[float, int]:
        position, candidate = item
        chance = max(calibrated_guess(books[candidate.book_id], field, value) for field, value in wished)
        return (position + 1) / (1.0 + chance), position
    return [c for _, c in sorted(enumerate(candidates), key=place)]


def preferred_first(candidates: Sequence[Candidate], query: ThemeQuery,
                    books: Mapping[str, BookRecord]) -> list[Candidate]:
    """The books that meet the numbers a brief only prefers ("最好是近十年的") before those that do not, each
    group in its order: a number is known, not guessed, so it orders like a requirement the shelf may run out
    of. A book without the number (no year, no page count) does not meet it."""
    if not query.preferred_numbers:
        return list(candidates)
    preferred = All(tuple(map(numeric_expr, query.preferred_numbers)))
    meets = {c.book_id: evaluate(preferred, books[c.book_id]) for c in candidates}
    return sorted(candidates, key=lambda c: not meets[c.book_id])


def excluded_values(query: ThemeQuery) -> list[tuple[str, str]]:
    """(facet, value) of every MUST_NOT on a facet (not on an author, a work or a subject)."""
    return [(c.field, v) for c in query.conditions("MUST_NOT") if c.field not in TERM_FIELDS for v in c.values]


def calibrated_guess(book: BookRecord, field: str, value: str) -> float:
    """How likely a calibrated guess says the book holds the value: an uncalibrated one (never above
    UNCALIBRATED_CAP) says nothing; a reference catalog's guess is calibrated at any confidence, and so is the
    crosswalk's, each rule's confidence being how often it is right (P7: popular science, 0.4), or the record's
    own reading held below the filters where a surer one contradicts it (苏菲的世界: a novel, and philosophy)."""
    return max((f.confidence for f in book.facets if f.dimension == field and f.value == value
                and (f.origin in ("reference", "crosswalk") or f.confidence > UNCALIBRATED_CAP)), default=0.0)


def speaks_of(query: ThemeQuery, kind: Kind) -> bool:
    """Whether a condition of the query, of any operator, names the kind, one of its genres or its other values."""
    named = {(c.field, v) for c in query.filter_conditions for v in c.values}
    return bool(named & {(kind.facet, kind.name), *(("genre", g) for g in kind.genres), *kind.values})


def adults_first(candidates: Sequence[Candidate], query: ThemeQuery, books: Mapping[str, BookRecord],
                 children: Kind, confidence: float, named: Sequence[str] = ()) -> list[Candidate]:
    """A brief that never speaks of children and names no children's book (`named`: an author's, a series' or
    "books like Where the Wild Things Are") asks for a shelf for adults: a book held for children with the
    filters' confidence comes after every other book, marked doubtful: it fills the shelf only where adult books
    run out, in whatever language.
    Picture books otherwise reached novel shelves through a year or a word ("moon", "1926"); moved fourfold
    down, Winnie-the-Pooh still did ("Fiction from between the wars", 11th of 25); The Very Hungry Caterpillar
    stood third on "Something like The Remains of the Day"."""
    def for_children(book_id: str) -> bool:
        return books[book_id].confidence(children.facet, children.name) >= confidence

    if speaks_of(query, children) or any(for_children(b) for b in named if b in books):
        return list(candidates)
    return doubtful_last(candidates, lambda c: not for_children(c.book_id))
