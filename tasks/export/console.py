"""A shelf as a terminal table (`shelfwise try`): rank, title, author, year, the material where a record says one,
and why, under the shelf's status and the question a review asks."""

from __future__ import annotations

import unicodedata

from tasks.export.artifacts import review_question
from tasks.export.wording import why_text
from tasks.model.shelf import ThemeShelf

WIDTHS = {"title": 28, "author": 16, "material": 10, "why": 60}  # in terminal cells: a Chinese character takes two


def cells(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def fit(text: str, width: int) -> str:
    """The text cut to `width` cells (an ellipsis where it was cut) and padded to them."""
    text = " ".join(text.split())
    if cells(text) > width:
        while cells(text) > width - 1:
            text = text[:-1]
        text += "…"
    return text + " " * (width - cells(text))


def shelf_text(shelf: ThemeShelf, show: int) -> str:
    """The shelf's status and question, then one line per book (the first `show`)."""
    language = shelf.query.language
    lines = [f"status: {shelf.status} ({len(shelf.entries)} books)"]
    question = review_question(shelf)
    if question:
        lines.append(f"review: {question}")
    lines += [f"  {reason}" for reason in shelf.verdict.reasons]
    lines.append("")
    # a catalog whose records say no material (most exports) shows no empty column
    said = any(e.book.material for e in shelf.entries[:show])
    material = f"{fit('material', WIDTHS['material'])}  " if said else ""
    lines.append(f"{'rank':>4}  {fit('title', WIDTHS['title'])}  {fit('author', WIDTHS['author'])}  year  "
                 f"{material}why")
    for entry in shelf.entries[:show]:
        book = entry.book
        material = f"{fit(book.material or '', WIDTHS['material'])}  " if said else ""
        lines.append(f"{entry.rank:>4}  {fit(book.title, WIDTHS['title'])}  "
                     f"{fit(' / '.join(book.authors), WIDTHS['author'])}  {book.pub_year or '':>4}  {material}"
                     f"{fit(why_text(entry.reasons, language), WIDTHS['why']).rstrip()}")
    return "\n".join(lines)
