"""The catalog file formats Shelfwise reads, and the extensions that tell them (no imports: the CLI uses it)."""

FORMAT_OF_SUFFIX = {
    ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet", ".xlsx": "xlsx",
    ".mrc": "marc21", ".marc": "marc21", ".iso": "marc21", ".xml": "marcxml", ".marcxml": "marcxml",
}
# cnmarc (Chinese UNIMARC, ISO 2709 like MARC21) is never told by the extension: a UNIMARC record is
# recognised by its fields, or named with --format.
SOURCE_FORMATS = ("csv", "tsv", "jsonl", "parquet", "xlsx", "marc21", "marcxml", "cnmarc")


class CatalogFileError(ValueError):
    """A source file that cannot be read at all (format, encoding, missing columns)."""
