"""Enrichment step: every book's facets (vocabulary values, form, audience), each with an origin and a confidence.

In order of trust:
1. the source's own tags (confidence 1);
2. the crosswalk from classification codes and subject headings (each rule's own confidence);
3. the values a linear probe on the book vectors learns from the books that hold that dimension surely; where
   the catalog has too few of them (nothing in a library record says a mood), from the books of a reference
   catalog tagged by hand (enrichment.reference_catalog), never from the book's own work;
4. the similarity of the book's vector to each value's description (zero-shot).
A dimension the source tagged keeps exactly the source's values: the curator's word wins.

A guess (3, 4) is calibrated on the catalog itself: among the sure books, how often a guess at least
this strong names a value the book really has (each book scored by the probe fitted without its work's
fold). Where a dimension has too few sure books to measure that, its guesses stay below the filter
confidence: they rank, never filter. Forms and audience follow from genre values. Filters use a value only at
or above enrichment.filter_confidence.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from config.settings import EnrichmentSettings
from config.vocabulary import Vocabulary
from tasks.catalog.crosswalk import LITERATURE, Crosswalk
from tasks.catalog.names import name_key
from tasks.catalog.works import work_key
from tasks.model.books import BookRecord, Facet, shared_facet

ENRICHMENT_VERSION = 9  # in the index's snapshot hash: a build after a change of these rules derives the facets again
UNCALIBRATED_CAP = 0.5  # the most an uncalibrated guess may claim: below any sensible filter confidence
REFERENCE_CAP = 0.8  # a reference catalog's guesses are calibrated on that catalog, not this one: they rank and
#                      demote, never filter
ZERO_SHOT_TEMPERATURE = 0.05  # USE similarities to value descriptions differ by hundredths: sharpen before comparing
POOL_MAX = 20_000  # sure books a probe is fitted on: a sample of them teaches as much at a fraction of the cost
CALIBRATION_MAX = 2_000  # sure books a guesser is scored on
MIN_GUESS = 0.05  # a calibrated guess less likely than this moves nothing worth storing a facet for
PROBE_FOLDS = 5  # a reference book is scored, for calibration, by the probe fitted without its work's fold
PROBE_RIDGE = 2.0  # the probe's ridge penalty on unit vectors: 1 to 3 ranked the demo's moods best (mean AUC 0.80,
#                    against 0.75 for a vote of the 10 nearest reference books of other works)


@dataclass(frozen=True)
class Calibration:
    """Score -> confidence: how often a guess with this score is right, non-decreasing in the score.

    Fitted by isotonic regression (pool adjacent violators), so the guesses kept at any confidence c
    are right at least a share c of the time on the books it was fitted on.
    """

    scores: np.ndarray  # ascending, distinct
    confidences: np.ndarray  # non-decreasing, one per score

    @classmethod
    def fit(cls, scores: Sequence[float], correct: Sequence[bool]) -> Calibration:
        levels, inverse = np.unique(np.asarray(scores, dtype=np.float64), return_inverse=True)
        hits = np.bincount(inverse, weights=np.asarray(correct, dtype=np.float64), minlength=len(levels))
        counts = np.bincount(inverse, minlength=len(levels)).astype(np.float64)
        blocks: list[list[float]] = []  # [hits, count, last level index]
        for i, (h, n) in enumerate(zip(hits, counts)):
            blocks.append([h, n, i])
            while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
                h2, n2, last = blocks.pop()
                blocks[-1][0] += h2
                blocks[-1][1] += n2
                blocks[-1][2] = last
        confidences = np.empty(len(levels))
        start = 0
        for h, n, last in blocks:
            confidences[start:int(last) + 1] = h / n
            start = int(last) + 1
        return cls(levels, confidences)

    def __call__(self, score: float) -> float:
        if not len(self.scores) or score < self.scores[0]:
            return 0.0
        return float(self.confidences[np.searchsorted(self.scores, score, side="right") - 1])


@dataclass(frozen=True)
class Reference:
    """The books of a catalog tagged by hand: what a probe of a dimension learns from, where the catalog being
    enriched has too few sure books of it to calibrate its own guesses."""

    vectors: np.ndarray  # unit vectors, embedded as a catalog's books are but without their tags
    tags: tuple[Mapping[str, tuple[str, ...]], ...]
    works: tuple[str, ...]  # each book's work_key: a work never guesses its own values


def _sure(facets: Sequence[Facet], seed_confidence: float) -> dict[str, set[str]]:
    """The values a book is sure of, by dimension."""
    sure: dict[str, set[str]] = {}
    for f in facets:
        if f.confidence >= seed_confidence:
            sure.setdefault(f.dimension, set()).add(f.value)
    return sure


def _holds(values: Sequence[str], held: Sequence[Iterable[str]]) -> np.ndarray:
    """One row per book, 1 in the column of each value it holds."""
    column = {v: j for j, v in enumerate(values)}
    holds = np.zeros((len(held), len(values)), dtype=np.float32)
    cells = [row * len(values) + column[v] for row, vs in enumerate(held) for v in vs if v in column]
    holds.ravel()[np.fromiter(cells, dtype=np.int64, count=len(cells))] = 1.0
    return holds


def _best(facets: Sequence[Facet]) -> list[Facet]:
    """One facet per (dimension, value): the surest."""
    best: dict[tuple[str, str], Facet] = {}
    for facet in facets:
        key = (facet.dimension, facet.value)
        if key not in best or facet.confidence > best[key].confidence:
            best[key] = facet
    return list(best.values())


def known_facets(book: BookRecord, crosswalk: Crosswalk) -> list[Facet]:
    """What the source and the crosswalk say, before any guess; a dimension the source tagged is the source's.

    Form and audience follow the source's genre values when it gave some.
    """
    source = [shared_facet(dim, value, 1.0, "source") for dim, values in book.tags.items() for value in values]
    tagged = set(book.tags) | ({"form", "audience"} if "genre" in book.tags else set())
    return _best(source + _agreeing(f for f in crosswalk.facets(book) if f.dimension not in tagged))


def _agreeing(facets: Iterable[Facet]) -> list[Facet]:
    """The crosswalk's facets, a value that both the classification and a subject heading give made surer:
    1 - (1 - class) (1 - subject), as two readings of the book that fail apart ("QB981" and "Cosmology --
    Popular works"). Headings among themselves, or codes of two schemes, are one reading: the surest counts."""
    best: dict[tuple[str, str, bool], Facet] = {}
    for facet in facets:
        key = (facet.dimension, facet.value, facet.because.startswith("subject "))
        if key not in best or facet.confidence > best[key].confidence:
            best[key] = facet
    out = []
    for (dimension, value, by_subject), facet in best.items():
        other = best.get((dimension, value, not by_subject))
        if other is None:
            out.append(facet)
        elif by_subject:  # each pair once, from its classification side
            continue
        else:
            out.append(Facet(dimension, value, 1 - (1 - facet.confidence) * (1 - other.confidence), "crosswalk",
                             f"{facet.because}; {other.because}"))
    return out


def _sample(indices: np.ndarray, limit: int, seed: int) -> np.ndarray:
    """At most `limit` of the indices, the same ones on every build of the same catalog."""
    if len(indices) <= limit:
        return indices
    return np.sort(np.random.default_rng(seed).choice(indices, limit, replace=False))


def _softmax(similarities: np.ndarray) -> np.ndarray:
    scaled = similarities / ZERO_SHOT_TEMPERATURE
    scaled -= scaled.max(axis=1, keepdims=True)
    exp = np.exp(scaled)
    return exp / exp.sum(axis=1, keepdims=True)


def _calibrate(scores: np.ndarray, holds: np.ndarray, settings: EnrichmentSettings) -> Calibration | None:
    """The calibration of a guesser scored on the sure books (at most CALIBRATION_MAX of them: fitting is a
    Python loop over distinct scores); None with too few of them."""
    if len(scores) < settings.min_calibration_books:
        return None
    rows = _sample(np.arange(len(scores)), CALIBRATION_MAX, len(scores))
    return Calibration.fit(scores[rows].ravel().tolist(), holds[rows].ravel().astype(bool).tolist())


def _guesses(scores: np.ndarray, calibration: Calibration | None, values: list[str], dimension: str, origin: str,
             because: str, keep: int, cap: float = 1.0) -> list[list[Facet]]:
    """Each book's best-scoring values of a dimension as facets with their calibrated confidence (at most `cap`);
    a calibrated confidence under MIN_GUESS is no guess."""
    out = []
    for row in scores:
        best = np.argsort(-row, kind="stable")[:keep]
        found = ((i, min(cap, calibration(float(row[i]))) if calibration else UNCALIBRATED_CAP * float(row[i]))
                 for i in best if row[i] > 0)
        out.append([shared_facet(dimension, values[i], confidence, origin, because) for i, confidence in found
                    if confidence >= MIN_GUESS or not calibration])
    return out


def _work_fold(work: str) -> int:
    """The probe fold of a work: the same on every build, and one fold for all editions of the work."""
    return zlib.crc32(work.encode()) % PROBE_FOLDS


def _probe_scores(pool: np.ndarray, holds: np.ndarray, pool_folds: np.ndarray, queries: np.ndarray,
                  query_folds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A ridge probe per fold fitted on the pool without that fold: (each pool book's score from the probe
    without its own fold, to calibrate on; each query's score from the probe without the query's fold)."""
    held_out = np.zeros(holds.shape, dtype=np.float64)
    scores = np.zeros((len(queries), holds.shape[1]), dtype=np.float64)
    penalty = PROBE_RIDGE * np.eye(pool.shape[1])
    # Each fold's sums once (x'x, x'y, sum x, sum y, count): a probe without fold f is fitted on the totals
    # less fold f's, one pass over the pool instead of one per fold.
    sums = []
    for fold in range(PROBE_FOLDS):
        x, y = pool[pool_folds == fold].astype(np.float64), holds[pool_folds == fold].astype(np.float64)
        sums.append((x.T @ x, x.T @ y, x.sum(axis=0), y.sum(axis=0), len(x)))
    total = [sum(parts) for parts in zip(*sums)]
    for fold in range(PROBE_FOLDS):
        xx, xy, sx, sy, n = (t - f for t, f in zip(total, sums[fold]))
        if not n:
            continue
        mean = sy / n
        # x'(y - mean) over the training books, from the sums: x'y - (sum x) mean'
        weights = np.linalg.solve(xx + penalty, xy - np.outer(sx, mean))
        out = pool_folds == fold
        held_out[out] = pool[out] @ weights + mean
        asked = query_folds == fold
        scores[asked] = queries[asked] @ weights + mean
    return held_out, scores


def _probe_guesses(pool: np.ndarray, holds: np.ndarray, pool_folds: np.ndarray, queries: np.ndarray,
                   query_folds: np.ndarray, values: list[str], dimension: str, origin: str, because: str,
                   settings: EnrichmentSettings, cap: float = 1.0) -> list[list[Facet]]:
    """The queries' guesses from the probes (`_probe_scores`), calibrated on the pool's held-out scores."""
    held_out, scores = _probe_scores(pool, holds, pool_folds, queries, query_folds)
    return _guesses(scores, _calibrate(held_out, holds, settings), values, dimension, origin, because,
                    settings.max_guesses_per_dimension, cap)


def _reference_probe(reference: Reference, queries: np.ndarray, query_folds: np.ndarray, dimension: str,
                     values: list[str], settings: EnrichmentSettings) -> list[list[Facet]] | None:
    """Guesses from a probe fitted on the reference's books sure of the dimension, calibrated on the reference
    with each book scored by the probe fitted without its work's fold; None where it has too few of them.
    A query book is scored by the probe without its own work's fold: where the reference holds its work (the
    tag-blind demo), that work never guesses its own values."""
    sure = [i for i, tags in enumerate(reference.tags) if tags.get(dimension)]
    if len(sure) < settings.min_calibration_books:
        return None
    holds = _holds(values, [reference.tags[i][dimension] for i in sure])
    pool_folds = np.array([_work_fold(reference.works[i]) for i in sure])
    return _probe_guesses(reference.vectors[sure], holds, pool_folds, queries, query_folds, values, dimension,
                          "reference", "a probe fitted on the reference catalog's books", settings, REFERENCE_CAP)


def derive_facets(books: Sequence[BookRecord], vectors: np.ndarray, value_vectors: Mapping[str, np.ndarray],
                  vocabulary: Vocabulary, crosswalk: Crosswalk, settings: EnrichmentSettings,
                  reference: Callable[[], Reference | None] = lambda: None,
                  only: np.ndarray | None = None) -> dict[str, tuple[Facet, ...]]:
    """Every book's facets (with `only`, those of the books at these positions): known ones, then calibrated
    guesses where a dimension is not yet sure. The probes learn from every book either way.

    `vectors` are the books' unit vectors in `books` order; `value_vectors` maps each dimension to its
    values' profile vectors, in the vocabulary's order. `reference` is asked for only where a dimension has
    too few sure books to calibrate its own probe (embedding it costs seconds).
    """
    forms = FormsOfGenres.of(vocabulary)
    wanted = np.ones(len(books), dtype=bool) if only is None else np.isin(np.arange(len(books)), only)

    @cache
    def fold_of(position: int) -> int:  # a book's probe fold, computed once a probe first needs it
        return _work_fold(work_key(books[position]))

    def fold(positions: np.ndarray) -> np.ndarray:
        return np.array([fold_of(i) for i in positions.tolist()], dtype=np.int64)

    facets = _literature_of_authors(books, [_one_form_on_record(known_facets(book, crosswalk), forms,
                                                                settings.seed_confidence) for book in books],
                                    settings.seed_confidence)
    known = [_sure(f, settings.seed_confidence) for f in facets]  # a dimension's guesses never make it sure
    for dim in vocabulary.dimension_names:
        values = [v.name for v in vocabulary.dimension(dim).values]
        sure = [k.get(dim) for k in known]
        seeds = np.array([i for i, s in enumerate(sure) if s], dtype=np.int64)
        guessing = np.array([i for i, (s, w) in enumerate(zip(sure, wanted.tolist())) if not s and w], dtype=np.int64)
        if not len(guessing):
            continue
        holds = _holds(values, [sure[i] for i in seeds.tolist()])
        scored_seeds = _sample(np.arange(len(seeds)), CALIBRATION_MAX, len(books) + 2)
        calibration = _calibrate(_softmax(vectors[seeds[scored_seeds]] @ value_vectors[dim].T), holds[scored_seeds],
                                 settings)
        guesses = _guesses(_softmax(vectors[guessing] @ value_vectors[dim].T), calibration, values, dim, "zero-shot",
                           "similar to the value's description", settings.max_guesses_per_dimension)
        own = len(seeds) >= settings.min_calibration_books
        lent = None if own else reference()
        borrowed = (_reference_probe(lent, vectors[guessing], fold(guessing), dim, values, settings)
                    if lent is not None else None)
        if borrowed is not None:
            guesses = [a + b for a, b in zip(guesses, borrowed)]
        elif own:
            picked = _sample(np.arange(len(seeds)), POOL_MAX, len(books))  # positions among the seeds
            # origin "neighbours": the values spread from the catalog's own sure books, as the vote of the nearest did
            voted = _probe_guesses(vectors[seeds[picked]], holds[picked], fold(seeds[picked]),
                                   vectors[guessing], fold(guessing), values, dim, "neighbours",
                                   f"a probe fitted on the catalog's books sure of their {dim}", settings)
            guesses = [a + b for a, b in zip(guesses, voted)]
        for i, found in zip(guessing.tolist(), guesses):
            facets[i] += _heeding_record_form(found, facets[i], forms) if dim == "genre" else found
    return {book.book_id: tuple(_with_kinds(_best(found), vocabulary, settings.seed_confidence))
            for book, found, w in zip(books, facets, wanted.tolist()) if w}


AUTHOR_LITERATURE_CONFIDENCE = 0.9  # a book's literature from its author's other records (below the record's own)


def _literature_of_authors(books: Sequence[BookRecord], facets: list[list[Facet]], sure: float) -> list[list[Facet]]:
    """A book whose record says no literature takes its first author's, where the author's other records say one
    and only one: Gutenberg's War and Peace states no nation, Tolstoy's other books do ("Russian fiction")."""
    said: dict[str, set[str]] = {}
    for book, found in zip(books, facets):
        if book.authors:
            said.setdefault(name_key(book.authors[0]), set()).update(
                f.value for f in found if f.dimension == LITERATURE and f.confidence >= sure)
    out = []
    for book, found in zip(books, facets):
        nations = said.get(name_key(book.authors[0]), set()) if book.authors else set()
        if len(nations) == 1 and not any(f.dimension == LITERATURE and f.confidence >= sure for f in found):
            found = [*found, shared_facet(LITERATURE, next(iter(nations)), AUTHOR_LITERATURE_CONFIDENCE, "crosswalk",
                                          f"other books by {book.authors[0]}")]
        out.append(found)
    return out


@dataclass(frozen=True)
class FormsOfGenres:
    """Which forms each genre value makes (the vocabulary's kinds), read once for a whole catalog."""

    genres_of: Mapping[str, frozenset[str]]  # form -> the genre values that make it

    @classmethod
    def of(cls, vocabulary: Vocabulary) -> FormsOfGenres:
        return cls({kind.name: frozenset(kind.genres) for kind in vocabulary.kinds_of("form")})

    def implied(self, facet: Facet) -> frozenset[str]:
        """The forms a form or genre facet says the book has (none for other dimensions)."""
        if facet.dimension == "form":
            return frozenset((facet.value,))
        if facet.dimension == "genre":
            return frozenset(form for form, genres in self.genres_of.items() if facet.value in genres)
        return frozenset()

    def exclusive(self, a: str, b: str) -> bool:
        """Forms no genre shares (a novel is not an essay)."""
        return bool(self.genres_of.get(a)) and bool(self.genres_of.get(b)) and not self.genres_of[a] & self.genres_of[b]


def _as_wish(facet: Facet) -> Facet:
    """The facet held below any filter: it still ranks."""
    return replace(facet, confidence=min(facet.confidence, UNCALIBRATED_CAP))


def _one_form_on_record(known: list[Facet], forms: FormsOfGenres, sure: float) -> list[Facet]:
    """Where a record's sure forms exclude each other, the surer stands; the other, and every genre that makes
    only forms it excludes, is held below any filter.

    A novel's subject heading against a topical one ("长篇小说—哥伦比亚" against "拉美文学"), a memoir's
    heading against its author's class number (DDC 813.52 on "A Moveable Feast"): the less sure reading
    would otherwise put the book on shelves of a form it is not.
    """
    on_record = {f.value: f.confidence for f in known if f.dimension == "form" and f.confidence >= sure}
    if len(on_record) < 2:
        return known
    surest = max(on_record.values())
    standing = {form for form, confidence in on_record.items() if confidence == surest}

    def loses(facet: Facet) -> bool:
        implied = forms.implied(facet)
        return (facet.origin != "source" and bool(implied)
                and all(forms.exclusive(form, s) for form in implied for s in standing))

    return [_as_wish(f) if loses(f) else f for f in known]


def _heeding_record_form(guesses: list[Facet], known: Sequence[Facet], forms: FormsOfGenres) -> list[Facet]:
    """Genre guesses whose forms the book's own record denies, held below any filter.

    Neighbours vote the catalog's commonest genre (novels) with near certainty onto essays and letters
    whose classification says non-fiction ("84, Charing Cross Road": Z473, neighbours 10 of 10 novels):
    the record's word on the form outweighs what similar books are.
    """
    on_record = {f.value for f in known if f.dimension == "form"}
    if not on_record:
        return guesses
    return [_as_wish(g) if forms.implied(g) and not forms.implied(g) & on_record else g for g in guesses]


def _with_kinds(facets: list[Facet], vocabulary: Vocabulary, sure: float) -> list[Facet]:
    """Forms and audience from genre values; a derived general genre dropped where a narrower one is sure."""
    genre = {f.value: f for f in facets if f.dimension == "genre"}
    dropped = set()
    for value in vocabulary.dimension("genre").values:
        own = genre.get(value.name)
        if own and own.origin != "source" and any(
                n in genre and genre[n].confidence >= min(own.confidence, sure) for n in value.narrower):
            dropped.add(("genre", value.name))
    kept = [f for f in facets if (f.dimension, f.value) not in dropped]
    derived = [shared_facet(kind.facet, kind.name, genre[g].confidence, genre[g].origin, f"genre {g}")
               for kind in vocabulary.kinds for g in kind.genres
               if g in genre and ("genre", g) not in dropped]
    return sorted(_best(kept + derived), key=lambda f: (f.dimension, -f.confidence, f.value))
