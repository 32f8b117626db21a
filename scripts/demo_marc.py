"""Write the demo catalog as a library system would export it: MARC21 with Koha items, no vocabulary tags.

    python scripts/demo_marc.py [config/demo/catalog.jsonl] [config/demo/catalog.mrc]

Each book becomes one bibliographic record: 001 id, 008 dates and language, 020 ISBN, 050 LCC, 082 DDC,
084 CLC, 100/700 authors (Western names inverted, as catalogued), 245 title, 250 edition, 264 publisher
and year, 300 pages, 505 contents, 520 summary, 545 author note, 650 headings with their subdivisions,
653 reader tags, 852 call number, and one 952 item per copy (a single item on loan where none is on the
shelf). Ratings have no place in MARC and are left out. tests/catalog/test_demo_marc.py keeps the
committed file in step with the JSON catalog.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from pymarc import Field, Indicators, MARCWriter, Record, Subfield

_LANGUAGE_CODES = {"zh": "chi", "en": "eng"}
_SUBDIVISION = re.compile(r"\s*(?:--|—)\s*")


def _field(tag: str, ind: str, *subfields: tuple[str, str | None]) -> Field | None:
    """A data field with the subfields that have a value; None when none has."""
    present = [Subfield(code, str(value)) for code, value in subfields if value not in (None, "")]
    return Field(tag=tag, indicators=Indicators(ind[0], ind[1]), subfields=present) if present else None


def _name(author: str, language: str) -> tuple[str, str]:
    """Chinese names in direct order; Western names under the surname, as a cataloguer enters them."""
    if language == "zh" or " " not in author.strip():
        return ("0 ", author)
    first, _, last = author.strip().rpartition(" ")
    return ("1 ", f"{last}, {first}")


def _fixed(book: dict) -> str:
    """The 008 field: entry date, single date of publication, language; literary form (33) not coded."""
    year = str(book["pub_year"])[:4].rjust(4) if book.get("pub_year") else "    "
    language = _LANGUAGE_CODES.get(book.get("language") or "", "und")
    books_material = " " * 15 + "| "  # positions 18-34: audience unknown, literary form not coded
    fixed = f"261123s{year}    xx {books_material}{language} d"
    assert len(fixed) == 40, fixed
    return fixed


def book_record(book: dict) -> Record:
    """One demo book as a MARC21 bibliographic record."""
    record = Record(force_utf8=True, leader="00000nam a2200000 i 4500")
    language = book.get("language") or ""
    record.add_field(Field(tag="001", data=book["book_id"]), Field(tag="008", data=_fixed(book)))
    classification = book.get("classification") or {}
    authors = book.get("authors") or []
    fields: list[Field | None] = [
        _field("020", "  ", ("a", book.get("isbn"))),
        *(_field("050", " 4", ("a", code)) for code in classification.get("lcc", [])),
        *(_field("082", "04", ("a", code)) for code in classification.get("ddc", [])),
        *(_field("084", "  ", ("a", code), ("2", "clc")) for code in classification.get("clc", [])),
    ]
    for position, author in enumerate(authors):
        indicators, entry = _name(author, language)
        fields.append(_field("100" if position == 0 else "700", indicators, ("a", entry)))
    fields += [
        _field("245", "10" if authors else "00", ("a", book["title"]), ("b", book.get("subtitle")),
               ("c", " ".join(authors) or None)),
        _field("250", "  ", ("a", book.get("edition"))),
        _field("264", " 1", ("b", book.get("publisher")), ("c", book.get("pub_year"))),
        _field("300", "  ", ("a", f"{book['pages']} 页" if language == "zh" and book.get("pages")
                             else f"{book['pages']} p." if book.get("pages") else None)),
        _field("505", "0 ", ("a", book.get("toc"))),
        _field("520", "  ", ("a", book.get("summary"))),
        _field("545", "0 ", ("a", book.get("author_intro"))),
    ]
    for subject in book.get("subjects") or []:
        heading, *subdivisions = _SUBDIVISION.split(subject)
        if subdivisions:
            fields.append(_field("650", " 0" if language == "en" else " 4", ("a", heading),
                                 *(("x", part) for part in subdivisions)))
        else:
            fields.append(_field("653", "  ", ("a", subject)))
    fields.append(_field("852", "  ", ("h", book.get("call_no"))))
    copies = book.get("copies_available")
    if copies is not None:
        for item in range(max(copies, 1)):
            on_loan = "2026-12-14" if copies == 0 else None
            fields.append(_field("952", "  ", ("a", "MAIN"), ("o", book.get("call_no")),
                                 ("p", f"{book['book_id']}-{item + 1}"), ("q", on_loan), ("y", "BK")))
    record.add_field(*(f for f in fields if f is not None))
    return record


def write_demo_marc(catalog: Path, target: Path) -> int:
    """Write every book of the JSON catalog to `target` (temp file, then rename); returns the count."""
    books = [json.loads(line) for line in catalog.read_text(encoding="utf-8").splitlines() if line.strip()]
    partial = target.with_suffix(target.suffix + ".partial")
    with open(partial, "wb") as fh:
        writer = MARCWriter(fh)
        for book in books:
            writer.write(book_record(book))
    partial.replace(target)
    return len(books)


if __name__ == "__main__":
    source = Path(sys.argv[1] if len(sys.argv) > 1 else "config/demo/catalog.jsonl")
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "config/demo/catalog.mrc")
    print(f"{write_demo_marc(source, out)} records written to {out}")
