"""How many fragments of the brief tables (tests/data/brief_fragments_<lang>.yaml) the reader reads as meant, per
table and for issue 30's probe set (`probe: 30`), with the failures listed: the fragment test's own notation.

    .venv/bin/python benchmarks/fragment_table.py [-v] [--json OUT]

--json writes the counts to OUT (for scripts/quality_report.py). Run in a checkout of older code (with this file,
the test and the tables copied in) it gives a first-sight rate.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.understanding.test_brief_fragments import derived  # noqa: E402  (after the path: run as a script)


def main(verbose: bool, out: Path | None) -> None:
    probes, tables = [0, 0], {}
    for path in sorted((ROOT / "tests" / "data").glob("brief_fragments_*.yaml")):
        rows = yaml.safe_load(path.read_text(encoding="utf-8"))
        passed = 0
        for row in rows:
            found = derived(row["text"])
            missing, misread = set(row.get("expect", ())) - found, set(row.get("forbid", ())) & found
            ok = not missing and not misread
            passed += ok
            if row.get("probe"):
                probes[0] += ok
                probes[1] += 1
            if verbose and not ok:
                print(f"  {row['text']}: missing {sorted(missing)}, misread {sorted(misread)}")
        print(f"{path.name}: {passed}/{len(rows)}")
        tables[path.name] = [passed, len(rows)]
    print(f"issue 30 probes: {probes[0]}/{probes[1]}")
    if out:
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps({"tables": tables, "probes": probes}, indent=1), encoding="utf-8")
        tmp.replace(out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", action="store_true", help="list the failures")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the counts per table to OUT")
    args = parser.parse_args()
    main(args.v, args.json)
