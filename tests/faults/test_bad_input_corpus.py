"""The bad-input corpus: each case feeds one bad file, setting or argument to the real CLI.

Every case asserts the exit code, one clear line naming what is wrong, and that nothing was lost:
a refused file changes nothing, a rejected row is kept with its reason, themes handed in stay pending.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from openpyxl import Workbook

from config.settings import CONFIG_DIR, Settings, load_settings
from storage.catalog_db import open_catalog
from storage.theme_inbox import waiting_themes

HEADER = "book_id,title,authors,pub_year,summary,copies_available\n"
WARNED = r"inserted 1, .*warnings 1"  # a value that cannot be read: the book is kept, the value reported
GOOD_ROW = "n-1,Good Book,Some One,2001,A good summary.,1\n"
LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(8)) + "themes: *i\n"


def text(folder: Path, name: str, content: str | bytes) -> str:
    path = folder / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return str(path)


def xlsx(folder: Path, name: str, build: Callable[[Workbook], None]) -> str:
    wb = Workbook()
    ws = wb.active
    ws.append(["book_id", "title", "authors", "pub_year"])
    ws.append(["x-1", "First", "A", 2000])
    build(wb)
    wb.save(folder / name)
    return str(folder / name)


def parquet(folder: Path, name: str, columns: dict[str, pa.Array]) -> str:
    pq.write_table(pa.table(columns), folder / name)
    return str(folder / name)


def _marc_with_broken_middle() -> bytes:
    from tests.catalog.test_marc_recovery import marc21, utf8

    first, broken, third = (utf8(marc21(f"m-{i}", f"Book {i}")) for i in range(1, 4))
    return first + b"00099" + broken[5:] + third


def _utf8_under_marc8() -> bytes:
    from tests.catalog.test_marc_recovery import marc21, utf8

    return utf8(marc21("m-1", "Café crème", utf8_leader=False))


def themes_yaml(folder: Path, body: str, batch: str = "b1") -> str:
    return text(folder, "themes.yaml", f"batch_id: {batch}\nthemes:\n{body}")


# ---- nothing lost ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Snapshot:
    """What the workspace holds: books, rejected rows and warnings as (row, field, reason), themes."""

    books: int
    rejected: list[tuple[int, str, str]]
    warnings: list[tuple[int, str, str]]
    themes: dict[str, str]  # batch/theme -> status


def snapshot(settings: Settings) -> Snapshot:
    with open_catalog(settings.duckdb_path, read_only=True) as db:
        themes = (dict(db.conn.execute("SELECT batch_id || '/' || theme_id, status FROM themes").fetchall())
                  if db.has_table("themes") else {})
        return Snapshot(db.catalog_counts()["books"],
                        [(r.row_number, r.field, r.reason) for r in db.rejected_rows() if "seed" not in r.source_file],
                        [(w.row_number, w.field, w.message) for w in db.import_warnings()], themes)


def themes(settings: Settings) -> dict[str, str]:
    return snapshot(settings).themes


@dataclass(frozen=True)
class Kept:
    """What the workspace holds after the case: books, rejected rows (row -> reason pattern), themes."""

    books: int = 3
    rows: dict[int, str] = field(default_factory=dict)
    themes: tuple[str, ...] = ()
    warnings: dict[int, str] = field(default_factory=dict)  # row -> pattern: the book kept, the value reported

    def describe(self) -> str:
        kept = [f"catalog {'unchanged (3 books)' if self.books == 3 else f'3 + {self.books - 3} books'}"]
        if self.rows:
            kept.append(f"rejected_rows keeps row{'s' if len(self.rows) > 1 else ''} "
                        + ", ".join(map(str, self.rows)) + " with the reason")
        if self.warnings:
            kept.append("import_warnings keeps " + ", ".join(f"row {r}" for r in self.warnings) + " with the value")
        if self.themes:
            kept.append("pending: " + ", ".join(self.themes))
        return "; ".join(kept)

    def check(self, settings: Settings) -> None:
        now = snapshot(settings)
        assert now.books == self.books
        for expected, found in ((self.rows, now.rejected), (self.warnings, now.warnings)):
            assert len(found) == len(expected), found
            for row, pattern in expected.items():
                assert any(n == row and re.search(pattern, f"{f}: {r}") for n, f, r in found), (row, pattern, found)
        if self.themes:
            assert sorted(now.themes) == sorted(self.themes)


UNCHANGED = Kept()


@dataclass(frozen=True)
class Case:
    id: str
    what: str
    argv: Callable[[Path], list[str]]
    code: int
    message: str  # pattern the one line must match
    kept: Kept = UNCHANGED


def catalog(name: str, content: str | bytes) -> Callable[[Path], list[str]]:
    return lambda d: ["catalog", "import", text(d, name, content)]


def themes_import(body: str, batch: str = "b1") -> Callable[[Path], list[str]]:
    return lambda d: ["themes", "import", themes_yaml(d, body, batch)]


def bad_first_theme(fields: str, theme_id: str = "a") -> Callable[[Path], list[str]]:
    """A themes file whose first theme has these (YAML) fields and whose second, `b`, is good."""
    return themes_import(f"  - theme_id: {theme_id}\n{fields}  - theme_id: b\n    theme_name: ok\n")


def first_theme_rejected(pattern: str) -> Kept:
    return Kept(rows={1: pattern}, themes=("b1/b",))


def mapping(content: str) -> Callable[[Path], list[str]]:
    return lambda d: ["catalog", "import", text(d, "books.csv", HEADER + GOOD_ROW), "--mapping",
                      text(d, "map.yaml", content)]


def _merged(wb: Workbook) -> None:
    ws = wb.active
    ws.append(["x-2", "Second", None, 2001])
    ws.append(["x-3", "Third", None, 2002])
    ws.merge_cells("C2:C4")


def _formula(wb: Workbook) -> None:
    wb.active.append(["x-2", "=CONCAT(\"Sec\",\"ond\")", "B", 2001])


def _error_cell(wb: Workbook) -> None:
    wb.active.append(["x-2", "#REF!", "B", 2001])
    wb.active["B3"].data_type = "e"


def _second_sheet(wb: Workbook) -> None:
    more = wb.create_sheet("More")
    more.append(["book_id", "title"])
    more.append(["x-9", "Hidden away"])


CASES = [
    # -- catalog files --
    Case("catalog-missing-file", "a catalog file that does not exist",
         lambda d: ["catalog", "import", str(d / "nope.csv")], 2, r"nope\.csv: file not found"),
    Case("catalog-unsupported-type", "a .txt catalog", catalog("books.txt", HEADER + GOOD_ROW), 2,
         r"books\.txt: unsupported file type '\.txt'"),
    Case("catalog-folder", "a folder given as the catalog file",
         lambda d: ["catalog", "import", str((d / "dir.csv").mkdir() or d / "dir.csv")], 2, r"is a folder"),
    Case("catalog-latin1", "a Latin-1 CSV", catalog("books.csv", (HEADER + "n-1,Caf\xe9 cr\xe8me,A,2001,x,1\n")
                                                     .encode("latin-1")), 0, r"read 1: inserted 1", Kept(books=4)),
    Case("catalog-gbk", "a GBK CSV (a Chinese library system's export)",
         catalog("books.csv", (HEADER + "n-1,边城：湘西小城的渡船与翠翠,沈从文,1934,湘西小城茶峒，渡船老人和孙女。,1\n")
                 .encode("gbk")), 0, r"read 1: inserted 1", Kept(books=4)),
    Case("catalog-utf16", "a UTF-16 tab-separated export (Excel's Unicode text)",
         catalog("books.tsv", (HEADER + GOOD_ROW).replace(",", "\t").encode("utf-16")), 0, r"read 1: inserted 1",
         Kept(books=4)),
    Case("catalog-unknown-encoding", "--encoding klingon",
         lambda d: ["catalog", "import", text(d, "books.csv", HEADER + GOOD_ROW), "--encoding", "klingon"], 2,
         r"books\.csv: unknown encoding 'klingon'"),
    Case("catalog-wrong-encoding", "a GBK CSV imported with --encoding utf-8",
         lambda d: ["catalog", "import", text(d, "books.csv", (HEADER + "n-1,边城,沈从文,1934,x,1\n").encode("gbk")),
                    "--encoding", "utf-8"], 2, r"books\.csv: not UTF-8 text .*name the encoding with --encoding"),
    Case("catalog-encoding-jsonl", "--encoding on a JSON Lines file",
         lambda d: ["catalog", "import", text(d, "books.jsonl", '{"book_id": "j", "title": "T"}\n'), "--encoding",
                    "gbk"], 2, r"--encoding applies to CSV, TSV and MARC files"),
    Case("marc-broken-middle", "a MARC file whose second of three records has a wrong leader length",
         catalog("books.mrc", _marc_with_broken_middle()), 0, r"read 3: inserted 2, .*rejected 1",
         Kept(books=5, rows={2: r"\(row\): record at byte \d+: the leader says 99 bytes"})),
    Case("marc-utf8-under-marc8", "a MARC record in UTF-8 whose leader says MARC-8",
         catalog("books.mrc", _utf8_under_marc8()), 0, r"read 1: inserted 1",
         Kept(books=4, warnings={1: r"encoding: declared MARC-8 \(leader/09 blank\), read as UTF-8"})),
    Case("catalog-replace-unreadable", "--replace with a record that cannot be read to an id",
         lambda d: ["catalog", "import", text(d, "books.mrc", _marc_with_broken_middle()), "--replace"], 2,
         r"--replace withdraws the books a full export leaves out, but record\(s\) 2 could not be read"),
    Case("catalog-remove-unknown", "catalog remove of an id the catalog never had",
         lambda d: ["catalog", "remove", "s-1", "nope"], 2, r"no book 'nope' in the catalog; nothing was removed"),
    Case("catalog-no-id-column", "a CSV without book_id", catalog("books.csv", "title,authors\nT,A\n"), 2,
         r"no column 'book_id' for catalog field 'book_id'"),
    Case("catalog-no-title-column", "a CSV without title", catalog("books.csv", "book_id,authors\n1,A\n"), 2,
         r"no column 'title'"),
    Case("catalog-empty-file", "an empty CSV", catalog("books.csv", ""), 2, r"books\.csv: no rows to import"),
    Case("catalog-header-only", "a CSV with a header and no rows", catalog("books.csv", HEADER), 2,
         r"no rows to import"),
    Case("catalog-nul-byte", "a CSV with a NUL byte in a title",
         catalog("books.csv", HEADER + "n-1,Bad\x00,A,2001,x,1\n"), 0, WARNED,
         Kept(books=4, warnings={2: r"title: control characters removed"})),
    Case("catalog-cell-over-128k", "a 200 KiB summary cell (over csv's default limit)",
         catalog("books.csv", HEADER + "n-1,Long,A,2001," + "x" * 200_000 + ",1\n"), 0,
         r"inserted 1, updated 0, unchanged 0, rejected 0", Kept(books=4)),
    Case("catalog-row-over-cap", "a row of 1.2 million characters beside a good row",
         catalog("books.csv", HEADER + GOOD_ROW + "n-2,Huge,A,2001," + "y" * 1_200_000 + ",1\n"), 0,
         r"rejected 1", Kept(books=4, rows={3: r"1,200,0\d\d characters, over the limit"})),
    Case("catalog-short-row", "a CSV row with fewer cells than the header",
         catalog("books.csv", HEADER + GOOD_ROW + "n-2,Short,A\n"), 0, r"rejected 1",
         Kept(books=4, rows={3: r"3 cells, fewer than the header's 6 columns \(no 'pub_year'\)"})),
    Case("catalog-long-row", "a CSV row with more cells than the header",
         catalog("books.csv", HEADER + GOOD_ROW + "n-2,Long,A,2001,x,1,extra\n"), 0, r"rejected 1",
         Kept(books=4, rows={3: r"7 cells, more than the header's 6 columns"})),
    Case("catalog-open-quote", "a quote left open in row 2, swallowing the rows after it",
         catalog("books.csv", HEADER + 'n-1,"Open,A,2001,x,1\n' + GOOD_ROW.replace("n-1", "n-2")), 0,
         r"rejected 1", Kept(books=3, rows={2: r"fewer than the header's 6 columns"})),
    Case("catalog-formula-title", "a title that is an Excel formula",
         catalog("books.csv", HEADER + 'n-1,"=HYPERLINK(""http://x"",""y"")",A,2001,x,1\n'), 0,
         r"inserted 1", Kept(books=4)),
    Case("catalog-sql-title", "a title that looks like SQL",
         catalog("books.csv", HEADER + "n-1,'); DROP TABLE books;--,A,2001,x,1\n"), 0,
         r"inserted 1", Kept(books=4)),
    Case("catalog-control-characters", "a title with control characters",
         catalog("books.csv", HEADER + "n-1,Bad\x07Bell,A,2001,x,1\n"), 0, WARNED,
         Kept(books=4, warnings={2: r"title: control characters removed"})),
    Case("catalog-duplicate-id", "the same book_id twice in one file",
         catalog("books.csv", HEADER + GOOD_ROW + GOOD_ROW.replace("Good Book", "Other")), 0, r"rejected 1",
         Kept(books=4, rows={3: r"duplicate book_id 'n-1', first seen at row 2"})),
    Case("catalog-bad-year", "a year that is not a number", catalog("books.csv", HEADER + "n-1,T,A,soon,x,1\n"), 0,
         WARNED, Kept(books=4, warnings={2: r"pub_year: no year in 'soon'"})),
    Case("catalog-impossible-year", "the year 99999", catalog("books.csv", HEADER + "n-1,T,A,99999,x,1\n"), 0,
         WARNED, Kept(books=4, warnings={2: r"pub_year: impossible year 99999"})),
    Case("catalog-negative-copies", "-2 copies available", catalog("books.csv", HEADER + "n-1,T,A,2001,x,-2\n"), 0,
         WARNED, Kept(books=4, warnings={2: r"copies_available: must not be negative"})),
    Case("catalog-jsonl-bad-line", "a JSON Lines file with a broken line",
         catalog("books.jsonl", '{"book_id": "j-1", "title": "T"}\n{"book_id": "j-2", "title": \n'), 0,
         r"rejected 1", Kept(books=4, rows={2: r"invalid JSON"})),
    Case("catalog-jsonl-list-line", "a JSON Lines line that is a list",
         catalog("books.jsonl", '["j-1", "T"]\n'), 0, r"rejected 1",
         Kept(rows={1: r"a line must hold one JSON object"})),
    Case("catalog-jsonl-deep", "a JSON Lines line nested 100,000 deep",
         catalog("books.jsonl", "[" * 100_000 + "]" * 100_000 + "\n"), 0, r"rejected 1",
         Kept(rows={1: r"invalid JSON|nested too deeply"})),
    Case("catalog-jsonl-title-object", "a title that is a JSON object",
         catalog("books.jsonl", '{"book_id": "j-1", "title": {"zh": "T"}}\n'), 0, r"rejected 1",
         Kept(rows={1: r"title: missing"})),
    Case("catalog-unknown-tag-dimension", "tags of a dimension the vocabulary lacks",
         catalog("books.jsonl", '{"book_id": "j-1", "title": "T", "tags": {"colour": ["red"]}}\n'), 0,
         WARNED, Kept(books=4, warnings={1: r"tags: unknown dimension 'colour': its values read as subjects"})),
    Case("parquet-binary-utf8-title", "a Parquet file whose titles are binary UTF-8 (as Spark writes strings)",
         lambda d: ["catalog", "import", parquet(d, "books.parquet", {
             "book_id": pa.array(["p-1"]), "title": pa.array(["雨夜".encode()], pa.binary())})], 0,
         r"inserted 1", Kept(books=4)),
    Case("parquet-binary-title", "a Parquet title column of raw bytes",
         lambda d: ["catalog", "import", parquet(d, "books.parquet", {
             "book_id": pa.array(["p-1"]), "title": pa.array([b"\xff\xfe\x00"], pa.binary())})], 0,
         r"rejected 1", Kept(rows={1: r"column 'title': binary data, not UTF-8 text"})),
    Case("parquet-binary-unused-column", "a Parquet file with a binary cover image column",
         lambda d: ["catalog", "import", parquet(d, "books.parquet", {
             "book_id": pa.array(["p-1"]), "title": pa.array(["T"]),
             "cover": pa.array([b"\x89PNG\xff"], pa.binary())})],
         0, r"inserted 1", Kept(books=4)),
    Case("parquet-corrupt", "a file named .parquet that is not Parquet", catalog("books.parquet", "not parquet"), 2,
         r"books\.parquet: not a Parquet file"),
    Case("xlsx-second-sheet", "an XLSX whose second sheet holds books",
         lambda d: ["catalog", "import", xlsx(d, "books.xlsx", _second_sheet)], 2,
         r"only the first sheet 'Sheet' is read, but sheet\(s\) 'More' \(2 rows\) also hold data"),
    Case("xlsx-merged-cells", "an XLSX with authors merged over three rows",
         lambda d: ["catalog", "import", xlsx(d, "books.xlsx", _merged)], 0, r"rejected 3",
         Kept(rows={2: r"cells C2:C4 are merged", 3: r"cells C2:C4 are merged", 4: r"cells C2:C4 are merged"})),
    Case("xlsx-formula-without-value", "an XLSX title that is a formula never calculated",
         lambda d: ["catalog", "import", xlsx(d, "books.xlsx", _formula)], 0, r"rejected 1",
         Kept(books=4, rows={3: r"cell B3 \(title\) is a formula with no saved value"})),
    Case("xlsx-error-cell", "an XLSX title holding #REF!",
         lambda d: ["catalog", "import", xlsx(d, "books.xlsx", _error_cell)], 0, r"rejected 1",
         Kept(books=4, rows={3: r"cell B3 \(title\) holds the spreadsheet error #REF!"})),
    Case("xlsx-corrupt", "a file named .xlsx that is not a workbook", catalog("books.xlsx", "PK not really"), 2,
         r"books\.xlsx: not an XLSX workbook"),
    # -- mapping files --
    Case("mapping-missing", "a mapping file that does not exist",
         lambda d: ["catalog", "import", text(d, "books.csv", HEADER + GOOD_ROW), "--mapping", str(d / "no.yaml")], 2,
         r"no\.yaml: file not found"),
    Case("mapping-invalid-yaml", "a mapping that is not YAML", mapping("columns: {title: [\n"), 2,
         r"map\.yaml: not valid YAML at line 2"),
    Case("mapping-unknown-key", "a mapping with an unknown key", mapping("colums: {title: name}\n"), 2,
         r"map\.yaml: unknown mapping key 'colums', did you mean 'columns'\?"),
    Case("mapping-absent-column", "a mapping naming a column the file does not have (author for authors)",
         mapping("columns: {authors: author}\n"), 2,
         r"map.* reads 'authors' from column 'author', which the file does not have, did you mean 'authors'\?"),
    Case("mapping-duplicate-key", "a mapping with columns: written twice",
         mapping("columns: {title: title}\ncolumns: {authors: authors}\n"), 2,
         r"map\.yaml: not valid YAML at line 2: duplicate key 'columns' \(first at line 1\)"),
    Case("mapping-columns-list", "a mapping whose columns is a list", mapping("columns: [title]\n"), 2,
         r"`columns:` must be a mapping"),
    Case("mapping-unknown-field", "a mapping naming an unknown catalog field", mapping("columns: {titel: c}\n"), 2,
         r"map\.yaml: columns: unknown catalog field 'titel', did you mean 'title'\?"),
    Case("mapping-billion-laughs", "a mapping built of nested aliases (billion laughs)", mapping(LAUGHS), 2,
         r"map\.yaml: over 100,000 values once its aliases are expanded"),
    # -- theme files --
    Case("themes-missing-file", "a themes file that does not exist",
         lambda d: ["themes", "import", str(d / "none.yaml")], 2, r"none\.yaml: file not found"),
    Case("themes-invalid-yaml", "a themes file that is not YAML", lambda d: ["themes", "import", text(
        d, "themes.yaml", "batch_id: b1\nthemes:\n  - theme_name: [unclosed\n")], 2,
        r"themes\.yaml: not valid YAML at line \d"),
    Case("themes-billion-laughs", "a themes file of nested aliases (billion laughs)",
         lambda d: ["themes", "import", text(d, "themes.yaml", LAUGHS)], 2,
         r"themes\.yaml: over 100,000 values once its aliases are expanded"),
    Case("themes-alias-flood", "a themes file with 150 aliases",
         lambda d: ["themes", "import", text(d, "themes.yaml", "x: &x {theme_name: t}\nthemes:\n"
                                             + "  - *x\n" * 150)], 2, r"more than 100 YAML aliases"),
    Case("themes-recursive-alias", "a themes list that contains itself",
         lambda d: ["themes", "import", text(d, "themes.yaml", "batch_id: b1\nthemes: &t [*t]\n")], 2,
         r"an alias refers to itself"),
    Case("themes-oversized", "a 3 MB themes file",
         lambda d: ["themes", "import",
                    themes_yaml(d, "  - theme_name: big\n    description: " + "z" * 3_000_000 + "\n")],
         2, r"themes\.yaml: larger than 2 MiB"),
    Case("themes-top-level-list", "a themes file that is a bare list",
         lambda d: ["themes", "import", text(d, "themes.yaml", "- theme_name: x\n")], 2,
         r"expected a mapping with a `themes:` list"),
    Case("themes-empty-name", "a theme with an empty name", bad_first_theme("    theme_name: ''\n"), 0,
         r"rejected row 1: theme_name: missing", first_theme_rejected(r"theme_name: missing")),
    Case("themes-whitespace-brief", "a theme whose name is only spaces", bad_first_theme("    theme_name: '   '\n"), 0,
         r"rejected row 1: theme_name: missing", first_theme_rejected(r"missing")),
    Case("themes-no-words", "a brief of punctuation only", bad_first_theme("    theme_name: '？？！'\n"), 0,
         r"rejected row 1: theme_name: the brief has no words", first_theme_rejected(r"no words")),
    Case("themes-duplicate-id", "two themes with one id",
         themes_import("  - theme_id: a\n    theme_name: one\n  - theme_id: a\n    theme_name: two\n"), 0,
         r"rejected row 2: theme_id: duplicate theme_id 'a'", Kept(rows={2: r"duplicate"}, themes=("b1/a",))),
    Case("themes-path-theme-id", "a theme id that is a path", bad_first_theme("    theme_name: one\n", "../x"), 0,
         r"rejected row 1: theme_id: '\.\./x' is not an id", first_theme_rejected(r"not an id")),
    Case("themes-path-batch-id", "a file whose batch_id is ../evil/x",
         themes_import("  - theme_name: one\n", batch="../evil/x"), 2,
         r"themes\.yaml: batch_id: '\.\./evil/x' is not an id"),
    Case("themes-path-batch-argument", "--batch ../evil",
         lambda d: ["run", themes_yaml(d, "  - theme_name: one\n"), "--batch", "../evil"], 2,
         r"batch id: '\.\./evil' is not an id"),
    Case("themes-all-rejected", "a themes file whose every theme is bad",
         themes_import("  - theme_id: a\n    theme_name: ''\n"), 2, r"no theme to import \(1 rejected\)",
         Kept(rows={1: r"missing"})),
    Case("themes-nested-name", "a theme name that is a mapping", bad_first_theme("    theme_name: {zh: x}\n"), 0,
         r"rejected row 1: theme_name: expected text, got a dict", first_theme_rejected(r"expected text")),
    Case("themes-field-too-long", "a 6,000-character description",
         bad_first_theme("    theme_name: t\n    description: " + "d" * 6000 + "\n"), 0,
         r"description: 6,000 characters, over the limit", first_theme_rejected(r"over the limit")),
    Case("themes-control-characters", "a brief with a control character",
         bad_first_theme('    theme_name: "x\\x07y"\n'), 0, r"rejected row 1: theme_name: contains control characters",
         first_theme_rejected(r"control")),
    Case("themes-csv-short-row", "a themes CSV row with fewer cells than its header",
         lambda d: ["themes", "import", text(d, "themes.csv", "theme_id,theme_name,description\na,Rain,quiet\nb\n"),
                    "--batch", "b1"], 0, r"rejected row 3: \(row\): 1 cells, fewer than the header's 3 columns",
         Kept(rows={3: r"fewer"}, themes=("b1/a",))),
    Case("themes-two-batches", "a themes CSV naming two batches",
         lambda d: ["themes", "import", text(d, "themes.csv", "batch_id,theme_name\nb1,x\nb2,y\n")], 2,
         r"one file is one batch, found batch ids \['b1', 'b2'\]"),
    Case("themes-xlsx-second-sheet", "a themes workbook with a second sheet of themes",
         lambda d: ["themes", "import", xlsx(d, "themes.xlsx", _second_sheet), "--batch", "b1"], 2,
         r"also hold data"),
    Case("themes-misspelt-key", "a theme with descripton for description",
         bad_first_theme("    theme_name: x\n    descripton: quiet\n"), 2,
         r"themes\.yaml: theme 1: unknown key 'descripton', did you mean 'description'\?"),
    Case("themes-duplicate-key", "a theme with theme_name twice",
         themes_import("  - theme_name: one\n    theme_name: two\n"), 2,
         r"themes\.yaml: not valid YAML at line 4: duplicate key 'theme_name' \(first at line 3\)"),
    Case("themes-unknown-top-key", "a themes file with batch_di for batch_id",
         lambda d: ["themes", "import", text(d, "themes.yaml", "batch_di: b1\nthemes:\n  - theme_name: x\n")], 2,
         r"themes\.yaml: unknown key 'batch_di', did you mean 'batch_id'\?"),
    Case("themes-csv-unknown-header", "a themes CSV with a Descripton column",
         lambda d: ["themes", "import", text(d, "themes.csv", "theme_id,Theme_Name,Descripton\na,Rain,quiet\n"),
                    "--batch", "b1"], 2, r"themes\.csv: unknown column 'Descripton', did you mean 'description'\?"),
    Case("themes-csv-header-case", "a themes CSV whose headers are capitalised and spaced (Theme Name)",
         lambda d: ["themes", "import", text(d, "themes.csv", "Theme_ID,Theme Name\na,Rain\n"), "--batch", "b1"], 0,
         r"batch b1: inserted 1", Kept(themes=("b1/a",))),
    Case("themes-template-as-shipped", "config/themes_template.xlsx imported as shipped (no batch_id column)",
         lambda d: ["themes", "import", str(CONFIG_DIR / "themes_template.xlsx")], 0,
         r"names no batch, so it is batch \d{4}-\d\d-\d\d-\d{4}-[0-9a-f]{4}"),
    Case("themes-txt", "themes import of a .txt file",
         lambda d: ["themes", "import", text(d, "themes.txt", "rainy night\n")], 2,
         r"themes\.txt: unsupported theme file type '\.txt'; themes are read from YAML"),
    # -- arguments, settings, workspace --
    Case("try-empty-brief", 'try ""', lambda d: ["try", ""], 2, r"try: the brief '' has no words"),
    Case("try-blank-brief", 'try "   "', lambda d: ["try", "   "], 2, r"has no words"),
    Case("try-punctuation-brief", 'try "???"', lambda d: ["try", "???"], 2, r"has no words"),
    Case("try-no-index", "try on a catalog never indexed", lambda d: ["try", "rainy night"], 2,
         r"no index has been built yet"),
    Case("run-outputs-not-writable", "run with outputs_dir under a file",
         lambda d: ["run", themes_yaml(d, "  - theme_name: one\n")], 2,
         r"outputs_dir \(from SHELFWISE__OUTPUTS_DIR\) .*/file/out is not writable"),
    Case("workspace-not-writable", "catalog import into a workspace under a file",
         lambda d: ["catalog", "import", text(d, "books.csv", HEADER + GOOD_ROW)], 2,
         r"workspace \(from SHELFWISE__WORKSPACE\) .*/file/var is not writable"),
    Case("setting-wrong-type", "SHELFWISE__FUSION__WEIGHTS=oops", lambda d: ["status"], 2,
         r"setting fusion\.weights \(from SHELFWISE__FUSION__WEIGHTS\): expected a mapping, got 'oops'"),
    Case("setting-out-of-range", "SHELFWISE__SHELF__SIZE=-5", lambda d: ["status"], 2,
         r"setting shelf\.size \(from SHELFWISE__SHELF__SIZE\): must be greater than 0, got -5"),
    Case("settings-file-missing", "SHELFWISE_CONFIG naming a missing file", lambda d: ["status"], 2,
         r"settings file .*missing\.yaml \(from SHELFWISE_CONFIG\) not found"),
    Case("settings-file-invalid", "a settings file that is not YAML", lambda d: ["status"], 2,
         r"settings file .*bad\.yaml \(from SHELFWISE_CONFIG\): not valid YAML at line \d"),
    Case("setting-misspelt", "SHELFWISE__FUSION__WEIGTHS=1 (weights misspelt)", lambda d: ["status"], 2,
         r"setting fusion\.weigths \(from SHELFWISE__FUSION__WEIGTHS\): unknown setting, did you mean 'weights'\?"),
    Case("settings-file-misspelt", "a settings file with shelf.sise", lambda d: ["status"], 2,
         r"setting shelf\.sise \(from .*typo\.yaml \(from SHELFWISE_CONFIG\)\): unknown setting, did you mean "
         r"'size'\?"),
    Case("settings-file-duplicate-key", "a settings file with shelf.size twice", lambda d: ["status"], 2,
         r"settings file .*dup\.yaml \(from SHELFWISE_CONFIG\): not valid YAML at line 3: duplicate key 'size'"),
    Case("serve-without-server", "serve with no Prefect server", lambda d: ["serve"], 2,
         r"no Prefect server: start one with `shelfwise server`"),
    Case("deploy-without-server", "deploy with no Prefect server", lambda d: ["deploy"], 2,
         r"no Prefect server"),
]

# What a case needs in its environment beyond the seeded workspace.
ENVIRONMENT: dict[str, Callable[[Path, pytest.MonkeyPatch], None]] = {
    "run-outputs-not-writable": lambda d, mp: mp.setenv("SHELFWISE__OUTPUTS_DIR", text(d, "file", "") + "/out"),
    "workspace-not-writable": lambda d, mp: mp.setenv("SHELFWISE__WORKSPACE", text(d, "file", "") + "/var"),
    "setting-wrong-type": lambda d, mp: mp.setenv("SHELFWISE__FUSION__WEIGHTS", "oops"),
    "setting-out-of-range": lambda d, mp: mp.setenv("SHELFWISE__SHELF__SIZE", "-5"),
    "settings-file-missing": lambda d, mp: mp.setenv("SHELFWISE_CONFIG", str(d / "missing.yaml")),
    "settings-file-invalid": lambda d, mp: mp.setenv("SHELFWISE_CONFIG", text(d, "bad.yaml", "shelf:\n  size: [\n")),
    "setting-misspelt": lambda d, mp: mp.setenv("SHELFWISE__FUSION__WEIGTHS", "1"),
    "settings-file-misspelt": lambda d, mp: mp.setenv("SHELFWISE_CONFIG", text(d, "typo.yaml", "shelf:\n  sise: 5\n")),
    "settings-file-duplicate-key": lambda d, mp: mp.setenv("SHELFWISE_CONFIG", text(
        d, "dup.yaml", "shelf:\n  size: 5\n  size: 6\n")),
    "serve-without-server": lambda d, mp: no_prefect_api(mp),
    "deploy-without-server": lambda d, mp: no_prefect_api(mp),
}


def no_prefect_api(monkeypatch: pytest.MonkeyPatch):
    """No PREFECT_API_URL, whether exported or set by a test harness running in this session."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    return temporary_settings({PREFECT_API_URL: None})


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_each_bad_input_gets_one_clear_line_and_loses_nothing(case, seeded, cli, tmp_path, monkeypatch, record):
    workspace = load_settings()
    context = ENVIRONMENT.get(case.id, lambda d, mp: None)(tmp_path, monkeypatch) or nullcontext()
    start = time.monotonic()
    with context:
        outcome = cli(*case.argv(tmp_path))
    record(case.what, outcome.summary, case.kept.describe())
    assert time.monotonic() - start < 30  # no hang, whatever the input
    assert outcome.code == case.code, outcome
    if case.code == 2:
        assert len(outcome.err.strip().splitlines()) == 1 and "Traceback" not in outcome.err, outcome.err
    assert re.search(case.message, outcome.line), outcome.line
    case.kept.check(workspace)


def test_the_corpus_is_large_its_ids_unique_and_the_operators_page_lists_every_case():
    from tests.conftest import PROJECT_ROOT
    from tests.faults.test_endpoint_faults import LLM_FAULTS, RERANK_FAULTS

    ids = [c.id for c in CASES] + ["busy-writer-waits", "busy-run-keeps-themes", "busy-status-reads"]
    ids += [f"llm-{f}" for f in [*LLM_FAULTS, "refused"]] + [f"rerank-{f}" for f in RERANK_FAULTS]
    assert len(CASES) >= 60 and len(set(ids)) == len(ids) >= 100
    page = (PROJECT_ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    assert [i for i in ids if f"| `{i}` |" not in page] == []


# ---- the workspace busy ---------------------------------------------------------------------------

HOLDER = """
import sys, time
from pathlib import Path
import duckdb
from storage.workspace_lock import workspace_lock
workspace = Path(sys.argv[1])
with workspace_lock(workspace, "the nightly run", 5):
    conn = duckdb.connect(str(workspace / "shelfwise.duckdb"))
    print("holding", flush=True)
    sys.stdin.readline()
    conn.close()
"""


@pytest.fixture
def nightly_holds(seeded):
    """Another process that is the workspace's writer (the lock and DuckDB), until the test ends."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(seeded.workspace)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding"
    yield holder
    if holder.poll() is None:
        holder.communicate("done\n", timeout=30)


def test_a_writer_waits_for_the_one_before_it_then_says_who_is_busy(nightly_holds, cli, tmp_path, record):
    outcome = cli("catalog", "import", text(tmp_path, "books.csv", HEADER + GOOD_ROW))
    record("catalog import while the nightly run writes (wait 1 s)", outcome.summary, "catalog unchanged",
           "busy-writer-waits")
    assert outcome.code == 2
    assert re.fullmatch(r"waiting for the nightly run \(pid \d+, since .+\) to finish… \(up to 1 s, "
                        r"locking\.wait_seconds\)\nerror: workspace .* is busy: the nightly run \(pid \d+, since .+\) "
                        r"is writing it; gave up after 1 s\n", outcome.err)


def test_a_run_that_cannot_start_keeps_its_themes_for_the_next_writer(nightly_holds, seeded, cli, tmp_path, record):
    outcome = cli("run", themes_yaml(tmp_path, "  - theme_id: a\n    theme_name: Rainy night\n", batch="waits"))
    record("run while the nightly run writes (wait 1 s)", outcome.summary,
           "its themes wait in the inbox; the next writer imports them", "busy-run-keeps-themes")
    assert outcome.code == 2 and outcome.err.strip().endswith(
        "the themes of batch waits are kept, and the next run imports them")
    [kept] = waiting_themes(seeded.workspace)
    assert kept.batch_id == "waits" and [t.theme_id for t in kept.themes] == ["a"]
    nightly_holds.communicate("done\n", timeout=30)
    # the next writer, whoever it is, imports them first
    other = cli("themes", "import", themes_yaml(tmp_path, "  - theme_id: b\n    theme_name: Stars\n", batch="other"))
    assert other.code == 0 and "waiting themes: batch waits: inserted 1" in other.out
    assert themes(seeded) == {"waits/a": "pending", "other/b": "pending"}
    assert waiting_themes(seeded.workspace) == []


def test_status_reads_while_a_writer_holds_the_catalog_and_names_it(nightly_holds, cli, record):
    outcome = cli("status")
    record("status while the nightly run holds the catalog", f"exit {outcome.code}: {outcome.out.splitlines()[2]}",
           "reads only", "busy-status-reads")
    assert outcome.code == 0
    assert re.search(r"^writer: the nightly run \(pid \d+", outcome.out, re.M)
    assert re.search(r"^catalog: not readable now: catalog .*shelfwise\.duckdb is busy: the nightly run \(pid \d+, "
                     r"since .+\) has it open; try again when it finishes$", outcome.out, re.M)
    as_json = json.loads(cli("status", "--json").out)
    assert as_json["writer"].startswith("the nightly run") and "busy" in as_json["unreadable"]


def test_status_without_a_server_says_so_and_when_the_nightly_runs(seeded, cli, monkeypatch, tmp_path):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: None}):
        result = cli("status")
    assert result.code == 0
    assert "prefect server: none running (start one with `shelfwise server`)" in result.out
    assert "\nnext nightly run: " in result.out and "run: " not in result.out.replace("nightly run: ", "")
