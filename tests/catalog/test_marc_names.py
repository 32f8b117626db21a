"""Names and record facts as MARC exports write them: Library of Congress records from pymarc's test data
(tests/data/pymarc), and CNMARC records written with pymarc the way Chinese libraries catalog translations."""

import unicodedata

from pymarc import Field, Indicators, MARCWriter, Record, Subfield

from storage.catalog_db import open_catalog
from tasks.catalog.crosswalk import default_crosswalk
from tasks.catalog.ingest import ColumnMapping, validate_file
from tests.conftest import PROJECT_ROOT

PYMARC = PROJECT_ROOT / "tests" / "data" / "pymarc"


def test_library_of_congress_names_read_as_shelved(vocabulary):
    rows = validate_file(PYMARC / "marc.dat", ColumnMapping(), vocabulary, "marc21")
    assert rows.rejected == []
    authors = {b.book_id: b.authors for b in rows.books}
    assert authors["11778504"] == ("Andrew Hunt", "David Thomas")  # "Hunt, Andrew, 1964-"
    assert authors["12565514"][0] == "George K. Thiruvathukal"  # "$q (George Kuriakose)" is a fuller form
    assert authors["12370044"] == ("Thomas H. Cormen",)  # a name-title added entry ($t) is the same person
    assert all("," not in a and not any(c.isdigit() for c in a) for names in authors.values() for a in names)


def test_a_translation_says_it_is_one(vocabulary):
    [book] = validate_file(PYMARC / "utf8_with_leader_flag.dat", ColumnMapping(), vocabulary, "marc21").books
    assert book.authors == ("Paul Tournier",)  # 041 1# says a translation; 240 gives the original's title
    assert unicodedata.normalize("NFC", book.original_title) == "De la solitude à la communauté"


def cnmarc(number: str, title: str, persons: list[list[Subfield]], original: str | None = None,
           clc: str | None = None) -> Record:
    """A CNMARC record: 701 the author with its nationality ($c) and relator code ($4), 702 the translator."""
    record = Record(force_utf8=True)
    record.add_field(Field(tag="001", data=number),
                     Field(tag="101", indicators=Indicators("1" if original else "0", " "),
                           subfields=[Subfield("a", "chi"), *([Subfield("c", original)] if original else [])]),
                     Field(tag="200", indicators=Indicators("1", " "), subfields=[Subfield("a", title)]))
    for tag, subfields in zip(("701", "702", "702"), persons):
        record.add_field(Field(tag=tag, indicators=Indicators(" ", "0"), subfields=subfields))
    if clc:
        record.add_field(Field(tag="690", indicators=Indicators(" ", " "), subfields=[Subfield("a", clc)]))
    return record


def test_cnmarc_translations_keep_their_author_his_nation_and_no_translator(tmp_path, vocabulary):
    source = tmp_path / "translations.iso"
    with open(source, "wb") as fh:
        writer = MARCWriter(fh)
        writer.write(cnmarc("1", "白夜行", [[Subfield("c", "(日)"), Subfield("a", "东野圭吾"), Subfield("4", "著")],
                                          [Subfield("a", "刘姿君"), Subfield("4", "译")]], original="jpn"))
        writer.write(cnmarc("2", "罪与罚", [[Subfield("c", "俄"), Subfield("a", "陀思妥耶夫斯基"), Subfield("4", "070")],
                                          [Subfield("a", "汝龙"), Subfield("4", "730")]], clc="I512.44"))
        writer.write(cnmarc("3", "小王子", [[Subfield("c", "法"), Subfield("a", "圣埃克苏佩里")],
                                          [Subfield("a", "李继宏")]]))  # a 702 without its code: no author
    books = {b.book_id: b for b in validate_file(source, ColumnMapping(), vocabulary, "cnmarc").books}
    assert {i: b.authors for i, b in books.items()} == {"1": ("东野圭吾",), "2": ("陀思妥耶夫斯基",), "3": ("圣埃克苏佩里",)}
    assert books["1"].original_language == "jpn" and books["1"].credits == ("[日]东野圭吾", "刘姿君 [translator]")
    crosswalk = default_crosswalk(vocabulary)
    said = {i: {(f.value, f.because.split(" ")[0]) for f in crosswalk.literatures.facets(b)} for i, b in books.items()}
    assert said == {"1": {("japanese", "author"), ("japanese", "original")},
                    "2": {("russian", "author"), ("russian", "clc")}, "3": {("french", "author")}}
    with open_catalog(tmp_path / "catalog.duckdb") as db:  # the credits and the original language are kept
        db.import_books(list(books.values()), [], str(source))
        stored = {b.book_id: b for b in db.load_books()}["1"]
    assert (stored.credits, stored.original_language) == (books["1"].credits, "jpn")


def test_a_statement_of_responsibility_says_what_a_name_without_relator_did(tmp_path, vocabulary):
    record = Record(force_utf8=True)
    record.add_field(
        Field(tag="001", data="hp1"),
        Field(tag="100", indicators=Indicators("1", " "), subfields=[Subfield("a", "Rowling, J. K.")]),
        Field(tag="245", indicators=Indicators("1", "0"), subfields=[
            Subfield("a", "Harry Potter and the sorcerer's stone /"),
            Subfield("c", "by J.K. Rowling ; illustrations by Mary GrandPré.")]),
        Field(tag="700", indicators=Indicators("1", " "), subfields=[Subfield("a", "GrandPré, Mary.")]),
        Field(tag="700", indicators=Indicators("1", " "), subfields=[Subfield("a", "Someone, Else.")]))
    source = tmp_path / "hp.mrc"
    with open(source, "wb") as fh:
        MARCWriter(fh).write(record)
    [book] = validate_file(source, ColumnMapping(), vocabulary, "marc21").books
    assert book.authors == ("J. K. Rowling", "Else Someone")  # a name the statement does not give stays an author
    assert "GrandPré, Mary [illustrator]" in book.credits
