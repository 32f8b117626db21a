"""Authors and titles named in a brief, on a tiny catalog."""

from tasks.model.books import BookRecord
from tasks.understanding.entities import EntityIndex, understand

BOOKS = [BookRecord("z1", "呐喊", authors=("鲁迅",)), BookRecord("z2", "野草", authors=("鲁迅",)),
         BookRecord("z3", "边城", authors=("沈从文",)), BookRecord("z4", "三体", authors=("刘慈欣",)),
         BookRecord("z5", "三体II", authors=("刘慈欣",)), BookRecord("e1", "Stoner", authors=("John Williams",))]
INDEX = EntityIndex.build(BOOKS, {"鲁迅": ("周树人", "Lu Xun"), "不在目录里": ("x",)})


def test_an_author_or_an_alias_makes_a_spotlight():
    for brief in ("鲁迅作品专题", "周树人的书", "the works of Lu Xun"):
        found = understand(brief, INDEX)
        assert found.intent == "author_spotlight" and found.authors == ("鲁迅",) and found.book_ids == ("z1", "z2")


def test_a_named_book_with_a_likeness_cue_asks_for_similar_books():
    found = understand("像《边城》那样的书", INDEX)
    assert (found.intent, found.titles, found.book_ids) == ("similar_to_book", ("边城",), ("z3",))
    assert understand("books like Stoner", INDEX).book_ids == ("e1",)
    assert understand("像三体II那样的科幻", INDEX).titles == ("三体II",)  # the longer title wins


def test_a_title_and_a_verb_of_liking_likeness_or_after_in_its_clause_is_a_read_alike_whatever_the_wording():
    # wordings no read-alike form of the packs spells out: the structure carries them
    for brief in ("口味接近《边城》的散文，写湘西的", "读过《边城》之后还能接着读的当代小说", "《边城》式的乡土小说",
                  "同样写湘西的，与《边城》味道相近的书", "边城同款：乡土小说", "You loved Stoner and need another one",
                  "In the same vein as Stoner: campus novels"):
        found = understand(brief, INDEX)
        assert (found.intent, found.book_ids) == ("similar_to_book", ("z3",) if "边城" in brief else ("e1",)), brief
    # the verb in another clause, a one-character word away from the title, a bare title with no verb beside it
    # and a liked title whose author the brief names is the author's ("Anything by John Williams? We loved Stoner")
    for brief in ("《边城》专题；另外要几本喜欢的诗", "《边城》与形式主义", "Stoner and other campus novels we like",
                  "Anything by John Williams? We loved Stoner"):
        assert understand(brief, INDEX).intent != "similar_to_book", brief


def test_a_plain_theme_is_a_theme_shelf():
    assert understand("适合雨天读的安静小说", INDEX).intent == "theme_shelf"


def test_a_surname_alone_makes_a_spotlight_only_where_a_person_is_meant():
    ishiguro = EntityIndex.build(BOOKS + [BookRecord("e2", "Klara and the Sun", authors=("Kazuo Ishiguro",)),
                                          BookRecord("e3", "Postwar", authors=("Tony Judt",))], {})
    for brief in ("More books by Ishiguro", "Ishiguro's novels, please"):
        found = understand(brief, ishiguro)
        assert (found.intent, found.authors, found.book_ids) == ("author_spotlight", ("Kazuo Ishiguro",), ("e2",))
    # a surname that is a word, or another person's: no spotlight
    for brief in ("Books on the Ishiguro question", "A shelf of books by Dan Williams", "Books by Williams Carlos"):
        assert understand(brief, ishiguro).intent == "theme_shelf"


SERIES = BOOKS + [BookRecord("z6", "三体III", authors=("刘慈欣",), pub_year=2010),
                  BookRecord("z7", "长安的荔枝", authors=("马伯庸",)), BookRecord("e2", "Klara and the Sun",
                                                                              authors=("Kazuo Ishiguro",))]
SERIES_INDEX = EntityIndex.build(SERIES, {"鲁迅": ("周树人",)})


def test_a_misspelt_author_is_found_in_an_authors_context_and_shown_corrected():
    for brief, written in (("沈从纹的书", "沈从纹"), ("作家沈从纹", "沈从纹")):
        found = understand(brief, SERIES_INDEX)
        assert (found.intent, found.authors, found.corrections) == ("author_spotlight", ("沈从文",),
                                                                    ((written, "沈从文"),))
        assert "沈从文" in found.resolved_query and found.confidence == 0.75
    latin = understand("novels by Kazuo Ishiguru", SERIES_INDEX)
    assert latin.authors == ("Kazuo Ishiguro",) and "Kazuo Ishiguru -> Kazuo Ishiguro" in latin.describe()


def test_one_wrong_character_elsewhere_is_not_an_author():
    # "工作人员" is one character from 周作人, "司马晏" from 司马光: no author context, no spotlight
    index = EntityIndex.build([*SERIES, BookRecord("z8", "知堂回想录", authors=("周作人",)),
                               BookRecord("z9", "资治通鉴", authors=("司马光",))], {})
    assert understand("景点要在工作人员的陪同下参观", index).intent == "theme_shelf"
    assert understand("司马晏是谁的儿子", index).intent == "theme_shelf"
    # two characters: too short to correct; still a read-alike, of a book the catalog does not hold
    found = understand("像《边诚》那样的书", SERIES_INDEX)
    assert (found.titles, found.book_ids, found.corrections) == (("边诚",), (), ())


def test_aliases_and_exact_names_say_how_sure_they_are():
    assert understand("鲁迅作品专题", SERIES_INDEX).confidence == 1.0
    alias = understand("周树人的书", SERIES_INDEX)
    assert alias.confidence == 0.9 and alias.resolved_query == "鲁迅的书"


def test_a_series_is_its_books_in_reading_order():
    for brief in ("三体系列", "《三体》三部曲", "the 三体 trilogy", "三体", "《三体》。"):  # or its name alone
        found = understand(brief, SERIES_INDEX)
        assert (found.intent, found.series, found.book_ids) == ("series", "三体", ("z4", "z5", "z6"))
    assert understand("长安的荔枝", SERIES_INDEX).intent == "theme_shelf"  # one book is not a series
    assert understand("三体的读者还会喜欢什么", SERIES_INDEX).intent == "theme_shelf"  # more than the name


def test_a_goodreads_series_note_names_the_series_and_its_order_and_the_title_is_found_without_it():
    books = [BookRecord("h2", "Catching Fire (The Hunger Games, #2)", pub_year=2009),
             BookRecord("h1", "The Hunger Games (The Hunger Games, #1)", pub_year=2012),
             BookRecord("h3", "Mockingjay (The Hunger Games, #3)", pub_year=2010),
             BookRecord("box", "The Hunger Games Trilogy Boxset (The Hunger Games, #1-3)", pub_year=2004),
             BookRecord("g", "Hunger (Gone, #2)", pub_year=2009)]
    index = EntityIndex.build(books, {}, {})
    assert index.series_books["The Hunger Games"] == ("h1", "h2", "h3")  # by number, not year; no box set
    found = understand("Books like The Hunger Games", index)
    assert (found.intent, found.book_ids) == ("similar_to_book", ("h1",))
    # a read-alike is another series: Mockingjay had stood first on "Books like The Hunger Games"
    from tasks.model.intent import excluded_books
    assert found.series_mates == ("h2", "h3") and excluded_books(found) == {"h1", "h2", "h3"}
    assert understand("The Hunger Games series", index).book_ids == ("h1", "h2", "h3")


def test_fans_of_an_author_ask_for_books_like_the_authors_not_the_authors_own():
    from tasks.model.intent import excluded_books

    for brief in ("喜欢刘慈欣的读者还会喜欢什么", "For fans of 刘慈欣", "Books like 刘慈欣's"):
        found = understand(brief, SERIES_INDEX)
        assert (found.intent, found.authors) == ("similar_to_book", ("刘慈欣",)), brief
        assert excluded_books(found) >= {"z4", "z5", "z6"}  # his own books are not read-alikes
    assert understand("刘慈欣作品专题", SERIES_INDEX).intent == "author_spotlight"
    # a title inside the author's name is none ("For fans of Stephen King" had found a book called "King")
    kings = EntityIndex.build([BookRecord("k", "King"), BookRecord("s1", "Carrie", authors=("Stephen King",))], {}, {})
    assert understand("For fans of Stephen King", kings).book_ids == ("s1",)


def test_an_author_liked_or_likened_in_the_clause_is_where_the_brief_starts_not_what_it_is_about():
    for brief in ("沈从文和鲁迅都喜欢的读者，再推几本", "和刘慈欣风格相近的科幻",
                  "I read everything John Williams wrote and want something similar"):
        assert understand(brief, INDEX).intent == "similar_to_book", brief


def test_an_author_only_excluded_or_allowed_makes_no_spotlight():
    """Who the brief is about, not whom it mentions: an exclusion after the name, over an empty clause of its own,
    a writer 'by anyone except', a permission ending its clause."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.entities import understand_reading
    from tasks.understanding.reading import EXCLUDED, read_brief
    for brief, author in (("写湘西的小说，沈从文本人的不算", "沈从文"), ("乡土小说，沈从文的读过了，就不放了", "沈从文"),
                          ("campus novels by anyone except John Williams", "John Williams"),
                          ("乡土散文，鲁迅的可以", None)):
        reading = read_brief(brief, get_vocabulary(), INDEX)
        assert understand_reading(reading, INDEX).intent == "theme_shelf", brief
        assert author is None or ("author", author, EXCLUDED) in {(m.field, m.value, m.polarity)
                                                                 for m in reading.mentions}, brief


def test_a_book_set_apart_or_missing_from_the_catalog_is_still_what_a_read_alike_is_like():
    from config.vocabulary import get_vocabulary
    from tasks.understanding.entities import understand_reading
    from tasks.understanding.reading import read_brief
    # the named book excluded ("之外"): the others are to be like it, and it is never shelved
    reading = read_brief("《边城》之外的同类小说", get_vocabulary(), INDEX)
    assert (understand_reading(reading, INDEX).intent, understand_reading(reading, INDEX).book_ids) == (
        "similar_to_book", ("z3",))
    # a quoted book the catalog lacks, with a verb of likeness or liking in its clause
    for brief in ("《城南旧事》那样的回忆散文", "假如《城南旧事》打动过你"):
        assert understand(brief, INDEX).intent == "similar_to_book", brief


def test_a_likeness_pointing_back_is_composed_of_a_pointer_and_a_word_of_kind_and_reaches_back_over_clauses():
    """readings.yaml `alike_composed`: "同" and "题材", "that" and "sort", none listed whole, point back to the book
    named clauses before, the catalog holding it or not (quoted, or written in title case)."""
    for brief in ("《共赴国难》讲铁路工人抗战运兵，同题材的再配几本", "《护眼宝典》入选了科普奖，类似风格的再找几本",
                  "Everyday Bicycling is already out this month, find more like those",
                  "Novels where a horse matters, The Mare, All the Pretty Horses, that sort",
                  "Wicked Bugs, the grown-up edition, and books of its kind"):
        assert understand(brief, INDEX).intent == "similar_to_book", brief
    for brief in ("《共赴国难》讲铁路工人抗战运兵，再配几本", "Everyday Bicycling is already out this month, find more"):
        assert understand(brief, INDEX).intent != "similar_to_book", brief


def test_a_title_in_title_case_after_a_likeness_or_before_a_reader_noun_is_a_model_but_examples_of_places_are_not():
    for brief, title in (("A tsunami novel for young readers, like Escaping the Giant Wave", "Escaping the Giant Wave"),
                         ("Middle-grade novels with deaf characters like Song for a Whale", "Song for a Whale"),
                         ("Carrying the Fire fans, this shelf is for you", "Carrying the Fire")):
        found = understand(brief, INDEX)
        assert (found.intent, found.titles) == ("similar_to_book", (title,)), brief
    for brief in ("Places like New York City: novels of big cities", "Writers like Mary Oliver, poems about birds"):
        assert understand(brief, INDEX).intent != "similar_to_book", brief


def test_a_book_followed_by_a_change_asked_for_is_no_model():
    """readings.yaml `alike_switch`: the clause after the book asks for something else, so the shelf moves away from
    it; without that clause the same verb of reading makes it the model."""
    assert understand("大家都读过《边城》了，换换口味", INDEX).intent == "theme_shelf"
    assert understand("读书会刚读完《城南旧事》，下一期换别的：写瓷器的小说", INDEX).intent == "theme_shelf"
    assert understand("大家都读过《边城》了，再找几本", INDEX).intent == "similar_to_book"


def test_a_book_the_catalog_lacks_set_apart_as_written_is_still_the_model_but_one_turned_away_is_not():
    from config.vocabulary import get_vocabulary
    from tasks.understanding.entities import understand_reading
    from tasks.understanding.reading import read_brief
    reading = read_brief("写年味的散文，三联那本《中国味道》之外再找几本同类的", get_vocabulary(), INDEX)
    assert understand_reading(reading, INDEX).titles == ("中国味道",)
    reading = read_brief("军旅诗人的诗集，不要《战争论》这类军事理论", get_vocabulary(), INDEX)
    assert understand_reading(reading, INDEX).intent != "similar_to_book"


def test_an_excluded_name_ends_at_a_possessive_a_likeness_or_a_word_pointing_to_the_persons_book():
    """readings.yaml `name_ends` and the likeness words end a person's name the catalog lacks, as a possessive does:
    the author excluded is the person, not "Aldrin's" nor "谢阁兰那样"."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import EXCLUDED, read_brief
    for brief, author in (("Apollo biographies, but skip Buzz Aldrin's own books", "Buzz Aldrin"),
                          ("写成都的小说：[法]谢阁兰那样的外国人写的不要", "谢阁兰"),
                          ("再要几本讲体育科学的，[葡]若昂·梅代罗斯这本以外的", "若昂·梅代罗斯")):
        excluded = {m.value for m in read_brief(brief, get_vocabulary(), INDEX).mentions
                    if m.field == "author" and m.polarity == EXCLUDED}
        assert excluded == {author}, brief


def test_a_name_joined_to_an_excluded_author_is_an_author_too():
    """A name written as one run of a CJK script, joined to an author the exclusion names, is an author, not a
    subject: two excluded authors joined by 和 had excluded the second as a topic's word (and shelved its books)."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import EXCLUDED, read_brief
    for brief, author in (("散文，鲁迅和苏童的都不要", "苏童"), ("不要刘慈欣和王晋康的小说", "王晋康")):
        mentions = read_brief(brief, get_vocabulary(), INDEX).mentions
        assert ("author", author) in {(m.field, m.value) for m in mentions if m.polarity == EXCLUDED}, brief
        assert not any(m.field == "subject" for m in mentions), brief


def test_a_writers_nation_before_an_excluded_name_is_no_part_of_it():
    """readings.yaml `name_nations`: the writer's nation before a name the catalog lacks, bracketed or not, is no
    part of the name excluded ("the Canadian Chris Hadfield excepted" had excluded "Canadian Chris Hadfield")."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import EXCLUDED, read_brief
    for brief, author in (("Space memoirs, the Canadian Chris Hadfield excepted", "Chris Hadfield"),
                          ("Crime novels, nothing by the Swedish Henning Mankell", "Henning Mankell")):
        excluded = {m.value for m in read_brief(brief, get_vocabulary(), INDEX).mentions
                    if m.field == "author" and m.polarity == EXCLUDED}
        assert excluded == {author}, brief


def test_a_title_hyphened_to_a_word_of_kind_is_the_model_of_a_read_alike():
    """readings.yaml `alike_beside`: a word of kind hyphened to a title ("Stoner-type") makes it the model, as
    "Stoner type" does; the hyphen had run the title into the word, so no title was found."""
    for brief in ("Stoner-type novels about quiet lives", "Stoner-style campus novels", "Stoner type novels"):
        found = understand(brief, INDEX)
        assert (found.intent, found.titles) == ("similar_to_book", ("Stoner",)), brief
    assert understand("Stoner-ish quiet lives", INDEX).intent != "similar_to_book"


def test_a_negation_after_an_excluded_author_with_a_word_for_this_shelf_excludes_the_author():
    """cues.yaml `negation_after` "left off": an author left off this display is excluded, not searched for."""
    from config.vocabulary import get_vocabulary
    from tasks.understanding.reading import EXCLUDED, read_brief
    mentions = read_brief("Campus novels, with John Williams left off this display", get_vocabulary(), INDEX).mentions
    assert ("author", "John Williams", EXCLUDED) in {(m.field, m.value, m.polarity) for m in mentions}
