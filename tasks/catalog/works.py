"""Works, not editions: editions, printings and translations of one work share a work id.

Two books are one work when their normalised title (the original title of a translation, when the
catalog gives it, or the title proper before a subtitle written into the title) and normalised first author
agree, when their ISBNs are the same number (ISBN-10 and ISBN-13 compared as ISBN-13), or when one is the
other in another language under the same author and subject headings ("Don Quijote", "Don Quixote"). Titles
lose edition and format marks ("（插图本）", "(25th anniversary ed.)", ": a novel"), never volume marks: 三体
and 三体II stay two works. Chinese is compared in simplified
characters, names with aliases folded into their catalog form (config/aliases.yaml) and MARC's inverted
"Ishiguro, Kazuo" read as "Kazuo Ishiguro".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from tasks.catalog.names import fold, name_key
from tasks.model.books import BookRecord

_EDITION_WORDS = (r"版|本|印|修订|增订|典藏|珍藏|纪念|插图|插画|图文|全译|精装|平装|注释|评注|编年|合集|新译|套装|"
                  r"全[一二三四五六七八九十两\d]+[册冊卷部]|"  # a complete set ("全三册"); "第三册" is a volume
                  r"edition|ed\.|printing|reprint|illustrated|anniversary|deluxe|revised|expanded|unabridged|"
                  r"paperback|hardcover|abridged|annotated|classics?|electronic resource")
# A bracketed part that says what kind of edition it is: "（插图本）", "[electronic resource]", "(Vintage ed.)"
_EDITION_BRACKET = re.compile(rf"[（(\[【〔][^（(\[【〔)）\]】〕]*(?:{_EDITION_WORDS})[^（(\[【〔)）\]】〕]*[)）\]】〕]",
                              re.IGNORECASE)
# A subtitle that only says what the book is: ": a novel", "：长篇小说", " - a memoir"
_GENERIC_SUBTITLE = re.compile(r"\s*[:：—-]\s*(?:an?\s+)?(?:novel|memoir|story|stories|novella|poems|长篇小说|小说|"
                               r"中篇小说|诗集|散文集)\s*$", re.IGNORECASE)
# Where a title proper ends and its subtitle or alternative title begins, when the catalog writes both in the title:
# "Struwwelpeter: Merry Stories and Funny Pictures", "Little Women; Or, Meg, Jo, Beth, and Amy", "London and the
# Kingdom - Volume 1"
_SUBTITLE_START = re.compile(r"\s*[:：;；]\s*|\s+[—–-]{1,2}\s+")
# A part after the title proper that says which volume or part the book is: the title proper is then no work of
# its own ("Works: Volume 3", "London and the Kingdom - Volume 1: ...", "三体：第二部")
_VOLUME_START = re.compile(r"(?:vol(?:ume)?s?\b|v\.\s*\d|part\b|book\s+(?:\d|[ivxlc]+\b)|no\.|number\b|tome\b|band\b|"
                           r"bd\.|slice\b|section\b|\d|[ivxlc]+\b|第|[上中下](?:[册冊卷部]|$))", re.IGNORECASE)
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an|le|la|les|l'|der|die|das|el|los|las|il)\s*(?<=\s|')", re.IGNORECASE)
_NOT_WORD = re.compile(r"[\W_]+")


def normalize_title(title: str) -> str:
    """The title as a work key: no edition or format marks, no leading article, no punctuation or spaces."""
    text = fold(title)
    text = _EDITION_BRACKET.sub("", text)
    text = _GENERIC_SUBTITLE.sub("", text)
    text = _LEADING_ARTICLE.sub("", text.strip())
    return _NOT_WORD.sub("", text)


def normalize_author(name: str, canonical: Mapping[str, str] = {}) -> str:
    """An author as a work key: marks, roles and dates dropped, "Last, First" turned round (names.name_key), aliases
    folded into one name (`canonical`: an alias's key -> its catalog name's key)."""
    key = name_key(name)
    return canonical.get(key, key)


def title_proper(title: str) -> str | None:
    """The title before its subtitle or alternative title, where the catalog writes them in one field and what
    follows names no volume: "Der Struwwelpeter" of "Der Struwwelpeter: oder lustige Geschichten und drollige
    Bilder", which the English edition titles "Struwwelpeter: Merry Stories and Funny Pictures"."""
    found = _SUBTITLE_START.search(title)
    if not found or not found.start() or _VOLUME_START.match(title, found.end()):
        return None
    return title[:found.start()]


def isbn13(isbn: str | None) -> str | None:
    """The ISBN as 13 digits (an ISBN-10 converted), or None when it is not a valid ISBN."""
    digits = re.sub(r"[^0-9Xx]", "", (isbn or "").split(" ")[0]).upper()
    if len(digits) == 10 and digits[:9].isdigit():
        if sum((10 - i) * (10 if c == "X" else int(c)) for i, c in enumerate(digits)) % 11:
            return None
        digits = "978" + digits[:9]
        return digits + str((10 - sum((3 if i % 2 else 1) * int(c) for i, c in enumerate(digits)) % 10) % 10)
    if len(digits) == 13 and digits.isdigit():
        check = (10 - sum((3 if i % 2 else 1) * int(c) for i, c in enumerate(digits[:12])) % 10) % 10
        return digits if check == int(digits[12]) else None
    return None


def work_key(book: BookRecord, canonical: Mapping[str, str] = {}) -> str:
    """Normalised (original) title and first author: what editions and translations of a work share."""
    return work_keys(book, canonical)[0]


def work_keys(book: BookRecord, canonical: Mapping[str, str] = {}) -> tuple[str, ...]:
    """Every key an edition of the work may share with another: its (original) title, its title as this edition
    writes it (one translation gives the original title, another not), its title with its subtitle (one
    catalog writes "三体：地球往事" as the title, another "三体" with a subtitle) and its title proper without the
    subtitle a record writes into the title ("Little Women; Or, Meg, Jo, Beth, and Amy" is "Little Women"; editions
    differ in their subtitles, "Adventures of Sherlock Holmes: Illustrated"); each with the first author."""
    author = normalize_author(book.authors[0], canonical) if book.authors else ""
    titles = [book.original_title or book.title, book.title]
    if book.subtitle:
        titles.append(f"{book.title}: {book.subtitle}")
    titles += [proper for t in (book.original_title, book.title) if t and (proper := title_proper(t))]
    return tuple(dict.fromkeys(f"{t}|{author}" for t in map(normalize_title, titles) if t))


# A heading's subdivision saying the record is a translation: "Children's stories, German -- Translations into English"
_TRANSLATED = re.compile(r"\s*--\s*Translations into [^-]+$", re.IGNORECASE)
TRANSLATION_MIN_HEADINGS = 2  # one shared heading ("Science fiction") says little of which of an author's works it is


def _translation_key(book: BookRecord, canonical: Mapping[str, str]) -> str | None:
    """What a translation shares with its original where its title does not say so ("Don Quijote", "Don Quixote"):
    the first author and every subject heading, a heading's "-- Translations into English" left off."""
    headings = sorted({_TRANSLATED.sub("", h).strip() for h in book.subjects} - {""})
    if not book.authors or not book.language or len(headings) < TRANSLATION_MIN_HEADINGS:
        return None
    return normalize_author(book.authors[0], canonical) + "|" + "|".join(headings)


def _translations(books: Iterable[BookRecord], canonical: Mapping[str, str]) -> list[list[str]]:
    """Book ids of one work in several languages, found by their author and headings: only where each language has
    one such book, since two books in one language under the same headings are two works of the author (two volumes
    of stories, two years of a yearbook), and a translation is the same work in another language."""
    by_key: dict[str, list[BookRecord]] = {}
    for book in books:
        if key := _translation_key(book, canonical):
            by_key.setdefault(key, []).append(book)
    return [[b.book_id for b in group] for group in by_key.values()
            if len(group) > 1 and len({b.language for b in group}) == len(group)]


def group_works(books: Iterable[BookRecord], aliases: Mapping[str, tuple[str, ...]] = {}) -> dict[str, str]:
    """book id -> work id (the smallest book id of its work), joining books by work key, by ISBN, or as translations
    of one another (`_translations`)."""
    canonical = {name_key(alias): name_key(name) for name, others in aliases.items() for alias in others}
    parent: dict[str, str] = {}

    def find(item: str) -> str:
        while parent.setdefault(item, item) != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    ids = []
    books = list(books)
    for book in books:
        ids.append(book.book_id)
        for key in work_keys(book, canonical):
            union("book:" + book.book_id, "key:" + key)
        if number := isbn13(book.isbn):
            union("book:" + book.book_id, "isbn:" + number)
    for first, *others in _translations(books, canonical):
        for other in others:
            union("book:" + first, "book:" + other)
    members: dict[str, list[str]] = {}
    for book_id in ids:
        members.setdefault(find("book:" + book_id), []).append(book_id)
    return {book_id: min(group) for group in members.values() for book_id in group}


# A complete set or box set in one book: "哈利·波特（全七册）", "三体三部曲", "The Complete Sherlock Holmes",
# "(Harry Potter, #1-7)"
_SET = re.compile(r"全集|全[一二三四五六七八九十两\d]+[册冊卷部本]|套装|合集|[三四五六七]部曲|\b(?:box(?:ed)?[\s-]*set|"
                  r"complete\s+(?:works|series|novels|stories|collection|saga)|the\s+complete|omnibus|trilogy|"
                  r"quartet|collection)\b|#\s*\d+\s*[-–]\s*\d+", re.IGNORECASE)
_SERIES_NOTE = re.compile(r"\(([^()#]+?),?\s*#\s*\d[^()]*\)")
# What follows a set's title in the title of one of its volumes (normalised): 三体II, 平凡的世界第二部, 上, book 2
_VOLUME_MARK = re.compile(r"(?:\d+|[ivx]+|[ⅰ-ⅻⅠ-Ⅻ]+|第?[一二三四五六七八九十\d]+[部卷册冊集]|[上中下]|"
                          r"(?:part|volume|vol|book)\d+)(?!\d)")


def overlapping_works(books: Iterable[BookRecord]) -> dict[str, frozenset[str]]:
    """work id -> the works that must not stand beside it on a shelf: a complete set and its own volumes (same
    author; a volume's title is the set's followed by a volume mark, or names it as its series)."""
    books = [b for b in books if b.authors]
    sets: dict[str, list[tuple[str, str]]] = {}  # author key -> (set title, set work)
    for book in books:
        if _SET.search(book.title) or _SET.search(book.subtitle or ""):
            note = _SERIES_NOTE.search(book.title)
            base = normalize_title(note.group(1) if note else _SET.sub("", book.title))
            if base:
                sets.setdefault(normalize_author(book.authors[0]), []).append((base, book.work_id or book.book_id))
    overlapping: dict[str, set[str]] = {}
    for book in books:
        work = book.work_id or book.book_id
        title = normalize_title(_SERIES_NOTE.sub("", book.title))
        series = {normalize_title(_SET.sub("", n)) for n in (*_SERIES_NOTE.findall(book.title),
                                                             (book.series or "").split(";")[0])} - {""}
        for base, whole in sets.get(normalize_author(book.authors[0]), ()):
            if whole != work and (base in series or (title.startswith(base)
                                                     and _VOLUME_MARK.match(title, len(base)) is not None)):
                overlapping.setdefault(whole, set()).add(work)
                overlapping.setdefault(work, set()).add(whole)
    return {work: frozenset(others) for work, others in overlapping.items()}
