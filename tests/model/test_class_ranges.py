"""Literatures by nation and periods of Chinese history as classification ranges (config/class_ranges.yaml):
the codes hold the books real records class there, and nothing next to them."""

import pytest

from config.class_ranges import class_ranges, lcc_prefixes, load_class_ranges
from config.vocabulary import get_vocabulary
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.export.wording import OR, condition_text
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition
from tasks.model.constraints import evaluate, hard_constraints
from tasks.recall.filters import FilterColumns, mask
from tests.conftest import DEMO_CATALOG

BOOKS = [
    BookRecord("murakami-zh", "挪威的森林", classification=("clc:I313.45",)),
    BookRecord("murakami-en", "Norwegian Wood", classification=("lcc:PL856.U673 N6", "ddc:895.635")),
    BookRecord("gatsby", "The Great Gatsby", classification=("lcc:PS3511.I9 G7", "ddc:813.52")),
    BookRecord("charlotte", "Charlotte's Web", classification=("ddc:J 813.54",)),
    BookRecord("munro", "Runaway", classification=("lcc:PR9199.3.M6 A6",)),
    BookRecord("ishiguro", "Never Let Me Go", classification=("lcc:PR6059.S5 N48", "ddc:823.914")),
    BookRecord("oceanic", "A Papuan grammar", classification=("lcc:PL7000.A1",)),
    BookRecord("wanli", "万历十五年", classification=("clc:K248.306",)),
    BookRecord("shiji", "史记", classification=("clc:K204.2",)),
    BookRecord("opium-war", "天朝的崩溃", classification=("clc:K253",)),
    BookRecord("unclassed", "Kitchen", subjects=("Japanese fiction -- 20th century",)),
]


def shelved(key: str, operator: str, with_subjects: bool = False) -> list[str]:
    """The books a condition on one entry selects, by the evaluator and by the column mask alike."""
    entry = class_ranges().entry(key)
    conditions = [FilterCondition("classification", entry.codes, operator)]
    if with_subjects:
        conditions.append(FilterCondition("subject", entry.subjects, operator))
    expr = hard_constraints(conditions)
    chosen = [b.book_id for b in BOOKS if evaluate(expr, b)]
    columns = FilterColumns.build(BOOKS)
    assert [b for b, kept in zip(columns.book_ids, mask(expr, columns)) if kept] == chosen
    return chosen


def test_a_nation_holds_its_books_in_every_scheme_and_no_neighbour():
    assert shelved("japanese", "MUST") == ["murakami-zh", "murakami-en"]  # not PL7000, Oceanic languages
    assert shelved("american", "MUST") == ["gatsby", "charlotte"]  # a juvenile "J 813.54" too
    assert shelved("british", "MUST") == ["ishiguro"]  # PR9199.3 is Canadian
    # excluded, the subject words reach a record without a class code
    assert "unclassed" in shelved("japanese", "MUST_NOT") and "unclassed" not in shelved("japanese", "MUST_NOT", True)


def test_a_period_of_chinese_history_holds_its_classes():
    assert shelved("ming_qing", "MUST") == ["wanli"]
    assert shelved("ancient_china", "MUST") == ["wanli", "shiji"]  # 1840 on (K25) is not ancient


def test_an_lcc_range_is_every_number_in_it_and_none_outside():
    low, high = 700, 889
    prefixes = set(lcc_prefixes("PL", low, high))
    for number in [7, 70, 88, 89, *range(600, 1000), *range(6990, 9000, 7), 8890]:
        book = BookRecord("b", "t", classification=(f"lcc:PL{number}.A1",))
        assert bool(prefixes & {p.partition(":")[2] for p in book.class_prefixes}) == (low <= number <= high)
    assert lcc_prefixes("PS", 1, 3626)[:3] == ["PS1", "PS2", "PS3."]  # whole subtrees stay one prefix


def test_the_table_matches_the_demo_catalogs_records():
    books = validate_file(DEMO_CATALOG, ColumnMapping(), get_vocabulary()).books

    def titles(key: str) -> set[str]:
        expr = hard_constraints([FilterCondition("classification", class_ranges().entry(key).codes, "MUST")])
        return {b.title for b in books if evaluate(expr, b)}
    assert {"挪威的森林", "白夜行", "雪国", "窗边的小豆豆"} <= titles("japanese")
    assert not {"百年孤独", "老人与海"} & titles("japanese")
    assert {"百年孤独", "霍乱时期的爱情"} == titles("latin_american")
    assert {"老人与海", "Leaves of Grass", "Beloved"} <= titles("american") and "1984" not in titles("american")
    assert {"万历十五年", "明朝那些事儿"} == titles("ming_qing")
    assert {"史记", "资治通鉴", "万历十五年"} <= titles("ancient_china") and "天朝的崩溃" not in titles("ancient_china")


def test_codes_are_said_as_what_they_stand_for():
    codes = class_ranges().entry("japanese").codes + ("clc:I24",)
    assert class_ranges().labels(codes, "zh") == ["日本文学", "clc:I24"]
    assert condition_text("classification", codes, "en", OR) == "classed under Japanese literature or CLC I24"


def test_a_malformed_range_or_an_entry_without_codes_is_refused(tmp_path):
    bad = tmp_path / "ranges.yaml"
    bad.write_text("literatures:\n  x:\n    label: {zh: x, en: x}\n    qualifiers: {en: [X]}\n    lcc: [PL7xx]\n")
    with pytest.raises(ValueError, match="PL7xx"):
        load_class_ranges(bad)
    bad.write_text("literatures:\n  x:\n    label: {zh: x, en: x}\n    qualifiers: {en: [X]}\n")
    with pytest.raises(ValueError, match="needs codes"):
        load_class_ranges(bad)


def test_a_group_stands_for_literatures_the_table_has(tmp_path):
    """A literature group names its members or leaves some out (`all_but`); one naming a literature the table lacks
    is refused where it stands, not read as a group of nothing."""
    nation = "literatures:\n  x:\n    label: {zh: x, en: x}\n    qualifiers: {en: [X]}\n    lcc: [PL700-889]\n"
    table = tmp_path / "ranges.yaml"
    table.write_text(nation + "literature_groups:\n  g:\n    label: {zh: g, en: g}\n    qualifiers: {en: [G]}\n"
                     "    members: [x, y]\n")
    with pytest.raises(ValueError, match=r"literature_groups\.g.*'y'"):
        load_class_ranges(table)
    ranges = class_ranges()
    assert set(ranges.literatures_of(["foreign"])) == {e.key for e in ranges.literatures} - {"chinese"}
    assert ranges.literatures_of(["european", "french"]) == ranges.literatures_of(["european"])


def test_try_prints_a_class_range_by_the_literature_it_stands_for_and_other_codes_as_they_are():
    from flows.cli import _readable

    japanese = class_ranges().entry("japanese").codes
    shown = _readable(FilterCondition("classification", (*japanese, "clc:K81"), "MUST_NOT"), "en")
    assert shown == {"field": "classification", "values": ["Japanese literature", "clc:K81"], "operator": "MUST_NOT"}
    assert _readable(FilterCondition("genre", ("科幻",), "MUST"), "zh")["values"] == ["科幻"]
