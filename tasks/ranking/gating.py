"""Gating step: a weak, contradictory or short theme goes to a curator for review instead of a blindly
filled shelf. It still gets its provisional shelf, plus one short question whose options help: the
conditions that could be relaxed, or the vocabulary values closest to the brief's meaning. The question
is typed here and worded in the brief's language by tasks/export/wording.py.

A shelf is short when fewer than gating.min_books books pass everything; the question then names what
limited it most: recent shelves that already hold the fitting books, the per-author cap, books with no
copies on the shelf, or the brief's own conditions (a year range, a required genre ...). A brief whose topic the
catalog files nothing under and holds no word of ("beekeeping", "养蜂") is asked about as such (`unheld`): its own
words, no book beside it but those whose records tie them to it (`evidenced`: none, where the catalog holds no word of
it), and the nearest topics the catalog holds with their counts (`nearest_held`: its subjects near the topic's words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import islice

import numpy as np

from config.settings import GatingSettings
from config.vocabulary import Vocabulary, VocabularyValue
from tasks.language.embedders.base import Embedder
from tasks.language.text_analysis import brief_stopwords, detect_language, stopwords, tokenize
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.constraints import contradictions
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.review import FEW_FIT, UNHELD, UNREAD
from tasks.model.shelf import GateVerdict, Question
from tasks.model.subjects import DOUBTFUL_ROLE
from tasks.ranking.relevance import TOPIC_DIMENSION, UNTIED, VECTOR, Evidence, standing
from tasks.understanding.cues import load_cues
from tasks.understanding.subjects import SubjectVocabulary


NEAREST_TOPICS = 3  # the nearest topics a short shelf's question offers
# Cosine (the shipped USE embedder) from which a subject of the catalog is near a brief's topic words: 养蜂 -> 昆虫 0.57,
# 编织 钩针 -> "Lace making" 0.52, gardening -> "Landscape gardening" 0.75; under it stood the padding the nearest books'
# topics had offered (knitting -> 小说 0.30, "Encyclopedias and dictionaries"; 国际象棋 -> 三国 0.41)
NEAR_TOPIC = 0.5
NEAR_WINDOW = 10  # of the subjects nearest a topic, those a question may offer (`nearest_held`)
# From which a topic the fitting books are filed under is near enough to offer: "Sea stories" beside whales 0.36,
# "Russia -- Fiction" beside Russian novels 0.54; under it "Adventure stories" beside whales 0.18. The band to 0.4 holds
# poor ones too ("Didactic fiction" 0.36 beside Russian novels), offered after the nearer.
NEAR_FILED = 0.35
SHAPE_BOOKS = 2000  # the books whose words' letter shapes say what reads as a word (`letter_shapes`)
BULK = 4  # a topic held by more than this share of the catalog is its bulk, no nearby topic: 小说 (123 of 328) for comics


@dataclass(frozen=True)
class ShelfLimits:
    """What kept fitting books off a shelf."""

    held_back: int = 0  # on a recent similar shelf (or the book a "like this" brief names)
    over_author_cap: int = 0
    unavailable: int = 0  # fitting books with no copies on the shelf
    likely_excluded: int = 0  # left out: a guess says they may well hold a value the brief excludes


@dataclass(frozen=True)
class Fit:
    """How well the catalog fills the brief, by its books' probabilities of fitting (tasks/ranking/relevance.py)."""

    likely: int  # works of the catalog likely enough to fit the brief: at or above the relevance floor
    shelf_share: float  # the share of the shelf expected to fit: the mean of its books' probabilities
    allowed: int | None = None  # books meeting the brief's hard conditions (None: not counted)
    topic: tuple[str, ...] = ()  # the brief's topic, as its content words say it
    topics: tuple[tuple[str, str, int], ...] = ()  # the nearest topics the catalog holds: field, value, books
    named: tuple[str, ...] = ()  # the brief's topic as its own words say it, held by the catalog or not (brief_topic)
    unread: tuple[str, ...] = ()  # the brief's words that read as no word (`unread`): not taken for its topic


@dataclass(frozen=True)
class VocabularyVectors:
    """Every vocabulary value's profile vector, to name the values closest to a brief."""

    values: tuple[VocabularyValue, ...]
    matrix: np.ndarray

    @classmethod
    def build(cls, vocabulary: Vocabulary, embedder: Embedder,
              stored: Mapping[tuple[str, str], np.ndarray] | None = None) -> VocabularyVectors:
        """The vectors an index version stored, by (dimension, profile text); a value edited since is embedded now."""
        values = vocabulary.all_values()
        known = dict(stored or {})
        missing = [(v.dimension, v.profile_text) for v in values if (v.dimension, v.profile_text) not in known]
        if missing:
            known.update(zip(missing, embedder.embed_documents([text for _, text in missing])))
        return cls(values, np.vstack([known[(v.dimension, v.profile_text)] for v in values]))

    def closest(self, brief_vector: np.ndarray, k: int = 3, floor: float = 0.0,
                exclude: Sequence[str] = ("genre",)) -> list[VocabularyValue]:
        """The k values most similar to the brief, none below `floor` (an unrelated brief gets none)."""
        similarities = self.matrix @ brief_vector
        order = np.argsort(-similarities, kind="stable")
        return [self.values[i] for i in order
                if self.values[i].dimension not in exclude and similarities[i] >= floor][:k]


def nearest_held(topic: np.ndarray, subjects: SubjectVocabulary, fitting: int, catalog: int,
                 k: int = NEAREST_TOPICS, filed: Set[tuple[str, str]] = frozenset()) -> tuple[tuple[str, str, int], ...]:
    """The topics (field, value, count of books) of the catalog's own subjects nearest the brief's topic words (their
    `topic` vector): of its headings, heading parts and genre tags, the NEAR_WINDOW nearest at least NEAR_TOPIC
    similar, and those the books that fit are `filed` under at least NEAR_FILED similar ("Sea stories" of Moby-Dick
    beside whales, where every heading nearer is Moby-Dick's alone); offered where broader than what fits (held by
    more books than fit) and held by at most a BULK-th of the catalog, nearest first. The topics the nearest books
    were filed under had offered the catalog's largest genres ("novel (123)" for chess) and its reference shelf
    ("Encyclopedias" for knitting); looking further than the nearest had offered "Chinese fiction" for Russian novels.
    A topic nothing of the catalog is near gets none: the question offers the lower floor alone."""
    if not len(subjects.subjects):
        return ()
    similarity = subjects.vectors @ np.asarray(topic, dtype=np.float32)
    near: dict[tuple[str, str], int] = {}
    window = 0
    for i in np.argsort(-similarity, kind="stable"):
        if similarity[i] < NEAR_FILED:
            break
        s = subjects.subjects[i]
        said = ((TOPIC_DIMENSION, s.values[0]) if s.kind == "tag" and s.field == TOPIC_DIMENSION
                else ("subject", s.label) if s.kind in ("heading", "part") else None)
        if said is None:
            continue
        window += 1
        if (window <= NEAR_WINDOW and similarity[i] >= NEAR_TOPIC) or said in filed:
            near.setdefault(said, s.books)
    broader = [(*t, n) for t, n in near.items() if fitting < n <= max(1, catalog // BULK)]
    return tuple(broader[:k])


def evidenced(admissible: Sequence[Candidate], candidates: Sequence[Candidate], evidence: Sequence[Evidence],
              weighed: Sequence[float]) -> list[Candidate]:
    """Of the books a shelf may take, those their records tie to the brief: standing on more than their vector's
    nearness (relevance.standing). Beside a topic the catalog holds no word of, a book near it in vector space is
    no book about it (人间失格 had been counted, and shelved, as a beekeeping book)."""
    kinds = {c.book_id: standing(e, float(w)) for c, e, w in zip(candidates, evidence, weighed)}
    return [c for c in admissible if kinds.get(c.book_id, VECTOR) not in (VECTOR, UNTIED)]


def likely_fitting(count: int, fit: Fit | None) -> int:
    """Of `count` books meeting the brief's hard conditions but kept off the shelf unscored (no copy on the shelf:
    recall leaves them out), how many are likely to fit its topic: the share of the books meeting the conditions that
    are likely to fit, applied to them. "12 fitting books have no copy" had been said of 12 novels after 1950 on a
    shelf of small-town novels, where the true limit was how few books fit the topic."""
    if fit is None or not fit.allowed:
        return count
    return round(count * min(1.0, fit.likely / fit.allowed))


def brief_topic(brief: str, language: str, most: int = 3) -> tuple[str, ...]:
    """The brief's topic as its own words say it, whether or not the catalog holds them: its words that are no
    stopword, no word about books or reading and none saying who reads (the packs' `readers`: 入门, "beginners" are
    the reader's level, never the topic), a Chinese word inside a longer one said once, in it ("象棋" of "国际象棋";
    none of 初学者, a reader). A topic the catalog lacks ("beekeeping", "养蜂") is what a short shelf's question must
    name: the catalog's words alone had named it by the theme's name."""
    skip = _not_topic_words()
    words = list(dict.fromkeys(tokenize(brief, language)))
    # jieba's search cut gives a compound's parts beside it ("国际", "象棋", "国际象棋")
    whole = [w for w in words if w.isascii() or not any(w != o and w in o for o in words)]
    return tuple(w for w in whole if w not in skip and not w.isnumeric())[:most]


@lru_cache(maxsize=1)
def _not_topic_words() -> frozenset[str]:
    """Every language's stopwords and the packs' words for who reads (`brief_topic`), gathered once, not per theme."""
    readers = load_cues().readings.audiences.get("readers", ())
    return brief_stopwords().union(*stopwords().values(), (w.lower() for w in readers))


def _trigrams(word: str) -> list[str]:
    marked = f"^{word}$"
    return [marked[i:i + 3] for i in range(len(marked) - 2)]


def letter_shapes(books: Iterable[BookRecord], most: int = SHAPE_BOOKS) -> frozenset[str]:
    """The letter trigrams (a word's start and end marked) of the words the catalog's records are written with:
    their titles, summaries and subjects, of its first `most` books (300 of Gutenberg's give 4,087 of its 923's 5,080
    trigrams; all 923 take 0.2 s). What `unread` reads a brief's words against."""
    return frozenset(g for book in islice(books, most)
                     for w in re.findall(r"[a-z]+", " ".join((book.title, book.summary or "", *book.subjects)).lower())
                     for g in _trigrams(w))


def unread(words: Sequence[str], shapes: Set[str]) -> tuple[str, ...]:
    """The words written in letters that read as no word: fewer than half their letter trigrams are any the
    catalog's words have (`letter_shapes`). A word the catalog lacks still has a word's shape ("beekeeping" 10 of 10
    on the demo, "sudoku" 3 of 6 on Gutenberg); a run of keys has none ("xqzv" 0 of 4, "kwempf" 1 of 6). Without
    shapes (no record written in letters) none is judged."""
    if not shapes:
        return ()
    return tuple(w for w in words if w.isascii() and w.isalpha()
                 and 2 * sum(g in shapes for g in _trigrams(w.lower())) < len(_trigrams(w)))


def few_fit(fit: Fit, language: str) -> Question:
    """Too few books fit: say how many, and offer the nearest topics the catalog holds (or a lower floor). A heading
    is offered as the records write it, so one in the brief's language where the nearest hold one: a Chinese brief
    had been offered "Science fiction" beside "科幻". A topic is offered once by its wording: the genre 科幻 and the
    heading 科幻 had stood side by side."""
    own = [t for t in fit.topics if t[0] != "subject" or detect_language(t[1]) == language] or list(fit.topics)
    once = {t[1].casefold(): t for t in reversed(own)}  # the first offered of each wording
    return Question(FEW_FIT, fit.likely, content=fit.topic,
                    topics=tuple(t for t in own if once[t[1].casefold()] is t)[:NEAREST_TOPICS])


def _short_shelf_question(shelved: int, limits: ShelfLimits, query: ThemeQuery, settings: GatingSettings,
                          closest: tuple[VocabularyValue, ...], fit: Fit | None = None) -> Question:
    """What limited the shelf most, as the question to ask: a count of books kept off it, the hard conditions
    that could be relaxed where too few books meet them, how few books fit the brief's topic, or the values
    closest to the brief."""
    hard = (*(c for c in query.filter_conditions if c.operator != "SHOULD"), *query.numeric_conditions)
    candidates = [("history", limits.held_back), ("author_cap", limits.over_author_cap),
                  ("availability", limits.unavailable), ("likely_excluded", limits.likely_excluded)]
    limit, count = max(candidates, key=lambda c: c[1])
    if count and (not hard or count >= settings.min_books - shelved):
        return Question(limit, count)
    if hard and (fit is None or fit.allowed is None or fit.allowed < settings.min_books):
        return Question("conditions", relax=hard[:3])
    if fit is not None:
        return few_fit(fit, query.language)
    return Question("catalog", closest=closest)


def only_excludes(query: ThemeQuery) -> bool:
    """Whether a brief says only what to leave out: no value, number or word the shelf is to hold (a word
    about books or wanting is none: a short brief is not told from a claim, whose "please" would be kept)."""
    return (bool(query.filter_conditions) and all(c.operator == "MUST_NOT" for c in query.filter_conditions)
            and not query.numeric_conditions and set(map(str.lower, query.search_keywords)) <= brief_stopwords())


def gate(query: ThemeQuery, shelved: int, limits: ShelfLimits, closest_values: Sequence[VocabularyValue],
         settings: GatingSettings, recognised: bool = True,
         unchecked: Sequence[FilterCondition | NumericCondition] = (), theme_shelf: bool = True,
         fit: Fit | None = None) -> GateVerdict:
    """`done`, or `needs_review` with the reasons and one question.

    `shelved` counts the books that passed everything; `recognised` is false for a brief nothing of which
    the vocabulary, the catalog's names or its words explain (intent unknown); `unchecked` are the brief's
    requirements the catalog cannot check (no book holds their dimension surely), shelved as wishes;
    `theme_shelf` is false for a brief that names an author, a series or a book to shelve around; `fit` says how
    well the catalog's books fit it: "done" promises that `done_fit_share` of the shelf fits.
    """
    reasons: list[str] = []
    question, limited_by = None, None
    closest = tuple(closest_values[:3])
    clashes = contradictions(query.filter_conditions)
    if clashes:
        field, value = clashes[0]
        reasons.append(f"contradiction: {field}={value} is both MUST and MUST_NOT")
        question = Question("contradiction", clash=FilterCondition(field, (value,), "MUST"))
    for doubt in (t for t in query.subjects if t.role == DOUBTFUL_ROLE):
        # "推理" is mystery novels or logic; "science" is science fiction or popular science: the curator says which
        readings = doubt.reading_subjects()
        reasons.append(f"the topic '{doubt.topic.text}' reads as "
                       + " or ".join(f"{s} ({n} book{'' if n == 1 else 's'})" for s, n in readings))
        question = question or Question("subject", topic=doubt.topic.text, readings=readings,
                                        wishes=doubt.reading_wishes())
    unfilled = shelved < settings.min_books or (fit is not None and fit.shelf_share < settings.done_fit_share)
    if not recognised and fit is not None and fit.unread and len(fit.unread) >= len(fit.named):
        # "xqzv blorpt kwempf": as many words read as no word as read as one is no topic the catalog lacks but a
        # brief not read; asking about the nearest topics of a topic never read offered the catalog's largest genres
        reasons.append(f"the brief's words {', '.join(fit.unread)} read as no word: no topic to shelve")
        question = question or Question(UNREAD, content=fit.unread)
    elif not recognised and fit is not None and fit.named and unfilled:
        # a topic the catalog holds no subject or word of ("beekeeping", "养蜂"): asking what the shelf is about
        # told the curator nothing; how many books fit it, named as the brief says it, and the nearest topics the
        # catalog holds do
        reasons.append(f"the catalog files no book under the brief's topic ({', '.join(fit.named)}): no subject or "
                       f"word of it is the catalog's; {fit.likely} tied to it by their records")
        question = question or replace(few_fit(replace(fit, topic=fit.named), query.language), kind=UNHELD)
    elif not recognised:
        reasons.append("nothing in the brief is recognised: no value, name, number or word the catalog holds")
        question = question or Question("unrecognised", closest=closest)
    elif theme_shelf and only_excludes(query):
        # "Nothing by Stephen King, please" had gone out as done: thirty books chosen by the word "please"
        reasons.append("the brief only says what to leave out")
        question = question or Question("unrecognised", closest=closest)
    if unchecked:
        said = [c.describe().removeprefix("MUST ") if isinstance(c, NumericCondition)
                else f"{c.field}={'/'.join(c.values)}" for c in unchecked]
        reasons.append(f"the catalog cannot check {', '.join(said)}: shelved as a wish")
        question = question or Question("unchecked", relax=tuple(unchecked))
    if shelved < settings.min_books:
        short = _short_shelf_question(shelved, limits, query, settings, closest, fit)
        books = f"{shelved} book{'' if shelved == 1 else 's'}"
        if short.kind == FEW_FIT and fit is not None:
            # the floor cut it, not the conditions: say how many fit and how many the conditions left
            reasons.append(f"only {books} likely enough to fit the brief (fewer than {settings.min_books})"
                           + (f", of {fit.allowed} meeting its conditions" if fit.allowed is not None else ""))
        else:
            reasons.append(f"only {books} pass (fewer than {settings.min_books})")
        limited_by, question = short.kind, question or short
    elif fit is not None and fit.shelf_share < settings.done_fit_share:
        reasons.append(f"about {round(fit.shelf_share * shelved)} of its {shelved} books are likely to fit "
                       f"({fit.shelf_share:.0%}; a shelf is done from {settings.done_fit_share:.0%})")
        limited_by, question = FEW_FIT, question or few_fit(fit, query.language)
    return GateVerdict("needs_review" if reasons else "done", tuple(reasons), question, limited_by)
