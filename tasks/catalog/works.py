"""Works, not editions: editions, printings and translations of one work share a work id.

Two books are one work when their normalised title (the original title of a translation, when the
catalog gives it) and normalised first author agree, or when their ISBNs are the same number (ISBN-10
and ISBN-13 compared as ISBN-13). Titles lose edition and format marks ("（插图本）", "(25th anniversary
ed.)", ": a novel"), never volume marks: 三体 and 三体II stay two works. Chinese is compared in simplified
characters, names with aliases folded into their catalog form (config/aliases.yaml) and MARC's inverted
"Ishiguro, Kazuo" read as "Kazuo Ishiguro".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from hanziconv.charmap import simplified_charmap, traditional_charmap

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
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an|le|la|les|l'|der|die|das|el|los|las|il)\s*(?<=\s|')", re.IGNORECASE)
_NOT_WORD = re.compile(r"[\W_]+")
_DATES = re.compile(r"[,，]?\s*\(?(?:ca\.\s*)?\d{3,4}\??\s*-\s*(?:\d{3,4})?\??\)?\.?$")


# hanziconv's own table as one translation: its toSimplified looks each character up in a 3,000-character
# string (8 s of a 100k-book build); the first traditional form listed wins, as there.
_TO_SIMPLIFIED: dict[int, str] = {}
for _traditional, _simplified in zip(traditional_charmap, simplified_charmap, strict=True):
    _TO_SIMPLIFIED.setdefault(ord(_traditional), _simplified)


def _fold(text: str) -> str:
    """Width, case and traditional characters folded away."""
    return unicodedata.normalize("NFKC", text).translate(_TO_SIMPLIFIED).lower()


def normalize_title(title: str) -> str:
    """The title as a work key: no edition or format marks, no leading article, no punctuation or spaces."""
    text = _fold(title)
    text = _EDITION_BRACKET.sub("", text)
    text = _GENERIC_SUBTITLE.sub("", text)
    text = _LEADING_ARTICLE.sub("", text.strip())
    return _NOT_WORD.sub("", text)


def normalize_author(name: str, canonical: Mapping[str, str] = {}) -> str:
    """An author as a work key: dates dropped, "Last, First" turned round, aliases folded into one name."""
    text = _DATES.sub("", unicodedata.normalize("NFKC", name).strip())
    text = canonical.get(text, text)
    if "," in text and not re.search(r"[\u3400-\u9fff]", text):
        last, _, first = text.partition(",")
        text = f"{first.strip()} {last.strip()}"
    return _NOT_WORD.sub("", _fold(text))


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
    title = normalize_title(book.original_title or book.title)
    author = normalize_author(book.authors[0], canonical) if book.authors else ""
    return f"{title}|{author}"


def group_works(books: Iterable[BookRecord], aliases: Mapping[str, tuple[str, ...]] = {}) -> dict[str, str]:
    """book id -> work id (the smallest book id of its work), joining books by work key or by ISBN."""
    canonical = {alias: name for name, others in aliases.items() for alias in others}
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
    for book in books:
        ids.append(book.book_id)
        union("book:" + book.book_id, "key:" + work_key(book, canonical))
        if number := isbn13(book.isbn):
            union("book:" + book.book_id, "isbn:" + number)
    members: dict[str, list[str]] = {}
    for book_id in ids:
        members.setdefault(find("book:" + book_id), []).append(book_id)
    return {book_id: min(group) for group in members.values() for book_id in group}
