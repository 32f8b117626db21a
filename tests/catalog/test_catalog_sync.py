"""Catalog sync through the CLI: a full export (--replace), a delta file's deletions, `catalog remove`; the
summary adds up (read = inserted + updated + unchanged + rejected + withdrawn)."""

import re

from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog

HEADER = "book_id,title,authors,status\n"


def ids(settings) -> set[str]:
    with open_catalog(settings.duckdb_path, read_only=True) as db:
        return db.book_ids()


def counts(out: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"(read|inserted|updated|unchanged|rejected|withdrawn) (\d+)", out)}


def test_full_export_delta_and_remove(workspace, tmp_path, capsys):
    full = tmp_path / "full.csv"
    full.write_text(HEADER + "a,Alpha,X,\nb,Beta,Y,\nc,Gamma,Z,\n", encoding="utf-8")
    assert shelfwise(["catalog", "import", str(full)]) == 0
    assert ids(workspace) == {"a", "b", "c"}

    delta = tmp_path / "delta.csv"  # one new, one withdrawn, one row without a title
    delta.write_text(HEADER + "d,Delta,W,\nb,,,withdrawn\ne,,,\n", encoding="utf-8")
    capsys.readouterr()
    assert shelfwise(["catalog", "import", str(delta)]) == 0
    summary = counts(capsys.readouterr().out)
    assert summary == {"read": 3, "inserted": 1, "updated": 0, "unchanged": 0, "rejected": 1, "withdrawn": 1}
    assert ids(workspace) == {"a", "c", "d"}

    export = tmp_path / "export.csv"  # a full export without c: c is withdrawn, b comes back
    export.write_text(HEADER + "a,Alpha,X,\nb,Beta,Y,\nd,Delta,W,\n", encoding="utf-8")
    assert shelfwise(["catalog", "import", str(export), "--replace"]) == 0
    assert ids(workspace) == {"a", "b", "d"}
    with open_catalog(workspace.duckdb_path, read_only=True) as db:
        assert db.withdrawn_ids() == {"c"}

    assert shelfwise(["catalog", "remove", "a", "d"]) == 0
    assert ids(workspace) == {"b"}
    assert shelfwise(["catalog", "remove", "a", "zz"]) == 2
    assert "no book 'zz' in the catalog; nothing was removed" in capsys.readouterr().err
