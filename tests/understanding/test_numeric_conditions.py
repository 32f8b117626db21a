"""Time and number constraints read from briefs."""

from datetime import date

import pytest

from tasks.model.conditions import NumericCondition as N
from tasks.understanding.numbers import on_scale, parse_numeric_conditions, rating_scale

TODAY = date(2026, 11, 22)


@pytest.mark.parametrize("brief, expected", [
    ("1980年代以后出版的科幻小说", [N("pub_year", ">=", 1980)]),
    ("出版于1980年代", [N("pub_year", ">=", 1980), N("pub_year", "<", 1990)]),
    ("1949年以前的散文", [N("pub_year", "<", 1949)]),
    ("近五年的新书", [N("pub_year", ">=", 2021)]),
    ("21世纪的小说", [N("pub_year", ">=", 2001)]),  # no book is published after this year
    ("nothing from the twenty-first century", [N("pub_year", ">=", 2001)]),
    ("novels written before 1950", [N("pub_year", "<", 1950)]),
    ("crime novels in the 1990s", [N("pub_year", ">=", 1990), N("pub_year", "<", 2000)]),
    ("评分8分以上，300页以内", [N("rating", ">=", 8), N("pages", "<=", 300)]),
    ("quiet novels under 200 pages", [N("pages", "<", 200)]),
    ("nothing over 400 pages or published after 1980", [N("pages", ">", 400), N("pub_year", ">", 1980)]),
    ("三百页以内，近十年", [N("pages", "<=", 300), N("pub_year", ">=", 2016)]),
    ("fiction from the 1960s, at least 400 pages", [N("pub_year", ">=", 1960), N("pub_year", "<", 1970),
                                                   N("pages", ">=", 400)]),
    ("适合雨天读的小说", []),
    ("民国时期（1912到1949年）出版的散文", [N("pub_year", ">=", 1912), N("pub_year", "<=", 1949)]),
    ("Fiction from between the wars, 1919 to 1939.", [N("pub_year", ">=", 1919), N("pub_year", "<=", 1939)]),
    ("八九十年代的中国小说", [N("pub_year", ">=", 1980), N("pub_year", "<", 2000)]),
    ("七十年代的诗", [N("pub_year", ">=", 1970), N("pub_year", "<", 1980)]),
    ("Highly rated books from the last five years", [N("pub_year", ">=", 2021)]),
    ("memoirs of the past two decades", [N("pub_year", ">=", 2006)]),
    ("science fiction from the last decade", [N("pub_year", ">=", 2016)]),
    ("novels from 1920–1940", [N("pub_year", ">=", 1920), N("pub_year", "<=", 1940)]),
    # a comparator on either side of a quantity, the quantity by its unit, a field word, or a year's shape
    ("science fiction published 2005 or later", [N("pub_year", ">=", 2005)]),
    ("mysteries rated 4 or higher", [N("rating", ">=", 4)]),
    ("poetry rated at least 8", [N("rating", ">=", 8)]),
    ("essays of 250 pages at most", [N("pages", "<=", 250)]),
    ("篇幅不超过250页的散文", [N("pages", "<=", 250)]),
    ("豆瓣评分不低于8.5的小说", [N("rating", ">=", 8.5)]),
    ("四星以上的科幻", [N("rating", ">=", 4)]),
    ("2012年起出版的推理小说", [N("pub_year", ">=", 2012)]),
    # a rating past the scale, a count of years ago, a bare count are no condition
    ("rated 40 or higher", []),
    ("三年前读过的书", []),
    ("30 books or more", []),
    # how long a read takes, with a verb of reading in its clause, is a length
    ("一个下午就能读完的小说", [N("pages", "<=", 200)]),
    ("fiction you can read in a few hours", [N("pages", "<=", 200)]),
    ("a few hours of music", []),
])
def test_briefs_become_numeric_conditions(brief, expected):
    assert list(parse_numeric_conditions(brief, TODAY)) == expected


def test_rules_translator_carries_them_into_the_query(vocabulary):
    from tasks.model.themes import Theme
    from tasks.understanding.reading import read_brief
    from tasks.understanding.translate.rules import RulesTranslator

    brief = "1980年代以后出版的科幻小说"
    query = RulesTranslator(vocabulary).translate(Theme("b", "t", brief), read_brief(brief, vocabulary))
    assert query.numeric_conditions == (N("pub_year", ">=", 1980),)
    assert "MUST pub_year>=1980" in query.describe_conditions()


@pytest.mark.parametrize("brief, catalog_scale, expected", [
    ("评分8分以上的推理小说", 5.0, N("rating", ">=", 4)),  # 分 are Douban's ten points
    ("mysteries rated 4 stars or more", 10.0, N("rating", ">=", 8)),
    ("rated 8 or higher", 5.0, N("rating", ">=", 4)),  # no scale said, higher than a star can be: ten points
    ("rated 4 or higher", 5.0, N("rating", ">=", 4)),  # no scale said, within the catalog's: its own
    ("四星以上", 5.0, N("rating", ">=", 4)),
    ("rated 4 or higher", None, N("rating", ">=", 4)),  # no book rated: as said, for review to ask about
])
def test_a_rating_is_read_on_the_catalogs_own_scale(brief, catalog_scale, expected):
    assert on_scale(parse_numeric_conditions(brief, TODAY), catalog_scale) == (expected,)


def test_the_catalogs_scale_is_read_off_its_ratings():
    assert rating_scale([3.5, None, 4.8]) == 5.0
    assert rating_scale([7.9, 9.1, None]) == 10.0
    assert rating_scale([None, None]) is None


@pytest.mark.parametrize("brief, expected", [
    ("二十世纪以前的书", [N("pub_year", "<", 1901)]),  # before the century: it is left out
    ("novels from the 19th century or earlier", [N("pub_year", "<=", 1900)]),  # or earlier: it is kept
    ("19世纪以来的小说", [N("pub_year", ">=", 1801)]),
    ("written after the 19th century", [N("pub_year", ">", 1900)]),
    ("Books written in the 1800s", [N("pub_year", ">=", 1800), N("pub_year", "<", 1900)]),  # a century, not a decade
    ("上个世纪的老书", [N("pub_year", ">=", 1901), N("pub_year", "<=", 2000)]),
    ("published this century", [N("pub_year", ">=", 2001)]),
])
def test_a_century_with_a_comparator_is_a_bound(brief, expected):
    assert list(parse_numeric_conditions(brief, TODAY)) == expected


@pytest.mark.parametrize("brief, expected", [
    # a range of any quantity, its unit said once after the second number (a rating's unit says its scale)
    ("一百五十到二百五十页的小说", [N("pages", ">=", 150), N("pages", "<=", 250)]),
    ("from 120 to 240 pages", [N("pages", ">=", 120), N("pages", "<=", 240)]),
    ("豆瓣7到8分之间", [N("rating", ">=", 7, scale=10.0), N("rating", "<=", 8, scale=10.0)]),
    # comparators as complete as the grammar lists them, before the number or after it
    ("不早于1990年的小说", [N("pub_year", ">=", 1990)]),
    ("1980年或之前出版的", [N("pub_year", "<=", 1980)]),
    ("essays not earlier than 1960", [N("pub_year", ">=", 1960)]),
])
def test_a_range_or_a_comparator_of_the_complete_lists_is_read(brief, expected):
    assert list(parse_numeric_conditions(brief, TODAY)) == expected


@pytest.mark.parametrize("brief, expected", [
    # two centuries joined: from the first's first year to the second's last
    ("essays of the 17th and 18th centuries", [N("pub_year", ">=", 1601), N("pub_year", "<=", 1800)]),
    ("十七到十八世纪的游记", [N("pub_year", ">=", 1601), N("pub_year", "<=", 1800)]),
    # a comparator that runs to today
    ("2015年至今出版的散文", [N("pub_year", ">=", 2015)]),
    # a decade the books are set in is no publication year
    ("spy novels set in the 1950s Berlin", []),
])
def test_joined_centuries_a_bound_to_today_and_a_setting(brief, expected):
    assert list(parse_numeric_conditions(brief, TODAY)) == expected


@pytest.mark.parametrize("brief, expected", [
    # a half after the number or after its unit, in words; a comparator on either side of it
    ("评分七分半以上的推理", [N("rating", ">=", 7.5, scale=10.0)]),
    ("豆瓣不低于八分半", [N("rating", ">=", 8.5, scale=10.0)]),
    ("三星半起的绘本", [N("rating", ">=", 3.5, scale=5.0)]),
    ("thrillers of at least three and a half stars", [N("rating", ">=", 3.5, scale=5.0)]),
    ("memoirs rated four and a half stars or higher", [N("rating", ">=", 4.5, scale=5.0)]),
    ("评分起码8分", [N("rating", ">=", 8, scale=10.0)]),
    # a year named by its distance from this one, where its clause says the books were published then
    ("今年出版的散文", [N("pub_year", ">=", 2026), N("pub_year", "<=", 2026)]),
    ("去年的新书里挑几本", [N("pub_year", ">=", 2025), N("pub_year", "<=", 2025)]),
    ("novels published last year", [N("pub_year", ">=", 2025), N("pub_year", "<=", 2025)]),
    ("this year's Halloween display, spooky picture books", []),
    ("今年读书月的书单", []),
    ("essays from the past year", [N("pub_year", ">=", 2025)]),
])
def test_a_half_in_words_and_a_year_named_from_this_one(brief, expected):
    assert list(parse_numeric_conditions(brief, TODAY)) == expected


def test_a_negated_comparator_turns_round():
    """"none older than 1990": nothing before 1990, so from 1990 on."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    assert read_brief("Westerns, none older than 1990", get_vocabulary(), today=TODAY).numeric == (
        N("pub_year", ">=", 1990),)


@pytest.mark.parametrize("brief, bound", [
    ("memoirs scoring at least eight and a half out of ten", N("rating", ">=", 8.5)),
    ("space memoirs with at least four and a half stars", N("rating", ">=", 4.5)),
    ("评分不低于八分半的散文", N("rating", ">=", 8.5)),
])
def test_a_number_holding_a_word_of_share_is_still_required(brief, bound):
    """A share of the shelf makes a number a wish ("about half can be from 2020 on"), but the number's own words are
    no share: "and a half", "半" inside the number leave it a requirement."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    reading = read_brief(brief, get_vocabulary())
    assert (bound in reading.numeric, bound in reading.preferred) == (True, False), brief
    assert N("pub_year", ">=", 2020) in read_brief("essays, about half of them from 2020 or later",
                                                   get_vocabulary()).preferred


@pytest.mark.parametrize("brief", ["guides published this year or last", "guides published last year or this year",
                                   "今年或去年出版的科普绘本", "去年或者今年出版的绘本"])
def test_two_named_years_either_of_which_will_do_are_one_span(brief):
    """numbers.yaml `alternatives`: two named years joined are one span from the earlier to the later, the second's
    noun left out where it shares the first's ("this year or last"); each alone had made the two years required at
    once, which no book is."""
    assert list(parse_numeric_conditions(brief, TODAY)) == [N("pub_year", ">=", 2025), N("pub_year", "<=", 2026)]


@pytest.mark.parametrize("brief, kept", [
    ("怀旧的散文，写八九十年代车站和站台的", False),
    ("books about the 1960s counterculture", False),
    ("三十年代的天津和上海：写租界的非虚构，出版年不限", False),
    ("essays on the 1990s city, publication year doesn't matter", False),
    ("写于八十年代的小说", True),
    ("novels written in the 1960s", True),
])
def test_a_period_the_books_are_about_or_a_year_left_free_is_no_publication_year(brief, kept):
    """numbers.yaml `subject_before`: a period right after a word of what the books are about is their subject's
    time ("写八九十年代车站", "about the 1960s"; "写于" is a word of writing, not of subject); `unbounded`: a clause
    saying the publication year is free leaves every year of the brief no condition."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    reading = read_brief(brief, get_vocabulary(), today=TODAY)
    assert any(c.field == "pub_year" for c in (*reading.numeric, *reading.preferred)) == kept, brief


@pytest.mark.parametrize("brief, bound", [
    ("novels with a ceiling of 300 pages", N("pages", "<=", 300)),
    ("memoirs capped at 250 pages", N("pages", "<=", 250)),
    ("小说，页数上限三百页", N("pages", "<=", 300)),
    ("三百页封顶的散文", N("pages", "<=", 300)),
    ("以三百页为限的小说", N("pages", "<=", 300)),
    # an article between a comparator and its number, as "the" before a year: "at least a 4.5"
    ("poetry rated at least a 4.5", N("rating", ">=", 4.5)),
])
def test_a_cap_named_as_such_is_a_comparator(brief, bound):
    """numbers.yaml `before` / `after`: a ceiling, a cap or a limit named as a noun ("a ceiling of", "上限", "封顶",
    "为限") compares as "at most" does, on either side of the number, in both packs; `determiners` lets an article
    stand before the number."""
    assert list(parse_numeric_conditions(brief, TODAY)) == [bound], brief


@pytest.mark.parametrize("brief, bound", [
    ("science books no more than five years old", N("pub_year", ">=", 2021)),
    ("travel guides published less than ten years ago", N("pub_year", ">", 2016)),
    ("essays at least twenty years old", N("pub_year", "<=", 2006)),
    ("出版不超过五年的科普书", N("pub_year", ">=", 2021)),
    ("出版五年以内的小说", N("pub_year", ">=", 2021)),
    # a negation turns the age round as it turns any bound: "nothing more than ten years old"
    ("Gardening guides, nothing more than ten years old", N("pub_year", ">=", 2016)),
])
def test_the_books_age_is_a_publication_year(brief, bound):
    """numbers.yaml `book_age_after` / `book_age_before`: a compared number of years with a word of age after it
    ("years old", "ago") or a word of publishing before it in its clause ("出版…五年以内") is the books' age, their year
    bounded the other way; it had been no condition, and "five years old" a reader's age (children's books)."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    reading = read_brief(brief, get_vocabulary(), today=TODAY)
    assert list(reading.numeric) == [bound], brief
    assert not any(m.field == "audience" for m in reading.mentions), brief


def test_an_age_after_a_word_of_whom_the_books_are_for_is_the_readers():
    """numbers.yaml `age_for`: "for kids under ten years old" is the readers' age, no publication year."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    reading = read_brief("picture books for kids under ten years old", get_vocabulary(), today=TODAY)
    assert not reading.numeric and any(m.field == "audience" and m.value == "children" for m in reading.mentions)


@pytest.mark.parametrize("brief, ages", [
    ("Dinosaur books a seven-year-old could follow", (7, 7)),
    ("chapter books for an eight-year-old who loves horses", (8, 8)),
    ("for 8-year-olds", (8, 8)),
])
def test_an_age_hyphened_to_a_number_word_is_a_readers_age(brief, ages):
    """A number word hyphened to its age word ("a seven-year-old") is one word with it: the number grammar's words
    had stopped at a hyphen before a letter, as "long-term" must."""
    from tasks.understanding.numbers import number_grammar, reader_ages
    assert [(y, o) for _, _, y, o in reader_ages(brief, number_grammar())] == [ages], brief


@pytest.mark.parametrize("brief, bound", [
    ("评分不能低于8分的小说", N("rating", ">=", 8)),
    ("篇幅不应超过三百页", N("pages", "<=", 300)),
    ("thrillers never more than 350 pages", N("pages", "<=", 350)),
])
def test_a_negator_before_a_comparator_turns_it_round(brief, bound):
    """numbers.yaml `negators`: a negation right before a comparator is one comparator with it, turned round ("不能
    低于" is at least), in both packs; "不能低于" had been read as a maximum."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    assert list(read_brief(brief, get_vocabulary(), today=TODAY).numeric) == [bound], brief


@pytest.mark.parametrize("brief, ages", [
    ("Mysteries for 3rd-5th grade", (8, 11)),
    ("read-alouds for grades K-3", (5, 9)),
    ("picture books for K-2 readers", (5, 8)),
    ("K-12 teachers' guides", None),
])
def test_a_grade_by_its_ordinal_or_its_name_is_a_readers_age(brief, ages):
    """numbers.yaml `grade_names`, `ordinal_suffixes`, `grade_after`: a grade written as an ordinal ("3rd-5th grade")
    or by its name ("K"), a bare range from a named grade only over a primary school's band ("K-2", not "K-12")."""
    from tasks.understanding.numbers import number_grammar, reader_ages
    found = [(y, o) for _, _, y, o in reader_ages(brief, number_grammar())]
    assert found == ([ages] if ages else []), brief


@pytest.mark.parametrize("brief, bounds", [
    ("Short stories, nothing under 100 pages or over 300", [N("pages", ">=", 100), N("pages", "<=", 300)]),
    ("200页以上、400以下的小说", [N("pages", ">=", 200), N("pages", "<=", 400)]),
])
def test_a_second_bound_shares_its_clauses_unit(brief, bounds):
    """A comparator and a number with no unit after a bound with one in its clause counts what the first counts
    ("under 100 pages or over 300"); a year's shape stays a year ("around 400 pages from 2012 or later")."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    assert sorted(read_brief(brief, get_vocabulary(), today=TODAY).numeric, key=lambda n: n.op) == sorted(
        bounds, key=lambda n: n.op), brief
    assert N("pub_year", ">=", 2012) in parse_numeric_conditions("novels of around 400 pages from 2012 or later",
                                                                 TODAY)


@pytest.mark.parametrize("brief, oldest", [("nothing for under-tens", 10), ("board books for the under-fives", 5),
                                           ("books for under-5s", 5)])
def test_a_band_of_readers_named_by_its_upper_age_is_a_readers_age(brief, oldest):
    """numbers.yaml `age_band_under`: "under-tens", "under-fives" name readers up to that age (a number word's plural
    read as the number); the brief had excluded a subject "under-tens"."""
    from tasks.understanding.numbers import number_grammar, reader_ages
    assert (0, oldest) in [(y, o) for _, _, y, o in reader_ages(brief, number_grammar())], brief


@pytest.mark.parametrize("brief, bound", [
    ("Novels from nineteen eighty onward", N("pub_year", ">=", 1980)),
    ("nothing published before nineteen eighty-four", N("pub_year", ">=", 1984)),
    ("Short stories, nothing over one-fifty pages", N("pages", "<=", 150)),
    ("mysteries from twenty twenty or later", N("pub_year", ">=", 2020)),
])
def test_number_words_said_in_pairs_are_one_number(brief, bound):
    """A number word of ten or more after a number word is its next two digits, as years and colloquial hundreds
    are said ("nineteen eighty" 1980, "one-fifty" 150); number words hyphened to each other are one number
    ("eighty-four"); a year said in words is a year without a field word, as in digits. Before, "nineteen eighty"
    was 99 and "one-fifty" no number at all."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    assert list(read_brief(brief, get_vocabulary(), today=TODAY).numeric) == [bound], brief


@pytest.mark.parametrize("brief, bound", [
    ("Travel books no older than ten years", N("pub_year", ">=", 2016)),
    ("Classics, all older than twenty years", N("pub_year", "<", 2006)),
])
def test_a_comparator_of_age_before_years_is_the_books_age(brief, bound):
    """numbers.yaml `age_comparators`: "older than", "newer than" before a number of years (no "old" after) bound
    the books' age, the comparator mirrored from a year's ("older than 1990" is before it, "older than ten years"
    is more than ten years old)."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    assert list(read_brief(brief, get_vocabulary(), today=TODAY).numeric) == [bound], brief


@pytest.mark.parametrize("brief, ages", [
    ("board books for 6-18 month olds", (0.5, 1.5)),
    ("a nine-month-old's first books", (0.75, 0.75)),
    ("Animal stories for 9 year old readers", (9, 9)),
    ("novels you can read in 3 months", None),
])
def test_a_babys_age_in_months_and_an_unhyphened_age_are_readers_ages(brief, ages):
    """numbers.yaml `age_in_months`: a baby's age in months is a twelfth of a year each, spaced or hyphened; "9 year
    old" unhyphened is an age as "9-year-old" is; a stretch of months with no age word is none."""
    from tasks.understanding.numbers import number_grammar, reader_ages
    found = [(y, o) for _, _, y, o in reader_ages(brief, number_grammar())]
    assert found == ([ages] if ages else []), brief


def test_not_past_before_a_number_is_a_cap_and_but_keeps_its_comparator():
    """zh numbers.yaml `before` 不过: "not past" right before a number ("不过三百页" at most 300 pages); where it is
    "but", the comparator after the number decides ("不过2000年以后的也行" is no cap at 2000)."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import read_brief
    assert list(read_brief("篇幅不过三百页的小说", get_vocabulary(), today=TODAY).numeric) == [N("pages", "<=", 300)]
    said = read_brief("散文为主，不过2000年以后的也行", get_vocabulary(), today=TODAY)
    assert N("pub_year", "<=", 2000) not in [*said.numeric, *said.preferred]
