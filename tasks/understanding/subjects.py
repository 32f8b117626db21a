"""A brief's topics matched to the catalog's own subjects (tasks/catalog/subjects.py), and what each match asks.

Topics: the runs of the brief's keywords outside the names, forms and genres its reading found, matched longest
first ("science fiction" is one topic, never "science" and "fiction"), and the topics it excludes.

A topic matches a subject
- lexically: the same words, singular and plural ("cookbook" / "Cookbooks"), including a part of a
  heading ("Cooking" of "Cooking, French"), or a Chinese tag or heading part that holds the term (推理小说 holds 推理);
- by a heading's qualifier: "Concertos (Violoncello)" is violoncello concertos (never concertos alone), and the
  works "Concertos (Piano)" and "Sonatas (Piano)" are held by "piano";
- through config/term_mapping.yaml and config/synonyms.yaml (二战 is "World War, 1939-1945"; a word of a phrase too:
  "cello concertos" is "violoncello concertos");
- by vector similarity at or above VECTOR_THRESHOLD, calibrated on data (benchmarks/subject_threshold.py);
- for a preferred topic, only by a subject near the whole brief (PREFERRED_FIT), and a heading holding the topic's
  word among other words only where it stands among the catalog's headings nearest the brief (SENSE_SHARE): "Love
  stories" holds 'love', which "the love of reading" means in another sense.

What a match asks (`TopicSubjects.role`):
- required when the topic is the brief's head noun: right before a word for books or a kind of writing ("psychology
  books", "二战历史"), itself one ("cookbooks", "travel writing"), or all of the brief's first clause ("烹饪");
- preferred otherwise;
- doubtful when its matches fall into two readings far apart and the brief's own words do not tell which, or
  when a genre word's subjects are far from the brief's other topics and the brief is nearer those (推理 in a brief
  on logic and mathematics: mystery novels, or reasoning?): a question in review, with each reading's count of
  books (the genre stays required on the provisional shelf);
- excluded for a topic the brief excludes (exact and mapped matches only: a near meaning excludes nothing).
A head noun the catalog holds no subject of still becomes a subject condition on the word itself, so that a topic
the catalog does not hold gives a short shelf and a review, never a shelf filled by other words.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property

import numpy as np

from config.class_ranges import class_ranges
from tasks.language.embedders.base import Embedder
from tasks.language.text_analysis import book_words, brief_stopwords, cut, stopwords, words_either_way
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition, merge_conditions, subject_words
from tasks.model.constraints import AnyOf, Expr, condition_expr
from tasks.model.query import ThemeQuery
from tasks.model.subjects import (
    DOUBTFUL_ROLE,
    EXCLUDED_ROLE,
    PREFERRED_ROLE,
    REQUIRED_ROLE,
    Subject,
    SubjectMatch,
    TopicPhrase,
    TopicSubjects,
    heading_form,
    subjects_table,
)
from tasks.understanding.analysis import KIND_FIELDS, list_gap
from tasks.understanding.expansion import ExpansionTables, load_expansion_tables
from tasks.understanding.reading import EXCLUDED, WANTED, Cues, Mention, Reading

# Cosine similarity (the shipped USE embedder) at or above which a topic's vector match is right at least 90% of the
# time: 0.785 by benchmarks/subject_threshold.py on the subjects of the demo catalog (1,620) and of the Project
# Gutenberg catalog (2,899; benchmarks/catalogs), 44,920 (topic, subject) pairs of the term mapping's and synonyms'
# terms judged by their words, corrected by 100 of the demo's pairs judged by hand (the words alone: 0.858; the demo
# alone, corrected: 0.808). From 0.70 on, 80% of the pairs were right; from 0.60, 75%.
VECTOR_THRESHOLD = 0.79
VECTOR_MATCHES = 5  # vector matches kept per topic, best first
# Two matches of one topic are two readings when their subjects are this far apart (cosine below it): 推理小说 and
# 逻辑 are, 推理小说 and 侦探小说 are not.
READINGS_APART = 0.45
# The brief's words tell one reading from another when its vector is this much closer to one of them.
CONTEXT_MARGIN = 0.05
# A preferred topic's subject counts only where it is this close to the whole brief (cosine): on the dev briefs of
# the demo and of the Gutenberg catalog (benchmarks/judged, benchmarks/catalogs), about 3 in 25 matches below it were
# on the brief's topic ("Life" in "Life and Drama at Sea", 世界 in 雪花飘飘的世界, "Love" in a library brief), about 3
# in 4 above it. A required topic is the brief's head noun: its subjects always count.
PREFERRED_FIT = 0.2
# A heading that holds a preferred topic's word among other words (`may_mean_otherwise`) counts only where it stands
# among the catalog's subjects nearest the brief: at most this share of the headings of its language nearer the brief
# than it, or SENSE_FEW of a small catalog's (`SubjectVocabulary.in_sense`). One holding the word in another sense
# sits near the word, far from the brief: "Love stories" for 'love' in "celebrating the love of reading" (3% of
# Gutenberg's headings nearer), "American fiction" on Juneteenth (7%), "French literature" on Bastille Day (2%), where
# "Ghost stories" on Halloween or "Sea stories" on a sea brief stand in the first 0.1%. On the Gutenberg dev shelves
# (2026-11-29) books carrying a matched heading fitted 89% of the time where under 0.5% of the headings were nearer,
# 58% at 0.5-2%, 43% from 2% (docs/measurements.md). A heading written as the topic has no other words to change its
# sense ("Frontier" and "Folklore", right where they matched, stood at 5-6%).
SENSE_SHARE = 0.02
# The headings a small catalog's heading may have nearer at least: 2% of the demo's 464 Chinese headings is 9, where
# 外国文学 for 外国 in "想要外国小说的中译本，1950年以前出版的" stands 16th (时代三部曲 for 时代 in "不同时代女性的人生叙事" 36th).
SENSE_FEW = 25
MAX_TOPIC_WORDS = 3
# Mentions whose words are no topic: the reading made them names, kinds of book or languages already.
_NAMED_FIELDS = frozenset({"author", "work", "form", "genre", "audience", "language", "classification", "adult"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|[\u3400-\u9fff]+")
_BETWEEN = re.compile(r"[ \t\-的类]*")  # what may stand between a topic and the word for books after it
_COMPOUND = re.compile(r"[ \t\-]?")  # between two words of one compound ("cello music", "cello-music", 太空探索)
STRENGTH = {"exact": 1.0, "holds": 0.8, "mapped": 0.9}  # a vector match's strength is its similarity
# A genre read from part of a word stands where at least this share of the books carrying the word's subjects hold it
WORD_GENRE_SHARE = 0.5



def singular(word: str) -> str:
    """An English word without its plural ending: "mysteries" -> "mystery", "cookbooks" -> "cookbook", "boxes" ->
    "box"; "cooking" stays: a stemmer would make it "cook", as it makes "Cooks" (a chef's memoir is no cookbook)."""
    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is", "ics")):
        return word
    if word.endswith("ies") and word[-4] not in "aeiou":
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    return word[:-1]


def _key(text: str) -> str:
    """A subject's or topic's words as compared: lower case, English words singular, Chinese as written."""
    words = subject_words(text)
    return " ".join(map(singular, words.split())) if words.isascii() else words.replace(" ", "")


_SUBDIVIDED = re.compile(r"\s*(?:--+|—+|/)\s*")
_QUALIFIED = re.compile(r"\s*\([^)]*\)")  # "Mars (Planet)": what the name is, no part of it
_JOINED = re.compile(r"\s+(?:and|&)\s+")
_NUMBERED = re.compile(r"^(?:[IVXL]+|\d+(?:st|nd|rd|th)?)$")  # "World War II", "Louis XIV"
_UNITS = re.compile(r"\w\.\s+\w")  # "Great Britain. Army": a corporate body and its units, full stop between
_DATED = re.compile(r"^\s*(?:ca\.\s*|approximately\s*|-)?\d")  # "1939-1945", "ca. 1600-1775", "-approximately 1540"
# "Concertos (Violoncello)", "Mars (Planet)": a heading whose qualifier says what kind of its head it is, or what the
# name is; the part before it and the qualifier, nothing after (a subdivided heading holds this as its part)
_HEAD_QUALIFIED = re.compile(r"([^()]+?)\s*\(([^()]+)\)")


@dataclass(frozen=True)
class HeadingName:
    """An English heading's (or part's) first part read by its structure: the names it joins ("Mothers and
    daughters": Mothers, daughters), whether a date names it ("World War, 1939-1945") and whether its head stands
    before "of" ("Wars of the Roses")."""

    names: tuple[tuple[str, ...], ...]  # each joined name's words, a number after it ("II") left off
    dated: bool  # "X, 1939-1945", a date right after the comma: a named event, reign or period
    of_phrase: bool  # "Wars of the Roses": the words before "of" are the head
    # a name of one thing, not a topic of its kind: a qualifier saying what it is ("Lady of the Lake (Legendary
    # character)", "Isle of Ely (England)") or a corporate body's units between full stops ("Great Britain. Army.
    # Cavalry. 19th Regiment")
    entity: bool = False
    # "Head of Name", every word capitalised, a name after "of" ("Kingdom of God", "Wars of the Roses"; not "War of
    # 1812", not "Conduct of life"): a proper name, of one thing where its head is singular
    named: bool = False


def heading_name(label: str) -> HeadingName | None:
    """How an English heading's first part names its topic (None for a Chinese one, or one with no words)."""
    if not label.isascii():
        return None
    written = _SUBDIVIDED.split(label, maxsplit=1)[0]
    first = _QUALIFIED.sub("", written).strip(" .;")
    name, comma, rest = first.partition(",")
    # a comma and a date right after it: an event, reign or period; a person's forename before the date is no
    # such name ("Casanova, Giacomo, 1725-1798", "Beethoven, Ludwig van 1770-1827")
    dated = bool(comma) and bool(_DATED.match(rest))
    head, of, complement = name.partition(" of ")
    names = tuple(tuple(w for w in piece.split() if not _NUMBERED.match(w)) for piece in _JOINED.split(head))
    entity = bool(_QUALIFIED.search(written)) or bool(_UNITS.search(name))
    capitalised = all(w[:1].isupper() or w in ("of", "the") for w in re.findall(r"[^\W\d_][\w'-]*", name))
    named = bool(of) and bool(re.search(r"[^\W\d_]", complement)) and capitalised
    return HeadingName(tuple(n for n in names if n), dated, bool(of), entity, named)


def family_keys(label: str, event_heads: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The topics a heading is one of, by its structure, as `_key`s: "World War, 1939-1945" and "Napoleonic Wars,
    1800-1815" are wars (a dated name is an instance of its head word), "Wars of the Roses" (the words before "of"),
    "Cold War" (a proper name, every word capitalised, ending in a word that ends a dated name of the vocabulary:
    `event_heads`). Never a lower-case compound, whose first word may change what it is ("Time travel", "Political
    science"), nor a proper name ending in any other word ("New England", "United States"), nor the name of one
    thing: a singular head before "of" and a name ("Kingdom of God", "University of Cambridge"), a qualifier saying
    what the name is ("Lady of the Lake (Legendary character)"), a corporate body's units ("Great Britain. Army.
    Cavalry. 19th Regiment"). A heading's
    subdivisions, inversions and joined names are its parts already (tasks/model/subjects.py `heading_parts`),
    matched by their own words."""
    read = heading_name(label)
    if read is None or read.entity:
        return ()
    keys = []
    for words in read.names:
        head = _key(words[-1])
        if read.named and not read.dated and singular(words[-1].lower()) == words[-1].lower():
            continue  # a proper name of one thing ("Kingdom of God", "Society of Rosicrucians", "Louis XIV King of
            # France"), where a plural names many of the kind ("Wars of the Roses", "Indians of North America")
        if read.of_phrase or read.dated:
            keys += [head] + ([_key(" ".join(words))] if read.dated and len(words) > 1 else [])
        elif all(w[:1].isupper() for w in words) and head in event_heads:
            keys.append(head)  # a proper name, every word capitalised: "Cold War", not "Translations into English"
    return tuple(dict.fromkeys(k for k in keys if k))


@dataclass(frozen=True)
class SubjectVocabulary:
    """The version's subjects, ready to match: by their words, by a Chinese term they hold, and by vector."""

    subjects: tuple[Subject, ...]
    vectors: np.ndarray

    @cached_property
    def by_key(self) -> dict[str, tuple[int, ...]]:
        found: dict[str, list[int]] = defaultdict(list)
        for i, subject in enumerate(self.subjects):
            for text in (subject.label, *subject.aliases):
                found[_key(text)].append(i)
        return {key: tuple(dict.fromkeys(rows)) for key, rows in found.items() if key}

    @cached_property
    def event_heads(self) -> frozenset[str]:
        """The head words of the vocabulary's dated names ("War" of "World War, 1914-1918", "dynasty" of "Qing
        dynasty, 1644-1912"): a proper name ending in one is an instance of it too ("Cold War")."""
        heads = set()
        for subject in self.subjects:
            read = heading_name(subject.label) if subject.kind != "tag" else None
            if read is not None and read.dated:
                heads |= {_key(words[-1]) for words in read.names if len(words) > 1}
        return frozenset(heads)

    @cached_property
    def by_family(self) -> dict[str, tuple[int, ...]]:
        """The rows of the English headings and parts by the topics they are one of (`family_keys`)."""
        found: dict[str, list[int]] = defaultdict(list)
        for i, subject in enumerate(self.subjects):
            if subject.kind != "tag":
                for key in family_keys(subject.label, self.event_heads):
                    found[key].append(i)
        return {key: tuple(rows) for key, rows in found.items()}

    def family(self, term: str) -> list[int]:
        """The rows of the headings the term heads, besides those written as it is."""
        exact = set(self.by_key.get(_key(term), ()))
        return [i for i in self.by_family.get(_key(term), ()) if i not in exact] if term.isascii() else []

    @cached_property
    def by_qualifier(self) -> tuple[dict[str, list[tuple[frozenset[str], int]]], dict[str, list[int]]]:
        """Every English "Head (Qualifier)" heading or part, as `_key`s, found by its head (with its qualifier's
        words) and by its qualifier: "Concertos (Violoncello)" under "concerto" ({"violoncello"}) and "violoncello".
        Indexed once, since a brief's every term asks."""
        by_head: dict[str, list[tuple[frozenset[str], int]]] = defaultdict(list)
        by_name: dict[str, list[int]] = defaultdict(list)
        for i, subject in enumerate(self.subjects):
            read = _HEAD_QUALIFIED.fullmatch(subject.label.strip()) if subject.kind != "tag" else None
            if read is not None and subject.label.isascii():
                qualifier = _key(read[2])
                by_head[_key(read[1])].append((frozenset(qualifier.split()), i))
                by_name[qualifier].append(i)
        return dict(by_head), dict(by_name)

    def qualified(self, term: str) -> tuple[list[int], list[int]]:
        """The rows of the "Head (Qualifier)" headings a term names, by the qualifier's meaning: those whose head is the
        term's last word and whose qualifier holds all its other words ("cello concertos", once mapped to
        "violoncello concertos": "Concertos (Violoncello)"; never "Concertos (Piano)", which only half of it
        names), and those whose qualifier is the term (a piano's works, "Concertos (Piano)", "Sonatas (Piano)", for
        "piano"; "Mars (Planet)" for "planet")."""
        words = _key(term).split() if term.isascii() else []
        if not words:
            return [], []
        *modifiers, head = words
        by_head, by_name = self.by_qualifier
        named = [i for held, i in by_head.get(head, ()) if modifiers and set(modifiers) <= held]
        return named, list(by_name.get(" ".join(words), ()))

    @cached_property
    def rows(self) -> dict[Subject, int]:
        return {s: i for i, s in enumerate(self.subjects)}

    @cached_property
    def chinese(self) -> tuple[tuple[str, int], ...]:
        """(label, row) of every Chinese subject that is one term (no subdivisions): what may hold a brief's term."""
        return tuple((s.label, i) for i, s in enumerate(self.subjects)
                     if s.language == "zh" and not re.search(r"[—\-/－]", s.label))

    def lexical(self, term: str, how: str = "exact") -> list[SubjectMatch]:
        """The subjects written as `term` is, singular or plural, and the headings it heads (`family`); for a Chinese
        term also those holding it."""
        found = [SubjectMatch(term, self.subjects[i], STRENGTH[how], how) for i in self.by_key.get(_key(term), ())]
        # the compound headings the term heads ("war": "World War, 1939-1945"), as a tag holds a Chinese term
        found += [SubjectMatch(term, self.subjects[i], STRENGTH["holds"] * STRENGTH[how], "holds")
                  for i in self.family(term)]
        # the headings whose qualifier says what the term says: "Concertos (Violoncello)" is violoncello concertos
        seen, (named, kinds) = {m.subject for m in found}, self.qualified(term)
        found += [SubjectMatch(term, self.subjects[i], STRENGTH[how], how) for i in named
                  if self.subjects[i] not in seen]
        found += [SubjectMatch(term, self.subjects[i], STRENGTH["holds"] * STRENGTH[how], "holds")
                  for i in dict.fromkeys(kinds) if self.subjects[i] not in seen and i not in named]
        if not term.isascii() and len(term) >= 2 and how == "exact":
            seen = {m.subject for m in found}
            found += [SubjectMatch(term, self.subjects[i], STRENGTH["holds"] * (0.75 + 0.25 * len(term) / len(label)),
                                   "holds") for label, i in self.chinese
                      if term in label and label != term and self.subjects[i] not in seen]
        return found

    def tagged(self, dimension: str, value: str, topic: str) -> list[SubjectMatch]:
        """The source tag of this vocabulary value, where the catalog's records carry it, as the topic's match."""
        return [SubjectMatch(topic, s, STRENGTH["mapped"], "mapped") for s in self.subjects
                if s.kind == "tag" and s.field == dimension and s.values == (value,)]

    @cached_property
    def _languages(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per language, the mask of its subjects and the rows of its headings, parts and classes (not source tags)."""
        languages = np.asarray([s.language for s in self.subjects])
        kept = np.asarray([s.kind != "tag" for s in self.subjects], dtype=bool)
        return [(mine, np.flatnonzero(kept & mine)) for mine in (languages == language for language in set(languages))]

    def in_sense(self, vector: np.ndarray) -> np.ndarray:
        """Per subject, whether it stands among the headings of its language (source tags aside) nearest the vector:
        at most SENSE_SHARE of them nearer, or SENSE_FEW in a small catalog, whatever the brief's length does to
        cosines."""
        similarities = self.vectors @ np.asarray(vector, dtype=np.float32)
        kept = np.ones(len(self.subjects), dtype=bool)
        for mine, held in self._languages:
            if len(held):
                ranked = np.sort(similarities[held])
                nearer = len(held) - np.searchsorted(ranked, similarities[mine], side="right")
                kept[mine] = nearer <= max(SENSE_SHARE * len(held), SENSE_FEW)
        return kept

    def nearest(self, vectors: np.ndarray, threshold: float = VECTOR_THRESHOLD,
                k: int = VECTOR_MATCHES) -> list[list[tuple[int, float]]]:
        """For each query vector, the rows of the subjects at least `threshold` similar, best first (k at most)."""
        if not len(self.subjects) or not len(vectors):
            return [[] for _ in range(len(vectors))]
        similarities = np.asarray(vectors, dtype=np.float32) @ self.vectors.T
        out = []
        for row in similarities:
            best = np.argsort(-row, kind="stable")[:k]
            out.append([(int(i), float(row[i])) for i in best if row[i] >= threshold])
        return out


NO_SUBJECTS = SubjectVocabulary((), np.zeros((0, 0), dtype=np.float32))


@dataclass(frozen=True)
class KindWords:
    """Words that say what kind of book a topic is the subject of (the language packs, config/stopwords.yaml,
    config/class_ranges.yaml): after a topic they make it the head noun ("psychology books", "二战历史")."""

    books: frozenset[str]  # "books", 书, 读物, "guide": never a topic
    writing: frozenset[str]  # "fiction", "novels", 小说: a topic only inside a longer subject ("travel writing")
    history: frozenset[str]  # "history", 历史: a topic of its own where nothing before it is one ("history books")
    other: frozenset[str]  # words about reading and libraries ("read", "library", 借阅) and occasions: no topic, no kind
    # a nation's or language's words (config/class_ranges.yaml's literatures, the packs' literatures and language
    # names): before a kind of writing they say whose writing it is ("Classic English novels"), not what about
    nations: frozenset[str] = frozenset()

    @property
    def heads(self) -> frozenset[str]:
        return self.books | self.writing | self.history

    @property
    def all(self) -> frozenset[str]:
        return self.heads | self.other


def kind_words(cues: Cues) -> KindWords:
    lower = lambda words: frozenset(w.lower() for w in words)  # noqa: E731
    table = subjects_table()
    books, people = lower((*cues.readings.language_nouns, *table.get("kinds", ()))), lower(table.get("people", ()))
    return KindWords(books, lower(cues.readings.literature_words) - people, lower(class_ranges().history_words),
                     lower((*book_words(), *table.get("occasions", ()), *people)) - books, _nation_words(cues))


def _nation_words(cues: Cues) -> frozenset[str]:
    """The words of a nation or a language: each literature's qualifiers and people, and what its subject phrases
    hold besides a kind of writing ("English" of "English fiction", 日本 of 日本文学); the packs' language names."""
    literary = sorted({w.lower() for w in cues.readings.literature_words}, key=len, reverse=True)
    words = {w for ws in cues.readings.language_names.values() for w in ws}
    for entry in class_ranges().entries:
        if entry.kind != "literatures":
            continue
        words |= {*entry.qualifiers, *entry.people}
        for phrase in map(str.lower, entry.subjects):
            rest = ([w for w in phrase.split() if w not in literary] if phrase.isascii()
                    else [phrase[:-len(w)] for w in literary if phrase.endswith(w) and len(phrase) > len(w)][:1])
            words |= set(rest[:1]) if len(rest) == 1 else set()
    return frozenset(w.lower() for w in words)


def _words(text: str) -> list[tuple[int, int, str]]:
    """(start, end, word) of the text's words: Latin words whole, Chinese as jieba cuts it."""
    out = []
    for match in _WORD.finditer(text):
        if match.group().isascii():
            out.append((match.start(), match.end(), match.group().lower()))
            continue
        at = match.start()
        for word in cut(match.group()):
            out.append((at, at + len(word), word))
            at += len(word)
    return out


def topic_phrases(reading: Reading, keywords: Sequence[str], vocabulary: SubjectVocabulary,
                  tables: ExpansionTables, cues: Cues) -> list[TopicPhrase]:
    """The brief's topics (see the module docstring): keyword runs matched longest first, each a topic."""
    text = reading.searchable_text
    named = [(m.start, m.end) for m in reading.mentions if m.field in _NAMED_FIELDS]
    kinds = kind_words(cues)
    skip = brief_stopwords() | stopwords()["zh"] | stopwords()["en"] | cues.all_words | cues.not_a_topic
    wanted = {k.lower() for k in keywords}
    words = [(a, b, w) for a, b, w in _words(text) if not any(s < b and a < e for s, e in named)]

    def content(word: str) -> bool:
        return (word in wanted and word not in skip and len(word) >= 2) or word in kinds.all

    runs: list[list[tuple[int, int, str]]] = []
    for a, b, w in words:
        if content(w) and runs and _BETWEEN.fullmatch(text[runs[-1][-1][1]:a]) and "的" not in text[runs[-1][-1][1]:a]:
            runs[-1].append((a, b, w))
        elif content(w):
            runs.append([(a, b, w)])
    topics: list[TopicPhrase] = []
    for run in runs:
        pieces, i = [], 0
        while i < len(run):
            for n in range(min(MAX_TOPIC_WORDS, len(run) - i), 0, -1):
                start, end = run[i][0], run[i + n - 1][1]
                known = bool(vocabulary.lexical(text[start:end])) or any(
                    vocabulary.lexical(t, "mapped") for t in _same(text[start:end], tables))
                if n == 1 or known:
                    break
            word = run[i][2]
            # a kind word after a topic says what kind of book it is ("二战历史"), no topic of its own
            kind_only = n == 1 and (word in kinds.books or word in kinds.writing or word in kinds.other
                                    or (word in kinds.history and i > 0))
            pieces.append((start, end, known, kind_only))
            i += n
        topical = [p for p in pieces if not p[3]]
        if len(topical) > 1 and not any(p[2] for p in topical) and len(run) <= MAX_TOPIC_WORDS:
            # words no subject holds, one after another, are one topic: "vegan baking", not "vegan" and "baking"
            topical = [(topical[0][0], topical[-1][1], False, False)]
        for start, end, _, _ in topical:
            if text[start:end].lower() not in {t.text.lower() for t in topics}:  # said twice (a name, its blurb)
                topics.append(TopicPhrase(text[start:end], start, end, WANTED))
    topics = [replace(t, head=_is_head(t, text, kinds) and not _listed_with_a_kind(t, reading, kinds, cues),
                      bare=_is_bare(t, reading.text, kinds)) for t in topics if not _whose_writing(t, text, kinds)]
    excluded = [TopicPhrase(m.value, m.start, m.end, EXCLUDED) for m in reading.mentions
                if m.field == "subject" and m.polarity == EXCLUDED]
    # a genre word said as a kind of book ("推理小说", "histories", "科幻作品") means the genre; said otherwise ("推理的
    # 乐趣") it may mean what it means in everyday words
    genres = [TopicPhrase(text[m.start:m.end], m.start, m.end, WANTED, genre=m.value) for m in reading.mentions
              if m.field == "genre" and m.polarity == WANTED and m.end - m.start >= 2]
    return [*topics, *(g for g in genres if not _said_as_kind(g, text, kinds)), *excluded]


def _whose_writing(topic: TopicPhrase, text: str, kinds: KindWords) -> bool:
    """Whether the topic is a nation's or language's word before a kind of writing: "English" in "Classic English
    novels" says whose novels, and the catalog's few headings "English" are no requirement of the shelf."""
    if topic.text.lower() not in kinds.nations:
        return False
    after = _words(text[topic.end:topic.end + 24])
    return bool(after) and bool(_BETWEEN.fullmatch(text[topic.end:topic.end + after[0][0]])) and (
        after[0][2] in kinds.writing or text[topic.end:].lower().lstrip(" -").startswith(tuple(kinds.writing)))


def _said_as_kind(genre: TopicPhrase, text: str, kinds: KindWords) -> bool:
    """Whether a genre word is said as a kind of book: before a kind word, holding one besides itself ("推理小说",
    "science fiction"), a plural ("mysteries", "biographies") or a history word ("histories")."""
    said = genre.text.lower()
    return (_kind_after(genre, text, kinds) or said in kinds.history or (said.isascii() and said.endswith("s"))
            or any(k != said and (k in said if not k.isascii() else f" {k} " in f" {said} ") for k in kinds.heads))


def _same(term: str, tables: ExpansionTables) -> tuple[str, ...]:
    """The term's other names: its synonyms and its mapped terms in the other language."""
    others = [*tables.same_as(term)[1:], *tables.to_english.get(term, ()),
              *([tables.to_chinese[term.lower()]] if term.lower() in tables.to_chinese else [])]
    # an English phrase with one of its words said by another name: "cello concertos", "violoncello concertos"
    words = term.split() if term.isascii() else []
    others += [" ".join((*words[:i], other, *words[i + 1:])) for i, word in enumerate(words) if len(words) > 1
               for other in tables.same_as(word.lower())[1:]]
    return tuple(dict.fromkeys(o for o in others if o.lower() != term.lower()))


def _is_head(topic: TopicPhrase, text: str, kinds: KindWords) -> bool:
    """Whether a topic is the brief's head noun: a kind word right after it ("psychology books", "二战历史") or
    ending it ("travel writing", "cookbooks")."""
    last = _words(topic.text)[-1][2]
    return _kind_after(topic, text, kinds) or last in kinds.heads or bool(re.search(r"books?$|书$", last))


def _listed_with_a_kind(topic: TopicPhrase, reading: Reading, kinds: KindWords, cues: Cues) -> bool:
    """Whether a head topic is one item of a list of kinds of book ("his novels and travel books", "cookbooks or
    poetry"): the shelf holds each of them, so the topic is not what every book must be, as the form beside it is not
    (translate/rules.py). The topic's item ends after the kind word that makes it a head ("travel books")."""
    text = reading.text
    end = _kind_end(topic, text, kinds) or topic.end
    listed = [m for m in reading.mentions if m.field in KIND_FIELDS and m.polarity != EXCLUDED
              and (m.end <= topic.start or m.start >= end)]
    return any(list_gap(text[m.end:topic.start] if m.end <= topic.start else text[end:m.start], cues) is not None
               for m in listed)


def _kind_after(topic: TopicPhrase, text: str, kinds: KindWords) -> bool:
    """Whether a kind word follows the topic: "psychology books", "二战历史"."""
    return _kind_end(topic, text, kinds) is not None


def _kind_end(topic: TopicPhrase, text: str, kinds: KindWords) -> int | None:
    """Where the kind word right after the topic ends ("psychology books"), None where none follows it."""
    after = _words(text[topic.end:topic.end + 12])
    if not after or after[0][2] not in kinds.heads or not _BETWEEN.fullmatch(text[topic.end:topic.end + after[0][0]]):
        return None
    return topic.end + after[0][1]


def _is_bare(topic: TopicPhrase, brief: str, kinds: KindWords) -> bool:
    """Whether the whole brief is this topic, but for kind words: "烹饪", "Travel writing", "历史书"."""
    words = [w for _, _, w in _words(brief) if w not in kinds.all]
    return bool(words) and words == [w for _, _, w in _words(topic.text)]


@dataclass(frozen=True)
class BriefKind:
    """What the brief's hard conditions already say of its books' kind."""

    imaginative: str = ""  # "wanted": fiction, poetry or drama asked for; "excluded": not, or nonfiction asked for


IMAGINATIVE_FORMS = frozenset({"fiction", "poetry", "drama"})  # the vocabulary's forms (config/crosswalk.yaml)


def brief_kind(query: ThemeQuery) -> BriefKind:
    forms = [(c.operator, v) for c in query.filter_conditions if c.field == "form" for v in c.values]
    wanted = {v for op, v in forms if op != "MUST_NOT"}
    excluded = {v for op, v in forms if op == "MUST_NOT"}
    imaginative = ("wanted" if wanted & IMAGINATIVE_FORMS else
                   "excluded" if wanted or IMAGINATIVE_FORMS <= excluded or "fiction" in excluded else "")
    return BriefKind(imaginative)


def _imaginative(subject: Subject) -> bool:
    """A heading or part with an imaginative form subdivision: "Psychology -- Fiction"."""
    return subject.kind in ("heading", "part") and bool(heading_form(subject.label)[0])


def allowed_by_kind(matches: list[SubjectMatch], kind: BriefKind) -> list[SubjectMatch]:
    """The matches the brief's kind of book allows: a topic's stories ("Psychology -- Fiction") where the brief asks
    for fiction, never where it excludes it, and otherwise where the catalog holds the topic mostly in stories
    ("Pirates -- Fiction", a novel about the war where no history of it is held), not where its own subjects of it
    carry more books ("Psychology", "Educational psychology"): a psychology brief wants no novels. Where some
    subjects say the topic's words (by the words, a mapped term, or a near heading holding them), only they are
    counted: a near meaning is another topic ("Utopias" near 'dystopias', whose catalog files its dystopias under
    "Dystopias -- Fiction")."""
    plain = [m for m in matches if not _imaginative(m.subject)]
    counted = [m for m in matches if m.how != "vector" or says_topic(m.topic, m.subject)] or matches
    stories = sum(m.subject.books for m in counted if _imaginative(m.subject))
    if kind.imaginative == "wanted" or (kind.imaginative != "excluded"
                                        and 2 * stories >= sum(m.subject.books for m in counted)):
        return matches
    return plain


def held_inside(term: str, label: str, kinds: KindWords) -> bool:
    """Whether a Chinese label holds the term only inside another head: 自然科学 (a science) holds 自然, 科学幻想小说
    holds 科学, 人生哲学 holds 人生; not 鸦片战争 or 抗日战争, ending in it (a war), nor 推理小说 or 战争小说, the term and a
    kind of writing."""
    at = label.find(term)
    if at < 0 or label.endswith(term):  # not written in it (a mapped term's heading), or its head
        return False
    return not (at == 0 and label[len(term):].lower() in kinds.heads)


# The most books of a subject whose own words are read for its evidence (`SubjectBooks.carriers`): a share read on
# an evenly spread sample of this many is within 1.6 points of the whole (one standard error at worst), and a theme's
# cost stays the same at 300 books or 1M (at 1M, 科学幻想小说 alone is carried by 50k books).
CARRIERS_READ = 1000


@dataclass(frozen=True)
class SubjectBooks:
    """The catalog's books as the subject evidence reads them: which carry a subject, found through the run's filter
    columns (one look-up a heading, one posting a tag or class code), never by testing every book. The run hands in
    its columns' look-up (tasks/recall/filters.py `FilterColumns.rows`), which every path shares; understanding
    does not build them."""

    books: tuple[BookRecord, ...]  # in the order `rows` numbers them
    rows: Callable[[Expr], np.ndarray]  # the rows of the books an expression holds for

    def __bool__(self) -> bool:
        return bool(self.books)

    def carriers(self, subjects: Sequence[Subject]) -> list[BookRecord]:
        """The books carrying any of the subjects, at most `CARRIERS_READ` of them spread evenly over all."""
        if not subjects:
            return []
        rows = self.rows(AnyOf(tuple(condition_expr(s.field, s.values) for s in subjects)))
        step = -(-len(rows) // CARRIERS_READ)  # ceiling: every row where there are few enough
        return [self.books[i] for i in rows[::max(step, 1)]]


NO_BOOKS = SubjectBooks((), lambda expr: np.empty(0, dtype=np.int64))


def said_share(term: str, subject: Subject, books: SubjectBooks) -> float:
    """The share of the subject's books whose own title and summary say the term outside the subject's words: how
    much the books under 自然科学 are about 自然 by their own account."""
    carriers, label = books.carriers([subject]), subject.label
    return sum(term in f"{b.title} {b.summary or ''}".replace(label, "") for b in carriers) / max(len(carriers), 1)


def partial_holds(matches: list[SubjectMatch], kinds: KindWords, books: SubjectBooks) -> list[SubjectMatch]:
    """The matches, a Chinese tag holding the topic only inside another head (`held_inside`) counted in proportion
    to how many of its books say the topic themselves (`said_share`): partial evidence, none where none does. The
    catalog's books are what tells: without them the match stands as it is."""
    out = []
    for m in matches:
        if m.how != "holds" or m.topic.isascii() or not books or not held_inside(m.topic, m.subject.label, kinds):
            out.append(m)
            continue
        share = said_share(m.topic, m.subject, books)
        out += [replace(m, strength=m.strength * share)] if share else []
    return out


def match_topics(topics: Sequence[TopicPhrase], vocabulary: SubjectVocabulary, embedder: Embedder,
                 brief: str, tables: ExpansionTables, kinds: KindWords, min_books: int,
                 kind: BriefKind = BriefKind(), books: SubjectBooks = NO_BOOKS) -> list[TopicSubjects]:
    """Each topic's subjects and role (see the module docstring). A topic ending in a kind word is also matched
    without it: "travel writing" is the heading "Travel writing", and the books about "Travel"."""
    wanted = [t for t in topics if t.polarity == WANTED]
    vectors = embedder.embed_queries([brief, *(t.text for t in wanted)]) if wanted and vocabulary.subjects else None
    context = vectors[0] if vectors is not None else None
    near = vocabulary.nearest(vectors[1:]) if vectors is not None else [[] for _ in wanted]
    by_topic = dict(zip(wanted, near))

    @cache  # the subjects standing among the catalog's nearest the brief: ranked once, and only for a brief that asks
    def in_sense() -> np.ndarray:
        return vocabulary.in_sense(context)
    out = []
    for topic in topics:
        words = _words(topic.text)
        core = topic.text[:words[-2][1]] if len(words) > 1 and words[-1][2] in kinds.all else ""
        matches, seen = [], set()
        for name in filter(None, (topic.text, core)):
            for how, other in (("exact", name), *(("mapped", o) for o in _same(name, tables))):
                matches += [replace(m, topic=topic.text) for m in _untagged(vocabulary.lexical(other, how))
                            if m.subject not in seen]
                seen |= {m.subject for m in matches}
        if topic.polarity == EXCLUDED:
            if matches:
                out.append(TopicSubjects(topic, tuple(matches), EXCLUDED_ROLE))
            continue
        matches += [m for m in _its_writing(topic, vocabulary, kinds, kind) if m.subject not in seen]
        seen |= {m.subject for m in matches}
        matches = partial_holds(matches, kinds, books)
        if topic.genre:
            continue  # settled below, once every topic's subjects are known
        near = [SubjectMatch(topic.text, vocabulary.subjects[i], similarity, "vector")
                for i, similarity in by_topic[topic] if vocabulary.subjects[i] not in seen
                and vocabulary.subjects[i].kind != "tag"]
        # a short topic's vector is a guess (an abbreviation, one character): its near subjects must hold its words
        matches += [m for m in near if not _short(topic.text) or says_topic(m.topic, m.subject)]
        matches = allowed_by_kind(matches, kind)
        readings = _readings(matches, vocabulary)
        # required: the whole brief; or a head noun ("travel writing", though "travel" alone is a reading situation),
        # said by the own words or other names of a subject at least `min_books` books carry (a tag merely holding
        # it, a near meaning, or a heading of a few books, where the catalog's other books on the topic lack it, is
        # only preferred)
        strong = max((m.subject.books for m in matches if m.how in ("exact", "mapped")), default=0)
        role = (REQUIRED_ROLE if topic.bare or (topic.head and strong >= min_books)
                else PREFERRED_ROLE)
        if len(readings) > 1 and context is not None:
            fit = [max(_similarity(vocabulary, m.subject, context) for m in r) for r in readings]
            order = sorted(range(len(readings)), key=lambda i: -fit[i])
            readings = [readings[i] for i in order]
            if fit[order[0]] - fit[order[1]] < CONTEXT_MARGIN:
                out.append(TopicSubjects(topic, tuple(matches), DOUBTFUL_ROLE, tuple(map(tuple, readings[:2]))))
                continue
            matches = readings[0]
        if role == PREFERRED_ROLE and context is not None:
            matches = [m for m in matches if _similarity(vocabulary, m.subject, context) >= PREFERRED_FIT
                       and (not may_mean_otherwise(m, vocabulary) or in_sense()[_row(vocabulary, m.subject)])]
        if matches or topic.bare:  # a brief on a topic the catalog lacks: said as the brief says it
            out.append(TopicSubjects(topic, tuple(matches), role, (tuple(matches),) if matches else ()))
    genre_matches = {t: [*vocabulary.tagged("genre", t.genre, t.text), *_untagged(vocabulary.lexical(t.text))]
                     for t in wanted if t.genre}
    return out + [d for t, m in genre_matches.items() if (d := _genre_doubt(t, m, out, vocabulary, context))]


def within_heads(found: list[TopicSubjects], reading: Reading, vocabulary: SubjectVocabulary,
                 nations: frozenset[str]) -> list[TopicSubjects]:
    """The topics, each modifier's set within its head's matches: a topic that a word of config/subjects.yaml
    `head_after` / `head_before` sets in another topic or a genre the brief names ("women in science", 科学中的女性)
    only narrows the head, which is what the shelf is about. A head the catalog holds no subject of narrows nothing;
    a required topic (the brief's head noun, "travel writing in China") is no modifier."""
    text, table = reading.searchable_text, subjects_table()
    after, before = frozenset(table.get("head_after", ())), frozenset(table.get("head_before", ()))
    wanted = [t for t in found if t.role in (REQUIRED_ROLE, PREFERRED_ROLE) and t.matches and not t.topic.genre]
    heads = [(t.topic.start, t.topic.end, t.matches) for t in wanted]
    # a required head noun is what the shelf is, set in anything ("travel writing in China"): only a wish narrows
    wanted = [t for t in wanted if t.role == PREFERRED_ROLE]
    heads += [(m.start, m.end, (*vocabulary.tagged("genre", m.value, text[m.start:m.end]),
                                *_untagged(vocabulary.lexical(text[m.start:m.end]))))
              for m in reading.mentions if m.field == "genre" and m.polarity == WANTED]
    out = []
    for topic in found:
        head = next((matches for start, end, matches in heads if matches and topic in wanted and (
            (start >= topic.topic.end and text[topic.topic.end:start].strip().lower() in after)
            or (end <= topic.topic.start and text[end:topic.topic.start].strip() in before))), ())
        head = head or _compound_modifier(topic, found, wanted, text, nations)
        out.append(replace(topic, within=tuple(head)) if head else topic)
    return out


def _compound_modifier(topic: TopicSubjects, found: Sequence[TopicSubjects], wanted: Sequence[TopicSubjects],
                       text: str, nations: frozenset[str]) -> tuple[SubjectMatch, ...]:
    """The subjects of the word before a wished topic in one compound ("cello music", "dog training", 太空探索), that
    the catalog files by the word's own words: the compound's last word is its head, and a book under the head's
    headings alone ("Music", a history of the Harlem festival) is no book of the compound, while one under the word
    before it (cello concertos) is, whether or not the catalog also files it under the head. So the head only narrows
    the word before it, as a modifier narrows its head ("women in science"). A nation's or language's word before it
    ("Japanese cooking") says whose, not what: no such word brings the books."""
    if topic not in wanted:
        return ()
    before = next((t for t in found if t.role in (REQUIRED_ROLE, PREFERRED_ROLE) and not t.topic.genre
                   and t.topic.end <= topic.topic.start and _COMPOUND.fullmatch(text[t.topic.end:topic.topic.start])
                   and t.topic.text.lower() not in nations), None)
    return tuple(m for m in before.matches if m.how != "vector") if before else ()


def _its_writing(topic: TopicPhrase, vocabulary: SubjectVocabulary, kinds: KindWords,
                 kind: BriefKind) -> list[SubjectMatch]:
    """The headings that are the topic's words and a kind of writing ("Sea stories" for "sea", "Ghost stories",
    "Travel writing"): books of the topic, held as a Chinese term is held by a longer tag (推理小说 holds 推理).
    A topic said with its kind already ("sea stories") is matched by its words; a brief excluding fiction wants
    none of its stories."""
    last = _words(topic.text)[-1][2]
    if not topic.text.isascii() or last in kinds.all or kind.imaginative == "excluded":
        return []
    found = {m.subject: m for kind in sorted(kinds.heads) if kind.isascii()
             for m in _untagged(vocabulary.lexical(f"{topic.text} {kind}"))}
    return [SubjectMatch(topic.text, s, STRENGTH["holds"], "holds") for s in found]


def _genre_doubt(topic: TopicPhrase, matches: list[SubjectMatch], found: list[TopicSubjects],
                 vocabulary: SubjectVocabulary, context: np.ndarray | None) -> TopicSubjects | None:
    """A genre word doubtful where its subjects are far from every subject of the brief's other topics and the
    brief is nearer those: 推理 in "逻辑与数学的推理乐趣" is reasoning, maybe, not mystery novels."""
    others = [m for t in found if t.role in (REQUIRED_ROLE, PREFERRED_ROLE) for m in t.matches if m.how != "vector"]
    if not matches or not others or context is None:
        return None
    apart = all(_similarity(vocabulary, a.subject, vocabulary.vectors[_row(vocabulary, b.subject)]) < READINGS_APART
                for a in matches for b in others)
    fit = max(_similarity(vocabulary, m.subject, context) for m in matches)
    other_fit = max(_similarity(vocabulary, m.subject, context) for m in others)
    if not apart or other_fit - fit < CONTEXT_MARGIN:
        return None
    return TopicSubjects(topic, tuple(matches), DOUBTFUL_ROLE, (tuple(matches), tuple(others)))


def may_mean_otherwise(match: SubjectMatch, vocabulary: SubjectVocabulary) -> bool:
    """Whether the matched heading says more than the topic, so that its other words may set the topic's word in
    another sense: a heading holding it ("Love stories" for 'love', "American fiction" for 'American', 时代三部曲 for
    时代). Not one written as the topic or mapped to it, nor one near it in meaning as a whole, nor one whose structure
    says what the word is in it: its qualifier names the topic ("Concertos (Piano)" for 'piano'), or it names one of
    the topic's kind ("Napoleonic Wars, 1800-1815" for 'war', `family_keys`)."""
    label = match.subject.label.strip()
    return (match.how == "holds" and not _HEAD_QUALIFIED.fullmatch(label)
            and not family_keys(label, vocabulary.event_heads))


def _untagged(matches: list[SubjectMatch]) -> list[SubjectMatch]:
    """The matches but source tags: a tag is a vocabulary value, which the brief's reading finds and conditions."""
    return [m for m in matches if m.subject.kind != "tag"]


def _row(vocabulary: SubjectVocabulary, subject: Subject) -> int:
    return vocabulary.rows[subject]


def _similarity(vocabulary: SubjectVocabulary, subject: Subject, vector: np.ndarray) -> float:
    return float(vocabulary.vectors[_row(vocabulary, subject)] @ vector)


def _readings(matches: list[SubjectMatch], vocabulary: SubjectVocabulary) -> list[list[SubjectMatch]]:
    """The matches grouped into readings: a match joins the first reading whose first subject is near its own."""
    readings: list[list[SubjectMatch]] = []
    for match in sorted(matches, key=lambda m: -m.strength):
        vector = vocabulary.vectors[_row(vocabulary, match.subject)]
        for reading in readings:
            if _similarity(vocabulary, reading[0].subject, vector) >= READINGS_APART:
                reading.append(match)
                break
        else:
            readings.append([match])
    return readings


def topic_values(matches: Sequence[SubjectMatch]) -> tuple[str, ...]:
    """A `topic` condition's values: the headings and the class ranges' codes matched by their words, and those near
    in meaning that hold the topic's words ("Social psychology" for "psychology"); where none is, by meaning."""
    strong = [m for m in matches if m.how != "vector" or says_topic(m.topic, m.subject)] or matches
    return tuple(dict.fromkeys(v for m in strong if m.subject.field in ("heading", "classification")
                               for v in m.subject.values))


def _short(text: str) -> bool:
    """A topic too short for its vector to say what it means: three Latin letters ("AI", "art"), one character."""
    return len(text.strip()) <= (3 if text.isascii() else 1)


def says_topic(topic: str, subject: Subject) -> bool:
    """Whether the subject's words hold the topic's (singular or plural: "Voyages and travels" holds "travel")."""
    topic, label = _key(topic), _key(subject.label)
    return bool(topic) and (f" {topic} " in f" {label} " if topic.isascii() else topic in label)


def subject_conditions(found: Sequence[TopicSubjects]) -> tuple[FilterCondition, ...]:
    """The conditions the matches ask: a required topic MUST, a preferred one SHOULD, an excluded one MUST_NOT on
    the headings of the same words; a doubtful one nothing until a curator answers. A brief that is a topic the catalog
    holds no subject of requires its own word. Several required topics are one condition (merged by the caller): any
    of them ("Romance novels, love stories")."""
    conditions = []
    for topic in found:
        if topic.role == DOUBTFUL_ROLE or topic.within:  # a modifier's headings narrow its head's: no condition
            continue
        if topic.role == EXCLUDED_ROLE:
            values = tuple(m.subject.label for m in topic.matches if m.subject.field == "heading")
            conditions += [FilterCondition("subject", values, "MUST_NOT")] if values else []
            continue
        operator = "MUST" if topic.role == REQUIRED_ROLE else "SHOULD"
        values = topic_values(topic.matches) or (topic.topic.text,)
        if values:
            conditions.append(FilterCondition("topic", values, operator))
    return tuple(conditions)


def with_subjects(query: ThemeQuery, found: Sequence[TopicSubjects]) -> ThemeQuery:
    """The query with the subject conditions added and the matches kept (for the sheet's counts and the review)."""
    if not found:
        return query
    # a doubted genre stays as the reading required it (what the brief requires holds on every shelf, a provisional
    # one too): the review asks which reading is meant
    # the subject conditions merged among themselves only: two of the query's own MUSTs on one field are both required
    return replace(query, filter_conditions=(*query.filter_conditions, *merge_conditions(subject_conditions(found))),
                   subjects=tuple(found))


def _word_around(text: str, start: int, end: int) -> str:
    """The brief's word (as jieba cuts it) that holds this span and is longer than it; "" where there is none."""
    return next((w for a, b, w in _words(text) if a <= start and end <= b and (a, b) != (start, end)), "")


def word_genres(reading: Reading, vocabulary: SubjectVocabulary, books: SubjectBooks,
                confidence: float) -> dict[Mention, str]:
    """The wanted genres the reading found inside a longer word of the brief, each with the genre the catalog's own
    books say that word is: the genre most of the books carrying the word's subjects hold ("" where none does).
    科学 (科普) inside 科学幻想: the books under 科学幻想小说 are science fiction, not popular science; 推理 inside
    推理小说 stays a mystery."""
    out = {}
    for mention in reading.mentions:
        if mention.field != "genre" or mention.polarity != WANTED:
            continue
        word = _word_around(reading.searchable_text, mention.start, mention.end)
        subjects = _untagged(vocabulary.lexical(word)) if word else []
        carriers = books.carriers([m.subject for m in subjects])
        if not carriers:
            continue
        held = Counter(v for b in carriers for v in b.values_at("genre", confidence))
        if held[mention.value] >= WORD_GENRE_SHARE * len(carriers):
            continue
        best = [v for v, n in held.most_common(1) if n >= WORD_GENRE_SHARE * len(carriers)]
        out[mention] = best[0] if best else ""
    return out


def with_word_genres(reading: Reading, query: ThemeQuery, genres: Mapping[Mention, str]) -> tuple[Reading, ThemeQuery]:
    """The reading and the query with each genre read from part of a word replaced by the word's own genre (or
    dropped where its books share none)."""
    if not genres:
        return reading, query
    swap = {m.value: g for m, g in genres.items()}
    mentions = tuple(replace(m, value=genres[m]) if genres.get(m) else m for m in reading.mentions
                     if m not in genres or genres[m])
    conditions = []
    for c in query.filter_conditions:
        if c.field != "genre" or c.operator == "MUST_NOT" or not set(c.values) & set(swap):
            conditions.append(c)
            continue
        values = tuple(dict.fromkeys(swap.get(v, v) for v in c.values if swap.get(v, v)))
        conditions += [replace(c, values=values)] if values else []
    return replace(reading, mentions=mentions), replace(query, filter_conditions=tuple(conditions))


def _only_named(topic: str, named: frozenset[str]) -> bool:
    """Whether every word of a topic is a word of what the brief names."""
    words = words_either_way(topic) - brief_stopwords()
    return bool(named) and bool(words) and words <= named


def subjects_of_brief(reading: Reading, query: ThemeQuery, vocabulary: SubjectVocabulary, embedder: Embedder,
                      cues: Cues, min_books: int, words_held: bool = True,
                      books: SubjectBooks = NO_BOOKS, confidence: float = 1.0,
                      named: frozenset[str] = frozenset()) -> ThemeQuery:
    """The brief's topics matched to the catalog's subjects, their conditions added to its query; `min_books`
    (gating.min_books) books must carry a head noun's subject for it to be required. `words_held`: some book holds
    one of the brief's keywords; where none does ("asdf qwer"), a topic no subject matches is no condition: the
    brief is not recognised, and the review asks what it is about. `named`: a read-alike's words of what it names
    (intent.named_words), no topic of it."""
    if not vocabulary.subjects:
        return query  # an index without subjects (built before them, or a catalog without any)
    reading, query = with_word_genres(reading, query, word_genres(reading, vocabulary, books, confidence))
    tables = load_expansion_tables()
    topics = [t for t in topic_phrases(reading, query.search_keywords, vocabulary, tables, cues)
              if (words_held or not t.bare) and not _only_named(t.text, named)]
    kinds = kind_words(cues)
    found = match_topics(topics, vocabulary, embedder, reading.text, tables, kinds, min_books, brief_kind(query), books)
    return with_subjects(query, within_heads(found, reading, vocabulary, kinds.nations))
