"""The language packs compiled for the reader: every pack's cue words by kind, clause ends, number grammar and
everyday readings (tasks/understanding/lang/<code>/*.yaml), with the patterns built from them once, and how one word of theirs is matched in a text (term_pattern)."""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache, partial
from pathlib import Path

from tasks.understanding.lang import (EXCLUDE, FOLLOWING, PRECEDING, PACKS_DIR, REQUIRE, CueKind, PackError, Packs,
                                     load_packs)
from tasks.understanding.numbers import NumberGrammar, number_grammar


@dataclass(frozen=True)
class Cues:
    """What the language packs (tasks/understanding/lang/<code>/) say a brief's words do, every language at once:
    cue words by kind, clause ends, and the everyday readings. Built by `load_cues`, one kind to a field."""

    kinds: tuple[CueKind, ...]  # what each cue kind does (lang/kinds.yaml), in the file's order
    kind_words: dict[str, tuple[str, ...]]  # a cue kind's name -> its words in every pack
    pseudo_negation: tuple[str, ...]
    preference: tuple[str, ...]  # a number in the same clause is only preferred: "最好是近十年的"
    reader_before: tuple[str, ...]
    reader_after: tuple[str, ...]
    reader_end: tuple[str, ...]
    question: tuple[str, ...]
    request: tuple[str, ...]  # a question with one of these asks for something: "Could we skip the horror?"
    degree: tuple[str, ...]
    degree_after: tuple[str, ...]  # a degree after its quality: "不要煽情过度的"
    degree_end: tuple[str, ...]
    additive: tuple[str, ...]
    for_whom: tuple[str, ...]
    person: tuple[str, ...]
    wanting: frozenset[str]  # a value's alias that is also a verb of wanting after a person: "we'd love"
    filler: frozenset[str]
    not_a_topic: frozenset[str]
    pronouns: frozenset[str]
    moment: tuple[str, ...]  # words of the moment: between a phrase and the cue after it they change nothing
    totality: tuple[str, ...]  # after a negation, the whole shelf: "not all poetry", "不要清一色的小说": no exclusion
    comparison_end: tuple[str, ...]  # a comparison's degree word, where what it compares ends: "比盗墓小说还好看"
    adding: tuple[str, ...]  # opening a clause, a part added to the shelf: "plus field guides", "再配几本手册"
    arranging: tuple[str, ...]  # after a list, how its items stand together, nothing of what they are: "搭着放"
    readings: Readings
    clauses: Clauses
    numbers: NumberGrammar

    @cached_property  # asked for every word of every excluded phrase
    def all_words(self) -> frozenset[str]:
        """Every cue word: none of them is ever a search keyword."""
        return frozenset(w.lower() for w in (*(w for ws in self.kind_words.values() for w in ws), *self.preference))

    @cached_property
    def name_stops(self) -> tuple[str, ...]:
        """Where a person's name ends: a cue, filler, moment, possessive, joining or likeness word, or a word pointing
        to one of their books ("谢阁兰那样的", "梅代罗斯这本以外的"), longest first."""
        return tuple(sorted({*self.all_words, *self.filler, *self.moment, *self.readings.possessive,
                             *self.clauses.joiners, *self.readings.likeness, *self.readings.name_ends},
                            key=len, reverse=True))

    def words_of(self, effects: tuple[str, ...], direction: str) -> tuple[str, ...]:
        """The cue words of every kind with one of these effects whose scope runs in this direction."""
        return tuple(w for k in self.kinds if k.effect in effects and k.direction == direction
                     for w in self.kind_words.get(k.name, ()))

    @cached_property
    def negation_after(self) -> tuple[str, ...]:
        """The words that negate what precedes them: "东野圭吾的除外"."""
        return self.words_of((EXCLUDE,), PRECEDING)

    @cached_property
    def leading_cue(self) -> re.Pattern:
        """The cue words, longest first, at the start of a text: what an excluded phrase may open with ("不要",
        "not another", "not interested in"), a word of a spaced script whole."""
        return re.compile(rf"\s*(?:{alternation(tuple(self.all_words))})", re.IGNORECASE)

    @cached_property
    def glued(self) -> tuple[str, ...]:
        """The cue and filler words of unspaced scripts, longest first: what jieba may glue to a word's front."""
        return tuple(sorted((w for w in (*self.all_words, *self.filler) if not w.isascii()), key=len,
                            reverse=True))

    @cached_property
    def person_before(self) -> re.Pattern:
        """Who wants, before a verb of wanting: "we'd love" (love is then no value)."""
        return re.compile(rf"(?:{alternation(self.person)})\s+$", re.IGNORECASE)

    @cached_property
    def wanting_verb(self) -> re.Pattern | None:
        """A verb of wanting after who wants it: "a nine-year-old who loves animals" likes animals, and asks for no
        love story (its verb is neither a topic nor a keyword)."""
        if not self.person or not self.wanting:
            return None
        return re.compile(rf"\b(?:{alternation(self.person)})\s+(?P<verb>{alternation(tuple(self.wanting))})\b",
                          re.IGNORECASE)

    def without_wanting(self, text: str) -> str:
        """The text with its verbs of wanting after who wants (`wanting_verb`) blanked, each place kept."""
        if self.wanting_verb is None:
            return text
        return self.wanting_verb.sub(lambda m: m[0][:m.start("verb") - m.start()] + " " * len(m["verb"]), text)

    @cached_property
    def cued_word(self) -> re.Pattern:
        """A negation or requirement and one word, ending the text: "nothing Japanese", "不要先秦" (the word of an
        unspaced script is the one asked about, its end where the text ends)."""
        words = self.words_of((EXCLUDE, REQUIRE), FOLLOWING)
        spaced, unspaced = (tuple(w for w in words if w.isascii() == a) for a in (True, False))
        return re.compile(rf"(?:(?:{alternation(spaced)})\s+[A-Za-z-]+|(?:{alternation(unspaced)})[^\sA-Za-z]{{1,4}})$",
                          re.IGNORECASE)

    @cached_property
    def by_people(self) -> re.Pattern:
        """What makes a nation's people its writers, before them: "by Americans", "no Russians"."""
        words = (*self.readings.authorship_before, *(w for w in self.words_of((EXCLUDE,), FOLLOWING) if w.isascii()))
        return re.compile(rf"(?:{alternation(words)})\s+$", re.IGNORECASE)

    @cached_property
    def translated(self) -> re.Pattern:
        """A translation's source before a nation's qualifier: "translated from the French", "译自俄国"."""
        return re.compile(rf"(?:{alternation(self.readings.translated_from)})\s*$", re.IGNORECASE)

    @cached_property
    def written_by(self) -> re.Pattern:
        return re.compile(rf"\s*(?:{alternation(self.readings.authorship_after)})")

    @cached_property
    def ones(self) -> re.Pattern:
        """A qualifier standing for books: "日本的", "Japanese ones"."""
        return re.compile("|".join(rf"\s*{re.escape(w)}\s*" if not w.isascii() else rf"\s+{term_pattern(w, True)}"
                                   for w in self.readings.ones) or "(?!)", re.IGNORECASE)

    @cached_property
    def for_whom_before(self) -> re.Pattern:
        return re.compile(rf"(?:{alternation(self.for_whom)})\s*$", re.IGNORECASE)

    @cached_property
    def reader_stop(self) -> re.Pattern:
        return re.compile(alternation(self.reader_end))

    @cached_property
    def any_of_these(self) -> tuple[str, ...]:
        """The words of the cue kinds that speak of several things at once ("都可以", "both", "either is fine")."""
        return tuple(w for k in self.kinds if k.several for w in self.kind_words.get(k.name, ()))

    @cached_property
    def additive_ahead(self) -> re.Pattern:
        """An additive word before the sentence ends or an any-of-these word decides: "以外的也要有"."""
        stops = "".join(re.escape(w[0]) for w in (*self.clauses.sentence_ends, *self.any_of_these, *self.additive)
                        if not w.isascii() or not w.isalpha())
        return re.compile(rf"[^{stops}]*(?:{alternation(self.additive)})")

    @cached_property
    def word_after_degree(self) -> re.Pattern:
        """The word after a cue that is its own degree ("not too long"), and the words joined to it."""
        return _degree_pattern((), (), self.degree)

    @cached_property
    def degree_then_word(self) -> re.Pattern:
        """A degree after a negation and the quality it qualifies: up to a degree_end ("太学术的"), or one word and
        the words joined to it ("too long or too dark")."""
        return _degree_pattern(self.degree, self.degree_end, self.degree, self.degree_after, self.clauses.end)


@dataclass(frozen=True)
class Readings:
    """readings.yaml of every pack: audiences, feelings, occasions, read-alikes, languages and literatures."""

    adults: tuple[str, ...]
    audiences: dict[str, tuple[str, ...]]  # a catalog audience, or "readers" (who reads: nothing of books)
    values: dict[str, tuple[str, ...]]  # a vocabulary value's or kind's name -> everyday words for it
    occasions: tuple[Occasion, ...]
    read_alike: tuple[str, ...]
    alike_verbs: tuple[str, ...]  # liking, likeness or reading after: with a title in its clause, a read-alike
    languages: dict[str, tuple[str, ...]]  # language code -> words for it
    language_names: dict[str, tuple[str, ...]]  # language code -> its bare names, a request only before books
    language_nouns: tuple[str, ...]  # the words for books a bare language name may qualify
    literature_words: tuple[str, ...]  # the kinds of writing that may follow a nation's word
    ones: tuple[str, ...]  # a qualifier standing for books of its own: "不要日本的", "no Japanese ones"
    authorship_before: tuple[str, ...]  # a nation's people as writers: "by Americans"
    authorship_after: tuple[str, ...]  # "美国人写的"
    topics: tuple[str, ...]  # topic phrases holding a value's word: "happy ending" is no wish for happy books
    kind_endings: dict[str, tuple[str, ...]] = field(default_factory=dict)  # a kind's name -> word endings: 史
    compared: tuple[str, ...] = ()  # the endings of a word compared: "er", "est"
    book_words: tuple[str, ...] = ()  # words for books of any kind: "书", "读物", "books", "guides"
    spotlight: tuple[str, ...] = ()  # after an author's name, what makes the author the shelf's subject: "专题"
    possessive: tuple[str, ...] = ()  # a name's possessive, before the kind of book that is theirs: "的", "'s"
    about: tuple[str, ...] = ()  # what a book is about follows one of these: "讲", "关于", "about", "of"
    reader_nouns: tuple[str, ...] = ()  # after a kind of book, a reader of it: "科幻迷", "a fiction reader"
    elsewhere: tuple[str, ...] = ()  # a clause with one puts what it names elsewhere: "二楼", "upstairs"
    here: tuple[str, ...] = ()  # ... unless it has one of these: "这里", "this display"
    alike_back: tuple[str, ...] = ()  # a likeness pointing back to a book named before it: "同一路数的", "the like"
    alike_before: tuple[str, ...] = ()  # before a title, making it a kind: "another Stoner", "又一本《活着》"
    alike_article: tuple[str, ...] = ()  # the same with a reader or time after the title: "a Charlotte's Web for ..."
    likeness: tuple[str, ...] = ()  # read_alike_verbs' likeness words alone: "like", "像"
    everyone: tuple[str, ...] = ()  # a shelf for every age: "for all ages", "老少咸宜"
    kind_heads: dict[str, tuple[str, ...]] = field(default_factory=dict)  # a kind -> quality words that head a phrase
    alike_beside: tuple[str, ...] = ()  # a likeness right after a title only: "《活着》这种", "Dune and its ilk"
    alike_remark: tuple[str, ...] = ()  # after one, a remark made of the title, no model: "《X》这种已经…"
    translated_from: tuple[str, ...] = ()  # before a nation's qualifier, its literature: "translated from the French"
    name_joiners: tuple[str, ...] = ()  # between the parts of a transliterated name: "杰克·伦敦"
    name_nations: tuple[str, ...] = ()  # a writer's nation before the name: "[英]", "(美)", "the Canadian …"
    name_particles: tuple[str, ...] = ()  # lower-case words inside a Latin-script name: "de", "van"
    alike_switch: tuple[str, ...] = ()  # in the clause after a book named, a change asked for: it is no model, "换别的"
    title_small: tuple[str, ...] = ()  # lower-case words inside a title written in title case: "Song for a Whale"
    title_articles: tuple[str, ...] = ()  # an article marks a run of capitalised words as a title, never a person
    kind_likeness: tuple[str, ...] = ()  # right after a kind, how a book reads, not what it is: "史诗般的", "-like"
    kind_people: tuple[str, ...] = ()  # the people who write a kind: "诗人", "poets"; beside another kind, no kind
    # before readers' words, what the books are about: "stories about kids", "关于留守儿童的小说" (no audience)
    people_about: tuple[str, ...] = ()
    # before an author's name, what makes the author the shelf's subject: "围着鲁迅做一架", "Spotlight on: Lauren Child"
    spotlight_before: tuple[str, ...] = ()
    partitive: tuple[str, ...] = ()  # how many or how mixed, before "of": "a mix of novels" is novels, no topic
    examples_end: tuple[str, ...] = ()  # after names in their clause, they are examples of a kind: "and other"
    qualifying: tuple[str, ...] = ()  # after an excluded value, joins it to a narrower thing: "travel by car"
    examples_of: tuple[str, ...] = ()  # before a likeness, what it gives examples of is no book: "places like New York"
    name_ends: tuple[str, ...] = ()  # after a person's name, a word pointing to their book ends it: "这本", "own"
    guardians: tuple[str, ...] = ()  # grown-ups a child is theirs: the child after them is no audience, "家长", "parents"
    adult_kinds: tuple[str, ...] = ()  # grown-ups' only right before a kind of book: "adult fiction", not "adult shelf"
    # the tokenizer dictionary's tags of a person's name, and the fewest characters of a name so tagged: "冯骥才"
    person_tags: tuple[str, ...] = ()
    person_min_length: int = 0
    person_after: tuple[str, ...] = ()  # right after a word, words that make it a person's name: "本人"
    kind_nouns: tuple[str, ...] = ()  # a kind of book no vocabulary value names: "guides", "工具书"
    author_words: tuple[str, ...] = ()  # the author of the book the brief names, said so: "作者", "the author"
    origin_before: tuple[str, ...] = ()  # before a country, where books come from: "novels from Japan", "来自日本的"
    series_order: tuple[str, ...] = ()  # books shown one after another, as a series is read: "in order", "按册序"
    series_nouns: tuple[str, ...] = ()  # a series' books named so: "books", "volumes", "丛书", "一套"

    def comparisons(self, words: tuple[str, ...]) -> tuple[str, ...]:
        """The compared forms of the one-word Latin words ("light": lighter, lightest; "cozy": cozier; "sad":
        sadder): a spelling that is no word is never found."""
        out = []
        for w in (w.lower() for w in words if w.isascii() and w.isalpha() and len(w) >= 3):
            stem = (w[:-1] + "i" if w.endswith("y") else w[:-1] if w.endswith("e")
                    else w + w[-1] if re.fullmatch(r".*[^aeiou][aeiou][bdgmnpt]", w) else w)
            out += [stem + e for e in self.compared] + [w + e for e in self.compared if stem != w]
        return tuple(out)


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
    containers: tuple[str, ...]  # between two kinds, the second found inside the first: "科普精选里的科幻"
    offering: frozenset[str]  # the joiners that offer a choice: "or", "或者"
    # characters the traditional fold would change that simplified text writes too ("名著", "乾隆", "神祇")
    kept_characters: frozenset[str] = frozenset()
    # words that may open a clause before its first cue, saying only how it follows the one before: "so", "but"
    connectives: tuple[str, ...] = ()


@lru_cache(maxsize=None)
def regex(pattern: str, flags: int = 0) -> re.Pattern:
    """`pattern` compiled once. Reading a brief builds a pattern per vocabulary term and cue word, more than
    re's own cache of 512 holds: it compiled about 880 a brief (translate 131 ms a theme at 100k books, 28 ms
    with this)."""
    return re.compile(pattern, flags)


_JOINED = re.compile(r"(?<=\w)\\[ -](?=\w)")  # an escaped space or hyphen between two letters of a term


@lru_cache(maxsize=8192)  # the vocabulary's and cue tables' terms, asked of every brief
def term_pattern(term: str, plural: bool = False) -> str:
    """Latin terms match whole words ("no" is not in "novel"), with `plural` also their plural ("memoirs",
    "mysteries"), their words joined by a space or a hyphen either way ("true-crime", "sci fi"); Chinese terms
    anywhere."""
    if not term.isascii():
        return re.escape(term)
    escaped = _JOINED.sub(r"[\\s-]", re.escape(term))
    if plural and term[-1:].isalpha():
        escaped = rf"(?:{escaped}(?:e?s)?|{re.escape(term[:-1])}ies)" if term.endswith("y") else rf"{escaped}(?:e?s)?"
    # a term that starts or ends with a mark ("'d", "+") has no word edge there: "we'd"
    return (r"(?<![\w-])" if term[:1].isalnum() else "") + escaped + (r"(?![\w-])" if term[-1:].isalnum() else "")


@lru_cache(maxsize=256)
def enclosing_pattern(term: str) -> re.Pattern:
    """A cue word of two parts around X ("leave X off", "give X a miss"): both parts whole words, X (the group
    `held`) one to four words of one clause between them."""
    head, tail = (part.strip() for part in term.split("X", 1))
    return re.compile(rf"{term_pattern(head)}\s+(?P<held>[^\s,;:.!?，；：。！？]+(?:\s+[^\s,;:.!?，；：。！？]+){{0,3}}?)"
                      rf"\s*{term_pattern(tail)}", re.IGNORECASE)


def alternation(words: tuple[str, ...]) -> str:
    return "|".join(term_pattern(w) for w in sorted(words, key=len, reverse=True)) or "(?!)"


def _degree_pattern(before: tuple[str, ...], ends: tuple[str, ...], joined_degree: tuple[str, ...],
                    after: tuple[str, ...] = (), clause_end: re.Pattern | None = None) -> re.Pattern:
    """A degree word and what it qualifies: in an unspaced script up to the quality's end ("太学术的"), else the next
    word and the words joined to it ("too long or too dark"); with no degree words before, only that word. An
    unspaced quality ends at a degree_end or at its clause's end as the packs' clauses.yaml marks it ("别太说教：",
    "不要那么累——"); a degree after its quality ("不要煽情过度的", "no romance overload") qualifies it as well."""
    spaced = tuple(w for w in before if w.isascii())
    unspaced = tuple(w for w in before if not w.isascii())
    word = r"[A-Za-z][\w-]*"
    joined = rf"(?:\s*(?:,|\bor\b|\band\b)\s*(?:(?:{alternation(tuple(w for w in joined_degree if w.isascii()))})\s+)?{word})*"
    if not before:
        return re.compile(rf"\s+{word}{joined}", re.IGNORECASE)
    end = "".join(re.escape(e) for e in ends)
    stop = clause_end.pattern if clause_end is not None else "(?!)"
    quality = rf"(?:(?!{stop})[^{end}]){{1,8}}?"
    trailing = rf"|{quality}(?:{alternation(tuple(w for w in after if not w.isascii()))})" if any(
        not w.isascii() for w in after) else ""
    trailing += rf"|(?:{word}\s+){{1,2}}(?:{alternation(tuple(w for w in after if w.isascii()))})\b" if any(
        w.isascii() for w in after) else ""
    return re.compile(rf"\s*(?:(?:{alternation(unspaced)}){quality}(?:[{end}]|(?={stop}|$))"
                      rf"|(?:{alternation(spaced)})\s+{word}{joined}{trailing})", re.IGNORECASE)


def _unspaced(ch: str) -> bool:
    """A character of a script written without spaces between words (CJK and after)."""
    return ord(ch) >= 0x2E80


def _composed(packs: Packs, root: Path, lists: Set[str]) -> dict[str, tuple[str, ...]]:
    """A cue kind's words made of parts (cues.yaml composed: kind -> heads and verbs): every head before every verb,
    so that "暂不" and "展出" make "暂不展出" without the pack listing each pair (a space between words of a spaced
    script: "won't be" and "shown"). A plain list of cues.yaml (`lists`: "didn't" and "know" a pseudo-negation) may be
    composed too."""
    out: dict[str, list[str]] = {}
    kinds = {k.name for k in packs.kinds} | lists
    for pack in packs.packs:
        for kind, row in (pack.get("cues.yaml", "composed") or {}).items():
            if kind not in kinds or not isinstance(row, dict) or set(row) != {"heads", "verbs"}:
                raise PackError(f"{root / pack.code / 'cues.yaml'}: composed.{kind}: must name a cue kind and hold "
                                "heads and verbs")
            out.setdefault(kind, []).extend(_joined(h, v) for h in map(str, row["heads"])
                                            for v in map(str, row["verbs"]))
    return {kind: tuple(words) for kind, words in out.items()}


def _joined(head: str, word: str) -> str:
    """Two words as one phrase: a space between them in a spaced script, none where either side is unspaced."""
    return head + ("" if _unspaced(head[-1]) or _unspaced(word[0]) else " ") + word


def _alike_composed(packs: Packs, root: Path, key: str = "alike_composed") -> tuple[str, ...]:
    """The likenesses that readings.yaml `alike_composed` (pointing back) and `alike_beside_composed` (right after a
    title) make of parts: every pointer before every word of kind ("the same" and "spirit": "the same spirit"; 同 and
    题材: 同题材; 这个 and 类型: "《活着》这个类型的"), so that an unseen pairing is read without the pack listing it."""
    out: list[str] = []
    for pack in packs.packs:
        for name, row in (pack.get("readings.yaml", key) or {}).items():
            if not isinstance(row, dict) or set(row) != {"pointers", "kinds"}:
                raise PackError(f"{root / pack.code / 'readings.yaml'}: {key}.{name}: must hold pointers and kinds")
            out += [_joined(p, k) for p in map(str, row["pointers"]) for k in map(str, row["kinds"])]
    return tuple(dict.fromkeys(out))


@lru_cache(maxsize=4)
def load_cues(root: Path = PACKS_DIR) -> Cues:
    """The cues of every language pack under `root` (a test's own packs in a temp folder, else the product's)."""
    packs = load_packs(root)
    words = partial(packs.words, "cues.yaml")
    said = partial(packs.words, "readings.yaml")
    ends = packs.words("clauses.yaml", "ends")
    after_abbreviation = "".join(rf"(?<!\b{re.escape(a)})" for a in packs.words("clauses.yaml", "abbreviations"))
    end = "|".join([re.escape(e) for e in ends]
                   # a mark after a lone capital is an initial's: "Ursula K. Le Guin" is one name
                   # nor one after an abbreviation of a title or a saint's name: "Emily St. John Mandel", "Dr. Seuss"
                   + [rf"(?<!\b[A-Z]){after_abbreviation}{re.escape(e)}(?=\s|$)"
                      for e in packs.words("clauses.yaml", "ends_before_space")]
                   + [rf"\s{re.escape(e)}\s" for e in packs.words("clauses.yaml", "ends_between_spaces")])
    marks = "".join(re.escape(m) for m in packs.words("clauses.yaml", "question_marks"))
    occasions = tuple(Occasion(name, tuple(map(str, row.get("words", ()))), tuple(map(str, row.get("topics", ()))),
                               tuple(map(str, row.get("values", ()))))
                      for name, row in packs.table("readings.yaml", "occasions").items())
    persons = packs.table("readings.yaml", "person_names")
    readings = Readings(said("adults"), packs.groups("readings.yaml", "audiences"),
                        {name: tuple(map(str, row)) for file, key in (("readings.yaml", "feelings"),
                                                                      ("readings.yaml", "kinds"),
                                                                      ("materials.yaml", "materials"))
                         for name, row in packs.table(file, key).items()},
                        occasions, said("read_alike"),
                        tuple(w for ws in packs.groups("readings.yaml", "read_alike_verbs").values() for w in ws),
                        packs.groups("readings.yaml", "languages"),
                        packs.groups("readings.yaml", "language_names"), said("language_nouns"),
                        said("literature_words"), said("ones"),
                        said("authorship_before"), said("authorship_after"), said("topics"),
                        packs.groups("readings.yaml", "kind_endings"), said("compared"), said("book_words"),
                        said("spotlight"), said("possessive"), said("about"), said("reader_nouns"),
                        said("elsewhere"), said("here"), (*said("alike_back"), *_alike_composed(packs, root)),
                        said("alike_before"),
                        said("alike_article"), packs.groups("readings.yaml", "read_alike_verbs").get("likeness", ()),
                        said("everyone"), packs.groups("readings.yaml", "kind_heads"),
                        (*said("alike_beside"), *_alike_composed(packs, root, "alike_beside_composed")),
                        said("alike_remark"), said("translated_from"), said("name_joiners"), said("name_nations"),
                        said("name_particles"), alike_switch=said("alike_switch"),
                        title_small=said("title_small"), title_articles=said("title_articles"),
                        kind_likeness=said("kind_likeness"), kind_people=said("kind_people"),
                        people_about=said("people_about"), spotlight_before=said("spotlight_before"),
                        partitive=said("partitive"), examples_end=said("examples_end"),
                        qualifying=said("qualifying"),
                        examples_of=said("examples_of"),
                        name_ends=said("name_ends"), guardians=said("guardians"), adult_kinds=said("adult_kinds"),
                        person_tags=tuple(map(str, persons.get("tags", ()))),
                        person_min_length=int(persons.get("min_length", 0)),
                        person_after=tuple(map(str, persons.get("after", ()))), kind_nouns=said("kind_nouns"),
                        author_words=said("author_words"), origin_before=said("origin_before"),
                        series_order=said("series_order"), series_nouns=said("series_nouns"))
    clauses = Clauses(re.compile(end or "(?!)"), re.compile(rf"[{marks}]\s*$" if marks else "(?!)"),
                      packs.words("clauses.yaml", "sentence_ends"),
                      frozenset(w.lower() for w in packs.words("clauses.yaml", "joiners")),
                      "".join(packs.words("clauses.yaml", "particles")), packs.words("clauses.yaml", "containers"),
                      frozenset(w.lower() for w in packs.words("clauses.yaml", "offering")),
                      kept_characters=frozenset(packs.words("clauses.yaml", "kept_characters")),
                      connectives=packs.words("clauses.yaml", "connectives"))
    plain = {f.name for f in fields(Cues)} - {"readings", "clauses", "numbers", "kinds", "kind_words", "filler"}
    sets = {"wanting", "not_a_topic", "pronouns"}
    composed = _composed(packs, root, plain)
    # a composed cue's verb is a verb of shelving ("上架", "displayed"): after a negation it names no topic, so
    # "评分低于7分的就别上架了" negates what comes before it
    verbs = (str(v) for p in packs.packs for row in (p.get("cues.yaml", "composed") or {}).values()
             for v in row["verbs"])
    return Cues(readings=readings, clauses=clauses, numbers=number_grammar(root), kinds=packs.kinds,
                kind_words={k.name: tuple(dict.fromkeys((*words(k.name), *composed.get(k.name, ()))))
                            for k in packs.kinds},
                filler=frozenset(w.lower() for w in (*words("filler"), *words("moment"), *verbs)),
                **{k: frozenset(w.lower() for w in words(k)) if k in sets else (*words(k), *composed.get(k, ()))
                   for k in plain})
