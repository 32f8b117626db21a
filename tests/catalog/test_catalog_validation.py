"""Row validation on tiny in-memory rows: only a missing id or title loses a row; bad values warn."""

import pytest

from tasks.catalog.fields import read_pages, read_year
from tasks.catalog.ingest import ColumnMapping, RowError, validate_row


def row(**overrides):
    base = {"book_id": "b1", "title": "边城", "authors": "沈从文", "pub_year": "1934", "language": "zh"}
    return {**base, **overrides}


def test_a_good_row_becomes_a_book_with_a_content_hash(vocabulary):
    book, warnings = validate_row(row(tags='{"emotional_tone": ["忧伤怅惘"]}', pages="120.0"), ColumnMapping(),
                                  vocabulary)
    assert book.book_id == "b1" and book.pub_year == 1934 and book.pages == 120 and not warnings
    assert book.tags == {"emotional_tone": ("忧伤怅惘",)} and book.tag_origin == "source"
    assert len(book.content_hash) == 64


@pytest.mark.parametrize("overrides, field", [({"book_id": ""}, "book_id"), ({"title": "  "}, "title")])
def test_only_a_missing_id_or_title_rejects_a_row(vocabulary, overrides, field):
    with pytest.raises(RowError) as err:
        validate_row(row(**overrides), ColumnMapping(), vocabulary)
    assert (err.value.field_name, err.value.reason) == (field, "missing")


@pytest.mark.parametrize("overrides, field, kept, message", [
    ({"pages": "128页"}, "pages", 128, "read '128页' as 128"),
    ({"pages": "xii, 300 p."}, "pages", 300, "as 300"),
    ({"pages": "2 v."}, "pages", None, "counts volumes, not pages"),
    ({"pages": "many"}, "pages", None, "expected a whole number, got 'many'"),
    ({"pub_year": "1998年"}, "pub_year", 1998, "read '1998年' as 1998"),
    ({"pub_year": "2015-3"}, "pub_year", 2015, "as 2015"),
    ({"pub_year": "3021"}, "pub_year", None, "impossible year 3021"),
    ({"pub_year": "nineteen"}, "pub_year", None, "no year in 'nineteen'"),
    ({"rating": "8.5分"}, "rating", 8.5, "as 8.5"),
    ({"rating": "high"}, "rating", None, "expected a number"),
    ({"copies_available": "3本"}, "copies_available", 3, "as 3"),
    ({"copies_available": "-1"}, "copies_available", None, "must not be negative"),
    ({"summary": "bell\x07 rings"}, "summary", "bell rings", "control characters removed"),
])
def test_a_value_that_cannot_be_read_as_its_field_warns_and_keeps_the_book(vocabulary, overrides, field, kept,
                                                                          message):
    book, warnings = validate_row(row(**overrides), ColumnMapping(), vocabulary)
    assert getattr(book, field) == kept
    assert [(name, message in text) for name, text, _ in warnings] == [(field, True)]


def test_tags_outside_the_vocabulary_and_reader_tags_become_subjects(vocabulary):
    book, warnings = validate_row(row(tags='{"emotional_tone": ["快乐", "忧伤怅惘"], "mood": ["平静"]}'),
                                  ColumnMapping(), vocabulary)
    assert book.tags == {"emotional_tone": ("忧伤怅惘",)} and set(book.subjects) == {"快乐", "平静"}
    assert {name for name, _, _ in warnings} == {"tags.emotional_tone", "tags"}
    # a Douban-style export: its `tags` column holds reader tags, not vocabulary tags
    reader, warnings = validate_row(row(tags="二战|历史"), ColumnMapping(), vocabulary)
    assert reader.tags == {} and reader.subjects == ("二战", "历史") and not warnings


def test_subjects_classification_and_editions_are_read(vocabulary):
    book, _ = validate_row(row(subjects="长篇小说—中国—现代；湘西", classification='{"clc": ["I246.5"]}',
                               edition="插图本", series="沈从文文集 ; 8", original_title=None), ColumnMapping(),
                           vocabulary)
    assert book.subjects == ("长篇小说—中国—现代", "湘西") and book.classification == ("clc:I246.5",)
    assert (book.edition, book.series) == ("插图本", "沈从文文集 ; 8")
    # codes without a scheme: Dewey digits are ddc, letters are CLC in a Chinese book and LCC otherwise
    en, _ = validate_row(row(language="en", classification="823.914|PR6059.S5 R46"), ColumnMapping(), vocabulary)
    assert en.classification == ("ddc:823.914", "lcc:PR6059.S5 R46")
    # no classification column: the class part of the call number
    called, _ = validate_row(row(call_no="I246.7/2730"), ColumnMapping(), vocabulary)
    assert called.classification == ("clc:I246.7",)


def test_mapping_renames_splits_prefixes_ignores_and_fills_defaults(vocabulary):
    mapping = ColumnMapping(columns={"book_id": "id", "pub_year": "year", "tags.genre": "genre", "subjects": "tags"},
                            split={"authors": ","}, defaults={"copies_available": 1}, id_prefix="gb-",
                            ignore=("summary",))
    book, _ = validate_row({"id": 7.0, "title": "Dune", "authors": "Frank Herbert, Someone Else",
                            "year": "1965.0", "genre": "科幻|小说", "tags": "space|desert",
                            "summary": "ignored"}, mapping, vocabulary)
    assert book.book_id == "gb-7"
    assert book.authors == ("Frank Herbert", "Someone Else")
    assert book.pub_year == 1965 and book.copies_available == 1
    assert book.tags == {"genre": ("科幻", "小说")} and book.subjects == ("space", "desert")
    assert book.summary is None and book.language == "en"


def test_negative_years_of_ancient_works_are_possible(vocabulary):
    assert validate_row(row(pub_year="-1750"), ColumnMapping(), vocabulary)[0].pub_year == -1750


def test_readers_of_numbers_with_units():
    assert read_year("c1998").value == 1998 and read_year("[1998?]").value == 1998
    assert read_year("2015-2016").warning == "read '2015-2016' as 2015"
    assert read_pages("1 sound disc").value is None and read_pages(120.0).value == 120
