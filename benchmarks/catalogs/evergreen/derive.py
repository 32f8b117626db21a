"""Derive a MARCXML collection from Evergreen's "enhanced Concerto" test data (biblio.record_entry.sql).

Usage: python derive.py BIBLIO_RECORD_ENTRY_SQL OUT_XML
The SQL file is a PostgreSQL COPY of biblio.record_entry in text format: one row a line, tab-separated, with
backslash escapes; column `marc` holds one MARCXML <record>. The records are written as they are, in one
<collection>, so that the import meets them as a library system's MARCXML export.
"""
import re
import sys

ESCAPES = {"\\\\": "\\", "\\n": "\n", "\\t": "\t", "\\r": "\r"}


def unescape(cell: str) -> str:
    return re.sub(r"\\[\\ntr]", lambda m: ESCAPES[m.group(0)], cell)


def records(sql_path: str):
    columns = None
    with open(sql_path, encoding="utf-8") as fh:
        for line in fh:
            if columns is None:
                if line.startswith("COPY "):
                    columns = [c.strip() for c in line[line.index("(") + 1:line.index(")")].split(",")]
                continue
            if line.startswith("\\."):
                return
            row = dict(zip(columns, line.rstrip("\n").split("\t")))
            marc = unescape(row["marc"])
            if marc.lstrip().startswith("<record"):
                yield re.sub(r"<record[^>]*>", "<record>", marc, count=1)


def main(sql_path: str, out: str) -> None:
    found = list(records(sql_path))
    with open(out, "w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="UTF-8"?>\n<collection xmlns="http://www.loc.gov/MARC21/slim">\n')
        fh.write("\n".join(found))
        fh.write("\n</collection>\n")
    print(f"{len(found)} records -> {out}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
