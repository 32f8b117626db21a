"""CSV and TSV exports in the encodings libraries write: read as what they are, and the import says what that was."""

import pytest

from tasks.intake.formats import CatalogFileError
from tasks.catalog.ingest import ColumnMapping, validate_file

HEADER = "book_id,title,authors\n"
TITLE = "边城：湘西小城茶峒的渡船老人和孙女翠翠"


@pytest.mark.parametrize(("codec", "told"), [("gbk", "GB18030 (detected)"), ("gb18030", "GB18030 (detected)"),
                                             ("utf-16", "UTF-16 (byte-order mark)"), ("utf-8", "UTF-8"),
                                             ("utf-8-sig", "UTF-8 (byte-order mark)")])
def test_chinese_exports_read_in_their_encoding(tmp_path, vocabulary, codec, told):
    source = tmp_path / "books.csv"
    source.write_bytes((HEADER + f"b-1,{TITLE},沈从文\nb-2,长河,沈从文\n").encode(codec))
    rows = validate_file(source, ColumnMapping(), vocabulary)
    assert [b.title for b in rows.books] == [TITLE, "长河"]
    assert rows.encoding == told


def test_latin1_is_detected_and_a_named_encoding_wins(tmp_path, vocabulary):
    source = tmp_path / "books.tsv"
    source.write_bytes((HEADER + "b-1,Café crème à la façon de Proust,Brontë\n").replace(",", "\t").encode("latin-1"))
    rows = validate_file(source, ColumnMapping(), vocabulary)
    assert rows.books[0].title == "Café crème à la façon de Proust" and "detected" in rows.encoding
    named = validate_file(source, ColumnMapping(), vocabulary, encoding="latin-1")
    assert named.books[0].authors == ("Brontë",) and named.encoding == "Latin-1 (named)"


def test_a_wrong_named_encoding_is_one_clear_error(tmp_path, vocabulary):
    source = tmp_path / "books.csv"
    source.write_bytes((HEADER + f"b-1,{TITLE},沈从文\n").encode("gbk"))
    with pytest.raises(CatalogFileError, match=r"books\.csv: not UTF-8 text .*--encoding"):
        validate_file(source, ColumnMapping(), vocabulary, encoding="utf-8")
