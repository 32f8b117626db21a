"""Query expansion: variants from config/term_mapping.yaml and config/synonyms.yaml."""

import dataclasses

from tasks.model.query import PathHit
from tasks.understanding.expansion import ExpansionTables, expand_query, load_expansion_tables, merge_best, translation

TABLES = ExpansionTables.build({"雨夜": ["rainy night", "rain"], "孤独": ["loneliness", "lonely"],
                                "悲伤": ["sad", "sorrow"]},
                               [["孤独", "寂寞"], ["quiet", "calm"], ["sad", "sorrowful"]])


def kinds(expansion):
    return {v.kind: v.text for v in expansion.variants}


def test_a_chinese_brief_gets_an_english_variant_and_a_synonym_variant():
    found = kinds(expand_query("雨夜里的孤独", TABLES))
    assert found["original"] == "雨夜里的孤独"
    assert found["translation"] == "rainy night loneliness"
    assert found["synonyms"] == "雨夜里的寂寞"


def test_an_english_brief_gets_a_chinese_variant_matched_on_word_boundaries():
    found = kinds(expand_query("quiet and sad novels", TABLES))
    assert found["translation"] == "悲伤"
    assert found["synonyms"] == "calm and sorrowful novels"
    # "sad" inside "saddle" is not the word "sad"
    assert "translation" not in kinds(expand_query("a saddle maker", TABLES))


def test_nothing_to_expand_leaves_the_original_and_its_reformulations():
    expansion = expand_query("完全无关的内容", TABLES)
    assert [v.kind for v in expansion.variants] == ["original"]
    assert expansion.note == ""


def test_a_broken_table_falls_back_to_the_original_and_says_why():
    broken = dataclasses.replace(TABLES, to_english={})  # the pattern still matches 雨夜: KeyError
    expansion = expand_query("雨夜里的孤独", broken)
    assert expansion.texts == ["雨夜里的孤独"]
    assert "expansion failed" in expansion.note and "KeyError" in expansion.note


def test_the_shipped_tables_cover_the_literary_vocabulary():
    tables = load_expansion_tables()
    assert len(tables.to_english) >= 150
    assert translation("适合雨天窗前读的小说", tables).startswith("rainy day")


def test_merge_best_keeps_each_books_best_hit_and_its_variant():
    merged = merge_best([PathHit("a", 0.4, "vector", "original"), PathHit("b", 0.5, "vector", "original"),
                         PathHit("a", 0.6, "vector", "translation"), PathHit("b", 0.5, "vector", "synonyms")])
    assert merged == [PathHit("a", 0.6, "vector", "translation"), PathHit("b", 0.5, "vector", "original")]


def test_no_variant_but_the_original_takes_more_than_its_share_of_the_limit():
    translated = [PathHit(b, s, "vector", "translation")
                  for b, s in (("t0", 0.9), ("t1", 0.8), ("t2", 0.7), ("t3", 0.6))]
    original = [PathHit(b, s, "vector", "original") for b, s in (("o0", 0.5), ("t3", 0.45), ("o1", 0.4), ("o2", 0.3))]
    merged = merge_best(translated + original, limit=5, max_variant_share=0.5)
    # two of five for the translation; t3 keeps the original's hit, t2 had no other
    assert [(h.book_id, h.variant) for h in merged] == [("t0", "translation"), ("t1", "translation"),
                                                        ("o0", "original"), ("t3", "original"), ("o1", "original")]
    assert merge_best(original + translated, limit=5) == merge_best(translated + original)[:5]


def _alternation_oracle(terms):
    """The regular expression the matcher replaced: one alternation, longest term first, English on word
    boundaries, case ignored."""
    import re

    def pattern(term):
        return rf"(?<![A-Za-z0-9]){re.escape(term)}(?![A-Za-z0-9])" if term.isascii() else re.escape(term)
    ordered = sorted(set(terms), key=lambda t: (-len(t), t))
    return re.compile("|".join(pattern(t) for t in ordered), re.IGNORECASE)


def test_the_term_matcher_finds_what_the_tables_alternation_found():
    from tasks.understanding.expansion import TermMatcher

    tables = load_expansion_tables()
    chinese, english = list(tables.to_english), list(tables.to_chinese)
    texts = ["雨夜读的安静小说，不要温暖治愈的", "Quiet novels for a rainy night, nothing heart-warming",
             "QUIET, Melancholy & restrained; a saddle-maker's sad-ness", "给被信息和压力淹没的人：辽阔的自然、星空、海洋",
             "".join(chinese[:200]), " ".join(english[:300]), "-".join(english[300:600]).upper()]
    for terms in (chinese, english):
        oracle, matcher = _alternation_oracle(terms), TermMatcher(terms)
        for text in texts:
            assert [m.span() for m in oracle.finditer(text)] == [(s, e) for s, e, _ in matcher.matches(text)]
