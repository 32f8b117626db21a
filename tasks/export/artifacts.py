"""What a batch run publishes to Prefect: a table of every shelved book and a markdown summary."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from tasks.export.wording import brief_language, option_texts, question_text, why_text
from tasks.model.shelf import ThemeShelf


def artifact_key(batch_id: str) -> str:
    """Prefect artifact keys allow lowercase letters, digits and dashes only."""
    return "shelves-" + (re.sub(r"[^a-z0-9-]+", "-", batch_id.lower()).strip("-") or "batch")


def shelf_table(shelves: Sequence[ThemeShelf]) -> list[dict]:
    """One row per shelved book: theme, rank, title, authors, year, call number, book id, sources, why."""
    return [{"theme": s.theme.theme_name, "rank": e.rank, "title": e.book.title,
             "authors": " / ".join(e.book.authors), "year": e.book.pub_year, "call_no": e.book.call_no,
             "book_id": e.book.book_id, "sources": ", ".join(e.candidate.sources),
             "why": why_text(e.reasons, brief_language(s.theme.brief))} for s in shelves for e in s.entries]


def review_question(shelf: ThemeShelf) -> str:
    """The gate's question and its options, in the brief's language."""
    asked, language = shelf.verdict.question, brief_language(shelf.theme.brief)
    if not asked:
        return ""
    options = option_texts(asked, language)  # none when no value is near a brief: then the brief is the answer
    return f"{question_text(asked, language)} ({' / '.join(options)})" if options else question_text(asked, language)


def batch_summary(batch_id: str, workbook: Path, shelves: Sequence[ThemeShelf], link: str | None = None) -> str:
    """Markdown: the workbook (a link the browser opens, when given), each theme's status, books and translator,
    then the questions of themes under review."""
    shown = f"[{workbook.name}]({link})" if link else f"`{workbook}`"
    lines = [f"# Batch {batch_id}", "", f"Workbook: {shown}", "",
             "| theme | status | books | translator |", "|---|---|---|---|"]
    lines += [f"| {s.theme.theme_name} | {s.status} | {len(s.entries)} | {s.query.translator} |" for s in shelves]
    review = [s for s in shelves if s.status == "needs_review"]
    if review:
        lines += ["", "## Needs review", ""]
        lines += [f"- **{s.theme.theme_name}**: {review_question(s)}; {'; '.join(s.verdict.reasons)}" for s in review]
    return "\n".join(lines)
