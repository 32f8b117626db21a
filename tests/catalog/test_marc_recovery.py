"""MARC files as exports really come: a broken record among good ones, a record over 99,999 bytes, records whose
declared encoding is not their own, CNMARC in UTF-8 and in GBK. Records are built and written with pymarc; a
byte encoding pymarc cannot write (GBK) goes through its RawField."""

from __future__ import annotations

import re
from pathlib import Path

from pymarc import Field, Indicators, RawField, Record, Subfield

from tasks.catalog.ingest import ColumnMapping, validate_file
from tests.conftest import PROJECT_ROOT

PYMARC = PROJECT_ROOT / "tests" / "data" / "pymarc"


def marc21(book_id: str, title: str, author: str = "Lem, Stanislaw", utf8_leader: bool = True,
           status: str = "n") -> Record:
    record = Record(leader=f"00000{status}am {'a' if utf8_leader else ' '}2200000   4500")
    record.add_field(Field(tag="001", data=book_id),
                     Field(tag="008", data="850101s1961    pl            000 1 pol d"),
                     Field(tag="100", indicators=Indicators("1", " "), subfields=[Subfield("a", author)]),
                     Field(tag="245", indicators=Indicators("1", "0"), subfields=[Subfield("a", title)]))
    return record


def cnmarc(book_id: str, title: str, author_surname: str, author_forename: str, charset: str) -> Record:
    """A CNMARC record written the standard UNIMARC way: leader/09 blank, the character set in 100$a/26-29."""
    record = Record(leader="00000nam0 2200000   450 ")
    coded = "20050101d2005    em y0chiy" + charset + "    ea"
    record.add_field(Field(tag="001", data=book_id),
                     Field(tag="100", indicators=Indicators(" ", " "), subfields=[Subfield("a", coded)]),
                     Field(tag="101", indicators=Indicators("0", " "), subfields=[Subfield("a", "chi")]),
                     Field(tag="200", indicators=Indicators("1", " "), subfields=[Subfield("a", title)]),
                     Field(tag="700", indicators=Indicators(" ", "0"),
                           subfields=[Subfield("a", author_surname), Subfield("b", author_forename)]))
    return record


def encoded(record: Record, codec: str) -> bytes:
    """The record in ISO 2709 with its text in `codec`, its leader as it is (pymarc writes UTF-8 or Latin-1 only)."""
    raw = Record(leader=str(record.leader), to_unicode=False)
    raw.leader = record.leader  # keep leader/09 and UNIMARC's 450_ as given
    for field in record.fields:
        if field.is_control_field():
            raw.add_field(RawField(tag=field.tag, data=field.data.encode(codec)))
        else:
            raw.add_field(RawField(tag=field.tag, indicators=field.indicators,
                                   subfields=[Subfield(s.code, s.value.encode(codec)) for s in field.subfields]))
    return raw.as_marc()


def utf8(record: Record) -> bytes:
    return encoded(record, "utf-8")


def read(tmp_path: Path, vocabulary, data: bytes, fmt: str | None = None, name: str = "export.mrc"):
    source = tmp_path / name
    source.write_bytes(data)
    return validate_file(source, ColumnMapping(), vocabulary, fmt)


def test_a_record_with_a_wrong_length_in_the_middle_costs_only_itself(tmp_path, vocabulary):
    first, broken, third, fourth = (utf8(marc21(f"m-{i}", f"Book {i}")) for i in range(1, 5))
    broken = b"00999" + broken[5:]  # the leader's length lies
    rows = read(tmp_path, vocabulary, first + broken + third + fourth)
    assert [b.book_id for b in rows.books] == ["m-1", "m-3", "m-4"]
    assert [(r.row_number, r.field) for r in rows.rejected] == [(2, "(row)")]
    assert rows.rejected[0].reason.startswith(f"record at byte {len(first)}: the leader says 999 bytes")
    assert rows.read == len(rows.books) + len(rows.withdrawn) + len(rows.rejected) == 4


def test_a_record_that_lost_its_terminator_is_cut_off_at_the_next_leader(tmp_path, vocabulary):
    first, truncated, third = (utf8(marc21(f"m-{i}", f"Book {i}")) for i in range(1, 4))
    rows = read(tmp_path, vocabulary, first + truncated[:-30] + third)
    assert [b.book_id for b in rows.books] == ["m-1", "m-3"]
    assert len(rows.rejected) == 1 and f"byte {len(first)}" in rows.rejected[0].reason
    assert rows.read == 3


def test_a_record_over_99999_bytes_is_read_by_its_terminator_and_the_next_one_kept(tmp_path, vocabulary):
    big = marc21("big-1", "Collected Letters")
    for i in range(700):  # a holdings export: one 952 item per copy
        big.add_field(Field(tag="952", indicators=Indicators(" ", " "),
                            subfields=[Subfield("a", "MAIN"), Subfield("p", f"3900{i:08d}"),
                                       Subfield("o", "PG7158 .L39 " + "x" * 120)]))
    # What exporters write: a length of 99999, directory offsets past 99999 cut to their last five digits.
    fields = [f.as_marc(encoding="utf-8") for f in big.fields]
    directory, offset = b"", 0
    for field, data in zip(big.fields, fields):
        directory += f"{field.tag}{len(data):04d}{offset % 100_000:05d}".encode()
        offset += len(data)
    base = 24 + len(directory) + 1
    data = f"99999nam a22{base:05d}   4500".encode() + directory + b"\x1e" + b"".join(fields) + b"\x1d"
    assert len(data) > 99_999
    rows = read(tmp_path, vocabulary, utf8(marc21("m-0", "Before")) + data + utf8(marc21("m-2", "After")))
    assert [b.book_id for b in rows.books] == ["m-0", "big-1", "m-2"]
    assert rows.rejected == []


def test_utf8_text_under_a_marc8_leader_is_read_as_utf8_with_a_warning(tmp_path, vocabulary):
    rows = read(tmp_path, vocabulary, utf8(marc21("m-1", "Café crème à la façon de Proust", "Brontë, Charlotte",
                                                  utf8_leader=False)))
    assert rows.books[0].title == "Café crème à la façon de Proust"
    assert rows.books[0].authors == ("Charlotte Brontë",)
    assert [(w.field, w.message) for w in rows.warnings if w.field == "encoding"] == [
        ("encoding", "declared MARC-8 (leader/09 blank), read as UTF-8 by its content")]


def test_a_true_marc8_record_stays_marc8(tmp_path, vocabulary):
    record = marc21("m-1", "Cafex", utf8_leader=False)
    data = encoded(record, "latin-1").replace(b"Cafex", b"Caf\xe2e")  # MARC-8: the acute accent before its letter
    rows = read(tmp_path, vocabulary, data)
    assert rows.books[0].title == "Café"
    assert not [w for w in rows.warnings if w.field == "encoding"]


def test_gbk_bytes_under_a_utf8_leader_are_read_as_chinese(tmp_path, vocabulary):
    record = marc21("m-1", "三体：地球往事，一部关于文明与宇宙的小说", "刘慈欣")
    rows = read(tmp_path, vocabulary, encoded(record, "gbk"))
    assert rows.books[0].title == "三体：地球往事，一部关于文明与宇宙的小说"
    assert "read as GB18030" in next(w.message for w in rows.warnings if w.field == "encoding")


def test_cnmarc_in_utf8_and_in_gbk_import_readable_chinese(tmp_path, vocabulary):
    title, surname, forename = "边城：湘西小城茶峒的渡船与翠翠", "沈", "从文"
    as_utf8 = cnmarc("c-1", title, surname, forename, "50  ")
    as_gbk = cnmarc("c-2", title, surname, forename, "0120")
    labelled_wrong = cnmarc("c-3", title, surname, forename, "0120")  # says GB, holds UTF-8: a common export mistake
    for fmt in ("cnmarc", None):
        rows = read(tmp_path, vocabulary, utf8(as_utf8) + encoded(as_gbk, "gb18030") + utf8(labelled_wrong), fmt,
                    name="cnmarc.iso")
        # a Chinese name is surname then forename, unspaced (tasks/catalog/names.py)
        assert [(b.book_id, b.title, b.authors) for b in rows.books] == [
            (f"c-{i}", title, ("沈从文",)) for i in (1, 2, 3)]
        assert [w.row_number for w in rows.warnings if w.field == "encoding"] == [3]


def test_a_named_encoding_wins_over_detection(tmp_path, vocabulary):
    source = tmp_path / "big5.mrc"
    source.write_bytes(encoded(marc21("m-1", "北京"), "big5"))  # too short to tell from GBK
    rows = validate_file(source, ColumnMapping(), vocabulary, None, "big5")
    assert rows.books[0].title == "北京"


def test_a_deleted_record_withdraws_its_book(tmp_path, vocabulary):
    rows = read(tmp_path, vocabulary, utf8(marc21("m-1", "Kept")) + utf8(marc21("m-2", "Gone", status="d")))
    assert [b.book_id for b in rows.books] == ["m-1"]
    assert rows.withdrawn == ["m-2"]
    assert rows.read == 2


# ---- real records: pymarc's test data (tests/data/pymarc/ENCODINGS.md) ----------------------------------------

def test_pymarcs_broken_records_cost_only_themselves(vocabulary):
    rows = validate_file(PYMARC / "bad_records.mrc", ColumnMapping(), vocabulary, "marc21")
    unreadable = [r for r in rows.rejected if r.field == "(row)"]
    assert rows.read == 8 and [r.row_number for r in unreadable] == [2, 3, 4, 5, 6, 7]
    assert all(re.match(r"record at byte \d+: ", r.reason) for r in unreadable)
    # the two good records are read whole; they carry no 001, so only that is said of them
    assert [(r.row_number, r.field, r.raw["title"]) for r in rows.rejected if r.field != "(row)"] == [
        (1, "book_id", "The pragmatic programmer"), (8, "book_id", "The pragmatic programmer")]


def test_pymarcs_utf8_record_under_a_marc8_leader_reads_as_its_marc8_twin(vocabulary):
    mislabelled = validate_file(PYMARC / "utf8_without_leader_flag.dat", ColumnMapping(), vocabulary, "marc21")
    marc8 = validate_file(PYMARC / "marc8.dat", ColumnMapping(), vocabulary, "marc21")
    assert [b.content_hash for b in mislabelled.books] == [b.content_hash for b in marc8.books]
    assert [w.field for w in mislabelled.warnings if w.field == "encoding"] == ["encoding"]
    assert not [w for w in marc8.warnings if w.field == "encoding"]


def test_pymarcs_unimarc_record_is_read_as_unimarc(vocabulary):
    rows = validate_file(PYMARC / "testunimarc.dat", ColumnMapping(), vocabulary, "cnmarc")
    assert [b.title for b in rows.books] == ["L'altra faccia della spirale"]
