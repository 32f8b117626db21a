"""Works, not editions: grouping keys, ISBN equivalence, and a shelf that holds a work once."""

from tasks.catalog.works import group_works, isbn13, normalize_title
from tasks.model.books import BookRecord
from tasks.model.query import Candidate, ThemeQuery
from tasks.ranking.shelf import editions_by_work, select_shelf


def book(book_id, title, authors=("沈从文",), **extra) -> BookRecord:
    return BookRecord(book_id, title, authors=authors, **extra)


def test_folding_to_simplified_characters_matches_hanziconv_character_for_character():
    import unicodedata

    from hanziconv import HanziConv
    from hanziconv.charmap import traditional_charmap

    from tasks.catalog.works import _fold

    # every character hanziconv converts, and text around them: the translation table is its table
    texts = [traditional_charmap, "乾隆年間的頭髮與發展：臺灣歷史", "Ｆｕｌｌ ｗｉｄｔｈ 後來", "著名的麵包 Stoner"]
    assert [_fold(t) for t in texts] == [HanziConv.toSimplified(unicodedata.normalize("NFKC", t)).lower()
                                         for t in texts]


def test_edition_and_format_marks_go_but_volume_marks_stay():
    assert normalize_title("边城（插图本）") == normalize_title("边城") == "边城"
    assert normalize_title("The Remains of the Day: a novel") == normalize_title("The remains of the day")
    assert normalize_title("Dune (40th anniversary ed.)") == normalize_title("DUNE")
    assert normalize_title("三體") == normalize_title("三体") != normalize_title("三体II")
    assert normalize_title("平凡的世界（全三册）") == "平凡的世界" != normalize_title("平凡的世界（第三册）")


def test_isbn_10_and_13_are_the_same_number():
    assert isbn13("0-571-15491-3") == isbn13("978-0-571-15491-3 (pbk.)") == "9780571154913"
    assert isbn13("0571154914") is None and isbn13("not an isbn") is None


def test_editions_printings_and_isbn_twins_are_one_work_and_volumes_are_not():
    works = group_works([
        book("a", "边城"), book("b", "边城（插图本）"),
        book("c", "The Remains of the Day", ("Kazuo Ishiguro",), isbn="0571154913"),
        book("d", "The remains of the day.", ("Ishiguro, Kazuo, 1954-",)),
        book("e", "长日将尽", ("石黑一雄",), isbn="978-0-571-15491-3"),  # a translation catalogued with the ISBN
        book("f", "三体", ("刘慈欣",)), book("g", "三体II", ("刘慈欣",)), book("h", "边城", ("别人",)),
        book("i", "Petit prince", ("Antoine de Saint-Exupéry",)),
        book("j", "The little prince", ("Antoine de Saint-Exupéry",), original_title="Le petit prince"),
    ])
    assert works["a"] == works["b"] == "a"
    assert works["c"] == works["d"] == works["e"] == "c"  # the inverted name is the same author ...
    assert len({works["f"], works["g"], works["h"]}) == 3  # ... volumes and namesakes are not the same work
    assert works["i"] == works["j"]


def test_a_shelf_holds_a_work_once_showing_an_edition_with_copies():
    books = {b.book_id: b for b in [
        book("a", "边城", copies_available=0, work_id="w1"), book("b", "边城（插图本）", copies_available=2, work_id="w1"),
        book("c", "长河", work_id="c"), book("d", "湘行散记", authors=("另一位",), work_id="d")]}
    candidates = [Candidate(b) for b in ("a", "c", "b", "d")]
    query = ThemeQuery((), (), "", 1.0, "rules")
    entries = select_shelf(candidates, books, frozenset(), query, 30, 2, editions=editions_by_work(books)).entries
    assert [(e.book.book_id, e.other_editions) for e in entries] == [("b", ("a",)), ("c", ()), ("d", ())]
    # an edition the constraints do not allow is not shelved instead
    strict = select_shelf(candidates, books, frozenset(), query, 30, 2, editions=editions_by_work(books),
                          allowed=lambda b: b.book_id != "b").entries
    assert strict[0].book.book_id == "a"
    # excluding one edition (last week's shelf) excludes the work
    held = select_shelf(candidates, books, frozenset({"b"}), query, 30, 2)
    assert [e.book.book_id for e in held.entries] == ["c", "d"] and held.held_back == 2
