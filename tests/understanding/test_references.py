"""References to earlier shelves on tiny in-memory history."""

from datetime import datetime

from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.query import ThemeQuery
from tasks.model.themes import HistoryShelf, Theme
from tasks.understanding.references import described_shelf, detect_reference, merge_reference, resolve, shared_words

EARLIER = HistoryShelf("b1", "rain", "Quiet novels for a rainy night",
                       (FilterCondition("emotional_tone", ("忧伤怅惘",), "SHOULD"),
                        FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT")),
                       ("x",), position=2, batch_started=datetime(2026, 11, 1))
OLDER = HistoryShelf("b0", "sea", "Sea", (), ("y",), position=5, batch_started=datetime(2026, 10, 1))
THIS_BATCH = HistoryShelf("b2", "stars", "星空", (FilterCondition("spatial_atmosphere", ("宇宙星空",), "SHOULD"),),
                          ("z",), position=1)


def test_references_are_told_by_temporal_or_referential_words():
    ref = detect_reference("延续上次的主题，但更轻松一些")
    assert (ref.scope, ref.stance, ref.shifts) == ("recent_batches", "continue", ("lighter",))
    ref = detect_reference("和刚才那个书架相反")
    assert (ref.scope, ref.stance) == ("recent_themes", "opposite")
    assert detect_reference("like last week's shelf").scope == "recent_batches"
    # word boundaries: "adjust" holds "just" but is no reference; "before 1950" is a year, not a shelf
    assert detect_reference("adjust the mood, books published before 1950") is None
    assert detect_reference("适合雨天读的小说") is None


def test_the_scope_decides_which_shelf_is_meant():
    theme = Theme("b2", "t", "x", position=2)
    history = [OLDER, EARLIER, THIS_BATCH]
    assert resolve(detect_reference("延续上次的主题"), theme, history) == EARLIER  # latest earlier batch
    assert resolve(detect_reference("和刚才那个书架相反"), theme, history) == THIS_BATCH
    assert resolve(detect_reference("延续上次的主题"), theme, [THIS_BATCH]) == THIS_BATCH  # fallback
    assert resolve(detect_reference("延续上次的主题"), theme, []) is None


def test_continue_merges_and_opposite_inverts():
    query = ThemeQuery((FilterCondition("reading_load", ("轻松消遣",), "SHOULD"),), ("k",), "q", 0.8, "rules")
    cont = merge_reference(query, detect_reference("延续上次的主题，但更轻松一些"), EARLIER)
    ops = {(c.field, v): c.operator for c in cont.filter_conditions for v in c.values}
    assert ops == {("reading_load", "轻松消遣"): "SHOULD", ("emotional_tone", "忧伤怅惘"): "SHOULD",
                   ("emotional_tone", "温暖治愈"): "MUST_NOT", ("emotional_tone", "沉重压抑"): "MUST_NOT"}
    assert EARLIER.brief in cont.synthetic_query
    opposite = merge_reference(query, detect_reference("和上次那个书架相反"), EARLIER)
    ops = {(c.field, v): c.operator for c in opposite.filter_conditions for v in c.values}
    assert ops[("emotional_tone", "忧伤怅惘")] == "MUST_NOT" and ops[("emotional_tone", "温暖治愈")] == "SHOULD"
    assert EARLIER.brief not in opposite.synthetic_query


def test_the_earlier_shelf_s_year_range_holds_unless_the_brief_gives_its_own():
    between_wars = HistoryShelf("b6", "wars", "Fiction from between the wars, 1919 to 1939",
                                (FilterCondition("form", ("fiction",), "MUST"),), ("x",),
                                (NumericCondition("pub_year", ">=", 1919), NumericCondition("pub_year", "<=", 1939),
                                 NumericCondition("pages", "<=", 300)))
    heavier = ThemeQuery((), (), "q", 0.8, "rules")
    kept = merge_reference(heavier, detect_reference("Same theme as the previous shelf, but heavier"), between_wars)
    assert set(kept.numeric_conditions) == set(between_wars.numeric)
    later = ThemeQuery((), (), "q", 0.8, "rules", numeric_conditions=(NumericCondition("pub_year", ">=", 1950),))
    own = merge_reference(later, detect_reference("same as the previous shelf, but after 1950"), between_wars)
    assert set(own.numeric_conditions) == {NumericCondition("pub_year", ">=", 1950),
                                           NumericCondition("pages", "<=", 300)}


def test_what_a_brief_says_of_the_shelf_it_means_leaves_out_the_words_of_referring():
    assert described_shelf("Like last week's rainy-night shelf, but lighter.") == "rainy-night"
    assert described_shelf("延续上次那个科幻书架，但更轻松一些") == "科幻"
    assert described_shelf("Same theme as the previous shelf, but heavier") == ""  # names none: the latest


def test_a_shelf_named_by_a_short_phrase_is_found_by_the_words_its_brief_used():
    named = described_shelf("上次那个民国作家的书架反响不错，再来一批同样的主题，鲁迅还是不要放。")
    assert shared_words(named, "民国作家专架，除了鲁迅以外都可以") == 1.0
    assert shared_words(named, "民国时期的散文") == 0.5
    assert shared_words(named, "科普，别太难") == 0.0
    assert shared_words(described_shelf("Like last week's rainy-night shelf"), "quiet novels for a rainy night") == 1.0
