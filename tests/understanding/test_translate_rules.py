"""The rules translator on small briefs."""

from tasks.model.themes import Theme
from tasks.understanding.reading import read_brief
from tasks.understanding.translate.rules import RulesTranslator


def translate(vocabulary, **fields):
    theme = Theme("b", "t", **fields)
    return RulesTranslator(vocabulary).translate(theme, read_brief(theme.brief, vocabulary))


def ops(query):
    return {(c.field, v): c.operator for c in query.filter_conditions for v in c.values}


def test_negation_cues_exclude_and_must_cues_require(vocabulary):
    q = translate(vocabulary, theme_name="雨夜小说", description="适合雨天窗前读，不要温暖治愈的，只要小说。")
    assert ops(q) == {("reading_context", "雨天窗前"): "SHOULD", ("emotional_tone", "温暖治愈"): "MUST_NOT",
                      ("form", "fiction"): "MUST"}
    assert q.translator == "rules" and q.language == "zh"


def test_a_value_excluded_under_one_alias_is_not_wished_for_under_another(vocabulary):
    q = translate(vocabulary, theme_name="Quiet novels for a rainy night",
                  description="Melancholy is welcome; avoid heart-warming, feel-good stories.")
    assert ops(q)[("emotional_tone", "温暖治愈")] == "MUST_NOT"
    assert ops(q)[("emotional_tone", "忧伤怅惘")] == "SHOULD"
    # negated words never become BM25 keywords
    assert "heart" not in q.search_keywords and "warming" not in q.search_keywords
    assert "melancholy" in q.search_keywords


def test_a_negation_ends_where_a_must_begins(vocabulary):
    q = translate(vocabulary, theme_name="No heart-warming books, only calm ones")
    assert ops(q)[("emotional_tone", "温暖治愈")] == "MUST_NOT"
    assert ops(q)[("emotional_tone", "平静淡然")] == "MUST"
    q = translate(vocabulary, theme_name="只要小说，不要温暖治愈的")
    assert ops(q) == {("form", "fiction"): "MUST", ("emotional_tone", "温暖治愈"): "MUST_NOT"}


def test_english_cues_and_aliases_match_whole_words_only(vocabulary):
    # "no" must not fire inside "novel", "sea" not inside "research"
    q = translate(vocabulary, theme_name="A novel of research")
    assert ("spatial_atmosphere", "海洋岛屿") not in ops(q)
    assert ops(q) == {("form", "fiction"): "MUST"}


def test_the_longest_name_wins(vocabulary):
    reading = read_brief("我想读科幻小说", vocabulary)
    assert [(m.field, m.value) for m in reading.mentions] == [("genre", "科幻")]


def test_same_brief_same_query_and_a_vague_brief_is_less_confident(vocabulary):
    a = translate(vocabulary, theme_name="海边的书", description="关于大海和岛屿，平静的")
    b = translate(vocabulary, theme_name="海边的书", description="关于大海和岛屿，平静的")
    assert a == b
    vague = translate(vocabulary, theme_name="asdf qwer zxcv")
    assert vague.filter_conditions == () and vague.confidence < a.confidence
    # a brief that is nearly a value's own name is understood, not vague
    assert translate(vocabulary, theme_name="海洋与岛屿").confidence >= 0.7


def test_numbers_are_conditions_never_keywords(vocabulary):
    q = translate(vocabulary, theme_name="八九十年代的中国小说，三百页以内")
    assert {(n.field, n.op) for n in q.numeric_conditions} == {("pub_year", ">="), ("pub_year", "<"), ("pages", "<=")}
    assert not {"八", "九十年代", "三百", "页"} & set(q.search_keywords)


def test_a_value_description_joins_the_vector_query(vocabulary):
    stark = vocabulary.value("text_texture", "冷峻白描").description_en
    assert stark in translate(vocabulary, theme_name="Cold, stark novels for a winter evening.").synthetic_query
    sea = vocabulary.value("spatial_atmosphere", "海洋岛屿").description
    assert sea in translate(vocabulary, theme_name="海洋与岛屿").synthetic_query  # a theme made of a value's name


def test_a_briefs_filler_and_numbers_are_no_keywords(vocabulary):
    # (a claim keeps them: tests/evaluation/test_retrieval_queries.py)
    brief = translate(vocabulary, theme_name="One more shelf like the last one: quiet books to read by the sea")
    assert "one" not in brief.search_keywords and "read" not in brief.search_keywords
    assert "1990" not in translate(vocabulary, theme_name="Novels to read from after 1990").search_keywords
    assert "2000" not in translate(vocabulary, theme_name="2000年以后的小说").search_keywords


def test_a_one_word_title_is_a_word_of_the_brief_and_a_cue_word_never_an_excluded_title(vocabulary):
    from tasks.model.books import BookRecord
    from tasks.understanding.entities import EntityIndex

    index = EntityIndex.build([BookRecord("n", "Nothing"), BookRecord("g", "Never Let Me Go"),
                               BookRecord("m", "Moby-Dick")], {})

    def read(brief):
        reading = read_brief(brief, vocabulary, index)
        return {(m.field, m.value, m.polarity) for m in reading.mentions}
    # a catalog holding "Nothing" had turned "nothing heart-warming" into a wish for heart-warming books
    assert read("Quiet novels, nothing heart-warming") >= {("emotional_tone", "温暖治愈", "excluded")}
    assert not {m for m in read("Quiet novels, nothing heart-warming") if m[0] == "work"}
    # a title of several words keeps its cue word, and a title after a cue is excluded
    assert not {m for m in read("Books like Never Let Me Go") if m[2] == "excluded"}
    assert ("work", "m", "excluded") in read("Sea stories, but no Moby-Dick")


def test_what_a_brief_says_of_an_earlier_shelf_and_its_years_searches_for_nothing(vocabulary):
    q = translate(vocabulary, theme_name="Last week's rainy-night shelf went down well: same mood again, "
                                         "but swap in poetry from the 1960s or 1970s")
    assert q.search_keywords == ("poetry",)
    assert {(n.op, n.value) for n in q.numeric_conditions} == {(">=", 1960), ("<", 1980)}


def test_a_degree_or_a_length_is_no_keyword_of_a_brief(vocabulary):
    # 老 had found 老舍 and 老人与海 for "older Chinese novels"
    assert translate(vocabulary, theme_name="想要老一点的中国小说").search_keywords == ("中国",)
    assert translate(vocabulary, theme_name="Short, funny novels").search_keywords == ("funny",)  # a word for books is none either


def test_kinds_side_by_side_are_one_book_and_a_kind_found_inside_another_is_the_one_asked(vocabulary):
    # the later qualifies the first where one book can be both; a container word makes the later the one asked
    assert ops(translate(vocabulary, theme_name="t", description="韩国推理短篇集"))[("genre", "推理悬疑")] == "MUST"
    assert ops(translate(vocabulary, theme_name="t", description="fantasy short stories"))[("genre", "奇幻")] == "MUST"
    found = ops(translate(vocabulary, theme_name="t", description="百年文学经典里的科幻"))
    assert found[("genre", "科幻")] == "MUST"
    found = ops(translate(vocabulary, theme_name="t", description="历史读物中的奇幻"))
    assert found[("genre", "奇幻")] == "MUST" and found.get(("genre", "历史")) != "MUST"
    # two kinds no book is both are still alternatives: one of them
    q = translate(vocabulary, theme_name="t", description="诗歌小说都可以")
    assert {c.values for c in q.filter_conditions if c.operator == "MUST"} == {("poetry", "fiction")}


def test_a_list_offering_a_choice_with_other_things_makes_its_kinds_wishes(vocabulary):
    # "a love story, a ghost tale or a thriller": one choice among things that are no kind of book
    q = translate(vocabulary, theme_name="t", description="a romance, a gothic mystery or a fantasy")
    assert {(c.field, c.operator) for c in q.filter_conditions} == {("genre", "SHOULD"), ("emotional_tone", "SHOULD")}
    # qualities listed before the one kind they describe leave it asked for
    assert ops(translate(vocabulary, theme_name="t", description="romantic or cozy fantasy"))[("genre", "奇幻")] == "MUST"


def test_a_head_noun_names_the_kind_and_a_kinds_own_name_is_that_kind(vocabulary):
    # a genre before a form none of its books has: the novels are about it ("哲学小说" are novels)
    found = ops(translate(vocabulary, theme_name="t", description="哲学小说，不要太长"))
    assert found[("form", "fiction")] == "MUST" and found.get(("genre", "哲学")) == "SHOULD"
    # the form's own name is the form, as its genre's name too
    assert ops(translate(vocabulary, theme_name="t", description="散文随笔，写故乡的"))[("form", "essays")] == "MUST"


def test_a_preference_ending_its_clause_wishes_and_a_degree_after_a_hedge_is_what_need_not_be(vocabulary):
    assert ops(translate(vocabulary, theme_name="t", description="Short books, poetry preferred"))[
        ("form", "poetry")] == "SHOULD"
    assert ops(translate(vocabulary, theme_name="t", description="诗集，有插图的更好，古典诗歌优先"))[("form", "poetry")] == "MUST"
    found = ops(translate(vocabulary, theme_name="t", description="不用太长的科普"))
    assert found == {("genre", "科普"): "MUST"}


def test_a_literature_named_plainly_leaves_out_the_records_that_state_another(vocabulary):
    from tasks.model.books import BookRecord, Facet
    from tasks.model.constraints import evaluate, hard_constraints

    def said(nation):
        return BookRecord(nation, "x", facets=(Facet("literature", nation, 0.95, "crosswalk", "class"),))

    for brief, asked in (("日本小说专题", "japanese"), ("Russian novels for a long winter", "russian"),
                         ("中国当代小说推荐", "chinese")):
        q = translate(vocabulary, theme_name=brief)
        assert ops(q)[("literature", asked)] == "SHOULD", brief  # a wish: ranks first what says it
        constraints = hard_constraints([c for c in q.filter_conditions if c.field == "literature"],
                                       facet_confidence=0.85)
        others = [n for n in ("japanese", "russian", "chinese", "american") if n != asked]
        assert evaluate(constraints, said(asked)) and evaluate(constraints, BookRecord("unsaid", "x")), brief
        assert not any(evaluate(constraints, said(n)) for n in others), brief
    # required, or several offered as one-of: the MUST alone says it; a preference excludes nothing
    assert "MUST_NOT" not in ops(translate(vocabulary, theme_name="法国小说或者德国小说都可以")).values()
