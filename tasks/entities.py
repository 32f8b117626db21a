"""Entities and intent (seed 000): authors and titles of the catalog named in a brief.

"鲁迅作品专题" is an author spotlight (the author's books first), "像《边城》那样的书" asks for books
similar to one book (its neighbours, never the book itself), "本月新书：科幻" for new arrivals (the
newest books within the theme's conditions); anything else is a theme shelf.
Authors are found under their aliases too (config/aliases.yaml: 周树人 is 鲁迅).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import yaml

from config.settings import CONFIG_DIR
from storage.models import BookRecord

_SIMILAR_CUES = re.compile(r"(像|类似|相似|似的|那样|一样|more like|books like|similar to|in the vein of)",
                           re.IGNORECASE)
_QUOTED_TITLE = re.compile(r"《([^》]+)》")
_NEW_ARRIVAL_CUES = re.compile(r"(新书|新到|新上架|新进|到馆|新出版|最新|新近出版|\bnew (arrivals|books|releases|titles)\b"
                               r"|\bjust (in|arrived)\b|\blatest\b|\brecently published\b)", re.IGNORECASE)


@lru_cache(maxsize=1)
def load_aliases() -> dict[str, tuple[str, ...]]:
    """Canonical author -> other names, from config/aliases.yaml."""
    with open(CONFIG_DIR / "aliases.yaml", encoding="utf-8") as fh:
        raw = yaml.safe_load(fh) or {}
    return {str(k): tuple(str(a) for a in v or ()) for k, v in (raw.get("authors") or {}).items()}


def _pattern(name: str) -> str:
    return rf"(?<![\w-]){re.escape(name)}(?![\w-])" if name.isascii() else re.escape(name)


@dataclass(frozen=True)
class EntityIndex:
    """Every author (with aliases) and title of the catalog, to find them in a brief."""

    author_books: dict[str, tuple[str, ...]]  # canonical author -> book ids
    author_names: dict[str, str]  # any name or alias -> canonical author
    title_books: dict[str, tuple[str, ...]]  # title -> book ids

    @classmethod
    def build(cls, books: Iterable[BookRecord], aliases: dict[str, tuple[str, ...]]) -> EntityIndex:
        author_books: dict[str, list[str]] = {}
        title_books: dict[str, list[str]] = {}
        for book in books:
            for author in book.authors:
                author_books.setdefault(author, []).append(book.book_id)
            title_books.setdefault(book.title, []).append(book.book_id)
        names = {a: a for a in author_books}
        for canonical, others in aliases.items():
            if canonical in author_books:
                names.update({alias: canonical for alias in others if alias not in author_books})
        return cls({a: tuple(ids) for a, ids in author_books.items()}, names,
                   {t: tuple(ids) for t, ids in title_books.items()})


@dataclass(frozen=True)
class Understanding:
    intent: str  # theme_shelf | author_spotlight | similar_to_book | new_arrivals
    authors: tuple[str, ...] = ()  # canonical names
    titles: tuple[str, ...] = ()
    book_ids: tuple[str, ...] = ()  # the authors' books, or the book(s) named

    def describe(self) -> str:
        named = ", ".join(self.authors or self.titles)
        return f"intent {self.intent}" + (f": {named}" if named else "")


def _named(text: str, names: Iterable[str], min_length: int) -> list[str]:
    found = [n for n in names if len(n) >= min_length and re.search(_pattern(n), text, flags=re.IGNORECASE)]
    # the longest name wins where one is inside another ("三体" inside "三体II")
    return [n for n in found if not any(n != other and n in other for other in found)]


def understand(brief: str, index: EntityIndex) -> Understanding:
    """The brief's intent, and the catalog authors or titles it names."""
    quoted = list(dict.fromkeys(t for t in _QUOTED_TITLE.findall(brief) if t in index.title_books))
    titles = quoted or (_named(brief, index.title_books, 2) if _SIMILAR_CUES.search(brief) else [])
    if titles and _SIMILAR_CUES.search(brief):
        ids = tuple(b for t in titles for b in index.title_books[t])
        return Understanding("similar_to_book", titles=tuple(titles), book_ids=ids)
    names = _named(brief, index.author_names, 2)
    authors = tuple(dict.fromkeys(index.author_names[n] for n in names))
    if authors:
        ids = tuple(b for a in authors for b in index.author_books[a])
        return Understanding("author_spotlight", authors=authors, book_ids=ids)
    if _NEW_ARRIVAL_CUES.search(brief):
        return Understanding("new_arrivals")
    return Understanding("theme_shelf")
