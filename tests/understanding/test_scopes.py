"""The one scope algorithm (tasks/understanding/scopes.py), read through whole briefs: each cue kind scopes as
lang/kinds.yaml says, with no branch for one phrase. Worded apart from the fragment tables."""

import pytest

from config.vocabulary import get_vocabulary
from tasks.understanding.reading import ALLOWED, EXCLUDED, READER, WANTED, read_brief


def polarities(brief: str) -> set[tuple[str, str, str]]:
    return {(m.field, m.value, m.polarity) for m in read_brief(brief, get_vocabulary()).mentions}


@pytest.mark.parametrize("brief, held, not_held", [
    # others: opening a clause, the clause before it is set apart, unless an additive word follows
    ("科幻不算，其余奇幻小说都可以", ("genre", "科幻", EXCLUDED), ("genre", "科幻", WANTED)),
    ("来点科幻，其他类型的也行", ("genre", "科幻", WANTED), ("genre", "科幻", EXCLUDED)),
    # a modifier naming a kind itself is excluded with the kind it describes
    ("不是写给小朋友的童书", ("audience", "children", EXCLUDED), ("audience", "children", WANTED)),
    # ... and one naming no kind leaves the kind asked for
    ("不要战争题材的小说", ("form", "fiction", WANTED), ("form", "fiction", EXCLUDED)),
    # an exclusion said by a verb of showing after what it excludes, its words composed in the pack
    ("小说都行，戏剧暂时不陈列", ("form", "drama", EXCLUDED), ("form", "drama", WANTED)),
    ("any novels; plays won't be shown this year", ("form", "drama", EXCLUDED), ("form", "drama", WANTED)),
    # an alternative joins the names on either side; an exclusion runs over it
    ("poetry or essays, anything goes", ("form", "poetry", ALLOWED), ("form", "poetry", WANTED)),
    ("no poetry or plays", ("form", "drama", EXCLUDED), ("form", "drama", WANTED)),
    # a negation ending its clause after a joiner says either will do; before more words it excludes them
    ("love stories, romantic or not", ("emotional_tone", "浪漫深情", ALLOWED), ("emotional_tone", "浪漫深情", EXCLUDED)),
    ("essays and not poetry", ("form", "poetry", EXCLUDED), ("form", "poetry", WANTED)),
    # a degree after a negation is what it negates, never what came before it
    ("funny and not too long", ("text_texture", "幽默诙谐", WANTED), ("text_texture", "幽默诙谐", EXCLUDED)),
    # words of time end an exclusion: the sentence goes on about what is wanted
    ("no thrillers for now, fantasy instead", ("genre", "奇幻", WANTED), ("genre", "奇幻", EXCLUDED)),
    # negspacy's general English rows and a curator's words for leaving out, each scoping as its kind does
    ("Memoirs for the display, barring any poetry", ("form", "poetry", EXCLUDED), ("form", "poetry", WANTED)),
    ("Essays, with the exception of poetry", ("form", "poetry", EXCLUDED), ("form", "poetry", WANTED)),
    ("Short fiction, poetry is ruled out", ("form", "poetry", EXCLUDED), ("form", "poetry", WANTED)),
    # a termination of NegEx's ends the exclusion: what follows is wanted
    ("no horror, although fantasy would be nice", ("genre", "奇幻", WANTED), ("genre", "奇幻", EXCLUDED)),
    # the Chinese negation words as a grammar lists them, before and after what they negate
    ("散文随笔，诗集一本都别放", ("form", "poetry", EXCLUDED), ("form", "poetry", WANTED)),
    ("适合夜读的书，不涉及科幻", ("genre", "科幻", EXCLUDED), ("genre", "科幻", WANTED)),
    ("历史读物，科幻就略过", ("genre", "科幻", EXCLUDED), ("genre", "科幻", WANTED)),
    # a negation after what it negates, with a word of time after it ("off the list this month")
    ("Essays; poetry is off the list this season", ("form", "poetry", EXCLUDED), ("form", "poetry", WANTED)),
    # alternatives joined across filler words only, not across words of their own
    ("an essay collection or a book of poems", ("form", "poetry", ALLOWED), ("form", "poetry", WANTED)),
    ("poetry set in Iceland or anywhere cold", ("form", "poetry", WANTED), ("form", "poetry", ALLOWED)),
    # a word holding a negation character that is no negation ("有没有", "莫言") negates nothing
    ("有没有科幻小说推荐", ("genre", "科幻", WANTED), ("genre", "科幻", EXCLUDED)),
])
def test_a_cue_scopes_as_its_kind_says(brief, held, not_held):
    found = polarities(brief)
    assert held in found and not_held not in found, found


def test_a_word_of_time_is_no_topic_of_an_exclusion():
    reading = read_brief("Mysteries, but no cozy ones this time", get_vocabulary())
    assert not [t for t in reading.topics if "time" in t.text]


def test_an_occasions_name_is_no_kind_of_book():
    """"Women's History Month" names a month, not history books; the occasion's own values stay."""
    assert not polarities("a table for Women's History Month")
    assert ("emotional_tone", "浪漫深情", WANTED) in polarities("Valentine's Day picks")


def test_a_negation_about_the_reader_excludes_no_topic():
    """"无需专业背景的科普": what the reader need not have, however long its word, is nothing the books lack."""
    reading = read_brief("无需专业背景的科普", get_vocabulary())
    assert ("genre", "科普", WANTED) in {(m.field, m.value, m.polarity) for m in reading.mentions}
    assert not [t for t in reading.topics if t.polarity == EXCLUDED]


@pytest.mark.parametrize("brief", ["travel essays, not too preachy", "Westerns that aren't overly violent",
                                   "乡土散文，别太煽情", "家族小说，不要过于冗长的"])
def test_a_degrees_quality_is_no_excluded_subject(brief):
    """"not too preachy", "别太煽情": a degree names how a book reads, not a subject to leave off the shelf, nor a
    word to search for."""
    reading = read_brief(brief, get_vocabulary())
    assert not [t for t in reading.topics if t.polarity == EXCLUDED]
    assert not any(word in reading.searchable_text for word in ("preachy", "violent", "煽情", "冗长"))


@pytest.mark.parametrize("brief, children", [
    # grown-ups and children listed together: a shelf for everyone, nothing said of children's books
    ("Summer picks for adults and kids", None),
    ("大人和孩子都能读的历史书", None),
    # or named in one clause that a word for any of them follows
    ("关于海洋的书，大人小孩都可以读", None),
    ("Books about the ocean, kids and adults both welcome", None),
    # or read together, the context's words holding the children
    ("大人和孩子一起看的书", None),
    # the grown-ups' word says whose books these are
    ("成人童话，给大人读的", EXCLUDED),
    # a readers' age up to a children's book's oldest reader
    ("graphic novels for ages 7 to 10", WANTED),
    ("6-9岁孩子的科普", WANTED),
    ("novels for 16 year olds", None),
])
def test_who_the_shelf_is_for(brief, children):
    held = {m.polarity for m in read_brief(brief, get_vocabulary()).mentions  # a reader's word is no condition
            if m.field == "audience" and m.value == "children" and m.polarity != READER}
    assert held == ({children} if children else set()), held


@pytest.mark.parametrize("brief, words", [
    ("Books about the ocean for kids and adults", ("kids", "adults")),
    ("大人和孩子一起看的书", ("大人",)),
    ("memoirs for a fiction reader", ("fiction",)),
])
def test_the_readers_words_are_not_searched_for(brief, words):
    """Words that say who reads (both ages of an all-ages shelf, a kind named for the reader) are no keyword: "kids"
    had searched for children's books on an all-ages shelf about the ocean."""
    text = read_brief(brief, get_vocabulary()).searchable_text
    assert not [w for w in words if w in text], text


@pytest.mark.parametrize("brief, kind", [
    ("治愈系的书再补十来本，诗集也欢迎", ("form", "poetry")),
    ("light novels with a chocolate shop in them; a love story is fine, so is a whodunit", ("genre", "推理悬疑")),
])
def test_a_welcome_or_a_permission_carried_on_makes_a_kind_a_wish(brief, kind):
    """A hedge's words in both packs ("也欢迎" as "welcome"; "so is" carrying on the permission before it): the kind
    its clause names is allowed, not asked of every book."""
    assert (*kind, ALLOWED) in polarities(brief) and (*kind, WANTED) not in polarities(brief), brief


@pytest.mark.parametrize("brief, children", [
    ("For hearing parents raising a deaf child: practical guides", False),
    ("For adult children caring for a parent: short reads", False),
    ("家长陪孩子读的书", False),
    ("For parents: picture books to share at bedtime", True),  # a kind of book for children, whoever reads it
])
def test_a_child_of_the_grown_ups_named_before_it_is_no_audience(brief, children):
    """readings.yaml `guardians`: a word for children after a grown-up's in its clause is that grown-up's child,
    the reader's word; a word for children's books stays a kind of book."""
    assert (("audience", "children", WANTED) in polarities(brief)) == children, brief


@pytest.mark.parametrize("brief", ["给幼儿家长的育儿书", "给失去孩子的母亲的回忆录", "Sleep guides for young children's parents"])
def test_a_child_right_before_the_grown_ups_it_belongs_to_is_no_audience(brief):
    """readings.yaml `guardians` and `possessive`: a word for children right before a grown-up's, with a possessive
    between or none ("幼儿家长", "孩子的母亲"), is that grown-up's child, the reader's word; it had asked for
    children's books."""
    assert ("audience", "children", WANTED) not in polarities(brief), brief


@pytest.mark.parametrize("brief", ["Gardening books for adults plus a few for the kids",
                                   "环保书，成人的为主，也放几本给孩子的",
                                   # counted as a few books in a clause of their own, no additive word
                                   "成人读的历史书为主，角落放两三本给孩子的"])
def test_children_added_after_the_grown_ups_make_a_shelf_for_both(brief):
    """cues.yaml `additive`: children added after grown-ups in their clause ("for adults plus a few for the kids")
    make the shelf everyone's, as grown-ups added after children did; the grown-ups' word had excluded children's
    books."""
    held = polarities(brief)
    assert ("audience", "children", EXCLUDED) not in held and ("audience", "children", WANTED) not in held, brief


@pytest.mark.parametrize("brief, kind", [
    ("Greek tragedy in new translations", ("form", "drama")),
    ("a play about family secrets", ("form", "drama")),
    ("life stories of women scientists", ("genre", "传记回忆")),
    ("抗战老兵的亲历记", ("genre", "传记回忆")),
    ("曹禺的剧作", ("form", "drama")),
])
def test_everyday_words_for_a_form_name_it(brief, kind):
    """readings.yaml `kinds`: everyday words for a play or a life story (tragedy, "a play", life stories, 亲历记, 剧作)
    name the vocabulary's form or genre."""
    assert (*kind, WANTED) in polarities(brief), brief



@pytest.mark.parametrize("brief", ["Middle-grade fantasy, but nothing for preschoolers",
                                   "Chapter books for grades 3-5, nothing for toddlers"])
def test_an_excluded_band_of_the_readers_asked_for_excludes_no_books(brief):
    """evidence.bands_within: children asked for and a younger band of them excluded ("nothing for preschoolers")
    leaves children's books asked for; both had been read, and the shelf had nothing to hold."""
    held = polarities(brief)
    assert ("audience", "children", WANTED) in held and ("audience", "children", EXCLUDED) not in held, brief


@pytest.mark.parametrize("brief, children", [
    ("Adult fiction only, about grief", EXCLUDED),
    ("Young adult fiction about grief", None),
    ("Cloth books for babies", WANTED),
    ("Board books for a new mum's little one", WANTED),
])
def test_everyday_words_for_the_youngest_and_for_grown_ups_name_the_audience(brief, children):
    """readings.yaml `audiences` and `adults`: babies, newborns, a little one and board books ask for children's
    books; "adult" alone is grown-ups' (children's books excluded, only asked of the whole shelf), "young adult" no
    grown-up's."""
    held = {p for f, v, p in polarities(brief) if (f, v) == ("audience", "children")}
    assert held == ({children} if children else set()), brief


def test_a_form_for_the_parent_beside_books_for_the_child_is_a_part_of_the_shelf():
    """readings.yaml `readers` in the singular ("the parent", "the mother"): a kind given to the grown-up beside the
    child's books is one part of the shelf, a wish, not required of every book."""
    held = polarities("Picture books for the toddler and a novel or two for the parent")
    assert ("form", "fiction", WANTED) not in held and ("form", "fiction", ALLOWED) in held
