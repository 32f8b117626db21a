"""Entities and intent: authors, titles and series of the catalog named in a brief.

"鲁迅作品专题" is an author spotlight (the author's books first), "三体系列" a series (its books in
reading order), "像《边城》那样的书" asks for books similar to one book (its neighbours, never the book
itself), "本月新书：科幻" for new arrivals (the newest books within the theme's conditions); anything
else is a theme shelf. Authors are found under their aliases too (config/aliases.yaml: 周树人 is 鲁迅),
and names and quoted titles despite one wrong, missing or extra character ("沈从纹", "Ishiguru").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property

from config.class_ranges import class_ranges
from config.vocabulary import load_aliases
from tasks.catalog.names import name_marks
from tasks.model.books import BookRecord
from tasks.model.intent import Intent, Understanding
from tasks.understanding.analysis import (find_terms, list_gap, longest_apart, put_elsewhere, read_alike_forms,
                                          segment, series_name, titled_after_alike)
from tasks.understanding.cues import alternation, regex, term_pattern
from tasks.understanding.lang import EXCLUDE
from tasks.understanding.reading import ALLOWED, EXCLUDED, Reading, load_cues

_QUOTED_TITLE = re.compile(r"《([^》]+)》")
_INITIALS = re.compile(r"\b([A-Z])\. (?=[A-Z]\.)")  # an initial and the space before the next one
_NEW_ARRIVAL_CUES = re.compile(r"(新书|新到|新上架|新进|到馆|新出版|最新|新近出版|\bnew (arrivals|books|releases|titles)\b"
                               r"|\bjust (in|arrived)\b|\blatest\b|\brecently published\b)", re.IGNORECASE)
_FANS_CUES = re.compile(r"(\bfans?\b|\breaders of\b|\bif you (?:like|liked|love|loved|enjoy|enjoyed)\b"
                        r"|\bread-?alikes?\b|喜欢[^，。,.!！?？]{1,20}的(?:读者|人)|粉丝|书迷)", re.IGNORECASE)
_SERIES_CUES = re.compile(r"(系列|三部曲|全集|\bseries\b|\btrilogy\b|\bsaga\b|\bcycle\b)", re.IGNORECASE)
# a surname alone where only a person can be meant: after "by" (not before another capitalised word), or with 's
_BY_SURNAME = re.compile(r"\bby\s+([A-Z][a-z'-]{3,})\b(?!\s+[A-Z])|(?<![\w-])([A-Z][a-z'-]{3,})['’]s\b")
# A series note at the end of a title, as Goodreads writes it: "The Hunger Games (The Hunger Games, #1)"; a box
# set's range ("(Harry Potter, #1-7)") is no volume of it
_SERIES_NOTE = re.compile(r"\s*\(([^()]+?),?\s+#(\d+(?:\.\d+)?)\)\s*$")
_ANY_SERIES_NOTE = re.compile(r"\s*\([^()]*#\s*\d[\d.]*(?:\s*[-–]\s*\d[\d.]*)?\)\s*$")
# A volume marker at the end of a title: 三体II, 哈利·波特 3, Dune: Messiah, 平凡的世界 第二部
_VOLUME = re.compile(r"\s*([:：].*|第[一二三四五六七八九十\d]+[部卷册]|\d+|[IVX]+|[一二三四五六七八九十]+)$")
# A title's own part before its subtitle: "Frankenstein; Or, The Modern Prometheus", "Walden: Or, Life in the Woods",
# 245 $a before $b ("Silent spring / Rachel Carson" has no subtitle); a curator names the book by it
_SUBTITLE = re.compile(r"\s*(?:[:;：；]|\s[-–—/]\s).*$")
_AUTHOR_AFTER = re.compile(r"(的书|的作品|作品|的小说|小说集|的散文|散文集|的诗|诗集|诗选|文集|全集|专题|笔下|写的)")
_AUTHOR_BEFORE = re.compile(r"(作家|作者|诗人|小说家)$")
# a surname alone is a person right after an exclusion and at its clause's end: "不要村上的", "除了东野以外"
_EXCLUDING_BEFORE = re.compile(r"(?:不要|别放|别要|不含|除了|排除|去掉|除去)\s*$")
_CJK_NAME = r"[\u3400-\u9fff·・.]+"
# what a name needs to carry a mark, a role or dates: a bracket, a comma, a digit, a space in a Chinese name
_MARKED = re.compile(r"[\[\]［］()（）〔〕【】<>〈〉,，\d]|[\u3400-\u9fff]\s|\s[\u3400-\u9fff]")
_SURNAME_END = re.compile(r"\s*(?:以外|之外|的?\s*(?:[，,。；;！!？?]|$))")
# Typo tolerance only for names long enough that one edit cannot turn one real word into another.
MIN_FUZZY_CJK = 3
MIN_FUZZY_LATIN = 5
EXACT, ALIAS, TYPO = 1.0, 0.9, 0.75  # how sure a named entity is, by how it was found


def _word_char(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] in "_-")


@dataclass(frozen=True)
class NameLookup:
    """Names found in a text by looking up its substrings: linear in the text, whatever the catalog's size."""

    by_lower: dict[str, str]  # lower-cased name -> name
    max_length: int
    heads: frozenset[str]  # the first two characters of every name (the name, where shorter)

    @classmethod
    def of(cls, names: Iterable[str]) -> NameLookup:
        by_lower = {n.lower(): n for n in names if n}
        return cls(by_lower, max((len(n) for n in by_lower), default=0), frozenset(n[:2] for n in by_lower))

    def spans(self, text: str, min_length: int) -> list[tuple[int, int, str]]:
        """(start, end, name) of names in the text (Latin names as whole words), the longer winning overlaps."""
        lowered = text.lower()
        found = []
        for start in range(len(lowered)):
            # at 100k titles a name runs to 100 characters: no name starts here, no need to try every length
            if min_length >= 2 and lowered[start:start + 2] not in self.heads:
                continue
            for end in range(start + min_length, min(len(lowered), start + self.max_length) + 1):
                name = self.by_lower.get(lowered[start:end])
                if name and not (name.isascii() and (_word_char(lowered, start - 1) or _word_char(lowered, end))):
                    found.append((start, end, name))
        return longest_apart(found)

    def find(self, text: str, min_length: int) -> list[str]:
        """Names in the text (Latin names as whole words); where one is inside another, the longer."""
        return list(dict.fromkeys(name for _, _, name in self.spans(text, min_length)))


def series_key(title: str) -> str:
    """The title without a trailing volume marker ("三体III" -> "三体")."""
    return _VOLUME.sub("", title).strip() or title


def within_one_edit(a: str, b: str) -> bool:
    """Levenshtein distance of at most 1 (case-insensitive)."""
    a, b = a.lower(), b.lower()
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i + 1:] == b[i + 1:] if len(a) == len(b) else a[i:] == b[i + 1:]


def _deletions(text: str) -> set[str]:
    lowered = text.lower()
    return {lowered} | {lowered[:i] + lowered[i + 1:] for i in range(len(lowered))}


def _fuzzy_enough(name: str) -> bool:
    return len(name) >= (MIN_FUZZY_LATIN if name.isascii() else MIN_FUZZY_CJK)


def _deletion_index(names: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Single-deletion variant -> names: two strings within one edit share a variant (SymSpell)."""
    index: dict[str, list[str]] = {}
    for name in names:
        if _fuzzy_enough(name):
            for variant in _deletions(name):
                index.setdefault(variant, []).append(name)
    return {k: tuple(dict.fromkeys(v)) for k, v in index.items()}


def _spans(text: str) -> Iterable[str]:
    """Pieces of a brief a misspelt name could be: 2-9 CJK characters in an author's context
    ("沈从纹的书", "作家沈从纹": one wrong character in any three is too common to trust alone,
    "工作人员" is not 周作人), or runs of 1-4 Latin words."""
    for run in re.finditer(r"[\u3400-\u9fff·]+", text):
        for size in range(MIN_FUZZY_CJK - 1, min(len(run.group()), 9) + 1):
            for start in range(run.start(), run.end() - size + 1):
                end = start + size
                if _AUTHOR_AFTER.match(text, end) or _AUTHOR_BEFORE.search(text, 0, start):
                    yield text[start:end]
    words = re.findall(r"[A-Za-z][A-Za-z'.-]*", text)
    for size in range(1, 5):
        for start in range(len(words) - size + 1):
            yield " ".join(words[start:start + size])


@dataclass(frozen=True)
class EntityIndex:
    """Every author (with aliases), title and series of the catalog, to find them in a brief."""

    author_books: dict[str, tuple[str, ...]]  # canonical author -> book ids
    author_names: dict[str, str]  # any name or alias -> canonical author
    title_books: dict[str, tuple[str, ...]]  # title -> book ids
    series_books: dict[str, tuple[str, ...]] = field(default_factory=dict)  # series -> ids, in reading order
    title_works: dict[str, tuple[str, ...]] = field(default_factory=dict)  # title -> work ids

    @classmethod
    def build(cls, books: Iterable[BookRecord], aliases: dict[str, tuple[str, ...]],
              title_aliases: dict[str, tuple[str, ...]] | None = None) -> EntityIndex:
        author_books: dict[str, list[str]] = {}
        title_books: dict[str, list[str]] = {}
        by_series: dict[str, list[BookRecord]] = {}
        works_of: dict[str, dict[str, None]] = {}  # title -> its works, in catalog order (a dict as an ordered set)
        volume: dict[str, float] = {}  # a book's number in the series its title's note names
        for book in books:
            for author in book.authors:
                author_books.setdefault(author, []).append(book.book_id)
            # a title with a series note is also found without it: "Books like The Hunger Games" had found "Hunger"
            for title in dict.fromkeys((book.title, _ANY_SERIES_NOTE.sub("", book.title).strip() or book.title)):
                title_books.setdefault(title, []).append(book.book_id)
                works_of.setdefault(title, {})[book.work_id or book.book_id] = None
            note = _SERIES_NOTE.search(book.title)
            if note:
                volume[book.book_id] = float(note.group(2))
            by_series.setdefault(note.group(1).strip() if note else series_key(book.title), []).append(book)
        # the part before a subtitle names the books too, where no whole title of the catalog is that part
        short: dict[str, list[str]] = {}
        for title in list(title_books):
            main = _SUBTITLE.sub("", title).strip()
            if main and main != title and main not in title_books:
                short.setdefault(main, []).append(title)
        for main, titles in short.items():
            title_books[main] = list(dict.fromkeys(b for t in titles for b in title_books[t]))
            works_of[main] = {w: None for t in titles for w in works_of[t]}
        title_works = {title: tuple(works) for title, works in works_of.items()}
        names = {a: a for a in author_books}
        names.update((other, a) for a, other in _other_forms(author_books) if other not in author_books)
        for canonical, others in aliases.items():
            if canonical in author_books:
                names.update({alias: canonical for alias in others if alias not in author_books})
        series = {key: tuple(b.book_id for b in sorted(
                      members, key=lambda b: (volume.get(b.book_id, b.pub_year or 0), b.title)))
                  for key, members in by_series.items() if len({b.title for b in members}) > 1}
        # another name of a catalog title ("The Little Prince" for 小王子) finds the same books, or series
        for title, others in (title_aliases if title_aliases is not None else load_aliases("titles")).items():
            for other in others:
                if title in title_books and other not in title_books:
                    title_books[other] = title_books[title]
                    title_works[other] = title_works[title]
                if series_key(title) in series and other not in series:
                    series[other] = series[series_key(title)]
        return cls({a: tuple(ids) for a, ids in author_books.items()}, names,
                   {t: tuple(ids) for t, ids in title_books.items()}, series, title_works)

    @cached_property
    def series_of(self) -> dict[str, str]:
        """Book id -> the series it is a volume of."""
        return {b: key for key, ids in self.series_books.items() for b in ids}

    @cached_property
    def author_lookup(self) -> NameLookup:
        return NameLookup.of(self.author_names)

    @cached_property
    def title_lookup(self) -> NameLookup:
        return NameLookup.of(self.title_books)

    @cached_property
    def series_lookup(self) -> NameLookup:
        return NameLookup.of(self.series_books)

    @cached_property
    def fuzzy_names(self) -> dict[str, tuple[str, ...]]:
        return _deletion_index(self.author_names)

    @cached_property
    def fuzzy_titles(self) -> dict[str, tuple[str, ...]]:
        return _deletion_index(self.title_books)

    @cached_property
    def surname_owners(self) -> dict[str, tuple[str, ...]]:
        """Surname -> every Latin-script catalog author who has it ("Joyce": James Joyce, Rachel Joyce)."""
        owners: dict[str, dict[str, None]] = {}
        for author in self.author_books:
            if surname := _latin_surname(author):
                owners.setdefault(surname, {})[author] = None
        return {name: tuple(held) for name, held in owners.items()}

    @cached_property
    def surnames(self) -> dict[str, str]:
        """Surname -> author, for Latin-script authors whose surname no other catalog author shares."""
        return {name: held[0] for name, held in self.surname_owners.items() if len(held) == 1}

    def owners_of(self, surname: str, text: str) -> tuple[str, ...]:
        """The catalog authors a surname names: the one whose book the text names where several share it ("nothing
        by Joyce, Dubliners was on last year's display" is James Joyce), else every one of them."""
        held = self.surname_owners.get(surname, ())
        named = {b for _, _, title in self.bare_titles(text) for b in self.title_books.get(title, ())}
        return tuple(a for a in held if named & set(self.author_books[a])) or held

    @cached_property
    def cjk_surnames(self) -> dict[str, str]:
        """Surname -> author, for Chinese-script authors whose surname no other catalog author shares: the last part
        of a transliteration ("乔治·奥威尔": 奥威尔), the first two characters of a four-character name (东野圭吾:
        东野; a one-character Chinese surname is never one person)."""
        # every Chinese-script name a catalog author goes by, an alias too ("阿加莎·克里斯蒂" is Agatha Christie)
        names = {n: self.author_names[n] for n in self.author_names if re.fullmatch(_CJK_NAME, n)}
        owners: dict[str, set[str]] = {}
        for surname in (s for n in names for s in _cjk_short_names(n)):
            owners[surname] = {a for n, a in names.items()
                               if n.startswith(surname) or re.split(r"[·・.]", n)[-1] == surname}
        return {surname: next(iter(held)) for surname, held in owners.items() if len(held) == 1}

    def name_spans(self, text: str) -> list[tuple[int, int, str, str]]:
        """(start, end, field, value) of the catalog authors (their catalog name) and quoted works (《活着》: ids).

        A Latin author is also found by surname alone ("skip Huxley"), written capitalised and not first in
        the brief, where no other catalog author has it (so "white" in "a white whale" is no author), not
        after a given name that is not the author's ("Dan Brown" is not Margaret Wise Brown), and not where the
        word names a literature or a period ("no French writers" asks for no Tana French).
        """
        spans = [(a, b, "author", self.author_names[name]) for a, b, name in self.author_lookup.spans(text, 2)]
        for match in re.finditer(r"(?<![\w-])([A-Z][a-z'-]{3,})(?![\w-])", text):
            author = None if match.group(1).lower() in class_ranges().by_word else self.surnames.get(match.group(1))
            if author and _other_given_name(text[:match.start()], author):
                continue
            if author and load_cues().translated.search(text, 0, match.start()):  # "from the French": a language
                continue
            if author and match.start() > 0 and not any(a <= match.start() < b for a, b, _, _ in spans):
                spans.append((match.start(), match.end(), "author", author))
        spans += [(a, b, "author", author) for a, b, author in self.cjk_surname_spans(text)
                  if not any(x <= a < y for x, y, _, _ in spans)]
        quoted = {(m.start(1), m.end(1)) for m in _QUOTED_TITLE.finditer(text)}
        return spans + [(a, b, "work", self.title_works[title][0]) for a, b, title in self.title_lookup.spans(text, 2)
                        if (a, b) in quoted and self.title_works.get(title)]

    def cjk_surname_spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, author) of a Chinese-script surname written alone where only a person can be meant: before
        "的书", "的作品" ..., or after "不要", "除了" ... at its clause's end ("不要村上的", "除了东野以外")."""
        found = []
        lengths = sorted({len(s) for s in self.cjk_surnames}, reverse=True)
        for a, b in ((i, i + n) for i in range(len(text)) for n in lengths if i + n <= len(text)):
            author = self.cjk_surnames.get(text[a:b])
            if author is None or author in text[max(0, a - 4):b + 4]:  # the whole name is found as the name
                continue
            if _AUTHOR_AFTER.match(text, b) or (_EXCLUDING_BEFORE.search(text, 0, a) and _SURNAME_END.match(text, b)):
                found.append((a, b, author))
        return found

    def whole_names(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every catalog author, title or series in the text, the longer winning overlaps: words a
        keyword must not split ("三体系列" is 三体 + 系列, not 三 + 体系 + 列)."""
        found = sorted(((a, b) for lookup in (self.author_lookup, self.title_lookup, self.series_lookup)
                        for a, b, _ in lookup.spans(text, 2)), key=lambda s: (s[0] - s[1], s[0]))
        kept: list[tuple[int, int]] = []
        for a, b in found:
            if all(b <= x or a >= y for x, y in kept):
                kept.append((a, b))
        return sorted(kept)

    def bare_titles(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, title) of the catalog titles in the text, quoted or not; a Latin title only where the text
        writes it capitalised, as a title, unless it capitalises nothing: "ghosts, ghouls and the like" names no
        Ibsen, "essays for a rainy night" no "Essays: First Series", "a room with a view" no Forster."""
        lower = not any(ch.isupper() for ch in text)
        return [(a, b, title) for a, b, title in self.title_lookup.spans(text, 2)
                if lower or not (title.isascii() and text[a].islower())]

    def title_spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, work id) of unquoted titles long enough not to be an ordinary phrase: a Latin title of six
        letters or more ("Moby-Dick"), a Chinese one of three characters or more."""
        return [(a, b, self.title_works[title][0]) for a, b, title in self.bare_titles(text)
                if len(title) >= (6 if title.isascii() else 3) and self.title_works.get(title)]

    def authors_of(self, ids: set[str]) -> list[str]:
        """The catalog authors of these books or works (a work's id is one of its books')."""
        return [author for author, books in self.author_books.items() if ids.intersection(books)]

    def near(self, text: str, fuzzy: dict[str, tuple[str, ...]]) -> list[str]:
        """Names within one edit of `text` (not text itself), closest spelling first."""
        found = {n for variant in _deletions(text) for n in fuzzy.get(variant, ())}
        return sorted((n for n in found if n.lower() != text.lower() and within_one_edit(n, text)), key=len)


def _latin_surname(author: str) -> str | None:
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", author)  # an initial is a word of the name: "C. S. Lewis"
    return words[-1] if len(words) >= 2 and author.isascii() and len(words[-1]) >= 4 else None


def _cjk_short_names(author: str) -> tuple[str, ...]:
    """The short forms a brief writes of a Chinese-script name: a transliteration's last part, and its first where
    that is three characters or more ("阿加莎·克里斯蒂": 克里斯蒂, 阿加莎); a four-character name's first two (东野)."""
    if not re.fullmatch(_CJK_NAME, author):
        return ()
    parts = [p for p in re.split(r"[·・.]", author) if p]
    if len(parts) > 1:
        return tuple(p for p in (parts[-1] if len(parts[-1]) >= 2 else "", parts[0] if len(parts[0]) >= 3 else "")
                     if p)
    return (author[:2],) if len(author) == 4 else ()




def _other_forms(authors: Iterable[str]) -> Iterable[tuple[str, str]]:
    """(author, another form a brief may write): the name without the marks a catalog wrote around it ("[日]东野圭吾
    著" is 东野圭吾), and a Latin name of three words or more without its middle ones ("Mary Wollstonecraft
    Shelley" is Mary Shelley) where no other catalog author has that short form."""
    authors = list(authors)
    for author in filter(_MARKED.search, authors):  # a catalog imported as its export wrote the names
        credit = name_marks().credit(author)
        if credit is not None and credit.name != author:
            yield author, credit.name
    short: dict[str, set[str]] = {}
    for author in authors:
        if _INITIALS.search(author):  # "T. S. Eliot" as briefs write it: "T.S. Eliot"
            yield author, _INITIALS.sub(r"\1.", author)
        words = author.split()
        if author.isascii() and len(words) >= 3:
            short.setdefault(f"{words[0]} {words[-1]}", set()).add(author)
    yield from ((next(iter(held)), form) for form, held in short.items() if len(held) == 1)


def _resolve(brief: str, corrections: list[tuple[str, str]]) -> str:
    for written, name in corrections:
        brief = brief.replace(written, name)
    return brief


def _named(intent: Intent, brief: str, corrections: list[tuple[str, str]], confidence: float | None = None,
           **entities) -> Understanding:
    """An intent carried by catalog names, with the brief they resolve it to and how sure they are."""
    sure = confidence if confidence is not None else TYPO if corrections else EXACT
    return Understanding(intent, resolved_query=_resolve(brief, corrections), confidence=sure,
                         corrections=tuple(corrections), **entities)


def _quoted_titles(brief: str, index: EntityIndex) -> tuple[list[str], list[tuple[str, str]]]:
    """Titles in 《》 that are in the catalog, exactly or within one edit."""
    titles, corrections = [], []
    for quoted in dict.fromkeys(_QUOTED_TITLE.findall(brief)):
        if quoted in index.title_books:
            titles.append(quoted)
        elif _fuzzy_enough(quoted) and (near := index.near(quoted, index.fuzzy_titles)):
            titles.append(near[0])
            corrections.append((quoted, near[0]))
    return titles, corrections


def _authors(brief: str, index: EntityIndex) -> tuple[list[str], list[tuple[str, str]]]:
    """Catalog authors named in the brief: exactly or by alias, else within one edit."""
    names = index.author_lookup.find(brief, 2)
    if names:
        return names, [(n, index.author_names[n]) for n in names if index.author_names[n] != n]
    # a surname alone, where only a person can be meant: "more books by Ishiguro", "Ishiguro's novels"
    by_surname = [author for m in _BY_SURNAME.finditer(brief)
                  if (author := index.surnames.get(m.group(m.lastindex)))
                  and not _other_given_name(brief[:m.start(m.lastindex)], author)]
    by_surname += [author for _, _, author in index.cjk_surname_spans(brief)]
    if by_surname:
        return list(dict.fromkeys(by_surname)), []
    corrections = []
    for span in dict.fromkeys(_spans(brief)):
        if _fuzzy_enough(span) and (near := index.near(span, index.fuzzy_names)):
            corrections.append((span, near[0]))
    # a longer misspelled span beats a shorter one inside it
    corrections = [(w, n) for w, n in corrections if not any(w != o and w in o for o, _ in corrections)]
    return [n for _, n in corrections], corrections


def _other_given_name(before: str, author: str) -> bool:
    """Whether a capitalised word that is not the author's stands just before the surname, and not first in its
    sentence ("by Dan Brown"; in "Skip Huxley" it is a verb)."""
    given = re.search(r"(?<![\w'-])([A-Z][a-z'.-]*)\s+$", before)
    if not given:
        return False
    earlier = before[:given.start()].rstrip()
    return bool(earlier) and earlier[-1] not in ".!?;:—" and given.group(1) not in author.split()


def understand_reading(reading: Reading, index: EntityIndex) -> Understanding:
    """`understand` on what the brief asks for; no spotlight on authors it only allows ("几本科幻，刘慈欣的可以有":
    his books may stand on a theme shelf, among others); a book set apart and likened is a read-alike's."""
    found = understand(reading.searchable_text, index, reading.text)
    allowed = {m.value for m in reading.of(ALLOWED) if m.field == "author"}
    if found.intent is Intent.AUTHOR_SPOTLIGHT and (set(found.authors) <= allowed
                                                    or not _featured(reading, index, found.authors)):
        return Understanding(Intent.THEME_SHELF, resolved_query=found.resolved_query)
    # "《明朝那些事儿》之外的同类好书": the book set apart is the one the others are to be like (a read-alike never
    # shelves its book); so is one the catalog lacks, set apart as written ("《中国味道》之外再找几本同类的")
    excluded = {m.value for m in reading.of(EXCLUDED) if m.field == "work"}
    if (excluded or reading.excluded_spans) and found.intent is not Intent.SIMILAR_TO_BOOK:
        whole = understand(reading.text, index)

        def set_apart(title: str) -> bool:
            at = reading.text.find(title)
            return (any(w in excluded for w in index.title_works.get(title, ()))
                    or any(a <= at < b for a, b in reading.excluded_spans))
        if whole.intent is Intent.SIMILAR_TO_BOOK and any(set_apart(t) for t in whole.titles):
            return whole
    return found


def _featured(reading: Reading, index: EntityIndex, authors: tuple[str, ...]) -> bool:
    """Whether the brief makes one of these authors what the shelf is about, by evidence beside the name: an
    authorship or spotlight word before it ("by", "作家", "围着"), a spotlight word after it ("专题", "作品", "spotlight",
    "up front"), its possessive before a kind of book or a word for books ("刘慈欣的科幻", "Toni Morrison's novels",
    "鲁迅或者沈从文的书"), a list of names one of which has it ("金庸和古龙的武侠小说专题"), or nothing else in the brief. An author
    named beside a likeness ("梁实秋那一路的"), a permission ("王晋康、刘慈欣都可以"), a day of theirs ("Charles Dickens's birthday
    week"), a book of theirs set aside ("莫言那本《生死疲劳》已经被借走了") or theirs added to a shelf of other kinds ("fiction
    about nurses, Whitman's battlefield poems too"), put on another shelf ("Toni Morrison's books already have their own
    shelf") or named as examples of a kind ("Anne Tyler, Alcott's holiday story and other family novels") is no
    spotlight.
    Where no name is found as written (a surname found only by the brief's structure), the structure was the
    evidence."""
    cues = load_cues()
    text, said = reading.searchable_text, cues.readings
    seg = segment(text)

    def aside(a: int, b: int) -> bool:
        """Whether the name's clause puts its books elsewhere, or makes the names examples of a kind."""
        start, end = seg.clause_of(a)
        return put_elsewhere(text[start:end], cues) or bool(find_terms(text[b:end], said.examples_end))
    spans = sorted((a, b) for a, b, field_name, value in index.name_spans(text)
                   if field_name == "author" and value in authors)
    if not spans:
        structure = [(m.start(m.lastindex), m.end(m.lastindex)) for m in _BY_SURNAME.finditer(text)
                     if index.surnames.get(m.group(m.lastindex)) in authors]
        return not structure or not all(aside(a, b) for a, b in structure)
    if not text[:spans[0][0]].strip(" \t\n\"'“”‘’.,，。!！?？:：") and not any(
            ch.isalnum() for ch in text[spans[-1][1]:]) and len(spans) == 1:
        return True  # the brief is the name: "鲁迅", "Virginia Woolf"
    kinds = {m.start: m.end for m in reading.mentions if m.field in ("form", "genre")}
    before = regex(rf"(?:{alternation((*said.authorship_before, *said.spotlight_before))})[:：]?\s*"
                   rf"(?:(?:{alternation(tuple(cues.filler))})\s+)?$", re.IGNORECASE)
    after = regex(rf"\s*(?:{alternation(said.spotlight)})", re.IGNORECASE)
    owned = regex(rf"\s*(?:{alternation(said.possessive)})\s*", re.IGNORECASE)
    books = regex(rf"(?:(?:{alternation(tuple(cues.filler))})\s+)?(?:{alternation(said.book_words)})", re.IGNORECASE)

    def marked(a: int, b: int) -> bool:
        # the spotlight word may follow the kind of theirs shown: "刘慈欣科幻作品专题", "Stephen King horror spotlight"
        kind = kinds.get(len(text) - len(text[b:].lstrip()))
        if before.search(text, max(0, a - 30), a) or after.match(text, b) or kind and after.match(text, kind):
            return True
        own = owned.match(text, b)
        # the kind may be qualified first: "古龙的武侠小说", "Toni Morrison's early novels"
        if own is None:
            return False
        reach = max(m.end() for m in (regex(r"[^\W\d_A-Za-z]{0,4}").match(text, own.end()),
                                      regex(r"(?:[A-Za-z-]+\s+){0,2}").match(text, own.end())))
        return any(p in kinds or books.match(text, p) for p in range(own.end(), reach + 1))

    def added(a: int) -> bool:
        """Whether the name's clause adds to a shelf of kinds named before it ("fiction and nonfiction that highlight
        nurses, Whitman's battlefield poems too"): the author's books are one part of it."""
        start, end = seg.clause_of(a)
        return bool(find_terms(text[start:end], cues.additive)) and any(k < start for k in kinds)
    marks = [marked(a, b) and not added(a) and not aside(a, b) for a, b in spans]
    # names joined in a list share the mark one of them carries
    for _ in spans:
        for i, ((_, end), (start, _)) in enumerate(zip(spans, spans[1:])):
            if list_gap(text[end:start], cues) is not None and (marks[i] or marks[i + 1]):
                marks[i] = marks[i + 1] = True
    return any(marks)


@cache
def _alike_verbs() -> tuple[re.Pattern, re.Pattern, re.Pattern, re.Pattern]:
    """The packs' verbs of liking, likeness and reading after (readings.yaml `read_alike_verbs`): any of them
    anywhere in a clause, and all of them (a one-character word too) only right beside a title; the demonstratives
    of kind (`alike_beside`: "这种", "and its ilk"), only right after a title; and the words that set what a clause
    names aside (an exclusion cue, a place elsewhere), where a title so marked is an example put away, no model."""
    cues = load_cues()
    verbs = sorted(cues.readings.alike_verbs, key=len, reverse=True)
    anywhere = "|".join(term_pattern(v) for v in verbs if len(v) > 1)
    aside = (*(w for k in cues.kinds if k.effect == EXCLUDE for w in cues.kind_words.get(k.name, ())),
             *cues.readings.elsewhere)
    return (re.compile(anywhere or "(?!)", re.IGNORECASE),
            re.compile("|".join(map(term_pattern, verbs)) or "(?!)", re.IGNORECASE),
            re.compile("|".join(map(term_pattern, sorted(cues.readings.alike_beside, key=len, reverse=True)))
                       or "(?!)", re.IGNORECASE),
            re.compile("|".join(map(term_pattern, sorted(aside, key=len, reverse=True))) or "(?!)", re.IGNORECASE))


def _alike_by_structure(brief: str, bare: list[tuple[int, int, str]], names: list[tuple[int, int]] = (),
                        said: str = "") -> bool:
    """A read-alike by its structure, whatever its words: a title in 《》 and a verb of liking, likeness or
    reading after in its clause, before or after it ("口味接近《我的阿勒泰》的散文", "读过《X》之后还能接着读的"); a
    catalog name unquoted only with the verb right beside it ("You loved Piranesi", "白夜行同款"), as a bare title
    may be an everyday word; `names` (authors': never everyday words) as a quoted title is. A demonstrative of kind
    right after a title ("《活着》这种的小说") makes it a model unless its clause sets it aside ("《X》那类就别上了",
    read in `said`, the brief as written where `brief` has its cues blanked) or a remark is made of it ("《X》这种已经
    在别的架上了")."""
    anywhere, beside, kind_of, aside = _alike_verbs()
    said = said or brief
    remark = regex(rf"\s*(?:{alternation(load_cues().readings.alike_remark)})", re.IGNORECASE)

    def clause(begin: int, end: int) -> tuple[int, int]:
        return _clause_around(brief, begin, end)

    def modelled(begin: int, end: int) -> bool:
        start, stop = clause(begin, end)
        demonstrative = kind_of.match(brief, end + len(brief[end:]) - len(brief[end:].lstrip()))
        return _beside(brief, begin, end, beside) or bool(
            demonstrative and not aside.search(said, start, stop)
            and not remark.match(brief, demonstrative.end()))

    def switched(stop: int) -> bool:
        """Whether the clause after the title's asks for a change ("《X》大家都读过了，换别的"): it is what the shelf
        moves away from."""
        return bool(switch.search(brief, stop, clause(stop + 1, stop + 1)[1]))

    switch = regex(alternation(load_cues().readings.alike_switch), re.IGNORECASE)
    quoted = [(m.start(), m.end()) for m in re.finditer(r"《[^》]+》", brief)]
    for begin, end in quoted + list(names):
        start, stop = clause(begin, end)
        if switched(stop):
            continue
        if anywhere.search(brief[start:begin]) or anywhere.search(brief[end:stop]) or modelled(begin, end):
            return True
    return any(modelled(a, b) and not switched(clause(a, b)[1]) for a, b, _ in bare)


def _clause_around(brief: str, begin: int, end: int) -> tuple[int, int]:
    """(start, end) of the clause holding the span, by the packs' clause ends."""
    ends = load_cues().clauses.end
    after = ends.search(brief, end)
    return max((m.end() for m in ends.finditer(brief, 0, begin)), default=0), after.start() if after else len(brief)


def _alike_by_reference(brief: str, bare: list[tuple[int, int, str]]) -> bool:
    """A read-alike said around a title rather than beside a verb: a likeness pointing back to it from any later
    clause ("借阅榜上的《活着》：再来几本同一路数的", "Station Eleven was our top checkout; novels in the same vein"), a
    word before it that makes it a kind ("another Stoner"; an article with a reader or a time after the title: "A
    Rebecca for the twenty-first century"), or a reader noun after it ("The Remains of the Day readers"). A catalog title unquoted counts written as a title (a capital first in a spaced
    script; three characters or more in an unspaced one), since a bare title may be an everyday word."""
    said = load_cues().readings
    quoted = [(m.start(), m.end()) for m in re.finditer(r"《[^》]+》", brief)]
    written = [(a, b) for a, b, t in bare if (brief[a:a + 1].isupper() if t.isascii() else len(t) >= 3)]
    back = regex(alternation(said.alike_back), re.IGNORECASE)
    before = regex(rf"(?:{alternation(said.alike_before)})\s*$", re.IGNORECASE)
    article = regex(rf"(?:{alternation(said.alike_article)})\s*$", re.IGNORECASE)
    for_whom = regex(rf"\s*(?:{alternation(tuple(load_cues().for_whom))})(?![\w-])", re.IGNORECASE)
    # the readers of a book, a possessive between ("《节日之书》的读者", "Wonder's fans")
    readers = regex(rf"\s*(?:{alternation(said.possessive)})?\s*(?:{alternation(said.reader_nouns)})(?![\w-])",
                    re.IGNORECASE)
    aside = _alike_verbs()[3]
    # a title its clause sets aside ("不要《战争论》这类军事理论") is an example turned away, no model
    kept = [(a, b) for a, b in quoted + written if not aside.search(brief, *_clause_around(brief, a, b))]
    return any(back.search(brief, b) or before.search(brief[max(0, a - 12):a]) or readers.match(brief, b)
               or article.search(brief[max(0, a - 4):a]) and for_whom.match(brief, b) for a, b in kept)


def _held_series(brief: str, quoted: list[str], index: EntityIndex) -> str | None:
    """The catalog series a brief names: by a quoted title's series key, else by a series name in its words."""
    keys = [series_key(t) for t in quoted] or index.series_lookup.find(brief, 2)
    return next((k for k in keys if k in index.series_books), None)


def _series_order(brief: str) -> str:
    """The series a brief asks to be shown in its order (readings.yaml `series_order`): named in 《》, by a name in title
    case that a word for a series' books follows ("Dog Man from book one, in order", "The Mary Russell books"), or by
    the words before the order in its sentence where they hold such a word ("那套谜语丛书29册，按册次排"). "" where it
    asks no order ("in order to") or names no series ("a chapter book series about money, books one to four in order"
    is a theme: what the shelf holds of it is the catalog's books on money)."""
    said = load_cues().readings
    order = regex(rf"(?:{alternation(said.series_order)})(?!\s+to\b)", re.IGNORECASE)
    found = order.search(brief)
    if found is None:
        return ""
    quoted = _QUOTED_TITLE.search(brief)
    if quoted:
        return quoted.group(1)
    nouns = regex(rf"^(?:\s+[\w'’-]+){{0,3}}?\s+(?:{alternation(said.series_nouns)})(?![\w-])", re.IGNORECASE)
    for name in series_name().finditer(brief, 0, found.start()):
        if nouns.match(brief[name.end():found.end()]) or not brief[name.end():found.start()].strip(" ,"):
            return name.group(0)
    # in an unspaced script, the words before it in its sentence: the clause may be the order alone ("，按册次排")
    start = max((m.end() for m in re.finditer(r"[。！？；;:：.!?]", brief[:found.start()])), default=0)
    before = brief[start:found.start()].strip(" ,，")
    return before if not before.isascii() and find_terms(before, said.series_nouns) else ""


def _beside(brief: str, start: int, end: int, verbs: re.Pattern) -> bool:
    """Whether a verb ends right before the span or starts right after it (only spaces and "the" between)."""
    before = re.search(r"(?:\s*\bthe)?\s*$", brief[:start], re.IGNORECASE)
    return (any(m.end() == before.start() for m in verbs.finditer(brief, max(0, start - 30), before.start()))
            or bool(verbs.match(brief, end + len(brief[end:]) - len(brief[end:].lstrip()))))


def understand(brief: str, index: EntityIndex, said: str = "") -> Understanding:
    """The brief's intent, and the catalog authors, series or titles it names; `said` is the brief as written where
    `brief` is its searchable text (its cues blanked, every character where it was)."""
    quoted, corrections = _quoted_titles(brief, index)
    bare = brief.strip(" \t\n\"'“”‘’《》「」.,，。!！?？")
    if bare in index.series_books:  # a brief that is a series' name and nothing else: "三体", "Harry Potter"
        return _named(Intent.SERIES, brief, corrections, titles=(bare,), book_ids=index.series_books[bare])
    series = _held_series(brief, quoted, index) if _SERIES_CUES.search(brief) else None
    if series:
        return _named(Intent.SERIES, brief, corrections, titles=(series,), book_ids=index.series_books[series])
    alike = bool(read_alike_forms().search(brief))
    # an unquoted title inside an author's name is none: "For fans of Stephen King" is not about a book "King"
    in_names = [(x, y) for x, y, _ in index.author_lookup.spans(brief, 2)] if not quoted else []
    # a title hyphened to a word of kind ("Stoner-type novels") ends at the hyphen, where a name otherwise runs on
    suffixes = tuple(w for w in load_cues().readings.alike_beside if w.startswith("-"))
    unhyphened = re.sub(rf"(?<=\w)(?=(?:{alternation(suffixes)}))-", " ", brief, flags=re.IGNORECASE
                        ) if suffixes else brief
    bare_titles = [] if quoted else [(a, b, t) for a, b, t in index.bare_titles(unhyphened)
                                     if not any(x <= a and b <= y for x, y in in_names)]
    titles = quoted or [t for _, _, t in bare_titles]
    # "Anything by Steinbeck? Our book club loved Of Mice and Men": a liked title whose author the brief names
    # (not excluded: the searchable text holds no exclusion) is the author's, not a read-alike
    own = {b for n in _authors(brief, index)[0] for b in index.author_books[index.author_names[n]]}
    alike = alike or ((_alike_by_structure(brief, bare_titles, said=said) or _alike_by_reference(brief, bare_titles))
                      and not any(b in own for t in titles for b in index.title_books[t]))
    titles = titles if alike else []
    titles = list(dict.fromkeys(titles))
    # right after a read-alike form, the form is the structure; a catalog author's name is no title
    # read in the brief as written, where a title's word that is also a cue stands ("like Instant Mom"); a title
    # its clause sets aside is an example turned away ("no children's titles like Listen, Slowly", "Dune and its ilk
    # are out"), set aside before it where the title's own words may be cues ("like Say Nothing")
    written = said or brief
    aside = _alike_verbs()[3]

    def set_aside(a: int, b: int) -> bool:
        start, stop = _clause_around(brief, a, b)
        return bool(aside.search(written, start, a if " " in written[a:b] else stop))
    titled = [written[a:b] for a, b in titled_after_alike(written) if brief[a:a + 1].strip()
              and not set_aside(a, b) and not index.author_lookup.spans(written[a:b], 2)]
    unknown = [q for q in dict.fromkeys(_QUOTED_TITLE.findall(brief) + titled) if q not in quoted
               and not any(q == written for written, _ in corrections)]
    if (alike or titled) and not titles and unknown and (_alike_by_structure(brief, [], said=said) or titled
                                                         or _alike_by_reference(brief, [])):
        # "中国版《鼠疫》那样的疫病小说": a book the catalog lacks is still the one the shelf is to be like
        return _named(Intent.SIMILAR_TO_BOOK, brief, corrections, titles=tuple(unknown), book_ids=())
    if titles and alike:
        ids = tuple(b for t in titles for b in index.title_books[t])
        # "Books like The Hunger Games" had shelved Mockingjay first: a read-alike is another series
        mates = tuple(b for key in dict.fromkeys(index.series_of.get(i) for i in ids) if key
                      for b in index.series_books[key] if b not in ids)
        return _named(Intent.SIMILAR_TO_BOOK, brief, corrections, titles=tuple(titles), book_ids=ids,
                      series_mates=mates)
    names, corrections = _authors(brief, index)
    authors = tuple(dict.fromkeys(index.author_names[n] for n in names))
    if authors:
        ids = tuple(b for a in authors for b in index.author_books[a])
        typo = any(written not in index.author_names for written, _ in corrections)
        confidence = TYPO if typo else ALIAS if corrections else EXACT
        # "For fans of Jane Austen", "喜欢金庸的读者", "沈从文和王小波都喜欢的读者", "read everything Tana French wrote
        # and want something similar": an author liked or likened is where the brief starts, not what it is about
        liked = _alike_by_structure(brief, [], [(a, b) for a, b, _ in index.author_lookup.spans(brief, 2)])
        intent = (Intent.SIMILAR_TO_BOOK if alike or liked or _FANS_CUES.search(brief)
                  else Intent.AUTHOR_SPOTLIGHT)
        return _named(intent, brief, corrections, confidence, authors=authors, book_ids=ids)
    ordered = _series_order(said or brief)
    if ordered:
        # "Dog Man from book one, in order", "那一套按册序摆出来": a series shelf whatever the catalog holds of it;
        # what it holds stands in its order, and a series it lacks is a short shelf for the curator to see
        series = _held_series(brief, quoted, index)
        return _named(Intent.SERIES, brief, corrections, titles=(series or ordered,),
                      book_ids=index.series_books[series] if series else ())
    if _NEW_ARRIVAL_CUES.search(brief):
        return Understanding(Intent.NEW_ARRIVALS, resolved_query=brief)
    return Understanding(Intent.THEME_SHELF, resolved_query=brief)
