from tasks.language.text_analysis import (
    cjk_share,
    detect_language,
    has_control_characters,
    normalize_language,
    split_sentences,
    tokenize,
)


def test_chinese_is_cut_for_search_without_stopwords():
    tokens = tokenize("边城是沈从文的中篇小说，写湘西茶峒的翠翠", "zh")
    assert "沈从文" in tokens and "中篇小说" in tokens and "中篇" in tokens
    assert "的" not in tokens and "，" not in tokens


def test_english_words_are_lowercased_without_stopwords():
    assert tokenize("The Old Man and the Sea", "en") == ["old", "man", "sea"]


def test_language_is_told_by_cjk_share():
    assert detect_language("适合下雨天读的安静小说") == "zh"
    assert detect_language("A quiet novel for a rainy night") == "en"
    assert 0 < cjk_share("三体 The Three-Body Problem") < 0.3


def test_language_codes_are_normalized():
    assert normalize_language("zh-CN") == "zh"
    assert normalize_language("eng") == "en"
    assert normalize_language("en-GB") == "en"
    assert normalize_language("fre") == normalize_language("fra") == normalize_language("fr") == "fr"  # MARC, ISO, CSV
    assert normalize_language("fil") == "fil"  # no two-letter code: kept as written
    assert normalize_language("", "我与地坛") == "zh"


def test_sentences_split_in_both_languages():
    assert split_sentences("翠翠在渡口等。爷爷死了！他会回来吗？") == ["翠翠在渡口等。", "爷爷死了！", "他会回来吗？"]
    assert split_sentences("Dr. Stoner teaches. He marries Edith.") == ["Dr. Stoner teaches.", "He marries Edith."]
    assert split_sentences(None) == []


def test_control_characters_are_detected_but_newlines_allowed():
    assert has_control_characters("bad\x07bell")
    assert not has_control_characters("line one\nline two\ttab")
