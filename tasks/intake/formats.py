"""The catalog file formats Shelfwise reads, and the extensions that tell them (no heavy imports: the CLI uses it)."""

from dataclasses import dataclass, field

FORMAT_OF_SUFFIX = {
    ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet", ".xlsx": "xlsx",
    ".mrc": "marc21", ".marc": "marc21", ".iso": "marc21", ".xml": "marcxml", ".marcxml": "marcxml",
}
# cnmarc (Chinese UNIMARC, ISO 2709 like MARC21) is never told by the extension: a UNIMARC record is
# recognised by its fields, or named with --format.
# the formats whose text encoding a user may name (--encoding); the others say their own
ENCODED_FORMATS = ("csv", "tsv", "marc21", "cnmarc")
SOURCE_FORMATS = ("csv", "tsv", "jsonl", "parquet", "xlsx", "marc21", "marcxml", "cnmarc")


class CatalogFileError(ValueError):
    """A source file that cannot be read at all (format, encoding, missing columns)."""


@dataclass
class ReadReport:
    """What reading a file found beside its rows: the encoding it was read in, and per-row warnings
    (row number, field, message, value) such as a MARC record whose declared encoding was not its own."""

    encoding: str | None = None
    warnings: list[tuple[int, str, str, str]] = field(default_factory=list)
