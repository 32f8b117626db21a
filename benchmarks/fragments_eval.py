"""First-sight rate of a batch of brief fragments: how many the reader gets right the first time it sees them.

    .venv/bin/python benchmarks/fragments_eval.py benchmarks/fragments/fresh-zh.yaml benchmarks/fragments/fresh-en.yaml

Each file holds fragments in the notation of tests/data/brief_fragments.yaml (`text`, `expect`, `forbid`; here
also `source`, `kind`, `class`). A fragment passes as it passes tests/unit/test_brief_fragments.py: every
`expect` item is derived and no `forbid` item is. The reading is the test's own helper (`derived`), so this
scores exactly what the table's test would. Prints the pass rate per language (a fragment with a CJK character
is Chinese, as the test counts them), the failures with what was read, and the failed fragments per class.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import yaml

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from tests.unit.test_brief_fragments import derived  # noqa: E402  (after the path is set)


def language(text: str) -> str:
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    batches = []
    for path in args.files:
        try:
            fragments = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            print(f"{path}: cannot be read as YAML ({type(error).__name__})", file=sys.stderr)
            return 2
        for row, fragment in enumerate(fragments if isinstance(fragments, list) else [None], 1):
            if not isinstance(fragment, dict) or not isinstance(fragment.get("text"), str):
                print(f"{path}: entry {row}: field `text` is missing (a fragment is a mapping with a text)",
                      file=sys.stderr)
                return 2
        batches.append((path, fragments))
    total, passed, failed_classes = Counter(), Counter(), Counter()
    for path, fragments in batches:
        for fragment in fragments:
            lang = language(fragment["text"])
            found = derived(fragment["text"])
            missing = sorted(set(fragment.get("expect", ())) - found)
            misread = sorted(set(fragment.get("forbid", ())) & found)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
