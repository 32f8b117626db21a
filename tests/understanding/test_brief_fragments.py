"""Brief fragments read as the curator meant them: the tables in tests/data/brief_fragments_<lang>.yaml give, per
fragment, what a correct reading derives (`expect`) and what would be a misreading (`forbid`)."""

from dataclasses import replace
from datetime import date
from functools import lru_cache

import pytest
import yaml

from config.class_ranges import class_ranges
from config.vocabulary import get_vocabulary, load_aliases
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.catalog.works import group_works
from tasks.model.themes import Theme
from tasks.understanding.entities import EntityIndex, understand_reading
from tasks.understanding.intent import settle_intent
from tasks.understanding.reading import read_brief
from tasks.understanding.references import apply_reference
from tasks.understanding.translate.rules import RulesTranslator
from tests.conftest import DEMO_CATALOG, PROJECT_ROOT

# one table per language (tests/data/brief_fragments_<lang>.yaml); `probe: 30` marks issue 30's second probe set
FRAGMENTS = [f for path in sorted((PROJECT_ROOT / "tests" / "data").glob("brief_fragments_*.yaml"))
             for f in yaml.safe_load(path.read_text(encoding="utf-8"))]
TODAY = date(2026, 11, 22)  # the table's relative years ("近十年") are counted from here


@lru_cache(maxsize=1)
def catalog() -> tuple[EntityIndex, dict[str, str]]:
    """The demo catalog's names, and each work's title (a work condition is shown by title)."""
    books = validate_file(DEMO_CATALOG, ColumnMapping(), get_vocabulary()).books
    works = group_works(books, load_aliases())
    books = [replace(b, work_id=works[b.book_id]) for b in books]
    return EntityIndex.build(books, load_aliases()), {b.work_id: b.title for b in books if b.book_id == b.work_id}


def derived(text: str) -> set[str]:
    """What the product reads in a fragment, in the table's notation."""
    index, titles = catalog()
    vocabulary = get_vocabulary()
    reading = read_brief(text, vocabulary, index, TODAY)
    theme = Theme("t", "t", text)
    query = apply_reference(RulesTranslator(vocabulary).translate(theme, reading), theme, []).query
    def shown(c) -> list[str]:
        """A condition's values in the table's notation: a work by its title, class codes by the entries of
        config/class_ranges.yaml they hold whole (any other code as it is)."""
        if c.field == "classification":
            held, rest = class_ranges().named(c.values)
            return [e.key for e in held] + rest
        return [titles.get(v, v) if c.field == "work" else v for v in c.values]

    out = set()
    for c in query.filter_conditions:
        values = shown(c)
        # a MUST of several values asks for any one of them: "MUST form=essays|fiction"
        if c.operator == "MUST" and len(values) > 1:
            out.add(f"MUST {c.field}={'|'.join(sorted(values))}")
        else:
            out |= {f"{c.operator} {c.field}={v}" for v in values}
    out |= {n.describe().removeprefix("MUST ") for n in query.numeric_conditions}
    out |= {n.describe("SHOULD") for n in query.preferred_numbers}
    understanding = settle_intent(understand_reading(reading, index), query)
    # a keyword is what reaches the sheet as a reason: "keyword=week" in `forbid` says a filler word must not
    return out | {f"intent={understanding.intent}"} | {f"keyword={k.lower()}" for k in query.search_keywords}


@pytest.mark.parametrize("fragment", FRAGMENTS, ids=[f["text"][:40] for f in FRAGMENTS])
def test_a_fragment_reads_as_meant(fragment):
    found = derived(fragment["text"])
    missing = set(fragment.get("expect", ())) - found
    misread = set(fragment.get("forbid", ())) & found
    assert not missing and not misread, f"missing {sorted(missing)}, misread {sorted(misread)}; read {sorted(found)}"


def test_the_table_is_large_bilingual_and_mostly_negated():
    chinese = sum(1 for f in FRAGMENTS if any("\u4e00" <= ch <= "\u9fff" for ch in f["text"]))
    negated = sum(1 for f in FRAGMENTS if any(e.startswith("MUST_NOT") or e.startswith("pub_year") for e in
                                              f.get("expect", ())) or f.get("forbid"))
    assert len(FRAGMENTS) >= 80 and chinese >= len(FRAGMENTS) / 2 - 5 and negated >= len(FRAGMENTS) / 2
