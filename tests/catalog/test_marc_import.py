"""MARC import: MARC21 binary, MARCXML and CNMARC records written with pymarc, read into a real catalog."""

from pathlib import Path

import pytest
from pymarc import Field, Indicators, MARCWriter, Record, Subfield, XMLWriter

from storage.catalog_db import open_catalog
from tasks.catalog.ingest import ColumnMapping, validate_file


def marc21_remains_of_the_day() -> Record:
    """As LC catalogs it: name under the surname with dates, LCSH with subdivisions, a series, an edition."""
    record = Record(force_utf8=True)
    record.add_field(
        Field(tag="001", data="89045396"),
        Field(tag="008", data="890711s1989    enk           000 1 eng  "),
        Field(tag="020", indicators=Indicators(" ", " "), subfields=[Subfield("a", "0571154913 (pbk.)")]),
        Field(tag="050", indicators=Indicators("0", "0"), subfields=[Subfield("a", "PR6059.S5"),
                                                                     Subfield("b", "R46 1989")]),
        Field(tag="082", indicators=Indicators("0", "0"), subfields=[Subfield("a", "823/.914"), Subfield("2", "20")]),
        Field(tag="100", indicators=Indicators("1", " "), subfields=[Subfield("a", "Ishiguro, Kazuo,"),
                                                                     Subfield("d", "1954-")]),
        Field(tag="245", indicators=Indicators("1", "4"), subfields=[Subfield("a", "The remains of the day /"),
                                                                     Subfield("c", "Kazuo Ishiguro.")]),
        Field(tag="250", indicators=Indicators(" ", " "), subfields=[Subfield("a", "1st Vintage International ed.")]),
        Field(tag="264", indicators=Indicators(" ", "1"), subfields=[Subfield("a", "London :"),
                                                                     Subfield("b", "Faber and Faber,"),
                                                                     Subfield("c", "1989.")]),
        Field(tag="300", indicators=Indicators(" ", " "), subfields=[Subfield("a", "245 p. ;"),
                                                                     Subfield("c", "21 cm.")]),
        Field(tag="490", indicators=Indicators("1", " "), subfields=[Subfield("a", "Vintage international ;"),
                                                                     Subfield("v", "V-34")]),
        Field(tag="650", indicators=Indicators(" ", "0"), subfields=[Subfield("a", "Butlers"),
                                                                     Subfield("v", "Fiction.")]),
        Field(tag="650", indicators=Indicators(" ", "0"), subfields=[Subfield("a", "Country homes"),
                                                                     Subfield("z", "England"), Subfield("v", "Fiction.")]),
        Field(tag="651", indicators=Indicators(" ", "0"), subfields=[Subfield("a", "England"),
                                                                     Subfield("x", "Social life and customs"),
                                                                     Subfield("y", "20th century"),
                                                                     Subfield("v", "Fiction.")]),
        Field(tag="700", indicators=Indicators("1", " "), subfields=[Subfield("a", "Someone, Ann,"),
                                                                     Subfield("e", "translator.")]),
    )
    return record  # no 520: many real records have no summary


def marc21_children() -> Record:
    record = Record(force_utf8=True)
    record.add_field(
        Field(tag="001", data="70120391"),
        Field(tag="008", data="700101s1970    nyu    j      000 1 eng  "),
        Field(tag="082", indicators=Indicators("0", "0"), subfields=[Subfield("a", "[E]")]),
        Field(tag="100", indicators=Indicators("1", " "), subfields=[Subfield("a", "Lobel, Arnold.")]),
        Field(tag="245", indicators=Indicators("1", "0"), subfields=[Subfield("a", "Frog and Toad are friends.")]),
        Field(tag="520", indicators=Indicators(" ", " "), subfields=[Subfield("a", "Five tales of two friends.")]),
        Field(tag="650", indicators=Indicators(" ", "1"), subfields=[Subfield("a", "Frogs"),
                                                                     Subfield("v", "Juvenile fiction.")]),
    )
    return record


def cnmarc_biancheng() -> Record:
    """A CNMARC record as Chinese libraries write it: 200 title, 690 CLC, 606 subjects, 701 author."""
    record = Record(force_utf8=True)
    record.leader = record.leader[:9] + "a" + record.leader[10:]
    record.add_field(
        Field(tag="001", data="012004567890"),
        Field(tag="010", indicators=Indicators(" ", " "), subfields=[Subfield("a", "978-7-02-014563-1"),
                                                                     Subfield("d", "CNY25.00")]),
        Field(tag="100", indicators=Indicators(" ", " "), subfields=[Subfield("a", "20180601d2018    em y0chiy50      ea")]),
        Field(tag="101", indicators=Indicators("0", " "), subfields=[Subfield("a", "chi")]),
        Field(tag="200", indicators=Indicators("1", " "), subfields=[Subfield("a", "边城"), Subfield("e", "插图本"),
                                                                     Subfield("f", "沈从文著")]),
        Field(tag="205", indicators=Indicators(" ", " "), subfields=[Subfield("a", "2版")]),
        Field(tag="210", indicators=Indicators(" ", " "), subfields=[Subfield("a", "北京"),
                                                                     Subfield("c", "人民文学出版社"),
                                                                     Subfield("d", "2018")]),
        Field(tag="215", indicators=Indicators(" ", " "), subfields=[Subfield("a", "128页"), Subfield("d", "21cm")]),
        Field(tag="225", indicators=Indicators("2", " "), subfields=[Subfield("a", "语文新课标必读丛书")]),
        Field(tag="330", indicators=Indicators(" ", " "), subfields=[Subfield("a", "湘西小城茶峒，翠翠和祖父的故事。")]),
        Field(tag="606", indicators=Indicators("0", " "), subfields=[Subfield("a", "中篇小说"), Subfield("y", "中国"),
                                                                     Subfield("z", "现代")]),
        Field(tag="690", indicators=Indicators(" ", " "), subfields=[Subfield("a", "I246.5"), Subfield("v", "5")]),
        Field(tag="701", indicators=Indicators(" ", "0"), subfields=[Subfield("a", "沈从文"), Subfield("4", "著")]),
        Field(tag="702", indicators=Indicators(" ", "0"), subfields=[Subfield("a", "黄永玉"), Subfield("4", "440")]),
    )
    return record


def write_binary(path: Path, records) -> Path:
    with open(path, "wb") as fh:
        writer = MARCWriter(fh)
        for record in records:
            writer.write(record)
    return path


def test_marc21_records_become_catalog_books(tmp_path, vocabulary):
    source = write_binary(tmp_path / "export.mrc", [marc21_remains_of_the_day(), marc21_children()])
    rows = validate_file(source, ColumnMapping(), vocabulary)
    assert rows.rejected == [] and rows.warnings == []
    remains, frog = rows.books
    assert (remains.book_id, remains.title, remains.authors) == ("89045396", "The remains of the day",
                                                                  ("Kazuo Ishiguro",))  # the translator is no author
    assert (remains.isbn, remains.pub_year, remains.language, remains.pages) == ("0571154913", 1989, "en", 245)
    assert (remains.publisher, remains.edition, remains.series) == ("Faber and Faber",
                                                                    "1st Vintage International ed.",
                                                                    "Vintage international ; V-34")
    assert remains.classification == ("ddc:823.914", "lcc:PR6059.S5 R46 1989")
    assert remains.subjects == ("Butlers -- Fiction", "Country homes -- England -- Fiction",
                                "England -- Social life and customs -- 20th century -- Fiction")
    assert remains.summary is None
    assert frog.subjects == ("Frogs -- Juvenile fiction",) and frog.classification == ("ddc:[E]",)
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        assert db.import_books(rows.books, rows.rejected, str(source)).inserted == 2
        stored = {b.book_id: b for b in db.load_books()}["89045396"]
        assert stored.subjects == remains.subjects and stored.classification == remains.classification


def test_marcxml_reads_like_the_binary_records(tmp_path, vocabulary):
    source = tmp_path / "export.xml"
    writer = XMLWriter(open(source, "wb"))
    writer.write(marc21_remains_of_the_day())
    writer.close()
    binary = validate_file(write_binary(tmp_path / "same.mrc", [marc21_remains_of_the_day()]), ColumnMapping(),
                           vocabulary)
    assert [b.content_hash for b in validate_file(source, ColumnMapping(), vocabulary).books] == \
        [b.content_hash for b in binary.books]


def test_cnmarc_records_become_catalog_books(tmp_path, vocabulary):
    source = write_binary(tmp_path / "cnmarc.iso", [cnmarc_biancheng()])
    for fmt in ("cnmarc", None):  # named, or recognised by its 200 title field
        [book] = validate_file(source, ColumnMapping(), vocabulary, fmt).books
        assert (book.book_id, book.title, book.subtitle, book.authors) == ("012004567890", "边城", "插图本", ("沈从文",))
        assert (book.isbn, book.pub_year, book.language, book.pages) == ("978-7-02-014563-1", 2018, "zh", 128)
        assert (book.publisher, book.edition, book.series) == ("人民文学出版社", "2版", "语文新课标必读丛书")
        assert book.classification == ("clc:I246.5",) and book.subjects == ("中篇小说—中国—现代",)
        assert book.summary == "湘西小城茶峒，翠翠和祖父的故事。"


def test_unreadable_records_are_rejected_with_their_reason_and_the_rest_kept(tmp_path, vocabulary):
    good = write_binary(tmp_path / "good.mrc", [marc21_children()]).read_bytes()
    no_id = marc21_children()
    no_id.remove_fields("001")
    broken = bytearray(good)
    broken[12:17] = b"99999"  # base address beyond the record
    source = tmp_path / "mixed.mrc"
    source.write_bytes(good + bytes(broken) + write_binary(tmp_path / "x.mrc", [no_id]).read_bytes())
    rows = validate_file(source, ColumnMapping(), vocabulary)
    assert [b.book_id for b in rows.books] == ["70120391"]
    assert [(r.row_number, r.field) for r in rows.rejected] == [(2, "(row)"), (3, "book_id")]
    assert "record at byte 278: base address" in rows.rejected[0].reason


def test_an_unknown_extension_names_the_formats(tmp_path, vocabulary):
    source = tmp_path / "export.dat"
    source.write_bytes(b"")
    with pytest.raises(Exception, match="name the format with --format"):
        validate_file(source, ColumnMapping(), vocabulary)
