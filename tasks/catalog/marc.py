"""MARC records as catalog rows: MARC21 (binary ISO 2709 or MARCXML) and Chinese CNMARC / UNIMARC.

Each record becomes a row keyed by catalog field names, so that the usual validation applies: a record
without a control number (001) or a title is rejected with its reason, a record pymarc cannot parse is
rejected with pymarc's reason, and the others are read field by field:

MARC21   001 id, 020 ISBN, 008/041 language, 041 $h original language, 050 LCC, 082 DDC, 084 (with $2 clc) CLC,
         100/700 persons with their relator ($e, $4: a translator or illustrator is no author),
         240 original title, 245 title/subtitle, 250 edition, 260/264 publisher and year, 300 pages,
         490 series, 505 contents, 520 summary, 545 author note, 600-655 subjects ("Heading -- Subdivision"),
         653 uncontrolled terms (reader tags) as subjects, 852 $h $i call number, 952 items (Koha's
         holdings export) counted as copies available unless on loan, lost, withdrawn or not for loan;
         leader/06-07 the material (config/materials.yaml), 008/22 target audience (books, music, computer files,
         visual materials) and 008/33 literary form (books) as coded values the crosswalk reads.
UNIMARC  001 id, 010 ISBN, 101 language, 200 title/subtitle, 205 edition, 210 publisher and year,
         215 pages, 225 series, 327 contents, 330 summary, 454/500 original title, 600-610 subjects,
         690 CLC, 676 DDC, 680 LCC, 101 $c original language, 700/701/702 persons with their nationality ($c)
         and relator code ($4; 702 is no author unless its code says so), else 200 $f/$g; leader/06-07 the
         material, 100 $a/17-19 target audience and 105 $a/11 literary form as coded values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pymarc

from config.materials import get_materials
from tasks.catalog.fields import read_pages
from tasks.intake.formats import CatalogFileError, ReadReport
from tasks.catalog.marc_records import MarcRecord, read_iso2709
from tasks.catalog.names import name_key, name_marks, read_credits

# Non-filing markers around leading articles ("℗L'℗altra faccia") and other C1 controls MARC-8 leaves.
_NON_FILING = re.compile(r"[\u0080-\u009f\u2117]")
_TRAILING = re.compile(r"[\s/:;,=]+$")
# A final period is ISBD punctuation, except after an abbreviation or an initial ("2nd ed.", "Jr.", "J.").
_ABBREVIATED = re.compile(r"(?:\b(?:ed|eds|rev|enl|p|pp|v|vol|vols|no|nos|inc|ltd|co|jr|sr|st|dr|ca|cm)|\b\w)\.$",
                          re.IGNORECASE)
_SUBJECT_TAGS_MARC21 = ("600", "610", "611", "630", "650", "651", "653", "655")
# Koha's item subfields that keep an item off the shelf: $q due date, $7 not for loan, $1 lost, $0 withdrawn.
_ITEM_UNAVAILABLE = ("7", "1", "0")
# 008 positions by the material's own 008: target audience at 22 for books (a, t), computer files (m), music (c, d,
# i, j) and visual materials (g, k, o, r); literary form at 33 for books only, never a serial's (there 33 is its
# title's alphabet).
_AUDIENCE_TYPES = frozenset("atmcdijgkor")
_LITERARY_FORM_TYPES, _SERIAL_LEVELS = frozenset("at"), frozenset("si")
_UNCODED = frozenset(" |#")
_SUBJECT_TAGS_UNIMARC = ("600", "601", "602", "604", "605", "606", "607", "608", "610")


def _clean(text: str | None) -> str | None:
    if not text:
        return None
    cleaned = _TRAILING.sub("", _NON_FILING.sub("", text)).strip()
    while cleaned.endswith(".") and not _ABBREVIATED.search(cleaned):
        cleaned = _TRAILING.sub("", cleaned[:-1]).strip()
    return cleaned or None


def _first(record: pymarc.Record, tag: str, code: str) -> str | None:
    for field in record.get_fields(tag):
        values = field.get_subfields(code)
        if values:
            return _clean(values[0])
    return None


def _control(record: pymarc.Record, tag: str) -> str | None:
    fields = record.get_fields(tag)
    return fields[0].data.strip() if fields and fields[0].is_control_field() and fields[0].data.strip() else None


def _person(field: pymarc.Field, unimarc: bool, role: str = "author", stated: Mapping[str, str] = {}) -> str | None:
    """A person's statement as tasks/catalog/names.py reads it: "Ishiguro, Kazuo, 1954-", "Someone, Ann, [translator]",
    "[日]东野圭吾". The role comes from the relator term ($e) or code ($4), else from what the statement of
    responsibility says of that name (`stated`: name key -> role; "illustrations by Mary GrandPré"), else `role`."""
    marks = name_marks()
    said = [marks.role_of(r) for r in field.get_subfields("e", "4")]
    key = name_key(" ".join(v.strip() for v in field.get_subfields("a", "q", "b")))
    role = next((r for r in said if r), stated.get(key, role))
    if unimarc:
        surname, forename = _clean(field.get("a")), _clean((field.get("b") or "").lstrip(", "))
        name = surname if not forename else f"{surname}{forename}" if re.search(r"[\u3400-\u9fff]", surname or "") \
            else f"{surname}, {forename}"
        nation = (field.get("c") or "").strip(" ()（）[]［］〔〕")
        name = f"[{nation}]{name}" if name and nation else name
    else:
        name = _clean(" ".join(v.strip() for v in field.get_subfields("a", "q", "d")))
    return None if not name else name if role == "author" else f"{name} [{role}]"


def _subject(field: pymarc.Field, separator: str) -> str | None:
    """One heading with its subdivisions: "World War, 1939-1945 -- Fiction"."""
    main = " ".join(_clean(v) or "" for v in field.get_subfields("a", "b", "c", "d", "t")).strip()
    parts = [main] + [_clean(v) for v in field.get_subfields("x", "y", "z", "v", "j")]
    heading = separator.join(p for p in parts if p)
    return heading or None


def _year(text: str | None) -> str | None:
    found = re.search(r"(?<!\d)(\d{4})(?!\d)", text or "")
    return found.group(1) if found else None


def _copies_available(record: pymarc.Record) -> int | None:
    """Items a reader could take home today; None when the record carries no items at all."""
    items = record.get_fields("952")
    if not items:
        return None
    return sum(1 for item in items if not item.get("q")
               and all((item.get(code) or "0").strip() in ("", "0") for code in _ITEM_UNAVAILABLE))


def _looks_unimarc(record: pymarc.Record) -> bool:
    """UNIMARC keeps the title in 200 and has no 245."""
    return bool(record.get_fields("200")) and not record.get_fields("245")


def _coded(pairs: tuple[tuple[str, str], ...]) -> list[str]:
    """Coded values as "scheme:code" (the crosswalk's `coded` section reads them); a blank or fill character, or a
    position the record is too short to have, codes nothing."""
    return [f"{scheme}:{code}" for scheme, code in pairs if code and code not in _UNCODED]


def _marc21_coded(leader: str, fixed: str) -> list[str]:
    kind, level = leader[6:7], leader[7:8]
    return _coded((("marc21_audience", fixed[22:23] if kind in _AUDIENCE_TYPES else ""),
                   ("marc21_literary_form", fixed[33:34] if kind in _LITERARY_FORM_TYPES
                    and level not in _SERIAL_LEVELS else "")))


def marc21_row(record: pymarc.Record) -> dict[str, Any]:
    """A MARC21 bibliographic record as catalog fields."""
    fixed = _control(record, "008") or ""
    title = " ".join(v for v in (_first(record, "245", c) for c in ("a", "n", "p")) if v)
    # 245 $c says what a 700 without a relator did: "by J.K. Rowling ; illustrations by Mary GrandPré"
    stated = {name_key(c.name): c.role for f in record.get_fields("245") for c in read_credits(f.get_subfields("c"))}
    authors = [_person(f, unimarc=False, stated=stated) for f in record.get_fields("100", "700")]
    coded = record.get_fields("041")
    publication = record.get_fields("264") or record.get_fields("260")
    publisher = next((_clean(f.get("b")) for f in publication if f.get("b")), None)
    year = fixed[7:11] if fixed[7:11].isdigit() else next((_year(f.get("c")) for f in publication if f.get("c")), None)
    series = next((" ; ".join(_clean(v) for v in f.get_subfields("a", "v") if _clean(v))
                   for f in record.get_fields("490", "830")), None)
    clc = [_clean(f.get("a")) for f in record.get_fields("084") if (f.get("2") or "").strip().lower() == "clc"]
    lcc = [" ".join(v.strip() for v in f.get_subfields("a", "b")) for f in record.get_fields("050")]
    call_no = next((" ".join(v.strip() for v in f.get_subfields("h", "i")) for f in record.get_fields("852")), None)
    return {
        "book_id": _control(record, "001"),
        "isbn": (_first(record, "020", "a") or "").split(" ")[0] or None,
        "title": _clean(title),
        "subtitle": _first(record, "245", "b"),
        "authors": [a for a in dict.fromkeys(authors) if a],
        "publisher": publisher,
        "pub_year": year,
        "language": fixed[35:38] if fixed[35:38].isalpha() else _first(record, "041", "a"),
        "original_language": next((_clean(f.get("h")) for f in coded if f.get("h")), None),
        "pages": read_pages(_first(record, "300", "a")).value,  # "xii, 300 p." is MARC's normal form
        "edition": _first(record, "250", "a"),
        "series": series or None,
        "original_title": _first(record, "240", "a") or _first(record, "130", "a"),
        "toc": " ; ".join(v for f in record.get_fields("505") for v in f.get_subfields("a", "t")) or None,
        "summary": " ".join(v for f in record.get_fields("520") for v in f.get_subfields("a", "b")) or None,
        "author_intro": " ".join(v for f in record.get_fields("545") for v in f.get_subfields("a")) or None,
        "call_no": call_no or None,
        "copies_available": _copies_available(record),
        "subjects": [s for f in record.get_fields(*_SUBJECT_TAGS_MARC21) if (s := _subject(f, " -- "))],
        "classification": {"ddc": [c for f in record.get_fields("082") if (c := _clean(f.get("a")))],
                           "lcc": [c for c in lcc if c], "clc": [c for c in clc if c]},
        "material": get_materials().of_leader("marc21", str(record.leader)),
        "coded": _marc21_coded(str(record.leader), fixed),
    }


def unimarc_row(record: pymarc.Record) -> dict[str, Any]:
    """A UNIMARC / CNMARC bibliographic record as catalog fields."""
    authors = [_person(f, unimarc=True) for f in record.get_fields("700", "701")]
    # 702 is secondary responsibility (translators, illustrators): only its relator code can make one an author
    authors += [_person(f, unimarc=True, role="contributor") for f in record.get_fields("702")]
    if not any(authors):  # no access points: the statement of responsibility, "（日）东野圭吾著", "王蕴洁译"
        authors = [v for f in record.get_fields("200") for v in f.get_subfields("f", "g")]
    coded = _first(record, "100", "a") or ""
    series = next((" ; ".join(_clean(v) for v in f.get_subfields("a", "v") if _clean(v))
                   for f in record.get_fields("225")), None)
    return {
        "book_id": _control(record, "001"),
        "isbn": _first(record, "010", "a"),
        "title": _first(record, "200", "a"),
        "subtitle": _first(record, "200", "e"),
        "authors": [a for a in dict.fromkeys(authors) if a],
        "publisher": _first(record, "210", "c"),
        "pub_year": _year(_first(record, "210", "d")) or (coded[9:13] if coded[9:13].isdigit() else None),
        "language": _first(record, "101", "a"),
        "original_language": _first(record, "101", "c"),
        "pages": read_pages(_first(record, "215", "a")).value,
        "edition": _first(record, "205", "a"),
        "series": series or None,
        "original_title": _first(record, "500", "a") or _first(record, "454", "a"),
        "toc": " ; ".join(v for f in record.get_fields("327") for v in f.get_subfields("a")) or None,
        "summary": " ".join(v for f in record.get_fields("330") for v in f.get_subfields("a")) or None,
        "subjects": [s for f in record.get_fields(*_SUBJECT_TAGS_UNIMARC) if (s := _subject(f, "—"))],
        "classification": {"clc": [c for f in record.get_fields("690") if (c := _clean(f.get("a")))],
                           "ddc": [c for f in record.get_fields("676") if (c := _clean(f.get("a")))],
                           "lcc": [c for f in record.get_fields("680") if (c := _clean(f.get("a")))]},
        "material": get_materials().of_leader("unimarc", str(record.leader)),
        # 100 $a/17-19 holds up to three audience codes; 105 $a/11 the literary form of a text
        "coded": _coded((*(("unimarc_audience", c) for c in coded[17:20]),
                         ("unimarc_literary_form", next((f.get("a") or "" for f in record.get_fields("105")),
                                                        "")[11:12]))),
    }


def _records(path: Path, fmt: str, encoding: str | None) -> Iterator[MarcRecord]:
    """Every record in file order, read or with why it could not be."""
    if fmt == "marcxml":
        try:
            records = pymarc.parse_xml_to_array(str(path))
        except Exception as err:  # noqa: BLE001 - any XML failure is one clear line for the whole file
            raise CatalogFileError(f"{path}: not MARCXML ({type(err).__name__}: {str(err)[:120]})") from None
        for record in records:
            yield MarcRecord(0, record)
        return
    with open(path, "rb") as fh:
        yield from read_iso2709(fh, True if fmt == "cnmarc" else None, encoding)


def read_marc(path: Path, fmt: str, report: ReadReport | None = None, encoding: str | None = None
              ) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """(record number, catalog row, parse error) for every record; `fmt` is marc21, marcxml or cnmarc; `encoding`
    the codec (or "marc-8") every ISO 2709 record is read in, else told per record. A record
    whose encoding was not the one it declared is told in `report`; a deleted record (leader/05 'd') is a row with
    status withdrawn."""
    for number, read in enumerate(_records(path, fmt, encoding), start=1):
        if read.record is None:
            yield number, {}, read.error
            continue
        if report is not None:
            report.warnings += [(number, "encoding", w, f"record at byte {read.position}") for w in read.warnings]
        record = read.record
        unimarc = fmt == "cnmarc" or _looks_unimarc(record)
        row = unimarc_row(record) if unimarc else marc21_row(record)
        if str(record.leader)[5:6] == "d":
            row["status"] = "withdrawn"
        yield number, row, None
