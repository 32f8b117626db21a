"""Names as catalogs write them: the person, their role and their nation read from an author statement, and what
the catalog makes of them (who a book is by, its literature, its work, the authors a brief names)."""

import pytest

from config.vocabulary import get_vocabulary
from tasks.model.books import BookRecord, Facet
from tasks.model.conditions import FilterCondition
from tasks.model.constraints import as_wishes, evaluate, hard_constraints, surely_held
from tasks.model.query import ThemeQuery
from tasks.catalog.crosswalk import default_crosswalk
from tasks.catalog.ingest import ColumnMapping, validate_row
from tasks.catalog.names import by_names, name_key, read_credits
from tasks.catalog.works import group_works
from tasks.understanding.entities import EntityIndex, understand


def people(statement):
    return [(c.name, c.role, c.nation) for c in read_credits(statement)]


@pytest.mark.parametrize("written, read", [
    ("[日]东野圭吾 著", [("东野圭吾", "author", "japanese")]),
    ("（美）雷·布拉德伯里", [("雷·布拉德伯里", "author", "american")]),
    ("(日)东野圭吾", [("东野圭吾", "author", "japanese")]),
    ("[日本] 村上春树", [("村上春树", "author", "japanese")]),
    ("〔英〕简·奥斯汀 著；王科一 译", [("简·奥斯汀", "author", "british"), ("王科一", "translator", None)]),
    ("〔俄〕陀思妥耶夫斯基 著 ; 耿济之 译", [("陀思妥耶夫斯基", "author", "russian"), ("耿济之", "translator", None)]),
    ("(日)东野圭吾著 王蕴洁译", [("东野圭吾", "author", "japanese"), ("王蕴洁", "translator", None)]),
    ("刘慈欣、王晋康 著", [("刘慈欣", "author", None), ("王晋康", "author", None)]),
    ("王蕴洁、李某 译", [("王蕴洁", "translator", None), ("李某", "translator", None)]),  # the mark after both
    ("几米 文·图", [("几米", "author", None)]),
    ("(清)曹雪芹", [("曹雪芹", "author", "chinese")]),  # a dynasty mark says a Chinese author
    ("鲁迅（1881—1936）", [("鲁迅", "author", None)]),
    ("沈从文", [("沈从文", "author", None)]),  # ends in 文, which is no mark written straight after a name
    ("沈从文著", [("沈从文", "author", None)]),
    ("东野圭吾等著", [("东野圭吾", "author", None)]),
    ("Smith, John, 1950- ill.", [("John Smith", "illustrator", None)]),
    ("edited by Jane Doe", [("Jane Doe", "editor", None)]),
    ("Tolkien, J. R. R. (John Ronald Reuel), 1892-1973", [("J. R. R. Tolkien", "author", None)]),
    ("Butler, Samuel, 1835-1902 [Translator]", [("Samuel Butler", "translator", None)]),
    ("Homer, 750 BCE-650 BCE", [("Homer", "author", None)]),
    ("Someone, Ann, translator.", [("Ann Someone", "translator", None)]),  # "Ann" is no annotator's code
    ("Alfred Tennyson", [("Alfred Tennyson", "author", None)]),  # "Alfred" does not end in "ed."
    ("John Smith et al.", [("John Smith", "author", None)]),
])
def test_a_statement_reads_as_its_persons(written, read):
    assert people(written) == read


def test_a_book_is_by_its_authors_never_its_translator():
    assert by_names(read_credits("[日]东野圭吾 著，王蕴洁 译")) == ("东野圭吾",)
    assert by_names(read_credits("王蕴洁 译")) == ()
    assert by_names(read_credits("Jowett, Benjamin, 1817-1893 [Editor]")) == ("Benjamin Jowett",)  # an anthology


def test_names_compare_without_their_marks_order_width_or_script():
    assert name_key("Ishiguro, Kazuo, 1954-") == name_key("Kazuo Ishiguro")
    assert name_key("[日]東野圭吾 著") == name_key("东野圭吾")
    assert name_key("E·B·怀特") == name_key("E.B.怀特")
    assert name_key("村上春树") != name_key("村上龙")


def test_an_import_keeps_the_names_as_authors_and_the_marks_as_credits(vocabulary):
    book, warnings = validate_row({"book_id": "b1", "title": "白夜行", "authors": "[日]东野圭吾 著；刘姿君 译"},
                                  ColumnMapping(), vocabulary)
    assert book.authors == ("东野圭吾",) and warnings == []
    assert book.credits == ("[日]东野圭吾 著", "刘姿君 译")
    plain, _ = validate_row({"book_id": "b2", "title": "边城", "authors": "沈从文"}, ColumnMapping(), vocabulary)
    assert plain.credits == () and plain.content_hash == BookRecord("b2", "边城", authors=("沈从文",),
                                                                    language=plain.language).compute_content_hash()


def test_an_author_excluded_by_plain_name_is_excluded_where_the_record_writes_the_marks(vocabulary):
    marked, _ = validate_row({"book_id": "b1", "title": "白夜行", "authors": "[日]东野圭吾 著"}, ColumnMapping(),
                             vocabulary)
    other, _ = validate_row({"book_id": "b2", "title": "挪威的森林", "authors": "（日）村上春树 著；林少华 译"},
                            ColumnMapping(), vocabulary)
    unwanted = hard_constraints([FilterCondition("author", ("东野圭吾",), "MUST_NOT")])
    assert not evaluate(unwanted, marked) and evaluate(unwanted, other)
    assert not evaluate(hard_constraints([FilterCondition("author", ("林少华",), "MUST")]), other)  # he translated


def literatures(book):
    return {(f.value, f.because) for f in default_crosswalk(get_vocabulary()).facets(book) if f.dimension == "literature"}


def test_a_book_s_literature_is_read_from_what_its_record_says():
    assert literatures(BookRecord("1", "白夜行", credits=("[日]东野圭吾 著", "刘姿君 译"))) == {
        ("japanese", "author [日]东野圭吾 著")}
    assert literatures(BookRecord("2", "x", classification=("clc:I313.45",))) == {("japanese", "clc I313.45")}
    assert literatures(BookRecord("3", "x", classification=("lcc:PL856.U673 N6713 2000",))) == {
        ("japanese", "lcc PL856.U673 N6713 2000")}
    assert literatures(BookRecord("4", "x", original_language="rus")) == {("russian", "original language rus")}
    assert literatures(BookRecord("5", "x", subjects=("长篇小说—日本—现代",))) == {("japanese", "subject 长篇小说—日本—现代")}
    assert literatures(BookRecord("6", "x", subjects=("Russian fiction -- Translations into English",))) == {
        ("russian", "subject Russian fiction -- Translations into English")}
    assert literatures(BookRecord("7", "x", subjects=("日本推理",))) == {("japanese", "subject 日本推理")}
    # a book set in Japan, or about its history, is no Japanese literature; a translator's nation says nothing
    assert literatures(BookRecord("8", "x", subjects=("Japan -- Fiction", "Japanese history"))) == set()
    assert literatures(BookRecord("9", "x", credits=("Someone [美] [translator]",))) == set()


def test_a_nation_alone_as_a_reader_tag_only_ranks():
    crosswalk = default_crosswalk(get_vocabulary())
    [tag] = [f for f in crosswalk.facets(BookRecord("1", "x", subjects=("日本",))) if f.dimension == "literature"]
    assert tag.value == "japanese" and tag.confidence < 0.85  # below the filter confidence: books about Japan too


def forms(*headings):
    found = default_crosswalk(get_vocabulary()).facets(BookRecord("x", "x", subjects=headings))
    return {(f.dimension, f.value) for f in found if f.dimension in ("form", "audience") and f.confidence >= 0.85}


def test_form_and_audience_from_the_headings_of_the_record():
    assert forms("Juvenile Fiction / Animals / General") == {("audience", "children"), ("form", "fiction")}
    assert forms("Juvenile Nonfiction / Science") == {("audience", "children"), ("form", "nonfiction")}
    for about in ("Dickens, Charles, 1812-1870 -- Criticism and interpretation", "Literary Criticism",
                  "Detective and mystery stories -- History and criticism", "红楼梦研究", "名著导读",
                  "English literature -- Examinations -- Study guides", "English language -- Dictionaries", "工具书",
                  "影评", "Psychology", "Cooking / Regional & Ethnic"):
        assert forms(about) == {("form", "nonfiction")}, about
    assert forms("Motion picture plays") == {("form", "drama")}
    assert forms("Motion pictures -- Fiction") == {("form", "fiction")}  # a novel about films is a novel


def test_criticism_is_surer_than_the_class_it_shares_with_the_works():
    crosswalk = default_crosswalk(get_vocabulary())
    book = BookRecord("x", "Jane Austen's novels", classification=("ddc:823.7",),
                      subjects=("Austen, Jane, 1775-1817 -- Criticism and interpretation",))
    held = {f.value: f.confidence for f in crosswalk.facets(book) if f.dimension == "form"}
    assert held["nonfiction"] > held["fiction"]


def test_an_edition_under_marks_or_an_inverted_name_is_the_same_work():
    works = group_works([BookRecord("a", "白夜行", authors=("东野圭吾",)),
                         BookRecord("b", "白夜行", authors=("[日]东野圭吾 著",)),
                         BookRecord("c", "Frankenstein", authors=("Shelley, Mary Wollstonecraft, 1797-1851",)),
                         BookRecord("d", "Frankenstein", authors=("Mary Wollstonecraft Shelley",))])
    assert works["a"] == works["b"] and works["c"] == works["d"] != works["a"]


def test_a_shared_surname_is_not_a_shared_author():
    index = EntityIndex.build([BookRecord("1", "白夜行", authors=("东野圭吾",)),
                               BookRecord("2", "挪威的森林", authors=("村上春树",)),
                               BookRecord("3", "69", authors=("村上龙",)),
                               BookRecord("4", "1984", authors=("乔治·奥威尔",)),
                               BookRecord("5", "Frankenstein", authors=("Mary Wollstonecraft Shelley",)),
                               BookRecord("6", "Ozymandias", authors=("Percy Bysshe Shelley",))], {})
    assert understand("东野的书", index).authors == ("东野圭吾",)  # one catalog author has that surname
    assert [s[3] for s in index.name_spans("除了东野以外的推理小说")] == ["东野圭吾"]
    assert [s[3] for s in index.name_spans("不要奥威尔的")] == ["乔治·奥威尔"]
    assert understand("村上的书", index).authors == ()  # two have it: 村上春树 and 村上龙
    assert index.name_spans("no Shelley please") == []
    assert [s[3] for s in index.name_spans("More like Frankenstein by Mary Shelley")] == ["Mary Wollstonecraft Shelley"]
    assert index.name_spans("日本的东野") == []  # a surname alone only where a person is meant


def test_a_literature_asked_for_is_a_condition_on_the_record_and_a_wish_where_no_record_says_one():
    wanted = ThemeQuery((FilterCondition("literature", ("japanese",), "MUST"),), (), "", 1.0, "rules")
    japanese = BookRecord("1", "白夜行", facets=(Facet("literature", "japanese", 0.95, "crosswalk", "author [日]东野圭吾"),))
    unsaid = BookRecord("2", "The Remains of the Day")
    required = hard_constraints(wanted.filter_conditions, facet_confidence=0.85)
    assert evaluate(required, japanese) and not evaluate(required, unsaid)
    assert as_wishes(wanted, surely_held([japanese, unsaid], 0.85), None)[0] == wanted
    loose, unchecked = as_wishes(wanted, surely_held([unsaid], 0.85), None)  # no record of the catalog says one
    assert [c.operator for c in loose.filter_conditions] == ["SHOULD"] and unchecked == list(wanted.filter_conditions)


def test_a_translators_column_gives_translators_kept_with_their_role(vocabulary):
    book, warnings = validate_row({"book_id": "b1", "title": "追风筝的人", "authors": ["[美] 卡勒德·胡赛尼"],
                                   "translators": ["李继宏"]}, ColumnMapping(), vocabulary)
    assert book.authors == ("卡勒德·胡赛尼",) and warnings == []
    assert [(c.name, c.role, c.nation) for c in read_credits(book.credits)] == [
        ("卡勒德·胡赛尼", "author", "american"), ("李继宏", "translator", None)]


def test_a_book_takes_its_author_s_literature_where_its_own_record_says_none():
    from tasks.catalog.enrich import _literature_of_authors

    books = [BookRecord("a", "Anna Karenina", authors=("Leo Tolstoy",)),
             BookRecord("b", "War and Peace", authors=("Tolstoy, Leo, graf, 1828-1910",)),
             BookRecord("c", "x", authors=("Someone",)), BookRecord("d", "y", authors=("Someone",))]
    said = [[Facet("literature", "russian", 0.9, "crosswalk", "subject Russian fiction")], [],
            [Facet("literature", "french", 0.9, "crosswalk")], [Facet("literature", "german", 0.9, "crosswalk")]]
    found = _literature_of_authors(books, said, 0.85)
    assert [(f.value, f.because) for f in found[1]] == [("russian", "other books by Tolstoy, Leo, graf, 1828-1910")]
    assert found[2:] == said[2:]  # an author's records disagree: nothing is lent
