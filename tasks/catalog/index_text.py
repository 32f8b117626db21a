"""What gets indexed for a book: the weighted vector text, summary sentences and BM25 tokens."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from config.settings import TextSection
from config.vocabulary import Vocabulary
from tasks.language.text_analysis import bm25_tokens, split_sentences
from tasks.model.books import BookRecord

# Bump when the composition of index texts changes, so that the next build is not skipped.
INDEX_TEXT_VERSION = "3"


def book_language(book: BookRecord) -> str:
    """The analyzer language of a book: its catalog language when zh/en, else English rules."""
    return "zh" if book.language == "zh" else "en"


def tag_labels(book: BookRecord, vocabulary: Vocabulary) -> list[str]:
    """The book's tags in its own language (Chinese names, or English labels for other books)."""
    zh = book_language(book) == "zh"
    return [vocabulary.value(dim, name).name if zh else vocabulary.value(dim, name).english_label
            for dim in vocabulary.dimension_names for name in book.tags.get(dim, ())]


def tags_text(book: BookRecord, vocabulary: Vocabulary) -> str:
    """The book's tag labels as one comma-separated text."""
    return ", ".join(tag_labels(book, vocabulary))


def _section_values(book: BookRecord, field: str, vocabulary: Vocabulary) -> tuple[list[str], str]:
    """A section's values and the separator that joins them into one text."""
    if field == "tags":
        # Enriched tags were derived from this very text: repeating them in the vector adds only noise
        # (scifact dense nDCG@10 0.347 with them). A curator's tags are new information.
        return (tag_labels(book, vocabulary) if book.tag_origin == "source" else []), ", "
    if field == "title_line":
        return [book.title_line], ""
    value = getattr(book, field)
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value], " / "
    return ([] if value is None else [str(value)]), ""


def compose_index_text(book: BookRecord, vocabulary: Vocabulary, sections: Sequence[TextSection]) -> str:
    """The text a book's vector is computed from: sections weighted by repetition."""
    parts = []
    for section in sections:
        values, separator = _section_values(book, section.field, vocabulary)
        text = separator.join(values).strip()
        if section.max_chars is not None:
            text = text[: section.max_chars]
        if text:
            parts.extend([text] * max(section.repeat, 1))
    return "\n".join(parts) or book.title


def head_parts(book: BookRecord, vocabulary: Vocabulary, sections: Sequence[TextSection]) -> list[tuple[float, list[str]]]:
    """A book's head line as (weight, texts) parts whose vectors are averaged, each part then weighted by its repeat.

    A list field (tags, authors, subject headings) gives one text per value: catalogs share values, so
    the cache embeds each once, where one line per book embedding its tags cost more than its summary
    sentences (synthetic 10k catalog). Any other field is one text, cut to max_chars.
    """
    parts = []
    for section in sections:
        values, _ = _section_values(book, section.field, vocabulary)
        texts = [v.strip()[: section.max_chars] for v in values if v.strip()]
        if texts:
            parts.append((float(max(section.repeat, 1)), texts))
    return parts


def book_sentences(book: BookRecord) -> list[str]:
    """The summary's sentences, for the sentence-level rerank."""
    return split_sentences(book.summary)


def _weighted(tokens: list[str], weight: float) -> list[str]:
    """Repeat a field's tokens `weight` times; a fractional weight repeats that share of them."""
    whole, fraction = divmod(weight, 1.0)
    return tokens * int(whole) + tokens[: round(len(tokens) * fraction)]


def bm25_document_tokens(book: BookRecord, field_weights: Mapping[str, float], stem: bool = True) -> list[str]:
    """BM25 tokens of a book, fields weighted by repetition; classification codes are whole tokens."""
    language = book_language(book)
    fields = {
        "title": " ".join(p for p in (book.title, book.subtitle) if p),
        "authors": " ".join(book.authors),
        "summary": book.summary or "",
        "subjects": " ".join(book.subjects),
    }
    tokens: list[str] = []
    for name, text in fields.items():
        tokens.extend(_weighted(bm25_tokens(text, language, stem), field_weights.get(name, 1.0)))
    codes = [code.partition(":")[2].replace(" ", "").lower() for code in book.classification]
    return tokens + _weighted([c for c in codes if c], field_weights.get("classification", 1.0))
