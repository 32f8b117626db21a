"""What gets indexed for a book, on tiny in-memory books."""

from config.settings import TextSection
from tasks.catalog.index_text import (
    bm25_document_tokens,
    book_sentences,
    compose_index_text,
    head_parts,
    tags_text,
)
from tasks.model.books import BookRecord

BIANCHENG = BookRecord(book_id="zh-1", title="边城", authors=("沈从文",), language="zh",
                       summary="翠翠在渡口等。爷爷守着渡船。", tags={"emotional_tone": ("忧伤怅惘",)}, tag_origin="source")
STONER = BookRecord(book_id="en-1", title="Stoner", authors=("John Williams",), language="en",
                    summary="A quiet life. A farm boy teaches.", tags={"emotional_tone": ("忧伤怅惘",)},
                    tag_origin="source")


def test_tags_are_rendered_in_the_books_language(vocabulary):
    assert tags_text(BIANCHENG, vocabulary) == "忧伤怅惘"
    assert tags_text(STONER, vocabulary) == "melancholy"


def test_index_text_repeats_and_truncates_sections(vocabulary):
    sections = (TextSection(field="tags", repeat=2), TextSection(field="title_line"), TextSection(field="summary", max_chars=5))
    assert compose_index_text(BIANCHENG, vocabulary, sections).split("\n") == [
        "忧伤怅惘", "忧伤怅惘", "边城 — 沈从文", "翠翠在渡口"]


def test_a_head_line_splits_list_fields_into_values_and_keeps_other_fields_whole(vocabulary):
    from dataclasses import replace

    sections = (TextSection(field="tags", repeat=2), TextSection(field="authors", max_chars=4),
                TextSection(field="title_line"), TextSection(field="subtitle"))
    two_authors = replace(STONER, authors=("John Williams", "Ann"))
    assert head_parts(two_authors, vocabulary, sections) == [
        (2.0, ["melancholy"]), (1.0, ["John", "Ann"]), (1.0, ["Stoner — John Williams / Ann"])]
    # enriched tags came from the book's own text: no part of its vector
    assert head_parts(replace(STONER, tag_origin="enriched"), vocabulary, sections[:1]) == []


def test_bm25_fields_are_weighted_by_repetition():
    tokens = bm25_document_tokens(STONER, {"title": 2.0, "authors": 1.0, "summary": 1.5}, stem=False)
    assert tokens.count("stoner") == 2
    assert tokens.count("john") == 1
    # summary tokens: quiet life farm boy teaches; 1.5 = all once plus the first half again
    assert tokens[4:] == ["quiet", "life", "farm", "boy", "teaches", "quiet", "life"]


def test_sentences_come_from_the_summary():
    assert book_sentences(BIANCHENG) == ["翠翠在渡口等。", "爷爷守着渡船。"]


def test_latin_words_are_stemmed_in_both_languages():
    from tasks.language.text_analysis import bm25_tokens

    assert bm25_tokens("Teaching studies of cells", "en", stem=True) == ["teach", "studi", "cell"]
    assert bm25_tokens("关于cells的研究", "zh", stem=True) == ["cell", "研究"]
    assert bm25_tokens("Teaching", "en", stem=False) == ["teaching"]
