"""Query expansion: variants from config/term_mapping.yaml and config/synonyms.yaml."""

import dataclasses

from tasks.models import PathHit
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
