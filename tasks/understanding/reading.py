"""How a brief reads: what it names, and whether the curator wants, requires, allows or excludes each.

A brief names vocabulary values, forms ("小说", "poetry"), audiences ("童书", "for grown-ups"), catalog
authors and titles, languages, years and page counts, and (when excluded) plain topics ("战争", "gore").
Cue words (the language packs, tasks/understanding/lang/<code>/cues.yaml) decide each mention's polarity:

- a negation scopes over what follows it up to the next comma, clause end or contrast word ("不要温暖治愈
  的", "no poetry"); one at the end of a clause negates what came before it ("东野圭吾的除外");
- "除了 X 以外" excludes X; inside another negation the frame flips ("不看刘慈欣以外的" means only 刘慈欣);
- a requirement scopes the same way ("只要诗集", "fiction only");
- a hedge ("都可以", "or", "not just") makes a clause's forms and genres wishes;
- a negation about the reader ("readers without a degree in philosophy", "不需要懂哲学") says nothing of books.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from datetime import date
from functools import cached_property, lru_cache, partial
from pathlib import Path

from config.class_ranges import ClassRange, class_ranges
from config.vocabulary import Vocabulary
from storage.models import NumericCondition
from tasks.catalog.text_analysis import brief_stopwords, cut, stopwords
from tasks.understanding.lang import PACKS_DIR, load_packs
from tasks.understanding.numbers import NumberGrammar, find_numbers, number_grammar
from tasks.understanding.references import shelf_descriptions
from tasks.understanding.spans import longest_apart, regex

WANTED, REQUIRED, ALLOWED, EXCLUDED, READER = "wanted", "required", "allowed", "excluded", "reader"
REFERRED = "referred"  # describes the earlier shelf the brief refers to ("前面那个历史书架"): nothing new
# Which kind of mention wins a tie between two of the same length: a proper name over a form word over a value.
_PRIORITY = {"author": 0, "work": 0, "form": 1, "audience": 1, "adult": 1, "language": 2, "genre": 2}
# A negation followed by a degree word qualifies one quality up to its 的: "不要太学术的", "别那么沉重的"
# "除了科幻，还想要推理", "除了后续的读本，日本还出了哪些": 除了 … 还 / 也 adds to X, it does not exclude it
# ("除了科幻都可以" does): the first of 都 / 还 / 也 / 另外 in the rest of the sentence decides.
# "not too sentimental novels", "nothing overly academic about it": the degree is excluded, the word after it ends
# the exclusion; the books it describes stay asked for
_BOOK_TITLE = re.compile(r"《[^《》]+》")
_TOPIC_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|[\u3400-\u9fff]+")


@dataclass(frozen=True)
class Cues:
    """What the language packs (tasks/understanding/lang/<code>/) say a brief's words do, every language at once:
    cue words by kind, clause ends, and the everyday readings. Built by `load_cues`, one kind to a field."""

    negation_before: tuple[str, ...]
    negation_after: tuple[str, ...]
    negation_before_value: tuple[str, ...]  # a negation only right before a value or name: "不烧脑", "不太沉重"
    negation_after_contrast: tuple[str, ...]  # a bare 不 after a termination, where no other cue starts: "但不血腥"
    exception_open: tuple[str, ...]
    exception_close: tuple[str, ...]
    pseudo_negation: tuple[str, ...]
    termination: tuple[str, ...]
    requirement: tuple[str, ...]
    hedge: tuple[str, ...]
    hedge_if_several: tuple[str, ...]
    preference: tuple[str, ...]  # a number in the same clause is only preferred: "最好是近十年的"
    reader_before: tuple[str, ...]
    reader_after: tuple[str, ...]
    reader_end: tuple[str, ...]
    question: tuple[str, ...]
    degree: tuple[str, ...]
    degree_end: tuple[str, ...]
    additive: tuple[str, ...]
    for_whom: tuple[str, ...]
    person: tuple[str, ...]
    wanting: frozenset[str]  # a value's alias that is also a verb of wanting after a person: "we'd love"
    filler: frozenset[str]
    not_a_topic: frozenset[str]
    pronouns: frozenset[str]
    readings: Readings
    clauses: Clauses
    numbers: NumberGrammar

    @cached_property  # asked for every word of every excluded phrase
    def all_words(self) -> frozenset[str]:
        """Every cue word: none of them is ever a search keyword."""
        return frozenset(w.lower() for w in (*self.negation_before, *self.negation_after,
                                              *self.negation_after_contrast, *self.exception_open,
                                              *self.exception_close, *self.requirement, *self.hedge,
                                              *self.hedge_if_several, *self.termination, *self.preference))

    @cached_property
    def leading_cues(self) -> tuple[str, ...]:
        """The cue words of unspaced scripts, longest first: what an excluded phrase may open with."""
        return tuple(sorted((w for w in self.all_words if not w.isascii()), key=len, reverse=True))

    @cached_property
    def glued(self) -> tuple[str, ...]:
        """The cue and filler words of unspaced scripts, longest first: what jieba may glue to a word's front."""
        return tuple(sorted((w for w in (*self.all_words, *self.filler) if not w.isascii()), key=len,
                            reverse=True))

    @cached_property
    def person_before(self) -> re.Pattern:
        """Who wants, before a verb of wanting: "we'd love" (love is then no value)."""
        return re.compile(rf"(?:{_alternation(self.person)})\s+$", re.IGNORECASE)

    @cached_property
    def cued_word(self) -> re.Pattern:
        """A negation or requirement and one word, ending the text: "nothing Japanese"."""
        words = tuple(w for w in (*self.negation_before, *self.requirement) if w.isascii())
        return re.compile(rf"(?:{_alternation(words)})\s+[A-Za-z-]+$", re.IGNORECASE)

    @cached_property
    def by_people(self) -> re.Pattern:
        """What makes a nation's people its writers, before them: "by Americans", "no Russians"."""
        words = (*self.readings.authorship_before, *(w for w in self.negation_before if w.isascii()))
        return re.compile(rf"(?:{_alternation(words)})\s+$", re.IGNORECASE)

    @cached_property
    def written_by(self) -> re.Pattern:
        return re.compile(rf"\s*(?:{_alternation(self.readings.authorship_after)})")

    @cached_property
    def ones(self) -> re.Pattern:
        """A qualifier standing for books: "日本的", "Japanese ones"."""
        return re.compile("|".join(rf"\s*{re.escape(w)}\s*" if not w.isascii() else rf"\s+{term_pattern(w, True)}"
                                   for w in self.readings.ones) or "(?!)", re.IGNORECASE)

    @cached_property
    def for_whom_before(self) -> re.Pattern:
        return re.compile(rf"(?:{_alternation(self.for_whom)})\s*$", re.IGNORECASE)

    @cached_property
    def reader_stop(self) -> re.Pattern:
        return re.compile(_alternation(self.reader_end))

    @cached_property
    def additive_ahead(self) -> re.Pattern:
        """An additive word before the sentence ends or an any-of-these word decides: "以外的也要有"."""
        stops = "".join(re.escape(w[0]) for w in (*self.clauses.sentence_ends, *self.hedge_if_several,
                                                  *self.additive) if not w.isascii() or not w.isalpha())
        return re.compile(rf"[^{stops}]*(?:{_alternation(self.additive)})")

    @cached_property
    def word_after_degree(self) -> re.Pattern:
        """The word after a cue that is its own degree ("not too long"), and the words joined to it."""
        return _degree_pattern((), (), self.degree)

    @cached_property
    def degree_then_word(self) -> re.Pattern:
        """A degree after a negation and the quality it qualifies: up to a degree_end ("太学术的"), or one word and
        the words joined to it ("too long or too dark")."""
        return _degree_pattern(self.degree, self.degree_end, self.degree)


@dataclass(frozen=True)
class Readings:
    """readings.yaml of every pack: audiences, feelings, occasions, read-alikes, languages and literatures."""

    adults: tuple[str, ...]
    audiences: dict[str, tuple[str, ...]]  # a catalog audience, or "readers" (who reads: nothing of books)
    values: dict[str, tuple[str, ...]]  # a vocabulary value's or kind's name -> everyday words for it
    occasions: tuple[Occasion, ...]
    read_alike: tuple[str, ...]
    languages: dict[str, tuple[str, ...]]  # language code -> words for it
    language_names: dict[str, tuple[str, ...]]  # language code -> its bare names, a request only before books
    language_nouns: tuple[str, ...]  # the words for books a bare language name may qualify
    literatures: dict[str, tuple[str, ...]]  # language code -> a nation's words, said before a kind of book
    literature_words: tuple[str, ...]  # the kinds of writing that may follow a nation's word
    ones: tuple[str, ...]  # a qualifier standing for books of its own: "不要日本的", "no Japanese ones"
    authorship_before: tuple[str, ...]  # a nation's people as writers: "by Americans"
    authorship_after: tuple[str, ...]  # "美国人写的"
    topics: tuple[str, ...]  # topic phrases holding a value's word: "happy ending" is no wish for happy books


@dataclass(frozen=True)
class Occasion:
    """A day or month a shelf is made for, and what such a shelf is about."""

    name: str
    words: tuple[str, ...]
    topics: tuple[str, ...]
    values: tuple[str, ...]


@dataclass(frozen=True)
class Clauses:
    """clauses.yaml of every pack: where a clause ends, what joins two parts, the particles a phrase ends in."""

    end: re.Pattern
    question_end: re.Pattern
    sentence_ends: tuple[str, ...]
    joiners: frozenset[str]
    particles: str


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(term_pattern(w) for w in sorted(words, key=len, reverse=True)) or "(?!)"


def _degree_pattern(before: tuple[str, ...], ends: tuple[str, ...], joined_degree: tuple[str, ...]) -> re.Pattern:
    """A degree word and what it qualifies: in an unspaced script up to the quality's end ("太学术的"), else the next
    word and the words joined to it ("too long or too dark"); with no degree words before, only that word."""
    spaced = tuple(w for w in before if w.isascii())
    unspaced = tuple(w for w in before if not w.isascii())
    word = r"[A-Za-z][\w-]*"
    joined = rf"(?:\s*(?:,|\bor\b|\band\b)\s*(?:(?:{_alternation(tuple(w for w in joined_degree if w.isascii()))})\s+)?{word})*"
    if not before:
        return re.compile(rf"\s+{word}{joined}", re.IGNORECASE)
    end = "".join(re.escape(e) for e in ends)
    return re.compile(rf"\s*(?:(?:{_alternation(unspaced)})[^，,。；;！!？?{end}]{{1,8}}?[{end}]"
                      rf"|(?:{_alternation(spaced)})\s+{word}{joined})", re.IGNORECASE)


@lru_cache(maxsize=4)
def load_cues(root: Path = PACKS_DIR) -> Cues:
    """The cues of every language pack under `root` (a test's own packs in a temp folder, else the product's)."""
    packs = load_packs(root)
    words = partial(packs.words, "cues.yaml")
    said = partial(packs.words, "readings.yaml")
    ends = packs.words("clauses.yaml", "ends")
    end = "|".join([re.escape(e) for e in ends]
                   + [rf"{re.escape(e)}(?=\s|$)" for e in packs.words("clauses.yaml", "ends_before_space")]
                   + [rf"\s{re.escape(e)}\s" for e in packs.words("clauses.yaml", "ends_between_spaces")])
    marks = "".join(re.escape(m) for m in packs.words("clauses.yaml", "question_marks"))
    occasions = tuple(Occasion(name, tuple(map(str, row.get("words", ()))), tuple(map(str, row.get("topics", ()))),
                               tuple(map(str, row.get("values", ()))))
                      for name, row in packs.table("readings.yaml", "occasions").items())
    readings = Readings(said("adults"), packs.groups("readings.yaml", "audiences"),
                        {name: tuple(map(str, row)) for key in ("feelings", "kinds")
                         for name, row in packs.table("readings.yaml", key).items()},
                        occasions, said("read_alike"), packs.groups("readings.yaml", "languages"),
                        packs.groups("readings.yaml", "language_names"), said("language_nouns"),
                        packs.groups("readings.yaml", "literatures"), said("literature_words"), said("ones"),
                        said("authorship_before"), said("authorship_after"), said("topics"))
    clauses = Clauses(re.compile(end or "(?!)"), re.compile(rf"[{marks}]\s*$" if marks else "(?!)"),
                      packs.words("clauses.yaml", "sentence_ends"),
                      frozenset(w.lower() for w in packs.words("clauses.yaml", "joiners")),
                      "".join(packs.words("clauses.yaml", "particles")))
    kinds = {f.name for f in fields(Cues)} - {"readings", "clauses", "numbers"}
    sets = {"wanting", "filler", "not_a_topic", "pronouns"}
    return Cues(readings=readings, clauses=clauses, numbers=number_grammar(root),
                **{k: frozenset(w.lower() for w in words(k)) if k in sets else words(k) for k in kinds})


@lru_cache(maxsize=8192)  # the vocabulary's and cue tables' terms, asked of every brief
def term_pattern(term: str, plural: bool = False) -> str:
    """Latin terms match whole words ("no" is not in "novel"), with `plural` also their plural ("memoirs",
    "mysteries"); Chinese terms anywhere."""
    if not term.isascii():
        return re.escape(term)
    escaped = re.escape(term)
    if plural and term[-1:].isalpha():
        escaped = rf"(?:{escaped}(?:e?s)?|{re.escape(term[:-1])}ies)" if term.endswith("y") else rf"{escaped}(?:e?s)?"
    # a term that starts or ends with a mark ("'d", "+") has no word edge there: "we'd"
    return (r"(?<![\w-])" if term[:1].isalnum() else "") + escaped + (r"(?![\w-])" if term[-1:].isalnum() else "")


@lru_cache(maxsize=256)
def word_bounds(text: str) -> frozenset[int]:
    """Where jieba puts word boundaries in the text."""
    bounds, position = {0}, 0
    for word in cut(text):
        position += len(word)
        bounds.add(position)
    return frozenset(bounds)


def _straddles(text: str, start: int, end: int) -> bool:
    """Whether a match runs across two of jieba's words ("成人" in "换成|人物")."""
    return any(start < b < end for b in word_bounds(text))


def find_terms(text: str, terms: tuple[str, ...] | list[str], plural: bool = False,
               whole_words: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, term) of every occurrence, case aside; the longest wins where two overlap.

    `whole_words` keeps a Chinese match from running across two words: for short, common-word terms
    ("成人", "大人"). jieba splits too coarsely and too finely to ask it of every term ("别太烧|脑").
    """
    found = [(start, end, term) for term in terms if term for start, end in _occurrences(text, term, plural)
             if not (whole_words and not term.isascii() and _straddles(text, start, end))]
    return longest_apart(found)


def _occurrences(text: str, term: str, plural: bool) -> Iterator[tuple[int, int]]:
    """(start, end) of each occurrence of one term, not overlapping. A term with no cased letter and no
    word bounds (most Chinese ones) is a plain substring: compiling a pattern for each of the vocabulary's
    terms was a quarter of a second of every `shelfwise try`."""
    if not term.isascii() and term.lower() == term.upper():
        start = text.find(term)
        while start >= 0:
            yield start, start + len(term)
            start = text.find(term, start + len(term))
        return
    for match in regex(term_pattern(term, plural), re.IGNORECASE).finditer(text):
        yield match.start(), match.end()


@dataclass(frozen=True)
class Mention:
    """Something the brief names, and how the curator means it."""

    start: int
    end: int
    field: str  # a vocabulary dimension, form, audience, author, work, language or subject
    value: str  # a value name, a form or audience name, an author's catalog name, a work id, a language code, a topic
    polarity: str = WANTED


@dataclass(frozen=True)
class Topic:
    """A topic the brief names, not a vocabulary value: excluded ("不要战争题材" -> 战争) or read from an occasion
    ("中秋" -> 团圆). tasks/understanding/subjects.py matches them to the catalog's subject headings."""

    start: int
    end: int
    text: str
    polarity: str
    source: str  # "excluded" (a phrase a negation scopes over) | "occasion"


@dataclass(frozen=True)
class Reading:
    text: str
    mentions: tuple[Mention, ...]
    numeric: tuple[NumericCondition, ...]
    excluded_spans: tuple[tuple[int, int], ...]  # text about what the curator does not want, and the cue words
    reader_spans: tuple[tuple[int, int], ...]  # text about the reader, or describing a referenced earlier shelf
    notes: tuple[str, ...] = ()
    number_spans: tuple[tuple[int, int], ...] = ()
    name_spans: tuple[tuple[int, int], ...] = ()  # catalog authors, titles and series: kept whole as keywords
    preferred: tuple[NumericCondition, ...] = ()  # numbers in a clause that only prefers them ("最好是近十年的")
    topics: tuple[Topic, ...] = ()  # topics named outside the vocabulary, with their polarity
    said_spans: tuple[tuple[int, int], ...] = ()  # read whole into values or topics (occasions, audiences): no keyword

    def of(self, polarity: str) -> list[Mention]:
        return [m for m in self.mentions if m.polarity == polarity]

    @property
    def searchable_text(self) -> str:
        """The brief without its cue words and what it excludes or says of the reader: what keywords, the vector
        query and the intent are read from (an excluded author makes no spotlight)."""
        spans = self.excluded_spans + self.reader_spans
        return "".join(" " if any(a <= i < b for a, b in spans) else ch for i, ch in enumerate(self.text))

    def segments(self) -> list[tuple[str, bool]]:
        """The searchable text in pieces, each with whether it is a catalog name (to keep whole); the numbers
        ("八九十年代", "300页以内") left out, since a year or a page count is a condition, never a keyword."""
        text, pieces, at = self.searchable_text, [], 0
        blanks = self.number_spans + self.said_spans
        text = "".join(" " if any(a <= i < b for a, b in blanks) else ch for i, ch in enumerate(text))
        for start, end in self.name_spans:
            if text[start:end].strip() == self.text[start:end]:  # not blanked as excluded or about the reader
                pieces += [(text[at:start], False), (text[start:end], True)]
                at = end
        return [p for p in [*pieces, (text[at:], False)] if p[0].strip()]

    @property
    def covered(self) -> float:
        """Share of the brief's letters and characters that a mention or a number explains."""
        content = [i for i, ch in enumerate(self.text) if ch.isalpha()]
        if not content:
            return 0.0
        spans = [(m.start, m.end) for m in self.mentions] + list(self.number_spans)
        return sum(1 for i in content if any(a <= i < b for a, b in spans)) / len(content)


@dataclass
class _Scope:
    start: int
    end: int
    polarity: str


@dataclass
class _Cue:
    start: int
    end: int
    kind: str  # negation | negation_value | after | except_open | except_close | must | hedge | contrast


def _candidates(text: str, vocabulary: Vocabulary, cues: Cues, entities) -> list[tuple[int, int, str, str]]:
    """(start, end, field, value) of every name and value in the text, overlaps not yet resolved."""
    found: list[tuple[int, int, str, str]] = []
    for kind in vocabulary.kinds:
        found += [(a, b, kind.facet, kind.name) for a, b, _ in find_terms(text, kind.words, plural=True)]
    found += [(a, b, "adult", "children") for a, b, _ in find_terms(text, cues.readings.adults, whole_words=True)]
    # everyday words for values and kinds ("cheerful", "轻松愉快"), and the catalog audiences a brief names by age
    # or school grade ("fourth graders", "三年级")
    for name, words in (*cues.readings.values.items(), *cues.readings.audiences.items()):
        named = _named_value(name, vocabulary)
        if named is not None:
            found += [(a, b, *named) for a, b, _ in find_terms(text, words, plural=True)]
    for dimension in vocabulary.dimensions:
        found += [(a, b, dimension.name, value.name) for value in dimension.values
                  for a, b, _ in find_terms(text, (value.name, *value.aliases), plural=dimension.nouns)
                  if not (text[a:b].lower() in cues.wanting and cues.person_before.search(text, 0, a))]
    for code, words in cues.readings.languages.items():
        found += [(a, b, "language", code) for a, b, _ in find_terms(text, words)]
    literary = {a for a, _, _ in find_terms(text, cues.readings.literature_words)}
    bookish = literary | {a for a, _, _ in find_terms(text, cues.readings.language_nouns)}
    for code, words in cues.readings.language_names.items():
        found += [(a, b, "language", code) for a, b, _ in find_terms(text, words)
                  if _names_books(text, _next_word_start(text, b, edition=True), bookish, cues)]
    for code, words in cues.readings.literatures.items():
        found += [(a, b, "language", code) for a, b, _ in find_terms(text, words)
                  if _next_word_start(text, b) in literary]
    historical = {a for a, _, _ in find_terms(text, class_ranges().history_words)}
    for entry in class_ranges().entries:
        found += [(a, b, "classification", entry.key) for a, b in _class_spans(
            text, entry, literary if entry.kind == "literatures" else historical, cues)]
    if entities is not None:
        found += entities.name_spans(text)
    # a topic phrase holding a value's word ("no happy ending") is a topic, not the value
    phrases = [(a, b) for a, b, _ in find_terms(text, cues.readings.topics, plural=True)]
    return [f for f in found if not any(a <= f[0] and f[1] <= b and (a, b) != (f[0], f[1]) for a, b in phrases)]




def _named_value(name: str, vocabulary: Vocabulary) -> tuple[str, str] | None:
    """(field, value) of a readings row's name: a kind of book or audience, or a vocabulary value; None for the
    audience rows that name only who reads ("readers")."""
    kind = next((k for k in vocabulary.kinds if k.name == name), None)
    if kind is not None:
        return kind.facet, kind.name
    return next(((v.dimension, v.name) for v in vocabulary.all_values() if v.name == name), None)


def _everyday(text: str, cues: Cues, vocabulary: Vocabulary) -> tuple[list[tuple[int, int]], list[Topic],
                                                                     list[tuple[int, int, str, str]]]:
    """What the packs' everyday readings find beyond values: who reads, where no catalog audience is meant ("new
    parents", "初中生": the reader's spans); occasions ("中秋", "Valentine's Day": the topics and values a shelf
    for them is about; their own words are no keyword)."""
    readers = [(a, b) for name, words in cues.readings.audiences.items() if _named_value(name, vocabulary) is None
               for a, b, _ in find_terms(text, words, plural=True)]
    topics: list[Topic] = []
    values: list[tuple[int, int, str, str]] = []
    for occasion in cues.readings.occasions:
        for a, b, _ in find_terms(text, occasion.words):
            topics += [Topic(a, b, t, WANTED, "occasion") for t in occasion.topics]
            values += [(a, b, *named) for v in occasion.values if (named := _named_value(v, vocabulary))]
    return readers, topics, values


def _class_spans(text: str, entry: ClassRange, kind_starts: set[int], cues: Cues) -> Iterator[tuple[int, int]]:
    """Where the text names a literature or a period of config/class_ranges.yaml: a name anywhere; a qualifier
    before a word of its kind or standing for books of its own ("日本推理", "唐代历史", "不要明清的", "no Japanese
    ones"; not "去日本旅行", "三国演义"); the nation's people as writers ("by Americans", "美国人写的")."""
    yield from ((a, b) for a, b, _ in find_terms(text, entry.names))
    yield from ((a, b) for a, b, _ in find_terms(text, entry.qualifiers)
                if _next_word_start(text, b) in kind_starts or _stands_for_books(text, b, cues))
    yield from ((a, b) for a, b, _ in find_terms(text, entry.people)
                if cues.by_people.search(text, 0, a) or cues.written_by.match(text, b))


def _stands_for_books(text: str, end: int, cues: Cues) -> bool:
    """"no Japanese ones", an English qualifier ending its clause ("nothing Japanese."); "X的" ending its clause,
    a negation or a preference after it aside ("明清的就不要了", "俄国的最好"): not "日本的风景", "去日本"."""
    found = cues.ones.match(text, end)
    if found is None:  # not "more common among Japanese." in a claim: the qualifier follows a cue at once
        return (cues.cued_word.search(text[:end]) is not None
                and (not text[end:].strip() or cues.clauses.end.match(text, end) is not None))
    if found.group(0).strip().isascii():
        return True
    rest = text[found.end():]
    # "明清的就不要了", "俄国的最好"
    rest = rest[max((len(c) for c in (*cues.negation_after, *cues.preference) if rest.startswith(c)), default=0):]
    return not rest.strip() or cues.clauses.end.match(rest) is not None


def _next_word_start(text: str, end: int, edition: bool = False) -> int:
    """Where the next word begins after `end`: past spaces and a possessive 的 (with `edition`, also past a 版:
    "英文版的")."""
    match = re.compile(r"\s*(?:版\s*)?(?:的\s*)?" if edition else r"\s*(?:的\s*)?").match(text, end)
    return match.end() if match else end


def _names_books(text: str, start: int, bookish: set[int], cues: Cues) -> bool:
    """Whether a language's bare name ending before `start` qualifies books: a book word or kind of writing
    follows, or the clause ends ("只要英文的")."""
    return start in bookish or start == len(text) or cues.clauses.end.match(text, start) is not None


def _resolve_overlaps(found: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    found = sorted(found, key=lambda f: (-(f[1] - f[0]), _PRIORITY.get(f[2], 3), f[0]))
    kept: list[tuple[int, int, str, str]] = []
    for item in found:
        if all(item[1] <= k[0] or item[0] >= k[1] or (item[0], item[1]) == (k[0], k[1]) and item[2] == k[2]
               for k in kept):
            if not any((item[0], item[1]) == (k[0], k[1]) for k in kept):
                kept.append(item)
    return sorted(kept)


def _cues(text: str, cues: Cues, taken: list[tuple[int, int]], value_starts: frozenset[int] = frozenset()
          ) -> list[_Cue]:
    """Every cue outside the names and values found and outside the words that only contain one ("特别",
    "分别", "非常"), the longest winning an overlap. A bare 不 negates only a value or name right after it:
    "不烧脑" excludes, "不错", "不同", "不安" do not."""
    before_value = [(a, b, "negation_value") for a, b, _ in find_terms(text, cues.negation_before_value)
                    if b in value_starts]
    taken = taken + [(a, b) for a, b, _ in find_terms(text, cues.pseudo_negation)]
    kinds = {"negation": cues.negation_before, "after": cues.negation_after, "except_open": cues.exception_open,
             "except_close": cues.exception_close, "must": cues.requirement, "hedge": cues.hedge,
             "hedge_if_several": cues.hedge_if_several, "contrast": cues.termination}
    found = [(a, b, kind) for kind, words in kinds.items() for a, b, _ in find_terms(text, words)
             if not any(x <= a and b <= y for x, y in taken)
             and not (kind == "hedge" and text[a:b].lower() in cues.degree and cues.word_after_degree.match(text, b))]
    found += [cue for cue in before_value if not any(x <= cue[0] and cue[1] <= y for x, y in taken)]
    found += [(a, b, "negation") for a, b, _ in find_terms(text, cues.negation_after_contrast)
              if not any(x <= a and b <= y for x, y in taken)
              and not any(x < b and a < y and kind != "contrast" for x, y, kind in found)]
    return [_Cue(a, b, kind) for a, b, kind in longest_apart(found)]


def _clauses(text: str, cue_list: list[_Cue], cues: Cues) -> list[tuple[int, int]]:
    """The text cut at its clause ends and terminations: made once per brief."""
    bounds = {0, len(text)}
    bounds |= {m.start() for m in cues.clauses.end.finditer(text)}
    bounds |= {c.start for c in cue_list if c.kind == "contrast"}
    ordered = sorted(bounds)
    return [(a, b) for a, b in zip(ordered, ordered[1:]) if b > a]


def _reader_scoped(text: str, cue: _Cue, cues: Cues) -> bool:
    before = text[max(0, cue.start - 25):cue.start].lower()
    after = text[cue.end:cue.end + 3]
    if any(regex(rf"\b{re.escape(w.lower())}\s*$").search(before) for w in cues.reader_before):
        return True
    return any(after.startswith(w) for w in cues.reader_after)


def _asks(text: str, cue: _Cue, cues: Cues) -> bool:
    """"为什么…不需要", "how not to": a negation inside a question about the world, not an exclusion."""
    clause = text[max((m.end() for m in cues.clauses.end.finditer(text, 0, cue.start)), default=0):cue.start]
    return bool(find_terms(clause, cues.question))


def _scopes(text: str, cue_list: list[_Cue], spans: list[tuple[int, int]], cues: Cues,
            kinds: list[tuple[int, int]]) -> list[_Scope]:
    """Where each cue's polarity holds (a cue opens a scope that runs to the next cue or the clause's end, or, after
    what it negates, back to the clause's start); `kinds` are the spans of forms and genres named."""
    scopes: list[_Scope] = []
    several: list[tuple[_Cue, int, int]] = []  # "都可以" cues: decided once exclusions are known
    clauses = _clauses(text, cue_list, cues)
    for cue in cue_list:
        if cue.kind == "contrast":
            continue
        if cue.kind == "negation_value":  # "不太沉重的历史书": the value after it, not the books it describes
            if not _asks(text, cue, cues):  # a question's 不 states a fact
                scopes.append(_Scope(cue.start, max((y for x, y in spans if x == cue.end), default=cue.end),
                                     EXCLUDED))
            continue
        a, b = next((x, y) for x, y in clauses if x <= cue.start < y)
        if cue.kind == "except_close":
            additive = cues.additive_ahead.match(text, cue.end)  # "金庸古龙以外的也要有": others too, not instead
            if not any(a <= c.start < cue.start and c.kind in ("except_open", "negation") for c in cue_list) and not (
                    additive and not cues.clauses.end.search(text, cue.end, additive.end())):
                scopes.append(_Scope(a, cue.start, EXCLUDED))  # "鲁迅以外的民国作家": 除了 left unsaid
            continue
        # an "or" joins what an exclusion names ("nothing by Orwell or Huxley"), it does not end it
        following = [c for c in cue_list if c.start >= cue.end and c.start < b and c.kind != "except_close"
                     and not (cue.kind == "negation" and text[c.start:c.end].lower() == "or")]
        stop = min([c.start for c in following] + [b])
        if cue.kind == "negation":
            # "不要太学术的哲学入门书", "not too academic philosophy": the degree is excluded, not the books it describes
            own = text[cue.start:cue.end].lower().split()[-1:] in ([w] for w in cues.degree)  # "not too"
            degree = (cues.word_after_degree if own else cues.degree_then_word).match(text, cue.end)
            if degree and degree.end() < stop:
                stop = degree.end()
            # "不要二战题材的小说": the modifier before 的 is excluded, not the kind of book
            stop = next((x for x, _ in kinds if cue.end + 1 < x < stop and text[x - 1] == "的"), stop)
        before_named = any(a <= s < cue.start for s, _ in spans)
        after_named = any(cue.end <= s < stop for s, _ in spans) or bool(text[cue.end:stop].strip(" " + cues.clauses.particles))
        if cue.kind == "hedge":
            joined = _joined_by_or(text, cue, spans, cues) if text[cue.start:cue.end].lower() == "or" else (a, b)
            if joined:
                scopes.append(_Scope(*joined, ALLOWED))
            continue
        if cue.kind == "hedge_if_several":
            several.append((cue, a, b))
            continue
        polarity = REQUIRED if cue.kind == "must" else EXCLUDED
        # "战争题材的不要": a cue that may also follow what it negates, ending its clause after a plain topic
        topic_before = (text[cue.start:cue.end] in cues.negation_after and not text[cue.end:stop].strip(" " + cues.clauses.particles)
                        and _has_topic(text[a:cue.start], cues))
        postfix = cue.kind == "after" or (cue.kind in ("negation", "must") and (before_named or topic_before)
                                          and not any(cue.end <= s < stop for s, _ in spans)
                                          and not _has_topic(text[cue.end:stop], cues))
        if cue.kind == "after" and cue.start > a and after_named and any(cue.end <= s < stop for s, _ in spans):
            postfix = False  # "不要" with something named after it negates that
        if postfix and cue.kind in ("negation", "must", "after"):
            scopes.append(_Scope(a, cue.start, polarity))
            continue
        if cue.kind == "negation" and _asks(text, cue, cues):
            continue  # a question's "why … not": its words stay what the text is about
        if cue.kind == "negation" and _reader_scoped(text, cue, cues):
            # "不需要懂哲学也能读的好书": what the reader need not know ends where the book is spoken of again
            end = cues.reader_stop.search(text[cue.end:stop])
            scopes.append(_Scope(cue.start, cue.end + end.start() if end else stop, READER))
            continue
        close = next((c for c in cue_list if c.kind == "except_close" and cue.end <= c.start < stop), None)
        if cue.kind == "except_open":
            if not cues.additive_ahead.match(text, close.end if close else stop):
                scopes.append(_Scope(cue.start, close.start if close else stop, EXCLUDED))
        elif cue.kind == "negation" and close is not None:
            # "不看刘慈欣以外的科幻": what stands before 以外 is the only thing wanted
            scopes.append(_Scope(cue.start, close.start, REQUIRED))
        else:
            scopes.append(_Scope(cue.start, stop, polarity))
    for cue, a, b in several:  # alternatives only among the kinds not excluded
        wanted = [k for k, e in kinds if a <= k < b and not any(s.start <= k and e <= s.end for s in scopes
                                                                 if s.polarity == EXCLUDED)]
        if len(wanted) > 1:
            scopes.append(_Scope(a, b, ALLOWED))
    return scopes


def _has_topic(text: str, cues: Cues) -> bool:
    return bool(_topic(text, cues))


def _without_leading_cues(word: str, cues: Cues) -> str:
    """A Chinese word without the cue and filler words jieba glued to its front: "别放太长" -> "长"."""
    if word.isascii():
        return word
    while (front := next((w for w in cues.glued if word.startswith(w) and len(word) > len(w)), None)) is not None:
        word = word[len(front):]
    return word


def _joined_by_or(text: str, cue: _Cue, spans: list[tuple[int, int]], cues: Cues) -> tuple[int, int] | None:
    """What an "or" offers as alternatives: the names on either side of it, each within two words ("fiction or
    nonfiction", "poetry or maybe some essays"); None where it joins other words ("crime novels set in Scandinavia
    or anywhere cold" asks for crime novels, it offers no alternative to them)."""
    before = max((s for s in spans if s[1] <= cue.start), key=lambda s: s[1], default=None)
    after = min((s for s in spans if s[0] >= cue.end), key=lambda s: s[0], default=None)
    if before is None or after is None:
        return None
    near = all(len(text[x:y].split()) <= 2 and not cues.clauses.end.search(text, x, y)
               for x, y in ((before[1], cue.start), (cue.end, after[0])))
    return (before[0], after[1]) if near else None


def _topic(text: str, cues: Cues) -> str:
    """What an excluded phrase is about, its topics joined: "不要战争题材" -> 战争, "no war books" -> war."""
    return " ".join(_topics(text, cues))


def _joined_parts(text: str, start: int, end: int, cues: Cues) -> list[tuple[int, int]]:
    """The spans of text[start:end] between its joining words and commas ("工具书和励志书" -> 工具书, 励志书): words,
    not characters, so that 和平 stays one."""
    parts, at, offset = [], start, start
    words = cut(text[start:end]) if re.search(r"[\u3400-\u9fff]", text[start:end]) else re.split(r"(\s+|[,，、/])",
                                                                                            text[start:end])
    for word in words:
        if word.strip().lower() in cues.clauses.joiners or word.strip() in ("，", ","):
            parts.append((at, offset))
            at = offset + len(word)
        offset += len(word)
    return [(a, b) for a, b in [*parts, (at, end)] if b > a]


def _topics(text: str, cues: Cues) -> list[str]:
    """What an excluded phrase is about, without filler, a topic for each thing it joins: "不要战争题材" ->
    [战争], "no textbooks or sheet music" -> [textbook, sheet music]. A part of more than three words makes none."""
    text = text.strip()
    # the phrase opens with its cue, which jieba may cut apart ("而不幼稚": 而 / 不 / 幼稚)
    text = text[len(next((w for w in cues.leading_cues if text.startswith(w)), "")):]
    groups = []
    for a, b in _joined_parts(text, 0, len(text), cues):
        words = []
        for token in cut(text[a:b]) if re.search(r"[\u3400-\u9fff]", text[a:b]) else text[a:b].split():
            word = _without_leading_cues(token.strip(" .;:!?'\"。；：！？").lower(), cues)
            if not word or not _TOPIC_WORD.fullmatch(word):
                continue
            if word in cues.filler or word in cues.all_words or (_stopword(word) and word not in cues.pronouns):
                continue
            if word in cues.not_a_topic or any(w in cues.not_a_topic for w in re.findall(r"[\u3400-\u9fff]", word)
                                               if len(word) == 1):
                return []  # a degree or length ("not too long", "别太长"), not a topic
            words.append(re.sub(r"(?<=[a-z]{4})s$", "", word) if word.isascii() else word)
        groups.append(words)
    if any(len(words) > 3 for words in groups):
        return []  # prose, not a list of topics: "mice without IFN-γ or its receptor are resistant to …"
    # Chinese words join as they were written: a subject is searched for as one string ("职场鸡汤", not "职场 鸡汤")
    return [("" if all(not w.isascii() for w in words) else " ").join(words) for words in groups if words]


def _stopword(word: str) -> bool:
    """A stopword of any language's list."""
    return any(word in words for words in stopwords().values())


def _exclusion_around(start: int, end: int, scopes: list[_Scope]) -> _Scope | None:
    """The innermost exclusion scope holding the span."""
    return min((s for s in scopes if s.start <= start and end <= s.end and s.polarity == EXCLUDED),
               key=lambda s: s.end - s.start, default=None)


def _word_before(text: str, start: int, end: int) -> str:
    """The last word of text[start:end] (jieba's for Chinese), stripped; "" where there is none."""
    before = text[start:end]
    words = cut(before) if re.search(r"[\u3400-\u9fff]", before) else before.split()
    return words[-1].strip() if words else ""


def _asked_heads_kept(mentions: list[Mention], scopes: list[_Scope], text: str, cues: Cues) -> list[Mention]:
    """"Crime novels …, just no cozy mysteries", "Poems about the sea, no epic poetry": an excluded value the brief
    also asks for is the head of the phrase excluded, and what modifies it there (cozy, epic) is the exclusion:
    the head stays asked for. Alone in its scope ("mysteries, but no mysteries") it stays a contradiction, which
    review asks about."""
    asked = {(m.field, m.value) for m in mentions if m.polarity in (WANTED, REQUIRED)}

    def modified(mention: Mention) -> bool:
        scope = _exclusion_around(mention.start, mention.end, scopes)
        if scope is None:
            return False
        last = _word_before(text, scope.start, mention.start).lower()
        described = (bool(last) and last not in brief_stopwords() and not _stopword(last)
                     and bool(_topic(last, cues)))  # "epic" poetry, not "一本" 童书
        return described or any(other is not mention and other.polarity == EXCLUDED
                                and scope.start <= other.start and other.end <= scope.end for other in mentions)
    return [m for m in mentions if not (m.polarity == EXCLUDED and (m.field, m.value) in asked and modified(m))]


def _narrowed_by_class(mentions: list[Mention], scopes: list[_Scope], text: str) -> list[Mention]:
    """"不要日本推理小说", "no American novels": the kinds of book excluded right after a nation's literature say
    which of its books are meant, and the nation is what is excluded: every mystery and novel had been."""
    kept: list[Mention] = []
    chain: tuple[Mention, int] | None = None  # the excluded nation, and where the kinds right after it end
    for mention in mentions:
        if (chain is not None and mention.polarity == EXCLUDED and mention.field in ("form", "genre")
                and not text[chain[1]:mention.start].strip(" 的")
                and _exclusion_around(mention.start, mention.end, scopes)
                is _exclusion_around(chain[0].start, chain[0].end, scopes)):
            chain = (chain[0], mention.end)
            continue
        kept.append(mention)
        chain = (mention, mention.end) if mention.field == "classification" and mention.polarity == EXCLUDED else None
    return kept


def _modified_forms(mentions: list[Mention], scopes: list[_Scope], text: str, cues: Cues,
                    vocabulary: Vocabulary) -> list[Mention]:
    """"不要网络小说", "no graphic novels", "no romance novels", "不要推理小说": an excluded form with a word
    before it in its exclusion excludes that kind of it, not the form: every novel had been excluded.

    The word is a value of the form's own kind (推理: mysteries are fiction, romance: a mood): that value
    stays excluded and the form goes. Otherwise (网络, graphic, 历史 — history is no kind of novel) the words
    together are excluded as a subject heading writes them ("网络小说", "Graphic novels")."""
    out = list(mentions)
    for m in mentions:
        if m.polarity != EXCLUDED or m.field != "form":
            continue
        scope = _exclusion_around(m.start, m.end, scopes)
        last = _word_before(text, scope.start, m.start) if scope is not None else ""
        if not last or not _topic(last, cues) or last.lower() in brief_stopwords():
            continue  # "不要小说", "no more novels", "no fiction or poetry"
        start = text.rindex(last, scope.start, m.start)
        modifier = next((o for o in out if o is not m and o.polarity == EXCLUDED and start <= o.start < m.start), None)
        kind = vocabulary.kind("form", m.value)
        same_kind = modifier is not None and modifier.field in vocabulary.dimension_names and (
            modifier.field != "genre" or kind is None or modifier.value in kind.genres)
        out.remove(m)
        if not same_kind:
            if modifier is not None:
                out.remove(modifier)
            out.append(Mention(start, m.end, "subject", text[start:m.end].lower(), EXCLUDED))
    return sorted(out, key=lambda x: x.start)


def _narrower_topics(mentions: list[Mention], text: str, vocabulary: Vocabulary) -> list[Mention]:
    """"想做一个历史书架……不要中国古代史", "历史书，但不要古代的": an excluded value that shares a name with another
    value the brief asks for (历史现场 and the genre 历史 are both "历史") names a part of what is asked, not
    the whole value: the word it was read from (古代史, 古代) is excluded as a subject. Excluding the historical
    setting had left the history shelf empty."""
    names = {(v.dimension, v.name): {v.name.lower(), *(a.lower() for a in v.aliases)} for v in vocabulary.all_values()}
    asked = {(m.field, m.value) for m in mentions if m.polarity in (WANTED, REQUIRED)}
    asked_names = set().union(*(names.get(key, set()) for key in asked))
    narrower = [m for m in mentions if m.polarity == EXCLUDED and (m.field, m.value) not in asked
                and names.get((m.field, m.value), set()) & asked_names]
    if not narrower:
        return mentions
    bounds = sorted(word_bounds(text))  # jieba's words: only for a brief that has such an exclusion

    def topic(m: Mention) -> Mention:
        start, end = next(((a, b) for a, b in zip(bounds, bounds[1:]) if a <= m.start and m.end <= b),
                          (m.start, m.end))
        return Mention(start, end, "subject", text[start:end].lower(), EXCLUDED)
    return [topic(m) if m in narrower else m for m in mentions]


def read_brief(text: str, vocabulary: Vocabulary, entities=None, today: date | None = None,
               cues: Cues | None = None) -> Reading:
    """The brief's mentions, each with the polarity its cues give it, and its numeric conditions."""
    cues = cues or load_cues()
    text = unicodedata.normalize("NFKC", text)
    numbers = find_numbers(text, today, cues.numbers, cues.clauses.end)
    number_spans = [(n.start, n.end) for n in numbers]
    # A book's title in 《》 is a name: its words are no mood or setting ("《百年孤独》" is not 孤独).
    titles = [(m.start(), m.end()) for m in _BOOK_TITLE.finditer(text)]
    audience_readers, occasion_topics, occasion_values = _everyday(text, cues, vocabulary)
    found = [f for f in _resolve_overlaps(_candidates(text, vocabulary, cues, entities) + occasion_values)
             if not any(a < f[1] and f[0] < b for a, b in number_spans)
             and (f[2] in ("author", "work") or not any(a <= f[0] and f[1] <= b for a, b in titles))]
    spans = [(f[0], f[1]) for f in found] + number_spans
    # a cue inside a catalog title, quoted or not, is part of the name: "Books like Never Let Me Go"
    # of several words: a one-word title is a word of the brief first ("nothing heart-warming" over a catalog
    # holding a book called "Nothing" had wished for heart-warming books)
    titled = [(a, b) for a, b, _ in entities.title_spans(text) if " " in text[a:b]] if entities is not None else []
    cue_list = _cues(text, cues, spans + titled, frozenset(f[0] for f in found))
    # what a book is and whom it is for: "有趣而不幼稚的童书" excludes the childish, not the children's books
    kinds = [(f[0], f[1]) for f in found if f[2] in ("form", "genre", "audience")]
    scopes = _scopes(text, cue_list, spans, cues, kinds)

    def polarity(start: int, end: int) -> str:
        inside = [s for s in scopes if s.start <= start and end <= s.end and s.polarity != ALLOWED]
        if inside:  # the innermost scope decides ("不要只放小说" is a hedge, not an exclusion)
            return min(inside, key=lambda s: s.end - s.start).polarity
        return ALLOWED if any(s.start <= start and end <= s.end for s in scopes) else WANTED

    def for_the_reader(start: int, end: int) -> bool:
        """"nothing too scary for the kids": an audience the excluded quality is for, not excluded itself."""
        scope = _exclusion_around(start, end, scopes)
        return (scope is not None and cues.for_whom_before.search(text[scope.start:start]) is not None
                and any(scope.start <= f[0] < start for f in found))

    mentions = []
    for start, end, field_name, value in found:
        mood = polarity(start, end)
        if field_name == "audience" and mood == EXCLUDED and for_the_reader(start, end):
            mood = WANTED
        if field_name == "adult":  # "for grown-ups": children's books excluded; "not for grown-ups": wanted
            field_name, mood = "audience", {EXCLUDED: WANTED, READER: READER}.get(mood, EXCLUDED)
        mentions.append(Mention(start, end, field_name, value, mood))
    mentions = _narrowed_by_class(mentions, scopes, text)
    mentions = _narrower_topics(_asked_heads_kept(mentions, scopes, text, cues), text, vocabulary)
    mentions = _modified_forms(mentions, scopes, text, cues, vocabulary)
    # "Books by Neil Gaiman or Terry Pratchett": authors offered as alternatives are asked for, not only allowed
    # (as "几本科幻，刘慈欣的可以有" allows one); the brief had been no spotlight
    offered = [m for m in mentions if m.field == "author" and m.polarity == ALLOWED]
    if len({m.value for m in offered}) > 1:
        mentions = [replace(m, polarity=WANTED) if m in offered else m for m in mentions]
    notes = []
    numeric: list[NumericCondition] = []
    preferred: list[NumericCondition] = []
    preferring = [a for a, _, _ in find_terms(text, cues.preference)]
    clauses = _clauses(text, cue_list, cues) if preferring else []
    for number in numbers:
        mood = polarity(number.start, number.end)
        if mood == READER:
            continue
        if mood == EXCLUDED:
            turned = number.negated()
            if not turned:
                notes.append(f"'{text[number.start:number.end]}' is excluded: a range of ratings cannot be, "
                             "so it is not used")
            numeric += turned
        elif any(a <= at < b for at in preferring for a, b in clauses if a <= number.start < b):
            preferred += number.conditions
        else:
            numeric += number.conditions
    excluded = [(s.start, s.end) for s in scopes if s.polarity == EXCLUDED]
    referred = shelf_descriptions(text)
    mentions = [replace(m, polarity=REFERRED) if any(a <= m.start and m.end <= b for a, b in referred) else m
                for m in mentions]
    if entities is not None:  # an unquoted title counts where it is excluded ("no Moby-Dick"), over what it covers
        for a, b, work in entities.title_spans(text):  # but not a cue's own word (a book called "Nothing")
            if (any(x <= a and b <= y for x, y in excluded) and not any(c.start < b and a < c.end for c in cue_list)
                    and not any(m.field == "work" and m.start == a for m in mentions)):
                mentions = [m for m in mentions if m.end <= a or m.start >= b] + [Mention(a, b, "work", work,
                                                                                           EXCLUDED)]
    for start, end in excluded:  # an excluded plain topic ("不要战争题材") excludes a subject
        if any(start <= a < end for a, _ in number_spans):
            continue
        if any(start <= m.start < end for m in mentions):  # "别放工具书和励志书": 励志 is a value, 工具书 a topic
            mentions += [Mention(a, b, "subject", t, EXCLUDED) for a, b in _joined_parts(text, start, end, cues)
                         if not any(a <= m.start < b for m in mentions)
                         for t in _topics(text[a:b], cues) if t not in cues.pronouns]
        else:
            topics = _topics(text[start:end], cues)
            author = next((m for m in reversed(mentions) if m.field == "author" and m.end <= start), None)
            if " ".join(topics) in cues.pronouns and author is not None:  # "…刘慈欣的书…这次别放他的"
                mentions = [replace(m, polarity=EXCLUDED) if m == author else m for m in mentions]
                excluded.append((author.start, author.end))
            else:
                mentions += [Mention(start, end, "subject", t, EXCLUDED) for t in topics if t not in cues.pronouns]
                # a topic that is a catalog title ("三体就别再放了") is that book too, however short its title
                works = entities.title_works if entities is not None else {}
                mentions += [Mention(start, end, "work", works[t][0], EXCLUDED) for t in topics if t in works]
    readers = [(s.start, s.end) for s in scopes if s.polarity == READER] + audience_readers
    # An exclusion is blanked from the searchable text, and so is a degree ("not too long", "别太长"), which names
    # no topic to search for.
    excluded = [(a, b) for a, b in excluded
                if any(a <= m.start < b for m in mentions if m.polarity == EXCLUDED)
                or any(a <= n.start < b for n in numbers) or not _topic(text[a:b], cues)]
    cue_spans = [(c.start, c.end) for c in cue_list
                 if c.kind != "negation" or any(c.start <= a <= c.end or c.start <= b <= c.end for a, b in excluded)
                 or any(s.start <= c.start < s.end for s in scopes if s.polarity != EXCLUDED)]
    names = tuple(entities.whole_names(text)) if entities is not None else ()
    topics = [Topic(m.start, m.end, m.value, m.polarity, "excluded") for m in mentions if m.field == "subject"]
    # an everyday word read as a value or an audience ("cheerful", "fourth graders"), an occasion: no keyword
    said = [(t.start, t.end) for t in occasion_topics] + [
        (a, b) for words in (*cues.readings.values.values(), *cues.readings.audiences.values())
        for a, b, _ in find_terms(text, words, plural=True)]
    return Reading(text, tuple(sorted(mentions, key=lambda m: m.start)), tuple(dict.fromkeys(numeric)),
                   tuple(excluded + cue_spans), tuple(readers + referred), tuple(notes), tuple(number_spans), names,
                   tuple(dict.fromkeys(preferred)), tuple(topics + occasion_topics), tuple(said))

