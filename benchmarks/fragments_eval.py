"""First-sight rate of a batch of brief fragments: how many the reader gets right the first time it sees them.

    .venv/bin/python benchmarks/fragments_eval.py [--workspace DIR] [--json OUT] benchmarks/fragments/fresh-*.yaml

Each file holds fragments in the notation of tests/data/brief_fragments.yaml (`text`, `expect`, `forbid`; here
also `source`, `kind`, `class`). Each is read by understanding's entry point, `understand`, over the demo
catalog's index (`make demo`, or `shelfwise catalog import config/demo/catalog.jsonl` and `shelfwise index
build`, in the workspace), and passes as a fragment of the table's test does: every `expect` item derived, no
`forbid` item. Prints the failures with what was read, the pass rate per language (a fragment with a CJK
character is Chinese, as the test counts them) and the failed fragments per class; --json writes the passed and
total counts per language to OUT (for scripts/quality_report.py).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import yaml

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))


def language(text: str) -> str:
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


def read_batches(paths: list[Path]) -> list[tuple[Path, list[dict]]] | str:
    """Each file's fragments, or the one line that says which file and entry is not a fragment."""
    batches = []
    for path in paths:
        try:
            fragments = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            return f"{path}: cannot be read as YAML ({type(error).__name__})"
        for row, fragment in enumerate(fragments if isinstance(fragments, list) else [None], 1):
            if not isinstance(fragment, dict) or not isinstance(fragment.get("text"), str):
                return f"{path}: entry {row}: field `text` is missing (a fragment is a mapping with a text)"
        batches.append((path, fragments))
    return batches


# Whole-number fields: "pub_year<1990" and "pub_year<=1989" select the same books, and writers use both.
INTEGER_BOUND = re.compile(r"^((?:SHOULD |MUST_NOT )?(?:pub_year|pages))([<>])(\d+)$")


def canonical(note: str) -> str:
    """A whole-number bound written inclusively, so that two notations of one condition compare equal."""
    bound = INTEGER_BOUND.match(note)
    if not bound:
        return note
    field, comparator, number = bound.groups()
    return f"{field}{comparator}={int(number) - 1 if comparator == '<' else int(number) + 1}"


def notation(understood, titles: dict[str, str]) -> set[str]:
    """What understanding made of a fragment, in the table's notation (tests/data/brief_fragments.yaml): a work
    by its title, class codes by the class_ranges entries they hold whole, a MUST of several values as one."""
    from config.class_ranges import class_ranges

    read = {f"intent={understood.understanding.intent}"}
    for c in understood.query.filter_conditions:
        named, codes = class_ranges().named(c.values) if c.field == "classification" else ((), c.values)
        values = [e.key for e in named] + [titles.get(v, v) if c.field == "work" else v for v in codes]
        if c.operator == "MUST" and len(values) > 1:  # any one of them: "MUST form=essays|fiction"
            values = ["|".join(sorted(values))]
        read |= {f"{c.operator} {c.field}={v}" for v in values}
    return (read | {n.describe().removeprefix("MUST ") for n in understood.query.numeric_conditions}
            | {n.describe("SHOULD") for n in understood.query.preferred_numbers})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the pass counts per language to OUT")
    parser.add_argument("--workspace", help="a workspace with the demo catalog indexed (default: the settings')")
    args = parser.parse_args(argv)
    batches = read_batches(args.files)
    if isinstance(batches, str):
        print(batches, file=sys.stderr)
        return 2
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    if args.workspace:
        os.environ["SHELFWISE__WORKSPACE"] = str(Path(args.workspace).resolve())

    from config.settings import load_settings
    from config.vocabulary import get_vocabulary
    from storage.index_store import NoIndexError
    from tasks.model.themes import Theme
    from tasks.shelving import build_context
    from tasks.understanding.translate.rules import RulesTranslator
    from tasks.understanding.understand import understand

    vocabulary = get_vocabulary()
    try:
        ctx = build_context(load_settings(), vocabulary)
    except NoIndexError as error:
        print(f"fragments_eval: {error}; the fragments are read over the demo catalog (`make demo`)", file=sys.stderr)
        return 2
    # The table reads a fragment as written: the rules translator, and every field counted as checkable (the
    # demo catalog has no ratings; what a catalog cannot check becomes a wish only after the reading).
    tools = replace(ctx.tools, translator=RulesTranslator(vocabulary), held=None, numbered=None)
    titles = {b.work_id: b.title for b in ctx.recall.books.values() if b.book_id == b.work_id}
    total, passed, failed_classes = Counter(), Counter(), Counter()
    for path, fragments in batches:
        for fragment in fragments:
            lang = language(fragment["text"])
            found = {canonical(n) for n in notation(understand(Theme("fragments", "f", fragment["text"]), [], tools),
                                                    titles)}
            missing = sorted({canonical(n) for n in fragment.get("expect", ())} - found)
            misread = sorted({canonical(n) for n in fragment.get("forbid", ())} & found)
            total[lang] += 1
            if not missing and not misread:
                passed[lang] += 1
                continue
            failed_classes.update(fragment.get("class", ()))
            print(f"FAIL [{lang}] {fragment['text']}\n     missing {missing}  misread {misread}\n"
                  f"     read {sorted(found)}\n     class {fragment.get('class', [])}  ({path.name})")
    print()
    for lang in sorted(total):
        print(f"{lang}: {passed[lang]}/{total[lang]} = {passed[lang] / total[lang]:.0%} at first sight")
    all_passed, all_total = sum(passed.values()), sum(total.values())
    print(f"all: {all_passed}/{all_total} = {all_passed / all_total:.0%}")
    print("failed fragments per class:", ", ".join(f"{c} {n}" for c, n in failed_classes.most_common()))
    if args.json:
        tmp = args.json.with_name(args.json.name + ".tmp")
        tmp.write_text(json.dumps({"files": [path.name for path, _ in batches], "passed": dict(passed),
                                   "total": dict(total)}, indent=1), encoding="utf-8")
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
