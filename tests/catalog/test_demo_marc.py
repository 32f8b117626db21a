"""The demo catalog's MARC export: in step with the JSON catalog, and read back as the same library."""

import importlib.util
import re
from dataclasses import replace
from pathlib import Path

from tasks.catalog.ingest import ColumnMapping, validate_file

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "config" / "demo"


def _script():
    spec = importlib.util.spec_from_file_location("demo_marc", ROOT / "scripts" / "demo_marc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_marc_file_is_written_from_the_json_catalog(tmp_path):
    target = tmp_path / "catalog.mrc"
    _script().write_demo_marc(DEMO / "catalog.jsonl", target)
    assert target.read_bytes() == (DEMO / "catalog.mrc").read_bytes(), "rerun scripts/demo_marc.py"


def test_the_marc_export_reads_back_as_the_catalog_without_its_tags_and_ratings(vocabulary):
    from_marc = validate_file(DEMO / "catalog.mrc", ColumnMapping(), vocabulary)
    from_json = validate_file(DEMO / "catalog.jsonl", ColumnMapping(), vocabulary)
    assert not from_marc.rejected and len(from_marc.books) == len(from_json.books) == 328

    def comparable(book):
        """What MARC carries: no vocabulary tags, no ratings; headings with MARC's subdivision marks; codes by field;
        what the leader and 008 say the record is, which JSON Lines does not."""
        subjects = tuple(re.sub(r"\s*(?:--|—)\s*", " -- ", s) for s in book.subjects)
        return replace(book, tags={}, rating=None, rating_count=None, subjects=subjects, facets=(),
                       classification=tuple(sorted(book.classification)),
                       tag_origin=None, content_hash="", material=None, coded=())

    for marc_book, json_book in zip(from_marc.books, from_json.books, strict=True):
        assert comparable(marc_book) == comparable(json_book), marc_book.book_id
    shelved = {b.book_id: b.copies_available for b in from_marc.books}
    assert shelved["zh-0001"] == 3 and 0 in shelved.values()  # items counted, loans kept off the shelf
