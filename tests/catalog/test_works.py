"""Works, not editions: grouping keys, ISBN equivalence, and a shelf that holds a work once."""

from tasks.catalog.works import group_works, isbn13, normalize_title, overlapping_works
from tasks.model.books import BookRecord
from tasks.model.query import Candidate, ThemeQuery
from tasks.ranking.shelf import editions_by_work, select_shelf


def book(book_id, title, authors=("沈从文",), **extra) -> BookRecord:
    return BookRecord(book_id, title, authors=authors, **extra)


def test_folding_to_simplified_characters_matches_hanziconv_character_for_character():
    import unicodedata

    from hanziconv import HanziConv
    from hanziconv.charmap import traditional_charmap

    from tasks.catalog.names import fold as _fold

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


def test_a_complete_set_never_stands_beside_its_own_volumes():
    books = [book("a", "三体II：黑暗森林", ("刘慈欣",)), book("b", "三体三部曲", ("刘慈欣",)),
             book("c", "Harry Potter Boxset (Harry Potter, #1-7)", ("J.K. Rowling",)),
             book("d", "Harry Potter and the Sorcerer's Stone (Harry Potter, #1)", ("J.K. Rowling",)),
             book("e", "撒哈拉的故事", ("三毛",), series="三毛全集"), book("f", "三毛全集", ("三毛",)),
             book("g", "鲁迅散文", ("鲁迅",)), book("h", "鲁迅全集", ("鲁迅",)), book("i", "三体II", ("别人",))]
    overlapping = overlapping_works(books)
    assert overlapping["b"] == {"a"} and overlapping["c"] == {"d"} and overlapping["f"] == {"e"}
    assert "g" not in overlapping and "i" not in overlapping  # a set's volumes say so; another author's book is none
    by_id = {b.book_id: b for b in books}
    shelf = select_shelf([Candidate(b) for b in "abcdefgh"], by_id, frozenset(), ThemeQuery((), (), "", 1.0, "rules"),
                         size=30, max_per_author=5, overlapping=overlapping).entries
    assert [e.book.book_id for e in shelf] == ["a", "c", "e", "g", "h"]


def test_one_work_under_its_original_title_its_translated_title_or_a_subtitle():
    works = group_works([book("a", "小王子", ("圣埃克苏佩里",), original_title="Le Petit Prince"),
                         book("b", "小王子", ("圣埃克苏佩里",)),
                         book("c", "三体", ("刘慈欣",), subtitle="地球往事"), book("d", "三体：地球往事", ("刘慈欣",))])
    assert works["a"] == works["b"] and works["c"] == works["d"]


def test_a_title_written_with_its_subtitle_is_one_work_with_its_title_proper_but_a_volume_is_not():
    # Project Gutenberg's records, as its catalog writes them: the subtitle or alternative title in the title field
    hoffmann, alcott = ("Hoffmann, Heinrich, 1809-1894",), ("Alcott, Louisa May, 1832-1888",)
    works = group_works([
        book("a", "Struwwelpeter: Merry Stories and Funny Pictures", hoffmann),
        book("b", "Der Struwwelpeter: oder lustige Geschichten und drollige Bilder", hoffmann),
        book("c", "Little Women", alcott), book("d", "Little Women; Or, Meg, Jo, Beth, and Amy", alcott),
        book("e", "London and the Kingdom - Volume 1: A History", ("Sharpe, Reginald R.",)),
        book("f", "London and the Kingdom - Volume 2: A History", ("Sharpe, Reginald R.",)),
        book("g", "Works: Volume 3", alcott), book("h", "Works: Part 4", alcott),
        book("i", "Little Women", ("Someone Else",)),
    ])
    assert works["a"] == works["b"] and works["c"] == works["d"]
    assert len({works["e"], works["f"], works["g"], works["h"], works["i"], works["c"]}) == 6


def test_a_translation_is_its_originals_work_by_author_and_headings_but_two_books_in_one_language_are_not():
    # Project Gutenberg's records: no original title, the headings the same but for "-- Translations into English"
    cervantes, hoffmann = ("Cervantes Saavedra, Miguel de, 1547-1616",), ("Hoffmann, Heinrich, 1809-1894",)
    quixote = ("Knights and knighthood -- Spain -- Fiction", "Picaresque literature", "Romances")
    yearbook = ("American fiction -- 20th century", "Short stories, American")
    works = group_works([
        book("a", "Don Quixote", cervantes, language="en", subjects=quixote),
        book("b", "Don Quijote", cervantes, language="es", subjects=quixote),
        book("c", "Struwwelpeter", hoffmann, language="en",
             subjects=("Children's stories, German -- Translations into English", "Picture books for children")),
        book("d", "Der Struwwelpeter", hoffmann, language="de",
             subjects=("Children's stories, German", "Picture books for children")),
        book("e", "The best short stories of 1918", ("O'Brien, Edward J.",), language="en", subjects=yearbook),
        book("f", "The best short stories of 1922", ("O'Brien, Edward J.",), language="en", subjects=yearbook),
        book("g", "Novelas ejemplares", cervantes, language="es", subjects=("Picaresque literature",)),
        book("h", "Exemplary novels", cervantes, language="en", subjects=("Picaresque literature",)),
    ])
    assert works["a"] == works["b"] and works["c"] == works["d"]
    assert works["e"] != works["f"]  # two works of one author under the same headings, in one language
    assert works["g"] != works["h"] and works["g"] != works["a"]  # one shared heading says too little
