"""Reader round seventeen: each mechanism through whole briefs, worded apart from the round's own probes. Each test
fails without its mechanism (its pack rows or its rule)."""

from datetime import date

import pytest

from config.vocabulary import get_vocabulary
from tasks.model.books import BookRecord, Facet
from tasks.model.constraints import evaluate, hard_constraints
from tasks.model.themes import Theme
from tasks.understanding.entities import EntityIndex
from tasks.understanding.reading import EXCLUDED, REFERRED, REQUIRED, WANTED, read_brief
from tasks.understanding.translate.rules import RulesTranslator

TODAY = date(2026, 11, 29)


def reading(brief: str):
    return read_brief(brief, get_vocabulary(), today=TODAY)


def said(brief: str) -> set[tuple[str, str, str]]:
    return {(m.field, m.value, m.polarity) for m in reading(brief).mentions}


@pytest.mark.parametrize("brief", [
    "Essays again, though not French ones this time - we featured them in the spring of last year",
    "Essays again, but no French writers: we ran those last year",
])
def test_a_past_act_of_shelving_dates_no_book(brief):
    """cues.yaml `reference_done` and references.done_clauses: the clause that says what the library shelved before
    names when it did, not when the books were published ("last year" had required books of 2025 or later)."""
    read = reading(brief)
    assert not read.numeric, (brief, read.numeric)
    assert any(value == "french" and polarity == EXCLUDED for _, value, polarity in said(brief)), said(brief)


@pytest.mark.parametrize("brief, value", [
    ("Novels for teens; we displayed Japanese novels in June", "japanese"),
    ("青少年小说，日本小说六月份展出过", "japanese"),
    ("随笔，2024年那批法国随笔展过了", "french"),
])
def test_what_an_earlier_shelf_held_is_not_asked_for(brief, value):
    """The kinds a done clause names were the earlier shelf's: referred, neither asked for nor required (the
    shelf had been Japanese only)."""
    found = {(v, p) for _, v, p in said(brief)}
    assert (value, REFERRED) in found, (brief, found)
    assert not any(v == value and p != REFERRED for v, p in found), (brief, found)


def test_an_exclusion_of_the_books_shown_before_excludes_no_subject():
    """The excluded phrase's words that say when the books were shown are no subject ("not the ones we showed last
    spring" had excluded a subject "showed last spring")."""
    brief = "Memoirs, but not the ones we put up at Easter"
    assert not any(field == "subject" for field, _, _ in said(brief)), said(brief)


@pytest.mark.parametrize("brief", ["Novels published last year", "去年出版的散文"])
def test_a_year_of_publishing_stays_a_condition(brief):
    """Guard: "last year" of the books themselves is still their year."""
    assert reading(brief).numeric, brief


def translated(brief: str):
    theme = Theme("b", "t", theme_name=brief)
    vocabulary = get_vocabulary()
    query = RulesTranslator(vocabulary).translate(theme, read_brief(brief, vocabulary, today=TODAY))
    return hard_constraints([c for c in query.filter_conditions if c.field == "literature"], facet_confidence=0.85)


def stating(nation: str) -> BookRecord:
    return BookRecord(nation, "x", facets=(Facet("literature", nation, 0.95, "crosswalk", "class"),))


@pytest.mark.parametrize("brief, kept, left_out", [
    ("想看几本外国的侦探小说，节奏快一点", ["russian", "japanese", "american"], ["chinese"]),
    ("欧美作家写的科幻", ["british", "american"], ["japanese", "chinese"]),
    ("Slim European novels for a winter weekend", ["french", "german"], ["american", "japanese"]),
    ("不要外国作家的，只放本土的童话", ["chinese"], ["french", "japanese"]),
])
def test_a_group_of_literatures_is_its_members(brief, kept, left_out):
    """config/class_ranges.yaml `literature_groups`: a word for several literatures ("外国", "欧美", "European")
    names each of them, as a nation's word names one; the shelf had read "外国小说" as a topic word that no English
    record holds, and held Chinese novels."""
    constraints = translated(brief)
    assert all(evaluate(constraints, stating(n)) for n in kept), brief
    assert not any(evaluate(constraints, stating(n)) for n in left_out), brief
    assert evaluate(constraints, BookRecord("unsaid", "x")), brief  # a record that states none stays


def test_a_literature_only_let_in_leaves_the_others_in():
    """"日本作家的也行": a nation allowed beside the shelf's own books is no requirement, and excludes no other
    literature (every novel but the Japanese ones had been left out)."""
    constraints = translated("治愈系小说，日本作家的也行")
    assert all(evaluate(constraints, stating(n)) for n in ("japanese", "chinese", "british")), constraints


def test_a_surname_that_names_a_literature_is_the_literature():
    """entities.name_spans: a surname alone that is a nation's word is that nation ("no French writers" had
    excluded Tana French and let every French book in); her whole name is still hers."""
    index = EntityIndex.build([BookRecord("e1", "In the Woods", authors=("Tana French",))], {})

    def read(brief: str) -> set[tuple[str, str, str]]:
        return {(m.field, m.value, m.polarity) for m in read_brief(brief, get_vocabulary(), index, today=TODAY).mentions}
    assert not any(field == "author" for field, _, _ in read("Crime novels, but no French writers this time"))
    assert ("author", "Tana French", EXCLUDED) in read("Crime novels, but skip Tana French this time")


@pytest.mark.parametrize("brief, kind, not_kind", [
    ("想要几本史诗般的家族小说，跨好几代人的", ("form", "fiction"), "poetry"),
    ("诗一般的散文，适合慢慢读", ("form", "essays"), "poetry"),
    ("童话般的爱情小说", ("form", "fiction"), "children"),
    ("Dreamy, fairy-tale-like novels for grown-up readers", ("form", "fiction"), "children"),
])
def test_a_kind_said_as_a_likeness_is_how_the_book_reads(brief, kind, not_kind):
    """readings.yaml `kind_likeness`: a kind right before 般, 式, 级, "-like" says how a book reads; poetry and
    children's books had been required beside the kind asked for."""
    found = said(brief)
    assert (*kind, WANTED) in found or (*kind, REQUIRED) in found, found
    assert not any(value == not_kind and polarity in (WANTED, REQUIRED) for _, value, polarity in found), found


@pytest.mark.parametrize("brief, kind, not_kind", [
    ("诗人写的回忆录和传记", ("genre", "传记回忆"), "poetry"),
    ("剧作家的散文随笔", ("form", "essays"), "drama"),
])
def test_the_writers_of_a_kind_beside_another_kind_are_no_kind(brief, kind, not_kind):
    """readings.yaml `kind_people`: 诗人 holds 诗, but beside another kind it is who wrote the book."""
    found = said(brief)
    assert any(f[:2] == kind for f in found), found
    assert not any(value == not_kind for _, value, _ in found), found


def test_the_writers_of_a_kind_alone_still_ask_for_it():
    """Guard: a shelf of poets' books with no other kind is still poetry."""
    assert any(value == "poetry" for _, value, _ in said("唐代诗人专题"))


@pytest.mark.parametrize("brief, language", [
    ("想找几本外国散文的中译本", "zh"),
    ("French essays in English translation, nothing too long", "en"),
])
def test_a_translation_into_a_language_is_a_book_in_it(brief, language):
    """readings.yaml `languages`: "中译本", "in English translation" ask for books in that language (the English
    originals had stood on a shelf of Chinese translations)."""
    theme = Theme("b", "t", theme_name=brief)
    vocabulary = get_vocabulary()
    query = RulesTranslator(vocabulary).translate(theme, read_brief(brief, vocabulary, today=TODAY))
    assert any(c.field == "language" and c.values == (language,) and c.operator == "MUST"
               for c in query.filter_conditions), query.filter_conditions


@pytest.mark.parametrize("brief, kinds", [
    ("A mix of novels and memoirs for the book club's summer table", {"fiction", "nonfiction"}),
    ("A handful of mysteries and a couple of true-crime books", {"推理悬疑", "nonfiction"}),
    ("Fiction or true stories about mountains, both fine", {"fiction", "nonfiction"}),
])
def test_kinds_mixed_on_one_shelf_are_the_shelfs_one_of(brief, kinds):
    """readings.yaml `partitive`: "a mix of", "a handful of" open no topic (the novels of "a mix of novels and
    memoirs" had been read as what the memoirs are about, and the shelf memoirs only); `kinds` nonfiction: "true
    stories" are a kind of book; a term's words joined by a hyphen are the term ("true-crime")."""
    theme = Theme("b", "t", theme_name=brief)
    vocabulary = get_vocabulary()
    query = RulesTranslator(vocabulary).translate(theme, read_brief(brief, vocabulary, today=TODAY))
    required = [c for c in query.filter_conditions if c.operator == "MUST" and c.field in ("form", "genre")]
    assert all(len(c.values) > 1 for c in required), required  # a one-of, never one kind alone
    assert kinds <= {v for c in query.filter_conditions if c.field in ("form", "genre") for v in c.values}


def test_an_epic_is_no_poetry():
    """readings.yaml `topics`: 史诗 holds 诗, but "家族史诗" is a family saga (poetry had been required)."""
    assert not any(value == "poetry" for _, value, _ in said("想做一架家族史诗，写几代人的那种"))


@pytest.mark.parametrize("brief, word", [("想给武侠迷做一架武侠小说", "武侠"), ("Family sagas for the long holidays", "sagas")])
def test_a_kind_of_a_form_asked_by_its_word_stays_the_shelfs_topic(brief, word):
    """readings.yaml `kinds` asked for: the form, and the word a topic to search ("武侠小说" had taken any novel and
    said "done"; the word was read whole into the form and left no keyword)."""
    read = reading(brief)
    assert any(m.field == "form" and m.value == "fiction" for m in read.mentions), read.mentions
    assert any(word in topic.text for topic in read.topics if topic.polarity == WANTED), read.topics


def test_a_short_name_excluded_at_the_briefs_very_end_is_the_author():
    """entities.cjk_surname_spans: a name's spans end inside the brief; at its very end they had run past it, so no
    exclusion held the name and "推理，这回不要阿加莎" had asked for Christie."""
    index = EntityIndex.build([BookRecord("z1", "无人生还", authors=("阿加莎·克里斯蒂",))], {})
    found = {(m.field, m.value, m.polarity) for m in read_brief("推理小说，这回不要阿加莎", get_vocabulary(), index,
                                                                 today=TODAY).mentions}
    assert ("author", "阿加莎·克里斯蒂", EXCLUDED) in found, found


@pytest.mark.parametrize("brief", ["Books for all ages: picture books, chapter books and novels",
                                   "全家老少都能读的书，从幼儿到爷爷奶奶"])
def test_a_shelf_for_every_age_asks_for_no_childrens_books(brief):
    """readings.yaml `everyone`: a shelf for every age says whose books none are, grown-ups named or not (children's
    books had been required); "kids of all ages" stay kids."""
    assert not any(value == "children" and polarity in (WANTED, REQUIRED) for _, value, polarity in said(brief))
    assert ("audience", "children", WANTED) in said("Picture books for kids of all ages") or \
        ("audience", "children", REQUIRED) in said("Picture books for kids of all ages")
