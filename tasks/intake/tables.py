"""Rows of tabular files (CSV, TSV, JSON Lines, Parquet, XLSX), each with its row number and what is wrong with it.

The catalog import and the themes intake read the same formats with the same checks: an oversized row, a short
or long CSV row, a merged or formula cell is an error of that row, never a silently wrong value.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from tasks.intake.encodings import SAMPLE_BYTES, display_name, file_encoding
from tasks.intake.formats import ENCODED_FORMATS, FORMAT_OF_SUFFIX, CatalogFileError, ReadReport

CSV_FIELD_LIMIT = 64 * 1024 * 1024
MAX_ROW_CHARS = 1_000_000  # a row longer than this is rejected: usually a quote left open swallowing rows
KEPT_CHARS = 10_000  # of each value of a rejected oversized row, in rejected_rows
ERROR_TYPES = {"e"}  # openpyxl's data type of a cell holding an error such as #REF!


Reader = Callable[[Path], Iterator[tuple[int, dict[str, Any] | None, str | None]]]


def read_rows(path: Path, fmt: str | None = None, columns: set[str] | None = None, encoding: str | None = None,
              report: ReadReport | None = None, reader: Reader | None = None
              ) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """Yield (row_number, raw row, parse error) for every record in the file, in `fmt` or as its extension says.

    `columns` names the source columns the caller reads; binary (Parquet) cells elsewhere are dropped. A row
    longer than MAX_ROW_CHARS is an error, whatever the format. `encoding` (CSV, TSV, MARC) is the user's; else
    it is detected, and `report` says what it was. `reader` reads a format this module does not know (the
    catalog's MARC): the checks on the file and on every row are the same for it.
    """
    fmt = fmt or FORMAT_OF_SUFFIX.get(path.suffix.lower())
    report = report if report is not None else ReadReport()
    readers = {**{text: lambda p: _read_csv(p, fmt, encoding, report) for text in ("csv", "tsv")},
               "jsonl": _read_jsonl, "parquet": lambda p: _read_parquet(p, columns), "xlsx": _read_xlsx}
    if reader is not None:
        readers[fmt] = reader
    if fmt not in readers:
        raise CatalogFileError(f"{path}: unsupported file type {path.suffix!r}; use CSV, JSON Lines, Parquet, XLSX "
                               "or MARC (.mrc, .xml), or name the format with --format")
    if encoding and fmt not in ENCODED_FORMATS:
        raise CatalogFileError(f"{path}: --encoding applies to CSV, TSV and MARC files; {fmt} files say their own")
    if not path.exists():
        raise CatalogFileError(f"{path}: file not found")
    if path.is_dir():
        raise CatalogFileError(f"{path}: is a folder, not a file")
    rows = readers[fmt](path)
    try:
        for row_number, raw, error in rows:
            if error is None and raw is not None:
                error = _oversized(raw)
                if error:
                    raw = {k: _kept(v) for k, v in raw.items()}
            yield row_number, raw, error
    except PermissionError:
        raise CatalogFileError(f"{path}: not readable (permission denied)") from None


def _oversized(raw: dict[str, Any]) -> str | None:
    size = sum(len(v) for v in raw.values() if isinstance(v, str))
    if size > MAX_ROW_CHARS:
        return f"{size:,} characters, over the limit of {MAX_ROW_CHARS:,} (is a quote left open?)"
    return None


def _kept(value: Any) -> Any:
    if isinstance(value, str) and len(value) > KEPT_CHARS:
        return value[:KEPT_CHARS] + f"... ({len(value):,} characters)"
    return value


def _read_csv(path: Path, fmt: str, encoding: str | None, report: ReadReport):
    """CSV or TSV rows in the named encoding, else the one its bytes tell (reported)."""
    delimiter = "\t" if fmt == "tsv" else ","
    with open(path, "rb") as fh:
        sample = fh.read(SAMPLE_BYTES)
        complete = not fh.read(1)
    chosen = file_encoding(str(path), sample, encoding, complete)
    report.encoding = chosen.describe()
    codec = "utf-8-sig" if chosen.codec == "utf-8" else chosen.codec
    try:
        with open(path, encoding=codec, newline="") as fh:
            yield from csv_rows(fh, delimiter, str(path))
    except UnicodeDecodeError as exc:
        raise CatalogFileError(f"{path}: not {display_name(chosen.codec)} text (a byte near {exc.start} in its "
                               "block); name the encoding with --encoding") from None


def csv_rows(lines: Iterable[str], delimiter: str, source: str):
    """(row number, row, error) of CSV text whose first row names the columns; short and long rows are errors."""
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_LIMIT))
    row_number = 1
    try:
        reader = csv.reader(lines, delimiter=delimiter)
        header = [h.strip() for h in next(reader, [])]
        for row_number, cells in enumerate(reader, start=2):
            if not any(c.strip() for c in cells):
                continue
            row = dict(zip(header, cells))
            if len(cells) > len(header):
                row["(extra cells)"] = cells[len(header):]
                yield row_number, row, f"{len(cells)} cells, more than the header's {len(header)} columns"
            elif len(cells) < len(header):
                yield row_number, row, (f"{len(cells)} cells, fewer than the header's {len(header)} columns "
                                        f"(no {header[len(cells)]!r})")
            else:
                yield row_number, row, None
    except csv.Error as exc:
        raise CatalogFileError(f"{source}: row {row_number + 1}: {exc} (is a quote left open?)") from None


def _read_jsonl(path: Path):
    try:
        with open(path, encoding="utf-8-sig") as fh:
            for line_number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    yield line_number, {"line": _kept(line.rstrip("\n"))}, f"invalid JSON ({exc.msg})"
                    continue
                except RecursionError:
                    yield line_number, {"line": _kept(line.rstrip("\n"))}, "invalid JSON (nested too deeply)"
                    continue
                if not isinstance(record, dict):
                    yield line_number, {"line": _kept(line.rstrip("\n"))}, "a line must hold one JSON object"
                    continue
                yield line_number, record, None
    except UnicodeDecodeError as exc:
        raise CatalogFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _read_parquet(path: Path, columns: set[str] | None):
    """Parquet records; binary cells in the columns read are decoded as UTF-8 text, or the row is rejected;
    elsewhere (a cover image) they stand as "<N bytes>"."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise CatalogFileError(f"{path}: not a Parquet file ({str(exc).splitlines()[0]})") from None
    kinds = (pa.types.is_binary, pa.types.is_large_binary, pa.types.is_fixed_size_binary)
    binary = {f.name for f in parquet.schema_arrow if any(kind(f.type) for kind in kinds)}
    read = binary if columns is None else binary & columns
    index = 0
    for batch in parquet.iter_batches(batch_size=10_000):
        for record in batch.to_pylist():
            index += 1
            error = None
            for name in binary:
                value = record[name]
                if value is None:
                    continue
                try:
                    record[name] = value.decode("utf-8") if name in read else f"<{len(value)} bytes>"
                except UnicodeDecodeError:
                    record[name] = f"<{len(value)} bytes>"
                    error = error or f"column {name!r}: binary data, not UTF-8 text"
            yield index, record, error


def _read_xlsx(path: Path):
    """The first sheet's rows. Other sheets with data, merged cells, error cells and formulas whose value was
    never saved are reported, never read as empty cells."""
    from zipfile import BadZipFile

    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        values = load_workbook(path, read_only=True, data_only=True)
        formulas = load_workbook(path, read_only=True, data_only=False)
    except (InvalidFileException, BadZipFile, KeyError, OSError, ValueError) as exc:
        raise CatalogFileError(f"{path}: not an XLSX workbook ({type(exc).__name__})") from None
    try:
        _refuse_other_sheets(path, values)
        sheet, formula_sheet = values.worksheets[0], formulas.worksheets[0]
        merged = _merged_ranges(values, sheet)
        rows = zip(sheet.iter_rows(), formula_sheet.iter_rows())
        first = next(rows, None)
        header = [str(c.value).strip() if c.value is not None else "" for c in (first[0] if first else ())]
        for index, (cells, formula_cells) in enumerate(rows, start=2):
            raw = {name: c.value for name, c in zip(header, cells) if name}
            if all(v is None or str(v).strip() == "" for v in raw.values()) and not _any_formula(formula_cells):
                continue
            yield index, raw, _cell_problem(index, header, cells, formula_cells, merged)
    finally:
        values.close()
        formulas.close()


def _refuse_other_sheets(path: Path, workbook) -> None:  # noqa: ANN001 - an openpyxl read-only workbook
    others = []
    for sheet in workbook.worksheets[1:]:
        filled = sum(1 for row in sheet.iter_rows(values_only=True) if any(v not in (None, "") for v in row))
        if filled:
            others.append(f"{sheet.title!r} ({filled} rows)")
    if others:
        raise CatalogFileError(f"{path}: only the first sheet {workbook.worksheets[0].title!r} is read, but sheet(s) "
                               f"{', '.join(others)} also hold data; move them to the first sheet or save each "
                               "sheet as its own file")


def _merged_ranges(workbook, sheet) -> list[tuple[str, int, int]]:  # noqa: ANN001 - openpyxl read-only objects
    """(range, first row, last row) of every merged range; read-only sheets do not load them, so the
    sheet's XML is scanned."""
    from xml.etree.ElementTree import iterparse

    from openpyxl.utils.cell import range_boundaries

    ranges = []
    with workbook._archive.open(sheet._worksheet_path) as fh:
        for _, element in iterparse(fh):
            if element.tag.endswith("}mergeCell"):
                ref = element.get("ref", "")
                _, first, _, last = range_boundaries(ref)
                ranges.append((ref, first, last))
            element.clear()
    return ranges


def _any_formula(cells) -> bool:  # noqa: ANN001 - openpyxl read-only cells
    return any(getattr(c, "data_type", None) == "f" for c in cells)


def _cell_problem(row: int, header: list[str], cells, formula_cells, merged) -> str | None:  # noqa: ANN001
    """Why a row's cells cannot be trusted as they read, if they cannot."""
    for ref, first, last in merged:
        if first <= row <= last:
            return f"cells {ref} are merged, so some of this row's cells read as empty; unmerge and fill them"
    for name, cell, formula in zip(header, cells, formula_cells):
        column = f"{getattr(cell, 'column_letter', '?')}{row}" + (f" ({name})" if name else "")
        if getattr(formula, "data_type", None) == "f" and cell.value is None:
            return (f"cell {column} is a formula with no saved value ({str(formula.value)[:60]}); "
                    "open and save the file in a spreadsheet program, or paste values")
        if getattr(cell, "data_type", None) in ERROR_TYPES:
            return f"cell {column} holds the spreadsheet error {cell.value}"
    return None
