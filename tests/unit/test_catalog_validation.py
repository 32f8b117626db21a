"""Row validation on tiny in-memory rows."""

import pytest

from tasks.catalog.ingest import ColumnMapping, RowError, validate_row


def row(**overrides):
    base = {"book_id": "b1", "title": "边城", "authors": "沈从文", "pub_year": "1934", "language": "zh"}
    return {**base, **overrides}


def test_a_good_row_becomes_a_book_with_a_content_hash(vocabulary):
    book = validate_row(row(tags='{"emotional_tone": ["忧伤怅惘"]}', pages="120.0"), ColumnMapping(), vocabulary)
    assert book.book_id == "b1" and book.pub_year == 1934 and book.pages == 120
    assert book.tags == {"emotional_tone": ("忧伤怅惘",)} and book.tag_origin == "source"
    assert len(book.content_hash) == 64


@pytest.mark.parametrize("overrides, field, reason", [
    ({"book_id": ""}, "book_id", "missing"),
    ({"title": "  "}, "title", "missing"),
    ({"pub_year": "3021"}, "pub_year", "impossible year 3021"),
    ({"pub_year": "nineteen"}, "pub_year", "expected a whole number"),
    ({"pages": "12.5"}, "pages", "expected a whole number"),
    ({"rating": "high"}, "rating", "expected a number"),
    ({"copies_available": "-1"}, "copies_available", "must not be negative"),
    ({"summary": "bell\x07"}, "summary", "control characters"),
    ({"tags": '{"emotional_tone": ["快乐"]}'}, "tags.emotional_tone", "unknown value '快乐'"),
    ({"tags": '{"mood": ["平静淡然"]}'}, "tags", "unknown dimension 'mood'"),
])
def test_each_bad_field_is_named_with_its_reason(vocabulary, overrides, field, reason):
    with pytest.raises(RowError) as err:
        validate_row(row(**overrides), ColumnMapping(), vocabulary)
    assert err.value.field_name == field
    assert reason in err.value.reason


def test_mapping_renames_splits_prefixes_and_fills_defaults(vocabulary):
    mapping = ColumnMapping(columns={"book_id": "id", "pub_year": "year", "tags.genre": "genre"},
                            split={"authors": ","}, defaults={"copies_available": 1}, id_prefix="gb-")
    book = validate_row({"id": 7.0, "title": "Dune", "authors": "Frank Herbert, Someone Else",
                         "year": "1965.0", "genre": "科幻|小说"}, mapping, vocabulary)
    assert book.book_id == "gb-7"
    assert book.authors == ("Frank Herbert", "Someone Else")
    assert book.pub_year == 1965 and book.copies_available == 1
    assert book.tags == {"genre": ("科幻", "小说")}
    assert book.language == "en"


def test_negative_years_of_ancient_works_are_possible(vocabulary):
    assert validate_row(row(pub_year="-1750"), ColumnMapping(), vocabulary).pub_year == -1750
