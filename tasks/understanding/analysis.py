"""The brief analysed once, the one typed object every reader consumes: its clauses (at the language packs' clause
ends) and words (jieba's bounds), the terms found in it, and what it names (vocabulary values, forms, audiences,
languages, literatures and periods, catalog authors and titles, the packs' everyday words for them), each with its
span, overlaps resolved, the longest winning; and its cues (the packs' cue words of every kind). The readers of a brief (its conditions and numbers, the scopes of its
cues, its references to earlier shelves) all read these cuts; none splits the brief on its own punctuation."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TypeVar

from config.class_ranges import ClassRange, class_ranges
from config.vocabulary import Vocabulary
from tasks.language.text_analysis import cut
from tasks.understanding.cues import Cues, alternation, enclosing_pattern, load_cues, regex, term_pattern
from tasks.understanding.numbers import reader_ages
from tasks.understanding.lang import ENCLOSED, EXCEPT, EXCLUDE, FOLLOWING, NEXT_VALUE, PRECEDING, TERMINATE, CueKind

WANTED, REQUIRED, ALLOWED, EXCLUDED, READER = "wanted", "required", "allowed", "excluded", "reader"
KIND_FIELDS = ("form", "genre")  # the fields whose values are kinds of book ("novels", "mysteries")
CHILDHOOD_ENDS = 12  # the oldest reader of a children's book: middle grade's upper end


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
    """A topic the brief names, not a vocabulary value: asked for ("cookbooks for beginners" -> cookbooks),
    excluded ("不要战争题材" -> 战争) or read from an occasion ("中秋" -> 团圆); subject headings are matched to
    them. `start` is -1 where the word is not written as such (an occasion's topic is at the occasion's span)."""

    start: int
    end: int
    text: str
    polarity: str
    source: str  # "asked" (a content word of what the brief asks for) | "excluded" (a phrase a negation scopes
    #              over) | "occasion" (a topic of the day or month named)


Span = TypeVar("Span", bound=tuple)


def longest_apart(found: Sequence[Span]) -> list[Span]:
    """The spans (start, end, ...) that overlap no longer one, in text order; the earlier wins a tie."""
    kept: list[Span] = []
    for item in sorted(found, key=lambda f: (-(f[1] - f[0]), f[0])):
        if all(item[1] <= k[0] or item[0] >= k[1] for k in kept):
            kept.append(item)
    return sorted(kept)


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
    # Only the terms the text may hold are looked for: of the ~4,600 a brief is searched for, most are absent, and
    # looking for each one (a Latin term's pattern run) was a quarter of reading a brief. A Latin term's first word
    # is in every match of its pattern (_latin_key); an uncased term (most Chinese ones) is in the text as it is.
    folded = _folded(text)
    found = [(start, end, term) for term in terms
             if term and (_latin_key(term, plural) in folded if term.isascii()
                          else term in text or term.lower() != term.upper())
             for start, end in _occurrences(text, term, plural)
             if not (whole_words and not term.isascii() and _straddles(text, start, end))]
    return longest_apart(found)


# The characters that re.IGNORECASE matches to an ASCII letter but str.lower() leaves other than it (re's docs:
# "İ", "ı", "ſ" and the Kelvin sign "K").
_ASCII_CASES = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


@lru_cache(maxsize=256)
def _folded(text: str) -> str:
    """The text lowercased as re.IGNORECASE matches a Latin term to it: a term's `_latin_key` is in it wherever the
    term's pattern matches the text."""
    return (text if text.isascii() else text.translate(_ASCII_CASES)).lower()


@lru_cache(maxsize=8192)  # the vocabulary's and cue tables' terms, asked of every brief
def _latin_key(term: str, plural: bool) -> str:
    """What every match of a Latin term's pattern (term_pattern) holds, lowercased: its first word, which the pattern
    takes as it is written, case aside (a space or hyphen after it may be either; a plural "-ies" drops a one-word
    term's last letter)."""
    first = re.split(r"[ -]", term.lower(), maxsplit=1)[0]
    return first[:-1] if plural and first == term.lower() and term.endswith("y") else first


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


def put_elsewhere(clause: str, cues: Cues) -> bool:
    """Whether a clause puts what it names elsewhere ("Fiction is on the second floor", "少儿区另外布置"), and does not
    say here as well ("一楼这次放历史书")."""
    return bool(find_terms(clause, cues.readings.elsewhere)) and not find_terms(clause, cues.readings.here)


@dataclass(frozen=True)
class Segmented:
    """A brief and where its clauses end: `ends` are the starts of its clause-ending marks, in order."""

    text: str
    ends: tuple[int, ...]
    mark_ends: tuple[int, ...]  # where each mark stops ("—" is one character, " – " three)

    @cached_property
    def clauses(self) -> tuple[tuple[int, int], ...]:
        """(start, end) of each clause; a clause starts at its mark, as the scopes have always counted."""
        bounds = sorted({0, len(self.text), *self.ends})
        return tuple((a, b) for a, b in zip(bounds, bounds[1:]) if b > a)

    def clause_of(self, at: int) -> tuple[int, int]:
        """The clause holding `at`, from just after the mark before it to the next mark."""
        i = bisect.bisect_left(self.ends, at)
        start = self.mark_ends[i - 1] if i else 0
        return start, self.ends[i] if i < len(self.ends) else len(self.text)

    def ends_at(self, at: int) -> bool:
        """Whether a clause-ending mark starts at `at`."""
        i = bisect.bisect_left(self.ends, at)
        return i < len(self.ends) and self.ends[i] == at

    def any_end(self, start: int, end: int) -> bool:
        """Whether a clause-ending mark starts in [start, end)."""
        i = bisect.bisect_left(self.ends, start)
        return i < len(self.ends) and self.ends[i] < end

    def clause_texts(self) -> list[str]:
        return [self.text[a:b] for a, b in (self.clause_of(at) for at in (0, *(e + 1 for e in self.ends)))
                if a <= len(self.text)]

    @property
    def words(self) -> frozenset[int]:
        """Where jieba puts word boundaries."""
        return word_bounds(self.text)


def segment(text: str, cues: Cues | None = None) -> Segmented:
    """The brief cut once: asked again by another reader of the same brief, the same cuts."""
    return _cut(text, (cues or load_cues()).clauses.end)


@lru_cache(maxsize=256)
def _cut(text: str, clause_end: re.Pattern) -> Segmented:
    found = list(clause_end.finditer(text))
    return Segmented(text, tuple(m.start() for m in found), tuple(m.end() for m in found))


@dataclass
class Cue:
    start: int
    end: int
    kind: CueKind

    @property
    def closes(self) -> bool:
        """The closing half of an exception ("以外"): it pairs with what opened it, it ends no scope."""
        return self.kind.effect == EXCEPT and self.kind.direction == PRECEDING

    @property
    def negates_ahead(self) -> bool:
        return self.kind.effect == EXCLUDE and self.kind.direction == FOLLOWING


def find_cues(seg: Segmented, cues: Cues, taken: list[tuple[int, int]], value_starts: frozenset[int] = frozenset()
          ) -> list[Cue]:
    """Every cue outside the names and values found and outside the words that only contain one ("特别",
    "分别", "非常"), the longest winning an overlap. A cue of a next-value kind (a bare 不) counts only right before
    a value or name: "不烧脑" excludes, "不错", "不同", "不安" do not; one of a kind that ends its clause only where
    nothing follows it there ("translated or not", not "cats and not dogs"). A degree word before a word is a
    degree ("too long"), not a cue."""
    text = seg.text
    # a pseudo-negation holds no negation, but may be a cue of another kind itself ("不过": a contrast)
    pseudo = [(a, b) for a, b, _ in find_terms(text, cues.pseudo_negation)]
    found = [(a, b, kind) for kind in cues.kinds for a, b, _ in _cue_terms(text, kind, cues)
             if not any(x <= a and b <= y for x, y in taken)
             and not any(x <= a and b <= y and ((a, b) != (x, y) or kind.effect == EXCLUDE) for x, y in pseudo)
             and not (kind.direction == NEXT_VALUE and next_start(text, b, value_starts, cues.filler) is None
                      and not (kind.kinds_only and compared_until(text, b, cues)))
             and not (kind.at_clause_end and text[b:seg.clause_of(a)[1]].strip(" .!?'\""))
             and not (text[a:b].lower() in cues.degree and cues.word_after_degree.match(text, b))
             and not _inside_a_name(text, a)]
    free = [f for f in found if not f[2].only_where_free]
    found = free + [(a, b, kind) for a, b, kind in found if kind.only_where_free
                    and not any(x < b and a < y and other.effect != TERMINATE for x, y, other in free)]
    return [Cue(a, b, kind) for a, b, kind in longest_apart(found)]


def _inside_a_name(text: str, at: int) -> bool:
    """A cue word capitalised right after a capitalised word, in a sentence written in sentence case, is a word of a
    name: "Words Without Borders picks", "the Doctors Without Borders week". After a clause's mark a capital says
    nothing ("Display: No romance"), nor in a heading in title case ("Cozy Mysteries Without Murder")."""
    if not text[at:at + 1].isupper() or not text[at:at + 1].isascii():
        return False
    start = max((m.end() for m in re.finditer(r"[.!?:;\n]", text[:at])), default=0)
    end = next((m.start() + at for m in re.finditer(r"[.!?:;\n]", text[at:])), len(text))
    prose = any(len(w) > 3 and w[0].islower() for w in re.findall(r"[A-Za-z][\w'’-]*", text[start:end]))
    return prose and bool(re.search(r"[A-Z][\w'’-]*\s+$", text[start:at]))


def _cue_terms(text: str, kind: CueKind, cues: Cues) -> list[tuple[int, int, str]]:
    """Where a kind's cue words stand: whole, or for an enclosing kind both parts with what they hold between."""
    words = cues.kind_words.get(kind.name, ())
    if kind.direction != ENCLOSED:
        return find_terms(text, words)
    return longest_apart([(m.start(), m.end(), w) for w in words for m in enclosing_pattern(w).finditer(text)])


def enclosed_by(text: str, cue: Cue, cues: Cues) -> tuple[int, int]:
    """What an enclosing cue holds between its parts: "him" in "leave him off"."""
    held = next(m for w in cues.kind_words.get(cue.kind.name, ())
                if (m := enclosing_pattern(w).match(text, cue.start)) and m.end() == cue.end)
    return held.start("held"), held.end("held")


def compared_until(text: str, at: int, cues: Cues) -> int | None:
    """Where what a comparison compares ends: before its degree word, a few characters on ("比盗墓小说还好看": 盗墓小说);
    None where no degree word follows in its clause."""
    if not cues.comparison_end:
        return None
    close = regex(rf"[^\s{re.escape(''.join(cues.clauses.sentence_ends))}，,]{{1,8}}?(?=(?:"
                  rf"{alternation(cues.comparison_end)}))").match(text, at)
    return close.end() if close else None


_SPACE = re.compile(r"\s+")
_SPACED_WORD = re.compile(r"[A-Za-z']+(?=\s)")  # a Latin word with a space after it: a filler word may be skipped


def next_start(text: str, at: int, starts: frozenset[int] | set[int], filler: frozenset[str]) -> int | None:
    """Where the value or name right after `at` starts: at once ("不烧脑"), or past spaces and the filler words
    between spaced words ("stranger than any novel"); None where another word comes first."""
    while at not in starts:
        space = _SPACE.match(text, at)
        if space is None:
            return None
        at = space.end()
        word = None if at in starts else _SPACED_WORD.match(text, at)
        if at not in starts and (word is None or word.group(0).lower() not in filler):
            return None
        at = word.end() if word else at
    return at


def list_gap(gap: str, cues: Cues) -> bool | None:
    """What stands between two items of a list: None where it is not a list's joining (no joiner, a sentence's end,
    more than two words of their own on either side of the joiner: an item's own words, "a snowed-in thriller"),
    else whether it offers a choice ("or", "或者") rather than adding ("and", "、")."""
    if any(mark in gap for mark in (*cues.clauses.sentence_ends, ":", "：", ";", "；")):
        return None
    lowered = gap.lower()
    # a comma between Chinese words (NFKC makes "，" one) ends a clause, it joins no list
    joiners = sorted((j for j in cues.clauses.joiners if gap.isascii() or not j.isascii()), key=len, reverse=True)
    found = [(m.start(), m.end()) for j in joiners for m in re.finditer(term_pattern(j), lowered)]
    if not found:
        return None
    left, right = lowered[:min(a for a, _ in found)], lowered[max(b for _, b in found):]

    def too_long(part: str) -> bool:  # as an alternative's names stand (scopes._alternatives): two words, or filler
        if not part.isascii():
            return len(part.strip(" " + cues.clauses.particles)) > 4
        words = re.findall(r"[a-z'-]+", part)
        return len(words) > 2 and not all(w in cues.filler for w in words)
    if too_long(left) or too_long(right):
        return None
    return any(re.search(term_pattern(o), lowered) for o in cues.clauses.offering)


def clause_spans(seg: Segmented, cue_list: list[Cue]) -> list[tuple[int, int]]:
    """The text cut at its clause ends and terminations: made once per brief."""
    bounds = {0, len(seg.text), *seg.ends}
    bounds |= {c.start for c in cue_list if c.kind.effect == TERMINATE}
    ordered = sorted(bounds)
    return [(a, b) for a, b in zip(ordered, ordered[1:]) if b > a]


# Which kind of mention wins a tie between two of the same length: a proper name over a form word over a value.
_PRIORITY = {"author": 0, "work": 0, "form": 1, "audience": 1, "adult": 1, "language": 2, "genre": 2}


def find_candidates(seg: Segmented, vocabulary: Vocabulary, cues: Cues, entities) -> list[tuple[int, int, str, str]]:
    """(start, end, field, value) of every name and value in the text, overlaps not yet resolved."""
    text = seg.text
    found: list[tuple[int, int, str, str]] = []
    for kind in vocabulary.kinds:  # a kind by its words and its own names ("散文随笔" is the form, as a genre's too)
        found += [(a, b, kind.facet, kind.name) for a, b, _ in find_terms(text, (*kind.words, kind.name_zh),
                                                                          plural=True)]
    # grown-ups by their word, not inside a longer readers' word that holds it ("young adult" is no grown-up)
    readers = [(a, b) for words in cues.readings.audiences.values() for a, b, _ in find_terms(text, words)]
    # a kind of book or a book's word: where "adult" before it is the grown-ups'
    kinds_at = ({a for a, _, field, _ in found if field in ("form", "genre")}
                | {a for a, _, _ in find_terms(text, cues.readings.book_words, plural=True)})
    found += [(a, b, "adult", "children")
              for a, b, _ in (*find_terms(text, cues.readings.adults, whole_words=True),
                              *((a, b, w) for a, b, w in find_terms(text, cues.readings.adult_kinds, whole_words=True)
                                if _next_word_start(text, b) in kinds_at))
              if not any(x <= a and b <= y and y - x > b - a for x, y in readers)]
    # "世界史", "近代史": the ending of a word of two characters or more and it names the kind (a word of one and it,
    # 野史, 病史, is a word of its own)
    for name, endings in cues.readings.kind_endings.items():
        named = named_value(name, vocabulary)
        found += [(b - len(e), b, *named) for a, b in _words_of(seg) for e in endings
                  if named and b - a >= len(e) + 2 and text.endswith(e, a, b)]
    # a quality's word that ends its phrase is the kind of book it heads ("温暖的纪实", "考古纪实，", "纪实和小说", "来点悬疑的";
    # "纪实风格" is a texture, and so is "有点悬疑的家庭小说", the particle leading on to the kind it qualifies): a clause
    # end, a joiner or the brief's end after it, a particle between or none; or a cue that ends its clause right after
    # it, which says how much of the shelf the kind is ("纪实为主", "纪实优先")
    joiners = tuple(cues.clauses.joiners)
    closing = tuple(w for k in cues.kinds if k.at_clause_end for w in cues.kind_words.get(k.name, ()) if not w.isascii())

    def heads(at: int, closed: bool = False) -> bool:
        at += next((len(p) for p in cues.clauses.particles if text.startswith(p, at)), 0)
        return (at >= len(text.rstrip()) or seg.ends_at(at) or text[at:].lower().startswith(joiners)
                or not closed and any(text.startswith(w, at) and heads(at + len(w), True) for w in closing))
    for name, words in cues.readings.kind_heads.items():
        named = named_value(name, vocabulary)
        found += [(a, b, *named) for a, b, _ in find_terms(text, words) if named and heads(b)]
    # everyday words for values and kinds ("cheerful", "轻松愉快"), and the catalog audiences a brief names by age
    # or school grade ("fourth graders", "三年级")
    for name, words in (*cues.readings.values.items(), *cues.readings.audiences.items()):
        named = named_value(name, vocabulary)
        if named is not None:
            found += [(a, b, *named) for a, b, _ in find_terms(text, words, plural=True)]
    for dimension in vocabulary.dimensions:  # a value by its name, aliases and their compared forms ("lighter")
        found += [(a, b, dimension.name, value.name) for value in dimension.values if dimension.nouns
                  for a, b in _parted(text, value.aliases, cues)]
        found += [(a, b, dimension.name, value.name) for value in dimension.values
                  for a, b, _ in find_terms(text, (value.name, *value.aliases,
                                                   *cues.readings.comparisons(value.aliases)), plural=dimension.nouns)
                  if not (text[a:b].lower() in cues.wanting and cues.person_before.search(text, 0, a))]
    for code, words in cues.readings.languages.items():
        found += [(a, b, "language", code) for a, b, _ in find_terms(text, words)]
    found += _shared_lead(text, [f for f in found if f[2] == "language"], cues)
    literary = {a for a, _, _ in find_terms(text, cues.readings.literature_words)}
    bookish = literary | {a for a, _, _ in find_terms(text, cues.readings.language_nouns)}
    for code, words in cues.readings.language_names.items():
        found += [(a, b, "language", code) for a, b, _ in find_terms(text, words)
                  if _names_books(seg, _next_word_start(text, b, edition=True), bookish)]
    historical = {a for a, _, _ in find_terms(text, class_ranges().history_words)}
    for entry in (*class_ranges().entries, *class_ranges().groups):
        found += [(a, b, "classification", entry.key) for a, b in _class_spans(
            seg, entry, literary if entry.kind == "literatures" else historical, cues)]
    # a literature's qualifier joined to another's that a kind follows shares that kind: "American or British writers"
    found += [(a, b, "classification", key) for a, b, key in _joined_qualifiers(seg, literary, cues)]
    # readers' ages mostly in childhood, the middle of their range up to a children's book's oldest reader: "for
    # ages 9 to 12", "3-6岁", "grades five to eight" (10 to 14), not "ages 12 to 18"
    found += [(a, b, "audience", "children")
              for a, b, youngest, oldest in reader_ages(text, cues.numbers, seg.clause_of)
              if (youngest + oldest) / 2 <= CHILDHOOD_ENDS and named_value("children", vocabulary) is not None]
    if entities is not None:
        found += entities.name_spans(text)
    # a topic phrase holding a value's word ("no happy ending") is a topic, not the value
    phrases = [(a, b) for a, b, _ in find_terms(text, cues.readings.topics, plural=True)]
    return [f for f in found if not any(a <= f[0] and f[1] <= b and (a, b) != (f[0], f[1]) for a, b in phrases)]


def _shared_lead(text: str, said: list[tuple[int, int, str, str]], cues: Cues) -> list[tuple[int, int, str, str]]:
    """A language joined to one said with its preposition shares it: "in English or French" is "in French" too, where
    the packs hold that phrase."""
    rows = {w.lower(): code for code, words in cues.readings.languages.items() for w in words}
    joined = regex(rf"\s*(?:{alternation(tuple(cues.clauses.joiners))})\s*([^\W\d_]+)", re.IGNORECASE)
    out = []
    for a, b, _, _ in said:
        lead, _, rest = text[a:b].partition(" ")
        if rest and (m := joined.match(text, b)) and (code := rows.get(f"{lead} {m.group(1)}".lower())):
            out.append((m.start(1), m.end(1), "language", code))
    return out


def _parted(text: str, terms: tuple[str, ...], cues: Cues) -> list[tuple[int, int]]:
    """The head word of a two-word noun term with a word of the brief's own between its words ("short scary
    stories", "short love stories": the word between stays what it is); not a joining, filler or cue word ("short
    and long")."""
    found = []
    for term in terms:
        words = term.split()
        if len(words) != 2 or not term.isascii():
            continue
        pattern = regex(rf"{term_pattern(words[0])}\s+([A-Za-z][\w-]*)\s+(?P<head>{term_pattern(words[1], True)})",
                        re.IGNORECASE)
        found += [m.span("head") for m in pattern.finditer(text)
                  if m.group(1).lower() not in (*cues.filler, *cues.clauses.joiners, *cues.all_words)]
    return found


def _words_of(seg: Segmented) -> list[tuple[int, int]]:
    """(start, end) of each of jieba's words."""
    bounds = sorted(seg.words)
    return list(zip(bounds, bounds[1:]))


@lru_cache(maxsize=1)
def read_alike_forms() -> re.Pattern:
    """The language packs' read-alike forms (readings.yaml `read_alike`), X the book named: "看完X还想看" is
    "看完", a short stretch, then "还想看"."""
    def form(said: str) -> str:
        return r".{1,40}?".join(term_pattern(part.strip()) for part in said.split("X") if part.strip())
    return re.compile("|".join(form(f) for f in sorted(load_cues().readings.read_alike, key=len, reverse=True)),
                      re.IGNORECASE)


def _capitals_run(small: Iterable[str]) -> str:
    """A run of capitalised words with these small words between them (the Latin ones; "&" joins as "and" does:
    "Craig & Fred", "Legends & Lattes")."""
    between = "|".join(re.escape(w) for w in sorted(set(small), key=len, reverse=True)
                       if w.isascii() and (w.isalpha() or w == "&"))
    word = r"[A-Z][\w'’-]*"
    return rf"{word}(?:\s+(?:(?:{between})\s+)*{word})*"


@lru_cache(maxsize=1)
def series_name() -> re.Pattern:
    """A series' name as written: capitalised words, only a title's own small words between them ("The Mary
    Russell", "Diary of a Wimpy Kid"; the packs' title_small), so that a word for its books ends it."""
    return re.compile(_capitals_run(load_cues().readings.title_small))


@lru_cache(maxsize=1)
def _title_case() -> tuple[re.Pattern, re.Pattern, re.Pattern, re.Pattern, re.Pattern]:
    """A run of capitalised words, the filler and joining words between them aside; a likeness before a title (a kind
    of book or a word for books may stand before it); a likeness pointing back, right after a title or anywhere
    after it; a reader noun right after a title."""
    cues = load_cues()
    said = cues.readings
    title = _capitals_run({*cues.filler, *cues.clauses.joiners, *said.title_small})
    likeness = tuple(w for w in said.likeness if w.isascii())
    back = alternation(tuple(w for w in (*said.alike_back, *said.alike_beside) if w.isascii()))
    # an article before the title may be lower case ("If you enjoy the Jack Reacher series"), and so may a word that
    # makes the title a kind ("while you wait for the next Murderbot")
    kind_of = alternation(tuple(w for w in said.alike_before if w.isascii()))
    return (re.compile(rf"\s*(?:(?:{kind_of})\s+)?(?:the\s+)?({title})"),
            re.compile(rf"(?:([\w'’-]+)\s+)?(?<![\w-])(?:{alternation(likeness)}),?\s*$", re.IGNORECASE),
            re.compile(rf"\s*,?\s*(?:and\s+)?(?:{back})(?![\w-])", re.IGNORECASE),
            re.compile(rf"(?<![\w-])(?:{back})(?![\w-])", re.IGNORECASE),
            re.compile(rf"\s*(?:{alternation(tuple(w for w in said.reader_nouns if w.isascii()))})(?![\w-])",
                       re.IGNORECASE))


@lru_cache(maxsize=1)
def _likened_nouns() -> tuple[frozenset[str], frozenset[str]]:
    """Before a likeness, the nouns of places and people it gives examples of, and the words for books and kinds
    after which one capitalised word is a title (titled_after_alike), lower-cased."""
    said = load_cues().readings
    return (frozenset(w.lower() for w in said.examples_of),
            frozenset(w.lower() for w in (*said.book_words, *said.literature_words, *said.kind_nouns,
                                          *(w for words in said.values.values() for w in words))))


def titled_after_alike(brief: str) -> list[tuple[int, int]]:
    """Titles written in title case in a read-alike's place, the catalog holding them or not: right after a
    read-alike form ("If you liked The Thursday Murder Club", "for fans of Lessons in Chemistry", "in the vein of
    Wintering"), right after a likeness ("essay collections like Disability Visibility", "a tsunami novel, like Escaping
    the Giant Wave"), before a reader noun ("Carrying the Fire fans"), or before a likeness pointing back, right after
    it ("Mae Among the Stars and the like") or in a later clause, the nearest title before it ("Everyday Bicycling is
    already out, find others like it"); of two words or more but right after a form (one capitalised word is as often
    a place or a name), and never an occasion's name ("Bike to Work Month") nor after a likeness giving examples of
    places or people ("places like New York City")."""
    title, like_before, back_beside, back_later, readers = _title_case()
    occasions = {w.lower() for o in load_cues().readings.occasions for w in o.words}
    formed = [form.end() for form in read_alike_forms().finditer(brief)]
    examples, books = _likened_nouns()
    # a likeness after a noun of places or people gives examples of them: "places like New York City" is no model
    likes = [(m.end(), (like.group(1) or "").lower()) for m in re.finditer(r"(?:^|\s+)", brief)
             if (like := like_before.search(brief, 0, m.end())) and (like.group(1) or "").lower() not in examples]
    # after a likeness one word is a title where books stand before it, said as books or as a plural noun of no
    # place or people: "thrillers like Restless", "memoirs like Educated" ("cities like Paris" gives examples)
    of_books = {at for at, before in likes if before in books or len(before) > 3 and before.endswith("s")}
    starts = formed + [at for at, _ in likes]
    runs = [(m.start(1), m.end(1)) for m in title.finditer(brief) if m.group(1).lower() not in occasions]
    # right after a read-alike form one word is a title too ("in the vein of Wintering"), but for an occasion's name
    # ("in the spirit of Christmas")
    found = [(m.start(1), m.end(1)) for at in starts if (m := title.match(brief, at))
             and (" " in m.group(1) or at in formed or at in of_books) and m.group(1).lower() not in occasions]
    # so is one word that a likeness follows right after ("Coraline and its kind", "Saga and the like"); before a
    # reader noun it is as often a name ("Marvel fans")
    found += [(a, b) for a, b in runs if back_beside.match(brief, b)]
    runs = [(a, b) for a, b in runs if " " in brief[a:b]]
    found += [(a, b) for a, b in runs if readers.match(brief, b)]
    found += [run for pointer in back_later.finditer(brief)
              if (run := max((r for r in runs if r[1] <= pointer.start()), default=None))]
    return sorted(set(found))


def titles_within(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Titles written in title case inside these spans that an article marks as titles, the catalog holding them or
    not ("no Where the Crawdads Sing this time", "skip The Midnight Library"): two capitalised words or more with an
    article among them, which a person's name never holds."""
    title = _title_case()[0]
    articles = {w.lower() for w in load_cues().readings.title_articles}
    return [(m.start(1), m.end(1)) for a, b in spans for m in title.finditer(text, a, b)
            if len(words := m.group(1).split()) > 2 - bool(articles & {words[0].lower()})
            and articles & {w.lower() for w in words} and m.end(1) <= b]


def named_as_title(seg: Segmented, start: int, end: int, cues: Cues) -> bool:
    """Whether a catalog title in the brief is named as one: in title case ("The House in the Cerulean Sea": every word
    capitalised but the filler and joining words; "The sea" is the sea), or with a read-alike word in its clause
    ("像雨天的书那样")."""
    said = seg.text[start:end].split()
    if len(said) > 1 and said[0][:1].isupper() and all(w[:1].isupper() or w.lower() in cues.filler
                                                       or w.lower() in cues.clauses.joiners for w in said):
        return True
    a, b = seg.clause_of(start)
    return bool(find_terms(seg.text[a:start] + " " + seg.text[end:b], (*cues.readings.alike_verbs,
                                                                         *cues.readings.read_alike)))


def named_value(name: str, vocabulary: Vocabulary) -> tuple[str, str] | None:
    """(field, value) of a readings row's name: a kind of book or audience, or a vocabulary value; None for the
    audience rows that name only who reads ("readers")."""
    kind = next((k for k in vocabulary.kinds if k.name == name), None)
    if kind is not None:
        return kind.facet, kind.name
    return next(((v.dimension, v.name) for v in vocabulary.all_values() if v.name == name), None)


def everyday_readings(text: str, cues: Cues, vocabulary: Vocabulary) -> tuple[list[tuple[int, int]], list[Topic],
                                                                     list[tuple[int, int, str, str]]]:
    """What the packs' everyday readings find beyond values: who reads, where no catalog audience is meant ("new
    parents", "初中生": the reader's spans); occasions ("中秋", "Valentine's Day": the topics and values a shelf
    for them is about; their own words are no keyword)."""
    readers = [(a, b) for name, words in cues.readings.audiences.items() if named_value(name, vocabulary) is None
               for a, b, _ in find_terms(text, words, plural=True)]
    topics: list[Topic] = []
    values: list[tuple[int, int, str, str]] = []
    for occasion in cues.readings.occasions:
        for a, b, _ in find_terms(text, occasion.words):
            topics += [Topic(a, b, t, WANTED, "occasion") for t in occasion.topics]
            values += [(a, b, *named) for v in occasion.values if (named := named_value(v, vocabulary))]
    return readers, topics, values


def _class_spans(seg: Segmented, entry: ClassRange, kind_starts: set[int], cues: Cues) -> Iterator[tuple[int, int]]:
    """Where the text names a literature or a period of config/class_ranges.yaml: a name anywhere; a qualifier
    before a word of its kind or standing for books of its own ("日本推理", "唐代历史", "不要明清的", "no Japanese
    ones"; not "去日本旅行", "三国演义"); the nation's people as writers ("by Americans", "美国人写的"); a
    literature's qualifier as a translation's source ("translated from the French"); its country where the books come
    from ("novels from Japan")."""
    text = seg.text
    yield from ((a, b) for a, b, _ in find_terms(text, entry.names))
    yield from ((a, b) for a, b, _ in find_terms(text, entry.qualifiers)
                if _next_word_start(text, b) in kind_starts or _stands_for_books(seg, b, cues)
                or entry.kind != "literatures" and _kind_after_modifier(seg, b, kind_starts)
                or entry.kind == "literatures" and _kind_after_words(seg, b, kind_starts)
                or entry.kind == "literatures" and cues.translated.search(text, 0, a))
    yield from ((a, b) for a, b, _ in find_terms(text, entry.people)
                if cues.by_people.search(text, 0, a) or cues.written_by.match(text, b))
    origin = regex(rf"(?<![\w-])(?:{alternation(cues.readings.origin_before)})\s*(?:[\w'’]+\s+){{0,2}}?(?:the\s+)?$",
                   re.IGNORECASE)
    # a country's name inside a longer name is none: "from outside North America"
    yield from ((a, b) for a, b, _ in find_terms(text, entry.places)
                if origin.search(text, seg.clause_of(a)[0], a) and not re.search(r"[A-Z][\w'’-]*\s+$", text[:a]))


def _joined_qualifiers(seg: Segmented, kind_starts: set[int], cues: Cues) -> list[tuple[int, int, str]]:
    """Literatures' qualifiers (start, end, key) a joiner ties to another qualifier that a kind of writing follows,
    right after or a word or two on ("American or British writers", "French and Italian novels", "中国和日本的小说"):
    the first names the same kind of writing."""
    text = seg.text
    qualifiers = [(a, b, e.key) for e in class_ranges().literatures for a, b, _ in find_terms(text, e.qualifiers)]
    joined = regex(rf"\s*(?:{alternation(tuple(cues.clauses.joiners))})\s*$", re.IGNORECASE)
    kinded = {b for _, b, _ in qualifiers if _next_word_start(text, b) in kind_starts
              or _kind_after_words(seg, b, kind_starts) or _kind_after_modifier(seg, b, kind_starts)}
    return list(dict.fromkeys((a, b, key) for a, b, key in qualifiers for x, y, _ in qualifiers
                              if y in kinded and b < x and x - b <= 6 and joined.search(text[b:x])
                              and not text[b:x].strip().startswith(",")))


def _kind_after_modifier(seg: Segmented, end: int, kind_starts: set[int]) -> bool:
    """"明清的通俗历史", "魏晋的好读的历史": a kind of book a few characters after the qualifier's 的, what stands
    between them modifying it (an unspaced script's: "明清小说" is a kind's own compound, read above)."""
    start = _next_word_start(seg.text, end)
    if start == end or seg.text[start:start + 1].isascii():
        return False
    return any(start < k <= start + 4 and not seg.any_end(start, k) for k in kind_starts)


# one or two lowercase words of a spaced script after a literature's qualifier, each with the spaces after it
_MODIFIER_WORDS = re.compile(r"\s+([a-z][a-z'-]*)\s+(?:([a-z][a-z'-]*)\s+)?")


def _kind_after_words(seg: Segmented, end: int, kind_starts: set[int]) -> bool:
    """"Korean healing fiction", "Latin American magical realist novels": a kind of writing one or two lowercase
    words after the qualifier in a spaced script, what stands between modifying it, no clause ending between. A
    capitalised word between names something of its own ("American Civil War fiction" is about the war)."""
    found = _MODIFIER_WORDS.match(seg.text, end)
    if found is None:
        return False
    ends = [found.end(1), *([found.end(2)] if found.group(2) else [])]
    return any(_next_word_start(seg.text, e) in kind_starts and not seg.any_end(end, e) for e in ends)


def _stands_for_books(seg: Segmented, end: int, cues: Cues) -> bool:
    """"no Japanese ones", an English qualifier ending its clause ("nothing Japanese."); "X的" ending its clause,
    a negation or a preference after it aside ("明清的就不要了", "俄国的最好"): not "日本的风景", "去日本"."""
    text = seg.text
    found = cues.ones.match(text, end)
    if found is None:  # the qualifier follows a cue at once: "nothing Japanese.", not "among Japanese."
        return (cues.cued_word.search(text[:end]) is not None
                and (not text[end:].strip() or seg.ends_at(end)))
    if found.group(0).strip().isascii():
        return True
    rest = text[found.end():]
    rest = rest[max((len(w) for w in cues.moment if rest.startswith(w)), default=0):]  # "日本的这次除外"
    # "明清的就不要了", "俄国的最好"
    rest = rest[max((len(c) for c in (*cues.negation_after, *cues.preference) if rest.startswith(c)), default=0):]
    return not rest.strip() or seg.ends_at(len(text) - len(rest))


def _next_word_start(text: str, end: int, edition: bool = False) -> int:
    """Where the next word begins after `end`: past spaces and a possessive 的 (with `edition`, also past a 版:
    "英文版的")."""
    match = re.compile(r"\s*(?:版\s*)?(?:的\s*)?" if edition else r"\s*(?:的\s*)?").match(text, end)
    return match.end() if match else end


def _names_books(seg: Segmented, start: int, bookish: set[int]) -> bool:
    """Whether a language's bare name ending before `start` qualifies books: a book word or kind of writing
    follows, or the clause ends ("只要英文的")."""
    return start in bookish or start == len(seg.text) or seg.ends_at(start)


def resolve_overlaps(found: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    found = sorted(found, key=lambda f: (-(f[1] - f[0]), _PRIORITY.get(f[2], 3), f[0]))
    kept: list[tuple[int, int, str, str]] = []
    for item in found:
        if all(item[1] <= k[0] or item[0] >= k[1] or (item[0], item[1]) == (k[0], k[1]) and item[2] == k[2]
               for k in kept):
            if not any((item[0], item[1]) == (k[0], k[1]) for k in kept):
                kept.append(item)
    return sorted(kept)
